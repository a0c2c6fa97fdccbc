//! Settings shared by the CLI, the project file `cwl-mcp.toml` and the editor (SPEC §1).
use serde::{Deserialize, Serialize};

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
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            profile: Profile::Extension,
            meta_prefix: None,
            protocol_version: ProtocolVersion::default(),
            inlay_hints: true,
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
