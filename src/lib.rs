//! cwl-mcp-lsp: a language server and command line for the MCP hints of CWL documents.
pub mod analysis;
pub mod cli;
pub mod config;
pub mod cwl;
pub mod derive;
pub mod document;
pub mod features;
pub mod hint;
pub mod server;
pub mod settings;
