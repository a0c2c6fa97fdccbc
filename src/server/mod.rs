//! The language server: protocol glue only. Documents are edited under a synchronous lock;
//! analysis runs on immutable snapshots off the protocol task, guarded against panics.
mod backend;
pub mod convert;
mod frames;
pub mod state;

pub use backend::Backend;
pub use frames::sanitize;

/// Serves LSP over stdin/stdout until `exit`; returns the process exit code.
pub fn run_stdio() -> i32 {
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
