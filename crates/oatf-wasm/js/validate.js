// The validation entry of the npm package, `oatf/validate` (D-140): parse, validate, load, normalize and
// serialize over a small WebAssembly module without the CEL engine or evaluation. The CEL syntax check
// of V-014 is a second module, loaded the first time a document has a CEL expression; results are those
// of the full package (`oatf`), the same Rust code.
import * as wasm from './oatf_validate.js';
import { OatfError, describe, toText, unwrap } from './common.js';

export { OatfError, describe };

const text = (input) => toText(input, 'the document', wasm.decodeErrorsJson);

/** The SDK version (set once the WebAssembly module is instantiated, before any importer runs). */
export let version = '';

/** How the CEL syntax module is loaded: `load()` (a Promise of its wasm-bindgen module) and, where
 * the host can instantiate it synchronously (Node), `sync()`. Set by the entry point. */
let loader = null;
/** The CEL syntax module once loaded (`celCheckJson`). */
let cel = null;

/** @internal Called by the entry points once the module is instantiated. */
export function __ready(celLoader) {
  version = wasm.version();
  loader = celLoader;
}

/** Loads the CEL syntax module now (it is otherwise loaded the first time a document has a CEL
 * expression); after it, `validateSync` and `loadSync` work on every document in every host. */
export async function loadCelSyntax() {
  if (!cel) cel = await loader.load();
}

/** Whether the CEL syntax module is loaded (in Node it is loaded synchronously when first needed). */
export function celSyntaxLoaded() {
  return cel !== null;
}

/** Hands the validation module the CEL syntax answers of `pending` (expressions). */
function answer(pending) {
  const list = JSON.stringify(pending);
  if (!wasm.celRememberJson(list, cel.celCheckJson(list))) throw new Error('oatf: the CEL syntax answers do not fit');
}

/** Runs `call` (a call into the validation module returning JSON) synchronously. */
function runSync(call, name) {
  const first = JSON.parse(call());
  if (!first.celPending) return first;
  if (!cel && loader.sync) cel = loader.sync();
  if (!cel) {
    throw new Error(
      `${name}: this document has CEL expressions and the CEL syntax module is not loaded yet: ` +
        `await ${name.replace('Sync', '')}(…) instead, or await loadCelSyntax() once before ${name}`,
    );
  }
  answer(first.celPending);
  return JSON.parse(call());
}

/** Runs `call` (a call into the validation module returning JSON), loading the CEL syntax module when
 * the document needs it. */
async function run(call) {
  const first = JSON.parse(call());
  if (!first.celPending) return first;
  await loadCelSyntax();
  answer(first.celPending);
  return JSON.parse(call());
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

/** Parses, validates and normalizes a document (SDK §3.5): a Promise of the normalized document.
 * Rejects with `OatfError` holding every diagnostic when it does not load. */
export async function load(source) {
  const yaml = text(source);
  return unwrap(await run(() => wasm.loadJson(yaml))).document;
}

/** `load`, synchronously (as `validateSync`). */
export function loadSync(source) {
  const yaml = text(source);
  return unwrap(runSync(() => wasm.loadJson(yaml), 'loadSync')).document;
}

/** Like `load`, with the warnings: a Promise of `{ document, warnings }`. */
export async function loadWithWarnings(source) {
  const yaml = text(source);
  const { document, warnings } = unwrap(await run(() => wasm.loadJson(yaml)));
  return { document, warnings };
}

/** Parses and normalizes a document without validating it (SDK §3.3) and returns canonical YAML.
 * Throws `OatfError` when it does not parse. Synchronous: normalizing needs no CEL. */
export function normalize(source) {
  return unwrap(wasm.normalizeJson(text(source))).yaml;
}

/** A document (a plain object, e.g. from `load`) as canonical YAML (SDK §3.4). */
export function serialize(document) {
  if (document === null || typeof document !== 'object') throw new TypeError('serialize takes a document object');
  return unwrap(wasm.serializeJson(JSON.stringify(document))).yaml;
}
