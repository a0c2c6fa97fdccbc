//! The settings table (`SETTINGS` in `src/base/settings.rs`) against everything that lists the
//! settings too: the committed JSON Schema of `cwl-mcp.toml`, the VS Code extension's
//! `package.json` and `src/settings.ts`, the Neovim plugin, and the READMEs.
use std::path::{Path, PathBuf};

use cwl_mcp_lsp::base::project::{Layer, parse_project_file};
use cwl_mcp_lsp::base::settings::{
    EDITOR_CLIENT_KEYS, SETTINGS, SettingDefault, SettingSpec, project_file_schema,
};
use serde_json::Value;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(root().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

const SCHEMA: &str = "schemas/cwl-mcp.schema.json";

fn schema_text() -> String {
    serde_json::to_string_pretty(&project_file_schema()).unwrap() + "\n"
}

#[test]
fn the_committed_schema_is_generated_from_the_table() {
    let expected = schema_text();
    let path = root().join(SCHEMA);
    if std::env::var_os("UPDATE_SCHEMAS").is_some_and(|v| v == "1") {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &expected).unwrap();
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == expected,
        "{SCHEMA} differs from the schema generated from SETTINGS in src/base/settings.rs; \
         update it with `UPDATE_SCHEMAS=1 cargo test --test settings_schema` and commit it.\n\
         generated:\n{expected}"
    );
}

/// The keys of the editor's `cwlMcp` object (project-only settings such as `deny-warnings` are
/// not among them).
fn editor_keys() -> Vec<&'static str> {
    SettingSpec::editor_settings()
        .map(|s| s.editor_key)
        .collect()
}

/// The schema and `parse_project_file` give every sample the same verdict.
#[test]
fn the_schema_and_the_parser_agree() {
    let schema: Value = serde_json::from_str(&read(SCHEMA)).unwrap();
    assert!(
        jsonschema::meta::is_valid(&schema),
        "{SCHEMA} is no valid JSON Schema"
    );
    let validator = jsonschema::draft7::new(&schema).unwrap();
    let mut samples: Vec<(String, String)> = vec![
        ("empty".into(), String::new()),
        ("taplo good".into(), read("tests/taplo/good/cwl-mcp.toml")),
        ("taplo bad".into(), read("tests/taplo/bad/cwl-mcp.toml")),
        ("camelCase key".into(), "metaPrefix = \"x\"\n".into()),
        ("nested".into(), "[profile]\nx = 1\n".into()),
        ("array".into(), "profile = [\"extension\"]\n".into()),
        ("empty prefix".into(), "meta-prefix = \"\"\n".into()),
        ("integer".into(), "protocol-version = 2025\n".into()),
    ];
    for spec in SETTINGS {
        if !spec.editor {
            // a project-only key in camelCase is no key of the file
            samples.push((
                spec.editor_key.into(),
                format!("{} = true\n", spec.editor_key),
            ));
        }
        let Some(key) = spec.project_key else {
            samples.push((
                spec.editor_key.into(),
                format!("{} = true\n", spec.editor_key),
            ));
            continue;
        };
        for v in spec.values() {
            samples.push((
                format!("{key}={}", v.value),
                format!("{key} = \"{}\"\n", v.value),
            ));
        }
        samples.push((format!("{key} bool"), format!("{key} = false\n")));
        samples.push((
            format!("{key} text"),
            format!("{key} = \"no such value\"\n"),
        ));
    }
    let mut accepted = 0;
    for (name, text) in &samples {
        let parsed = parse_project_file(Path::new("cwl-mcp.toml"), text);
        let instance = serde_json::to_value(toml::from_str::<toml::Table>(text).unwrap()).unwrap();
        let valid = validator.is_valid(&instance);
        assert_eq!(
            parsed.is_ok(),
            valid,
            "{name}: parser {parsed:?}, schema valid: {valid}\n{text}"
        );
        accepted += usize::from(valid);
    }
    assert!(accepted >= 6, "too few accepted samples: {accepted}");
}

fn package_json() -> Value {
    serde_json::from_str(&read("editors/vscode/package.json")).unwrap()
}

/// What `package.json` should say of a setting: the table's description and default, and that
/// the extension sends it only when the user set it (SPEC §1).
fn vscode_description(spec: &SettingSpec) -> String {
    let note = match spec.project_key {
        Some(key) => format!(
            "Sent to the server only when set explicitly, so that a project's `cwl-mcp.toml` \
             (`{key} = ...`) applies otherwise."
        ),
        None => "Sent to the server only when set explicitly.".to_string(),
    };
    let note = match spec.default {
        SettingDefault::PerProfile => format!("Empty counts as unset. {note}"),
        _ => note,
    };
    format!(
        "{} Default: {}. {note}",
        spec.description,
        spec.default_text()
    )
}

#[test]
fn the_vscode_settings_are_the_table() {
    let pkg = package_json();
    let props = pkg["contributes"]["configuration"]["properties"]
        .as_object()
        .expect("contributes.configuration.properties");
    let mut seen = Vec::new();
    for (name, p) in props {
        let desc = p["markdownDescription"]
            .as_str()
            .or(p["description"].as_str())
            .unwrap_or("");
        assert!(!desc.trim().is_empty(), "{name}: no description");
        let key = name
            .strip_prefix("cwlMcp.")
            .unwrap_or_else(|| panic!("{name}: not under cwlMcp."));
        let Some(spec) = SettingSpec::by_editor_key(key) else {
            let own = EDITOR_CLIENT_KEYS.iter().any(|k| {
                key.strip_prefix(k)
                    .is_some_and(|rest| rest.starts_with('.'))
            });
            assert!(
                own,
                "{name}: neither a setting of the table nor the extension's own (cwlMcp.server.*, cwlMcp.trace.*)"
            );
            continue;
        };
        seen.push(spec.editor_key);
        assert_eq!(p["type"], spec.json_type(), "{name}: type");
        let values: Vec<&str> = spec.values().iter().map(|v| v.value).collect();
        if values.is_empty() {
            assert!(p.get("enum").is_none(), "{name}: enum, the table has none");
        } else {
            assert_eq!(p["enum"], serde_json::json!(values), "{name}: enum");
        }
        let described: Vec<&str> = spec.values().iter().map(|v| v.description).collect();
        if described.iter().any(|d| !d.is_empty()) {
            assert_eq!(
                p["enumDescriptions"],
                serde_json::json!(described),
                "{name}: enumDescriptions"
            );
        } else {
            assert!(
                p.get("enumDescriptions").is_none(),
                "{name}: enumDescriptions"
            );
        }
        // The extension never sends a default (settings.ts reads `inspect()`, below); a default
        // here only shows in the Settings UI, so it must be the server's own (for a per-profile
        // default: the extension's "unset", the empty string).
        match (spec.default, p.get("default")) {
            (_, None) => {}
            (SettingDefault::PerProfile, Some(d)) => assert_eq!(d, "", "{name}: default"),
            (_, Some(d)) => assert_eq!(Some(d.clone()), spec.default_json(), "{name}: default"),
        }
        assert_eq!(
            p["markdownDescription"],
            vscode_description(spec),
            "{name}: markdownDescription"
        );
    }
    assert_eq!(
        seen,
        editor_keys(),
        "package.json settings (in the table's order)"
    );
}

/// `src/settings.ts` sends exactly the table's keys, read with `inspect()` (what the user set in
/// some scope), never `get()` (which would include package.json's defaults).
#[test]
fn the_vscode_extension_sends_only_what_the_user_set() {
    let ts = read("editors/vscode/src/settings.ts");
    let line = ts
        .lines()
        .find(|l| l.contains("SERVER_KEYS ="))
        .expect("SERVER_KEYS in settings.ts");
    let keys: Vec<&str> = line.split('\'').skip(1).step_by(2).collect();
    assert_eq!(
        keys,
        editor_keys(),
        "SERVER_KEYS in editors/vscode/src/settings.ts"
    );
    assert!(
        ts.contains(".inspect<"),
        "settings.ts reads the settings with inspect()"
    );
    assert!(
        !ts.contains(".get("),
        "settings.ts must not read settings with get()"
    );
}

/// The keys in a Lua / Markdown list `{ 'a', 'b' }` or `{ a, b }` after `marker`.
fn list_after<'t>(text: &'t str, marker: &str) -> Vec<&'t str> {
    let start = text
        .find(marker)
        .unwrap_or_else(|| panic!("`{marker}` not found"))
        + marker.len();
    let rest = &text[start..];
    let open = rest.find('{').unwrap() + 1;
    let close = open + rest[open..].find('}').unwrap();
    rest[open..close]
        .split(',')
        .map(|k| k.trim().trim_matches('\''))
        .filter(|k| !k.is_empty())
        .collect()
}

/// The comma-separated keys after `marker`, to the end of its line.
fn line_list_after<'t>(text: &'t str, marker: &str) -> Vec<&'t str> {
    let start = text
        .find(marker)
        .unwrap_or_else(|| panic!("`{marker}` not found"))
        + marker.len();
    let line = text[start..].lines().next().unwrap_or("");
    line.split(',')
        .map(str::trim)
        .filter(|k| !k.is_empty())
        .collect()
}

#[test]
fn the_neovim_plugin_knows_the_table() {
    let init = read("editors/nvim/lua/cwl_mcp/init.lua");
    // the list the plugin filters the user's settings by (and names in its warning)
    assert_eq!(
        list_after(&init, "M.setting_keys ="),
        editor_keys(),
        "M.setting_keys"
    );
    // the documented shape of `settings`
    assert_eq!(
        list_after(&init, "--- opts: { cmd = string|list, settings ="),
        editor_keys(),
        "M.config's doc comment"
    );
    // the key lists in comments: the plugin's warning text is built from M.setting_keys, and
    // the README's setup() snippet lists them
    let readme = read("editors/README.md");
    let at = readme
        .find("require('cwl_mcp').setup({")
        .expect("the setup() snippet");
    assert_eq!(
        line_list_after(&readme[at..], "-- keys:"),
        editor_keys(),
        "editors/README.md setup() snippet"
    );
    // every `cwlMcp = { key = ... }` / `settings = { key = ... }` in the plugin and its docs
    // names a setting of the table
    let mut files: Vec<PathBuf> = vec![root().join("editors/README.md")];
    let mut stack = vec![root().join("editors/nvim")];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "lua") {
                files.push(p);
            }
        }
    }
    let mut named = 0;
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        for marker in ["cwlMcp = { ", "settings = { "] {
            for (i, _) in text.match_indices(marker) {
                let after = &text[i + marker.len()..];
                let key: String = after
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                let is_assignment = after[key.len()..].trim_start().starts_with('=');
                if key.is_empty() || !is_assignment || key == "cwlMcp" {
                    continue;
                }
                assert!(
                    SettingSpec::by_editor_key(&key).is_some(),
                    "{}: `{marker}{key} = ...` is no setting of the table",
                    f.display()
                );
                named += 1;
            }
        }
    }
    assert!(named >= 5, "found only {named} settings examples");
}

/// `editors/README.md` has the table of settings, rendered from `SETTINGS`.
#[test]
fn the_editors_readme_table_is_the_table() {
    let mut expected = String::from(
        "| key | `cwl-mcp.toml` key | values | default | what |\n|---|---|---|---|---|\n",
    );
    for spec in SettingSpec::editor_settings() {
        let values = match spec.values() {
            [] => spec.json_type().to_string(),
            vs => vs
                .iter()
                .map(|v| format!("`{}`", v.value))
                .collect::<Vec<_>>()
                .join(" \\| "),
        };
        let project = spec
            .project_key
            .map_or("— (editor only)".to_string(), |k| format!("`{k}`"));
        let default = spec.default_text();
        expected += &format!(
            "| `{}` | {project} | {values} | {default} | {} |\n",
            spec.editor_key, spec.description
        );
    }
    let readme = read("editors/README.md");
    assert!(
        readme.contains(&expected),
        "editors/README.md should carry the settings table:\n{expected}"
    );
}

#[test]
fn the_readme_names_every_setting_and_the_schema() {
    let readme = read("README.md");
    let start = readme
        .find("## Configuration")
        .expect("a Configuration section");
    let section = &readme[start..];
    let section = &section[..section[3..].find("\n## ").map_or(section.len(), |i| i + 3)];
    for spec in SETTINGS {
        if spec.editor {
            assert!(
                section.contains(&format!("`{}`", spec.editor_key)),
                "{}",
                spec.editor_key
            );
        } else {
            // a project-only setting: its key and its `check` flag
            let key = spec.project_key.unwrap();
            assert!(section.contains(&format!("--{key}")), "--{key}");
        }
        if let Some(k) = spec.project_key {
            assert!(section.contains(k), "{k}");
        }
    }
    assert!(
        section.contains(SCHEMA),
        "the Configuration section names {SCHEMA}"
    );
}

#[test]
fn a_layer_from_the_schema_defaults_is_the_default() {
    // the schema's defaults, applied as a project file, change nothing
    let schema = project_file_schema();
    let mut text = String::new();
    for (k, p) in schema["properties"].as_object().unwrap() {
        if let Some(d) = p.get("default") {
            text += &format!("{k} = {d}\n");
        }
    }
    let layer = parse_project_file(Path::new("cwl-mcp.toml"), &text).unwrap();
    assert_eq!(Layer::resolve(&[&layer]), Layer::resolve(&[]));
}
