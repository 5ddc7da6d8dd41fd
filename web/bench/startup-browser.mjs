// `node web/bench/startup-browser.mjs [RUNS]`: in headless Chromium (Debian's, through playwright-core),
// how long a page takes to import `oatf/validate` (fetching and instantiating its module) and validate
// examples/mcp-tool-poisoning.yaml (5.6 KB), from before the import to the result; the full package
// (`oatf`) beside it. Each run is a fresh browser profile (no cached module). Prints the times in ms, and when the
// JavaScript modules and the .wasm had arrived (the rest is compiling, instantiating and validating).
import { createServer } from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { chromium } from 'playwright-core';

const repo = new URL('../..', import.meta.url).pathname;
const npm = process.env.OATF_NPM_DIR ?? join(repo, 'target/npm');
const example = readFileSync(join(repo, 'examples/mcp-tool-poisoning.yaml'), 'utf8');
const page = (entry) => `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><script type="module">
const text = ${JSON.stringify(example)};
const started = performance.now();
const oatf = await import('./${entry}');
const imported = performance.now();
const result = await oatf.validate(text);
const done = performance.now();
// When the JavaScript modules and the .wasm had arrived (resource timing): what the page waited for the network
// (here a local server in the benchmark's own process), as against compiling, instantiating and validating.
const arrived = (suffix) => Math.max(...performance.getEntriesByType('resource').filter((e) => e.name.endsWith(suffix)).map((e) => e.responseEnd));
const wasmArrived = arrived('.wasm');
window.timing = { importMs: imported - started, validateMs: done - imported, totalMs: done - started, jsArrivedMs: arrived('.js') - started, wasmArrivedMs: wasmArrived - started, afterWasmMs: done - wasmArrived, valid: result.valid };
</script>`;
const TYPES = { '.js': 'text/javascript', '.wasm': 'application/wasm' };
const server = createServer((request, response) => {
  const path = normalize(decodeURIComponent(new URL(request.url, 'http://x').pathname));
  if (path === '/validate.html' || path === '/full.html') {
    response.writeHead(200, { 'content-type': 'text/html' });
    return response.end(page(path === '/full.html' ? 'web.js' : 'validate-web.js'));
  }
  try {
    const body = readFileSync(join(npm, path.replace(/^\/+/, '')));
    response.writeHead(200, { 'content-type': TYPES[extname(path)] ?? 'application/octet-stream' });
    response.end(body);
  } catch {
    response.writeHead(404).end();
  }
});
await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
const base = `http://127.0.0.1:${server.address().port}`;
const runs = Number(process.argv[2] ?? 5);
for (const which of ['validate', 'full']) {
  const times = [];
  for (let i = 0; i < runs; i++) {
    const profile = mkdtempSync(join(tmpdir(), 'oatf-chromium-'));
    const browser = await chromium.launchPersistentContext(profile, {
      executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
    });
    const tab = await browser.newPage();
    await tab.goto(`${base}/${which}.html`);
    await tab.waitForFunction(() => window.timing, null, { timeout: 60_000 });
    const timing = await tab.evaluate(() => window.timing);
    if (!timing.valid) throw new Error('the example should be valid');
    times.push(timing);
    await browser.close();
    rmSync(profile, { recursive: true, force: true });
  }
  const median = (key) => times.map((t) => t[key]).sort((a, b) => a - b)[Math.floor(times.length / 2)].toFixed(1);
  console.log(
    `${which === 'validate' ? 'oatf/validate' : 'oatf'}: median of ${runs} cold runs: import ${median('importMs')} ms, ` +
      `validate ${median('validateMs')} ms, total ${median('totalMs')} ms; of the total, the JavaScript modules had arrived at ` +
      `${median('jsArrivedMs')} ms and the .wasm at ${median('wasmArrivedMs')} ms, then ${median('afterWasmMs')} ms to ` +
      'compile, instantiate and validate',
  );
}
server.close();
