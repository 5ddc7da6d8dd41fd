// `node web/bench/evaluate-trace.mjs DOC TRACE [--text] [--steps N]`: evaluates a JSON Lines trace through the
// npm package and prints the verdict document, as `oatf evaluate DOC TRACE --format json` does (the file is read
// whole as bytes, or with `--text` as a string). With `--steps N` it evaluates the trace N times and prints to
// standard error the CPU time (user + system, all of Node's threads, in ms) of each step: the import
// (instantiating the module), reading the files, compiling the document, and each evaluation.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
const repo = new URL('../..', import.meta.url).pathname;
const args = process.argv.slice(2);
const stepsAt = args.indexOf('--steps');
const runs = stepsAt < 0 ? 1 : Number(args.splice(stepsAt, 2)[1]);
const textAt = args.indexOf('--text');
if (textAt >= 0) args.splice(textAt, 1);
const [document, trace] = args;
const steps = {};
let cpu = process.cpuUsage();
const step = (name) => {
  const used = process.cpuUsage(cpu);
  steps[name] = Math.round((used.user + used.system) / 100) / 10;
  cpu = process.cpuUsage();
};
const { compile } = await import(join(process.env.OATF_NPM_DIR ?? join(repo, 'target/npm'), 'node.js'));
step('import');
// The trace as bytes (a Buffer is a Uint8Array) by default: no UTF-8 decoding into a string and encoding back.
const [text, bytes] = [readFileSync(document, 'utf8'), textAt >= 0 ? readFileSync(trace, 'utf8') : readFileSync(trace)];
step('read');
const attack = compile(text);
step('compile');
let report;
for (let i = 1; i <= runs; i += 1) {
  report = attack.evaluateTrace(bytes, { name: trace });
  step(`evaluateTrace ${i}`);
}
process.stdout.write(`${JSON.stringify(report)}\n`);
if (stepsAt >= 0) process.stderr.write(`${JSON.stringify(steps)}\n`);
