// Entry point `oatf/validate/inline`: `oatf/validate` with its modules inside the JavaScript (base64),
// instantiated synchronously (D-145). The regex module (82 KB as base64) is imported with it and
// instantiated, synchronously, the first time a document has a regex, inside that validation (D-320).
// The syntax and the normalize module are dynamic imports, so a bundler that splits code loads each only
// when needed: the syntax module when a document has a CEL expression, a JSONPath selector, a regex
// extractor or a regex with a Unicode class, the normalize module when a document is loaded (or
// `loadNormalizer()` is called).
import { initSync } from './oatf_validate.js';
import wasmBase64 from './oatf_validate_inline.js';
import * as regexGlue from './oatf_regex.js';
import regexBase64 from './oatf_regex_inline.js';
import { bytesOf } from './base64.js';
import { __ready } from './validate.js';

initSync({ module: bytesOf(wasmBase64) });
/** Instantiates a wasm-bindgen module (a Promise of it) from its base64 module (a Promise of it). */
async function instantiate(module, base64) {
  const [glue, { default: text }] = await Promise.all([module, base64]);
  glue.initSync({ module: bytesOf(text) });
  return glue;
}
/** The regex module, instantiated synchronously from the base64 text imported above. */
function regexNow() {
  regexGlue.initSync({ module: bytesOf(regexBase64) });
  return regexGlue;
}
__ready(
  {
    regex: { sync: regexNow, load: async () => regexNow() },
    syntax: { load: () => instantiate(import('./oatf_syntax.js'), import('./oatf_syntax_inline.js')) },
    normalize: { load: () => instantiate(import('./oatf_normalize.js'), import('./oatf_normalize_inline.js')) },
  },
);

export * from './validate.js';
