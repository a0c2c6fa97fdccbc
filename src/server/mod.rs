//! The language server: protocol glue only. Documents are edited under a synchronous lock;
//! analysis runs on immutable snapshots off the protocol task, guarded against panics.
mod backend;
pub mod convert;
pub mod state;

pub use backend::Backend;

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
        let (service, socket) = tower_lsp_server::LspService::new(Backend::new);
        tower_lsp_server::Server::new(tokio::io::stdin(), tokio::io::stdout(), socket)
            .serve(service)
            .await;
    });
    0
}
