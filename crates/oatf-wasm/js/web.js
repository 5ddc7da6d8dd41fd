// Browser and bundler entry point: fetches and instantiates the WebAssembly module beside this file
// (top-level await). Vite and webpack 5 emit the `.wasm` they see in `new URL(..., import.meta.url)`;
// esbuild does not: use `oatf/inline` there (docs/javascript.md, D-145). Modules that import this one
// run once it is ready.
import init from './oatf_wasm.js';
import { __ready } from './oatf.js';
import { fetchFailed } from './fetch-failed.js';
// oatf.js's own import, named here too so that the browser fetches it with the others rather than one
// round trip later: the module's fetch starts only once every import has arrived (D-292).
import './common.js';

const url = new URL('./oatf_wasm_bg.wasm', import.meta.url);
try {
  await init({ module_or_path: url });
} catch (e) {
  throw fetchFailed(url, e);
}
__ready();

export * from './oatf.js';
