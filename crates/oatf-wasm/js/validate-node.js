// Node.js entry point of `oatf/validate`: instantiates the validation module synchronously from the
// package directory; the CEL syntax module is read and instantiated synchronously the first time a
// document has a CEL expression.
import { readFileSync } from 'node:fs';
import { initSync } from './oatf_validate.js';
import * as celModule from './oatf_cel.js';
import { __ready } from './validate.js';

initSync({ module: readFileSync(new URL('./oatf_validate_bg.wasm', import.meta.url)) });
function loadCel() {
  celModule.initSync({ module: readFileSync(new URL('./oatf_cel_bg.wasm', import.meta.url)) });
  return celModule;
}
__ready({ sync: loadCel, load: async () => loadCel() });

export * from './validate.js';
