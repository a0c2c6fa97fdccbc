//! The command line (SPEC §1): `serve` (the default), `check`, `derive`, `tools-list`,
//! `completions`.
pub mod check;
pub mod derive;
pub mod github;
pub mod report;
pub mod sarif;

use std::path::{Path, PathBuf};

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::base::Severity;
use crate::base::project::{self, CheckPolicy, Layer};
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
        #[command(flatten)]
        check: CheckOptions,
        /// Output: `text` lines, a `json` array, one `sarif` 2.1.0 log (GitHub code scanning),
        /// or `github` Actions workflow commands (inline annotations).
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
    /// Print a shell completion script, e.g. `cwl-mcp-lsp completions bash > ~/.local/share/bash-completion/completions/cwl-mcp-lsp`.
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
}

/// `check`'s own options; both are also `cwl-mcp.toml` keys (`deny-warnings`,
/// `min-severity`), which the flags override.
#[derive(Args, Debug, Clone, Default)]
pub struct CheckOptions {
    /// Exit with status 1 on a warning too, not only on an error.
    #[arg(long, overrides_with = "no_deny_warnings")]
    pub deny_warnings: bool,
    /// Exit with status 1 on errors only, whatever `cwl-mcp.toml` says.
    #[arg(long, overrides_with = "deny_warnings")]
    pub no_deny_warnings: bool,
    /// Print only diagnostics of this severity and above (the exit status still counts all).
    #[arg(long, value_enum, value_name = "LEVEL")]
    pub min_severity: Option<SeverityArg>,
}

impl CheckOptions {
    /// The flags as a settings layer (only what was given).
    pub fn apply(&self, layer: &mut Layer) {
        if self.deny_warnings {
            layer.deny_warnings = Some(true);
        } else if self.no_deny_warnings {
            layer.deny_warnings = Some(false);
        }
        if let Some(m) = self.min_severity {
            layer.min_severity = Some(match m {
                SeverityArg::Error => Severity::Error,
                SeverityArg::Warning => Severity::Warning,
                SeverityArg::Information => Severity::Information,
                SeverityArg::Hint => Severity::Hint,
            });
        }
    }
}

#[derive(ValueEnum, Clone, Copy, Debug)]
pub enum SeverityArg {
    Error,
    Warning,
    Information,
    Hint,
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
            client_interop: None,
            client_names: None,
            deny_warnings: None,
            min_severity: None,
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
    Sarif,
    Github,
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
    load_with_policy(path, roots, cli).map(|(model, _)| model)
}

/// [`load`], and `check`'s policy for the file (`cwl-mcp.toml` < CLI flags).
pub fn load_with_policy(
    path: &Path,
    roots: &[PathBuf],
    cli: &Layer,
) -> Result<(Model, CheckPolicy), LoadError> {
    let bytes =
        std::fs::read(path).map_err(|e| LoadError::Io(format!("{}: {e}", path.display())))?;
    let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let dir = abs.parent().unwrap_or(Path::new("/"));
    let project =
        project::load_project_layer(dir, None).map_err(|e| LoadError::Io(e.to_string()))?;
    let project = project.map(|(_, l)| l).unwrap_or_default();
    let settings = Layer::resolve(&[&project, cli]);
    let policy = Layer::check_policy(&[&project, cli]);
    let text =
        String::from_utf8(bytes).map_err(|e| LoadError::NotUtf8(e.utf8_error().valid_up_to()))?;
    let context = DocumentContext::from_path(path).within(Some(read_boundary(
        &abs,
        roots,
        BoundaryRule::CommandLine,
    )));
    Ok((Model::of_text(&text, settings, context), policy))
}

/// How the CLI names a file in messages: relative to the current directory when inside it.
pub fn shown(path: &Path) -> String {
    let cwd = std::env::current_dir().unwrap_or_default();
    let cwd = std::fs::canonicalize(&cwd).unwrap_or(cwd);
    path.strip_prefix(&cwd)
        .unwrap_or(path)
        .display()
        .to_string()
}

/// `f` over `items` on every core (the files of `check` and `tools-list` are analysed
/// independently), results in the order of `items`.
pub fn par_map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(items.len());
    if threads <= 1 {
        return items.iter().map(f).collect();
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let mut slots: Vec<Option<R>> = std::iter::repeat_with(|| None).take(items.len()).collect();
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(item) = items.get(i) else { break };
                        done.push((i, f(item)));
                    }
                    done
                })
            })
            .collect();
        for w in workers {
            match w.join() {
                Ok(done) => {
                    for (i, r) in done {
                        slots[i] = Some(r);
                    }
                }
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
    });
    slots
        .into_iter()
        .map(|r| r.expect("every item mapped"))
        .collect()
}
