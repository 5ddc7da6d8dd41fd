// The public API of the npm package `oatf`, over the wasm-bindgen module `oatf_wasm.js`.
// Every rule, message, limit and verdict comes from the Rust SDK compiled to WebAssembly; this file
// only turns the JSON the module returns into plain objects and errors.
import * as wasm from './oatf_wasm.js';

/** A document that does not load: `errors` holds every diagnostic; `rule`, `path`, `line`, `column`
 * and `message` are those of the first. */
export class OatfError extends Error {
  constructor(errors) {
    const first = errors[0];
    const headline = first ? describe(first) : 'the document could not be loaded';
    super(errors.length > 1 ? `${headline} (and ${errors.length - 1} more)` : headline);
    this.name = 'OatfError';
    this.errors = errors;
    this.rule = first?.rule ?? null;
    this.path = first?.path ?? null;
    this.line = first?.line ?? null;
    this.column = first?.column ?? null;
  }
}

/** A trace entry that is not a message (thrown by `TraceEvaluator.push`). */
export class TraceError extends Error {
  constructor(message) {
    super(message);
    this.name = 'TraceError';
  }
}

/** One diagnostic as text: `line 3, column 5: V-001: message at `path``. */
export function describe(d) {
  let text = '';
  if (d.line != null) text += d.column != null ? `line ${d.line}, column ${d.column}: ` : `line ${d.line}: `;
  if (d.rule) text += `${d.rule}: `;
  text += d.message;
  if (d.path) text += ` at \`${d.path}\``;
  return text;
}

function text(input, what) {
  if (typeof input === 'string') return input;
  if (input instanceof Uint8Array) {
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(input);
    } catch {
      // Never replace what the user wrote: the parser names the first invalid byte's line and column.
      throw new OatfError(JSON.parse(wasm.decodeErrorsJson(input)).errors);
    }
  }
  throw new TypeError(`${what} must be a string or a Uint8Array (UTF-8 YAML)`);
}

function unwrap(json) {
  const result = JSON.parse(json);
  if (!result.ok) throw new OatfError(result.errors);
  return result;
}

/** The SDK version (set once the WebAssembly module is instantiated, before any importer runs). */
export let version = '';

/** @internal Called by the entry points (`node.js`, `web.js`) once the module is instantiated: nothing
 * here may call into the module while this file is evaluated, since ES modules evaluate their
 * dependencies first. */
export function __ready() {
  version = wasm.version();
}

/** Validates a document (SDK §3.2). Never throws for a bad document: one that does not parse gives
 * its parse errors. */
export function validate(source) {
  let yaml;
  try {
    yaml = text(source, 'the document');
  } catch (e) {
    if (e instanceof OatfError) return { valid: false, errors: e.errors, warnings: [] };
    throw e;
  }
  return JSON.parse(wasm.validateJson(yaml));
}

/** Parses, validates and normalizes a document (SDK §3.5): the normalized document as a plain
 * object. Throws `OatfError` with every diagnostic when it does not load. */
export function load(source) {
  return unwrap(wasm.loadJson(text(source, 'the document'))).document;
}

/** Like `load`, with the warnings: `{ document, warnings }`. */
export function loadWithWarnings(source) {
  const { document, warnings } = unwrap(wasm.loadJson(text(source, 'the document')));
  return { document, warnings };
}

/** Parses and normalizes a document without validating it (SDK §3.3) and returns canonical YAML.
 * Throws `OatfError` when it does not parse. */
export function normalize(source) {
  return unwrap(wasm.normalizeJson(text(source, 'the document'))).yaml;
}

/** A document (a plain object, e.g. from `load`) as canonical YAML (SDK §3.4). */
export function serialize(document) {
  if (document === null || typeof document !== 'object') throw new TypeError('serialize takes a document object');
  return unwrap(wasm.serializeJson(JSON.stringify(document))).yaml;
}

function messageJson(message) {
  return typeof message === 'string' ? message : JSON.stringify(message);
}

/** An attack compiled for evaluation: regexes, paths and CEL programs are compiled once. */
export class Attack {
  #inner;
  constructor(inner) {
    this.#inner = inner;
  }

  /** @internal */
  get _inner() {
    return this.#inner;
  }

  /** The attack's id, or `null`. */
  get attackId() {
    return this.#inner.attackId ?? null;
  }

  /** The indicator ids, in declaration order. */
  get indicatorIds() {
    return JSON.parse(this.#inner.indicatorIdsJson());
  }

  /** Evaluates every indicator against one message (SDK §4.1) and returns the verdict. */
  evaluateMessage(message) {
    return JSON.parse(this.#inner.evaluateMessageJson(messageJson(message)));
  }

  /** Computes the attack verdict (SDK §4.5) from indicator verdicts produced elsewhere (e.g. your own
   * judge): `[{ indicator_id, result, evidence?, timestamp? }]`; a declared indicator without one
   * counts as `skipped`. */
  computeVerdict(verdicts) {
    try {
      return JSON.parse(this.#inner.computeVerdictJson(JSON.stringify(verdicts)));
    } catch (e) {
      throw typeof e === 'string' ? new TypeError(e) : e;
    }
  }

  /** Evaluates a JSON Lines trace (format §6). Returns the verdict document `oatf evaluate --format
   * json` prints, with `traceErrors` (the first 100 malformed lines) beside it. `compat:
   * 'thoughtjack-context'` scores it as ThoughtJack's context mode does (the default, `'spec-exact'`,
   * is the spec as written); an unknown profile throws `RangeError`. */
  evaluateTrace(jsonl, { name = '<trace>', compat } = {}) {
    let json;
    try {
      json = this.#inner.evaluateTraceJson(text(jsonl, 'the trace'), name, compatName(compat));
    } catch (e) {
      throw typeof e === 'string' ? new RangeError(e) : e;
    }
    const { report, traceErrors } = JSON.parse(json);
    Object.defineProperty(report, 'traceErrors', { value: traceErrors, enumerable: false });
    return report;
  }

  /** Frees the WebAssembly memory of the attack (optional: the garbage collector does it too). */
  free() {
    this.#inner.free();
  }
}

/** Loads and compiles a document. `options.judge({ text, intent, intentClass, threshold, examples })`
 * returns a score in [0, 1] for semantic indicators (without one they are `skipped`).
 * `options.validate: false` only parses (for bare indicators, as the conformance runner does).
 * Throws `OatfError` when the document does not load. */
export function compile(source, options = {}) {
  const judge = options.judge;
  if (judge !== undefined && typeof judge !== 'function') throw new TypeError('options.judge must be a function');
  let inner;
  try {
    inner = new wasm.WasmAttack(text(source, 'the document'), judge, options.validate !== false);
  } catch (e) {
    if (typeof e === 'string') unwrap(e);
    throw e;
  }
  return new Attack(inner);
}

/** A compatibility profile's name, or undefined for the default. */
function compatName(compat) {
  if (compat === undefined || compat === null) return undefined;
  if (typeof compat !== 'string') throw new TypeError('compat must be a string');
  return compat;
}

/** Evaluates a trace one message at a time: `push(message)` each, then `finish()`. Memory does not
 * grow with the trace. `{ compat: 'thoughtjack-context' }` scores it as ThoughtJack's context mode
 * does (D-100). */
export class TraceEvaluator {
  #inner;
  constructor(attack, { compat } = {}) {
    if (!(attack instanceof Attack)) throw new TypeError('TraceEvaluator takes an Attack (from compile)');
    try {
      this.#inner = new wasm.WasmTraceEvaluator(attack._inner, compatName(compat));
    } catch (e) {
      throw typeof e === 'string' ? new RangeError(e) : e;
    }
  }

  /** Evaluates one message: an object in the trace format, or one JSON line. A malformed message
   * throws `TraceError`; it is counted and evaluation goes on. */
  push(message) {
    try {
      this.#inner.push(messageJson(message));
    } catch (e) {
      throw typeof e === 'string' ? new TraceError(e) : e;
    }
  }

  /** Messages evaluated so far. */
  get messages() {
    return this.#inner.messages;
  }

  /** Indicators matched so far. */
  get matchedCount() {
    return this.#inner.matchedCount;
  }

  /** The verdict document of the messages pushed; the evaluator cannot be used afterwards. */
  finish() {
    let json;
    try {
      json = this.#inner.finishJson();
    } catch (e) {
      throw typeof e === 'string' ? new Error(e) : e;
    }
    const { report, traceErrors } = JSON.parse(json);
    Object.defineProperty(report, 'traceErrors', { value: traceErrors, enumerable: false });
    return report;
  }
}
