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

use regex_syntax::hir::{Class, Hir, HirKind};

/// A class of more characters than this requires nothing.
const MAX_CLASS: usize = 8;
/// A set of more strings than this requires nothing (or stops a product).
const MAX_SET: usize = 64;
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

/// What a piece of a pattern requires of any string it matches.
#[derive(Debug, Default)]
struct Info {
    /// The piece matches exactly one of these (folded) strings, when known.
    exact: Option<Vec<Vec<u8>>>,
    /// Any string the piece matches contains one of these (folded), when known.
    required: Option<Vec<Vec<u8>>>,
}

impl Info {
    fn exact(set: Vec<Vec<u8>>) -> Self {
        Info {
            exact: Some(set),
            required: None,
        }
    }

    /// The best set this piece requires: its exact strings when none is empty, or its required set.
    fn best(self) -> Option<Vec<Vec<u8>>> {
        better(self.exact.filter(|s| usable(s)), self.required)
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
                sub
            } else {
                Info {
                    exact: None,
                    required: sub.best(),
                }
            }
        }
        HirKind::Concat(parts) => {
            let mut best: Option<Vec<Vec<u8>>> = None;
            let mut run: Vec<Vec<u8>> = vec![Vec::new()];
            let mut all_exact = true;
            for part in parts {
                let info = analyze(part, depth + 1);
                match info.exact {
                    Some(set) if run.len() * set.len() <= MAX_SET => {
                        run = run
                            .iter()
                            .flat_map(|a| {
                                set.iter().map(move |b| {
                                    let mut s = a.clone();
                                    s.extend_from_slice(b);
                                    s
                                })
                            })
                            .collect();
                    }
                    Some(set) => {
                        all_exact = false;
                        best = better(best, Some(std::mem::replace(&mut run, set)));
                    }
                    None => {
                        all_exact = false;
                        let run = std::mem::replace(&mut run, vec![Vec::new()]);
                        best = better(better(best, Some(run)), info.required);
                    }
                }
            }
            if all_exact {
                Info::exact(dedup(run))
            } else {
                Info {
                    exact: None,
                    required: better(best, Some(run)),
                }
            }
        }
        HirKind::Alternation(branches) => {
            let infos: Vec<Info> = branches.iter().map(|b| analyze(b, depth + 1)).collect();
            if infos.iter().all(|i| i.exact.is_some()) {
                let union: Vec<Vec<u8>> = infos
                    .into_iter()
                    .flat_map(|i| i.exact.unwrap_or_default())
                    .collect();
                let union = dedup(union);
                return if union.len() <= MAX_SET {
                    Info::exact(union)
                } else {
                    Info::default()
                };
            }
            let mut union = Vec::new();
            for info in infos {
                match info.best() {
                    Some(set) => union.extend(set),
                    None => return Info::default(),
                }
            }
            let union = dedup(union);
            Info {
                exact: None,
                required: (union.len() <= MAX_SET).then_some(union),
            }
        }
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
            Some(vec!["api".into(), "secret".into()])
        );
        assert_eq!(
            literals(r"(?i)\b(rm\s+-rf|chmod\s+777)\b"),
            Some(vec!["-rf".into(), "chmod".into()])
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

    #[test]
    fn the_folding_characters_are_found() {
        assert!(text_defeats_literals("paſſword".as_bytes()));
        assert!(text_defeats_literals("\u{212A}ey".as_bytes()));
        assert!(!text_defeats_literals("\u{2129}\u{212B}é".as_bytes()));
        assert!(!text_defeats_literals(b"plain"));
    }
}
