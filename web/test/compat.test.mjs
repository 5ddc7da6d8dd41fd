// The thoughtjack-context compatibility profile (D-100) through the npm package, on the fixtures of
// tests/fixtures/thoughtjack-context (their README states the verdicts); the default profile's
// warning (D-101).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO, oatf } from './support.mjs';

const FIXTURES = join(REPO, 'tests/fixtures/thoughtjack-context');
const attack = oatf.compile(readFileSync(join(FIXTURES, 'attack.yaml'), 'utf8'));
const exploited = readFileSync(join(FIXTURES, 'exploited.jsonl'), 'utf8');

test('evaluateTrace takes {compat}; the default warns, naming the option', () => {
  const context = attack.evaluateTrace(exploited, { compat: 'thoughtjack-context' });
  assert.equal(context.result, 'exploited');
  assert.equal(context.maxTier, 'ingested');
  const exact = attack.evaluateTrace(exploited);
  assert.equal(exact.result, 'not_exploited');
  const warning = exact.warnings.find((w) => w.kind === 'compat_would_change');
  assert.ok(warning?.message.includes('{compat: "thoughtjack-context"}'), JSON.stringify(exact.warnings));
  assert.equal(attack.evaluateTrace(exploited, { compat: 'spec-exact' }).result, 'not_exploited');
});

test('TraceEvaluator takes {compat}', () => {
  const results = [undefined, 'thoughtjack-context'].map((compat) => {
    const evaluator = new oatf.TraceEvaluator(attack, { compat });
    for (const line of exploited.trim().split('\n')) evaluator.push(line);
    return evaluator.finish().result;
  });
  assert.deepEqual(results, ['not_exploited', 'exploited']);
});

test('an unknown profile throws RangeError naming the known ones', () => {
  assert.throws(() => attack.evaluateTrace(exploited, { compat: 'thoughtjack' }), {
    name: 'RangeError',
    message: /expected one of: spec-exact, thoughtjack-context/,
  });
  assert.throws(() => new oatf.TraceEvaluator(attack, { compat: 'x' }), RangeError);
  assert.throws(() => attack.evaluateTrace(exploited, { compat: 1 }), TypeError);
});
