// Browser and bundler entry point: fetches and instantiates the WebAssembly module beside this file
// (top-level await; bundlers such as Vite, esbuild and webpack 5 copy the `.wasm` they see in
// `new URL(..., import.meta.url)`). Modules that import this one run once it is ready.
import init from './oatf_wasm.js';
import { __ready } from './oatf.js';

await init({ module_or_path: new URL('./oatf_wasm_bg.wasm', import.meta.url) });
__ready();

export * from './oatf.js';
