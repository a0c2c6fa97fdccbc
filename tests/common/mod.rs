//! Shared helpers of the integration tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

pub mod lsp_client;

/// `../shared` beside the project, when it is there (CI and developer machines); tests over it
/// form the second tier and say plainly when they are skipped.
pub fn shared_dir() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared");
    if dir.join("corpus/real").is_dir() {
        Some(dir)
    } else {
        eprintln!(
            "SKIPPED: ../shared (corpus and reference runs) is not beside the project; \
             second-tier tests over it did not run"
        );
        None
    }
}

/// Every `*.cwl` file under `dir`, sorted.
pub fn cwl_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "cwl") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// Runs the built `cwl-mcp-lsp` with `args` in `dir`: (exit code, stdout, stderr).
pub fn cli(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_cwl-mcp-lsp"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The `file://` URI of an absolute path written without percent-encoding (the tests' own
/// folders have plain names).
pub fn uri(path: &Path) -> String {
    format!("file://{}", path.display())
}
