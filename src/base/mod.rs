//! The bottom layer: plain types every other layer shares. Nothing here knows YAML, CWL or LSP.
//!
//! - [`diagnostic`]: spans, severities, the [`Code`](diagnostic::Code) table, edits;
//! - [`context`]: where a document lives and the one read-boundary rule (SPEC §9);
//! - [`settings`]: profiles, protocol versions and effective settings;
//! - [`project`]: settings layers and `cwl-mcp.toml` (SPEC §1).
pub mod context;
pub mod diagnostic;
pub mod project;
pub mod settings;
pub mod severity;

pub use context::{BoundaryRule, DocumentContext, read_boundary};
pub use diagnostic::{Code, Diagnostic, Edit, Related, Severity, apply_edits};
pub use settings::{Profile, ProtocolVersion, Settings};

/// The stack size of every thread that analyses a document (the server's runtime threads; the
/// CLI runs on the 8 MiB main thread). Deeply nested YAML is bounded by depth, not by stack:
/// 512 levels of flow nesting need more than the 2 MiB default in unoptimised builds.
pub const ANALYSIS_STACK_BYTES: usize = 16 << 20;
