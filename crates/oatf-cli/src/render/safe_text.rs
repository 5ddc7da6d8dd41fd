//! Attacker text in human output: control characters escaped, long source lines clipped.
//!
//! Documents, traces and file names come from strangers. Whatever of them reaches a terminal goes
//! through [`escape`] (ANSI escape sequences, carriage returns, bidi overrides and other controls
//! become visible `\u{…}` escapes), and a diagnostic's source snippet goes through [`Excerpt`], which
//! clips very long lines around the location (the renderer panicked past column ~65,535) and escapes
//! the quoted lines. The structured formats (JSON, SARIF, JUnit) escape through their own encoders.

use miette::{LabeledSpan, MietteError, MietteSpanContents, SourceCode, SourceSpan, SpanContents};
// The escaping rules are owned by `oatf-primitives` (D-132), shared with the evaluator's evidence.
pub(crate) use oatf::primitives::safe_text::{escape, escape_keep_lines, is_unsafe, push_escaped};

/// Longest source line (in characters) quoted whole in a diagnostic; longer lines are clipped.
pub(crate) const MAX_QUOTED_LINE: usize = 160;
/// Characters kept before the location on a clipped line.
const BEFORE: usize = 60;

/// The source a diagnostic quotes, reduced to the lines around its labels, each clipped and escaped.
///
/// Implements miette's [`SourceCode`] with the original line numbers, so the snippet reads as the
/// file does; the labels are moved onto the excerpt with [`Excerpt::labels`].
pub(crate) struct Excerpt {
    name: String,
    text: String,
    /// Line number (0-based) of the first line of `text` in the original source.
    first_line: usize,
    /// The line of `text` the window was centred on and the columns clipped from its start, so the
    /// header shows the original column.
    shift: (usize, usize),
    labels: Vec<LabeledSpan>,
}

/// Byte offset of the start of the line holding `offset`, and the line's end (before its break).
fn line_bounds(source: &str, offset: usize) -> (usize, usize) {
    let start = source[..offset].rfind('\n').map_or(0, |i| i + 1);
    let end = source[offset..]
        .find('\n')
        .map_or(source.len(), |i| offset + i);
    (start, end)
}

fn floor_boundary(source: &str, mut offset: usize) -> usize {
    offset = offset.min(source.len());
    while !source.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

impl Excerpt {
    /// An excerpt of `source` around `labels`, or `None` when the source can be quoted as it is
    /// (every line near a label is short and printable).
    pub(crate) fn new(name: &str, source: &str, labels: &[LabeledSpan]) -> Option<Excerpt> {
        let name = &*escape(name);
        if labels.is_empty() {
            return None;
        }
        // The lines a label starts on, with one line of context before and after.
        let mut lines: Vec<(usize, usize)> = Vec::new();
        for label in labels {
            let at = floor_boundary(source, label.offset());
            let (start, end) = line_bounds(source, at);
            lines.push((start, end));
            if start > 0 {
                lines.push(line_bounds(source, start - 1));
            }
            if end < source.len() {
                lines.push(line_bounds(source, end + 1));
            }
        }
        lines.sort_unstable();
        lines.dedup();
        let needs = lines.iter().any(|&(s, e)| {
            let line = &source[s..e];
            line.len() > MAX_QUOTED_LINE || line.trim_end_matches('\r').chars().any(is_unsafe)
        });
        if !needs {
            return None;
        }
        // The column window: around the first label's start.
        let anchor = floor_boundary(source, labels[0].offset());
        let (anchor_line, _) = line_bounds(source, anchor);
        let anchor_col = source[anchor_line..anchor].chars().count();
        let window_start = anchor_col.saturating_sub(BEFORE);
        let window_end = window_start + MAX_QUOTED_LINE;

        let starts: Vec<usize> = labels
            .iter()
            .map(|l| floor_boundary(source, l.offset()))
            .collect();
        let label_ends: Vec<usize> = labels
            .iter()
            .map(|l| l.offset().saturating_add(l.len()))
            .collect();
        let mut mapped: Vec<Option<usize>> = vec![None; labels.len()];
        let mut ends: Vec<Option<usize>> = vec![None; labels.len()];
        let first_line = source[..lines[0].0].matches('\n').count();
        let mut previous_end: Option<usize> = None;
        let mut text = String::new();
        let mut shift = (0, 0);
        for &(start, end) in &lines {
            if let Some(prev) = previous_end
                && start > prev + 1
            {
                text.push_str("…\n");
            }
            previous_end = Some(end);
            let on_line = |i: usize| starts[i] >= start && starts[i] <= end;
            let line = source[start..end].trim_end_matches('\r');
            let count = line.chars().count();
            let (from, to) = if count > MAX_QUOTED_LINE {
                (window_start.min(count), window_end.min(count))
            } else {
                (0, count)
            };
            if from > 0 {
                text.push('…');
                if start == anchor_line {
                    // Line index in `text`: gap lines count too.
                    shift = (text.matches('\n').count(), from - 1);
                }
            }
            let mut here = start;
            for (col, c) in line.chars().enumerate() {
                let next = here + c.len_utf8();
                if col >= from && col < to {
                    for i in 0..labels.len() {
                        // A label starting here, or in the clipped-away part before the window.
                        if mapped[i].is_none() && on_line(i) && starts[i] <= here {
                            mapped[i] = Some(text.len());
                        }
                    }
                    push_escaped(c, &mut text);
                    for i in 0..labels.len() {
                        if mapped[i].is_some() && ends[i].is_none() && label_ends[i] <= next {
                            ends[i] = Some(text.len());
                        }
                    }
                }
                here = next;
            }
            for i in 0..labels.len() {
                // Labels at the end of the line or past the window point at the end of what is shown.
                if mapped[i].is_none() && on_line(i) {
                    mapped[i] = Some(text.len());
                }
                if mapped[i].is_some() && ends[i].is_none() {
                    ends[i] = Some(text.len());
                }
            }
            if to < count {
                text.push('…');
            }
            text.push('\n');
        }
        let labels = labels
            .iter()
            .enumerate()
            .map(|(i, label)| {
                let at = mapped[i].unwrap_or(0);
                let len = if label.is_empty() {
                    0
                } else {
                    ends[i].unwrap_or(at).saturating_sub(at)
                };
                LabeledSpan::new_with_span(label.label().map(ToOwned::to_owned), (at, len))
            })
            .collect();
        Some(Excerpt {
            name: name.to_owned(),
            text,
            first_line,
            shift,
            labels,
        })
    }

    /// The labels, moved onto the excerpt.
    pub(crate) fn labels(&self) -> Vec<LabeledSpan> {
        self.labels.clone()
    }
}

impl SourceCode for Excerpt {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        context_lines_before: usize,
        context_lines_after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        let inner =
            self.text
                .as_str()
                .read_span(span, context_lines_before, context_lines_after)?;
        Ok(Box::new(MietteSpanContents::new_named(
            self.name.clone(),
            inner.data(),
            *inner.span(),
            inner.line() + self.first_line,
            if inner.line() == self.shift.0 {
                inner.column() + self.shift.1
            } else {
                inner.column()
            },
            inner.line_count(),
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_printable_sources_are_quoted_as_they_are() {
        let source = "a: 1\nb: 2\n";
        let labels = [LabeledSpan::new(Some("here".into()), 5, 1)];
        assert!(Excerpt::new("f", source, &labels).is_none());
    }

    #[test]
    fn long_lines_are_clipped_around_the_label() {
        let long = "x".repeat(100_000);
        let source = format!("a: 1\nb: {long}Z tail\nc: 3\n");
        let at = source.find('Z').unwrap_or(0);
        let labels = [LabeledSpan::new(Some("here".into()), at, 1)];
        let excerpt = Excerpt::new("f", &source, &labels).expect("clipped");
        assert!(excerpt.text.len() < 1_000, "{}", excerpt.text.len());
        let label = &excerpt.labels()[0];
        assert_eq!(&excerpt.text[label.offset()..label.offset() + 1], "Z");
        assert_eq!(excerpt.first_line, 0);
        assert!(excerpt.text.starts_with("a: 1\n…"));
    }

    #[test]
    fn controls_in_quoted_lines_are_escaped_and_labels_follow() {
        let source = "a: 1\nb: \u{1b}[2Jx\u{7}y: oops\n";
        let at = source.find("oops").unwrap_or(0);
        let labels = [LabeledSpan::new(None, at, 4)];
        let excerpt = Excerpt::new("f", source, &labels).expect("escaped");
        assert!(!excerpt.text.contains('\u{1b}'));
        let label = &excerpt.labels()[0];
        assert_eq!(
            &excerpt.text[label.offset()..label.offset() + label.len()],
            "oops"
        );
    }
}
