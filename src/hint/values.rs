//! What a recognised `mcp:Tool` hint says, as derivation uses it: read once, by the same walk
//! that checks each field against the field table (`validate.rs`), so that derivation never
//! reads or checks the hint a second time. A value of the wrong type is left out (its
//! diagnostic says why); [`HintReading::blocking`] lists the diagnostics that refuse the Tool.
use serde_json::{Map, Value};

use crate::base::{Code, Diagnostic, Profile, Severity};
use crate::cwl::PathSeg;

/// The hint's values (SPEC §3), each present only when written with the right type.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HintValues {
    /// A non-empty `name` (`name: ''` counts as absent: both profiles fall back).
    pub name: Option<String>,
    /// A non-empty `title`.
    pub title: Option<String>,
    /// A non-empty `description` (the `extension` profile only).
    pub description: Option<String>,
    pub aliases: Vec<String>,
    pub use_when: Option<String>,
    pub do_not_use_when: Option<String>,
    /// The annotation fields written with the right type (`None`: no `annotations` mapping).
    pub annotations: Option<Map<String, Value>>,
    /// Where the hint's body is, from the process node (`hints`, then its index or key).
    pub path: Vec<PathSeg>,
}

/// A hint's values and the diagnostics of it that refuse the Tool.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HintReading {
    pub values: HintValues,
    pub blocking: Vec<Diagnostic>,
}

/// Whether a diagnostic of the hint's own fields refuses the Tool (SPEC §4 "Refusal"): under
/// `cwl2mcp` every error (the exporter fails on each); under `extension` only what makes the
/// Tool itself invalid, a hint value of the wrong type.
pub fn refuses(profile: Profile, d: &Diagnostic) -> bool {
    d.severity == Severity::Error && (profile == Profile::Cwl2mcp || d.code == Code::InvalidType)
}
