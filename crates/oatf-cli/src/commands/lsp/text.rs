//! Positions: LSP positions (0-based line, column in UTF-16 code units) against byte offsets of the
//! document text, and incremental edits (D-116).
//!
//! Lines end at `\n`, `\r\n` or a lone `\r`, as the LSP specification says. A tab is one column, as
//! every character is its UTF-16 length. A position past the end of its line is the line's end, a
//! line past the last is the end of the text, and a column inside a surrogate pair (or a `\r\n`)
//! moves back to the start of the character: no input makes an offset that is not a character
//! boundary.

use lsp_types::{Position, Range};

/// The line starts of one text, to map between offsets and positions.
#[derive(Debug)]
pub(crate) struct LineIndex {
    /// Byte offset of each line's start; the first is 0.
    starts: Vec<usize>,
    /// Whether the text is ASCII (columns are then byte counts).
    ascii: bool,
    /// The last position computed on a non-ASCII text: `(line, offset, UTF-16 column)`, so that
    /// positions asked in increasing order on one long line cost one pass over it, not one each.
    last: std::cell::Cell<(usize, usize, usize)>,
}

impl LineIndex {
    pub(crate) fn new(text: &str) -> Self {
        let bytes = text.as_bytes();
        let mut starts = vec![0];
        let mut i = 0;
        while i < bytes.len() {
            match bytes[i] {
                b'\n' => starts.push(i + 1),
                b'\r' if bytes.get(i + 1) != Some(&b'\n') => starts.push(i + 1),
                _ => {}
            }
            i += 1;
        }
        LineIndex {
            starts,
            ascii: text.is_ascii(),
            last: std::cell::Cell::new((usize::MAX, 0, 0)),
        }
    }

    /// The byte range of line `line` without its terminator; `None` past the last line.
    fn line_span(&self, text: &str, line: usize) -> Option<(usize, usize)> {
        let start = *self.starts.get(line)?;
        let mut end = self.starts.get(line + 1).copied().unwrap_or(text.len());
        let bytes = text.as_bytes();
        if end > start && bytes.get(end - 1) == Some(&b'\n') {
            end -= 1;
        }
        if end > start && bytes.get(end - 1) == Some(&b'\r') {
            end -= 1;
        }
        Some((start, end))
    }

    /// The byte offset of `position` in `text` (clamped, always a character boundary).
    pub(crate) fn offset(&self, text: &str, position: Position) -> usize {
        let Some((start, end)) = self.line_span(text, position.line as usize) else {
            return text.len();
        };
        let want = position.character as usize;
        if self.ascii {
            return (start + want).min(end);
        }
        let mut units = 0usize;
        for (i, c) in text.get(start..end).unwrap_or("").char_indices() {
            let next = units + c.len_utf16();
            if next > want {
                return start + i;
            }
            units = next;
        }
        end
    }

    /// The position of byte offset `offset` (clamped to the text, moved back to a character boundary).
    pub(crate) fn position(&self, text: &str, offset: usize) -> Position {
        let mut offset = offset.min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self
            .starts
            .partition_point(|s| *s <= offset)
            .saturating_sub(1);
        let start = self.starts.get(line).copied().unwrap_or(0);
        // An offset between `\r` and `\n` belongs to the end of its line.
        let character = if self.ascii {
            offset - start
        } else {
            let (last_line, last_offset, last_units) = self.last.get();
            let (from, units) = if last_line == line && last_offset <= offset {
                (last_offset, last_units)
            } else {
                (start, 0)
            };
            let units = units
                + text
                    .get(from..offset)
                    .unwrap_or("")
                    .chars()
                    .map(char::len_utf16)
                    .sum::<usize>();
            self.last.set((line, offset, units));
            units
        };
        Position::new(clamp_u32(line), clamp_u32(character))
    }

    /// The LSP range of a byte range.
    pub(crate) fn range(&self, text: &str, span: std::ops::Range<usize>) -> Range {
        Range::new(
            self.position(text, span.start),
            self.position(text, span.end),
        )
    }

    /// The number of lines (a text ending with a line break has an empty last line).
    pub(crate) fn line_count(&self) -> usize {
        self.starts.len()
    }
}

fn clamp_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// Applies one content change to `text`: a range edit, or the whole text when `range` is `None`.
pub(crate) fn apply_change(text: &mut String, range: Option<Range>, new_text: &str) {
    match range {
        None => new_text.clone_into(text),
        Some(range) => {
            let index = LineIndex::new(text);
            let start = index.offset(text, range.start);
            let end = index.offset(text, range.end).max(start);
            text.replace_range(start..end, new_text);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(line: u32, character: u32) -> Position {
        Position::new(line, character)
    }

    /// Checks that `position` maps to `offset` in `text`, and back when `round_trip`.
    #[track_caller]
    fn check(text: &str, position: Position, offset: usize, round_trip: bool) {
        let index = LineIndex::new(text);
        assert_eq!(
            index.offset(text, position),
            offset,
            "offset of {position:?}"
        );
        if round_trip {
            assert_eq!(
                index.position(text, offset),
                position,
                "position of {offset}"
            );
        }
    }

    #[test]
    fn lf_lines() {
        let text = "ab\ncd\n";
        check(text, pos(0, 0), 0, true);
        check(text, pos(0, 2), 2, true);
        check(text, pos(1, 1), 4, true);
        check(text, pos(2, 0), 6, true);
        // Past the end of a line: its end; past the last line: the end of the text.
        check(text, pos(0, 9), 2, false);
        check(text, pos(7, 0), 6, false);
    }

    #[test]
    fn crlf_and_lone_cr_end_lines() {
        let text = "ab\r\ncd\ref";
        check(text, pos(1, 0), 4, true);
        check(text, pos(1, 2), 6, true);
        check(text, pos(2, 1), 8, true);
        // The column past `ab` stops before the `\r\n`.
        check(text, pos(0, 5), 2, false);
        assert_eq!(LineIndex::new(text).line_count(), 3);
        // The offset between `\r` and `\n` is on line 0.
        assert_eq!(LineIndex::new(text).position(text, 3).line, 0);
    }

    #[test]
    fn tabs_are_one_column() {
        let text = "\tkey:\t1\n";
        check(text, pos(0, 1), 1, true);
        check(text, pos(0, 6), 6, true);
    }

    #[test]
    fn utf16_columns() {
        // é is 2 bytes and 1 UTF-16 unit; 😀 is 4 bytes and 2 units (a surrogate pair).
        let text = "é😀x\n";
        check(text, pos(0, 1), 2, true);
        check(text, pos(0, 3), 6, true);
        check(text, pos(0, 4), 7, true);
        // A column inside the surrogate pair moves back to the character's start.
        check(text, pos(0, 2), 2, false);
        // An offset inside a character moves back too.
        assert_eq!(LineIndex::new(text).position(text, 4), pos(0, 1));
        // Positions asked out of order on one line (the memo of the last one must not leak).
        let index = LineIndex::new(text);
        assert_eq!(index.position(text, 7), pos(0, 4));
        assert_eq!(index.position(text, 2), pos(0, 1));
        assert_eq!(index.position(text, 6), pos(0, 3));
        assert_eq!(index.position(text, 8), pos(1, 0));
    }

    #[test]
    fn changes_apply_in_utf16_and_whole() {
        let mut text = String::from("a😀b\r\nc");
        apply_change(&mut text, Some(Range::new(pos(0, 3), pos(0, 4))), "B");
        assert_eq!(text, "a😀B\r\nc");
        apply_change(&mut text, Some(Range::new(pos(0, 1), pos(1, 0))), "");
        assert_eq!(text, "ac");
        // A reversed or out-of-range edit cannot panic.
        apply_change(&mut text, Some(Range::new(pos(9, 9), pos(0, 0))), "z");
        assert_eq!(text, "acz");
        apply_change(&mut text, None, "new");
        assert_eq!(text, "new");
    }
}
