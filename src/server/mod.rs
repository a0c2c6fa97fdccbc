//! The language server: protocol glue only. Documents are edited under a synchronous lock;
//! analysis runs on immutable snapshots off the protocol task, guarded against panics.
mod backend;
pub mod capabilities;
pub mod convert;
mod frames;
mod guard;
mod index;
mod scheduler;
mod session;
pub mod state;
mod stdio;

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use tokio::sync::{Notify, watch};

pub use backend::Backend;
pub use frames::sanitize;
use frames::sanitize_with;

/// After `exit` (or the end of stdin), how long `serve` may take to finish its own way (write
/// the responses of cancelled requests) before the process ends regardless. `serve` normally
/// returns within a millisecond; this is the backstop that keeps the SPEC promise of ending
/// within 100 ms of `exit` whatever a handler is still waiting for (docs/reliability.md).
const GRACE: Duration = Duration::from_millis(20);

/// How the client ended the session, as the stdin filter saw it.
#[derive(Clone, Copy, Debug, PartialEq)]
enum End {
    /// `exit`, after a `shutdown` request or not.
    Exit { after_shutdown: bool },
    /// End of stdin without `exit`.
    Eof { after_shutdown: bool },
}

impl End {
    /// The process exit code: 0 when the client asked for `shutdown` first, otherwise 1 (LSP:
    /// "exit with error code 1" after an `exit` without `shutdown`; an end of input without
    /// `shutdown` means the client is gone, which is no success either).
    fn code(self) -> i32 {
        match self {
            End::Exit { after_shutdown } | End::Eof { after_shutdown } => {
                if after_shutdown {
                    0
                } else {
                    1
                }
            }
        }
    }
}

static INPUT_DONE: AtomicBool = AtomicBool::new(false);
static INPUT_DONE_NOTIFY: Notify = Notify::const_new();

/// Resolves once the stdin filter has read `exit` or the end of stdin: from then on no answer
/// to a server-to-client request can arrive (tower-lsp-server reads nothing after `exit`), so
/// a handler awaiting one must stop waiting or `serve` never returns. Never resolves when the
/// server is not run by [`run_stdio`] (the in-process tests).
pub(crate) async fn input_done() {
    let notified = INPUT_DONE_NOTIFY.notified();
    tokio::pin!(notified);
    notified.as_mut().enable();
    if INPUT_DONE.load(Ordering::SeqCst) {
        return;
    }
    notified.await;
}

fn mark_input_done() {
    INPUT_DONE.store(true, Ordering::SeqCst);
    INPUT_DONE_NOTIFY.notify_waiters();
}

/// Serves LSP over stdin/stdout until `exit` (or the end of stdin); returns the process exit
/// code (`End::code`). Returns within [`GRACE`] of reading `exit`, whether or not `serve` has.
///
/// The protocol, the diagnostics worker and the analysis of small documents share one thread
/// (a current-thread runtime, with the analysis stack size); larger analyses and the index go
/// to tokio's blocking pool; stdin and stdout have a thread each ([`stdio`]). A keystroke in
/// a small document thus crosses two thread hand-overs (input, output) instead of about
/// seven (docs/decisions.md, "One thread for the protocol").
pub fn run_stdio() -> i32 {
    tune_malloc();
    let protocol = std::thread::Builder::new()
        .name("protocol".into())
        .stack_size(crate::base::ANALYSIS_STACK_BYTES)
        .spawn(serve_stdio);
    match protocol.map(std::thread::JoinHandle::join) {
        Ok(Ok(code)) => code,
        Ok(Err(_)) => {
            eprintln!("cwl-mcp-lsp: the protocol thread panicked");
            1
        }
        Err(e) => {
            eprintln!("cwl-mcp-lsp: cannot start the protocol thread: {e}");
            2
        }
    }
}

fn serve_stdio() -> i32 {
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .thread_stack_size(crate::base::ANALYSIS_STACK_BYTES)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("cwl-mcp-lsp: cannot start the async runtime: {e}");
            return 2;
        }
    };
    let (stdout, writer) = match stdio::raw_stdout().and_then(stdio::spawn_writer) {
        Ok(w) => w,
        Err(e) => {
            eprintln!("cwl-mcp-lsp: cannot start the output thread: {e}");
            return 2;
        }
    };
    let (end_tx, mut end_rx) = watch::channel(None::<End>);
    // tower-lsp-server stops reading at the first frame whose body is not JSON (its framed
    // reader ends after a decoding error), so such frames are dropped before it sees them.
    // The filter also notes `shutdown` and `exit`: the end of the session is decided here,
    // when `exit` is read, not when `serve` returns. It runs on the input thread, blocking on
    // stdin; the duplex wakes the protocol thread.
    let (mut sanitized, server_input) = tokio::io::duplex(1 << 16);
    let filter_end = end_tx.clone();
    let reader = stdio::spawn_reader(move |stdin| {
        let Ok(rt) = tokio::runtime::Builder::new_current_thread().build() else {
            filter_end.send_modify(|end| {
                end.get_or_insert(End::Eof {
                    after_shutdown: false,
                });
            });
            mark_input_done();
            return;
        };
        rt.block_on(async move {
            let mut after_shutdown = false;
            sanitize_with(stdin, &mut sanitized, |method| match method {
                Some("shutdown") => after_shutdown = true,
                Some("exit") => {
                    filter_end.send_modify(|end| {
                        end.get_or_insert(End::Exit { after_shutdown });
                    });
                    mark_input_done();
                }
                _ => {}
            })
            .await;
            // Recorded before `sanitized` is dropped, so before `serve` can see the end.
            filter_end.send_modify(|end| {
                end.get_or_insert(End::Eof { after_shutdown });
            });
            mark_input_done();
            drop(sanitized);
        });
    });
    if let Err(e) = reader {
        eprintln!("cwl-mcp-lsp: cannot start the input thread: {e}");
        return 2;
    }
    let end = runtime.block_on(async {
        let (service, socket) = tower_lsp_server::LspService::new(Backend::new);
        let serve = tower_lsp_server::Server::new(server_input, stdout, socket).serve(service);
        // `serve` joins every handler still running, and after `exit` it reads nothing: a
        // handler waiting for the client's answer would keep it (and the process) alive for
        // ever. `input_done` releases the known waits; the deadline covers any other.
        let deadline = async {
            let _ = end_rx.wait_for(Option::is_some).await;
            tokio::time::sleep(GRACE).await;
        };
        tokio::select! {
            () = serve => {}
            () = deadline => {
                // tests/lifecycle.rs counts this line.
                eprintln!("cwl-mcp-lsp: still serving {GRACE:?} after the end of input; exiting");
            }
        }
        *end_tx.borrow()
    });
    // Nothing still running is waited for (a pending blocking analysis, the input thread's
    // read on a stdin clients often keep open after `exit`) but the output already queued,
    // within the same grace.
    runtime.shutdown_background();
    writer.finish(GRACE);
    // `serve` returning on its own with no end recorded (it cannot happen today) is a failure.
    end.map_or(1, End::code)
}

/// glibc gives each thread that allocates its own malloc arena (up to 8 per core), and memory
/// freed in one arena is not reused by another: with the analysis running on tokio's blocking
/// threads, the peak RSS with the 50,000-line benchmark document open grew from 68 MB after
/// `didOpen` to 108 MB after ten edits. One arena keeps it at 72 MB (docs/performance.md).
/// The server does one analysis at a time, so the shared arena's lock is not contended.
///
/// Blocks from 128 KiB up are first given their own `mmap`, and the threshold then follows
/// the size of the last such block freed: a 50,000-line text (2.3 MB, one per version, and
/// `T'` for a broken one) whose length goes up and down by a byte as the user types and
/// deletes was mapped afresh on some keystrokes and not others, depending on which was freed
/// last, and each fresh mapping faults in its 570 pages (about 1 ms per keystroke, in one
/// run of the benchmark in three). A fixed threshold of 32 MiB, and a trim threshold of
/// 64 MiB, keep such blocks in the heap, reused from one version to the next.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub fn tune_malloc() {
    const M_TRIM_THRESHOLD: std::ffi::c_int = -1;
    const M_MMAP_THRESHOLD: std::ffi::c_int = -3;
    const M_ARENA_MAX: std::ffi::c_int = -8;
    unsafe extern "C" {
        fn mallopt(param: std::ffi::c_int, value: std::ffi::c_int) -> std::ffi::c_int;
    }
    // SAFETY: `mallopt` only sets an allocator parameter; it is called before any other
    // thread exists. An explicit setting in the environment wins.
    let set = |param, value, env: &str| {
        if std::env::var_os(env).is_none() {
            unsafe {
                mallopt(param, value);
            }
        }
    };
    set(M_ARENA_MAX, 1, "MALLOC_ARENA_MAX");
    set(M_MMAP_THRESHOLD, 32 << 20, "MALLOC_MMAP_THRESHOLD_");
    set(M_TRIM_THRESHOLD, 64 << 20, "MALLOC_TRIM_THRESHOLD_");
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub fn tune_malloc() {}
