//! `check --format github`: GitHub Actions workflow commands, one line per diagnostic, which the
//! runner turns into inline annotations:
//! `::error file=PATH,line=L,col=C,endLine=L2,endColumn=C2,title=CODE::MESSAGE`.
//! `warning` is `::warning`; `information` and `hint` are `::notice`. Escaping is the Actions
//! toolkit's (`@actions/core` `command.ts`): in the message `%`, `\r`, `\n`; in properties also
//! `:` and `,`.
use std::path::Path;

use crate::base::Severity;

use super::report::Reported;
use super::sarif::artifact_path;

/// The workflow command of a severity.
pub fn command_name(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Information | Severity::Hint => "notice",
    }
}

/// Escapes a command's message (`escapeData`).
pub fn escape_data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escapes a property value (`escapeProperty`).
pub fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}

/// The workflow command line of one diagnostic. `file` is relative to `cwd` (the workspace the
/// job runs in, where GitHub resolves it) when the file is under it.
pub fn command(r: &Reported, cwd: &Path) -> String {
    let file =
        artifact_path(&r.path, cwd).unwrap_or_else(|abs| abs.to_string_lossy().replace('\\', "/"));
    format!(
        "::{} file={},line={},col={},endLine={},endColumn={},title={}::{}",
        command_name(r.severity()),
        escape_property(&file),
        r.line,
        r.column,
        r.end_line,
        r.end_column,
        escape_property(&format!("{} ({})", r.code, r.severity)),
        escape_data(&r.message)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_as_the_toolkit_does() {
        assert_eq!(escape_data("50% a\r\nb: c, d"), "50%25 a%0D%0Ab: c, d");
        assert_eq!(escape_property("a:b,c%"), "a%3Ab%2Cc%25");
        let r = Reported {
            path: "dir/a,b.cwl".into(),
            line: 2,
            column: 3,
            end_line: 2,
            end_column: 9,
            severity: "hint",
            code: "annotation-default",
            message: "x: 100%\nnext".into(),
        };
        assert_eq!(
            command(&r, Path::new("/w")),
            "::notice file=dir/a%2Cb.cwl,line=2,col=3,endLine=2,endColumn=9,\
             title=annotation-default (hint)::x: 100%25%0Anext"
        );
    }
}
