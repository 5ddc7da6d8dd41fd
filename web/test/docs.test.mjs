// Docs that run (D-146, the convention of the Python guide's D-139): every code block of
// docs/javascript.md is executed with its shown output.
//
// - a ```js block runs as an ES module, and a ```ts block after TypeScript's type erasure
//   (`transpileModule`), each on its own in a temporary directory where `oatf` is the package under test
//   (node_modules/oatf) and `examples` is the repository's examples directory;
// - a ```text block right after one of them (blank lines between allowed) is what it prints, compared
//   line by line, where `...` stands for any text (within a line, or as a whole line for any lines);
// - a block is not run only when the line before its fence is `<!-- doc-test: skip: REASON -->` (the
//   reason is required; readers do not see the comment);
// - any other block (```sh, ```json, ```html, …) without that marker fails: none is left out silently.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';
import { PACKAGE, REPO } from './support.mjs';

const GUIDE = join(REPO, 'docs/javascript.md');
const FENCE = /^(`{3,})([\w+-]*)\s*$/;
const MARKER = /^<!--\s*doc-test:\s*(.*?)\s*-->\s*$/;
const RUNS = new Set(['js', 'ts']);

/** The blocks of a Markdown file: `{ line, lang, code, marker, output }`; a text block that follows a
 * runnable block is that block's output. */
export function blocks(text) {
  const lines = text.split('\n');
  const found = [];
  let previousEnd = null;
  for (let index = 0; index < lines.length; ) {
    const opening = FENCE.exec(lines[index]);
    if (!opening) {
      index += 1;
      continue;
    }
    const [, fence, lang] = opening;
    let end = index + 1;
    while (end < lines.length && lines[end].trim() !== fence) end += 1;
    if (end === lines.length) throw new Error(`line ${index + 1}: a code block that is never closed`);
    const code = `${lines.slice(index + 1, end).join('\n')}\n`;
    let before = index - 1;
    while (before >= 0 && !lines[before].trim()) before -= 1;
    const marker = before >= 0 ? MARKER.exec(lines[before])?.[1] ?? null : null;
    const last = found.at(-1);
    const followsRunnable = previousEnd !== null && last && RUNS.has(last.lang) && lines.slice(previousEnd, index).every((l) => !l.trim());
    if (lang === 'text' && followsRunnable && marker === null) last.output = code;
    else found.push({ line: index + 1, lang, code, marker, output: null });
    previousEnd = RUNS.has(lang) ? end + 1 : null;
    index = end + 1;
  }
  return found;
}

/** Whether `got` is what `want` shows, `...` standing for any text. */
export function matches(want, got) {
  const pattern = want
    .trimEnd()
    .split('\n')
    .map((line) => (line.trim() === '...' ? '[\\s\\S]*' : line.split('...').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*')))
    .join('\n');
  return new RegExp(`^${pattern}$`).test(got.trimEnd());
}

const workdir = mkdtempSync(join(tmpdir(), 'oatf-docs-'));
mkdirSync(join(workdir, 'node_modules'));
symlinkSync(PACKAGE, join(workdir, 'node_modules/oatf'), 'dir');
symlinkSync(join(REPO, 'examples'), join(workdir, 'examples'), 'dir');
process.on('exit', () => rmSync(workdir, { recursive: true, force: true }));

const all = blocks(readFileSync(GUIDE, 'utf8'));

test('the guide has runnable blocks, and every block runs or says why not', () => {
  assert.ok(all.filter((b) => RUNS.has(b.lang)).length >= 8, 'docs/javascript.md lost its examples');
  for (const block of all) {
    if (block.marker === null) {
      assert.ok(RUNS.has(block.lang), `docs/javascript.md:${block.line}: a \`\`\`${block.lang || 'plain'} block that is not run: run it (js, ts) or say why with <!-- doc-test: skip: REASON --> on the line before`);
    } else {
      assert.match(block.marker, /^skip:\s*\S/, `docs/javascript.md:${block.line}: unknown marker <!-- doc-test: ${block.marker} -->`);
    }
  }
});

test('the matcher: `...` stands for any text, and a different output fails', () => {
  assert.ok(matches('a ... c\n...\nend\n', 'a b c\nx\ny\nend\n'));
  assert.ok(!matches('exploited\n', 'not_exploited\n'));
  assert.ok(!matches('a\n', 'a\nb\n'));
});

for (const block of all.filter((b) => RUNS.has(b.lang) && b.marker === null)) {
  test(`docs/javascript.md:${block.line} (${block.lang})`, { timeout: 60_000 }, () => {
    const code =
      block.lang === 'ts'
        ? ts.transpileModule(block.code, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: true } }).outputText
        : block.code;
    const file = join(workdir, `block-${block.line}.mjs`);
    writeFileSync(file, code);
    const run = spawnSync(process.execPath, [file], { cwd: workdir, encoding: 'utf8', timeout: 55_000 });
    assert.equal(run.status, 0, `docs/javascript.md:${block.line}: the block failed:\n${run.stderr}`);
    if (block.output !== null) {
      assert.ok(matches(block.output, run.stdout), `docs/javascript.md:${block.line}: the block printed\n${run.stdout}\nand the guide shows\n${block.output}`);
    } else {
      assert.equal(run.stdout.trim(), '', `docs/javascript.md:${block.line}: the block prints, but no \`\`\`text block after it shows what`);
    }
  });
}
