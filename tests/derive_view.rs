//! Derivation end to end through the real YAML tree and CWL view (`YamlDoc`, `CwlView`,
//! `process_hints`), against the recorded cwl2mcp 0.1.0 outputs.
use std::path::{Path, PathBuf};

use cwl_mcp_lsp::base::DocumentContext;
use cwl_mcp_lsp::base::settings::{Profile, Settings};
use cwl_mcp_lsp::derive::{Derivation, DeriveOptions, Problem};
use cwl_mcp_lsp::model::Model;
use serde_json::{Map, Value};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/derive")
}

/// `{key: Derivation}` for every process the view finds, through the model (the hint's
/// values and its refusing diagnostics come from the hint rules; those are listed here among
/// the derivation's problems, as blocking ones).
fn derive_all(path: &Path, sandbox: &Path, opts: &DeriveOptions) -> Vec<(String, Derivation)> {
    let text = std::fs::read_to_string(path).unwrap();
    let settings = Settings {
        profile: opts.profile,
        meta_prefix: Some(opts.meta_prefix.clone()),
        protocol_version: opts.protocol_version,
        ..Settings::default()
    };
    let context = DocumentContext::from_path(path).within(Some(sandbox.to_path_buf()));
    let model = Model::of_text(&text, settings, context);
    model
        .entries()
        .map(|e| {
            let mut d = e.to_derivation();
            d.problems.extend(e.blocked_by.iter().map(|b| Problem {
                code: b.code,
                message: b.message.clone(),
                path: Vec::new(),
                blocking: true,
            }));
            (e.key.clone(), d)
        })
        .collect()
}

fn compare(path: &Path, sandbox: &Path, want: &Map<String, Value>) -> Result<(), String> {
    let got = derive_all(path, sandbox, &DeriveOptions::for_profile(Profile::Cwl2mcp));
    let mut keys: Vec<&str> = got.iter().map(|(k, _)| k.as_str()).collect();
    keys.sort();
    let want_keys: Vec<&str> = want.keys().map(String::as_str).collect();
    if keys != want_keys {
        return Err(format!("processes {keys:?}, recorded {want_keys:?}"));
    }
    for (key, d) in &got {
        match d.exported() {
            Some(tool) if tool == &want[key.as_str()] => {}
            Some(tool) => return Err(format!("[{key}] got {tool}, want {}", want[key.as_str()])),
            None => return Err(format!("[{key}] refused: {:?}", d.problems)),
        }
    }
    Ok(())
}

#[test]
fn oracle_cases_through_the_view() {
    let dir = fixtures().join("oracle-runs/cases");
    let mut failures = Vec::new();
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let case = entry.unwrap().path();
        if case.extension().is_none_or(|e| e != "cwl") {
            continue;
        }
        n += 1;
        let expected = case.with_extension("expected.json");
        if expected.exists() {
            let want: Value =
                serde_json::from_str(&std::fs::read_to_string(&expected).unwrap()).unwrap();
            if let Err(e) = compare(&case, &dir, want.as_object().unwrap()) {
                failures.push(format!("{}: {e}", case.display()));
            }
        } else {
            let got = derive_all(&case, &dir, &DeriveOptions::for_profile(Profile::Cwl2mcp));
            if got.iter().all(|(_, d)| d.exported().is_some()) {
                failures.push(format!(
                    "{}: rejected by cwl2mcp, exported here",
                    case.display()
                ));
            }
        }
    }
    assert_eq!(n, 54);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn eoap_document_export_through_the_view() {
    let dir = fixtures().join("oracle-runs/eoap");
    let want: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("eoap.document.default-prefix.json")).unwrap(),
    )
    .unwrap();
    compare(
        &dir.join("eoap.cwl"),
        &fixtures(),
        want.as_object().unwrap(),
    )
    .unwrap();
}

/// Steps that `run:` another file bring that file's processes into the export; the view
/// does not load them, so those documents are left out.
fn runs_a_file(v: &Value, depth: usize) -> bool {
    match v {
        _ if depth > 64 => true,
        Value::Object(m) => {
            m.get("run")
                .and_then(Value::as_str)
                .is_some_and(|s| !s.starts_with('#'))
                || m.values().any(|x| runs_a_file(x, depth + 1))
        }
        Value::Array(a) => a.iter().any(|x| runs_a_file(x, depth + 1)),
        _ => false,
    }
}

#[test]
fn corpus_exports_through_the_view() {
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
    let (mut matched, mut skipped) = (0, 0);
    let mut failures = Vec::new();
    for line in tsv.lines().skip(1) {
        let cols: Vec<&str> = line.split('\t').collect();
        if cols.get(1) != Some(&"ok") {
            continue;
        }
        let path = corpus.join(cols[0]);
        let yaml =
            cwl_mcp_lsp::document::yaml::YamlDoc::parse(&std::fs::read_to_string(&path).unwrap());
        if yaml.to_json().is_none_or(|root| runs_a_file(&root, 0)) {
            skipped += 1;
            continue;
        }
        let want: Value = serde_json::from_str(
            &std::fs::read_to_string(runs.join(format!("{}.export.json", cols[0]))).unwrap(),
        )
        .unwrap();
        match compare(&path, &corpus, want.as_object().unwrap()) {
            Ok(()) => matched += 1,
            Err(e) => failures.push(format!("{}: {e}", cols[0])),
        }
    }
    println!(
        "corpus through the view: {matched} match, {} differ, {skipped} skipped (run: files)",
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(matched >= 129);
}

/// Refusals and diagnostics agree on the oracle cases: under `cwl2mcp` a document is refused
/// exactly when the analysis has an error (SPEC §5's one exception, `hint-in-requirements`,
/// aside), and every reason of a refusal is among the errors, with the same code.
#[test]
fn derivation_and_view_diagnostics_agree_on_the_oracle_cases() {
    use cwl_mcp_lsp::base::Severity;
    use cwl_mcp_lsp::document::Snapshot;
    use cwl_mcp_lsp::model;
    let dir = fixtures().join("oracle-runs/cases");
    let mut failures = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let case = entry.unwrap().path();
        if case.extension().is_none_or(|e| e != "cwl") {
            continue;
        }
        let text = std::fs::read_to_string(&case).unwrap();
        for profile in [Profile::Cwl2mcp, Profile::Extension] {
            let settings = Settings {
                profile,
                ..Settings::default()
            };
            let snapshot = Snapshot::parse(&text, 0);
            let context = DocumentContext::from_path(&case);
            let diags = model::diagnostics(&snapshot, &settings, &context);
            let errors: Vec<cwl_mcp_lsp::base::Code> = diags
                .iter()
                .filter(|d| d.severity == Severity::Error)
                .map(|d| d.code)
                .collect();
            let derived = derive_all(&case, &dir, &DeriveOptions::for_profile(profile));
            let refused = derived.iter().any(|(_, d)| d.exported().is_none());
            let name = case.file_name().unwrap().to_string_lossy();
            let exception = errors == ["hint-in-requirements"];
            if profile == Profile::Cwl2mcp && refused == errors.is_empty() && !exception {
                failures.push(format!(
                    "{name} ({profile:?}): refused={refused}, errors={errors:?}"
                ));
            }
            // Every reason a Tool is refused is an error diagnostic of the same code (under
            // cwl2mcp every process is diagnosed).
            for (_, d) in derived.iter().filter(|_| profile == Profile::Cwl2mcp) {
                for p in d.problems.iter().filter(|p| p.blocking) {
                    if !errors.contains(&p.code) {
                        failures.push(format!(
                            "{name} ({profile:?}): derive {} not among {errors:?}: {}",
                            p.code, p.message
                        ));
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// No false refusals: under `cwl2mcp`, whenever derivation refuses a process of a corpus
/// document, the exporter failed on that document too.
#[test]
fn corpus_refusals_are_exporter_failures() {
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared");
    let runs = shared.join("reference/cwl2mcp-0.1.0-corpus-runs/runs.tsv");
    let corpus = shared.join("corpus/real");
    if !runs.exists() || !corpus.exists() {
        println!(
            "SKIPPED: {} is absent; the corpus comparison needs ../shared",
            shared.display()
        );
        return;
    }
    let tsv = std::fs::read_to_string(&runs).unwrap();
    let (mut refused, mut agreed) = (0, 0);
    let mut failures = Vec::new();
    for line in tsv.lines().skip(1) {
        let cols: Vec<&str> = line.split('\t').collect();
        if cols.len() < 2 {
            continue;
        }
        let path = corpus.join(cols[0]);
        let derived = derive_all(
            &path,
            &corpus,
            &DeriveOptions::for_profile(Profile::Cwl2mcp),
        );
        let Some((key, d)) = derived.iter().find(|(_, d)| d.exported().is_none()) else {
            continue;
        };
        refused += 1;
        if cols[1] == "ok" {
            failures.push(format!(
                "{} [{key}]: exported by cwl2mcp, refused here: {:?}",
                cols[0], d.problems
            ));
        } else {
            agreed += 1;
        }
    }
    println!("corpus refusals: {refused} documents refused, {agreed} of them failed in cwl2mcp");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(refused > 700);
}

/// The probes recorded with cwl2ogc 0.22.2 (see `probes/README.md`), through the view: the
/// root process and every inline `run:` process with an id.
#[test]
fn probes_through_the_view() {
    let dir = fixtures().join("probes");
    let mut failures = Vec::new();
    let mut inline_checked = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let case = entry.unwrap().path();
        if case.extension().is_none_or(|e| e != "cwl") {
            continue;
        }
        let got = derive_all(&case, &dir, &DeriveOptions::for_profile(Profile::Cwl2mcp));
        if case.with_extension("error.txt").exists() {
            if got.iter().all(|(_, d)| d.exported().is_some()) {
                failures.push(format!(
                    "{}: recorded failure, exported here",
                    case.display()
                ));
            }
            continue;
        }
        let want: Value = serde_json::from_str(
            &std::fs::read_to_string(case.with_extension("cwl2ogc.json")).unwrap(),
        )
        .unwrap();
        for (i, (key, d)) in got.iter().enumerate() {
            let expected = if i == 0 {
                &want
            } else {
                match want.get("inline").and_then(|m| m.get(key.as_str())) {
                    Some(w) => {
                        inline_checked += 1;
                        w
                    }
                    None => continue,
                }
            };
            let Some(tool) = &d.tool else {
                failures.push(format!("{} [{key}]: no tool", case.display()));
                continue;
            };
            for schema in ["inputSchema", "outputSchema"] {
                let mut got_schema = tool[schema].clone();
                if i == 0 && key.starts_with("file://") {
                    // `record.py` keys a process without id under `file:///probes/`.
                    let text = serde_json::to_string(&got_schema).unwrap().replace(
                        key.as_str(),
                        &format!(
                            "file:///probes/{}",
                            case.file_name().unwrap().to_string_lossy()
                        ),
                    );
                    got_schema = serde_json::from_str(&text).unwrap();
                }
                if got_schema != expected[schema] {
                    failures.push(format!(
                        "{} [{key}] {schema}: got {got_schema}, want {}",
                        case.display(),
                        expected[schema]
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(inline_checked, 2);
}
