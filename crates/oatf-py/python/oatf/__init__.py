"""Open Agent Threat Format (OATF v0.1) for Python: load, validate and evaluate attack documents.

A thin layer over the Rust SDK (the ``oatf._oatf`` extension module). See ``docs/python.md``.

    import oatf
    attack = oatf.compile(oatf.load(pathlib.Path("examples/mcp-tool-poisoning.yaml")))
    verdict = attack.evaluate_trace("examples/mcp-tool-poisoning.complied.jsonl")
    print(verdict.result)  # exploited
"""

from ._oatf import (
    Attack,
    Diagnostic,
    Document,
    IndicatorVerdict,
    LoadError,
    OATFError,
    PhaseEngine,
    TraceError,
    TraceEvaluator,
    TraceWarning,
    ValidationResult,
    Verdict,
    __version__,
    compile,
    evaluate_condition,
    interpolate_template,
    load,
    normalize,
    parse_duration,
    resolve_simple_path,
    resolve_wildcard_path,
    validate,
)

__all__ = [
    "Attack",
    "Diagnostic",
    "Document",
    "IndicatorVerdict",
    "LoadError",
    "OATFError",
    "PhaseEngine",
    "TraceError",
    "TraceEvaluator",
    "TraceWarning",
    "ValidationResult",
    "Verdict",
    "__version__",
    "compile",
    "evaluate_condition",
    "interpolate_template",
    "load",
    "normalize",
    "parse_duration",
    "resolve_simple_path",
    "resolve_wildcard_path",
    "validate",
]
