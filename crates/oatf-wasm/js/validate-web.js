// Browser and bundler entry point of `oatf/validate`: fetches and instantiates the validation module
// beside this file (top-level await; Vite and webpack 5 emit the `.wasm` they see in
// `new URL(..., import.meta.url)`; esbuild does not: use `oatf/validate/inline` there, D-145). The regex
// module is fetched the first time a document has a regex, the syntax module the first time a document has a CEL expression, a JSONPath selector, a regex
// extractor or a regex with a Unicode class, the normalize module the first time a document is loaded
// (or `loadNormalizer()` is called); each is a dynamic import, which bundlers split into its own chunk.
import init from './oatf_validate.js';
import { __ready } from './validate.js';
import { fetchFailed } from './fetch-failed.js';
// validate.js's own import, named here too so that the browser fetches it with the others rather than
// one round trip later: the module's fetch starts only once every import has arrived.
import './common.js';

const url = new URL('./oatf_validate_bg.wasm', import.meta.url);
try {
  await init({ module_or_path: url });
} catch (e) {
  throw fetchFailed(url, e);
}
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
// The URLs are written out in each `import()` and `new URL()` so that bundlers see them.
__ready({
  regex: { load: () => instantiate(import('./oatf_regex.js'), new URL('./oatf_regex_bg.wasm', import.meta.url)) },
  syntax: { load: () => instantiate(import('./oatf_syntax.js'), new URL('./oatf_syntax_bg.wasm', import.meta.url)) },
  normalize: {
    load: () => instantiate(import('./oatf_normalize.js'), new URL('./oatf_normalize_bg.wasm', import.meta.url)),
  },
});

export * from './validate.js';
