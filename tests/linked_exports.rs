//! Under `cwl2mcp` the export of a document holds the files its steps `run:` (SPEC §10, issue
//! 10 item 4): `derive --all` and `tools-list` export their processes, and one that cannot be
//! exported fails the document — in `check`, `derive`, `tools-list` and the editor alike,
//! with the failing file as related information; fixed on disk, the error goes.
mod common;

use std::path::{Path, PathBuf};

use common::lsp_client::{LspClient, WAIT};
use common::{cli as run, uri};
use serde_json::{Value, json};

const WORKFLOW: &str = "cwlVersion: v1.2\nclass: Workflow\nid: wf\nlabel: Both tools\n\
doc: Runs t then u.\ninputs:\n  msg: string\noutputs: []\nsteps:\n  s1:\n    run: tools/t.cwl\n    \
in: {msg: msg}\n    out: []\n  s2:\n    run: tools/u.cwl\n    in: {msg: msg}\n    out: []\n";

fn tool(id: Option<&str>) -> String {
    format!(
        "cwlVersion: v1.2\nclass: CommandLineTool\n{}label: T\ndoc: Echoes.\nbaseCommand: echo\n\
         inputs:\n  msg: string\noutputs: []\n",
        id.map(|i| format!("id: {i}\n")).unwrap_or_default()
    )
}

/// `wf.cwl` runs `tools/t.cwl` (id `t`) and `tools/u.cwl` (no `id`: its cwl2mcp name is its
/// file URI, which MCP refuses), under a `cwl-mcp.toml` selecting `cwl2mcp`.
fn folder(name: &str) -> PathBuf {
    let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("linked-{name}"));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(root.join("tools")).unwrap();
    std::fs::write(root.join("cwl-mcp.toml"), "profile = \"cwl2mcp\"\n").unwrap();
    std::fs::write(root.join("wf.cwl"), WORKFLOW).unwrap();
    std::fs::write(root.join("tools/t.cwl"), tool(Some("t"))).unwrap();
    std::fs::write(root.join("tools/u.cwl"), tool(None)).unwrap();
    root
}

#[test]
fn check_derive_and_tools_list_follow_run_files_alike() {
    let root = folder("cli");
    let (code, out, _) = run(&root, &["check", "wf.cwl"]);
    assert_eq!(code, 1, "{out}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 1, "{out}");
    assert!(
        lines[0].starts_with(
            "wf.cwl:15:10: error[name-invalid]: cwl2mcp exports the processes \
             of `run:` files with this document, and `tools/u.cwl` cannot be exported: line 2:"
        ),
        "{out}"
    );
    // The same refusal from `derive` and `tools-list`.
    let (code, out, err) = run(&root, &["derive", "--all", "wf.cwl"]);
    assert_eq!((code, out.as_str()), (1, ""), "{err}");
    assert!(err.contains("wf.cwl:15:10: error[name-invalid]"), "{err}");
    let (code, out, err) = run(&root, &["tools-list", "wf.cwl"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("wf.cwl:15:10: error[name-invalid]"), "{err}");
    let served: Value = serde_json::from_str(&out).unwrap();
    let names: Vec<&str> = served["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert!(
        names.is_empty(),
        "a failed export serves nothing: {names:?}"
    );
    // Fixed: the whole document is exported, the `run:` files' processes with it.
    std::fs::write(root.join("tools/u.cwl"), tool(Some("u"))).unwrap();
    let (code, out, _) = run(&root, &["check", "wf.cwl"]);
    assert_eq!((code, out.as_str()), (0, ""));
    let (code, out, err) = run(&root, &["derive", "--all", "wf.cwl"]);
    assert_eq!(code, 0, "{err}");
    let all: Value = serde_json::from_str(&out).unwrap();
    let mut keys: Vec<&String> = all.as_object().unwrap().keys().collect();
    keys.sort();
    assert_eq!(keys, ["t", "u", "wf"]);
    assert_eq!(all["u"]["name"], "u");
    assert_eq!(all["t"]["inputSchema"]["required"], json!(["msg"]));
    // One Tool per process, whether the folder or the workflow alone is listed.
    for given in [".", "wf.cwl"] {
        let (code, out, err) = run(&root, &["tools-list", given]);
        assert_eq!(code, 0, "{err}");
        let served: Value = serde_json::from_str(&out).unwrap();
        let mut names: Vec<&str> = served["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap())
            .collect();
        names.sort();
        assert_eq!(names, ["t", "u", "wf"], "{given}");
    }
    // Under `extension` the `run:` files are not part of the document's export.
    let (code, out, _) = run(
        &root,
        &["derive", "--all", "--profile", "extension", "wf.cwl"],
    );
    assert_eq!(code, 0);
    let all: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(all.as_object().unwrap().len(), 1, "{all}");
}

fn linked(diags: &Value) -> Vec<Value> {
    diags
        .as_array()
        .into_iter()
        .flatten()
        .filter(|d| {
            d["message"]
                .as_str()
                .is_some_and(|m| m.starts_with("cwl2mcp exports the processes of `run:` files"))
        })
        .cloned()
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_editor_shows_the_same_error_and_clears_it_when_the_file_is_fixed() {
    let root = folder("lsp");
    let mut client = LspClient::in_process();
    client
        .initialize_folder(
            &root,
            json!({
                "textDocument": {"publishDiagnostics": {"relatedInformation": true}},
                "window": {"workDoneProgress": true},
                "workspace": {"workspaceFolders": true,
                              "didChangeWatchedFiles": {"dynamicRegistration": true}},
            }),
        )
        .await;
    client
        .next_notification("$/progress", WAIT, |p| p["value"]["kind"] == "end")
        .await
        .expect("the index is built");
    let wf = uri(&root.join("wf.cwl"));
    let u = uri(&root.join("tools/u.cwl"));
    client.open(&wf, WORKFLOW).await;
    let mut found = Vec::new();
    for _ in 0..5 {
        let Some(p) = client.diagnostics(&wf, None).await else {
            break;
        };
        found = linked(&p["diagnostics"]);
        if !found.is_empty() {
            break;
        }
    }
    assert_eq!(found.len(), 1, "{found:?}");
    let d = &found[0];
    assert_eq!(d["code"], "name-invalid");
    assert_eq!(d["severity"], 1);
    assert_eq!(d["range"]["start"], json!({"line": 14, "character": 9}));
    assert_eq!(d["relatedInformation"][0]["location"]["uri"], u.as_str());
    assert_eq!(
        d["relatedInformation"][0]["location"]["range"]["start"]["line"],
        1
    );
    // Fixed on disk: the workflow's error goes with the next publish.
    std::fs::write(root.join("tools/u.cwl"), tool(Some("u"))).unwrap();
    client
        .notify(
            "workspace/didChangeWatchedFiles",
            json!({"changes": [{"uri": u, "type": 2}]}),
        )
        .await;
    // Publishes already on their way (the open's own, the index's re-publish) may
    // still carry the error; the fix must clear it within the next few.
    let mut last = Value::Null;
    for _ in 0..5 {
        let Some(p) = client.diagnostics(&wf, None).await else {
            break;
        };
        let cleared = linked(&p["diagnostics"]).is_empty();
        last = p;
        if cleared {
            break;
        }
    }
    assert!(linked(&last["diagnostics"]).is_empty(), "{last}");
    client.shutdown().await;
}
