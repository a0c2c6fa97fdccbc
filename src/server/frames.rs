//! A filter in front of tower-lsp-server's reader: passes well-formed `Content-Length` frames
//! whose body is JSON, drops (and logs on stderr) the others. tower-lsp-server 0.23 ends the
//! whole session after one undecodable frame; a client's garbage must not kill the server.
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};

/// The part of a message the filter reads; the other members are checked and skipped.
#[derive(serde::Deserialize)]
struct Head<'a> {
    #[serde(borrow, default)]
    method: Option<std::borrow::Cow<'a, str>>,
}

/// A `didOpen` frame larger than this passes with its text lifted out ([`lift`]).
const LIFT_OVER: usize = 256 << 10;

/// Texts lifted out of frames, each with the token that stands for it in the frame passed
/// on, oldest first.
type Lifted = std::sync::Mutex<Vec<(String, String)>>;

/// The texts lifted out of large `didOpen` frames ([`opened_text`]).
static LIFTED: Lifted = std::sync::Mutex::new(Vec::new());
/// At most this many lifted texts wait to be read: the server reads each as soon as its
/// `didOpen` is handled, but drops a `didOpen` sent before `initialize`, whose text would
/// otherwise stay here for the session.
const LIFTED_KEPT: usize = 8;

/// How a lifted text's token begins (a NUL, which no YAML document holds), then this
/// process's id and the token's number.
const TOKEN: &str = "\0cwl-mcp-lsp lifted text ";

/// The text a `didOpen` names: `text` itself, or the text lifted out of its frame when
/// `text` is the token left in its place.
pub fn opened_text(text: String) -> String {
    opened_text_in(&LIFTED, text)
}

/// [`opened_text`] from the texts lifted into `store`.
fn opened_text_in(store: &Lifted, text: String) -> String {
    if !text.starts_with(TOKEN) {
        return text;
    }
    let mut lifted = store.lock().unwrap_or_else(|p| p.into_inner());
    match lifted.iter().position(|(token, _)| *token == text) {
        Some(i) => lifted.remove(i).1,
        None => text,
    }
}

/// The body of a `didOpen` frame with its text replaced by a token, the text kept for
/// [`opened_text`]; `None` (the frame passes as it is) when the body has no string at
/// `params.textDocument.text`. tower-lsp-server's reader buffers a whole frame before
/// decoding it and keeps the buffer's size for the rest of the session: a 50,000-line tool
/// (2.5 MB) left 4 MB resident in it (issue 14).
fn lift(body: &[u8]) -> Option<Vec<u8>> {
    lift_into(&LIFTED, body)
}

/// [`lift`], the text kept in `store`.
fn lift_into(store: &Lifted, body: &[u8]) -> Option<Vec<u8>> {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let mut message: serde_json::Value = serde_json::from_slice(body).ok()?;
    let Some(serde_json::Value::String(text)) = message
        .get_mut("params")
        .and_then(|p| p.get_mut("textDocument"))
        .and_then(|d| d.get_mut("text"))
    else {
        return None;
    };
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let token = format!("{TOKEN}{} {n}", std::process::id());
    let text = std::mem::replace(text, token.clone());
    let small = serde_json::to_vec(&message).ok()?;
    let mut lifted = store.lock().unwrap_or_else(|p| p.into_inner());
    let unread = (lifted.len() >= LIFTED_KEPT).then(|| lifted.remove(0));
    lifted.push((token, text));
    drop(lifted);
    drop(unread);
    Some(small)
}

/// Frames larger than this are skipped unread (their bytes are discarded in chunks).
const MAX_FRAME: usize = 512 << 20;
/// The body buffer reused from frame to frame holds at most this much.
const KEPT_BODY: usize = 64 << 10;
/// A header block longer than this is garbage.
const MAX_HEADER_LINE: usize = 4096;

/// Copies frames from `input` to `output` until `input` ends or `output` closes.
pub async fn sanitize(input: impl AsyncRead + Unpin, output: impl AsyncWrite + Unpin) {
    sanitize_with(input, output, |_| {}).await;
}

/// [`sanitize`], calling `seen` with the `method` of each message it passes (`None` for a
/// response or a body that is not an object) before writing it to `output`.
pub async fn sanitize_with(
    input: impl AsyncRead + Unpin,
    mut output: impl AsyncWrite + Unpin,
    mut seen: impl FnMut(Option<&str>),
) {
    let mut reader = BufReader::with_capacity(1 << 16, input);
    let mut body = Vec::new();
    loop {
        let mut length: Option<usize> = None;
        let mut bad_header = false;
        let mut line = Vec::new();
        loop {
            line.clear();
            match (&mut reader)
                .take(MAX_HEADER_LINE as u64)
                .read_until(b'\n', &mut line)
                .await
            {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
            let text = String::from_utf8_lossy(&line);
            let text = text.trim();
            if text.is_empty() {
                if length.is_some() || bad_header {
                    break;
                }
                continue; // stray blank lines between frames
            }
            match text.split_once(':') {
                Some((k, v)) if k.trim().eq_ignore_ascii_case("content-length") => {
                    match v.trim().parse::<usize>() {
                        Ok(n) => length = Some(n),
                        Err(_) => bad_header = true,
                    }
                }
                Some(_) => {} // Content-Type and other headers
                None => bad_header = true,
            }
        }
        let Some(length) = length.filter(|_| !bad_header) else {
            eprintln!("cwl-mcp-lsp: dropped a message with a malformed header");
            continue;
        };
        if length > MAX_FRAME {
            eprintln!("cwl-mcp-lsp: dropped a message of {length} bytes (limit {MAX_FRAME})");
            let mut skip = (&mut reader).take(length as u64);
            if tokio::io::copy(&mut skip, &mut tokio::io::sink())
                .await
                .is_err()
            {
                return;
            }
            continue;
        }
        // A large frame (a `didOpen` of a 50,000-line tool: 2.5 MB) is read into a buffer of
        // its own, freed once passed on: kept, it held its size for the process's life.
        let mut large = Vec::new();
        let body = if length > KEPT_BODY {
            &mut large
        } else {
            &mut body
        };
        body.resize(length, 0);
        if reader.read_exact(body).await.is_err() {
            return;
        }
        let body = &*body;
        // For an object (every LSP message) one parse both checks the JSON and reads `method`;
        // another body, or an object without a string `method` once, is only checked. (Not
        // `Head` for arrays: serde would read `["exit"]` as a struct.)
        let object = body.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{');
        let head = object.then(|| serde_json::from_slice::<Head>(body).ok());
        let mut lifted = None;
        match head.flatten() {
            Some(head) => {
                let method = head.method.as_deref();
                if method == Some("textDocument/didOpen") && length > LIFT_OVER {
                    lifted = lift(body);
                }
                seen(method)
            }
            None if serde_json::from_slice::<serde::de::IgnoredAny>(body).is_ok() => seen(None),
            None => {
                eprintln!("cwl-mcp-lsp: dropped a message whose body is not JSON ({length} bytes)");
                continue;
            }
        }
        let body = lifted.as_deref().unwrap_or(body);
        let length = body.len();
        let head = format!("Content-Length: {length}\r\n\r\n");
        if output.write_all(head.as_bytes()).await.is_err()
            || output.write_all(body).await.is_err()
            || output.flush().await.is_err()
        {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn run(input: &[u8]) -> String {
        let mut out = Vec::new();
        sanitize(input, &mut out).await;
        String::from_utf8(out).unwrap()
    }

    #[tokio::test]
    async fn passes_json_frames_and_drops_garbage() {
        let input = b"Content-Length: 2\r\n\r\n{}\
            Content-Length: 9\r\n\r\n{not json\
            Content-Type: application/vscode-jsonrpc; charset=utf-8\r\nContent-Length: 4\r\n\r\nnull\
            garbage line\r\n\r\n\
            Content-Length: x\r\n\r\n\
            \r\ncontent-length: 8\r\n\r\n[1,\"\xc3\xa9\"]";
        assert_eq!(
            run(input).await,
            "Content-Length: 2\r\n\r\n{}Content-Length: 4\r\n\r\nnullContent-Length: 8\r\n\r\n[1,\"é\"]"
        );
    }

    #[tokio::test]
    async fn reports_the_method_of_each_message_passed() {
        let input = b"Content-Length: 33\r\n\r\n{\"id\":1,\"method\":\"shut\\u0064own\"}\
            Content-Length: 9\r\n\r\n{not json\
            Content-Length: 4\r\n\r\nnull\
            Content-Length: 8\r\n\r\n[\"exit\"]\
            Content-Length: 22\r\n\r\n{\"id\":1,\"result\":null}\
            Content-Length: 17\r\n\r\n{\"method\":\"exit\"}";
        let mut methods = Vec::new();
        let mut out = Vec::new();
        sanitize_with(&input[..], &mut out, |m| {
            methods.push(m.map(str::to_string))
        })
        .await;
        assert_eq!(
            methods,
            [
                Some("shutdown".to_string()),
                None,
                None,
                None,
                Some("exit".to_string())
            ]
        );
    }

    /// Frames larger than the kept buffer (read into one of their own) pass whole, between
    /// small ones, and a broken large one is dropped like a small one.
    #[tokio::test]
    async fn large_frames_pass_between_small_ones() {
        let frame = |body: &str| format!("Content-Length: {}\r\n\r\n{body}", body.len());
        let large = format!(
            "{{\"method\":\"x\",\"text\":\"{}\"}}",
            "a".repeat(KEPT_BODY * 3)
        );
        let broken = format!("{{\"text\":\"{}", "b".repeat(KEPT_BODY * 2));
        let input = [
            frame("{}"),
            frame(&large),
            frame(&broken),
            frame("[1]"),
            frame(&large),
        ]
        .concat();
        let want = [frame("{}"), frame(&large), frame("[1]"), frame(&large)].concat();
        assert_eq!(run(input.as_bytes()).await, want);
    }

    /// A large `didOpen` passes as a small frame whose text is a token; the server reads
    /// the text through [`opened_text`] once. Other large frames, a large `didOpen` without
    /// a string text and a small `didOpen` pass as they are.
    #[tokio::test]
    async fn a_large_did_open_passes_with_its_text_lifted_out() {
        let frame = |body: &str| format!("Content-Length: {}\r\n\r\n{body}", body.len());
        let text: String = (0..20_000)
            .map(|i| format!("line {i}: \"é\"\tx\n"))
            .collect();
        assert!(text.len() > LIFT_OVER);
        let open = |text: &serde_json::Value| {
            serde_json::json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params":
                {"textDocument": {"uri": "file:///w/a.cwl", "languageId": "cwl", "version": 3,
                 "text": text}}})
            .to_string()
        };
        let large = open(&serde_json::json!(text));
        let odd = open(&serde_json::json!(["x".repeat(LIFT_OVER)]));
        let small = open(&serde_json::json!("a: 1\n"));
        let other = format!(
            "{{\"method\":\"x\",\"text\":\"{}\"}}",
            "a".repeat(LIFT_OVER)
        );
        let input = [frame(&large), frame(&odd), frame(&small), frame(&other)].concat();
        let out = run(input.as_bytes()).await;
        let rest = [frame(&odd), frame(&small), frame(&other)].concat();
        let first = out
            .strip_suffix(&rest)
            .expect("the other frames as they were");
        let (head, body) = first.split_once("\r\n\r\n").unwrap();
        assert_eq!(head, format!("Content-Length: {}", body.len()));
        assert!(body.len() < 1000, "{body}");
        let mut passed: serde_json::Value = serde_json::from_str(body).unwrap();
        let token = passed["params"]["textDocument"]["text"].take();
        let token = token.as_str().unwrap().to_string();
        assert!(token.starts_with(TOKEN));
        // The rest of the message is as sent.
        let mut sent: serde_json::Value = serde_json::from_str(&large).unwrap();
        sent["params"]["textDocument"]["text"] = serde_json::Value::Null;
        assert_eq!(passed, sent);
        assert_eq!(opened_text(token.clone()), text);
        assert_eq!(opened_text(token.clone()), token, "taken once");
        assert_eq!(opened_text("a: 1\n".into()), "a: 1\n");
    }

    /// Texts no `didOpen` reads back (one sent before `initialize` is dropped by the
    /// protocol library) are not kept for the session: the oldest goes once more than
    /// [`LIFTED_KEPT`] wait.
    #[test]
    fn lifted_texts_that_no_one_reads_are_bounded() {
        let store = Lifted::default();
        let body = |i: usize| {
            serde_json::json!({"method": "textDocument/didOpen", "params": {"textDocument":
                {"uri": "file:///w/x.cwl", "version": 1, "text": format!("text {i}")}}})
            .to_string()
        };
        let tokens: Vec<String> = (0..LIFTED_KEPT + 3)
            .map(|i| {
                let small = lift_into(&store, body(i).as_bytes()).unwrap();
                let small: serde_json::Value = serde_json::from_slice(&small).unwrap();
                small["params"]["textDocument"]["text"]
                    .as_str()
                    .unwrap()
                    .to_string()
            })
            .collect();
        assert_eq!(store.lock().unwrap().len(), LIFTED_KEPT);
        // The newest is still read back; the oldest is gone (its token stays a token).
        let newest = tokens.last().unwrap().clone();
        assert_eq!(
            opened_text_in(&store, newest),
            format!("text {}", LIFTED_KEPT + 2)
        );
        assert_eq!(opened_text_in(&store, tokens[0].clone()), tokens[0]);
        assert_eq!(store.lock().unwrap().len(), LIFTED_KEPT - 1);
    }

    #[tokio::test]
    async fn a_truncated_frame_ends_the_stream() {
        assert_eq!(run(b"Content-Length: 10\r\n\r\n{}").await, "");
    }
}
