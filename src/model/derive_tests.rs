//! Unit tests of the derivation engine: the rules of SPEC §4 one by one, and robustness. They
//! run through the model, as every surface does: the hint's values come from the hint rules.
use serde_json::{Map, Value, json};

use crate::base::settings::{Profile, ProtocolVersion, Settings};
use crate::base::{Code, DocumentContext};
use crate::cwl::EXTENSION_NS;
use crate::derive::*;
use crate::model::Model;

fn namespaces() -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("mcp".into(), json!(EXTENSION_NS));
    m.insert("edam".into(), json!("http://edamontology.org/"));
    m
}

/// Derives the process written as JSON (its hint at `hints.mcp:Tool`, map form), as a
/// document of its own with the test namespaces. The hint's own blocking diagnostics are
/// listed among the problems (as blocking ones), so that refusals read the same as before.
fn model_of(process: &Value, opts: &DeriveOptions) -> Model {
    let key = process
        .get("id")
        .and_then(Value::as_str)
        .map(|s| s.rsplit('#').next().unwrap_or(s).to_string())
        .unwrap_or_else(|| "file:///tmp/x.cwl".to_string());
    let mut doc = process.clone();
    if let Some(m) = doc.as_object_mut()
        && !m.contains_key("$namespaces")
    {
        m.insert("$namespaces".into(), Value::Object(namespaces()));
    }
    let settings = Settings {
        profile: opts.profile,
        meta_prefix: Some(opts.meta_prefix.clone()),
        protocol_version: opts.protocol_version,
        ..Settings::default()
    };
    let context = DocumentContext {
        file_stem: "my-file".into(),
        uri: key.clone(),
        path: None,
        sandbox_root: None,
    };
    Model::of_text(&serde_json::to_string(&doc).unwrap(), settings, context)
}

fn derive_with(process: &Value, opts: &DeriveOptions) -> Derivation {
    let model = model_of(process, opts);
    let key = model.context.uri.clone();
    if model.view().processes.is_empty() {
        // Not a process the view recognises: the engine alone, without a hint.
        let ns = namespaces();
        let input = ProcessInput {
            process,
            key: &key,
            namespaces: &ns,
            document_path: None,
            sandbox_root: None,
            file_stem: "my-file",
            hint: None,
            document: None,
        };
        return derive_tool(&input, opts);
    }
    let entry = model.entry(0);
    let mut d = entry.to_derivation();
    d.problems.extend(entry.blocked_by.iter().map(|b| Problem {
        code: b.code,
        message: b.message.clone(),
        path: Vec::new(),
        blocking: true,
    }));
    d
}

fn ext(process: &Value) -> Derivation {
    derive_with(process, &DeriveOptions::for_profile(Profile::Extension))
}

fn c2m(process: &Value) -> Derivation {
    derive_with(process, &DeriveOptions::for_profile(Profile::Cwl2mcp))
}

fn exported(d: &Derivation) -> &Value {
    d.exported()
        .unwrap_or_else(|| panic!("refused: {:?}", d.problems))
}

fn full_hint() -> Value {
    json!({
        "name": "tool_x",
        "aliases": ["a", "b"],
        "useWhen": "U.",
        "doNotUseWhen": "D.",
        "annotations": {
            "readOnlyHint": true, "destructiveHint": false,
            "idempotentHint": true, "openWorldHint": false
        }
    })
}

// ---- extension profile ----

#[test]
fn normalize_name_follows_the_extension_rule() {
    assert_eq!(normalize_name("echo-region"), "echo_region");
    assert_eq!(normalize_name("file:///a/b.cwl#main"), "main");
    assert_eq!(normalize_name("#main/step.one"), "step_one");
    assert_eq!(normalize_name("a b:c"), "a_b_c");
    assert_eq!(normalize_name("é"), "_");
}

#[test]
fn extension_names_titles_and_description() {
    let p = json!({"class": "CommandLineTool", "id": "echo-region", "inputs": {}, "outputs": {}});
    let t = exported(&ext(&p)).clone();
    assert_eq!(t["name"], "echo_region");
    assert_eq!(t["title"], "echo_region");
    assert!(t.get("description").is_none());
    assert!(t.get("annotations").is_none());
    assert!(t.get("_meta").is_none());
    assert!(t.get("outputSchema").is_none());
    assert_eq!(
        t["inputSchema"],
        json!({"type": "object", "additionalProperties": false})
    );

    // No id: the file name, normalized.
    let p = json!({"class": "CommandLineTool", "inputs": [], "outputs": []});
    assert_eq!(exported(&ext(&p))["name"], "my_file");

    // Label, list doc, guidance; the hint's explicit values win.
    let p = json!({
        "class": "Workflow", "id": "#main", "label": "Label",
        "doc": ["First.  ", "Second.\n"],
        "hints": {"mcp:Tool": {"useWhen": "asked ", "doNotUseWhen": "", "name": ""}},
        "inputs": {}, "outputs": {}
    });
    let t = exported(&ext(&p)).clone();
    assert_eq!(t["name"], "main");
    assert_eq!(t["title"], "Label");
    assert_eq!(t["description"], "First.\n\nSecond.\n\nUse when: asked");

    let p = json!({
        "class": "Workflow", "id": "main", "label": "Label", "doc": "Doc.",
        "hints": {"mcp:Tool": {"name": "n", "title": "T", "description": "D", "aliases": ["x"],
                               "annotations": {"class": "mcp:ToolAnnotations", "title": "AT", "readOnlyHint": false}}},
        "inputs": {}, "outputs": {}
    });
    let t = exported(&ext(&p)).clone();
    assert_eq!(t["name"], "n");
    assert_eq!(t["title"], "T");
    assert_eq!(t["description"], "D");
    assert_eq!(
        t["annotations"],
        json!({"title": "AT", "readOnlyHint": false})
    );
    assert_eq!(
        t["_meta"],
        json!({"io.github.eoap/cwl-mcp-extension-aliases": ["x"]})
    );
}

#[test]
fn extension_input_schema_types() {
    let p = json!({
        "class": "CommandLineTool", "id": "t",
        "inputs": {
            "s": {"type": "string", "label": "S", "doc": "an s"},
            "i": "int", "l": "long?", "f": "float", "d": {"type": "double", "default": 0.5},
            "b": {"type": "boolean", "default": false},
            "file": "File", "dir": "Directory[]",
            "e": {"type": {"type": "enum", "symbols": ["edam:format_1930", "a/b", "plain"]}},
            "u": ["int", "string"],
            "any": "Any",
            "r": {"type": {"type": "record", "fields": {"x": "int", "y": "string?"}}},
        },
        "outputs": {"out": "stdout", "o2": "File?"}
    });
    let t = exported(&ext(&p)).clone();
    let s = &t["inputSchema"];
    assert_eq!(
        s["properties"]["s"],
        json!({"type": "string", "title": "S", "description": "an s"})
    );
    assert_eq!(s["properties"]["i"], json!({"type": "integer"}));
    assert_eq!(s["properties"]["l"], json!({"type": "integer"}));
    assert_eq!(s["properties"]["f"], json!({"type": "number"}));
    assert_eq!(
        s["properties"]["d"],
        json!({"type": "number", "default": 0.5})
    );
    assert_eq!(
        s["properties"]["b"],
        json!({"type": "boolean", "default": false})
    );
    assert_eq!(
        s["properties"]["file"],
        json!({"type": "string", "format": "uri"})
    );
    assert_eq!(
        s["properties"]["dir"],
        json!({"type": "array", "items": {"type": "string", "format": "uri"}})
    );
    assert_eq!(
        s["properties"]["e"],
        json!({"type": "string", "enum": ["format_1930", "b", "plain"]})
    );
    assert_eq!(
        s["properties"]["u"],
        json!({"anyOf": [{"type": "integer"}, {"type": "string"}]})
    );
    assert_eq!(s["properties"]["any"], json!({}));
    assert_eq!(
        s["properties"]["r"],
        json!({"type": "object", "properties": {"x": {"type": "integer"}, "y": {"type": "string"}},
               "required": ["x"], "additionalProperties": false})
    );
    // Neither optional (`l`) nor defaulted (`d`, `b`).
    assert_eq!(
        s["required"],
        json!(["s", "i", "f", "file", "dir", "e", "u", "any", "r"])
    );
    assert_eq!(
        t["outputSchema"],
        json!({"type": "object", "properties": {
            "out": {"type": "string", "format": "uri"},
            "o2": {"type": "string", "format": "uri"}},
            "required": ["out"], "additionalProperties": false})
    );
}

#[test]
fn extension_file_defaults_become_their_location() {
    let p = json!({"class": "CommandLineTool", "id": "t", "outputs": {}, "inputs": {
        "f": {"type": "File", "default": {"class": "File", "location": "data/a.txt"}},
        "fs": {"type": "File[]", "default": [{"class": "File", "path": "b.txt"}]},
        "r": {"type": "Any", "default": {"class": "Other", "location": "x"}}
    }});
    let d = ext(&p);
    let s = &exported(&d)["inputSchema"]["properties"];
    assert_eq!(s["f"]["default"], "data/a.txt");
    assert_eq!(s["fs"]["default"], json!(["b.txt"]));
    assert_eq!(
        s["r"]["default"],
        json!({"class": "Other", "location": "x"})
    );
}

#[test]
fn extension_named_types_and_string_formats() {
    let p = json!({
        "class": "CommandLineTool", "id": "t",
        "requirements": [{"class": "SchemaDefRequirement", "types": [
            {"$import": "https://raw.githubusercontent.com/eoap/schemas/main/string_format.yaml"},
            {"$import": "https://raw.githubusercontent.com/eoap/schemas/main/geojson.yaml"},
            {"name": "Mode", "type": "enum", "symbols": ["fast", "slow"]}
        ]}],
        "inputs": {
            "when": "https://raw.githubusercontent.com/eoap/schemas/main/string_format.yaml#DateTime?",
            "pat": "https://raw.githubusercontent.com/eoap/schemas/main/string_format.yaml#Pattern",
            "pt": "https://raw.githubusercontent.com/eoap/schemas/main/geojson.yaml#Point",
            "mode": "Mode",
            "missing": "Nowhere"
        },
        "outputs": {}
    });
    let d = ext(&p);
    let s = &exported(&d)["inputSchema"];
    assert_eq!(
        s["properties"]["when"],
        json!({"type": "string", "format": "date-time"})
    );
    // `Pattern` has no format: it stays a (closed) record.
    assert_eq!(s["properties"]["pat"]["type"], "object");
    assert_eq!(s["properties"]["pat"]["additionalProperties"], false);
    let pt = &s["properties"]["pt"];
    assert_eq!(
        pt["properties"]["type"],
        json!({"type": "string", "enum": ["Point"]})
    );
    assert_eq!(pt["required"], json!(["type", "coordinates", "bbox"]));
    assert_eq!(
        s["properties"]["mode"],
        json!({"type": "string", "enum": ["fast", "slow"]})
    );
    assert_eq!(s["properties"]["missing"], json!({}));
    assert!(
        d.problems
            .iter()
            .any(|p| p.code == Code::UnresolvedReference && !p.blocking)
    );
    assert_eq!(s["required"], json!(["pat", "pt", "mode", "missing"]));
}

#[test]
fn extension_refuses_only_what_breaks_the_tool() {
    // Unknown field and a wrong annotations class: reported, Tool still exported.
    let p = json!({"class": "CommandLineTool", "id": "t", "inputs": {}, "outputs": {},
        "hints": {"mcp:Tool": {"foo": 1, "annotations": {"class": "Other"}}}});
    let d = ext(&p);
    assert!(d.exported().is_some());
    // The derivation has no problem of its own: the hint rules report both, once.
    assert!(d.problems.is_empty(), "{:?}", d.problems);
    let m = model_of(&p, &DeriveOptions::for_profile(Profile::Extension));
    let codes_found: Vec<Code> = m.diagnostics().iter().map(|d| d.code).collect();
    assert!(codes_found.contains(&Code::UnknownField), "{codes_found:?}");
    assert!(
        codes_found.contains(&Code::AnnotationsClass),
        "{codes_found:?}"
    );

    // A wrong value type refuses it, with a path to the value.
    let p = json!({"class": "CommandLineTool", "id": "t", "inputs": {}, "outputs": {},
        "hints": {"mcp:Tool": {"annotations": {"readOnlyHint": "yes"}}}});
    let d = ext(&p);
    assert!(d.exported().is_none());
    assert_eq!(d.problems[0].code, Code::InvalidType);
    // The refusal is the hint rule's diagnostic, on the value.
    let m = model_of(&p, &DeriveOptions::for_profile(Profile::Extension));
    let wrong = m
        .diagnostics()
        .iter()
        .find(|d| d.code == Code::InvalidType)
        .unwrap();
    assert_eq!(&m.text()[wrong.span.clone()], "\"yes\"");

    // An invalid explicit name refuses it, pointing at the name.
    let p = json!({"class": "CommandLineTool", "id": "t", "inputs": {}, "outputs": {},
        "hints": {"mcp:Tool": {"name": "has space"}}});
    let d = ext(&p);
    assert!(d.exported().is_none());
    let p0 = &d.problems[0];
    assert_eq!(p0.code, Code::NameInvalid);
    assert_eq!(p0.path.last(), Some(&PathSeg::Key("name".into())));
}

#[test]
fn an_empty_hint_is_an_empty_mapping() {
    let p = json!({"class": "CommandLineTool", "id": "t", "inputs": {}, "outputs": {},
        "hints": {"mcp:Tool": null}});
    let d = ext(&p);
    assert!(d.problems.is_empty(), "{:?}", d.problems);
    assert_eq!(exported(&d)["name"], "t");
    let d = c2m(&p);
    assert!(d.exported().is_none());
    let missing = d
        .problems
        .iter()
        .filter(|p| p.code == Code::MissingField)
        .count();
    assert_eq!(missing, 5, "{:?}", d.problems);
}

// ---- cwl2mcp profile ----

#[test]
fn cwl2mcp_tool_fields() {
    let mut hint = full_hint();
    hint["title"] = json!("");
    let p = json!({"class": "CommandLineTool", "id": "echo-region", "label": "L", "doc": "D\n",
        "hints": {"mcp:Tool": hint}, "inputs": {}, "outputs": {}});
    let t = exported(&c2m(&p)).clone();
    assert_eq!(t["name"], "tool_x");
    assert_eq!(t["title"], "L");
    assert_eq!(t["description"], "D\n");
    assert_eq!(
        t["annotations"],
        json!({"readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false})
    );
    assert_eq!(
        t["_meta"],
        json!({
            "io.github.transpiler-mate/cwl2mcp-aliases": ["a", "b"],
            "io.github.transpiler-mate/cwl2mcp-use-when": "U.",
            "io.github.transpiler-mate/cwl2mcp-do-not-use-when": "D."
        })
    );
    // No hint: raw id, `_meta: {}`, no annotations, no title without a label.
    let p = json!({"class": "CommandLineTool", "id": "echo-region", "inputs": {}, "outputs": {}});
    let t = exported(&c2m(&p)).clone();
    assert_eq!(t["name"], "echo-region");
    assert_eq!(t["_meta"], json!({}));
    assert!(t.get("title").is_none() && t.get("annotations").is_none());
    assert_eq!(t["outputSchema"]["required"], json!([]));
    assert_eq!(t["outputSchema"]["$defs"], json!({}));
}

#[test]
fn cwl2mcp_parameter_schemas() {
    let p = json!({
        "class": "CommandLineTool", "id": "t",
        "inputs": [
            {"id": "i", "type": "int?", "default": 0},
            {"id": "l", "type": "long", "default": 1234567890123_i64},
            {"id": "s", "type": ["null", "string"], "default": "x"},
            {"id": "one", "type": ["string[]"]},
            {"id": "many", "type": ["File[]", "File"]},
            {"id": "e", "type": {"type": "enum", "symbols": ["edam:format_1930", "x:y", "http://ex.org/p/q#frag", "has space", "a#b"]}},
            {"id": "items_union", "type": {"type": "array", "items": ["int", "string"]}},
            {"id": "nothing", "type": ["null"]},
            {"id": "any", "type": "Any?"},
            {"id": "rec", "type": {"type": "record", "name": "R", "fields": [
                {"name": "a", "type": "boolean"}, {"name": "b", "type": "double?"}]},
             "default": {"a": true, "b": 0}},
            {"id": "d", "type": "Directory", "label": "ignored", "doc": "ignored"}
        ],
        "outputs": [{"id": "err", "type": "stderr"}, {"id": "out", "type": "stdout"}]
    });
    let t = exported(&c2m(&p)).clone();
    let defs = &t["inputSchema"]["$defs"];
    assert_eq!(
        defs["i"],
        json!({"nullable": true, "type": "integer", "format": "int32"})
    );
    assert_eq!(
        defs["l"],
        json!({"type": "integer", "format": "int64", "default": 1234567890123_i64})
    );
    assert_eq!(
        defs["s"],
        json!({"nullable": true, "type": "string", "default": "x"})
    );
    assert_eq!(
        defs["one"],
        json!({"nullable": false, "type": "array", "items": {"type": "string"}})
    );
    assert_eq!(defs["many"]["nullable"], false);
    assert_eq!(defs["many"]["anyOf"].as_array().map(Vec::len), Some(2));
    assert_eq!(
        defs["e"]["enum"],
        json!(["format_1930", "y", "q#frag", "has space", "a#b"])
    );
    assert_eq!(defs["items_union"], json!({"type": "array", "items": {}}));
    assert_eq!(defs["nothing"], json!({"nullable": true, "anyOf": []}));
    assert_eq!(defs["any"], json!({"nullable": true}));
    assert_eq!(
        defs["rec"],
        json!({"type": "object", "properties": {
            "a": {"type": "boolean"},
            "b": {"nullable": true, "type": "number", "format": "double"}},
            "required": ["a"], "default": {"a": true, "b": 0}})
    );
    assert_eq!(defs["d"]["oneOf"].as_array().map(Vec::len), Some(4));
    assert_eq!(
        t["inputSchema"]["required"],
        json!(["l", "one", "many", "e", "items_union", "rec", "d"])
    );
    assert_eq!(
        t["inputSchema"]["properties"]["i"],
        json!({"$ref": "#/$defs/i"})
    );
    assert_eq!(
        t["outputSchema"]["$defs"],
        json!({"err": {}, "out": {"type": "string"}})
    );
    assert_eq!(t["outputSchema"]["required"], json!(["err", "out"]));
}

#[test]
fn cwl2mcp_string_format_only_by_the_exact_url() {
    let url = "https://raw.githubusercontent.com/eoap/schemas/main/string_format.yaml";
    let p = json!({
        "class": "CommandLineTool", "id": "t",
        "requirements": {"SchemaDefRequirement": {"types": [{"$import": url}]}},
        "hints": [{"class": "SchemaDefRequirement", "types": [{"name": "H", "type": "enum", "symbols": ["h"]}]}],
        "inputs": {
            "when": {"type": format!("{url}#DateTime?"), "default": {"value": "2020-01-01T00:00:00Z"}},
            "pat": format!("{url}#Pattern"),
            "list": {"type": {"type": "array", "items": format!("{url}#URI")}},
            "from_hints": "H"
        },
        "outputs": {}
    });
    let t = exported(&c2m(&p)).clone();
    let defs = &t["inputSchema"]["$defs"];
    assert_eq!(
        defs["when"],
        json!({"nullable": true, "type": "string", "format": "date-time", "default": "2020-01-01T00:00:00Z"})
    );
    assert_eq!(defs["pat"], json!({"type": "string", "format": null}));
    assert_eq!(
        defs["list"],
        json!({"type": "array", "items": {"type": "string", "format": "uri"}})
    );
    // Only `requirements` is consulted.
    assert_eq!(defs["from_hints"], json!({}));
}

#[test]
fn cwl2mcp_refusals() {
    let base = |hint: Value| json!({"class": "CommandLineTool", "id": "t", "inputs": {}, "outputs": {}, "hints": {"mcp:Tool": hint}});
    let mut h = full_hint();
    h["description"] = json!("x");
    assert!(c2m(&base(h)).exported().is_none());
    let mut h = full_hint();
    h["annotations"]["title"] = json!("x");
    assert!(c2m(&base(h)).exported().is_none());
    let mut h = full_hint();
    h["annotations"]["class"] = json!("mcp:Annotations");
    h["s:keywords"] = json!(["k"]);
    assert!(c2m(&base(h)).exported().is_some());
    let mut h = full_hint();
    h["annotations"]["openWorldHint"] = Value::Null;
    let d = c2m(&base(h));
    assert!(
        d.problems
            .iter()
            .any(|p| p.code == Code::InvalidType && p.blocking)
    );
    let mut h = full_hint();
    h["annotations"]
        .as_object_mut()
        .unwrap()
        .remove("openWorldHint");
    let d = c2m(&base(h));
    assert!(
        d.problems
            .iter()
            .any(|p| p.code == Code::MissingField && p.blocking)
    );
    let mut h = full_hint();
    h["name"] = json!("");
    assert_eq!(exported(&c2m(&base(h)))["name"], "t");

    // A list doc, a URI id.
    let p = json!({"class": "CommandLineTool", "id": "t", "doc": ["a", "b"], "inputs": {}, "outputs": {}});
    assert!(
        c2m(&p)
            .problems
            .iter()
            .any(|p| p.code == Code::DocNotString && p.blocking)
    );
    assert!(ext(&p).problems.is_empty());
    let p = json!({"class": "CommandLineTool", "inputs": {}, "outputs": {}});
    let d = c2m(&p);
    assert!(d.exported().is_none());
    assert_eq!(d.problems[0].code, Code::NameInvalid);
    assert_eq!(d.problems[0].path, Vec::<PathSeg>::new());
}

#[test]
fn cwl2mcp_property_keys_without_id_keep_the_file_name() {
    let p = json!({"class": "CommandLineTool", "inputs": {"a": "string"}, "outputs": {}});
    let d = c2m(&p);
    let t = d.tool.as_ref().unwrap();
    assert!(
        t["inputSchema"]["properties"]
            .get("my-file.cwl#a")
            .is_some()
    );
}

// ---- robustness ----

#[test]
fn malformed_values_never_panic() {
    let weird = [
        json!(null),
        json!(1),
        json!("x"),
        json!([1, [2, [3]]]),
        json!({"type": {"type": {"type": "record"}}}),
        json!({"type": "record", "fields": 3}),
        json!({"type": "array"}),
        json!({"type": "enum", "symbols": [null, 1, true, {"a": 1}]}),
        json!({"$import": 5}),
        json!({"$import": "/etc/passwd"}),
        json!({"$import": "https://example.org/x.yaml#Y"}),
        json!(["null", ["null", ["int"]]]),
        json!("?"),
        json!("[]"),
        json!("record"),
    ];
    for w in weird {
        for section in [
            json!({"x": w.clone()}),
            json!([{"id": "x", "type": w.clone()}]),
            w.clone(),
        ] {
            let p = json!({"class": "CommandLineTool", "id": "t", "inputs": section.clone(), "outputs": section,
                "requirements": {"SchemaDefRequirement": {"types": [w.clone(), {"name": "T", "type": "record", "fields": {"f": w.clone()}}]}},
                "hints": {"mcp:Tool": w.clone()}, "doc": w.clone(), "label": w.clone()});
            let _ = ext(&p);
            let _ = c2m(&p);
        }
    }
    for p in [json!(null), json!([]), json!("x")] {
        assert!(ext(&p).tool.is_none());
        assert!(c2m(&p).tool.is_none());
    }
}

#[test]
fn deep_nesting_is_bounded() {
    let mut ty = json!("string");
    for _ in 0..1000 {
        ty = json!({"type": "array", "items": ty});
    }
    let p = json!({"class": "CommandLineTool", "id": "t", "inputs": {"x": ty}, "outputs": {}});
    // The engine alone: a YAML text this deep never reaches it (the value tree is bounded
    // first), and serializing it for a model would exhaust a test thread's stack.
    for profile in [Profile::Extension, Profile::Cwl2mcp] {
        let ns = namespaces();
        let input = ProcessInput {
            process: &p,
            key: "t",
            namespaces: &ns,
            document_path: None,
            sandbox_root: None,
            file_stem: "my-file",
            hint: None,
            document: None,
        };
        let d = derive_tool(&input, &DeriveOptions::for_profile(profile));
        assert!(d.tool.is_none());
        assert_eq!(d.problems[0].code, Code::TypeTooComplex);
    }
}

#[test]
fn exponential_named_types_are_bounded() {
    // T0 has two fields of T1, T1 two of T2, ...: 2^40 nodes when expanded inline.
    let mut types = Vec::new();
    for i in 0..40 {
        types.push(json!({"name": format!("T{i}"), "type": "record",
            "fields": [{"name": "a", "type": format!("T{}", i + 1)}, {"name": "b", "type": format!("T{}", i + 1)}]}));
    }
    types.push(json!({"name": "T40", "type": "record", "fields": [{"name": "z", "type": "int"}]}));
    let p = json!({"class": "CommandLineTool", "id": "t", "inputs": {"x": "t/T0"}, "outputs": {},
        "requirements": {"SchemaDefRequirement": {"types": types}}});
    for d in [ext(&p), c2m(&p)] {
        assert!(d.tool.is_none());
        assert_eq!(d.problems[0].code, Code::TypeTooComplex);
    }
}

#[test]
fn mutual_recursion() {
    let p = json!({"class": "CommandLineTool", "id": "t", "inputs": {"x": "t/A?"}, "outputs": {},
    "requirements": {"SchemaDefRequirement": {"types": [
        {"name": "A", "type": "record", "fields": {"b": "B?"}},
        {"name": "B", "type": "record", "fields": {"a": {"type": {"type": "array", "items": "A"}}}}
    ]}}});
    let d = c2m(&p);
    assert!(d.tool.is_none(), "{}", d.tool.as_ref().unwrap());
    assert_eq!(d.problems[0].code, Code::RecursiveType);
    let d = ext(&p);
    let s = &exported(&d)["inputSchema"];
    assert_eq!(s["properties"]["x"], json!({"$ref": "#/$defs/A"}));
    // Only the definitions needed to break the cycle go to `$defs`; B is inlined in A.
    assert_eq!(s["$defs"].as_object().map(Map::len), Some(1));
    let b = &s["$defs"]["A"]["properties"]["b"];
    assert_eq!(b["properties"]["a"]["items"], json!({"$ref": "#/$defs/A"}));
    assert_eq!(b["additionalProperties"], false);
    assert!(s.get("required").is_none());
}

#[test]
fn every_profile_and_version_validates() {
    let p = json!({"class": "CommandLineTool", "id": "t", "inputs": {"a": "File"}, "outputs": {"o": "string"},
        "hints": {"mcp:Tool": full_hint()}});
    for profile in [Profile::Extension, Profile::Cwl2mcp] {
        for version in ProtocolVersion::ALL {
            let opts = DeriveOptions {
                protocol_version: version,
                ..DeriveOptions::for_profile(profile)
            };
            let d = derive_with(&p, &opts);
            assert!(
                d.problems.is_empty(),
                "{profile:?} {version:?}: {:?}",
                d.problems
            );
        }
    }
}

#[test]
fn repeated_parameter_ids_are_listed_once() {
    let p = json!({"class": "CommandLineTool", "id": "t", "outputs": [],
        "inputs": [{"id": "a", "type": "int"}, {"id": "b", "type": "int"}, {"id": "a", "type": "string?"}]});
    let t = exported(&c2m(&p)).clone();
    assert_eq!(t["inputSchema"]["required"], json!(["b"]));
    assert_eq!(
        t["inputSchema"]["$defs"]["a"],
        json!({"nullable": true, "type": "string"})
    );
    let keys: Vec<&String> = t["inputSchema"]["properties"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(keys, ["a", "b"]);
}

/// A small deterministic generator of arbitrary JSON, biased towards CWL words.
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn pick<'a>(&mut self, words: &[&'a str]) -> &'a str {
        words[(self.next() % words.len() as u64) as usize]
    }

    fn value(&mut self, depth: usize) -> Value {
        const WORDS: &[&str] = &[
            "type",
            "items",
            "fields",
            "symbols",
            "name",
            "record",
            "enum",
            "array",
            "null",
            "string",
            "int?",
            "File[]",
            "Any",
            "stderr",
            "T",
            "T?",
            "#T",
            "x:y",
            "$import",
            "default",
            "label",
            "doc",
            "class",
            "SchemaDefRequirement",
            "types",
            "id",
            "",
            "mcp:Tool",
            "annotations",
            "readOnlyHint",
            "name",
            "aliases",
            "requirements",
            "hints",
        ];
        match self.next() % if depth > 5 { 4 } else { 7 } {
            0 => Value::Null,
            1 => json!(self.next().is_multiple_of(3)),
            2 => json!(self.next() % 100),
            3 => json!(self.pick(WORDS)),
            4 | 5 => {
                let mut m = Map::new();
                for _ in 0..self.next() % 5 {
                    let k = self.pick(WORDS).to_string();
                    m.insert(k, self.value(depth + 1));
                }
                Value::Object(m)
            }
            _ => Value::Array(
                (0..self.next() % 4)
                    .map(|_| self.value(depth + 1))
                    .collect(),
            ),
        }
    }
}

#[test]
fn arbitrary_processes_never_panic() {
    let mut g = Gen(0x9e37_79b9_7f4a_7c15);
    for _ in 0..3000 {
        let mut p = match g.value(0) {
            Value::Object(m) => m,
            _ => Map::new(),
        };
        p.insert("class".into(), json!("CommandLineTool"));
        for key in ["inputs", "outputs", "requirements", "hints"] {
            if g.next().is_multiple_of(2) {
                p.insert(key.into(), g.value(1));
            }
        }
        let p = Value::Object(p);
        for d in [ext(&p), c2m(&p)] {
            if let Some(tool) = &d.tool {
                assert!(tool.get("name").is_some_and(Value::is_string), "{tool}");
            }
            if d.exported().is_some() {
                assert!(d.problems.iter().all(|p| !p.blocking));
            }
        }
    }
}

#[test]
fn options_follow_the_settings() {
    let settings = crate::base::settings::Settings {
        profile: Profile::Cwl2mcp,
        meta_prefix: None,
        protocol_version: ProtocolVersion::V2025_06_18,
        inlay_hints: true,
        agent_context: true,
        cwl2mcp_hints: true,
        client_interop: true,
        client_names: true,
    };
    let opts = DeriveOptions::from_settings(&settings);
    assert_eq!(opts.meta_prefix, "io.github.transpiler-mate/cwl2mcp");
    assert_eq!(opts.protocol_version, ProtocolVersion::V2025_06_18);
    let settings = crate::base::settings::Settings {
        meta_prefix: Some("org.example/x".into()),
        ..crate::base::settings::Settings::default()
    };
    let opts = DeriveOptions::from_settings(&settings);
    assert_eq!(opts.profile, Profile::Extension);
    assert_eq!(opts.meta_prefix, "org.example/x");
}

#[test]
fn cwl2mcp_resolves_names_like_cwl_utils_and_extension_like_cwltool() {
    // In a process with an id, SchemaDefRequirement names are scoped (`t/Mode`); a bare
    // `Mode` in an input resolves to the document-level `#Mode` for cwl-utils, so cwl2mcp
    // renders `{}`, while inside a definition the bare name reaches `t/Mode`.
    let p = json!({"class": "CommandLineTool", "id": "t", "outputs": {},
        "requirements": {"SchemaDefRequirement": {"types": [
            {"name": "Mode", "type": "enum", "symbols": ["a"]},
            {"name": "Pair", "type": "record", "fields": {"m": "Mode"}}
        ]}},
        "inputs": {"bare": "Mode", "scoped": "t/Mode", "pair": "t/Pair"}});
    let d = c2m(&p);
    let defs = &exported(&d)["inputSchema"]["$defs"];
    assert_eq!(defs["bare"], json!({}));
    assert_eq!(defs["scoped"], json!({"type": "string", "enum": ["a"]}));
    assert_eq!(
        defs["pair"]["properties"]["m"],
        json!({"type": "string", "enum": ["a"]})
    );
    let d = ext(&p);
    let props = &exported(&d)["inputSchema"]["properties"];
    assert_eq!(props["bare"], json!({"type": "string", "enum": ["a"]}));
    assert_eq!(props["scoped"], props["bare"]);
}
