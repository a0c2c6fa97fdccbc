//! A tiny LSP client for end-to-end tests: drives the real `Backend` through
//! `tower_lsp_server::LspService` over an in-memory duplex pipe, with JSON-RPC messages framed
//! by `Content-Length` headers exactly as over stdio.
#![allow(dead_code)]
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader, DuplexStream};
use tokio::io::{ReadHalf, WriteHalf};

use cwl_mcp_lsp::server::Backend;

pub struct Client {
    reader: BufReader<ReadHalf<DuplexStream>>,
    writer: WriteHalf<DuplexStream>,
    next_id: i64,
    /// Notifications (and server requests) received while waiting for responses.
    pub notifications: Vec<Value>,
}

/// Starts a server on an in-memory pipe and returns a client connected to it.
pub fn start() -> Client {
    let (client_side, server_side) = tokio::io::duplex(1 << 20);
    let (server_read, server_write) = tokio::io::split(server_side);
    let (service, socket) = tower_lsp_server::LspService::new(Backend::new);
    tokio::spawn(tower_lsp_server::Server::new(server_read, server_write, socket).serve(service));
    let (read, write) = tokio::io::split(client_side);
    Client {
        reader: BufReader::new(read),
        writer: write,
        next_id: 1,
        notifications: Vec::new(),
    }
}

impl Client {
    async fn send(&mut self, message: &Value) {
        let body = message.to_string();
        let framed = format!("Content-Length: {}\r\n\r\n{body}", body.len());
        self.writer.write_all(framed.as_bytes()).await.unwrap();
        self.writer.flush().await.unwrap();
    }

    async fn receive(&mut self) -> Value {
        let mut length = None;
        loop {
            let mut header = String::new();
            let n = self.reader.read_line(&mut header).await.unwrap();
            assert!(n > 0, "the server closed the connection");
            let header = header.trim_end();
            if header.is_empty() {
                break;
            }
            if let Some(v) = header.strip_prefix("Content-Length:") {
                length = Some(v.trim().parse::<usize>().unwrap());
            }
        }
        let mut body = vec![0; length.expect("a Content-Length header")];
        self.reader.read_exact(&mut body).await.unwrap();
        serde_json::from_slice(&body).unwrap()
    }

    /// Sends a request and waits (at most 20 s) for its response: `{"result": …}` or
    /// `{"error": …}`. Server-to-client requests met meanwhile are answered with `null`.
    pub async fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        let wait = async {
            loop {
                let message = self.receive().await;
                if message.get("method").is_some() {
                    if let Some(server_id) = message.get("id") {
                        let reply = json!({"jsonrpc": "2.0", "id": server_id, "result": null});
                        self.send(&reply).await;
                    }
                    self.notifications.push(message);
                    continue;
                }
                if message.get("id") == Some(&json!(id)) {
                    return message;
                }
            }
        };
        tokio::time::timeout(Duration::from_secs(20), wait)
            .await
            .unwrap_or_else(|_| panic!("no response to {method} within 20 s"))
    }

    pub async fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}))
            .await;
    }

    /// `initialize` (with the given client capabilities and initialization options) and
    /// `initialized`; returns the `initialize` result.
    pub async fn initialize(&mut self, capabilities: Value, options: Value) -> Value {
        let response = self
            .request(
                "initialize",
                json!({"processId": null, "rootUri": null, "capabilities": capabilities,
                       "initializationOptions": options}),
            )
            .await;
        self.notify("initialized", json!({})).await;
        response["result"].clone()
    }

    pub async fn open(&mut self, uri: &str, text: &str) {
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": "cwl", "version": 1, "text": text}}),
        )
        .await;
    }
}

/// The LSP position of byte `at` in `text`, counted in UTF-16 code units (computed here
/// independently of the server's conversion code).
pub fn utf16_position(text: &str, at: usize) -> Value {
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let line = text[..at].matches('\n').count();
    let character = text[line_start..at].encode_utf16().count();
    json!({"line": line, "character": character})
}

/// The same in UTF-8 code units (bytes).
pub fn utf8_position(text: &str, at: usize) -> Value {
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let line = text[..at].matches('\n').count();
    json!({"line": line, "character": at - line_start})
}
