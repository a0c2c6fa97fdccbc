//! End to end over stdio against the real binary: open, edit (ASCII, non-ASCII, CRLF), pushed
//! and pulled diagnostics with correct UTF-16 (or negotiated UTF-8) ranges, close, shutdown.
mod common;

use common::stdio_client::StdioClient;
use serde_json::{Value, json};

const URI: &str = "file:///tmp/cwl-mcp-e2e/tool.cwl";

fn document() -> String {
    [
        "cwlVersion: v1.2",
        "class: CommandLineTool",
        "id: tool",
        "label: Étiquette 日本",
        "$namespaces:",
        "  mcp: https://eoap.github.io/cwl-mcp-extension#",
        "hints:",
        "  mcp:Tool:",
        "    annotations: {title: 日本😀, readOnlyHint: yes, destructiveHint: false, idempotentHint: true, openWorldHint: false}",
        "inputs: {}",
        "outputs: {}",
        "",
    ]
    .join("\r\n")
}

/// UTF-16 column of the first occurrence of `needle` on line `line` of `text`.
fn utf16_col(text: &str, line: usize, needle: &str) -> u64 {
    let l = text.split('\n').nth(line).unwrap();
    let byte = l.find(needle).unwrap();
    l[..byte].encode_utf16().count() as u64
}

fn codes(diags: &Value) -> Vec<String> {
    diags["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap().to_string())
        .collect()
}

fn find<'a>(diags: &'a Value, code: &str) -> &'a Value {
    diags["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == code)
        .unwrap_or_else(|| panic!("no {code} in {diags}"))
}

#[test]
fn open_edit_diagnose_close_shutdown_in_utf16() {
    let mut client = StdioClient::spawn();
    let init = client.initialize(json!({}), json!({"cwlMcp": {"profile": "extension"}}));
    let caps = &init["result"]["capabilities"];
    assert_eq!(caps["positionEncoding"], "utf-16");
    assert_eq!(caps["textDocumentSync"]["change"], 2, "incremental sync");
    let mut text = document();
    client.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": URI, "languageId": "cwl", "version": 1, "text": text}}),
    );
    let diags = client.diagnostics(URI);
    assert_eq!(diags["version"], 1);
    let invalid = find(&diags, "invalid-type");
    assert_eq!(invalid["source"], "cwl-mcp");
    assert_eq!(invalid["severity"], 1);
    assert_eq!(invalid["range"]["start"]["line"], 8);
    assert_eq!(
        invalid["range"]["start"]["character"],
        utf16_col(&text, 8, "yes")
    );
    assert_eq!(
        invalid["range"]["end"]["character"],
        utf16_col(&text, 8, "yes") + 3
    );

    // Pull diagnostics agree with the pushed ones.
    let pulled = client.request(
        "textDocument/diagnostic",
        json!({"textDocument": {"uri": URI}}),
    );
    assert_eq!(pulled["result"]["items"], diags["diagnostics"]);

    // Non-ASCII edit before the value: insert "é😀 " right after `{title: 日本😀`.
    let col = utf16_col(&text, 8, ", readOnlyHint");
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": URI, "version": 2}, "contentChanges": [
            {"range": {"start": {"line": 8, "character": col}, "end": {"line": 8, "character": col}},
             "text": "é😀"}]}),
    );
    text = text.replacen("日本😀,", "日本😀é😀,", 1);
    let diags = client.diagnostics(URI);
    assert_eq!(diags["version"], 2);
    let invalid = find(&diags, "invalid-type");
    assert_eq!(
        invalid["range"]["start"]["character"],
        utf16_col(&text, 8, "yes")
    );

    // CRLF edit: insert two lines above the hint; the diagnostic moves down by two.
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": URI, "version": 3}, "contentChanges": [
            {"range": {"start": {"line": 4, "character": 0}, "end": {"line": 4, "character": 0}},
             "text": "doc: ligne 1\r\n# 注释\r\n"}]}),
    );
    let diags = client.diagnostics(URI);
    assert_eq!(find(&diags, "invalid-type")["range"]["start"]["line"], 10);

    // ASCII edit fixing the value: `yes` → `true`.
    let yes = utf16_col(&text, 8, "yes");
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": URI, "version": 4}, "contentChanges": [
            {"range": {"start": {"line": 10, "character": yes}, "end": {"line": 10, "character": yes + 3}},
             "text": "true"}]}),
    );
    let diags = client.diagnostics(URI);
    assert_eq!(diags["version"], 4);
    assert!(
        !codes(&diags).contains(&"invalid-type".to_string()),
        "{diags}"
    );

    client.notify(
        "textDocument/didClose",
        json!({"textDocument": {"uri": URI}}),
    );
    let closed = client.diagnostics(URI);
    assert_eq!(closed["diagnostics"], json!([]));
    assert_eq!(client.shutdown(), Some(0));
}

#[test]
fn utf8_positions_when_the_client_offers_them() {
    let mut client = StdioClient::spawn();
    let init = client.initialize(
        json!({"general": {"positionEncodings": ["utf-8", "utf-16"]}}),
        Value::Null,
    );
    assert_eq!(init["result"]["capabilities"]["positionEncoding"], "utf-8");
    let text = document();
    client.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": URI, "languageId": "cwl", "version": 1, "text": text}}),
    );
    let diags = client.diagnostics(URI);
    let line = text.split('\n').nth(8).unwrap();
    let byte = line.find("yes").unwrap() as u64;
    assert_eq!(
        find(&diags, "invalid-type")["range"]["start"]["character"],
        byte
    );
    assert_eq!(client.shutdown(), Some(0));
}

#[test]
fn a_burst_of_edits_publishes_the_latest_version_and_never_a_stale_one() {
    let mut client = StdioClient::spawn();
    client.initialize(json!({}), Value::Null);
    let text = document();
    client.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": URI, "languageId": "cwl", "version": 1, "text": text}}),
    );
    for v in 2..=40 {
        client.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": URI, "version": v}, "contentChanges": [
                {"range": {"start": {"line": 2, "character": 4}, "end": {"line": 2, "character": 4}},
                 "text": "x"}]}),
        );
    }
    let mut last = 0;
    let mut published = 0;
    while let Some(d) = client.diagnostics_within(URI, std::time::Duration::from_secs(3)) {
        let v = d["version"].as_i64().unwrap();
        assert!(v > last, "version {v} published after {last}");
        last = v;
        published += 1;
        if v == 40 {
            break;
        }
    }
    assert_eq!(last, 40, "the latest version is published");
    assert!(
        published < 40,
        "bursts are coalesced ({published} publishes for 40 versions)"
    );
    assert_eq!(client.shutdown(), Some(0));
}
