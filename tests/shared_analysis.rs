//! A large file that the editor opens while the workspace index reads it is analysed once, not
//! once by the index and once for the document (issue 14, `model::shared`): the two analyses
//! held two value trees and derivations of the same text side by side. One test in its own
//! binary: it counts the process's analyses of large texts.
mod common;

use std::path::Path;

use common::lsp_client::{LspClient, WAIT};
use common::uri;
use cwl_mcp_lsp::model::shared;
use serde_json::json;

/// A tool with an MCP hint and enough inputs to pass `shared::SHARED_MIN_BYTES`.
fn large_tool() -> String {
    let mut t = String::from(
        "cwlVersion: v1.2\nclass: CommandLineTool\nid: big\nlabel: Big\ndoc: A big tool.\n\
         $namespaces:\n  mcp: https://eoap.github.io/cwl-mcp-extension#\nhints:\n  mcp:Tool:\n    \
         name: big_tool\nbaseCommand: echo\ninputs:\n",
    );
    let mut i = 0;
    while t.len() < shared::SHARED_MIN_BYTES + 1024 {
        t.push_str(&format!(
            "  in_{i}:\n    type: string\n    doc: Input number {i}.\n"
        ));
        i += 1;
    }
    t.push_str("outputs: {}\n");
    t
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_file_opened_while_the_index_reads_it_is_analysed_once() {
    let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join("shared-analysis");
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).unwrap();
    let text = large_tool();
    let file = root.join("big.cwl");
    std::fs::write(&file, &text).unwrap();
    let before = shared::built();

    let mut client = LspClient::in_process();
    client
        .initialize_folder(
            &root,
            json!({
                "textDocument": {"publishDiagnostics": {"versionSupport": true}},
                "window": {"workDoneProgress": true},
                "workspace": {"workspaceFolders": true},
            }),
        )
        .await;
    // The editor restores its tab at once, as the index starts reading the folder.
    let file_uri = uri(&file);
    client.open(&file_uri, &text).await;
    let published = client
        .diagnostics(&file_uri, Some(1))
        .await
        .expect("the open document's diagnostics");
    assert!(published["diagnostics"].is_array(), "{published}");
    let end = client
        .next_notification("$/progress", WAIT, |p| p["value"]["kind"] == "end")
        .await
        .expect("the index's build ends");
    assert!(
        end["params"]["value"]["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("1 CWL files")),
        "{end}"
    );
    // The index read the file (its Tool is listed), and one model of its text was built.
    let symbols = client
        .request("workspace/symbol", json!({"query": "big_tool"}))
        .await;
    assert!(
        symbols["result"].to_string().contains("big_tool"),
        "{symbols}"
    );
    assert_eq!(
        shared::built() - before,
        1,
        "one analysis of the large text"
    );
    client.shutdown().await;
    let _ = std::fs::remove_dir_all(&root);
}
