// Node.js entry point of `oatf/validate`: instantiates the validation module synchronously from the
// package directory; the syntax module is read and instantiated synchronously the first time a
// document has a CEL expression, a JSONPath selector, a regex extractor or a regex with a Unicode class.
import { readFileSync } from 'node:fs';
import { initSync } from './oatf_validate.js';
import * as syntaxModule from './oatf_syntax.js';
import { __ready } from './validate.js';

initSync({ module: readFileSync(new URL('./oatf_validate_bg.wasm', import.meta.url)) });
function loadSyntax() {
  syntaxModule.initSync({ module: readFileSync(new URL('./oatf_syntax_bg.wasm', import.meta.url)) });
  return syntaxModule;
}
__ready({ sync: loadSyntax, load: async () => loadSyntax() });

export * from './validate.js';
