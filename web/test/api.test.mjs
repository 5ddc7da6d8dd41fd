// The API of the npm package: names and shapes (docs/javascript.md), round trips, and agreement with
// the Python package's fields.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EXAMPLES, PACKAGE, oatf, same } from './support.mjs';

const example = readFileSync(join(EXAMPLES, 'mcp-tool-poisoning.yaml'), 'utf8');

test('version is the workspace version in package.json', () => {
  const manifest = JSON.parse(readFileSync(join(PACKAGE, 'package.json'), 'utf8'));
  assert.equal(oatf.version, manifest.version);
  assert.match(oatf.version, /^\d+\.\d+\.\d+/);
});

test('load gives the normalized document; serialize and load again give the same', () => {
  const document = oatf.load(example);
  assert.equal(document.oatf, '0.1');
  assert.ok(document.attack.indicators.every((i) => typeof i.id === 'string'));
  const yaml = oatf.serialize(document);
  assert.equal(typeof yaml, 'string');
  assert.ok(same(oatf.load(yaml), document));
  assert.equal(oatf.normalize(yaml), yaml);
  const { warnings } = oatf.loadWithWarnings(example);
  assert.ok(Array.isArray(warnings));
});

test('a parse error has a line and a column; OatfError mirrors its first error', () => {
  try {
    oatf.load('oatf: "0.1"\nattack:\n  id: [unclosed\n');
    assert.fail('load did not throw');
  } catch (e) {
    assert.ok(e instanceof oatf.OatfError && e instanceof Error);
    assert.equal(e.errors[0].kind, 'parse');
    assert.equal(e.line, e.errors[0].line);
    assert.ok(e.line >= 3 && e.column >= 1);
    assert.match(e.message, /^line \d+, column \d+: /);
  }
});

test('validate shows an invalid field at its own line', () => {
  const text = example.replace(/severity:\s*\n?(\s*)level: \w+/, (m) => m.replace(/level: \w+/, 'level: apocalyptic'));
  assert.notEqual(text, example, 'the example has a severity level to break');
  const result = oatf.validate(text);
  assert.equal(result.valid, false);
  const error = result.errors.find((e) => e.path?.startsWith('attack.severity'));
  assert.ok(error, JSON.stringify(result.errors));
  assert.match(text.split('\n')[error.line - 1], /apocalyptic/);
});

test('compile throws OatfError for an invalid document, and not for validate:false', () => {
  const invalid = 'oatf: "0.1"\nattack:\n  execution: {mode: mcp_server, state: {tools: []}}\n  indicators: [{surface: tools/call, target: arguments, pattern: {regex: "("}}]\n';
  assert.throws(() => oatf.compile(invalid), (e) => e instanceof oatf.OatfError && e.errors.some((d) => d.rule === 'V-013'));
  const attack = oatf.compile(invalid, { validate: false });
  assert.equal(attack.evaluateMessage({ arguments: 'x' }).indicatorVerdicts[0].result, 'error');
});

test('compile validates its options', () => {
  assert.throws(() => oatf.compile(example, { judge: 3 }), TypeError);
  assert.throws(() => new oatf.TraceEvaluator({}), TypeError);
});

test('computeVerdict applies the correlation to verdicts from elsewhere', () => {
  const attack = oatf.compile(example);
  const [first, second] = attack.indicatorIds;
  const verdict = attack.computeVerdict([{ indicatorId: first, result: 'matched' }, { indicatorId: second, result: 'not_matched' }]);
  assert.ok(['exploited', 'partial'].includes(verdict.result));
  assert.deepEqual(verdict.evaluationSummary, { matched: 1, notMatched: 1, error: 0, skipped: 0 });
  assert.throws(() => attack.computeVerdict([{ result: 'matched' }]), TypeError);
});

test('an empty trace is an error verdict, as in the CLI', () => {
  const report = oatf.compile(example).evaluateTrace('');
  assert.equal(report.result, 'error');
  assert.equal(report.trace.messages, 0);
});
