// The public API of the npm package `oatf`, over the wasm-bindgen module `oatf_wasm.js`.
// Every rule, message, limit and verdict comes from the Rust SDK compiled to WebAssembly; this file
// only turns the JSON the module returns into plain objects (camelCase keys, D-141) and errors.
import * as wasm from './oatf_wasm.js';
import { OatfError, checkOptions, describe, toText, unwrap } from './common.js';

export { OatfError, describe };

/** A trace entry that is not a message (thrown by `TraceEvaluator.push`). */
export class TraceError extends Error {
  constructor(message) {
    super(message);
    this.name = 'TraceError';
  }
}

const text = (input, what) => toText(input, what, wasm.decodeErrorsJson);

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

// ---- verdicts and reports in camelCase (D-141) ------------------------------------------------------

const camelKey = (key) => key.replace(/_([a-z])/g, (_, c) => c.toUpperCase());
/** Keys whose values are maps keyed by data (indicator ids), kept as they are. */
const DATA_MAPS = new Set(['matched_lines']);

/** The module's snake_case JSON value with camelCase keys; the values (`not_matched`, …) unchanged. */
function camel(value) {
  if (Array.isArray(value)) return value.map(camel);
  if (value === null || typeof value !== 'object') return value;
  const out = {};
  for (const [key, item] of Object.entries(value)) out[camelKey(key)] = DATA_MAPS.has(key) ? item : camel(item);
  return out;
}

/** `{ report, traceErrors }` JSON → the report, with `traceErrors` an ordinary property. */
function report(json) {
  const { report: document, traceErrors } = JSON.parse(json);
  return { ...camel(document), traceErrors };
}

const VERDICT_FIELDS = { indicatorId: 'indicator_id', result: 'result', evidence: 'evidence', timestamp: 'timestamp', source: 'source', tier: 'tier' };

/** An indicator verdict given in camelCase, for the module (snake_case); unknown fields throw. */
function verdictIn(verdict, index) {
  if (verdict === null || typeof verdict !== 'object') throw new TypeError(`computeVerdict: entry ${index} is not an object`);
  const out = {};
  for (const [key, value] of Object.entries(verdict)) {
    const field = VERDICT_FIELDS[key];
    if (!field) throw new TypeError(`computeVerdict: entry ${index} has an unknown field \`${key}\` (the fields are ${Object.keys(VERDICT_FIELDS).map((k) => `\`${k}\``).join(', ')})`);
    if (value !== undefined && value !== null) out[field] = value;
  }
  return out;
}

function messageJson(message) {
  return typeof message === 'string' ? message : JSON.stringify(message);
}

const UTF8 = new TextEncoder();

/** A trace argument (JSON Lines text, its UTF-8 bytes, or an array of messages, objects or lines) as
 * UTF-8 bytes, which the module reads a chunk at a time (D-201). Text is encoded here, natively, in
 * one pass; a lone surrogate becomes U+FFFD, as any string passed to the module. */
function traceBytes(trace) {
  if (trace instanceof Uint8Array) {
    // The module addresses the array with 32-bit offsets.
    if (trace.length > 0xffffffff) throw new RangeError('the trace is larger than 4 GiB: evaluate it with the CLI, or push it to a TraceEvaluator');
    return trace;
  }
  if (Array.isArray(trace)) return UTF8.encode(trace.map((m) => (typeof m === 'string' ? m : JSON.stringify(m))).join('\n'));
  if (typeof trace === 'string') return UTF8.encode(trace);
  throw new TypeError('the trace must be JSON Lines text (a string or a Uint8Array) or an array of messages');
}

/** The options of `evaluateTrace`: the report's trace name, and the compatibility profile (D-100:
 * `'spec-exact'`, the default, or `'thoughtjack-context'`, which scores a trace as ThoughtJack's context
 * mode does; an unknown profile throws `RangeError`). */
const TRACE_OPTIONS = { name: 'string', compat: 'string' };

/** Runs `evaluate` twice around the awaited judge (D-142): the first pass records the questions,
 * `judge` answers them (concurrently), the second pass decides with the answers. */
async function withAsyncJudge(judge, evaluate) {
  wasm.judgeRecord();
  let first;
  let questions;
  try {
    first = evaluate();
  } finally {
    questions = JSON.parse(wasm.judgeQuestionsJson());
  }
  // No semantic indicator was asked anything: the first pass is the evaluation.
  if (questions.length === 0) return first;
  const outcomes = await Promise.all(
    questions.map(async (question) => {
      try {
        return { value: await judge(JSON.parse(question)) };
      } catch (threw) {
        return { threw };
      }
    }),
  );
  if (!wasm.judgeAnswer(JSON.stringify(questions), outcomes)) throw new Error('oatf: the judge answers do not fit the questions');
  try {
    return evaluate();
  } finally {
    wasm.judgeCall();
  }
}

/** An attack compiled for evaluation: regexes, paths and CEL programs are compiled once. */
export class Attack {
  #inner;
  #judge;
  constructor(inner, judge) {
    this.#inner = inner;
    this.#judge = judge;
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

  #message(message) {
    try {
      return camel(JSON.parse(this.#inner.evaluateMessageJson(messageJson(message))));
    } catch (e) {
      throw typeof e === 'string' ? new TypeError(e) : e;
    }
  }

  /** Evaluates every indicator against one message's content (SDK §4.1) and returns the verdict. A
   * whole trace line (with `direction` and `content`) is refused: pass its `content`, or use
   * `evaluateTrace([line])` for the trace filters. */
  evaluateMessage(content) {
    return this.#message(content);
  }

  /** `evaluateMessage` with a judge that may return a Promise. */
  async evaluateMessageAsync(content) {
    return withAsyncJudge(this.#judge, () => this.#message(content));
  }

  /** Computes the attack verdict (SDK §4.5) from indicator verdicts produced elsewhere (e.g. your own
   * judge): `[{ indicatorId, result, evidence?, timestamp? }]`; a declared indicator without one
   * counts as `skipped`. */
  computeVerdict(verdicts) {
    if (!Array.isArray(verdicts)) throw new TypeError('computeVerdict takes an array of indicator verdicts');
    try {
      return camel(JSON.parse(this.#inner.computeVerdictJson(JSON.stringify(verdicts.map(verdictIn)))));
    } catch (e) {
      throw typeof e === 'string' ? new TypeError(e) : e;
    }
  }

  #trace(trace, options, call) {
    const { name = '<trace>', compat } = checkOptions(options, TRACE_OPTIONS, call);
    const jsonl = traceBytes(trace);
    let json;
    try {
      json = this.#inner.evaluateTraceBytesJson(jsonl, name, compat);
    } catch (e) {
      // An unknown compatibility profile (the module's message lists the known ones).
      throw typeof e === 'string' ? new RangeError(e) : e;
    }
    return report(json);
  }

  /** Evaluates a trace (format §6): JSON Lines text or bytes, or an array of messages. Returns the
   * verdict document `oatf evaluate --format json` prints, in camelCase, with `traceErrors` (the
   * first 100 malformed lines). */
  evaluateTrace(trace, options) {
    return this.#trace(trace, options, 'evaluateTrace');
  }

  /** `evaluateTrace` with a judge that may return a Promise. */
  async evaluateTraceAsync(trace, options) {
    return withAsyncJudge(this.#judge, () => this.#trace(trace, options, 'evaluateTraceAsync'));
  }

  /** Frees the WebAssembly memory of the attack (optional: the garbage collector does it too). */
  free() {
    this.#inner.free();
  }
}

/** Loads and compiles a document. `options.judge({ text, intent, intentClass, threshold, examples })`
 * returns a score in [0, 1] for semantic indicators (without one they are `skipped`); a judge that
 * returns a Promise needs `evaluateMessageAsync`/`evaluateTraceAsync`. `options.validate: false` only
 * parses (for bare indicators, as the conformance runner does). Throws `OatfError` when the document
 * does not load. */
export function compile(source, options) {
  const { judge, validate: check = true } = checkOptions(options, { judge: 'function', validate: 'boolean' }, 'compile');
  let inner;
  try {
    inner = new wasm.WasmAttack(text(source, 'the document'), judge, check);
  } catch (e) {
    if (typeof e === 'string') unwrap(e);
    throw e;
  }
  return new Attack(inner, judge);
}

/** Evaluates a trace one message at a time: `push(message)` each, or its JSON Lines a piece at a time,
 * `pushLines(piece)`; then `finish()`. Memory does not grow with the trace. Judges are called
 * synchronously here. `{ compat: 'thoughtjack-context' }` scores it as ThoughtJack's context mode does
 * (D-100); `{ name }` is the report's `trace.file` (`<push>` without one). */
export class TraceEvaluator {
  #inner;
  constructor(attack, options) {
    if (!(attack instanceof Attack)) throw new TypeError('TraceEvaluator takes an Attack (from compile)');
    const { compat, name } = checkOptions(options, { compat: TRACE_OPTIONS.compat, name: TRACE_OPTIONS.name }, 'TraceEvaluator');
    try {
      this.#inner = new wasm.WasmTraceEvaluator(attack._inner, compat, name);
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

  /** Evaluates the whole lines of `piece`, the next part of a JSON Lines trace (text, or UTF-8 bytes
   * such as a chunk of a file or a stream), as `evaluateTrace` reads a trace (D-291): a line may
   * begin in one piece and end in a later one, and `finish()` reads the last line. Malformed lines
   * are counted and in the report's `traceErrors`, not thrown. */
  pushLines(piece) {
    let bytes;
    if (typeof piece === 'string') bytes = UTF8.encode(piece);
    else if (piece instanceof Uint8Array) bytes = piece;
    else throw new TypeError('pushLines takes JSON Lines text (a string or a Uint8Array)');
    // The module addresses the array with 32-bit offsets: a larger piece is given in parts.
    for (let from = 0; from < bytes.length; from += 0x80000000) {
      try {
        this.#inner.pushLines(bytes.length > 0x80000000 ? bytes.subarray(from, from + 0x80000000) : bytes);
      } catch (e) {
        throw typeof e === 'string' ? new Error(e) : e;
      }
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
    return report(json);
  }
}
