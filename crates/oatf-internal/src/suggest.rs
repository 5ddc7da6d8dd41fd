//! "Did you mean …?" for misspelt keys and values: the one edit-distance rule, used by `oatf-model`'s
//! parse errors and validation messages (which own their wording) and by trace evaluation in
//! `oatf-eval` (targets that never resolved, actors the document does not declare).

/// Inputs longer than this get no suggestion (the distance is quadratic in the lengths).
const MAX_LEN: usize = 64;

/// The candidate closest to `input`, if it is close enough to be a likely typo: at most one edit per
/// three characters of the candidate (at least one edit), comparing case-insensitively and counting
/// a transposition of neighbours as one edit. Ties go to the earlier candidate.
pub fn did_you_mean<'a>(
    input: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let candidates: Vec<&'a str> = candidates.into_iter().collect();
    closest(input, &candidates)
}

/// [`did_you_mean`] over a list: compiled once, not once per caller's iterator type (the validation
/// module of the npm package counts its bytes, D-220).
fn closest<'a>(input: &str, candidates: &[&'a str]) -> Option<&'a str> {
    if input.is_empty() || input.chars().count() > MAX_LEN {
        return None;
    }
    let input: Vec<char> = input.to_lowercase().chars().collect();
    let mut best: Option<(usize, &'a str)> = None;
    for &candidate in candidates {
        let lowered: Vec<char> = candidate.to_lowercase().chars().collect();
        if lowered.len() > MAX_LEN {
            continue;
        }
        let limit = (lowered.len() / 3).max(1);
        // The distance is at least the difference of the lengths: a candidate that cannot be
        // close enough, or closer than the best, is not measured.
        let bound = best.map_or(limit, |(d, _)| limit.min(d.saturating_sub(1)));
        if lowered.len().abs_diff(input.len()) > bound {
            continue;
        }
        let distance = distance(&input, &lowered);
        if distance <= limit && best.is_none_or(|(d, _)| distance < d) {
            best = Some((distance, candidate));
        }
    }
    best.map(|(_, candidate)| candidate)
}

/// The optimal string alignment distance (Levenshtein with adjacent transpositions).
fn distance(a: &[char], b: &[char]) -> usize {
    let width = b.len() + 1;
    let mut previous2 = vec![0; width];
    let mut previous: Vec<usize> = (0..width).collect();
    let mut current = vec![0; width];
    for i in 1..=a.len() {
        current[0] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut d = (previous[j] + 1)
                .min(current[j - 1] + 1)
                .min(previous[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d = d.min(previous2[j - 2] + 1);
            }
            current[j] = d;
        }
        std::mem::swap(&mut previous2, &mut previous);
        std::mem::swap(&mut previous, &mut current);
    }
    previous[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typos_find_their_word() {
        let keys = ["id", "name", "indicators", "correlation", "execution"];
        assert_eq!(did_you_mean("indicaters", keys), Some("indicators"));
        assert_eq!(did_you_mean("exection", keys), Some("execution"));
        assert_eq!(did_you_mean("corelation", keys), Some("correlation"));
        assert_eq!(did_you_mean("Name", keys), Some("name"));
        assert_eq!(
            did_you_mean("nmae", keys),
            Some("name"),
            "a transposition is one edit"
        );
        let surfaces = ["tools/list", "tools/call", "resources/read"];
        assert_eq!(did_you_mean("tools/cal", surfaces), Some("tools/call"));
        assert_eq!(did_you_mean("tool/list", surfaces), Some("tools/list"));
    }

    /// Candidates skipped by their length alone are only those that could not be chosen.
    #[test]
    fn the_length_bound_skips_only_what_cannot_win() {
        // A length difference equal to the allowed distance is still measured.
        assert_eq!(did_you_mean("abc", ["abcd"]), Some("abcd"));
        // A later candidate closer than the best so far is found.
        assert_eq!(
            did_you_mean("abcdef", ["abcdefgh", "abcdefg"]),
            Some("abcdefg")
        );
        // A tie keeps the earlier candidate.
        assert_eq!(did_you_mean("abcdef", ["abcdeg", "abcdeh"]), Some("abcdeg"));
    }

    #[test]
    fn unrelated_words_get_nothing() {
        let keys = ["id", "name", "indicators"];
        assert_eq!(did_you_mean("bogus", keys), None);
        // One edit is allowed for short words, so `x` is not taken for `id` (two edits).
        assert_eq!(did_you_mean("x", ["id"]), None);
        assert_eq!(did_you_mean("", keys), None);
        assert_eq!(did_you_mean(&"a".repeat(10_000), keys), None);
    }

    /// The hints where users meet them: parse errors and validation messages.
    #[test]
    fn distances() {
        let d = |a: &str, b: &str| {
            distance(
                &a.chars().collect::<Vec<_>>(),
                &b.chars().collect::<Vec<_>>(),
            )
        };
        assert_eq!(d("", ""), 0);
        assert_eq!(d("abc", ""), 3);
        assert_eq!(d("kitten", "sitting"), 3);
        assert_eq!(d("ab", "ba"), 1);
        assert_eq!(d("ünï", "uni"), 2);
    }
}
