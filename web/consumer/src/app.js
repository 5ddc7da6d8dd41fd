// What each bundled page runs (bundlers.mjs): the validation entry on a document with a CEL error (so
// the syntax module loads on demand), and the full package on the example and its trace.
import example from './example.js';

const BAD_CEL = 'oatf: "0.1"\nattack:\n  execution: {mode: mcp_server, state: {tools: []}}\n  indicators:\n    - surface: tools/call\n      target: arguments\n      expression: {cel: "size(arguments) >"}\n';

export async function run(validation, full, how) {
  const out = globalThis.document.getElementById('out');
  try {
    const bad = await validation.validate(BAD_CEL);
    const report = full.compile(example.yaml).evaluateTrace(example.trace, { name: how });
    out.textContent = JSON.stringify({
      how,
      version: validation.version,
      rules: bad.errors.map((e) => e.rule),
      line: bad.errors[0]?.line,
      syntaxLoaded: validation.syntaxChecksLoaded(),
      result: report.result,
      maxTier: report.maxTier,
      file: report.trace.file,
    });
  } catch (e) {
    out.textContent = `failed: ${e?.stack ?? e}`;
  }
}
