// Entry point `oatf/inline`: the WebAssembly module is inside this package's JavaScript (base64), so no
// bundler has to emit a `.wasm` asset (esbuild does not follow `new URL(…, import.meta.url)`), nothing is
// fetched, and nothing awaits at the top level: it works in ESM, CommonJS and IIFE bundles alike
// (D-145). Instantiated synchronously on import (browsers allow that for modules of a few MB).
import { initSync } from './oatf_wasm.js';
import wasmBase64 from './oatf_wasm_inline.js';
import { bytesOf } from './base64.js';
import { __ready } from './oatf.js';

initSync({ module: bytesOf(wasmBase64) });
__ready();

export * from './oatf.js';
