// The SDK runs here, off the page's thread: a hostile document can only stall this worker, which the
// page then replaces (main.js). Diagnostics as you type come from the small validation entry
// (`oatf/validate`, whose syntax module loads the first time a document has a CEL expression, a
// JSONPath selector, a regex extractor or a regex with a Unicode class); the full package, with the evaluation engine, is loaded the first time *Evaluate* is pressed (D-147).
import { describe, validate, version } from '../../target/npm/validate-web.js';

/** The full package, once asked for. */
let full = null;

self.onmessage = async ({ data }) => {
  const { id, op } = data;
  try {
    if (op === 'version') return self.postMessage({ id, result: version });
    if (op === 'validate') return self.postMessage({ id, result: await validate(data.text) });
    if (op === 'evaluate') {
      full ??= await import('../../target/npm/web.js');
      const attack = full.compile(data.text);
      try {
        // A report is plain data (camelCase, traceErrors included): it crosses postMessage whole.
        return self.postMessage({ id, result: attack.evaluateTrace(data.trace, { name: 'pasted trace' }) });
      } finally {
        attack.free();
      }
    }
    throw new Error(`unknown operation ${op}`);
  } catch (e) {
    self.postMessage({ id, error: e.errors ? e.errors.map(describe).join('\n') : String(e) });
  }
};
self.postMessage({ ready: true });
