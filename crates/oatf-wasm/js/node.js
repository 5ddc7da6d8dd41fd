// Node.js entry point: instantiates the WebAssembly module synchronously from the package directory.
import { readFileSync } from 'node:fs';
import { initSync } from './oatf_wasm.js';
import { __ready } from './oatf.js';

initSync({ module: readFileSync(new URL('./oatf_wasm_bg.wasm', import.meta.url)) });
__ready();

export * from './oatf.js';
