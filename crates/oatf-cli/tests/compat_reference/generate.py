"""Random OATF documents and ThoughtJack-shaped traces for the reference check (check.py).

The documents have an AG-UI client beside MCP and A2A actors, as ThoughtJack's context-mode runs do; the traces
mix the entries the context-mode derivation looks at (AG-UI `text_message_content` with string and other deltas,
`tools/call` with and without `arguments` and `arguments.message`, entries nested near 64 levels) with the others.
Indicators are pattern indicators on the targets the derivation feeds (`response.content`, `arguments`,
`request.params.arguments`, `a2a.task.message`, ...) with and without actor, direction and surface filters.
Everything comes from one `random.Random`, so a seed gives the same cases.
"""

import json

# Number literals whose reading and compact JSON serde_json and the reference agree on (15 significant digits at
# most: serde_json's default float parsing is not correctly rounded beyond that, and ThoughtJack reads with it).
NUMBER_LITERALS = ["1e16", "1E2", "1.50", "-0", "-0.0", "1e-5", "1.5e-5", "1e-6", "0.0001", "1e300", "2.5e-7",
                   "100000000000000000000", "18446744073709551615", "-9223372036854775809", "123456789.125"]
RAW = "\u0000raw:"
WORDS = ["id_rsa", "secret", "hello", "evil.com", "BEGIN KEY", "notes", "42", "token", "ok", "Ünïcode", 'q"uote']
# Case variants, some of which only Unicode case folding equates (`ſ` folds to `s`, the Kelvin sign `K` to `k`)
CASED = ["SeCrEt", "ſecret", "ÜNÏCODE", "\u212atoken", "TOKEN"]
PROTOCOL_MODES = {
    "ag_ui": ["ag_ui_client"],
    "mcp": ["mcp_server", "mcp_client"],
    "a2a": ["a2a_server", "a2a_client"],
}
TARGETS = [
    "response.content",
    "arguments",
    "request.params.arguments",
    "a2a.task.message",
    "content",
    "body",
    "delta",
    "arguments.message",
    "arguments.url",
    "messages[*].content",
    "content[*].text",
    "tools[*].description",
    "message.parts[*].text",
    "",
]
# Targets that the derivation or the protocol's own entries feed, picked more often.
LIKELY_TARGETS = {
    "ag_ui": ["response.content", "delta", "content", "body", "arguments", ""],
    "mcp": [
        "arguments", "request.params.arguments", "response.content", "content[*].text", "body", "arguments.message"
    ],
    "a2a": ["a2a.task.message", "arguments", "response.content", "message.parts[*].text", "request.params.arguments"],
}
METHODS = {
    "ag_ui": [
        "run_agent_input",
        "run_started",
        "text_message_start",
        "text_message_content",
        "text_message_content",
        "text_message_content",
        "tool_call_start",
        "tool_call_args",
        "text_message_end",
        "run_finished",
    ],
    "mcp": ["initialize", "tools/list", "tools/call", "tools/call", "tools/call", "resources/read", "prompts/get"],
    "a2a": ["agent_card/get", "message/send", "message/send", "tasks/send", "tools/call", "tools/call", "tasks/get"],
}
SURFACES = sorted({m for methods in METHODS.values() for m in methods})


class Generator:
    def __init__(self, rng):
        self.rng = rng

    # --- values ---------------------------------------------------------------------------------------------------

    def text(self):
        r = self.rng
        words = [r.choice(WORDS) if r.random() < 0.9 else r.choice(CASED) for _ in range(r.randint(1, 4))]
        if r.random() < 0.15:
            # escapes, and brackets inside strings, which a depth scan must skip
            words.append(r.choice(
                ["\n", "\t", "\u0001", "\\", "/", "é", "😀", "[[{", "}]]", '\\"[', "\\\\", "{\"a\":["]
            ))
        return r.choice([" ", "", "-"]).join(words)

    def scalar(self):
        r = self.rng
        kind = r.random()
        if kind < 0.55:
            return self.text()
        if kind < 0.7:
            return r.choice([0, 1, 42, -7, 1000, 2**40])
        if kind < 0.75:
            return r.choice([1.5, -0.25, 42.0, 3.125, 100.0])
        if kind < 0.8:
            return RAW + r.choice(NUMBER_LITERALS)
        if kind < 0.9:
            return r.choice([True, False])
        return None

    def value(self, level=0):
        r = self.rng
        kind = r.random()
        if level > 3 or kind < 0.6:
            return self.scalar()
        if kind < 0.8:
            return {self.key(): self.value(level + 1) for _ in range(r.randint(0, 3))}
        return [self.value(level + 1) for _ in range(r.randint(0, 3))]

    def key(self):
        return self.rng.choice(["url", "message", "path", "text", "content", "note", "a2a", "arguments", "response"])

    def nested(self, levels):
        """A value with exactly `levels` nested containers, a word at the bottom."""
        value = self.rng.choice(WORDS)
        for i in range(levels):
            value = [value] if self.rng.random() < 0.5 else {"n": value}
        return value

    def deep_content(self):
        """A content whose nesting is near ThoughtJack's limit (63 evaluated, 64 skipped), around a needle."""
        r = self.rng
        levels = r.choice([61, 62, 63, 63, 64, 64, 65, 66])
        # the content object is one level; its `arguments` or `deep` member holds the rest
        inner = self.nested(levels - 1)
        if r.random() < 0.5:  # brackets and escaped quotes in strings beside the nesting
            if isinstance(inner, list):
                inner = inner + ["]]]}}}\\\"[[[" * r.randint(1, 40)]
            else:
                inner = {"s": "[{\\\"", **inner}
        key = r.choice(["arguments", "deep", "delta"])
        return {key: inner, "type": "DEEP"}

    # --- entries ----------------------------------------------------------------------------------------------------

    def arguments(self):
        r = self.rng
        kind = r.random()
        if kind < 0.45:
            return {"message": self.value(1) if r.random() < 0.3 else self.text(), "path": self.text()}
        if kind < 0.85:
            return {k: self.value(1) for k in r.sample(["url", "path", "text", "note", "code"], r.randint(0, 3))}
        return self.value(2)

    def content(self, protocol, method, direction):
        r = self.rng
        if r.random() < 0.04:
            return self.deep_content()
        if protocol == "ag_ui":
            if method == "text_message_content":
                kind = r.random()
                content = {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1"}
                if kind < 0.75:
                    content["delta"] = self.text()
                elif kind < 0.95:
                    content["delta"] = self.value(1)
                if r.random() < 0.05:
                    content["response"] = {"content": self.text()}
                return content
            if method == "run_agent_input":
                return {"threadId": "t", "messages": [{"role": "user", "content": self.text()}]}
            if method == "tool_call_args":
                return {"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": self.text()}
            return {"type": method.upper()}
        if method == "tools/call":
            if direction == "incoming" or r.random() < 0.3:
                content = {"name": r.choice(["read", "send", "fetch"])}
                if r.random() < 0.8:
                    content["arguments"] = self.arguments()
                if r.random() < 0.08:
                    content["a2a"] = {"task": {"message": self.text()}, "other": 1}
                return content
            return {"content": [{"type": "text", "text": self.text()}], "isError": False}
        if method in ("message/send", "tasks/send"):
            content = {"message": {"role": "user", "parts": [{"kind": "text", "text": self.text()}]}}
            if r.random() < 0.3:
                content["arguments"] = self.arguments()
            return content
        if method == "tools/list":
            return {"tools": [{"name": "t", "description": self.text()}]} if direction == "outgoing" else {}
        return self.value(0) if r.random() < 0.3 else {"text": self.text()}

    def entry(self, seq, actor, mode):
        r = self.rng
        protocol = protocol_of(mode)
        method = r.choice(METHODS[protocol])
        if protocol == "ag_ui":
            direction = "outgoing" if method == "run_agent_input" else ("incoming" if r.random() < 0.9 else "outgoing")
        else:
            direction = r.choice(["incoming", "outgoing"])
        record = {
            "seq": seq,
            "timestamp": f"2026-11-20T10:00:{seq % 60:02d}.000Z",
            "actor": actor,
            "phase": "p",
            "direction": direction,
            "method": method,
            "content": self.content(protocol, method, direction),
        }
        if r.random() < 0.02:
            record["x-raw"] = self.nested(r.choice([62, 63, 64, 65]))  # a recorder's own field, nested deep
        if r.random() < 0.01:
            record["content"] = {"deep": self.nested(r.choice([125, 126, 127]))}  # near serde_json's limit
        if r.random() < 0.04:
            record["actor"] = r.choice(["ghost", None])  # not the document's: attributed by `protocol`
            if record["actor"] is None:
                del record["actor"]
            if r.random() < 0.8:
                record["protocol"] = protocol
        if r.random() < 0.05:
            del record["method"]
        if r.random() < 0.03:
            del record["content"]
        return record

    # --- a case ---------------------------------------------------------------------------------------------------

    def actors(self):
        r = self.rng
        modes = []
        if r.random() < 0.85:
            # an AG-UI server (W-002, unknown mode) gets a derived response both as a server and as itself
            modes.append("ag_ui_client" if r.random() < 0.92 else "ag_ui_server")
            if r.random() < 0.1:
                modes.append("ag_ui_client")
        for _ in range(r.choice([0, 1, 1, 1, 2])):
            modes.append(r.choice(["mcp_server", "mcp_server", "mcp_client"]))
        for _ in range(r.choice([0, 0, 1, 1, 2])):
            modes.append(r.choice(["a2a_server", "a2a_client"]))
        if not modes:
            modes.append("mcp_server")
        r.shuffle(modes)
        return [(f"{protocol_of(mode).replace('_', '')}{i}", mode) for i, mode in enumerate(modes)]

    def indicator(self, attack_id, number, actors):
        r = self.rng
        protocols = sorted({protocol_of(mode) for _, mode in actors})
        protocol = r.choice(protocols) if r.random() < 0.85 else r.choice(["mcp", "a2a", "ag_ui"])
        target = r.choice(LIKELY_TARGETS[protocol]) if r.random() < 0.6 else r.choice(TARGETS)
        indicator = {"id": f"{attack_id}-{number:02d}", "protocol": protocol, "target": target}
        if r.random() < 0.25:
            same = [name for name, mode in actors if protocol_of(mode) == protocol] or [n for n, _ in actors]
            indicator["actor"] = r.choice(same)
        if r.random() < 0.3:
            indicator["direction"] = r.choice(["request", "response"])
        if r.random() < 0.12:
            indicator["surface"] = r.choice(SURFACES)
        tier = r.choice([None, "ingested", "local_action", "boundary_breach"])
        if tier:
            indicator["tier"] = tier
        indicator["pattern"] = self.pattern(target)
        return indicator

    def pattern(self, target):
        r = self.rng
        word = r.choice(WORDS)
        kind = r.random()
        if kind < 0.35:
            pattern = {"contains": r.choice([word, word[:3], '"', "{", ":", "", r.choice(CASED)])}
        elif kind < 0.45:
            pattern = {"regex": r.choice([f"^{word[:2]}", "(id_rsa|token)", "[0-9]+", "se.ret", "evil\\.com", "\\d",
                                          "(?i)SECRET", "(?i)ünïcode", "\\[\\[\\{", '\\\\"', "(?i)ktoken",
                                          "(?i)^se", "(?i)(token|secret)x?|^ok", "(?i)s.cret"])}
        elif kind < 0.5:
            pattern = {"starts_with": r.choice([word, "{", "["])}
        elif kind < 0.55:
            pattern = {"ends_with": r.choice([word, "}", "]"])}
        elif kind < 0.65:
            pattern = {"condition": {"exists": r.random() < 0.75}}
        elif kind < 0.75:
            pattern = {"condition": r.choice(WORDS + [42, 1.5, True, None, 0, -0.0, 100])}
        elif kind < 0.8:
            pattern = {"condition": {"any_of": [r.choice(WORDS), 42, None]}}
        elif kind < 0.85:
            pattern = {"condition": {r.choice(["gt", "lt", "gte", "lte"]): r.choice([0, 41, 42, 1.5])}}
        else:
            pattern = {"condition": {"contains": word, "exists": r.random() < 0.8}}
        if r.random() < 0.1:
            pattern["target"] = r.choice(TARGETS)
        return pattern

    def document(self, number):
        r = self.rng
        attack_id = f"CR-{number:04d}"
        actors = self.actors()
        execution = {
            "actors": [
                {"name": name, "mode": mode, "phases": [{"name": "p", "state": {}}]} for name, mode in actors
            ]
        }
        attack = {"id": attack_id, "name": f"reference case {number}", "severity": {"level": "high"}}
        attack["execution"] = execution
        attack["indicators"] = [self.indicator(attack_id, i + 1, actors) for i in range(r.randint(1, 4))]
        if r.random() < 0.3:
            attack["correlation"] = {"logic": "all"}
        return {"oatf": "0.1", "attack": attack}

    def trace(self, document):
        r = self.rng
        actors = [(a["name"], a["mode"]) for a in document["attack"]["execution"]["actors"]]
        lines = []
        for seq in range(r.randint(0, 14) if r.random() < 0.03 else r.randint(1, 14)):
            actor, mode = r.choice(actors)
            lines.append(self.line(self.entry(seq, actor, mode)))
        if r.random() < 0.05:
            lines.insert(r.randint(0, len(lines)), r.choice(["", "   ", "[1]", "42", "{", '{"direction": "INCOMING"}',
                                                             '{"content": {}}', "null"]))
        if r.random() < 0.05:
            lines = [line + "\r" for line in lines]
        return lines

    def line(self, record):
        """A trace line: ThoughtJack's compact form, or with spaces, or a field of a wrong type."""
        r = self.rng
        if r.random() < 0.03:
            field = r.choice(["seq", "actor", "method", "phase", "timestamp", "protocol"])
            record[field] = r.choice([-1, "7", 1.5, [], {}, None, True])
        separators = (",", ":") if r.random() < 0.5 else (", ", ": ")
        return raw_numbers(json.dumps(record, ensure_ascii=r.random() < 0.2, separators=separators))

    def case(self, number):
        document = self.document(number)
        return document, self.trace(document)


def protocol_of(mode):
    return mode.rsplit("_", 1)[0]


def raw_numbers(text):
    """Writes the RAW number placeholders as the number literals they carry."""
    marker = '"' + json.dumps(RAW)[1:-1]  # as json.dumps writes it: `"\\u0000raw:`
    while marker in text:
        start = text.index(marker)
        end = text.index('"', start + 1)
        text = text[:start] + text[start + len(marker) : end] + text[end + 1 :]
    return text
