//! Where a document's references lead (SPEC §10) and the two rules about them (SPEC §5):
//! `run-target-missing` (a `run:` file or `#id` that does not exist, or cannot be read inside
//! the read boundary) and `hint-on-step` (`mcp:Tool` under a workflow step's `hints`).
//! Targets are resolved against the document's folder and checked against its read boundary
//! with the one [`Loader`] rule; nothing outside it is read (a target outside is only stat-ed
//! to word the message).
use std::ops::Range;
use std::path::{Path, PathBuf};

use crate::base::{Code, Diagnostic, Profile, Severity};
use crate::cwl::refs::{self, RefKind, Reference};
use crate::cwl::{CwlView, EXTENSION_NS};
use crate::derive::resolve::{Loader, Source};
use crate::document::yaml::YamlDoc;

use super::Model;

/// Where a reference leads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// A process of this document (`#id`): its span and the span of its `id` value.
    Here {
        span: Range<usize>,
        id: Range<usize>,
    },
    /// A local file inside the read boundary (canonical path), with the fragment written.
    File {
        path: PathBuf,
        fragment: Option<String>,
    },
    /// A URL or an expression: not followed.
    Remote,
    /// Missing or unreadable: why, in words that name only what the document wrote.
    Missing(String),
}

/// The process of `view` whose id is `fragment` (`#x`, `x`, or `…#x`).
pub fn process_with_id<'v, 'a>(
    view: &'v CwlView<'a>,
    fragment: &str,
) -> Option<&'v crate::cwl::Process<'a>> {
    view.processes.iter().find(|p| {
        p.id.is_some_and(|id| {
            id == fragment
                || id.strip_prefix('#') == Some(fragment)
                || id.rsplit('#').next() == Some(fragment)
        })
    })
}

/// Resolves `reference`, written in the document at `path` (read boundary `sandbox`).
pub fn resolve(
    reference: &Reference,
    view: &CwlView<'_>,
    path: Option<&Path>,
    sandbox: Option<&Path>,
) -> Target {
    if reference.is_remote() {
        return Target::Remote;
    }
    let (file, fragment) = reference.parts();
    let Some(file) = file else {
        let Some(fragment) = fragment else {
            return Target::Missing(format!("`{}` names no process", reference.target));
        };
        return match process_with_id(view, fragment) {
            Some(p) => Target::Here {
                span: p.node.span.clone(),
                id: p
                    .id_node
                    .map_or(p.class_pair.key.span.clone(), |n| n.span.clone()),
            },
            None => Target::Missing(format!("no process `#{fragment}` in this document")),
        };
    };
    let Some(doc_path) = path else {
        return Target::Missing(format!(
            "`{file}` cannot be read: the document is not a file"
        ));
    };
    let loader = Loader::new(Some(doc_path), sandbox);
    let Source::File(target) = loader.locate(file, &Source::File(doc_path.to_path_buf())) else {
        return Target::Remote;
    };
    if !loader.exists_in_sandbox(&target) {
        // Only a target that exists is said to be outside (its existence is not news: the
        // document named it).
        let outside = target.exists();
        return Target::Missing(if outside {
            format!("`{file}` is outside the folder that may be read")
        } else {
            format!("`{file}` does not exist")
        });
    }
    let real = std::fs::canonicalize(&target).unwrap_or(target);
    if !real.is_file() {
        return Target::Missing(format!("`{file}` is not a file"));
    }
    if let (RefKind::Run, Some(fragment)) = (reference.kind, fragment) {
        // `file.cwl#id`: the id must name a process of that file.
        let text = match loader.include(&Source::File(real.clone())) {
            Ok(t) => t,
            Err(e) => return Target::Missing(e.to_string()),
        };
        let doc = YamlDoc::parse(&text);
        let other = CwlView::new(&doc);
        if process_with_id(&other, fragment).is_none() {
            return Target::Missing(format!("no process `#{fragment}` in `{file}`"));
        }
    }
    Target::File {
        path: real,
        fragment: fragment.map(str::to_string),
    }
}

impl Model {
    /// Every reference of the document (`run:`, `$import`, `$include`), in document order.
    pub fn references(&self) -> Vec<Reference> {
        refs::references(self.yaml(), self.view())
    }

    /// Where `reference` (one of [`Model::references`]) leads.
    pub fn target(&self, reference: &Reference) -> Target {
        resolve(
            reference,
            self.view(),
            self.context.path.as_deref(),
            self.context.sandbox_root.as_deref(),
        )
    }
}

/// `run-target-missing` and `hint-on-step`. Under `extension` a document without any MCP hint
/// gets neither (SPEC §5: such documents get only `yaml-syntax`); under `cwl2mcp` every
/// `run:` is checked, as the exporter loads every one and fails on a missing one.
pub(super) fn diagnostics(model: &Model, hinted: bool) -> Vec<Diagnostic> {
    let view = model.view();
    let yaml = model.yaml();
    let mut out = Vec::new();
    let steps = refs::steps(yaml, view);
    let class_is_tool = |class: Option<&str>| {
        class.is_some_and(|c| view.expand(c) == format!("{EXTENSION_NS}Tool"))
    };
    let step_hinted: Vec<_> = steps
        .iter()
        .flat_map(|s| s.hints.iter().map(move |h| (s, h)))
        .filter(|(_, h)| class_is_tool(h.class))
        .collect();
    if model.settings.profile == Profile::Extension && !hinted && step_hinted.is_empty() {
        return out;
    }
    for (step, hint) in &step_hinted {
        let inline = step.run.is_some_and(|r| r.is_map());
        let span = hint
            .class_node
            .map_or(hint.span.clone(), |n| n.span.clone());
        out.push(Diagnostic::new(
            span,
            Severity::Warning,
            Code::HintOnStep,
            if inline {
                "`mcp:Tool` under a step's `hints` is ignored: exporters read only the hints of \
                 a process; move it into the step's `run:` process"
                    .to_string()
            } else {
                "`mcp:Tool` under a step's `hints` is ignored: exporters read only the hints of \
                 a process; put it in the hints of the process the step runs"
                    .to_string()
            },
        ));
    }
    for r in refs::run_references(yaml, view) {
        if let Target::Missing(why) = model.target(&r) {
            out.push(Diagnostic::new(
                r.span.clone(),
                Severity::Error,
                Code::RunTargetMissing,
                format!("the `run:` target cannot be found: {why}"),
            ));
        }
    }
    out
}
