//! Colour in human reports (`--color`, `NO_COLOR`), applied after the text is escaped
//! (`crate::render::safe_text`), so that only the escapes written here reach the terminal.

/// When to colour, as `--color` takes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum When {
    /// When the output is a terminal and `NO_COLOR` is not set (no-color.org).
    Auto,
    /// Always, even into a pipe.
    Always,
    /// Never.
    Never,
}

impl When {
    /// Whether to colour output that goes to a terminal (`is_terminal`) or not.
    pub(crate) fn enabled(self, is_terminal: bool) -> bool {
        match self {
            When::Always => true,
            When::Never => false,
            When::Auto => is_terminal && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
        }
    }
}

const RED: &str = "\x1b[1;31m";
const YELLOW: &str = "\x1b[1;33m";
const GREEN: &str = "\x1b[32m";
const MAGENTA: &str = "\x1b[1;35m";
const RESET: &str = "\x1b[0m";

/// The colour of a result word.
fn colour_of(word: &str) -> Option<&'static str> {
    match word {
        "exploited" | "matched" | "FAIL" => Some(RED),
        "partial" => Some(YELLOW),
        "not_exploited" | "not_matched" | "ok" => Some(GREEN),
        "error" => Some(MAGENTA),
        _ => None,
    }
}

/// Paints the result words of a report: the result after `verdict: `, and the first word of an
/// indented indicator line or of an `oatf test` line (`ok`, `FAIL`).
pub(crate) fn paint_verdicts(text: &str) -> String {
    let mut painted = String::with_capacity(text.len() + 64);
    for line in text.split_inclusive('\n') {
        let (prefix, rest) = if let Some(rest) = line.strip_prefix("verdict: ") {
            ("verdict: ", rest)
        } else if let Some(rest) = line.strip_prefix("  ") {
            ("  ", rest)
        } else {
            ("", line)
        };
        let end = rest
            .find(|c: char| !(c.is_ascii_alphabetic() || c == '_'))
            .unwrap_or(rest.len());
        let word = &rest[..end];
        match colour_of(word).filter(|_| !word.is_empty()) {
            Some(colour) => {
                painted.push_str(prefix);
                painted.push_str(colour);
                painted.push_str(word);
                painted.push_str(RESET);
                painted.push_str(&rest[end..]);
            }
            None => painted.push_str(line),
        }
    }
    painted
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn result_words_are_painted() {
        let text = "T-1  name\nverdict: exploited (local_action)  (correlation any)\n  matched      T-1-01\n  not_matched  T-1-02\nok   a.test.yaml:3: x\nFAIL a.test.yaml:5: y\nplain exploited\n";
        let painted = paint_verdicts(text);
        assert!(painted.contains("verdict: \x1b[1;31mexploited\x1b[0m (local_action)"));
        assert!(painted.contains("  \x1b[1;31mmatched\x1b[0m      T-1-01"));
        assert!(painted.contains("  \x1b[32mnot_matched\x1b[0m"));
        assert!(painted.contains("\x1b[32mok\x1b[0m   a.test.yaml"));
        assert!(painted.contains("\x1b[1;31mFAIL\x1b[0m a.test.yaml"));
        assert!(painted.ends_with("plain exploited\n"));
        assert_eq!(
            painted
                .replace(RED, "")
                .replace(GREEN, "")
                .replace(RESET, ""),
            text
        );
    }

    #[test]
    fn never_and_always() {
        assert!(!When::Never.enabled(true));
        assert!(When::Always.enabled(false));
        assert!(!When::Auto.enabled(false));
    }
}
