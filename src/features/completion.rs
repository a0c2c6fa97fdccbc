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
    lines: Vec<Line<'t>>,
    /// The `$namespaces` bindings (the classes are looked up per `hints` block).
    located: Located,
    settings: &'t Settings,
    snapshot: &'t Snapshot,
    model: &'t Model,
    unit: usize,
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
    let i = lines
        .iter()
        .position(|l| l.content_col == 0 && l.key == Some("$namespaces"))?;
    let mut end = lines[i].end();
    for l in &lines[i + 1..] {
        if l.blank {
            continue;
        }
        if l.content_col == 0 && l.item_dash().is_none() {
            break;
        }
        end = l.end();
    }
    Some(lines[i].start..end)
}

/// What the cursor sits on.
enum Cursor<'t> {
    /// Typing a key in the mapping at column `col`.
    Key { col: usize, starts_item: bool },
    /// Typing the value of `key` (at column `col`).
    Value {
        key: &'t str,
        col: usize,
        starts_item: bool,
        value_start: usize,
    },
}

/// Completion items at byte offset `at`.
pub fn completion(model: &Model, at: usize) -> Vec<Completion> {
    let snapshot = &model.snapshot;
    let settings = &model.settings;
    let text: &str = &snapshot.text;
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    let lines = outline::lines(text);
    let unit = outline::indent_unit(&lines);
    let located = match namespaces_range(text, &lines) {
        Some(range) => locate::locate_in(snapshot, range),
        None => Located::default(),
    };
    let ctx = Ctx {
        text,
        lines,
        located,
        settings,
        snapshot,
        model,
        unit,
    };
    if in_flow_collection(snapshot, at) {
        return flow::items(&ctx, at);
    }
    let li = outline::line_of(&ctx.lines, at);
    let line = &ctx.lines[li];
    let col = (at - line.start).min(line.text.len());
    let before = &line.text[..col];
    let Some(cursor) = read_cursor(before) else {
        return Vec::new();
    };
    let word_end = word_end(line.text, col) + line.start;
    match cursor {
        Cursor::Key { col, starts_item } => {
            let mapping = outline::mapping_at(&ctx.lines, li, col, starts_item);
            let span = line.start + col..word_end;
            // Typing over an existing key (`na|me: x`): replace the key only.
            let key_only = line.text[word_end - line.start..].starts_with(':');
            key_items(&ctx, snapshot, &mapping, li, span, key_only)
        }
        Cursor::Value {
            key,
            col,
            starts_item,
            value_start,
        } => {
            let mapping = outline::mapping_at(&ctx.lines, li, col, starts_item);
            let span = line.start + value_start..word_end.max(line.start + value_start);
            value_items(&ctx, snapshot, &mapping, key, span)
        }
    }
}

/// Whether the tree-sitter tree puts the cursor inside a `{…}` or `[…]` collection (flow
/// style, JSON), where indentation says nothing.
fn in_flow_collection(snapshot: &Snapshot, at: usize) -> bool {
    let root = snapshot.tree.root_node();
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

fn read_cursor(before: &str) -> Option<Cursor<'_>> {
    let parsed = Line::parse(0, before);
    let rest = &before[parsed.content_col..];
    if rest.contains(" #") || rest.starts_with('#') {
        return None;
    }
    let starts_item = !parsed.dashes.is_empty();
    if let Some(i) = rest.find(": ") {
        let key = rest[..i].trim_end();
        let value = &rest[i + 2..];
        let value_start = parsed.content_col + i + 2 + (value.len() - value.trim_start().len());
        if key.is_empty() || value.trim_start().contains(' ') {
            return None;
        }
        return Some(Cursor::Value {
            key: key.trim_matches(['"', '\'']),
            col: parsed.content_col,
            starts_item,
            value_start,
        });
    }
    if !rest
        .chars()
        .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '$' | ':'))
    {
        return None;
    }
    Some(Cursor::Key {
        col: parsed.content_col,
        starts_item,
    })
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

/// The mapping a path segment leads into.
fn mapping_of(ctx: &Ctx<'_>, seg: &Seg) -> Mapping {
    match seg {
        Seg::Item { line, .. } => {
            outline::mapping_at(&ctx.lines, *line, ctx.lines[*line].content_col, true)
        }
        Seg::Key { line, .. } => {
            // The block under a key: its first content line.
            let first = ctx
                .lines
                .iter()
                .enumerate()
                .skip(line + 1)
                .find(|(_, l)| !l.blank)
                .map(|(i, _)| i);
            match first {
                Some(i) => {
                    let l = &ctx.lines[i];
                    outline::mapping_at(&ctx.lines, i, l.content_col, l.item_dash().is_some())
                }
                None => Mapping {
                    path: Vec::new(),
                    col: 0,
                    lines: 0..0,
                },
            }
        }
    }
}

/// Whether the mapping at the end of `path` is an `mcp:Tool` hint body (`mapping` is it).
fn is_tool_body(ctx: &Ctx<'_>, path: &[Seg], mapping: &Mapping, cursor_line: usize) -> bool {
    let n = path.len();
    if n < 2 || path[n - 2].key() != Some("hints") || !in_process(ctx, &path[n - 2]) {
        return false;
    }
    match &path[n - 1] {
        Seg::Key { key, .. } => ctx.located.is_tool(key),
        Seg::Item { .. } => mapping
            .keys(&ctx.lines)
            .into_iter()
            .find(|(k, i)| *k == "class" && *i != cursor_line)
            .is_some_and(|(_, i)| ctx.located.is_tool(unquote(ctx.lines[i].value))),
    }
}

/// Whether the `hints` key of `seg` belongs to a process (a mapping whose `class` is a CWL
/// process class), not to a workflow step or anything else.
fn in_process(ctx: &Ctx<'_>, seg: &Seg) -> bool {
    let Seg::Key { line, col, .. } = seg else {
        return false;
    };
    let starts_item = ctx.lines[*line].item_dash().is_some_and(|d| d < *col);
    outline::mapping_at(&ctx.lines, *line, *col, starts_item)
        .value_of(&ctx.lines, "class")
        .is_some_and(|c| crate::cwl::PROCESS_CLASSES.contains(&unquote(c)))
}

fn unquote(s: &str) -> &str {
    s.trim().trim_matches(['"', '\''])
}

/// Whether `mapping` is the `annotations` of a Tool hint.
fn is_annotations(ctx: &Ctx<'_>, mapping: &Mapping, cursor_line: usize) -> bool {
    let n = mapping.path.len();
    if n < 3 || mapping.path[n - 1].key() != Some("annotations") {
        return false;
    }
    let parent = &mapping.path[..n - 1];
    let parent_mapping = mapping_of(ctx, &parent[parent.len() - 1]);
    is_tool_body(ctx, parent, &parent_mapping, cursor_line)
}

/// The keys present in `mapping`, except the one being typed on the cursor's line.
fn present<'t>(ctx: &Ctx<'t>, mapping: &Mapping, cursor_line: usize) -> Vec<&'t str> {
    mapping
        .keys(&ctx.lines)
        .into_iter()
        .filter(|(_, i)| *i != cursor_line)
        .map(|(k, _)| k)
        .collect()
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
    let edit = edits::bind_namespace(ctx.text, view, &prefix, ctx.unit);
    (prefix, edit.into_iter().collect())
}

/// Whether the `hints` block owning `hints_seg` already holds an `mcp:Tool` (other than on the
/// cursor's line).
fn has_tool_hint(ctx: &Ctx<'_>, hints_seg: &Seg, cursor_line: usize) -> bool {
    let Seg::Key { line, col, .. } = hints_seg else {
        return false;
    };
    let start = ctx.lines[*line].start;
    let mut end = ctx.lines[*line].end();
    for l in ctx.lines.iter().skip(line + 1) {
        if l.blank {
            continue;
        }
        if l.content_col <= *col && l.item_dash().is_none_or(|d| d < *col) {
            break;
        }
        end = l.end();
    }
    let cursor = &ctx.lines[cursor_line];
    let classes = locate::locate_in(ctx.snapshot, start..end).classes;
    classes.iter().any(|(span, class)| {
        span.start >= start
            && span.end <= end
            && !(span.start >= cursor.start && span.start <= cursor.end())
            && ctx.located.is_tool(class)
    })
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

/// `${1|false,true|}` with the MCP default first.
fn bool_choice(field: &Field, index: usize) -> String {
    let d = field.mcp_default.unwrap_or_default();
    format!("${{{index}|{d},{}|}}", !d)
}

fn key_items(
    ctx: &Ctx<'_>,
    snapshot: &Snapshot,
    mapping: &Mapping,
    cursor_line: usize,
    span: std::ops::Range<usize>,
    key_only: bool,
) -> Vec<Completion> {
    let path = &mapping.path;
    let n = path.len();
    let profile = ctx.settings.profile;
    let nl = newline(ctx.text);
    let mut out = Vec::new();
    // `$namespaces` of the root: the extension's entry.
    if n == 1 && path[0].key() == Some("$namespaces") && mapping.col > 0 {
        let view = ctx.model.view();
        if ctx.located.extension_prefix().is_none() && view.extension_prefix().is_none() {
            let (prefix, _) = edits::extension_prefix(None, |p| {
                ctx.located.namespace(p).is_some() || view.namespace(p).is_some()
            });
            let ns = crate::cwl::EXTENSION_NS;
            out.push(Completion {
                label: prefix.clone(),
                kind: CompletionKind::Namespace,
                detail: ns.to_string(),
                documentation: format!(
                    "Binds `{prefix}` to the CWL MCP extension's namespace, so that \
                     `{prefix}:Tool` hints are recognised."
                ),
                edit: Edit::new(span, format!("{prefix}: {ns}")),
                snippet: false,
                as_is: false,
                additional_edits: Vec::new(),
                sort_text: "0".into(),
                preselect: true,
                filter_text: None,
            });
        }
        return out;
    }
    if n == 0 {
        return out;
    }
    // Directly under `hints`, map form: the class as a key.
    if path[n - 1].key() == Some("hints")
        && !matches!(path[n - 1], Seg::Item { .. })
        && in_process(ctx, &path[n - 1])
    {
        if has_tool_hint(ctx, &path[n - 1], cursor_line) {
            return out;
        }
        let (prefix, additional) = prefix_and_binding(ctx, snapshot);
        let class = format!("{prefix}:Tool");
        let new_text = if key_only {
            class.clone()
        } else {
            format!("{class}:{nl}{}", " ".repeat(mapping.col + ctx.unit))
        };
        out.push(class_item(class, new_text, span, additional, !key_only));
        return out;
    }
    // A list item under `hints`: `class: P:Tool` when the item has no class yet.
    if n >= 2
        && path[n - 2].key() == Some("hints")
        && matches!(path[n - 1], Seg::Item { .. })
        && in_process(ctx, &path[n - 2])
    {
        let keys = present(ctx, mapping, cursor_line);
        if !keys.contains(&"class") {
            if has_tool_hint(ctx, &path[n - 2], cursor_line) || key_only {
                return out;
            }
            let (prefix, additional) = prefix_and_binding(ctx, snapshot);
            let class = format!("{prefix}:Tool");
            let mut item = class_item(
                format!("class: {class}"),
                format!("class: {class}{nl}{}", " ".repeat(mapping.col)),
                span,
                additional,
                true,
            );
            item.documentation = TOOL_FIELDS[0].doc.to_string();
            out.push(item);
            return out;
        }
    }
    if is_tool_body(ctx, path, mapping, cursor_line) {
        let keys = present(ctx, mapping, cursor_line);
        for (i, field) in TOOL_FIELDS.iter().enumerate() {
            if field.ty == FieldType::Class
                || field.need(profile) == Need::Rejected
                || keys.contains(&field.key)
            {
                continue;
            }
            let (new_text, snippet, as_is) = if key_only {
                (field.key.to_string(), false, false)
            } else {
                match field.ty {
                    FieldType::Mapping => {
                        let pad = " ".repeat(mapping.col + ctx.unit);
                        let mut s = format!("{}:", field.key);
                        for (j, a) in fields::boolean_annotations().enumerate() {
                            s.push_str(&format!("{nl}{pad}{}: {}", a.key, bool_choice(a, j + 1)));
                        }
                        (s, true, true)
                    }
                    FieldType::StringList => (format!("{}: [$1]", field.key), true, false),
                    _ => (format!("{}: $1", field.key), true, false),
                }
            };
            out.push(Completion {
                label: field.key.to_string(),
                kind: CompletionKind::Field,
                detail: field_detail(field, profile),
                documentation: field_doc(field),
                edit: Edit::new(span.clone(), new_text),
                snippet,
                as_is,
                additional_edits: Vec::new(),
                sort_text: format!("{}{i:02}", u8::from(field.need(profile) != Need::Required)),
                preselect: false,
                filter_text: None,
            });
        }
        return out;
    }
    if is_annotations(ctx, mapping, cursor_line) {
        let keys = present(ctx, mapping, cursor_line);
        for (i, field) in ANNOTATION_FIELDS.iter().enumerate() {
            if field.ty == FieldType::Class
                || field.need(profile) == Need::Rejected
                || keys.contains(&field.key)
            {
                continue;
            }
            let (new_text, snippet) = if key_only {
                (field.key.to_string(), false)
            } else if field.ty == FieldType::Boolean {
                (format!("{}: {}", field.key, bool_choice(field, 1)), true)
            } else {
                (format!("{}: $1", field.key), true)
            };
            out.push(Completion {
                label: field.key.to_string(),
                kind: CompletionKind::Field,
                detail: field_detail(field, profile),
                documentation: field_doc(field),
                edit: Edit::new(span.clone(), new_text),
                snippet,
                as_is: false,
                additional_edits: Vec::new(),
                sort_text: format!("{i:02}"),
                preselect: false,
                filter_text: None,
            });
        }
    }
    out
}

fn class_item(
    label: String,
    new_text: String,
    span: std::ops::Range<usize>,
    additional: Vec<Edit>,
    as_is: bool,
) -> Completion {
    let binds = !additional.is_empty();
    Completion {
        detail: if binds {
            "MCP Tool hint (binds the namespace in `$namespaces`)".into()
        } else {
            "MCP Tool hint".into()
        },
        documentation: format!("{}\n\n{}", fields::TOOL_DOC, TOOL_FIELDS[0].doc),
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

fn value_items(
    ctx: &Ctx<'_>,
    snapshot: &Snapshot,
    mapping: &Mapping,
    key: &str,
    span: std::ops::Range<usize>,
) -> Vec<Completion> {
    let path = &mapping.path;
    let n = path.len();
    let profile = ctx.settings.profile;
    let cursor_line = outline::line_of(&ctx.lines, span.start);
    let mut out = Vec::new();
    if key == "class" && n >= 2 && path[n - 2].key() == Some("hints") {
        if !in_process(ctx, &path[n - 2]) {
            return out;
        }
        if matches!(path[n - 1], Seg::Item { .. }) && !has_tool_hint(ctx, &path[n - 2], cursor_line)
        {
            let (prefix, additional) = prefix_and_binding(ctx, snapshot);
            let class = format!("{prefix}:Tool");
            out.push(class_item(class.clone(), class, span, additional, false));
        }
        return out;
    }
    if !is_annotations(ctx, mapping, cursor_line) {
        return out;
    }
    if key == "class" {
        for (i, class) in fields::annotation_classes(profile).iter().enumerate() {
            out.push(Completion {
                label: class.to_string(),
                kind: CompletionKind::Value,
                detail: format!("annotations class ({} profile)", profile.as_str()),
                documentation: ANNOTATION_FIELDS[0].doc.to_string(),
                edit: Edit::new(span.clone(), class.to_string()),
                snippet: false,
                as_is: false,
                additional_edits: Vec::new(),
                sort_text: format!("{i}"),
                preselect: i == 0,
                filter_text: None,
            });
        }
        return out;
    }
    let Some(field) = fields::annotation_field(key).filter(|f| f.ty == FieldType::Boolean) else {
        return out;
    };
    let default = field.mcp_default.unwrap_or_default();
    for value in [default, !default] {
        let is_default = value == default;
        out.push(Completion {
            label: value.to_string(),
            kind: CompletionKind::Value,
            detail: if is_default {
                format!("MCP default: clients assume `{value}` when `{key}` is absent")
            } else {
                "boolean".to_string()
            },
            documentation: field_doc(field),
            edit: Edit::new(span.clone(), value.to_string()),
            snippet: false,
            as_is: false,
            additional_edits: Vec::new(),
            sort_text: if is_default { "0".into() } else { "1".into() },
            preselect: is_default,
            filter_text: None,
        });
    }
    out
}

/// Completion inside flow collections and JSON, read from the YAML tree: the chain of nodes
/// holding the cursor says where it is.
mod flow {
    use super::*;
    use crate::cwl::EXTENSION_NS;
    use crate::document::yaml::{Kind, Node, Style};

    /// One step from the root to the cursor: the key (or `None` for a list item) and the node.
    type Step<'a> = (Option<&'a str>, &'a Node);

    fn chain<'a>(yaml: &'a crate::document::yaml::YamlDoc, at: usize) -> Vec<Step<'a>> {
        let mut out = Vec::new();
        let Some(mut node) = yaml.root.as_ref() else {
            return out;
        };
        out.push((None, node));
        for _ in 0..256 {
            let next = match &node.kind {
                Kind::Map { pairs, .. } => pairs
                    .iter()
                    .find(|p| {
                        let v = yaml.deref(&p.value);
                        v.span.start <= at && at < v.span.end && !v.span.is_empty()
                    })
                    .map(|p| (p.key.scalar(), yaml.deref(&p.value))),
                Kind::Seq { items, .. } => items
                    .iter()
                    .map(|i| yaml.deref(i))
                    .find(|i| i.span.start <= at && at < i.span.end)
                    .map(|i| (None, i)),
                _ => None,
            };
            match next {
                Some(step) => {
                    node = step.1;
                    out.push(step);
                }
                None => break,
            }
        }
        out
    }

    fn json_style(map: &Node) -> bool {
        map.pairs().is_some_and(|pairs| {
            pairs.iter().any(|p| {
                matches!(
                    p.key.kind,
                    Kind::Scalar {
                        style: Style::DoubleQuoted,
                        ..
                    }
                )
            })
        })
    }

    /// Whether `chain[..=j]` ends at a Tool hint body.
    fn is_tool(ctx: &Ctx<'_>, chain: &[Step<'_>], j: usize, view: &CwlView<'_>) -> bool {
        // Map form: `hints: {P:Tool: {…}}`; list form: `hints: [{class: P:Tool, …}]`. Either
        // way the step before the body is `hints`.
        if j < 2 || chain[j - 1].0 != Some("hints") || !is_process(chain[j - 2].1) {
            return false;
        }
        let tool = |c: &str| ctx.located.is_tool(c) || view_is_tool(view, c);
        match chain[j].0 {
            Some(class) => tool(class),
            None => chain[j]
                .1
                .get("class")
                .and_then(|c| c.scalar())
                .is_some_and(tool),
        }
    }

    /// Whether the `hints` collection `hints` already holds a Tool hint other than the entry
    /// at the cursor.
    fn other_tool(ctx: &Ctx<'_>, view: &CwlView<'_>, hints: &Node, at: usize) -> bool {
        let tool = |c: &str| ctx.located.is_tool(c) || view_is_tool(view, c);
        let here = |span: &std::ops::Range<usize>| span.start <= at && at <= span.end;
        match &hints.kind {
            Kind::Map { pairs, .. } => pairs
                .iter()
                .any(|p| !here(&p.key.span) && p.key.scalar().is_some_and(tool)),
            Kind::Seq { items, .. } => items.iter().any(|i| {
                !here(&i.span) && i.get("class").and_then(|c| c.scalar()).is_some_and(tool)
            }),
            _ => false,
        }
    }

    fn is_process(node: &Node) -> bool {
        node.get("class")
            .and_then(|c| c.scalar())
            .is_some_and(|c| crate::cwl::PROCESS_CLASSES.contains(&c))
    }

    fn view_is_tool(view: &CwlView<'_>, class: &str) -> bool {
        view.expand(class) == format!("{EXTENSION_NS}Tool")
    }

    pub(super) fn items(ctx: &Ctx<'_>, at: usize) -> Vec<Completion> {
        let yaml = ctx.model.yaml();
        let view = ctx.model.view();
        let chain = chain(yaml, at);
        // The innermost flow mapping holding the cursor.
        let Some(j) = chain
            .iter()
            .rposition(|(_, n)| n.is_map() && n.is_flow() && n.span.start < at)
        else {
            return Vec::new();
        };
        let map = chain[j].1;
        let json = json_style(map)
            || yaml
                .root
                .as_ref()
                .is_some_and(|r| r.is_flow() && json_style(r));
        // The entry being written: from the last `{` or `,` before the cursor.
        let text = ctx.text;
        let sep = text[map.span.start..at]
            .rfind([',', '{'])
            .map_or(map.span.start, |i| map.span.start + i + 1);
        let segment = &text[sep..at];
        let lead = segment.len() - segment.trim_start().len();
        let word_start = sep + lead;
        let rest = &text[at..];
        let mut word_end = at
            + rest
                .find(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | ':')))
                .unwrap_or(rest.len());
        if json && text[word_end..].starts_with('"') {
            word_end += 1;
        }
        let q = |s: &str| {
            if json {
                format!("\"{s}\"")
            } else {
                s.to_string()
            }
        };
        let profile = ctx.settings.profile;
        let typed = segment.trim_start();
        // The cursor is in an item of a `hints` list.
        let hints_item = j >= 2
            && chain[j - 1].0 == Some("hints")
            && chain[j].0.is_none()
            && is_process(chain[j - 2].1);
        if let Some(i) = typed
            .find(':')
            .filter(|&i| typed[i + 1..].starts_with(' ') || typed[i + 1..].is_empty() && json)
        {
            // A value: `key: va|`.
            let key = typed[..i].trim().trim_matches('"');
            let value_start =
                word_start + i + 1 + (typed[i + 1..].len() - typed[i + 1..].trim_start().len());
            let span = value_start..word_end.max(value_start);
            if key == "class" && hints_item {
                if other_tool(ctx, view, chain[j - 1].1, at) {
                    return Vec::new();
                }
                let (prefix, additional) = prefix_and_binding(ctx, ctx.snapshot);
                let class = format!("{prefix}:Tool");
                return vec![class_item(
                    class.clone(),
                    q(&class),
                    span,
                    additional,
                    false,
                )];
            }
            let in_annotations =
                chain[j].0 == Some("annotations") && is_tool(ctx, &chain, j - 1, view);
            if !in_annotations {
                return Vec::new();
            }
            let Some(field) = fields::annotation_field(key).filter(|f| f.ty == FieldType::Boolean)
            else {
                return Vec::new();
            };
            let default = field.mcp_default.unwrap_or_default();
            return [default, !default]
                .into_iter()
                .map(|value| Completion {
                    label: value.to_string(),
                    kind: CompletionKind::Value,
                    detail: if value == default {
                        format!("MCP default: clients assume `{value}` when `{key}` is absent")
                    } else {
                        "boolean".to_string()
                    },
                    documentation: field_doc(field),
                    edit: Edit::new(span.clone(), value.to_string()),
                    snippet: false,
                    as_is: false,
                    additional_edits: Vec::new(),
                    sort_text: if value == default {
                        "0".into()
                    } else {
                        "1".into()
                    },
                    preselect: value == default,
                    filter_text: None,
                })
                .collect();
        }
        let span = word_start..word_end.max(word_start);
        let present: Vec<&str> = map
            .pairs()
            .unwrap_or(&[])
            .iter()
            .filter(|p| !(p.key.span.start <= at && at <= p.key.span.end))
            .filter_map(|p| p.key.scalar())
            .collect();
        // The hint class: a key of a flow `hints` mapping, or `class` of a flow `hints` item.
        let hints_map = j >= 1 && chain[j].0 == Some("hints") && is_process(chain[j - 1].1);
        if hints_map || hints_item && !present.contains(&"class") {
            if other_tool(ctx, view, chain[if hints_item { j - 1 } else { j }].1, at) {
                return Vec::new();
            }
            let (prefix, additional) = prefix_and_binding(ctx, ctx.snapshot);
            let class = format!("{prefix}:Tool");
            let (label, new_text) = if hints_item {
                (
                    format!("class: {class}"),
                    format!("{}: {}", q("class"), q(&class)),
                )
            } else {
                (class.clone(), format!("{}: {{$1}}", q(&class)))
            };
            let mut item = class_item(label, new_text, span, additional, false);
            item.snippet = !hints_item;
            item.filter_text = json.then(|| q(if hints_item { "class" } else { &class }));
            return vec![item];
        }
        let (table, record) = if is_tool(ctx, &chain, j, view) {
            (TOOL_FIELDS, "tool")
        } else if j >= 1 && chain[j].0 == Some("annotations") && is_tool(ctx, &chain, j - 1, view) {
            (ANNOTATION_FIELDS, "annotations")
        } else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for (i, field) in table.iter().enumerate() {
            if field.ty == FieldType::Class
                || field.need(profile) == Need::Rejected
                || present.contains(&field.key)
            {
                continue;
            }
            let value = match field.ty {
                FieldType::Boolean => bool_choice(field, 1),
                FieldType::StringList => "[$1]".to_string(),
                FieldType::Mapping => format!(
                    "{{{}}}",
                    fields::boolean_annotations()
                        .enumerate()
                        .map(|(k, a)| format!("{}: {}", q(a.key), bool_choice(a, k + 1)))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                _ if json => "\"$1\"".to_string(),
                _ => "$1".to_string(),
            };
            out.push(Completion {
                label: field.key.to_string(),
                kind: CompletionKind::Field,
                detail: field_detail(field, profile),
                documentation: field_doc(field),
                edit: Edit::new(span.clone(), format!("{}: {value}", q(field.key))),
                filter_text: json.then(|| q(field.key)),
                snippet: true,
                as_is: false,
                additional_edits: Vec::new(),
                sort_text: if record == "tool" {
                    format!("{}{i:02}", u8::from(field.need(profile) != Need::Required))
                } else {
                    format!("{i:02}")
                },
                preselect: false,
            });
        }
        out
    }
}
