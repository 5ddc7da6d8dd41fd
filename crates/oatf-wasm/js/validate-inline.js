// Entry point `oatf/validate/inline`: `oatf/validate` with its modules inside the JavaScript (base64),
// instantiated synchronously (D-145). The syntax module is a dynamic import, so a bundler that
// splits code loads it only when a document has a CEL expression, a JSONPath selector, a regex extractor or a
// regex with a Unicode class.
import { initSync } from './oatf_validate.js';
import wasmBase64 from './oatf_validate_inline.js';
import { bytesOf } from './base64.js';
import { __ready } from './validate.js';

initSync({ module: bytesOf(wasmBase64) });
__ready({
  load: async () => {
    const [syntaxModule, { default: syntaxBase64 }] = await Promise.all([
      import('./oatf_syntax.js'),
      import('./oatf_syntax_inline.js'),
    ]);
    syntaxModule.initSync({ module: bytesOf(syntaxBase64) });
    return syntaxModule;
  },
});

export * from './validate.js';
