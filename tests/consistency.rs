//! One answer from every surface (issue 9, SPEC §1, §4, §5, §6, §10): for every CWL file of the
//! project (`examples/`, `editors/test-fixtures/`, `tests/fixtures/`) and, as a second tier,
//! every `*.cwl` of `../shared/corpus`, under both profiles:
//!
//! - diagnostics: `check --format json` = pull (`textDocument/diagnostic`, client declaring
//!   `textDocument.diagnostic`) = push (`publishDiagnostics`, client without it), as multisets of
//!   (code, severity, start, end, message); a pull client gets no non-empty push at all;
//! - Tools: `derive FILE` = `cwl-mcp.previewTool [uri, null]` (per `$graph` id for `$graph`
//!   documents), and per served process (each code lens): `derive FILE#KEY` (from `derive --all`
//!   when it succeeds) = `previewTool [uri, KEY]` = the `tools-list FILE` entry of that name = the
//!   lens title (`MCP Tool: NAME`, or a title saying the Tool cannot be derived) = the hover on
//!   the hint class (the derived `name`, `title` and `description` each appear verbatim);
//! - broken YAML (`yaml-syntax` in `check`): derive refuses, the preview is an error, every lens
//!   says the Tool cannot be derived, and the hover on a hint class shows no effective values.
//! - under `cwl2mcp`: `check` reports an error (other than `hint-in-requirements`) iff
//!   `derive --all` refuses (SPEC §4/§5 parity with the exporter).
//!
//! A third tier, "probes", writes a few documents to `$CARGO_TARGET_TMPDIR` for shapes no fixture
//! has: block-scalar `useWhen`/`doNotUseWhen`, a `$import` from a sibling folder, one name in two
//! files, broken YAML around a hint, non-ASCII text before diagnosed ranges. Two lenses with the
//! same process key (duplicate ids) are reported once as "ambiguous key" and not compared further.
//!
//! Read boundaries and workspaces (SPEC §9, §10), chosen so that every surface reads the same
//! files and sees the same workspace:
//! - each tier has one root: the project root (tier 1) or `../shared/corpus` (tier 2). The CLI
//!   runs with that root as its current directory (so its read boundary, "under the current
//!   directory", is the root), and the language server gets that root as its only workspace
//!   folder (its read boundary, "inside the workspace folders"). Tier 2 deliberately does not
//!   run from the project root: the corpus lies outside it, where the CLI's boundary would fall
//!   back to each file's own folder while the server's would not, so the comparison would test
//!   the setup rather than the product. A `$import`/`run:` to a sibling folder (`../x.yml`)
//!   inside the root must therefore resolve identically everywhere.
//! - `check` is run once per tier and profile over the tier's folders (folders are checked as a
//!   workspace, SPEC §1), and every file of the tier stays open in both servers (opened one after
//!   another, closed at the end), so cross-file rules (`tool-name-duplicate`) see the same set of
//!   files on every surface: SPEC §10 wants them identical in push, pull and `check DIR`.
//!   Tier 1's workspace folder holds no other `*.cwl` than the three fixture folders (`target/`
//!   is ignored).
//! - the clients negotiate `positionEncoding: utf-8`; LSP (line, byte) positions are converted
//!   here to the CLI's 1-based (line, Unicode scalar) numbering, with lines ending at `\n`,
//!   `\r\n` or a lone `\r` as LSP says. A position that is not on a character boundary is itself
//!   reported as a mismatch.
//! - process keys: a process without id is keyed by its document URI; the server sees the
//!   percent-encoded URI it was given, the CLI the plain `file://` path, so `file://` keys are
//!   percent-decoded before they are matched (the only normalisation of keys).
//! - the hover renders a multi-line description as a Markdown block quote (`\n  > `); that
//!   quoting is undone before looking for the description, nothing else.
//!
//! Every mismatch is collected before the test fails; the failure prints counts per surface pair
//! and per code and 20 examples (spread over the pairs), and the whole list is written to
//! `$CARGO_TARGET_TMPDIR/consistency-<tier>.txt`.
//!
//! Run: `cargo test --test consistency -- --nocapture` (both tiers; the second is skipped, with a
//! message, when `../shared/corpus` is absent).
mod common;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use common::lsp_client::{LspClient, WAIT};
use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_cwl-mcp-lsp");
const PROFILES: [&str; 2] = ["extension", "cwl2mcp"];
/// What the hover on a hint class shows when it shows effective (derived) values.
const EFFECTIVE_MARKERS: [&str; 4] = ["Derived here", "**name:**", "**title:**", "**description"];
/// How long the push stream must be silent before the last push of each document is taken.
const QUIET: Duration = Duration::from_millis(2000);
const EXAMPLES: usize = 20;

struct Doc {
    /// Path relative to the tier root, as `check` prints it.
    rel: String,
    uri: String,
    /// `None` when the file is not UTF-8 (then it cannot be opened in an editor).
    text: Option<String>,
}

struct Tier {
    name: &'static str,
    root: PathBuf,
    dirs: Vec<String>,
    docs: Vec<Doc>,
}

#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Diag {
    code: String,
    severity: String,
    line: u64,
    col: u64,
    end_line: u64,
    end_col: u64,
    message: String,
}

impl std::fmt::Display for Diag {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}:{}-{}:{} {}[{}] {}",
            self.line,
            self.col,
            self.end_line,
            self.end_col,
            self.severity,
            self.code,
            short(&self.message, 140)
        )
    }
}

struct Mismatch {
    profile: &'static str,
    pair: &'static str,
    code: String,
    file: String,
    detail: String,
}

#[derive(Clone, Debug)]
enum Derived {
    Tool(Value),
    Refused(String),
    Failed(String),
}

/// What the CLI said about one file under one profile.
struct CliFile {
    derive_code: i32,
    derive_out: String,
    derive_err: String,
    /// `derive --all`, when it succeeded: key → Tool.
    all: Option<BTreeMap<String, Value>>,
    /// `derive --all` refused some process (an `error[…]` on stderr).
    all_refused: bool,
    /// Processes `derive --all` / `derive` reported as refused.
    refused: BTreeSet<String>,
    tools: Result<Vec<Value>, String>,
    /// `derive FILE#KEY` for served processes `--all` did not answer.
    per_key: BTreeMap<String, Derived>,
}

#[derive(Default)]
struct PullDoc {
    diags: Option<Result<Vec<Value>, String>>,
    lenses: Vec<Value>,
    preview_null: Option<Result<Value, String>>,
    previews: BTreeMap<String, Result<Value, String>>,
    /// (0-based line, hover text) at each hint class the text names.
    hovers: Vec<(u64, Option<String>)>,
}

#[derive(Default)]
struct PullOut {
    docs: HashMap<String, PullDoc>,
    /// Non-empty `publishDiagnostics` received by the pull client, per URI.
    pushed: HashMap<String, usize>,
    problems: Vec<String>,
}

#[derive(Default)]
struct PushOut {
    last: HashMap<String, Value>,
    problems: Vec<String>,
}

// ---------------------------------------------------------------------------------------------
// Setup

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            walk(&path, out);
        } else if path.extension().is_some_and(|e| e == "cwl") && path.is_file() {
            out.push(path);
        }
    }
}

fn file_uri(path: &Path) -> String {
    let mut out = String::from("file://");
    for b in path.to_string_lossy().bytes() {
        // RFC 3986 `pchar` and `/` stay; everything else is percent-encoded.
        if b.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=:@/".contains(&b) {
            out.push(b as char);
        } else {
            write!(out, "%{b:02X}").unwrap();
        }
    }
    out
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let Some(hex) = s.get(i + 1..i + 3)
            && let Ok(b) = u8::from_str_radix(hex, 16)
        {
            out.push(b);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// A process key as the CLI spells it.
fn norm_key(key: &str) -> String {
    if key.starts_with("file://") {
        percent_decode(key)
    } else {
        key.to_string()
    }
}

fn tier(name: &'static str, root: &Path, dirs: &[&str]) -> Tier {
    let root = root.canonicalize().expect("tier root");
    let mut paths = Vec::new();
    for d in dirs {
        walk(&root.join(d), &mut paths);
    }
    paths.sort();
    let docs = paths
        .into_iter()
        .map(|path| Doc {
            rel: path
                .strip_prefix(&root)
                .unwrap()
                .to_string_lossy()
                .into_owned(),
            uri: file_uri(&path),
            text: std::fs::read_to_string(&path).ok(),
        })
        .collect();
    Tier {
        name,
        root,
        dirs: dirs.iter().map(|d| d.to_string()).collect(),
        docs,
    }
}

// ---------------------------------------------------------------------------------------------
// Positions and text

/// Byte offsets of line starts; lines end at `\n`, `\r\n` or a lone `\r` (LSP).
fn line_starts(text: &str) -> Vec<usize> {
    let b = text.as_bytes();
    let mut out = vec![0];
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\n' => out.push(i + 1),
            b'\r' if b.get(i + 1) == Some(&b'\n') => {
                out.push(i + 2);
                i += 1;
            }
            b'\r' => out.push(i + 1),
            _ => {}
        }
        i += 1;
    }
    out
}

/// LSP (line, UTF-8 column) → CLI (1-based line, 1-based column in scalar values).
fn to_cli(text: &str, starts: &[usize], pos: &Value) -> Result<(u64, u64), String> {
    let line = pos["line"].as_u64().ok_or("no line")?;
    let character = pos["character"].as_u64().ok_or("no character")? as usize;
    let start = *starts
        .get(line as usize)
        .ok_or_else(|| format!("line {line} past the end"))?;
    let at = start + character;
    if at > text.len() || !text.is_char_boundary(at) {
        return Err(format!(
            "({line}, {character}) is not on a character boundary"
        ));
    }
    Ok((line + 1, text[start..at].chars().count() as u64 + 1))
}

fn severity_name(n: &Value) -> String {
    match n.as_u64() {
        Some(1) => "error",
        Some(2) => "warning",
        Some(3) => "information",
        Some(4) => "hint",
        _ => "?",
    }
    .to_string()
}

fn lsp_diag(text: &str, starts: &[usize], d: &Value) -> Result<Diag, String> {
    let (line, col) = to_cli(text, starts, &d["range"]["start"])?;
    let (end_line, end_col) = to_cli(text, starts, &d["range"]["end"])?;
    Ok(Diag {
        code: match &d["code"] {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        },
        severity: severity_name(&d["severity"]),
        line,
        col,
        end_line,
        end_col,
        message: d["message"].as_str().unwrap_or_default().to_string(),
    })
}

fn cli_diag(d: &Value) -> Diag {
    Diag {
        code: d["code"].as_str().unwrap_or_default().to_string(),
        severity: d["severity"].as_str().unwrap_or_default().to_string(),
        line: d["line"].as_u64().unwrap_or(0),
        col: d["column"].as_u64().unwrap_or(0),
        end_line: d["endLine"].as_u64().unwrap_or(0),
        end_col: d["endColumn"].as_u64().unwrap_or(0),
        message: d["message"].as_str().unwrap_or_default().to_string(),
    }
}

/// (line, byte column) of each hint class the text names: a key or `class` value ending in
/// `:Tool` or `#Tool` (the map form `mcp:Tool:`, the list form `class: mcp:Tool`, JSON, full URI).
fn hint_classes(text: &str) -> Vec<(u64, u64)> {
    let starts = line_starts(text);
    let mut out = Vec::new();
    for (n, &s) in starts.iter().enumerate() {
        let e = starts.get(n + 1).copied().unwrap_or(text.len());
        let line = text[s..e].trim_end_matches(['\r', '\n']);
        let b = line.as_bytes();
        let mut from = 0;
        while let Some(i) = line[from..].find("Tool").map(|i| i + from) {
            from = i + 4;
            let before = i.checked_sub(1).map(|j| b[j]);
            let after = b.get(i + 4).copied();
            if !matches!(before, Some(b':' | b'#'))
                || !matches!(
                    after,
                    None | Some(b':' | b'"' | b'\'' | b',' | b'}' | b' ' | b'\t')
                )
            {
                continue;
            }
            let mut start = i;
            while start > 0 && !b" \t\"'{,[".contains(&b[start - 1]) {
                start -= 1;
            }
            let token = &line[start..i];
            if token.len() > 1 && !token.starts_with('#') {
                out.push((n as u64, start as u64));
            }
        }
    }
    out
}

fn short(s: &str, n: usize) -> String {
    let one_line = s.replace('\n', "⏎");
    if one_line.chars().count() <= n {
        one_line
    } else {
        format!("{}…", one_line.chars().take(n).collect::<String>())
    }
}

fn hover_text(result: &Value) -> Option<String> {
    fn text(v: &Value) -> String {
        match v {
            Value::String(s) => s.clone(),
            Value::Array(items) => items.iter().map(text).collect::<Vec<_>>().join("\n"),
            Value::Object(o) => o.get("value").map(text).unwrap_or_default(),
            _ => String::new(),
        }
    }
    (!result.is_null()).then(|| text(&result["contents"]))
}

/// The top-level fields on which two Tools differ, with both values.
fn tool_diff(a: &Value, b: &Value) -> (String, String) {
    let keys: BTreeSet<&String> = a
        .as_object()
        .into_iter()
        .chain(b.as_object())
        .flat_map(|o| o.keys())
        .collect();
    let differing: Vec<&String> = keys
        .into_iter()
        .filter(|k| a.get(*k) != b.get(*k))
        .collect();
    let code = differing
        .iter()
        .map(|k| k.as_str())
        .collect::<Vec<_>>()
        .join("+");
    let detail = differing
        .iter()
        .map(|k| {
            format!(
                "{k}: {} vs {}",
                short(&a.get(*k).map_or("(absent)".into(), Value::to_string), 90),
                short(&b.get(*k).map_or("(absent)".into(), Value::to_string), 90)
            )
        })
        .collect::<Vec<_>>()
        .join("; ");
    (if code.is_empty() { "?".into() } else { code }, detail)
}

// ---------------------------------------------------------------------------------------------
// The CLI

fn run(root: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(BIN)
        .args(args)
        .current_dir(root)
        .output()
        .expect("run the CLI");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The process keys a refusal on stderr names (`… (process `KEY`)`).
fn refused_keys(stderr: &str) -> BTreeSet<String> {
    stderr
        .lines()
        .filter_map(|l| {
            let at = l.rfind("(process `")?;
            l[at + 10..].strip_suffix("`)").map(str::to_string)
        })
        .collect()
}

fn par_map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get().clamp(2, 4));
    let next = AtomicUsize::new(0);
    let mut results: Vec<(usize, R)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                s.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::SeqCst);
                        if i >= items.len() {
                            return mine;
                        }
                        mine.push((i, f(&items[i])));
                    }
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    results.sort_by_key(|(i, _)| *i);
    results.into_iter().map(|(_, r)| r).collect()
}

fn cli_file(tier: &Tier, doc: &Doc, profile: &str) -> CliFile {
    let root = &tier.root;
    let (derive_code, derive_out, derive_err) =
        run(root, &["derive", "--profile", profile, &doc.rel]);
    let (all_code, all_out, all_err) =
        run(root, &["derive", "--all", "--profile", profile, &doc.rel]);
    let all = (all_code == 0)
        .then(|| serde_json::from_str::<BTreeMap<String, Value>>(&all_out).ok())
        .flatten();
    let mut refused = refused_keys(&all_err);
    refused.extend(refused_keys(&derive_err));
    let (_, tl_out, tl_err) = run(root, &["tools-list", "--profile", profile, &doc.rel]);
    let tools = serde_json::from_str::<Value>(&tl_out)
        .ok()
        .and_then(|v| v["tools"].as_array().cloned())
        .ok_or_else(|| format!("no tools/list result: {}", short(&tl_err, 200)));
    CliFile {
        all_refused: all_code == 1 && all_err.contains("error["),
        derive_code,
        derive_out,
        derive_err,
        all,
        refused,
        tools,
        per_key: BTreeMap::new(),
    }
}

fn derive_key(tier: &Tier, doc: &Doc, profile: &str, key: &str) -> Derived {
    let target = format!("{}#{key}", doc.rel);
    let (code, out, err) = run(&tier.root, &["derive", "--profile", profile, &target]);
    match code {
        0 => match serde_json::from_str(&out) {
            Ok(v) => Derived::Tool(v),
            Err(e) => Derived::Failed(format!("unparsable output: {e}")),
        },
        1 => Derived::Refused(err),
        _ => Derived::Failed(format!("exit {code}: {}", short(&err, 200))),
    }
}

impl CliFile {
    fn yaml_broken(&self) -> bool {
        self.derive_err.contains("error[yaml-syntax]")
    }

    /// What the CLI derives for the process `key` (a CLI-spelled key).
    fn resolve(&self, key: &str) -> Option<Derived> {
        if self.yaml_broken() {
            return Some(Derived::Refused("yaml-syntax".into()));
        }
        if let Some(t) = self.all.as_ref().and_then(|all| all.get(key)) {
            return Some(Derived::Tool(t.clone()));
        }
        if self.refused.contains(key) {
            return Some(Derived::Refused(self.derive_err.clone()));
        }
        self.per_key.get(key).cloned()
    }
}

// ---------------------------------------------------------------------------------------------
// The language server

fn init_params(root: &Path, profile: &str, pull: bool) -> Value {
    let mut text_document = json!({
        "synchronization": {"dynamicRegistration": false},
        "publishDiagnostics": {"versionSupport": true},
        "hover": {"contentFormat": ["markdown", "plaintext"]},
        "codeLens": {},
    });
    if pull {
        text_document["diagnostic"] =
            json!({"dynamicRegistration": false, "relatedDocumentSupport": false});
    }
    json!({
        "processId": null,
        "rootUri": file_uri(root),
        "workspaceFolders": [{"uri": file_uri(root), "name": "tier"}],
        "capabilities": {
            "general": {"positionEncodings": ["utf-8", "utf-16"]},
            "textDocument": text_document,
            "workspace": {"workspaceFolders": true, "configuration": false},
        },
        "initializationOptions": {"cwlMcp": {"profile": profile}},
    })
}

async fn start(root: &Path, profile: &str, pull: bool) -> LspClient {
    let mut client = LspClient::spawn(&[]);
    let res = client
        .initialize_params(init_params(root, profile, pull))
        .await;
    assert_eq!(
        res["result"]["capabilities"]["positionEncoding"], "utf-8",
        "the server negotiates utf-8: {res}"
    );
    client
}

/// A request the server answers at once (an unknown command): reads the stream up to its answer.
async fn sync(client: &mut LspClient) {
    client
        .request(
            "workspace/executeCommand",
            json!({"command": "consistency.sync", "arguments": []}),
        )
        .await;
}

async fn close_all(client: &mut LspClient, tier: &Tier) {
    for (i, doc) in tier.docs.iter().filter(|d| d.text.is_some()).enumerate() {
        client
            .notify(
                "textDocument/didClose",
                json!({"textDocument": {"uri": doc.uri}}),
            )
            .await;
        if i % 20 == 19 {
            sync(client).await;
        }
    }
    sync(client).await;
}

async fn push_session(tier: &Tier, profile: &str) -> PushOut {
    let mut client = start(&tier.root, profile, false).await;
    let mut out = PushOut::default();
    fn record(out: &mut PushOut, msg: &Value) -> Option<(String, Value)> {
        if msg["method"] != "textDocument/publishDiagnostics" {
            return None;
        }
        let uri = msg["params"]["uri"].as_str()?.to_string();
        out.last.insert(uri.clone(), msg["params"].clone());
        Some((uri, msg["params"]["version"].clone()))
    }
    for doc in &tier.docs {
        let Some(text) = &doc.text else { continue };
        client.open(&doc.uri, text).await;
        loop {
            let Some(msg) = client.next_any_notification(WAIT).await else {
                out.problems.push(format!(
                    "{}: no publishDiagnostics within {WAIT:?}",
                    doc.rel
                ));
                break;
            };
            if let Some((uri, version)) = record(&mut out, &msg)
                && uri == doc.uri
                && version == 1
            {
                break;
            }
        }
    }
    // Re-publications for documents whose cross-file results changed.
    while let Some(msg) = client.next_any_notification(QUIET).await {
        record(&mut out, &msg);
    }
    close_all(&mut client, tier).await;
    client.shutdown().await;
    out
}

fn error_text(res: &Value) -> Option<String> {
    res.get("error")
        .map(|e| e["message"].as_str().unwrap_or("error").to_string())
}

async fn pull_session(
    tier: &Tier,
    profile: &str,
    extra_keys: &HashMap<String, BTreeSet<String>>,
) -> PullOut {
    let mut client = start(&tier.root, profile, true).await;
    let mut out = PullOut::default();
    fn drain(client: &mut LspClient, out: &mut PullOut) {
        for msg in client.notifications.drain(..) {
            if msg["method"] == "textDocument/publishDiagnostics"
                && msg["params"]["diagnostics"]
                    .as_array()
                    .is_some_and(|d| !d.is_empty())
            {
                let uri = msg["params"]["uri"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string();
                *out.pushed.entry(uri).or_default() += 1;
            }
        }
    }
    for doc in &tier.docs {
        let Some(text) = &doc.text else { continue };
        client.open(&doc.uri, text).await;
        sync(&mut client).await;
        drain(&mut client, &mut out);
    }
    for doc in &tier.docs {
        let Some(text) = &doc.text else { continue };
        let uri = doc.uri.as_str();
        let td = json!({"uri": uri});
        let mut pd = PullDoc::default();
        let res = client
            .request("textDocument/diagnostic", json!({"textDocument": td}))
            .await;
        pd.diags = Some(match error_text(&res) {
            Some(e) => Err(e),
            None => Ok(res["result"]["items"]
                .as_array()
                .cloned()
                .unwrap_or_default()),
        });
        let res = client
            .request("textDocument/codeLens", json!({"textDocument": td}))
            .await;
        match error_text(&res) {
            Some(e) => out
                .problems
                .push(format!("{}: codeLens error: {e}", doc.rel)),
            None => pd.lenses = res["result"].as_array().cloned().unwrap_or_default(),
        }
        let preview =
            |key: Value| json!({"command": "cwl-mcp.previewTool", "arguments": [uri, key]});
        let res = client
            .request("workspace/executeCommand", preview(Value::Null))
            .await;
        pd.preview_null = Some(match error_text(&res) {
            Some(e) => Err(e),
            None => Ok(res["result"].clone()),
        });
        let mut keys: BTreeSet<String> = pd
            .lenses
            .iter()
            .filter_map(|l| l["command"]["arguments"][1].as_str().map(str::to_string))
            .collect();
        keys.extend(extra_keys.get(&doc.rel).into_iter().flatten().cloned());
        for key in keys {
            let res = client
                .request("workspace/executeCommand", preview(json!(key)))
                .await;
            let answer = match error_text(&res) {
                Some(e) => Err(e),
                None => Ok(res["result"].clone()),
            };
            pd.previews.insert(key, answer);
        }
        for (line, character) in hint_classes(text) {
            let res = client
                .request(
                    "textDocument/hover",
                    json!({"textDocument": td, "position": {"line": line, "character": character}}),
                )
                .await;
            match error_text(&res) {
                Some(e) => out.problems.push(format!("{}: hover error: {e}", doc.rel)),
                None => pd.hovers.push((line, hover_text(&res["result"]))),
            }
        }
        drain(&mut client, &mut out);
        out.docs.insert(doc.rel.clone(), pd);
    }
    close_all(&mut client, tier).await;
    let rest = client.collect_until_quiet(Duration::from_millis(300)).await;
    client.notifications.extend(rest);
    drain(&mut client, &mut out);
    client.shutdown().await;
    out
}

// ---------------------------------------------------------------------------------------------
// Comparison

struct Ctx<'a> {
    profile: &'static str,
    out: &'a mut Vec<Mismatch>,
    /// Comparisons made per surface pair (so that a pass is never vacuous).
    compared: &'a mut BTreeMap<&'static str, usize>,
}

impl Ctx<'_> {
    fn compared(&mut self, pair: &'static str, n: usize) {
        *self.compared.entry(pair).or_default() += n;
    }

    fn add(&mut self, pair: &'static str, code: impl Into<String>, file: &str, detail: String) {
        self.out.push(Mismatch {
            profile: self.profile,
            pair,
            code: code.into(),
            file: file.to_string(),
            detail,
        });
    }
}

fn multiset_diff(
    ctx: &mut Ctx,
    pair: &'static str,
    file: &str,
    (a_name, a): (&str, &[Diag]),
    (b_name, b): (&str, &[Diag]),
) {
    ctx.compared(pair, a.len().max(b.len()).max(1));
    let mut count: BTreeMap<&Diag, i64> = BTreeMap::new();
    for d in a {
        *count.entry(d).or_default() += 1;
    }
    for d in b {
        *count.entry(d).or_default() -= 1;
    }
    for (d, n) in count {
        if n > 0 {
            ctx.add(pair, &d.code, file, format!("{n}× only in {a_name}: {d}"));
        } else if n < 0 {
            ctx.add(
                pair,
                &d.code,
                file,
                format!("{}× only in {b_name}: {d}", -n),
            );
        }
    }
}

fn derived_str(d: &Derived) -> String {
    match d {
        Derived::Tool(t) => format!("Tool `{}`", t["name"].as_str().unwrap_or("?")),
        Derived::Refused(e) => format!("refused ({})", short(e.lines().next().unwrap_or(""), 120)),
        Derived::Failed(e) => format!("failed ({})", short(e, 120)),
    }
}

fn compare_tool(
    ctx: &mut Ctx,
    pair: &'static str,
    file: &str,
    what: &str,
    cli: &Derived,
    lsp: &Result<Value, String>,
) {
    ctx.compared(pair, 1);
    match (cli, lsp) {
        (Derived::Tool(a), Ok(b)) if a == b => {}
        (Derived::Tool(a), Ok(b)) => {
            let (code, detail) = tool_diff(a, b);
            ctx.add(
                pair,
                code,
                file,
                format!("{what}: derive vs preview: {detail}"),
            );
        }
        (Derived::Refused(_), Err(_)) => {}
        (Derived::Tool(a), Err(e)) => ctx.add(
            pair,
            "Tool vs error",
            file,
            format!(
                "{what}: derive gives Tool `{}`, preview errs: {}",
                a["name"].as_str().unwrap_or("?"),
                short(e, 160)
            ),
        ),
        (Derived::Refused(e), Ok(b)) => ctx.add(
            pair,
            "refused vs Tool",
            file,
            format!(
                "{what}: derive refuses ({}), preview gives Tool `{}`",
                short(e.lines().next().unwrap_or(""), 120),
                b["name"].as_str().unwrap_or("?")
            ),
        ),
        (Derived::Failed(e), _) => ctx.add(
            pair,
            "derive failed",
            file,
            format!(
                "{what}: derive failed: {e}; preview: {}",
                short(&format!("{lsp:?}"), 120)
            ),
        ),
    }
}

fn not_derivable_title(title: &str) -> bool {
    let t = title.to_lowercase();
    t.contains("not exportable")
        || t.contains("cannot be derived")
        || t.contains("can't be derived")
}

#[allow(clippy::too_many_arguments)]
fn compare_doc(
    ctx: &mut Ctx,
    doc: &Doc,
    text: &str,
    check: &[Diag],
    cli: &CliFile,
    push: &PushOut,
    pull: &PullOut,
) {
    let file = doc.rel.as_str();
    let starts = line_starts(text);
    let Some(pd) = pull.docs.get(file) else {
        ctx.add(
            "setup",
            "no pull data",
            file,
            "the pull session has no answers".into(),
        );
        return;
    };
    // Diagnostics.
    let convert = |ctx: &mut Ctx, surface: &str, items: &[Value]| -> Vec<Diag> {
        let mut out = Vec::new();
        for d in items {
            match lsp_diag(text, &starts, d) {
                Ok(x) => out.push(x),
                Err(e) => ctx.add(
                    "position conversion",
                    d["code"].as_str().unwrap_or("?"),
                    file,
                    format!("{surface}: {e}: {d}"),
                ),
            }
        }
        out.sort();
        out
    };
    let pushed = match push.last.get(&doc.uri) {
        Some(p) => {
            let items = p["diagnostics"].as_array().cloned().unwrap_or_default();
            Some(convert(ctx, "push", &items))
        }
        None => {
            ctx.add(
                "check≠push",
                "no push",
                file,
                "no publishDiagnostics at all".into(),
            );
            None
        }
    };
    let pulled = match &pd.diags {
        Some(Ok(items)) => Some(convert(ctx, "pull", items)),
        Some(Err(e)) => {
            ctx.add("check≠pull", "pull error", file, e.clone());
            None
        }
        None => None,
    };
    if let Some(p) = &pushed {
        multiset_diff(ctx, "check≠push", file, ("check", check), ("push", p));
    }
    if let Some(p) = &pulled {
        multiset_diff(ctx, "check≠pull", file, ("check", check), ("pull", p));
    }
    if let (Some(a), Some(b)) = (&pulled, &pushed) {
        multiset_diff(ctx, "pull≠push", file, ("pull", a), ("push", b));
    }
    ctx.compared("pull client got push", 1);
    if let Some(n) = pull.pushed.get(&doc.uri) {
        ctx.add(
            "pull client got push",
            "publishDiagnostics",
            file,
            format!("{n} non-empty publishDiagnostics to a client that pulls"),
        );
    }

    let broken = check.iter().any(|d| d.code == "yaml-syntax");
    // A key two processes share (duplicate ids) names neither reliably: reported once, not compared.
    let mut lens_keys: BTreeMap<&str, usize> = BTreeMap::new();
    for lens in &pd.lenses {
        *lens_keys
            .entry(lens["command"]["arguments"][1].as_str().unwrap_or_default())
            .or_default() += 1;
    }
    let ambiguous: BTreeSet<String> = lens_keys
        .iter()
        .filter(|(_, n)| **n > 1)
        .map(|(k, _)| k.to_string())
        .collect();
    // Under cwl2mcp, an error diagnostic iff the export fails (SPEC §4, §5; `hint-in-requirements`
    // is the one deliberate exception).
    if ctx.profile == "cwl2mcp" {
        ctx.compared("check≠derive (cwl2mcp errors)", 1);
        let errors: Vec<&Diag> = check
            .iter()
            .filter(|d| d.severity == "error" && d.code != "hint-in-requirements")
            .collect();
        let all_refused = cli.all_refused;
        if (cli.all.is_some() || all_refused) && errors.is_empty() == all_refused {
            ctx.add(
                "check≠derive (cwl2mcp errors)",
                errors.first().map_or("refused without error", |d| d.code.as_str()),
                file,
                if all_refused {
                    format!(
                        "check reports no error, `derive --all` refuses: {}",
                        short(cli.derive_err.lines().next().unwrap_or(""), 160)
                    )
                } else {
                    format!(
                        "check reports {} error(s) (first: {}), `derive --all` exports every process",
                        errors.len(),
                        errors[0]
                    )
                },
            );
        }
    }
    let preview_null = pd.preview_null.clone().unwrap_or(Err("not asked".into()));
    if broken {
        if cli.derive_code != 1 {
            ctx.add(
                "broken YAML: derive",
                "yaml-syntax",
                file,
                format!("derive exits {} instead of refusing", cli.derive_code),
            );
        }
        if let Ok(t) = &preview_null {
            ctx.add(
                "broken YAML: preview",
                "yaml-syntax",
                file,
                format!(
                    "preview [uri, null] answers Tool `{}`; derive refuses: {}",
                    t["name"].as_str().unwrap_or("?"),
                    short(cli.derive_err.lines().next().unwrap_or(""), 120)
                ),
            );
        }
        ctx.compared("broken YAML: derive", 1);
        ctx.compared("broken YAML: preview", 1);
        ctx.compared("broken YAML: hover", pd.hovers.len());
        for (line, hover) in &pd.hovers {
            if let Some(h) = hover
                && EFFECTIVE_MARKERS.iter().any(|m| h.contains(m))
            {
                ctx.add(
                    "broken YAML: hover",
                    "yaml-syntax",
                    file,
                    format!(
                        "hover on the hint class (line {}) shows: {}",
                        line + 1,
                        short(h, 160)
                    ),
                );
            }
        }
    } else {
        // `derive FILE` = preview [uri, null] (plain), or per `$graph` id.
        let derived: Option<Value> = (cli.derive_code == 0)
            .then(|| serde_json::from_str(&cli.derive_out).ok())
            .flatten();
        match derived {
            Some(v)
                if v.get("inputSchema").is_some()
                    || v.get("name").is_some_and(Value::is_string) =>
            {
                compare_tool(
                    ctx,
                    "derive≠preview(null)",
                    file,
                    "root",
                    &Derived::Tool(v),
                    &preview_null,
                );
            }
            Some(Value::Object(map)) => {
                for (key, tool) in map {
                    if ambiguous.contains(&key) {
                        continue;
                    }
                    let lsp = pd
                        .previews
                        .get(&key)
                        .cloned()
                        .unwrap_or(Err("not asked".into()));
                    compare_tool(
                        ctx,
                        "derive[$graph]≠preview(id)",
                        file,
                        &key,
                        &Derived::Tool(tool),
                        &lsp,
                    );
                }
            }
            Some(other) => ctx.add(
                "derive≠preview(null)",
                "derive output",
                file,
                format!(
                    "unexpected derive output {}",
                    short(&other.to_string(), 100)
                ),
            ),
            None if cli.derive_code == 1 => {
                let keys = refused_keys(&cli.derive_err);
                if text.contains("$graph") && !keys.is_empty() {
                    for key in keys {
                        let lsp = pd
                            .previews
                            .get(&key)
                            .cloned()
                            .unwrap_or(Err("not asked".into()));
                        compare_tool(
                            ctx,
                            "derive[$graph]≠preview(id)",
                            file,
                            &key,
                            &Derived::Refused(cli.derive_err.clone()),
                            &lsp,
                        );
                    }
                } else {
                    compare_tool(
                        ctx,
                        "derive≠preview(null)",
                        file,
                        "root",
                        &Derived::Refused(cli.derive_err.clone()),
                        &preview_null,
                    );
                }
            }
            None => ctx.add(
                "derive≠preview(null)",
                "derive failed",
                file,
                format!(
                    "derive exits {}: {}",
                    cli.derive_code,
                    short(&cli.derive_err, 160)
                ),
            ),
        }
    }

    // Per served process (each lens): derive#KEY = preview(KEY) = lens title = tools-list = hover.
    let mut served: Vec<(String, u64, Derived)> = Vec::new();
    ctx.compared("lens keys", 1);
    for key in &ambiguous {
        ctx.add(
            "lens keys",
            "ambiguous key",
            file,
            format!(
                "two lenses run the preview with the same key `{key}`: one previews another process"
            ),
        );
    }
    for lens in &pd.lenses {
        let key = lens["command"]["arguments"][1].as_str().unwrap_or_default();
        if ambiguous.contains(key) {
            continue;
        }
        let title = lens["command"]["title"].as_str().unwrap_or_default();
        let line = lens["range"]["start"]["line"].as_u64().unwrap_or(0);
        let Some(d) = cli.resolve(&norm_key(key)) else {
            ctx.add(
                "derive≠lens",
                "unknown key",
                file,
                format!("lens `{key}`: derive was not asked"),
            );
            continue;
        };
        let lsp = pd
            .previews
            .get(key)
            .cloned()
            .unwrap_or(Err("not asked".into()));
        if !broken {
            compare_tool(ctx, "derive#id≠preview(id)", file, key, &d, &lsp);
        }
        ctx.compared(
            if broken {
                "broken YAML: lens"
            } else {
                "derive≠lens"
            },
            1,
        );
        match &d {
            Derived::Tool(t) => {
                let want = format!("MCP Tool: {}", t["name"].as_str().unwrap_or("?"));
                if title != want {
                    ctx.add(
                        "derive≠lens",
                        "title",
                        file,
                        format!(
                            "process `{key}`: lens `{title}`, derive: {}",
                            derived_str(&d)
                        ),
                    );
                }
            }
            Derived::Refused(_) if !not_derivable_title(title) => ctx.add(
                if broken {
                    "broken YAML: lens"
                } else {
                    "derive≠lens"
                },
                "refused vs lens Tool",
                file,
                format!(
                    "process `{key}`: lens `{title}`, derive: {}",
                    derived_str(&d)
                ),
            ),
            Derived::Refused(_) => {}
            Derived::Failed(e) => ctx.add(
                "derive≠lens",
                "derive failed",
                file,
                format!("process `{key}`: lens `{title}`, derive failed: {e}"),
            ),
        }
        served.push((key.to_string(), line, d));
    }

    // tools-list: the served Tools, by name.
    match &cli.tools {
        Err(e) => ctx.add("derive≠tools-list", "tools-list failed", file, e.clone()),
        Ok(listed) => {
            let tools: Vec<&Value> = served
                .iter()
                .filter_map(|(_, _, d)| match d {
                    Derived::Tool(t) => Some(t),
                    _ => None,
                })
                .collect();
            let name = |t: &Value| t["name"].as_str().unwrap_or_default().to_string();
            let mut names: BTreeMap<String, usize> = BTreeMap::new();
            for t in &tools {
                *names.entry(name(t)).or_default() += 1;
            }
            for t in &tools {
                if names[&name(t)] > 1 {
                    continue; // a duplicate name: only one is served (and it is diagnosed)
                }
                ctx.compared("derive≠tools-list", 1);
                match listed.iter().find(|l| name(l) == name(t)) {
                    None => ctx.add(
                        "derive≠tools-list",
                        "missing",
                        file,
                        format!("Tool `{}` is served (lens) but not in tools-list", name(t)),
                    ),
                    Some(l) if l != *t => {
                        let (code, detail) = tool_diff(t, l);
                        ctx.add(
                            "derive≠tools-list",
                            code,
                            file,
                            format!("Tool `{}`: derive vs tools-list: {detail}", name(t)),
                        );
                    }
                    Some(_) => {}
                }
            }
            // (With an ambiguous key, the skipped processes' Tools are unknown here.)
            for l in listed.iter().filter(|_| ambiguous.is_empty()) {
                if !names.contains_key(&name(l)) {
                    // Under `cwl2mcp` the export holds the processes of the `run:` files
                    // (SPEC §10): `derive --all` prints them as `tools-list` serves them.
                    if ctx.profile == "cwl2mcp"
                        && cli
                            .all
                            .as_ref()
                            .is_some_and(|all| all.values().any(|t| t == l))
                    {
                        ctx.compared("derive --all≠tools-list (run: files)", 1);
                        continue;
                    }
                    ctx.add(
                        "derive≠tools-list",
                        "extra",
                        file,
                        format!("tools-list serves `{}`, which no lens shows", name(l)),
                    );
                }
            }
        }
    }

    // Hover on each hint class that a lens sits on.
    if !broken {
        for (line, hover) in &pd.hovers {
            let Some((key, _, Derived::Tool(t))) = served.iter().find(|(_, l, _)| l == line) else {
                continue;
            };
            let Some(h) = hover else {
                ctx.add(
                    "derive≠hover",
                    "no hover",
                    file,
                    format!(
                        "process `{key}`: no hover on the hint class (line {})",
                        line + 1
                    ),
                );
                continue;
            };
            ctx.compared("derive≠hover", 1);
            let unquoted = h.replace("\n  > ", "\n");
            for field in ["name", "title", "description"] {
                if let Some(v) = t[field].as_str()
                    && !h.contains(v)
                    && !unquoted.contains(v)
                {
                    ctx.add(
                        "derive≠hover",
                        field,
                        file,
                        format!(
                            "process `{key}`: derived {field} {:?} not in the hover: {}",
                            short(v, 100),
                            short(h, 220)
                        ),
                    );
                }
            }
        }
    }
}

fn summary(
    tier: &Tier,
    mismatches: &[Mismatch],
    compared: &BTreeMap<&'static str, usize>,
    timing: &str,
) -> String {
    let mut s = String::new();
    writeln!(
        s,
        "consistency [{}]: {} mismatch(es) over {} files × {} profiles ({timing})",
        tier.name,
        mismatches.len(),
        tier.docs.len(),
        PROFILES.len()
    )
    .unwrap();
    /// Per pair: mismatches, files, and counts per "profile code".
    type PairStats<'a> = (usize, BTreeSet<&'a str>, BTreeMap<String, usize>);
    let mut pairs: BTreeMap<&str, PairStats> = BTreeMap::new();
    for m in mismatches {
        let e = pairs.entry(m.pair).or_default();
        e.0 += 1;
        e.1.insert(&m.file);
        *e.2.entry(format!("{} {}", m.profile, m.code)).or_default() += 1;
    }
    writeln!(
        s,
        "per surface pair (comparisons, mismatches, files; per profile and code):"
    )
    .unwrap();
    for (pair, n) in compared {
        if !pairs.contains_key(pair) {
            writeln!(s, "  {pair:<30} {n:>6} compared, all agree").unwrap();
        }
    }
    for (pair, (n, files, codes)) in &pairs {
        let total = compared.get(pair).copied().unwrap_or(0);
        let mut codes: Vec<_> = codes.iter().collect();
        codes.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        let list = codes
            .iter()
            .map(|(c, n)| format!("{c}: {n}"))
            .collect::<Vec<_>>()
            .join(", ");
        writeln!(
            s,
            "  {pair:<30} {total:>6} compared, {n:>5} differ in {:>4} files  [{list}]",
            files.len()
        )
        .unwrap();
    }
    // Examples spread over the pairs: round robin.
    let mut by_pair: BTreeMap<&str, Vec<&Mismatch>> = BTreeMap::new();
    for m in mismatches {
        by_pair.entry(m.pair).or_default().push(m);
    }
    let mut examples = Vec::new();
    let mut round = 0;
    while examples.len() < EXAMPLES && examples.len() < mismatches.len() {
        for list in by_pair.values() {
            if let Some(m) = list.get(round)
                && examples.len() < EXAMPLES
            {
                examples.push(*m);
            }
        }
        round += 1;
    }
    writeln!(s, "examples:").unwrap();
    for m in examples {
        writeln!(
            s,
            "  [{}] {} {}: {}\n      {}",
            m.profile,
            m.pair,
            m.code,
            tier.root.join(&m.file).display(),
            m.detail
        )
        .unwrap();
    }
    s
}

async fn check_tier(tier: Tier) {
    let started = Instant::now();
    let mut mismatches = Vec::new();
    let mut compared = BTreeMap::new();
    let mut timing = Vec::new();
    let skipped = tier.docs.iter().filter(|d| d.text.is_none()).count();
    for profile in PROFILES {
        let t0 = Instant::now();
        // `check` once over the tier's folders (one workspace).
        let mut args = vec!["check", "--format", "json", "--profile", profile];
        args.extend(tier.dirs.iter().map(String::as_str));
        let (code, out, err) = run(&tier.root, &args);
        assert!(code == 0 || code == 1, "check exits {code}: {err}");
        let reported: Vec<Value> = serde_json::from_str(&out).expect("check --format json");
        let mut check: HashMap<String, Vec<Diag>> = HashMap::new();
        for d in &reported {
            let path = d["path"].as_str().unwrap_or_default();
            let rel = Path::new(path).components().collect::<PathBuf>();
            check
                .entry(rel.to_string_lossy().into_owned())
                .or_default()
                .push(cli_diag(d));
        }
        let mut cli: Vec<CliFile> = par_map(&tier.docs, |doc| cli_file(&tier, doc, profile));
        let t_cli = t0.elapsed();
        // Keys the preview must answer besides the lenses: `$graph` ids of `derive FILE`.
        let mut extra: HashMap<String, BTreeSet<String>> = HashMap::new();
        for (doc, c) in tier.docs.iter().zip(&cli) {
            let mut keys = refused_keys(&c.derive_err);
            if c.derive_code == 0
                && let Ok(Value::Object(map)) = serde_json::from_str::<Value>(&c.derive_out)
                && map.get("inputSchema").is_none()
                && !map.get("name").is_some_and(Value::is_string)
            {
                keys.extend(map.keys().cloned());
            }
            extra.insert(doc.rel.clone(), keys);
        }
        let t1 = Instant::now();
        let (push, pull) = tokio::join!(
            push_session(&tier, profile),
            pull_session(&tier, profile, &extra)
        );
        let t_lsp = t1.elapsed();
        // Served processes `derive --all` did not answer: one `derive FILE#KEY` each.
        let mut asks = Vec::new();
        for (i, doc) in tier.docs.iter().enumerate() {
            let Some(pd) = pull.docs.get(&doc.rel) else {
                continue;
            };
            for lens in &pd.lenses {
                let key = norm_key(lens["command"]["arguments"][1].as_str().unwrap_or_default());
                if cli[i].resolve(&key).is_none() {
                    asks.push((i, key));
                }
            }
        }
        let answers = par_map(&asks, |(i, key)| {
            derive_key(&tier, &tier.docs[*i], profile, key)
        });
        for ((i, key), d) in asks.into_iter().zip(answers) {
            cli[i].per_key.insert(key, d);
        }
        let mut ctx = Ctx {
            profile,
            out: &mut mismatches,
            compared: &mut compared,
        };
        for p in push.problems.iter().chain(&pull.problems) {
            ctx.add("setup", "protocol", "-", p.clone());
        }
        for (doc, c) in tier.docs.iter().zip(&cli) {
            let Some(text) = &doc.text else { continue };
            let diags = check.get(&doc.rel).map(Vec::as_slice).unwrap_or(&[]);
            compare_doc(&mut ctx, doc, text, diags, c, &push, &pull);
        }
        timing.push(format!(
            "{profile}: CLI {:.1}s, LSP {:.1}s, total {:.1}s",
            t_cli.as_secs_f64(),
            t_lsp.as_secs_f64(),
            t0.elapsed().as_secs_f64()
        ));
    }
    let timing = format!(
        "{}; {:.1}s in all{}",
        timing.join("; "),
        started.elapsed().as_secs_f64(),
        if skipped > 0 {
            format!("; {skipped} non-UTF-8 files compared by CLI only")
        } else {
            String::new()
        }
    );
    let text = summary(&tier, &mismatches, &compared, &timing);
    let full =
        Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("consistency-{}.txt", tier.name));
    let mut all = String::new();
    for m in &mismatches {
        writeln!(
            all,
            "[{}] {} {} {}: {}",
            m.profile, m.pair, m.code, m.file, m.detail
        )
        .unwrap();
    }
    let _ = std::fs::write(&full, all);
    if mismatches.is_empty() {
        eprintln!("{text}");
    }
    assert!(
        mismatches.is_empty(),
        "the surfaces disagree:\n{text}full list: {}",
        full.display()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_surface_gives_one_answer_on_the_project_fixtures() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let tier = tier(
        "fixtures",
        root,
        &["examples", "editors/test-fixtures", "tests/fixtures"],
    );
    assert!(tier.docs.len() > 10, "fixtures found: {}", tier.docs.len());
    check_tier(tier).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_surface_gives_one_answer_on_the_shared_corpus() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus");
    if !corpus.is_dir() {
        eprintln!(
            "SKIPPED: {} is absent; the second tier of the consistency test did not run",
            corpus.display()
        );
        return;
    }
    let dirs: Vec<String> = std::fs::read_dir(&corpus)
        .unwrap()
        .flatten()
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    let mut dirs: Vec<&str> = dirs.iter().map(String::as_str).collect();
    dirs.sort();
    let tier = tier("corpus", &corpus, &dirs);
    check_tier(tier).await;
}

/// Documents written for this test, one per shape the fixtures do not exercise: block-scalar
/// prose in the hint, a `$import` from a sibling folder, the same name in two files, broken
/// YAML around a hint, and non-ASCII text before diagnosed ranges.
const PROBES: &[(&str, &str)] = &[
    (
        "tools/block-prose.cwl",
        "cwlVersion: v1.2\nclass: CommandLineTool\nid: block-prose\nlabel: Block prose\n\
         doc:\n- First paragraph.\n- Second paragraph.\n$namespaces:\n  \
         mcp: https://eoap.github.io/cwl-mcp-extension#\nhints:\n  mcp:Tool:\n    \
         name: block_prose\n    aliases: []\n    useWhen: |\n      the user asks for prose\n    \
         doNotUseWhen: >\n      the user asks\n      for poetry\n    annotations:\n      \
         readOnlyHint: true\n      destructiveHint: false\n      idempotentHint: true\n      \
         openWorldHint: false\nbaseCommand: echo\ninputs:\n  text:\n    type: string\n    \
         doc: the text\noutputs: {}\n",
    ),
    (
        "types/point.yaml",
        "type: record\nname: Point\nfields:\n  x: double\n  y: double\n",
    ),
    (
        "tools/imports-sibling.cwl",
        "cwlVersion: v1.2\nclass: CommandLineTool\nid: imports-sibling\nlabel: Imports\n\
         doc: Reads a point.\n$namespaces:\n  mcp: https://eoap.github.io/cwl-mcp-extension#\n\
         requirements:\n  SchemaDefRequirement:\n    types:\n    - $import: ../types/point.yaml\n\
         hints:\n  mcp:Tool:\n    name: imports_sibling\n    aliases: []\n    useWhen: \"\"\n    \
         doNotUseWhen: \"\"\n    annotations:\n      readOnlyHint: true\n      \
         destructiveHint: false\n      idempotentHint: true\n      openWorldHint: false\n\
         baseCommand: echo\ninputs:\n  where:\n    type: ../types/point.yaml#Point\n    \
         doc: where\noutputs: {}\n",
    ),
    (
        "tools/same-name.cwl",
        "cwlVersion: v1.2\nclass: CommandLineTool\nid: same-name\nlabel: One\ndoc: One.\n\
         $namespaces:\n  mcp: https://eoap.github.io/cwl-mcp-extension#\nhints:\n  mcp:Tool:\n    \
         name: same_name\n    aliases: []\n    useWhen: \"\"\n    doNotUseWhen: \"\"\n    \
         annotations: {readOnlyHint: true, destructiveHint: false, idempotentHint: true, \
         openWorldHint: false}\nbaseCommand: echo\ninputs: {}\noutputs: {}\n",
    ),
    (
        "other/same-name.cwl",
        "cwlVersion: v1.2\nclass: CommandLineTool\nid: same-name\nlabel: Two\ndoc: Two.\n\
         $namespaces:\n  mcp: https://eoap.github.io/cwl-mcp-extension#\nhints:\n  mcp:Tool:\n    \
         name: same_name\n    aliases: []\n    useWhen: \"\"\n    doNotUseWhen: \"\"\n    \
         annotations: {readOnlyHint: true, destructiveHint: false, idempotentHint: true, \
         openWorldHint: false}\nbaseCommand: echo\ninputs: {}\noutputs: {}\n",
    ),
    (
        "tools/broken.cwl",
        "cwlVersion: v1.2\nclass: CommandLineTool\nid: broken\nlabel: Broken\ndoc: Broken.\n\
         $namespaces:\n  mcp: https://eoap.github.io/cwl-mcp-extension#\nhints:\n  mcp:Tool:\n    \
         name: broken\n    useWhen: never\nbaseCommand: echo\ninputs: {}\noutputs: {}\n\
         inputs: {}\n",
    ),
    (
        "tools/unicode.cwl",
        "cwlVersion: v1.2\nclass: CommandLineTool\nid: unicode\nlabel: Étiquette 日本😀\n\
         doc: Ça marche 😀.\n$namespaces:\n  mcp: https://eoap.github.io/cwl-mcp-extension#\n\
         hints:\n  mcp:Tool:\n    title: Titre 日本😀\n    annotations: {title: 日本😀, \
         readOnlyHint: yes, destructiveHint: true}\nbaseCommand: echo\ninputs:\n  \
         é: {type: string, doc: \"日本😀\"}\noutputs: {}\n",
    ),
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_surface_gives_one_answer_on_probe_documents() {
    let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join("consistency-probes");
    let _ = std::fs::remove_dir_all(&root);
    for (rel, text) in PROBES {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
    }
    let tier = tier("probes", &root, &["other", "tools"]);
    assert_eq!(tier.docs.len(), PROBES.len() - 1);
    check_tier(tier).await;
}
