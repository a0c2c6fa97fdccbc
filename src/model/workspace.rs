//! Cross-document rules over the Tools a set of documents serves (SPEC §5, §10):
//! `tool-name-duplicate` and a schema `$id` shared by two Tools (`mcp-client-interop`) across
//! documents. The server (over its documents) and `check DIR` call [`across`]; `tools-list DIR`
//! reads [`duplicates_across`] (the names it cannot serve).
use std::ops::Range;

use crate::base::{Code, Diagnostic, Related, Severity};

/// One served Tool name of one document: where it is declared.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServedName {
    pub name: String,
    pub anchor: Range<usize>,
    /// 0-based line of the anchor (for `relatedInformation` in other documents).
    pub line: u32,
    /// The `$id`s of the Tool's schemas, each with where its CWL section is written.
    pub schema_ids: Vec<SchemaId>,
    /// The document's profile (the severity of `mcp-client-interop`).
    pub profile: crate::base::Profile,
}

/// The `$id` of one schema of a served Tool.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SchemaId {
    /// `inputSchema` or `outputSchema`.
    pub schema: &'static str,
    pub id: String,
    /// The process's `inputs` / `outputs` key (else the anchor).
    pub span: Range<usize>,
    pub line: u32,
}

/// Which names of a model take part.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// The names of the Tools that get diagnostics (`check`, the editor): a document without
    /// hints under `extension` takes no part, so that it gets no diagnostics (SPEC §5).
    Diagnosed,
    /// Every served Tool (`tools-list`: what one MCP server would list).
    Served,
}

/// The names of a model's Tools in `scope`, in document order.
pub fn served_names(model: &super::Model, scope: Scope) -> Vec<ServedName> {
    let entries = match scope {
        Scope::Diagnosed => model.diagnosed(),
        Scope::Served => model.served(),
    };
    let served: Vec<usize> = model.served().iter().map(|e| e.process_index).collect();
    entries
        .into_iter()
        .filter(|e| served.contains(&e.process_index))
        .filter_map(|e| {
            let process = &model.view().processes[e.process_index];
            let ids = if e.has_tool() && !e.is_refused() {
                e.schema_ids()
            } else {
                Vec::new()
            };
            let schema_ids = ids
                .into_iter()
                .map(|(schema, id)| {
                    let section = if schema == "inputSchema" {
                        "inputs"
                    } else {
                        "outputs"
                    };
                    let (span, _) =
                        super::clients::param_place(model, process, section, None, &e.anchor);
                    SchemaId {
                        schema,
                        id,
                        line: model.line_of(span.start),
                        span,
                    }
                })
                .collect();
            Some(ServedName {
                name: e.name()?.to_string(),
                anchor: e.anchor.clone(),
                line: model.line_of(e.anchor.start),
                schema_ids,
                profile: model.settings.profile,
            })
        })
        .collect()
}

/// Every cross-document diagnostic of document `this`: [`duplicates_across`] and
/// [`shared_ids_across`].
pub fn across(this: usize, documents: &[(String, Vec<ServedName>)]) -> Vec<Diagnostic> {
    let mut out = duplicates_across(this, documents);
    out.extend(shared_ids_across(this, documents));
    out
}

/// `mcp-client-interop` on each schema `$id` of document `this` that a Tool of another document
/// of the set has too (within one document: the model's own diagnostics).
pub fn shared_ids_across(this: usize, documents: &[(String, Vec<ServedName>)]) -> Vec<Diagnostic> {
    let Some((_, mine)) = documents.get(this) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for served in mine {
        for sid in &served.schema_ids {
            let others: Vec<(&String, &ServedName, &SchemaId)> = documents
                .iter()
                .enumerate()
                .filter(|(i, _)| *i != this)
                .flat_map(|(_, (doc, names))| {
                    names.iter().flat_map(move |n| {
                        n.schema_ids
                            .iter()
                            .filter(|o| o.id == sid.id)
                            .map(move |o| (doc, n, o))
                    })
                })
                .collect();
            if others.is_empty() {
                continue;
            }
            let mut files: Vec<&str> = others
                .iter()
                .map(|(doc, _, _)| doc.rsplit('/').next().unwrap_or(doc))
                .collect();
            files.sort_unstable();
            files.dedup();
            let shown = files
                .iter()
                .take(3)
                .map(|f| format!("`{f}`"))
                .collect::<Vec<_>>()
                .join(", ");
            let more = match files.len() {
                n if n > 3 => format!(" and {} more documents", n - 3),
                _ => String::new(),
            };
            let mut d = Diagnostic::new(
                sid.span.clone(),
                Code::McpClientInterop.severity(served.profile),
                Code::McpClientInterop,
                super::clients::shared_id_message(
                    sid.schema,
                    &sid.id,
                    &format!("the Tool `{}` of {shown}{more}", others[0].1.name),
                ),
            );
            d.related = others
                .iter()
                .take(20)
                .map(|(doc, n, o)| Related {
                    uri: Some((*doc).clone()),
                    span: o.span.clone(),
                    line: Some(o.line),
                    message: format!("the `{}` of `{}` has the same `$id`", o.schema, n.name),
                })
                .collect();
            out.push(d);
        }
    }
    out
}

/// The `tool-name-duplicate` diagnostics of document `this` (an index into `documents`), for
/// names that another document of the set also serves. `documents`: (display name or URI,
/// served names). Duplicates within one document are the model's own diagnostics.
pub fn duplicates_across(this: usize, documents: &[(String, Vec<ServedName>)]) -> Vec<Diagnostic> {
    let Some((_, mine)) = documents.get(this) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for served in mine {
        let others: Vec<(&String, &ServedName)> = documents
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != this)
            .flat_map(|(_, (doc, names))| {
                names
                    .iter()
                    .filter(|n| n.name == served.name)
                    .map(move |n| (doc, n))
            })
            .collect();
        if others.is_empty() {
            continue;
        }
        // Named by file name, sorted: the same words whatever order the documents came in.
        let mut files: Vec<&str> = others
            .iter()
            .map(|(doc, _)| doc.rsplit('/').next().unwrap_or(doc))
            .collect();
        files.sort_unstable();
        files.dedup();
        let listed = files
            .iter()
            .map(|f| format!("`{f}`"))
            .collect::<Vec<_>>()
            .join(", ");
        let mut d = Diagnostic::new(
            served.anchor.clone(),
            Severity::Warning,
            Code::ToolNameDuplicate,
            format!(
                "the MCP tool name `{}` is also derived by {listed}; names must be unique \
                 within a server",
                served.name
            ),
        );
        d.related = others
            .iter()
            .map(|(doc, n)| Related {
                uri: Some((*doc).clone()),
                span: n.anchor.clone(),
                line: Some(n.line),
                message: format!("`{}` is also derived here", n.name),
            })
            .collect();
        out.push(d);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(n: &str, line: u32) -> ServedName {
        ServedName {
            name: n.into(),
            anchor: 0..1,
            line,
            schema_ids: Vec::new(),
            profile: crate::base::Profile::Extension,
        }
    }

    #[test]
    fn a_name_served_twice_is_reported_in_each_document_with_the_other_place() {
        let docs = vec![
            (
                "file:///w/a.cwl".to_string(),
                vec![name("echo", 3), name("solo", 9)],
            ),
            ("file:///w/b.cwl".to_string(), vec![name("echo", 7)]),
        ];
        let a = duplicates_across(0, &docs);
        assert_eq!(a.len(), 1);
        assert!(a[0].message.contains("`b.cwl`"), "{}", a[0].message);
        assert_eq!(a[0].related[0].uri.as_deref(), Some("file:///w/b.cwl"));
        assert_eq!(a[0].related[0].line, Some(7));
        let b = duplicates_across(1, &docs);
        assert_eq!(b.len(), 1);
        assert_eq!(b[0].related[0].line, Some(3));
        assert!(duplicates_across(2, &docs).is_empty());
    }

    #[test]
    fn a_shared_schema_id_is_a_warning_under_extension_and_information_under_cwl2mcp() {
        use crate::base::{Profile, Severity};
        let with_id = |n: &str, profile| ServedName {
            schema_ids: vec![SchemaId {
                schema: "outputSchema",
                id: "https://example.org/out.json".into(),
                span: 5..12,
                line: 2,
            }],
            profile,
            ..name(n, 1)
        };
        for (profile, severity) in [
            (Profile::Extension, Severity::Warning),
            (Profile::Cwl2mcp, Severity::Information),
        ] {
            let docs = vec![
                ("file:///w/a.cwl".to_string(), vec![with_id("a", profile)]),
                ("file:///w/b.cwl".to_string(), vec![with_id("b", profile)]),
                ("file:///w/c.cwl".to_string(), vec![name("c", 1)]),
            ];
            let a = across(0, &docs);
            assert_eq!(a.len(), 1, "{a:?}");
            assert_eq!(
                (a[0].code, a[0].severity),
                (Code::McpClientInterop, severity)
            );
            assert_eq!(a[0].span, 5..12);
            assert!(
                a[0].message.contains("the Tool `b` of `b.cwl`"),
                "{}",
                a[0].message
            );
            assert_eq!(a[0].related[0].line, Some(2));
            assert!(across(2, &docs).is_empty());
            // `tools-list` reads the name duplicates only
            assert!(duplicates_across(0, &docs).is_empty());
        }
    }
}
