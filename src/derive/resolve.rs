//! Where referenced files come from: local `$import` / `$include` targets inside a sandbox
//! folder (size-limited, no symlink escapes) and bundled copies of well-known remote schemas.
//! Nothing here touches the network.
use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

/// Largest local file read for `$import` / `$include`.
pub const MAX_FILE_BYTES: u64 = 4 * 1024 * 1024;

/// The URL whose records cwl2ogc flattens into `{"type": "string", "format": ...}`.
pub const STRING_FORMAT_URL: &str =
    "https://raw.githubusercontent.com/eoap/schemas/main/string_format.yaml";
/// Where the bundled eoap/schemas files live upstream.
pub const EOAP_SCHEMAS_BASE: &str = "https://raw.githubusercontent.com/eoap/schemas/main/";

/// Bundled copies of eoap/schemas, by path under [`EOAP_SCHEMAS_BASE`] (see
/// `assets/eoap/NOTICE.md` for their revisions).
const BUNDLED: &[(&str, &str)] = &[
    (
        "string_format.yaml",
        include_str!("../../assets/eoap/string_format.yaml"),
    ),
    (
        "geojson.yaml",
        include_str!("../../assets/eoap/geojson.yaml"),
    ),
    ("ogc.yaml", include_str!("../../assets/eoap/ogc.yaml")),
    ("stac.yaml", include_str!("../../assets/eoap/stac.yaml")),
    (
        "experimental/api-endpoint.yaml",
        include_str!("../../assets/eoap/experimental/api-endpoint.yaml"),
    ),
    (
        "experimental/discovery.yaml",
        include_str!("../../assets/eoap/experimental/discovery.yaml"),
    ),
    (
        "experimental/process.yaml",
        include_str!("../../assets/eoap/experimental/process.yaml"),
    ),
];

/// The text of a bundled remote schema, by its canonical URL.
pub fn bundled(url: &str) -> Option<&'static str> {
    let path = url.strip_prefix(EOAP_SCHEMAS_BASE)?;
    BUNDLED.iter().find(|(p, _)| *p == path).map(|(_, t)| *t)
}

/// Where a value (a type definition, a reference) was written.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Source {
    /// The document being analysed, when its path is unknown.
    Document,
    /// A local file (canonical path when it could be canonicalized).
    File(PathBuf),
    /// A remote document, known only by URL.
    Url(String),
}

impl Source {
    /// The URI used to build Salad-style full names (`<uri>#<name>`).
    pub fn uri(&self) -> String {
        match self {
            Source::Document => "file:///document.cwl".to_string(),
            Source::File(p) => format!("file://{}", p.display()),
            Source::Url(u) => u.clone(),
        }
    }

    /// The file name at the end of the source (for `string_format.yaml` checks).
    pub fn file_name(&self) -> &str {
        match self {
            Source::Document => "",
            Source::File(p) => p.file_name().and_then(|n| n.to_str()).unwrap_or(""),
            Source::Url(u) => u.rsplit('/').next().unwrap_or(""),
        }
    }
}

/// Why a reference could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unresolved {
    /// A remote URL with no bundled copy.
    Remote(String),
    /// A local path outside the sandbox folder (or reached through a symlink out of it).
    OutsideSandbox(String),
    /// Missing, unreadable, too large, or not valid YAML.
    Unreadable(String, String),
}

impl std::fmt::Display for Unresolved {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unresolved::Remote(r) => write!(f, "`{r}` is remote and no bundled copy exists"),
            Unresolved::OutsideSandbox(r) => {
                write!(f, "`{r}` is outside the folder that may be read")
            }
            Unresolved::Unreadable(r, why) => write!(f, "`{r}` cannot be read: {why}"),
        }
    }
}

/// Reads referenced documents for one derivation, caching each by source.
pub struct Loader {
    doc: Option<PathBuf>,
    doc_dir: Option<PathBuf>,
    root: Option<PathBuf>,
    cache: RefCell<HashMap<Source, Result<Value, Unresolved>>>,
}

impl Loader {
    /// `document`: the document's path; `sandbox`: the folder under which reads are allowed
    /// (defaults to the document's folder). Without a document path, only bundled URLs resolve.
    pub fn new(document: Option<&Path>, sandbox: Option<&Path>) -> Loader {
        let doc = document.map(|p| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf()));
        let doc_dir = doc.as_ref().and_then(|p| p.parent().map(Path::to_path_buf));
        let root = sandbox
            .map(|p| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf()))
            .or_else(|| doc_dir.clone());
        Loader {
            doc,
            doc_dir,
            root,
            cache: RefCell::new(HashMap::new()),
        }
    }

    /// Where it reads from (the document and the folder reads are allowed under), written out
    /// for [`super::types::TypeEnv::identity`].
    pub fn whereabouts(&self) -> String {
        format!("{:?}|{:?}", self.doc, self.root)
    }

    /// The source that stands for the document itself.
    pub fn document_source(&self) -> Source {
        match &self.doc {
            Some(p) => Source::File(p.clone()),
            None => Source::Document,
        }
    }

    /// The document's file name (`x.cwl`), if known.
    pub fn document_file_name(&self) -> Option<String> {
        self.doc
            .as_ref()
            .and_then(|p| p.file_name())
            .and_then(|n| n.to_str())
            .map(str::to_string)
    }

    /// Resolves `reference` (a path or URL, without fragment) written in `from`.
    pub fn locate(&self, reference: &str, from: &Source) -> Source {
        if let Some(path) = reference.strip_prefix("file://") {
            return Source::File(normalize_path(Path::new(path)));
        }
        if reference.contains("://") {
            return Source::Url(reference.to_string());
        }
        if reference.is_empty() {
            return from.clone();
        }
        match from {
            Source::Url(base) => {
                let dir = match base.rfind('/') {
                    Some(i) => &base[..=i],
                    None => base.as_str(),
                };
                Source::Url(join_url(dir, reference))
            }
            Source::File(p) => {
                let dir = p.parent().unwrap_or(Path::new("/"));
                Source::File(normalize_path(&dir.join(reference)))
            }
            Source::Document => match &self.doc_dir {
                Some(dir) => Source::File(normalize_path(&dir.join(reference))),
                None => Source::File(normalize_path(Path::new(reference))),
            },
        }
    }

    /// Loads the YAML/JSON document at `source`.
    pub fn load(&self, source: &Source) -> Result<Value, Unresolved> {
        if let Some(hit) = self.cache.borrow().get(source) {
            return hit.clone();
        }
        let result = match source {
            Source::Url(u) => match bundled(u) {
                Some(text) => parse_yaml(text).map_err(|e| Unresolved::Unreadable(u.clone(), e)),
                None => Err(Unresolved::Remote(u.clone())),
            },
            Source::File(p) => self
                .read_text(p)
                .and_then(|t| parse_yaml(&t).map_err(|e| Unresolved::Unreadable(shown(p), e))),
            Source::Document => Err(Unresolved::Unreadable(
                "the document".into(),
                "no path".into(),
            )),
        };
        self.cache
            .borrow_mut()
            .insert(source.clone(), result.clone());
        result
    }

    /// Reads the text of a local file for `$include`.
    pub fn include(&self, source: &Source) -> Result<String, Unresolved> {
        match source {
            Source::File(p) => self.read_text(p),
            Source::Url(u) => bundled(u)
                .map(str::to_string)
                .ok_or_else(|| Unresolved::Remote(u.clone())),
            Source::Document => Err(Unresolved::Unreadable(
                "the document".into(),
                "no path".into(),
            )),
        }
    }

    /// Whether a local path exists inside the sandbox (used for `File` defaults).
    pub fn exists_in_sandbox(&self, path: &Path) -> bool {
        self.checked_path(path).is_ok()
    }

    fn checked_path(&self, path: &Path) -> Result<PathBuf, Unresolved> {
        let Some(root) = &self.root else {
            return Err(Unresolved::OutsideSandbox(shown(path)));
        };
        // Lexically inside the root first, then again after following symlinks.
        if !normalize_path(path).starts_with(root) {
            return Err(Unresolved::OutsideSandbox(shown(path)));
        }
        let real = std::fs::canonicalize(path)
            .map_err(|e| Unresolved::Unreadable(shown(path), e.kind().to_string()))?;
        if !real.starts_with(root) {
            return Err(Unresolved::OutsideSandbox(shown(path)));
        }
        Ok(real)
    }

    fn read_text(&self, path: &Path) -> Result<String, Unresolved> {
        let real = self.checked_path(path)?;
        let meta = std::fs::metadata(&real)
            .map_err(|e| Unresolved::Unreadable(shown(path), e.kind().to_string()))?;
        if !meta.is_file() {
            return Err(Unresolved::Unreadable(shown(path), "not a file".into()));
        }
        if meta.len() > MAX_FILE_BYTES {
            return Err(Unresolved::Unreadable(
                shown(path),
                format!("larger than {MAX_FILE_BYTES} bytes"),
            ));
        }
        std::fs::read_to_string(&real)
            .map_err(|e| Unresolved::Unreadable(shown(path), e.kind().to_string()))
    }
}

fn shown(p: &Path) -> String {
    p.file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("?")
        .to_string()
}

/// Parses YAML 1.2 (or JSON) into a JSON value. The error names only a position, never the
/// file's content.
pub fn parse_yaml(text: &str) -> Result<Value, String> {
    serde_norway::from_str::<Value>(text).map_err(|e| match e.location() {
        Some(l) => format!("not valid YAML (line {}, column {})", l.line(), l.column()),
        None => "not valid YAML for a CWL document".to_string(),
    })
}

/// Removes `.` and `..` components without touching the file system.
pub fn normalize_path(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
}

fn join_url(dir: &str, reference: &str) -> String {
    let mut parts: Vec<&str> = dir.trim_end_matches('/').split('/').collect();
    for seg in reference.split('/') {
        match seg {
            ".." => {
                // Keep `scheme://host`.
                if parts.len() > 3 {
                    parts.pop();
                }
            }
            "." | "" => {}
            s => parts.push(s),
        }
    }
    parts.join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bundled_urls_parse() {
        for (path, _) in BUNDLED {
            let url = format!("{EOAP_SCHEMAS_BASE}{path}");
            let loader = Loader::new(None, None);
            let v = loader.load(&Source::Url(url.clone())).unwrap();
            assert!(v.as_array().is_some_and(|a| !a.is_empty()), "{url}");
        }
    }

    #[test]
    fn parse_errors_do_not_quote_the_file() {
        let e = parse_yaml("a: [secret-token\nb: }").unwrap_err();
        assert!(!e.contains("secret"), "{e}");
        assert!(e.starts_with("not valid YAML"), "{e}");
    }

    #[test]
    fn remote_without_copy_is_unresolved() {
        let loader = Loader::new(None, None);
        let src = Source::Url("https://example.org/x.yaml".into());
        assert!(matches!(loader.load(&src), Err(Unresolved::Remote(_))));
    }

    #[test]
    fn url_join_is_relative_to_the_folder() {
        let loader = Loader::new(None, None);
        let from = Source::Url(STRING_FORMAT_URL.into());
        assert_eq!(
            loader.locate("geojson.yaml", &from),
            Source::Url(format!("{EOAP_SCHEMAS_BASE}geojson.yaml"))
        );
        assert_eq!(
            loader.locate("../x.yaml", &from),
            Source::Url("https://raw.githubusercontent.com/eoap/schemas/x.yaml".into())
        );
    }

    #[test]
    fn reads_stay_inside_the_sandbox() {
        let dir =
            std::env::temp_dir().join(format!("cwl-mcp-derive-sandbox-{}", std::process::id()));
        let inner = dir.join("inner");
        std::fs::create_dir_all(&inner).unwrap();
        std::fs::write(dir.join("outside.yaml"), "- a\n").unwrap();
        std::fs::write(inner.join("inside.yaml"), "- b\n").unwrap();
        let doc = inner.join("doc.cwl");
        let loader = Loader::new(Some(&doc), None);
        let from = loader.document_source();
        let ok = loader.locate("inside.yaml", &from);
        assert_eq!(loader.load(&ok).unwrap(), serde_json::json!(["b"]));
        let out = loader.locate("../outside.yaml", &from);
        assert!(matches!(
            loader.load(&out),
            Err(Unresolved::OutsideSandbox(_))
        ));
        #[cfg(unix)]
        {
            let link = inner.join("link.yaml");
            let _ = std::fs::remove_file(&link);
            std::os::unix::fs::symlink(dir.join("outside.yaml"), &link).unwrap();
            let via = loader.locate("link.yaml", &from);
            assert!(matches!(
                loader.load(&via),
                Err(Unresolved::OutsideSandbox(_))
            ));
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
