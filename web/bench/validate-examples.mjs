// `node web/bench/validate-examples.mjs`: validates every document of examples/ through the npm package,
// as `oatf validate examples/*.yaml` does (compared with farm-bench in docs/javascript.md). The whole
// process is timed, module instantiation included.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
const repo = new URL('../..', import.meta.url).pathname;
const { validate } = await import(join(process.env.OATF_NPM_DIR ?? join(repo, 'target/npm'), 'node.js'));
const dir = join(repo, 'examples');
let invalid = 0;
for (const name of readdirSync(dir).filter((n) => n.endsWith('.yaml') && !n.endsWith('.test.yaml'))) {
  if (!validate(readFileSync(join(dir, name), 'utf8')).valid) invalid += 1;
}
process.exit(invalid ? 1 : 0);
