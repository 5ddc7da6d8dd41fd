// `node web/bench/make-trace.mjs OUT [MESSAGES]`: a trace of MESSAGES messages (100,000 by default) for the speed
// figures of docs/javascript.md:
// the tools/call messages of mcp-tool-poisoning.resisted.jsonl (they pass the indicators' filters and do not
// match) repeated, then the whole of mcp-tool-poisoning.complied.jsonl (so the verdict is `exploited`).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
const examples = new URL('../../examples/', import.meta.url).pathname;
const lines = (name) => readFileSync(join(examples, name), 'utf8').split('\n').filter((l) => l.trim());
const calls = lines('mcp-tool-poisoning.resisted.jsonl').filter((l) => JSON.parse(l).method === 'tools/call');
const tail = lines('mcp-tool-poisoning.complied.jsonl');
const messages = Number(process.argv[3] ?? 100_000);
const out = [];
while (out.length < messages - tail.length) out.push(calls[out.length % calls.length]);
out.push(...tail);
writeFileSync(process.argv[2] ?? 'trace-100k.jsonl', `${out.join('\n')}\n`);
