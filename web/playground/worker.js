// The SDK runs here, off the page's thread: a hostile document can only stall this worker, which the
// page then replaces (main.js).
import { compile, describe, validate, version } from '../../target/npm/web.js';

self.onmessage = ({ data }) => {
  const { id, op } = data;
  try {
    if (op === 'version') return self.postMessage({ id, result: version });
    if (op === 'validate') return self.postMessage({ id, result: validate(data.text) });
    if (op === 'evaluate') {
      const attack = compile(data.text);
      try {
        const report = attack.evaluateTrace(data.trace, { name: 'pasted trace' });
        return self.postMessage({ id, result: { report, traceErrors: report.traceErrors } });
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
