//! Diagnostics as plain data: a byte span, a [`Code`] (which carries its default severity and
//! its documentation link), a message, related places, and the edits that fix it.
use std::ops::Range;

use super::settings::Profile;

/// Where the codes are documented; sent as `codeDescription.href` (`#code` anchors).
pub const DOCS_URL: &str = "https://github.com/eoap/cwl-mcp-lsp/blob/main/docs/diagnostics.md";

pub use super::severity::Severity;

macro_rules! codes {
    ($($variant:ident = $text:literal,)*) => {
        /// The stable diagnostic codes of SPEC §5, the derivation engine's own codes, and
        /// `config` (a malformed `cwl-mcp.toml`).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Code {
            $($variant,)*
        }

        impl Code {
            pub const ALL: &'static [Code] = &[$(Code::$variant,)*];

            pub fn as_str(self) -> &'static str {
                match self {
                    $(Code::$variant => $text,)*
                }
            }

            pub fn parse(text: &str) -> Option<Code> {
                match text {
                    $($text => Some(Code::$variant),)*
                    _ => None,
                }
            }
        }
    };
}

codes! {
    YamlSyntax = "yaml-syntax",
    NamespaceUnbound = "namespace-unbound",
    NamespaceMismatch = "namespace-mismatch",
    HintBareClass = "hint-bare-class",
    HintInRequirements = "hint-in-requirements",
    HintDuplicate = "hint-duplicate",
    UnknownField = "unknown-field",
    MissingField = "missing-field",
    InvalidType = "invalid-type",
    AnnotationsClass = "annotations-class",
    NameInvalid = "name-invalid",
    DocNotString = "doc-not-string",
    AnnotationIgnored = "annotation-ignored",
    AnnotationInconsistent = "annotation-inconsistent",
    AnnotationDefault = "annotation-default",
    Cwl2mcpIncompatible = "cwl2mcp-incompatible",
    ToolNameDuplicate = "tool-name-duplicate",
    McpSchema = "mcp-schema",
    McpClientInterop = "mcp-client-interop",
    NameClientCompat = "name-client-compat",
    AgentContext = "agent-context",
    UnresolvedReference = "unresolved-reference",
    RecursiveType = "recursive-type",
    TypeTooComplex = "type-too-complex",
    DefaultFileObject = "default-file-object",
    Config = "config",
    RunTargetMissing = "run-target-missing",
    HintOnStep = "hint-on-step",
}

impl Code {
    /// The severity SPEC §5 gives the code under `profile`. Derivation problems that block the
    /// Tool are errors whatever their code (see `derive::Problem`).
    pub fn severity(self, profile: Profile) -> Severity {
        use Code::*;
        match self {
            YamlSyntax | HintInRequirements | UnknownField | MissingField | InvalidType
            | AnnotationsClass | NameInvalid | McpSchema | Config | RunTargetMissing => {
                Severity::Error
            }
            DocNotString => match profile {
                Profile::Cwl2mcp => Severity::Error,
                Profile::Extension => Severity::Information,
            },
            NamespaceUnbound
            | NamespaceMismatch
            | HintBareClass
            | HintDuplicate
            | AnnotationIgnored
            | AnnotationInconsistent
            | ToolNameDuplicate
            | UnresolvedReference
            | RecursiveType
            | TypeTooComplex
            | DefaultFileObject
            | HintOnStep => Severity::Warning,
            // The cwl2mcp shape is kept on purpose under `cwl2mcp`: never an error there.
            McpClientInterop => match profile {
                Profile::Extension => Severity::Warning,
                Profile::Cwl2mcp => Severity::Information,
            },
            Cwl2mcpIncompatible | NameClientCompat => Severity::Information,
            AnnotationDefault | AgentContext => Severity::Hint,
        }
    }

    /// The documentation of the code (`codeDescription.href`).
    pub fn doc_url(self) -> String {
        format!("{DOCS_URL}#{}", self.as_str())
    }
}

impl std::fmt::Display for Code {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Another place a diagnostic concerns (`relatedInformation`): in this document (`uri: None`)
/// or in another one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Related {
    pub uri: Option<String>,
    /// Byte span in this document; for another document, a 0-based line and its start.
    pub span: Range<usize>,
    pub line: Option<u32>,
    pub message: String,
}

/// One finding, with a byte range into the document text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub span: Range<usize>,
    pub severity: Severity,
    pub code: Code,
    pub message: String,
    pub related: Vec<Related>,
}

impl Diagnostic {
    pub fn new(
        span: Range<usize>,
        severity: Severity,
        code: Code,
        message: impl Into<String>,
    ) -> Self {
        Diagnostic {
            span,
            severity,
            code,
            message: message.into(),
            related: Vec::new(),
        }
    }

    /// The order every surface lists diagnostics in.
    pub fn sort_key(&self) -> (usize, usize, Code, &str) {
        (self.span.start, self.span.end, self.code, &self.message)
    }
}

/// A text edit: replace the bytes `span` with `new_text`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edit {
    pub span: Range<usize>,
    pub new_text: String,
}

impl Edit {
    pub fn new(span: Range<usize>, new_text: impl Into<String>) -> Edit {
        Edit {
            span,
            new_text: new_text.into(),
        }
    }

    pub fn insert(at: usize, new_text: impl Into<String>) -> Edit {
        Edit::new(at..at, new_text)
    }
}

/// Applies non-overlapping edits to `text` (as an editor does with one workspace edit).
/// Returns `None` when two edits overlap or one is out of the text.
pub fn apply_edits(text: &str, edits: &[Edit]) -> Option<String> {
    let mut sorted: Vec<&Edit> = edits.iter().collect();
    sorted.sort_by_key(|e| (e.span.start, e.span.end));
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for edit in sorted {
        if edit.span.start < at
            || edit.span.end > text.len()
            || edit.span.start > edit.span.end
            || !text.is_char_boundary(edit.span.start)
            || !text.is_char_boundary(edit.span.end)
        {
            return None;
        }
        out.push_str(&text[at..edit.span.start]);
        out.push_str(&edit.new_text);
        at = edit.span.end;
    }
    out.push_str(&text[at..]);
    Some(out)
}

impl PartialEq<&str> for Code {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<str> for Code {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edits_apply_in_order_and_overlaps_are_refused() {
        let text = "a: 1\nb: 2\n";
        let edits = [Edit::new(8..9, "3"), Edit::insert(0, "# x\n")];
        assert_eq!(apply_edits(text, &edits).unwrap(), "# x\na: 1\nb: 3\n");
        assert!(apply_edits(text, &[Edit::new(0..3, ""), Edit::new(2..4, "")]).is_none());
        assert!(apply_edits(text, &[Edit::new(9..99, "")]).is_none());
    }

    #[test]
    fn codes_round_trip_and_are_documented() {
        let doc = include_str!("../../docs/diagnostics.md");
        for code in Code::ALL {
            assert_eq!(Code::parse(code.as_str()), Some(*code));
            assert!(
                doc.contains(&format!("`{}`", code.as_str())),
                "{code} is not in docs/diagnostics.md"
            );
        }
    }
}
