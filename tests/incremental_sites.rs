//! The scoped paths give exactly what a full recomputation gives, at every edit site of the
//! benchmark (`bench/run.py`): the annotation value (`true` ↔ `trux`), `useWhen` prose, an
//! input's `doc` and `default`, a word typed letter by letter in that `doc` (every text new),
//! a character typed in an input's name, a word typed in the first input's name and a new
//! input line before it, `baseCommand` (a character, and a word typed letter by
//! letter), a symbol of a `SchemaDefRequirement` type an input uses, a `$namespaces` URI,
//! `]` of `baseCommand` deleted then
//! restored (YAML broken, then valid), a space typed at the start of an input's line then
//! deleted (YAML broken inside `inputs`, then valid), a word typed in that input while it is
//! broken, edits in the hint and in `baseCommand` while that input stays broken, a new
//! input's key typed letter by letter (broken until its colon), an input named
//! without a value, and a line break typed near the top
//! (every later row moves); with the hint near the top and at the end, under both profiles,
//! and in a tool whose inputs are a list (`- id: name`).
//!
//! Each edit goes through `Document::apply_changes` (incremental reparse with the
//! position-independent scanner state, the content-keyed memos of `inputs` and of the schemas),
//! then:
//! - the incremental tree equals a fresh parse of the same text, node by node (kind, field,
//!   byte range, points);
//! - the model of the snapshot equals the model built from scratch from the text with every
//!   content memo off (`memo::unmemoized`: nothing deferred, no memoized schema): the same
//!   diagnostics, the same derived Tools (every entry, and the current Tool or its refusal).
//!
//! Tests, not timings: `benches/floor.rs` and `bench/run.py` measure the cost.
use cwl_mcp_lsp::base::DocumentContext;
use cwl_mcp_lsp::base::settings::{Profile, Settings};
use cwl_mcp_lsp::document::libyaml;
use cwl_mcp_lsp::document::yaml::memo;
use cwl_mcp_lsp::document::{Change, Document, Encoding, Position, Snapshot};
use cwl_mcp_lsp::model::Model;

/// A generated tool in the shape of `bench/gen_cwl.py`: `inputs` well past the 16 KiB of the
/// deferred memo, the `mcp:Tool` hint before `inputs` (`top`) or after `outputs`; the inputs
/// a mapping (`name:`) or, `list`, a list (`- id: name`, as `gen_cwl.py --list-form`).
fn tool(inputs: usize, hint_at_top: bool, list: bool) -> String {
    let mut t = String::from(
        "#!/usr/bin/env cwl-runner\ncwlVersion: v1.2\nclass: CommandLineTool\nid: bigtool_align\n\
         label: BigTool read aligner\ndoc: |\n  Minimum reads variant region.\n  Reference reads.\n\
         $namespaces:\n  mcp: https://eoap.github.io/cwl-mcp-extension#\n  edam: http://edamontology.org/\n  ex: http://example.org/run\n\
         baseCommand: [bigtool, align]\narguments:\n  - prefix: --threads\n    valueFrom: $(runtime.cores)\n",
    );
    let hints = "requirements:\n  InlineJavascriptRequirement: {}\n  NetworkAccess:\n    networkAccess: false\n\
         \x20 SchemaDefRequirement:\n    types:\n      - name: RunMode\n        type: enum\n\
         \x20       symbols: [quick, thorough, \"ex:_fast\"]\n\
         hints:\n  DockerRequirement:\n    dockerPull: quay.io/biocontainers/bigtool:1.2.3\n  mcp:Tool:\n\
         \x20   name: bigtool_align\n    title: Align sequencing reads with BigTool\n\
         \x20   description: Align short reads against a reference genome.\n    useWhen: |\n\
         \x20     The caller has FASTQ or BAM reads and wants sorted alignments.\n    doNotUseWhen: |\n\
         \x20     The reads are long.\n    annotations:\n      title: BigTool aligner\n\
         \x20     readOnlyHint: true\n      destructiveHint: false\n      idempotentHint: true\n\
         \x20     openWorldHint: false\n";
    if hint_at_top {
        t.push_str(hints);
    }
    // An input's first line: its key, or its list item's `id` (the fields below stay at
    // column 4 either way).
    let head = |name: &str| {
        if list {
            format!("  - id: {name}\n")
        } else {
            format!("  {name}:\n")
        }
    };
    t.push_str("inputs:\n");
    t.push_str(&head("run_mode"));
    t.push_str("    type: \"#RunMode\"\n    doc: How thoroughly to align.\n");
    for i in 0..inputs {
        t.push_str(&head(&format!("reads_sample_{i:05}")));
        match i % 4 {
            0 => t.push_str(&format!(
                "    type: File\n    label: Reads {i}.\n    format: edam:format_1930\n    doc: |\n      Window coordinate caller quality {i}.\n      Variant memory adapter open output.\n    inputBinding:\n      position: {i}\n"
            )),
            1 => t.push_str(&format!(
                "    type: int?\n    label: Threshold {i}.\n    doc: |\n      Minimum mapping quality of read {i} to keep.\n    default: {}\n    inputBinding:\n      prefix: --min-q-{i}\n",
                i % 60
            )),
            2 => t.push_str(&format!(
                "    type:\n      type: enum\n      symbols: [fast, slow, exact]\n    doc: Mode {i}.\n    default: fast\n"
            )),
            _ => t.push_str(&format!(
                "    type: string[]?\n    doc: >\n      Extra arguments {i},\n      folded.\n    inputBinding:\n      prefix: --extra-{i}\n"
            )),
        }
    }
    t.push_str("outputs:\n  aligned:\n    type: File\n    outputBinding:\n      glob: out.bam\n");
    if !hint_at_top {
        t.push_str(hints);
    }
    t
}

fn position(text: &str, byte: usize) -> Position {
    let before = &text[..byte];
    let line = before.matches('\n').count();
    let col = byte - before.rfind('\n').map_or(0, |i| i + 1);
    Position::new(line as u32, col as u32) // ASCII: UTF-16 column = byte column
}

/// One edit: bytes `start..end` replaced by `new`.
struct Edit {
    start: usize,
    end: usize,
    new: &'static str,
}

/// The benchmark's edit sites in `text` (its inputs a list: `list`), each a list of edits
/// that brings the text back.
fn sites(text: &str, list: bool) -> Vec<(&'static str, Vec<Edit>)> {
    let at = |needle: &str, offset: usize| {
        text.find(needle)
            .unwrap_or_else(|| panic!("{needle:?} in the generated tool"))
            + offset
    };
    let ins_del = |p: usize, ch: &'static str| {
        vec![
            Edit {
                start: p,
                end: p,
                new: ch,
            },
            Edit {
                start: p,
                end: p + ch.len(),
                new: "",
            },
        ]
    };
    // A word typed one character at a time, then deleted at once: every text is new, so no
    // content memo of the whole `inputs` hits (the entries around the edited one do).
    let typing = |p: usize, word: &'static str| {
        let mut edits: Vec<Edit> = (0..word.len())
            .map(|k| Edit {
                start: p + k,
                end: p + k,
                new: &word[k..k + 1],
            })
            .collect();
        edits.push(Edit {
            start: p,
            end: p + word.len(),
            new: "",
        });
        edits
    };
    let annotation = at("readOnlyHint: true", "readOnlyHint: tru".len());
    let use_when = at("FASTQ or BAM", "FASTQ".len());
    // An input's name ends its first line in a list, before the key's `:` in a mapping.
    let name_end = if list { '\n' } else { ':' };
    let middle = format!("reads_sample_{:05}{name_end}", 101);
    let input = at(&middle, 0);
    let doc = input + text[input..].find("Minimum mapping").unwrap() + "Minimum".len();
    let default = input + text[input..].find("default: ").unwrap() + "default: 41".len();
    let base = at("align]", "align".len());
    let symbol = at("thorough,", "thorough".len());
    let run_ns = at("example.org/run", "example.org/run".len());
    let label_end = at(
        "label: BigTool read aligner",
        "label: BigTool read aligner".len(),
    );
    // The first input: its name (the key, near the top of `inputs`: the edit after which
    // upstream tree-sitter lexed every later input again) and the line before it.
    let first_input = at("\ninputs:\n", "\ninputs:\n".len());
    let first_name_end = first_input + text[first_input..].find(name_end).unwrap();
    vec![
        (
            "annotation",
            vec![
                Edit {
                    start: annotation,
                    end: annotation + 1,
                    new: "x",
                },
                Edit {
                    start: annotation,
                    end: annotation + 1,
                    new: "e",
                },
            ],
        ),
        ("use_when", ins_del(use_when, "x")),
        ("input_doc", ins_del(doc, "x")),
        ("input_typing", typing(doc, "quickly ")),
        ("input_name", ins_del(input + "reads_sample".len(), "x")),
        ("first_input_name_typing", typing(first_name_end, "_raw")),
        (
            "new_first_input",
            ins_del(
                first_input,
                if list {
                    "  - id: added_first\n    type: string\n"
                } else {
                    "  added_first: string\n"
                },
            ),
        ),
        ("input_default", ins_del(default, "7")),
        ("base_command", ins_del(base, "x")),
        // Outside `inputs`, every text new: the inputs' schemas do not depend on it.
        ("base_command_typing", typing(base, "er")),
        // What the inputs' schemas do depend on: a type definition, a namespace.
        ("schema_def", ins_del(symbol, "x")),
        ("namespace", ins_del(run_ns, "x")),
        (
            "yaml_broken_then_restored",
            vec![
                Edit {
                    start: base,
                    end: base + 1,
                    new: "",
                },
                Edit {
                    start: base,
                    end: base,
                    new: "]",
                },
            ],
        ),
        ("line_break_near_the_top", ins_del(label_end, "\n")),
        // A space at the start of the line below the middle input's key: the YAML is broken
        // inside `inputs` (settled around the other inputs), then valid again.
        (
            "yaml_broken_in_inputs",
            ins_del(input + text[input..].find('\n').unwrap() + 1, " "),
        ),
        // The same break, then a word typed in that input's `doc` while it stays broken (every
        // text new: the blanked input is a scalar among the deferred entries), then the break
        // undone.
        ("typing_in_a_broken_input", {
            let line = input + text[input..].find('\n').unwrap() + 1;
            let mut edits = vec![Edit {
                start: line,
                end: line,
                new: " ",
            }];
            edits.extend(typing(doc + 1, "quickly "));
            edits.push(Edit {
                start: line,
                end: line + 1,
                new: "",
            });
            edits
        }),
        // A new input's key typed letter by letter on a line of its own before the middle
        // input (the YAML broken from its first letter to its colon: the line is blanked
        // whole), then the line deleted.
        ("new_input_key_typing", {
            let line = text[..input].rfind('\n').unwrap() + 1;
            let typed = "  added:";
            let mut edits = vec![Edit {
                start: line,
                end: line,
                new: "\n",
            }];
            edits.extend((0..typed.len()).map(|k| Edit {
                start: line + k,
                end: line + k,
                new: &typed[k..k + 1],
            }));
            edits.push(Edit {
                start: line,
                end: line + typed.len() + 1,
                new: "",
            });
            edits
        }),
        // The same break, then edits far from it while it stays broken (the annotation value,
        // `useWhen` prose, `baseCommand`: before or after the break, with the hint near the
        // top or at the end), then the break undone: the text differs from the last
        // error-free one in two places.
        ("editing_elsewhere_while_an_input_is_broken", {
            let line = input + text[input..].find('\n').unwrap() + 1;
            // A position of the original text while the break's space is in.
            let moved = |p: usize| if p >= line { p + 1 } else { p };
            let mut edits = vec![Edit {
                start: line,
                end: line,
                new: " ",
            }];
            for (p, old, new) in [
                (annotation, 1, "x"),
                (annotation, 1, "e"),
                (use_when, 0, "x"),
                (base, 0, "x"),
                // `baseCommand` is above the hint: its `x` is deleted first.
                (base, 1, ""),
                (use_when, 1, ""),
            ] {
                edits.push(Edit {
                    start: moved(p),
                    end: moved(p) + old,
                    new,
                });
            }
            edits.push(Edit {
                start: line,
                end: line + 1,
                new: "",
            });
            edits
        }),
        // An input named, its value not typed yet (a null among the deferred entries).
        (
            "new_input_without_a_value",
            ins_del(
                first_input,
                if list {
                    "  - id: added_first\n"
                } else {
                    "  added_first:\n"
                },
            ),
        ),
    ]
}

/// Every node of a tree: kind, field, byte range and points.
fn nodes(tree: &tree_sitter::Tree) -> Vec<String> {
    let mut out = Vec::new();
    let mut c = tree.walk();
    loop {
        let n = c.node();
        out.push(format!(
            "{} {:?} {:?} {:?}..{:?} {}",
            n.kind(),
            c.field_name(),
            n.byte_range(),
            n.start_position(),
            n.end_position(),
            n.is_missing()
        ));
        if c.goto_first_child() {
            continue;
        }
        loop {
            if c.goto_next_sibling() {
                break;
            }
            if !c.goto_parent() {
                return out;
            }
        }
    }
}

/// What a surface can read of a model: diagnostics, every derived entry, the current Tools.
fn observed(model: &Model) -> (String, Vec<String>, Vec<String>) {
    let entries: Vec<_> = model.entries().collect();
    (
        format!("{:?}", model.diagnostics()),
        entries
            .iter()
            .map(|e| {
                format!(
                    "{} {:?} {} {} {} {:?} {:?} {:?} {:?} {:?} {} {:?} {:?}",
                    e.key,
                    e.id,
                    e.process_index,
                    e.hinted,
                    e.inline,
                    e.anchor,
                    e.span,
                    e.to_derivation(),
                    e.located,
                    e.blocked_by,
                    e.size(),
                    e.schema_ids(),
                    e.client_constructs()
                )
            })
            .collect(),
        entries
            .iter()
            .map(|e| format!("{:?}", model.current_tool(e)))
            .collect(),
    )
}

/// Equal, or a panic showing where the two first differ.
fn same(got: &str, want: &str, what: &str) {
    if got == want {
        return;
    }
    let i = got
        .bytes()
        .zip(want.bytes())
        .position(|(a, b)| a != b)
        .unwrap_or(got.len().min(want.len()));
    let around = |s: &str| {
        let (mut a, mut b) = (i.saturating_sub(300), (i + 300).min(s.len()));
        while !s.is_char_boundary(a) {
            a -= 1;
        }
        while !s.is_char_boundary(b) {
            b += 1;
        }
        s[a..b].to_string()
    };
    panic!(
        "{what}: the incremental path differs from a full recomputation at byte {i}\n  \
         incremental: …{}…\n  from scratch: …{}…",
        around(got),
        around(want)
    );
}

fn check_sites(hint_at_top: bool, list: bool, profile: Profile) {
    let original = tool(220, hint_at_top, list);
    assert!(
        original.len() > 32_000,
        "inputs large enough to be deferred"
    );
    let settings = Settings {
        profile,
        ..Settings::default()
    };
    let context = DocumentContext::from_uri("file:///w/bigtool.cwl");
    let mut doc = Document::new(original.clone(), 1);
    let mut text = original.clone();
    let mut version = 1;
    // Build the first model as the server does, so the memos hold the unedited document.
    let _ = Model::new(doc.snapshot(), settings.clone(), context.clone());
    for (site, edits) in sites(&original, list) {
        for round in 0..2 {
            for (k, e) in edits.iter().enumerate() {
                let change = Change {
                    range: Some((position(&text, e.start), position(&text, e.end))),
                    text: e.new.to_string(),
                };
                text.replace_range(e.start..e.end, e.new);
                version += 1;
                doc.apply_changes(&[change], version, Encoding::Utf16)
                    .unwrap();
                let what = format!(
                    "site {site}, round {round}, edit {k}, hint at top: {hint_at_top}, \
                     inputs a list: {list}, {profile:?}"
                );
                assert_eq!(doc.text(), text, "{what}");
                let fresh = Snapshot::parse(&text, version);
                assert!(
                    nodes(doc.tree()) == nodes(&fresh.tree),
                    "incremental tree differs from a fresh parse: {what}"
                );
                let incremental = Model::new(doc.snapshot(), settings.clone(), context.clone());
                let got = observed(&incremental);
                let want = memo::unmemoized(|| {
                    observed(&Model::of_text(&text, settings.clone(), context.clone()))
                });
                same(&got.0, &want.0, &format!("diagnostics: {what}"));
                same(
                    &got.1.join("\n"),
                    &want.1.join("\n"),
                    &format!("entries: {what}"),
                );
                same(
                    &got.2.join("\n"),
                    &want.2.join("\n"),
                    &format!("Tools: {what}"),
                );
                if site == "schema_def" && profile == Profile::Extension {
                    // The definition is rendered into the input's schema: the site tests the
                    // memo's key (the cwl2mcp profile refuses this hint: no `aliases`).
                    let symbol = if k == 0 {
                        "\"thoroughx\""
                    } else {
                        "\"thorough\""
                    };
                    assert!(got.2.join("\n").contains(symbol), "{what}");
                }
                if site == "namespace" && profile == Profile::Extension {
                    // The namespace expands a symbol (`ex:_fast` → `run_fast`).
                    let symbol = if k == 0 {
                        "\"runx_fast\""
                    } else {
                        "\"run_fast\""
                    };
                    assert!(got.2.join("\n").contains(symbol), "{what}");
                }
                if site == "yaml_broken_in_inputs" && k == 0 {
                    // The other inputs keep their entries memoized before the break (the
                    // tree is settled: the section reads as in a valid text, not built again).
                    let salvaged = incremental.yaml().deferred.len();
                    assert!(salvaged >= 100, "{what}: {salvaged} values salvaged");
                }
                let broken = match site {
                    "typing_in_a_broken_input" | "editing_elsewhere_while_an_input_is_broken" => {
                        k + 1 < edits.len()
                    }
                    "new_input_key_typing" => libyaml::verdict(&text).is_err(),
                    _ => site.starts_with("yaml") && k == 0,
                };
                if site == "new_input_key_typing" && (3..edits.len() - 2).contains(&k) {
                    // From its first letter to its colon the key's line breaks the YAML, and
                    // it is settled around (blanked whole), not parsed again from scratch.
                    assert!(broken, "{what}");
                    assert!(doc.snapshot().settled.is_some(), "{what}");
                }
                if broken {
                    assert!(incremental.syntax_broken(), "{what}: the YAML is broken");
                } else {
                    assert!(!incremental.syntax_broken(), "{what}: {:?}", got.0);
                }
            }
        }
        assert_eq!(text, original, "site {site} brings the text back");
    }
}

#[test]
fn every_site_with_the_hint_near_the_top_equals_a_full_recomputation() {
    check_sites(true, false, Profile::Extension);
    check_sites(true, false, Profile::Cwl2mcp);
}

#[test]
fn every_site_with_the_hint_at_the_end_equals_a_full_recomputation() {
    check_sites(false, false, Profile::Extension);
    check_sites(false, false, Profile::Cwl2mcp);
}

/// The same sites in a tool whose inputs are a list (`- id: name`): its sections are built
/// item by item, and tree-sitter rebuilds a list's items where it reuses a mapping's pairs.
#[test]
fn every_site_with_the_inputs_a_list_equals_a_full_recomputation() {
    check_sites(true, true, Profile::Extension);
    check_sites(false, true, Profile::Cwl2mcp);
}

/// An `$import` in a document with a large `inputs` (its target read from the whole document,
/// here an enum named in one of the inputs), in an input or outside `inputs`, makes the
/// derivation take the whole document's JSON: the model equals the one built with every memo
/// off, the memos warm as in the server. (Before, an `$import` outside `inputs` was resolved
/// in the header alone, without `inputs`, and reported unresolved.)
#[test]
fn a_directive_anywhere_takes_the_whole_document_path() {
    let original = tool(220, true, false);
    let settings = Settings::default();
    let context = DocumentContext::from_uri("file:///w/bigtool.cwl");
    let _ = Model::of_text(&original, settings.clone(), context.clone());
    let enum_type = "    type:\n      type: enum\n      symbols: [fast, slow, exact]\n";
    let importing = |i: usize| format!("{enum_type}    doc: Mode {i}.\n");
    let named = "    type:\n      type: enum\n      name: Mode\n      symbols: [fast, slow, exact]\n    doc: Mode 106.\n";
    let named = original.replacen(&importing(106), named, 1);
    // The directive in an input, then outside `inputs` (a type definition importing it).
    let in_inputs = named.replacen(
        &importing(102),
        "    type: {$import: \"#Mode\"}\n    doc: Mode 102.\n",
        1,
    );
    let outside = named.replacen(
        "    types:\n",
        "    types:\n      - $import: \"#Mode\"\n",
        1,
    );
    for (what, text) in [("in inputs", in_inputs), ("outside inputs", outside)] {
        assert!(text.contains("\"#Mode\""), "{what}");
        let got = observed(&Model::of_text(&text, settings.clone(), context.clone()));
        let want = memo::unmemoized(|| {
            observed(&Model::of_text(&text, settings.clone(), context.clone()))
        });
        same(&got.0, &want.0, &format!("diagnostics, {what}"));
        same(
            &got.1.join("\n"),
            &want.1.join("\n"),
            &format!("entries, {what}"),
        );
        // The import resolved: the enum is found in the whole document.
        assert!(!got.0.contains("no node with that id"), "{what}: {}", got.0);
    }
}
