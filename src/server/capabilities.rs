//! What the client can take, read once from `InitializeParams.capabilities` (SPEC §6), and the
//! pure functions that fit the features' plain data to it: snippets become plain text, markdown
//! becomes plain text, and multi-line insertions are written for the client's indentation rule.
//! `convert` applies them; the features never see the client. Also what the client declared
//! that changes what the server does ([`ClientFeatures`]: pull or push diagnostics, refreshes,
//! watchers), and the capabilities the server advertises ([`server_capabilities`]).
use tower_lsp_server::ls_types::*;

use crate::features::preview::PREVIEW_COMMAND;

/// The command a quick fix becomes for a client without `codeActionLiteralSupport`: its one
/// argument is the fix's `WorkspaceEdit`, which the server sends back with
/// `workspace/applyEdit`.
pub const APPLY_EDIT_COMMAND: &str = "cwl-mcp.applyEdit";

/// The shape of what the server sends, as the client declared it. `Default` is the LSP
/// baseline: a client that declares nothing gets plain text, commands and flat symbols.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ClientShape {
    /// `completionItem.snippetSupport`.
    pub snippets: bool,
    /// `completionItem.documentationFormat` lists markdown.
    pub completion_markdown: bool,
    /// `completionItem.preselectSupport`.
    pub preselect: bool,
    /// `completionItem.insertTextModeSupport.valueSet` lists `asIs`.
    pub insert_as_is: bool,
    /// `hover.contentFormat` lists markdown (also used for inlay hint tooltips, which have no
    /// format capability of their own).
    pub hover_markdown: bool,
    /// `codeAction.codeActionLiteralSupport`.
    pub code_action_literals: bool,
    /// `codeAction.isPreferredSupport`.
    pub is_preferred: bool,
    /// `documentSymbol.hierarchicalDocumentSymbolSupport`.
    pub hierarchical_symbols: bool,
    /// `workspace.applyEdit`: quick fixes can reach a client without code action literals as
    /// commands that the server applies.
    pub apply_edit: bool,
    /// `publishDiagnostics.codeDescriptionSupport`: diagnostics carry their documentation link.
    pub code_description: bool,
    /// `publishDiagnostics.relatedInformation`: diagnostics carry the other places they concern.
    pub related_information: bool,
    /// `documentLink.tooltipSupport`: document links carry a tooltip.
    pub link_tooltip: bool,
    /// `definition.linkSupport`: definitions are `LocationLink`s (else `Location`s).
    pub definition_links: bool,
}

impl ClientShape {
    pub fn from_capabilities(caps: &ClientCapabilities) -> ClientShape {
        let text = caps.text_document.as_ref();
        let completion: Option<&CompletionClientCapabilities> =
            text.and_then(|t| t.completion.as_ref());
        let item = completion.and_then(|c| c.completion_item.as_ref());
        let code_action: Option<&CodeActionClientCapabilities> =
            text.and_then(|t| t.code_action.as_ref());
        let lists_markdown = |formats: Option<&Vec<MarkupKind>>| {
            formats.is_some_and(|f| f.contains(&MarkupKind::Markdown))
        };
        ClientShape {
            snippets: item.and_then(|i| i.snippet_support).unwrap_or(false),
            completion_markdown: lists_markdown(item.and_then(|i| i.documentation_format.as_ref())),
            preselect: item.and_then(|i| i.preselect_support).unwrap_or(false),
            insert_as_is: item
                .and_then(|i| i.insert_text_mode_support.as_ref())
                .is_some_and(|m| m.value_set.contains(&InsertTextMode::AS_IS)),
            hover_markdown: lists_markdown(
                text.and_then(|t| t.hover.as_ref())
                    .and_then(|h| h.content_format.as_ref()),
            ),
            code_action_literals: code_action
                .is_some_and(|c| c.code_action_literal_support.is_some()),
            is_preferred: code_action
                .and_then(|c| c.is_preferred_support)
                .unwrap_or(false),
            hierarchical_symbols: text
                .and_then(|t| t.document_symbol.as_ref())
                .and_then(|s| s.hierarchical_document_symbol_support)
                .unwrap_or(false),
            apply_edit: caps
                .workspace
                .as_ref()
                .and_then(|w| w.apply_edit)
                .unwrap_or(false),
            code_description: text
                .and_then(|t| t.publish_diagnostics.as_ref())
                .and_then(|p| p.code_description_support)
                .unwrap_or(false),
            related_information: text
                .and_then(|t| t.publish_diagnostics.as_ref())
                .and_then(|p| p.related_information)
                .unwrap_or(false),
            link_tooltip: text
                .and_then(|t| t.document_link.as_ref())
                .and_then(|l| l.tooltip_support)
                .unwrap_or(false),
            definition_links: text
                .and_then(|t| t.definition.as_ref())
                .and_then(|d| d.link_support)
                .unwrap_or(false),
        }
    }

    /// Quick fixes reach this client as `APPLY_EDIT_COMMAND` commands (and the server lists
    /// that command).
    pub fn fixes_as_commands(&self) -> bool {
        !self.code_action_literals && self.apply_edit
    }
}

/// The text a snippet inserts when each placeholder keeps its default and each choice its
/// first option: tabstops (`$1`, `${1}`, `$0`) vanish, `${1:default}` (nested too) becomes
/// its default, `${1|a,b|}` becomes `a`, variables become their default or nothing, and the
/// escapes `\$`, `\}`, `\\` (and `\,`, `\|` in choices) are undone.
pub fn snippet_to_plain(snippet: &str) -> String {
    let chars: Vec<char> = snippet.chars().collect();
    let mut out = String::with_capacity(snippet.len());
    let mut i = 0;
    plain_until(&chars, &mut i, &mut out);
    // A `}` that closes nothing is literal text: copied, and the reading goes on.
    while i < chars.len() {
        out.push(chars[i]);
        i += 1;
        plain_until(&chars, &mut i, &mut out);
    }
    out
}

/// Appends the plain text of `chars[*i..]` up to the next unescaped `}` outside a construct
/// (the one closing the placeholder being read) or the end, leaving `*i` on that `}`.
fn plain_until(chars: &[char], i: &mut usize, out: &mut String) {
    while *i < chars.len() {
        let c = chars[*i];
        match c {
            '\\' if matches!(chars.get(*i + 1), Some('$' | '}' | '\\')) => {
                out.push(chars[*i + 1]);
                *i += 2;
            }
            // Closes the placeholder (`nested`), or is literal text that the caller copies.
            '}' => return,
            '$' => {
                if !dollar(chars, i, out) {
                    out.push('$');
                    *i += 1;
                }
            }
            _ => {
                out.push(c);
                *i += 1;
            }
        }
    }
}

fn is_var_start(c: char) -> bool {
    c == '_' || c.is_ascii_alphabetic()
}

fn is_var(c: char) -> bool {
    c == '_' || c.is_ascii_alphanumeric()
}

/// A `$` construct at `chars[*i]`: consumed with its plain text appended, or `false` when the
/// `$` is literal.
fn dollar(chars: &[char], i: &mut usize, out: &mut String) -> bool {
    let start = *i;
    let mut j = start + 1;
    match chars.get(j) {
        // `$1`, `$name`: nothing (an unknown variable is empty).
        Some(c) if c.is_ascii_digit() || is_var_start(*c) => {
            let digit = c.is_ascii_digit();
            while chars.get(j).is_some_and(|c| {
                if digit {
                    c.is_ascii_digit()
                } else {
                    is_var(*c)
                }
            }) {
                j += 1;
            }
            *i = j;
            true
        }
        Some('{') => {
            j += 1;
            let digit = chars.get(j).is_some_and(|c| c.is_ascii_digit());
            if !chars
                .get(j)
                .is_some_and(|c| c.is_ascii_digit() || is_var_start(*c))
            {
                return false;
            }
            while chars.get(j).is_some_and(|c| {
                if digit {
                    c.is_ascii_digit()
                } else {
                    is_var(*c)
                }
            }) {
                j += 1;
            }
            match chars.get(j) {
                Some('}') => {
                    *i = j + 1;
                    true
                }
                Some(':') => {
                    let mut k = j + 1;
                    let mut inner = String::new();
                    plain_until(chars, &mut k, &mut inner);
                    if chars.get(k) != Some(&'}') {
                        return false; // unterminated: literal text
                    }
                    out.push_str(&inner);
                    *i = k + 1;
                    true
                }
                Some('|') if digit => {
                    let mut k = j + 1;
                    let mut first = String::new();
                    let mut in_first = true;
                    loop {
                        match chars.get(k) {
                            None => return false,
                            Some('\\') if matches!(chars.get(k + 1), Some(',' | '|' | '\\')) => {
                                if in_first {
                                    first.push(chars[k + 1]);
                                }
                                k += 2;
                            }
                            Some('|') if chars.get(k + 1) == Some(&'}') => break,
                            Some(',') => {
                                in_first = false;
                                k += 1;
                            }
                            Some(c) => {
                                if in_first {
                                    first.push(*c);
                                }
                                k += 1;
                            }
                        }
                    }
                    out.push_str(&first);
                    *i = k + 2;
                    true
                }
                _ => false,
            }
        }
        _ => false,
    }
}

/// The indentation of the line holding `at` (its leading spaces and tabs, up to `at`): what a
/// client without `asIs` adds to every line after the first of an inserted text.
pub fn line_indent(text: &str, at: usize) -> &str {
    let at = at.min(text.len());
    let start = text[..at].rfind('\n').map_or(0, |n| n + 1);
    let line = &text[start..at];
    let n = line.len() - line.trim_start_matches([' ', '\t']).len();
    &line[..n]
}

/// `text`, whose continuation lines carry absolute indentation, written for a client that adds
/// `indent` (the current line's) to each of them: that much leading whitespace is removed from
/// every line after the first (as much of it as the line has).
pub fn relative_to_line(text: &str, indent: &str) -> String {
    if indent.is_empty() || !text.contains('\n') {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    for (n, line) in text.split('\n').enumerate() {
        if n == 0 {
            out.push_str(line);
            continue;
        }
        out.push('\n');
        let common = line
            .bytes()
            .zip(indent.bytes())
            .take_while(|(a, b)| a == b)
            .count();
        out.push_str(&line[common..]);
    }
    out
}

/// Markdown as plain text for clients that list no markdown: code spans lose their backticks,
/// emphasis its markers, links show their target, fences and heading marks go, backslash
/// escapes are undone. Lists and paragraphs stay as they are written.
pub fn markdown_to_plain(md: &str) -> String {
    let mut out = String::with_capacity(md.len());
    for (n, line) in md.split('\n').enumerate() {
        if line.trim_start().starts_with("```") {
            continue;
        }
        if n > 0 && !out.is_empty() {
            out.push('\n');
        }
        let trimmed = line.trim_start();
        let line = if trimmed.starts_with('#') {
            trimmed.trim_start_matches('#').trim_start()
        } else {
            line
        };
        inline_plain(line, &mut out);
    }
    out
}

fn inline_plain(line: &str, out: &mut String) {
    let chars: Vec<char> = line.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '\\' if chars.get(i + 1).is_some_and(|c| c.is_ascii_punctuation()) => {
                out.push(chars[i + 1]);
                i += 2;
            }
            '`' => {
                // A code span: its content verbatim, without the backtick runs.
                let run = chars[i..].iter().take_while(|&&c| c == '`').count();
                let close = (i + run..chars.len()).find(|&k| {
                    chars[k..].iter().take_while(|&&c| c == '`').count() == run
                        && (k == 0 || chars[k - 1] != '`')
                });
                match close {
                    Some(k) => {
                        out.extend(&chars[i + run..k]);
                        i = k + run;
                    }
                    None => {
                        out.extend(&chars[i..i + run]);
                        i += run;
                    }
                }
            }
            '*' => {
                let before = i.checked_sub(1).map(|k| chars[k]);
                let after = chars.get(i + 1).copied();
                let space = |c: Option<char>| c.is_none_or(char::is_whitespace);
                // A bullet or a lone `*` between spaces is text; a marker touches a word.
                let bullet = out.trim_end_matches([' ', '\t']).ends_with('\n') || out.is_empty();
                if space(before) && space(after) || bullet && after == Some(' ') {
                    out.push('*');
                }
                i += 1;
            }
            '[' => {
                // `[text](target)` → `text (target)`.
                let text_end = (i + 1..chars.len()).find(|&k| chars[k] == ']');
                let link = text_end.and_then(|e| {
                    (chars.get(e + 1) == Some(&'('))
                        .then(|| (e + 2..chars.len()).find(|&k| chars[k] == ')'))
                        .flatten()
                        .map(|close| (e, close))
                });
                match link {
                    Some((e, close)) => {
                        let mut text = String::new();
                        inline_plain(&chars[i + 1..e].iter().collect::<String>(), &mut text);
                        let target: String = chars[e + 2..close].iter().collect();
                        out.push_str(&text);
                        if target != text {
                            out.push_str(&format!(" ({target})"));
                        }
                        i = close + 1;
                    }
                    None => {
                        out.push('[');
                        i += 1;
                    }
                }
            }
            _ => {
                out.push(c);
                i += 1;
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// What the client declared that changes what the server does (not only how answers look), and
// what the server advertises in return.

/// What the client declared at `initialize` that changes how the server behaves.
#[derive(Clone, Copy, Debug, Default)]
pub struct ClientFeatures {
    /// `textDocument.diagnostic`: diagnostics by pull only (SPEC §6).
    pub pull_diagnostics: bool,
    /// `workspace.diagnostics.refreshSupport`.
    pub diagnostic_refresh: bool,
    /// `workspace.configuration`.
    pub configuration: bool,
    /// `workspace.didChangeWatchedFiles.dynamicRegistration`.
    pub watch_files: bool,
    pub inlay_refresh: bool,
    pub lens_refresh: bool,
    /// `window.workDoneProgress`: the workspace index reports `$/progress`.
    pub work_done_progress: bool,
}

impl ClientFeatures {
    pub fn from_capabilities(caps: &ClientCapabilities) -> ClientFeatures {
        let workspace = caps.workspace.as_ref();
        ClientFeatures {
            pull_diagnostics: caps
                .text_document
                .as_ref()
                .is_some_and(|t| t.diagnostic.is_some()),
            diagnostic_refresh: workspace
                .and_then(|w| w.diagnostics.as_ref())
                .and_then(|d| d.refresh_support)
                .unwrap_or(false),
            configuration: workspace.and_then(|w| w.configuration).unwrap_or(false),
            watch_files: workspace
                .and_then(|w| w.did_change_watched_files.as_ref())
                .and_then(|d| d.dynamic_registration)
                .unwrap_or(false),
            inlay_refresh: workspace
                .and_then(|w| w.inlay_hint.as_ref())
                .and_then(|c| c.refresh_support)
                .unwrap_or(false),
            lens_refresh: workspace
                .and_then(|w| w.code_lens.as_ref())
                .and_then(|c| c.refresh_support)
                .unwrap_or(false),
            work_done_progress: caps
                .window
                .as_ref()
                .and_then(|w| w.work_done_progress)
                .unwrap_or(false),
        }
    }
}

/// The capabilities the server advertises to a client with `features` and `shape`.
pub fn server_capabilities(
    features: &ClientFeatures,
    shape: &ClientShape,
    utf8: bool,
) -> ServerCapabilities {
    ServerCapabilities {
        position_encoding: Some(if utf8 {
            PositionEncodingKind::UTF8
        } else {
            PositionEncodingKind::UTF16
        }),
        text_document_sync: Some(TextDocumentSyncCapability::Options(
            TextDocumentSyncOptions {
                open_close: Some(true),
                change: Some(TextDocumentSyncKind::INCREMENTAL),
                ..Default::default()
            },
        )),
        completion_provider: Some(CompletionOptions {
            // Not the space: with autotrigger on, menus popped up on every indentation.
            trigger_characters: Some(vec![":".into()]),
            resolve_provider: Some(false),
            ..Default::default()
        }),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
            code_action_kinds: Some(vec![CodeActionKind::QUICKFIX]),
            resolve_provider: Some(false),
            ..Default::default()
        })),
        execute_command_provider: Some(ExecuteCommandOptions {
            commands: std::iter::once(PREVIEW_COMMAND)
                .chain(shape.fixes_as_commands().then_some(APPLY_EDIT_COMMAND))
                .map(String::from)
                .collect(),
            work_done_progress_options: Default::default(),
        }),
        code_lens_provider: Some(CodeLensOptions {
            resolve_provider: Some(false),
        }),
        inlay_hint_provider: Some(OneOf::Left(true)),
        document_symbol_provider: Some(OneOf::Left(true)),
        // Navigation (SPEC §10).
        document_link_provider: Some(DocumentLinkOptions {
            resolve_provider: Some(false),
            work_done_progress_options: Default::default(),
        }),
        definition_provider: Some(OneOf::Left(true)),
        workspace_symbol_provider: Some(OneOf::Left(true)),
        // Folders added or removed: their `*.cwl` files join or leave the index, and read
        // boundaries and project-file lookups follow (`didChangeWorkspaceFolders`).
        workspace: Some(WorkspaceServerCapabilities {
            workspace_folders: Some(WorkspaceFoldersServerCapabilities {
                supported: Some(true),
                change_notifications: Some(OneOf::Left(true)),
            }),
            file_operations: None,
        }),
        // Pull only for clients that pull (SPEC §6): the others get pushes.
        diagnostic_provider: features.pull_diagnostics.then(|| {
            DiagnosticServerCapabilities::Options(DiagnosticOptions {
                identifier: Some("cwl-mcp".into()),
                inter_file_dependencies: true,
                workspace_diagnostics: false,
                work_done_progress_options: Default::default(),
            })
        }),
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn shape(caps: serde_json::Value) -> ClientShape {
        ClientShape::from_capabilities(&serde_json::from_value(caps).unwrap())
    }

    #[test]
    fn nothing_declared_is_the_plain_baseline() {
        assert_eq!(shape(json!({})), ClientShape::default());
        let s = shape(json!({"textDocument": {"completion": {"completionItem": {}}}}));
        assert!(!s.snippets && !s.completion_markdown && !s.insert_as_is);
    }

    #[test]
    fn reads_each_capability() {
        let s = shape(json!({
            "workspace": {"applyEdit": true},
            "textDocument": {
                "completion": {"completionItem": {
                    "snippetSupport": true,
                    "documentationFormat": ["plaintext", "markdown"],
                    "preselectSupport": true,
                    "insertTextModeSupport": {"valueSet": [1, 2]}
                }},
                "hover": {"contentFormat": ["markdown"]},
                "codeAction": {"isPreferredSupport": true,
                               "codeActionLiteralSupport": {"codeActionKind": {"valueSet": ["quickfix"]}}},
                "documentSymbol": {"hierarchicalDocumentSymbolSupport": true},
                "publishDiagnostics": {"codeDescriptionSupport": true, "relatedInformation": true},
                "documentLink": {"tooltipSupport": true},
                "definition": {"linkSupport": true}
            }
        }));
        assert_eq!(
            s,
            ClientShape {
                snippets: true,
                completion_markdown: true,
                preselect: true,
                insert_as_is: true,
                hover_markdown: true,
                code_action_literals: true,
                is_preferred: true,
                hierarchical_symbols: true,
                apply_edit: true,
                code_description: true,
                related_information: true,
                link_tooltip: true,
                definition_links: true,
            }
        );
        // Neovim: no asIs in the set (adjustIndentation only), plain text hover only.
        let s = shape(json!({"textDocument": {
            "completion": {"completionItem": {"insertTextModeSupport": {"valueSet": [2]}}},
            "hover": {"contentFormat": ["plaintext"]}
        }}));
        assert!(!s.insert_as_is && !s.hover_markdown);
    }

    #[test]
    fn snippets_become_their_defaults() {
        assert_eq!(snippet_to_plain("name: $1"), "name: ");
        assert_eq!(snippet_to_plain("aliases: [$1]$0"), "aliases: []");
        assert_eq!(snippet_to_plain("a: ${1}"), "a: ");
        assert_eq!(
            snippet_to_plain("readOnlyHint: ${1|false,true|}"),
            "readOnlyHint: false"
        );
        assert_eq!(
            snippet_to_plain("{\"a\": ${1|true,false|}, \"b\": ${2|false,true|}}"),
            "{\"a\": true, \"b\": false}"
        );
        assert_eq!(snippet_to_plain("\"mcp:Tool\": {$1}"), "\"mcp:Tool\": {}");
        assert_eq!(snippet_to_plain("x: ${1:default}"), "x: default");
        assert_eq!(
            snippet_to_plain("x: ${1:a ${2:b ${3|c,d|}} e}"),
            "x: a b c e"
        );
        assert_eq!(
            snippet_to_plain("${TM_SELECTED_TEXT:sel} $FOO ${BAR}"),
            "sel  "
        );
    }

    #[test]
    fn snippet_escapes_are_undone() {
        assert_eq!(snippet_to_plain(r"cost: \$5 \} \\ $1"), r"cost: $5 } \ ");
        assert_eq!(snippet_to_plain(r"${1:a \} b}"), "a } b");
        assert_eq!(snippet_to_plain(r"${1|a\,b,c|}"), "a,b");
        assert_eq!(snippet_to_plain(r"${1|x\|y,z|}"), "x|y");
        // Not snippet syntax: literal.
        assert_eq!(snippet_to_plain("a $ b ${ c } d $"), "a $ b ${ c } d $");
        assert_eq!(snippet_to_plain("${1:never closed"), "${1:never closed");
        assert_eq!(snippet_to_plain("${1|no,end"), "${1|no,end");
        assert_eq!(snippet_to_plain("ünïcode ${1:ß}"), "ünïcode ß");
    }

    #[test]
    fn the_annotations_snippet_as_plain_text_for_a_reindenting_client() {
        let snippet = "annotations:\n      readOnlyHint: ${1|false,true|}\n      destructiveHint: ${2|true,false|}";
        let plain = relative_to_line(&snippet_to_plain(snippet), "    ");
        assert_eq!(
            plain,
            "annotations:\n  readOnlyHint: false\n  destructiveHint: true"
        );
        // The client adds the line's indentation back to each continuation line.
        assert_eq!(
            plain.replace('\n', "\n    "),
            "annotations:\n      readOnlyHint: false\n      destructiveHint: true"
        );
    }

    #[test]
    fn indentation_relative_to_the_line() {
        let text = "hints:\n  - \n";
        assert_eq!(line_indent(text, text.find("- ").unwrap() + 2), "  ");
        assert_eq!(line_indent("a\n    \nb", 6), "    ");
        assert_eq!(line_indent("    x", 2), "  ");
        assert_eq!(line_indent("", 0), "");
        assert_eq!(line_indent("\t\tk", 3), "\t\t");
        assert_eq!(relative_to_line("mcp:Tool:\n    ", "  "), "mcp:Tool:\n  ");
        assert_eq!(relative_to_line("a\r\n      b\r\n", "    "), "a\r\n  b\r\n");
        // Lines with less indentation than the line lose what they have; blank lines stay.
        assert_eq!(relative_to_line("a\n  b\n\n      c", "    "), "a\nb\n\n  c");
        assert_eq!(relative_to_line("one line", "    "), "one line");
        assert_eq!(relative_to_line("a\n  b", ""), "a\n  b");
    }

    #[test]
    fn markdown_as_plain_text() {
        assert_eq!(
            markdown_to_plain("`readOnlyHint` is **true** here *(MCP default: false)*"),
            "readOnlyHint is true here (MCP default: false)"
        );
        assert_eq!(
            markdown_to_plain("**Tool** `echo_region`\n\n- `a: b`\n- c * d"),
            "Tool echo_region\n\n- a: b\n- c * d"
        );
        assert_eq!(markdown_to_plain("``a ` b`` and `x`"), "a ` b and x");
        assert_eq!(
            markdown_to_plain("see [the spec](https://x.y/z) \\*"),
            "see the spec (https://x.y/z) *"
        );
        assert_eq!(markdown_to_plain("# Title\n```json\n{}\n```"), "Title\n{}");
        assert_eq!(
            markdown_to_plain("snake_case_name [not a link"),
            "snake_case_name [not a link"
        );
        assert_eq!(markdown_to_plain("* bullet"), "* bullet");
        assert_eq!(markdown_to_plain("unclosed `tick"), "unclosed `tick");
    }
}
