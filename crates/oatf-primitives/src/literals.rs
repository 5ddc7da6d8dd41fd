//! Required literals of a condition: strings one of which the text of a value must contain for the
//! condition to hold on it, so that a multi-pattern matcher can rule most conditions out in one pass
//! over a text (decision D-75).
//!
//! The literals are *folded*: ASCII letters are lowercased, and a text is searched for them ASCII
//! case-insensitively. The only characters outside ASCII that Unicode simple case folding maps to an
//! ASCII letter are `ſ` (U+017F, to `s`) and `K` (U+212A, the Kelvin sign, to `k`); a case-insensitive
//! regex matches them where the literal has an ASCII letter, so a text that contains either is not
//! ruled out by literals at all ([`text_defeats_literals`]).
//!
//! For a regex the literals come from its syntax tree (`regex-syntax` HIR): a literal is itself, a
//! class of at most [`MAX_CLASS`] characters is the alternation of its characters (a case-insensitive
//! letter is a class of its case variants, which fold to one letter), a concatenation is the product
//! of its parts while they are exact and otherwise the best of its parts, an alternation is the union
//! of its branches' literals, a repetition of at least one is its part's literals, and anything else
//! (`.`, `\w`, large classes, optional parts) requires nothing. "Best" prefers the set whose shortest
//! string is longest. When a part requires nothing, the whole may require nothing: the condition is
//! then not prefiltered.
//!
//! A regex is also split at its top-level alternation ([`regex_branches`], D-90): a branch whose
//! literals are too short to be worth looking for is kept, printed back from its syntax tree, for
//! the prefilter to search on its own, once per text for every indicator that has it.

use regex_syntax::hir::{Class, Hir, HirKind};

/// A class of more characters than this requires nothing.
const MAX_CLASS: usize = 32;
/// A product of more strings than this is not formed.
const MAX_SET: usize = 64;
/// A union (alternation) of more strings than this requires nothing.
const MAX_UNION: usize = 256;
/// Deeper syntax trees than this require nothing (bounded recursion).
const MAX_DEPTH: usize = 256;

/// Whether `text` contains a character that case-insensitive matching folds to an ASCII letter
/// (`ſ` U+017F or `K` U+212A): such a text must be checked in full, whatever the literals say.
pub fn text_defeats_literals(text: &[u8]) -> bool {
    // `ſ` is C5 BF, `K` is E2 84 AA in UTF-8.
    !text.is_ascii()
        && text.windows(2).enumerate().any(|(i, w)| {
            w == [0xC5, 0xBF] || (w == [0xE2, 0x84] && text.get(i + 2) == Some(&0xAA))
        })
}

/// `s` folded: ASCII letters lowercased, anything else unchanged.
pub(crate) fn fold(s: &[u8]) -> Vec<u8> {
    s.to_ascii_lowercase()
}

/// A regex literal set whose shortest string is shorter than this is not worth a search: the
/// branch is searched by its own regex instead (one letter, `t-`, occur in most texts).
pub(crate) const MIN_USEFUL_LITERAL: usize = 3;

/// A regex with more top-level branches that need their own search than this is searched whole.
pub(crate) const MAX_SEARCHED_BRANCHES: usize = 4;

/// The top-level branches of a regex's syntax tree (through capture groups, which do not change
/// whether a text matches): for a search anywhere in a text, `A|B` matches iff `A` or `B` does,
/// since each branch sees the same text and the same assertions (`^`, `$`, `\b`) around a match.
pub(crate) fn top_level_branches(hir: &Hir) -> Vec<&Hir> {
    let mut hir = hir;
    loop {
        match hir.kind() {
            HirKind::Capture(capture) => hir = &capture.sub,
            HirKind::Alternation(branches) => return branches.iter().collect(),
            _ => return vec![hir],
        }
    }
}

/// How a regex can be ruled out on a text (D-90): the folded literals of its branches that have
/// useful ones, and the branches (printed back as patterns, flags resolved) that must be searched.
/// A text that contains none of the literals (and neither `ſ` nor `K`) and matches none of the
/// branches does not match the regex. A regex with more than [`MAX_SEARCHED_BRANCHES`] such
/// branches is itself the one branch to search.
pub(crate) fn regex_branches(hir: &Hir, pattern: &str) -> (Vec<Vec<u8>>, Vec<String>) {
    let mut literals = Vec::new();
    let mut searched: Vec<String> = Vec::new();
    for branch in top_level_branches(hir) {
        match regex_literals(branch) {
            Some(set) if set.iter().all(|l| l.len() >= MIN_USEFUL_LITERAL) => literals.extend(set),
            _ => {
                let printed = branch.to_string();
                if !searched.contains(&printed) {
                    searched.push(printed);
                }
            }
        }
    }
    if searched.len() > MAX_SEARCHED_BRANCHES || literals.len() > MAX_UNION {
        return (Vec::new(), vec![pattern.to_owned()]);
    }
    (dedup(literals), searched)
}

/// What a piece of a pattern requires of any string it matches (each set folded; `None`: unknown).
#[derive(Clone, Debug, Default)]
struct Info {
    /// The piece matches exactly one of these strings.
    exact: Option<Vec<Vec<u8>>>,
    /// Any string the piece matches starts with one of these.
    prefix: Option<Vec<Vec<u8>>>,
    /// Any string the piece matches ends with one of these.
    suffix: Option<Vec<Vec<u8>>>,
    /// Any string the piece matches contains one of these.
    required: Option<Vec<Vec<u8>>>,
}

impl Info {
    fn exact(set: Vec<Vec<u8>>) -> Self {
        Info {
            exact: Some(set.clone()),
            prefix: Some(set.clone()),
            suffix: Some(set),
            required: None,
        }
    }

    /// The best set this piece requires (exact strings, prefixes, suffixes or required factors).
    fn best(&self) -> Option<Vec<Vec<u8>>> {
        let mut best = better(self.exact.clone(), self.required.clone());
        best = better(best, self.prefix.clone());
        better(best, self.suffix.clone())
    }
}

/// Whether `set` can serve as required literals: non-empty, no empty string.
fn usable(set: &[Vec<u8>]) -> bool {
    !set.is_empty() && set.iter().all(|s| !s.is_empty())
}

/// The better of two required sets: the one whose shortest string is longer, then the smaller.
pub(crate) fn better(a: Option<Vec<Vec<u8>>>, b: Option<Vec<Vec<u8>>>) -> Option<Vec<Vec<u8>>> {
    let score = |s: &Vec<Vec<u8>>| {
        (
            s.iter().map(Vec::len).min().unwrap_or(0),
            usize::MAX - s.len(),
        )
    };
    match (a.filter(|s| usable(s)), b.filter(|s| usable(s))) {
        (Some(a), Some(b)) => Some(if score(&b) > score(&a) { b } else { a }),
        (a, b) => a.or(b),
    }
}

fn dedup(mut set: Vec<Vec<u8>>) -> Vec<Vec<u8>> {
    set.sort_unstable();
    set.dedup();
    set
}

/// Every `a` followed by every `b`, when there are at most [`MAX_SET`] of them.
fn product(a: &[Vec<u8>], b: &[Vec<u8>]) -> Option<Vec<Vec<u8>>> {
    if a.len().saturating_mul(b.len()) > MAX_SET {
        return None;
    }
    Some(dedup(
        a.iter()
            .flat_map(|x| {
                b.iter().map(move |y| {
                    let mut s = x.clone();
                    s.extend_from_slice(y);
                    s
                })
            })
            .collect(),
    ))
}

/// The required literals of a regex's syntax tree, folded; `None` when it requires nothing.
pub(crate) fn regex_literals(hir: &Hir) -> Option<Vec<Vec<u8>>> {
    analyze(hir, 0).best().map(dedup)
}

fn analyze(hir: &Hir, depth: usize) -> Info {
    if depth > MAX_DEPTH {
        return Info::default();
    }
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => Info::exact(vec![Vec::new()]),
        HirKind::Literal(literal) => Info::exact(vec![fold(&literal.0)]),
        HirKind::Class(Class::Unicode(class)) => {
            let mut chars = Vec::new();
            for range in class.iter() {
                let count = u32::from(range.end()) - u32::from(range.start()) + 1;
                if chars.len() + count as usize > MAX_CLASS {
                    return Info::default();
                }
                for c in range.start()..=range.end() {
                    // `ſ` and `K` are left out: a text holding them is checked in full anyway.
                    if c != '\u{17F}' && c != '\u{212A}' {
                        let mut buf = [0; 4];
                        chars.push(fold(c.encode_utf8(&mut buf).as_bytes()));
                    }
                }
            }
            let chars = dedup(chars);
            if chars.is_empty() {
                Info::default()
            } else {
                Info::exact(chars)
            }
        }
        HirKind::Class(Class::Bytes(_)) => Info::default(),
        HirKind::Capture(capture) => analyze(&capture.sub, depth + 1),
        HirKind::Repetition(rep) => {
            if rep.min == 0 {
                return Info::default();
            }
            let sub = analyze(&rep.sub, depth + 1);
            if rep.min == 1 && rep.max == Some(1) {
                return sub;
            }
            Info {
                exact: None,
                required: sub.best(),
                prefix: sub.prefix,
                suffix: sub.suffix,
            }
        }
        HirKind::Concat(parts) => concat(parts, depth),
        HirKind::Alternation(branches) => {
            let infos: Vec<Info> = branches.iter().map(|b| analyze(b, depth + 1)).collect();
            let union = |get: fn(&Info) -> Option<&Vec<Vec<u8>>>| {
                let mut all = Vec::new();
                for info in &infos {
                    all.extend(get(info)?.iter().cloned());
                }
                let all = dedup(all);
                (all.len() <= MAX_UNION).then_some(all)
            };
            let exact = union(|i| i.exact.as_ref());
            let prefix = union(|i| i.prefix.as_ref());
            let suffix = union(|i| i.suffix.as_ref());
            let mut required = Vec::new();
            let mut all_required = true;
            for info in &infos {
                match info.best() {
                    Some(set) => required.extend(set),
                    None => all_required = false,
                }
            }
            let required = dedup(required);
            Info {
                exact,
                prefix,
                suffix,
                required: (all_required && required.len() <= MAX_UNION).then_some(required),
            }
        }
    }
}

/// A concatenation: exact while every part is; its prefixes from the leading exact parts and
/// the first other part's prefixes, its suffixes likewise from the end; and, required, the best
/// of the runs of exact parts, each extended by the suffixes of the part before it and the
/// prefixes of the part after it, and of the parts' own required sets.
fn concat(parts: &[Hir], depth: usize) -> Info {
    let infos: Vec<Info> = parts.iter().map(|p| analyze(p, depth + 1)).collect();
    let empty = vec![Vec::new()];
    // Prefixes.
    let mut prefix = Some(empty.clone());
    for info in &infos {
        let Some(pre) = prefix.as_ref() else { break };
        match (&info.exact, &info.prefix) {
            (Some(exact), _) => match product(pre, exact) {
                Some(p) => prefix = Some(p),
                None => break,
            },
            (None, Some(next)) => {
                if let Some(p) = product(pre, next) {
                    prefix = Some(p);
                }
                break;
            }
            (None, None) => break,
        }
    }
    // Suffixes.
    let mut suffix = Some(empty.clone());
    for info in infos.iter().rev() {
        let Some(suf) = suffix.as_ref() else { break };
        match (&info.exact, &info.suffix) {
            (Some(exact), _) => match product(exact, suf) {
                Some(p) => suffix = Some(p),
                None => break,
            },
            (None, Some(next)) => {
                if let Some(p) = product(next, suf) {
                    suffix = Some(p);
                }
                break;
            }
            (None, None) => break,
        }
    }
    // Required: `run` is what the parts since the last break end with.
    let mut best: Option<Vec<Vec<u8>>> = None;
    let mut run: Option<Vec<Vec<u8>>> = Some(empty.clone());
    let mut all_exact = true;
    for info in &infos {
        if let Some(exact) = &info.exact {
            run = match run.as_deref().and_then(|r| product(r, exact)) {
                Some(p) => Some(p),
                None => {
                    best = better(best, run.take());
                    Some(exact.clone())
                }
            };
            continue;
        }
        all_exact = false;
        let joined = match (run.as_deref(), info.prefix.as_deref()) {
            (Some(r), Some(p)) => product(r, p),
            _ => None,
        };
        best = better(best, joined);
        best = better(best, run.take());
        best = better(best, info.best());
        run = info.suffix.clone();
    }
    let exact = if all_exact { run.clone() } else { None };
    best = better(best, run);
    Info {
        exact,
        prefix: prefix.filter(|p| usable(p)),
        suffix: suffix.filter(|s| usable(s)),
        required: best,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn literals(pattern: &str) -> Option<Vec<String>> {
        let hir = regex_syntax::parse(pattern).unwrap();
        regex_literals(&hir).map(|set| {
            set.into_iter()
                .map(|s| String::from_utf8(s).unwrap())
                .collect()
        })
    }

    #[test]
    fn library_shapes() {
        assert_eq!(
            literals(r"(?i)/etc/(passwd|shadow|sudoers)"),
            Some(vec![
                "/etc/passwd".into(),
                "/etc/shadow".into(),
                "/etc/sudoers".into()
            ])
        );
        assert_eq!(literals(r"AKIA[0-9A-Z]{16}"), Some(vec!["akia".into()]));
        assert_eq!(
            literals(r"(?i)(api[_-]?key|secret[_-]?key)\s*[:=]"),
            Some(vec!["key".into()])
        );
        // A literal next to `\s+` is extended by each white-space character (prefixes, suffixes).
        let rm = literals(r"(?i)\b(rm\s+-rf|chmod\s+777)\b").unwrap();
        assert!(
            rm.contains(&" -rf".into()) && rm.contains(&"chmod ".into()),
            "{rm:?}"
        );
        assert!(
            rm.iter()
                .all(|l| l.ends_with("-rf") || l.starts_with("chmod")),
            "{rm:?}"
        );
        assert_eq!(
            literals(r"(?i)nc\s+-e").map(|l| l.iter().all(|l| l.len() >= 3)),
            Some(true)
        );
        assert_eq!(literals(r"a|.*"), None);
        assert_eq!(literals(r"\w+"), None);
        assert_eq!(literals(r"x?"), None);
        assert_eq!(literals(r"(?i)k"), Some(vec!["k".into()]));
        assert_eq!(literals("[ſ\u{212A}]"), None);
        assert_eq!(
            literals(r"ab[cd]e"),
            Some(vec!["abce".into(), "abde".into()])
        );
    }

    /// Soundness on generated patterns and texts: whenever a regex matches a text without `ſ`/`K`,
    /// the lowercased text contains one of its literals.
    #[test]
    fn a_matching_text_contains_a_literal() {
        const ATOMS: &[&str] = &[
            "ab",
            "(?i:key)",
            "c+",
            "d?",
            "\\s+",
            "[xy]",
            "[a-z]",
            "(e|fg)",
            "(h|)",
            "\\b",
            ".",
            "(?i:s)",
            "k{2}",
            "(ab)+",
            "[0-9]{1,3}",
            "é",
            "-",
            "\\w",
            "(?i)tok(en)?",
        ];
        const TEXT: &[&str] = &[
            "ab", "AB", "key", "KEY", "c", "d", " ", "\t", "x", "y", "e", "fg", "h", "s", "S",
            "kk", "K", "0", "12", "é", "É", "-", "token", "TOK", "_", "\u{2003}",
        ];
        let mut state = 0x2545_F491_4F6C_DD1D_u64;
        let mut next = |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as usize
        };
        let mut checked = 0;
        for _ in 0..800 {
            let mut pattern = String::new();
            for a in 0..1 + next(2) {
                if a > 0 {
                    pattern.push('|');
                }
                for _ in 0..1 + next(4) {
                    pattern.push_str(ATOMS[next(ATOMS.len())]);
                }
            }
            let regex = regex::Regex::new(&pattern).unwrap();
            let Some(set) = regex_literals(&regex_syntax::parse(&pattern).unwrap()) else {
                continue;
            };
            for _ in 0..40 {
                let text: String = (0..next(8)).map(|_| TEXT[next(TEXT.len())]).collect();
                if regex.is_match(&text) {
                    checked += 1;
                    let lower = text.to_ascii_lowercase();
                    assert!(
                        set.iter()
                            .any(|l| lower.as_bytes().windows(l.len()).any(|w| w == l.as_slice())),
                        "{pattern:?} matches {text:?} but no literal of {set:?} is in it"
                    );
                }
            }
        }
        assert!(checked > 500, "{checked}");
    }

    fn branches(pattern: &str) -> (Vec<String>, Vec<String>) {
        let (literals, branches) = regex_branches(&regex_syntax::parse(pattern).unwrap(), pattern);
        let literals = literals
            .into_iter()
            .map(|s| String::from_utf8(s).unwrap())
            .collect();
        (literals, branches)
    }

    #[test]
    fn branches_without_useful_literals_are_searched() {
        // The library's shapes (D-83), each with an alternative of its own as the bench does.
        let (literals, searched) = branches(
            r"(?:^|[^A-Za-z0-9/+=])[A-Za-z0-9/+=]{40}(?:$|[^A-Za-z0-9/+=])|oatf-canary-0001",
        );
        assert_eq!(literals, ["oatf-canary-0001"]);
        assert_eq!(searched.len(), 1, "{searched:?}");
        let (literals, searched) =
            branches(r"\p{Cyrillic}{1,3}\p{Latin}+|\p{Latin}+\p{Cyrillic}{1,3}|oatf-canary-2");
        assert_eq!((literals.len(), searched.len()), (1, 2), "{searched:?}");
        // `t-` is too short to be worth looking for.
        let (literals, searched) = branches(r"^T-\w{4,6}$|(?i)xyz");
        assert_eq!((literals, searched.len()), (vec!["xyz".to_owned()], 1));
        // The flags are resolved in the printed branches.
        let (_, searched) = branches(r"(?im)^k\w|abc");
        assert!(regex::Regex::new(&searched[0]).unwrap().is_match("x\nK1"));
        assert!(!regex::Regex::new(&searched[0]).unwrap().is_match("xk1"));
        // Too many branches to search: the regex is searched whole.
        assert_eq!(
            branches(r"\w|\d|\s|.a|.b"),
            (vec![], vec![r"\w|\d|\s|.a|.b".into()])
        );
        assert_eq!(
            branches(r"(abc|def)"),
            (vec!["abc".into(), "def".into()], vec![])
        );
    }

    /// Soundness of the split on generated patterns and texts: whenever a regex matches a text
    /// without `ſ`/`K`, one of its literals occurs in the lowercased text or one of its searched
    /// branches matches it.
    #[test]
    fn a_matching_text_has_a_literal_or_a_matching_branch() {
        const ATOMS: &[&str] = &[
            "abc",
            "(?i:key)",
            "\\p{Cyrillic}",
            "\\p{Latin}+",
            "(?m:^)",
            "$",
            "\\b",
            "[a-z]{2}",
            "\\W?",
            "(?i)t",
            "-",
            "\\d",
            "(x|yz)",
            "(?s:.)",
        ];
        const TEXT: &[&str] = &[
            "abc", "KEY", "я", "Ж", "x", "yz", " ", "\n", "t", "T", "-", "7", "é", "ab",
        ];
        let mut state = 0x9E37_79B9_7F4A_7C15_u64;
        let mut next = |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as usize
        };
        let (mut by_branch, mut checked) = (0, 0);
        for _ in 0..600 {
            let mut pattern = String::new();
            for a in 0..1 + next(4) {
                if a > 0 {
                    pattern.push('|');
                }
                for _ in 0..1 + next(3) {
                    pattern.push_str(ATOMS[next(ATOMS.len())]);
                }
            }
            let regex = regex::Regex::new(&pattern).unwrap();
            let (literals, searched) =
                regex_branches(&regex_syntax::parse(&pattern).unwrap(), &pattern);
            let searched: Vec<regex::Regex> = searched
                .iter()
                .map(|b| regex::Regex::new(b).unwrap())
                .collect();
            for _ in 0..30 {
                let text: String = (0..next(6)).map(|_| TEXT[next(TEXT.len())]).collect();
                if !regex.is_match(&text) {
                    continue;
                }
                checked += 1;
                let lower = text.to_ascii_lowercase();
                let literal = literals
                    .iter()
                    .any(|l| lower.as_bytes().windows(l.len()).any(|w| w == l.as_slice()));
                let branch = searched.iter().any(|b| b.is_match(&text));
                by_branch += usize::from(branch && !literal);
                assert!(
                    literal || branch,
                    "{pattern:?} matches {text:?}: no literal of {literals:?}, no branch"
                );
            }
        }
        assert!(checked > 1000 && by_branch > 300, "{checked} {by_branch}");
    }

    #[test]
    fn the_folding_characters_are_found() {
        assert!(text_defeats_literals("paſſword".as_bytes()));
        assert!(text_defeats_literals("\u{212A}ey".as_bytes()));
        assert!(!text_defeats_literals("\u{2129}\u{212B}é".as_bytes()));
        assert!(!text_defeats_literals(b"plain"));
    }
}
