// The validation entry of the npm package, `oatf/validate` (D-140, D-190, D-270, D-271): parse and validate
// over a small WebAssembly module without the evaluation engine, the regex, CEL and JSONPath parsers and
// normalization. A regex's syntax tree (V-013) is the regex module, loaded the first time a document has a
// regex; the other checks (V-014; V-015; V-042 and V-013 of Unicode classes) are the syntax module, loaded
// the first time a document needs one of them;
// normalizing and serializing (`load`, `normalize`, `serialize`) are the normalize module, loaded the first
// time one of those is called. Results are those of the full package (`oatf`), the same Rust code.
import * as wasm from './oatf_validate.js';
import { OatfError, __setRegexAsker, describe, toText, unwrap } from './common.js';

export { OatfError, describe };

const text = (input) => toText(input, 'the document', wasm.decodeErrorsJson);

/** The SDK version (set once the WebAssembly module is instantiated, before any importer runs). */
export let version = '';

/** How the modules loaded on demand are loaded, by name (`syntax`, `normalize`): `load()` (a Promise of
 * its wasm-bindgen module) and, where the host can instantiate it synchronously (Node), `sync()`. Set by
 * the entry point. */
let loaders = null;
/** The syntax module once loaded (`syntaxCheckJson`). */
let syntax = null;
/** The regex module once loaded (`regexTree`): V-013 of a regex by its syntax tree (D-271). */
let regexTrees = null;
/** The normalize module once loaded (`loadedJson`, `normalizeJson`, `serializeJson`). */
let normalizer = null;

/** Calls into the validation module so far (`__passes`). */
let passes = 0;

/** @internal Called by the entry points once the module is instantiated, with the loaders of the
 * modules loaded on demand and the regex module when the entry has it already (`regex`, its
 * wasm-bindgen module, instantiated). */
export function __ready(onDemand, { regex = null } = {}) {
  version = wasm.version();
  loaders = onDemand;
  regexTrees = regex;
  __setRegexAsker(askRegexTree);
}

/** @internal Validations run so far (calls into the validation module), for the tests: a document
 * whose only questions are for the regex module takes one pass once the regex module is there. */
export function __passes() {
  return passes;
}

/** Asked by the validation module during a validation (D-320, through `common.js`'s `__askRegexTree`):
 * hands it the regex module's answer for one regex (`rememberRegexTree`) and says `true`, or says
 * `false` when the regex module is not there (in a browser before it has arrived), and the question
 * then waits for the next pass. In Node and in the inline entry the regex module is instantiated here,
 * synchronously, the first time a document has a regex. Never throws into the validation module: a
 * regex module that fails to load is loaded again, and its error thrown, between passes. */
function askRegexTree(pattern) {
  try {
    if (!regexTrees && loaders.regex.sync) regexTrees = loaders.regex.sync();
    if (!regexTrees) return false;
    const [tree] = regexTrees.regexTree([pattern]);
    wasm.rememberRegexTree(pattern, tree !== null, typeof tree === 'string' ? tree : undefined);
    return true;
  } catch {
    return false;
  }
}

/** Loads the syntax checks now: the regex module (otherwise loaded the first time a document has a regex)
 * and the syntax module (otherwise loaded the first time a document has a CEL expression, a JSONPath
 * selector, a regex extractor or a regex with a Unicode class); after it, `validateSync` works on every
 * document in every host. */
export async function loadSyntaxChecks() {
  if (!regexTrees) regexTrees = await loaders.regex.load();
  if (!syntax) syntax = await loaders.syntax.load();
}

/** Loads what `pending` (the questions of a validation) needs: the regex module for regex syntax trees,
 * the syntax module for the rest. */
async function loadFor(pending) {
  if (pending.tree?.length && !regexTrees) regexTrees = await loaders.regex.load();
  if (needsSyntax(pending) && !syntax) syntax = await loaders.syntax.load();
}

/** `loadFor`, synchronously where the host can (Node); false when a module it needs is not loaded. */
function loadForSync(pending) {
  if (pending.tree?.length && !regexTrees && loaders.regex.sync) regexTrees = loaders.regex.sync();
  if (needsSyntax(pending) && !syntax && loaders.syntax.sync) syntax = loaders.syntax.sync();
  return !(pending.tree?.length && !regexTrees) && !(needsSyntax(pending) && !syntax);
}

/** Whether `pending` has questions for the syntax module. */
function needsSyntax({ cel = [], regex = [], jsonpath = [] }) {
  return cel.length + regex.length + jsonpath.length > 0;
}

/** Loads the normalize module now (it is otherwise loaded by the first `load`, `loadWithWarnings`, or,
 * in Node, `loadSync`, `normalize` or `serialize`); after it, `normalize`, `serialize` and `loadSync`
 * work in every host. */
export async function loadNormalizer() {
  if (!normalizer) normalizer = await loaders.normalize.load();
}

/** Whether the normalize module is loaded (in Node it is loaded synchronously when first needed). */
export function normalizerLoaded() {
  return normalizer !== null;
}

/** The normalize module for a synchronous call `name`: loaded synchronously where the host can (Node),
 * else it must have been loaded before. */
function normalizerFor(name) {
  if (!normalizer && loaders.normalize.sync) normalizer = loaders.normalize.sync();
  if (!normalizer) {
    throw new Error(
      `${name}: the normalize module (normalization and YAML output) is not loaded yet: await ` +
        `loadNormalizer() once before ${name}${name === 'loadSync' ? ', or await load(…) instead' : ''}`,
    );
  }
  return normalizer;
}

/** Whether the syntax module is loaded (in Node it is loaded synchronously when first needed). */
export function syntaxChecksLoaded() {
  return syntax !== null;
}

/** Hands the validation module the syntax module's answers to `pending` (`{ cel, regex, jsonpath }`,
 * arrays of texts), one by one (the validation module parses no JSON, D-190). */
function answer(pending) {
  const { cel = [], regex = [], jsonpath = [], tree = [] } = pending;
  if (tree.length) {
    const trees = regexTrees.regexTree(tree);
    wasm.syntaxMakeRoom(tree.length);
    tree.forEach((pattern, i) =>
      wasm.rememberRegexTree(pattern, trees[i] !== null, typeof trees[i] === 'string' ? trees[i] : undefined),
    );
  }
  if (!needsSyntax(pending)) return;
  const answers = JSON.parse(syntax.syntaxCheckJson(JSON.stringify({ cel, regex, jsonpath })));
  if (!answers) throw new Error('oatf: the syntax module did not answer');
  wasm.syntaxMakeRoom(cel.length + regex.length + jsonpath.length);
  cel.forEach((expression, i) => {
    const refusal = answers.cel[i];
    wasm.rememberCel(expression, refusal?.kind === 'limit', refusal?.message);
  });
  regex.forEach((pattern, i) => wasm.rememberRegex(pattern, answers.regex[i].error ?? undefined, answers.regex[i].captures ?? undefined));
  jsonpath.forEach((selector, i) =>
    wasm.rememberJsonPath(selector, answers.jsonpath[i].error ?? undefined, answers.jsonpath[i].unchecked),
  );
}

/** Passes of a call at most: the first asks every question of the document, the second has the answers
 * or asks the syntax module about the regexes whose syntax tree did not decide, the third has those. */
const PASSES = 4;

/** Runs `call` (a call into the validation module returning JSON) synchronously. */
function runSync(call, name) {
  for (let pass = 0; pass < PASSES; pass++) {
    passes++;
    const result = JSON.parse(call());
    if (!result.syntaxPending) return result;
    if (!loadForSync(result.syntaxPending)) {
      throw new Error(
        `${name}: this document needs the syntax checks (regexes, CEL, JSONPath) and their module is not ` +
          `loaded yet: await ${name.replace('Sync', '')}(…) instead, or await loadSyntaxChecks() once before ${name}`,
      );
    }
    answer(result.syntaxPending);
  }
  throw new Error('oatf: the syntax answers did not settle');
}

/** Runs `call` (a call into the validation module returning JSON), loading the syntax module when the
 * document needs it. */
async function run(call) {
  for (let pass = 0; pass < PASSES; pass++) {
    passes++;
    const result = JSON.parse(call());
    if (!result.syntaxPending) return result;
    await loadFor(result.syntaxPending);
    answer(result.syntaxPending);
  }
  throw new Error('oatf: the syntax answers did not settle');
}

function validationOf(source, runner) {
  let yaml;
  try {
    yaml = text(source);
  } catch (e) {
    if (e instanceof OatfError) return { valid: false, errors: e.errors, warnings: [] };
    throw e;
  }
  return runner(() => wasm.validateJson(yaml));
}

/** Validates a document (SDK §3.2): a Promise of `{ valid, errors, warnings }`, exactly what `oatf`'s
 * `validate` gives. Never rejects for a bad document. */
export async function validate(source) {
  return validationOf(source, run);
}

/** `validate`, synchronously: in Node always; in a browser once the CEL syntax module is loaded or for
 * a document without CEL expressions (else it throws, saying so). */
export function validateSync(source) {
  return validationOf(source, (call) => runSync(call, 'validateSync'));
}

/** A validation result as `load` gives it: `{ document, warnings }` (the document parsed and normalized by
 * the normalize module, which is the full package's `load` for a valid document), or `OatfError` with every
 * error (those of validation, as the full package's). */
function loaded(yaml, validation, module) {
  if (!validation.valid) throw new OatfError(validation.errors);
  return { document: unwrap(module.loadedJson(yaml)).document, warnings: validation.warnings };
}

/** Parses, validates and normalizes a document (SDK §3.5): a Promise of the normalized document.
 * Rejects with `OatfError` holding every diagnostic when it does not load. */
export async function load(source) {
  return (await loadWithWarnings(source)).document;
}

/** `load`, synchronously: in Node always; in a browser once `loadNormalizer()` has resolved, for a document
 * that `validateSync` can check (else it throws, saying so). */
export function loadSync(source) {
  const yaml = text(source);
  const validation = runSync(() => wasm.validateJson(yaml), 'loadSync');
  return loaded(yaml, validation, validation.valid ? normalizerFor('loadSync') : null).document;
}

/** Like `load`, with the warnings: a Promise of `{ document, warnings }`. */
export async function loadWithWarnings(source) {
  const yaml = text(source);
  const validation = await run(() => wasm.validateJson(yaml));
  if (validation.valid) await loadNormalizer();
  return loaded(yaml, validation, normalizer);
}

/** Parses and normalizes a document without validating it (SDK §3.3) and returns canonical YAML.
 * Throws `OatfError` when it does not parse. Synchronous: in Node always, in a browser once
 * `loadNormalizer()` (or a `load`) has resolved. */
export function normalize(source) {
  const yaml = text(source);
  return unwrap(normalizerFor('normalize').normalizeJson(yaml)).yaml;
}

/** A document (a plain object, e.g. from `load`) as canonical YAML (SDK §3.4). Synchronous, as `normalize`. */
export function serialize(document) {
  if (document === null || typeof document !== 'object') throw new TypeError('serialize takes a document object');
  return unwrap(normalizerFor('serialize').serializeJson(JSON.stringify(document))).yaml;
}
