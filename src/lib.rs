//! cwl-mcp-lsp: a language server and command line for the MCP hints of CWL documents.
//!
//! Layers, each importing only those above it in this list (`tests/architecture.rs` checks):
//! `base` (plain shared types) ← `document` (text, tree, YAML values) ← `cwl` (the CWL view)
//! ← `hint` (the `mcp:Tool` hint: fields, recognition, effective values, rules) ← `derive` (the
//! MCP Tool) ← `model` (one analysed snapshot: every surface reads it) ← `features` (IDE
//! answers as plain data) ← `server` (LSP) and `cli` (command line).
pub mod base;
pub mod cli;
pub mod cwl;
pub mod derive;
pub mod document;
pub mod features;
pub mod hint;
pub mod model;
pub mod server;
