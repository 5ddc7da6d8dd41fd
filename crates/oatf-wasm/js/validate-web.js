// Browser and bundler entry point of `oatf/validate`: fetches and instantiates the validation module
// beside this file (top-level await; Vite and webpack 5 emit the `.wasm` they see in
// `new URL(..., import.meta.url)`; esbuild does not: use `oatf/validate/inline` there, D-145). The regex
// module (60 KB, 27 KB gzipped) is fetched at the same time, so that a document's regexes are checked
// during its first validation, not in a second pass after a fetch (D-320); the syntax module is fetched
// the first time a document has a CEL expression, a JSONPath selector, a regex extractor or a regex with
// a Unicode class, the normalize module the first time a document is loaded (or `loadNormalizer()` is
// called); each is a dynamic import, which bundlers split into its own chunk.
import init from './oatf_validate.js';
// The regex module's glue is imported statically, so that the browser fetches it with the other modules
// and both `.wasm` fetches start at once.
import * as regexGlue from './oatf_regex.js';
import { __ready } from './validate.js';
import { fetchFailed } from './fetch-failed.js';
// validate.js's own import, named here too so that the browser fetches it with the others rather than
// one round trip later: the module's fetch starts only once every import has arrived.
import './common.js';

/** Instantiates the wasm-bindgen module `module` (a Promise of it) from `wasmUrl`. */
async function instantiate(module, wasmUrl) {
  const glue = await module;
  try {
    await glue.default({ module_or_path: wasmUrl });
  } catch (e) {
    throw fetchFailed(wasmUrl, e);
  }
  return glue;
}
// The URLs are written out in each `new URL()` (and `import()`) so that bundlers see them.
const loadRegex = () => instantiate(regexGlue, new URL('./oatf_regex_bg.wasm', import.meta.url));
// Both fetches start now. The regex module is not required here: if it fails, it is fetched again (and
// its error thrown) the first time a document has a regex.
const regex = loadRegex().catch(() => null);
const url = new URL('./oatf_validate_bg.wasm', import.meta.url);
try {
  await init({ module_or_path: url });
} catch (e) {
  throw fetchFailed(url, e);
}
__ready(
  {
    regex: { load: loadRegex },
    syntax: { load: () => instantiate(import('./oatf_syntax.js'), new URL('./oatf_syntax_bg.wasm', import.meta.url)) },
    normalize: {
      load: () => instantiate(import('./oatf_normalize.js'), new URL('./oatf_normalize_bg.wasm', import.meta.url)),
    },
  },
  { regex: await regex },
);

export * from './validate.js';
