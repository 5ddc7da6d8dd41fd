// Node.js entry point of `oatf/validate`: instantiates the validation module synchronously from the
// package directory; the regex module is read and instantiated synchronously the first time a document
// has a regex, inside that validation (D-320), the syntax module the first time a document has a CEL
// expression, a JSONPath selector, a regex extractor or a regex with a Unicode class, the normalize
// module the first time a document is loaded, normalized or serialized.
import { readFileSync } from 'node:fs';
import { initSync } from './oatf_validate.js';
import * as regexModule from './oatf_regex.js';
import * as syntaxModule from './oatf_syntax.js';
import * as normalizeModule from './oatf_normalize.js';
import { __ready } from './validate.js';

initSync({ module: readFileSync(new URL('./oatf_validate_bg.wasm', import.meta.url)) });
/** A loader of `module` (its wasm-bindgen glue) from `file` beside this one, synchronous. */
function onDemand(module, file) {
  const sync = () => {
    module.initSync({ module: readFileSync(new URL(file, import.meta.url)) });
    return module;
  };
  return { sync, load: async () => sync() };
}
__ready({
  regex: onDemand(regexModule, './oatf_regex_bg.wasm'),
  syntax: onDemand(syntaxModule, './oatf_syntax_bg.wasm'),
  normalize: onDemand(normalizeModule, './oatf_normalize_bg.wasm'),
});

export * from './validate.js';
