//! Byte offset → line and column in a loaded XML text, in time independent of the offset:
//! one pass over the text records a mark at every line start and every [`MARK_SPACING`] bytes
//! within a line; a lookup binary-searches the marks and walks at most `MARK_SPACING` bytes.
//! (roxmltree's `text_pos_at` rescans the text from its start at each call, which made loading
//! n profiles cost n × file size; issue 15.)
//!
//! Must not: keep the text (only offsets and counts); disagree with roxmltree's positions
//! (row = 1 + newlines before the offset; column = 1 + characters since the last newline).

/// Bytes between two marks within one long line.
const MARK_SPACING: usize = 512;

/// Where a byte offset is: 1-based line and column (columns count characters).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct LineCol {
    pub line: u32,
    pub col: u32,
}

/// The marks of one text.
#[derive(Debug, Default)]
pub(crate) struct TextIndex {
    /// (byte offset, position there), increasing offsets, the first at 0.
    marks: Vec<(usize, LineCol)>,
}

impl TextIndex {
    /// Indexes `text` in one pass.
    pub(crate) fn new(text: &str) -> TextIndex {
        let mut marks = vec![(0, LineCol { line: 1, col: 1 })];
        let mut at = LineCol { line: 1, col: 1 };
        let mut last_mark = 0usize;
        for (i, c) in text.char_indices() {
            if i.saturating_sub(last_mark) >= MARK_SPACING {
                marks.push((i, at));
                last_mark = i;
            }
            if c == '\n' {
                at = LineCol {
                    line: at.line.saturating_add(1),
                    col: 1,
                };
                let next = i.saturating_add(1);
                marks.push((next, at));
                last_mark = next;
            } else {
                at.col = at.col.saturating_add(1);
            }
        }
        TextIndex { marks }
    }

    /// The position of byte `offset` of `text` (the text this index was built from; offsets
    /// past its end or inside a character count up to the preceding character boundary).
    /// The second value is the number of bytes walked from the nearest mark (at most
    /// [`MARK_SPACING`] plus one character), for tests that count work.
    pub(crate) fn locate(&self, text: &str, offset: usize) -> (LineCol, usize) {
        let offset = offset.min(text.len());
        let i = self.marks.partition_point(|(o, _)| *o <= offset);
        let (start, mut at) = self
            .marks
            .get(i.saturating_sub(1))
            .copied()
            .unwrap_or((0, LineCol { line: 1, col: 1 }));
        let walked = text.get(start..).unwrap_or("");
        let mut bytes = 0usize;
        for (j, c) in walked.char_indices() {
            if start.saturating_add(j) >= offset {
                break;
            }
            bytes = j.saturating_add(c.len_utf8());
            if c == '\n' {
                at = LineCol {
                    line: at.line.saturating_add(1),
                    col: 1,
                };
            } else {
                at.col = at.col.saturating_add(1);
            }
        }
        (at, bytes)
    }
}

#[cfg(test)]
mod tests;
