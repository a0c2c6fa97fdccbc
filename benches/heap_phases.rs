//! Heap in use (glibc's `mallinfo2`: what is allocated, not what the allocator keeps) of one
//! process through the harness's edit sites on one generated document, the document and its
//! latest model held as the server holds them: what each phase adds, without heaptrack's
//! slowdown.
//!
//!     python3 bench/run.py --quick          # (or bench/gen_cwl.py) writes target/bench/tool_*
//!     CWL_MCP_BENCH_FILE=tool_50000_top cargo bench --bench heap_phases
//!
//! Under heaptrack (built with symbols: `CARGO_PROFILE_BENCH_DEBUG=line-tables-only
//! CARGO_PROFILE_BENCH_STRIP=none cargo bench --bench heap_phases --no-run`, then
//! `heaptrack <binary>`), the whole sequence takes seconds, where the server under heaptrack
//! stalled through the harness's edits (bench/notes.md): what is alive at the peak, by where
//! it was allocated.
//!
//! `CWL_MCP_BENCH_SITES` (e.g. `input_doc,yaml`, or `none`) runs those edit sites only;
//! `CWL_MCP_HEAP_EXIT=1` ends the process at the end without freeing the document and its
//! model, so that heaptrack's "leaked" figures are what they hold (with `none`: the open).
mod common;

use cwl_mcp_lsp::base::DocumentContext;
use cwl_mcp_lsp::base::settings::Settings;
use cwl_mcp_lsp::document::{Document, Encoding};
use cwl_mcp_lsp::model::Model;

/// glibc's `struct mallinfo2`, whole for its layout (two fields are read).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[repr(C)]
#[allow(dead_code)]
struct MallInfo2 {
    arena: usize,
    ordblks: usize,
    smblks: usize,
    hblks: usize,
    hblkhd: usize,
    usmblks: usize,
    fsmblks: usize,
    uordblks: usize,
    fordblks: usize,
    keepcost: usize,
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
unsafe extern "C" {
    fn mallinfo2() -> MallInfo2;
}

/// Heap in use, in MB: the small blocks in use and the mapped ones.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn in_use() -> f64 {
    // SAFETY: `mallinfo2` has no preconditions.
    let m = unsafe { mallinfo2() };
    (m.uordblks + m.hblkhd) as f64 / 1e6
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn in_use() -> f64 {
    eprintln!("SKIPPED: the heap in use is read from glibc's mallinfo2 (Linux, glibc)");
    std::process::exit(0);
}

fn main() {
    cwl_mcp_lsp::server::tune_malloc();
    let name = std::env::var("CWL_MCP_BENCH_FILE").unwrap_or("tool_50000_top".into());
    let Some((path, text, pos)) = common::generated(&name) else {
        return;
    };
    let settings = Settings::default();
    let context = DocumentContext::from_path(&path);
    let start = in_use();
    let mut doc = Document::new(text, 1);
    let with_doc = in_use();
    println!(
        "document (text, rope, tree)      {:7.1} MB",
        with_doc - start
    );
    let yaml = cwl_mcp_lsp::document::yaml::YamlDoc::build(&doc.snapshot());
    let with_yaml = in_use();
    println!(
        "YAML value tree (with memos)     {:7.1} MB",
        with_yaml - with_doc
    );
    let mut model = Model::new(doc.snapshot(), settings.clone(), context.clone());
    let with_model = in_use();
    println!(
        "+ model without diagnostics      {:7.1} MB",
        with_model - with_yaml
    );
    std::hint::black_box(model.diagnostics().len());
    let opened = in_use();
    println!(
        "+ diagnostics                    {:7.1} MB",
        opened - with_model
    );
    drop(yaml);
    let opened = in_use();
    println!(
        "model after open (with memos)    {:7.1} MB",
        opened - with_doc
    );
    // What the workspace index reads of the same model, when it shares it with the document
    // (`model::shared`): kept in the model as long as the document holds it.
    let stamp = cwl_mcp_lsp::model::index::Stamp::Open(1);
    let entry = cwl_mcp_lsp::model::index::IndexEntry::of_model(&model, stamp);
    std::hint::black_box(&entry);
    let indexed = in_use();
    println!(
        "+ the index's entry of it        {:7.1} MB",
        indexed - opened
    );
    drop(entry);
    let opened = in_use();
    let mut peak = opened;
    let mut version = 1;
    for (site, edits) in pos["sites"].as_object().unwrap() {
        if !common::wanted("CWL_MCP_BENCH_SITES", site) {
            continue;
        }
        let mut site_peak: f64 = 0.0;
        for edit in edits.as_array().unwrap() {
            version += 1;
            let change = common::change_of(edit);
            doc.apply_changes(&[change], version, Encoding::Utf16)
                .unwrap();
            let next = Model::new(doc.snapshot(), settings.clone(), context.clone());
            std::hint::black_box(next.diagnostics().len());
            site_peak = site_peak.max(in_use());
            model = next;
        }
        peak = peak.max(site_peak);
        println!(
            "{site:<22} peak {:7.1} MB  after {:7.1} MB (above the start)",
            site_peak - start,
            in_use() - start
        );
    }
    println!("peak in use {:.1} MB above the start", peak - start);
    if std::env::var("CWL_MCP_HEAP_EXIT").is_ok_and(|v| v == "1") {
        std::process::exit(0);
    }
    drop(model);
}
