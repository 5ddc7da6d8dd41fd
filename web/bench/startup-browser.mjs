// `node web/bench/startup-browser.mjs [RUNS] [PAGE…]`: in headless Chromium (Debian's, through playwright-core),
// how long a page takes to load an entry of the npm package and validate examples/mcp-tool-poisoning.yaml
// (5.6 KB). Each run is a fresh browser profile (nothing cached), the pages taken in turn run by run; the site is
// served by web/bench/static-server.mjs in a process of its own. The pages (default: `validate`,
// `validate+preload`, `validate/inline`):
//
// - `validate`: `import('./validate-web.js')` (`oatf/validate`) from a page without hints: the browser learns of
//   each JavaScript module when the one importing it has arrived, and of the `.wasm` when the entry runs;
// - `validate+preload`: the same page as a site should ship it: `<link rel="modulepreload">` for every JavaScript
//   module of the entry and `<link rel="preload" as="fetch" crossorigin>` for the `.wasm` of every module it
//   imports statically (the first module's, and the regex module's since D-320), so that everything is fetched
//   at once, while the HTML is parsed;
// - `validate/inline`: `oatf/validate/inline` (the module inside the JavaScript, base64), with modulepreload;
// - `validate/at-hand`: the `validate+preload` page whose script waits until every hinted file has arrived (and
//   500 ms more, for the fresh browser's own start-up work) before it imports the entry: its `fromImport` is what
//   the package itself costs, instantiating its modules (the `.wasm` compiled from the preloaded responses) and
//   validating, without the network (D-340);
// - `oatf`, `oatf+preload`: the full package (`web.js`), without and with the hints.
//
// `--vs DIR` adds the same pages for a second package (e.g. main's `target/npm`), served from `vs/` of the same
// site and taken in turn with the others run by run, named `vs:PAGE`: two packages compared under one load.
//
// Times are in ms. `html` is when the page's HTML had arrived (since the navigation began); `fromHtml` the time
// from then to the validation's result, the figure to compare for a page (the hints start fetching before any
// script runs); `fromImport` from the script's `import()` to the result (for `validate/at-hand`, the package's
// own cost); `wasm` when the `.wasm` had arrived and
// `afterWasm` the time from then to the result (compiling, instantiating, validating).
import { fork } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const repo = new URL('../..', import.meta.url).pathname;
const npm = process.env.OATF_NPM_DIR ?? join(repo, 'target/npm');
const example = readFileSync(join(repo, 'examples/mcp-tool-poisoning.yaml'), 'utf8');
const args = process.argv.slice(2);
const vsAt = args.indexOf('--vs');
const vs = vsAt < 0 ? null : args.splice(vsAt, 2)[1];
const runs = /^\d+$/.test(args[0] ?? '') ? Number(args.shift()) : 5;

/** The JavaScript modules `entry` imports statically (not `import()`), itself included, in the site. */
function staticGraph(site, entry, seen = new Set()) {
  if (seen.has(entry)) return seen;
  seen.add(entry);
  const source = readFileSync(join(site, entry), 'utf8');
  for (const [, name] of source.matchAll(/(?:^|[;\s])(?:import|export)\s*(?:[^'";]*?\sfrom\s*)?['"]\.\/([^'"]+\.js)['"]/g)) {
    staticGraph(site, name, seen);
  }
  return seen;
}

// `wasm`: preload the `.wasm` of every module the entry imports statically (the regex module's too where the
// entry fetches it at import, D-320).
const PAGES = {
  validate: { entry: 'validate-web.js' },
  'validate+preload': { entry: 'validate-web.js', wasm: true },
  'validate/inline': { entry: 'validate-inline.js', preload: true },
  'validate/at-hand': { entry: 'validate-web.js', wasm: true, atHand: true },
  oatf: { entry: 'web.js' },
  'oatf+preload': { entry: 'web.js', wasm: true },
};
const pages = args.length ? args : ['validate', 'validate+preload', 'validate/inline'];
for (const name of pages) if (!PAGES[name]) throw new Error(`unknown page ${name} (the pages: ${Object.keys(PAGES).join(', ')})`);
const chosen = vs ? pages.flatMap((name) => [name, `vs:${name}`]) : pages;

// The site: the package's files and one page per variant (the second package's under vs/).
const site = mkdtempSync(join(tmpdir(), 'oatf-site-'));
cpSync(npm, site, { recursive: true });
if (vs) cpSync(vs, join(site, 'vs'), { recursive: true });
const pageFile = (name) => (name.startsWith('vs:') ? `vs/${pageFile(name.slice(3))}` : `${name.replace(/[^a-z]+/g, '-')}.html`);
for (const name of chosen) {
  const dir = name.startsWith('vs:') ? join(site, 'vs') : site;
  const { entry, wasm, preload, atHand } = PAGES[name.replace(/^vs:/, '')];
  const graph = [...staticGraph(dir, entry)];
  const modules = graph.filter((m) => /^oatf_[a-z]+\.js$/.test(m)).map((m) => m.replace(/\.js$/, '_bg.wasm'));
  const links = wasm || preload
    ? [
      ...graph.map((m) => `<link rel="modulepreload" href="./${m}">`),
      ...(wasm ? modules.map((w) => `<link rel="preload" href="./${w}" as="fetch" crossorigin>`) : []),
    ]
    : [];
  const hints = links.join('');
  // The at-hand page starts its clock once every hinted file has arrived (and 500 ms more, for the browser's own
  // start-up work to settle).
  const wait = atHand
    ? `while (performance.getEntriesByType('resource').filter((e) => e.responseEnd > 0).length < ${links.length}) await new Promise((ok) => setTimeout(ok, 5));
await new Promise((ok) => setTimeout(ok, 500));
`
    : '';
  writeFileSync(join(site, pageFile(name)), `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,">${hints}<script type="module">
const text = ${JSON.stringify(example)};
${wait}const started = performance.now();
const oatf = await import('./${entry}');
const result = await oatf.validate(text);
const done = performance.now();
const resources = performance.getEntriesByType('resource');
const arrived = (suffix) => Math.max(...resources.filter((e) => e.name.endsWith(suffix)).map((e) => e.responseEnd));
const html = performance.getEntriesByType('navigation')[0].responseEnd;
const wasm = arrived('.wasm');
window.timing = { html, fromHtml: done - html, fromImport: done - started, js: arrived('.js') - html, wasm: Number.isFinite(wasm) ? wasm - html : null, afterWasm: Number.isFinite(wasm) ? done - wasm : null, valid: result.valid };
</script>`);
}

const server = fork(new URL('./static-server.mjs', import.meta.url), [site], { stdio: 'inherit' });
const { port } = await new Promise((ok) => server.once('message', ok));
const base = `http://127.0.0.1:${port}`;

const times = Object.fromEntries(chosen.map((name) => [name, []]));
try {
  for (let i = 0; i < runs; i++) {
    for (const name of chosen) {
      const profile = mkdtempSync(join(tmpdir(), 'oatf-chromium-'));
      const browser = await chromium.launchPersistentContext(profile, {
        executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
        headless: true,
        args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
          '--disable-component-update', '--disable-sync'],
      });
      try {
        const tab = await browser.newPage();
        await tab.goto(`${base}/${pageFile(name)}`);
        await tab.waitForFunction(() => window.timing, null, { timeout: 60_000 });
        const timing = await tab.evaluate(() => window.timing);
        if (!timing.valid) throw new Error('the example should be valid');
        times[name].push(timing);
      } finally {
        await browser.close();
        rmSync(profile, { recursive: true, force: true });
      }
    }
  }
} finally {
  server.disconnect();
  rmSync(site, { recursive: true, force: true });
}

const summary = (list, key) => {
  const values = list.map((t) => t[key]).filter((v) => v != null).sort((a, b) => a - b);
  if (!values.length) return '-';
  const median = values[Math.floor(values.length / 2)];
  return `${median.toFixed(1)} (${values[0].toFixed(1)}–${values.at(-1).toFixed(1)})`;
};
console.log(`median (range) of ${runs} fresh profiles, ms; fromHtml is the figure to compare (fromImport for validate/at-hand)`);
for (const name of chosen) {
  const list = times[name];
  console.log(`${name.padEnd(17)} fromHtml ${summary(list, 'fromHtml')}  fromImport ${summary(list, 'fromImport')}  ` +
    `html ${summary(list, 'html')}  js ${summary(list, 'js')}  wasm ${summary(list, 'wasm')}  afterWasm ${summary(list, 'afterWasm')}`);
}
