//! Document symbols (SPEC §6): each process (inline `run:` processes nested in their
//! workflow), its MCP hint, its inputs and its outputs.
use std::ops::Range;

use crate::cwl::{CwlView, Param, Process};
use crate::document::yaml::YamlDoc;
use crate::hint::validate::process_hints;
use crate::model::Model;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SymbolKind {
    Process,
    Hint,
    Input,
    Output,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Symbol {
    pub name: String,
    pub detail: Option<String>,
    pub kind: SymbolKind,
    /// The whole construct.
    pub span: Range<usize>,
    /// Its name (id, key or class), inside `span`.
    pub selection: Range<usize>,
    pub children: Vec<Symbol>,
}

fn hull(a: &Range<usize>, b: &Range<usize>) -> Range<usize> {
    a.start.min(b.start)..a.end.max(b.end)
}

fn param(p: &Param<'_>, kind: SymbolKind) -> Symbol {
    let span = hull(&p.id_node.span, &p.body.span);
    Symbol {
        name: p.id.rsplit(['#', '/']).next().unwrap_or(p.id).to_string(),
        detail: p
            .body
            .get("type")
            .and_then(|t| t.scalar())
            .or_else(|| p.body.scalar())
            .map(str::to_string),
        kind,
        span,
        selection: p.id_node.span.clone(),
        children: Vec::new(),
    }
}

fn process_symbol<'a>(yaml: &'a YamlDoc, view: &CwlView<'a>, process: &Process<'a>) -> Symbol {
    let name = process
        .key
        .clone()
        .or_else(|| process.id.map(str::to_string))
        .unwrap_or_else(|| process.class.to_string());
    let selection = process
        .id_node
        .map(|n| n.span.clone())
        .unwrap_or_else(|| process.class_pair.key.span.clone());
    let mut children = Vec::new();
    let hints = process_hints(view, process);
    if let Some(hint) = hints.hint {
        let selection = hint
            .class_node
            .map_or(hint.span.clone(), |c| c.span.clone());
        let name = hint
            .fields()
            .find(|p| p.key.scalar() == Some("name"))
            .and_then(|p| p.value.scalar())
            .filter(|s| !s.is_empty());
        children.push(Symbol {
            name: hint.class.unwrap_or("mcp:Tool").to_string(),
            detail: name.map(|n| format!("MCP tool `{n}`")),
            kind: SymbolKind::Hint,
            span: hull(&hint.span, &selection),
            selection,
            children: Vec::new(),
        });
    }
    children.extend(
        process
            .inputs(yaml)
            .iter()
            .map(|p| param(p, SymbolKind::Input)),
    );
    children.extend(
        process
            .outputs(yaml)
            .iter()
            .map(|p| param(p, SymbolKind::Output)),
    );
    Symbol {
        name,
        detail: Some(process.class.to_string()),
        kind: SymbolKind::Process,
        span: hull(&process.node.span, &selection),
        selection,
        children,
    }
}

/// Inserts `symbol` under the innermost symbol of `into` that contains it.
fn nest(into: &mut Vec<Symbol>, symbol: Symbol) {
    for parent in into.iter_mut() {
        if parent.kind == SymbolKind::Process
            && parent.span.start <= symbol.span.start
            && symbol.span.end <= parent.span.end
            && parent.span != symbol.span
        {
            return nest(&mut parent.children, symbol);
        }
    }
    into.push(symbol);
}

/// The document's symbols, outermost first.
pub fn symbols(model: &Model) -> Vec<Symbol> {
    let (yaml, view) = (model.yaml(), model.view());
    let mut out = Vec::new();
    for process in &view.processes {
        nest(&mut out, process_symbol(yaml, view, process));
    }
    out
}
