// The examples of examples/ through the npm package, with the verdicts the tables of examples/README.md
// give (read from the README, not copied), and the same trace through evaluateTrace and TraceEvaluator.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { EXAMPLES, oatf } from './support.mjs';

const readme = readFileSync(join(EXAMPLES, 'README.md'), 'utf8');
const rows = readme
  .split('\n')
  .filter((l) => l.startsWith('| `'))
  .map((l) => l.split('|').slice(1, -1).map((cell) => cell.trim().replace(/^`|`$/g, '')));

/** trace → { result, max_tier, matched, not_matched, error, skipped } from the "Expected verdicts" table. */
const EXPECTED = Object.fromEntries(
  rows
    .filter((r) => r.length === 8)
    .map(([trace, result, tier, , matched, notMatched, error, skipped]) => [
      trace,
      { result, max_tier: tier === '-' ? null : tier, matched: +matched, not_matched: +notMatched, error: +error, skipped: +skipped },
    ]),
);
/** [trace, indicator, expected result] from the table of deciding messages. */
const PER_INDICATOR = rows.filter((r) => r.length === 4).map(([trace, indicator, expected]) => [trace, indicator, expected]);

const documentOf = (trace) => readFileSync(join(EXAMPLES, `${trace.split('.')[0]}.yaml`), 'utf8');
const summary = (v) => {
  const { notMatched, ...counts } = v.evaluationSummary;
  return { result: v.result, max_tier: v.maxTier ?? null, ...counts, not_matched: notMatched };
};

test('every trace of examples/ has a row in the README table', () => {
  const traces = readdirSync(EXAMPLES).filter((n) => n.endsWith('.jsonl')).sort();
  assert.ok(traces.length >= 8);
  assert.deepEqual(Object.keys(EXPECTED).sort(), traces);
  assert.ok(PER_INDICATOR.length >= traces.length);
});

test('every example document is valid', () => {
  for (const name of readdirSync(EXAMPLES).filter((n) => n.endsWith('.yaml') && !n.endsWith('.test.yaml'))) {
    const result = oatf.validate(readFileSync(join(EXAMPLES, name), 'utf8'));
    assert.deepEqual(result.errors, [], name);
    assert.equal(oatf.load(readFileSync(join(EXAMPLES, name), 'utf8')).oatf, '0.1');
  }
});

for (const [trace, expected] of Object.entries(EXPECTED)) {
  test(`${trace}: the verdict of the README`, () => {
    const attack = oatf.compile(documentOf(trace));
    const jsonl = readFileSync(join(EXAMPLES, trace), 'utf8');
    const report = attack.evaluateTrace(jsonl, { name: trace });
    assert.deepEqual(summary(report), expected);
    // The verdict document of `oatf evaluate --format json`.
    assert.equal(report.attackId, attack.attackId);
    assert.deepEqual(Object.keys(report.trace).sort(), [
      'actorsWithoutMessages', 'afterGracePeriod', 'file', 'lines', 'malformedLines', 'matchedLines',
      'messages', 'verdictFromPartialTrace',
    ]);
    assert.equal(report.trace.file, trace);
    assert.equal(report.trace.malformedLines, 0);
    assert.equal(Object.keys(report.trace.matchedLines).length, expected.matched);
    assert.deepEqual(report.indicatorVerdicts.map((v) => v.indicatorId), attack.indicatorIds);
    assert.deepEqual(report.traceErrors, []);

    // Streaming, one message at a time (objects and JSON lines), gives the same verdict.
    const evaluator = new oatf.TraceEvaluator(attack);
    jsonl.split('\n').filter((l) => l.trim()).forEach((line, i) => evaluator.push(i % 2 ? line : JSON.parse(line)));
    const pushed = evaluator.finish();
    assert.deepEqual(summary(pushed), expected);
    assert.throws(() => evaluator.finish(), /already/);
  });
}

for (const [trace, indicator, expected] of PER_INDICATOR) {
  test(`${trace}: ${indicator} is ${expected}`, () => {
    const report = oatf.compile(documentOf(trace)).evaluateTrace(readFileSync(join(EXAMPLES, trace), 'utf8'));
    const verdict = report.indicatorVerdicts.find((v) => v.indicatorId === indicator);
    assert.ok(verdict, `${indicator} not in ${JSON.stringify(report.indicatorVerdicts)}`);
    assert.equal(verdict.result, expected);
  });
}
