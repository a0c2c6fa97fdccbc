//! The `LanguageServer` implementation: converts requests, mutates state, schedules analysis.
use std::panic::AssertUnwindSafe;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use tower_lsp_server::jsonrpc::{Error, ErrorCode, Result};
use tower_lsp_server::ls_types::*;
use tower_lsp_server::{Client, LanguageServer};

use super::capabilities::{APPLY_EDIT_COMMAND, ClientShape};
use super::convert;
use super::state::{Job, OpenDocument, State, uri_path};
use crate::analysis::{self, DocumentContext};
use crate::config::Layer;
use crate::document::{Change, Document, Encoding, LineIndex};
use crate::features;
use crate::features::preview::{self, PREVIEW_COMMAND};

// The preview code action has no kind: editors list kind-less actions in their code action
// menu (VS Code's Ctrl+. shows no `source.*` action), and it edits nothing.

pub struct Backend {
    client: Client,
    state: Arc<Mutex<State>>,
    wake: Arc<tokio::sync::Notify>,
    worker_started: AtomicBool,
    config_pull: AtomicBool,
    /// The client refreshes inlay hints / code lenses when asked (after a settings change).
    inlay_refresh: AtomicBool,
    lens_refresh: AtomicBool,
    /// What the client can take, from `initialize`.
    shape: std::sync::OnceLock<ClientShape>,
}

fn lock(state: &Mutex<State>) -> MutexGuard<'_, State> {
    // A panic while holding the lock leaves plain data behind; keep serving.
    state.lock().unwrap_or_else(|p| p.into_inner())
}

/// Runs analysis work off the protocol task; a panic becomes an error, never a dead server.
pub async fn guarded<T: Send + 'static>(
    what: &'static str,
    f: impl FnOnce() -> T + Send + 'static,
) -> Result<T> {
    match tokio::task::spawn_blocking(move || std::panic::catch_unwind(AssertUnwindSafe(f))).await {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(panic)) => {
            let msg = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            Err(internal(format!("internal error in {what}: {msg}")))
        }
        Err(e) => Err(internal(format!("internal error in {what}: {e}"))),
    }
}

pub fn internal(message: String) -> Error {
    Error {
        code: ErrorCode::InternalError,
        message: message.into(),
        data: None,
    }
}

pub fn invalid_params(message: String) -> Error {
    Error {
        code: ErrorCode::InvalidParams,
        message: message.into(),
        data: None,
    }
}

fn settings_value(value: &serde_json::Value) -> Option<&serde_json::Value> {
    match value.get("cwlMcp") {
        Some(v) => Some(v),
        None if value.is_object() => Some(value),
        None => None,
    }
}

impl Backend {
    pub fn new(client: Client) -> Backend {
        Backend {
            client,
            state: Arc::new(Mutex::new(State::default())),
            wake: Arc::new(tokio::sync::Notify::new()),
            worker_started: AtomicBool::new(false),
            config_pull: AtomicBool::new(false),
            inlay_refresh: AtomicBool::new(false),
            lens_refresh: AtomicBool::new(false),
            shape: std::sync::OnceLock::new(),
        }
    }

    fn shape(&self) -> ClientShape {
        self.shape.get().copied().unwrap_or_default()
    }

    fn mark_dirty(&self, uri: Uri) {
        lock(&self.state).dirty.insert(uri);
        self.wake.notify_one();
    }

    fn mark_all_dirty(&self) {
        let mut st = lock(&self.state);
        let uris: Vec<Uri> = st.docs.keys().cloned().collect();
        st.dirty.extend(uris);
        drop(st);
        self.wake.notify_one();
    }

    /// The diagnostics worker: takes the latest version of each dirty document, analyses it,
    /// and publishes unless a newer version arrived meanwhile. Edits that arrive during a run
    /// coalesce into the next one; there is no fixed delay.
    fn start_worker(&self) {
        if self.worker_started.swap(true, Ordering::SeqCst) {
            return;
        }
        let state = self.state.clone();
        let wake = self.wake.clone();
        let client = self.client.clone();
        tokio::spawn(async move {
            loop {
                wake.notified().await;
                loop {
                    let job = {
                        let mut st = lock(&state);
                        if st.shutting_down {
                            return;
                        }
                        let Some(uri) = st.dirty.iter().next().cloned() else {
                            break;
                        };
                        st.dirty.remove(&uri);
                        st.job(&uri)
                    };
                    let Some(job) = job else { continue };
                    run_job(&client, &state, &wake, job).await;
                }
            }
        });
    }

    fn job(&self, uri: &Uri) -> Result<Job> {
        lock(&self.state)
            .job(uri)
            .ok_or_else(|| invalid_params(format!("unknown document: {}", uri.as_str())))
    }

    /// The job of an open document, the negotiated encoding, and `position` as a byte offset.
    /// An unknown document or a position past its end is an error, not a panic.
    fn locate(&self, uri: &Uri, position: Position) -> Result<(Job, Encoding, usize)> {
        let job = self.job(uri)?;
        let encoding = lock(&self.state).encoding;
        let at = job
            .snapshot
            .lines
            .offset(convert::from_lsp(position), encoding)
            .map_err(|e| invalid_params(e.to_string()))?;
        Ok((job, encoding, at))
    }

    async fn pull_configuration(&self) {
        if !self.config_pull.load(Ordering::SeqCst) {
            return;
        }
        let items = vec![ConfigurationItem {
            scope_uri: None,
            section: Some("cwlMcp".into()),
        }];
        if let Ok(values) = self.client.configuration(items).await
            && let Some(value) = values.first()
        {
            self.apply_editor_settings(value).await;
        }
    }

    async fn apply_editor_settings(&self, value: &serde_json::Value) {
        let (layer, problems) = Layer::from_json(value);
        {
            let mut st = lock(&self.state);
            st.editor_layer = layer;
            st.generation += 1;
        }
        for p in problems {
            self.client
                .log_message(MessageType::WARNING, format!("cwl-mcp: {p}"))
                .await;
        }
    }
}

async fn run_job(client: &Client, state: &Arc<Mutex<State>>, wake: &tokio::sync::Notify, job: Job) {
    let uri = job.uri.clone();
    let version = job.snapshot.version;
    let generation = job.generation;
    let config_error = job.config_error.clone();
    let lines = job.snapshot.lines.clone();
    let result = guarded("diagnostics", move || {
        analysis::analyze(&job.snapshot, &job.settings, &job.context)
    })
    .await;
    // A malformed project file is reported on that file.
    report_project_file(client, state, config_error).await;
    let analysis = match result {
        Ok(a) => a,
        Err(e) => {
            client
                .log_message(MessageType::ERROR, format!("cwl-mcp: {}", e.message))
                .await;
            return;
        }
    };
    let mut diags = analysis.diagnostics;
    let (encoding, affected) = {
        let mut st = lock(state);
        if st.version(&uri) != Some(version) {
            return; // superseded: the newer version is already queued
        }
        // Workspace-wide duplicate names (SPEC §5 `tool-name-duplicate`).
        let names: Vec<String> = analysis.tool_names.iter().map(|(n, _)| n.clone()).collect();
        let old = st
            .tool_names
            .insert(uri.clone(), names.clone())
            .unwrap_or_default();
        for (name, span) in &analysis.tool_names {
            if let Some(other) = st.other_documents_naming(&uri, name).first() {
                let file = other
                    .as_str()
                    .rsplit('/')
                    .next()
                    .unwrap_or(other.as_str())
                    .to_string();
                diags.push(analysis::Diagnostic::new(
                    span.clone(),
                    analysis::Severity::Warning,
                    "tool-name-duplicate",
                    format!(
                        "the MCP tool name `{name}` is also derived by the open document `{file}`; \
                         names must be unique within a server"
                    ),
                ));
            }
        }
        // Documents whose duplicates may have appeared or gone are re-analysed.
        let mut affected = Vec::new();
        if old != names {
            for name in old.iter().chain(names.iter()) {
                for other in st.other_documents_naming(&uri, name) {
                    if !affected.contains(&other) {
                        affected.push(other);
                    }
                }
            }
            for other in &affected {
                st.published.remove(other);
                st.dirty.insert(other.clone());
            }
        }
        if st.published.get(&uri) == Some(&(version, generation)) {
            return; // already published for this version and these settings
        }
        st.published.insert(uri.clone(), (version, generation));
        (st.encoding, affected)
    };
    let items = diags
        .iter()
        .map(|d| convert::diagnostic(&lines, d, encoding))
        .collect();
    client.publish_diagnostics(uri, items, Some(version)).await;
    if !affected.is_empty() {
        wake.notify_one();
    }
}

async fn report_project_file(
    client: &Client,
    state: &Arc<Mutex<State>>,
    error: Option<crate::config::ConfigError>,
) {
    match error {
        Some(e) => {
            let Some(uri) = Uri::from_file_path(&e.path) else {
                return;
            };
            let text = std::fs::read_to_string(&e.path).unwrap_or_default();
            let lines = LineIndex::from_text(&text);
            let span = e
                .span
                .clone()
                .unwrap_or(0..text.find('\n').unwrap_or(text.len()));
            let encoding = {
                let mut st = lock(state);
                st.bad_project_files.insert(e.path.clone());
                st.encoding
            };
            let diag = Diagnostic {
                range: convert::range(&lines, &span, encoding),
                severity: Some(DiagnosticSeverity::ERROR),
                code: Some(NumberOrString::String("config".into())),
                source: Some("cwl-mcp".into()),
                message: format!("invalid cwl-mcp.toml, ignored: {}", e.message),
                ..Default::default()
            };
            client.publish_diagnostics(uri, vec![diag], None).await;
        }
        None => {
            let fixed: Vec<PathBuf> = {
                let mut st = lock(state);
                let bad: Vec<PathBuf> = st.bad_project_files.iter().cloned().collect();
                let still_bad: Vec<PathBuf> = bad
                    .iter()
                    .filter(|p| {
                        std::fs::read_to_string(p)
                            .is_ok_and(|t| crate::config::parse_project_file(p, &t).is_err())
                    })
                    .cloned()
                    .collect();
                st.bad_project_files = still_bad.iter().cloned().collect();
                bad.into_iter().filter(|p| !still_bad.contains(p)).collect()
            };
            for path in fixed {
                if let Some(uri) = Uri::from_file_path(&path) {
                    client.publish_diagnostics(uri, vec![], None).await;
                }
            }
        }
    }
}

impl LanguageServer for Backend {
    async fn initialize(&self, params: InitializeParams) -> Result<InitializeResult> {
        let utf8 = params
            .capabilities
            .general
            .as_ref()
            .and_then(|g| g.position_encodings.as_ref())
            .is_some_and(|encs| encs.contains(&PositionEncodingKind::UTF8));
        let encoding = if utf8 {
            Encoding::Utf8
        } else {
            Encoding::Utf16
        };
        let config_pull = params
            .capabilities
            .workspace
            .as_ref()
            .and_then(|w| w.configuration)
            .unwrap_or(false);
        self.config_pull.store(config_pull, Ordering::SeqCst);
        let workspace = params.capabilities.workspace.as_ref();
        let inlay = workspace
            .and_then(|w| w.inlay_hint.as_ref())
            .and_then(|c| c.refresh_support)
            .unwrap_or(false);
        let lens = workspace
            .and_then(|w| w.code_lens.as_ref())
            .and_then(|c| c.refresh_support)
            .unwrap_or(false);
        self.inlay_refresh.store(inlay, Ordering::SeqCst);
        self.lens_refresh.store(lens, Ordering::SeqCst);
        let shape = ClientShape::from_capabilities(&params.capabilities);
        let _ = self.shape.set(shape);
        let mut roots: Vec<PathBuf> = params
            .workspace_folders
            .iter()
            .flatten()
            .filter_map(|f| uri_path(&f.uri))
            .collect();
        #[allow(deprecated)]
        if roots.is_empty()
            && let Some(root) = params.root_uri.as_ref().and_then(uri_path)
        {
            roots.push(root);
        }
        let mut problems = Vec::new();
        {
            let mut st = lock(&self.state);
            st.encoding = encoding;
            st.workspace_roots = roots;
            if let Some(options) = params
                .initialization_options
                .as_ref()
                .and_then(settings_value)
            {
                let (layer, p) = Layer::from_json(options);
                st.editor_layer = layer;
                problems = p;
            }
        }
        for p in problems {
            self.client
                .log_message(MessageType::WARNING, format!("cwl-mcp: {p}"))
                .await;
        }
        self.start_worker();
        Ok(InitializeResult {
            capabilities: ServerCapabilities {
                position_encoding: Some(if utf8 {
                    PositionEncodingKind::UTF8
                } else {
                    PositionEncodingKind::UTF16
                }),
                text_document_sync: Some(TextDocumentSyncCapability::Options(
                    TextDocumentSyncOptions {
                        open_close: Some(true),
                        change: Some(TextDocumentSyncKind::INCREMENTAL),
                        ..Default::default()
                    },
                )),
                completion_provider: Some(CompletionOptions {
                    trigger_characters: Some(vec![":".into(), " ".into()]),
                    resolve_provider: Some(false),
                    ..Default::default()
                }),
                hover_provider: Some(HoverProviderCapability::Simple(true)),
                code_action_provider: Some(CodeActionProviderCapability::Options(
                    CodeActionOptions {
                        code_action_kinds: Some(vec![CodeActionKind::QUICKFIX]),
                        resolve_provider: Some(false),
                        ..Default::default()
                    },
                )),
                execute_command_provider: Some(ExecuteCommandOptions {
                    commands: std::iter::once(PREVIEW_COMMAND)
                        .chain(shape.fixes_as_commands().then_some(APPLY_EDIT_COMMAND))
                        .map(String::from)
                        .collect(),
                    work_done_progress_options: Default::default(),
                }),
                code_lens_provider: Some(CodeLensOptions {
                    resolve_provider: Some(false),
                }),
                inlay_hint_provider: Some(OneOf::Left(true)),
                document_symbol_provider: Some(OneOf::Left(true)),
                diagnostic_provider: Some(DiagnosticServerCapabilities::Options(
                    DiagnosticOptions {
                        identifier: Some("cwl-mcp".into()),
                        inter_file_dependencies: false,
                        workspace_diagnostics: false,
                        work_done_progress_options: Default::default(),
                    },
                )),
                ..Default::default()
            },
            server_info: Some(ServerInfo {
                name: "cwl-mcp-lsp".into(),
                version: Some(env!("CARGO_PKG_VERSION").into()),
            }),
            offset_encoding: None,
        })
    }

    async fn initialized(&self, _: InitializedParams) {
        self.pull_configuration().await;
        self.mark_all_dirty();
    }

    async fn shutdown(&self) -> Result<()> {
        lock(&self.state).shutting_down = true;
        self.wake.notify_one();
        Ok(())
    }

    async fn did_open(&self, params: DidOpenTextDocumentParams) {
        let doc = params.text_document;
        let path = uri_path(&doc.uri);
        let mut context = match &path {
            Some(p) => DocumentContext::from_path(p),
            None => DocumentContext::from_uri(doc.uri.as_str()),
        };
        context.uri = doc.uri.as_str().to_string();
        {
            let mut st = lock(&self.state);
            context.sandbox_root = path.as_deref().and_then(|p| st.sandbox_for(p));
            st.docs.insert(
                doc.uri.clone(),
                OpenDocument {
                    document: Document::new(doc.text, doc.version),
                    context,
                    path,
                },
            );
        }
        self.start_worker();
        self.mark_dirty(doc.uri);
    }

    async fn did_change(&self, params: DidChangeTextDocumentParams) {
        let uri = params.text_document.uri;
        let changes: Vec<Change> = params
            .content_changes
            .into_iter()
            .map(|c| Change {
                range: c
                    .range
                    .map(|r| (convert::from_lsp(r.start), convert::from_lsp(r.end))),
                text: c.text,
            })
            .collect();
        let problem = {
            let mut st = lock(&self.state);
            let encoding = st.encoding;
            match st.docs.get_mut(&uri) {
                None => Some(format!(
                    "change to a document that is not open: {}",
                    uri.as_str()
                )),
                Some(doc) => doc
                    .document
                    .apply_changes(&changes, params.text_document.version, encoding)
                    .err()
                    .map(|e| format!("change ignored for {}: {e}", uri.as_str())),
            }
        };
        if let Some(p) = problem {
            self.client
                .log_message(MessageType::ERROR, format!("cwl-mcp: {p}"))
                .await;
            return;
        }
        self.mark_dirty(uri);
    }

    async fn did_close(&self, params: DidCloseTextDocumentParams) {
        let uri = params.text_document.uri;
        {
            let mut st = lock(&self.state);
            st.docs.remove(&uri);
            st.dirty.remove(&uri);
            st.published.remove(&uri);
            // Its names no longer count; documents that shared one are re-checked.
            let names = st.tool_names.remove(&uri).unwrap_or_default();
            let mut affected = Vec::new();
            for name in &names {
                affected.extend(st.other_documents_naming(&uri, name));
            }
            for other in affected {
                st.published.remove(&other);
                st.dirty.insert(other);
            }
        }
        self.wake.notify_one();
        self.client.publish_diagnostics(uri, vec![], None).await;
    }

    async fn did_change_configuration(&self, params: DidChangeConfigurationParams) {
        match settings_value(&params.settings) {
            Some(value) if params.settings.get("cwlMcp").is_some() => {
                let value = value.clone();
                self.apply_editor_settings(&value).await;
            }
            _ => self.pull_configuration().await,
        }
        self.mark_all_dirty();
        // Inlay hints and code lenses depend on the settings too: ask the client to re-request
        // them (without waiting for its answer).
        let client = self.client.clone();
        let (inlay, lens) = (
            self.inlay_refresh.load(Ordering::SeqCst),
            self.lens_refresh.load(Ordering::SeqCst),
        );
        tokio::spawn(async move {
            if inlay {
                let _ = client.inlay_hint_refresh().await;
            }
            if lens {
                let _ = client.code_lens_refresh().await;
            }
        });
    }

    async fn completion(&self, params: CompletionParams) -> Result<Option<CompletionResponse>> {
        let pos = params.text_document_position;
        let (job, encoding, at) = self.locate(&pos.text_document.uri, pos.position)?;
        let shape = self.shape();
        let items = guarded("completion", move || {
            let items = features::completion::completion(&job.snapshot, &job.settings, at);
            items
                .iter()
                .map(|c| {
                    convert::completion(
                        &job.snapshot.lines,
                        &job.snapshot.text,
                        c,
                        encoding,
                        &shape,
                    )
                })
                .collect::<Vec<_>>()
        })
        .await?;
        Ok((!items.is_empty()).then_some(CompletionResponse::Array(items)))
    }

    async fn hover(&self, params: HoverParams) -> Result<Option<Hover>> {
        let pos = params.text_document_position_params;
        let (job, encoding, at) = self.locate(&pos.text_document.uri, pos.position)?;
        let shape = self.shape();
        guarded("hover", move || {
            features::hover::hover(&job.snapshot, &job.settings, &job.context, at)
                .map(|h| convert::hover(&job.snapshot.lines, &h, encoding, &shape))
        })
        .await
    }

    async fn code_action(&self, params: CodeActionParams) -> Result<Option<CodeActionResponse>> {
        let uri = params.text_document.uri;
        let (job, encoding, start) = self.locate(&uri, params.range.start)?;
        let end = job
            .snapshot
            .lines
            .offset(convert::from_lsp(params.range.end), encoding)
            .map_err(|e| invalid_params(e.to_string()))?;
        let wants_preview = params
            .context
            .only
            .as_ref()
            .is_none_or(|only| only.iter().any(|k| k.as_str().is_empty()));
        let wants_fixes = params.context.only.as_ref().is_none_or(|only| {
            only.iter()
                .any(|k| CodeActionKind::QUICKFIX.as_str().starts_with(k.as_str()))
        });
        let client_diagnostics = params.context.diagnostics;
        let shape = self.shape();
        let actions = guarded("code actions", move || {
            let mut actions: Vec<CodeActionOrCommand> = Vec::new();
            if wants_fixes {
                let fixes = features::code_actions::quick_fixes(
                    &job.snapshot,
                    &job.settings,
                    &job.context,
                    start.min(end)..start.max(end),
                );
                actions.extend(fixes.iter().filter_map(|f| {
                    convert::quick_fix(
                        &job.snapshot.lines,
                        &uri,
                        f,
                        &client_diagnostics,
                        encoding,
                        &shape,
                    )
                }));
            }
            if wants_preview
                && let Some(key) = preview::process_key_at(&job.snapshot, &job.context, start)
            {
                let command = Command {
                    title: "Preview derived MCP Tool".into(),
                    command: PREVIEW_COMMAND.into(),
                    arguments: Some(vec![
                        serde_json::Value::String(uri.as_str().to_string()),
                        serde_json::Value::String(key),
                    ]),
                };
                actions.push(convert::command_action(command, &shape));
            }
            actions
        })
        .await?;
        Ok(Some(actions))
    }

    async fn inlay_hint(&self, params: InlayHintParams) -> Result<Option<Vec<InlayHint>>> {
        let (job, encoding, start) = self.locate(&params.text_document.uri, params.range.start)?;
        // A visible range reaching past the end is harmless here: it means "to the end".
        let end = job
            .snapshot
            .lines
            .offset(convert::from_lsp(params.range.end), encoding)
            .unwrap_or(job.snapshot.text.len());
        let shape = self.shape();
        let hints = guarded("inlay hints", move || {
            features::inlay_hints::inlay_hints(&job.snapshot, &job.settings)
                .iter()
                .filter(|h| start <= h.at && h.at <= end)
                .map(|h| convert::inlay_hint(&job.snapshot.lines, h, encoding, &shape))
                .collect::<Vec<_>>()
        })
        .await?;
        Ok(Some(hints))
    }

    async fn document_symbol(
        &self,
        params: DocumentSymbolParams,
    ) -> Result<Option<DocumentSymbolResponse>> {
        let uri = params.text_document.uri;
        let job = self.job(&uri)?;
        let encoding = lock(&self.state).encoding;
        let shape = self.shape();
        let symbols = guarded("document symbols", move || {
            let symbols = features::symbols::symbols(&job.snapshot);
            convert::symbols(&job.snapshot.lines, &uri, &symbols, encoding, &shape)
        })
        .await?;
        Ok(Some(symbols))
    }

    async fn execute_command(&self, params: ExecuteCommandParams) -> Result<Option<LSPAny>> {
        if params.command == APPLY_EDIT_COMMAND {
            // A quick fix sent as a command (a client without code action literals).
            let edit: WorkspaceEdit = params
                .arguments
                .first()
                .and_then(|v| serde_json::from_value(v.clone()).ok())
                .ok_or_else(|| invalid_params("expected arguments [WorkspaceEdit]".into()))?;
            self.client
                .apply_edit(edit)
                .await
                .map_err(|e| internal(format!("workspace/applyEdit failed: {}", e.message)))?;
            return Ok(None);
        }
        if params.command != PREVIEW_COMMAND {
            return Err(invalid_params(format!(
                "unknown command `{}`",
                params.command
            )));
        }
        let uri_text = params
            .arguments
            .first()
            .and_then(|v| v.as_str())
            .ok_or_else(|| invalid_params("expected arguments [uri, processId or null]".into()))?;
        let uri: Uri = uri_text
            .parse()
            .map_err(|_| invalid_params(format!("not a URI: {uri_text}")))?;
        let key = params
            .arguments
            .get(1)
            .and_then(|v| v.as_str())
            .map(str::to_string);
        let job = self.job(&uri)?;
        let answer = guarded("preview", move || {
            preview::preview(&job.snapshot, &job.settings, &job.context, key.as_deref())
        })
        .await?;
        match answer {
            Ok(tool) => Ok(Some(tool)),
            Err(e) => Err(Error {
                code: ErrorCode::ServerError(-32803), // LSP RequestFailed
                message: e.to_string().into(),
                data: None,
            }),
        }
    }

    async fn code_lens(&self, params: CodeLensParams) -> Result<Option<Vec<CodeLens>>> {
        let uri = params.text_document.uri;
        let job = self.job(&uri)?;
        let encoding = lock(&self.state).encoding;
        let lines = job.snapshot.lines.clone();
        let lenses = guarded("code lenses", move || {
            preview::code_lenses(&job.snapshot, &job.settings, &job.context)
        })
        .await?;
        Ok(Some(
            lenses
                .into_iter()
                .map(|lens| CodeLens {
                    range: convert::range(&lines, &lens.span, encoding),
                    command: Some(Command {
                        title: lens.title,
                        command: PREVIEW_COMMAND.into(),
                        arguments: Some(vec![
                            serde_json::Value::String(uri.as_str().to_string()),
                            serde_json::Value::String(lens.key),
                        ]),
                    }),
                    data: None,
                })
                .collect(),
        ))
    }

    async fn diagnostic(
        &self,
        params: DocumentDiagnosticParams,
    ) -> Result<DocumentDiagnosticReportResult> {
        let job = self.job(&params.text_document.uri)?;
        let encoding = lock(&self.state).encoding;
        let lines = job.snapshot.lines.clone();
        let diags = guarded("diagnostics", move || {
            analysis::diagnostics(&job.snapshot, &job.settings, &job.context)
        })
        .await?;
        Ok(DocumentDiagnosticReportResult::Report(
            DocumentDiagnosticReport::Full(RelatedFullDocumentDiagnosticReport {
                related_documents: None,
                full_document_diagnostic_report: FullDocumentDiagnosticReport {
                    result_id: None,
                    items: diags
                        .iter()
                        .map(|d| convert::diagnostic(&lines, d, encoding))
                        .collect(),
                },
            }),
        ))
    }
}
