//! Every quick fix, applied and re-validated: the diagnostics it fixes are gone and no new
//! diagnostic appears. Edited texts are compared exactly where the form matters.
use cwl_mcp_lsp::base::apply_edits;
use cwl_mcp_lsp::base::settings::{Profile, Settings};
use cwl_mcp_lsp::base::{Diagnostic, DocumentContext};
use cwl_mcp_lsp::document::Snapshot;
use cwl_mcp_lsp::features::code_actions::{Fix, quick_fixes};
use cwl_mcp_lsp::model::{self, Model};

const NS: &str = "https://eoap.github.io/cwl-mcp-extension#";

/// `agent-context` is off: it reports what a hint that a fix makes recognised still lacks
/// (`useWhen`, a `doc`, input labels), which no fix here is about.
fn settings(profile: Profile) -> Settings {
    Settings {
        profile,
        agent_context: false,
        ..Settings::default()
    }
}

fn context() -> DocumentContext {
    DocumentContext::from_uri("file:///work/echo-region.cwl")
}

fn diags(text: &str, profile: Profile) -> Vec<Diagnostic> {
    model::diagnostics(&Snapshot::parse(text, 1), &settings(profile), &context())
}

fn key(d: &Diagnostic) -> (String, String) {
    (d.code.to_string(), d.message.clone())
}

/// Applies the fix titled `title` (prefix) for the first diagnostic `code`, checks the
/// re-validation, and returns the fixed text.
fn fix(text: &str, profile: Profile, code: &str, title: &str) -> String {
    let before = diags(text, profile);
    let target = before
        .iter()
        .find(|d| d.code == code)
        .unwrap_or_else(|| panic!("no `{code}` in {before:#?}"));
    let fixes = quick_fixes(
        &Model::of_text(text, settings(profile), context()),
        target.span.clone(),
    );
    let chosen: &Fix = fixes
        .iter()
        .find(|f| f.title.starts_with(title))
        .unwrap_or_else(|| panic!("no fix `{title}` for `{code}` in {fixes:#?}"));
    assert!(
        chosen
            .diagnostics
            .contains(&(target.code, target.span.clone())),
        "the fix is attached to its diagnostic"
    );
    let fixed = apply_edits(text, &chosen.edits).expect("non-overlapping edits");
    let after = diags(&fixed, profile);
    let fixed_keys: Vec<(String, String)> = before
        .iter()
        .filter(|d| chosen.diagnostics.contains(&(d.code, d.span.clone())))
        .map(key)
        .collect();
    for d in &after {
        assert!(
            !fixed_keys.contains(&key(d)),
            "`{}` still there after `{}`:\n{fixed}\n{after:#?}",
            d.code,
            chosen.title
        );
        assert!(
            before.iter().any(|b| key(b) == key(d)),
            "new diagnostic after `{}`: {d:#?}\n{fixed}",
            chosen.title
        );
    }
    assert!(
        after.iter().all(|d| d.code != code)
            || code == "missing-field"
            || code == "annotation-default"
            || code == "invalid-type",
        "`{code}` remains after `{}`: {after:#?}",
        chosen.title
    );
    fixed
}

const HEAD: &str = "cwlVersion: v1.2\nclass: CommandLineTool\nid: echo-region\nlabel: Echo region\ndoc: Echoes a region.\n";
const BODY: &str = "    name: echo_region\n    aliases: []\n    useWhen: \"\"\n    doNotUseWhen: \"\"\n    annotations:\n      readOnlyHint: false\n      destructiveHint: false\n      idempotentHint: true\n      openWorldHint: false\n";
const TAIL: &str = "baseCommand: echo\ninputs: []\noutputs: []\n";

fn namespaces() -> String {
    format!("$namespaces:\n  mcp: {NS}\n")
}

#[test]
fn the_complete_fixture_is_clean_in_both_profiles() {
    let text = format!("{HEAD}{}hints:\n  mcp:Tool:\n{BODY}{TAIL}", namespaces());
    assert_eq!(diags(&text, Profile::Extension), vec![]);
    assert_eq!(diags(&text, Profile::Cwl2mcp), vec![]);
}

#[test]
fn bind_an_unbound_prefix() {
    let text = format!("{HEAD}hints:\n  mcp:Tool:\n{BODY}{TAIL}");
    let fixed = fix(&text, Profile::Extension, "namespace-unbound", "Bind `mcp`");
    assert_eq!(
        fixed,
        format!("{}{HEAD}hints:\n  mcp:Tool:\n{BODY}{TAIL}", namespaces())
    );
    // With another prefix bound: use it instead.
    let text = format!(
        "{HEAD}$namespaces:\n  agent: {NS}\nhints:\n  - class: mcp:Tool\n{}{TAIL}",
        list_body()
    );
    let fixed = fix(
        &text,
        Profile::Cwl2mcp,
        "namespace-unbound",
        "Use `agent:Tool`",
    );
    assert!(fixed.contains("  - class: agent:Tool\n"));
    fix(&text, Profile::Cwl2mcp, "namespace-unbound", "Bind `mcp`");
}

#[test]
fn correct_a_near_miss_namespace() {
    for (written, profile) in [
        (
            "https://eoap.github.io/cwl-mcp-extension",
            Profile::Extension,
        ),
        (
            "\"http://eoap.github.io/cwl-mcp-extension/\"",
            Profile::Cwl2mcp,
        ),
    ] {
        let text =
            format!("{HEAD}$namespaces:\n  mcp: {written}\nhints:\n  mcp:Tool:\n{BODY}{TAIL}");
        let fixed = fix(&text, profile, "namespace-mismatch", "Correct `mcp`");
        let expected = if written.starts_with('"') {
            format!("\"{NS}\"")
        } else {
            NS.to_string()
        };
        assert!(fixed.contains(&format!("  mcp: {expected}\n")), "{fixed}");
    }
}

#[test]
fn prefix_a_bare_class() {
    let text = format!("{HEAD}{}hints:\n  Tool:\n{BODY}{TAIL}", namespaces());
    let fixed = fix(
        &text,
        Profile::Extension,
        "hint-bare-class",
        "Write the class",
    );
    assert_eq!(
        fixed,
        format!("{HEAD}{}hints:\n  mcp:Tool:\n{BODY}{TAIL}", namespaces())
    );
    // Unbound: the binding comes with it.
    let text = format!("{HEAD}hints:\n  Tool:\n{BODY}{TAIL}");
    let fixed = fix(
        &text,
        Profile::Cwl2mcp,
        "hint-bare-class",
        "Write the class",
    );
    assert_eq!(
        fixed,
        format!("{}{HEAD}hints:\n  mcp:Tool:\n{BODY}{TAIL}", namespaces())
    );
}

/// The body as the fields of a list item whose `-` is at column 2 (the same column as the
/// fields of a map-form hint at column 2).
fn list_body() -> String {
    BODY.to_string()
}

#[test]
fn move_from_requirements_map_form_to_new_hints() {
    let text = format!(
        "{HEAD}{}requirements:\n  mcp:Tool:\n{BODY}{TAIL}",
        namespaces()
    );
    for profile in [Profile::Extension, Profile::Cwl2mcp] {
        let fixed = fix(&text, profile, "hint-in-requirements", "Move");
        assert_eq!(
            fixed,
            format!("{HEAD}{}hints:\n  mcp:Tool:\n{BODY}{TAIL}", namespaces())
        );
    }
}

#[test]
fn move_from_requirements_list_into_existing_hints_of_either_form() {
    let reqs = format!(
        "requirements:\n  - class: InlineJavascriptRequirement\n  - class: mcp:Tool\n{}",
        list_body()
    );
    // Into a list-form `hints`: appended as an item.
    let text = format!(
        "{HEAD}{}hints:\n  - class: DockerRequirement\n    dockerPull: alpine\n{reqs}{TAIL}",
        namespaces()
    );
    let fixed = fix(&text, Profile::Extension, "hint-in-requirements", "Move");
    assert_eq!(
        fixed,
        format!(
            "{HEAD}{}hints:\n  - class: DockerRequirement\n    dockerPull: alpine\n  - class: mcp:Tool\n{}requirements:\n  - class: InlineJavascriptRequirement\n{TAIL}",
            namespaces(),
            list_body()
        )
    );
    // Into a map-form `hints` (after requirements): converted to the map form.
    let text = format!(
        "{HEAD}{}{reqs}hints:\n  DockerRequirement:\n    dockerPull: alpine\n{TAIL}",
        namespaces()
    );
    let fixed = fix(&text, Profile::Cwl2mcp, "hint-in-requirements", "Move");
    assert_eq!(
        fixed,
        format!(
            "{HEAD}{}requirements:\n  - class: InlineJavascriptRequirement\nhints:\n  DockerRequirement:\n    dockerPull: alpine\n  mcp:Tool:\n{BODY}{TAIL}",
            namespaces()
        )
    );
}

#[test]
fn move_from_requirements_map_form_into_list_hints_with_crlf() {
    let text = format!(
        "{HEAD}{}requirements:\n  InlineJavascriptRequirement: {{}}\n  mcp:Tool:\n{BODY}hints:\n- class: DockerRequirement\n  dockerPull: alpine\n{TAIL}",
        namespaces()
    )
    .replace('\n', "\r\n");
    let fixed = fix(&text, Profile::Extension, "hint-in-requirements", "Move");
    let body_at_2: String = BODY.lines().map(|l| format!("{}\n", &l[2..])).collect();
    assert_eq!(
        fixed,
        format!(
            "{HEAD}{}requirements:\n  InlineJavascriptRequirement: {{}}\nhints:\n- class: DockerRequirement\n  dockerPull: alpine\n- class: mcp:Tool\n{body_at_2}{TAIL}",
            namespaces()
        )
        .replace('\n', "\r\n")
    );
}

#[test]
fn move_an_unbound_or_misspelled_hint_and_make_it_recognised() {
    // Unbound, no `$namespaces`, `requirements` first: the binding comes with the move.
    let text = format!("requirements:\n  mcp:Tool:\n{BODY}{HEAD}{TAIL}");
    let fixed = fix(
        &text,
        Profile::Extension,
        "hint-in-requirements",
        "Move the MCP Tool hint to `hints` and bind `mcp`",
    );
    assert_eq!(
        fixed,
        format!("{}hints:\n  mcp:Tool:\n{BODY}{HEAD}{TAIL}", namespaces())
    );
    assert!(diags(&fixed, Profile::Extension).is_empty());
    // A near-miss namespace is corrected with the move.
    let text = format!(
        "{HEAD}$namespaces:\n  mcp: https://eoap.github.io/cwl-mcp-extension\nrequirements:\n  - class: mcp:Tool\n{}{TAIL}",
        list_body()
    );
    let fixed = fix(
        &text,
        Profile::Cwl2mcp,
        "hint-in-requirements",
        "Move the MCP Tool hint to `hints` and correct `mcp`",
    );
    assert!(diags(&fixed, Profile::Cwl2mcp).is_empty(), "{fixed}");
}

#[test]
fn insert_missing_required_fields() {
    // cwl2mcp requires aliases, useWhen, doNotUseWhen: one fix adds the three.
    let body = "    name: echo_region\n    annotations:\n      readOnlyHint: false\n      destructiveHint: false\n      idempotentHint: true\n      openWorldHint: false\n";
    let text = format!("{HEAD}{}hints:\n  mcp:Tool:\n{body}{TAIL}", namespaces());
    let fixed = fix(
        &text,
        Profile::Cwl2mcp,
        "missing-field",
        "Add the required fields",
    );
    assert_eq!(
        fixed,
        format!(
            "{HEAD}{}hints:\n  mcp:Tool:\n{body}    aliases: []\n    useWhen: \"\"\n    doNotUseWhen: \"\"\n{TAIL}",
            namespaces()
        )
    );
    assert!(diags(&fixed, Profile::Cwl2mcp).is_empty());
    // An empty list-form hint gets every required field, `name` from the id.
    let text = format!("{HEAD}{}hints:\n  - class: mcp:Tool\n{TAIL}", namespaces());
    let fixed = fix(
        &text,
        Profile::Cwl2mcp,
        "missing-field",
        "Add the required fields",
    );
    assert!(
        fixed.contains("  - class: mcp:Tool\n    name: echo_region\n    aliases: []\n"),
        "{fixed}"
    );
    assert!(diags(&fixed, Profile::Cwl2mcp).is_empty(), "{fixed}");
    // Missing annotations under cwl2mcp, flow form kept.
    let text = format!(
        "{HEAD}{}hints:\n  mcp:Tool:\n    name: echo_region\n    aliases: []\n    useWhen: \"\"\n    doNotUseWhen: \"\"\n    annotations: {{readOnlyHint: true}}\n{TAIL}",
        namespaces()
    );
    let fixed = fix(
        &text,
        Profile::Cwl2mcp,
        "missing-field",
        "Add the required annotations",
    );
    assert!(
        fixed.contains("    annotations: {readOnlyHint: true, destructiveHint: false, idempotentHint: false, openWorldHint: true}\n"),
        "{fixed}"
    );
    assert!(diags(&fixed, Profile::Cwl2mcp).is_empty(), "{fixed}");
}

#[test]
fn replace_an_invalid_name() {
    let text = format!(
        "{HEAD}{}hints:\n  mcp:Tool:\n{}{TAIL}",
        namespaces(),
        BODY.replace("name: echo_region", "name: \"echo region/v2 é\"")
    );
    for profile in [Profile::Extension, Profile::Cwl2mcp] {
        let fixed = fix(&text, profile, "name-invalid", "Replace the name");
        assert!(fixed.contains("    name: \"v2__\"\n"), "{fixed}");
    }
    // cwl2mcp cannot load a document whose id is a URI (reference case 49), even with a hint
    // `name`: the fix gives the process a plain id.
    let text = format!(
        "{}{}hints:\n  mcp:Tool:\n{}{TAIL}",
        HEAD.replace(
            "id: echo-region",
            "id: https://example.org/tools#echo-region"
        ),
        namespaces(),
        BODY.replace("    name: echo_region\n", "")
    );
    let fixed = fix(
        &text,
        Profile::Cwl2mcp,
        "name-invalid",
        "Use the plain id `echo-region`",
    );
    assert!(fixed.contains("\nid: echo-region\n"), "{fixed}");
}

#[test]
fn rename_the_annotations_class_for_the_profile() {
    for (written, profile) in [
        ("ToolAnnotations", Profile::Cwl2mcp),
        ("Hints", Profile::Extension),
        ("mcp:Other", Profile::Cwl2mcp),
    ] {
        let body = BODY.replace(
            "    annotations:\n",
            &format!("    annotations:\n      class: {written}\n"),
        );
        let text = format!("{HEAD}{}hints:\n  mcp:Tool:\n{body}{TAIL}", namespaces());
        let fixed = fix(&text, profile, "annotations-class", "Rename the class");
        assert!(
            fixed.contains("      class: Annotations\n")
                || fixed.contains("      class: mcp:Annotations\n"),
            "{fixed}"
        );
    }
}

#[test]
fn make_the_defaults_explicit() {
    // Some annotations left out, 4-space indentation and CRLF kept.
    let text = format!(
        "{HEAD}{}hints:\n    mcp:Tool:\n        name: echo_region\n        annotations:\n            readOnlyHint: false\n{TAIL}",
        namespaces().replace("  mcp", "    mcp")
    )
    .replace('\n', "\r\n");
    let before = diags(&text, Profile::Extension);
    assert_eq!(
        before
            .iter()
            .filter(|d| d.code == "annotation-default")
            .count(),
        3
    );
    let fixed = fix(
        &text,
        Profile::Extension,
        "annotation-default",
        "Make the MCP defaults explicit",
    );
    assert!(fixed.contains("            readOnlyHint: false\r\n            destructiveHint: true\r\n            idempotentHint: false\r\n            openWorldHint: true\r\n"), "{fixed}");
    let after = diags(&fixed, Profile::Extension);
    assert!(
        after.iter().all(|d| d.code != "annotation-default"),
        "{after:#?}"
    );
    // One action for the three diagnostics, and for the `cwl2mcp-incompatible` note that asks
    // for the same annotations (the same edits: one fix).
    let snapshot = Snapshot::parse(&text, 1);
    let span = before
        .iter()
        .find(|d| d.code == "annotation-default")
        .unwrap()
        .span
        .clone();
    let fixes = quick_fixes(
        &Model::new(snapshot.clone(), settings(Profile::Extension), context()),
        span,
    );
    let f = fixes.iter().find(|f| f.title.starts_with("Make")).unwrap();
    let codes: Vec<&str> = f.diagnostics.iter().map(|(c, _)| c.as_str()).collect();
    assert_eq!(
        codes,
        vec![
            "annotation-default",
            "annotation-default",
            "annotation-default",
            "cwl2mcp-incompatible"
        ],
        "{:?}",
        f.diagnostics
    );
    // No annotations at all, read-only tool: `destructiveHint: false` is written, since `true`
    // would be ignored (and reported) for a read-only tool.
    let text = format!(
        "{HEAD}{}hints:\n  - class: mcp:Tool\n    name: echo_region\n    aliases: []\n    useWhen: \"\"\n    doNotUseWhen: \"\"\n{TAIL}",
        namespaces()
    );
    let fixed = fix(
        &text,
        Profile::Extension,
        "annotation-default",
        "Make the MCP defaults explicit",
    );
    assert!(fixed.contains("    doNotUseWhen: \"\"\n    annotations:\n      readOnlyHint: false\n      destructiveHint: true\n      idempotentHint: false\n      openWorldHint: true\n"), "{fixed}");
    assert!(diags(&fixed, Profile::Extension).is_empty());
    let text = format!(
        "{HEAD}{}hints:\n  mcp:Tool:\n    annotations:\n      readOnlyHint: true\n{TAIL}",
        namespaces()
    );
    let fixed = fix(
        &text,
        Profile::Extension,
        "annotation-default",
        "Make the MCP defaults explicit",
    );
    assert!(
        fixed.contains("      readOnlyHint: true\n      destructiveHint: false\n"),
        "{fixed}"
    );
}

#[test]
fn yaml_1_1_booleans_become_booleans() {
    for (written, value) in [("yes", "true"), ("No", "false"), ("on", "true")] {
        let body = BODY.replace(
            "idempotentHint: true",
            &format!("idempotentHint: {written}"),
        );
        let text = format!("{HEAD}{}hints:\n  mcp:Tool:\n{body}{TAIL}", namespaces());
        for profile in [Profile::Extension, Profile::Cwl2mcp] {
            let fixed = fix(&text, profile, "invalid-type", "Write");
            assert!(
                fixed.contains(&format!("      idempotentHint: {value}\n")),
                "{fixed}"
            );
            assert!(diags(&fixed, profile).is_empty());
        }
    }
}

#[test]
fn no_fix_outside_the_diagnostics_range() {
    let text = format!("{HEAD}hints:\n  mcp:Tool:\n{BODY}{TAIL}");
    let snapshot = Snapshot::parse(&text, 1);
    let at = text.find("baseCommand").unwrap();
    assert!(
        quick_fixes(
            &Model::new(snapshot.clone(), settings(Profile::Extension), context()),
            at..at
        )
        .is_empty()
    );
}

/// A workflow whose step carries the complete hint (`BODY`, re-indented under the step).
fn workflow_with_step_hint(run: &str) -> String {
    let body: String = BODY.lines().map(|l| format!("    {l}\n")).collect();
    format!(
        "cwlVersion: v1.2\nclass: Workflow\nid: wf\nlabel: A workflow\n{}inputs: []\noutputs: []\nsteps:\n  echo:\n    hints:\n      mcp:Tool:\n{body}{run}    in: {{}}\n    out: []\n",
        namespaces()
    )
}

#[test]
fn move_a_step_hint_into_the_inline_process_in_both_profiles_and_with_crlf() {
    let run = "    run:\n      class: CommandLineTool\n      label: Echo\n      doc: Echoes.\n      baseCommand: echo\n      inputs: []\n      outputs: []\n";
    let text = workflow_with_step_hint(run);
    let body: String = BODY.lines().map(|l| format!("      {l}\n")).collect();
    let expected = format!(
        "cwlVersion: v1.2\nclass: Workflow\nid: wf\nlabel: A workflow\n{}inputs: []\noutputs: []\nsteps:\n  echo:\n    run:\n      class: CommandLineTool\n      hints:\n        mcp:Tool:\n{body}      label: Echo\n      doc: Echoes.\n      baseCommand: echo\n      inputs: []\n      outputs: []\n    in: {{}}\n    out: []\n",
        namespaces()
    );
    for profile in [Profile::Extension, Profile::Cwl2mcp] {
        let fixed = fix(
            &text,
            profile,
            "hint-on-step",
            "Move the MCP Tool hint into",
        );
        assert_eq!(fixed, expected);
    }
    let crlf = text.replace('\n', "\r\n");
    let fixed = fix(&crlf, Profile::Extension, "hint-on-step", "Move");
    assert_eq!(fixed, expected.replace('\n', "\r\n"));
}
