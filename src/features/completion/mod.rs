//! Completion in the places the MCP hint lives, and nowhere else (issue 3, SPEC §6):
//!
//! - under `hints` (map form: a key; list form: `class:` of an item): the hint class, with the
//!   prefix the document binds to the extension, or `mcp` plus an edit binding it;
//! - in `$namespaces`: the extension's entry, when it is not bound yet;
//! - inside the hint: its fields not yet present (`annotations` as a snippet of the four);
//! - inside `annotations`: the annotation fields not yet present, and `true`/`false` values
//!   with the MCP default marked.
//!
//! Where the cursor is comes from indentation (`outline`), which survives the broken YAML of a
//! half-typed key; which prefixes are bound and which classes are hints comes from the trees
//! (`locate`'s query over the tree-sitter tree, and the CWL view).
use crate::base::settings::{Profile, Settings};
use crate::cwl::CwlView;
use crate::document::Snapshot;
use crate::hint::fields::{self, ANNOTATION_FIELDS, Field, FieldType, Need, TOOL_FIELDS};
use crate::model::Model;

use super::locate::{self, Located};
use crate::base::Edit;
use crate::document::outline::{self, Line, Mapping, Seg};
use crate::model::edits::{self, newline};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompletionKind {
    /// The hint class.
    Class,
    /// A field key.
    Field,
    /// A value.
    Value,
    /// A `$namespaces` entry.
    Namespace,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Completion {
    pub label: String,
    pub kind: CompletionKind,
    /// One line: type, required or optional, default.
    pub detail: String,
    /// Markdown.
    pub documentation: String,
    /// Replaces the word under the cursor.
    pub edit: Edit,
    /// `edit.new_text` is an LSP snippet.
    pub snippet: bool,
    /// Multi-line text whose indentation is already absolute (no client re-indentation).
    pub as_is: bool,
    /// Applied with the item (binding the namespace).
    pub additional_edits: Vec<Edit>,
    pub sort_text: String,
    pub preselect: bool,
    /// What the client filters on, when not the label (a JSON key typed with its quote).
    pub filter_text: Option<String>,
}

/// Everything completion knows about the document.
struct Ctx<'t> {
    text: &'t str,
    lines: &'t [Line<'t>],
    /// The `$namespaces` bindings (the classes are looked up per `hints` block).
    located: Located,
    settings: &'t Settings,
    snapshot: &'t Snapshot,
    model: &'t Model,
}

impl Ctx<'_> {
    /// The text's indentation unit (read from the whole text, on first use).
    fn unit(&self) -> usize {
        self.model.indent_unit()
    }
}

/// Where the root's `$namespaces` can be: its block, or the whole text of a flow (JSON)
/// document; nothing when a block document has none.
fn namespaces_range(text: &str, lines: &[Line<'_>]) -> Option<std::ops::Range<usize>> {
    if text
        .trim_start_matches('\u{feff}')
        .trim_start()
        .starts_with('{')
    {
        return Some(0..text.len());
    }
    // Every outline holds the root keys; the block under `$namespaces` is read from the text.
    let start = lines
        .iter()
        .find(|l| l.content_col == 0 && l.key == Some("$namespaces"))?
        .start;
    let block = outline::block_around(text, start);
    Some(start..outline::content_end(text, block))
}

/// Completion items at byte offset `at`.
pub fn completion(model: &Model, at: usize) -> Vec<Completion> {
    let at = char_start(&model.snapshot.text, at);
    completion_in(model, at, &model.outline_at(at))
}

/// [`completion`] read from the lines of `outline` (the reference `tests/outline_scope.rs`
/// compares with: [`outline::Outline::of`], every line of the text).
#[doc(hidden)]
pub fn completion_from(model: &Model, at: usize, outline: &outline::Outline) -> Vec<Completion> {
    completion_in(model, char_start(&model.snapshot.text, at), outline)
}

/// `at` within the text, moved back to the start of its character.
fn char_start(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

fn completion_in(model: &Model, at: usize, outline: &outline::Outline) -> Vec<Completion> {
    let snapshot = &model.snapshot;
    let text: &str = &snapshot.text;
    let lines = outline.lines();
    let located = match namespaces_range(text, lines) {
        Some(range) => locate::locate_in(snapshot, range),
        None => Located::default(),
    };
    let ctx = Ctx {
        text,
        lines,
        located,
        settings: &model.settings,
        snapshot,
        model,
    };
    if in_flow_collection(snapshot, at) {
        flow::items(&ctx, at)
    } else {
        block::items(&ctx, at)
    }
}

/// Whether the tree-sitter tree puts the cursor inside a `{…}` or `[…]` collection (flow
/// style, JSON), where indentation says nothing.
fn in_flow_collection(snapshot: &Snapshot, at: usize) -> bool {
    let (root, start) = snapshot.tree_at(at);
    let at = at - start;
    let Some(mut node) = root.descendant_for_byte_range(at, at) else {
        return false;
    };
    loop {
        if matches!(node.kind(), "flow_mapping" | "flow_sequence")
            && node.start_byte() < at
            && at < node.end_byte()
        {
            return true;
        }
        match node.parent() {
            Some(p) => node = p,
            None => return false,
        }
    }
}

/// The end (column) of the word the cursor is in.
fn word_end(line: &str, col: usize) -> usize {
    let rest = &line[col..];
    let mut end = rest
        .find(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '$' | ':')))
        .unwrap_or(rest.len());
    // A trailing `:` ends a key; it is not part of the word.
    while end > 0 && rest[..end].ends_with(':') {
        end -= 1;
    }
    col + end
}

fn unquote(s: &str) -> &str {
    s.trim().trim_matches(['"', '\''])
}

/// The prefix to write and, when it is not bound, the edit binding it.
fn prefix_and_binding(ctx: &Ctx<'_>, _snapshot: &Snapshot) -> (String, Vec<Edit>) {
    let view = ctx.model.view();
    let bound = ctx
        .located
        .extension_prefix()
        .or_else(|| view.extension_prefix());
    let (prefix, needs_binding) = edits::extension_prefix(bound, |p| {
        ctx.located.namespace(p).is_some() || view.namespace(p).is_some()
    });
    if !needs_binding {
        return (prefix, Vec::new());
    }
    let edit = edits::bind_namespace(ctx.text, view, &prefix, ctx.unit());
    (prefix, edit.into_iter().collect())
}

fn need_text(field: &Field, profile: Profile) -> &'static str {
    match field.need(profile) {
        Need::Required => "required",
        Need::Optional => "optional",
        Need::Rejected => "rejected",
    }
}

fn field_doc(field: &Field) -> String {
    let mut doc = field.doc.to_string();
    if let Some(default) = field.mcp_default {
        doc.push_str(&format!(
            "\n\nMCP default when absent: `{default}` ({}).",
            field.default_meaning
        ));
    } else if !field.default_meaning.is_empty() {
        doc.push_str(&format!("\n\nWhen absent: {}.", field.default_meaning));
    }
    doc
}

fn field_detail(field: &Field, profile: Profile) -> String {
    let mut detail = format!(
        "{} · {} ({} profile)",
        field.ty.describe(),
        need_text(field, profile),
        profile.as_str()
    );
    if let Some(d) = field.mcp_default {
        detail.push_str(&format!(" · MCP default: {d}"));
    }
    detail
}

/// A boolean annotation's value as a snippet placeholder pre-filled with the value to write
/// (`fields::suggested_value`: the MCP default, or `false` for `destructiveHint` of a read-only
/// tool): `${1:true}`. A placeholder, not a choice (`${1|true,false|}`): Neovim's snippet engine
/// inserts nothing for a choice, which left `found null` errors behind; value completion offers
/// the other value.
fn bool_choice(field: &Field, index: usize, read_only: bool) -> String {
    format!("${{{index}:{}}}", fields::suggested_value(field, read_only))
}

/// `true` and `false` as the value of a boolean annotation: the value to write first and
/// preselected (`fields::suggested_value`), the MCP default marked. Both engines use it.
fn boolean_values(field: &Field, read_only: bool, span: std::ops::Range<usize>) -> Vec<Completion> {
    let key = field.key;
    let default = field.mcp_default.unwrap_or_default();
    let suggested = fields::suggested_value(field, read_only);
    [suggested, !suggested]
        .into_iter()
        .map(|value| Completion {
            label: value.to_string(),
            kind: CompletionKind::Value,
            detail: if value == default {
                format!("MCP default: clients assume `{value}` when `{key}` is absent")
            } else if value == suggested {
                format!("`{key}` has no effect on a read-only tool; `{value}` says so")
            } else {
                "boolean".to_string()
            },
            documentation: field_doc(field),
            edit: Edit::new(span.clone(), value.to_string()),
            snippet: false,
            as_is: false,
            additional_edits: Vec::new(),
            sort_text: if value == suggested { "0" } else { "1" }.into(),
            preselect: value == suggested,
            filter_text: None,
        })
        .collect()
}

/// Whether the mapping holding the cursor says `readOnlyHint: true` (block form).
fn read_only_in(lines: &[Line<'_>], mapping: &Mapping) -> bool {
    mapping
        .keys(lines)
        .iter()
        .any(|(k, i)| *k == "readOnlyHint" && lines[*i].value == "true")
}

fn class_item(
    label: String,
    new_text: String,
    span: std::ops::Range<usize>,
    additional: Vec<Edit>,
    as_is: bool,
    map_form: bool,
) -> Completion {
    let binds = !additional.is_empty();
    Completion {
        detail: if binds {
            "MCP Tool hint (binds the namespace in `$namespaces`)".into()
        } else {
            "MCP Tool hint".into()
        },
        documentation: format!(
            "{}\n\n{}",
            fields::TOOL_DOC,
            if map_form {
                "The hint's class as a key under `hints` (map form), its fields below it: \
                 `mcp:Tool`, with the prefix bound to `https://eoap.github.io/cwl-mcp-extension#`."
            } else {
                TOOL_FIELDS[0].doc
            }
        ),
        label,
        kind: CompletionKind::Class,
        edit: Edit::new(span, new_text),
        snippet: false,
        as_is,
        additional_edits: additional,
        sort_text: "0".into(),
        preselect: true,
        filter_text: None,
    }
}

mod block;
mod flow;
