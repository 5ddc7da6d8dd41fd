// How a trace reaches the module (D-201): text, bytes and arrays are read a chunk of 1 MiB at a time, so
// lines and UTF-8 characters split across chunks must read as whole ones; and the verdict document of every
// example is the CLI's (`oatf evaluate --format json`), field for field.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { EXAMPLES, REPO, oatf } from './support.mjs';

const CHUNK = 1 << 20;
const document = readFileSync(join(EXAMPLES, 'mcp-tool-poisoning.yaml'), 'utf8');
const call = (seq, notes) =>
  JSON.stringify({ seq, direction: 'incoming', method: 'tools/call', content: { name: 'format_code', arguments: { code: 'x = 1', notes } } });

/** A trace of about 2.5 MiB whose one matching line holds the first chunk boundary and whose lines hold
 * multi-byte characters, one of them across the second boundary; with the line numbers of the match. */
function straddlingTrace() {
  const utf8 = new TextEncoder();
  const lines = [];
  let bytes = 0;
  const add = (line) => {
    lines.push(line);
    bytes += utf8.encode(line).length + 1;
  };
  // Fillers (they pass the filters and do not match) up to a little before the first boundary.
  while (bytes < CHUNK - 300) add(call(lines.length + 1, `café ☕ ${lines.length} 𝄞`));
  const matchLine = lines.length + 1;
  add(call(matchLine, `${'n'.repeat(200)} cat ~/.ssh/id_rsa ${'m'.repeat(200)}`));
  assert.ok(bytes > CHUNK && bytes - utf8.encode(lines.at(-1)).length - 1 < CHUNK, 'the match holds the boundary');
  // Up to the second boundary, then a line whose 4-byte character is cut by it.
  while (bytes < 2 * CHUNK - 400) add(call(lines.length + 1, `ünïcödé ${lines.length}`));
  const prefix = `{"seq": ${lines.length + 1}, "direction": "incoming", "method": "tools/call", "content": {"arguments": {"notes": "`;
  const pad = 2 * CHUNK - bytes - utf8.encode(prefix).length - 2;
  add(`${prefix}${'p'.repeat(pad)}𝄞𝄞"}}}`);
  assert.equal(utf8.encode(lines.slice(0, -1).join('\n')).length + 1 + utf8.encode(prefix).length + pad + 2, 2 * CHUNK, 'the character holds the boundary');
  while (bytes < 2.5 * CHUNK) add(call(lines.length + 1, `fin ${lines.length}`));
  return { lines, matchLine };
}

test('a trace read in chunks: lines and characters across chunks read whole, text, bytes and arrays alike', () => {
  const { lines, matchLine } = straddlingTrace();
  const attack = oatf.compile(document);
  const text = `${lines.join('\n')}\n`;
  const fromText = attack.evaluateTrace(text);
  assert.equal(fromText.result, 'exploited');
  assert.equal(fromText.trace.lines, lines.length);
  assert.equal(fromText.trace.messages, lines.length);
  assert.equal(fromText.trace.malformedLines, 0);
  assert.deepEqual(fromText.traceErrors, []);
  assert.deepEqual(fromText.trace.matchedLines, { 'OATF-EX-001-02': matchLine });
  const same = (report) => ({ ...report, timestamp: null, indicatorVerdicts: report.indicatorVerdicts.map((v) => ({ ...v, timestamp: null })) });
  assert.deepEqual(same(attack.evaluateTrace(new TextEncoder().encode(text))), same(fromText));
  assert.deepEqual(same(attack.evaluateTrace(lines)), same(fromText));
  // Pushed one message at a time, with no chunks: the same evaluation.
  const evaluator = new oatf.TraceEvaluator(attack);
  for (const line of lines) evaluator.push(line);
  const pushed = evaluator.finish();
  assert.deepEqual(pushed.indicatorVerdicts.map((v) => [v.result, v.evidence]), fromText.indicatorVerdicts.map((v) => [v.result, v.evidence]));
});

test('bytes that are not UTF-8 make their line malformed, in any chunk', () => {
  const { lines } = straddlingTrace();
  const bytes = new TextEncoder().encode(`${lines.join('\n')}\n`);
  // A byte that is never UTF-8, in the line that holds the second boundary.
  bytes[2 * CHUNK - 10] = 0xff;
  const report = oatf.compile(document).evaluateTrace(bytes);
  assert.equal(report.trace.malformedLines, 1);
  assert.match(report.traceErrors[0].message, /not valid UTF-8/);
  assert.equal(report.trace.messages, lines.length - 1);
});

/** The CLI to compare with: OATF_BIN, else a build in target/ (CI sets OATF_BIN). */
const CLI = [process.env.OATF_BIN, join(REPO, 'target/debug/oatf'), join(REPO, 'target/release/oatf')].find((p) => p && existsSync(p));

/** The CLI's snake_case keys as the package writes them (D-141): camelCase, indicator ids left alone. */
const camel = (value, key) => {
  if (Array.isArray(value)) return value.map((v) => camel(v));
  if (value === null || typeof value !== 'object' || key === 'matched_lines') return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k.replace(/_([a-z])/g, (_, c) => c.toUpperCase()), camel(v, k)]));
};
/** A verdict document with its evaluation times (the clock's, to the second) taken out. */
const timeless = (report) => JSON.parse(JSON.stringify(report, (key, value) => (key === 'timestamp' ? '<time>' : value)));

for (const trace of readdirSync(EXAMPLES).filter((n) => n.endsWith('.jsonl')).sort()) {
  test(`${trace}: the CLI's verdict document`, { skip: CLI ? false : 'no oatf binary: set OATF_BIN or build the CLI' }, () => {
    const doc = join(EXAMPLES, `${trace.split('.')[0]}.yaml`);
    const path = join(EXAMPLES, trace);
    const cli = spawnSync(CLI, ['evaluate', doc, path, '--format', 'json'], { encoding: 'utf8' });
    assert.ok(cli.stdout, `${CLI} printed nothing: ${cli.stderr}`);
    // The CLI names itself as the verdict's `source`, which the consuming tool sets, never the SDK: the
    // package leaves it to its caller. Everything else is the same.
    const { source, ...expected } = timeless(camel(JSON.parse(cli.stdout)));
    assert.match(source, /^oatf /);
    const attack = oatf.compile(readFileSync(doc, 'utf8'));
    for (const input of [readFileSync(path), readFileSync(path, 'utf8')]) {
      const { traceErrors, ...report } = attack.evaluateTrace(input, { name: path });
      assert.deepEqual(traceErrors, []);
      assert.deepEqual(timeless(report), expected);
      assert.equal(report.exitCode, cli.status);
    }
  });
}
