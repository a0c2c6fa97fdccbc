//! Where a document lives: its name, URI, path, and the folder local reads must stay in.
use std::path::{Path, PathBuf};

use super::project::PROJECT_FILE;

/// What analysis needs besides the text: where the document lives.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct DocumentContext {
    /// The document's file name without extension, for the extension profile's name fallback.
    pub file_stem: String,
    /// The document's URI (`file:///…`), which cwl2mcp uses as the key of a process without id.
    pub uri: String,
    /// The document's path, when it is a file (local `$import`/`$include` are read from it).
    pub path: Option<PathBuf>,
    /// The folder local reads must stay in ([`read_boundary`]); default: the document's folder.
    pub sandbox_root: Option<PathBuf>,
}

impl DocumentContext {
    pub fn from_path(path: &Path) -> DocumentContext {
        let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
        DocumentContext {
            file_stem: path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default(),
            uri: format!("file://{}", abs.display()),
            path: Some(abs),
            sandbox_root: None,
        }
    }

    pub fn from_uri(uri: &str) -> DocumentContext {
        let last = uri.rsplit('/').next().unwrap_or(uri);
        let stem = last.rsplit_once('.').map_or(last, |(s, _)| s);
        DocumentContext {
            file_stem: percent_decode(stem),
            uri: uri.to_string(),
            path: None,
            sandbox_root: None,
        }
    }

    /// The same context with its read boundary set.
    pub fn within(mut self, boundary: Option<PathBuf>) -> DocumentContext {
        self.sandbox_root = boundary;
        self
    }
}

/// Where a read boundary comes from (SPEC §9).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoundaryRule {
    /// The language server: the workspace folders; with none holding the document, the
    /// nearest parent holding `.git` or `cwl-mcp.toml`, else the document's folder.
    Editor,
    /// The command line: the current directory or any path given (a file: its folder).
    CommandLine,
}

/// The one read-boundary rule (SPEC §9), for the server, `check`, `derive` and `tools-list`:
/// the outermost of `roots` that holds `document`; else, for the editor, the nearest parent
/// holding `.git` or `cwl-mcp.toml`; else the document's own folder. `roots` are absolute:
/// workspace folders for the editor; the current directory and the paths given for the CLI.
pub fn read_boundary(document: &Path, roots: &[PathBuf], rule: BoundaryRule) -> PathBuf {
    let document = std::path::absolute(document).unwrap_or_else(|_| document.to_path_buf());
    let dir = document.parent().unwrap_or(Path::new("/")).to_path_buf();
    let root = roots
        .iter()
        .map(|r| {
            if rule == BoundaryRule::CommandLine && r.is_file() {
                r.parent().unwrap_or(r).to_path_buf()
            } else {
                r.clone()
            }
        })
        .filter(|r| document.starts_with(r))
        .min_by_key(|r| r.as_os_str().len());
    if let Some(root) = root {
        return root;
    }
    if rule == BoundaryRule::Editor
        && let Some(marked) = dir
            .ancestors()
            .find(|d| d.join(".git").exists() || d.join(PROJECT_FILE).is_file())
    {
        return marked.to_path_buf();
    }
    dir
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let Ok(b) = u8::from_str_radix(&s[i + 1..i + 3], 16)
        {
            out.push(b);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_outermost_root_holding_the_document_bounds_reads() {
        let roots = vec![PathBuf::from("/w"), PathBuf::from("/w/pkg")];
        let doc = Path::new("/w/pkg/tools/a.cwl");
        assert_eq!(
            read_boundary(doc, &roots, BoundaryRule::CommandLine),
            PathBuf::from("/w")
        );
        assert_eq!(
            read_boundary(
                Path::new("/elsewhere/b.cwl"),
                &roots,
                BoundaryRule::CommandLine
            ),
            PathBuf::from("/elsewhere")
        );
    }

    #[test]
    fn names_come_from_the_uri() {
        let c = DocumentContext::from_uri("file:///w/My%20Tool.cwl");
        assert_eq!(c.file_stem, "My Tool");
    }
}
