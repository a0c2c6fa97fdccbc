//! cwl-mcp-lsp: a language server and command line for the MCP hints of CWL documents.
pub mod derive;
pub mod document;
pub mod settings;
