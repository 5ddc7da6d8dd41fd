"""Typing stubs of the oatf package (the `oatf._oatf` extension module, re-exported)."""

import datetime
import os
from types import TracebackType
from typing import Any, Awaitable, Dict, Iterable, List, Mapping, Optional, Protocol, Tuple, Type, Union

__version__: str

JSON = Any
"""Plain JSON-like Python data: dict, list, str, int, float, bool or None."""

Source = Union[str, bytes, "os.PathLike[str]", "Document"]
"""YAML text, UTF-8 YAML bytes, a path (a one-line str naming an existing file is a path), or a Document."""

TraceEntry = Union[Mapping[str, Any], str, bytes]
"""One trace message (docs/trace-format.md): a dict, or one JSON line."""

class OATFError(Exception):
    """Base class of the errors raised by oatf."""

class LoadError(OATFError):
    """A document that does not parse or is not valid; carries every problem."""

    errors: List[Diagnostic]
    rule: Optional[str]
    path: Optional[str]
    line: Optional[int]
    column: Optional[int]
    message: Optional[str]

class TraceError(OATFError, ValueError):
    """A trace entry that is not a message: not JSON, or JSON that is not a trace message
    (TraceEvaluator.push, or evaluate_trace(strict=True)). Also a ValueError."""

    line: int
    """The line of the file, or the position of the entry (from 1)."""
    trace: str
    """The trace's name: its path, `<text>`, `<iterable>` or `<push>`."""
    message: str
    """What is wrong, without the line."""

class Diagnostic:
    """One finding: a parse error, a validation error (V-…) or a warning (W-…)."""

    @property
    def severity(self) -> str: ...
    @property
    def kind(self) -> str:
        """`parse`, `validation` or `warning`."""
    @property
    def rule(self) -> Optional[str]: ...
    @property
    def path(self) -> Optional[str]: ...
    @property
    def message(self) -> str: ...
    @property
    def line(self) -> Optional[int]: ...
    @property
    def column(self) -> Optional[int]: ...
    def to_dict(self) -> Dict[str, Any]: ...

class ValidationResult:
    @property
    def valid(self) -> bool: ...
    @property
    def errors(self) -> List[Diagnostic]: ...
    @property
    def warnings(self) -> List[Diagnostic]: ...
    @property
    def diagnostics(self) -> List[Diagnostic]: ...
    def __bool__(self) -> bool: ...

class Document:
    """A parsed, validated and normalized OATF document."""

    @property
    def id(self) -> Optional[str]: ...
    @property
    def name(self) -> Optional[str]: ...
    @property
    def severity(self) -> Optional[str]: ...
    @property
    def indicators(self) -> List[Dict[str, Any]]: ...
    @property
    def actors(self) -> List[Dict[str, Any]]: ...
    @property
    def warnings(self) -> List[Diagnostic]: ...
    def to_dict(self) -> Dict[str, Any]: ...
    def to_yaml(self) -> str: ...

class IndicatorVerdict:
    @property
    def indicator_id(self) -> str: ...
    @property
    def result(self) -> str:
        """`matched`, `not_matched`, `error` or `skipped`."""
    @property
    def evidence(self) -> Optional[str]: ...
    @property
    def timestamp(self) -> Optional[str]: ...
    def to_dict(self) -> Dict[str, Any]: ...

class TraceWarning:
    """What may make a verdict meaningless although it is right (decision D-70)."""

    @property
    def kind(self) -> str:
        """`actor_without_messages`, `unresolved_target`, `content_is_trace_line`, `indicator_skipped`,
        `compat_would_change`, `too_deep_entries_skipped` or `derivation_limit`."""
    @property
    def indicator_id(self) -> Optional[str]: ...
    @property
    def actor(self) -> Optional[str]: ...
    @property
    def path(self) -> Optional[str]: ...
    @property
    def suggestion(self) -> Optional[str]:
        """The closest path the messages had ("did you mean"), when one is close."""
    @property
    def message(self) -> str: ...
    def to_dict(self) -> Dict[str, Any]: ...

class Verdict:
    @property
    def result(self) -> str:
        """`exploited`, `not_exploited`, `partial` or `error`."""
    @property
    def exploited(self) -> bool: ...
    @property
    def attack_id(self) -> Optional[str]: ...
    @property
    def max_tier(self) -> Optional[str]:
        """`ingested`, `local_action` or `boundary_breach`: the highest tier among matched indicators; or None."""
    @property
    def indicator_verdicts(self) -> List[IndicatorVerdict]: ...
    @property
    def evaluation_summary(self) -> Dict[str, int]: ...
    @property
    def diagnostic(self) -> Optional[str]: ...
    @property
    def timestamp(self) -> Optional[str]: ...
    @property
    def trace(self) -> Optional[Dict[str, Any]]: ...
    @property
    def trace_errors(self) -> List[Tuple[int, str]]: ...
    @property
    def warnings(self) -> List[TraceWarning]: ...
    def exit_code(self, *, strict: bool = False) -> int:
        """The exit code of `oatf evaluate` (0-5; with strict=True, 6 for not_exploited with warnings)."""
    def to_dict(self) -> Dict[str, Any]:
        """The JSON verdict document, as `oatf evaluate --format json` writes it."""

class SemanticEvaluator(Protocol):
    """A judge: called with keyword arguments, returns a score between 0.0 and 1.0, or an awaitable of one
    (an `async def` judge: use the `*_async` methods from async code)."""

    def __call__(
        self,
        *,
        text: str,
        intent: str,
        intent_class: Optional[str],
        threshold: Optional[float],
        examples: Optional[Dict[str, List[str]]],
    ) -> Union[float, Awaitable[float]]: ...

class Attack:
    """A compiled attack: immutable and safe to share between threads."""

    @property
    def attack_id(self) -> Optional[str]: ...
    @property
    def indicator_ids(self) -> List[str]: ...
    def evaluate_message(self, message: Union[JSON, str, bytes]) -> Verdict:
        """One message's content (a value, or its JSON text), without the trace filters."""
    def evaluate_trace(
        self,
        trace: Union[str, bytes, "os.PathLike[str]", Iterable[TraceEntry]],
        *,
        strict: bool = False,
        max_line_len: Optional[int] = None,
        compat: Optional[str] = None,
    ) -> Verdict:
        """A path, JSON Lines text (bytes, or a str with a line break or starting with `{`), or an iterable
        of messages."""
    async def evaluate_message_async(self, message: Union[JSON, str, bytes]) -> Verdict:
        """`evaluate_message` in a worker thread; async judges run on the caller's event loop."""
    async def evaluate_trace_async(
        self,
        trace: Union[str, bytes, "os.PathLike[str]", Iterable[TraceEntry]],
        *,
        strict: bool = False,
        max_line_len: Optional[int] = None,
        compat: Optional[str] = None,
    ) -> Verdict:
        """`evaluate_trace` in a worker thread; async judges run on the caller's event loop."""
    def compute_verdict(self, verdicts: Iterable[Mapping[str, Any]]) -> Verdict: ...

class TraceEvaluator:
    """Evaluates a trace one message at a time; in a `with` block, finished at its end."""

    def __init__(self, attack: Attack, *, compat: Optional[str] = None) -> None: ...
    def __enter__(self) -> "TraceEvaluator": ...
    def __exit__(
        self,
        exc_type: Optional[Type[BaseException]],
        exc: Optional[BaseException],
        traceback: Optional[TracebackType],
    ) -> bool: ...
    def push(self, message: TraceEntry) -> None: ...
    async def push_async(self, message: TraceEntry) -> None:
        """`push` in a worker thread; async judges run on the caller's event loop."""
    def finish(self) -> Verdict: ...
    @property
    def verdict(self) -> Optional[Verdict]:
        """The verdict once finished (by `finish()` or the end of the `with` block), else None."""
    @property
    def messages(self) -> int: ...
    @property
    def matched_count(self) -> int: ...

class PhaseEngine:
    def __init__(self, document: Source, actor: Optional[str] = None) -> None: ...
    @property
    def actor(self) -> str: ...
    @property
    def mode(self) -> str: ...
    @property
    def phase(self) -> str: ...
    @property
    def phase_index(self) -> int: ...
    @property
    def phase_names(self) -> List[str]: ...
    @property
    def is_terminal(self) -> bool: ...
    @property
    def event_count(self) -> int: ...
    @property
    def next_deadline(self) -> Optional[float]: ...
    @property
    def values(self) -> Dict[str, str]: ...
    def start(self, now: float = 0.0) -> Dict[str, Any]: ...
    def capture(self, direction: str, content: JSON) -> int: ...
    def advance_on(self, event: str, content: JSON, now: float) -> List[Dict[str, Any]]: ...
    def observe(self, direction: str, event: str, content: JSON, now: float) -> List[Dict[str, Any]]: ...
    def tick(self, now: float) -> List[Dict[str, Any]]: ...
    def render_state(self, request: JSON = None) -> Optional[Tuple[JSON, List[str]]]: ...
    def respond(self, kind: str, name: str, request: JSON) -> Optional[Dict[str, Any]]: ...
    def import_value(self, actor: str, name: str, value: str) -> None: ...

def load(source: Source) -> Document: ...
def validate(source: Source) -> ValidationResult: ...
def normalize(source: Source) -> Document: ...
def compile(document: Source, *, semantic_evaluator: Optional[SemanticEvaluator] = None) -> Attack: ...
def resolve_wildcard_path(path: str, value: JSON) -> List[JSON]: ...
def resolve_simple_path(path: str, value: JSON) -> JSON: ...
def evaluate_condition(condition: JSON, value: JSON) -> bool: ...
def parse_duration(text: str) -> datetime.timedelta: ...
def interpolate_template(
    template: str,
    extractors: Optional[Mapping[str, str]] = None,
    request: JSON = None,
    response: JSON = None,
) -> Tuple[str, List[str]]: ...
