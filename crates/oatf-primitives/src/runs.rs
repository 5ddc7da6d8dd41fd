//! Required runs of a regex without useful literals (D-94): bytes of a set that any match must
//! hold `k` of in a row, checked on a text before the regex is searched, as a multi-pattern
//! engine's "fast pattern" does for a rule without literals.
//!
//! A regex branch that the literal prefilter cannot rule out (D-90) is searched by a lazy DFA,
//! one dependent table lookup per byte of every text. Most such branches still require something
//! cheap to look for: `[A-Za-z0-9/+=]{40}` needs 40 bytes of its class in a row, which ordinary
//! prose never has; `\p{Cyrillic}` needs a byte above `0x7F`, which an ASCII text never has. The
//! check skips through a text `k` bytes at a time (a byte outside the set ends every run through
//! it), so it reads a fraction of the bytes the DFA would.
//!
//! The requirement comes from the syntax tree (`regex-syntax` HIR). A piece is *made of* a byte
//! set when every byte of every string it matches is in the set: a literal of its bytes, a class
//! of its ASCII members and, if it has a member above U+007F, of every byte from `0x80` (each byte
//! of such a character's UTF-8 is one), an assertion or the empty string of nothing, a
//! concatenation, alternation or repetition of the union of its parts'. A piece made of a set,
//! whose shortest match is `n` bytes long, requires a run of `n` bytes of the set; a
//! concatenation requires what any window of its consecutive parts made of sets requires (the
//! union of their sets, the sum of their lengths) or what any one part requires; an alternation
//! what all its branches require (the union of their sets, the least length); a repetition of at
//! least one what its part requires. Of the candidates the rarest is kept (an estimate: ASCII
//! text is mostly printable, bytes above `0x7F` are rare). Anything else requires nothing.
//! Exactness: a text without the run does not match, so the search would have said the same.

use regex_syntax::hir::{Class, Hir, HirKind};

/// Deeper syntax trees than this require nothing (bounded recursion).
const MAX_DEPTH: usize = 256;
/// A concatenation of more parts than this is not searched for windows (bounded work).
const MAX_WINDOW_PARTS: usize = 64;

/// A set of bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct ByteSet([u64; 4]);

impl ByteSet {
    fn insert_range(&mut self, start: u8, end: u8) {
        for b in start..=end {
            self.insert(b);
        }
    }

    fn insert(&mut self, b: u8) {
        if let Some(word) = self.0.get_mut(usize::from(b >> 6)) {
            *word |= 1 << (b & 63);
        }
    }

    fn contains(&self, b: u8) -> bool {
        self.0
            .get(usize::from(b >> 6))
            .is_some_and(|word| word & (1 << (b & 63)) != 0)
    }

    fn union(self, other: ByteSet) -> ByteSet {
        let mut out = self;
        for (a, b) in out.0.iter_mut().zip(other.0) {
            *a |= b;
        }
        out
    }

    /// Whether no ASCII byte is in the set.
    fn without_ascii(&self) -> bool {
        self.0[0] == 0 && self.0[1] == 0
    }

    /// The share of an ordinary text's positions this set's bytes take, as an estimate: the
    /// printable ASCII bytes and the usual white space count alike, anything else is rare.
    fn share(&self) -> f64 {
        let common = (0x20..=0x7E_u8)
            .chain([b'\t', b'\n', b'\r'])
            .filter(|&b| self.contains(b))
            .count();
        let rare = (0..=0xFF_u8)
            .filter(|&b| !(0x20..=0x7E).contains(&b) && !matches!(b, b'\t' | b'\n' | b'\r'))
            .filter(|&b| self.contains(b))
            .count();
        (common as f64 + rare as f64 / 256.0) / 98.0
    }
}

/// A run of bytes any match of a regex must hold: `len` bytes of `set` in a row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RequiredRun {
    set: ByteSet,
    len: usize,
}

impl RequiredRun {
    /// What any match of `hir` requires, `None` when nothing useful is known.
    pub(crate) fn of(hir: &Hir) -> Option<RequiredRun> {
        let run = required(hir, 0)?;
        // A run found at most positions of ordinary text is not worth a check.
        (run.len > 0 && run.score() < (0.25_f64).ln()).then_some(run)
    }

    /// The estimated chance (its logarithm) that a position of an ordinary text starts the run.
    fn score(&self) -> f64 {
        let share = self.set.share();
        if share <= 0.0 {
            return f64::NEG_INFINITY;
        }
        share.ln() * self.len as f64
    }

    /// Whether `text` holds the run; when it does not, no match of the regex is in `text`.
    pub(crate) fn holds(&self, text: &[u8]) -> bool {
        let k = self.len;
        if k == 0 {
            return true;
        }
        if self.set.without_ascii() && text.is_ascii() {
            return false;
        }
        // Look at the last byte of the earliest window of `k` bytes that could be the run: a
        // byte outside the set ends every run through it, so the next window starts after it;
        // a byte inside it is checked backwards to the window's start (bytes already known to be
        // inside are not read again).
        let mut start: usize = 0;
        let mut known: usize = 0;
        loop {
            let Some(end) = start.checked_add(k - 1) else {
                return false;
            };
            let Some(&last) = text.get(end) else {
                return false;
            };
            if !self.set.contains(last) {
                start = end + 1;
                known = start;
                continue;
            }
            let mut i = end;
            while i > known.max(start) {
                match text.get(i - 1) {
                    Some(&b) if self.set.contains(b) => i -= 1,
                    _ => break,
                }
            }
            if i <= known.max(start) {
                return true;
            }
            // `text[i - 1]` is outside the set; `text[i..=end]` is inside.
            start = i;
            known = end + 1;
        }
    }
}

/// The set every byte of every match of `hir` is in, and the least length of a match, when known.
fn made_of(hir: &Hir, depth: usize) -> Option<(ByteSet, usize)> {
    if depth > MAX_DEPTH {
        return None;
    }
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => Some((ByteSet::default(), 0)),
        HirKind::Literal(literal) => {
            let mut set = ByteSet::default();
            for &b in literal.0.iter() {
                set.insert(b);
            }
            Some((set, literal.0.len()))
        }
        HirKind::Class(Class::Unicode(class)) => {
            let mut set = ByteSet::default();
            for range in class.iter() {
                let (start, end) = (u32::from(range.start()), u32::from(range.end()));
                if start <= 0x7F {
                    set.insert_range(u8::try_from(start).ok()?, u8::try_from(end.min(0x7F)).ok()?);
                }
                if end > 0x7F {
                    set.insert_range(0x80, 0xFF);
                }
            }
            Some((set, 1))
        }
        HirKind::Class(Class::Bytes(class)) => {
            let mut set = ByteSet::default();
            for range in class.iter() {
                set.insert_range(range.start(), range.end());
            }
            Some((set, 1))
        }
        HirKind::Repetition(repetition) => {
            let (set, len) = made_of(&repetition.sub, depth + 1)?;
            let times = usize::try_from(repetition.min).unwrap_or(usize::MAX);
            Some((set, len.saturating_mul(times)))
        }
        HirKind::Capture(capture) => made_of(&capture.sub, depth + 1),
        HirKind::Concat(parts) => {
            parts
                .iter()
                .try_fold((ByteSet::default(), 0_usize), |(set, len), part| {
                    let (s, l) = made_of(part, depth + 1)?;
                    Some((set.union(s), len.saturating_add(l)))
                })
        }
        HirKind::Alternation(branches) => {
            let mut out: Option<(ByteSet, usize)> = None;
            for branch in branches {
                let (s, l) = made_of(branch, depth + 1)?;
                out = Some(match out {
                    None => (s, l),
                    Some((set, len)) => (set.union(s), len.min(l)),
                });
            }
            out
        }
    }
}

/// The rarer of two requirements.
fn rarer(a: Option<RequiredRun>, b: Option<RequiredRun>) -> Option<RequiredRun> {
    match (a, b) {
        (Some(a), Some(b)) => Some(if b.score() < a.score() { b } else { a }),
        (a, b) => a.or(b),
    }
}

/// What any match of `hir` holds (see the module documentation).
fn required(hir: &Hir, depth: usize) -> Option<RequiredRun> {
    if depth > MAX_DEPTH {
        return None;
    }
    let whole = made_of(hir, depth)
        .filter(|(_, len)| *len > 0)
        .map(|(set, len)| RequiredRun { set, len });
    let part = match hir.kind() {
        HirKind::Capture(capture) => required(&capture.sub, depth + 1),
        HirKind::Repetition(repetition) if repetition.min > 0 => {
            required(&repetition.sub, depth + 1)
        }
        HirKind::Concat(parts) => {
            let mut best = None;
            for part in parts {
                best = rarer(best, required(part, depth + 1));
            }
            if parts.len() <= MAX_WINDOW_PARTS {
                let made: Vec<Option<(ByteSet, usize)>> =
                    parts.iter().map(|p| made_of(p, depth + 1)).collect();
                for (i, first) in made.iter().enumerate() {
                    let Some(mut window) = *first else {
                        continue;
                    };
                    for next in made.iter().skip(i + 1) {
                        let Some((set, len)) = next else {
                            break;
                        };
                        window = (window.0.union(*set), window.1.saturating_add(*len));
                        if window.1 > 0 {
                            best = rarer(
                                best,
                                Some(RequiredRun {
                                    set: window.0,
                                    len: window.1,
                                }),
                            );
                        }
                    }
                }
            }
            best
        }
        HirKind::Alternation(branches) => {
            let mut out: Option<RequiredRun> = None;
            for branch in branches {
                let run = required(branch, depth + 1)?;
                out = Some(match out {
                    None => run,
                    Some(o) => RequiredRun {
                        set: o.set.union(run.set),
                        len: o.len.min(run.len),
                    },
                });
            }
            out
        }
        _ => None,
    };
    rarer(whole, part)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(pattern: &str) -> Option<RequiredRun> {
        let hir = crate::RegexLimits::default().parse(pattern).unwrap();
        RequiredRun::of(&hir)
    }

    #[test]
    fn a_long_class_run_and_a_non_ascii_class_are_required() {
        let base64 = run(r"(?:^|[^A-Za-z0-9/+=])[A-Za-z0-9/+=]{40}(?:$|[^A-Za-z0-9/+=])").unwrap();
        assert_eq!(base64.len, 40);
        assert!(base64.set.contains(b'A') && !base64.set.contains(b' '));
        let cyrillic = run(r"\p{Latin}+\p{Cyrillic}{1,3}").unwrap();
        assert!(cyrillic.set.without_ascii());
        assert!(!cyrillic.holds(b"plain ascii text"));
        assert!(cyrillic.holds("a \u{0436} b".as_bytes()));
        // Nothing useful: a lone letter class, an optional part, anything.
        assert_eq!(run(r"\w"), None);
        assert_eq!(run(r"(?s).*"), None);
        assert_eq!(run(r"a?"), None);
    }

    #[test]
    fn the_check_finds_runs_anywhere() {
        let r = run(r"[0-9]{4}").unwrap();
        for (text, expected) in [
            ("", false),
            ("123", false),
            ("1234", true),
            ("a1234", true),
            ("12 34 5678", true),
            ("123a456b789", false),
            ("x12y123z1234", true),
            ("1231231a2345", true),
        ] {
            assert_eq!(r.holds(text.as_bytes()), expected, "{text:?}");
        }
    }

    /// The promise, on generated patterns and texts: a text the regex matches holds the run.
    #[test]
    fn a_matching_text_always_holds_the_required_run() {
        let atoms = [
            "a",
            "ab",
            "[0-9]",
            "[a-z]",
            "[^a]",
            r"\d",
            r"\s",
            r"\S",
            r"\w",
            r"\W",
            r"\p{Cyrillic}",
            r"\p{Greek}",
            "é",
            "ж",
            "(?i)k",
            "(?i)s",
            "(?i)é",
            "(?i)[a-c]",
            "(?-u:[a-z])",
            r"(?-u:\w)",
            r"(?-u:\b)",
            r"\b",
            r"\B",
            "^",
            "$",
            "(?m:^)",
            "(?m:$)",
            "(?s:.)",
            ".",
            "(?x: a b )",
            "x",
            "-",
            "",
            "[à-ÿ]",
            "[\u{80}-\u{10FFFF}]",
            "(?:)",
            "[^\u{0}-\u{7f}]",
            "[\u{7f}-\u{80}]",
            "\u{2029}",
            r"\x{212A}",
            "(?i)ſ",
            r"\pL",
            r"\pN",
        ];
        let repeats = [
            "", "", "{2}", "{3,5}", "+", "*", "?", "{0}", "{0,2}", "{4}", "{1}", "+?", "{2,}",
        ];
        let alphabet = [
            "a", "b", "0", "7", " ", "é", "\u{0436}", "K", "k", "x", "-", "\n", "Z", "s", "S",
            "\u{017F}", "\u{212A}", "\u{7f}", "\u{80}", "à", "ÿ", "α", "\u{2029}", "ab", "\r", "_",
        ];
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = move |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        let mut with_run = 0;
        let mut ruled_out = 0;
        for _ in 0..3000 {
            let mut pattern = String::new();
            for _ in 0..=next(4) {
                if next(5) == 0 {
                    pattern.push_str(&format!(
                        "(?:{}{}|{}{})",
                        atoms[next(atoms.len())],
                        repeats[next(repeats.len())],
                        atoms[next(atoms.len())],
                        repeats[next(repeats.len())]
                    ));
                } else {
                    pattern.push_str(atoms[next(atoms.len())]);
                }
                pattern.push_str(repeats[next(repeats.len())]);
            }
            let Ok(regex) = regex::Regex::new(&pattern) else {
                continue;
            };
            let Some(required) = run(&pattern) else {
                continue;
            };
            with_run += 1;
            for _ in 0..40 {
                let text: String = (0..next(24))
                    .map(|_| alphabet[next(alphabet.len())])
                    .collect();
                let holds = required.holds(text.as_bytes());
                if regex.is_match(&text) {
                    assert!(holds, "{pattern:?} matches {text:?} without {required:?}");
                } else if !holds {
                    ruled_out += 1;
                }
            }
        }
        // The test has teeth: many patterns have a run, and it rules many texts out.
        assert!(with_run > 500, "{with_run}");
        assert!(ruled_out > 5000, "{ruled_out}");
    }
}
