// `node web/bench/static-server.mjs DIR`: serves the files of DIR over HTTP on 127.0.0.1 (a free port),
// as a static host does: read once into memory, each with its content type (`application/wasm` for
// `.wasm`, which `WebAssembly.instantiateStreaming` requires) and length. A process of its own, so
// that a benchmark's browser traffic does not wait for the benchmark's event loop. Started by
// `startup-browser.mjs` through `fork`: it sends `{ port }` once listening and stops when its parent
// disconnects; run by hand it prints the address.
import { createServer } from 'node:http';
import { readFileSync, readdirSync } from 'node:fs';
import { extname, join } from 'node:path';

const root = process.argv[2];
if (!root) {
  console.error('usage: node web/bench/static-server.mjs DIR');
  process.exit(2);
}
const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.wasm': 'application/wasm', '.json': 'application/json' };
const files = new Map();
for (const name of readdirSync(root, { recursive: true })) {
  try {
    files.set(`/${name}`, readFileSync(join(root, name)));
  } catch {
    // a directory
  }
}
const server = createServer((request, response) => {
  const path = new URL(request.url, 'http://x').pathname;
  const body = files.get(path === '/' ? '/index.html' : path);
  if (!body) return response.writeHead(404).end();
  response.writeHead(200, { 'content-type': TYPES[extname(path)] ?? 'application/octet-stream', 'content-length': body.length });
  response.end(body);
});
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address();
  if (process.send) process.send({ port });
  else console.log(`http://127.0.0.1:${port}/`);
});
process.on('disconnect', () => process.exit(0));
