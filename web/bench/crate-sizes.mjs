// `node web/bench/crate-sizes.mjs MODULE.wasm [TOP]`: what each crate costs in a WebAssembly module, from
// its name section (the modules `cargo xtask wasm` keeps before wasm-opt, target/wasm/<name>.wasm, have
// one): the bytes of code of each crate's functions (a function is counted under the crate of the first
// path in its name: `<regex_syntax::ast::Ast as core::fmt::Debug>::fmt` is `regex_syntax`'s), the data
// segments, and the TOP largest functions. Prints JSON; docs/javascript.md ("Size") has the figures.
import { readFileSync } from 'node:fs';

const [path, top = '15'] = process.argv.slice(2);
if (!path) throw new Error('usage: node web/bench/crate-sizes.mjs MODULE.wasm [TOP]');
const bytes = readFileSync(path);

let at = 8; // after the magic number and the version
function leb() {
  let value = 0;
  let shift = 0;
  for (;;) {
    const byte = bytes[at++];
    value += (byte & 0x7f) * 2 ** shift;
    shift += 7;
    if (byte < 0x80) return value;
  }
}
function name() {
  const length = leb();
  const text = bytes.toString('utf8', at, at + length);
  at += length;
  return text;
}

let imported = 0;
const bodies = []; // body sizes, by defined function index
const names = new Map(); // function index -> name
let data = 0;
const sections = {};
while (at < bytes.length) {
  const id = bytes[at++];
  const size = leb();
  const end = at + size;
  if (id === 0) {
    const custom = name();
    sections[`custom ${custom}`] = size;
    if (custom === 'name') {
      while (at < end) {
        const sub = bytes[at++];
        const subSize = leb();
        const subEnd = at + subSize;
        if (sub === 1) {
          for (let count = leb(); count > 0; count--) names.set(leb(), name());
        }
        at = subEnd;
      }
    }
  } else {
    sections[id] = size;
    if (id === 2) {
      // imports: count the functions (kind 0), their indices come first
      for (let count = leb(); count > 0; count--) {
        name();
        name();
        const kind = bytes[at++];
        if (kind === 0) {
          imported++;
          leb();
        } else if (kind === 1) {
          at++;
          const flags = leb();
          leb();
          if (flags & 1) leb();
        } else if (kind === 2) {
          const flags = leb();
          leb();
          if (flags & 1) leb();
        } else if (kind === 3) {
          at += 2;
        } else {
          leb();
        }
      }
    } else if (id === 10) {
      for (let count = leb(); count > 0; count--) {
        const body = leb();
        bodies.push(body);
        at += body;
      }
    } else if (id === 11) {
      data = size;
    }
  }
  at = end;
}

/** A legacy-mangled Rust name (`_ZN<len><segment>…E`) as a path: `_ZN12regex_syntax3ast5parse…` is
 * `regex_syntax::ast::parse::…`, with `$LT$`, `$RF$`, `$u20$` and `..` decoded; other names as they are. */
function demangle(symbol) {
  if (!symbol.startsWith('_ZN')) return symbol;
  const segments = [];
  let i = 3;
  while (i < symbol.length && symbol[i] !== 'E') {
    const digits = /^\d+/.exec(symbol.slice(i));
    if (!digits) break;
    i += digits[0].length;
    segments.push(symbol.slice(i, i + Number(digits[0])));
    i += Number(digits[0]);
  }
  return segments
    .join('::')
    .replace(/^_/, '')
    .replaceAll('$LT$', '<')
    .replaceAll('$GT$', '>')
    .replaceAll('$RF$', '&')
    .replaceAll('$u20$', ' ')
    .replaceAll('$C$', ',')
    .replaceAll('..', '::');
}

/** The crate of a function: the first path segment of its name, inside `<…>` and past `&`, `dyn`. */
function crateOf(symbol) {
  const full = demangle(symbol);
  const match = /^[<&\s]*(?:(?:dyn|impl|mut)\s+)*([A-Za-z_][A-Za-z0-9_]*)::/.exec(full);
  return match ? match[1] : '(not Rust: glue, C, exports)';
}

const crates = new Map();
const functions = [];
bodies.forEach((size, i) => {
  const full = names.get(i + imported) ?? '(unnamed)';
  const krate = names.size ? crateOf(full) : '(no name section)';
  crates.set(krate, (crates.get(krate) ?? 0) + size);
  functions.push([size, demangle(full)]);
});
const code = bodies.reduce((a, b) => a + b, 0);
functions.sort((a, b) => b[0] - a[0]);
console.log(
  JSON.stringify(
    {
      file: path,
      bytes: bytes.length,
      code,
      data,
      functions: bodies.length,
      crates: Object.fromEntries([...crates].sort((a, b) => b[1] - a[1])),
      largest: functions.slice(0, Number(top)).map(([size, full]) => `${size} ${full.slice(0, 140)}`),
    },
    null,
    1,
  ),
);
