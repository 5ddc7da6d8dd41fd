// `node web/bench/startup-runs.mjs [--runs N] [--entry ENTRY] [--doc FILE] [--flag NODE_FLAG] [DIR…]`: runs
// `startup.mjs` in N fresh Node processes (default 20) for each package directory DIR (default target/npm),
// taken in turn run by run so that the machine's load falls on each alike, and prints a table of medians
// and ranges (ms): import, first validation, total (from before the import to the result) and CPU time of
// the process over the same span, with the machine's load average before and after.
import { execFileSync } from 'node:child_process';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(name);
  if (at < 0) return fallback;
  const [, value] = args.splice(at, 2);
  return value;
};
const runs = Number(option('--runs', '20'));
const entry = option('--entry', 'validate-node.js');
const doc = option('--doc', undefined);
const flag = option('--flag', undefined);
const dirs = (args.length ? args : ['target/npm']).map((d) => resolve(d));
const bench = new URL('./startup.mjs', import.meta.url).pathname;

const load = () => loadavg().map((l) => l.toFixed(1)).join(' ');
const before = load();
const results = dirs.map(() => []);
for (let run = 0; run < runs; run++) {
  dirs.forEach((dir, i) => {
    const out = execFileSync(process.execPath, [...(flag ? [flag] : []), bench, entry, ...(doc ? [doc] : [])], {
      env: { ...process.env, OATF_NPM_DIR: dir },
      encoding: 'utf8',
    });
    results[i].push(JSON.parse(out.trim().split('\n').pop()));
  });
}
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const cell = (xs) => `${Math.round(median(xs))} (${Math.round(Math.min(...xs))}–${Math.round(Math.max(...xs))})`;
console.log(`${runs} runs each, interleaved, entry ${entry}${doc ? `, ${doc}` : ''}${flag ? `, node ${flag}` : ''}; load average ${before} before, ${load()} after`);
console.log('| package | import | first validation | total | CPU |');
console.log('|---|---|---|---|---|');
dirs.forEach((dir, i) => {
  const r = results[i];
  console.log(`| ${dir} | ${cell(r.map((x) => x.importMs))} | ${cell(r.map((x) => x.validateMs))} | ${cell(r.map((x) => x.totalMs))} | ${cell(r.map((x) => x.cpuMs))} |`);
});
