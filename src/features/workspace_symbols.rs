//! Workspace symbols (SPEC §10): every derived Tool of the workspace by name, from the index
//! entries of the files (open documents' entries taken from their current text by the caller).
use crate::model::index::IndexEntry;

/// One Tool of the workspace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolSymbol {
    pub name: String,
    pub title: Option<String>,
    /// The URI of the file.
    pub uri: String,
    /// 0-based line of the Tool's anchor.
    pub line: u32,
    /// The process key.
    pub key: String,
}

/// Whether `query` matches `name`: empty, or its characters in order (case-insensitive), as
/// editors' symbol pickers filter.
pub fn matches(query: &str, name: &str) -> bool {
    let name = name.to_lowercase();
    let mut chars = name.chars();
    query
        .to_lowercase()
        .chars()
        .all(|q| chars.by_ref().any(|c| c == q))
}

/// The Tools of `files` (URI and entry) whose name matches `query`, sorted by name then URI.
pub fn workspace_symbols<'a>(
    query: &str,
    files: impl IntoIterator<Item = (&'a str, &'a IndexEntry)>,
) -> Vec<ToolSymbol> {
    let mut out: Vec<ToolSymbol> = files
        .into_iter()
        .flat_map(|(uri, entry)| {
            entry
                .tools
                .iter()
                .filter(|t| matches(query, &t.name))
                .map(move |t| ToolSymbol {
                    name: t.name.clone(),
                    title: t.title.clone(),
                    uri: uri.to_string(),
                    line: t.line,
                    key: t.key.clone(),
                })
        })
        .collect();
    out.sort_by(|a, b| (&a.name, &a.uri, a.line).cmp(&(&b.name, &b.uri, b.line)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::index::{IndexedTool, Stamp};

    fn entry(names: &[&str]) -> IndexEntry {
        IndexEntry {
            stamp: Stamp::Open(1),
            names: vec![],
            tools: names
                .iter()
                .enumerate()
                .map(|(i, n)| IndexedTool {
                    name: n.to_string(),
                    title: Some(format!("T {n}")),
                    description: None,
                    key: n.to_string(),
                    id: None,
                    line: i as u32,
                })
                .collect(),
            references: vec![],
            run_files: vec![],
            failures: vec![],
        }
    }

    #[test]
    fn lists_every_tool_filtered_by_the_query() {
        let a = entry(&["flagstat", "sort_bam"]);
        let b = entry(&["echo"]);
        let all = workspace_symbols("", [("file:///a.cwl", &a), ("file:///b.cwl", &b)]);
        let names: Vec<&str> = all.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["echo", "flagstat", "sort_bam"]);
        assert_eq!(all[2].line, 1);
        let some = workspace_symbols("SRT", [("file:///a.cwl", &a), ("file:///b.cwl", &b)]);
        assert_eq!(some.len(), 1);
        assert_eq!(some[0].name, "sort_bam");
        assert_eq!(some[0].uri, "file:///a.cwl");
    }
}
