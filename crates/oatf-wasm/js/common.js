// What both entries of the npm package share (`oatf` and `oatf/validate`): errors, the text of a
// diagnostic, how a document argument becomes text, and the one check of option names (D-144); and
// the one import of the validation module (D-320), here because every instance of `validate.js` imports
// this file under one URL.

/** The validation module's question about a regex during a validation: `validate.js`'s, set by its
 * `__ready`. */
let regexAsker = () => false;

/** @internal Imported by the validation module (`oatf_validate.js`): asks the regex module about one regex
 * during a validation (see `validate.js`). */
export function __askRegexTree(pattern) {
  return regexAsker(pattern);
}

/** @internal Sets what `__askRegexTree` asks (`validate.js`'s `__ready`). */
export function __setRegexAsker(ask) {
  regexAsker = ask;
}

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

/** One diagnostic as text: `line 3, column 5: V-001: message at `path``. */
export function describe(d) {
  let text = '';
  if (d.line != null) text += d.column != null ? `line ${d.line}, column ${d.column}: ` : `line ${d.line}: `;
  if (d.rule) text += `${d.rule}: `;
  text += d.message;
  if (d.path) text += ` at \`${d.path}\``;
  return text;
}

/** A document (or trace) argument as text: a string, or UTF-8 bytes; bytes that are not UTF-8 throw
 * `OatfError` with the parser's line and column of the first invalid byte (`decodeErrorsJson`). */
export function toText(input, what, decodeErrorsJson) {
  if (typeof input === 'string') return input;
  if (input instanceof Uint8Array) {
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(input);
    } catch {
      // Never replace what the user wrote: the parser names the first invalid byte's line and column.
      throw new OatfError(JSON.parse(decodeErrorsJson(input)).errors);
    }
  }
  throw new TypeError(`${what} must be a string or a Uint8Array (UTF-8)`);
}

/** The `{ ok, … }` JSON of the module, or `OatfError`. */
export function unwrap(json) {
  const result = typeof json === 'string' ? JSON.parse(json) : json;
  if (!result.ok) throw new OatfError(result.errors);
  return result;
}

/** The options object of `call`, checked: only the names of `known` (name → expected `typeof`, or
 * a function returning an error message or null); anything else is a TypeError naming it. */
export function checkOptions(options, known, call) {
  if (options === undefined) return {};
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw new TypeError(`${call}: options must be an object`);
  }
  for (const [name, value] of Object.entries(options)) {
    const expected = known[name];
    if (expected === undefined) {
      const names = Object.keys(known);
      throw new TypeError(`${call}: unknown option \`${name}\` (${names.length ? `the options are ${names.map((n) => `\`${n}\``).join(', ')}` : 'it takes none'})`);
    }
    if (value !== undefined && typeof value !== expected) {
      throw new TypeError(`${call}: option \`${name}\` must be a ${expected}, not ${value === null ? 'null' : typeof value}`);
    }
  }
  return options;
}
