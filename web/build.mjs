// Bundles the playground (web/playground) into target/playground: a static site (index.html, main.js,
// worker.js, the WebAssembly module). Run by `cargo xtask playground` after `cargo xtask wasm`.
import { build } from 'esbuild';
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const web = dirname(fileURLToPath(import.meta.url));
const repo = resolve(web, '..');
const out = join(repo, 'target/playground');
const npm = join(repo, 'target/npm');
if (!existsSync(join(npm, 'oatf_wasm_bg.wasm'))) throw new Error('build the npm package first: cargo xtask wasm');

mkdirSync(out, { recursive: true });
await build({
  entryPoints: { main: join(web, 'playground/main.js'), worker: join(web, 'playground/worker.js') },
  bundle: true,
  format: 'esm',
  target: 'es2022',
  minify: true,
  outdir: out,
  loader: { '.yaml': 'text', '.jsonl': 'text' },
  logLevel: 'warning',
});
for (const name of ['index.html', 'style.css', 'plain.html']) copyFileSync(join(web, 'playground', name), join(out, name));
// plain.html uses the package without a bundler, as a page would from a CDN or a copy of target/npm.
mkdirSync(join(out, 'npm'), { recursive: true });
for (const name of ['web.js', 'oatf.js', 'oatf_wasm.js', 'oatf_wasm_bg.wasm']) copyFileSync(join(npm, name), join(out, 'npm', name));
// web.js finds the module beside itself: `new URL('./oatf_wasm_bg.wasm', import.meta.url)`.
copyFileSync(join(npm, 'oatf_wasm_bg.wasm'), join(out, 'oatf_wasm_bg.wasm'));
console.log(`playground written to ${out}`);
