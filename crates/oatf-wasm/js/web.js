// Browser and bundler entry point: fetches and instantiates the WebAssembly module beside this file
// (top-level await; bundlers such as Vite, esbuild and webpack 5 copy the `.wasm` they see in
// `new URL(..., import.meta.url)`).
import init from './oatf_wasm.js';

await init({ module_or_path: new URL('./oatf_wasm_bg.wasm', import.meta.url) });

export * from './oatf.js';
