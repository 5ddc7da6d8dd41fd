// `node web/bench/evaluate-trace.mjs DOC TRACE`: evaluates a JSON Lines trace through the npm package and
// prints the verdict document, as `oatf evaluate DOC TRACE --format json` does (the file is read whole:
// the package takes text).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
const repo = new URL('../..', import.meta.url).pathname;
const { compile } = await import(join(process.env.OATF_NPM_DIR ?? join(repo, 'target/npm'), 'node.js'));
const [document, trace] = process.argv.slice(2);
// The trace as bytes (a Buffer is a Uint8Array): no UTF-8 decoding into a string and re-encoding into the module.
const report = compile(readFileSync(document, 'utf8')).evaluateTrace(readFileSync(trace), { name: trace });
process.stdout.write(`${JSON.stringify(report)}\n`);
