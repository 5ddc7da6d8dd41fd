// The playground in a real headless browser (Debian's chromium through playwright-core; no browser is
// downloaded): typing an invalid document shows its diagnostic on the right line, the example trace
// gives the README's verdict, a shared link restores the document, and a screenshot is saved to
// target/playground.png. Needs `cargo xtask playground` first. CHROMIUM overrides /usr/bin/chromium.
import { createServer } from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, extname, join, normalize, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import assert from 'node:assert/strict';
import { chromium } from 'playwright-core';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const root = join(repo, 'target/playground');
const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.wasm': 'application/wasm' };

const server = createServer((request, response) => {
  const path = normalize(decodeURIComponent(new URL(request.url, 'http://x').pathname)).replace(/^(\.\.[/\\])+/, '');
  const file = join(root, path === '/' ? 'index.html' : path);
  try {
    const body = readFileSync(file);
    response.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
    response.end(body);
  } catch {
    response.writeHead(404).end();
  }
});
await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
const url = `http://127.0.0.1:${server.address().port}/`;

const profile = mkdtempSync(join(tmpdir(), 'oatf-chromium-'));
// A fresh profile (--user-data-dir) each run, passed as playwright wants it.
const browser = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  headless: true,
  viewport: { width: 1280, height: 860 },
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync'],
});
let failed = false;
try {
  const page = await browser.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(e.message));
  page.on('console', (m) => m.type() === 'error' && console.error(`page console: ${m.text()}`));
  page.on('worker', (w) => w.on('console', (m) => console.error(`worker console: ${m.text()}`)));

  // The package from a plain <script type="module">, no bundler.
  await page.goto(`${url}plain.html`);
  await page.locator('#out', { hasText: 'rules' }).waitFor({ timeout: 30_000 });
  const plain = JSON.parse(await page.locator('#out').textContent());
  assert.equal(plain.valid, false);
  assert.ok(plain.rules.includes('V-034'), JSON.stringify(plain));
  assert.match(plain.version, /^\d+\.\d+\.\d+/);
  console.log(`ok - plain <script type="module"> (no bundler): ${JSON.stringify(plain)}`);

  // The modules the playground fetches: the small validation module for diagnostics, the full package
  // only once *Evaluate* is pressed (D-147).
  const fetched = [];
  page.on('response', (r) => r.url().endsWith('.wasm') && fetched.push(r.url().split('/').pop()));
  await page.goto(url);
  // The example is valid.
  await page.getByTestId('status').filter({ hasText: /^valid/ }).waitFor({ timeout: 30_000 });
  assert.ok(fetched.includes('oatf_validate_bg.wasm'), JSON.stringify(fetched));
  assert.ok(!fetched.includes('oatf_wasm_bg.wasm'), `the full package was fetched before Evaluate: ${fetched}`);
  console.log(`ok - diagnostics from the small module alone: fetched ${fetched.join(', ')}`);

  // Type an invalid document: the unknown mode is reported on line 6, in the list and in the gutter.
  // The lines are pasted (typed newlines would be auto-indented by the editor), the mode is typed key by key.
  await page.locator('.cm-content').click();
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText('oatf: "0.1"\nattack:\n  id: OATF-X-1\n  execution:\n    state: {}\n    mode: ');
  await page.keyboard.type('carrier_pigeon', { delay: 20 });
  await page.keyboard.insertText('\n');
  const diagnostic = page.locator('#diagnostics li', { hasText: 'mode' }).first();
  await diagnostic.waitFor({ timeout: 15_000 });
  assert.equal(await diagnostic.getAttribute('data-line'), '6', await diagnostic.textContent());
  assert.match(await page.getByTestId('status').textContent(), /error/);
  await page.locator('.cm-lint-marker-error').first().waitFor({ timeout: 5_000 });
  console.log(`ok - typed document: diagnostic on line 6: ${await diagnostic.textContent()}`);

  // Share: the link restores the typed document in a fresh page.
  await page.click('#share');
  const shared = page.url();
  assert.match(shared, /#doc=/);
  const second = await browser.newPage();
  await second.goto(shared);
  await second.locator('#diagnostics li', { hasText: 'mode' }).first().waitFor({ timeout: 15_000 });
  assert.match(await second.locator('.cm-content').innerText(), /carrier_pigeon/);
  await second.close();
  console.log('ok - the shared link restores the document');

  // The example and its complied trace: exploited, boundary_breach (examples/README.md).
  await page.click('#example');
  await page.getByTestId('status').filter({ hasText: /^valid/ }).waitFor({ timeout: 15_000 });
  await page.click('#evaluate');
  const result = page.getByTestId('verdict-result');
  await result.waitFor({ timeout: 15_000 });
  assert.equal((await result.textContent()).trim(), 'exploited (boundary_breach)');
  assert.equal(await page.locator('#verdict td.matched').count(), 2);
  assert.ok(fetched.includes('oatf_wasm_bg.wasm'), JSON.stringify(fetched));
  console.log('ok - example trace: exploited (boundary_breach), 2 indicators matched with evidence; the full package loaded on Evaluate');

  // A hostile document (a CEL expression of 10^7 iterations, stopped by its budget at 10^6) is evaluated
  // in the worker: the page stays responsive meanwhile, and the outcome is an error (the budget's, or the
  // worker's timeout, which replaces the worker).
  const runaway = '[1,2,3,4,5,6,7,8,9,10].all(a, [1,2,3,4,5,6,7,8,9,10].all(b, [1,2,3,4,5,6,7,8,9,10].all(c, [1,2,3,4,5,6,7,8,9,10].all(d, [1,2,3,4,5,6,7,8,9,10].all(e, [1,2,3,4,5,6,7,8,9,10].all(f, [1,2,3,4,5,6,7,8,9,10].all(g, a+b+c+d+e+f+g > 0)))))))';
  const hostile = `oatf: "0.1"\nattack:\n  execution: {mode: mcp_server, state: {tools: []}}\n  indicators:\n    - surface: tools/call\n      target: arguments\n      expression: {cel: ${JSON.stringify(runaway)}}\n`;
  await page.evaluate((text) => {
    const view = window.oatfEditor;
    view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
  }, hostile);
  await page.fill('#trace', '{"direction":"incoming","method":"tools/call","content":{"arguments":{}}}');
  await page.click('#evaluate');
  const started = Date.now();
  assert.equal(await page.evaluate(() => 6 * 7), 42);
  const responsive = Date.now() - started;
  assert.ok(responsive < 2_000, `the page took ${responsive} ms to answer while the worker evaluated`);
  await page.getByTestId('verdict-result').filter({ hasText: 'error' }).waitFor({ timeout: 60_000 });
  console.log(`ok - hostile CEL: the page answered in ${responsive} ms meanwhile; verdict: ${(await page.locator('#verdict').innerText()).split('\n').slice(0, 2).join(' / ')}`);
  await page.click('#example');
  await page.getByTestId('status').filter({ hasText: /^valid/ }).waitFor({ timeout: 15_000 });
  await page.click('#evaluate');
  await page.getByTestId('verdict-result').filter({ hasText: 'exploited' }).waitFor({ timeout: 15_000 });

  // The screenshot shows both: the verdict, and a diagnostic at its line after an edit.
  await page.evaluate(() => {
    const view = window.oatfEditor;
    const line = view.state.doc.line(7);
    view.dispatch({ changes: { from: line.from, to: line.to, insert: '  version: one' } });
  });
  await page.locator('#diagnostics li', { hasText: 'version' }).first().waitFor({ timeout: 15_000 });
  assert.equal(await page.locator('#diagnostics li', { hasText: 'version' }).first().getAttribute('data-line'), '7');
  await page.screenshot({ path: join(repo, 'target/playground.png') });
  await page.screenshot({ path: join(repo, 'target/playground.jpg'), type: 'jpeg', quality: 60 });
  console.log('screenshot: target/playground.png (and target/playground.jpg, the copy docs/ shows)');
  assert.deepEqual(problems, []);
} catch (e) {
  failed = true;
  console.error(e);
  for (const page of browser.pages()) {
    console.error(`status: ${await page.locator('#status').textContent().catch(() => '?')}`);
    console.error(`diagnostics: ${await page.locator('#diagnostics').textContent().catch(() => '?')}`);
  }
} finally {
  await browser.close();
  server.close();
  rmSync(profile, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
