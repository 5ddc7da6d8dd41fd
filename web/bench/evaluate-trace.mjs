// `node web/bench/evaluate-trace.mjs DOC TRACE [--text | --stream] [--steps N]`: evaluates a JSON Lines trace
// through the npm package and prints the verdict document, as `oatf evaluate DOC TRACE --format json` does (the
// file is read whole as bytes for `evaluateTrace`, or with `--text` as a string; with `--stream` it is read a MiB
// at a time into one buffer and each piece given to `TraceEvaluator.pushLines`, as the CLI streams a file). With
// `--steps N` it evaluates the trace N times and prints to standard error the CPU time (user + system, all of
// Node's threads, in ms) of each step: the import (instantiating the module), reading the files, compiling the
// document, and each evaluation (with `--stream`, reading the trace is part of it).
import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import { join } from 'node:path';
const repo = new URL('../..', import.meta.url).pathname;
const args = process.argv.slice(2);
const stepsAt = args.indexOf('--steps');
const runs = stepsAt < 0 ? 1 : Number(args.splice(stepsAt, 2)[1]);
const flag = (name) => {
  const at = args.indexOf(name);
  if (at >= 0) args.splice(at, 1);
  return at >= 0;
};
const [asText, stream] = [flag('--text'), flag('--stream')];
const [document, trace] = args;
const steps = {};
let cpu = process.cpuUsage();
const step = (name) => {
  const used = process.cpuUsage(cpu);
  steps[name] = Math.round((used.user + used.system) / 100) / 10;
  cpu = process.cpuUsage();
};
const { compile, TraceEvaluator } = await import(join(process.env.OATF_NPM_DIR ?? join(repo, 'target/npm'), 'node.js'));
step('import');
const text = readFileSync(document, 'utf8');
// The trace as bytes (a Buffer is a Uint8Array) by default: no UTF-8 decoding into a string and encoding back.
const bytes = stream ? null : asText ? readFileSync(trace, 'utf8') : readFileSync(trace);
step('read');
const attack = compile(text);
step('compile');
/** The trace a MiB at a time through one buffer (the read is part of each evaluation's step). */
function evaluateStream() {
  const evaluator = new TraceEvaluator(attack, { name: trace });
  const piece = Buffer.allocUnsafe(1 << 20);
  const fd = openSync(trace, 'r');
  try {
    for (let read; (read = readSync(fd, piece, 0, piece.length, null)) > 0; ) evaluator.pushLines(piece.subarray(0, read));
  } finally {
    closeSync(fd);
  }
  return evaluator.finish();
}
let report;
for (let i = 1; i <= runs; i += 1) {
  report = stream ? evaluateStream() : attack.evaluateTrace(bytes, { name: trace });
  step(`${stream ? 'pushLines' : 'evaluateTrace'} ${i}`);
}
process.stdout.write(`${JSON.stringify(report)}\n`);
if (stepsAt >= 0) process.stderr.write(`${JSON.stringify(steps)}\n`);
