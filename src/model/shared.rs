//! One analysis of a large text at a time (issue 14). At start-up the workspace index reads
//! every `.cwl` file while the editor opens some of them: the index and the open document each
//! analysed the same text under the same settings, side by side. At 50,000 lines that is two
//! value trees, two derivations and their temporaries on two threads (resident memory after
//! the open 81 MB, against 68 MB when the document is opened after the index is done).
//!
//! [`analysed`] is the one way the index and a document's first analysis build the model of
//! a text of at least [`SHARED_MIN_BYTES`]: an analysis of the same text, settings and context
//! that is under way is waited for and taken, and a model of them that is still alive
//! (held by an open document, or by the index while it reads it) is taken as it is. A model
//! is a function of its text, settings and context (the files it reads through `$import` are
//! read at the same instant either way), so the one taken is the one that would have been
//! built. Nothing is kept here beyond the analyses: a finished model is held weakly.
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, Weak};
use std::time::{Duration, Instant};

use super::Model;
use crate::base::{DocumentContext, Settings};

/// Texts at least this large share their analyses: those whose parses the index keeps for a
/// document opened meanwhile (the document takes the parse, then the analysis).
pub const SHARED_MIN_BYTES: usize = crate::document::text::KEEP_MIN_BYTES;

/// How long an analysis waits at most for the same one under way elsewhere (a 50,000-line
/// tool's analysis takes about 0.2 s here; a stalled one must not hold the other).
const WAIT: Duration = Duration::from_secs(5);

enum Slot {
    /// Under way, from this text.
    Building(Arc<str>),
    /// Done: the model, while someone holds it, and its text's length (compared before the
    /// model is upgraded: a model whose last holder lets go meanwhile is not freed under the
    /// lock for a text it cannot match).
    Built(usize, Weak<Model>),
}

struct Analysis {
    id: u64,
    settings: Settings,
    context: DocumentContext,
    slot: Slot,
}

struct Analyses {
    next_id: u64,
    all: Vec<Analysis>,
}

static ANALYSES: Mutex<Analyses> = Mutex::new(Analyses {
    next_id: 0,
    all: Vec::new(),
});
/// Notified when an analysis under way ends (built, or abandoned by a panic).
static ENDED: Condvar = Condvar::new();
/// How many models of large texts this process built ([`built`]).
static BUILT: AtomicUsize = AtomicUsize::new(0);

/// How many models of texts of at least [`SHARED_MIN_BYTES`] this process built, shared or
/// not: what the sharing saves, seen from outside (`tests/shared_analysis.rs`).
pub fn built() -> usize {
    BUILT.load(Ordering::Relaxed)
}

/// Counts a model built of a text of `len` bytes ([`Model::new`]).
pub(super) fn count(len: usize) {
    if len >= SHARED_MIN_BYTES {
        BUILT.fetch_add(1, Ordering::Relaxed);
    }
}

fn analyses() -> MutexGuard<'static, Analyses> {
    ANALYSES.lock().unwrap_or_else(|p| p.into_inner())
}

/// What [`analysed`] finds for a text.
enum Found {
    Model(Arc<Model>),
    UnderWay,
    Nothing,
}

fn find(
    all: &[Analysis],
    text: &Arc<str>,
    settings: &Settings,
    context: &DocumentContext,
) -> Found {
    for a in all {
        if a.settings != *settings || a.context != *context {
            continue;
        }
        match &a.slot {
            Slot::Building(t) if Arc::ptr_eq(t, text) || **t == **text => return Found::UnderWay,
            Slot::Built(len, model) if *len == text.len() => {
                if let Some(m) = model.upgrade() {
                    let t = &m.snapshot.text;
                    if Arc::ptr_eq(t, text) || **t == **text {
                        return Found::Model(m);
                    }
                }
            }
            Slot::Building(_) | Slot::Built(..) => {}
        }
    }
    Found::Nothing
}

/// Removes analysis `id` if it is still under way (its build panicked) and wakes the waiters.
struct UnderWay(u64);

impl Drop for UnderWay {
    fn drop(&mut self) {
        let mut a = analyses();
        a.all
            .retain(|x| x.id != self.0 || matches!(x.slot, Slot::Built(..)));
        drop(a);
        ENDED.notify_all();
    }
}

/// The model of `text` under `settings` for the document at `context`: `build` makes it,
/// unless the text is large and the same analysis is under way (waited for, at most
/// [`WAIT`]) or alive elsewhere (taken).
pub fn analysed(
    text: &Arc<str>,
    settings: &Settings,
    context: &DocumentContext,
    build: impl FnOnce() -> Model,
) -> Arc<Model> {
    if text.len() < SHARED_MIN_BYTES {
        return Arc::new(build());
    }
    let deadline = Instant::now() + WAIT;
    let mut a = analyses();
    let id = loop {
        a.all
            .retain(|x| !matches!(&x.slot, Slot::Built(_, m) if m.strong_count() == 0));
        match find(&a.all, text, settings, context) {
            Found::Model(m) => {
                drop(a);
                return m;
            }
            Found::UnderWay => {
                let Some(left) = deadline.checked_duration_since(Instant::now()) else {
                    // Stalled: built here, not shared.
                    drop(a);
                    return Arc::new(build());
                };
                a = ENDED
                    .wait_timeout(a, left)
                    .unwrap_or_else(|p| p.into_inner())
                    .0;
            }
            Found::Nothing => {
                let id = a.next_id;
                a.next_id += 1;
                a.all.push(Analysis {
                    id,
                    settings: settings.clone(),
                    context: context.clone(),
                    slot: Slot::Building(text.clone()),
                });
                break id;
            }
        }
    };
    drop(a);
    let under_way = UnderWay(id);
    let model = Arc::new(build());
    if let Some(x) = analyses().all.iter_mut().find(|x| x.id == id) {
        x.slot = Slot::Built(text.len(), Arc::downgrade(&model));
    }
    drop(under_way);
    model
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::settings::Settings;
    use std::sync::mpsc;

    /// A tool of at least [`SHARED_MIN_BYTES`], distinct per `tag` (the tests run in parallel
    /// and share the registry).
    fn large_text(tag: &str) -> Arc<str> {
        let mut t = format!("cwlVersion: v1.2\nclass: CommandLineTool\nid: {tag}\ninputs:\n");
        let mut i = 0;
        while t.len() < SHARED_MIN_BYTES + 100 {
            t.push_str(&format!(
                "  in_{i}:\n    type: string\n    doc: input {i}\n"
            ));
            i += 1;
        }
        t.push_str("outputs: {}\n");
        Arc::from(t)
    }

    fn context(tag: &str) -> DocumentContext {
        DocumentContext::from_uri(&format!("file:///shared/{tag}.cwl"))
    }

    fn counted(text: &Arc<str>, context: &DocumentContext, builds: &AtomicUsize) -> Model {
        builds.fetch_add(1, Ordering::SeqCst);
        Model::of_text(text, Settings::default(), context.clone())
    }

    #[test]
    fn an_analysis_under_way_is_waited_for_and_taken() {
        let text = large_text("under-way");
        let ctx = context("under-way");
        let builds = Arc::new(AtomicUsize::new(0));
        let (started_tx, started) = mpsc::channel();
        let (release_tx, release) = mpsc::channel::<()>();
        let first = {
            let (text, ctx, builds) = (text.clone(), ctx.clone(), builds.clone());
            std::thread::spawn(move || {
                analysed(&text, &Settings::default(), &ctx, || {
                    started_tx.send(()).unwrap();
                    release.recv().unwrap();
                    counted(&text, &ctx, &builds)
                })
            })
        };
        started.recv().unwrap();
        // The same text in another allocation, as a document opened with it holds it.
        let copy: Arc<str> = Arc::from(&*text);
        let second = {
            let (ctx, builds) = (ctx.clone(), builds.clone());
            std::thread::spawn(move || {
                analysed(&copy, &Settings::default(), &ctx, || {
                    counted(&copy, &ctx, &builds)
                })
            })
        };
        std::thread::sleep(Duration::from_millis(100));
        release_tx.send(()).unwrap();
        let (a, b) = (first.join().unwrap(), second.join().unwrap());
        assert!(Arc::ptr_eq(&a, &b), "the second took the first's model");
        assert_eq!(builds.load(Ordering::SeqCst), 1);
        // While it is held, a later analysis of the same text takes it too...
        let c = analysed(&text, &Settings::default(), &ctx, || {
            counted(&text, &ctx, &builds)
        });
        assert!(Arc::ptr_eq(&a, &c));
        assert_eq!(builds.load(Ordering::SeqCst), 1);
        // ...and once nobody holds it, nothing here keeps it: the next one is built.
        drop((a, b, c));
        let d = analysed(&text, &Settings::default(), &ctx, || {
            counted(&text, &ctx, &builds)
        });
        assert_eq!(builds.load(Ordering::SeqCst), 2);
        assert_eq!(d.text(), &*text);
    }

    #[test]
    fn other_settings_another_place_or_a_small_text_build_their_own() {
        let text = large_text("other");
        let ctx = context("other");
        let builds = AtomicUsize::new(0);
        let held = analysed(&text, &Settings::default(), &ctx, || {
            counted(&text, &ctx, &builds)
        });
        let strict = Settings {
            profile: crate::base::Profile::Cwl2mcp,
            ..Settings::default()
        };
        let other_settings = analysed(&text, &strict, &ctx, || {
            builds.fetch_add(1, Ordering::SeqCst);
            Model::of_text(&text, strict.clone(), ctx.clone())
        });
        let elsewhere = context("other-place");
        let other_place = analysed(&text, &Settings::default(), &elsewhere, || {
            counted(&text, &elsewhere, &builds)
        });
        assert!(!Arc::ptr_eq(&held, &other_settings));
        assert!(!Arc::ptr_eq(&held, &other_place));
        assert_eq!(builds.load(Ordering::SeqCst), 3);
        let small: Arc<str> = Arc::from("cwlVersion: v1.2\nclass: CommandLineTool\n");
        let one = analysed(&small, &Settings::default(), &ctx, || {
            counted(&small, &ctx, &builds)
        });
        let two = analysed(&small, &Settings::default(), &ctx, || {
            counted(&small, &ctx, &builds)
        });
        assert!(!Arc::ptr_eq(&one, &two), "small texts are not shared");
        assert_eq!(builds.load(Ordering::SeqCst), 5);
    }

    #[test]
    fn an_analysis_that_panics_lets_the_waiting_one_build() {
        let text = large_text("panics");
        let ctx = context("panics");
        let (started_tx, started) = mpsc::channel();
        let first = {
            let (text, ctx) = (text.clone(), ctx.clone());
            std::thread::spawn(move || {
                analysed(&text, &Settings::default(), &ctx, || {
                    started_tx.send(()).unwrap();
                    std::thread::sleep(Duration::from_millis(100));
                    panic!("the analysis failed")
                })
            })
        };
        started.recv().unwrap();
        let begun = Instant::now();
        let builds = AtomicUsize::new(0);
        let second = analysed(&text, &Settings::default(), &ctx, || {
            counted(&text, &ctx, &builds)
        });
        assert!(first.join().is_err());
        assert_eq!(builds.load(Ordering::SeqCst), 1);
        assert!(
            begun.elapsed() < WAIT,
            "woken by the panic, not the deadline"
        );
        assert_eq!(second.text(), &*text);
    }
}
