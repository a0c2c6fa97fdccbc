//! Editor features over one [`Model`](crate::model::Model): completion, hover, quick fixes,
//! inlay hints, document symbols and the preview (SPEC §6).
//!
//! Every entry point is a plain function of the model (and a byte offset or range). They
//! return plain data with byte spans; `src/server/` turns it into LSP types and decides their
//! shape from the client's capabilities. Nothing here knows LSP, and nothing here analyses the
//! document again: what the model holds is the answer.
pub mod code_actions;
pub mod completion;
pub mod hover;
pub mod inlay_hints;
pub mod locate;
pub mod navigation;
pub mod preview;
pub mod symbols;
pub mod workspace_symbols;
