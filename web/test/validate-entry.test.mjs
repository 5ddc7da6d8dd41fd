// The validation entry `oatf/validate` (D-140, D-190, D-270): the syntax module loads only when a document
// has a CEL expression, a JSONPath selector, a regex extractor or a regex with a Unicode class (a regex's
// syntax tree is checked in the first module), the normalize module only when a document is loaded,
// normalized or serialized, and every result equals the full package's (the corpus is compared in
// conformance.test.mjs; here the examples, errors, bytes and the lazy modules).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { EXAMPLES, PACKAGE, importValidateEntry, oatf } from './support.mjs';

const small = await importValidateEntry();

const doc = (indicators) =>
  `oatf: "0.1"\nattack:\n  execution: {mode: mcp_server, state: {tools: []}}\n  indicators:\n${indicators}`;
const PLAIN = doc('    - {surface: tools/call, target: arguments, pattern: {contains: "x"}}\n    - {surface: tools/call, target: arguments, pattern: {regex: "^(id|key)=\\\\w+$"}}\n');
const BAD_REGEX = doc('    - {surface: tools/call, target: arguments, pattern: {regex: "("}}\n    - {surface: tools/call, target: arguments, pattern: {regex: "(?<=a)b"}}\n');
const UNICODE = doc('    - {surface: tools/call, target: arguments, pattern: {regex: "\\\\p{Greek}+"}}\n    - {surface: tools/call, target: arguments, pattern: {regex: "\\\\p{Nope}"}}\n');
const BAD_CEL = doc('    - surface: tools/call\n      target: arguments\n      expression: {cel: "size(arguments) >"}\n');
const BAD_PATHS = 'oatf: "0.1"\nattack:\n  execution:\n    mode: mcp_server\n    phases:\n      - name: one\n        state: {tools: []}\n        extractors:\n          - {name: a, source: request, type: regex, selector: "no group"}\n          - {name: b, source: request, type: json_path, selector: "$.["}\n          - {name: c, source: request, type: json_path, selector: "$.ok"}\n          - {name: d, source: request, type: regex, selector: "x(\\\\d+)"}\n        trigger: {event: tools/call}\n      - name: two\n';

test('regex syntax trees are checked by the regex module; the syntax module loads for the rest', async () => {
  // This file's process has not validated anything yet (node --test runs each file on its own).
  assert.equal(small.syntaxChecksLoaded(), false);
  assert.equal(small.normalizerLoaded(), false);
  for (const text of [PLAIN, BAD_REGEX]) assert.deepEqual(await small.validate(text), oatf.validate(text));
  assert.deepEqual((await small.validate(BAD_REGEX)).errors.map((e) => e.rule), ['V-013', 'V-013']);
  assert.equal(small.syntaxChecksLoaded(), false, 'a regex without a Unicode class loaded the syntax module');
  const unicode = await small.validate(UNICODE);
  assert.equal(small.syntaxChecksLoaded(), true);
  assert.deepEqual(unicode, oatf.validate(UNICODE));
  assert.deepEqual(unicode.errors.map((e) => e.path), ['attack.indicators[1].pattern.regex']);
  const cel = await small.validate(BAD_CEL);
  assert.deepEqual(cel, oatf.validate(BAD_CEL));
  const v014 = cel.errors.find((e) => e.rule === 'V-014');
  assert.ok(v014, JSON.stringify(cel.errors));
  assert.equal(v014.line, 7);
  const paths = await small.validate(BAD_PATHS);
  assert.deepEqual(paths, oatf.validate(BAD_PATHS));
  assert.deepEqual(paths.errors.map((e) => e.rule).sort(), ['V-015', 'V-042'], JSON.stringify(paths.errors));
  assert.equal(small.normalizerLoaded(), false, 'validation loaded the normalize module');
  await assert.rejects(small.load(BAD_REGEX), small.OatfError);
  assert.equal(small.normalizerLoaded(), false, 'a document that does not load loaded the normalize module');
  assert.deepEqual(await small.load(PLAIN), oatf.load(PLAIN));
  assert.equal(small.normalizerLoaded(), true);
});

test('a document whose regexes the regex module decides is validated in one pass, with its answers (D-320)', async () => {
  // Regexes no validation of this process has asked about yet, so that the validation module asks the
  // regex module during the pass rather than finding them in its cache.
  const valid = doc('    - {surface: tools/call, target: arguments, pattern: {regex: "^one-pass-(a|b)\\\\d+$"}}\n');
  const invalid = doc(
    '    - {surface: tools/call, target: arguments, pattern: {regex: "(one-pass-unclosed"}}\n' +
      '    - {surface: tools/call, target: arguments, pattern: {regex: "one-pass{2,1}"}}\n' +
      '    - {surface: tools/call, target: arguments, pattern: {regex: "one-pass-ok[a-z]"}}\n',
  );
  for (const [text, run] of [
    [valid, (t) => small.validate(t)],
    [invalid, (t) => small.validateSync(t)],
  ]) {
    const before = small.__passes();
    const result = await run(text);
    assert.equal(small.__passes() - before, 1, 'the regex module was not asked during the first pass');
    assert.deepEqual(result, oatf.validate(text));
  }
  const errors = small.validateSync(invalid).errors;
  assert.deepEqual(errors.map((e) => [e.rule, e.path]), [
    ['V-013', 'attack.indicators[0].pattern.regex'],
    ['V-013', 'attack.indicators[1].pattern.regex'],
  ]);
  assert.match(errors[0].message, /unclosed group/);
  // A Unicode class is not decided by the syntax tree: the syntax module is asked in a second pass.
  const unicode = doc('    - {surface: tools/call, target: arguments, pattern: {regex: "\\\\p{Nope}one-pass"}}\n');
  const before = small.__passes();
  assert.deepEqual(await small.validate(unicode), oatf.validate(unicode));
  assert.equal(small.__passes() - before, 2);
});

test('every example validates, loads and normalizes as in the full package', async () => {
  for (const name of readdirSync(EXAMPLES).filter((n) => n.endsWith('.yaml') && !n.endsWith('.test.yaml'))) {
    const text = readFileSync(join(EXAMPLES, name), 'utf8');
    assert.deepEqual(await small.validate(text), oatf.validate(text), name);
    assert.deepEqual(await small.load(text), oatf.load(text), name);
    assert.deepEqual(small.loadSync(text), oatf.load(text), name);
    assert.deepEqual(await small.loadWithWarnings(text), oatf.loadWithWarnings(text), name);
    assert.equal(small.normalize(text), oatf.normalize(text), name);
    assert.equal(small.serialize(oatf.load(text)), oatf.serialize(oatf.load(text)), name);
  }
});

test('load rejects with the same OatfError; bytes that are not UTF-8 are a parse error at their line', async () => {
  await assert.rejects(small.load(BAD_CEL), (e) => e instanceof small.OatfError && e.rule === 'V-014' && e.line === 7);
  assert.ok(small.OatfError === oatf.OatfError);
  const bytes = new TextEncoder().encode('oatf: "0.1"\nattack:\n  name: "X"\n');
  bytes[bytes.length - 3] = 0xff;
  assert.deepEqual(await small.validate(bytes), oatf.validate(bytes));
  assert.equal((await small.validate(bytes)).errors[0].line, 3);
  assert.equal(small.version, oatf.version);
});

test("hostile documents give the full package's diagnostics, with no trap", () => {
  const hostile = [
    `oatf: '0.1'\nattack:\n  description: '${'x'.repeat(11 * 1024 * 1024)}'\n`,
    'a: ' + '['.repeat(100_000) + ']'.repeat(100_000) + '\n',
    'a: &a ["x","x"]\nb: [*a,*a,*a]\n',
    'oatf: "0.1"\nattack:\n  execution: {mode: mcp_server, state: {tools: []}}\n  indicators:\n    - {surface: tools/call, target: arguments, pattern: {regex: "(a+)+$\\\\1"}}\n',
  ];
  for (const text of hostile) {
    const result = small.validateSync(text);
    assert.equal(result.valid, false);
    assert.deepEqual(result, oatf.validate(text));
  }
});

test('without a synchronous loader (a browser), normalize, serialize and loadSync wait for loadNormalizer()', async () => {
  // A second instance of the entry's shared code, set up as the browser entry sets it up (its loaders can
  // only load asynchronously); the validation module is the one this process has instantiated.
  const entry = await import(`${pathToFileURL(join(PACKAGE, 'validate.js')).href}?browser`);
  const normalizeGlue = await import(pathToFileURL(join(PACKAGE, 'oatf_normalize.js')).href);
  let loads = 0;
  const regexGlue = await import(pathToFileURL(join(PACKAGE, 'oatf_regex.js')).href);
  const syntaxGlue = await import(pathToFileURL(join(PACKAGE, 'oatf_syntax.js')).href);
  let regexLoads = 0;
  entry.__ready({
    regex: {
      load: async () => {
        regexLoads += 1;
        return regexGlue;
      },
    },
    syntax: { load: async () => syntaxGlue },
    normalize: {
      load: async () => {
        loads += 1;
        normalizeGlue.initSync({ module: readFileSync(join(PACKAGE, 'oatf_normalize_bg.wasm')) });
        return normalizeGlue;
      },
    },
  });
  const document = oatf.load(PLAIN);
  // A regex the validation module has no answer for yet, and the regex module not loaded by this instance.
  const fresh = doc('    - {surface: tools/call, target: arguments, pattern: {regex: "^not-asked-before-\\\\d+$"}}\n');
  assert.throws(() => entry.validateSync(fresh), /validateSync: this document needs the syntax checks .* await loadSyntaxChecks\(\)/);
  // A document whose only question is for the syntax module (CEL) does not load the regex module.
  const cel = doc('    - surface: tools/call\n      target: arguments\n      expression: {cel: "size(arguments) > 1000"}\n');
  assert.deepEqual(await entry.validate(cel), oatf.validate(cel));
  assert.equal(regexLoads, 0, 'a document without a regex loaded the regex module');
  assert.deepEqual(await entry.validate(fresh), oatf.validate(fresh));
  assert.equal(regexLoads, 1);
  assert.deepEqual(entry.validateSync(PLAIN), oatf.validate(PLAIN));
  assert.throws(() => entry.normalize(PLAIN), /normalize: the normalize module .* await loadNormalizer\(\) once before normalize/);
  assert.throws(() => entry.serialize(document), /await loadNormalizer\(\) once before serialize/);
  assert.throws(() => entry.loadSync(PLAIN), /await loadNormalizer\(\) once before loadSync, or await load/);
  assert.throws(() => entry.loadSync(BAD_REGEX), entry.OatfError, 'an invalid document needs no normalize module');
  assert.equal(entry.normalizerLoaded(), false);
  await entry.loadNormalizer();
  await entry.loadNormalizer();
  assert.equal(loads, 1);
  assert.equal(entry.normalize(PLAIN), oatf.normalize(PLAIN));
  assert.equal(entry.serialize(document), oatf.serialize(document));
  assert.deepEqual(entry.loadSync(PLAIN), document);
  assert.deepEqual(await entry.loadWithWarnings(PLAIN), oatf.loadWithWarnings(PLAIN));
  // Once loaded, the regex module is asked during the pass (D-320).
  const later = doc('    - {surface: tools/call, target: arguments, pattern: {regex: "(browser-later"}}\n');
  const before = entry.__passes();
  assert.deepEqual(entry.validateSync(later), oatf.validate(later));
  assert.equal(entry.__passes() - before, 1);
});

test('an entry that has the regex module at import (the browser entry) checks regexes in the first pass', async () => {
  // A third instance of the shared code, set up as the browser entry sets it up when the regex module's
  // fetch, started at import beside the first module's, has resolved (D-320).
  const entry = await import(`${pathToFileURL(join(PACKAGE, 'validate.js')).href}?preloaded`);
  const regexGlue = await import(pathToFileURL(join(PACKAGE, 'oatf_regex.js')).href);
  const never = {
    load: async () => {
      throw new Error('loaded on demand although the entry had it');
    },
  };
  entry.__ready({ regex: never, syntax: never, normalize: never }, { regex: regexGlue });
  const text = doc(
    '    - {surface: tools/call, target: arguments, pattern: {regex: "^preloaded-\\\\d+$"}}\n' +
      '    - {surface: tools/call, target: arguments, pattern: {regex: "preloaded-(?<=a)b"}}\n',
  );
  const result = entry.validateSync(text);
  assert.equal(entry.__passes(), 1);
  assert.deepEqual(result, oatf.validate(text));
  assert.deepEqual(result.errors.map((e) => e.rule), ['V-013']);
});
