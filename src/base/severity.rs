//! The four severities of LSP, as every surface names them.

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    Error,
    Warning,
    Information,
    Hint,
}

impl Severity {
    /// The LSP name, as the CLI prints it.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Information => "information",
            Severity::Hint => "hint",
        }
    }

    /// The severity named by [`Severity::as_str`].
    pub fn parse(text: &str) -> Option<Severity> {
        [
            Severity::Error,
            Severity::Warning,
            Severity::Information,
            Severity::Hint,
        ]
        .into_iter()
        .find(|s| s.as_str() == text)
    }
}
