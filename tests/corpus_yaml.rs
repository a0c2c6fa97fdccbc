//! Second tier: our YAML value tree equals libyaml's (serde_norway) on every real CWL file both
//! accept, whichever parser built it (tree-sitter, or libyaml where tree-sitter is stricter).
mod common;

use cwl_mcp_lsp::document::yaml::YamlDoc;

#[test]
fn value_tree_matches_serde_norway_on_the_corpus() {
    let Some(shared) = common::shared_dir() else {
        return;
    };
    let mut compared = 0;
    let mut mismatches = Vec::new();
    for path in common::cwl_files(&shared.join("corpus")) {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let Ok(expected) = serde_norway::from_str::<serde_json::Value>(&text) else {
            continue;
        };
        let doc = YamlDoc::parse(&text);
        let ours = doc.to_json();
        compared += 1;
        if ours.as_ref() != Some(&expected) {
            let diff = first_difference(
                ours.as_ref().unwrap_or(&serde_json::Value::Null),
                &expected,
                String::new(),
            );
            mismatches.push(format!("{}: {diff}", path.display()));
        }
    }
    eprintln!("compared {compared} files, {} mismatches", mismatches.len());
    assert!(compared > 1000, "only {compared} corpus files compared");
    assert!(mismatches.is_empty(), "value trees differ: {mismatches:#?}");
}

fn first_difference(a: &serde_json::Value, b: &serde_json::Value, path: String) -> String {
    use serde_json::Value;
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for (k, v) in y {
                match x.get(k) {
                    Some(w) if w != v => return first_difference(w, v, format!("{path}/{k}")),
                    None => return format!("{path}/{k} missing"),
                    _ => {}
                }
            }
            format!("{path}: extra keys")
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            for (i, (w, v)) in x.iter().zip(y).enumerate() {
                if w != v {
                    return first_difference(w, v, format!("{path}/{i}"));
                }
            }
            path
        }
        _ => format!("{path}: ours {a} expected {b}"),
    }
}
