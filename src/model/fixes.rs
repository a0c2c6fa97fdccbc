//! Quick fixes for the diagnostics of SPEC §5: each is a set of text edits attached to the
//! diagnostics it resolves, written in the document's indentation, line breaks and list/map
//! form. Computed once per model ([`Model::fixes`](super::Model::fixes)), from the model's
//! own tree and view: asking for fixes never re-runs the analysis.
use std::ops::Range;

use crate::base::settings::Settings;
use crate::base::{Code, Diagnostic, DocumentContext, Edit};
use crate::cwl::refs;
use crate::cwl::{CwlView, EXTENSION_NS, Entry, Process};
use crate::document::outline::Line;
use crate::document::yaml::{Kind, Node, Resolved, Style, YamlDoc};
use crate::hint::fields::{self, FieldType, Need, TOOL_FIELDS};
use crate::hint::recognize::{ClassMatch, classify};
use crate::hint::validate::{is_yaml11_bool, process_hints, yaml11_bool_value};
use crate::hint::{is_valid_name, normalize_name};

use super::Model;
use super::edits::{
    self, Value, col_of, content_end, line_end, line_start, newline, next_line_start, pair_end,
};

/// A quick fix.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fix {
    pub title: String,
    /// The diagnostics it resolves: code and span as the model reports them.
    pub diagnostics: Vec<(Code, Range<usize>)>,
    pub edits: Vec<Edit>,
    pub preferred: bool,
}

struct Ctx<'a, 's> {
    text: &'s str,
    yaml: &'a YamlDoc,
    view: &'s CwlView<'a>,
    settings: &'s Settings,
    context: &'s DocumentContext,
    unit: usize,
}

/// The quick fixes of every diagnostic of the model; fixes that make the same edits are one
/// fix (the first title), listed once with every diagnostic it resolves.
pub(super) fn fixes(model: &Model) -> Vec<Fix> {
    let text = model.text();
    let ctx = Ctx {
        text,
        yaml: model.yaml(),
        view: model.view(),
        settings: &model.settings,
        context: &model.context,
        unit: model.indent_unit(),
    };
    let mut out: Vec<Fix> = Vec::new();
    for d in model.diagnostics() {
        for mut fix in ctx.fixes(d) {
            fix.edits = merge_touching(fix.edits);
            if let Some(same) = out.iter_mut().find(|f| f.edits == fix.edits) {
                same.diagnostics.push((d.code, d.span.clone()));
            } else {
                fix.diagnostics = vec![(d.code, d.span.clone())];
                out.push(fix);
            }
        }
    }
    out
}

/// Joins edits where one ends exactly where the next starts (clients may refuse touching edits).
fn merge_touching(mut edits: Vec<Edit>) -> Vec<Edit> {
    edits.sort_by_key(|e| (e.span.start, e.span.end));
    let mut out: Vec<Edit> = Vec::new();
    for e in edits {
        if let Some(last) = out.last_mut()
            && last.span.end == e.span.start
        {
            last.span.end = e.span.end;
            last.new_text.push_str(&e.new_text);
            continue;
        }
        out.push(e);
    }
    out
}

/// Whether no two edits overlap.
fn disjoint(edits: &[Edit]) -> bool {
    !edits.iter().enumerate().any(|(i, a)| {
        edits[i + 1..]
            .iter()
            .any(|b| a.span.start < b.span.end && b.span.start < a.span.end)
    })
}

fn fix(title: impl Into<String>, edits: Vec<Edit>, preferred: bool) -> Fix {
    Fix {
        title: title.into(),
        diagnostics: Vec::new(),
        edits,
        preferred,
    }
}

/// A scalar written back in the style it was written in (quotes kept).
fn requote(node: &Node, new: &str) -> String {
    match &node.kind {
        Kind::Scalar {
            style: Style::DoubleQuoted,
            ..
        } => format!("\"{new}\""),
        Kind::Scalar {
            style: Style::SingleQuoted,
            ..
        } => format!("'{new}'"),
        _ => new.to_string(),
    }
}

fn truncate_name(name: String) -> String {
    name.chars().take(128).collect()
}

impl<'a, 's> Ctx<'a, 's> {
    fn fixes(&self, d: &Diagnostic) -> Vec<Fix> {
        match d.code {
            Code::NamespaceUnbound => self.bind_prefix(d),
            Code::NamespaceMismatch => self.correct_namespace(d),
            Code::HintBareClass => self.prefix_bare_class(d),
            Code::HintInRequirements => self.move_to_hints(d).into_iter().collect(),
            Code::HintOnStep => self.move_from_step(d).into_iter().collect(),
            Code::MissingField => self.add_missing(d).into_iter().collect(),
            Code::NameInvalid => self.normalize_invalid_name(d).into_iter().collect(),
            Code::AnnotationsClass => self.rename_annotations_class(d).into_iter().collect(),
            Code::AnnotationDefault => self.explicit_defaults(d).into_iter().collect(),
            Code::InvalidType => self.yaml11_boolean(d).into_iter().collect(),
            Code::AnnotationIgnored => self
                .set_annotation(
                    d,
                    false,
                    "a read-only tool is not destructive; MCP ignores the hint",
                )
                .into_iter()
                .collect(),
            Code::AnnotationInconsistent => self.annotation_as_declared(d).into_iter().collect(),
            Code::Cwl2mcpIncompatible => self.what_cwl2mcp_requires(d).into_iter().collect(),
            Code::NameClientCompat => self.client_compatible_name(d).into_iter().collect(),
            _ => Vec::new(),
        }
    }

    /// The process and hint entry whose class node is at `span`, in `hints` or `requirements`.
    fn entry_at(&self, span: &Range<usize>) -> Option<(&Process<'a>, &Entry<'a>, bool)> {
        for p in &self.view.processes {
            for (entries, in_hints) in [(&p.hints, true), (&p.requirements, false)] {
                if let Some(e) = entries
                    .iter()
                    .find(|e| e.class_node.is_some_and(|c| c.span == *span))
                {
                    return Some((p, e, in_hints));
                }
            }
        }
        None
    }

    fn bind_prefix(&self, d: &Diagnostic) -> Vec<Fix> {
        let Some((_, entry, _)) = self.entry_at(&d.span) else {
            return Vec::new();
        };
        let Some((prefix, _)) = entry.class.and_then(|c| c.split_once(':')) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        if let Some(edit) = edits::bind_namespace(self.text, self.view, prefix, self.unit) {
            out.push(fix(
                format!("Bind `{prefix}` to {EXTENSION_NS} in `$namespaces`"),
                vec![edit],
                true,
            ));
        }
        if let Some(bound) = self.view.extension_prefix() {
            let node = entry.class_node.expect("found by its class node");
            out.push(fix(
                format!("Use `{bound}:Tool` (`{bound}` is bound to the extension)"),
                vec![Edit::new(
                    d.span.clone(),
                    requote(node, &format!("{bound}:Tool")),
                )],
                false,
            ));
        }
        out
    }

    /// The one edit that corrects a near-miss binding, titled alike from the class and from
    /// the `$namespaces` value, so that one fix resolves both diagnostics.
    fn correct_binding(&self, prefix: &str) -> Option<Fix> {
        let ns = self.view.namespaces.iter().find(|n| n.prefix == prefix)?;
        Some(fix(
            format!("Correct `{prefix}` to {EXTENSION_NS} (was {})", ns.uri),
            vec![Edit::new(
                ns.pair.value.span.clone(),
                requote(&ns.pair.value, EXTENSION_NS),
            )],
            true,
        ))
    }

    fn correct_namespace(&self, d: &Diagnostic) -> Vec<Fix> {
        // On the `$namespaces` value.
        if let Some(ns) = self
            .view
            .namespaces
            .iter()
            .find(|n| n.pair.value.span == d.span)
        {
            return self.correct_binding(ns.prefix).into_iter().collect();
        }
        let Some((_, entry, _)) = self.entry_at(&d.span) else {
            return Vec::new();
        };
        let Some(class) = entry.class else {
            return Vec::new();
        };
        match classify(self.view, class) {
            ClassMatch::Mismatch {
                prefix: Some(prefix),
                ..
            } => self.correct_binding(&prefix).into_iter().collect(),
            ClassMatch::Mismatch {
                prefix: None, uri, ..
            } => {
                let node = entry.class_node.expect("found by its class node");
                let local = class.strip_prefix(uri.as_str()).unwrap_or("Tool");
                vec![fix(
                    format!("Correct the class to {EXTENSION_NS}{local}"),
                    vec![Edit::new(
                        d.span.clone(),
                        requote(node, &format!("{EXTENSION_NS}{local}")),
                    )],
                    true,
                )]
            }
            _ => Vec::new(),
        }
    }

    fn prefix_bare_class(&self, d: &Diagnostic) -> Vec<Fix> {
        let Some((_, entry, _)) = self.entry_at(&d.span) else {
            return Vec::new();
        };
        if entry.class != Some("Tool") {
            return Vec::new(); // a bare `ToolAnnotations` as a hint class has no sensible fix
        }
        let (prefix, needs_binding) = edits::extension_prefix(self.view.extension_prefix(), |p| {
            self.view.namespace(p).is_some()
        });
        let node = entry.class_node.expect("found by its class node");
        let mut edits = vec![Edit::new(
            d.span.clone(),
            requote(node, &format!("{prefix}:Tool")),
        )];
        if needs_binding {
            match edits::bind_namespace(self.text, self.view, &prefix, self.unit) {
                Some(e) => edits.push(e),
                None => return Vec::new(),
            }
        }
        vec![fix(
            format!("Write the class as `{prefix}:Tool`"),
            edits,
            true,
        )]
    }

    /// Renders the fields of `entry` (without a list form's `class`) as lines relative to the
    /// fields' column: the first line of each field starts at its key.
    fn field_blocks(&self, entry: &Entry<'_>) -> Vec<Vec<String>> {
        let text = self.text;
        entry
            .fields()
            .map(|pair| {
                let start = pair.key.span.start;
                let col = col_of(text, start);
                let end = line_end(text, pair_end(text, &pair.key, &pair.value));
                text[start..end]
                    .split('\n')
                    .map(|l| l.trim_end_matches('\r'))
                    .enumerate()
                    .map(|(i, l)| {
                        if i == 0 {
                            l.to_string()
                        } else {
                            let strip = l.len() - l.trim_start_matches(' ').len();
                            l[strip.min(col)..].to_string()
                        }
                    })
                    .collect()
            })
            .collect()
    }

    /// Renders an entry in list form (`- class: X`, dash at `dash`) or map form (`X:`, key at
    /// `col`), each line preceded by a line break.
    fn render_entry(&self, entry: &Entry<'_>, list: bool, col: usize) -> String {
        let nl = newline(self.text);
        let class = entry.class.unwrap_or("mcp:Tool");
        let blocks = self.field_blocks(entry);
        let (head, field_col) = if list {
            (format!("{nl}{}- class: {class}", " ".repeat(col)), col + 2)
        } else {
            (format!("{nl}{}{class}:", " ".repeat(col)), col + self.unit)
        };
        let mut out = head;
        for block in blocks {
            for line in block {
                if line.is_empty() {
                    out.push_str(nl);
                } else {
                    out.push_str(&format!("{nl}{}{line}", " ".repeat(field_col)));
                }
            }
        }
        out
    }

    /// Column of an entry: the dash of a list item, the key of a map entry.
    fn entry_col(&self, entry: &Entry<'_>) -> usize {
        let start = line_start(self.text, entry.span.start);
        let line = Line::parse(start, &self.text[start..line_end(self.text, start)]);
        if entry.map_form {
            line.content_col
        } else {
            line.item_dash().unwrap_or(line.content_col)
        }
    }

    fn move_to_hints(&self, d: &Diagnostic) -> Option<Fix> {
        let (process, entry, in_hints) = self.entry_at(&d.span)?;
        if in_hints {
            return None;
        }
        let text = self.text;
        let nl = newline(text);
        let req_pair = process.node.entry("requirements")?;
        let reqs = self.yaml.deref(&req_pair.value);
        if reqs.is_flow() || self.yaml.deref(entry.body).is_flow() {
            return None;
        }
        let req_col = col_of(text, req_pair.key.span.start);
        let entry_col = self.entry_col(entry);
        let entry_start = line_start(text, entry.span.start);
        let entry_end = next_line_start(text, content_end(text, entry.span.end));
        let only = process.requirements.len() == 1;
        let removal = if only {
            line_start(text, req_pair.key.span.start)
                ..next_line_start(text, content_end(text, reqs.span.end.max(entry.span.end)))
        } else {
            entry_start..entry_end
        };
        let hints_pair = process.node.entry("hints");
        let hints = hints_pair.map(|p| self.yaml.deref(&p.value));
        let mut edits = Vec::new();
        match hints.map(|h| &h.kind) {
            Some(Kind::Seq { .. } | Kind::Map { .. }) => {
                edits.push(self.append_hint(process, hints?, entry)?);
            }
            Some(Kind::Scalar { .. }) if hints?.resolve() == Some(Resolved::Null) => {
                let hints_pair = hints_pair?;
                let hints_col = col_of(text, hints_pair.key.span.start);
                let col = hints_col + entry_col.saturating_sub(req_col);
                let at = line_end(text, hints_pair.key.span.end);
                edits.push(Edit::insert(
                    at,
                    self.render_entry(entry, !entry.map_form, col),
                ));
            }
            None => {
                let block = format!(
                    "{}hints:{}{nl}",
                    " ".repeat(req_col),
                    self.render_entry(entry, !entry.map_form, entry_col)
                );
                let after_reqs = next_line_start(text, content_end(text, reqs.span.end));
                let block = if after_reqs == text.len() && !text.ends_with('\n') {
                    format!("{nl}{}", block.strip_suffix(nl).unwrap_or(&block))
                } else {
                    block
                };
                edits.push(Edit::insert(
                    if only { removal.end } else { after_reqs },
                    block,
                ));
            }
            _ => return None,
        }
        edits.push(Edit::new(removal, ""));
        // A class that would not be recognised in `hints` either is made to be: its prefix is
        // bound, or its near-miss namespace corrected, in the same fix.
        let mut title = "Move the MCP Tool hint to `hints`".to_string();
        match entry.class.map(|c| classify(self.view, c)) {
            Some(ClassMatch::Unbound { prefix }) => {
                edits.push(edits::bind_namespace(text, self.view, &prefix, self.unit)?);
                title.push_str(&format!(" and bind `{prefix}`"));
            }
            Some(ClassMatch::Mismatch {
                prefix: Some(prefix),
                ..
            }) => {
                let ns = self.view.namespaces.iter().find(|n| n.prefix == prefix)?;
                edits.push(Edit::new(
                    ns.pair.value.span.clone(),
                    requote(&ns.pair.value, EXTENSION_NS),
                ));
                title.push_str(&format!(" and correct `{prefix}`"));
            }
            _ => {}
        }
        disjoint(&edits).then(|| fix(title, edits, true))
    }

    /// The edit appending `entry` to `hints`, the non-empty block list or map of `process`'s
    /// `hints`, in that form (a list-form entry becomes a map-form entry and back), at the
    /// column of its entries. `None` for any other shape (flow, empty).
    fn append_hint(&self, process: &Process<'a>, hints: &Node, entry: &Entry<'_>) -> Option<Edit> {
        let text = self.text;
        let nl = newline(text);
        let (list, col) = match &hints.kind {
            Kind::Seq { items, flow: false } if !items.is_empty() => {
                let first = Entry {
                    map_form: false,
                    ..process.hints.first()?.clone()
                };
                (true, self.entry_col(&first))
            }
            Kind::Map { pairs, flow: false } if !pairs.is_empty() => {
                (false, col_of(text, pairs[0].key.span.start))
            }
            _ => return None,
        };
        let at = next_line_start(text, content_end(text, hints.span.end));
        let rendered = self.render_entry(entry, list, col);
        if at == text.len() && !text.ends_with('\n') {
            return Some(Edit::insert(at, rendered));
        }
        // Inserted at the start of a line: it ends with a line break instead of starting with
        // one.
        let body = rendered.strip_prefix(nl).unwrap_or(&rendered);
        Some(Edit::insert(at, format!("{body}{nl}")))
    }

    /// `hint-on-step`: the hint moved from the step's `hints` into the process the step runs,
    /// when that process is written in this document — an inline `run:` mapping, or a
    /// `run: '#id'` of this document's `$graph` — and has no MCP Tool hint of its own (it
    /// would be a `hint-duplicate`). The step's `hints` loses the entry (the whole key when it
    /// held only this one); the process's `hints` gets it in its form, or is created in the
    /// entry's form after the process's `class`. The class is copied as written: CWL allows
    /// `$namespaces` only at the document's root, so its prefix is bound wherever it goes in
    /// the same document. A `run:` file gets no fix (a fix edits only this document).
    fn move_from_step(&self, d: &Diagnostic) -> Option<Fix> {
        let text = self.text;
        let nl = newline(text);
        let steps = refs::steps(self.yaml, self.view);
        let (step, entry) = steps.iter().find_map(|s| {
            s.hints
                .iter()
                .find(|h| h.class_node.map_or(&h.span, |n| &n.span) == &d.span)
                .map(|h| (s, h))
        })?;
        let run = self.yaml.deref(step.run?);
        let (target, title) = if run.is_map() {
            let p = self
                .view
                .processes
                .iter()
                .find(|p| p.inline && p.node.span == run.span)?;
            (
                p,
                "Move the MCP Tool hint into the step's `run:` process".to_string(),
            )
        } else {
            let fragment = run.scalar()?.strip_prefix('#')?;
            let p = super::links::process_with_id(self.view, fragment)?;
            // Not the workflow that holds the step.
            if p.node.span.start <= step.node.span.start && step.node.span.end <= p.node.span.end {
                return None;
            }
            (
                p,
                format!("Move the MCP Tool hint into `#{fragment}`, the process the step runs"),
            )
        };
        if self.hint_of(target).is_some() || target.node.is_flow() {
            return None;
        }
        let step_hints_pair = step.node.entry("hints")?;
        let step_hints = self.yaml.deref(&step_hints_pair.value);
        if step_hints.is_flow() || self.yaml.deref(entry.body).is_flow() {
            return None;
        }
        // What is removed starts its line (after the indentation, and a list item's `-`).
        let only = step.hints.len() == 1;
        let first = if only {
            step_hints_pair.key.span.start
        } else {
            entry.span.start
        };
        let before = text[line_start(text, first)..first].trim_start_matches(' ');
        let starts_line = match before {
            "" => true,
            _ => !only && !entry.map_form && before.trim_end() == "-",
        };
        if !starts_line {
            return None;
        }
        let last = if only {
            step_hints.span.end.max(entry.span.end)
        } else {
            entry.span.end
        };
        let removal = line_start(text, first)..next_line_start(text, content_end(text, last));
        // Where the entry stood relative to the step's `hints` key, it stands relative to
        // the process's (a new `hints`).
        let depth = self
            .entry_col(entry)
            .saturating_sub(col_of(text, step_hints_pair.key.span.start));
        let hints_pair = target.node.entry("hints");
        let hints = hints_pair.map(|p| self.yaml.deref(&p.value));
        let insert = match hints.map(|h| &h.kind) {
            Some(Kind::Seq { .. } | Kind::Map { .. }) => self.append_hint(target, hints?, entry)?,
            Some(Kind::Scalar { .. }) if hints?.resolve() == Some(Resolved::Null) => {
                let key = &hints_pair?.key;
                Edit::insert(
                    line_end(text, key.span.end),
                    self.render_entry(entry, !entry.map_form, col_of(text, key.span.start) + depth),
                )
            }
            None => {
                let col = col_of(text, target.class_pair.key.span.start);
                let class_end = pair_end(text, &target.class_pair.key, &target.class_pair.value);
                Edit::insert(
                    line_end(text, class_end),
                    format!(
                        "{nl}{}hints:{}",
                        " ".repeat(col),
                        self.render_entry(entry, !entry.map_form, col + depth)
                    ),
                )
            }
            _ => return None,
        };
        let edits = vec![insert, Edit::new(removal, "")];
        disjoint(&edits).then(|| fix(title, edits, true))
    }

    fn hint_of(&self, process: &Process<'a>) -> Option<Entry<'a>> {
        process_hints(self.view, process).hint.cloned()
    }

    /// The value written for a field added by a fix.
    fn placeholder(&self, key: &str, process: &Process<'_>) -> Option<Value> {
        Some(match key {
            "name" => Value::Scalar(self.fallback_name(process)?),
            "aliases" => Value::Scalar("[]".into()),
            "annotations" => Value::Map(
                fields::boolean_annotations()
                    .map(|f| {
                        (
                            f.key.to_string(),
                            f.mcp_default.unwrap_or_default().to_string(),
                        )
                    })
                    .collect(),
            ),
            _ => Value::Scalar("\"\"".into()),
        })
    }

    /// A valid MCP name for a process: its normalized id (or step path, or file name).
    fn fallback_name(&self, process: &Process<'_>) -> Option<String> {
        let base = process
            .id
            .map(str::to_string)
            .or_else(|| process.key.clone())
            .unwrap_or_else(|| self.context.file_stem.clone());
        let name = truncate_name(normalize_name(&base));
        is_valid_name(&name).ok().map(|_| name)
    }

    /// The `annotations` pair of the hint of a process whose key is at `span`.
    fn annotations_at(
        &self,
        span: &Range<usize>,
    ) -> Option<(&Process<'a>, Entry<'a>, &'a crate::document::yaml::Pair)> {
        for p in &self.view.processes {
            let Some(hint) = self.hint_of(p) else {
                continue;
            };
            let body: &'a Node = hint.body;
            if let Some(pair) = body
                .pairs()
                .unwrap_or(&[])
                .iter()
                .find(|f| f.key.scalar() == Some("annotations") && f.key.span == *span)
            {
                return Some((p, hint, pair));
            }
        }
        None
    }

    fn owner_at(entry: &Entry<'_>) -> usize {
        entry.class_node.map_or(entry.span.start, |c| c.span.start)
    }

    fn add_missing(&self, d: &Diagnostic) -> Option<Fix> {
        let profile = self.settings.profile;
        if let Some((process, entry, true)) = self.entry_at(&d.span) {
            let present: Vec<&str> = entry.fields().filter_map(|p| p.key.scalar()).collect();
            let mut fields = Vec::new();
            for f in TOOL_FIELDS {
                if f.ty == FieldType::Class
                    || f.need(profile) != Need::Required
                    || present.contains(&f.key)
                {
                    continue;
                }
                fields.push((f.key.to_string(), self.placeholder(f.key, process)?));
            }
            if fields.is_empty() {
                return None;
            }
            let body = self.yaml.deref(entry.body);
            let edit =
                edits::insert_fields(self.text, body, Self::owner_at(entry), &fields, self.unit)?;
            let names: Vec<&str> = fields.iter().map(|(k, _)| k.as_str()).collect();
            return Some(fix(
                format!("Add the required fields: {}", names.join(", ")),
                vec![edit],
                true,
            ));
        }
        let (_, _, pair) = self.annotations_at(&d.span)?;
        self.fill_annotations(pair, "Add the required annotations")
    }

    /// The annotation whose value is at `span` (a boolean written in a recognised hint's
    /// `annotations`): its key and value nodes.
    fn annotation_value_at(&self, span: &Range<usize>) -> Option<(&'a str, &'a Node)> {
        for p in &self.view.processes {
            let Some(hint) = self.hint_of(p) else {
                continue;
            };
            let Some(pair) = hint
                .fields()
                .find(|f| f.key.scalar() == Some("annotations"))
            else {
                continue;
            };
            let annotations = self.yaml.deref(&pair.value);
            for a in annotations.pairs().unwrap_or(&[]) {
                let value = self.yaml.deref(&a.value);
                if value.span == *span {
                    return Some((a.key.scalar()?, value));
                }
            }
        }
        None
    }

    /// Writes `value` for the annotation at the diagnostic (`annotation-ignored`: `false`).
    fn set_annotation(&self, d: &Diagnostic, value: bool, why: &str) -> Option<Fix> {
        let (key, node) = self.annotation_value_at(&d.span)?;
        Some(fix(
            format!("Set `{key}: {value}` ({why})"),
            vec![Edit::new(node.span.clone(), value.to_string())],
            true,
        ))
    }

    /// `annotation-inconsistent`: the annotation changed to what the process declares
    /// (`openWorldHint: true` with network access; `readOnlyHint: false` when it writes).
    fn annotation_as_declared(&self, d: &Diagnostic) -> Option<Fix> {
        let (key, _) = self.annotation_value_at(&d.span)?;
        match key {
            "openWorldHint" => self.set_annotation(d, true, "the process declares network access"),
            "readOnlyHint" => self.set_annotation(d, false, "the process writes files"),
            _ => None,
        }
    }

    /// `cwl2mcp-incompatible` (under `extension`): what cwl2mcp 0.1.0 requires — the hint's
    /// fields it requires, all four annotations, or `Annotations` for `ToolAnnotations`.
    fn what_cwl2mcp_requires(&self, d: &Diagnostic) -> Option<Fix> {
        const TITLE: &str = "Add what cwl2mcp requires";
        if let Some((process, entry, true)) = self.entry_at(&d.span) {
            let present: Vec<&str> = entry.fields().filter_map(|p| p.key.scalar()).collect();
            let mut fields = Vec::new();
            for f in TOOL_FIELDS {
                if f.ty == FieldType::Class
                    || f.need(crate::base::Profile::Cwl2mcp) != Need::Required
                    || present.contains(&f.key)
                {
                    continue;
                }
                fields.push((f.key.to_string(), self.placeholder(f.key, process)?));
            }
            if fields.is_empty() {
                return None;
            }
            let body = self.yaml.deref(entry.body);
            let edit =
                edits::insert_fields(self.text, body, Self::owner_at(entry), &fields, self.unit)?;
            let names: Vec<&str> = fields.iter().map(|(k, _)| k.as_str()).collect();
            return Some(fix(
                format!("{TITLE}: {}", names.join(", ")),
                vec![edit],
                false,
            ));
        }
        if let Some((_, _, pair)) = self.annotations_at(&d.span) {
            return self.fill_annotations(pair, TITLE);
        }
        let mut renamed = self.rename_annotations_class(d)?;
        renamed.preferred = false;
        Some(renamed)
    }

    /// Writes every boolean annotation missing from the `annotations` of `pair`, with its MCP
    /// default.
    fn fill_annotations(&self, pair: &crate::document::yaml::Pair, title: &str) -> Option<Fix> {
        let value = self.yaml.deref(&pair.value);
        let present: Vec<&str> = value
            .pairs()
            .unwrap_or(&[])
            .iter()
            .filter_map(|p| p.key.scalar())
            .collect();
        let read_only = value
            .get("readOnlyHint")
            .is_some_and(|v| self.yaml.deref(v).resolve() == Some(Resolved::Bool(true)));
        let fields: Vec<(String, Value)> = fields::boolean_annotations()
            .filter(|f| !present.contains(&f.key))
            .map(|f| {
                (
                    f.key.to_string(),
                    Value::Scalar(fields::suggested_value(f, read_only).to_string()),
                )
            })
            .collect();
        if fields.is_empty() {
            return None;
        }
        let edit = edits::insert_fields(self.text, value, pair.key.span.start, &fields, self.unit)?;
        Some(fix(
            format!(
                "{title}: {}",
                fields
                    .iter()
                    .map(|(k, _)| k.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            vec![edit],
            true,
        ))
    }

    fn explicit_defaults(&self, d: &Diagnostic) -> Option<Fix> {
        const TITLE: &str = "Make the MCP defaults explicit";
        if let Some((_, _, pair)) = self.annotations_at(&d.span) {
            return self.fill_annotations(pair, TITLE);
        }
        // No `annotations` at all: the diagnostic sits on the hint class.
        let (process, entry, true) = self.entry_at(&d.span)? else {
            return None;
        };
        let fields = vec![(
            "annotations".to_string(),
            self.placeholder("annotations", process)?,
        )];
        let body = self.yaml.deref(entry.body);
        let edit =
            edits::insert_fields(self.text, body, Self::owner_at(entry), &fields, self.unit)?;
        Some(fix(
            format!(
                "{TITLE}: {}",
                fields::boolean_annotations()
                    .map(|f| f.key)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            vec![edit],
            true,
        ))
    }

    fn normalize_invalid_name(&self, d: &Diagnostic) -> Option<Fix> {
        for process in &self.view.processes {
            // cwl2mcp 0.1.0 cannot load a document whose process id is a URI, whatever the
            // hint says: the fix is a plain id (its local part).
            if let (Some(id), Some(id_node)) = (process.id, process.id_node)
                && id_node.span == d.span
                && id.contains("://")
                && self.settings.profile == crate::base::Profile::Cwl2mcp
            {
                let local = id.rsplit(['#', '/']).next().filter(|l| !l.is_empty())?;
                return Some(fix(
                    format!("Use the plain id `{local}` (cwl2mcp cannot load a URI id)"),
                    vec![Edit::new(
                        id_node.span.clone(),
                        requote(self.yaml.deref(id_node), local),
                    )],
                    true,
                ));
            }
            let hint = self.hint_of(process);
            let name_pair = hint
                .as_ref()
                .and_then(|h| h.fields().find(|p| p.key.scalar() == Some("name")));
            if let Some(pair) = name_pair {
                let value = self.yaml.deref(&pair.value);
                if value.span == d.span {
                    let written = value.scalar()?;
                    let name = truncate_name(normalize_name(written));
                    is_valid_name(&name).ok()?;
                    return Some(fix(
                        format!("Replace the name with `{name}`"),
                        vec![Edit::new(d.span.clone(), requote(value, &name))],
                        true,
                    ));
                }
                continue;
            }
            // The fallback name is invalid: give the hint an explicit valid name. The
            // diagnostic is on the id, or (no id) on the hint's class or the process's `class`.
            let on_process = [
                process.id_node.map(|n| n.span.clone()),
                hint.as_ref()
                    .and_then(|h| h.class_node.map(|n| n.span.clone())),
                Some(process.class_pair.key.span.clone()),
            ];
            if !on_process.contains(&Some(d.span.clone())) {
                continue;
            }
            let hint = hint?;
            let name = self.fallback_name(process)?;
            return self.name_in_hint(&hint, name);
        }
        None
    }

    /// "Name the MCP tool `NAME` in the hint": a `name` field written into `hint` (whose name
    /// is a fallback), for `name-invalid` and `name-client-compat` alike.
    fn name_in_hint(&self, hint: &Entry<'a>, name: String) -> Option<Fix> {
        let body = self.yaml.deref(hint.body);
        let edit = edits::insert_fields(
            self.text,
            body,
            Self::owner_at(hint),
            &[("name".to_string(), Value::Scalar(name.clone()))],
            self.unit,
        )?;
        Some(fix(
            format!("Name the MCP tool `{name}` in the hint"),
            vec![edit],
            true,
        ))
    }

    /// A name that function-calling APIs accept (`^[a-zA-Z0-9_-]{1,64}$`): the hint's `name`
    /// rewritten, or (a fallback name) written into the hint.
    fn client_compatible_name(&self, d: &Diagnostic) -> Option<Fix> {
        use super::clients::{client_compatible, client_name};
        for process in &self.view.processes {
            let Some(hint) = self.hint_of(process) else {
                continue;
            };
            if let Some(pair) = hint.fields().find(|p| p.key.scalar() == Some("name")) {
                let value = self.yaml.deref(&pair.value);
                if value.span == d.span {
                    let name = client_name(value.scalar()?);
                    client_compatible(&name).then_some(())?;
                    return Some(fix(
                        format!("Rename the MCP tool to `{name}`"),
                        vec![Edit::new(d.span.clone(), requote(value, &name))],
                        true,
                    ));
                }
                continue;
            }
            if hint.class_node.map(|n| &n.span) != Some(&d.span) {
                continue;
            }
            let name = client_name(&self.fallback_name(process)?);
            client_compatible(&name).then_some(())?;
            return self.name_in_hint(&hint, name);
        }
        None
    }

    fn rename_annotations_class(&self, d: &Diagnostic) -> Option<Fix> {
        for process in &self.view.processes {
            let Some(hint) = self.hint_of(process) else {
                continue;
            };
            let Some(pair) = hint
                .fields()
                .find(|p| p.key.scalar() == Some("annotations"))
            else {
                continue;
            };
            let annotations = self.yaml.deref(&pair.value);
            let Some(class) = annotations.get("class").map(|c| self.yaml.deref(c)) else {
                continue;
            };
            if class.span != d.span {
                continue;
            }
            let written = class.scalar()?;
            // `Annotations` is accepted by both profiles (the extension profile also accepts
            // `ToolAnnotations`, which cwl2mcp 0.1.0 rejects): the one name valid everywhere.
            let target = "Annotations";
            let new = match written.split_once(':') {
                Some((p, _))
                    if !written.starts_with(EXTENSION_NS)
                        && self.view.extension_local(written).is_some() =>
                {
                    format!("{p}:{target}")
                }
                _ => target.to_string(),
            };
            return Some(fix(
                format!("Rename the class to `{new}`"),
                vec![Edit::new(d.span.clone(), requote(class, &new))],
                true,
            ));
        }
        None
    }

    fn yaml11_boolean(&self, d: &Diagnostic) -> Option<Fix> {
        for process in &self.view.processes {
            let Some(hint) = self.hint_of(process) else {
                continue;
            };
            let Some(pair) = hint
                .fields()
                .find(|p| p.key.scalar() == Some("annotations"))
            else {
                continue;
            };
            for a in self.yaml.deref(&pair.value).pairs().unwrap_or(&[]).iter() {
                let value = self.yaml.deref(&a.value);
                let is_bool_field = a
                    .key
                    .scalar()
                    .and_then(fields::annotation_field)
                    .is_some_and(|f| f.ty == FieldType::Boolean);
                if value.span != d.span || !is_bool_field {
                    continue;
                }
                let written = value.scalar()?;
                if !is_yaml11_bool(written) {
                    return None;
                }
                let new = yaml11_bool_value(written);
                return Some(fix(
                    format!("Write `{new}` (`{written}` is a string in YAML 1.2)"),
                    vec![Edit::new(d.span.clone(), new)],
                    true,
                ));
            }
        }
        None
    }
}

#[cfg(test)]
#[path = "fixes_tests.rs"]
mod fixture_tests;
