//! The diagnostics scheduler: analyses the latest version of each dirty document off the
//! protocol task, records the names it serves (cross-document rules), publishes to push
//! clients (never a superseded version; bursts coalesce), and reports malformed project files.
//! Requests build or share models through [`analyse`] too. After a document's first analysis
//! it asks ahead, on the protocol thread and while no edit comes in, the syntax verdicts a
//! first break would ask ([`warm_verdicts`]).
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tower_lsp_server::Client;
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::*;

use super::capabilities::{ClientFeatures, ClientShape};
use super::convert;
use super::guard::{guarded, guarded_inline, lock};
use super::session::Session;
use super::state::{Cached, Job, State};
use crate::base::Diagnostic as PlainDiagnostic;
use crate::document::{Encoding, LineIndex, Warming};
use crate::model::workspace;
use crate::model::{Model, shared};

/// One model, built by whoever asks first, with the document's settings and their error.
pub struct Analysed {
    pub model: Arc<Model>,
    pub cached: Cached,
}

/// The model of `job`'s document version: the cached one, or built now (off the protocol
/// task) and cached; `diagnosed`: with its diagnostics computed too (off the protocol task),
/// for a caller that reads them. Settings are resolved through the session, outside the documents' lock.
/// Documents up to this size are analysed on the calling task (well under a millisecond:
/// about 0.1 ms at 500 lines); larger ones on a blocking thread...
const INLINE_BYTES: usize = 32 * 1024;
/// ...and, once a version of the document was analysed, documents up to this size (about
/// 11,000 lines): an edit's analysis reads the sections it changed, 0.1-0.25 ms at 5,000
/// lines (`benches/edit_pipeline.rs`), about what the hand-over to a blocking thread and back
/// costs (a completion sent with the keystroke at 5,000 lines, medians of 60, the two binaries
/// alternated: 0.51 ms handed over, 0.42-0.51 inline, issue 14).
const INLINE_EDITED_BYTES: usize = 512 * 1024;
/// ...unless the document's last model took longer than this to build with its diagnostics
/// (`OpenDocument::slow`): the protocol task answers nothing else meanwhile, and a document
/// whose analysis is slow (a large paste, aliases expanded to many values) has its next one
/// on a blocking thread, where it costs the hand-over and no one waits for it.
const INLINE_COST: Duration = Duration::from_millis(4);

/// Whether the analysis of a text of `len` bytes runs on the protocol task: small texts, and
/// texts up to [`INLINE_EDITED_BYTES`] of which a version was analysed (`edited`), unless
/// the last analysis of the document was `slow`.
fn runs_inline(len: usize, edited: bool, slow: bool) -> bool {
    !slow && (len <= INLINE_BYTES || (edited && len <= INLINE_EDITED_BYTES))
}

pub async fn analyse(
    state: &Arc<Mutex<State>>,
    session: &Arc<Mutex<Session>>,
    job: Job,
    diagnosed: bool,
) -> Result<Analysed> {
    let cached = match job.cached.clone() {
        Some(c) => c,
        None => {
            let (settings, config_error) = lock(session).settings_for(job.path.as_deref());
            let fresh = Cached {
                settings,
                config_error,
                model: Default::default(),
            };
            lock(state).store(&job.uri, job.key, fresh)
        }
    };
    if let Some(model) = cached.model.get()
        && (!diagnosed || model.has_diagnostics())
    {
        return Ok(Analysed {
            model: model.clone(),
            cached,
        });
    }
    let cell = cached.model.clone();
    let settings = cached.settings.clone();
    let inline = runs_inline(job.snapshot.text.len(), job.edited, job.slow);
    let uri = job.uri.clone();
    // A document's first analysis of a large text is shared with the index's of the same
    // text (`model::shared`): at start-up the index reads the files the editor opens.
    let share = !inline && !job.edited;
    // The model and how long its build took (`None`: built by another caller).
    let build = move || {
        let mut took = None;
        let model = cell
            .get_or_init(|| {
                let started = std::time::Instant::now();
                let model = if share {
                    let text = job.snapshot.text.clone();
                    let context = job.context.clone();
                    shared::analysed(&text, &settings, &context, || {
                        Model::new(job.snapshot, settings.clone(), job.context)
                    })
                } else {
                    Arc::new(Model::new(job.snapshot, settings, job.context))
                };
                took = Some(started.elapsed());
                model
            })
            .clone();
        (model, took)
    };
    // The model is shared as soon as it is built; with `diagnosed`, its diagnostics are
    // computed next, while a request that needs the model alone (a completion sent with the
    // keystroke) is answered beside them: on a blocking thread, or here after letting the
    // protocol task answer the requests already read.
    let diagnose = move |model: &Model, took: &mut Option<Duration>| {
        if diagnosed && !model.has_diagnostics() {
            let started = std::time::Instant::now();
            model.diagnostics();
            if let Some(took) = took {
                *took += started.elapsed();
            }
        }
    };
    let (model, took) = if inline {
        let (model, mut took) = guarded_inline("analysis", build)?;
        if diagnosed && !model.has_diagnostics() {
            tokio::task::yield_now().await;
            guarded_inline("analysis", || diagnose(&model, &mut took))?;
        }
        (model, took)
    } else {
        guarded("analysis", move || {
            let (model, mut took) = build();
            diagnose(&model, &mut took);
            (model, took)
        })
        .await?
    };
    if let Some(took) = took
        && let Some(doc) = lock(state).docs.get_mut(&uri)
    {
        doc.slow = took > INLINE_COST;
    }
    Ok(Analysed { model, cached })
}

/// Analyses one dirty document: records its served names (re-checking the documents that
/// share one), publishes its diagnostics to a push client, and reports malformed project files.
pub async fn run_job(
    client: &Client,
    state: &Arc<Mutex<State>>,
    session: &Arc<Mutex<Session>>,
    (features, shape): (ClientFeatures, ClientShape),
    encoding: Encoding,
    job: Job,
) {
    let uri = job.uri.clone();
    let key = job.key;
    let analysed = match analyse(state, session, job, true).await {
        Ok(a) => a,
        Err(e) => {
            client
                .log_message(MessageType::ERROR, format!("cwl-mcp: {}", e.message))
                .await;
            return;
        }
    };
    let model = analysed.model;
    let others = refresh_served(state, session, &uri).await;
    let names = workspace::served_names(&model, workspace::Scope::Diagnosed);
    let (items, affected, warm) = {
        let mut st = lock(state);
        if st.version(&uri) != Some(key.0) {
            return; // superseded: the newer version is already queued
        }
        let warm = st
            .docs
            .get_mut(&uri)
            .is_some_and(|d| !std::mem::replace(&mut d.warmed, true));
        let affected = st.served_by_analysis(&uri, key, names, others);
        for other in &affected {
            st.published.remove(other);
            st.dirty.insert(other.clone());
        }
        let publish = !features.pull_diagnostics && st.published.get(&uri) != Some(&key);
        let items = publish.then(|| {
            st.published.insert(uri.clone(), key);
            st.diagnostics(&uri, &model, analysed.cached.config_error.as_ref())
        });
        (items, affected, warm)
    };
    if warm && let Some(warming) = Warming::of(model.snapshot.text.clone()) {
        tokio::spawn(warm_verdicts(warming));
    }
    report_project_files(client, session, encoding, &shape).await;
    if let Some(items) = items {
        let lines = &model.snapshot.lines;
        let items = items
            .iter()
            .map(|d| convert::diagnostic(lines, &uri, d, encoding, &shape))
            .collect();
        client.publish_diagnostics(uri, items, Some(key.0)).await;
    }
    if !affected.is_empty() {
        if features.pull_diagnostics {
            if features.diagnostic_refresh {
                let _ = client.workspace_diagnostic_refresh().await;
            }
        } else {
            // The worker loop picks the affected documents up (they are marked dirty).
        }
    }
}

/// Asks ahead, on this (the protocol) thread, the verdicts a first break of a just opened
/// document would ask ([`Warming`]), while no edit is coming in: a quarter of a millisecond
/// at a time, each slice once [`QUIET`] has passed since the last `didChange`, so that it
/// never competes with typing, and a message arriving during a slice waits for it at most
/// (the task sleeps between slices: one that only yielded could be polled again before the
/// protocol's input is looked at).
///
/// One document at a time: documents opened together (a restored session) wait their turn,
/// so that their slices do not add up between two messages.
async fn warm_verdicts(mut warming: Warming) {
    const SLICE: Duration = Duration::from_micros(250);
    static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());
    let _turn = ONE_AT_A_TIME.lock().await;
    loop {
        let quiet_for = last_edit().map_or(QUIET, |t| t.elapsed());
        if quiet_for < QUIET {
            tokio::time::sleep(QUIET - quiet_for).await;
            continue;
        }
        if warming.step(SLICE) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
}

/// How long after a `didChange` the verdicts are not asked ahead (typing is a keystroke every
/// 100–300 ms; the harness edits every 5–10 ms).
const QUIET: Duration = Duration::from_millis(20);

/// When the last `didChange` arrived (any document).
static LAST_EDIT: Mutex<Option<std::time::Instant>> = Mutex::new(None);

/// Notes that an edit arrived now (`didChange`).
pub fn note_edit() {
    *lock(&LAST_EDIT) = Some(std::time::Instant::now());
}

fn last_edit() -> Option<std::time::Instant> {
    *lock(&LAST_EDIT)
}

/// Brings the served names of every other open document up to date (analysing those whose
/// names are not known for their current version), so that cross-document diagnostics are
/// the same whichever document the worker reached first. Returns the documents whose
/// cross-document results may have changed.
pub async fn refresh_served(
    state: &Arc<Mutex<State>>,
    session: &Arc<Mutex<Session>>,
    except: &Uri,
) -> Vec<Uri> {
    let generation = lock(session).generation;
    let stale = lock(state).stale_served(except, generation);
    let mut affected = Vec::new();
    for job in stale {
        let (uri, key) = (job.uri.clone(), job.key);
        let Ok(analysed) = analyse(state, session, job, true).await else {
            continue;
        };
        let names = workspace::served_names(&analysed.model, workspace::Scope::Diagnosed);
        let mut st = lock(state);
        if st.version(&uri) == Some(key.0) {
            affected.extend(st.set_served(&uri, key, names));
        }
    }
    affected
}

/// A malformed `cwl-mcp.toml` is also reported on the file itself (cleared once fixed).
async fn report_project_files(
    client: &Client,
    session: &Arc<Mutex<Session>>,
    encoding: Encoding,
    shape: &ClientShape,
) {
    let (bad, fixed) = lock(session).project_file_reports();
    for e in bad {
        let Some(uri) = Uri::from_file_path(&e.path) else {
            continue;
        };
        let text = std::fs::read_to_string(&e.path).unwrap_or_default();
        let lines = LineIndex::from_text(&text);
        let span = e
            .span
            .clone()
            .unwrap_or(0..text.find('\n').unwrap_or(text.len()));
        let diag = PlainDiagnostic::new(
            span,
            crate::base::Severity::Error,
            crate::base::Code::Config,
            format!("invalid cwl-mcp.toml, ignored: {}", e.message),
        );
        let item = convert::diagnostic(&lines, &uri, &diag, encoding, shape);
        client.publish_diagnostics(uri, vec![item], None).await;
    }
    for path in fixed {
        if let Some(uri) = Uri::from_file_path(&path) {
            client.publish_diagnostics(uri, vec![], None).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{INLINE_BYTES, INLINE_EDITED_BYTES, runs_inline};

    /// Where an analysis runs: a small text on the protocol task; a larger one there once a
    /// version of it was analysed, up to `INLINE_EDITED_BYTES`; any text whose last analysis
    /// was slow, and any larger text, on a blocking thread.
    #[test]
    fn the_protocol_task_analyses_what_is_small_or_edited_and_was_fast() {
        let large = INLINE_BYTES + 1;
        let huge = INLINE_EDITED_BYTES + 1;
        let cases = [
            // (len, edited, slow) -> inline
            ((INLINE_BYTES, false, false), true),
            ((INLINE_BYTES, true, false), true),
            ((INLINE_BYTES, false, true), false),
            ((large, false, false), false),
            ((large, true, false), true),
            ((large, true, true), false),
            ((INLINE_EDITED_BYTES, true, false), true),
            ((huge, true, false), false),
            ((huge, false, false), false),
        ];
        for ((len, edited, slow), inline) in cases {
            assert_eq!(
                runs_inline(len, edited, slow),
                inline,
                "{len} bytes, edited {edited}, slow {slow}"
            );
        }
    }
}
