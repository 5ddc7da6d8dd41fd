// The npm package built into a page by esbuild, Vite and webpack 5, each page loaded in headless
// Chromium (Debian's, through playwright-core): the `.wasm` files are found with no hand copying and no
// plugin, the syntax module loads on demand, and the verdict is the README's (D-145). Vite and
// webpack use the default entries (`new URL(…, import.meta.url)`); esbuild the inlined ones, bundled as
// an IIFE (no top-level await). Also checks that the default entry under esbuild fails with the error
// that names the fix. Needs `cargo xtask wasm` first; writes target/consumer/. CHROMIUM overrides
// /usr/bin/chromium.
import { createServer } from 'node:http';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import assert from 'node:assert/strict';
import { build as esbuild } from 'esbuild';
import { build as vite } from 'vite';
import webpack from 'webpack';
import { chromium } from 'playwright-core';
import { makeProject } from './consumer/project.mjs';

const project = makeProject();
const src = join(project, 'src');
const page = (script, type) =>
  `<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,"></head><body><pre id="out">loading</pre><script ${type} src="${script}"></script></body></html>\n`;

const builds = {};
const timed = async (name, build) => {
  const started = performance.now();
  await build();
  builds[name] = Math.round(performance.now() - started);
};

// esbuild, the inlined entries, IIFE (a classic script: no top-level await anywhere).
await timed('esbuild', () =>
  esbuild({ entryPoints: [join(src, 'main-inline.js')], bundle: true, format: 'iife', outfile: join(project, 'dist-esbuild/main.js'), logLevel: 'warning' }),
);
writeFileSync(join(project, 'dist-esbuild/index.html'), page('main.js', ''));

// esbuild with the default entry: it builds without a word, and the page must say what to do.
await esbuild({ entryPoints: [join(src, 'main.js')], bundle: true, format: 'esm', outfile: join(project, 'dist-esbuild-default/main.js'), logLevel: 'error' });
writeFileSync(join(project, 'dist-esbuild-default/index.html'), page('main.js', 'type="module"'));

// Vite, the default entries (top-level await needs an es2022 target).
writeFileSync(join(project, 'index.html'), page('/src/main.js', 'type="module"'));
await timed('vite', () =>
  vite({ root: project, base: './', logLevel: 'warn', configFile: false, build: { outDir: join(project, 'dist-vite'), target: 'es2022', emptyOutDir: true } }),
);

// webpack 5, the default entries.
await timed('webpack', () =>
  new Promise((resolve, reject) =>
    webpack(
      {
        mode: 'production',
        context: project,
        entry: join(src, 'main.js'),
        output: { path: join(project, 'dist-webpack'), filename: 'main.js', publicPath: 'auto', clean: true },
        target: 'web',
        performance: { hints: false },
      },
      (error, stats) => {
        if (error) return reject(error);
        if (stats.hasErrors()) return reject(new Error(stats.toString({ all: false, errors: true })));
        resolve();
      },
    ),
  ),
);
writeFileSync(join(project, 'dist-webpack/index.html'), page('main.js', ''));

const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.wasm': 'application/wasm' };
const server = createServer((request, response) => {
  const path = normalize(decodeURIComponent(new URL(request.url, 'http://x').pathname)).replace(/^(\.\.[/\\])+/, '');
  const file = join(project, path.endsWith('/') ? `${path}index.html` : path);
  try {
    const body = readFileSync(file);
    response.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
    response.end(body);
  } catch {
    response.writeHead(404).end();
  }
});
await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
const base = `http://127.0.0.1:${server.address().port}`;

const profile = mkdtempSync(join(tmpdir(), 'oatf-chromium-'));
const browser = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
let failed = false;
try {
  for (const name of ['esbuild', 'vite', 'webpack']) {
    const tab = await browser.newPage();
    const problems = [];
    const wasm = [];
    tab.on('pageerror', (e) => problems.push(e.message));
    tab.on('response', (r) => r.url().endsWith('.wasm') && wasm.push(`${r.status()} ${r.url().split('/').pop()}`));
    await tab.goto(`${base}/dist-${name}/`);
    const out = tab.locator('#out', { hasText: /^(\{|failed)/ });
    await out.waitFor({ timeout: 60_000 });
    const text = await out.textContent();
    assert.ok(text.startsWith('{'), `${name}: ${text}`);
    const result = JSON.parse(text);
    assert.deepEqual(result.rules, ['V-014'], `${name}: ${text}`);
    assert.equal(result.line, 7);
    assert.equal(result.syntaxLoaded, true);
    assert.equal(result.result, 'exploited');
    assert.equal(result.maxTier, 'boundary_breach');
    assert.match(result.version, /^\d+\.\d+\.\d+/);
    assert.deepEqual(problems, []);
    if (name !== 'esbuild') assert.ok(wasm.length >= 3 && wasm.every((w) => w.startsWith('200 ')), `${name}: ${wasm}`);
    console.log(`ok - ${name} (built in ${builds[name]} ms): ${text}${wasm.length ? `; fetched ${wasm.join(', ')}` : ''}`);
    await tab.close();
  }
  // The default entry under esbuild: no .wasm was emitted, and the error names the inlined entries.
  const tab = await browser.newPage();
  const problems = [];
  tab.on('pageerror', (e) => problems.push(e.message));
  await tab.goto(`${base}/dist-esbuild-default/`);
  await tab.waitForTimeout(200);
  for (let i = 0; i < 50 && problems.length === 0; i++) await tab.waitForTimeout(100);
  assert.equal(problems.length, 1, JSON.stringify(problems));
  assert.match(problems[0], /could not load the WebAssembly module .*oatf\/inline/s);
  console.log(`ok - esbuild with the default entry fails saying what to use: ${problems[0].slice(0, 120)}…`);
} catch (e) {
  failed = true;
  console.error(e);
} finally {
  await browser.close();
  server.close();
  rmSync(profile, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
