// The playground page: a CodeMirror 6 editor whose diagnostics come, as you type, from the SDK's small
// validation entry in a Web Worker (the evaluation engine loads there when *Evaluate* is first pressed); a trace box whose verdict shows each indicator with its evidence; the document shared
// through the URL (#doc=<base64url of the UTF-8 text>).
import { EditorView, basicSetup } from 'codemirror';
import { yaml } from '@codemirror/lang-yaml';
import { linter, lintGutter, forceLinting } from '@codemirror/lint';
import exampleDocument from '../../examples/mcp-tool-poisoning.yaml';
import exampleTrace from '../../examples/mcp-tool-poisoning.complied.jsonl';

/** A request that takes longer than this is a stuck worker: it is replaced. */
const WORKER_TIMEOUT_MS = 5000;

let worker;
/** Resolves when the worker has instantiated the SDK (it says `{ ready: true }`). */
let ready;
let nextId = 1;
const pending = new Map();

function startWorker() {
  worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
  let markReady;
  ready = new Promise((resolve) => (markReady = resolve));
  worker.onmessage = ({ data }) => {
    if (data.ready) return markReady();
    const request = pending.get(data.id);
    if (!request) return;
    pending.delete(data.id);
    clearTimeout(request.timer);
    if ('error' in data) request.reject(new Error(data.error));
    else request.resolve(data.result);
  };
  worker.onerror = (event) => {
    for (const request of pending.values()) request.reject(new Error(event.message || 'the worker failed'));
    pending.clear();
    restartWorker();
  };
}

function restartWorker() {
  worker.terminate();
  startWorker();
}

/** Sends a request to the worker once it is ready; a worker that does not answer in time is terminated
 * and replaced. */
async function ask(message) {
  await ready;
  const id = nextId++;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      pending.delete(id);
      restartWorker();
      reject(new Error(`the SDK did not answer within ${WORKER_TIMEOUT_MS / 1000} s; the worker was restarted`));
    }, WORKER_TIMEOUT_MS);
    pending.set(id, { resolve, reject, timer });
    worker.postMessage({ id, ...message });
  });
}

/** The editor position of a 1-based line and column (in characters, as the SDK counts them). */
function position(doc, line, column) {
  if (line == null) return 0;
  const at = doc.line(Math.min(Math.max(line, 1), doc.lines));
  let offset = 0;
  let characters = 1;
  for (const ch of at.text) {
    if (characters >= (column ?? 1)) break;
    offset += ch.length;
    characters += 1;
  }
  return at.from + offset;
}

const statusEl = document.getElementById('status');
const listEl = document.getElementById('diagnostics');

function showDiagnostics(view, result) {
  const all = [...result.errors, ...result.warnings];
  statusEl.textContent = result.valid ? (result.warnings.length ? `valid, ${result.warnings.length} warning(s)` : 'valid') : `${result.errors.length} error(s)`;
  statusEl.className = `status ${result.valid ? 'ok' : 'bad'}`;
  listEl.replaceChildren(
    ...all.map((d) => {
      const item = document.createElement('li');
      item.className = d.severity;
      item.dataset.line = d.line ?? '';
      item.dataset.rule = d.rule ?? '';
      item.textContent = `${d.line != null ? `${d.line}:${d.column ?? 1}` : '-'}  ${d.rule ?? d.kind}  ${d.message}${d.path ? `  (${d.path})` : ''}`;
      item.onclick = () => {
        const at = position(view.state.doc, d.line, d.column);
        view.dispatch({ selection: { anchor: at }, scrollIntoView: true });
        view.focus();
      };
      return item;
    }),
  );
}

const oatfLinter = linter(
  async (view) => {
    const text = view.state.doc.toString();
    let result;
    try {
      result = await ask({ op: 'validate', text });
    } catch (e) {
      result = { valid: false, errors: [{ rule: null, path: null, line: null, column: null, message: e.message, kind: 'parse', severity: 'error' }], warnings: [] };
    }
    if (view.state.doc.toString() !== text) return [];
    showDiagnostics(view, result);
    const doc = view.state.doc;
    return [...result.errors, ...result.warnings].map((d) => {
      const from = position(doc, d.line, d.column);
      const lineEnd = doc.lineAt(from).to;
      return {
        from,
        to: Math.max(from, Math.min(lineEnd, from + 1)),
        severity: d.severity === 'warning' ? 'warning' : 'error',
        source: d.rule ?? d.kind,
        message: d.path ? `${d.message} (${d.path})` : d.message,
      };
    });
  },
  { delay: 250 },
);

function initialDocument() {
  const match = /[#&]doc=([^&]+)/.exec(location.hash);
  if (!match) return exampleDocument;
  try {
    const binary = atob(match[1].replace(/-/g, '+').replace(/_/g, '/'));
    return new TextDecoder().decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
  } catch {
    return exampleDocument;
  }
}

function shareLink(text) {
  const bytes = new TextEncoder().encode(text);
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  const encoded = btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  return `${location.origin}${location.pathname}#doc=${encoded}`;
}

startWorker();
const view = new EditorView({
  doc: initialDocument(),
  extensions: [basicSetup, yaml(), lintGutter(), oatfLinter, EditorView.lineWrapping],
  parent: document.getElementById('editor'),
});
window.oatfEditor = view; // for the browser test and the curious
forceLinting(view);

ask({ op: 'version' }).then((v) => (document.getElementById('version').textContent = `SDK ${v}`), () => {});

document.getElementById('example').onclick = () => {
  view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: exampleDocument } });
  document.getElementById('trace').value = exampleTrace;
};
document.getElementById('share').onclick = async () => {
  const link = shareLink(view.state.doc.toString());
  history.replaceState(null, '', link);
  try {
    await navigator.clipboard.writeText(link);
  } catch {
    /* the address bar holds the link */
  }
};

const verdictEl = document.getElementById('verdict');
document.getElementById('evaluate').onclick = async () => {
  verdictEl.textContent = 'Evaluating…';
  try {
    const report = await ask({ op: 'evaluate', text: view.state.doc.toString(), trace: document.getElementById('trace').value });
    const rows = report.indicatorVerdicts
      .map((v) => `<tr><td>${escape(v.indicatorId)}</td><td class="${v.result}">${v.result}</td><td>${escape(v.evidence ?? '')}</td></tr>`)
      .join('');
    const errors = report.traceErrors.map((e) => `<li>line ${e.line}: ${escape(e.message)}</li>`).join('');
    verdictEl.innerHTML =
      `<div class="result ${report.result}" data-testid="verdict-result">${report.result}${report.maxTier ? ` (${report.maxTier})` : ''}</div>` +
      `<div>${report.trace.messages} message(s), ${report.trace.malformedLines} malformed line(s)</div>` +
      `<table><tr><th>indicator</th><th>result</th><th>evidence</th></tr>${rows}</table>` +
      (errors ? `<ul>${errors}</ul>` : '');
  } catch (e) {
    verdictEl.innerHTML = `<div class="result error" data-testid="verdict-result">error</div><pre>${escape(e.message)}</pre>`;
  }
};

function escape(text) {
  return String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
