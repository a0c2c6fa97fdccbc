//! The flow engine: completion inside flow collections and JSON, read from the model's YAML
//! tree: the chain of nodes holding the cursor says where it is (indentation says nothing there).
use super::*;
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
        Kind::Seq { items, .. } => items
            .iter()
            .any(|i| !here(&i.span) && i.get("class").and_then(|c| c.scalar()).is_some_and(tool)),
        _ => false,
    }
}

fn is_process(node: &Node) -> bool {
    node.get("class")
        .and_then(|c| c.scalar())
        .is_some_and(|c| crate::cwl::PROCESS_CLASSES.contains(&c))
}

fn view_is_tool(view: &CwlView<'_>, class: &str) -> bool {
    view.extension_local(class) == Some("Tool")
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
                false,
            )];
        }
        let in_annotations = chain[j].0 == Some("annotations") && is_tool(ctx, &chain, j - 1, view);
        if !in_annotations {
            return Vec::new();
        }
        let Some(field) = fields::annotation_field(key).filter(|f| f.ty == FieldType::Boolean)
        else {
            return Vec::new();
        };
        return boolean_values(field, read_only(ctx, chain[j].1), span);
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
        let mut item = class_item(label, new_text, span, additional, false, !hints_item);
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
            FieldType::Boolean => bool_choice(field, 1, read_only(ctx, chain[j].1)),
            FieldType::StringList => "[$1]".to_string(),
            FieldType::Mapping => format!(
                "{{{}}}",
                fields::boolean_annotations()
                    .enumerate()
                    .map(|(k, a)| format!("{}: {}", q(a.key), bool_choice(a, k + 1, false)))
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

/// Whether the flow mapping `map` (an `annotations` record) says `readOnlyHint: true`.
fn read_only(ctx: &Ctx<'_>, map: &Node) -> bool {
    let yaml = ctx.model.yaml();
    map.get("readOnlyHint").is_some_and(|v| {
        matches!(
            yaml.deref(v).resolve(),
            Some(crate::document::yaml::Resolved::Bool(true))
        )
    })
}
