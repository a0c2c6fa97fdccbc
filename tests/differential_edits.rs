//! Differential test of the incremental document model (SPEC §9): random sequences of edits
//! (insertions, deletions, replacements across lines, non-ASCII, CRLF and lone CR, edits that
//! break the YAML and later restore it, several changes in one notification, whole-text
//! replacements, out-of-range changes) are applied through `Document::apply_changes` with LSP
//! positions; after every step
//! - the text equals the text of an independent model (plain `String` edits, positions computed
//!   here, not by `document::position`),
//! - every node of the incrementally reparsed tree (kind, byte range, row/column points) equals
//!   the node of a fresh full parse,
//! - the snapshot's line index gives the model's positions,
//! - `model::diagnostics` on the snapshot equals those of a fresh snapshot of the same text.
//!
//! Steps: `CWL_MCP_DIFF_STEPS` (default 3,000 per seed text; millions locally), seed:
//! `CWL_MCP_DIFF_SEED` (default fixed). A failure prints the seed, the step and the edit so that
//! it replays exactly. See docs/reliability.md.
use cwl_mcp_lsp::base::DocumentContext;
use cwl_mcp_lsp::base::settings::{Profile, Settings};
use cwl_mcp_lsp::document::{Change, Document, Encoding, Position, Snapshot};
use cwl_mcp_lsp::model;

/// xorshift64*: small, seeded, no dependency.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
    fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[self.below(xs.len())]
    }
}

const SNIPPETS: &[&str] = &[
    "x",
    "é",
    "日本",
    "😀",
    " ",
    "\n",
    "\r\n",
    "\r",
    "  ",
    "\t",
    "- ",
    ": ",
    ":",
    "#",
    "\"",
    "'",
    "[",
    "]",
    "{",
    "}",
    ",",
    "|\n",
    "&a ",
    "*a",
    "!!str ",
    "key: -",
    "name: -\n",
    "  mcp:Tool:\n    name: é_tool\n",
    "hints:\n  - class: mcp:Tool\n    name: t😀\n",
    "    annotations:\r\n      readOnlyHint: yes\r\n",
    "$namespaces:\n  mcp: https://eoap.github.io/cwl-mcp-extension#\n",
    "requirements:\n  mcp:Tool: {name: x}\n",
    "    description: \"日本\\u00e9\"\n",
    "---\n",
    "{a: [1, 2, {b: c}]}",
];

/// Fragments that typically break the YAML; they are inserted and removed by the next step.
const BREAKERS: &[&str] = &[
    ": -",
    "key: -",
    "[",
    "{",
    "\"",
    "'",
    "\t",
    "  - : :",
    "&",
    "*",
    "|",
    "- - -\n  x",
    "%",
    "@",
    "`",
    "? ",
];

fn base_texts() -> Vec<(String, String)> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    for name in [
        "examples/broken-hint.cwl",
        "examples/echo-region.cwl",
        "examples/misspelled-namespace.cwl",
        "tests/fixtures/derive/oracle-runs/cases/01-full.cwl",
        "tests/fixtures/derive/oracle-runs/cases/42-list-form.cwl",
        "tests/fixtures/derive/oracle-runs/cases/44-ann-not-mapping.cwl",
    ] {
        let text = std::fs::read_to_string(root.join(name)).unwrap();
        out.push((name.to_string(), text));
    }
    let crlf = out[0].1.replace('\n', "\r\n");
    out.push(("broken-hint.cwl with CRLF".into(), crlf));
    out.push((
        "non-ASCII, mixed line ends".into(),
        "cwlVersion: v1.2\r\nclass: CommandLineTool\nid: outil_é\r\nlabel: 日本語のツール 😀\n\
         $namespaces:\n  mcp: https://eoap.github.io/cwl-mcp-extension#\r\nhints:\n  mcp:Tool:\n    \
         name: outil\r\n    description: \"Ünïcödé 😀 text\"\n    annotations: {readOnlyHint: true}\n\
         inputs: {}\routputs: {}\n"
            .into(),
    ));
    out.push(("empty".into(), String::new()));
    out.push(("a long tool (tree reuse)".into(), long_tool(120, false)));
    out.push((
        "a long tool, its inputs a list".into(),
        long_tool(120, true),
    ));
    out.push(("a long tool, small blocks around".into(), mixed_tool(false)));
    out
}

/// A tool whose `inputs` is one large block (kept as parsed when a small block breaks, see
/// `document::settle`) among small top-level blocks as large in all as it, so that about half
/// of the random edits break a small block beside the large one; its inputs a list (`list`)
/// or a mapping.
fn mixed_tool(list: bool) -> String {
    let tool = long_tool(70, list);
    let (head, rest) = tool.split_at(tool.find("inputs:").unwrap());
    let mut t = head.to_string();
    for i in 0..12 {
        t.push_str(&format!(
            "s:block_{i}:\n  - name: entry {i} é\n    items: [a, b, {{c: d}}]\n    text: |\n      \
             Some prose {i}.\n  - plain: value {i}\n"
        ));
        if i == 5 {
            t.push_str("arguments:\n- prefix: --x\n  valueFrom: $(runtime.cores)\n");
        }
    }
    let (inputs, tail) = rest.split_at(rest.find("outputs:").unwrap());
    t.push_str(inputs);
    for i in 0..12 {
        t.push_str(&format!(
            "requirement_{i}: {{class: Req{i}, value: \"日本 {i}\"}}\n"
        ));
    }
    t.push_str(tail);
    t
}

/// A tool with many inputs, long enough that tree-sitter reuses subtrees on reparse (on small
/// documents it relexes everything, which hides wrong edit bookkeeping); the inputs a list
/// (`- id: in_0`, `list`: tree-sitter rebuilds a list's items where it reuses a mapping's
/// pairs, and `document::settle` splits a list at its items) or a mapping.
fn long_tool(inputs: usize, list: bool) -> String {
    let mut t = String::from(
        "cwlVersion: v1.2\nclass: CommandLineTool\nid: long_tool\n$namespaces:\n  \
         mcp: https://eoap.github.io/cwl-mcp-extension#\nbaseCommand: [tool]\ninputs:\n",
    );
    for i in 0..inputs {
        let eol = if i % 3 == 0 { "\r\n" } else { "\n" };
        let head = if list {
            format!("  - id: in_{i}{eol}")
        } else {
            format!("  in_{i}:{eol}")
        };
        t.push_str(&head);
        t.push_str(&format!(
            "    type: File{eol}    label: entrée n°{i} 日本 😀{eol}    doc: |{eol}      \
             Line one of {i}.{eol}      Line two.{eol}    inputBinding: {{prefix: --in-{i}}}{eol}"
        ));
    }
    t.push_str(
        "outputs: {}\nhints:\n  mcp:Tool:\n    name: long_tool\n    description: Lots of inputs.\n",
    );
    t
}

// ---- The model: LSP positions computed from scratch over a plain String.

fn units(s: &str, enc: Encoding) -> usize {
    match enc {
        Encoding::Utf8 => s.len(),
        Encoding::Utf16 => s.encode_utf16().count(),
        Encoding::Chars => s.chars().count(),
    }
}

/// Byte offsets where a position may point: char boundaries, never between `\r` and `\n`.
fn is_position_offset(text: &str, off: usize) -> bool {
    text.is_char_boundary(off)
        && !(off > 0 && off < text.len() && &text.as_bytes()[off - 1..off + 1] == b"\r\n")
}

fn random_offset(rng: &mut Rng, text: &str) -> usize {
    loop {
        let off = rng.below(text.len() + 1);
        if is_position_offset(text, off) {
            return off;
        }
    }
}

/// Start offsets of every line (LSP: `\n`, `\r\n` and a lone `\r` end lines) and the end of
/// each line's content.
fn lines(text: &str) -> Vec<(usize, usize)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\n' => {
                out.push((start, i));
                start = i + 1;
            }
            b'\r' if b.get(i + 1) == Some(&b'\n') => {
                out.push((start, i));
                i += 1;
                start = i + 1;
            }
            b'\r' => {
                out.push((start, i));
                start = i + 1;
            }
            _ => {}
        }
        i += 1;
    }
    out.push((start, b.len()));
    out
}

fn model_position(text: &str, off: usize, enc: Encoding) -> Position {
    let ls = lines(text);
    let line = ls.iter().rposition(|&(s, _)| s <= off).unwrap();
    Position::new(line as u32, units(&text[ls[line].0..off], enc) as u32)
}

/// A random range and the byte span it means; sometimes with a column past the end of its
/// line (which LSP clamps to the line's end).
fn random_range(
    rng: &mut Rng,
    text: &str,
    enc: Encoding,
) -> ((Position, Position), (usize, usize)) {
    let mut a = random_offset(rng, text);
    let mut b = if rng.chance(40) {
        a
    } else if rng.chance(60) {
        // Short range, often within a line.
        let mut b = (a + 1 + rng.below(12)).min(text.len());
        while !is_position_offset(text, b) {
            b += 1;
        }
        b
    } else {
        random_offset(rng, text)
    };
    if a > b {
        std::mem::swap(&mut a, &mut b);
    }
    let mut pa = model_position(text, a, enc);
    let mut pb = model_position(text, b, enc);
    if rng.chance(5) {
        // Past the end of the line: means the line's end.
        let ls = lines(text);
        let line = pb.line as usize;
        pb.character += 1000;
        b = ls[line].1;
        if a > b {
            a = b;
            pa = pb;
        }
    }
    ((pa, pb), (a, b))
}

// ---- Comparison.

fn nodes(tree: &tree_sitter::Tree) -> Vec<String> {
    let mut out = Vec::new();
    let mut c = tree.walk();
    loop {
        let n = c.node();
        out.push(format!(
            "{}{} {}..{} {:?}..{:?}{}",
            n.kind(),
            c.field_name()
                .map(|f| format!(" ({f})"))
                .unwrap_or_default(),
            n.start_byte(),
            n.end_byte(),
            (n.start_position().row, n.start_position().column),
            (n.end_position().row, n.end_position().column),
            if n.is_missing() { " MISSING" } else { "" }
        ));
        if c.goto_first_child() {
            continue;
        }
        loop {
            if c.goto_next_sibling() {
                break;
            }
            if !c.goto_parent() {
                return out;
            }
        }
    }
}

struct Stepper {
    doc: Document,
    expected: String,
    previous: String,
    version: i32,
    seed: u64,
    name: String,
    settings: Settings,
    context: DocumentContext,
    max_len: usize,
}

impl Stepper {
    fn new(name: &str, text: &str, seed: u64, max_len: usize) -> Stepper {
        Stepper {
            doc: Document::new(text.to_string(), 1),
            expected: text.to_string(),
            previous: text.to_string(),
            version: 1,
            seed,
            name: name.to_string(),
            settings: Settings::default(),
            context: DocumentContext::from_uri("file:///work/diff/tool.cwl"),
            max_len,
        }
    }

    /// `new` inserted at byte `at` of the current text, as one LSP change.
    fn insert(&mut self, step: usize, at: usize, new: &str, enc: Encoding) {
        let p = model_position(&self.expected, at, enc);
        let mut t = self.expected.clone();
        t.insert_str(at, new);
        let change = Change {
            range: Some((p, p)),
            text: new.to_string(),
        };
        self.apply(step, vec![change], enc, t);
    }

    /// Bytes `a..b` of the current text deleted, as one LSP change.
    fn delete(&mut self, step: usize, a: usize, b: usize, enc: Encoding) {
        let range = (
            model_position(&self.expected, a, enc),
            model_position(&self.expected, b, enc),
        );
        let mut t = self.expected.clone();
        t.replace_range(a..b, "");
        let change = Change {
            range: Some(range),
            text: String::new(),
        };
        self.apply(step, vec![change], enc, t);
    }

    fn fail(&self, step: usize, what: &str, detail: String) -> ! {
        panic!(
            "differential mismatch ({what}) on `{}`, seed {}, step {step}: {detail}\n\
             text before the step: {:?}\ntext now: {:?}",
            self.name, self.seed, self.previous, self.expected
        );
    }

    fn apply(&mut self, step: usize, changes: Vec<Change>, enc: Encoding, new_text: String) {
        self.version += 1;
        if let Err(e) = self.doc.apply_changes(&changes, self.version, enc) {
            self.fail(step, "apply", format!("{e} for {changes:?}"));
        }
        self.previous = std::mem::replace(&mut self.expected, new_text);
        self.check(step, &changes);
    }

    fn check(&mut self, step: usize, changes: &[Change]) {
        if self.doc.text() != self.expected {
            self.fail(
                step,
                "text",
                format!("after {changes:?}: got {:?}", self.doc.text()),
            );
        }
        let fresh = Snapshot::parse(&self.expected, self.version);
        let (got, want) = (nodes(self.doc.tree()), nodes(&fresh.tree));
        if got != want {
            let i = got.iter().zip(&want).position(|(a, b)| a != b);
            self.fail(
                step,
                "tree",
                format!(
                    "after {changes:?}: first differing node {:?}: incremental {:?} / fresh {:?}",
                    i,
                    i.map(|i| &got[i]),
                    i.map(|i| &want[i])
                ),
            );
        }
        let snap = self.doc.snapshot();
        if snap.version != self.version || &*snap.text != self.expected.as_str() {
            self.fail(step, "snapshot", format!("version {}", snap.version));
        }
        let mut rng = Rng::new(self.seed ^ step as u64);
        for _ in 0..4 {
            let off = random_offset(&mut rng, &self.expected);
            for enc in [Encoding::Utf16, Encoding::Utf8, Encoding::Chars] {
                let want = model_position(&self.expected, off, enc);
                let got = snap.lines.position(off, enc);
                if got != want {
                    self.fail(
                        step,
                        "position",
                        format!("offset {off} {enc:?}: {got:?} != {want:?}"),
                    );
                }
            }
        }
        let a = model::diagnostics(&snap, &self.settings, &self.context);
        let b = model::diagnostics(&fresh, &self.settings, &self.context);
        if a != b {
            self.fail(
                step,
                "diagnostics",
                format!("incremental {a:#?}\nfresh {b:#?}"),
            );
        }
    }
}

fn steps() -> usize {
    std::env::var("CWL_MCP_DIFF_STEPS")
        .ok()
        .and_then(|s| s.replace('_', "").parse().ok())
        .unwrap_or(3_000)
}

fn seed() -> u64 {
    std::env::var("CWL_MCP_DIFF_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x00C0_FFEE)
}

fn run_sequence(name: &str, text: &str, seed: u64, steps: usize) {
    let mut rng = Rng::new(seed);
    let mut s = Stepper::new(name, text, seed, (text.len() * 3 / 2).max(6_000));
    s.check(0, &[]);
    let mut step = 1;
    while step <= steps {
        let enc = match rng.below(10) {
            0 => Encoding::Utf8,
            1 => Encoding::Chars,
            _ => Encoding::Utf16,
        };
        if rng.chance(3) {
            s.settings.profile = if s.settings.profile == Profile::Extension {
                Profile::Cwl2mcp
            } else {
                Profile::Extension
            };
        }
        // Keep documents small enough that thousands of steps stay fast.
        if s.expected.len() > s.max_len {
            let (r, (a, b)) = {
                let a = random_offset(&mut rng, &s.expected);
                let mut b = (a + 2_000).min(s.expected.len());
                while !is_position_offset(&s.expected, b) {
                    b += 1;
                }
                let (pa, pb) = (
                    model_position(&s.expected, a, enc),
                    model_position(&s.expected, b, enc),
                );
                ((pa, pb), (a, b))
            };
            let mut t = s.expected.clone();
            t.replace_range(a..b, "");
            s.apply(
                step,
                vec![Change {
                    range: Some(r),
                    text: String::new(),
                }],
                enc,
                t,
            );
            step += 1;
            continue;
        }
        match rng.below(100) {
            // Break the YAML, check, then restore it exactly with the inverse edit.
            0..=14 => {
                let before = s.expected.clone();
                let off = random_offset(&mut rng, &before);
                let frag = rng.pick(BREAKERS);
                s.insert(step, off, frag, enc);
                step += 1;
                // A fragment may join a preceding `\r` with a following `\n`; only restore
                // when the inverse range is expressible.
                let broken = &s.expected;
                if is_position_offset(broken, off) && is_position_offset(broken, off + frag.len()) {
                    s.delete(step, off, off + frag.len(), enc);
                    if s.expected != before {
                        s.fail(step, "restore", String::new());
                    }
                    step += 1;
                }
            }
            // Several changes in one notification, each against the text the previous left.
            15..=24 => {
                let mut t = s.expected.clone();
                let mut changes = Vec::new();
                for _ in 0..2 + rng.below(3) {
                    let (r, (a, b)) = random_range(&mut rng, &t, enc);
                    let new = rng.pick(SNIPPETS).to_string();
                    t.replace_range(a..b, &new);
                    changes.push(Change {
                        range: Some(r),
                        text: new,
                    });
                }
                s.apply(step, changes, enc, t);
                step += 1;
            }
            // The whole text at once (some clients do that), sometimes with CRLF.
            25..=26 => {
                let t = if rng.chance(50) {
                    s.expected.replace("\r\n", "\n").replace('\n', "\r\n")
                } else {
                    s.expected.replace("\r\n", "\n")
                };
                s.apply(
                    step,
                    vec![Change {
                        range: None,
                        text: t.clone(),
                    }],
                    enc,
                    t,
                );
                step += 1;
            }
            // A change past the end of the document: rejected, nothing changes, even when an
            // earlier change of the same notification was valid.
            27..=28 => {
                let n = lines(&s.expected).len() as u32;
                let p = model_position(&s.expected, 0, enc);
                let bad = Position::new(n + 1 + rng.below(5) as u32, 0);
                let changes = [
                    Change {
                        range: Some((p, p)),
                        text: "zzz".into(),
                    },
                    Change {
                        range: Some((bad, bad)),
                        text: "y".into(),
                    },
                ];
                if s.doc.apply_changes(&changes, s.version + 1, enc).is_ok() {
                    s.fail(step, "out of range accepted", format!("{changes:?}"));
                }
                s.check(step, &[]);
                step += 1;
            }
            // Typing or deleting one character at a time.
            29..=59 => {
                let (r, (a, b)) = if rng.chance(70) {
                    let off = random_offset(&mut rng, &s.expected);
                    let p = model_position(&s.expected, off, enc);
                    ((p, p), (off, off))
                } else {
                    random_range(&mut rng, &s.expected, enc)
                };
                let new = if a == b {
                    rng.pick(&["x", "é", "😀", "日", " ", ":", "\n", "\r\n", "-"])
                        .to_string()
                } else {
                    String::new()
                };
                let mut t = s.expected.clone();
                t.replace_range(a..b, &new);
                s.apply(
                    step,
                    vec![Change {
                        range: Some(r),
                        text: new,
                    }],
                    enc,
                    t,
                );
                step += 1;
            }
            // Replace a random range (across lines too) with a snippet.
            _ => {
                let (r, (a, b)) = random_range(&mut rng, &s.expected, enc);
                let new = if rng.chance(15) {
                    String::new()
                } else {
                    rng.pick(SNIPPETS).to_string()
                };
                let mut t = s.expected.clone();
                t.replace_range(a..b, &new);
                s.apply(
                    step,
                    vec![Change {
                        range: Some(r),
                        text: new,
                    }],
                    enc,
                    t,
                );
                step += 1;
            }
        }
    }
}

#[test]
fn incremental_state_equals_a_full_parse_after_every_random_edit() {
    let steps = steps();
    let seed = seed();
    let texts = base_texts();
    let per_text = steps.div_ceil(texts.len()).max(1);
    let started = std::time::Instant::now();
    for (k, (name, text)) in texts.iter().enumerate() {
        run_sequence(name, text, seed.wrapping_add(k as u64), per_text);
    }
    eprintln!(
        "differential: {} texts × {per_text} steps, seed {seed}, in {:.1?}",
        texts.len(),
        started.elapsed()
    );
}

#[test]
fn the_model_agrees_with_hand_computed_positions() {
    // The test's own position model must itself be right for the comparison to mean anything.
    let text = "a: é\r\nb: 日本\rc: 😀x\n";
    assert_eq!(
        model_position(text, text.find('b').unwrap(), Encoding::Utf16),
        Position::new(1, 0)
    );
    assert_eq!(
        model_position(text, text.find('c').unwrap(), Encoding::Utf16),
        Position::new(2, 0)
    );
    assert_eq!(
        model_position(text, text.find('x').unwrap(), Encoding::Utf16),
        Position::new(2, 5)
    );
    assert_eq!(
        model_position(text, text.find('x').unwrap(), Encoding::Chars),
        Position::new(2, 4)
    );
    assert_eq!(
        model_position(text, text.find('x').unwrap(), Encoding::Utf8),
        Position::new(2, 7)
    );
    assert_eq!(
        model_position(text, text.len(), Encoding::Utf16),
        Position::new(3, 0)
    );
    assert!(!is_position_offset(text, text.find('\n').unwrap()));
}

/// Byte ranges of the lines of `text` outside its `inputs` block (found here by its key and
/// the next line that starts at column 0 with a letter, independently of `document::settle`).
fn outside_inputs(text: &str) -> Vec<std::ops::Range<usize>> {
    let start = text.find("\ninputs:").map_or(0, |i| i + 1);
    let end = text[start + 1..]
        .match_indices('\n')
        .map(|(i, _)| start + 1 + i + 1)
        .find(|&i| text.as_bytes().get(i).is_some_and(u8::is_ascii_alphabetic))
        .unwrap_or(text.len());
    vec![0..start, end..text.len()]
}

/// Breaks a small top-level block beside the large `inputs`, or (`inside`) one of its inputs
/// (the tree `document::settle` defines), sometimes types in `inputs` or in another small
/// block while it is broken, then restores it; after every step the tree and the diagnostics
/// equal a fresh snapshot's.
fn run_breaks(name: &str, text: &str, seed: u64, steps: usize, inside: bool) -> usize {
    let mut rng = Rng::new(seed);
    let mut s = Stepper::new(name, text, seed, usize::MAX);
    let mut broken_steps = 0;
    let mut step = 1;
    // A random offset in one of the two regions outside `inputs`, if that region is not empty.
    let outside = |rng: &mut Rng, text: &str| {
        let r = outside_inputs(text)[rng.below(2)].clone();
        (!r.is_empty()).then(|| {
            let mut o = r.start + rng.below(r.len());
            while !is_position_offset(text, o) {
                o += 1;
            }
            o
        })
    };
    while step <= steps {
        let enc = if rng.chance(20) {
            Encoding::Utf8
        } else {
            Encoding::Utf16
        };
        let before = s.expected.clone();
        let off = if inside {
            let (a, b) = (
                outside_inputs(&before)[0].end,
                outside_inputs(&before)[1].start,
            );
            let mut o = a + 1 + rng.below(b - a - 1);
            while !is_position_offset(&before, o) {
                o += 1;
            }
            Some(o)
        } else {
            outside(&mut rng, &before)
        };
        let Some(off) = off else {
            continue;
        };
        let frag = rng.pick(BREAKERS);
        s.insert(step, off, frag, enc);
        step += 1;
        broken_steps += usize::from(s.doc.snapshot().broken());
        // While broken: a character typed in an input's `doc` and taken back, or in the
        // other region.
        for _ in 0..rng.below(3) {
            let at = if rng.chance(60) {
                s.expected
                    .match_indices("Line two.")
                    .nth(rng.below(60))
                    .map(|(i, _)| i + 4)
            } else {
                outside(&mut rng, &s.expected.clone())
            };
            let Some(at) = at else { continue };
            s.insert(step, at, "x", enc);
            broken_steps += usize::from(s.doc.snapshot().broken());
            s.delete(step + 1, at, at + 1, enc);
            step += 2;
        }
        let broken = s.expected.clone();
        if is_position_offset(&broken, off) && is_position_offset(&broken, off + frag.len()) {
            s.delete(step, off, off + frag.len(), enc);
            if s.expected != before {
                s.fail(step, "restore", String::new());
            }
        } else {
            // Start again from the valid text (a whole-text change).
            let change = Change {
                range: None,
                text: text.to_string(),
            };
            s.apply(step, vec![change], enc, text.to_string());
        }
        step += 1;
    }
    broken_steps
}

#[test]
fn a_break_beside_a_large_block_gives_the_tree_of_its_text() {
    let steps = (steps() / 4).max(200);
    let seed = seed();
    let text = mixed_tool(false);
    assert!(
        outside_inputs(&text)[1].start - outside_inputs(&text)[0].end > 8 * 1024,
        "inputs is a large block"
    );
    let broken = run_breaks("mixed tool", &text, seed, steps, false);
    let crlf = text.replace("\r\n", "\n").replace('\n', "\r\n");
    let broken_crlf = run_breaks("mixed tool, CRLF", &crlf, seed ^ 0x5eed, steps / 2, false);
    // Many steps are made while the YAML is broken beside `inputs`.
    assert!(
        broken + broken_crlf > steps / 10,
        "{broken} + {broken_crlf} broken steps"
    );
}

/// The same inside the large `inputs`: a break in one input, typing elsewhere while it is
/// broken, then the break undone (the tree is parsed again from the last error-free one).
#[test]
fn a_break_inside_a_large_block_gives_the_tree_of_its_text() {
    let steps = (steps() / 4).max(200);
    let seed = seed() ^ 0x0175_01de;
    let text = mixed_tool(false);
    let broken = run_breaks("mixed tool, inside", &text, seed, steps, true);
    let crlf = text.replace("\r\n", "\n").replace('\n', "\r\n");
    let broken_crlf = run_breaks(
        "mixed tool, CRLF, inside",
        &crlf,
        seed ^ 0x5eed,
        steps / 2,
        true,
    );
    assert!(
        broken + broken_crlf > steps / 10,
        "{broken} + {broken_crlf} broken steps"
    );
}

/// The same inside a large `inputs` written as a list (`- id: in_0`): `document::settle`
/// splits the list at its items.
#[test]
fn a_break_inside_a_large_list_gives_the_tree_of_its_text() {
    let steps = (steps() / 8).max(200);
    let seed = seed() ^ 0x11_57ed;
    let text = mixed_tool(true);
    assert!(text.contains("\n  - id: in_0"), "the inputs are a list");
    let broken = run_breaks(
        "mixed tool, inputs a list, inside",
        &text,
        seed,
        steps,
        true,
    );
    assert!(broken > steps / 10, "{broken} broken steps");
}
