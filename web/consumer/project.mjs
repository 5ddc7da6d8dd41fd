// A consumer project of the npm package, as `npm install` would lay it out: target/consumer/ with the
// package copied to node_modules/oatf (from target/npm, built by `cargo xtask wasm`) and this folder's
// sources (the bundlers and tsc run from web/node_modules). Used by the bundler builds (bundlers.mjs) and the TypeScript check (types.mjs).
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const HERE = dirname(fileURLToPath(import.meta.url));
export const REPO = resolve(HERE, '../..');
export const PROJECT = join(REPO, 'target/consumer');
const NPM = join(REPO, 'target/npm');

/** Lays the project out afresh and returns its directory. */
export function makeProject() {
  if (!existsSync(join(NPM, 'package.json'))) throw new Error('build the npm package first: cargo xtask wasm');
  rmSync(PROJECT, { recursive: true, force: true });
  mkdirSync(join(PROJECT, 'node_modules'), { recursive: true });
  cpSync(NPM, join(PROJECT, 'node_modules/oatf'), { recursive: true });
  cpSync(join(HERE, 'src'), join(PROJECT, 'src'), { recursive: true });
  // The example and its complied trace as a module, so that no bundler needs a text loader.
  const example = {
    yaml: readFileSync(join(REPO, 'examples/mcp-tool-poisoning.yaml'), 'utf8'),
    trace: readFileSync(join(REPO, 'examples/mcp-tool-poisoning.complied.jsonl'), 'utf8'),
  };
  writeFileSync(join(PROJECT, 'src/example.js'), `export default ${JSON.stringify(example)};\n`);
  return PROJECT;
}
