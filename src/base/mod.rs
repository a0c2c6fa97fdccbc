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

pub use context::{BoundaryRule, DocumentContext, read_boundary};
pub use diagnostic::{Code, Diagnostic, Edit, Related, Severity, apply_edits};
pub use settings::{Profile, ProtocolVersion, Settings};
