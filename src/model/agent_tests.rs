//! `agent-context` (SPEC §5, issue 13) on CWL documents with their expected diagnostics
//! annotated inline (see `crate::model::fixture` for the syntax).
use crate::base::Profile::{Cwl2mcp, Extension};
use crate::model::fixture::check_diagnostics;
