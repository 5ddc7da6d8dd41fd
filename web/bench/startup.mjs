// `node web/bench/startup.mjs [ENTRY]`: how long a fresh Node process takes to import an entry of the
// npm package (instantiating its module) and validate examples/mcp-tool-poisoning.yaml (5.6 KB), from
// before the import to the result, in milliseconds. ENTRY is `validate-node.js` (default) or `node.js`;
// `node web/bench/startup.mjs ENTRY FILE` validates FILE instead (it must be valid).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
const repo = new URL('../..', import.meta.url).pathname;
const text = readFileSync(process.argv[3] ?? join(repo, 'examples/mcp-tool-poisoning.yaml'), 'utf8');
const entry = process.argv[2] ?? 'validate-node.js';
const cpu = process.cpuUsage();
const started = performance.now();
const oatf = await import(join(process.env.OATF_NPM_DIR ?? join(repo, 'target/npm'), entry));
const imported = performance.now();
const result = await oatf.validate(text);
const done = performance.now();
if (!result.valid) throw new Error('the example should be valid');
// CPU time of this process over the same span (all its threads): on a loaded machine, wall time also
// counts the time others had the cores.
const used = process.cpuUsage(cpu);
console.log(JSON.stringify({ entry, importMs: +(imported - started).toFixed(1), validateMs: +(done - imported).toFixed(1), totalMs: +(done - started).toFixed(1), cpuMs: +((used.user + used.system) / 1000).toFixed(1) }));
