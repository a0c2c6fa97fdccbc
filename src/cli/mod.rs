//! The command line (SPEC §1): `serve` (the default), `check`, `derive`, `tools-list`.
pub mod check;
pub mod derive;

use std::path::{Path, PathBuf};

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::base::project::{self, Layer};
use crate::base::settings::{Profile, ProtocolVersion};
use crate::base::{BoundaryRule, DocumentContext, read_boundary};
use crate::model::Model;

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
            agent_context: None,
            cwl2mcp_hints: None,
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

/// Why a file given to the CLI could not be analysed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LoadError {
    /// Reading the file or its `cwl-mcp.toml` failed (exit code 2).
    Io(String),
    /// The file is not UTF-8: the byte offset of the first invalid byte.
    NotUtf8(usize),
}

/// The read roots of a CLI run (SPEC §9): the current directory and every path given.
pub fn read_roots(paths: &[PathBuf]) -> Vec<PathBuf> {
    let mut roots: Vec<PathBuf> = std::env::current_dir().into_iter().collect();
    roots.extend(
        paths
            .iter()
            .map(|p| std::path::absolute(p).unwrap_or_else(|_| p.clone())),
    );
    roots
}

/// The model of one file as `check`, `derive` and `tools-list` all see it: its settings
/// (`cwl-mcp.toml` < CLI flags) and its read boundary from the one rule.
pub fn load(path: &Path, roots: &[PathBuf], cli: &Layer) -> Result<Model, LoadError> {
    let bytes =
        std::fs::read(path).map_err(|e| LoadError::Io(format!("{}: {e}", path.display())))?;
    let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let dir = abs.parent().unwrap_or(Path::new("/"));
    let project =
        project::load_project_layer(dir, None).map_err(|e| LoadError::Io(e.to_string()))?;
    let settings = Layer::resolve(&[&project.map(|(_, l)| l).unwrap_or_default(), cli]);
    let text =
        String::from_utf8(bytes).map_err(|e| LoadError::NotUtf8(e.utf8_error().valid_up_to()))?;
    let context = DocumentContext::from_path(path).within(Some(read_boundary(
        &abs,
        roots,
        BoundaryRule::CommandLine,
    )));
    Ok(Model::of_text(&text, settings, context))
}
