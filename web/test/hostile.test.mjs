// Hostile and faulty input through the npm package: each gives a diagnostic, an `error` result or a
// JavaScript exception with a clear message; none may crash the WebAssembly instance (a trap) or hang.
// After all of them the instance must still work (the last test).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { oatf } from './support.mjs';

const TIMEOUT = { timeout: 20_000 };

const MCP = `oatf: "0.1"
attack:
  id: OATF-900
  execution:
    mode: mcp_server
    state:
      tools: []
  indicators:
    - surface: tools/call
      target: arguments.path
      pattern:
        contains: .ssh/id_rsa
`;

const call = (path, seq = 1) =>
  JSON.stringify({ seq, direction: 'incoming', method: 'tools/call', content: { name: 'read', arguments: { path } } });

/** A WebAssembly trap (`RuntimeError`: unreachable, stack overflow, out of memory) is a crash. */
function noTrap(f) {
  try {
    return f();
  } catch (e) {
    assert.ok(!(e instanceof WebAssembly.RuntimeError), `WebAssembly trap: ${e}`);
    assert.ok(!(e instanceof RangeError), `JavaScript stack or memory exhausted: ${e}`);
    throw e;
  }
}

test('a load error carries every problem, each at its own line', TIMEOUT, () => {
  const text = MCP.replace('id: OATF-900', 'id: OATF-900\n  severity: apocalyptic').replace('mode: mcp_server', 'mode: carrier_pigeon');
  assert.throws(() => oatf.load(text), oatf.OatfError);
  const error = (() => { try { oatf.load(text); } catch (e) { return e; } })();
  assert.ok(error.errors.length >= 2, JSON.stringify(error.errors));
  const [first] = error.errors;
  assert.deepEqual([error.rule, error.path, error.line, error.column], [first.rule, first.path, first.line, first.column]);
  const severity = error.errors.find((p) => p.path === 'attack.severity');
  assert.match(text.split('\n')[severity.line - 1], /apocalyptic/);
  for (const p of error.errors) {
    assert.match(p.rule, /^V-/);
    assert.ok(p.line >= 1 && p.column >= 1);
  }
});

test('a 10 MiB document is refused before it is parsed', TIMEOUT, () => {
  const huge = `oatf: '0.1'\nattack:\n  description: '${'x'.repeat(11 * 1024 * 1024)}'\n`;
  const started = performance.now();
  const result = noTrap(() => oatf.validate(huge));
  assert.equal(result.valid, false);
  assert.match(result.errors[0].message, /more than the limit/);
  assert.throws(() => oatf.load(huge), oatf.OatfError);
  assert.ok(performance.now() - started < 10_000);
});

test('a document just under 10 MiB is read, not refused', TIMEOUT, () => {
  const description = 'x'.repeat(9 * 1024 * 1024);
  const result = noTrap(() => oatf.validate(MCP.replace('id: OATF-900', `id: OATF-900\n  description: '${description}'`)));
  assert.deepEqual(result.errors, []);
});

test('deep nesting is a parse error, not a stack overflow', TIMEOUT, () => {
  for (const text of ['a: ' + '['.repeat(100_000) + ']'.repeat(100_000) + '\n', 'a:\n' + Array.from({ length: 5000 }, (_, i) => ' '.repeat(i + 2) + 'b:').join('\n') + ' 1\n', '{'.repeat(1_000_000)]) {
    const result = noTrap(() => oatf.validate(text));
    assert.equal(result.valid, false);
    assert.equal(result.errors[0].kind, 'parse');
  }
  assert.throws(() => oatf.load('a: ' + '['.repeat(10_000) + ']'.repeat(10_000) + '\n'), /deeper than the limit/);
});

test('an alias bomb is refused without expansion', TIMEOUT, () => {
  let bomb = 'a: &a ["x","x","x","x","x","x","x","x","x"]\n';
  for (let i = 0; i < 8; i++) {
    const prev = String.fromCharCode(97 + i);
    bomb += `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [${Array(9).fill(`*${prev}`).join(',')}]\n`;
  }
  const error = noTrap(() => { try { oatf.load(bomb); } catch (e) { return e; } });
  assert.ok(error instanceof oatf.OatfError);
  assert.ok(error.errors.some((p) => p.rule === 'V-020'), JSON.stringify(error.errors));
});

test('garbage, NUL and foreign tags do not crash', TIMEOUT, () => {
  for (const text of ['\0', '- - - -', '{', 'oatf: "0.1"\nattack: 3\n', '', '\ufeff', '!!python/object:os.system x', '\ud800']) {
    assert.throws(() => noTrap(() => oatf.load(text)), oatf.OatfError);
    assert.equal(typeof oatf.validate(text).valid, 'boolean');
  }
  assert.throws(() => oatf.validate(42), TypeError);
  assert.throws(() => oatf.serialize('text'), TypeError);
});

test('a catastrophic regex is linear', TIMEOUT, () => {
  const attack = oatf.compile(MCP.replace('contains: .ssh/id_rsa', () => "regex: '(a+)+$'"));
  const started = performance.now();
  const verdict = noTrap(() => attack.evaluateMessage({ arguments: { path: 'a'.repeat(100_000) + '!' } }));
  assert.equal(verdict.result, 'not_exploited');
  assert.ok(performance.now() - started < 5_000);
});

test('an oversized regex is an error of its indicator, not a hang', TIMEOUT, () => {
  // The SDK checks regex size when it compiles the attack (V-013 checks the syntax): the indicator is
  // `error` and names the limit, as in the Rust API.
  const attack = oatf.compile(MCP.replace('contains: .ssh/id_rsa', () => "regex: '(((a{100}){100}){100}){100}'"));
  const verdict = noTrap(() => attack.evaluateMessage({ arguments: { path: 'aaaa' } }));
  assert.equal(verdict.result, 'error');
  assert.match(verdict.indicatorVerdicts[0].evidence, /compiles to more than \d+ bytes/);
});

test('CEL: deep nesting is refused, nesting within the limit parses on the wasm stack', TIMEOUT, () => {
  const cel = (expression) => MCP.replace("pattern:\n        contains: .ssh/id_rsa", () => `expression:\n        cel: ${JSON.stringify(expression)}`);
  const tooDeep = noTrap(() => oatf.validate(cel('('.repeat(10_000) + '1' + ')'.repeat(10_000) + ' == 1')));
  assert.equal(tooDeep.valid, false);
  assert.ok(tooDeep.errors.some((e) => e.rule === 'V-014'), JSON.stringify(tooDeep.errors));
  // 64 levels (CelLimits::max_nesting): the deepest expression the parser accepts.
  for (const open of ['(', '[']) {
    const close = open === '(' ? ')' : ']';
    const deep = open.repeat(64) + '1' + close.repeat(64);
    const result = noTrap(() => oatf.validate(cel(`${deep} == ${deep}`)));
    assert.ok(result.errors.every((e) => !/panicked|stack/.test(e.message)), JSON.stringify(result.errors));
  }
  const attack = oatf.compile(cel('message.arguments.path.contains("id_rsa")'));
  assert.equal(attack.evaluateMessage({ arguments: { path: '~/.ssh/id_rsa' } }).result, 'exploited');
  assert.equal(attack.evaluateMessage({ arguments: { path: '/tmp' } }).result, 'not_exploited');
});

test('CEL: an expression that would run forever stops at its budget', { timeout: 120_000 }, () => {
  const expression = '[1,2,3,4,5,6,7,8,9,10].all(a, [1,2,3,4,5,6,7,8,9,10].all(b, [1,2,3,4,5,6,7,8,9,10].all(c, [1,2,3,4,5,6,7,8,9,10].all(d, [1,2,3,4,5,6,7,8,9,10].all(e, [1,2,3,4,5,6,7,8,9,10].all(f, [1,2,3,4,5,6,7,8,9,10].all(g, a+b+c+d+e+f+g > 0)))))))';
  const attack = oatf.compile(MCP.replace("pattern:\n        contains: .ssh/id_rsa", () => `expression:\n        cel: ${JSON.stringify(expression)}`));
  // 10^7 iterations unbounded; the budgets stop it: the iterations (CelLimits::max_iterations) at 10^6, or
  // first the cost of the loops (CelLimits::max_cost, D-127: each of the seven levels weighs its depth).
  const verdict = noTrap(() => attack.evaluateMessage({ arguments: {} }));
  assert.equal(verdict.result, 'error');
  assert.match(verdict.indicatorVerdicts[0].evidence, /max_iterations|max_cost/);
});

// The two inputs that made time a stated property of the CEL budgets (D-125, D-126, D-127; docs/input-safety.md):
// the same errors as the Rust SDK and the Python package, in bounded time.
const celAttack = (expression) =>
  oatf.compile(MCP.replace("target: arguments.path\n      pattern:\n        contains: .ssh/id_rsa", () => `target: ""\n      expression:\n        cel: ${JSON.stringify(expression)}`));
const traceOf = (contents) =>
  contents.map((content) => JSON.stringify({ direction: 'incoming', method: 'tools/call', content })).join('\n');

test('CEL: five nested loops over 100 elements stop at the iteration budget quickly', { timeout: 60_000 }, () => {
  let expression = 'a + b + c + d + e >= 0';
  for (const v of ['e', 'd', 'c', 'b', 'a']) expression = `message.xs.all(${v}, ${expression})`;
  const started = performance.now();
  const report = noTrap(() => celAttack(expression).evaluateTrace(traceOf([{ xs: [...Array(100).keys()] }])));
  const elapsed = performance.now() - started;
  assert.equal(report.result, 'error');
  assert.match(report.indicatorVerdicts[0].evidence,
    /the expression needs more than the limit of 1000000 comprehension iterations \(CelLimits::max_iterations\)/);
  assert.ok(elapsed < 20_000, `${elapsed} ms`);
});

test('CEL: 2,000 distinct patterns rejected as too large cost one compile each', { timeout: 240_000 }, () => {
  const attack = celAttack('message.s.matches(message.p)');
  const jsonl = traceOf([...Array(2000).keys()].map((i) => ({ s: 'x', p: `\\w{${1500 + i}}` })));
  let started = performance.now();
  const report = noTrap(() => attack.evaluateTrace(jsonl));
  const elapsed = performance.now() - started;
  assert.equal(report.result, 'error');
  assert.ok(report.indicatorVerdicts[0].evidence.includes('regex "\\\\w{1500}" compiles to more than 1048576 bytes'),
    report.indicatorVerdicts[0].evidence);
  assert.ok(elapsed < 180_000, `${elapsed} ms`);
  // The same patterns again: remembered rejections (D-126), no compile.
  started = performance.now();
  assert.equal(attack.evaluateTrace(jsonl).result, 'error');
  assert.ok(performance.now() - started < elapsed / 4 + 1_000);
});

test('bad trace lines are counted and named; the verdict comes from the rest', TIMEOUT, () => {
  const jsonl = ['not json', call('/tmp/x', 2), '{"seq": 3}', '\ufffd\ufffd', '', call('/home/u/.ssh/id_rsa', 6)].join('\n');
  const report = oatf.compile(MCP).evaluateTrace(jsonl);
  assert.equal(report.result, 'exploited');
  assert.deepEqual(report.traceErrors.map((e) => e.line), [1, 3, 4]);
  assert.equal(report.trace.malformedLines, 3);
  assert.equal(report.trace.verdictFromPartialTrace, true);
  assert.deepEqual(report.trace.matchedLines, { 'OATF-900-01': 6 });
});

test('a deep or huge trace line is malformed, not a crash', TIMEOUT, () => {
  const deep = '{"direction":"incoming","content":' + '['.repeat(100_000) + ']'.repeat(100_000) + '}';
  const huge = JSON.stringify({ direction: 'incoming', content: 'x'.repeat(20 * 1024 * 1024) });
  const report = noTrap(() => oatf.compile(MCP).evaluateTrace([deep, huge, call('/root/.ssh/id_rsa', 3)].join('\n')));
  assert.equal(report.result, 'exploited');
  assert.deepEqual(report.traceErrors.map((e) => e.line), [1, 2]);
});

test('evaluateMessage refuses a message nested deeper than JSON text may be', TIMEOUT, () => {
  const deep = '{"a":'.repeat(10_000) + '{}' + '}'.repeat(10_000);
  const attack = oatf.compile(MCP);
  assert.throws(() => noTrap(() => attack.evaluateMessage(deep)), /the message is not read: nests deeper than the limit of 128 levels/);
});

test('push reports a malformed message and goes on', TIMEOUT, () => {
  const evaluator = new oatf.TraceEvaluator(oatf.compile(MCP));
  assert.throws(() => evaluator.push('{"nope":'), oatf.TraceError);
  evaluator.push(call('/root/.ssh/id_rsa'));
  const report = evaluator.finish();
  assert.equal(report.result, 'exploited');
  assert.equal(report.trace.malformedLines, 1);
});

test('a judge that throws or answers nonsense gives an indicator error', TIMEOUT, () => {
  const semantic = MCP.replace("target: arguments.path\n      pattern:\n        contains: .ssh/id_rsa", 'target: arguments.notes\n      semantic:\n        intent: The agent leaks a private key\n        threshold: 0.5');
  const message = { arguments: { notes: 'here is the key' } };
  for (const [judge, says] of [[() => { throw new Error('judge down'); }, /judge down/], [() => 7, /not a score/], [() => 'yes', /not a number/]]) {
    const verdict = noTrap(() => oatf.compile(semantic, { judge }).evaluateMessage(message));
    assert.equal(verdict.indicatorVerdicts[0].result, 'error');
    assert.match(verdict.indicatorVerdicts[0].evidence, says);
  }
  const seen = [];
  const verdict = oatf.compile(semantic, { judge: (input) => { seen.push(input); return 0.9; } }).evaluateMessage(message);
  assert.equal(verdict.result, 'exploited');
  assert.equal(seen[0].text, 'here is the key');
  assert.equal(seen[0].intent, 'The agent leaks a private key');
  assert.equal(oatf.compile(semantic).evaluateMessage(message).indicatorVerdicts[0].result, 'skipped');
});

test('the instance still works after all of the above', TIMEOUT, () => {
  assert.equal(oatf.compile(MCP).evaluateMessage({ arguments: { path: '~/.ssh/id_rsa' } }).result, 'exploited');
});

test('bytes that are not UTF-8 are a parse error at their line, never replaced', TIMEOUT, () => {
  const bytes = new TextEncoder().encode('oatf: "0.1"\nattack:\n  name: "X"\n');
  bytes[bytes.length - 3] = 0xff;
  const result = oatf.validate(bytes);
  assert.equal(result.valid, false);
  assert.equal(result.errors[0].kind, 'parse');
  assert.equal(result.errors[0].line, 3);
  assert.throws(() => oatf.load(bytes), (e) => e instanceof oatf.OatfError && e.line === 3 && /utf-8/i.test(e.message));
  assert.equal(oatf.load(new TextEncoder().encode(MCP)).attack.id, 'OATF-900');
});
