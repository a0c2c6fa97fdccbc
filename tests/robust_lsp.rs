//! Protocol-level robustness (SPEC §9, issue 6): unknown and closed URIs, edits before
//! `didOpen`, out-of-range positions, a flood of changes (one publish for the latest version,
//! never a stale one after a newer one), `$/cancelRequest`, hostile documents, malformed
//! messages, and a deliberate panic inside analysis (debug builds only, see
//! `analysis::test_panic_hook`) that must become an error response while the server keeps
//! serving. Every wait is bounded (`common::lsp_client::WAIT`).
mod common;

use std::time::Duration;

use common::lsp_client::{LspClient, WAIT};
use serde_json::{Value, json};

const URI: &str = "file:///robust/tool.cwl";

const DOC: &str = "cwlVersion: v1.2\nclass: CommandLineTool\nid: tool\n$namespaces:\n  \
                   mcp: https://eoap.github.io/cwl-mcp-extension#\nhints:\n  mcp:Tool:\n    \
                   name: tool\n    description: A tool.\n    annotations:\n      readOnlyHint: yes\n\
                   inputs: {}\noutputs: {}\n";

fn error_code(res: &Value) -> Option<i64> {
    res.get("error").and_then(|e| e["code"].as_i64())
}

async fn pull(c: &mut LspClient, uri: &str) -> Value {
    c.request(
        "textDocument/diagnostic",
        json!({"textDocument": {"uri": uri}}),
    )
    .await
}

fn change(uri: &str, version: i64, changes: Value) -> Value {
    json!({"textDocument": {"uri": uri, "version": version}, "contentChanges": changes})
}

fn insert(line: u32, character: u32, text: &str) -> Value {
    json!([{"range": {"start": {"line": line, "character": character},
                      "end": {"line": line, "character": character}}, "text": text}])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unknown_and_closed_uris_get_errors_and_the_server_keeps_serving() {
    let mut c = LspClient::in_process();
    c.initialize().await;
    let res = pull(&mut c, "file:///robust/never-opened.cwl").await;
    assert_eq!(error_code(&res), Some(-32602), "{res}");

    c.open(URI, DOC).await;
    let d = c
        .diagnostics(URI, Some(1))
        .await
        .expect("diagnostics at open");
    assert!(!d["diagnostics"].as_array().unwrap().is_empty());
    c.notify(
        "textDocument/didClose",
        json!({"textDocument": {"uri": URI}}),
    )
    .await;
    let cleared = c
        .diagnostics(URI, None)
        .await
        .expect("diagnostics cleared on close");
    assert_eq!(cleared["diagnostics"], json!([]));
    let res = pull(&mut c, URI).await;
    assert_eq!(error_code(&res), Some(-32602), "closed: {res}");
    // A change and a second close for the closed document are ignored, without a publish.
    c.notify("textDocument/didChange", change(URI, 2, insert(0, 0, "x")))
        .await;
    c.notify(
        "textDocument/didClose",
        json!({"textDocument": {"uri": URI}}),
    )
    .await;
    // Reopening works, with the new text.
    c.open(URI, "a: [\n").await;
    let d = c
        .diagnostics(URI, Some(1))
        .await
        .expect("diagnostics after reopen");
    assert!(
        d["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .any(|d| d["code"] == "yaml-syntax"),
        "{d}"
    );
    c.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn edits_before_did_open_are_ignored() {
    let mut c = LspClient::in_process();
    c.initialize().await;
    for v in 1..5 {
        c.notify(
            "textDocument/didChange",
            change(URI, v, insert(0, 0, "x: [")),
        )
        .await;
    }
    c.notify(
        "textDocument/didChange",
        change(URI, 5, json!([{"text": "whole: [text"}])),
    )
    .await;
    // The server logged the problem and published nothing for the unknown document.
    let log = c
        .next_notification("window/logMessage", WAIT, |p| {
            p["message"]
                .as_str()
                .is_some_and(|m| m.contains("not open"))
        })
        .await;
    assert!(
        log.is_some(),
        "no log message for a change to an unopened document"
    );
    c.open(URI, DOC).await;
    let d = c
        .diagnostics(URI, None)
        .await
        .expect("diagnostics after open");
    assert_eq!(d["version"], 1, "only the opened version is analysed: {d}");
    assert!(
        !d["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .any(|d| d["code"] == "yaml-syntax"),
        "the early edits leaked into the document: {d}"
    );
    c.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn out_of_range_positions_are_answered_not_fatal() {
    let mut c = LspClient::in_process();
    let caps = c.initialize().await;
    c.open(URI, DOC).await;
    c.diagnostics(URI, Some(1)).await.unwrap();
    // A change on a line past the end is rejected as a whole; the text stays as it was.
    c.notify(
        "textDocument/didChange",
        change(
            URI,
            2,
            json!([
                {"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}, "text": "[["},
                {"range": {"start": {"line": 900, "character": 0}, "end": {"line": 901, "character": 3}}, "text": "x"}
            ]),
        ),
    )
    .await;
    let log = c
        .next_notification("window/logMessage", WAIT, |p| {
            p["message"]
                .as_str()
                .is_some_and(|m| m.contains("past the end"))
        })
        .await;
    assert!(log.is_some(), "the rejected change was not reported");
    // Columns past the end of a line mean the line's end (LSP): append to line 2 (`id: tool`).
    c.notify(
        "textDocument/didChange",
        change(URI, 3, insert(2, 10_000, "_renamed")),
    )
    .await;
    let d = c
        .diagnostics(URI, Some(3))
        .await
        .expect("diagnostics for v3");
    let codes: Vec<&str> = d["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|d| d["code"].as_str())
        .collect();
    assert!(
        !codes.contains(&"yaml-syntax"),
        "the rejected `[[` was applied: {d}"
    );
    // Every position-taking request the server offers, at absurd positions, gets an answer.
    let far = json!({"line": 1_000_000, "character": 1_000_000});
    let eol = json!({"line": 2, "character": 9_999});
    let requests: Vec<(&str, &str, Value)> = vec![
        (
            "hoverProvider",
            "textDocument/hover",
            json!({"textDocument": {"uri": URI}, "position": far}),
        ),
        (
            "hoverProvider",
            "textDocument/hover",
            json!({"textDocument": {"uri": URI}, "position": eol}),
        ),
        (
            "completionProvider",
            "textDocument/completion",
            json!({"textDocument": {"uri": URI}, "position": far}),
        ),
        (
            "completionProvider",
            "textDocument/completion",
            json!({"textDocument": {"uri": URI}, "position": eol}),
        ),
        (
            "codeActionProvider",
            "textDocument/codeAction",
            json!({"textDocument": {"uri": URI},
            "range": {"start": eol, "end": far}, "context": {"diagnostics": []}}),
        ),
        (
            "inlayHintProvider",
            "textDocument/inlayHint",
            json!({"textDocument": {"uri": URI},
            "range": {"start": {"line": 0, "character": 0}, "end": far}}),
        ),
        (
            "documentSymbolProvider",
            "textDocument/documentSymbol",
            json!({"textDocument": {"uri": URI}}),
        ),
        (
            "hoverProvider",
            "textDocument/hover",
            json!({"textDocument": {"uri": "file:///robust/unknown.cwl"}, "position": eol}),
        ),
    ];
    let mut asked = 0;
    for (cap, method, params) in requests {
        if caps.get(cap).is_none_or(Value::is_null) {
            continue; // not offered (yet): nothing to test
        }
        asked += 1;
        let res = c.request(method, params).await;
        assert!(
            res.get("result").is_some() || error_code(&res).is_some_and(|c| c != -32603),
            "{method}: {res}"
        );
    }
    eprintln!("out-of-range requests asked: {asked}");
    // Still serving.
    let res = pull(&mut c, URI).await;
    assert!(res.get("result").is_some(), "{res}");
    c.shutdown().await;
}

/// 300 changes without waiting: the versions published only grow, the last one is published
/// exactly once, nothing comes after it, and its diagnostics are those of the final text.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_of_changes_publishes_the_latest_version_once_and_never_a_stale_one() {
    let mut c = LspClient::in_process();
    c.initialize().await;
    // A bigger document so that analysis takes a while and edits pile up behind it.
    let mut text = String::from(DOC);
    for i in 0..400 {
        text.push_str(&format!("x{i}: {{a: [1, 2, 3], b: \"é日本😀\"}}\n"));
    }
    c.open(URI, &text).await;
    c.diagnostics(URI, Some(1)).await.unwrap();
    let n = 300;
    for v in 2..=n {
        // Type into the description; every 50th edit breaks the YAML, the next restores it.
        let edit = if v % 50 == 0 {
            insert(0, 0, "[")
        } else if v % 50 == 1 && v > 1 {
            json!([{"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}}, "text": ""}])
        } else {
            insert(8, 17, "é")
        };
        c.notify("textDocument/didChange", change(URI, v, edit))
            .await;
    }
    // The final text breaks the YAML at line 0 if and only if v = n is a multiple of 50.
    // Everything published until the final version, then anything that comes within a quiet
    // second after it (there must be nothing).
    let mut messages = Vec::new();
    while let Some(m) = c
        .next_notification("textDocument/publishDiagnostics", WAIT, |p| p["uri"] == URI)
        .await
    {
        let done = m["params"]["version"] == n;
        messages.push(m);
        if done {
            break;
        }
    }
    messages.extend(c.collect_until_quiet(Duration::from_millis(1000)).await);
    let published: Vec<(i64, usize, bool)> = messages
        .iter()
        .filter(|m| m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == URI)
        .map(|m| {
            let diags = m["params"]["diagnostics"].as_array().unwrap();
            (
                m["params"]["version"].as_i64().unwrap(),
                diags.len(),
                diags.iter().any(|d| d["code"] == "yaml-syntax"),
            )
        })
        .collect();
    assert!(!published.is_empty(), "nothing published after the flood");
    for w in published.windows(2) {
        assert!(w[0].0 < w[1].0, "stale or repeated publish: {published:?}");
    }
    let last = published.last().unwrap();
    assert_eq!(
        last.0, n,
        "the latest version was not published last: {published:?}"
    );
    assert_eq!(last.2, n % 50 == 0, "{published:?}");
    assert!(
        published.len() < (n as usize) / 2,
        "changes were not coalesced: {} publishes for {n} changes",
        published.len()
    );
    eprintln!("flood: {} publishes for {} changes", published.len(), n - 1);
    // The published diagnostics equal the pull result for the same version.
    let res = pull(&mut c, URI).await;
    assert_eq!(
        res["result"]["items"].as_array().unwrap().len(),
        last.1,
        "{res}"
    );
    c.shutdown().await;
}

/// A document between 32 KB and 512 KB is analysed on the protocol task once a version of it
/// was analysed (`server::scheduler`): a completion sent with each keystroke is answered from
/// that keystroke's model, the keystroke's diagnostics are published after it, in order, and
/// a break and its restore are seen in the published diagnostics as in a pull.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_edited_document_analysed_in_place_answers_completion_sent_with_each_keystroke() {
    let mut c = LspClient::in_process();
    c.initialize().await;
    let mut text = DOC.replace("inputs: {}\noutputs: {}\n", "outputs: {}\ninputs:\n");
    for i in 0..1500 {
        text.push_str(&format!(
            "  in_{i}:\n    type: string\n    label: Input {i}.\n    doc: The {i}th input.\n"
        ));
    }
    assert!(
        (32 << 10..512 << 10).contains(&text.len()),
        "{}",
        text.len()
    );
    let typed_line = DOC.lines().count() + 4 * 700 + 3; // `    doc: The 700th input.`
    let break_line = typed_line - 1; // `    label: Input 700.`
    c.open(URI, &text).await;
    c.diagnostics(URI, Some(1)).await.unwrap();
    // The value of `readOnlyHint` (line 10, after `      readOnlyHint: `), typed on too: the
    // items replace the word under the cursor, so their range says which version answered
    // (an answer from the version before would end one character off).
    let at_value = json!({"textDocument": {"uri": URI}, "position": {"line": 10, "character": 20}});
    let mut value = String::from("yes");
    let n = 40;
    for v in 2..=n {
        let edit = match v {
            // A space before `label:` breaks the YAML inside `inputs`; the next edit removes it.
            30 => insert(break_line as u32, 0, " "),
            31 => json!([{"range": {"start": {"line": break_line, "character": 0},
                                    "end": {"line": break_line, "character": 1}}, "text": ""}]),
            // `yes` <-> `yess`, at the cursor's word.
            _ if v % 3 == 0 && value.len() == 3 => {
                value.push('s');
                insert(10, 23, "s")
            }
            _ if v % 3 == 0 => {
                value.pop();
                json!([{"range": {"start": {"line": 10, "character": 23},
                                  "end": {"line": 10, "character": 24}}, "text": ""}])
            }
            _ => insert(typed_line as u32, 9, "x"),
        };
        c.notify("textDocument/didChange", change(URI, v, edit))
            .await;
        let res = c.request("textDocument/completion", at_value.clone()).await;
        let items = res["result"]
            .as_array()
            .unwrap_or_else(|| panic!("{v}: {res}"));
        let labels: Vec<&str> = items.iter().filter_map(|i| i["label"].as_str()).collect();
        assert!(
            labels.contains(&"true") && labels.contains(&"false"),
            "{v}: {labels:?}"
        );
        for item in items {
            let range = &item["textEdit"]["range"];
            assert_eq!(
                (&range["start"]["character"], &range["end"]["character"]),
                (&json!(20), &json!(20 + value.len())),
                "{v}: {value}: {item}"
            );
        }
        let published = c
            .diagnostics(URI, Some(v))
            .await
            .expect("the keystroke's diagnostics");
        let diags = published["diagnostics"].as_array().unwrap();
        let broken = diags.iter().any(|d| d["code"] == "yaml-syntax");
        assert_eq!(broken, v == 30, "{v}: {published}");
        let pulled = pull(&mut c, URI).await;
        assert_eq!(pulled["result"]["items"].as_array(), Some(diags), "{v}");
    }
    c.shutdown().await;
}

/// `$/cancelRequest` for a running pull-diagnostics request: the server answers it (either
/// the result or RequestCancelled, -32800) and keeps serving; cancelling an unknown id is
/// harmless.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancel_requests_are_answered_and_harmless() {
    let mut c = LspClient::in_process();
    c.initialize().await;
    let mut text = String::from(DOC);
    for i in 0..20_000 {
        text.push_str(&format!("k{i}: [a, {{b: c}}]\n"));
    }
    c.open(URI, &text).await;
    c.diagnostics(URI, Some(1)).await.unwrap();
    let mut cancelled = 0;
    for _ in 0..5 {
        let id = c
            .send_request(
                "textDocument/diagnostic",
                json!({"textDocument": {"uri": URI}}),
            )
            .await;
        c.notify("$/cancelRequest", json!({"id": id})).await;
        let res = c.response(id).await;
        match error_code(&res) {
            Some(-32800) => cancelled += 1,
            None => assert!(res["result"]["items"].is_array(), "{res}"),
            Some(code) => panic!("unexpected error {code}: {res}"),
        }
    }
    eprintln!("cancel: {cancelled} of 5 requests cancelled before they finished");
    c.notify("$/cancelRequest", json!({"id": 987_654})).await;
    let res = pull(&mut c, URI).await;
    assert!(res["result"]["items"].is_array(), "{res}");
    c.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_documents_get_diagnostics_and_the_server_stays_responsive() {
    let mut c = LspClient::in_process();
    c.initialize().await;
    let mut bomb = String::from(DOC);
    bomb.push_str("a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
    for i in 1..10 {
        bomb.push_str(&format!(
            "a{i}: &a{i} [{}]\n",
            vec![format!("*a{}", i - 1); 10].join(", ")
        ));
    }
    bomb = bomb.replace("description: A tool.", "description: *a9\n    aliases: *a9");
    let docs = [
        ("bomb", bomb),
        ("longline", format!("{DOC}doc: {}\n", "é😀".repeat(200_000))),
        ("brackets", "[".repeat(100_000)),
        ("braces", format!("{DOC}x: {}", "{a: ".repeat(50_000))),
        ("empty", String::new()),
        (
            "controls",
            "\u{0}\u{1}\u{7f}\u{feff}\r\r\n\t: - [".repeat(1_000),
        ),
    ];
    for (name, text) in &docs {
        let uri = format!("file:///robust/{name}.cwl");
        c.open(&uri, text).await;
        let started = std::time::Instant::now();
        let d = c.diagnostics(&uri, Some(1)).await;
        assert!(d.is_some(), "{name}: no diagnostics within {WAIT:?}");
        eprintln!("{name}: diagnostics in {:?}", started.elapsed());
        // One-character edits at the start and far past the end keep working.
        c.notify("textDocument/didChange", change(&uri, 2, insert(0, 0, "#")))
            .await;
        c.notify(
            "textDocument/didChange",
            change(&uri, 3, insert(u32::MAX, u32::MAX, "x")),
        )
        .await;
        assert!(c.diagnostics(&uri, Some(2)).await.is_some(), "{name}: v2");
        let res = pull(&mut c, &uri).await;
        assert!(res["result"]["items"].is_array(), "{name}: {res}");
        c.notify(
            "textDocument/didClose",
            json!({"textDocument": {"uri": uri}}),
        )
        .await;
    }
    c.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_messages_do_not_kill_the_server() {
    let mut c = LspClient::spawn(&[]);
    c.initialize().await;
    // Invalid JSON in a valid frame, a request with wrong params, an unknown method.
    c.send_raw(b"Content-Length: 9\r\n\r\n{not json").await;
    let res = c
        .request("textDocument/diagnostic", json!({"textDocument": 42}))
        .await;
    assert_eq!(error_code(&res), Some(-32602), "{res}");
    let res = c.request("cwl/doesNotExist", json!({})).await;
    assert_eq!(error_code(&res), Some(-32601), "{res}");
    c.notify("textDocument/didOpen", json!({"textDocument": "nope"}))
        .await;
    c.open(URI, DOC).await;
    assert!(c.diagnostics(URI, Some(1)).await.is_some());
    c.shutdown().await;
}

/// A panic inside analysis (the debug-build hook) becomes an error response for the request
/// and a logged message for pushed diagnostics; the server keeps serving other documents and
/// shuts down cleanly. Runs the real binary, so the environment variable stays in its process.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_panic_in_analysis_is_an_error_response_and_the_server_survives() {
    if !cfg!(debug_assertions) {
        eprintln!("SKIPPED: the panic hook exists only in debug builds");
        return;
    }
    let marker = "PANIC-HERE-4f1c";
    let mut c = LspClient::spawn(&[("CWL_MCP_TEST_PANIC_MARKER", marker)]);
    c.initialize().await;
    let bad = "file:///robust/bad.cwl";
    c.open(bad, &format!("{DOC}# {marker}\n")).await;
    let log = c
        .next_notification("window/logMessage", WAIT, |p| {
            p["message"]
                .as_str()
                .is_some_and(|m| m.contains("internal error"))
        })
        .await;
    assert!(
        log.is_some(),
        "the panic in pushed diagnostics was not logged"
    );
    for _ in 0..3 {
        let res = pull(&mut c, bad).await;
        assert_eq!(error_code(&res), Some(-32603), "{res}");
        assert!(
            res["error"]["message"]
                .as_str()
                .unwrap()
                .contains("deliberate test panic")
        );
    }
    c.open(URI, DOC).await;
    let d = c
        .diagnostics(URI, Some(1))
        .await
        .expect("other documents still served");
    assert!(!d["diagnostics"].as_array().unwrap().is_empty());
    // Removing the marker heals the document.
    c.notify(
        "textDocument/didChange",
        change(bad, 2, json!([{"text": DOC}])),
    )
    .await;
    assert!(c.diagnostics(bad, Some(2)).await.is_some());
    c.shutdown().await;
}
