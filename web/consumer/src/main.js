// The package's default entries (`oatf`, `oatf/validate`): the `.wasm` files are found through
// `new URL(…, import.meta.url)`, which Vite and webpack 5 follow.
import * as validation from 'oatf/validate';
import * as full from 'oatf';
import { run } from './app.js';

run(validation, full, 'default entries');
