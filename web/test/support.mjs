// Shared by the Node tests: the npm package under test (target/npm, built by `cargo xtask wasm`, or
// OATF_NPM_DIR), the repository's corpus and examples, and a YAML 1.2 reader for the fixture files.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parse } from 'yaml';

export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const CONFORMANCE = join(REPO, 'conformance');
export const EXAMPLES = join(REPO, 'examples');
export const PACKAGE = resolve(process.env.OATF_NPM_DIR ?? join(REPO, 'target/npm'));

if (!existsSync(join(PACKAGE, 'package.json'))) {
  throw new Error(`no npm package in ${PACKAGE}: build it with \`cargo xtask wasm\``);
}

/** The package, imported as Node imports it (its `node` export). */
export const oatf = await import(pathToFileURL(join(PACKAGE, 'node.js')).href);

/** The validation entry `oatf/validate` (its `node` export), imported on demand: a test file that
 * checks when the syntax module loads imports it before anything validates. */
export const importValidateEntry = () => import(pathToFileURL(join(PACKAGE, 'validate-node.js')).href);

/** A YAML file of the corpus as data (YAML 1.2 core schema, as the corpus is written). */
export function readYaml(path) {
  return parse(readFileSync(path, 'utf8'), { version: '1.2', schema: 'core', maxAliasCount: -1 });
}

/** The ids of conformance/known-failures.txt. */
export function knownFailures() {
  return new Set(
    readFileSync(join(CONFORMANCE, 'known-failures.txt'), 'utf8')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#'))
      .map((l) => l.split(/\s+/)[0]),
  );
}

/** Every case of the files of `dir` (conformance/<dir>/*.yaml), with the file name. */
export function cases(dir) {
  const folder = join(CONFORMANCE, dir);
  const all = [];
  for (const name of readdirSync(folder).filter((n) => n.endsWith('.yaml')).sort()) {
    for (const c of readYaml(join(folder, name)) ?? []) all.push({ ...c, file: `${dir}/${name}` });
  }
  if (all.length === 0) throw new Error(`no conformance cases in ${folder}`);
  return all;
}

/** Structural equality with numbers by value (JavaScript numbers already compare 42 and 42.0 alike). */
export function same(a, b) {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) return a.length === b.length && a.every((x, i) => same(x, b[i]));
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => Object.hasOwn(b, k) && same(a[k], b[k]));
}
