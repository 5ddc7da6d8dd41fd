"""Typing stubs of the oatf package (the `oatf._oatf` extension module, re-exported)."""

import datetime
import os
from typing import Any, Dict, Iterable, List, Mapping, Optional, Protocol, Tuple, Union

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

class TraceError(OATFError):
    """A trace entry that is not a message (TraceEvaluator.push, or evaluate_trace(strict=True))."""

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
        """`actor_without_messages`, `unresolved_target`, `compat_would_change`, `too_deep_entries_skipped`
        or `derivation_limit`."""
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
    """A judge: called with keyword arguments, returns a score between 0.0 and 1.0."""

    def __call__(
        self,
        *,
        text: str,
        intent: str,
        intent_class: Optional[str],
        threshold: Optional[float],
        examples: Optional[Dict[str, List[str]]],
    ) -> float: ...

class Attack:
    """A compiled attack: immutable and safe to share between threads."""

    @property
    def attack_id(self) -> Optional[str]: ...
    @property
    def indicator_ids(self) -> List[str]: ...
    def evaluate_message(self, message: Mapping[str, Any]) -> Verdict: ...
    def evaluate_trace(
        self,
        trace: Union[str, "os.PathLike[str]", Iterable[TraceEntry]],
        *,
        strict: bool = False,
        max_line_len: Optional[int] = None,
        compat: Optional[str] = None,
    ) -> Verdict: ...
    def compute_verdict(self, verdicts: Iterable[Mapping[str, Any]]) -> Verdict: ...

class TraceEvaluator:
    def __init__(self, attack: Attack, *, compat: Optional[str] = None) -> None: ...
    def push(self, message: TraceEntry) -> None: ...
    def finish(self) -> Verdict: ...
    @property
    def messages(self) -> int: ...
    @property
    def matched_count(self) -> int: ...

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
