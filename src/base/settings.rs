//! Settings shared by the CLI, the project file `cwl-mcp.toml` and the editor (SPEC §1).
//!
//! [`SETTINGS`] is the one table of the settings: the editor's camelCase key, the project file's
//! kebab-case key, the type, the enum values, the default and the description. The editor and
//! project-file parsers ([`crate::base::project`]) read it, `schemas/cwl-mcp.schema.json` is
//! generated from it ([`project_file_schema`]), and `tests/settings_schema.rs` checks the VS Code
//! extension's `package.json`, the Neovim plugin and `editors/README.md` against it.
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::severity::Severity;

/// Which rules apply: the extension specification or the cwl2mcp 0.1.0 exporter.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Profile {
    #[default]
    Extension,
    Cwl2mcp,
}

impl Profile {
    pub fn parse(text: &str) -> Option<Profile> {
        match text {
            "extension" => Some(Profile::Extension),
            "cwl2mcp" => Some(Profile::Cwl2mcp),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Profile::Extension => "extension",
            Profile::Cwl2mcp => "cwl2mcp",
        }
    }

    /// The `_meta` key prefix used when none is configured (SPEC §4).
    pub fn default_meta_prefix(self) -> &'static str {
        match self {
            Profile::Extension => "io.github.eoap/cwl-mcp-extension",
            Profile::Cwl2mcp => "io.github.transpiler-mate/cwl2mcp",
        }
    }
}

/// The MCP protocol version whose `Tool` schema derived Tools are validated against.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ProtocolVersion {
    V2025_06_18,
    V2025_11_25,
    #[default]
    V2026_07_28,
}

impl ProtocolVersion {
    pub const ALL: [ProtocolVersion; 3] = [
        ProtocolVersion::V2025_06_18,
        ProtocolVersion::V2025_11_25,
        ProtocolVersion::V2026_07_28,
    ];

    pub fn parse(text: &str) -> Option<ProtocolVersion> {
        Self::ALL.into_iter().find(|v| v.as_str() == text)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            ProtocolVersion::V2025_06_18 => "2025-06-18",
            ProtocolVersion::V2025_11_25 => "2025-11-25",
            ProtocolVersion::V2026_07_28 => "2026-07-28",
        }
    }
}

/// Effective settings for one document, after every layer of SPEC §1 was applied.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Settings {
    pub profile: Profile,
    /// `None` means the profile's default prefix.
    pub meta_prefix: Option<String>,
    pub protocol_version: ProtocolVersion,
    pub inlay_hints: bool,
    /// Report `agent-context` (what an agent needs to choose and call a Tool).
    pub agent_context: bool,
    /// Report `cwl2mcp-incompatible` notes under the `extension` profile.
    pub cwl2mcp_hints: bool,
    /// MCP client interop warnings.
    pub client_interop: bool,
    /// Client-compatible names.
    pub client_names: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            profile: Profile::Extension,
            meta_prefix: None,
            protocol_version: ProtocolVersion::default(),
            inlay_hints: true,
            agent_context: true,
            cwl2mcp_hints: true,
            client_interop: true,
            client_names: true,
        }
    }
}

impl Settings {
    pub fn meta_prefix(&self) -> &str {
        self.meta_prefix
            .as_deref()
            .unwrap_or(self.profile.default_meta_prefix())
    }
}

/// Which field of a settings layer a [`SettingSpec`] sets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SettingId {
    Profile,
    MetaPrefix,
    ProtocolVersion,
    InlayHints,
    AgentContext,
    Cwl2mcpHints,
    ClientInterop,
    ClientNames,
    DenyWarnings,
    MinSeverity,
}

/// The type of a setting's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SettingKind {
    /// One of these strings, each with its description.
    Enum(&'static [EnumValue]),
    /// Any string.
    String,
    Boolean,
}

/// One value of an enum setting; `description` may be empty.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EnumValue {
    pub value: &'static str,
    pub description: &'static str,
}

/// The value a setting has when no layer names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SettingDefault {
    String(&'static str),
    Boolean(bool),
    /// The profile's [`Profile::default_meta_prefix`].
    PerProfile,
}

/// One setting of SPEC §1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SettingSpec {
    pub id: SettingId,
    /// The setting's camelCase name: its key in the editor's `cwlMcp` object when
    /// [`SettingSpec::editor`] is true.
    pub editor_key: &'static str,
    /// Whether the editor's `cwlMcp` object has this key. `false` for a project-only setting
    /// (`cwl-mcp.toml` and the CLI flag of the same name), such as `deny-warnings`, which is
    /// about `check`'s output and exit status and means nothing to an editor.
    pub editor: bool,
    /// Key in `cwl-mcp.toml` (kebab-case); `None` for an editor-only setting.
    pub project_key: Option<&'static str>,
    pub kind: SettingKind,
    pub default: SettingDefault,
    /// A few words (JSON Schema `title`).
    pub title: &'static str,
    /// What the setting does, in Markdown, naming no key (it serves every surface).
    pub description: &'static str,
}

/// The editor's settings section (`initializationOptions.cwlMcp`, `workspace/configuration`).
pub const EDITOR_SECTION: &str = "cwlMcp";

/// Keys of the editor's `cwlMcp` section that the editor extensions keep for themselves
/// (`cwlMcp.server.path`, `cwlMcp.trace.server`): the server ignores them.
pub const EDITOR_CLIENT_KEYS: &[&str] = &["server", "trace"];

pub const PROFILE_VALUES: &[EnumValue] = &[
    EnumValue {
        value: "extension",
        description: "The CWL MCP extension specification (seed 000).",
    },
    EnumValue {
        value: "cwl2mcp",
        description: "Exactly what the cwl2mcp 0.1.0 exporter accepts and derives.",
    },
];

pub const SEVERITY_VALUES: &[EnumValue] = &[
    EnumValue {
        value: "error",
        description: "Errors only.",
    },
    EnumValue {
        value: "warning",
        description: "Warnings and errors.",
    },
    EnumValue {
        value: "information",
        description: "Everything but hints.",
    },
    EnumValue {
        value: "hint",
        description: "Everything.",
    },
];

pub const PROTOCOL_VERSION_VALUES: &[EnumValue] = &[
    EnumValue {
        value: "2026-07-28",
        description: "",
    },
    EnumValue {
        value: "2025-11-25",
        description: "",
    },
    EnumValue {
        value: "2025-06-18",
        description: "",
    },
];

/// The settings (SPEC §1), in the order every surface lists them.
pub const SETTINGS: &[SettingSpec] = &[
    SettingSpec {
        id: SettingId::Profile,
        editor_key: "profile",
        editor: true,
        project_key: Some("profile"),
        kind: SettingKind::Enum(PROFILE_VALUES),
        default: SettingDefault::String("extension"),
        title: "Profile",
        description: "Profile the hints are checked and derived against: the CWL MCP extension \
                      specification (`extension`) or the cwl2mcp 0.1.0 exporter (`cwl2mcp`).",
    },
    SettingSpec {
        id: SettingId::MetaPrefix,
        editor_key: "metaPrefix",
        editor: true,
        project_key: Some("meta-prefix"),
        kind: SettingKind::String,
        default: SettingDefault::PerProfile,
        title: "_meta key prefix",
        description: "Prefix of the `_meta` keys of the derived Tool.",
    },
    SettingSpec {
        id: SettingId::ProtocolVersion,
        editor_key: "protocolVersion",
        editor: true,
        project_key: Some("protocol-version"),
        kind: SettingKind::Enum(PROTOCOL_VERSION_VALUES),
        default: SettingDefault::String("2026-07-28"),
        title: "MCP protocol version",
        description: "MCP protocol version whose schema the derived Tool is validated against.",
    },
    SettingSpec {
        id: SettingId::InlayHints,
        editor_key: "inlayHints",
        editor: true,
        project_key: None,
        kind: SettingKind::Boolean,
        default: SettingDefault::Boolean(true),
        title: "Inlay hints",
        description: "Show the MCP default of each annotation the hint leaves out, e.g. \
                      `destructiveHint: true (MCP default)`.",
    },
    SettingSpec {
        id: SettingId::AgentContext,
        editor_key: "agentContext",
        editor: true,
        project_key: Some("agent-context"),
        kind: SettingKind::Boolean,
        default: SettingDefault::Boolean(true),
        title: "Agent context hints",
        description: "Report what an agent needs to choose and call a Tool and does not get \
                      (`agent-context`): inputs without `label` or `doc`, a Tool without a \
                      description, `useWhen` / `doNotUseWhen` left out.",
    },
    SettingSpec {
        id: SettingId::Cwl2mcpHints,
        editor_key: "cwl2mcpHints",
        editor: true,
        project_key: Some("cwl2mcp-hints"),
        kind: SettingKind::Boolean,
        default: SettingDefault::Boolean(true),
        title: "cwl2mcp compatibility notes",
        description: "Under the `extension` profile, note what the cwl2mcp 0.1.0 exporter \
                      would reject or treat differently (`cwl2mcp-incompatible`).",
    },
    SettingSpec {
        id: SettingId::ClientInterop,
        editor_key: "clientInterop",
        editor: true,
        project_key: Some("client-interop"),
        kind: SettingKind::Boolean,
        default: SettingDefault::Boolean(true),
        title: "MCP client interop warnings",
        description: "Report what the derived Tool uses that real MCP clients fail on (`mcp-client-interop`): a `$ref` that is neither local nor bundled, `nullable` without `type`, a schema `$id` two served Tools share.",
    },
    SettingSpec {
        id: SettingId::ClientNames,
        editor_key: "clientNames",
        editor: true,
        project_key: Some("client-names"),
        kind: SettingKind::Boolean,
        default: SettingDefault::Boolean(true),
        title: "Client-compatible names",
        description: "Report an MCP name that function-calling APIs commonly reject (`name-client-compat`: outside `^[a-zA-Z0-9_-]{1,64}$`).",
    },
    SettingSpec {
        id: SettingId::DenyWarnings,
        editor_key: "denyWarnings",
        editor: false,
        project_key: Some("deny-warnings"),
        kind: SettingKind::Boolean,
        default: SettingDefault::Boolean(false),
        title: "Deny warnings",
        description: "`check` exits with status 1 when it finds a warning, not only an error \
                      (whatever is printed).",
    },
    SettingSpec {
        id: SettingId::MinSeverity,
        editor_key: "minSeverity",
        editor: false,
        project_key: Some("min-severity"),
        kind: SettingKind::Enum(SEVERITY_VALUES),
        default: SettingDefault::String("hint"),
        title: "Minimum severity",
        description: "The least severe diagnostics `check` prints; the exit status still \
                      counts everything found.",
    },
];

/// A value as a settings source gave it, before it was checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Given<'a> {
    String(&'a str),
    Boolean(bool),
    /// Any other value: how to show it in a message.
    Other(&'a str),
}

/// A checked value of a setting.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SettingValue {
    Profile(Profile),
    MetaPrefix(String),
    ProtocolVersion(ProtocolVersion),
    InlayHints(bool),
    AgentContext(bool),
    Cwl2mcpHints(bool),
    ClientInterop(bool),
    ClientNames(bool),
    DenyWarnings(bool),
    MinSeverity(Severity),
}

impl SettingSpec {
    /// The setting named `key` in the editor's `cwlMcp` object.
    pub fn by_editor_key(key: &str) -> Option<&'static SettingSpec> {
        SETTINGS.iter().find(|s| s.editor && s.editor_key == key)
    }

    /// The settings of the editor's `cwlMcp` object, in the table's order.
    pub fn editor_settings() -> impl Iterator<Item = &'static SettingSpec> {
        SETTINGS.iter().filter(|s| s.editor)
    }

    /// The setting named `key` in `cwl-mcp.toml`.
    pub fn by_project_key(key: &str) -> Option<&'static SettingSpec> {
        SETTINGS.iter().find(|s| s.project_key == Some(key))
    }

    /// The enum values, when the setting is an enum.
    pub fn values(&self) -> &'static [EnumValue] {
        match self.kind {
            SettingKind::Enum(values) => values,
            _ => &[],
        }
    }

    /// The JSON type of the value: `string` or `boolean`.
    pub fn json_type(&self) -> &'static str {
        match self.kind {
            SettingKind::Enum(_) | SettingKind::String => "string",
            SettingKind::Boolean => "boolean",
        }
    }

    /// What a valid value is, for messages: `"a" or "b"`, `a string`, `a boolean`.
    pub fn expected(&self) -> String {
        match self.kind {
            SettingKind::Enum(values) => {
                let quoted: Vec<String> =
                    values.iter().map(|v| format!("\"{}\"", v.value)).collect();
                match quoted.split_last() {
                    Some((last, [])) => last.clone(),
                    Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
                    None => "nothing".to_string(),
                }
            }
            SettingKind::String => "a string".to_string(),
            SettingKind::Boolean => "a boolean".to_string(),
        }
    }

    /// The default as a JSON value; `None` when it depends on the profile.
    pub fn default_json(&self) -> Option<Value> {
        match self.default {
            SettingDefault::String(s) => Some(Value::from(s)),
            SettingDefault::Boolean(b) => Some(Value::from(b)),
            SettingDefault::PerProfile => None,
        }
    }

    /// The default, in Markdown, for documentation: `` `extension` ``, or the per-profile list.
    pub fn default_text(&self) -> String {
        match self.default {
            SettingDefault::String(s) => format!("`{s}`"),
            SettingDefault::Boolean(b) => format!("`{b}`"),
            SettingDefault::PerProfile => {
                let per: Vec<String> = PROFILE_VALUES
                    .iter()
                    .filter_map(|v| Profile::parse(v.value))
                    .map(|p| format!("`{}` for `{}`", p.default_meta_prefix(), p.as_str()))
                    .collect();
                format!("per profile: {}", per.join(", "))
            }
        }
    }

    /// Checks a value; the error is `expected …, found …` (the caller puts the key before it).
    pub fn check(&self, given: Given<'_>) -> Result<SettingValue, String> {
        let found = match given {
            Given::String(s) => serde_json::to_string(s).unwrap_or_default(),
            Given::Boolean(b) => b.to_string(),
            Given::Other(shown) => shown.to_string(),
        };
        let value = match (self.kind, given) {
            (SettingKind::Enum(values), Given::String(s))
                if values.iter().any(|v| v.value == s) =>
            {
                match self.id {
                    SettingId::Profile => Profile::parse(s).map(SettingValue::Profile),
                    SettingId::ProtocolVersion => {
                        ProtocolVersion::parse(s).map(SettingValue::ProtocolVersion)
                    }
                    SettingId::MinSeverity => Severity::parse(s).map(SettingValue::MinSeverity),
                    _ => None,
                }
            }
            (SettingKind::String, Given::String(s)) => match self.id {
                SettingId::MetaPrefix => Some(SettingValue::MetaPrefix(s.to_string())),
                _ => None,
            },
            (SettingKind::Boolean, Given::Boolean(b)) => match self.id {
                SettingId::InlayHints => Some(SettingValue::InlayHints(b)),
                SettingId::AgentContext => Some(SettingValue::AgentContext(b)),
                SettingId::Cwl2mcpHints => Some(SettingValue::Cwl2mcpHints(b)),
                SettingId::ClientInterop => Some(SettingValue::ClientInterop(b)),
                SettingId::ClientNames => Some(SettingValue::ClientNames(b)),
                SettingId::DenyWarnings => Some(SettingValue::DenyWarnings(b)),
                _ => None,
            },
            _ => None,
        };
        value.ok_or_else(|| format!("expected {}, found {found}", self.expected()))
    }
}

/// The JSON Schema of `cwl-mcp.toml` (draft-07, as taplo and Even Better TOML read it),
/// committed as `schemas/cwl-mcp.schema.json`.
pub fn project_file_schema() -> Value {
    let mut properties = serde_json::Map::new();
    for spec in SETTINGS {
        let Some(key) = spec.project_key else {
            continue;
        };
        let mut p = serde_json::Map::new();
        p.insert("title".into(), spec.title.into());
        let elsewhere = if spec.editor {
            format!("Editor setting: `cwlMcp.{}`.", spec.editor_key)
        } else {
            format!("CLI flag (wins over this file): `check --{key}`.")
        };
        p.insert(
            "description".into(),
            format!(
                "{} Default: {}. {elsewhere}",
                spec.description,
                spec.default_text(),
            )
            .into(),
        );
        p.insert("type".into(), spec.json_type().into());
        let values = spec.values();
        if !values.is_empty() {
            p.insert(
                "enum".into(),
                values.iter().map(|v| v.value).collect::<Vec<_>>().into(),
            );
        }
        if let Some(default) = spec.default_json() {
            p.insert("default".into(), default);
        }
        if values.iter().any(|v| !v.description.is_empty()) {
            p.insert(
                "x-taplo".into(),
                json!({"docs": {"enumValues": values
                    .iter()
                    .map(|v| (!v.description.is_empty()).then_some(v.description))
                    .collect::<Vec<_>>()}}),
            );
        }
        properties.insert(key.into(), Value::Object(p));
    }
    json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "title": "cwl-mcp.toml",
        "description": "Project settings of cwl-mcp-lsp (SPEC §1): the editor and the CLI read \
                        the nearest `cwl-mcp.toml` in a document's folder or its parents. \
                        Editor settings the user set, and CLI flags, override it. Generated from \
                        `SETTINGS` in `src/base/settings.rs`.",
        "type": "object",
        "properties": properties,
        "additionalProperties": false,
        "x-taplo-info": {"patterns": ["(^|/)cwl-mcp\\.toml$"]},
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_matches_the_types() {
        let profiles: Vec<&str> = PROFILE_VALUES.iter().map(|v| v.value).collect();
        assert_eq!(
            profiles,
            [Profile::Extension.as_str(), Profile::Cwl2mcp.as_str()]
        );
        for v in PROFILE_VALUES {
            assert_eq!(Profile::parse(v.value).map(Profile::as_str), Some(v.value));
        }
        let mut versions: Vec<&str> = PROTOCOL_VERSION_VALUES.iter().map(|v| v.value).collect();
        versions.sort();
        let all: Vec<&str> = ProtocolVersion::ALL.iter().map(|v| v.as_str()).collect();
        assert_eq!(versions, all);
        // the defaults are Settings::default()'s
        let d = Settings::default();
        for spec in SETTINGS {
            let expected = match spec.id {
                SettingId::Profile => Some(Value::from(d.profile.as_str())),
                SettingId::MetaPrefix => {
                    assert_eq!(d.meta_prefix, None);
                    None
                }
                SettingId::ProtocolVersion => Some(Value::from(d.protocol_version.as_str())),
                SettingId::InlayHints => Some(Value::from(d.inlay_hints)),
                SettingId::AgentContext => Some(Value::from(d.agent_context)),
                SettingId::Cwl2mcpHints => Some(Value::from(d.cwl2mcp_hints)),
                SettingId::ClientInterop => Some(Value::from(d.client_interop)),
                SettingId::ClientNames => Some(Value::from(d.client_names)),
                SettingId::DenyWarnings => Some(Value::from(false)),
                SettingId::MinSeverity => Some(Value::from(Severity::Hint.as_str())),
            };
            assert_eq!(spec.default_json(), expected, "{}", spec.editor_key);
            if let Some(v) = spec.default_json().filter(|_| !spec.values().is_empty()) {
                assert!(
                    spec.values().iter().any(|e| e.value == v),
                    "{}",
                    spec.editor_key
                );
            }
        }
        // every field once; project keys are the kebab-case editor keys
        let mut ids: Vec<String> = SETTINGS.iter().map(|s| format!("{:?}", s.id)).collect();
        ids.dedup();
        assert_eq!(ids.len(), 10);
        for spec in SETTINGS {
            if let Some(key) = spec.project_key {
                let kebab: String = spec
                    .editor_key
                    .chars()
                    .flat_map(|c| {
                        if c.is_ascii_uppercase() {
                            vec!['-', c.to_ascii_lowercase()]
                        } else {
                            vec![c]
                        }
                    })
                    .collect();
                assert_eq!(key, kebab);
            }
            assert!(!spec.description.is_empty() && !spec.title.is_empty());
        }
        // SPEC §1: the project file sets profile, meta-prefix and protocol-version, and
        // agent-context and cwl2mcp-hints (issues 13, 11); (issue 12) check's deny-warnings and
        // min-severity, which the editor does not have; inlay hints are the editor's alone
        let project: Vec<&str> = SETTINGS.iter().filter_map(|s| s.project_key).collect();
        assert_eq!(
            project,
            [
                "profile",
                "meta-prefix",
                "protocol-version",
                "agent-context",
                "cwl2mcp-hints",
                "client-interop",
                "client-names",
                "deny-warnings",
                "min-severity"
            ]
        );
        let editor: Vec<&str> = SettingSpec::editor_settings()
            .map(|s| s.editor_key)
            .collect();
        assert_eq!(
            editor,
            [
                "profile",
                "metaPrefix",
                "protocolVersion",
                "inlayHints",
                "agentContext",
                "cwl2mcpHints",
                "clientInterop",
                "clientNames"
            ]
        );
        assert!(SETTINGS.iter().all(|s| s.editor || s.project_key.is_some()));
        let severities: Vec<&str> = SEVERITY_VALUES.iter().map(|v| v.value).collect();
        let all = [
            Severity::Error,
            Severity::Warning,
            Severity::Information,
            Severity::Hint,
        ];
        assert_eq!(severities, all.map(Severity::as_str));
    }

    #[test]
    fn checks_values() {
        let spec = SettingSpec::by_editor_key("protocolVersion").unwrap();
        assert_eq!(
            spec.check(Given::String("2025-11-25")),
            Ok(SettingValue::ProtocolVersion(ProtocolVersion::V2025_11_25))
        );
        assert_eq!(
            spec.check(Given::String("2025-01-01")).unwrap_err(),
            "expected \"2026-07-28\", \"2025-11-25\" or \"2025-06-18\", found \"2025-01-01\""
        );
        let spec = SettingSpec::by_project_key("meta-prefix").unwrap();
        assert_eq!(spec.editor_key, "metaPrefix");
        assert_eq!(
            spec.check(Given::Other("[1]")).unwrap_err(),
            "expected a string, found [1]"
        );
        assert_eq!(
            spec.default_text(),
            "per profile: `io.github.eoap/cwl-mcp-extension` for `extension`, \
             `io.github.transpiler-mate/cwl2mcp` for `cwl2mcp`"
        );
        let spec = SettingSpec::by_editor_key("inlayHints").unwrap();
        assert_eq!(spec.project_key, None);
        assert_eq!(
            spec.check(Given::String("true")).unwrap_err(),
            "expected a boolean, found \"true\""
        );
        assert!(SettingSpec::by_editor_key("server").is_none());
        assert!(SettingSpec::by_editor_key("denyWarnings").is_none());
        let spec = SettingSpec::by_project_key("min-severity").unwrap();
        assert_eq!(
            spec.check(Given::String("warning")),
            Ok(SettingValue::MinSeverity(Severity::Warning))
        );
    }

    #[test]
    fn the_schema_closes_the_project_file() {
        let schema = project_file_schema();
        assert_eq!(schema["additionalProperties"], false);
        let props = schema["properties"].as_object().unwrap();
        let keys: Vec<&String> = props.keys().collect();
        assert_eq!(
            keys,
            [
                "profile",
                "meta-prefix",
                "protocol-version",
                "agent-context",
                "cwl2mcp-hints",
                "client-interop",
                "client-names",
                "deny-warnings",
                "min-severity"
            ]
        );
        assert_eq!(props["deny-warnings"]["type"], "boolean");
        assert!(
            props["deny-warnings"]["description"]
                .as_str()
                .unwrap()
                .contains("--deny-warnings")
        );
        assert_eq!(props["profile"]["enum"], json!(["extension", "cwl2mcp"]));
        assert_eq!(props["profile"]["default"], "extension");
        assert!(props["meta-prefix"].get("default").is_none());
        for p in props.values() {
            assert!(p["title"].is_string() && p["description"].is_string());
        }
    }
}
