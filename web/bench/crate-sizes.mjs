// `node web/bench/crate-sizes.mjs MODULE.wasm [TOP]`: what each crate costs in a WebAssembly module, from
// its name section (the modules `cargo xtask wasm` keeps before wasm-opt, target/wasm/<name>.wasm, have
// one; legacy `_ZN…` and v0 `_R…` names are both read): the bytes of code of each crate's functions (a
// function is counted under the crate of the first path in its name, see `crateOf`), the data segments,
// and the TOP largest functions. Prints JSON; docs/javascript.md ("Size") has the figures.
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
 * `regex_syntax::ast::parse::…`, with `$LT$`, `$RF$`, `$u20$` and `..` decoded. */
function demangleLegacy(symbol) {
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

const BASIC = {
  a: 'i8', b: 'bool', c: 'char', d: 'f64', e: 'str', f: 'f32', h: 'u8', i: 'isize', j: 'usize',
  l: 'i32', m: 'u32', n: 'i128', o: 'u128', p: '_', s: 'i16', t: 'u16', u: '()', v: '...', x: 'i64',
  y: 'u64', z: '!',
};

/** A v0-mangled Rust name (`_R…`, rustc's default since 1.9x on this toolchain) as a path, crate
 * hashes left out: `_RNvMs_NtCs…_10oatf_model8validateNtB4_9Validator8document` is
 * `<oatf_model::validate::Validator>::document`. Covers the grammar rustc writes (paths, impls,
 * generic arguments, back-references, types, constants); what it cannot read ends the text with `?`. */
function demangleV0(symbol) {
  const text = symbol.slice(2);
  let at = 0;
  let depth = 0;
  let crate = null;
  const base62 = () => {
    if (text[at] === '_') {
      at++;
      return 0;
    }
    let value = 0;
    while (at < text.length && text[at] !== '_') {
      const c = text[at++];
      const code = c.charCodeAt(0);
      const digit = /[0-9]/.test(c) ? code - 48 : /[a-z]/.test(c) ? code - 87 : code - 29;
      value = value * 62 + digit;
    }
    at++;
    return value + 1;
  };
  const disambiguator = () => {
    if (text[at] === 's') {
      at++;
      base62();
    }
  };
  const identifier = () => {
    if (text[at] === 'u') at++; // punycode: shown as written
    const digits = /^\d+/.exec(text.slice(at));
    if (!digits) throw new Error('identifier');
    at += digits[0].length;
    if (text[at] === '_') at++;
    const name = text.slice(at, at + Number(digits[0]));
    at += Number(digits[0]);
    return name;
  };
  const backref = (read) => {
    const target = base62();
    if (++depth > 64) throw new Error('depth');
    const saved = at;
    at = target;
    const result = read();
    at = saved;
    depth--;
    return result;
  };
  const args = () => {
    const out = [];
    while (text[at] !== 'E') {
      if (text[at] === 'L') {
        at++;
        base62();
      } else if (text[at] === 'K') {
        at++;
        out.push(constant());
      } else out.push(type());
    }
    at++;
    return out;
  };
  const constant = () => {
    if (text[at] === 'B') {
      at++;
      return backref(constant);
    }
    const kind = text[at++];
    if (kind === 'p') return '_';
    const negative = text[at] === 'n';
    if (negative) at++;
    const end = text.indexOf('_', at);
    const hex = text.slice(at, end);
    at = end + 1;
    if (kind === 'b') return hex === '1' ? 'true' : 'false';
    return `${negative ? '-' : ''}${hex ? BigInt(`0x${hex}`) : 0}`;
  };
  const type = () => {
    const c = text[at];
    if (BASIC[c]) {
      at++;
      return BASIC[c];
    }
    at++;
    switch (c) {
      case 'R':
      case 'Q':
        if (text[at] === 'L') {
          at++;
          base62();
        }
        return `&${c === 'Q' ? 'mut ' : ''}${type()}`;
      case 'P':
        return `*const ${type()}`;
      case 'O':
        return `*mut ${type()}`;
      case 'A': {
        const element = type();
        return `[${element}; ${constant()}]`;
      }
      case 'S':
        return `[${type()}]`;
      case 'T':
        return `(${args().join(', ')})`;
      case 'F': {
        if (text[at] === 'G') {
          at++;
          base62();
        }
        if (text[at] === 'U') at++;
        if (text[at] === 'K') {
          at++;
          if (text[at] === 'C') at++;
          else identifier();
        }
        const inputs = args();
        return `fn(${inputs.join(', ')}) -> ${type()}`;
      }
      case 'D': {
        if (text[at] === 'G') {
          at++;
          base62();
        }
        const traits = [];
        while (text[at] !== 'E') {
          let bound = path();
          while (text[at] === 'p') {
            at++;
            const name = identifier();
            bound += `<${name} = ${type()}>`;
          }
          traits.push(bound);
        }
        at++;
        if (text[at] === 'L') {
          at++;
          base62();
        }
        return `dyn ${traits.join(' + ')}`;
      }
      case 'B':
        return backref(type);
      default:
        at--;
        return path();
    }
  };
  const path = () => {
    const c = text[at++];
    switch (c) {
      case 'C': {
        disambiguator();
        const name = identifier();
        crate ??= name;
        return name;
      }
      case 'M': {
        disambiguator();
        path();
        return `<${type()}>`;
      }
      case 'X': {
        disambiguator();
        path();
        const self = type();
        return `<${self} as ${path()}>`;
      }
      case 'Y': {
        const self = type();
        return `<${self} as ${path()}>`;
      }
      case 'N': {
        const namespace = text[at++];
        const parent = path();
        disambiguator();
        const name = identifier();
        if (namespace === 'C') return `${parent}::{closure${name ? `:${name}` : ''}}`;
        if (namespace === 'S') return `${parent}::{shim${name ? `:${name}` : ''}}`;
        return `${parent}::${name}`;
      }
      case 'I': {
        const generic = path();
        return `${generic}::<${args().join(', ')}>`;
      }
      case 'B':
        return backref(path);
      default:
        throw new Error(`tag ${c}`);
    }
  };
  try {
    return { text: path(), crate };
  } catch {
    return { text: `${symbol} ?`, crate };
  }
}

/** A mangled Rust name as a path; other names as they are. */
function demangle(symbol) {
  if (symbol.startsWith('_ZN')) return demangleLegacy(symbol);
  if (symbol.startsWith('_R')) return demangleV0(symbol).text;
  return symbol;
}

/** The crate of a function: for a legacy name the first path segment of its name, inside `<…>` and
 * past `&`, `dyn` (for a trait's method, the crate of the type it is implemented for); for a v0 name
 * the first crate it names, which for a method is the crate its `impl` is written in (`<str>::
 * to_lowercase` is `alloc`'s, `<Vec<T> as serde::Deserialize>` is `serde_core`'s). */
function crateOf(symbol) {
  if (symbol.startsWith('_R')) return demangleV0(symbol).crate ?? '(not Rust: glue, C, exports)';
  const full = demangle(symbol);
  const match = /^[<&\s]*(?:(?:dyn|impl|mut|const)\s+|\*(?:const|mut)\s+)*([A-Za-z_][A-Za-z0-9_]*)::/.exec(full);
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
