//! Navigation (SPEC §10): document links and go-to-definition for `run:` (a file, `file#id`,
//! or `#id`), `$import` and `$include`; and the hover on a `run:` value, which names the
//! target's derived Tool. Plain data over the model's references and their targets
//! ([`Model::references`], [`Model::target`]); a missing, remote or unreadable target gives
//! nothing.
use std::ops::Range;
use std::path::{Path, PathBuf};

use crate::cwl::refs::{RefKind, Reference};
use crate::derive::resolve::{Loader, Source};
use crate::document::yaml::YamlDoc;
use crate::model::Model;
use crate::model::index::{IndexEntry, IndexedTool};
use crate::model::links::{Target, process_with_id};

use super::hover::Hover;

/// Where a link leads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Destination {
    /// A process of this document: its span and the span of its `id` value.
    Here {
        span: Range<usize>,
        selection: Range<usize>,
    },
    /// A file (canonical path); `line` is the 0-based line of the process named by the
    /// fragment (0 for the whole file).
    File {
        path: PathBuf,
        fragment: Option<String>,
        line: u32,
    },
}

/// One followable reference.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Link {
    /// The value written (`run:`, `$import`, `$include`).
    pub span: Range<usize>,
    pub kind: RefKind,
    pub target: String,
    pub destination: Destination,
}

impl Link {
    /// The tooltip a client that supports one shows.
    pub fn tooltip(&self) -> String {
        match &self.destination {
            Destination::Here { .. } => format!("Go to process `{}`", self.target),
            Destination::File { path, .. } => format!("Open {}", path.display()),
        }
    }
}

/// The 0-based line of the process `fragment` in the file at `path`, read inside the
/// document's read boundary (0 when it cannot be found).
fn line_in_file(model: &Model, path: &Path, fragment: &str) -> u32 {
    let loader = Loader::new(
        model.context.path.as_deref(),
        model.context.sandbox_root.as_deref(),
    );
    let Ok(text) = loader.include(&Source::File(path.to_path_buf())) else {
        return 0;
    };
    let doc = YamlDoc::parse(&text);
    let view = crate::cwl::CwlView::new(&doc);
    process_with_id(&view, fragment).map_or(0, |p| {
        let at = p.id_node.map_or(p.node.span.start, |n| n.span.start);
        text[..at.min(text.len())].matches('\n').count() as u32
    })
}

fn link(model: &Model, reference: Reference) -> Option<Link> {
    let destination = match model.target(&reference) {
        Target::Here { span, id } => Destination::Here {
            span,
            selection: id,
        },
        Target::File { path, fragment } => {
            let line = match (&fragment, reference.kind) {
                (Some(f), RefKind::Run) => line_in_file(model, &path, f),
                _ => 0,
            };
            Destination::File {
                path,
                fragment,
                line,
            }
        }
        Target::Remote | Target::Missing(_) => return None,
    };
    Some(Link {
        span: reference.span,
        kind: reference.kind,
        target: reference.target,
        destination,
    })
}

/// Every followable reference of the document, in document order.
pub fn links(model: &Model) -> Vec<Link> {
    model
        .references()
        .into_iter()
        .filter_map(|r| link(model, r))
        .collect()
}

fn on(span: &Range<usize>, at: usize) -> bool {
    span.start <= at && at <= span.end
}

/// The link whose value holds byte offset `at` (go-to-definition).
pub fn definition(model: &Model, at: usize) -> Option<Link> {
    let reference = model.references().into_iter().find(|r| on(&r.span, at))?;
    link(model, reference)
}

/// The Tool a `run:` target derives, as hover shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TargetTool {
    pub name: String,
    pub title: Option<String>,
}

impl From<&IndexedTool> for TargetTool {
    fn from(t: &IndexedTool) -> TargetTool {
        TargetTool {
            name: t.name.clone(),
            title: t.title.clone(),
        }
    }
}

/// The hover on a `run:` value at `at`: the target and its derived Tool name and title.
/// `entry_of` gives the index entry of a file target (the server's workspace index, an open
/// document, or the file analysed as the index does).
pub fn run_hover(
    model: &Model,
    at: usize,
    entry_of: &dyn Fn(&Path) -> Option<IndexEntry>,
) -> Option<Hover> {
    let link = definition(model, at).filter(|l| l.kind == RefKind::Run)?;
    let (tool, place) = match &link.destination {
        Destination::Here { span, .. } => {
            let index = model
                .view()
                .processes
                .iter()
                .position(|p| p.node.span == *span)?;
            let entry = model.entry(index);
            let tool = entry.name().map(|name| TargetTool {
                name: name.to_string(),
                title: entry
                    .field("title")
                    .and_then(|v| v.as_str())
                    .map(str::to_string),
            });
            (tool, "this document".to_string())
        }
        Destination::File { path, fragment, .. } => {
            let entry = entry_of(path);
            let tool = entry
                .as_ref()
                .and_then(|e| e.tool(fragment.as_deref()))
                .map(TargetTool::from);
            let file = path.file_name().map_or(path.display().to_string(), |n| {
                n.to_string_lossy().into_owned()
            });
            (tool, format!("`{file}`"))
        }
    };
    let mut md = format!("**run:** `{}` ({place})", link.target);
    match tool {
        Some(t) => {
            md.push_str(&format!("\n\n**MCP Tool:** `{}`", t.name));
            if let Some(title) = t.title {
                md.push_str(&format!("\n\n**Title:** {title}"));
            }
        }
        None => md.push_str("\n\nNo MCP Tool is derived from this target."),
    }
    Some(Hover {
        span: link.span,
        markdown: md,
    })
}

#[cfg(test)]
#[path = "navigation_tests.rs"]
mod tests;
