//! Test support for the rules, in the style of rust-analyzer's `check_diagnostics` and
//! `check_fix`: a fixture is a CWL document with its expected diagnostics written inline, as
//! YAML comment lines under the line they concern.
//!
//! # Annotation syntax
//!
//! ```text
//! hints:
//!   mcp:Tool:
//!     name: count lines
//! #         ^^^^^^^^^^^ error[name-invalid]: the MCP tool name `count lines`
//! ```
//!
//! - An *annotation line* is a comment line whose first character after `#` (and any spaces)
//!   is `^`. It concerns the nearest line above it that is not itself an annotation line, so
//!   several annotations can be stacked under one line.
//! - The carets mark the span's columns on that line: the first caret sits under the span's
//!   first character, and there is one caret per character (Unicode scalar value, so that the
//!   carets line up under non-ASCII text; the harness converts to bytes and compares byte
//!   spans exactly).
//! - A span starting at column 0 cannot have a caret there (the `#` is): write `#<` instead
//!   of `#`; every column of that line then counts two less (`#<^^^^^` marks columns 0–4).
//! - A span that runs past the end of its first line (a block mapping, a list-valued `doc`)
//!   is written with carets from its start to the end of that first line followed by `…`
//!   (U+2026): `^^^^^^^^^^^…`. The harness checks the start exactly and that the span ends
//!   on a later line; it does not pin the end.
//! - After the carets: `severity[code]: text`, with `severity` one of `error`, `warning`,
//!   `information`, `hint` (the LSP names), `code` a code of SPEC §5, and `text` a non-empty
//!   **substring** of the message (write its most telling part; the harness prints the whole
//!   message on failure).
//!
//! Annotation lines are removed before analysis, and every expected span is computed in the
//! cleaned text: an annotation never changes the YAML it describes, not even inside a block
//! scalar where a `#` line would be content.
//!
//! Every diagnostic of the document must be annotated, and every annotation must match one
//! diagnostic. A fixture may leave out whole codes with a directive line, removed as well:
//!
//! ```text
//! # check: ignore annotation-default, cwl2mcp-incompatible
//! ```
//!
//! The fixture text is used as written, except that one leading line break is dropped (so
//! that fixtures can start on the line after `r#"`). Fixtures are analysed as the document
//! `file:///fixture/tool.cwl` (file stem `tool`) unless a context is given.
//!
//! On failure the harness prints the document as it should be written, with the actual
//! diagnostics annotated in this syntax, ready to paste.
//!
//! # Fixes
//!
//! [`check_fix`]: `before` holds the cursor marker `$0` inside the span of the diagnostic to
//! fix; exactly one fix of a diagnostic at that place must exist ([`check_fix_titled`] picks one
//! by a title prefix). Its edits applied to `before` (without `$0`) must give `after` exactly,
//! and the diagnostics it fixes must be gone when `after` is analysed: for each code it lists,
//! `after` has at least that many fewer diagnostics of that code than `before`.
use std::fmt::Write as _;
use std::ops::Range;

use crate::base::{Code, Diagnostic, DocumentContext, Profile, Settings, Severity, apply_edits};

use super::Model;
use super::fixes::Fix;
use super::workspace::{Scope, across, served_names};

/// The URI fixtures are analysed as.
pub(crate) const FIXTURE_URI: &str = "file:///fixture/tool.cwl";

/// The settings of `profile`, everything else default.
pub(crate) fn settings(profile: Profile) -> Settings {
    Settings {
        profile,
        ..Settings::default()
    }
}

/// The context fixtures are analysed in.
pub(crate) fn context() -> DocumentContext {
    DocumentContext::from_uri(FIXTURE_URI)
}

/// Checks that `fixture` has exactly the annotated diagnostics under `profile`.
#[track_caller]
pub(crate) fn check_diagnostics(profile: Profile, fixture: &str) {
    check_diagnostics_in(profile, context(), fixture)
}

/// [`check_diagnostics`] for a document at `context` (a real path, for rules that read files).
#[track_caller]
pub(crate) fn check_diagnostics_in(profile: Profile, context: DocumentContext, fixture: &str) {
    let parsed = Parsed::new(fixture);
    let model = Model::of_text(&parsed.text, settings(profile), context);
    parsed.compare(profile, model.diagnostics().to_vec(), "");
}

/// Checks several documents analysed as one workspace (as `check DIR` and the editor do):
/// each `(uri, fixture)` must have exactly its annotated diagnostics, its own and the
/// cross-document ones (`tool-name-duplicate`, a shared schema `$id`).
#[track_caller]
pub(crate) fn check_workspace_diagnostics(profile: Profile, documents: &[(&str, &str)]) {
    let parsed: Vec<Parsed> = documents.iter().map(|(_, f)| Parsed::new(f)).collect();
    let models: Vec<Model> = documents
        .iter()
        .zip(&parsed)
        .map(|((uri, _), p)| {
            Model::of_text(&p.text, settings(profile), DocumentContext::from_uri(uri))
        })
        .collect();
    let names: Vec<(String, Vec<_>)> = documents
        .iter()
        .zip(&models)
        .map(|((uri, _), m)| (uri.to_string(), served_names(m, Scope::Diagnosed)))
        .collect();
    for (i, ((uri, _), (p, model))) in documents.iter().zip(parsed.iter().zip(&models)).enumerate()
    {
        let mut all = model.diagnostics().to_vec();
        all.extend(across(i, &names));
        super::analysis::sort(&mut all);
        p.compare(profile, all, uri);
    }
}

/// Checks the one fix of the diagnostic at `$0` in `before`: see the module doc.
#[track_caller]
pub(crate) fn check_fix(profile: Profile, before: &str, after: &str) {
    fix_at(profile, None, before, after)
}

/// [`check_fix`] for the fix at `$0` whose title starts with `title`.
#[track_caller]
pub(crate) fn check_fix_titled(profile: Profile, title: &str, before: &str, after: &str) {
    fix_at(profile, Some(title), before, after)
}

/// Checks that no fix is offered for the diagnostics at `$0`, though there is one there.
#[track_caller]
pub(crate) fn check_no_fix(profile: Profile, before: &str) {
    let (text, cursor) = cursor(before);
    let model = Model::of_text(&text, settings(profile), context());
    let here: Vec<&Diagnostic> = model
        .diagnostics()
        .iter()
        .filter(|d| touches(&d.span, cursor))
        .collect();
    assert!(
        !here.is_empty(),
        "no diagnostic at $0 (offset {cursor}); the document has:\n{}",
        render(&text, model.diagnostics(), &[])
    );
    let fixes = fixes_at(&model, cursor);
    assert!(
        fixes.is_empty(),
        "expected no fix at $0, found: {:?}",
        fixes.iter().map(|f| &f.title).collect::<Vec<_>>()
    );
}

#[track_caller]
fn fix_at(profile: Profile, title: Option<&str>, before: &str, after: &str) {
    let (text, cursor) = cursor(before);
    let after = strip_first_newline(after);
    let model = Model::of_text(&text, settings(profile), context());
    let all = fixes_at(&model, cursor);
    let chosen: Vec<&Fix> = all
        .iter()
        .copied()
        .filter(|f| title.is_none_or(|t| f.title.starts_with(t)))
        .collect();
    let titles: Vec<&String> = all.iter().map(|f| &f.title).collect();
    let fix = match chosen.as_slice() {
        [one] => *one,
        [] => panic!(
            "no fix{} at $0 (offset {cursor}); fixes there: {titles:?}\ndiagnostics:\n{}",
            title.map(|t| format!(" titled `{t}…`")).unwrap_or_default(),
            render(&text, model.diagnostics(), &[])
        ),
        _ => panic!("several fixes at $0, pick one with check_fix_titled: {titles:?}"),
    };
    let Some(fixed) = apply_edits(&text, &fix.edits) else {
        panic!("the edits of `{}` overlap: {:?}", fix.title, fix.edits)
    };
    assert!(
        fixed == after,
        "`{}` gives a different text.\n--- expected after ---\n{after}\n--- actual after ---\n{fixed}\n---",
        fix.title
    );
    let again = Model::of_text(&fixed, settings(profile), context());
    let count = |ds: &[Diagnostic], code: Code| ds.iter().filter(|d| d.code == code).count();
    let mut codes: Vec<Code> = fix.diagnostics.iter().map(|(c, _)| *c).collect();
    codes.sort();
    codes.dedup();
    for code in codes {
        let fixed_here = fix.diagnostics.iter().filter(|(c, _)| *c == code).count();
        let (was, now) = (
            count(model.diagnostics(), code),
            count(again.diagnostics(), code),
        );
        assert!(
            now + fixed_here <= was,
            "`{}` should fix {fixed_here} `{code}` diagnostic(s): {was} before, {now} after:\n{}",
            fix.title,
            render(&fixed, again.diagnostics(), &[])
        );
    }
}

fn fixes_at(model: &Model, cursor: usize) -> Vec<&Fix> {
    model
        .fixes()
        .iter()
        .filter(|f| f.diagnostics.iter().any(|(_, s)| touches(s, cursor)))
        .collect()
}

fn touches(span: &Range<usize>, at: usize) -> bool {
    span.start <= at && at <= span.end
}

/// The text without its `$0` marker, and the marker's offset.
#[track_caller]
fn cursor(text: &str) -> (String, usize) {
    let text = strip_first_newline(text);
    let at = text
        .find("$0")
        .expect("the fixture has no `$0` cursor marker");
    assert!(
        !text[at + 2..].contains("$0"),
        "the fixture has more than one `$0`"
    );
    (format!("{}{}", &text[..at], &text[at + 2..]), at)
}

fn strip_first_newline(text: &str) -> &str {
    text.strip_prefix("\r\n")
        .or_else(|| text.strip_prefix('\n'))
        .unwrap_or(text)
}

/// How an expected span ends.
#[derive(Clone, Debug, PartialEq, Eq)]
enum End {
    At(usize),
    /// `…`: past the end of the line ending at this offset.
    After(usize),
}

#[derive(Clone, Debug)]
struct Expected {
    start: usize,
    end: End,
    severity: Severity,
    code: Code,
    text: String,
    /// 1-based line of the annotation in the fixture, for messages.
    fixture_line: usize,
}

impl Expected {
    fn matches(&self, d: &Diagnostic) -> bool {
        d.span.start == self.start
            && match self.end {
                End::At(end) => d.span.end == end,
                End::After(line_end) => d.span.end > line_end,
            }
            && d.severity == self.severity
            && d.code == self.code
            && d.message.contains(&self.text)
    }
}

/// A fixture without its annotation and directive lines, and what they expect.
struct Parsed {
    text: String,
    expected: Vec<Expected>,
    ignored: Vec<Code>,
    directives: Vec<String>,
}

impl Parsed {
    #[track_caller]
    fn new(fixture: &str) -> Parsed {
        let fixture = strip_first_newline(fixture);
        let mut text = String::with_capacity(fixture.len());
        let mut expected = Vec::new();
        let mut ignored = Vec::new();
        let mut directives = Vec::new();
        // (start offset, content end offset, content) of the last kept line.
        let mut last: Option<(usize, usize, String)> = None;
        for (i, raw) in fixture.split_inclusive('\n').enumerate() {
            let line = raw.trim_end_matches(['\n', '\r']);
            let trimmed = line.trim_start();
            if let Some(rest) = trimmed.strip_prefix("# check:") {
                let rest = rest.trim();
                let Some(codes) = rest.strip_prefix("ignore") else {
                    panic!("fixture line {}: unknown directive `{line}`", i + 1);
                };
                for c in codes.split(',').map(str::trim).filter(|c| !c.is_empty()) {
                    let code = Code::parse(c)
                        .unwrap_or_else(|| panic!("fixture line {}: no code `{c}`", i + 1));
                    ignored.push(code);
                }
                directives.push(line.to_string());
                continue;
            }
            if let Some(annotation) = Annotation::parse(line, i + 1) {
                let Some((start, end, content)) = &last else {
                    panic!("fixture line {}: an annotation with no line above", i + 1)
                };
                expected.push(annotation.resolve(*start, *end, content, i + 1));
                continue;
            }
            let start = text.len();
            text.push_str(raw);
            last = Some((start, start + line.len(), line.to_string()));
        }
        Parsed {
            text,
            expected,
            ignored,
            directives,
        }
    }

    #[track_caller]
    fn compare(&self, profile: Profile, actual: Vec<Diagnostic>, name: &str) {
        let actual: Vec<Diagnostic> = actual
            .into_iter()
            .filter(|d| !self.ignored.contains(&d.code))
            .collect();
        let mut used = vec![false; actual.len()];
        let mut missing = Vec::new();
        // The most specific texts first, so that a short text that is a prefix of another
        // diagnostic's message does not take the diagnostic a longer text needs.
        let mut expected: Vec<&Expected> = self.expected.iter().collect();
        expected.sort_by_key(|e| std::cmp::Reverse(e.text.len()));
        for e in expected {
            match (0..actual.len()).find(|&i| !used[i] && e.matches(&actual[i])) {
                Some(i) => used[i] = true,
                None => missing.push(e),
            }
        }
        let unexpected: Vec<&Diagnostic> = actual
            .iter()
            .zip(&used)
            .filter(|(_, u)| !**u)
            .map(|(d, _)| d)
            .collect();
        if missing.is_empty() && unexpected.is_empty() {
            return;
        }
        let mut report = format!(
            "diagnostics of the fixture{} under the {} profile differ from its annotations\n",
            if name.is_empty() {
                String::new()
            } else {
                format!(" `{name}`")
            },
            profile.as_str()
        );
        for e in &missing {
            let _ = writeln!(
                report,
                "  no diagnostic matches the annotation on fixture line {}: {}[{}]: {} (bytes {}..{})",
                e.fixture_line,
                e.severity.as_str(),
                e.code,
                e.text,
                e.start,
                match e.end {
                    End::At(end) => end.to_string(),
                    End::After(end) => format!(">{end}"),
                }
            );
        }
        for d in &unexpected {
            let _ = writeln!(
                report,
                "  unexpected: {}[{}] at bytes {:?}: {}",
                d.severity.as_str(),
                d.code,
                d.span,
                d.message
            );
        }
        let _ = writeln!(report, "actual, annotated (paste this):\n");
        report.push_str(&render(&self.text, &actual, &self.directives));
        panic!("{report}");
    }
}

/// One parsed annotation line.
struct Annotation {
    /// Column (chars) of the first caret, after the `#<` shift.
    col: usize,
    carets: usize,
    continues: bool,
    severity: Severity,
    code: Code,
    text: String,
}

impl Annotation {
    /// `None` when `line` is not an annotation line; panics on a malformed one.
    #[track_caller]
    fn parse(line: &str, number: usize) -> Option<Annotation> {
        let hash = line.find('#')?;
        if !line[..hash].trim().is_empty() {
            return None;
        }
        let (shift, after_hash) = match line[hash + 1..].strip_prefix('<') {
            Some(rest) => (2, rest),
            None => (0, &line[hash + 1..]),
        };
        let body = after_hash.trim_start_matches(' ');
        if !body.starts_with('^') {
            return None;
        }
        macro_rules! bad {
            ($why:literal) => {
                panic!("fixture line {number}: {}: `{line}`", $why)
            };
        }
        let col = line.len() - body.len(); // the prefix is ASCII: bytes are chars
        let col = line[..col].chars().count() - shift;
        let carets = body.chars().take_while(|c| *c == '^').count();
        let rest = &body[carets..];
        let (continues, rest) = match rest.strip_prefix('…') {
            Some(r) => (true, r),
            None => (false, rest),
        };
        let rest = rest.trim_start();
        let Some((severity, rest)) = rest.split_once('[') else {
            bad!("expected `severity[code]: text` after the carets")
        };
        let severity = match severity {
            "error" => Severity::Error,
            "warning" => Severity::Warning,
            "information" => Severity::Information,
            "hint" => Severity::Hint,
            _ => bad!("the severity is one of error, warning, information, hint"),
        };
        let Some((code, text)) = rest.split_once(']') else {
            bad!("expected `]` after the code")
        };
        let Some(code) = Code::parse(code) else {
            bad!("unknown code")
        };
        let text = text
            .strip_prefix(':')
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .unwrap_or_else(|| bad!("expected `: text` (part of the message) after the code"));
        Some(Annotation {
            col,
            carets,
            continues,
            severity,
            code,
            text: text.to_string(),
        })
    }

    /// The expectation for the line `content` starting at byte `start` (`end`: its end).
    #[track_caller]
    fn resolve(self, start: usize, end: usize, content: &str, number: usize) -> Expected {
        let chars = content.chars().count();
        let byte_at = |col: usize| -> usize {
            content
                .char_indices()
                .nth(col)
                .map_or(content.len(), |(b, _)| b)
        };
        let last = self.col + self.carets;
        if last > chars {
            panic!(
                "fixture line {number}: the carets run past the end of the line above (columns \
                 {}..{last}, the line has {chars}); for a span that continues on later lines, \
                 end the carets at the end of the line and add `…`",
                self.col
            );
        }
        if self.continues && last != chars {
            panic!(
                "fixture line {number}: with `…`, the carets must reach the end of the line above \
                 (column {chars}), they end at {last}"
            );
        }
        Expected {
            start: start + byte_at(self.col),
            end: if self.continues {
                End::After(end)
            } else {
                End::At(start + byte_at(last))
            },
            severity: self.severity,
            code: self.code,
            text: self.text,
            fixture_line: number,
        }
    }
}

/// `text` with `diagnostics` written as annotations under their lines, after `directives`.
fn render(text: &str, diagnostics: &[Diagnostic], directives: &[String]) -> String {
    let mut out = String::new();
    for d in directives {
        out.push_str(d);
        out.push('\n');
    }
    let mut at = 0;
    let mut placed = vec![false; diagnostics.len()];
    for raw in text.split_inclusive('\n') {
        let start = at;
        at += raw.len();
        let line = raw.trim_end_matches(['\n', '\r']);
        let end = start + line.len();
        out.push_str(line);
        out.push('\n');
        for (i, d) in diagnostics.iter().enumerate() {
            // A span starting at the line break belongs to this line; one at the next line's
            // start, to that line.
            if placed[i] || d.span.start < start || d.span.start >= at.max(start + 1) {
                continue;
            }
            placed[i] = true;
            out.push_str(&annotation(line, d.span.start - start, end - start, d));
            out.push('\n');
        }
    }
    for (i, d) in diagnostics.iter().enumerate() {
        if !placed[i] {
            let _ = writeln!(
                out,
                "# (past the end) {}[{}] at bytes {:?}: {}",
                d.severity.as_str(),
                d.code,
                d.span,
                d.message
            );
        }
    }
    out
}

/// The annotation line of `d` under `line`: `from` is the span's start in the line (bytes),
/// `len` the line's length.
fn annotation(line: &str, from: usize, len: usize, d: &Diagnostic) -> String {
    let from = from.min(len);
    let col = line[..from].chars().count();
    let to = (d.span.end - (d.span.start - from)).min(len);
    let mut carets = line[from..to].chars().count();
    let continues = d.span.end - (d.span.start - from) > len;
    if carets == 0 && !continues {
        carets = 1; // an empty span: shown as one caret, which the checker reads as one char
    }
    let prefix = if col == 0 {
        "#<".to_string()
    } else {
        format!("#{}", " ".repeat(col - 1))
    };
    format!(
        "{prefix}{}{} {}[{}]: {}",
        "^".repeat(carets),
        if continues { "…" } else { "" },
        d.severity.as_str(),
        d.code,
        d.message
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const COUNT: &str = r#"
cwlVersion: v1.2
class: CommandLineTool
id: count-lines
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
hints:
  mcp:Tool:
    name: count lines
#         ^^^^^^^^^^^ error[name-invalid]: the MCP tool name `count lines`
baseCommand: [wc, -l]
inputs: {}
outputs: {}
"#;

    #[test]
    fn an_annotated_fixture_passes() {
        check_diagnostics(
            Profile::Extension,
            &format!("# check: ignore annotation-default, cwl2mcp-incompatible\n{COUNT}"),
        );
    }

    #[test]
    #[should_panic(expected = "differ from its annotations")]
    fn a_wrong_caret_column_fails() {
        let shifted = COUNT.replace("#         ^", "#        ^");
        check_diagnostics(
            Profile::Extension,
            &format!("# check: ignore annotation-default, cwl2mcp-incompatible\n{shifted}"),
        );
    }

    #[test]
    #[should_panic(expected = "the carets run past the end of the line above")]
    fn carets_past_the_line_end_are_refused() {
        let longer = COUNT.replace("^^^^^^^^^^^ ", "^^^^^^^^^^^^ ");
        check_diagnostics(Profile::Extension, &longer);
    }

    #[test]
    #[should_panic(expected = "differ from its annotations")]
    fn a_caret_too_few_fails() {
        let longer = COUNT.replace("^^^^^^^^^^^ ", "^^^^^^^^^^ ");
        check_diagnostics(
            Profile::Extension,
            &format!("# check: ignore annotation-default, cwl2mcp-incompatible\n{longer}"),
        );
    }

    #[test]
    #[should_panic(expected = "unexpected: error[name-invalid]")]
    fn a_missing_annotation_fails() {
        let bare: String = COUNT
            .lines()
            .filter(|l| !l.contains('^'))
            .map(|l| format!("{l}\n"))
            .collect();
        check_diagnostics(
            Profile::Extension,
            &format!("# check: ignore annotation-default, cwl2mcp-incompatible\n{bare}"),
        );
    }

    #[test]
    #[should_panic(expected = "unexpected: hint[annotation-default]")]
    fn codes_not_ignored_must_be_annotated() {
        check_diagnostics(
            Profile::Extension,
            &format!("# check: ignore cwl2mcp-incompatible\n{COUNT}"),
        );
    }

    #[test]
    #[should_panic(expected = "no diagnostic matches the annotation on fixture line")]
    fn a_wrong_message_fails() {
        let other = COUNT.replace(
            "the MCP tool name `count lines`",
            "the MCP tool name `count`",
        );
        check_diagnostics(
            Profile::Extension,
            &format!("# check: ignore annotation-default, cwl2mcp-incompatible\n{other}"),
        );
    }

    #[test]
    #[should_panic(expected = "no diagnostic matches the annotation on fixture line")]
    fn a_wrong_severity_fails() {
        let other = COUNT.replace("error[name-invalid]", "warning[name-invalid]");
        check_diagnostics(
            Profile::Extension,
            &format!("# check: ignore annotation-default, cwl2mcp-incompatible\n{other}"),
        );
    }

    #[test]
    #[should_panic(expected = "unknown code")]
    fn a_misspelt_code_is_refused() {
        let other = COUNT.replace("[name-invalid]", "[name-invlid]");
        check_diagnostics(Profile::Extension, &other);
    }

    #[test]
    fn annotation_lines_do_not_shift_the_spans() {
        // The annotations are removed, so the model sees the document without them, and the
        // expected offsets are those of the cleaned text.
        let parsed = Parsed::new(COUNT);
        assert!(!parsed.text.contains('^'));
        let e = &parsed.expected[0];
        assert_eq!(
            &parsed.text[e.start..],
            "count lines\nbaseCommand: [wc, -l]\ninputs: {}\noutputs: {}\n"
        );
        assert_eq!(e.end, End::At(e.start + "count lines".len()));
    }

    #[test]
    fn rendering_gives_back_a_passing_fixture() {
        let parsed = Parsed::new(COUNT);
        let model = Model::of_text(&parsed.text, settings(Profile::Extension), context());
        let rendered = render(&parsed.text, model.diagnostics(), &[]);
        check_diagnostics(Profile::Extension, &rendered);
    }

    const FIX_BEFORE: &str = r#"
cwlVersion: v1.2
class: CommandLineTool
id: count-lines
$namespaces:
  mcp: https://eoap.github.io/cwl-mcp-extension#
hints:
  mcp:Tool:
    name: count l$0ines
inputs: {}
outputs: {}
"#;

    #[test]
    fn a_fix_applies() {
        check_fix(
            Profile::Extension,
            FIX_BEFORE,
            &FIX_BEFORE.replace("count l$0ines", "count_lines"),
        );
    }

    #[test]
    #[should_panic(expected = "gives a different text")]
    fn a_wrong_after_fails() {
        check_fix(
            Profile::Extension,
            FIX_BEFORE,
            &FIX_BEFORE.replace("count l$0ines", "count-lines"),
        );
    }

    #[test]
    #[should_panic(expected = "no fix")]
    fn a_cursor_away_from_any_diagnostic_fails() {
        let moved = FIX_BEFORE
            .replace("count l$0ines", "count lines")
            .replace("inputs: {}", "$0inputs: {}");
        check_fix(Profile::Extension, &moved, "");
    }
}
