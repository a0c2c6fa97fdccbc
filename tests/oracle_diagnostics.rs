//! Under the `cwl2mcp` profile, every reference case gets an error-severity diagnostic if and
//! only if the cwl2mcp 0.1.0 plugin failed on it (SPEC §5, one named exception), on a line the
//! plugin's message names when it names one.
use cwl_mcp_lsp::base::settings::{Profile, Settings};
use cwl_mcp_lsp::base::{DocumentContext, Severity};
use cwl_mcp_lsp::document::{Encoding, Snapshot};
use cwl_mcp_lsp::model;

const CASES: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/derive/oracle-runs/cases"
);

/// Lines named as `<file>.cwl:LINE:COL:` in the plugin's message.
fn named_lines(message: &str, file: &str) -> Vec<u32> {
    let mut out = Vec::new();
    let needle = format!("{file}:");
    let mut rest = message;
    while let Some(i) = rest.find(&needle) {
        rest = &rest[i + needle.len()..];
        let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
        if let Ok(line) = digits.parse() {
            out.push(line);
        }
    }
    out
}

#[test]
fn cwl2mcp_profile_errors_exactly_where_the_plugin_failed() {
    let settings = Settings {
        profile: Profile::Cwl2mcp,
        ..Settings::default()
    };
    let mut entries: Vec<_> = std::fs::read_dir(CASES)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "cwl"))
        .collect();
    entries.sort();
    assert_eq!(entries.len(), 54, "the 54 reference cases");
    let mut failures = Vec::new();
    for path in &entries {
        let file = path.file_name().unwrap().to_str().unwrap();
        let text = std::fs::read_to_string(path).unwrap();
        let snapshot = Snapshot::parse(&text, 0);
        let context = DocumentContext::from_path(path);
        let diags = model::diagnostics(&snapshot, &settings, &context);
        let errors: Vec<_> = diags
            .iter()
            .filter(|d| d.severity == Severity::Error)
            .collect();
        let error_file = path.with_extension("error.txt");
        let plugin_failed = error_file.exists();
        let exception = file.starts_with("40-hint-in-requirements");
        let expect_error = plugin_failed || exception;
        if expect_error == errors.is_empty() {
            failures.push(format!(
                "{file}: plugin {}, ours: {:?}",
                if plugin_failed { "failed" } else { "succeeded" },
                diags
                    .iter()
                    .map(|d| (d.code, &d.message))
                    .collect::<Vec<_>>()
            ));
            continue;
        }
        if !plugin_failed {
            continue;
        }
        let message = std::fs::read_to_string(&error_file).unwrap();
        let lines = named_lines(&message, file);
        if lines.is_empty() {
            continue;
        }
        // An error must start on a named line, or lie inside the value of a key on a named
        // line (the plugin names the `annotations` key for a problem inside it; we point at
        // the offending inner key or value).
        let line_of = |offset: usize| snapshot.lines.position(offset, Encoding::Chars).line + 1;
        let ok = errors.iter().any(|d| {
            let start = line_of(d.span.start);
            lines.contains(&start)
                || lines.iter().any(|&l| {
                    let key_line_start = snapshot.lines.line_start_byte(l as usize - 1);
                    let indent = text[key_line_start..]
                        .bytes()
                        .take_while(|&b| b == b' ')
                        .count();
                    // the diagnostic is below line l and more indented than its key
                    start > l && {
                        let d_line_start = snapshot.lines.line_start_byte(start as usize - 1);
                        let d_indent = text[d_line_start..]
                            .bytes()
                            .take_while(|&b| b == b' ')
                            .count();
                        d_indent > indent
                            && (l..start).all(|m| {
                                let s = snapshot.lines.line_start_byte(m as usize);
                                let i = text[s..].bytes().take_while(|&b| b == b' ').count();
                                m == l || i > indent
                            })
                    }
                })
        });
        if !ok {
            failures.push(format!(
                "{file}: plugin names lines {lines:?}; our errors start on {:?}",
                errors
                    .iter()
                    .map(|d| (line_of(d.span.start), d.code))
                    .collect::<Vec<_>>()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
