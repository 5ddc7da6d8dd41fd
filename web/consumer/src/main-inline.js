// The inlined entries (`oatf/inline`, `oatf/validate/inline`): no `.wasm` file to emit, no top-level
// await, so they work in esbuild (which does not follow `new URL(…, import.meta.url)`), in an IIFE or
// CommonJS bundle alike.
import * as validation from 'oatf/validate/inline';
import * as full from 'oatf/inline';
import { run } from './app.js';

run(validation, full, 'inline entries');
