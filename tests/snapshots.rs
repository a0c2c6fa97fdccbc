//! Snapshots (insta) of what users see for the bundled examples: the derived Tool in both
//! profiles and the diagnostics, so that any change to them is reviewed.
use cwl_mcp_lsp::base::DocumentContext;
use cwl_mcp_lsp::base::settings::{Profile, Settings};
use cwl_mcp_lsp::document::{Encoding, Snapshot};
use cwl_mcp_lsp::features::preview;
use cwl_mcp_lsp::model::{self, Model};

fn example(name: &str) -> (Snapshot, DocumentContext) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap();
    (
        Snapshot::parse(&text, 1),
        DocumentContext::from_uri(&format!("file:///examples/{name}")),
    )
}

fn settings(profile: Profile) -> Settings {
    Settings {
        profile,
        ..Settings::default()
    }
}

#[test]
fn derived_tool_of_the_example_in_both_profiles() {
    let (snapshot, context) = example("echo-region.cwl");
    let tool = preview::preview(
        &Model::new(
            snapshot.clone(),
            settings(Profile::Extension),
            context.clone(),
        ),
        None,
        &[],
    )
    .unwrap();
    insta::assert_json_snapshot!("echo-region.extension", tool);
    // Under cwl2mcp the example lacks required fields: the preview explains why.
    let refused = preview::preview(
        &Model::new(
            snapshot.clone(),
            settings(Profile::Cwl2mcp),
            context.clone(),
        ),
        None,
        &[],
    )
    .unwrap_err();
    insta::assert_snapshot!("echo-region.cwl2mcp-refused", refused.to_string());
}

#[test]
fn diagnostics_of_the_broken_example() {
    let (snapshot, context) = example("broken-hint.cwl");
    let lines: Vec<String> = model::diagnostics(&snapshot, &settings(Profile::Extension), &context)
        .iter()
        .map(|d| {
            let at = snapshot.lines.position(d.span.start, Encoding::Chars);
            format!(
                "{}:{} {}[{}] {}",
                at.line + 1,
                at.character + 1,
                d.severity.as_str(),
                d.code,
                d.message
            )
        })
        .collect();
    insta::assert_snapshot!("broken-hint.diagnostics", lines.join("\n"));
}
