//! The language server: protocol glue only. Documents are edited under a synchronous lock;
//! analysis runs on immutable snapshots off the protocol task, guarded against panics.
mod backend;
pub mod capabilities;
pub mod convert;
mod frames;
pub mod state;

pub use backend::Backend;
pub use frames::sanitize;

/// Serves LSP over stdin/stdout until `exit`; returns the process exit code.
pub fn run_stdio() -> i32 {
    limit_malloc_arenas();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("cwl-mcp-lsp: cannot start the async runtime: {e}");
            return 2;
        }
    };
    runtime.block_on(async {
        // tower-lsp-server stops reading at the first frame whose body is not JSON (its framed
        // reader ends after a decoding error), so such frames are dropped before it sees them.
        let (sanitized, server_input) = tokio::io::duplex(1 << 16);
        tokio::spawn(sanitize(tokio::io::stdin(), sanitized));
        let (service, socket) = tower_lsp_server::LspService::new(Backend::new);
        tower_lsp_server::Server::new(server_input, tokio::io::stdout(), socket)
            .serve(service)
            .await;
    });
    // The filter's pending read on stdin may never return (clients often keep stdin open after
    // `exit`); do not wait for it.
    runtime.shutdown_background();
    0
}

/// glibc gives each thread that allocates its own malloc arena (up to 8 per core), and memory
/// freed in one arena is not reused by another: with the analysis running on tokio's blocking
/// threads, the peak RSS with the 50,000-line benchmark document open grew from 68 MB after
/// `didOpen` to 108 MB after ten edits. One arena keeps it at 72 MB (docs/performance.md).
/// The server does one analysis at a time, so the shared arena's lock is not contended.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn limit_malloc_arenas() {
    const M_ARENA_MAX: std::ffi::c_int = -8;
    unsafe extern "C" {
        fn mallopt(param: std::ffi::c_int, value: std::ffi::c_int) -> std::ffi::c_int;
    }
    // SAFETY: `mallopt` only sets an allocator parameter; it is called before any other
    // thread exists. An explicit MALLOC_ARENA_MAX in the environment wins.
    if std::env::var_os("MALLOC_ARENA_MAX").is_none() {
        unsafe {
            mallopt(M_ARENA_MAX, 1);
        }
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn limit_malloc_arenas() {}
