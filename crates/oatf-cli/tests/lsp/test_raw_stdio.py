"""`oatf lsp` on the raw stdio stream: the bytes an editor can send that a JSON library may refuse.

Run with the end-to-end tests (`test_lsp.py`) by `.ci/run`, on the `oatf` binary named by `OATF_BIN`.
"""

import json
import os
import pathlib
import subprocess

ROOT = pathlib.Path(__file__).resolve().parents[4]
OATF = os.environ.get("OATF_BIN", str(ROOT / "target" / "debug" / "oatf"))

def frame(body: bytes) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def read_message(stream):
    length = None
    while True:
        line = stream.readline()
        if not line:
            raise AssertionError("the server closed its output")
        if line in (b"\r\n", b"\n"):
            break
        name, _, value = line.decode().partition(":")
        if name.lower() == "content-length":
            length = int(value)
    return json.loads(stream.read(length))


def test_raw_messages_an_editor_can_send_do_not_end_the_server():
    """Bytes a JSON library may refuse: a lone surrogate escape, invalid UTF-8, a message that is not
    JSON-RPC, a request that cannot be read. The server answers what it can and keeps serving."""
    server = subprocess.Popen([OATF, "lsp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    send = lambda obj: server.stdin.write(frame(json.dumps(obj).encode()))  # noqa: E731

    def answer(id):
        server.stdin.flush()
        while True:
            message = read_message(server.stdout)
            if message.get("id") == id:
                return message

    send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}})
    assert "capabilities" in answer(1)["result"]
    send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    uri = "file:///tmp/raw.yaml"
    opened = {
        "jsonrpc": "2.0",
        "method": "textDocument/didOpen",
        "params": {"textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": "oatf: \"0.1\"\nattack:\n  name: \"A"}},
    }
    body = json.dumps(opened).encode().replace(b'\\"A', b'\\ud800\xff\\"')
    assert b"\\ud800\xff" in body
    server.stdin.write(frame(body))
    server.stdin.write(frame(b"not json at all"))
    server.stdin.write(frame(b'{"jsonrpc":"2.0","id":2,"method":7}'))
    assert answer(2)["error"]["code"] == -32600
    send({"jsonrpc": "2.0", "id": 3, "method": "textDocument/hover",
          "params": {"textDocument": {"uri": uri}, "position": {"line": 2, "character": 3}}})
    assert "Human-readable name" in json.dumps(answer(3)["result"])
    send({"jsonrpc": "2.0", "id": 4, "method": "shutdown"})
    assert answer(4)["result"] is None
    send({"jsonrpc": "2.0", "method": "exit"})
    server.stdin.close()
    assert server.wait(timeout=10) == 0
