//! Layered settings (SPEC §1): built-in defaults < `cwl-mcp.toml` < explicit editor settings
//! < CLI flags. Each layer sets only what it names.
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::base::settings::{Profile, ProtocolVersion, Settings};

pub const PROJECT_FILE: &str = "cwl-mcp.toml";

/// One layer of settings: each field is set only when the layer names it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Layer {
    pub profile: Option<Profile>,
    pub meta_prefix: Option<String>,
    pub protocol_version: Option<ProtocolVersion>,
    pub inlay_hints: Option<bool>,
}

impl Layer {
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
        }
        s
    }

    /// Reads the editor's `cwlMcp` settings object; unknown or ill-typed values are reported.
    pub fn from_json(value: &serde_json::Value) -> (Layer, Vec<String>) {
        let mut layer = Layer::default();
        let mut problems = Vec::new();
        let Some(obj) = value.as_object() else {
            if !value.is_null() {
                problems.push("the `cwlMcp` settings must be an object".to_string());
            }
            return (layer, problems);
        };
        for (key, v) in obj {
            match key.as_str() {
                "profile" => match v.as_str().and_then(Profile::parse) {
                    Some(p) => layer.profile = Some(p),
                    None if v.is_null() => {}
                    None => problems.push(format!(
                        "cwlMcp.profile: expected \"extension\" or \"cwl2mcp\", found {v}"
                    )),
                },
                "metaPrefix" => match v.as_str() {
                    Some(m) => layer.meta_prefix = Some(m.to_string()),
                    None if v.is_null() => {}
                    None => problems.push(format!("cwlMcp.metaPrefix: expected a string, found {v}")),
                },
                "protocolVersion" => match v.as_str().and_then(ProtocolVersion::parse) {
                    Some(p) => layer.protocol_version = Some(p),
                    None if v.is_null() => {}
                    None => problems.push(format!(
                        "cwlMcp.protocolVersion: expected 2026-07-28, 2025-11-25 or 2025-06-18, found {v}"
                    )),
                },
                "inlayHints" => match v.as_bool() {
                    Some(b) => layer.inlay_hints = Some(b),
                    None if v.is_null() => {}
                    None => problems.push(format!("cwlMcp.inlayHints: expected a boolean, found {v}")),
                },
                // Settings the editor extension keeps for itself.
                "server" | "trace" => {}
                other => problems.push(format!("cwlMcp.{other}: unknown setting")),
            }
        }
        (layer, problems)
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct ProjectFile {
    profile: Option<String>,
    meta_prefix: Option<String>,
    protocol_version: Option<String>,
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

/// Parses the text of a `cwl-mcp.toml`.
pub fn parse_project_file(path: &Path, text: &str) -> Result<Layer, ConfigError> {
    let err = |message: String, span| ConfigError {
        path: path.to_path_buf(),
        message,
        span,
    };
    let file: ProjectFile =
        toml::from_str(text).map_err(|e| err(e.message().to_string(), e.span()))?;
    let mut layer = Layer::default();
    if let Some(p) = file.profile {
        layer.profile = Some(Profile::parse(&p).ok_or_else(|| {
            err(
                format!("profile: expected \"extension\" or \"cwl2mcp\", found \"{p}\""),
                None,
            )
        })?);
    }
    layer.meta_prefix = file.meta_prefix;
    if let Some(v) = file.protocol_version {
        layer.protocol_version = Some(ProtocolVersion::parse(&v).ok_or_else(|| {
            err(
                format!(
                    "protocol-version: expected 2026-07-28, 2025-11-25 or 2025-06-18, found \"{v}\""
                ),
                None,
            )
        })?);
    }
    Ok(layer)
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
