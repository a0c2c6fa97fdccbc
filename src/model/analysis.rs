//! The document's own diagnostics: YAML syntax, the hint rules, and what derivation finds.
use crate::base::{Code, Diagnostic, Severity};

use super::{Model, agent, clients, tools};

/// Every diagnostic of the document (not the cross-document ones), sorted by position, each
/// once.
pub(super) fn diagnostics(model: &Model) -> Vec<Diagnostic> {
    let yaml = model.yaml();
    let mut out: Vec<Diagnostic> = yaml
        .errors
        .iter()
        .map(|e| {
            Diagnostic::new(
                e.span.clone(),
                Severity::Error,
                Code::YamlSyntax,
                &e.message,
            )
        })
        .collect();
    out.extend(model.validation.diagnostics.iter().cloned());
    let diagnosed = model.diagnosed();
    out.extend(tools::diagnostics(&diagnosed));
    out.extend(super::links::diagnostics(model, !diagnosed.is_empty()));
    out.extend(clients::interop(model));
    out.extend(clients::name_compat(model));
    out.extend(agent::diagnostics(model));
    out.retain(|d| reported(&model.settings, d.code));
    sort(&mut out);
    out
}

/// Whether the settings let a code's diagnostics through: the one place each family is
/// silenced (`cwl2mcpHints`, `clientInterop`, `clientNames`; `agentContext` is read by its rule,
/// which then does no work). Cross-document diagnostics go through it too.
pub fn reported(settings: &crate::base::Settings, code: Code) -> bool {
    match code {
        Code::Cwl2mcpIncompatible => settings.cwl2mcp_hints,
        Code::McpClientInterop => settings.client_interop,
        Code::NameClientCompat => settings.client_names,
        Code::AgentContext => settings.agent_context,
        _ => true,
    }
}

/// The order every surface lists diagnostics in, without repeats.
pub fn sort(diagnostics: &mut Vec<Diagnostic>) {
    diagnostics.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    diagnostics.dedup();
}

/// A deliberate panic for the robustness tests (tests/robust_lsp.rs): in debug builds only,
/// analysis panics on a text that contains the non-empty value of the environment variable
/// `CWL_MCP_TEST_PANIC_MARKER`. Release builds do not contain this code.
#[cfg(debug_assertions)]
pub(super) fn test_panic_hook(text: &str) {
    if let Some(marker) = std::env::var_os("CWL_MCP_TEST_PANIC_MARKER")
        && let Some(marker) = marker.to_str()
        && !marker.is_empty()
        && text.contains(marker)
    {
        panic!("deliberate test panic (CWL_MCP_TEST_PANIC_MARKER)");
    }
}
