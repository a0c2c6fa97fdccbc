//! Guards every handler shares: locks that survive a panic, analysis off the protocol task
//! under `catch_unwind` (a panic becomes an error response, never a dead server), errors.
use std::panic::AssertUnwindSafe;
use std::sync::{Mutex, MutexGuard};

use tower_lsp_server::jsonrpc::{Error, ErrorCode, Result};

pub fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic while holding the lock leaves plain data behind; keep serving.
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Runs analysis work off the protocol task; a panic becomes an error, never a dead server.
pub async fn guarded<T: Send + 'static>(
    what: &'static str,
    f: impl FnOnce() -> T + Send + 'static,
) -> Result<T> {
    match tokio::task::spawn_blocking(move || std::panic::catch_unwind(AssertUnwindSafe(f))).await {
        Ok(result) => caught(what, result),
        Err(e) => Err(internal(format!("internal error in {what}: {e}"))),
    }
}

/// [`guarded`] for work that takes well under a millisecond (the analysis of a small
/// document): run in place on the calling task, which saves the hand-over to a blocking
/// thread and back (two thread wake-ups, the larger part of a small edit's latency).
pub fn guarded_inline<T>(what: &'static str, f: impl FnOnce() -> T) -> Result<T> {
    caught(what, std::panic::catch_unwind(AssertUnwindSafe(f)))
}

fn caught<T>(what: &'static str, result: std::thread::Result<T>) -> Result<T> {
    result.map_err(|panic| {
        let msg = panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".into());
        internal(format!("internal error in {what}: {msg}"))
    })
}

pub fn internal(message: String) -> Error {
    Error {
        code: ErrorCode::InternalError,
        message: message.into(),
        data: None,
    }
}

pub fn invalid_params(message: String) -> Error {
    Error {
        code: ErrorCode::InvalidParams,
        message: message.into(),
        data: None,
    }
}
