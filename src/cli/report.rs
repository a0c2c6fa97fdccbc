//! One diagnostic as the command line reports it (text, JSON, SARIF, GitHub lines).
use serde::Serialize;

/// One reported diagnostic, 1-based, columns in Unicode scalar values.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct Reported {
    pub path: String,
    pub line: u32,
    pub column: u32,
    pub end_line: u32,
    pub end_column: u32,
    pub severity: &'static str,
    pub code: &'static str,
    pub message: String,
}
