// The HTML report of a campaign (`oatf evaluate --format html`, D-107) in a real headless browser
// (Debian's chromium through playwright-core, as browser-test.mjs): the examples' benchmark
// (web/campaign/manifest.yaml) renders, a cell opens its runs with their evidence, attacker text in
// evidence, traces and groups stays text, a campaign of thousands of runs stays usable, and no console
// error. Saves a screenshot to target/campaign-html.png (docs/campaign-html.png is a copy).
// Needs the `oatf` binary: OATF_BIN, else target/debug/oatf. CHROMIUM overrides /usr/bin/chromium.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import assert from 'node:assert/strict';
import { chromium } from 'playwright-core';

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const oatf = process.env.OATF_BIN ?? join(repo, 'target/debug/oatf');
const work = mkdtempSync(join(tmpdir(), 'oatf-html-'));

/** Runs `oatf evaluate ARGS --format html` in `cwd` and writes the page to `out`; verdict exit codes are fine. */
function report(args, cwd, out) {
  let html;
  try {
    html = execFileSync(oatf, ['evaluate', ...args, '--format', 'html', '--quiet'], { cwd, maxBuffer: 1 << 30 });
  } catch (e) {
    if (typeof e.status !== 'number' || e.status > 6) throw e;
    html = e.stdout;
  }
  writeFileSync(out, html);
  return pathToFileURL(out).href;
}

const doc = (id, needle) => `oatf: "0.1"
attack:
  id: ${id}
  name: Test
  severity: high
  execution:
    mode: mcp_server
    state:
      tools:
        - name: lookup
          description: "Looks things up."
          inputSchema: {type: object}
  indicators:
    - id: ${id}-01
      surface: tools/call
      target: arguments.query
      tier: local_action
      pattern:
        contains: "${needle}"
`;
const trace = (query) => JSON.stringify({ seq: 1, direction: 'incoming', method: 'tools/call',
  content: { name: 'lookup', arguments: { query } } }) + '\n';

const profile = mkdtempSync(join(tmpdir(), 'oatf-chromium-'));
const browser = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  headless: true,
  viewport: { width: 1100, height: 760 },
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync'],
});
let failed = false;
try {
  const page = await browser.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => m.type() === 'error' && problems.push(`console error: ${m.text()}`));
  page.on('request', (r) => !r.url().startsWith('file:') && problems.push(`request: ${r.url()}`));
  page.on('dialog', (d) => { problems.push(`dialog: ${d.message()}`); d.dismiss(); });

  // The examples' benchmark: 3 attacks x 2 agents.
  await page.goto(report(['--manifest', 'web/campaign/manifest.yaml'], repo, join(work, 'examples.html')));
  assert.equal(await page.locator('#matrix tbody tr').count(), 3);
  assert.equal(await page.locator('#matrix thead th').count(), 3);
  assert.ok(await page.locator('#details').isHidden());
  const breach = page.locator('#matrix td.t3 button');
  assert.equal(await breach.count(), 1, 'one cell has a boundary_breach');
  await breach.click();
  await page.locator('#details').waitFor({ state: 'visible', timeout: 5_000 });
  assert.match(await page.locator('#details-title').textContent(), /^OATF-EX-001 × agent-a: 3 runs$/);
  assert.equal(await page.locator('#runs tbody tr').count(), 3);
  const evidence = page.locator('#runs tbody details').first();
  await evidence.locator('summary').click();
  assert.ok(await evidence.locator('pre').isVisible());
  assert.match(await evidence.locator('summary').textContent(), /matched/);
  await page.screenshot({ path: join(repo, 'target/campaign-html.png') });
  console.log(`ok - the examples' campaign renders and a cell opens: ${await page.locator('#details-title').textContent()}`);

  // Attacker text in a group, a trace name and evidence stays text.
  const hostile = join(work, 'hostile');
  mkdirSync(join(hostile, 'runs'), { recursive: true });
  writeFileSync(join(hostile, 'k.yaml'), doc('KEY-001', 'KEY'));
  const payload = 'KEY <img src=x onerror="window.pwned=1"></script><script>window.pwned=2</script>';
  writeFileSync(join(hostile, 'runs', '<b>x<b>.jsonl'), trace(payload));
  writeFileSync(join(hostile, 'manifest.yaml'),
    'runs:\n  - document: k.yaml\n    group: "<script>window.pwned=3</script>"\n    trace: runs\n');
  await page.goto(report(['--manifest', 'manifest.yaml'], hostile, join(work, 'hostile.html')));
  await page.locator('#matrix td button').first().click();
  await page.locator('#runs tbody details summary').first().click();
  assert.equal(await page.evaluate(() => window.pwned), undefined);
  assert.equal(await page.locator('#runs img, #runs b, #matrix script').count(), 0);
  assert.ok((await page.locator('#runs tbody pre').first().textContent()).includes('<img src=x'));
  assert.ok((await page.locator('#matrix thead').textContent()).includes('<script>window.pwned=3</script>'));
  console.log('ok - attacker text in evidence, traces and groups is shown as text');

  // Thousands of runs: 2 attacks x 8 groups x 150 runs.
  const big = join(work, 'big');
  mkdirSync(big, { recursive: true });
  let manifest = 'runs:\n';
  for (const [attack, needle] of [['k', 'KEY'], ['s', 'SHELL']]) {
    writeFileSync(join(big, `${attack}.yaml`), doc(attack === 'k' ? 'KEY-001' : 'SHL-001', needle));
    for (let g = 0; g < 8; g++) {
      const dir = join(big, 'runs', `model-${g}`, attack);
      mkdirSync(dir, { recursive: true });
      for (let i = 0; i < 150; i++) writeFileSync(join(dir, `${i}.jsonl`), trace((i * (g + 1)) % 7 === 0 ? `${needle} ${'x'.repeat(200)}` : 'no'));
      manifest += `  - document: ${attack}.yaml\n    group: model-${g}\n    trace: runs/model-${g}/${attack}\n`;
    }
  }
  writeFileSync(join(big, 'manifest.yaml'), manifest);
  const started = Date.now();
  const bigUrl = report(['--manifest', 'manifest.yaml'], big, join(work, 'big.html'));
  const size = statSync(join(work, 'big.html')).size;
  await page.goto(bigUrl);
  assert.equal(await page.locator('#matrix td button').count(), 16);
  await page.locator('#matrix td button').last().click();
  await page.locator('#runs tbody tr').nth(149).waitFor({ timeout: 5_000 });
  assert.equal(await page.locator('#runs tbody tr').count(), 150);
  console.log(`ok - 2400 runs: ${(size / 1024).toFixed(0)} KiB, evaluated, loaded and a cell opened in ${Date.now() - started} ms`);
  assert.ok(size < 3 * 1024 * 1024, `the page of 2400 runs is ${size} bytes`);

  assert.deepEqual(problems, []);
  console.log('ok - no console error, no request');
} catch (e) {
  failed = true;
  console.error(e);
} finally {
  await browser.close();
  rmSync(profile, { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
