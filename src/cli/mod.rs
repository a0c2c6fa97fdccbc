//! The command line (SPEC §1): `serve` (the default), `check`, `derive`, `tools-list`.
pub mod check;
pub mod derive;

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::config::Layer;
use crate::settings::{Profile, ProtocolVersion};

#[derive(Parser, Debug)]
#[command(
    name = "cwl-mcp-lsp",
    version,
    about = "Language server and checker for the MCP hints of CWL documents"
)]
pub struct Cli {
    /// Serve LSP over stdio (what VS Code passes); the same as no subcommand.
    #[arg(long, global = false)]
    pub stdio: bool,
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Run the language server over stdio.
    Serve {
        #[arg(long, hide = true)]
        stdio: bool,
    },
    /// Report diagnostics for files and folders (every `*.cwl`, recursively).
    Check {
        #[command(flatten)]
        options: CommonOptions,
        #[arg(long, value_enum, default_value = "text")]
        format: FormatArg,
        #[arg(required = true)]
        paths: Vec<PathBuf>,
    },
    /// Print the derived MCP Tool of FILE (or of the process FILE#ID) as JSON.
    Derive {
        #[command(flatten)]
        options: CommonOptions,
        /// Every process of the document, inline `run:` processes included, as {ID: Tool}.
        #[arg(long)]
        all: bool,
        /// FILE or FILE#ID.
        target: String,
    },
    /// Print the MCP `tools/list` result an MCP server built from these files would serve.
    ToolsList {
        #[command(flatten)]
        options: CommonOptions,
        #[arg(required = true)]
        paths: Vec<PathBuf>,
    },
}

#[derive(Args, Debug, Clone)]
pub struct CommonOptions {
    /// Which rules apply: the extension specification or the cwl2mcp 0.1.0 exporter.
    #[arg(long, value_enum)]
    pub profile: Option<ProfileArg>,
    /// Prefix of the `_meta` keys of derived Tools.
    #[arg(long)]
    pub meta_prefix: Option<String>,
    /// MCP protocol version whose Tool schema derived Tools are checked against.
    #[arg(long, value_parser = ["2026-07-28", "2025-11-25", "2025-06-18"])]
    pub protocol_version: Option<String>,
}

impl CommonOptions {
    pub fn layer(&self) -> Layer {
        Layer {
            profile: self.profile.map(|p| match p {
                ProfileArg::Extension => Profile::Extension,
                ProfileArg::Cwl2mcp => Profile::Cwl2mcp,
            }),
            meta_prefix: self.meta_prefix.clone(),
            protocol_version: self
                .protocol_version
                .as_deref()
                .and_then(ProtocolVersion::parse),
            inlay_hints: None,
        }
    }
}

#[derive(ValueEnum, Clone, Copy, Debug)]
pub enum ProfileArg {
    Extension,
    Cwl2mcp,
}

#[derive(ValueEnum, Clone, Copy, Debug)]
pub enum FormatArg {
    Text,
    Json,
}
