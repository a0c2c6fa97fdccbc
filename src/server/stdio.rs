//! The server's standard input and output, each on a thread of its own.
//!
//! tokio's `stdin()` / `stdout()` hand every read and write to its blocking pool, and its
//! `stdout()` writes through std's line-buffered `Stdout`: each LSP frame left the process in
//! two writes (the header up to its blank line, then the body at the flush), from two pool
//! threads, and the client woke twice. A keystroke's round trip at 500 lines was mostly those
//! thread hand-overs (docs/decisions.md, "One thread for the protocol"). Here a reader thread
//! blocks on stdin and feeds the protocol; a writer thread writes each flushed frame with one
//! `write`. Neither ever blocks the protocol thread: output waits in the writer's queue while
//! a client is slow to read, so the protocol keeps reading its input meanwhile.
use std::io::{Read, Write};
use std::pin::Pin;
use std::sync::mpsc;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// Standard input read in place: only ever polled on the reader thread, where blocking in
/// `read` is what the thread is for.
pub struct BlockingStdin(std::io::Stdin);

impl BlockingStdin {
    pub fn new() -> Self {
        BlockingStdin(std::io::stdin())
    }
}

impl AsyncRead for BlockingStdin {
    fn poll_read(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let n = loop {
            match self.0.lock().read(buf.initialize_unfilled()) {
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                other => break other?,
            }
        };
        buf.advance(n);
        Poll::Ready(Ok(()))
    }
}

/// Runs `f` (the input filter) on a thread of its own that blocks on stdin. The thread is
/// not joined: clients often keep stdin open after `exit`, and the process ends regardless.
pub fn spawn_reader(f: impl FnOnce(BlockingStdin) + Send + 'static) -> std::io::Result<()> {
    std::thread::Builder::new()
        .name("stdin".into())
        .spawn(move || f(BlockingStdin::new()))
        .map(drop)
}

/// The protocol's output: bytes written are kept until the flush, which hands them to the
/// writer thread as one piece (one `write` for a frame).
pub struct QueuedStdout {
    pending: Vec<u8>,
    queue: mpsc::Sender<Vec<u8>>,
}

/// The writer thread's end: [`Writer::finish`] waits (bounded) for what was queued.
pub struct Writer {
    done: mpsc::Receiver<()>,
}

impl Writer {
    /// Waits until everything queued before the [`QueuedStdout`] was dropped is written, or
    /// for `limit` at most (a client that stopped reading must not keep the process alive).
    pub fn finish(self, limit: Duration) {
        let _ = self.done.recv_timeout(limit);
    }
}

/// Starts the writer thread over `out` (stdout in the server).
pub fn spawn_writer(
    mut out: impl Write + Send + 'static,
) -> std::io::Result<(QueuedStdout, Writer)> {
    let (queue, frames) = mpsc::channel::<Vec<u8>>();
    let (done_tx, done) = mpsc::channel();
    std::thread::Builder::new()
        .name("stdout".into())
        .spawn(move || {
            for frame in frames {
                if out.write_all(&frame).and_then(|()| out.flush()).is_err() {
                    break; // the client is gone: nothing more can be delivered
                }
            }
            let _ = done_tx.send(());
        })?;
    Ok((
        QueuedStdout {
            pending: Vec::new(),
            queue,
        },
        Writer { done },
    ))
}

/// Unbuffered standard output: a duplicate of its descriptor, so that one `write_all` is one
/// `write` (std's `Stdout` would split a frame at its header's line break).
#[cfg(unix)]
pub fn raw_stdout() -> std::io::Result<impl Write + Send + 'static> {
    use std::os::fd::AsFd;
    Ok(std::fs::File::from(
        std::io::stdout().as_fd().try_clone_to_owned()?,
    ))
}

#[cfg(not(unix))]
pub fn raw_stdout() -> std::io::Result<impl Write + Send + 'static> {
    Ok(std::io::stdout())
}

/// A frame written but not flushed when the protocol ends (the deadline after `exit`) is
/// still delivered: the queue only ever holds whole frames.
impl Drop for QueuedStdout {
    fn drop(&mut self) {
        if !self.pending.is_empty() {
            let _ = self.queue.send(std::mem::take(&mut self.pending));
        }
    }
}

impl AsyncWrite for QueuedStdout {
    fn poll_write(
        mut self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        self.pending.extend_from_slice(buf);
        Poll::Ready(Ok(buf.len()))
    }

    fn poll_flush(mut self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        if self.pending.is_empty() {
            return Poll::Ready(Ok(()));
        }
        let frame = std::mem::take(&mut self.pending);
        Poll::Ready(
            self.queue
                .send(frame)
                .map_err(|_| std::io::Error::from(std::io::ErrorKind::BrokenPipe)),
        )
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        self.poll_flush(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};
    use tokio::io::AsyncWriteExt;

    /// What the writer thread wrote, call by call.
    #[derive(Clone, Default)]
    struct Calls(Arc<Mutex<Vec<Vec<u8>>>>);

    impl Write for Calls {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().push(buf.to_vec());
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[tokio::test]
    async fn each_flush_leaves_as_one_write_in_order_and_finish_waits_for_all_of_them() {
        let calls = Calls::default();
        let (mut out, writer) = spawn_writer(calls.clone()).unwrap();
        out.write_all(b"Content-Length: 2\r\n\r\n").await.unwrap();
        out.write_all(b"{}").await.unwrap();
        out.flush().await.unwrap();
        out.flush().await.unwrap(); // nothing pending: no empty write
        out.write_all(b"Content-Length: 4\r\n\r\nnull")
            .await
            .unwrap();
        out.flush().await.unwrap();
        out.write_all(b"unflushed").await.unwrap();
        drop(out);
        writer.finish(Duration::from_secs(10));
        assert_eq!(
            *calls.0.lock().unwrap(),
            vec![
                b"Content-Length: 2\r\n\r\n{}".to_vec(),
                b"Content-Length: 4\r\n\r\nnull".to_vec(),
                b"unflushed".to_vec(),
            ]
        );
    }

    #[test]
    fn finish_gives_up_on_a_writer_that_never_ends() {
        struct Stuck;
        impl Write for Stuck {
            fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
                std::thread::sleep(Duration::from_secs(3600));
                Ok(0)
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let (mut out, writer) = spawn_writer(Stuck).unwrap();
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        rt.block_on(async {
            out.write_all(b"x").await.unwrap();
            out.flush().await.unwrap();
        });
        drop(out);
        let t = std::time::Instant::now();
        writer.finish(Duration::from_millis(50));
        assert!(t.elapsed() < Duration::from_secs(5));
    }
}
