// Entry point `oatf/validate/inline`: `oatf/validate` with its modules inside the JavaScript (base64),
// instantiated synchronously (D-145). The regex, the syntax and the normalize module are dynamic
// imports, so a bundler that splits code loads each only when needed: the regex module when a document
// has a regex, the syntax module when a document has a CEL
// expression, a JSONPath selector, a regex extractor or a regex with a Unicode class, the normalize
// module when a document is loaded (or `loadNormalizer()` is called).
import { initSync } from './oatf_validate.js';
import wasmBase64 from './oatf_validate_inline.js';
import { bytesOf } from './base64.js';
import { __ready } from './validate.js';

initSync({ module: bytesOf(wasmBase64) });
/** Instantiates a wasm-bindgen module (a Promise of it) from its base64 module (a Promise of it). */
async function instantiate(module, base64) {
  const [glue, { default: text }] = await Promise.all([module, base64]);
  glue.initSync({ module: bytesOf(text) });
  return glue;
}
__ready({
  regex: { load: () => instantiate(import('./oatf_regex.js'), import('./oatf_regex_inline.js')) },
  syntax: { load: () => instantiate(import('./oatf_syntax.js'), import('./oatf_syntax_inline.js')) },
  normalize: { load: () => instantiate(import('./oatf_normalize.js'), import('./oatf_normalize_inline.js')) },
});

export * from './validate.js';
