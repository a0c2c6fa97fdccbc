//! The bodies of the fuzz targets, shared by `fuzz/fuzz_targets/*.rs` (cargo-fuzz, nightly)
//! and `tests/robust_fuzz.rs` (stable: the seed corpus plus mutated inputs, time-bounded).
//!
//! Input layout of `positions` and `edits`: the document text, then optionally a NUL byte and
//! the bytes that drive the operations; without a NUL the text's own bytes drive them, so that
//! every plain CWL file is a useful seed.
//!
//! Entry points of later features (completion, hover, derive at random positions) get their
//! own bodies here when they land.
#![allow(dead_code)]
use cwl_mcp_lsp::base::DocumentContext;
use cwl_mcp_lsp::base::settings::{Profile, Settings};
use cwl_mcp_lsp::document::yaml::YamlDoc;
use cwl_mcp_lsp::document::{Change, Document, Encoding, LineIndex, Position, Snapshot};
use cwl_mcp_lsp::model;

/// Reads operation parameters from bytes, cycling (never runs dry).
struct Ops<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Ops<'a> {
    fn new(bytes: &'a [u8]) -> Ops<'a> {
        Ops { bytes, at: 0 }
    }
    fn byte(&mut self) -> u8 {
        if self.bytes.is_empty() {
            return 0;
        }
        let b = self.bytes[self.at % self.bytes.len()];
        self.at += 1;
        b
    }
    fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.byte(), self.byte()])
    }
    fn encoding(&mut self) -> Encoding {
        match self.byte() % 3 {
            0 => Encoding::Utf8,
            1 => Encoding::Chars,
            _ => Encoding::Utf16,
        }
    }
}

fn split(data: &[u8]) -> (&[u8], &[u8]) {
    match data.iter().position(|&b| b == 0) {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, data),
    }
}

fn settings(profile: Profile) -> Settings {
    Settings {
        profile,
        ..Settings::default()
    }
}

fn context() -> DocumentContext {
    DocumentContext::from_uri("file:///fuzz/tool.cwl")
}

/// Document text -> diagnostics (both profiles), their LSP ranges, and the JSON value of the
/// YAML (alias expansion under its budget). Nothing may panic; spans lie on char boundaries.
pub fn diagnostics(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let snapshot = Snapshot::parse(text, 0);
    for profile in [Profile::Extension, Profile::Cwl2mcp] {
        let diags = model::diagnostics(&snapshot, &settings(profile), &context());
        for d in &diags {
            assert!(d.span.start <= d.span.end, "{d:?}");
            assert!(d.span.end <= text.len(), "{d:?}");
            assert!(text.is_char_boundary(d.span.start) && text.is_char_boundary(d.span.end));
            for enc in [Encoding::Utf16, Encoding::Utf8, Encoding::Chars] {
                let a = snapshot.lines.position(d.span.start, enc);
                let b = snapshot.lines.position(d.span.end, enc);
                assert!(a <= b, "{d:?}: {a:?} > {b:?}");
            }
        }
    }
    let _ = YamlDoc::parse(text).to_json();
}

/// Position conversions: any position maps to an offset on a char boundary (or an error past
/// the end), and every char boundary round-trips through a position.
pub fn positions(data: &[u8]) {
    let (text, ops) = split(data);
    let text = String::from_utf8_lossy(text);
    let index = LineIndex::from_text(&text);
    let lines = index.len_lines();
    let mut ops = Ops::new(ops);
    for _ in 0..64 {
        let enc = ops.encoding();
        let line = (ops.byte() as usize % (lines + 3)) as u32;
        let character = ops.u16() as u32;
        let p = Position::new(line, character);
        match index.offset(p, enc) {
            Ok(off) => {
                assert!(
                    off <= text.len() && text.is_char_boundary(off),
                    "{p:?} -> {off}"
                );
                let back = index.position(off, enc);
                if (line as usize) < lines {
                    assert_eq!(back.line, line, "{p:?} -> {off} -> {back:?}");
                    assert!(back.character <= character, "{p:?} -> {off} -> {back:?}");
                } else {
                    assert_eq!(off, text.len());
                }
            }
            Err(_) => assert!(line as usize > lines, "{p:?} rejected with {lines} lines"),
        }
    }
    let bytes = text.as_bytes();
    let step = (text.len() / 256).max(1);
    for (off, _) in text.char_indices().step_by(step) {
        for enc in [Encoding::Utf16, Encoding::Utf8, Encoding::Chars] {
            let p = index.position(off, enc);
            let back = index
                .offset(p, enc)
                .expect("a position made from an offset is valid");
            // The `\n` of a `\r\n` pair is not addressable: it maps to the `\r`.
            let want = if off > 0 && bytes[off] == b'\n' && bytes[off - 1] == b'\r' {
                off - 1
            } else {
                off
            };
            assert_eq!(back, want, "{enc:?} offset {off} -> {p:?}");
        }
    }
}

const SNIPPETS: &[&str] = &[
    "",
    "x",
    "é",
    "日本",
    "😀",
    "\n",
    "\r\n",
    "\r",
    " ",
    "\t",
    ":",
    ": ",
    "- ",
    "[",
    "]",
    "{",
    "}",
    "\"",
    "'",
    "#",
    "&a ",
    "*a",
    "|\n",
    "key: -",
    "\n  mcp:Tool:\n    name: t\n",
    "---\n",
];

/// Edits: random changes (ranges from the op bytes, possibly out of range, several per
/// notification, whole-text replacements) keep the document consistent: an error leaves the
/// text unchanged, and after each step the tree and the diagnostics equal a fresh parse's.
pub fn edits(data: &[u8]) {
    let (text, ops) = split(data);
    let Ok(text) = std::str::from_utf8(text) else {
        return;
    };
    let mut doc = Document::new(text.to_string(), 0);
    let mut ops = Ops::new(ops);
    let steps = 1 + ops.bytes.len().min(64) / 4;
    for version in 1..=steps as i32 {
        let lines = LineIndex::from_text(doc.text()).len_lines();
        let enc = ops.encoding();
        let mut changes = Vec::new();
        for _ in 0..1 + ops.byte() % 3 {
            let pos = |ops: &mut Ops| {
                Position::new(
                    (ops.byte() as usize % (lines + 2)) as u32,
                    (ops.byte() % 64) as u32,
                )
            };
            let range = if ops.byte() == 255 {
                None
            } else {
                Some((pos(&mut ops), pos(&mut ops)))
            };
            let text = SNIPPETS[ops.byte() as usize % SNIPPETS.len()].to_string();
            changes.push(Change { range, text });
        }
        let before = doc.text().to_string();
        if doc.apply_changes(&changes, version, enc).is_err() {
            assert_eq!(doc.text(), before, "a rejected change modified the text");
        }
        let fresh = Snapshot::parse(doc.text(), version);
        assert_eq!(
            doc.tree().root_node().to_sexp(),
            fresh.tree.root_node().to_sexp(),
            "incremental tree differs from a full parse after {changes:?}"
        );
        let snapshot = doc.snapshot();
        assert_eq!(&*snapshot.text, doc.text());
        let s = settings(Profile::Extension);
        assert_eq!(
            model::diagnostics(&snapshot, &s, &context()),
            model::diagnostics(&fresh, &s, &context()),
            "incremental diagnostics differ after {changes:?}"
        );
    }
}
