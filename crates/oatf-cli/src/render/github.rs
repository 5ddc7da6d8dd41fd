//! GitHub Actions workflow annotations (`--format github` of `validate`, `catalog` and `test`):
//! `::error file=F,line=L,col=C,title=T::message`, one per line, as ruff and clippy write them.
//!
//! The one place that writes a workflow command. The message and the properties are attacker text:
//! control characters are escaped first (`crate::render::safe_text`), then the workflow command escapes are
//! applied (`%`, CR and LF in the message; also `:` and `,` in properties), so that no text can end
//! the command early or start another one (`::set-env`, `::add-mask`).

/// The level of an annotation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Level {
    /// `::error`: shown red, and GitHub counts it as a failure annotation.
    Error,
    /// `::warning`.
    Warning,
}

/// Where an annotation points: a file and, when known, a line and column (1-based).
#[derive(Clone, Copy, Debug)]
pub(crate) struct At<'a> {
    pub(crate) file: &'a str,
    pub(crate) line: Option<usize>,
    pub(crate) column: Option<usize>,
}

/// One annotation line, ending with `\n`.
pub(crate) fn annotation(level: Level, at: At<'_>, title: Option<&str>, message: &str) -> String {
    let command = match level {
        Level::Error => "error",
        Level::Warning => "warning",
    };
    let mut properties = vec![format!("file={}", property(at.file))];
    if let Some(line) = at.line {
        properties.push(format!("line={line}"));
        if let Some(column) = at.column {
            properties.push(format!("col={column}"));
        }
    }
    if let Some(title) = title.filter(|t| !t.is_empty()) {
        properties.push(format!("title={}", property(title)));
    }
    format!("::{command} {}::{}\n", properties.join(","), data(message))
}

/// The message part of a workflow command.
fn data(text: &str) -> String {
    // Newlines are kept (GitHub shows `%0A` as a line break); other controls are escaped.
    crate::render::safe_text::escape_keep_lines(text)
        .replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// A property value of a workflow command.
fn property(text: &str) -> String {
    crate::render::safe_text::escape(text)
        .replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
        .replace(':', "%3A")
        .replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_located_error() {
        let at = At {
            file: "lib/a.yaml",
            line: Some(4),
            column: Some(13),
        };
        assert_eq!(
            annotation(Level::Error, at, Some("V-005"), "unknown severity `x`"),
            "::error file=lib/a.yaml,line=4,col=13,title=V-005::unknown severity `x`\n"
        );
    }

    #[test]
    fn no_text_ends_the_command_or_starts_another() {
        let at = At {
            file: "a,b:c%.yaml",
            line: None,
            column: Some(3),
        };
        let line = annotation(
            Level::Warning,
            at,
            Some("t::x"),
            "50% done\n::set-env name=X::1\r\x1b[31m",
        );
        assert_eq!(line.matches('\n').count(), 1, "{line}");
        assert!(line.ends_with('\n'));
        assert!(!line.contains('\x1b'), "{line}");
        assert!(
            line.starts_with("::warning file=a%2Cb%3Ac%25.yaml,title=t%3A%3Ax::"),
            "{line}"
        );
        assert!(line.contains("50%25 done%0A::set-env"), "{line}");
        // Without a line the column is meaningless and left out.
        assert!(!line.contains("col="), "{line}");
    }
}
