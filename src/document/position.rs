//! The one place that converts between the three coordinate systems.
//!
//! tree-sitter and our spans count bytes, ropey counts chars, LSP counts UTF-16 code units
//! (or bytes, when the client negotiated `positionEncoding: utf-8`). Lines end at `\n`, `\r\n`
//! or a lone `\r`, as LSP says (ropey is built with `cr_lines` and without `unicode_lines`).
use ropey::Rope;

/// How the `character` of a [`Position`] is counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Encoding {
    /// UTF-8 code units (bytes).
    Utf8,
    /// UTF-16 code units: the LSP default.
    #[default]
    Utf16,
    /// Unicode scalar values: the CLI's columns.
    Chars,
}

/// A zero-based line and column, counted in some [`Encoding`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Position {
    pub line: u32,
    pub character: u32,
}

impl Position {
    pub fn new(line: u32, character: u32) -> Self {
        Position { line, character }
    }
}

/// Line lookups and conversions over a shared, cheaply cloned rope.
#[derive(Clone, Debug)]
pub struct LineIndex {
    rope: Rope,
}

/// A position that names a line past the end of the document.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OutOfRange {
    pub line: u32,
    pub lines: usize,
}

impl std::fmt::Display for OutOfRange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "line {} is past the end of the document ({} lines)",
            self.line, self.lines
        )
    }
}

impl LineIndex {
    pub fn new(rope: Rope) -> Self {
        LineIndex { rope }
    }

    pub fn from_text(text: &str) -> Self {
        LineIndex {
            rope: Rope::from_str(text),
        }
    }

    pub fn rope(&self) -> &Rope {
        &self.rope
    }

    pub fn len_bytes(&self) -> usize {
        self.rope.len_bytes()
    }

    pub fn len_lines(&self) -> usize {
        self.rope.len_lines()
    }

    /// The byte offset of the start of `line` (clamped to the end of the text).
    pub fn line_start_byte(&self, line: usize) -> usize {
        if line >= self.rope.len_lines() {
            return self.rope.len_bytes();
        }
        self.rope.line_to_byte(line)
    }

    /// The byte offset of the end of `line`'s content, before its line break.
    pub fn line_end_byte(&self, line: usize) -> usize {
        if line >= self.rope.len_lines() {
            return self.rope.len_bytes();
        }
        let start = self.rope.line_to_byte(line);
        let slice = self.rope.line(line);
        let mut len = slice.len_bytes();
        let chars = slice.len_chars();
        if chars > 0 && slice.char(chars - 1) == '\n' {
            len -= 1;
            if chars > 1 && slice.char(chars - 2) == '\r' {
                len -= 1;
            }
        } else if chars > 0 && slice.char(chars - 1) == '\r' {
            len -= 1;
        }
        start + len
    }

    /// Converts a byte offset (clamped to the text, and moved back to a char boundary) to a
    /// position counted in `encoding`.
    pub fn position(&self, byte: usize, encoding: Encoding) -> Position {
        let byte = byte.min(self.rope.len_bytes());
        let char_idx = self.rope.byte_to_char(byte);
        let line = self.rope.char_to_line(char_idx);
        let line_char = self.rope.line_to_char(line);
        let character = match encoding {
            Encoding::Chars => char_idx - line_char,
            Encoding::Utf16 => {
                self.rope.char_to_utf16_cu(char_idx) - self.rope.char_to_utf16_cu(line_char)
            }
            Encoding::Utf8 => self.rope.char_to_byte(char_idx) - self.rope.line_to_byte(line),
        };
        Position::new(line as u32, character as u32)
    }

    /// Converts a position to a byte offset. A column past the end of its line means the end
    /// of the line (as LSP says); a column inside a character (half a surrogate pair, the middle
    /// of a UTF-8 sequence) means that character's start. A line past the end is an error,
    /// except the line just after the last, which means the end of the text.
    pub fn offset(&self, position: Position, encoding: Encoding) -> Result<usize, OutOfRange> {
        let line = position.line as usize;
        let lines = self.rope.len_lines();
        if line >= lines {
            if line == lines {
                return Ok(self.rope.len_bytes());
            }
            return Err(OutOfRange {
                line: position.line,
                lines,
            });
        }
        let start_byte = self.rope.line_to_byte(line);
        let end_byte = self.line_end_byte(line);
        let start_char = self.rope.byte_to_char(start_byte);
        let end_char = self.rope.byte_to_char(end_byte);
        let wanted = position.character as usize;
        let char_idx = match encoding {
            Encoding::Chars => (start_char + wanted).min(end_char),
            Encoding::Utf16 => {
                let base = self.rope.char_to_utf16_cu(start_char);
                let end = self.rope.char_to_utf16_cu(end_char);
                let target = (base + wanted).min(end);
                self.rope.utf16_cu_to_char(target)
            }
            Encoding::Utf8 => {
                let target = (start_byte + wanted).min(end_byte);
                self.rope.byte_to_char(target)
            }
        };
        Ok(self.rope.char_to_byte(char_idx))
    }

    /// A tree-sitter point (row, byte column) for a byte offset. tree-sitter counts rows at
    /// `\n` only, so a lone `\r` (which LSP and ropey count as a line break) is handled apart.
    pub fn ts_point(&self, byte: usize, text_has_lone_cr: bool, text: &str) -> tree_sitter::Point {
        let byte = byte.min(text.len());
        if text_has_lone_cr {
            return ts_point_in(text.as_bytes(), byte);
        }
        let char_idx = self.rope.byte_to_char(byte);
        let line = self.rope.char_to_line(char_idx);
        tree_sitter::Point::new(line, byte - self.rope.line_to_byte(line))
    }
}

/// The tree-sitter point (row, byte column) of `byte` in `text`, counting rows at `\n` only as
/// tree-sitter does: a scan of the text before it.
pub fn ts_point_in(text: &[u8], byte: usize) -> tree_sitter::Point {
    let before = &text[..byte];
    let row = memchr::memchr_iter(b'\n', before).count();
    let column = byte - memchr::memrchr(b'\n', before).map_or(0, |i| i + 1);
    tree_sitter::Point::new(row, column)
}

/// The tree-sitter point after `span`, which starts at `start`: a scan of the span alone.
pub fn ts_point_after(start: tree_sitter::Point, span: &[u8]) -> tree_sitter::Point {
    match memchr::memrchr(b'\n', span) {
        Some(last) => tree_sitter::Point::new(
            start.row + memchr::memchr_iter(b'\n', span).count(),
            span.len() - last - 1,
        ),
        None => tree_sitter::Point::new(start.row, start.column + span.len()),
    }
}

/// Whether `text` has a `\r` not followed by `\n`.
pub fn has_lone_cr(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes
        .iter()
        .enumerate()
        .any(|(i, &b)| b == b'\r' && bytes.get(i + 1) != Some(&b'\n'))
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "a: é\r\nb: 日本\r\nc: 😀x\n\nd";

    /// The point after a span is the point of its end, for every span of the text; both are
    /// the rope's where the text has no lone `\r`.
    #[test]
    fn the_point_after_a_span_is_the_point_of_its_end() {
        let bytes = TEXT.as_bytes();
        let index = LineIndex::from_text(TEXT);
        for start in 0..=bytes.len() {
            let at = ts_point_in(bytes, start);
            assert_eq!(at, index.ts_point(start, false, TEXT), "{start}");
            for end in start..=bytes.len() {
                assert_eq!(
                    ts_point_after(at, &bytes[start..end]),
                    ts_point_in(bytes, end)
                );
            }
        }
    }

    #[test]
    fn positions_in_each_encoding_on_non_ascii_and_crlf() {
        let index = LineIndex::from_text(TEXT);
        let x = TEXT.find('x').unwrap();
        assert_eq!(index.position(x, Encoding::Utf16), Position::new(2, 5));
        assert_eq!(index.position(x, Encoding::Chars), Position::new(2, 4));
        assert_eq!(index.position(x, Encoding::Utf8), Position::new(2, 7));
        let ri = TEXT.find('本').unwrap();
        assert_eq!(index.position(ri, Encoding::Utf16), Position::new(1, 4));
        assert_eq!(index.position(ri, Encoding::Utf8), Position::new(1, 6));
        let d = TEXT.find('d').unwrap();
        assert_eq!(index.position(d, Encoding::Utf16), Position::new(4, 0));
        assert_eq!(
            index.position(TEXT.len(), Encoding::Utf16),
            Position::new(4, 1)
        );
    }

    #[test]
    fn offsets_round_trip_every_char_boundary() {
        let index = LineIndex::from_text(TEXT);
        for enc in [Encoding::Utf8, Encoding::Utf16, Encoding::Chars] {
            for (byte, _) in TEXT.char_indices() {
                let pos = index.position(byte, enc);
                // `\n` of a CRLF pair sits at the end of its line; the end maps to the `\r`.
                let back = index.offset(pos, enc).unwrap();
                let b = TEXT.as_bytes();
                if b[byte] == b'\n' && byte > 0 && b[byte - 1] == b'\r' {
                    assert_eq!(back, byte - 1, "{enc:?} {pos:?}");
                } else {
                    assert_eq!(back, byte, "{enc:?} {pos:?}");
                }
            }
        }
    }

    #[test]
    fn columns_past_the_line_clamp_and_lines_past_the_end_fail() {
        let index = LineIndex::from_text(TEXT);
        let end_of_first = TEXT.find('\r').unwrap();
        assert_eq!(
            index.offset(Position::new(0, 99), Encoding::Utf16),
            Ok(end_of_first)
        );
        assert_eq!(
            index.offset(Position::new(5, 0), Encoding::Utf16),
            Ok(TEXT.len())
        );
        assert!(index.offset(Position::new(9, 0), Encoding::Utf16).is_err());
        // Inside a surrogate pair: the emoji's start.
        let emoji = TEXT.find('😀').unwrap();
        assert_eq!(
            index.offset(Position::new(2, 4), Encoding::Utf16),
            Ok(emoji)
        );
    }

    #[test]
    fn lone_cr_counts_as_a_line_break_for_lsp_but_not_for_tree_sitter() {
        let text = "a: 1\rb: 2\nc: 3";
        let index = LineIndex::from_text(text);
        let b = text.find('b').unwrap();
        assert_eq!(index.position(b, Encoding::Utf16), Position::new(1, 0));
        assert!(has_lone_cr(text));
        assert_eq!(index.ts_point(b, true, text), tree_sitter::Point::new(0, 5));
        let c = text.find('c').unwrap();
        assert_eq!(index.ts_point(c, true, text), tree_sitter::Point::new(1, 0));
        assert!(!has_lone_cr(TEXT));
        let index = LineIndex::from_text(TEXT);
        let x = TEXT.find('x').unwrap();
        assert_eq!(
            index.ts_point(x, false, TEXT),
            tree_sitter::Point::new(2, 7)
        );
    }
}
