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
        match head.flatten() {
            Some(head) => seen(head.method.as_deref()),
            None if serde_json::from_slice::<serde::de::IgnoredAny>(body).is_ok() => seen(None),
            None => {
                eprintln!("cwl-mcp-lsp: dropped a message whose body is not JSON ({length} bytes)");
                continue;
            }
        }
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

    #[tokio::test]
    async fn a_truncated_frame_ends_the_stream() {
        assert_eq!(run(b"Content-Length: 10\r\n\r\n{}").await, "");
    }
}
