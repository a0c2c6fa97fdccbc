//! The workspace index in the server (SPEC §10): built in the background at start and when
//! settings, project files or folders change, with work-done progress where the client
//! supports it; kept current from `workspace/didChangeWatchedFiles` and from open documents
//! (open documents win). Each file is read inside its read boundary only; what is kept per
//! file is a [`IndexEntry`], not a tree.
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use tower_lsp_server::Client;
use tower_lsp_server::ls_types::{NumberOrString, Uri};

use super::capabilities::ClientFeatures;
use super::guard::lock;
use super::session::Session;
use super::state::{Indexed, State};
use crate::base::DocumentContext;
use crate::document::Snapshot;
use crate::document::text::{
    KEEP_SMALL_FOR, keeping_parses, release_parses, release_parses_kept_before,
};
use crate::model::index::{self, IndexEntry};
use crate::model::{Model, shared};

/// Files analysed between two progress reports (and two checks for a newer build).
const CHUNK: usize = 64;

/// Files at least this large are analysed one at a time, whatever the number of workers (an
/// analysis peaks at about 40 times the file's size: two 50,000-line tools side by side held
/// 250 MB), and the memory freed after each is given back to the system.
const LARGE_FILE: u64 = 256 * 1024;

/// Held while a large file is analysed.
static LARGE: Mutex<()> = Mutex::new(());

/// Gives the memory freed so far back to the system: glibc keeps what a thread frees in that
/// thread's arena, so the index's workers would otherwise keep the peak of their largest
/// analyses resident beside the documents analysed later on the protocol thread.
fn give_back_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        unsafe extern "C" {
            fn malloc_trim(pad: usize) -> std::ffi::c_int;
        }
        // SAFETY: `malloc_trim` has no preconditions; it only returns free pages.
        unsafe {
            malloc_trim(0);
        }
    }
}

/// The index entry of the file at `path` as it is on disk, under the session's settings and
/// the file's read boundary; `None` when it cannot be read (or lies outside every folder).
pub fn index_path(session: &Arc<Mutex<Session>>, path: &Path) -> Option<Indexed> {
    let (settings, boundary) = {
        let mut s = lock(session);
        let boundary = s.read_boundary(path);
        (s.settings_for(Some(path)).0, boundary)
    };
    let real = std::fs::canonicalize(path).ok()?;
    let root = std::fs::canonicalize(&boundary).unwrap_or(boundary.clone());
    if !real.starts_with(&root) {
        return None;
    }
    let uri = Uri::from_file_path(path)?;
    let context = DocumentContext {
        uri: uri.as_str().to_string(),
        ..DocumentContext::from_path(path).within(Some(boundary))
    };
    let large = std::fs::metadata(path).is_ok_and(|m| m.len() >= LARGE_FILE);
    let one_at_a_time = large.then(|| lock(&LARGE));
    // A large file's analysis is shared with a document opened with the same text meanwhile
    // (or before: its model is taken as it is).
    let entry = index::index_file(path, |text| {
        shared::analysed(&text, &settings, &context, || {
            Model::new(
                Snapshot::parse_shared(text.clone(), 0),
                settings.clone(),
                context.clone(),
            )
        })
    });
    if large {
        give_back_freed_memory();
    }
    drop(one_at_a_time);
    let entry: IndexEntry = entry?;
    Some(Indexed {
        uri: uri.as_str().to_string(),
        entry,
    })
}

/// Re-reads the files of `paths` (created, changed or deleted on disk); returns the open
/// documents whose cross-document diagnostics may change.
pub async fn update(
    state: &Arc<Mutex<State>>,
    session: &Arc<Mutex<Session>>,
    paths: Vec<PathBuf>,
) -> Vec<Uri> {
    let (state, session) = (state.clone(), session.clone());
    tokio::task::spawn_blocking(move || {
        let mut affected = Vec::new();
        for path in paths {
            let indexed = if path.is_file() {
                index_path(&session, &path)
            } else {
                None
            };
            affected.extend(lock(&state).set_indexed(path, indexed));
        }
        affected.sort_by(|a, b| a.as_str().cmp(b.as_str()));
        affected.dedup();
        affected
    })
    .await
    .unwrap_or_default()
}

/// Analyses the files of `chunk` on every core (the files are independent: each is read and
/// analysed alone): one blocking task per part, the entries in the order of `chunk`.
async fn index_chunk(
    session: &Arc<Mutex<Session>>,
    chunk: &[PathBuf],
) -> Vec<(PathBuf, Option<Indexed>)> {
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
    let part = chunk.len().div_ceil(workers).max(1);
    let tasks: Vec<_> = chunk
        .chunks(part)
        .map(|paths| {
            let (paths, s) = (paths.to_vec(), session.clone());
            // A file the editor opens meanwhile takes the parse made here (until the build
            // ends): opening it costs no second parse.
            tokio::task::spawn_blocking(move || {
                keeping_parses(|| {
                    paths
                        .into_iter()
                        .map(|p| {
                            let e = index_path(&s, &p);
                            (p, e)
                        })
                        .collect::<Vec<_>>()
                })
            })
        })
        .collect();
    let mut out = Vec::with_capacity(chunk.len());
    for task in tasks {
        out.extend(task.await.unwrap_or_default());
    }
    out
}

/// Builds the index of every workspace folder; `done` runs once it is complete (not when a
/// newer build superseded it). The parses of large files kept for documents opened meanwhile
/// are dropped when it ends, those of small files [`KEEP_SMALL_FOR`] later.
pub async fn build(
    client: Client,
    state: Arc<Mutex<State>>,
    session: Arc<Mutex<Session>>,
    features: ClientFeatures,
) -> bool {
    let built = build_entries(client, state, session, features).await;
    release_parses();
    let ended = std::time::Instant::now();
    tokio::spawn(async move {
        tokio::time::sleep(KEEP_SMALL_FOR).await;
        release_parses_kept_before(ended);
    });
    give_back_freed_memory();
    built
}

async fn build_entries(
    client: Client,
    state: Arc<Mutex<State>>,
    session: Arc<Mutex<Session>>,
    features: ClientFeatures,
) -> bool {
    let build = {
        let mut st = lock(&state);
        st.index_build += 1;
        st.index_build
    };
    let folders = lock(&session).folders.clone();
    if folders.is_empty() {
        return false;
    }
    let progress = if features.work_done_progress {
        let token = NumberOrString::String(format!("cwl-mcp-index-{build}"));
        match client.create_work_done_progress(token.clone()).await {
            Ok(()) => Some(
                client
                    .progress(token, "Indexing CWL files")
                    .with_percentage(0)
                    .begin()
                    .await,
            ),
            Err(_) => None,
        }
    } else {
        None
    };
    let files: Vec<PathBuf> = tokio::task::spawn_blocking(move || {
        let mut all: Vec<PathBuf> = folders.iter().flat_map(|f| index::cwl_files(f)).collect();
        all.sort();
        all.dedup();
        all
    })
    .await
    .unwrap_or_default();
    let total = files.len();
    let mut seen = std::collections::HashSet::new();
    let mut done = 0;
    for chunk in files.chunks(CHUNK) {
        if lock(&state).index_build != build {
            if let Some(p) = progress {
                p.finish_with_message("superseded").await;
            }
            return false;
        }
        let entries = index_chunk(&session, chunk).await;
        {
            let mut st = lock(&state);
            for (path, entry) in entries {
                seen.insert(path.clone());
                match entry {
                    Some(e) => {
                        st.index.insert(path, e);
                    }
                    None => {
                        st.index.remove(&path);
                    }
                }
            }
        }
        done += CHUNK.min(total - done);
        if let Some(p) = &progress {
            let pct = (done * 100 / total.max(1)) as u32;
            p.report_with_message(format!("{done}/{total} files"), pct)
                .await;
        }
    }
    {
        // Files that are gone since the last build.
        let mut st = lock(&state);
        if st.index_build == build {
            st.index.retain(|p, _| seen.contains(p));
        }
    }
    if let Some(p) = progress {
        p.finish_with_message(format!("{total} CWL files indexed"))
            .await;
    }
    true
}

/// The index entry of the file at `path` (a `run:` target) for hover: an open document's
/// current model wins, then the index, then the file analysed as the index does.
pub fn entry_for(
    state: &Arc<Mutex<State>>,
    session: &Arc<Mutex<Session>>,
    path: &Path,
) -> Option<IndexEntry> {
    {
        let st = lock(state);
        let open = st.docs.values().find(|d| {
            d.path.as_deref().is_some_and(|p| {
                p == path || std::fs::canonicalize(p).ok().as_deref() == Some(path)
            })
        });
        if let Some(doc) = open
            && let Some(((version, _), cached)) = &doc.cached
            && let Some(model) = cached.model.get()
        {
            return Some(IndexEntry::of_model(model, index::Stamp::Open(*version)));
        }
        if let Some(indexed) = st.index.get(path) {
            return Some(indexed.entry.clone());
        }
    }
    index_path(session, path).map(|i| i.entry)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;
    use std::time::Duration;

    #[test]
    fn large_files_are_analysed_one_at_a_time() {
        let dir = std::env::temp_dir().join(format!("cwl-mcp-large-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let mut big = String::from("cwlVersion: v1.2\nclass: CommandLineTool\ninputs:\n");
        let mut i = 0;
        while big.len() < LARGE_FILE as usize + 1024 {
            big.push_str(&format!(
                "  in_{i}:\n    type: string\n    doc: input {i}\n"
            ));
            i += 1;
        }
        big.push_str("outputs: {}\n");
        std::fs::write(dir.join("big.cwl"), &big).unwrap();
        std::fs::write(
            dir.join("small.cwl"),
            "cwlVersion: v1.2\nclass: CommandLineTool\ninputs: {}\noutputs: {}\n",
        )
        .unwrap();
        let mut session = Session::default();
        session.folders = vec![dir.clone()];
        let session = Arc::new(Mutex::new(session));
        let (tx, rx) = mpsc::channel();
        // Another large file's analysis is under way.
        let held = lock(&LARGE);
        for name in ["big.cwl", "small.cwl"] {
            let (s, tx, path) = (session.clone(), tx.clone(), dir.join(name));
            std::thread::spawn(move || {
                let indexed = index_path(&s, &path);
                tx.send((name, indexed.is_some())).unwrap();
            });
        }
        // The small file does not wait; the large one waits for the other to end.
        assert_eq!(
            rx.recv_timeout(Duration::from_secs(30)),
            Ok(("small.cwl", true))
        );
        assert!(rx.recv_timeout(Duration::from_millis(300)).is_err());
        drop(held);
        assert_eq!(
            rx.recv_timeout(Duration::from_secs(60)),
            Ok(("big.cwl", true))
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
