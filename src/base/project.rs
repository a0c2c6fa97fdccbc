//! Layered settings (SPEC §1): built-in defaults < `cwl-mcp.toml` < explicit editor settings
//! < CLI flags. Each layer sets only what it names.
use std::path::{Path, PathBuf};

use toml::Spanned;
use toml::de::{DeTable, DeValue};

use crate::base::Severity;
use crate::base::settings::{
    EDITOR_CLIENT_KEYS, EDITOR_SECTION, Given, Profile, ProtocolVersion, SETTINGS, SettingSpec,
    SettingValue, Settings,
};

pub const PROJECT_FILE: &str = "cwl-mcp.toml";

/// One layer of settings: each field is set only when the layer names it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Layer {
    pub profile: Option<Profile>,
    pub meta_prefix: Option<String>,
    pub protocol_version: Option<ProtocolVersion>,
    pub inlay_hints: Option<bool>,
    pub agent_context: Option<bool>,
    pub cwl2mcp_hints: Option<bool>,
    pub client_interop: Option<bool>,
    pub client_names: Option<bool>,
    /// `check` only (project file and CLI): exit 1 on warnings too.
    pub deny_warnings: Option<bool>,
    /// `check` only (project file and CLI): the least severe diagnostics printed.
    pub min_severity: Option<Severity>,
}

/// What `check` does with the diagnostics of one file: the project-only settings, resolved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CheckPolicy {
    pub deny_warnings: bool,
    pub min_severity: Severity,
}

impl Default for CheckPolicy {
    fn default() -> Self {
        CheckPolicy {
            deny_warnings: false,
            min_severity: Severity::Hint,
        }
    }
}

impl CheckPolicy {
    /// Whether `check` prints a diagnostic of this severity.
    pub fn prints(&self, severity: Severity) -> bool {
        severity <= self.min_severity
    }

    /// Whether a diagnostic of this severity makes `check` exit 1.
    pub fn fails(&self, severity: Severity) -> bool {
        severity == Severity::Error || (self.deny_warnings && severity == Severity::Warning)
    }
}

impl Layer {
    /// `check`'s policy from the layers, in order of increasing precedence.
    pub fn check_policy(layers: &[&Layer]) -> CheckPolicy {
        let mut p = CheckPolicy::default();
        for layer in layers {
            if let Some(d) = layer.deny_warnings {
                p.deny_warnings = d;
            }
            if let Some(m) = layer.min_severity {
                p.min_severity = m;
            }
        }
        p
    }

    /// Applies the layers in order of increasing precedence.
    pub fn resolve(layers: &[&Layer]) -> Settings {
        let mut s = Settings::default();
        for layer in layers {
            if let Some(p) = layer.profile {
                s.profile = p;
            }
            if let Some(m) = &layer.meta_prefix {
                s.meta_prefix = Some(m.clone());
            }
            if let Some(v) = layer.protocol_version {
                s.protocol_version = v;
            }
            if let Some(i) = layer.inlay_hints {
                s.inlay_hints = i;
            }
            if let Some(c) = layer.cwl2mcp_hints {
                s.cwl2mcp_hints = c;
            }
            if let Some(c) = layer.client_interop {
                s.client_interop = c;
            }
            if let Some(c) = layer.client_names {
                s.client_names = c;
            }
            if let Some(a) = layer.agent_context {
                s.agent_context = a;
            }
        }
        s
    }

    /// Sets the field `value` names.
    pub fn set(&mut self, value: SettingValue) {
        match value {
            SettingValue::Profile(p) => self.profile = Some(p),
            SettingValue::MetaPrefix(m) => self.meta_prefix = Some(m),
            SettingValue::ProtocolVersion(v) => self.protocol_version = Some(v),
            SettingValue::InlayHints(b) => self.inlay_hints = Some(b),
            SettingValue::AgentContext(b) => self.agent_context = Some(b),
            SettingValue::Cwl2mcpHints(b) => self.cwl2mcp_hints = Some(b),
            SettingValue::ClientInterop(b) => self.client_interop = Some(b),
            SettingValue::ClientNames(b) => self.client_names = Some(b),
            SettingValue::DenyWarnings(b) => self.deny_warnings = Some(b),
            SettingValue::MinSeverity(s) => self.min_severity = Some(s),
        }
    }

    /// Reads the editor's `cwlMcp` settings object ([`SETTINGS`]' editor keys); unknown or
    /// ill-typed values are reported, `null` counts as unset, and the keys the editor
    /// extensions keep for themselves ([`EDITOR_CLIENT_KEYS`]) are ignored.
    pub fn from_json(value: &serde_json::Value) -> (Layer, Vec<String>) {
        let mut layer = Layer::default();
        let mut problems = Vec::new();
        let Some(obj) = value.as_object() else {
            if !value.is_null() {
                problems.push(format!("the `{EDITOR_SECTION}` settings must be an object"));
            }
            return (layer, problems);
        };
        for (key, v) in obj {
            let Some(spec) = SettingSpec::by_editor_key(key) else {
                if !EDITOR_CLIENT_KEYS.contains(&key.as_str()) {
                    problems.push(format!(
                        "{EDITOR_SECTION}.{key}: {}",
                        unknown_editor_key(key)
                    ));
                }
                continue;
            };
            let shown = v.to_string();
            let given = match v {
                serde_json::Value::Null => continue,
                serde_json::Value::String(s) => Given::String(s),
                serde_json::Value::Bool(b) => Given::Boolean(*b),
                _ => Given::Other(&shown),
            };
            match spec.check(given) {
                Ok(value) => layer.set(value),
                Err(e) => problems.push(format!("{EDITOR_SECTION}.{}: {e}", spec.editor_key)),
            }
        }
        (layer, problems)
    }
}

fn quoted_list<'a>(keys: impl Iterator<Item = &'a str>) -> String {
    keys.map(|k| format!("`{k}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn unknown_editor_key(key: &str) -> String {
    let known = quoted_list(SettingSpec::editor_settings().map(|s| s.editor_key));
    let project_only = SETTINGS
        .iter()
        .find(|s| !s.editor && (s.editor_key == key || s.project_key == Some(key)));
    if let Some(spec) = project_only {
        return format!(
            "unknown setting: `{}` is a `cwl-mcp.toml` and `check` setting, not an editor one \
             (known: {known})",
            spec.project_key.unwrap_or(spec.editor_key)
        );
    }
    match SettingSpec::by_project_key(key) {
        Some(spec) => format!(
            "unknown setting (the editor spells it `{}`; known: {known})",
            spec.editor_key
        ),
        None => format!("unknown setting (known: {known})"),
    }
}

fn unknown_project_key(key: &str) -> String {
    let known = quoted_list(SETTINGS.iter().filter_map(|s| s.project_key));
    let editor = SETTINGS.iter().find(|s| s.editor_key == key).or_else(|| {
        SETTINGS
            .iter()
            .find(|s| s.project_key.is_none() && kebab(s.editor_key) == key)
    });
    match editor {
        Some(SettingSpec {
            project_key: Some(project_key),
            ..
        }) => format!("unknown key `{key}`: the project file spells it `{project_key}`"),
        Some(spec) => format!(
            "unknown key `{key}`: `{}.{}` is an editor setting, not a project one (keys: {known})",
            EDITOR_SECTION, spec.editor_key
        ),
        None => format!("unknown key `{key}`, expected one of {known}"),
    }
}

/// `inlayHints` → `inlay-hints`.
fn kebab(camel: &str) -> String {
    let mut out = String::new();
    for c in camel.chars() {
        if c.is_ascii_uppercase() {
            out.push('-');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// A `cwl-mcp.toml` that could not be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    pub path: PathBuf,
    pub message: String,
    /// Byte range in the file, when known.
    pub span: Option<std::ops::Range<usize>>,
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.message)
    }
}

/// Parses the text of a `cwl-mcp.toml`: a table with [`SETTINGS`]' project keys. The first
/// problem in the file (TOML syntax, an unknown key, an ill-typed value) is the error, with its
/// span.
pub fn parse_project_file(path: &Path, text: &str) -> Result<Layer, ConfigError> {
    let err = |message: String, span| ConfigError {
        path: path.to_path_buf(),
        message,
        span,
    };
    let table = DeTable::parse(text).map_err(|e| err(e.message().to_string(), e.span()))?;
    let mut entries: Vec<_> = table.get_ref().iter().collect();
    entries.sort_by_key(|(k, _)| k.span().start);
    let mut layer = Layer::default();
    for (key, value) in entries {
        let Some(spec) = SettingSpec::by_project_key(key.get_ref()) else {
            return Err(err(unknown_project_key(key.get_ref()), Some(key.span())));
        };
        let shown = shown_toml(text, value);
        let given = match value.get_ref() {
            DeValue::String(s) => Given::String(s),
            DeValue::Boolean(b) => Given::Boolean(*b),
            _ => Given::Other(&shown),
        };
        let checked = spec.check(given).map_err(|e| {
            let key = spec.project_key.unwrap_or(spec.editor_key);
            err(format!("{key}: {e}"), Some(value.span()))
        })?;
        layer.set(checked);
    }
    Ok(layer)
}

/// A TOML value as written, for a message (its kind when it spans lines or is long).
fn shown_toml(text: &str, value: &Spanned<DeValue<'_>>) -> String {
    let written = text.get(value.span()).unwrap_or("").trim();
    if !written.is_empty() && written.len() <= 60 && !written.contains('\n') {
        return written.to_string();
    }
    match value.get_ref() {
        DeValue::Table(_) => "a table",
        DeValue::Array(_) => "an array",
        DeValue::Integer(_) => "an integer",
        DeValue::Float(_) => "a float",
        DeValue::Datetime(_) => "a date-time",
        DeValue::String(_) => "a string",
        DeValue::Boolean(_) => "a boolean",
    }
    .to_string()
}

/// The nearest `cwl-mcp.toml` in `dir` or its parents, stopping after `stop` (inclusive) when
/// given, else at the file system root.
pub fn find_project_file(dir: &Path, stop: Option<&Path>) -> Option<PathBuf> {
    let mut current = Some(dir);
    while let Some(d) = current {
        let candidate = d.join(PROJECT_FILE);
        if candidate.is_file() {
            return Some(candidate);
        }
        if stop.is_some_and(|s| s == d) {
            return None;
        }
        current = d.parent();
    }
    None
}

/// Loads the project layer for a document in `dir`. `Ok(None)` when there is no file.
pub fn load_project_layer(
    dir: &Path,
    stop: Option<&Path>,
) -> Result<Option<(PathBuf, Layer)>, ConfigError> {
    let Some(path) = find_project_file(dir, stop) else {
        return Ok(None);
    };
    let text = std::fs::read_to_string(&path).map_err(|e| ConfigError {
        path: path.clone(),
        message: format!("cannot read: {e}"),
        span: None,
    })?;
    let layer = parse_project_file(&path, &text)?;
    Ok(Some((path, layer)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::base::settings::SettingKind;

    #[test]
    fn layers_apply_in_order() {
        let file = parse_project_file(
            Path::new("cwl-mcp.toml"),
            "profile = \"cwl2mcp\"\nmeta-prefix = \"org.example/x\"\n",
        )
        .unwrap();
        let (editor, problems) =
            Layer::from_json(&serde_json::json!({"protocolVersion": "2025-06-18"}));
        assert!(problems.is_empty());
        let cli = Layer {
            profile: Some(Profile::Extension),
            ..Layer::default()
        };
        let s = Layer::resolve(&[&file, &editor]);
        assert_eq!(s.profile, Profile::Cwl2mcp);
        assert_eq!(s.meta_prefix(), "org.example/x");
        assert_eq!(s.protocol_version, ProtocolVersion::V2025_06_18);
        assert!(s.inlay_hints);
        let s = Layer::resolve(&[&file, &editor, &cli]);
        assert_eq!(s.profile, Profile::Extension);
    }

    #[test]
    fn malformed_files_are_errors() {
        let p = Path::new("cwl-mcp.toml");
        assert!(parse_project_file(p, "profile = \"nope\"").is_err());
        assert!(parse_project_file(p, "profle = \"cwl2mcp\"").is_err());
        let e = parse_project_file(p, "profile = ").unwrap_err();
        assert!(e.span.is_some());
        let (_, problems) = Layer::from_json(&serde_json::json!({"profile": 3, "x": 1}));
        assert_eq!(problems.len(), 2);
    }

    #[test]
    fn editor_settings_follow_the_table() {
        for spec in SettingSpec::editor_settings() {
            let good = match spec.kind {
                SettingKind::Enum(values) => serde_json::json!(values.last().unwrap().value),
                SettingKind::String => serde_json::json!("org.example/x"),
                SettingKind::Boolean => serde_json::json!(false),
            };
            let (layer, problems) = Layer::from_json(&serde_json::json!({ spec.editor_key: good }));
            assert!(problems.is_empty(), "{}: {problems:?}", spec.editor_key);
            assert_ne!(layer, Layer::default(), "{}", spec.editor_key);
            let (layer, problems) = Layer::from_json(&serde_json::json!({ spec.editor_key: null }));
            assert!(problems.is_empty() && layer == Layer::default());
            let bad = match spec.kind {
                SettingKind::Boolean => serde_json::json!("yes"),
                _ => serde_json::json!(7),
            };
            let (layer, problems) = Layer::from_json(&serde_json::json!({ spec.editor_key: bad }));
            assert_eq!(layer, Layer::default());
            assert_eq!(
                problems,
                [format!(
                    "cwlMcp.{}: expected {}, found {bad}",
                    spec.editor_key,
                    spec.expected()
                )]
            );
        }
        let (layer, problems) = Layer::from_json(&serde_json::json!({
            "profile": "cwl2mcp", "metaPrefix": "m", "protocolVersion": "2025-11-25",
            "inlayHints": false, "server": {"path": "/x"}, "trace": {"server": "off"}}));
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(
            layer,
            Layer {
                profile: Some(Profile::Cwl2mcp),
                meta_prefix: Some("m".into()),
                protocol_version: Some(ProtocolVersion::V2025_11_25),
                inlay_hints: Some(false),
                ..Layer::default()
            }
        );
        // the project-only settings are no editor settings
        let (layer, problems) = Layer::from_json(&serde_json::json!({"denyWarnings": true}));
        assert_eq!(layer, Layer::default());
        assert!(
            problems[0].contains("`deny-warnings` is a `cwl-mcp.toml`"),
            "{problems:?}"
        );
        let (_, problems) = Layer::from_json(&serde_json::json!({"profile": "nope"}));
        assert_eq!(
            problems,
            ["cwlMcp.profile: expected \"extension\" or \"cwl2mcp\", found \"nope\""]
        );
        let (_, problems) = Layer::from_json(&serde_json::json!({"meta-prefix": "m", "x": 1}));
        assert_eq!(problems.len(), 2);
        assert!(
            problems[0].starts_with(
                "cwlMcp.meta-prefix: unknown setting (the editor spells it `metaPrefix`"
            ),
            "{problems:?}"
        );
        assert!(
            problems[1].starts_with("cwlMcp.x: unknown setting (known: `profile`, `metaPrefix`")
        );
        let (_, problems) = Layer::from_json(&serde_json::json!([1]));
        assert_eq!(problems, ["the `cwlMcp` settings must be an object"]);
    }

    #[test]
    fn project_files_follow_the_table() {
        let p = Path::new("cwl-mcp.toml");
        let layer = parse_project_file(
            p,
            "# comment\nprotocol-version = \"2025-06-18\"\nmeta-prefix = \"\"\nprofile = 'cwl2mcp'\n",
        )
        .unwrap();
        assert_eq!(
            layer,
            Layer {
                profile: Some(Profile::Cwl2mcp),
                meta_prefix: Some(String::new()),
                protocol_version: Some(ProtocolVersion::V2025_06_18),
                ..Layer::default()
            }
        );
        assert_eq!(parse_project_file(p, "").unwrap(), Layer::default());
        // check's project-only keys, and the flags over them
        let file =
            parse_project_file(p, "deny-warnings = true\nmin-severity = \"warning\"\n").unwrap();
        assert_eq!(file.deny_warnings, Some(true));
        assert_eq!(file.min_severity, Some(Severity::Warning));
        assert_eq!(Layer::resolve(&[&file]), Layer::resolve(&[]));
        let policy = Layer::check_policy(&[&file]);
        assert!(policy.fails(Severity::Warning) && !policy.prints(Severity::Information));
        let flags = Layer {
            deny_warnings: Some(false),
            min_severity: Some(Severity::Hint),
            ..Layer::default()
        };
        let policy = Layer::check_policy(&[&file, &flags]);
        assert!(!policy.fails(Severity::Warning) && policy.prints(Severity::Hint));
        assert_eq!(Layer::check_policy(&[]), CheckPolicy::default());
        let e = parse_project_file(p, "min-severity = \"warnings\"").unwrap_err();
        assert!(e.message.contains("\"information\""), "{}", e.message);
        let e = parse_project_file(p, "denyWarnings = true").unwrap_err();
        assert!(e.message.contains("`deny-warnings`"), "{}", e.message);
        let cases: &[(&str, &str, &str)] = &[
            (
                "profile = \"nope\"",
                "profile: expected \"extension\" or \"cwl2mcp\", found \"nope\"",
                "\"nope\"",
            ),
            (
                "protocol-version = 2025",
                "protocol-version: expected \"2026-07-28\", \"2025-11-25\" or \"2025-06-18\", found 2025",
                "2025",
            ),
            (
                "meta-prefix = true",
                "meta-prefix: expected a string, found true",
                "true",
            ),
            (
                "profile = \"cwl2mcp\"\nprofle = \"cwl2mcp\"",
                "unknown key `profle`, expected one of `profile`, `meta-prefix`, `protocol-version`, `agent-context`, `cwl2mcp-hints`, `client-interop`, `client-names`, `deny-warnings`, `min-severity`",
                "profle",
            ),
            (
                "metaPrefix = \"x\"",
                "unknown key `metaPrefix`: the project file spells it `meta-prefix`",
                "metaPrefix",
            ),
            (
                "inlay-hints = false",
                "unknown key `inlay-hints`: `cwlMcp.inlayHints` is an editor setting, not a project one (keys: `profile`, `meta-prefix`, `protocol-version`, `agent-context`, `cwl2mcp-hints`, `client-interop`, `client-names`, `deny-warnings`, `min-severity`)",
                "inlay-hints",
            ),
            (
                "inlayHints = false",
                "unknown key `inlayHints`: `cwlMcp.inlayHints` is an editor setting, not a project one (keys: `profile`, `meta-prefix`, `protocol-version`, `agent-context`, `cwl2mcp-hints`, `client-interop`, `client-names`, `deny-warnings`, `min-severity`)",
                "inlayHints",
            ),
        ];
        for (text, message, at) in cases {
            let e = parse_project_file(p, text).unwrap_err();
            assert_eq!(&e.message, message, "{text}");
            assert_eq!(&text[e.span.clone().unwrap()], *at, "{text}");
        }
        // the first problem in file order wins
        let e = parse_project_file(p, "zz = 1\nprofile = 3\n").unwrap_err();
        assert!(e.message.contains("`zz`"), "{}", e.message);
        // tables and arrays are ill-typed values, shown by their kind when they span lines
        let e = parse_project_file(p, "[profile]\nx = 1\n").unwrap_err();
        assert!(e.message.starts_with("profile: expected"), "{}", e.message);
        let e = parse_project_file(p, "profile = [\"extension\"]").unwrap_err();
        assert!(
            e.message.ends_with("found [\"extension\"]"),
            "{}",
            e.message
        );
        // TOML errors keep the parser's message and span
        let e = parse_project_file(p, "profile = \"a\"\nprofile = \"b\"\n").unwrap_err();
        assert!(e.message.contains("duplicate"), "{}", e.message);
        assert!(e.span.is_some());
    }

    #[test]
    fn finds_the_nearest_file_up_to_the_stop() {
        let dir = std::env::temp_dir().join(format!("cwl-mcp-config-{}", std::process::id()));
        let nested = dir.join("a/b");
        std::fs::create_dir_all(&nested).unwrap();
        std::fs::write(dir.join(PROJECT_FILE), "profile = \"cwl2mcp\"\n").unwrap();
        assert_eq!(
            find_project_file(&nested, None),
            Some(dir.join(PROJECT_FILE))
        );
        assert_eq!(find_project_file(&nested, Some(&dir.join("a"))), None);
        let (_, layer) = load_project_layer(&nested, None).unwrap().unwrap();
        assert_eq!(layer.profile, Some(Profile::Cwl2mcp));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
