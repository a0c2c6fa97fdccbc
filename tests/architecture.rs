//! The module graph (issue 9): the layers of `src/lib.rs` import only the layers below them,
//! and no two modules import each other, directly or through others — at the level of the
//! layers and at the level of files. Read from the sources (`use crate::…`, `crate::…` paths,
//! `super::…`), test code left out (`*_tests.rs`, `fixture.rs` and `#[cfg(test)] mod tests`
//! blocks may reach up to build their inputs).
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Bottom to top; a layer may import only those before it. `server` and `cli` share the top.
const LAYERS: &[&[&str]] = &[
    &["base"],
    &["document"],
    &["cwl"],
    &["hint"],
    &["derive"],
    &["model"],
    &["features"],
    &["server", "cli"],
];

fn rank(layer: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&layer))
}

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// `src/a/b.rs` → `a::b`; `src/a/mod.rs` → `a`.
fn module_of(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).unwrap().with_extension("");
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts.last().is_some_and(|p| p == "mod") {
        parts.pop();
    }
    parts
}

/// The code of a file without its test blocks (`#[cfg(test)]` items are cut to the end of the
/// file when they are a `mod`, which is where this project keeps them).
fn without_tests(text: &str) -> &str {
    match text.find("#[cfg(test)]\nmod tests") {
        Some(i) => &text[..i],
        None => text,
    }
}

/// Every module path a file refers to, as absolute paths (`crate::x::y` → `[x, y]`).
/// (Comments are left out: a doc link is not an import.)
fn references(module: &[String], text: &str) -> BTreeSet<Vec<String>> {
    let code: String = text
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    let text = code.as_str();
    let mut out = BTreeSet::new();
    let bytes = text.as_bytes();
    let ident = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    for (i, _) in text.match_indices("crate::") {
        if i > 0 && (ident(bytes[i - 1]) || bytes[i - 1] == b'$') {
            continue;
        }
        let path: Vec<String> = text[i + 7..]
            .split("::")
            .map(|s| {
                s.chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect()
            })
            .take_while(|s: &String| !s.is_empty())
            .collect();
        out.insert(path);
    }
    for (i, _) in text.match_indices("super::") {
        if i > 0 && ident(bytes[i - 1]) {
            continue;
        }
        // `super` of module `a::b` (file `a/b.rs` or `a/b/mod.rs`) is `a`.
        let mut base: Vec<String> = module.to_vec();
        base.pop();
        let rest: Vec<String> = text[i + 7..]
            .split("::")
            .map(|s| {
                s.chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect()
            })
            .take_while(|s: &String| !s.is_empty() && s != "super")
            .collect();
        base.extend(rest);
        out.insert(base);
    }
    out
}

struct Graph {
    /// file module → modules (files) it depends on.
    files: BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
}

fn build() -> Graph {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    let mut modules: BTreeMap<Vec<String>, String> = BTreeMap::new();
    for f in &files {
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        if name.ends_with("_tests.rs")
            || name == "fixture.rs"
            || name == "main.rs"
            || name == "lib.rs"
        {
            continue;
        }
        let text = std::fs::read_to_string(f).unwrap();
        modules.insert(module_of(&src, f), text);
    }
    let known: BTreeSet<Vec<String>> = modules.keys().cloned().collect();
    // A path names the deepest known module it starts with (`crate::model::tools::ToolEntry`
    // → `model::tools`).
    let resolve = |path: &[String]| -> Option<Vec<String>> {
        (1..=path.len())
            .rev()
            .map(|n| path[..n].to_vec())
            .find(|p| known.contains(p))
    };
    let mut graph = BTreeMap::new();
    for (module, text) in &modules {
        let deps: BTreeSet<Vec<String>> = references(module, without_tests(text))
            .iter()
            .filter_map(|p| resolve(p))
            .filter(|d| d != module)
            // A module's own children are its parts, not dependencies of it.
            .filter(|d| !(d.len() > module.len() && d.starts_with(module)))
            .collect();
        graph.insert(module.clone(), deps);
    }
    Graph { files: graph }
}

/// A cycle in `edges`, if any (depth-first search), as the modules along it.
fn find_cycle<N: Ord + Clone>(edges: &BTreeMap<N, BTreeSet<N>>) -> Option<Vec<N>> {
    fn visit<N: Ord + Clone>(
        n: &N,
        edges: &BTreeMap<N, BTreeSet<N>>,
        state: &mut BTreeMap<N, u8>,
        stack: &mut Vec<N>,
    ) -> Option<Vec<N>> {
        match state.get(n) {
            Some(2) => return None,
            Some(1) => {
                let at = stack.iter().position(|m| m == n).unwrap();
                let mut cycle = stack[at..].to_vec();
                cycle.push(n.clone());
                return Some(cycle);
            }
            _ => {}
        }
        state.insert(n.clone(), 1);
        stack.push(n.clone());
        for m in edges.get(n).into_iter().flatten() {
            if let Some(c) = visit(m, edges, state, stack) {
                return Some(c);
            }
        }
        stack.pop();
        state.insert(n.clone(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for n in edges.keys() {
        if let Some(c) = visit(n, edges, &mut state, &mut Vec::new()) {
            return Some(c);
        }
    }
    None
}

#[test]
fn layers_import_only_the_layers_below_them() {
    let graph = build();
    let mut wrong = Vec::new();
    for (module, deps) in &graph.files {
        let from = &module[0];
        let Some(r) = rank(from) else {
            wrong.push(format!("`{}` is in no layer of LAYERS", module.join("::")));
            continue;
        };
        for d in deps {
            let to = &d[0];
            if to == from {
                continue;
            }
            match rank(to) {
                Some(t) if t < r => {}
                _ => wrong.push(format!("{} → {}", module.join("::"), d.join("::"))),
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "imports against the layering:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn no_module_depends_on_itself_through_others() {
    let graph = build();
    if let Some(cycle) = find_cycle(&graph.files) {
        let shown: Vec<String> = cycle.iter().map(|m| m.join("::")).collect();
        panic!("a cycle in the module graph: {}", shown.join(" → "));
    }
    // The check itself can fail: a graph with a cycle is found.
    let mut edges: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    edges.entry("a").or_default().insert("b");
    edges.entry("b").or_default().insert("a");
    assert!(find_cycle(&edges).is_some());
}

#[test]
fn the_graph_sees_the_imports() {
    // A sanity check on the parser, so that an empty graph cannot pass the tests above.
    let graph = build();
    let model = graph
        .files
        .get(&vec!["model".to_string()])
        .expect("model/mod.rs");
    assert!(model.iter().any(|d| d[0] == "cwl"), "{model:?}");
    let backend = graph
        .files
        .get(&vec!["server".to_string(), "backend".to_string()])
        .expect("server/backend.rs");
    assert!(backend.iter().any(|d| d[0] == "features"), "{backend:?}");
    assert!(graph.files.len() > 30, "{}", graph.files.len());
}
