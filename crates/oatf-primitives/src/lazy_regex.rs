//! A condition's regex, checked when the condition is compiled and built when it is first used.
//!
//! Building a `regex::Regex` is mostly literal extraction and prefilter construction (the
//! case-insensitive alternations of the scenario library cost about 1.5 M instructions each), and
//! an attack compiles many regexes that a given trace may never reach. Compiling a condition
//! therefore only does what decides whether the pattern compiles at all: it parses it, and builds
//! its Thompson NFA under [`RegexLimits::size_limit`], which is the check `regex` applies (its
//! forward NFA is the program the size limit bounds). The full regex is built on the first
//! evaluation that needs it and kept.
//!
//! When the NFA check fails, the full build runs at once, so a pattern is rejected at compile time
//! with exactly `regex`'s verdict and message. Only a pattern whose forward NFA fits but whose full
//! build does not (its reverse NFA over the limit) is reported when it is first used, as the same
//! [`ConditionErrorKind::RegexTooLarge`] error.

use std::sync::OnceLock;

use regex::{Regex, RegexBuilder};
use regex_automata::nfa::thompson;

use crate::condition_error::{ConditionError, ConditionErrorKind};
use crate::runs::RequiredRun;

/// Bounds on regular expressions (spec-decisions item 17).
///
/// RE2 semantics make matching linear in the input, so instead of a time limit the compiled size and the
/// length of the matched text are bounded. A pattern over the size limits does not compile; a text over
/// `max_input_len` is an evaluation error (`regex_timeout` in the evaluator's terms).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct RegexLimits {
    /// Compiled program size limit in bytes (`regex::RegexBuilder::size_limit`).
    pub size_limit: usize,
    /// Lazy DFA cache size limit in bytes (`regex::RegexBuilder::dfa_size_limit`).
    pub dfa_size_limit: usize,
    /// Nesting limit of the pattern syntax.
    pub nest_limit: u32,
    /// The longest text, in bytes, a regex is run against.
    pub max_input_len: usize,
}

impl Default for RegexLimits {
    fn default() -> Self {
        RegexLimits {
            size_limit: 1 << 20,
            dfa_size_limit: 2 << 20,
            nest_limit: oatf_internal::REGEX_NEST_LIMIT,
            max_input_len: 16 << 20,
        }
    }
}

impl RegexLimits {
    /// The syntax tree of `pattern` as `regex` reads it under these limits (UTF-8, the nesting
    /// limit): the one tree every analysis of a pattern (literals, branches, required runs, the
    /// size check) works on.
    pub(crate) fn parse(&self, pattern: &str) -> Option<regex_syntax::hir::Hir> {
        regex_syntax::ParserBuilder::new()
            .nest_limit(self.nest_limit)
            .utf8(true)
            .build()
            .parse(pattern)
            .ok()
    }

    /// Compiles `pattern` within these limits.
    pub fn compile(&self, pattern: &str) -> Result<Regex, ConditionError> {
        RegexBuilder::new(pattern)
            .size_limit(self.size_limit)
            .dfa_size_limit(self.dfa_size_limit)
            .nest_limit(self.nest_limit)
            .build()
            .map_err(|e| match e {
                regex::Error::CompiledTooBig(limit) => ConditionError::new(
                    ConditionErrorKind::RegexTooLarge,
                    format!("regex {pattern:?} compiles to more than {limit} bytes"),
                ),
                other => ConditionError::new(
                    ConditionErrorKind::InvalidRegex,
                    format!("invalid regex {pattern:?}: {other}"),
                ),
            })
    }
}

/// A regex checked at compile time and built on first use (see the module documentation).
#[derive(Clone, Debug)]
pub(crate) struct LazyRegex {
    pattern: Box<str>,
    limits: RegexLimits,
    built: OnceLock<Result<Regex, ConditionError>>,
    /// Whether the full build cannot fail, decided without building (see [`Self::may_fail_to_build`]).
    reverse_fits: OnceLock<bool>,
    /// A run of bytes every match holds (D-94), found on first use.
    run: OnceLock<Option<RequiredRun>>,
}

impl LazyRegex {
    /// Checks `pattern` within `limits`; the error is the one [`RegexLimits::compile`] gives.
    pub(crate) fn new(pattern: &str, limits: &RegexLimits) -> Result<Self, ConditionError> {
        let built = OnceLock::new();
        if !fits(pattern, limits) {
            // Let the full build decide, and keep what it built.
            let _ = built.set(Ok(limits.compile(pattern)?));
        }
        Ok(LazyRegex {
            pattern: pattern.into(),
            limits: *limits,
            built,
            reverse_fits: OnceLock::new(),
            run: OnceLock::new(),
        })
    }

    /// Whether the regex matches anywhere in `text`, building it on the first call. For a regex
    /// without useful literals, a text without a run of bytes every match holds (D-94) is `false`
    /// without a search, when the build cannot fail (otherwise the build's error is the answer,
    /// as without the check).
    pub(crate) fn is_match(&self, text: &str) -> Result<bool, ConditionError> {
        let run = self.run.get_or_init(|| {
            let hir = self.limits.parse(&self.pattern)?;
            // A regex with useful literals has the `regex` crate's own literal prefilter, faster
            // than the run check (a memchr search against a skip loop): the check is for the
            // regexes without one.
            let literals = crate::literals::regex_literals(&hir);
            if literals.is_some_and(|set| {
                set.iter()
                    .all(|l| l.len() >= crate::literals::MIN_USEFUL_LITERAL)
            }) {
                return None;
            }
            RequiredRun::of(&hir)
        });
        if run.is_some_and(|run| !run.holds(text.as_bytes())) && !self.may_fail_to_build() {
            return Ok(false);
        }
        Ok(self.get()?.is_match(text))
    }

    /// The built regex, building it on the first call.
    pub(crate) fn get(&self) -> Result<&Regex, ConditionError> {
        self.built
            .get_or_init(|| self.limits.compile(&self.pattern))
            .as_ref()
            .map_err(|e| {
                ConditionError::new(
                    match e.kind() {
                        ConditionErrorKind::InvalidRegex => ConditionErrorKind::InvalidRegex,
                        _ => ConditionErrorKind::RegexTooLarge,
                    },
                    e.message().to_owned(),
                )
            })
    }
}

impl LazyRegex {
    /// Whether [`get`](Self::get) may fail, without building the regex when it was not built yet.
    ///
    /// The check at compile time parsed the pattern and built its forward Thompson NFA under the size
    /// limit; the other part of `regex`'s build that can fail is its reverse NFA (no captures), which
    /// this builds under the same limit, once. The rest of the build (prefilters, one-pass and lazy
    /// DFAs, the bounded backtracker) falls back instead of failing.
    pub(crate) fn may_fail_to_build(&self) -> bool {
        if let Some(built) = self.built.get() {
            return built.is_err();
        }
        !*self.reverse_fits.get_or_init(|| {
            let Some(hir) = self.limits.parse(&self.pattern) else {
                return false;
            };
            thompson::Compiler::new()
                .configure(
                    thompson::Config::new()
                        .utf8(true)
                        .nfa_size_limit(Some(self.limits.size_limit))
                        .shrink(false)
                        .which_captures(thompson::WhichCaptures::None)
                        .reverse(true),
                )
                .build_from_hir(&hir)
                .is_ok()
        })
    }

    /// The required literals of the pattern (`crate::literals`), from its syntax tree.
    pub(crate) fn literals(&self) -> Option<Vec<Vec<u8>>> {
        let hir = self.limits.parse(&self.pattern)?;
        crate::literals::regex_literals(&hir)
    }

    /// The literals of the branches that have useful ones and the branches to search, each built
    /// under the same limits (`crate::literals::regex_branches`, D-90); `None` when the pattern
    /// does not parse (it then fails to build, and is never ruled out).
    pub(crate) fn branches(&self) -> Option<(Vec<Vec<u8>>, Vec<RegexBranch>)> {
        let hir = self.limits.parse(&self.pattern)?;
        let (literals, branches) = crate::literals::regex_branches(&hir, &self.pattern);
        let branches = branches
            .into_iter()
            .map(|pattern| RegexBranch::new(pattern.into(), self.limits))
            .collect();
        Some((literals, branches))
    }
}

/// A top-level branch of a condition's regex that the trace prefilter searches on its own, once
/// per text for every indicator that has it (D-90): the branch's syntax tree printed back as a
/// pattern (flags resolved), built under the regex's limits on first use and kept. One of the
/// [`PrefilterNeeds`](crate::PrefilterNeeds) of a condition.
#[derive(Clone, Debug)]
pub struct RegexBranch {
    pattern: Box<str>,
    limits: RegexLimits,
    built: OnceLock<Option<Regex>>,
    /// A run of bytes every match holds (D-94), checked before the search.
    run: Option<RequiredRun>,
}

impl RegexBranch {
    fn new(pattern: Box<str>, limits: RegexLimits) -> Self {
        let run = limits.parse(&pattern).and_then(|hir| RequiredRun::of(&hir));
        RegexBranch {
            pattern,
            limits,
            built: OnceLock::new(),
            run,
        }
    }

    /// Whether the branch has a run of bytes every match holds (D-94): it is then searched only
    /// on the texts that hold the run, rarely on ordinary ones.
    pub fn has_required_run(&self) -> bool {
        self.run.is_some()
    }

    /// Whether `text` may hold a match: `false` when it lacks a run of bytes every match holds
    /// (D-94), which costs a fraction of a search.
    pub fn may_match(&self, text: &str) -> bool {
        self.run.is_none_or(|run| run.holds(text.as_bytes()))
    }

    /// The branch as a pattern.
    pub fn pattern(&self) -> &str {
        &self.pattern
    }

    /// The limits the branch is built with (those of its regex).
    pub fn limits(&self) -> &RegexLimits {
        &self.limits
    }

    /// Whether the branch matches anywhere in `text`, building it on the first call; `None` when
    /// it cannot be built under its limits (the caller then evaluates the condition in full).
    /// A text without the run every match holds ([`may_match`](Self::may_match)) is `Some(false)`
    /// without a search.
    pub fn is_match(&self, text: &str) -> Option<bool> {
        if !self.may_match(text) {
            // No match can be in the text, whether or not the branch can be built.
            return Some(false);
        }
        self.built
            .get_or_init(|| self.limits.compile(&self.pattern).ok())
            .as_ref()
            .map(|regex| regex.is_match(text))
    }
}

impl RegexBranch {
    /// One branch that matches a text iff one of `branches` does (`(?:a)|(?:b)|…`), so that a
    /// text none matches costs one search; `None` unless there are two or more, all with the
    /// same limits.
    pub fn union<'a>(branches: impl IntoIterator<Item = &'a RegexBranch>) -> Option<RegexBranch> {
        let mut pattern = String::new();
        let mut limits: Option<RegexLimits> = None;
        let mut count = 0;
        for branch in branches {
            if *limits.get_or_insert(branch.limits) != branch.limits {
                return None;
            }
            if count > 0 {
                pattern.push('|');
            }
            pattern.push_str("(?:");
            pattern.push_str(&branch.pattern);
            pattern.push(')');
            count += 1;
        }
        let limits = limits.filter(|_| count >= 2)?;
        Some(RegexBranch::new(pattern.into(), limits))
    }
}

impl PartialEq for RegexBranch {
    fn eq(&self, other: &Self) -> bool {
        self.pattern == other.pattern && self.limits == other.limits
    }
}

impl Eq for RegexBranch {}

/// Whether `pattern` parses with `regex`'s syntax options and its forward Thompson NFA fits in
/// `limits.size_limit` (the configuration `regex` builds it with: UTF-8, all captures, unshrunk).
fn fits(pattern: &str, limits: &RegexLimits) -> bool {
    let Some(hir) = limits.parse(pattern) else {
        return false;
    };
    thompson::Compiler::new()
        .configure(
            thompson::Config::new()
                .utf8(true)
                .nfa_size_limit(Some(limits.size_limit))
                .shrink(false)
                .which_captures(thompson::WhichCaptures::All),
        )
        .build_from_hir(&hir)
        .is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checked_at_compile_built_on_first_use() {
        let limits = RegexLimits::default();
        let lazy = LazyRegex::new("(?i)secret|token", &limits).unwrap();
        assert!(lazy.built.get().is_none(), "nothing built before use");
        assert!(lazy.get().unwrap().is_match("a TOKEN"));
        assert!(lazy.built.get().is_some());
        assert!(!lazy.get().unwrap().is_match("nothing"));
    }

    #[test]
    fn may_fail_to_build_agrees_with_the_build_without_building() {
        let mut seen = [false; 2];
        for size_limit in [2_000, 5_000, 20_000, 100_000] {
            let limits = RegexLimits {
                size_limit,
                ..RegexLimits::default()
            };
            for n in [1, 5, 10, 20, 50, 100, 200, 400] {
                for pattern in [
                    format!("(\\w{{{n}}})x"),
                    format!("(?i)(secret|token){{{n}}}"),
                    format!("a[0-9]{{{n}}}\\b"),
                    format!("(?s).{{{n}}}z"),
                ] {
                    let Ok(lazy) = LazyRegex::new(&pattern, &limits) else {
                        continue;
                    };
                    let predicted = lazy.may_fail_to_build();
                    assert!(lazy.built.get().is_none() || predicted == lazy.get().is_err());
                    assert_eq!(predicted, lazy.get().is_err(), "{pattern} at {size_limit}");
                    seen[usize::from(predicted)] = true;
                }
            }
        }
        assert_eq!(seen, [true, true], "both outcomes are reached");
    }

    #[test]
    fn a_union_of_branches_matches_where_one_of_them_does() {
        let limits = RegexLimits::default();
        let lazy = LazyRegex::new(r"\p{Cyrillic}\p{Latin}|(?m:^)[a-z]{3}$|oatf", &limits).unwrap();
        let (literals, branches) = lazy.branches().unwrap();
        assert_eq!((literals, branches.len()), (vec![b"oatf".to_vec()], 2));
        let union = RegexBranch::union(&branches).unwrap();
        for text in ["яa", "x\nabc", "abcd", "Жz\nab", "", "x\nab\nabc\n"] {
            let any = branches.iter().any(|b| b.is_match(text) == Some(true));
            assert_eq!(union.is_match(text), Some(any), "{text:?}");
        }
        assert!(RegexBranch::union(&branches[..1]).is_none());
        let other = LazyRegex::new(
            r"\w{5}|\d{2}",
            &RegexLimits {
                size_limit: 1 << 19,
                ..limits
            },
        )
        .unwrap()
        .branches()
        .unwrap()
        .1;
        assert!(
            RegexBranch::union(branches.iter().chain(&other)).is_none(),
            "limits differ"
        );
    }

    #[test]
    fn rejections_are_regexs_own_at_compile_time() {
        let limits = RegexLimits::default();
        for pattern in ["(\\w{100}){100}", "(?=a)", "(", "a{2000000}", "\\p{Nope}"] {
            let lazy = LazyRegex::new(pattern, &limits).map(drop);
            let eager = limits.compile(pattern).map(drop);
            assert_eq!(lazy, eager, "{pattern}");
            assert!(lazy.is_err(), "{pattern}");
        }
        // Around the size limit, the lazy check agrees with the full build.
        let small = RegexLimits {
            size_limit: 20_000,
            ..RegexLimits::default()
        };
        for n in [1, 10, 50, 100, 200, 400] {
            let pattern = format!("(\\w{{{n}}})x");
            assert_eq!(
                LazyRegex::new(&pattern, &small).map(drop),
                small.compile(&pattern).map(drop),
                "{pattern}"
            );
        }
        let nested = RegexLimits {
            nest_limit: 3,
            ..RegexLimits::default()
        };
        assert_eq!(
            LazyRegex::new("((((a))))", &nested).map(drop),
            nested.compile("((((a))))").map(drop)
        );
    }
}
