//! The block engine: where the cursor is comes from the lines' indentation (`outline`), which
//! survives the broken YAML of a half-typed key.
use super::*;

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

/// The items at `at` when the cursor is in block YAML, read from the lines' indentation.
pub(super) fn items(ctx: &Ctx<'_>, at: usize) -> Vec<Completion> {
    let snapshot = ctx.snapshot;
    let li = outline::line_of(ctx.lines, at);
    let line = &ctx.lines[li];
    let col = (at - line.start).min(line.text.len());
    let before = &line.text[..col];
    let Some(cursor) = read_cursor(before) else {
        return Vec::new();
    };
    let word_end = word_end(line.text, col) + line.start;
    match cursor {
        Cursor::Key { col, starts_item } => {
            let mapping = outline::mapping_at(ctx.lines, li, col, starts_item);
            let span = line.start + col..word_end;
            // Typing over an existing key (`na|me: x`): replace the key only.
            let key_only = line.text[word_end - line.start..].starts_with(':');
            key_items(ctx, snapshot, &mapping, li, span, key_only)
        }
        Cursor::Value {
            key,
            col,
            starts_item,
            value_start,
        } => {
            let mapping = outline::mapping_at(ctx.lines, li, col, starts_item);
            let span = line.start + value_start..word_end.max(line.start + value_start);
            value_items(ctx, snapshot, &mapping, key, span)
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

/// The mapping a path segment leads into.
fn mapping_of(ctx: &Ctx<'_>, seg: &Seg) -> Mapping {
    match seg {
        Seg::Item { line, .. } => {
            outline::mapping_at(ctx.lines, *line, ctx.lines[*line].content_col, true)
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
                    outline::mapping_at(ctx.lines, i, l.content_col, l.item_dash().is_some())
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
            .keys(ctx.lines)
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
    outline::mapping_at(ctx.lines, *line, *col, starts_item)
        .value_of(ctx.lines, "class")
        .is_some_and(|c| crate::cwl::PROCESS_CLASSES.contains(&unquote(c)))
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
        .keys(ctx.lines)
        .into_iter()
        .filter(|(_, i)| *i != cursor_line)
        .map(|(k, _)| k)
        .collect()
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
        // A snippet ending in `$0` on the body's line: clients that insert a plain-text item
        // as one word (Neovim) would drop the line break; the snippet keeps it, and the
        // cursor lands where the first field goes. Plain text for clients without snippets.
        let new_text = if key_only {
            class.clone()
        } else {
            format!("{class}:{nl}{}$0", " ".repeat(mapping.col + ctx.unit()))
        };
        let mut item = class_item(class, new_text, span, additional, !key_only, true);
        item.snippet = !key_only;
        out.push(item);
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
                false,
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
                        let pad = " ".repeat(mapping.col + ctx.unit());
                        let mut s = format!("{}:", field.key);
                        for (j, a) in fields::boolean_annotations().enumerate() {
                            s.push_str(&format!(
                                "{nl}{pad}{}: {}",
                                a.key,
                                bool_choice(a, j + 1, false)
                            ));
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
                let read_only = read_only_in(ctx.lines, mapping);
                (
                    format!("{}: {}", field.key, bool_choice(field, 1, read_only)),
                    true,
                )
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
    let cursor_line = outline::line_of(ctx.lines, span.start);
    let mut out = Vec::new();
    if key == "class" && n >= 2 && path[n - 2].key() == Some("hints") {
        if !in_process(ctx, &path[n - 2]) {
            return out;
        }
        if matches!(path[n - 1], Seg::Item { .. }) && !has_tool_hint(ctx, &path[n - 2], cursor_line)
        {
            let (prefix, additional) = prefix_and_binding(ctx, snapshot);
            let class = format!("{prefix}:Tool");
            out.push(class_item(
                class.clone(),
                class,
                span,
                additional,
                false,
                false,
            ));
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
    // The value offered first is the one the quick fix would write (consistent with
    // `readOnlyHint`), so accepting it never raises `annotation-ignored`.
    out.extend(boolean_values(
        field,
        read_only_in(ctx.lines, mapping),
        span,
    ));
    out
}
