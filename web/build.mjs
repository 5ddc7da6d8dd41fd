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
  // The worker imports the full package only when *Evaluate* is pressed: its own chunk (D-147).
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  loader: { '.yaml': 'text', '.jsonl': 'text' },
  logLevel: 'warning',
});
for (const name of ['index.html', 'style.css', 'plain.html']) copyFileSync(join(web, 'playground', name), join(out, name));
// plain.html uses the package without a bundler, as a page would from a CDN or a copy of target/npm.
mkdirSync(join(out, 'npm'), { recursive: true });
for (const name of ['web.js', 'oatf.js', 'common.js', 'fetch-failed.js', 'oatf_wasm.js', 'oatf_wasm_bg.wasm']) copyFileSync(join(npm, name), join(out, 'npm', name));
// The entries find their modules beside themselves (`new URL('./…_bg.wasm', import.meta.url)`), which
// esbuild does not follow: in the bundle, beside the worker and beside its chunks.
mkdirSync(join(out, 'chunks'), { recursive: true });
for (const name of ['oatf_wasm_bg.wasm', 'oatf_validate_bg.wasm', 'oatf_regex_bg.wasm', 'oatf_syntax_bg.wasm', 'oatf_normalize_bg.wasm']) {
  copyFileSync(join(npm, name), join(out, name));
  copyFileSync(join(npm, name), join(out, 'chunks', name));
}
console.log(`playground written to ${out}`);
