//! The `LanguageServer` implementation: converts requests, mutates state, schedules analysis.
//! Every answer reads the document's [`Model`], built once per (version, settings generation)
//! and shared; the session ([`Session`]) holds settings and project files.
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use tower_lsp_server::jsonrpc::{Error, ErrorCode, Result};
use tower_lsp_server::ls_types::*;
use tower_lsp_server::{Client, LanguageServer};

use super::capabilities::{APPLY_EDIT_COMMAND, ClientFeatures, ClientShape, server_capabilities};
use super::convert;
use super::guard::{guarded, guarded_inline, internal, invalid_params, lock};
use super::index;
use super::scheduler::{Analysed, analyse, note_edit, refresh_served, run_job};
use super::session::Session;
use super::state::{OpenDocument, State, uri_path};
use crate::base::DocumentContext;
use crate::document::{Change, Document, Encoding};
use crate::features;
use crate::features::preview::{self, PREVIEW_COMMAND};
use crate::model::Model;
use crate::model::index::{IndexEntry, Stamp};
use crate::model::workspace;

// The preview code action has no kind: editors list kind-less actions in their code action
// menu (VS Code's Ctrl+. shows no `source.*` action), and it edits nothing.

pub struct Backend {
    client: Client,
    state: Arc<Mutex<State>>,
    session: Arc<Mutex<Session>>,
    wake: Arc<tokio::sync::Notify>,
    worker_started: AtomicBool,
    features: Mutex<ClientFeatures>,
    encoding: Mutex<Encoding>,
    /// What the client can take, from `initialize`.
    shape: std::sync::OnceLock<ClientShape>,
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
            session: Arc::new(Mutex::new(Session::default())),
            wake: Arc::new(tokio::sync::Notify::new()),
            worker_started: AtomicBool::new(false),
            features: Mutex::new(ClientFeatures::default()),
            encoding: Mutex::new(Encoding::Utf16),
            shape: std::sync::OnceLock::new(),
        }
    }

    fn shape(&self) -> ClientShape {
        self.shape.get().copied().unwrap_or_default()
    }

    fn features(&self) -> ClientFeatures {
        *lock(&self.features)
    }

    fn encoding(&self) -> Encoding {
        *lock(&self.encoding)
    }

    fn generation(&self) -> u64 {
        lock(&self.session).generation
    }

    fn mark_dirty(&self, uri: Uri) {
        lock(&self.state).dirty.insert(uri);
        self.wake.notify_one();
    }

    /// Every open document is analysed again (settings or project files changed), and the
    /// client asked to re-request what it pulls.
    fn reanalyse_all(&self) {
        self.reindex();
        {
            let mut st = lock(&self.state);
            let uris: Vec<Uri> = st.docs.keys().cloned().collect();
            st.dirty.extend(uris);
        }
        self.wake.notify_one();
        let client = self.client.clone();
        let f = self.features();
        tokio::spawn(async move {
            if f.pull_diagnostics && f.diagnostic_refresh {
                let _ = client.workspace_diagnostic_refresh().await;
            }
            if f.inlay_refresh {
                let _ = client.inlay_hint_refresh().await;
            }
            if f.lens_refresh {
                let _ = client.code_lens_refresh().await;
            }
        });
    }

    /// Rebuilds the workspace index in the background; once it is complete, the open
    /// documents' cross-document diagnostics are brought up to date (a new publish for push
    /// clients, `workspace/diagnostic/refresh` for pull clients).
    fn reindex(&self) {
        let (client, state, session) = (
            self.client.clone(),
            self.state.clone(),
            self.session.clone(),
        );
        let (wake, f) = (self.wake.clone(), self.features());
        tokio::spawn(async move {
            if super::index::build(client.clone(), state.clone(), session, f).await {
                let uris: Vec<Uri> = lock(&state).docs.keys().cloned().collect();
                after_index_change(&client, &state, &wake, f, uris).await;
            }
        });
    }

    /// The diagnostics worker: takes the latest version of each dirty document, analyses it,
    /// records the names it serves, and publishes (push clients) unless a newer version arrived
    /// meanwhile. Edits that arrive during a run coalesce into the next one; no fixed delay.
    fn start_worker(&self) {
        if self.worker_started.swap(true, Ordering::SeqCst) {
            return;
        }
        let state = self.state.clone();
        let session = self.session.clone();
        let wake = self.wake.clone();
        let client = self.client.clone();
        let features = self.features();
        let encoding = self.encoding();
        let shape = self.shape();
        tokio::spawn(async move {
            loop {
                wake.notified().await;
                loop {
                    let generation = lock(&session).generation;
                    let job = {
                        let mut st = lock(&state);
                        if st.shutting_down {
                            return;
                        }
                        let Some(uri) = st.dirty.iter().next().cloned() else {
                            break;
                        };
                        st.dirty.remove(&uri);
                        st.job(&uri, generation)
                    };
                    let Some(job) = job else { continue };
                    run_job(&client, &state, &session, (features, shape), encoding, job).await;
                }
            }
        });
    }

    /// The model of an open document's current version.
    async fn model(&self, uri: &Uri) -> Result<Analysed> {
        let generation = self.generation();
        let job = lock(&self.state)
            .job(uri, generation)
            .ok_or_else(|| invalid_params(format!("unknown document: {}", uri.as_str())))?;
        analyse(&self.state, &self.session, job, false).await
    }

    /// The model of an open document and `position` as a byte offset. An unknown document or
    /// a position past its end is an error, not a panic.
    async fn locate(&self, uri: &Uri, position: Position) -> Result<(Arc<Model>, Encoding, usize)> {
        let analysed = self.model(uri).await?;
        let encoding = self.encoding();
        let at = analysed
            .model
            .snapshot
            .lines
            .offset(convert::from_lsp(position), encoding)
            .map_err(|e| invalid_params(e.to_string()))?;
        Ok((analysed.model, encoding, at))
    }

    async fn pull_configuration(&self) {
        if !self.features().configuration {
            return;
        }
        let items = vec![ConfigurationItem {
            scope_uri: None,
            section: Some("cwlMcp".into()),
        }];
        // After `exit` the answer can no longer arrive; waiting would keep `serve` alive.
        let answer = tokio::select! {
            answer = self.client.configuration(items) => answer,
            () = super::input_done() => return,
        };
        if let Ok(values) = answer
            && let Some(value) = values.first()
        {
            self.apply_editor_settings(value).await;
        }
    }

    /// Applies an editor settings object; `true` when the settings changed.
    async fn apply_editor_settings(&self, value: &serde_json::Value) -> bool {
        let applied = lock(&self.session).apply_editor_settings(value);
        for p in applied.problems {
            self.client
                .log_message(MessageType::WARNING, format!("cwl-mcp: {p}"))
                .await;
        }
        applied.changed
    }

    /// Asks the client to watch `**/cwl-mcp.toml` (when it allows dynamic registration).
    fn register_watchers(&self) {
        if !self.features().watch_files {
            return;
        }
        let client = self.client.clone();
        tokio::spawn(async move {
            let options = DidChangeWatchedFilesRegistrationOptions {
                watchers: vec![
                    FileSystemWatcher {
                        glob_pattern: GlobPattern::String(format!(
                            "**/{}",
                            crate::base::project::PROJECT_FILE
                        )),
                        kind: None,
                    },
                    // The workspace index (SPEC §10): created, changed and deleted files.
                    FileSystemWatcher {
                        glob_pattern: GlobPattern::String("**/*.cwl".into()),
                        kind: None,
                    },
                ],
            };
            let _ = client
                .register_capability(vec![Registration {
                    id: "cwl-mcp-project-files".into(),
                    method: "workspace/didChangeWatchedFiles".into(),
                    register_options: serde_json::to_value(options).ok(),
                }])
                .await;
        });
    }
}

/// The open documents `affected` by an index change get their diagnostics again: marked dirty
/// for a new publish (push), or the client asked to pull again (pull).
async fn after_index_change(
    client: &Client,
    state: &Arc<Mutex<State>>,
    wake: &tokio::sync::Notify,
    f: ClientFeatures,
    affected: Vec<Uri>,
) {
    if affected.is_empty() {
        return;
    }
    {
        let mut st = lock(state);
        for uri in affected {
            st.published.remove(&uri);
            st.dirty.insert(uri);
        }
    }
    wake.notify_one();
    if f.pull_diagnostics && f.diagnostic_refresh {
        let _ = client.workspace_diagnostic_refresh().await;
    }
}

impl LanguageServer for Backend {
    async fn initialize(&self, params: InitializeParams) -> Result<InitializeResult> {
        let caps = &params.capabilities;
        let utf8 = caps
            .general
            .as_ref()
            .and_then(|g| g.position_encodings.as_ref())
            .is_some_and(|encs| encs.contains(&PositionEncodingKind::UTF8));
        let encoding = if utf8 {
            Encoding::Utf8
        } else {
            Encoding::Utf16
        };
        let features = ClientFeatures::from_capabilities(caps);
        *lock(&self.features) = features;
        let shape = ClientShape::from_capabilities(&params.capabilities);
        let _ = self.shape.set(shape);
        lock(&self.session).watching = features.watch_files;
        *lock(&self.encoding) = encoding;
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
        let problems = {
            let mut session = lock(&self.session);
            session.folders = roots;
            match params
                .initialization_options
                .as_ref()
                .and_then(settings_value)
            {
                Some(options) => session.set_initialization_options(options),
                None => Vec::new(),
            }
        };
        for p in problems {
            self.client
                .log_message(MessageType::WARNING, format!("cwl-mcp: {p}"))
                .await;
        }
        self.start_worker();
        Ok(InitializeResult {
            capabilities: server_capabilities(&features, &shape, utf8),
            server_info: Some(ServerInfo {
                name: "cwl-mcp-lsp".into(),
                version: Some(env!("CARGO_PKG_VERSION").into()),
            }),
            offset_encoding: None,
        })
    }

    async fn initialized(&self, _: InitializedParams) {
        self.register_watchers();
        self.pull_configuration().await;
        self.reanalyse_all();
    }

    async fn shutdown(&self) -> Result<()> {
        lock(&self.state).shutting_down = true;
        self.wake.notify_one();
        Ok(())
    }

    async fn did_open(&self, params: DidOpenTextDocumentParams) {
        let doc = params.text_document;
        let path = uri_path(&doc.uri);
        let context = match &path {
            Some(p) => {
                let boundary = lock(&self.session).read_boundary(p);
                DocumentContext::from_path(p).within(Some(boundary))
            }
            None => DocumentContext::from_uri(doc.uri.as_str()),
        };
        let context = DocumentContext {
            uri: doc.uri.as_str().to_string(),
            ..context
        };
        let real = path.as_deref().and_then(|p| std::fs::canonicalize(p).ok());
        {
            let mut st = lock(&self.state);
            if let Some(real) = real {
                st.by_path.insert(real, doc.uri.clone());
            }
            st.docs.insert(
                doc.uri.clone(),
                OpenDocument {
                    document: Document::new(super::frames::opened_text(doc.text), doc.version),
                    context,
                    path,
                    cached: None,
                    warmed: false,
                    slow: false,
                },
            );
        }
        self.start_worker();
        self.mark_dirty(doc.uri);
    }

    async fn did_change(&self, params: DidChangeTextDocumentParams) {
        note_edit();
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
        let encoding = self.encoding();
        let problem = {
            let mut st = lock(&self.state);
            match st.docs.get_mut(&uri) {
                None => Some(format!(
                    "change to a document that is not open: {}",
                    uri.as_str()
                )),
                Some(doc) => doc
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
        let closed_path = lock(&self.state)
            .docs
            .get(&uri)
            .and_then(|d| d.path.clone());
        let affected = {
            let mut st = lock(&self.state);
            st.docs.remove(&uri);
            st.by_path.retain(|_, u| *u != uri);
            for roots in st.reached_by.values_mut() {
                roots.remove(&uri);
            }
            st.dirty.remove(&uri);
            st.published.remove(&uri);
            // Its names no longer count; documents that shared one are re-checked.
            let affected = st.remove_served(&uri);
            for other in &affected {
                st.published.remove(other);
                st.dirty.insert(other.clone());
            }
            affected
        };
        self.wake.notify_one();
        let f = self.features();
        if !f.pull_diagnostics {
            self.client.publish_diagnostics(uri, vec![], None).await;
        } else if !affected.is_empty() && f.diagnostic_refresh {
            let _ = self.client.workspace_diagnostic_refresh().await;
        }
        // The file on disk counts again (its unsaved text no longer does).
        if let Some(path) = closed_path
            && lock(&self.state).index.contains_key(&path)
        {
            let affected = super::index::update(&self.state, &self.session, vec![path]).await;
            after_index_change(&self.client, &self.state, &self.wake, f, affected).await;
        }
    }

    async fn did_change_configuration(&self, params: DidChangeConfigurationParams) {
        let changed = match settings_value(&params.settings) {
            Some(value) if params.settings.get("cwlMcp").is_some() => {
                let applied = lock(&self.session).replace_editor_settings(value);
                for p in applied.problems {
                    self.client
                        .log_message(MessageType::WARNING, format!("cwl-mcp: {p}"))
                        .await;
                }
                applied.changed
            }
            _ => {
                // A bare notification: the client wants us to pull.
                let before = self.generation();
                self.pull_configuration().await;
                self.generation() != before
            }
        };
        if changed {
            self.reanalyse_all();
        }
    }

    async fn did_change_workspace_folders(&self, params: DidChangeWorkspaceFoldersParams) {
        {
            let mut session = lock(&self.session);
            let removed: Vec<PathBuf> = params
                .event
                .removed
                .iter()
                .filter_map(|f| uri_path(&f.uri))
                .collect();
            session.folders.retain(|f| !removed.contains(f));
            for added in params.event.added.iter().filter_map(|f| uri_path(&f.uri)) {
                if !session.folders.contains(&added) {
                    session.folders.push(added);
                }
            }
            // Project-file lookups stop at the folders: look again.
            session.reload_project_files();
        }
        // Open documents' read boundaries follow the folders (one lock at a time).
        let paths: Vec<(Uri, PathBuf)> = lock(&self.state)
            .docs
            .iter()
            .filter_map(|(u, d)| Some((u.clone(), d.path.clone()?)))
            .collect();
        let boundaries: Vec<(Uri, PathBuf)> = {
            let session = lock(&self.session);
            paths
                .into_iter()
                .map(|(u, p)| (u, session.read_boundary(&p)))
                .collect()
        };
        {
            let mut st = lock(&self.state);
            for (uri, boundary) in boundaries {
                if let Some(doc) = st.docs.get_mut(&uri) {
                    doc.context.sandbox_root = Some(boundary);
                }
            }
        }
        self.reanalyse_all();
        self.reindex();
    }

    async fn did_change_watched_files(&self, params: DidChangeWatchedFilesParams) {
        let project = params.changes.iter().any(|c| {
            c.uri
                .as_str()
                .ends_with(&format!("/{}", crate::base::project::PROJECT_FILE))
        });
        if project {
            lock(&self.session).reload_project_files();
            // Settings may change for every file: the index is rebuilt too.
            self.reanalyse_all();
            return;
        }
        let cwl: Vec<PathBuf> = params
            .changes
            .iter()
            .filter(|c| c.uri.as_str().ends_with(".cwl"))
            .filter_map(|c| uri_path(&c.uri))
            .collect();
        if cwl.is_empty() {
            return;
        }
        let affected = super::index::update(&self.state, &self.session, cwl).await;
        after_index_change(
            &self.client,
            &self.state,
            &self.wake,
            self.features(),
            affected,
        )
        .await;
    }

    async fn completion(&self, params: CompletionParams) -> Result<Option<CompletionResponse>> {
        let pos = params.text_document_position;
        let (model, encoding, at) = self.locate(&pos.text_document.uri, pos.position).await?;
        let shape = self.shape();
        // On the protocol task: the completion reads the lines of the cursor's block (tens of
        // microseconds), less than the hand-over to a blocking thread and back.
        let items = guarded_inline("completion", move || {
            features::completion::completion(&model, at)
                .iter()
                .map(|c| {
                    convert::completion(
                        &model.snapshot.lines,
                        &model.snapshot.text,
                        c,
                        encoding,
                        &shape,
                    )
                })
                .collect::<Vec<_>>()
        })?;
        Ok((!items.is_empty()).then_some(CompletionResponse::Array(items)))
    }

    async fn hover(&self, params: HoverParams) -> Result<Option<Hover>> {
        let pos = params.text_document_position_params;
        let (model, encoding, at) = self.locate(&pos.text_document.uri, pos.position).await?;
        let shape = self.shape();
        // The hint's hover reads this model alone; once its diagnostics are computed, so is
        // every entry it reads (the effective name, title and annotations): on the protocol
        // task, like completion, without the hand-over to a blocking thread and back (hover
        // on `mcp:Tool` at 5,000 lines, 200 requests, three processes each alternated: 0.09-0.11
        // ms above an unknown method's round trip, against 0.15-0.16 handed over; issue 14).
        let inline = model.has_diagnostics();
        if inline && let Some(h) = guarded_inline("hover", || features::hover::hover(&model, at))? {
            let lines = &model.snapshot.lines;
            return Ok(Some(convert::hover(lines, &h, encoding, &shape)));
        }
        let (state, session) = (self.state.clone(), self.session.clone());
        // A `run:` target's hover may read another file (the index's entry of it).
        guarded("hover", move || {
            let hint = (!inline)
                .then(|| features::hover::hover(&model, at))
                .flatten();
            hint.or_else(|| {
                let entry_of = |p: &std::path::Path| index::entry_for(&state, &session, p);
                features::navigation::run_hover(&model, at, &entry_of)
            })
            .map(|h| convert::hover(&model.snapshot.lines, &h, encoding, &shape))
        })
        .await
    }

    async fn document_link(&self, params: DocumentLinkParams) -> Result<Option<Vec<DocumentLink>>> {
        let uri = params.text_document.uri;
        let model = self.model(&uri).await?.model;
        let encoding = self.encoding();
        let shape = self.shape();
        let links = guarded("document links", move || {
            features::navigation::links(&model)
                .iter()
                .filter_map(|l| {
                    convert::document_link(&model.snapshot.lines, &uri, l, encoding, &shape)
                })
                .collect::<Vec<_>>()
        })
        .await?;
        Ok(Some(links))
    }

    async fn goto_definition(
        &self,
        params: GotoDefinitionParams,
    ) -> Result<Option<GotoDefinitionResponse>> {
        let pos = params.text_document_position_params;
        let uri = pos.text_document.uri;
        let (model, encoding, at) = self.locate(&uri, pos.position).await?;
        let shape = self.shape();
        guarded("definition", move || {
            features::navigation::definition(&model, at).and_then(|l| {
                convert::definition(&model.snapshot.lines, &uri, &l, encoding, &shape)
            })
        })
        .await
    }

    async fn symbol(
        &self,
        params: WorkspaceSymbolParams,
    ) -> Result<Option<WorkspaceSymbolResponse>> {
        // Open documents win: their current text, then the index's files that are not open.
        let open: Vec<Uri> = lock(&self.state).docs.keys().cloned().collect();
        let mut files: Vec<(String, IndexEntry)> = Vec::new();
        for uri in open {
            if let Ok(analysed) = self.model(&uri).await {
                let version = lock(&self.state).version(&uri).unwrap_or(0);
                let entry = IndexEntry::of_model(&analysed.model, Stamp::Open(version));
                files.push((uri.as_str().to_string(), entry));
            }
        }
        {
            let st = lock(&self.state);
            for (path, indexed) in &st.index {
                if !st.is_open(path) {
                    files.push((indexed.uri.clone(), indexed.entry.clone()));
                }
            }
        }
        let query = params.query;
        let symbols = guarded("workspace symbols", move || {
            features::workspace_symbols::workspace_symbols(
                &query,
                files.iter().map(|(u, e)| (u.as_str(), e)),
            )
            .iter()
            .filter_map(convert::workspace_symbol)
            .collect::<Vec<_>>()
        })
        .await?;
        Ok(Some(WorkspaceSymbolResponse::Flat(symbols)))
    }

    async fn code_action(&self, params: CodeActionParams) -> Result<Option<CodeActionResponse>> {
        let uri = params.text_document.uri;
        let (model, encoding, start) = self.locate(&uri, params.range.start).await?;
        let end = model
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
                let fixes =
                    features::code_actions::quick_fixes(&model, start.min(end)..start.max(end));
                actions.extend(fixes.iter().filter_map(|f| {
                    convert::quick_fix(
                        &model.snapshot.lines,
                        &uri,
                        f,
                        &client_diagnostics,
                        encoding,
                        &shape,
                    )
                }));
            }
            if wants_preview && let Some(key) = preview::process_key_at(&model, start) {
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
        let (model, encoding, start) = self
            .locate(&params.text_document.uri, params.range.start)
            .await?;
        // A visible range reaching past the end is harmless here: it means "to the end".
        let end = model
            .snapshot
            .lines
            .offset(convert::from_lsp(params.range.end), encoding)
            .unwrap_or(model.snapshot.text.len());
        let shape = self.shape();
        let hints = guarded("inlay hints", move || {
            features::inlay_hints::inlay_hints(&model)
                .iter()
                .filter(|h| start <= h.at && h.at <= end)
                .map(|h| convert::inlay_hint(&model.snapshot.lines, h, encoding, &shape))
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
        let model = self.model(&uri).await?.model;
        let encoding = self.encoding();
        let shape = self.shape();
        let symbols = guarded("document symbols", move || {
            let symbols = features::symbols::symbols(&model);
            convert::symbols(&model.snapshot.lines, &uri, &symbols, encoding, &shape)
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
        let model = self.model(&uri).await?.model;
        let linked = lock(&self.state).linked(&uri, &model);
        let answer = guarded("preview", move || {
            preview::preview(&model, key.as_deref(), &linked)
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
        let model = self.model(&uri).await?.model;
        let encoding = self.encoding();
        let lines = model.snapshot.lines.clone();
        let linked = lock(&self.state).linked(&uri, &model);
        let lenses = guarded("code lenses", move || preview::code_lenses(&model, &linked)).await?;
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
        let uri = params.text_document.uri;
        let generation = self.generation();
        let job = lock(&self.state)
            .job(&uri, generation)
            .ok_or_else(|| invalid_params(format!("unknown document: {}", uri.as_str())))?;
        let key = job.key;
        let analysed = analyse(&self.state, &self.session, job, true).await?;
        let others = refresh_served(&self.state, &self.session, &uri).await;
        let encoding = self.encoding();
        let model = analysed.model;
        let names = workspace::served_names(&model, workspace::Scope::Diagnosed);
        let (diags, affected) = {
            let mut st = lock(&self.state);
            // The names this answer counted are recorded with it, in the same lock: an index
            // change after it finds this document among those to refresh (the worker may not
            // have analysed this version yet).
            let affected = st.served_by_analysis(&uri, key, names, others);
            let diags = st.diagnostics(&uri, &model, analysed.cached.config_error.as_ref());
            (diags, affected)
        };
        if !affected.is_empty() && self.features().diagnostic_refresh {
            let _ = self.client.workspace_diagnostic_refresh().await;
        }
        let lines = &model.snapshot.lines;
        Ok(DocumentDiagnosticReportResult::Report(
            DocumentDiagnosticReport::Full(RelatedFullDocumentDiagnosticReport {
                related_documents: None,
                full_document_diagnostic_report: FullDocumentDiagnosticReport {
                    result_id: None,
                    items: diags
                        .iter()
                        .map(|d| convert::diagnostic(lines, &uri, d, encoding, &self.shape()))
                        .collect(),
                },
            }),
        ))
    }
}
