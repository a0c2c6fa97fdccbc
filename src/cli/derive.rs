//! `derive` and `tools-list` (SPEC §1): the Tools an exporter or MCP server would produce.
use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::base::project::Layer;
use crate::base::settings::ProtocolVersion;
use crate::derive::view::to_cli_json;
use crate::document::Encoding;
use crate::model::workspace::{self, ServedName};
use crate::model::{Model, Refusal, ToolEntry};

use super::{LoadError, load, read_roots};

/// A loaded document, ready for derivation.
struct Loaded {
    display: String,
    model: Model,
}

fn open(path: &Path, roots: &[PathBuf], cli: &Layer) -> Result<Loaded, String> {
    match load(path, roots, cli) {
        Ok(model) => Ok(Loaded {
            display: path.display().to_string(),
            model,
        }),
        Err(LoadError::Io(e)) => Err(e),
        Err(LoadError::NotUtf8(_)) => {
            Err(format!("{}: the file is not valid UTF-8", path.display()))
        }
    }
}

/// Prints why `entry` (a process key, when there is one) has no current Tool.
fn report_refusal(doc: &Loaded, key: Option<&str>, refusal: &Refusal, err: &mut dyn Write) {
    for r in refusal.reasons() {
        let process = match (key, refusal) {
            (Some(k), Refusal::Blocked(_)) => format!(" (process `{k}`)"),
            _ => String::new(),
        };
        let _ = writeln!(
            err,
            "{}:{}:{}: error[{}]: {}{process}",
            doc.display,
            r.line + 1,
            r.column + 1,
            r.code,
            r.message,
        );
    }
}

/// `derive FILE[#ID]` (or `--all`): prints a Tool, or `{key: Tool}`; returns the exit code.
pub fn run_derive(
    target: &str,
    all: bool,
    cli: &Layer,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    let file = match target.rsplit_once('#') {
        Some((f, _)) if !f.is_empty() => f,
        _ => target,
    };
    run_derive_within(
        target,
        all,
        cli,
        &read_roots(&[PathBuf::from(file)]),
        out,
        err,
    )
}

/// [`run_derive`] with the read roots given (SPEC §9: the current directory and the path, for
/// the command line).
pub fn run_derive_within(
    target: &str,
    all: bool,
    cli: &Layer,
    roots: &[PathBuf],
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    let (file, selector) = match target.rsplit_once('#') {
        Some((f, id)) if !f.is_empty() => (f, Some(id)),
        _ => (target, None),
    };
    let doc = match open(Path::new(file), roots, cli) {
        Ok(d) => d,
        Err(e) => {
            let _ = writeln!(err, "cwl-mcp-lsp: {e}");
            return 2;
        }
    };
    let model = &doc.model;
    let graph = model.view().root.is_some_and(|r| r.get("$graph").is_some());
    let entries: Vec<&ToolEntry> = model.entries().collect();
    if model.syntax_broken() {
        // Every Tool is refused alike: the syntax errors, once.
        if let Some(Err(refusal)) = entries.first().map(|e| model.current_tool(e)) {
            report_refusal(&doc, None, &refusal, err);
        } else {
            for e in &model.yaml().errors {
                let p = model.snapshot.lines.position(e.span.start, Encoding::Chars);
                let _ = writeln!(
                    err,
                    "{}:{}:{}: error[yaml-syntax]: {}",
                    doc.display,
                    p.line + 1,
                    p.character + 1,
                    e.message
                );
            }
        }
        return 1;
    }
    // Under `cwl2mcp` the export is the whole document's, with the files its steps `run:`
    // (SPEC §10): one that fails fails it.
    let reached = if model.settings.profile == crate::base::Profile::Cwl2mcp {
        crate::model::linked::models_from_disk(model)
    } else {
        Vec::new()
    };
    let linked = crate::model::linked::diagnostics_of_models(model, &reached);
    let requested: Vec<&ToolEntry> = match (selector, all) {
        (Some(id), _) => {
            let found: Vec<&ToolEntry> =
                entries.iter().copied().filter(|e| e.matches(id)).collect();
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
        (None, true) => entries.clone(),
        // `$graph` items only, not their inline `run:` processes.
        (None, false) if graph => entries.iter().copied().filter(|e| !e.inline).collect(),
        (None, false) => entries.iter().copied().take(1).collect(),
    };
    if requested.is_empty() {
        let _ = writeln!(err, "cwl-mcp-lsp: {file}: no CWL process found");
        return 1;
    }
    let mut tools = Vec::new();
    let mut refused = false;
    for entry in &requested {
        match model.current_tool_with(entry, &linked) {
            Ok(tool) => tools.push((model.selector(entry), tool.clone())),
            Err(refusal) => {
                report_refusal(&doc, Some(&entry.key), &refusal, err);
                refused = true;
            }
        }
    }
    if refused {
        return 1;
    }
    let single = selector.is_some() || (!all && !graph);
    if !single {
        for r in &reached {
            for entry in r.value.entries() {
                let key = r.value.selector(entry);
                if tools.iter().any(|(k, _)| *k == key) {
                    continue;
                }
                if let Ok(tool) = r.value.current_tool(entry) {
                    tools.push((key, tool.clone()));
                }
            }
        }
    }
    let value = if single {
        tools.swap_remove(0).1
    } else {
        Value::Object(tools.into_iter().collect::<Map<String, Value>>())
    };
    if out.write_all(to_cli_json(&value).as_bytes()).is_err() {
        return 2;
    }
    0
}

/// The `ListToolsResult` of `version` serving `tools`: one page (no `nextCursor`), no `_meta`.
///
/// 2026-07-28 requires three more fields, whose values say what this list is:
/// - `resultType: "complete"`: the whole result in one response (the value clients assume for
///   earlier versions, which have no such field);
/// - `cacheScope: "public"`: the list is derived from the CWL files alone and holds nothing
///   specific to a user or an authorization context, so any cache may share it;
/// - `ttlMs: 0`: this command takes a snapshot of files that may change at any time and cannot
///   know how long a server will serve it, so it promises no freshness ("immediately stale":
///   clients may re-fetch whenever they need the list). A server that knows better (its Tools
///   are fixed for its lifetime) sets its own.
pub fn list_tools_result(tools: Vec<Value>, version: ProtocolVersion) -> Value {
    let mut result = Map::new();
    if version == ProtocolVersion::V2026_07_28 {
        result.insert("cacheScope".into(), "public".into());
        result.insert("resultType".into(), "complete".into());
    }
    result.insert("tools".into(), Value::Array(tools));
    if version == ProtocolVersion::V2026_07_28 {
        result.insert("ttlMs".into(), 0.into());
    }
    Value::Object(result)
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
    let roots = read_roots(paths);
    let mut code = 0;
    let mut docs = Vec::new();
    for opened in super::par_map(&files, |file| open(file, &roots, cli)) {
        match opened {
            Ok(d) => docs.push(d),
            Err(e) => {
                let _ = writeln!(err, "cwl-mcp-lsp: {e}");
                code = 2;
            }
        }
    }
    // Under `cwl2mcp` a document's export holds the files its steps `run:` (SPEC §10): they
    // are served with it (each file once), and one that fails fails the document.
    let mut linked: Vec<Vec<crate::base::Diagnostic>> = vec![Vec::new(); docs.len()];
    let mut paths: std::collections::HashSet<PathBuf> = files
        .iter()
        .map(|f| std::fs::canonicalize(f).unwrap_or_else(|_| f.clone()))
        .collect();
    let given = docs.len();
    for i in 0..given {
        if docs[i].model.settings.profile != crate::base::Profile::Cwl2mcp {
            continue;
        }
        let reached = crate::model::linked::models_from_disk(&docs[i].model);
        linked[i] = crate::model::linked::diagnostics_of_models(&docs[i].model, &reached);
        if !linked[i].is_empty() || !docs[i].model.export_failures().is_empty() {
            // The export fails whole (as `derive --all` does): the reached files are not
            // served through it.
            continue;
        }
        for r in reached {
            if paths.insert(r.path.clone()) {
                docs.push(Loaded {
                    display: super::shown(&r.path),
                    model: r.value,
                });
            }
        }
    }
    // The same cross-file rule as `check` and the editor: every copy of a name is reported.
    let served: Vec<(String, Vec<ServedName>)> = docs
        .iter()
        .map(|d| {
            (
                d.display.clone(),
                workspace::served_names(&d.model, workspace::Scope::Served),
            )
        })
        .collect();
    let mut tools_out: Vec<Value> = Vec::new();
    for (i, doc) in docs.iter().enumerate() {
        let model = &doc.model;
        for d in workspace::duplicates_across(i, &served).iter().chain(
            model
                .diagnostics()
                .iter()
                .filter(|d| d.code == crate::base::Code::ToolNameDuplicate),
        ) {
            let p = model.snapshot.lines.position(d.span.start, Encoding::Chars);
            let _ = writeln!(
                err,
                "{}:{}:{}: error[tool-name-duplicate]: {}",
                doc.display,
                p.line + 1,
                p.character + 1,
                d.message
            );
            code = code.max(1);
        }
        let mut seen_syntax = false;
        let no_links = Vec::new();
        let linked = linked.get(i).unwrap_or(&no_links);
        for entry in model.served() {
            match model.current_tool_with(entry, linked) {
                Ok(tool) => tools_out.push(tool.clone()),
                Err(refusal) => {
                    if matches!(refusal, Refusal::Syntax(_)) {
                        if seen_syntax {
                            continue;
                        }
                        seen_syntax = true;
                    }
                    report_refusal(doc, Some(&entry.key), &refusal, err);
                    code = code.max(1);
                }
            }
        }
    }
    // Names served twice are not served at all: the server could not tell them apart.
    let mut counts = std::collections::HashMap::new();
    for t in &tools_out {
        *counts.entry(t.get("name").cloned()).or_insert(0) += 1;
    }
    tools_out.retain(|t| counts[&t.get("name").cloned()] == 1);
    // The result's shape is that of the protocol version the Tools were checked against: the
    // flag, else the (first) document's `cwl-mcp.toml`, else the default.
    let version = cli
        .protocol_version
        .or_else(|| docs.first().map(|d| d.model.settings.protocol_version))
        .unwrap_or_default();
    let result = list_tools_result(tools_out, version);
    if out.write_all(to_cli_json(&result).as_bytes()).is_err() {
        return 2;
    }
    code
}
