//! The workspace index over the protocol (SPEC §10, issue 10): a duplicate Tool name with a
//! file that is not open is reported with `relatedInformation` to that file and line, and
//! cleared when the file is deleted on disk (`workspace/didChangeWatchedFiles`); the index
//! reports work-done progress; push and pull clients alike; `check DIR` agrees.
mod common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use common::lsp_client::{LspClient, WAIT};
use common::uri;
use serde_json::{Value, json};

fn tool(id: &str, name: &str) -> String {
    format!(
        "cwlVersion: v1.2\nclass: CommandLineTool\nid: {id}\nlabel: {id}\ndoc: {id}.\n\
         $namespaces:\n  mcp: https://eoap.github.io/cwl-mcp-extension#\nhints:\n  mcp:Tool:\n    \
         name: {name}\nbaseCommand: echo\ninputs: {{}}\noutputs: {{}}\n"
    )
}

fn folder(name: &str) -> PathBuf {
    let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("workspace-{name}"));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(root.join("tools")).unwrap();
    std::fs::write(root.join("a.cwl"), tool("a", "echo")).unwrap();
    std::fs::write(root.join("tools/b.cwl"), tool("b", "echo")).unwrap();
    std::fs::write(root.join("c.cwl"), tool("c", "other")).unwrap();
    // Ignored by `.gitignore`: never part of the workspace.
    std::fs::create_dir_all(root.join("build")).unwrap();
    std::fs::write(root.join("build/copy.cwl"), tool("a", "echo")).unwrap();
    std::fs::write(root.join(".gitignore"), "build/\n").unwrap();
    root
}

fn duplicates(diags: &Value) -> Vec<Value> {
    diags
        .as_array()
        .into_iter()
        .flatten()
        .filter(|d| d["code"] == "tool-name-duplicate")
        .cloned()
        .collect()
}

async fn start(root: &Path, pull: bool) -> LspClient {
    let mut client = LspClient::in_process();
    let mut text_document =
        json!({"publishDiagnostics": {"versionSupport": true, "relatedInformation": true}});
    if pull {
        text_document["diagnostic"] = json!({"dynamicRegistration": false});
    }
    client
        .initialize_folder(
            root,
            json!({
                "textDocument": text_document,
                "window": {"workDoneProgress": true},
                "workspace": {
                    "workspaceFolders": true,
                    "didChangeWatchedFiles": {"dynamicRegistration": true},
                    "diagnostics": {"refreshSupport": true},
                },
            }),
        )
        .await;
    client
}

/// Waits for the end of the index's progress report, having seen its beginning.
async fn index_done(client: &mut LspClient) {
    let begin = client
        .next_notification("$/progress", WAIT, |p| p["value"]["kind"] == "begin")
        .await;
    assert!(begin.is_some(), "no progress begin");
    let end = client
        .next_notification("$/progress", WAIT, |p| p["value"]["kind"] == "end")
        .await
        .expect("no progress end");
    assert!(
        end["params"]["value"]["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("3 CWL files")),
        "{end}"
    );
}

/// The publishes for `uri` read until one's `tool-name-duplicate` diagnostics satisfy `want`
/// (what the editor then holds): an analysis that started before a watched-file change may
/// publish once more before the one that sees it. `None` if none does within a few.
async fn settled(
    client: &mut LspClient,
    uri: &str,
    want: impl Fn(&[Value]) -> bool,
) -> Option<Value> {
    for _ in 0..6 {
        let p = client.diagnostics(uri, None).await?;
        if want(&duplicates(&p["diagnostics"])) {
            return Some(p);
        }
    }
    None
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn push_a_duplicate_with_an_unopened_file_is_reported_and_cleared_on_delete() {
    let root = folder("push");
    let mut client = start(&root, false).await;
    index_done(&mut client).await;
    let a = uri(&root.join("a.cwl"));
    let b = uri(&root.join("tools/b.cwl"));
    client.open(&a, &tool("a", "echo")).await;
    let p = settled(&mut client, &a, |d| !d.is_empty())
        .await
        .expect("a tool-name-duplicate with the unopened tools/b.cwl");
    let d = duplicates(&p["diagnostics"]);
    assert_eq!(d.len(), 1, "{d:?}");
    assert!(
        d[0]["message"].as_str().unwrap().contains("`b.cwl`"),
        "{d:?}"
    );
    let related = &d[0]["relatedInformation"][0]["location"];
    assert_eq!(related["uri"], b.as_str());
    assert_eq!(related["range"]["start"]["line"], 8, "{related}");
    // Deleted on disk: the duplicate goes away.
    std::fs::remove_file(root.join("tools/b.cwl")).unwrap();
    client
        .notify(
            "workspace/didChangeWatchedFiles",
            json!({"changes": [{"uri": b, "type": 3}]}),
        )
        .await;
    settled(&mut client, &a, |d| d.is_empty())
        .await
        .expect("a publish without the duplicate");
    // Created again (renamed back): the duplicate returns.
    std::fs::write(root.join("tools/b2.cwl"), tool("b", "echo")).unwrap();
    let b2 = uri(&root.join("tools/b2.cwl"));
    client
        .notify(
            "workspace/didChangeWatchedFiles",
            json!({"changes": [{"uri": b2, "type": 1}]}),
        )
        .await;
    let p = settled(&mut client, &a, |d| {
        d.first()
            .is_some_and(|d| d["relatedInformation"][0]["location"]["uri"] == b2.as_str())
    })
    .await
    .expect("a publish with the duplicate in tools/b2.cwl");
    assert_eq!(duplicates(&p["diagnostics"]).len(), 1, "{p}");
    client.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pull_gets_the_same_duplicate_and_a_refresh_when_the_index_changes() {
    let root = folder("pull");
    let mut client = start(&root, true).await;
    index_done(&mut client).await;
    let a = uri(&root.join("a.cwl"));
    let b = uri(&root.join("tools/b.cwl"));
    client.open(&a, &tool("a", "echo")).await;
    let res = client
        .request(
            "textDocument/diagnostic",
            json!({"textDocument": {"uri": a}}),
        )
        .await;
    let d = duplicates(&res["result"]["items"]);
    assert_eq!(d.len(), 1, "{res}");
    assert_eq!(d[0]["relatedInformation"][0]["location"]["uri"], b.as_str());
    std::fs::write(root.join("tools/b.cwl"), tool("b", "renamed")).unwrap();
    client
        .notify(
            "workspace/didChangeWatchedFiles",
            json!({"changes": [{"uri": b, "type": 2}]}),
        )
        .await;
    // The server asks the client to pull again.
    let asked = |c: &LspClient| {
        c.server_requests
            .iter()
            .filter(|m| *m == "workspace/diagnostic/refresh")
            .count()
    };
    let before = asked(&client);
    let deadline = std::time::Instant::now() + WAIT;
    while asked(&client) == before && std::time::Instant::now() < deadline {
        let _ = client.collect_until_quiet(Duration::from_millis(100)).await;
    }
    assert!(asked(&client) > before, "no workspace/diagnostic/refresh");
    let res = client
        .request(
            "textDocument/diagnostic",
            json!({"textDocument": {"uri": a}}),
        )
        .await;
    assert!(duplicates(&res["result"]["items"]).is_empty(), "{res}");
    client.shutdown().await;
}

#[test]
fn check_dir_reports_the_same_duplicate_and_skips_ignored_files() {
    let root = folder("check");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_cwl-mcp-lsp"))
        .current_dir(&root)
        .args(["check", "--format", "json", "."])
        .output()
        .unwrap();
    let reported: Value = serde_json::from_slice(&out.stdout).unwrap();
    let dups: Vec<&Value> = reported
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "tool-name-duplicate")
        .collect();
    let paths: Vec<&str> = dups.iter().map(|d| d["path"].as_str().unwrap()).collect();
    assert_eq!(paths, vec!["./a.cwl", "./tools/b.cwl"], "{reported}");
    assert_eq!(dups[0]["line"], 9);
}

/// A folder added to the workspace (`workspace/didChangeWorkspaceFolders`) joins the index:
/// its files' names count for the open documents' duplicates; removed, they stop counting.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn added_and_removed_folders_join_and_leave_the_index() {
    let other = folder("added");
    let lone = Path::new(env!("CARGO_TARGET_TMPDIR")).join("workspace-lone");
    let _ = std::fs::remove_dir_all(&lone);
    std::fs::create_dir_all(&lone).unwrap();
    std::fs::write(lone.join("x.cwl"), tool("x", "echo")).unwrap();
    let mut client = start(&lone, false).await;
    let end = client
        .next_notification("$/progress", WAIT, |p| p["value"]["kind"] == "end")
        .await;
    assert!(end.is_some(), "the first index ends");
    let x = uri(&lone.join("x.cwl"));
    client.open(&x, &tool("x", "echo")).await;
    let first = client.diagnostics(&x, None).await.expect("a publish");
    assert!(duplicates(&first["diagnostics"]).is_empty(), "{first}");
    client
        .notify(
            "workspace/didChangeWorkspaceFolders",
            json!({"event": {"added": [{"uri": uri(&other), "name": "other"}], "removed": []}}),
        )
        .await;
    let mut seen = Vec::new();
    for _ in 0..6 {
        let Some(p) = client.diagnostics(&x, None).await else {
            break;
        };
        seen = duplicates(&p["diagnostics"]);
        if !seen.is_empty() {
            break;
        }
    }
    assert_eq!(
        seen.len(),
        1,
        "x.cwl now shares `echo` with the added folder: {seen:?}"
    );
    assert!(
        seen[0]["message"].as_str().unwrap().contains("`a.cwl`"),
        "{seen:?}"
    );
    client
        .notify(
            "workspace/didChangeWorkspaceFolders",
            json!({"event": {"added": [], "removed": [{"uri": uri(&other), "name": "other"}]}}),
        )
        .await;
    let mut cleared = false;
    for _ in 0..6 {
        let Some(p) = client.diagnostics(&x, None).await else {
            break;
        };
        if duplicates(&p["diagnostics"]).is_empty() {
            cleared = true;
            break;
        }
    }
    assert!(cleared, "the removed folder's names stop counting");
    client.shutdown().await;
}
