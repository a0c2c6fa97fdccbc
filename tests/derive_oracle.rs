//! Derivation against what cwl2mcp 0.1.0 really outputs (the recorded oracle runs
//! copied under `tests/fixtures/derive/`), the extension's own fixture, and (when
//! `../shared` is present) the recorded whole-corpus export.
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use cwl_mcp_lsp::base::DocumentContext;
use cwl_mcp_lsp::base::settings::{Profile, ProtocolVersion, Settings};
use cwl_mcp_lsp::derive::{Derivation, DeriveOptions, Problem};
use cwl_mcp_lsp::model::Model;
use serde_json::Value;

const PROCESS_CLASSES: &[&str] = &["CommandLineTool", "Workflow", "ExpressionTool", "Operation"];

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/derive")
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn read_yaml(path: &Path) -> Result<Value, String> {
    let text = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
    serde_norway::from_str::<Value>(&text).map_err(|e| e.to_string())
}

// ---- test-only stand-in for the CWL view: process enumeration ----

/// The cwl2mcp key of a process: its id after the last `#`, or the file URI without an id.
fn key_of(process: &Value, path: &Path) -> String {
    match process.get("id").and_then(Value::as_str) {
        Some(id) => id.rsplit('#').next().unwrap_or(id).to_string(),
        None => format!("file://{}", path.display()),
    }
}

struct Doc {
    root: Value,
    path: PathBuf,
}

impl Doc {
    fn load(path: &Path) -> Doc {
        Doc {
            root: read_yaml(path).unwrap_or_else(|e| panic!("{}: {e}", path.display())),
            path: path.to_path_buf(),
        }
    }

    /// Processes as (key, value): the root, or every `$graph` entry.
    fn processes(&self) -> Vec<(String, &Value)> {
        let list: Vec<&Value> = match self.root.get("$graph") {
            Some(Value::Array(items)) => items.iter().collect(),
            _ => vec![&self.root],
        };
        list.into_iter()
            .filter(|p| {
                p.get("class")
                    .and_then(Value::as_str)
                    .is_some_and(|c| PROCESS_CLASSES.contains(&c))
            })
            .map(|p| (key_of(p, &self.path), p))
            .collect()
    }

    /// The derivation of the process `key` through the model, as every surface derives it:
    /// the hint's values and refusing diagnostics come from the hint rules (the latter listed
    /// here among the problems, as blocking ones). `_process` is the stand-in's value of it.
    fn derive(
        &self,
        _process: &Value,
        key: &str,
        opts: &DeriveOptions,
        sandbox: Option<&Path>,
    ) -> Derivation {
        let text = std::fs::read_to_string(&self.path).unwrap();
        let settings = Settings {
            profile: opts.profile,
            meta_prefix: Some(opts.meta_prefix.clone()),
            protocol_version: opts.protocol_version,
            ..Settings::default()
        };
        let mut context =
            DocumentContext::from_path(&self.path).within(sandbox.map(Path::to_path_buf));
        if key.contains("://") {
            // A process without id is keyed by its document's URI: the one the run recorded.
            context.uri = key.to_string();
        }
        let model = Model::of_text(&text, settings, context);
        let entry = model
            .select(Some(key))
            .unwrap_or_else(|e| panic!("{}: {e}", self.path.display()));
        with_hint_refusals(entry)
    }

    /// Every process the model finds (inline `run:` processes included), with its derivation.
    fn derive_all(
        &self,
        opts: &DeriveOptions,
        sandbox: Option<&Path>,
    ) -> Vec<(String, Derivation)> {
        let text = std::fs::read_to_string(&self.path).unwrap();
        let settings = Settings {
            profile: opts.profile,
            meta_prefix: Some(opts.meta_prefix.clone()),
            protocol_version: opts.protocol_version,
            ..Settings::default()
        };
        let context = DocumentContext::from_path(&self.path).within(sandbox.map(Path::to_path_buf));
        let model = Model::of_text(&text, settings, context);
        model
            .entries()
            .map(|e| (e.key.clone(), with_hint_refusals(e)))
            .collect()
    }
}

/// The entry's derivation, with the hint's own refusing diagnostics listed as blocking problems.
fn with_hint_refusals(entry: &cwl_mcp_lsp::model::ToolEntry) -> Derivation {
    let mut d = entry.to_derivation();
    d.problems.extend(entry.blocked_by.iter().map(|b| Problem {
        code: b.code,
        message: b.message.clone(),
        path: Vec::new(),
        blocking: true,
    }));
    d
}

impl Doc {}

fn cwl2mcp() -> DeriveOptions {
    DeriveOptions::for_profile(Profile::Cwl2mcp)
}

/// A readable first difference between two JSON values.
fn first_difference(path: &str, got: &Value, want: &Value) -> Option<String> {
    match (got, want) {
        (Value::Object(a), Value::Object(b)) => {
            for k in a.keys().chain(b.keys()) {
                match (a.get(k), b.get(k)) {
                    (Some(x), Some(y)) => {
                        if let Some(d) = first_difference(&format!("{path}/{k}"), x, y) {
                            return Some(d);
                        }
                    }
                    (x, y) => return Some(format!("{path}/{k}: got {x:?}, want {y:?}")),
                }
            }
            None
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => a
            .iter()
            .zip(b)
            .enumerate()
            .find_map(|(i, (x, y))| first_difference(&format!("{path}/{i}"), x, y)),
        _ if got == want => None,
        _ => Some(format!("{path}: got {got}, want {want}")),
    }
}

// ---- the 54 oracle cases ----

#[test]
fn every_oracle_case_matches_cwl2mcp() {
    let dir = fixtures().join("oracle-runs/cases");
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "cwl"))
        .collect();
    cases.sort();
    assert_eq!(cases.len(), 54, "the 54 recorded cases are present");
    let (mut accepted, mut rejected) = (0, 0);
    let mut failures = Vec::new();
    for case in &cases {
        let doc = Doc::load(case);
        let processes = doc.processes();
        assert_eq!(processes.len(), 1, "{}", case.display());
        let (key, process) = &processes[0];
        let d = doc.derive(process, key, &cwl2mcp(), None);
        let expected = case.with_extension("expected.json");
        let name = case.file_name().unwrap().to_string_lossy().to_string();
        if expected.exists() {
            accepted += 1;
            let want = read_json(&expected);
            assert_eq!(
                want.as_object().map(|m| m.len()),
                Some(1),
                "{name}: one tool recorded"
            );
            let Some(want_tool) = want.get(key) else {
                failures.push(format!("{name}: key `{key}` not in the recorded export"));
                continue;
            };
            match d.exported() {
                Some(tool) => {
                    if let Some(diff) = first_difference("", tool, want_tool) {
                        failures.push(format!("{name}: {diff}"));
                    }
                }
                None => failures.push(format!("{name}: refused: {:?}", d.problems)),
            }
        } else {
            rejected += 1;
            assert!(
                case.with_extension("error.txt").exists(),
                "{name}: no recorded outcome"
            );
            if let Some(tool) = d.exported() {
                failures.push(format!(
                    "{name}: cwl2mcp rejects it, but a Tool was exported: {tool}"
                ));
            }
        }
    }
    assert_eq!((accepted, rejected), (21, 33));
    assert!(
        failures.is_empty(),
        "{} of 54 cases differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn oracle_tools_are_valid_in_every_protocol_version() {
    let dir = fixtures().join("oracle-runs/cases");
    for entry in std::fs::read_dir(&dir).unwrap() {
        let case = entry.unwrap().path();
        if !case.to_string_lossy().ends_with(".cwl")
            || !case.with_extension("expected.json").exists()
        {
            continue;
        }
        let doc = Doc::load(&case);
        let (key, process) = doc.processes().remove(0);
        for version in ProtocolVersion::ALL {
            let opts = DeriveOptions {
                protocol_version: version,
                ..cwl2mcp()
            };
            let d = doc.derive(process, &key, &opts, None);
            assert!(
                d.exported().is_some(),
                "{} {}: {:?}",
                case.display(),
                version.as_str(),
                d.problems
            );
        }
    }
}

#[test]
fn rejected_cases_name_the_reason() {
    // A few rejections whose cause the engine owns: the name rules and a list `doc`.
    let dir = fixtures().join("oracle-runs/cases");
    for (case, code) in [
        ("23-name-spaces.cwl", "name-invalid"),
        ("24-name-129.cwl", "name-invalid"),
        ("29-name-uri.cwl", "name-invalid"),
        ("30-name-unicode.cwl", "name-invalid"),
        ("37-doc-list.cwl", "doc-not-string"),
        ("39-no-id-no-hint.cwl", "name-invalid"),
        ("46-name-with-colon.cwl", "name-invalid"),
        ("47-name-with-hash.cwl", "name-invalid"),
        ("07-missing-name.cwl", "missing-field"),
        ("13-description-field.cwl", "unknown-field"),
        ("17-ann-class-mcp-ToolAnnotations.cwl", "annotations-class"),
        ("21-ann-string-bool.cwl", "invalid-type"),
        ("33-title-int.cwl", "invalid-type"),
        ("54-aliases-int-item.cwl", "invalid-type"),
    ] {
        let doc = Doc::load(&dir.join(case));
        let (key, process) = doc.processes().remove(0);
        let d = doc.derive(process, &key, &cwl2mcp(), None);
        assert!(
            d.problems.iter().any(|p| p.code == code && p.blocking),
            "{case}: expected a blocking {code}, got {:?}",
            d.problems
        );
    }
}

// ---- probes recorded with cwl2ogc 0.22.2 itself ----

/// `tests/fixtures/derive/probes/*.cwl` exercise type shapes the reference runs do not
/// (unions, records, named types and their scoping, defaults). Their `*.cwl2ogc.json` were
/// recorded by running cwl2ogc 0.22.2 with cwl-utils 0.45 (`probes/record.py`).
#[test]
fn probes_match_cwl2ogc() {
    let dir = fixtures().join("probes");
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "cwl"))
        .collect();
    cases.sort();
    assert!(cases.len() >= 8);
    let mut failures = Vec::new();
    for case in &cases {
        let doc = Doc::load(case);
        let (mut key, process) = doc.processes().remove(0);
        if key.starts_with("file://") {
            // As `record.py` writes it.
            key = format!(
                "file:///probes/{}",
                case.file_name().unwrap().to_string_lossy()
            );
        }
        let d = doc.derive(process, &key, &cwl2mcp(), None);
        if case.with_extension("error.txt").exists() {
            // cwl2ogc's schema could not be serialized: the exporter fails, so we refuse.
            if d.exported().is_some() {
                failures.push(format!(
                    "{}: recorded failure, exported here",
                    case.display()
                ));
            }
            continue;
        }
        let want = read_json(&case.with_extension("cwl2ogc.json"));
        let Some(tool) = d.tool.as_ref() else {
            failures.push(format!("{}: no tool: {:?}", case.display(), d.problems));
            continue;
        };
        for schema in ["inputSchema", "outputSchema"] {
            if let Some(diff) = first_difference("", &tool[schema], &want[schema]) {
                failures.push(format!("{} {schema}: {diff}", case.display()));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

// ---- the EOAP example (bundled eoap/schemas, local imports, --meta-prefix) ----

fn eoap(file: &str, opts: &DeriveOptions) -> Value {
    let path = fixtures().join("oracle-runs/eoap").join(file);
    let doc = Doc::load(&path);
    let (key, process) = doc.processes().remove(0);
    assert_eq!(key, "main");
    let d = doc.derive(process, &key, opts, Some(&fixtures()));
    d.exported()
        .unwrap_or_else(|| panic!("{file}: refused: {:?}", d.problems))
        .clone()
}

fn assert_same(file: &str, got: &Value, want: &Value) {
    if let Some(diff) = first_difference("", got, want) {
        panic!("{file}: {diff}");
    }
}

#[test]
fn eoap_example_with_default_prefix() {
    let dir = fixtures().join("oracle-runs/eoap");
    let got = eoap("eoap.cwl", &cwl2mcp());
    assert_same(
        "eoap.cwl",
        &got,
        &read_json(&dir.join("eoap.main.default-prefix.json")),
    );
    assert_same(
        "eoap.cwl",
        &got,
        &read_json(&dir.join("eoap.document.default-prefix.json"))["main"],
    );
}

#[test]
fn eoap_example_with_meta_prefix() {
    let dir = fixtures().join("oracle-runs/eoap");
    let opts = DeriveOptions {
        meta_prefix: "org.example/mcp".into(),
        ..cwl2mcp()
    };
    let got = eoap("eoap.cwl", &opts);
    assert_same(
        "eoap.cwl",
        &got,
        &read_json(&dir.join("eoap.main.meta-prefix-org.example_mcp.json")),
    );
}

#[test]
fn eoap_commandlinetool_variant() {
    let dir = fixtures().join("oracle-runs/eoap");
    let got = eoap("eoap-commandlinetool.cwl", &cwl2mcp());
    assert_same(
        "eoap-commandlinetool.cwl",
        &got,
        &read_json(&dir.join("eoap-commandlinetool.main.default-prefix.json")),
    );
}

#[test]
fn eoap_local_imports_are_not_flattened() {
    let dir = fixtures().join("oracle-runs/eoap");
    let got = eoap("eoap-local-imports.cwl", &cwl2mcp());
    assert_same(
        "eoap-local-imports.cwl",
        &got,
        &read_json(&dir.join("eoap-local-imports.main.default-prefix.json")),
    );
}

#[test]
fn eoap_local_imports_outside_the_sandbox_are_refused() {
    // Without a sandbox the document's own folder is the limit, and `../../` leaves it.
    let path = fixtures().join("oracle-runs/eoap/eoap-local-imports.cwl");
    let doc = Doc::load(&path);
    let (key, process) = doc.processes().remove(0);
    let d = doc.derive(process, &key, &cwl2mcp(), None);
    assert!(d.exported().is_none());
    assert!(
        d.problems
            .iter()
            .any(|p| p.code == "unresolved-reference" && p.blocking),
        "{:?}",
        d.problems
    );
}

#[test]
fn eoap_under_the_extension_profile_flattens_local_and_bundled_string_formats() {
    let ext = DeriveOptions::for_profile(Profile::Extension);
    for file in ["eoap.cwl", "eoap-local-imports.cwl"] {
        let tool = eoap(file, &ext);
        let props = &tool["inputSchema"]["properties"];
        assert_eq!(
            props["source"],
            serde_json::json!({"type": "string", "format": "uri", "title": "Source URI"}),
            "{file}"
        );
        assert_eq!(
            props["timestamp"],
            serde_json::json!({"type": "string", "format": "date-time"}),
            "{file}"
        );
        assert_eq!(props["point"]["additionalProperties"], false, "{file}");
        assert_eq!(tool["name"], "inspect_source");
        assert_eq!(
            tool["description"],
            "Return a source URI, timestamp and GeoJSON point without changing their records.\n\nUse when: the user needs to inspect a spatial source.\n\nDo not use when: the user needs data modification."
        );
        assert_eq!(
            tool["_meta"],
            serde_json::json!({"io.github.eoap/cwl-mcp-extension-aliases": ["inspect a spatial source"]})
        );
        assert_eq!(
            tool["outputSchema"]["required"],
            serde_json::json!(["source_result", "timestamp_result", "point_result"])
        );
    }
}

#[test]
fn include_and_hint_schema_defs() {
    let dir = std::env::temp_dir().join(format!("cwl-mcp-derive-include-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("doc.md"), "From a file.\n").unwrap();
    std::fs::write(
        dir.join("reqs.yml"),
        "- class: SchemaDefRequirement\n  types:\n    - {name: R, type: enum, symbols: [r1]}\n",
    )
    .unwrap();
    let cwl = dir.join("t.cwl");
    std::fs::write(
        &cwl,
        "cwlVersion: v1.2\nclass: CommandLineTool\nid: t\ndoc: {$include: doc.md}\n\
         hints:\n  SchemaDefRequirement:\n    types:\n      - {name: M, type: enum, symbols: [a, b]}\n\
         requirements:\n  - $import: reqs.yml\n\
         inputs:\n  m: M\n  r: reqs.yml#R\n  bare: R\noutputs: {}\n",
    )
    .unwrap();
    let doc = Doc::load(&cwl);
    let (key, process) = doc.processes().remove(0);
    let ext = doc.derive(
        process,
        &key,
        &DeriveOptions::for_profile(Profile::Extension),
        None,
    );
    let tool = ext.exported().unwrap();
    assert_eq!(tool["description"], "From a file.");
    assert_eq!(
        tool["inputSchema"]["properties"]["m"],
        serde_json::json!({"type": "string", "enum": ["a", "b"]})
    );
    let c = doc.derive(process, &key, &cwl2mcp(), None);
    let tool = c.exported().unwrap();
    assert_eq!(tool["description"], "From a file.\n");
    assert_eq!(tool["inputSchema"]["$defs"]["m"], serde_json::json!({}));
    assert_eq!(
        tool["inputSchema"]["$defs"]["r"],
        serde_json::json!({"type": "string", "enum": ["r1"]})
    );
    // As in Salad, names inside an imported file are scoped by that file.
    assert_eq!(tool["inputSchema"]["$defs"]["bare"], serde_json::json!({}));
    let _ = std::fs::remove_dir_all(&dir);
}

// ---- the extension's own fixture ----

#[test]
fn minimal_tool_under_the_extension_profile() {
    let dir = fixtures().join("cwl2mcp/tests/fixtures");
    let doc = Doc::load(&dir.join("minimal-tool.cwl"));
    let (key, process) = doc.processes().remove(0);
    for version in ProtocolVersion::ALL {
        let opts = DeriveOptions {
            protocol_version: version,
            ..DeriveOptions::for_profile(Profile::Extension)
        };
        let d = doc.derive(process, &key, &opts, None);
        assert!(d.problems.is_empty(), "{:?}", d.problems);
        let got = d.exported().expect("exported");
        assert_same(
            "minimal-tool.cwl",
            got,
            &read_json(&dir.join("minimal-tool.mcp.json")),
        );
    }
    // The same fixture fails cwl2mcp 0.1.0 (missing name, aliases, useWhen, doNotUseWhen).
    let d = doc.derive(process, &key, &cwl2mcp(), None);
    assert!(d.exported().is_none());
    let missing = d
        .problems
        .iter()
        .filter(|p| p.code == "missing-field")
        .count();
    assert_eq!(missing, 4, "{:?}", d.problems);
}

#[test]
fn recursive_types_are_refused_under_cwl2mcp_and_use_refs_under_extension() {
    let dir = fixtures().join("cwl2mcp/tests/fixtures");
    let doc = Doc::load(&dir.join("types.cwl"));
    let (key, process) = doc.processes().remove(0);
    let d = doc.derive(process, &key, &cwl2mcp(), None);
    assert!(d.exported().is_none());
    assert!(
        d.problems
            .iter()
            .any(|p| p.code == "recursive-type" && p.blocking),
        "{:?}",
        d.problems
    );

    let d = doc.derive(
        process,
        &key,
        &DeriveOptions::for_profile(Profile::Extension),
        None,
    );
    let tool = d.exported().unwrap_or_else(|| panic!("{:?}", d.problems));
    let schema = &tool["inputSchema"];
    assert_eq!(schema["properties"]["tree"]["$ref"], "#/$defs/Node");
    let node = &schema["$defs"]["Node"];
    assert_eq!(
        node["properties"]["children"]["items"]["$ref"],
        "#/$defs/Node"
    );
    assert_eq!(node["additionalProperties"], false);
}

// ---- second tier: the recorded export of the real corpus ----

/// Documents that are compared although they have several processes are `$graph` documents;
/// documents whose steps `run:` other files or carry inline processes are left out (their
/// keys and extra processes belong to the CWL view).
fn has_run(v: &Value, depth: usize) -> bool {
    if depth > 64 {
        return true;
    }
    match v {
        Value::Object(m) => {
            if let Some(run) = m.get("run")
                && !run.as_str().is_some_and(|s| s.starts_with('#'))
            {
                return true;
            }
            m.values().any(|x| has_run(x, depth + 1))
        }
        Value::Array(a) => a.iter().any(|x| has_run(x, depth + 1)),
        _ => false,
    }
}

/// Known, justified differences (path relative to `corpus/real/`, reason).
const CORPUS_EXCLUSIONS: &[(&str, &str)] = &[];

#[test]
fn corpus_exports_match_where_comparable() {
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared");
    let runs = shared.join("reference/cwl2mcp-0.1.0-corpus-runs");
    let corpus = shared.join("corpus/real");
    if !runs.join("runs.tsv").exists() || !corpus.exists() {
        println!(
            "SKIPPED: {} is absent; the corpus comparison needs ../shared",
            shared.display()
        );
        return;
    }
    let tsv = std::fs::read_to_string(runs.join("runs.tsv")).unwrap();
    let exclusions: BTreeMap<&str, &str> = CORPUS_EXCLUSIONS.iter().copied().collect();
    let (mut matched, mut skipped, mut excluded) = (0, 0, 0);
    let mut mismatches = Vec::new();
    let mut refused_ok = Vec::new();
    for line in tsv.lines().skip(1) {
        let cols: Vec<&str> = line.split('\t').collect();
        if cols.get(1) != Some(&"ok") {
            continue;
        }
        let rel = cols[0];
        let path = corpus.join(rel);
        let Ok(root) = read_yaml(&path) else {
            mismatches.push(format!("{rel}: not parsed"));
            continue;
        };
        if has_run(&root, 0) {
            skipped += 1;
            continue;
        }
        if exclusions.contains_key(rel) {
            excluded += 1;
            continue;
        }
        let doc = Doc {
            root,
            path: path.clone(),
        };
        let want = read_json(&runs.join(format!("{rel}.export.json")));
        let processes = doc.processes();
        let got_keys: Vec<&str> = processes.iter().map(|(k, _)| k.as_str()).collect();
        let want_keys: Vec<&str> = want
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        let mut sorted = got_keys.clone();
        sorted.sort();
        if sorted != want_keys {
            mismatches.push(format!(
                "{rel}: processes {got_keys:?}, recorded {want_keys:?}"
            ));
            continue;
        }
        let mut same = true;
        for (key, process) in &processes {
            let d = doc.derive(process, key, &cwl2mcp(), Some(&corpus));
            match d.exported() {
                Some(tool) => {
                    if let Some(diff) = first_difference("", tool, &want[key.as_str()]) {
                        mismatches.push(format!("{rel} [{key}]: {diff}"));
                        same = false;
                    }
                }
                None => {
                    refused_ok.push(format!("{rel} [{key}]: {:?}", d.problems));
                    same = false;
                }
            }
        }
        if same {
            matched += 1;
        }
    }
    println!(
        "corpus: {matched} documents match, {} differ, {} refused, {skipped} skipped (run:), {excluded} excluded",
        mismatches.len(),
        refused_ok.len()
    );
    let all: Vec<String> = mismatches.into_iter().chain(refused_ok).collect();
    assert!(
        all.is_empty(),
        "{} differences:\n{}",
        all.len(),
        all.join("\n")
    );
    assert!(matched > 0);
}

/// Every process of every corpus file (root, `$graph` entries, inline `run:` processes) under
/// both profiles: no panic; under `extension` every Tool that is built passes the MCP schema of
/// every version (only the name may be refused); under `cwl2mcp`, every document whose own
/// process the exporter failed to convert is refused here too.
#[test]
fn corpus_derivation_is_total_and_schema_valid() {
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared");
    let corpus = shared.join("corpus/real");
    let runs = shared.join("reference/cwl2mcp-0.1.0-corpus-runs/runs.tsv");
    if !corpus.exists() || !runs.exists() {
        println!(
            "SKIPPED: {} is absent; the corpus sweep needs ../shared",
            shared.display()
        );
        return;
    }
    let mut files = Vec::new();
    let mut stack = vec![corpus.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let p = entry.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|e| e == "cwl") {
                files.push(p);
            }
        }
    }
    files.sort();
    let (mut processes, mut tools, mut invalid) = (0, 0, Vec::new());
    for path in &files {
        let Ok(root) = read_yaml(path) else { continue };
        let doc = Doc {
            root,
            path: path.clone(),
        };
        processes += doc
            .derive_all(
                &DeriveOptions::for_profile(Profile::Extension),
                Some(&corpus),
            )
            .len();
        for version in ProtocolVersion::ALL {
            let opts = DeriveOptions {
                protocol_version: version,
                ..DeriveOptions::for_profile(Profile::Extension)
            };
            for (key, d) in doc.derive_all(&opts, Some(&corpus)) {
                if let Some(tool) = &d.tool {
                    tools += 1;
                    for p in d.problems.iter().filter(|p| p.code == "mcp-schema") {
                        invalid.push(format!(
                            "{} [{key}] {}: {} {tool}",
                            path.display(),
                            version.as_str(),
                            p.message
                        ));
                    }
                }
            }
            let _ = doc.derive_all(
                &DeriveOptions {
                    protocol_version: version,
                    ..cwl2mcp()
                },
                Some(&corpus),
            );
        }
    }
    // Convert-stage failures of the document's own single process are refused here too.
    let tsv = std::fs::read_to_string(&runs).unwrap();
    let mut parity = Vec::new();
    let mut checked = 0;
    for line in tsv.lines().skip(1) {
        let cols: Vec<&str> = line.split('\t').collect();
        if cols.len() < 6 || cols[1] != "error" || cols[3] != "convert" {
            continue;
        }
        let path = corpus.join(cols[0]);
        let Ok(root) = read_yaml(&path) else { continue };
        if has_run(&root, 0) || root.get("$graph").is_some() {
            continue;
        }
        let doc = Doc {
            root,
            path: path.clone(),
        };
        let Some((key, process)) = doc.processes().into_iter().next() else {
            continue;
        };
        checked += 1;
        let d = doc.derive(process, &key, &cwl2mcp(), Some(&corpus));
        if d.exported().is_some() {
            parity.push(format!(
                "{}: cwl2mcp failed ({}), exported here",
                cols[0], cols[2]
            ));
        }
    }
    println!(
        "corpus sweep: {} files, {processes} processes, {tools} tools built; {checked} convert-stage rejections checked",
        files.len()
    );
    assert!(
        invalid.is_empty(),
        "{} schema failures:\n{}",
        invalid.len(),
        invalid.join("\n")
    );
    assert!(
        parity.is_empty(),
        "{} parity failures:\n{}",
        parity.len(),
        parity.join("\n")
    );
    assert!(checked > 600, "only {checked} rejections checked");
}

/// Why the exporter refused a document that the `cwl2mcp` profile exports: failures of its
/// loaders that the profile does not model (docs/derivation.md, "Known limits").
const SALAD: &str = "Schema Salad validation of the CWL document (`Value is a array, but valid \
                     type for this field is an object`)";
const REQUIREMENT: &str = "cwl-loader's revalidation of a requirement (invalid fields in \
                           SchemaDefRequirement / EnvVarRequirement / InitialWorkDirRequirement)";
const KEYERROR: &str = "cwl-loader's KeyError on a packed `$import: '#…'` of a hint";
const UPGRADER: &str = "cwl-upgrader's crash on a v1.0 Workflow whose steps `run:` files \
                        (`'LineCol' object has no attribute 'filename'`)";
const ENTRY_POINT: &str = "a `run:` to a multi-process `$graph` file without `#fragment` \
                           (`No entry point provided`)";
const FILE_DEFAULT: &str = "a File default whose `location` exists outside the read boundary \
                            (`/etc/ssl/certs/…`): the exporter's result depends on the machine";

/// Documents the exporter rejects at load (or on a machine-dependent default) and the
/// `cwl2mcp` profile exports, each with the reason.
const LOAD_DIFFERENCES: &[(&str, &str)] = &[
    ("Duke-GCB__bespin-cwl/packed/exomeseq.cwl", REQUIREMENT),
    (
        "Duke-GCB__bespin-cwl/packed/qiime2-step1-import-demux-paired.cwl",
        KEYERROR,
    ),
    (
        "Duke-GCB__bespin-cwl/packed/qiime2-step1-import-demux.cwl",
        KEYERROR,
    ),
    (
        "Duke-GCB__bespin-cwl/packed/qiime2-step2-dada2-paired.cwl",
        KEYERROR,
    ),
    (
        "Duke-GCB__bespin-cwl/packed/qiime2-step2-dada2.cwl",
        KEYERROR,
    ),
    (
        "Duke-GCB__bespin-cwl/packed/qiime2-step2-deblur.cwl",
        KEYERROR,
    ),
    (
        "Duke-GCB__bespin-cwl/packed/qiime2-step3-alpha-analysis.cwl",
        KEYERROR,
    ),
    ("Duke-GCB__bespin-cwl/packed/rnaseq-pt1.cwl", REQUIREMENT),
    ("EOEPCA__eoap-cwlwrap/current.cwl", SALAD),
    ("EOEPCA__eoap-cwlwrap/tests/pattern-10/expected.cwl", SALAD),
    ("EOEPCA__eoap-cwlwrap/tests/pattern-11/expected.cwl", SALAD),
    ("EOEPCA__eoap-cwlwrap/tests/pattern-2/expected.cwl", SALAD),
    ("EOEPCA__eoap-cwlwrap/tests/pattern-3/expected.cwl", SALAD),
    ("EOEPCA__eoap-cwlwrap/tests/pattern-4/expected.cwl", SALAD),
    ("EOEPCA__eoap-cwlwrap/tests/pattern-5/expected.cwl", SALAD),
    ("EOEPCA__eoap-cwlwrap/tests/pattern-6/expected.cwl", SALAD),
    ("EOEPCA__eoap-cwlwrap/tests/pattern-7/expected.cwl", SALAD),
    ("EOEPCA__eoap-cwlwrap/tests/pattern-8/expected.cwl", SALAD),
    ("EOEPCA__eoap-cwlwrap/tests/pattern-9/expected.cwl", SALAD),
    (
        "EOEPCA__proc-ades/charts/ades/files/cwl/stagein/terradue_stars_t2_latest.cwl",
        SALAD,
    ),
    (
        "EOEPCA__proc-ades/travis/transational/test.cwl",
        REQUIREMENT,
    ),
    (
        "NCI-GDC__gdc-dnaseq-cwl/subworkflows/extract/extract_capture_kit.cwl",
        UPGRADER,
    ),
    (
        "NCI-GDC__gdc-dnaseq-cwl/subworkflows/metrics/amplicon_metrics.cwl",
        UPGRADER,
    ),
    (
        "NCI-GDC__gdc-dnaseq-cwl/subworkflows/metrics/exome_metrics.cwl",
        UPGRADER,
    ),
    (
        "NCI-GDC__gdc-dnaseq-cwl/subworkflows/utils/fastq_clean.cwl",
        UPGRADER,
    ),
    (
        "NCI-GDC__gdc-dnaseq-cwl/subworkflows/utils/merge_fastq_array_workflow.cwl",
        UPGRADER,
    ),
    (
        "NCI-GDC__gdc-dnaseq-cwl/subworkflows/utils/readgroups_bam_to_readgroups_fastq_lists.cwl",
        UPGRADER,
    ),
    (
        "NCI-GDC__gdc-dnaseq-cwl/tools/bio_client_download.cwl",
        FILE_DEFAULT,
    ),
    (
        "common-workflow-language__cwl-utils/src/cwl_utils/testdata/revsort-run-1-packed.cwl",
        SALAD,
    ),
    (
        "common-workflow-language__cwltool/tests/wf/packed-with-loadlisting.cwl",
        UPGRADER,
    ),
    (
        "common-workflow-language__cwltool/tests/wf/schemadef-bug-1473.cwl",
        REQUIREMENT,
    ),
    (
        "kids-first__kf-alignment-workflow/subworkflows/kfdrc_bam_to_gvcf.cwl",
        UPGRADER,
    ),
    (
        "kids-first__kf-alignment-workflow/subworkflows/kfdrc_process_pe_readslist2.cwl",
        UPGRADER,
    ),
    (
        "kids-first__kf-alignment-workflow/subworkflows/kfdrc_process_pe_set.cwl",
        UPGRADER,
    ),
    (
        "kids-first__kf-alignment-workflow/subworkflows/kfdrc_process_se_readslist2.cwl",
        ENTRY_POINT,
    ),
    (
        "kids-first__kf-alignment-workflow/tools/python_createsequencegroups.cwl",
        REQUIREMENT,
    ),
];

/// The whole-document export as a user runs it (`derive --all --profile cwl2mcp FILE`, from the
/// corpus root as the recorded runs were), over every file of the recorded runs: `run:` files
/// followed. Every accepted document gives exactly the recorded `{key: Tool}` map; every
/// rejected one is refused (exit 1).
#[test]
fn corpus_whole_document_exports_match_the_recorded_runs() {
    use cwl_mcp_lsp::base::project::Layer;
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared");
    let runs = shared.join("reference/cwl2mcp-0.1.0-corpus-runs");
    let corpus = shared.join("corpus/real");
    if !runs.join("runs.tsv").exists() || !corpus.exists() {
        println!(
            "SKIPPED: {} is absent; the whole-document comparison needs ../shared",
            shared.display()
        );
        return;
    }
    let corpus = std::fs::canonicalize(&corpus).unwrap();
    let ours = format!("file://{}", corpus.display());
    let layer = Layer {
        profile: Some(Profile::Cwl2mcp),
        ..Layer::default()
    };
    let tsv = std::fs::read_to_string(runs.join("runs.tsv")).unwrap();
    let known: BTreeMap<&str, &str> = LOAD_DIFFERENCES.iter().copied().collect();
    let mut known_seen = 0;
    let (mut accepted, mut rejected, mut with_run) = (0, 0, 0);
    let mut wrong = Vec::new();
    for line in tsv.lines().skip(1) {
        let cols: Vec<&str> = line.split('\t').collect();
        let (rel, status) = (cols[0], cols[1]);
        let path = corpus.join(rel);
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let code = cwl_mcp_lsp::cli::derive::run_derive_within(
            path.to_str().unwrap(),
            true,
            &layer,
            std::slice::from_ref(&corpus),
            &mut out,
            &mut err,
        );
        let err = String::from_utf8_lossy(&err).replace(&ours, "file:///corpus/real");
        if std::fs::read_to_string(&path).is_ok_and(|t| t.contains("run:")) {
            with_run += 1;
        }
        match status {
            "ok" => {
                if code != 0 {
                    wrong.push(format!("{rel}: recorded ok, refused: {err}"));
                    continue;
                }
                let got: Value = serde_json::from_str(
                    &String::from_utf8_lossy(&out).replace(&ours, "file:///corpus/real"),
                )
                .unwrap();
                let want = read_json(&runs.join(format!("{rel}.export.json")));
                match first_difference("", &got, &want) {
                    None => accepted += 1,
                    Some(d) => wrong.push(format!("{rel}: {d}")),
                }
            }
            _ => {
                if code == 0 && known.contains_key(rel) {
                    known_seen += 1;
                } else if code == 0 {
                    wrong.push(format!(
                        "{rel}: recorded {status} ({} at {}: {}), exported",
                        cols[2], cols[3], cols[4]
                    ));
                } else {
                    rejected += 1;
                }
            }
        }
    }
    println!(
        "corpus whole-document exports: {accepted} accepted alike, {rejected} rejected alike, \
         {known_seen} known load differences, {} differ ({with_run} files have `run:`)",
        wrong.len()
    );
    // A known difference that is gone is news too: the list must shrink with it.
    assert_eq!(
        known_seen,
        known.len(),
        "a known load difference no longer differs"
    );
    assert!(
        wrong.is_empty(),
        "{} differences:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}
