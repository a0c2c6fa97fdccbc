//! `derive` and `tools-list` (SPEC §1): the Tools an exporter or MCP server would produce.
use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::analysis::DocumentContext;
use crate::config::{self, Layer};
use crate::cwl::CwlView;
use crate::derive::view::to_cli_json;
use crate::document::yaml::YamlDoc;
use crate::document::{Encoding, Snapshot};
use crate::settings::Settings;
use crate::tools::{self, ToolEntry};

/// A loaded document with its settings, ready for derivation.
struct Loaded {
    display: String,
    snapshot: Snapshot,
    settings: Settings,
    context: DocumentContext,
}

fn load(path: &Path, cli: &Layer) -> Result<Loaded, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let text = String::from_utf8(bytes)
        .map_err(|_| format!("{}: the file is not valid UTF-8", path.display()))?;
    let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let dir = abs.parent().unwrap_or(Path::new("/")).to_path_buf();
    let project = config::load_project_layer(&dir, None).map_err(|e| e.to_string())?;
    let settings = Layer::resolve(&[&project.map(|(_, l)| l).unwrap_or_default(), cli]);
    let mut context = DocumentContext::from_path(path);
    context.sandbox_root = Some(sandbox_for(&abs));
    Ok(Loaded {
        display: path.display().to_string(),
        snapshot: Snapshot::parse(&text, 0),
        settings,
        context,
    })
}

/// Local reads stay under the current directory when the file is there, else under the file's
/// own folder (SPEC §9: "under the current directory or any path given").
fn sandbox_for(abs: &Path) -> PathBuf {
    let cwd = std::env::current_dir().ok();
    match cwd {
        Some(cwd) if abs.starts_with(&cwd) => cwd,
        _ => abs.parent().unwrap_or(Path::new("/")).to_path_buf(),
    }
}

fn entries(doc: &Loaded) -> (YamlDoc, Vec<ToolEntry>, bool) {
    let yaml = YamlDoc::build(&doc.snapshot);
    let view = CwlView::new(&yaml);
    let graph = view.root.is_some_and(|r| r.get("$graph").is_some());
    let entries = tools::derive_document(&yaml, &view, &doc.settings, &doc.context, &|_, _| true);
    (yaml, entries, graph)
}

fn report_refusal(doc: &Loaded, entry: &ToolEntry, err: &mut dyn Write) {
    for (problem, span) in &entry.located {
        if !problem.blocking {
            continue;
        }
        let p = doc.snapshot.lines.position(span.start, Encoding::Chars);
        let _ = writeln!(
            err,
            "{}:{}:{}: error[{}]: {} (process `{}`)",
            doc.display,
            p.line + 1,
            p.character + 1,
            problem.code,
            problem.message,
            entry.key
        );
    }
}

fn yaml_errors(doc: &Loaded, yaml: &YamlDoc, err: &mut dyn Write) -> bool {
    for e in &yaml.errors {
        let p = doc.snapshot.lines.position(e.span.start, Encoding::Chars);
        let _ = writeln!(
            err,
            "{}:{}:{}: error[yaml-syntax]: {}",
            doc.display,
            p.line + 1,
            p.character + 1,
            e.message
        );
    }
    !yaml.errors.is_empty()
}

/// `derive FILE[#ID]` (or `--all`): prints a Tool, or `{key: Tool}`; returns the exit code.
pub fn run_derive(
    target: &str,
    all: bool,
    cli: &Layer,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    let (file, selector) = match target.rsplit_once('#') {
        Some((f, id)) if !f.is_empty() => (f, Some(id)),
        _ => (target, None),
    };
    let doc = match load(Path::new(file), cli) {
        Ok(d) => d,
        Err(e) => {
            let _ = writeln!(err, "cwl-mcp-lsp: {e}");
            return 2;
        }
    };
    let (yaml, entries, graph) = entries(&doc);
    if yaml_errors(&doc, &yaml, err) {
        return 1;
    }
    let requested: Vec<&ToolEntry> = match (selector, all) {
        (Some(id), _) => {
            let found: Vec<&ToolEntry> = entries.iter().filter(|e| e.matches(id)).collect();
            if found.is_empty() {
                let keys: Vec<&str> = entries.iter().map(|e| e.key.as_str()).collect();
                let _ = writeln!(
                    err,
                    "cwl-mcp-lsp: {file}: no process `{id}`; processes: {}",
                    keys.join(", ")
                );
                return 2;
            }
            found.into_iter().take(1).collect()
        }
        (None, true) => entries.iter().collect(),
        // `$graph` items only, not their inline `run:` processes.
        (None, false) if graph => entries.iter().filter(|e| !e.inline).collect(),
        (None, false) => entries.iter().take(1).collect(),
    };
    if requested.is_empty() {
        let _ = writeln!(err, "cwl-mcp-lsp: {file}: no CWL process found");
        return 1;
    }
    let refused: Vec<&&ToolEntry> = requested
        .iter()
        .filter(|e| e.derivation.is_refused())
        .collect();
    if !refused.is_empty() {
        for entry in refused {
            report_refusal(&doc, entry, err);
        }
        return 1;
    }
    let single = selector.is_some() || (!all && !graph);
    let value = if single {
        requested[0].derivation.tool.clone().unwrap_or(Value::Null)
    } else {
        let mut map = Map::new();
        for entry in &requested {
            map.insert(
                entry.key.clone(),
                entry.derivation.tool.clone().unwrap_or(Value::Null),
            );
        }
        Value::Object(map)
    };
    if out.write_all(to_cli_json(&value).as_bytes()).is_err() {
        return 2;
    }
    0
}

/// `tools-list PATH...`: the `tools/list` result an MCP server built from these files serves.
pub fn run_tools_list(
    paths: &[PathBuf],
    cli: &Layer,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    let files = match super::check::collect_files(paths) {
        Ok(f) => f,
        Err(e) => {
            let _ = writeln!(err, "cwl-mcp-lsp: {e}");
            return 2;
        }
    };
    let mut tools_out: Vec<Value> = Vec::new();
    let mut seen: Vec<(String, String)> = Vec::new();
    let mut code = 0;
    for file in &files {
        let doc = match load(file, cli) {
            Ok(d) => d,
            Err(e) => {
                let _ = writeln!(err, "cwl-mcp-lsp: {e}");
                code = 2;
                continue;
            }
        };
        let (yaml, entries, _) = entries(&doc);
        if yaml_errors(&doc, &yaml, err) {
            code = code.max(1);
            continue;
        }
        for entry in &entries {
            if entry.derivation.is_refused() {
                report_refusal(&doc, entry, err);
                code = code.max(1);
                continue;
            }
            let Some(tool) = &entry.derivation.tool else {
                continue;
            };
            let name = entry.name().unwrap_or_default().to_string();
            let here = format!("{}#{}", doc.display, entry.key);
            if let Some((_, first)) = seen.iter().find(|(n, _)| *n == name) {
                let p = doc
                    .snapshot
                    .lines
                    .position(entry.anchor.start, Encoding::Chars);
                let _ = writeln!(
                    err,
                    "{}:{}:{}: error[tool-name-duplicate]: the MCP tool name `{name}` is also \
                     derived from {first}",
                    doc.display,
                    p.line + 1,
                    p.character + 1
                );
                code = code.max(1);
                continue;
            }
            seen.push((name, here));
            tools_out.push(tool.clone());
        }
    }
    let mut result = Map::new();
    result.insert("tools".into(), Value::Array(tools_out));
    if out
        .write_all(to_cli_json(&Value::Object(result)).as_bytes())
        .is_err()
    {
        return 2;
    }
    code
}
