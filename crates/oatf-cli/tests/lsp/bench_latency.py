"""Latency of `oatf lsp`'s diagnostics: the time from a `didChange` to the `publishDiagnostics` of that
version, on the ~80 KB document of the end-to-end tests, as an editor sees it (pygls client over stdio).

    target/py-venv/bin/python crates/oatf-cli/tests/lsp/bench_latency.py [OATF_BIN] [EDITS]

Build the binary with `cargo build --release -p oatf-cli` for the figure `docs/performance.md` reports;
the tests hold the debug build to a looser budget. Prints the median, 90th percentile and maximum.
"""

import asyncio
import os
import pathlib
import statistics
import sys
import time

from lsprotocol import types
from pygls.lsp.client import LanguageClient

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from test_lsp import large_document, position_of, toggled  # noqa: E402


async def main(binary, edits):
    client = LanguageClient("oatf-lsp-bench", "1")
    published = {}
    waiting = {}

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_diagnostics(params):
        published[params.version] = time.perf_counter()
        if params.version in waiting:
            waiting.pop(params.version).set()

    await client.start_io(binary, "lsp")
    await client.initialize_async(types.InitializeParams(capabilities=types.ClientCapabilities()))
    client.initialized(types.InitializedParams())
    text = large_document()
    uri = "file:///tmp/oatf-lsp-bench.yaml"

    async def wait(version):
        if version not in published:
            event = waiting.setdefault(version, asyncio.Event())
            await asyncio.wait_for(event.wait(), 30)

    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="yaml", version=1, text=text)
        )
    )
    await wait(1)
    at = position_of(text, "secret", nth=100)
    timings = []
    for version in range(2, 2 + edits):
        letter = "a" if version % 2 == 0 else "e"
        started = time.perf_counter()
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[types.TextDocumentContentChangePartial(range=toggled(at), text=letter)],
            )
        )
        await wait(version)
        timings.append(published[version] - started)
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    timings.sort()
    ms = [t * 1000 for t in timings]
    print(
        f"{binary}: {len(text.encode())}-byte document, {edits} edits: didChange -> publishDiagnostics "
        f"median {statistics.median(ms):.1f} ms, p90 {ms[int(len(ms) * 0.9) - 1]:.1f} ms, max {ms[-1]:.1f} ms"
    )


if __name__ == "__main__":
    root = HERE.parents[3]
    binary = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("OATF_BIN", str(root / "target" / "release" / "oatf"))
    edits = int(sys.argv[2]) if len(sys.argv) > 2 else 50
    asyncio.run(main(binary, edits))
