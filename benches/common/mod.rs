//! What the in-process benches share: the generated files of `bench/run.py` and their edits.
use cwl_mcp_lsp::document::{Change, Position};

/// The text of `target/bench/{name}.cwl` and its sidecar (`{name}.cwl.pos.json`: the edit
/// sites); `None`, with a message, when `bench/run.py` has not written them.
pub fn generated(name: &str) -> Option<(std::path::PathBuf, String, serde_json::Value)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench");
    let path = dir.join(format!("{name}.cwl"));
    let Ok(text) = std::fs::read_to_string(&path) else {
        // `bench/run.py` writes the files (`PLACEMENT_ARGS`: how each is generated).
        eprintln!(
            "SKIPPED {}: run `python3 bench/run.py --quick` first",
            path.display()
        );
        return None;
    };
    let pos = serde_json::from_str(
        &std::fs::read_to_string(format!("{}.pos.json", path.display())).unwrap(),
    )
    .unwrap();
    Some((path, text, pos))
}

/// One edit of a site in the sidecar, as a `didChange` change.
pub fn change_of(edit: &serde_json::Value) -> Change {
    let at = |i: usize| {
        let p = &edit["range"][i];
        Position::new(p[0].as_u64().unwrap() as u32, p[1].as_u64().unwrap() as u32)
    };
    Change {
        range: Some((at(0), at(1))),
        text: edit["text"].as_str().unwrap().to_string(),
    }
}

/// Whether `item` is among the comma-separated values of the environment variable `var`
/// (every item when it is unset or empty).
pub fn wanted(var: &str, item: &str) -> bool {
    std::env::var(var)
        .ok()
        .filter(|s| !s.is_empty())
        .is_none_or(|s| s.split(',').any(|x| x == item))
}
