// The conformance corpus (conformance/, read as data) through the npm package, with the runner policy of
// the Rust runner (shared conformance-format/FORMAT.md): validate expectations are minimum sets,
// normalize and roundtrip compare structurally, numbers by value. Cases in known-failures.txt must fail.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { CONFORMANCE, cases, importValidateEntry, knownFailures, oatf, same } from './support.mjs';

const KNOWN = knownFailures();

/** Runs `check` as the case's test; a known failure must fail (strict xfail). */
function conformanceTest(c, check) {
  test(`${c.id} (${c.file})`, () => {
    if (!KNOWN.has(c.id)) return check();
    assert.throws(check, undefined, `${c.id} is in known-failures.txt but passes`);
  });
}

// --- validate -----------------------------------------------------------------------------------------

function reported(expected, diagnostics) {
  return expected.every((want) =>
    diagnostics.some((d) => d.rule === want.rule && (want.path === undefined || d.path === want.path)),
  );
}

const show = (list) => list.map(oatf.describe).join('\n');

/** The expectations of a validate case against a result (of either entry). */
function checkValidation(c, result) {
  const expected = c.expected;
  if (expected.valid === true || (Array.isArray(expected.errors) && expected.errors.length === 0)) {
    assert.deepEqual(result.errors, [], show(result.errors));
    assert.equal(result.valid, true);
  }
  if (expected.errors?.length) {
    assert.equal(result.valid, false);
    assert.ok(reported(expected.errors, result.errors), show(result.errors));
  }
  if (expected.valid === false) assert.ok(result.errors.length > 0, 'errors, got none');
  if ('warnings' in expected) {
    if (expected.warnings.length === 0) assert.deepEqual(result.warnings, []);
    else assert.ok(reported(expected.warnings, result.warnings), show(result.warnings));
  }
  // Every diagnostic has the documented shape.
  for (const d of [...result.errors, ...result.warnings]) {
    assert.deepEqual(Object.keys(d).sort(), ['column', 'kind', 'line', 'message', 'path', 'rule', 'severity']);
  }
}

// Both entries (D-140): the full package, and `oatf/validate` (async and sync), which must also give
// exactly the full package's result.
const small = await importValidateEntry();
/** What a `load` gave: its document, or its `OatfError`'s diagnostics. */
function outcome(load) {
  try {
    return { document: load() };
  } catch (e) {
    if (e instanceof oatf.OatfError) return { errors: e.errors };
    throw e;
  }
}
for (const c of cases('validate')) {
  conformanceTest(c, () => checkValidation(c, oatf.validate(c.input)));
  test(`${c.id} (${c.file}) through oatf/validate`, async () => {
    const result = await small.validate(c.input);
    assert.deepEqual(result, oatf.validate(c.input));
    assert.deepEqual(small.validateSync(c.input), result);
    // `load` too: the validation module's errors, or the normalize module's document (D-270).
    assert.deepEqual(outcome(() => small.loadSync(c.input)), outcome(() => oatf.load(c.input)));
    if (!KNOWN.has(c.id)) checkValidation(c, result);
    else assert.throws(() => checkValidation(c, result), undefined, `${c.id} is in known-failures.txt but passes`);
  });
}

// --- normalize and roundtrip ------------------------------------------------------------------------

/** FORMAT.md: a `phase.mode` equal to its actor's mode that `expected` leaves out is not a difference. */
function dropInheritedPhaseModes(actual, expected) {
  const expectedActors = expected?.attack?.execution?.actors;
  const actualActors = actual?.attack?.execution?.actors;
  if (!Array.isArray(expectedActors) || !Array.isArray(actualActors)) return;
  actualActors.forEach((actor, i) => {
    const expectedPhases = expectedActors[i]?.phases;
    (actor.phases ?? []).forEach((phase, j) => {
      const keeps = expectedPhases?.[j] && 'mode' in expectedPhases[j];
      if (!keeps && phase && phase.mode === actor.mode) delete phase.mode;
    });
  });
}

const readYaml12 = (text) => parseYaml(text, { version: '1.2', schema: 'core', intAsBigInt: false });

for (const c of cases('normalize')) {
  conformanceTest(c, () => {
    assert.equal(small.normalize(c.input), oatf.normalize(c.input));
    const actual = readYaml12(oatf.normalize(c.input));
    const expected = readYaml12(c.expected);
    dropInheritedPhaseModes(actual, expected);
    assert.ok(same(expected, actual), `expected\n${JSON.stringify(expected)}\nactual\n${JSON.stringify(actual)}`);
  });
}

for (const c of cases('roundtrip')) {
  conformanceTest(c, () => {
    const first = oatf.normalize(c.input);
    const second = oatf.normalize(first);
    const identical = same(readYaml12(first), readYaml12(second));
    assert.equal(identical, c.expected.identical, `first\n${first}\nsecond\n${second}`);
  });
}

// --- parse ---------------------------------------------------------------------------------------------

const parseDir = join(CONFORMANCE, 'parse');
for (const name of readdirSync(join(parseDir, 'valid')).sort()) {
  test(`parse/valid/${name}`, () => {
    const text = readFileSync(join(parseDir, 'valid', name), 'utf8');
    assert.doesNotThrow(() => oatf.normalize(text));
    assert.ok(oatf.validate(text).errors.every((e) => e.kind !== 'parse'));
    assert.equal(small.normalize(text), oatf.normalize(text));
    assert.deepEqual(small.validateSync(text), oatf.validate(text));
  });
}
for (const name of readdirSync(join(parseDir, 'invalid')).filter((n) => !n.endsWith('.meta.yaml')).sort()) {
  test(`parse/invalid/${name}`, () => {
    const text = readFileSync(join(parseDir, 'invalid', name), 'utf8');
    const result = oatf.validate(text);
    assert.equal(result.valid, false);
    assert.ok(result.errors.length > 0 && result.errors.every((e) => e.kind === 'parse'), show(result.errors));
    assert.throws(() => oatf.load(text), (e) => e instanceof oatf.OatfError && e.errors.length === result.errors.length);
    assert.deepEqual(small.validateSync(text), result);
    assert.throws(() => small.loadSync(text), (e) => e instanceof small.OatfError && e.errors.length === result.errors.length);
  });
}

// --- evaluate ------------------------------------------------------------------------------------------

const MODE_OF = { mcp: 'mcp_server', a2a: 'a2a_server', ag_ui: 'ag_ui_client' };
const withoutNulls = (o) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null));

function attackOf(indicators, logic) {
  const protocol = indicators.find((i) => i.protocol)?.protocol ?? 'mcp';
  const attack = { id: 'CONF-1', execution: { mode: MODE_OF[protocol] ?? 'mcp_server', state: {} }, indicators };
  if (logic) attack.correlation = { logic };
  return JSON.stringify({ oatf: '0.1', attack });
}

for (const c of cases('evaluate')) {
  const given = c.input;
  if (given.cel_evaluator === 'absent') {
    test(`${c.id} (${c.file})`, { skip: 'the npm package always has the CEL evaluator' }, () => {});
    continue;
  }
  conformanceTest(c, () => {
    const indicator = withoutNulls(given.indicator);
    for (const method of ['semantic', 'expression']) {
      if (indicator[method] && typeof indicator[method] === 'object') indicator[method] = withoutNulls(indicator[method]);
    }
    const semantic = given.semantic_evaluator ?? {};
    const judge = semantic.present
      ? ({ text, intent }) => {
          assert.equal(typeof text, 'string');
          assert.equal(typeof intent, 'string');
          return semantic.mock_score;
        }
      : undefined;
    const attack = oatf.compile(attackOf([indicator]), { judge, validate: false });
    const verdict = attack.evaluateMessage(given.message);
    assert.deepEqual(
      verdict.indicatorVerdicts.map((v) => v.result),
      [c.expected],
      JSON.stringify(verdict.indicatorVerdicts),
    );
  });
}

// --- verdict -------------------------------------------------------------------------------------------

for (const c of cases('verdict')) {
  conformanceTest(c, () => {
    const given = c.input;
    const indicators = given.indicators.map((i) => ({
      surface: 'tools/call',
      target: 'arguments',
      pattern: { contains: 'x' },
      ...i,
    }));
    const attack = oatf.compile(attackOf(indicators, given.correlation_logic), { validate: false });
    // The corpus writes the format's snake_case; the package takes and gives camelCase (D-141).
    const verdict = attack.computeVerdict(given.verdicts.map(withoutNulls).map(({ indicator_id: indicatorId, ...rest }) => ({ indicatorId, ...rest })));
    assert.equal(verdict.result, c.expected.result);
    const { not_matched: notMatched, ...summary } = c.expected.evaluation_summary;
    assert.deepEqual(verdict.evaluationSummary, { ...summary, notMatched });
    if ('max_tier' in c.expected) assert.equal(verdict.maxTier ?? null, c.expected.max_tier);
  });
}
