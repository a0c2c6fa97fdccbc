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

pub fn classify(view: &CwlView, class: &str) -> ClassMatch {
    if class == "Tool" || class == "ToolAnnotations" {
        return ClassMatch::Bare {
            class: class.to_string(),
        };
    }
    if let Some(uri) = class.strip_suffix("Tool")
        && uri.contains("://")
    {
        if uri == EXTENSION_NS {
            return ClassMatch::Tool;
        }
        if is_near_miss(uri) {
            return ClassMatch::Mismatch {
                prefix: None,
                uri: uri.to_string(),
            };
        }
        return ClassMatch::Other;
    }
    let Some((prefix, local)) = class.split_once(':') else {
        return ClassMatch::Other;
    };
    if local != "Tool" {
        return ClassMatch::Other;
    }
    match view.namespace(prefix) {
        Some(EXTENSION_NS) => ClassMatch::Tool,
        Some(uri) if is_near_miss(uri) => ClassMatch::Mismatch {
            prefix: Some(prefix.to_string()),
            uri: uri.to_string(),
        },
        Some(_) => ClassMatch::Other,
        None => ClassMatch::Unbound {
            prefix: prefix.to_string(),
        },
    }
}

/// A URI that differs from the extension namespace only by scheme, case, a missing `#`, a
/// trailing `/`, or a typo of at most two characters.
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
    a == b || edit_distance(&a, &b) <= 2
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
        for uri in [
            "https://eoap.github.io/cwl-mcp-extension",
            "https://eoap.github.io/cwl-mcp-extension/",
            "https://EOAP.github.io/cwl-mcp-extension#",
            "https://eoap.github.io/cwl-mcp-extention#",
        ] {
            assert!(is_near_miss(uri), "{uri}");
        }
        assert!(!is_near_miss("https://schema.org/"));
    }
}
