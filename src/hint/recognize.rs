//! Which hint classes are the extension's `Tool`, and which are near misses (SPEC §2).
use crate::cwl::{CwlView, EXTENSION_NS};

/// What a `hints` / `requirements` entry's class is, with respect to the extension.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClassMatch {
    /// `P:Tool` with `P` bound to the extension namespace, or the full URI.
    Tool,
    /// `P:Tool` with `P` not bound at all.
    Unbound { prefix: String },
    /// `P:Tool` with `P` bound to a near miss of the namespace (or a near-miss full URI).
    Mismatch { prefix: Option<String>, uri: String },
    /// A bare `Tool` or `ToolAnnotations`.
    Bare { class: String },
    /// Anything else: not ours.
    Other,
}

/// The class names of the extension's vocabulary a hint may be written with: `Tool` is the
/// hint; `ToolAnnotations` is only ever a near miss at this level (it belongs under
/// `annotations`), but a prefix bound to a near-miss namespace is reported for it too.
const CLASS_NAMES: [&str; 2] = ["Tool", "ToolAnnotations"];

pub fn classify(view: &CwlView, class: &str) -> ClassMatch {
    if CLASS_NAMES.contains(&class) {
        return ClassMatch::Bare {
            class: class.to_string(),
        };
    }
    // A full URI: `<namespace>Tool` or `<namespace>ToolAnnotations`.
    if class.contains("://") {
        for local in CLASS_NAMES {
            let Some(uri) = class.strip_suffix(local) else {
                continue;
            };
            if uri == EXTENSION_NS {
                return if local == "Tool" {
                    ClassMatch::Tool
                } else {
                    ClassMatch::Other
                };
            }
            if is_near_miss(uri) {
                return ClassMatch::Mismatch {
                    prefix: None,
                    uri: uri.to_string(),
                };
            }
        }
        return ClassMatch::Other;
    }
    let Some((prefix, local)) = class.split_once(':') else {
        return ClassMatch::Other;
    };
    if !CLASS_NAMES.contains(&local) {
        return ClassMatch::Other;
    }
    match view.namespace(prefix) {
        Some(EXTENSION_NS) if local == "Tool" => ClassMatch::Tool,
        Some(EXTENSION_NS) => ClassMatch::Other,
        Some(uri) if is_near_miss(uri) => ClassMatch::Mismatch {
            prefix: Some(prefix.to_string()),
            uri: uri.to_string(),
        },
        Some(_) => ClassMatch::Other,
        None if local == "Tool" => ClassMatch::Unbound {
            prefix: prefix.to_string(),
        },
        None => ClassMatch::Other,
    }
}

/// The extension namespace's last path segment, which a near miss on another host keeps.
const EXTENSION_NAME: &str = "cwl-mcp-extension";

/// A URI that a user plausibly meant as the extension namespace (SPEC §5 `namespace-mismatch`):
/// it differs only by scheme, case, a missing `#` or a trailing `/`; or it is within two edits of
/// it; or it sits on another host with the same last path segment
/// (`https://github.com/eoap/cwl-mcp-extension#`), or within two edits of that segment; or its
/// path names `cwl-mcp` or `mcp-extension` (`_` read as `-`); or it is one of eoap's
/// (`eoap.github.io`, `github.com/eoap/…`) and names `mcp`. Unrelated vocabularies
/// (`https://schema.org/`, `http://edamontology.org/`) are not near misses.
pub fn is_near_miss(uri: &str) -> bool {
    if uri == EXTENSION_NS {
        return false;
    }
    let norm = |s: &str| {
        let s = s.trim().to_ascii_lowercase();
        let s = s
            .strip_prefix("https://")
            .or_else(|| s.strip_prefix("http://"))
            .map(str::to_string)
            .unwrap_or(s);
        s.trim_end_matches(['#', '/']).to_string()
    };
    let a = norm(uri);
    let b = norm(EXTENSION_NS);
    if a == b || edit_distance(&a, &b) <= 2 {
        return true;
    }
    let (host, path) = a.split_once('/').unwrap_or((a.as_str(), ""));
    let path = path.replace('_', "-");
    let last = path
        .split(['/', '#'])
        .rfind(|s| !s.is_empty())
        .unwrap_or_default();
    let last = last.strip_suffix(".git").unwrap_or(last);
    if edit_distance(last, EXTENSION_NAME) <= 2 {
        return true;
    }
    if path.contains("cwl-mcp") || path.contains("mcp-extension") {
        return true;
    }
    let eoap = host.contains("eoap") || path.starts_with("eoap/");
    eoap && path.contains("mcp")
}

fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    if a.len().abs_diff(b.len()) > 2 {
        return 3;
    }
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut cur = vec![i; b.len() + 1];
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            cur[j] = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::yaml::YamlDoc;

    #[test]
    fn classifies_the_tool_class_and_its_near_misses() {
        let doc = YamlDoc::parse(
            "$namespaces:\n  agent: https://eoap.github.io/cwl-mcp-extension#\n  \
             near: http://eoap.github.io/cwl-mcp-extension\n  s: https://schema.org/\n",
        );
        let view = CwlView::new(&doc);
        assert_eq!(classify(&view, "agent:Tool"), ClassMatch::Tool);
        assert_eq!(
            classify(&view, "https://eoap.github.io/cwl-mcp-extension#Tool"),
            ClassMatch::Tool
        );
        assert!(matches!(
            classify(&view, "near:Tool"),
            ClassMatch::Mismatch { .. }
        ));
        assert!(matches!(
            classify(&view, "mcp:Tool"),
            ClassMatch::Unbound { .. }
        ));
        assert!(matches!(classify(&view, "Tool"), ClassMatch::Bare { .. }));
        assert_eq!(classify(&view, "s:Tool"), ClassMatch::Other);
        assert_eq!(classify(&view, "DockerRequirement"), ClassMatch::Other);
        assert_eq!(classify(&view, "agent:Annotations"), ClassMatch::Other);
        // `ToolAnnotations` with a near-miss prefix or URI is a mismatch too; with the right
        // namespace it is not the hint (and not ours to report here).
        assert!(matches!(
            classify(&view, "near:ToolAnnotations"),
            ClassMatch::Mismatch { .. }
        ));
        assert!(matches!(
            classify(
                &view,
                "https://github.com/eoap/cwl-mcp-extension#ToolAnnotations"
            ),
            ClassMatch::Mismatch { prefix: None, .. }
        ));
        assert_eq!(classify(&view, "agent:ToolAnnotations"), ClassMatch::Other);
        assert_eq!(classify(&view, "s:ToolAnnotations"), ClassMatch::Other);
        assert_eq!(classify(&view, "zz:ToolAnnotations"), ClassMatch::Other);
        for uri in [
            "https://eoap.github.io/cwl-mcp-extension",
            "https://eoap.github.io/cwl-mcp-extension/",
            "https://EOAP.github.io/cwl-mcp-extension#",
            "https://eoap.github.io/cwl-mcp-extention#",
            // another host, the same last segment
            "https://github.com/eoap/cwl-mcp-extension#",
            "https://github.com/eoap/cwl-mcp-extension.git#",
            "https://example.org/ns/cwl-mcp-extension#",
            // a path naming `cwl-mcp` or `mcp-extension`
            "https://eoap.github.io/cwl-mcp#",
            "https://eoap.github.io/mcp-extension#",
            "https://github.com/eoap/cwl_mcp#",
            "https://w3id.org/cwl-mcp/v1#",
            // one-letter typos, in the host or the path
            "https://eoap.githb.io/cwl-mcp-extension#",
            "https://eoap.github.io/cwl-mcp-extensions#",
            "https://eoap.github.io/cwlmcp-extension#",
            "https://eoap.github.io/cwl-mcq-extension#",
            // the same segment, misspelled, elsewhere
            "https://github.com/eoap/cwl-mcp-extenshun#",
            // eoap's, naming mcp
            "https://eoap.github.io/mcp#",
            "https://github.com/eoap/mcp-tools#",
        ] {
            assert!(is_near_miss(uri), "{uri}");
        }
        for uri in [
            EXTENSION_NS,
            "https://schema.org/",
            "http://edamontology.org/",
            "https://w3id.org/cwl/cwl#",
            "http://commonwl.org/cwltool#",
            "https://eoap.github.io/schemas/string_format.yaml#",
            "https://eoap.github.io/cwl2ogc#",
            "https://example.org/not-mcp#",
            "https://modelcontextprotocol.io/",
            "http://purl.org/dc/terms/",
        ] {
            assert!(!is_near_miss(uri), "{uri}");
        }
    }
}
