// Entry point `oatf/validate/inline`: `oatf/validate` with its modules inside the JavaScript (base64),
// instantiated synchronously (D-145). The CEL syntax module is a dynamic import, so a bundler that
// splits code loads it only when a document has a CEL expression.
import { initSync } from './oatf_validate.js';
import wasmBase64 from './oatf_validate_inline.js';
import { bytesOf } from './base64.js';
import { __ready } from './validate.js';

initSync({ module: bytesOf(wasmBase64) });
__ready({
  load: async () => {
    const [celModule, { default: celBase64 }] = await Promise.all([import('./oatf_cel.js'), import('./oatf_cel_inline.js')]);
    celModule.initSync({ module: bytesOf(celBase64) });
    return celModule;
  },
});

export * from './validate.js';
