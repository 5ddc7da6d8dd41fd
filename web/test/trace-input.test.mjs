// How a trace reaches the module (D-201): text, bytes and arrays are read a chunk of 1 MiB at a time, so
// lines and UTF-8 characters split across chunks must read as whole ones; a trace given a piece at a time to
// `TraceEvaluator.pushLines` (D-291) reads as the whole; and the verdict document of every example is the
// CLI's (`oatf evaluate --format json`), field for field, whichever way it is given.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { EXAMPLES, REPO, oatf } from './support.mjs';

const CHUNK = 1 << 20;
/** A verdict document with its evaluation times (the clock's, to the second) taken out. */
const timeless = (report) => JSON.parse(JSON.stringify(report, (key, value) => (key === 'timestamp' ? '<time>' : value)));
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

/** `bytes` given to a new TraceEvaluator's `pushLines` in pieces of the sizes `sizes` (repeated), then finished. */
function pushedInPieces(attack, bytes, sizes, options) {
  const evaluator = new oatf.TraceEvaluator(attack, options);
  for (let from = 0, i = 0; from < bytes.length; i += 1) {
    const to = Math.min(bytes.length, from + sizes[i % sizes.length]);
    evaluator.pushLines(bytes.subarray(from, to));
    from = to;
  }
  return evaluator.finish();
}

test('a trace given to pushLines in pieces reads as the whole: lines and characters across pieces', () => {
  const { lines, matchLine } = straddlingTrace();
  const attack = oatf.compile(document);
  const bytes = new TextEncoder().encode(`${lines.join('\n')}\n`);
  const whole = timeless(attack.evaluateTrace(bytes, { name: 'split' }));
  assert.deepEqual(whole.trace.matchedLines, { 'OATF-EX-001-02': matchLine });
  // Pieces larger than the module's chunk, of odd sizes (most cut a line, some a character), of one byte.
  for (const sizes of [[bytes.length], [(1 << 20) + 7, 333], [4093, 1, 2, 65_537]]) {
    assert.deepEqual(timeless(pushedInPieces(attack, bytes, sizes, { name: 'split' })), whole, `pieces of ${sizes}`);
  }
  assert.deepEqual(timeless(pushedInPieces(attack, bytes.subarray(0, 20_000), [1])), timeless(attack.evaluateTrace(bytes.subarray(0, 20_000), { name: '<push>' })));
  // As text, the string's pieces encoded one by one (each ends on a whole character: a lone surrogate
  // becomes U+FFFD, as in any string given to the module).
  const evaluator = new oatf.TraceEvaluator(attack, { name: 'split' });
  const text = `${lines.join('\n')}\n`;
  for (let from = 0, to; from < text.length; from = to) {
    to = Math.min(text.length, from + 100_003);
    if (/[\ud800-\udbff]/.test(text[to - 1])) to += 1;
    evaluator.pushLines(text.slice(from, to));
  }
  assert.deepEqual(timeless(evaluator.finish()), whole);
});

test('pushLines: blank, malformed, CRLF, unfinished and too long lines at the lines evaluateTrace gives them', () => {
  const attack = oatf.compile(document);
  const long = `{"seq": 9, "direction": "incoming", "content": {"notes": "${'x'.repeat(16 * 1024 * 1024)}"}}`;
  const text = `${call(1, 'a')}\r\n\n  \nnot json\r\n${call(5, 'cat ~/.ssh/id_rsa')}\n${long}\n{"seq": 7,}\n\n${call(9, 'end')}`;
  const bytes = new TextEncoder().encode(text);
  const whole = attack.evaluateTrace(bytes, { name: 't' });
  assert.deepEqual(whole.traceErrors.map((e) => e.line), [4, 6, 7]);
  assert.match(whole.traceErrors[1].message, /longer than the limit/);
  assert.equal(whole.trace.lines, 9);
  assert.deepEqual(whole.trace.matchedLines, { 'OATF-EX-001-02': 5 });
  for (const sizes of [[1 << 20], [3, 1 << 22, 5]]) {
    assert.deepEqual(timeless(pushedInPieces(attack, bytes, sizes, { name: 't' })), timeless(whole), `pieces of ${sizes}`);
  }
});

test('pushLines and push number their entries on from each other; misuse throws', () => {
  const attack = oatf.compile(document);
  const evaluator = new oatf.TraceEvaluator(attack);
  evaluator.push(call(1, 'a'));
  evaluator.pushLines(`${call(2, 'b')}\nnot json\n${call(4, 'cat ~/.ssh/id_rsa')}\n{"seq"`);
  assert.equal(evaluator.messages, 3);
  // The last piece ended inside a line: a message cannot come before its end.
  assert.throws(() => evaluator.push(call(6, 'c')), (e) => !(e instanceof oatf.TraceError) && /ended inside a line/.test(e.message));
  evaluator.pushLines(': 5,}\n');
  assert.throws(() => evaluator.push('nope'), (e) => e instanceof oatf.TraceError && /^entry 6:/.test(e.message));
  const report = evaluator.finish();
  assert.deepEqual(report.traceErrors.map((e) => e.line), [3, 5, 6]);
  assert.deepEqual(report.trace.matchedLines, { 'OATF-EX-001-02': 4 });
  assert.equal(report.trace.file, '<push>');
  assert.throws(() => evaluator.pushLines('{}\n'), /finish\(\) was already called/);
  assert.throws(() => evaluator.pushLines([call(1, 'a')]), TypeError);
  assert.throws(() => new oatf.TraceEvaluator(attack, { name: 3 }), TypeError);
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
    const bytes = readFileSync(path);
    for (const evaluate of [() => attack.evaluateTrace(bytes, { name: path }), () => attack.evaluateTrace(bytes.toString('utf8'), { name: path }), () => pushedInPieces(attack, bytes, [97], { name: path })]) {
      const { traceErrors, ...report } = evaluate();
      assert.deepEqual(traceErrors, []);
      assert.deepEqual(timeless(report), expected);
      assert.equal(report.exitCode, cli.status);
    }
  });
}
