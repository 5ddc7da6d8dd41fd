//! The bounds of a [`CelEngine`](crate::CelEngine): [`CelLimits`].

use oatf_primitives::RegexLimits;

/// Bounds applied by a [`CelEngine`](crate::CelEngine).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct CelLimits {
    /// The longest expression accepted, in bytes (default 16 KiB).
    pub max_expression_len: usize,
    /// The deepest nesting of `(`, `[` and `{` accepted (default 64).
    pub max_nesting: usize,
    /// The deepest parsed syntax tree accepted (default 32).
    pub max_ast_depth: usize,
    /// The most comprehension iterations (`all`, `exists`, `map`, …, nested ones multiplied) one
    /// evaluation may run (default 1,000,000).
    pub max_iterations: usize,
    /// The most bytes of values one evaluation may produce (default 64 MiB): every result of a
    /// function or operator is charged (a string or bytes its length, a list or map 48 bytes per
    /// element: a boxed value and its allocation), so `s + s + s` in a loop or a balanced tree of `+` stops with a `cel_error`.
    pub max_produced_bytes: usize,
    /// The most cost one evaluation may spend (default 100,000,000): every argument of a function or
    /// operator is charged its size (a string or bytes its length, a list or map the sum of its
    /// elements' sizes, nested parts included, each at least 1, anything else 1), as cel-go's cost
    /// model does, so `size(s)`, `s.contains(t)` and `x in xs` on large operands inside a
    /// comprehension are bounded by their operands, not by steps alone; and every comprehension,
    /// when it starts, the size of each element it binds plus its length times the weight of its
    /// loop (the nodes of its condition and step, times the number of enclosing comprehensions),
    /// so that a large loop body is bounded too (D-127). A value copied into a list or map
    /// literal, an optional or a `map`/`filter` result is charged as a copy, 8 units a value
    /// plus its bytes, before it is copied (D-330, D-351); a list or map compared by `==`, `!=`
    /// or `in`, 3 units a value (D-353).
    ///
    /// For every budget, a refused charge spends the rest of it: once one charge of an
    /// evaluation goes over its limit, every later charge of that budget is refused too, even
    /// where CEL would go on (an `all` or `exists` after an error in its body) (D-350).
    pub max_cost: usize,
    /// The most distinct `matches` patterns one evaluation may use (default 64). Each is compiled
    /// once per engine and cached; the budget counts the patterns of the evaluation whether or not
    /// the cache already holds them, so that an evaluation's outcome does not depend on what
    /// earlier evaluations, on any thread, compiled (D-96). A pattern that cannot be compiled is
    /// remembered with its error (at most 4,096 patterns and 8 MiB per engine) and compiled once
    /// per engine (D-126).
    pub max_regex_compiles: usize,
    /// Bounds of the regexes of `matches`.
    pub regex: RegexLimits,
}

impl Default for CelLimits {
    fn default() -> Self {
        CelLimits {
            max_expression_len: 16 << 10,
            max_nesting: 64,
            max_ast_depth: 32,
            max_iterations: 1_000_000,
            max_produced_bytes: 64 << 20,
            max_cost: 100_000_000,
            max_regex_compiles: 64,
            regex: RegexLimits::default(),
        }
    }
}
