//! Validation of the MCP hints of every process (SPEC §3 and §5), driven by the field table.
use crate::base::settings::{Profile, Settings};
use crate::base::{Code, Diagnostic, DocumentContext, Severity};
use crate::cwl::{CwlView, EXTENSION_NS, Entry, Process};
use crate::document::Snapshot;
use crate::document::yaml::{Kind, Node, Pair, Resolved, YamlDoc};

use super::fields::{
    self, ANNOTATION_FIELDS, Field, FieldType, Need, TOOL_FIELDS, annotation_classes,
};
use super::recognize::{ClassMatch, classify};
use super::{is_valid_name, normalize_name};

/// The hints of one process, sorted out.
pub struct ProcessHints<'a, 'p> {
    /// The first recognised `mcp:Tool` hint: the one derivation uses.
    pub hint: Option<&'p Entry<'a>>,
    /// Later recognised hints (ignored).
    pub duplicates: Vec<&'p Entry<'a>>,
}

pub fn process_hints<'a, 'p>(view: &CwlView<'a>, process: &'p Process<'a>) -> ProcessHints<'a, 'p> {
    let mut found = process.hints.iter().filter(|e| {
        e.class
            .is_some_and(|c| classify(view, c) == ClassMatch::Tool)
    });
    let hint = found.next();
    ProcessHints {
        hint,
        duplicates: found.collect(),
    }
}

struct Validator<'a, 'v> {
    view: &'v CwlView<'a>,
    yaml: &'a YamlDoc,
    snapshot: &'v Snapshot,
    profile: Profile,
    context: &'v DocumentContext,
    out: Vec<Diagnostic>,
}

pub fn validate<'a>(
    view: &CwlView<'a>,
    yaml: &'a YamlDoc,
    snapshot: &Snapshot,
    settings: &Settings,
    context: &DocumentContext,
) -> Vec<Diagnostic> {
    let mut v = Validator {
        view,
        yaml,
        snapshot,
        profile: settings.profile,
        context,
        out: Vec::new(),
    };
    for process in &view.processes {
        v.process(process);
    }
    v.out
}

impl<'a, 'v> Validator<'a, 'v> {
    fn push(
        &mut self,
        node_span: std::ops::Range<usize>,
        severity: Severity,
        code: Code,
        message: String,
    ) {
        self.out
            .push(Diagnostic::new(node_span, severity, code, message));
    }

    fn line_of(&self, offset: usize) -> u32 {
        self.snapshot
            .lines
            .position(offset, crate::document::Encoding::Chars)
            .line
            + 1
    }

    fn process(&mut self, process: &Process<'_>) {
        // Near misses and misplaced hints.
        for entry in &process.hints {
            let (Some(class), Some(node)) = (entry.class, entry.class_node) else {
                continue;
            };
            match classify(self.view, class) {
                ClassMatch::Unbound { prefix } => self.push(
                    node.span.clone(),
                    Severity::Warning,
                    Code::NamespaceUnbound,
                    format!(
                        "`{class}`: the prefix `{prefix}` is not bound in `$namespaces`, so this \
                         hint is not the MCP extension's Tool and is ignored (bind `{prefix}: \
                         {EXTENSION_NS}`)"
                    ),
                ),
                ClassMatch::Mismatch { prefix, uri } => {
                    let what = match &prefix {
                        Some(p) => format!("the prefix `{p}` is bound to `{uri}`"),
                        None => format!("`{uri}`"),
                    };
                    self.push(
                        node.span.clone(),
                        Severity::Warning,
                        Code::NamespaceMismatch,
                        format!(
                            "`{class}`: {what}, which is not the MCP extension's namespace \
                             `{EXTENSION_NS}`; this hint is ignored"
                        ),
                    )
                }
                ClassMatch::Bare { class } => self.push(
                    node.span.clone(),
                    Severity::Warning,
                    Code::HintBareClass,
                    format!(
                        "bare `{class}` is not the MCP extension's class and is ignored; write it \
                         with a prefix bound to `{EXTENSION_NS}`, e.g. `mcp:Tool`"
                    ),
                ),
                ClassMatch::Tool | ClassMatch::Other => {}
            }
        }
        for entry in &process.requirements {
            let (Some(class), Some(node)) = (entry.class, entry.class_node) else {
                continue;
            };
            let m = classify(self.view, class);
            if matches!(m, ClassMatch::Tool | ClassMatch::Mismatch { .. })
                || (matches!(m, ClassMatch::Unbound { .. }) && class.ends_with(":Tool"))
            {
                self.push(
                    node.span.clone(),
                    Severity::Error,
                    Code::HintInRequirements,
                    format!(
                        "`{class}` is under `requirements`: cwltool rejects a document whose \
                         requirements it does not know, and exporters read only `hints`; move it \
                         to `hints`"
                    ),
                );
            }
        }

        let hints = process_hints(self.view, process);
        for dup in &hints.duplicates {
            if let Some(node) = dup.class_node {
                let first_line = hints
                    .hint
                    .map(|h| self.line_of(h.span.start))
                    .unwrap_or_default();
                self.push(
                    node.span.clone(),
                    Severity::Warning,
                    Code::HintDuplicate,
                    format!(
                        "a second MCP Tool hint in the same process; only the first (line \
                         {first_line}) is used"
                    ),
                );
            }
        }

        // Every process is exported under cwl2mcp; under the extension profile only hinted ones
        // are checked (documents without hints get no diagnostics).
        let exported = hints.hint.is_some() || self.profile == Profile::Cwl2mcp;
        if let Some(hint) = hints.hint {
            self.hint(process, hint);
        }
        if exported {
            self.effective_name(process, hints.hint);
            self.doc_field(process, hints.hint.is_some());
        }
    }

    fn hint(&mut self, process: &Process<'_>, hint: &Entry<'_>) {
        let class_span = hint
            .class_node
            .map(|n| n.span.clone())
            .unwrap_or(hint.span.clone());
        let body = self.yaml.deref(hint.body);
        let pairs: Vec<&Pair> = match &body.kind {
            Kind::Map { .. } => hint.fields().collect(),
            Kind::Scalar { .. } if body.resolve() == Some(Resolved::Null) => Vec::new(),
            _ => {
                self.push(
                    body.span.clone(),
                    Severity::Error,
                    Code::InvalidType,
                    "the MCP Tool hint must be a mapping of its fields".into(),
                );
                return;
            }
        };
        let mut seen = Vec::new();
        for pair in &pairs {
            let Some(key) = pair.key.scalar() else {
                continue;
            };
            if key.contains(':') {
                continue; // namespaced extension fields are allowed
            }
            seen.push(key);
            let field = fields::tool_field(key).filter(|f| f.ty != FieldType::Class);
            match field.map(|f| (f, f.need(self.profile))) {
                None | Some((_, Need::Rejected)) => {
                    self.unknown_field(&pair.key, key, TOOL_FIELDS, "Tool");
                    continue;
                }
                Some((field, _)) => {
                    if self.profile == Profile::Extension && field.cwl2mcp == Need::Rejected {
                        self.push(
                            pair.key.span.clone(),
                            Severity::Information,
                            Code::Cwl2mcpIncompatible,
                            format!(
                                "cwl2mcp 0.1.0 rejects the field `{key}` (it builds the \
                                 description from the CWL `doc` only)"
                            ),
                        );
                    }
                    self.check_type(field, pair);
                    if key == "annotations" {
                        let value = self.yaml.deref(&pair.value);
                        if value.is_map() {
                            self.annotations(process, &pair.key, value);
                        }
                    }
                }
            }
        }
        // Required fields.
        let missing: Vec<&Field> = TOOL_FIELDS
            .iter()
            .filter(|f| f.ty != FieldType::Class && !seen.contains(&f.key))
            .collect();
        for field in &missing {
            if field.need(self.profile) == Need::Required {
                self.push(
                    class_span.clone(),
                    Severity::Error,
                    Code::MissingField,
                    format!(
                        "missing required field `{}` (required by the {} profile{})",
                        field.key,
                        self.profile.as_str(),
                        if field.key == "name" {
                            ""
                        } else {
                            "; an empty value is allowed"
                        }
                    ),
                );
            }
        }
        if self.profile == Profile::Extension {
            let cwl2mcp_needs: Vec<&str> = missing
                .iter()
                .filter(|f| f.cwl2mcp == Need::Required)
                .map(|f| f.key)
                .collect();
            if !cwl2mcp_needs.is_empty() {
                self.push(
                    class_span.clone(),
                    Severity::Information,
                    Code::Cwl2mcpIncompatible,
                    format!(
                        "cwl2mcp 0.1.0 would reject this hint: it requires {}",
                        cwl2mcp_needs
                            .iter()
                            .map(|k| format!("`{k}`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                );
            }
            if !seen.contains(&"annotations") {
                for field in fields::boolean_annotations() {
                    self.annotation_default(class_span.clone(), field);
                }
            }
        }
    }

    fn annotation_default(&mut self, span: std::ops::Range<usize>, field: &Field) {
        let default = field.mcp_default.unwrap_or_default();
        self.push(
            span,
            Severity::Hint,
            Code::AnnotationDefault,
            format!(
                "`{}` is left out: MCP clients assume `{default}` ({})",
                field.key, field.default_meaning
            ),
        );
    }

    fn unknown_field(&mut self, key_node: &Node, key: &str, table: &[Field], record: &str) {
        let allowed = fields::allowed_keys(table, self.profile)
            .iter()
            .map(|k| format!("`{k}`"))
            .collect::<Vec<_>>()
            .join(", ");
        let note = match table.iter().find(|f| f.key == key) {
            Some(f) if f.need(self.profile) == Need::Rejected => {
                format!(
                    " (`{key}` is not allowed by the {} profile)",
                    self.profile.as_str()
                )
            }
            _ => String::new(),
        };
        self.push(
            key_node.span.clone(),
            Severity::Error,
            Code::UnknownField,
            format!("invalid field `{key}` in {record}{note}, expected one of: {allowed}"),
        );
    }

    /// Checks a value against its field's type; returns whether it conforms.
    fn check_type(&mut self, field: &Field, pair: &Pair) -> bool {
        let value = self.yaml.deref(&pair.value);
        let key = field.key;
        let problem: Option<String> = match field.ty {
            FieldType::Class => None,
            FieldType::String => expect_string(value).err(),
            FieldType::NullableString => match value.resolve() {
                Some(Resolved::Null) => None,
                _ => expect_string(value).err(),
            },
            FieldType::StringList => match &value.kind {
                Kind::Seq { items, .. } => {
                    let mut ok = true;
                    for item in items {
                        let item = self.yaml.deref(item);
                        if let Err(found) = expect_string(item) {
                            ok = false;
                            self.push(
                                item.span.clone(),
                                Severity::Error,
                                Code::InvalidType,
                                format!("each of `{key}` must be a string, found {found}"),
                            );
                        }
                    }
                    if !ok {
                        return false;
                    }
                    None
                }
                _ => Some(describe(value)),
            },
            FieldType::Mapping => {
                if value.is_map() {
                    None
                } else {
                    Some(describe(value))
                }
            }
            FieldType::Boolean => match value.resolve() {
                Some(Resolved::Bool(_)) => None,
                _ => Some(describe(value)),
            },
        };
        let Some(found) = problem else { return true };
        let span = if value.span.is_empty() {
            pair.key.span.clone()
        } else {
            value.span.clone()
        };
        let mut message = format!("`{key}` must be a {}, found {found}", field.ty.describe());
        if field.ty == FieldType::Boolean
            && let Some(text) = value.scalar()
            && is_yaml11_bool(text)
        {
            message.push_str(&format!(
                "; `{text}` is a string in YAML 1.2, which CWL uses: write `{}`",
                yaml11_bool_value(text)
            ));
        }
        self.push(span, Severity::Error, Code::InvalidType, message);
        false
    }

    fn annotations(&mut self, process: &Process<'_>, key_node: &Node, map: &Node) {
        let mut seen = Vec::new();
        let mut values: Vec<(&str, bool, &Node)> = Vec::new();
        for pair in map.pairs().unwrap_or(&[]) {
            let Some(key) = pair.key.scalar() else {
                continue;
            };
            if key.contains(':') {
                continue;
            }
            seen.push(key);
            if key == "class" {
                self.annotation_class(pair);
                continue;
            }
            match fields::annotation_field(key).map(|f| (f, f.need(self.profile))) {
                None | Some((_, Need::Rejected)) => {
                    self.unknown_field(&pair.key, key, ANNOTATION_FIELDS, "annotations")
                }
                Some((field, _)) => {
                    if self.profile == Profile::Extension && field.cwl2mcp == Need::Rejected {
                        self.push(
                            pair.key.span.clone(),
                            Severity::Information,
                            Code::Cwl2mcpIncompatible,
                            format!("cwl2mcp 0.1.0 rejects `annotations.{key}`"),
                        );
                    }
                    if self.check_type(field, pair)
                        && let Some(Resolved::Bool(b)) = self.yaml.deref(&pair.value).resolve()
                    {
                        values.push((field.key, b, &pair.value));
                    }
                }
            }
        }
        let key_span = key_node.span.clone();
        let mut missing_for_cwl2mcp = Vec::new();
        for field in fields::boolean_annotations() {
            if seen.contains(&field.key) {
                continue;
            }
            match self.profile {
                Profile::Cwl2mcp => self.push(
                    key_span.clone(),
                    Severity::Error,
                    Code::MissingField,
                    format!(
                        "`annotations` is missing the required field `{}`",
                        field.key
                    ),
                ),
                Profile::Extension => {
                    missing_for_cwl2mcp.push(field.key);
                    self.annotation_default(key_span.clone(), field);
                }
            }
        }
        if !missing_for_cwl2mcp.is_empty() {
            self.push(
                key_span.clone(),
                Severity::Information,
                Code::Cwl2mcpIncompatible,
                format!(
                    "cwl2mcp 0.1.0 requires all four annotations; missing: {}",
                    missing_for_cwl2mcp.join(", ")
                ),
            );
        }
        let get = |k: &str| values.iter().find(|(key, _, _)| *key == k);
        if let (Some((_, true, _)), Some((_, true, node))) =
            (get("readOnlyHint"), get("destructiveHint"))
        {
            self.push(
                node.span.clone(),
                Severity::Warning,
                Code::AnnotationIgnored,
                "`destructiveHint: true` has no effect with `readOnlyHint: true`: a read-only \
                 tool cannot be destructive, and MCP clients ignore this hint"
                    .into(),
            );
        }
        if let Some((_, false, node)) = get("openWorldHint")
            && let Some(at) = self.network_access(process)
        {
            let line = self.line_of(at);
            self.push(
                node.span.clone(),
                Severity::Warning,
                Code::AnnotationInconsistent,
                format!(
                    "`openWorldHint: false`, but the process declares `NetworkAccess` with \
                     `networkAccess` enabled (line {line})"
                ),
            );
        }
        if let Some((_, true, node)) = get("readOnlyHint") {
            for (what, at) in self.writes(process) {
                let line = self.line_of(at);
                self.push(
                    node.span.clone(),
                    Severity::Warning,
                    Code::AnnotationInconsistent,
                    format!("`readOnlyHint: true`, but the process declares {what} (line {line})"),
                );
            }
        }
    }

    fn annotation_class(&mut self, pair: &Pair) {
        let value = self.yaml.deref(&pair.value);
        let Some(class) = value.scalar() else {
            self.push(
                value.span.clone(),
                Severity::Error,
                Code::AnnotationsClass,
                "`annotations.class` must be a class name".into(),
            );
            return;
        };
        let local = self.annotation_class_local(class);
        let allowed = annotation_classes(self.profile);
        if local.as_deref().is_some_and(|l| allowed.contains(&l)) {
            if self.profile == Profile::Extension && local.as_deref() == Some("ToolAnnotations") {
                self.push(
                    value.span.clone(),
                    Severity::Information,
                    Code::Cwl2mcpIncompatible,
                    "cwl2mcp 0.1.0 names this record `Annotations` and rejects `ToolAnnotations`"
                        .into(),
                );
            }
            return;
        }
        let expected = allowed
            .iter()
            .map(|c| format!("`{c}`"))
            .collect::<Vec<_>>()
            .join(" or ");
        self.push(
            value.span.clone(),
            Severity::Error,
            Code::AnnotationsClass,
            format!(
                "`annotations.class: {class}` is not allowed by the {} profile: expected {expected}",
                self.profile.as_str()
            ),
        );
    }

    /// The local name of an annotations class if it names the extension's vocabulary: bare
    /// (`Annotations`), with a prefix bound to the extension, or the full URI.
    fn annotation_class_local(&self, class: &str) -> Option<String> {
        if let Some(local) = class.strip_prefix(EXTENSION_NS) {
            return Some(local.to_string());
        }
        if let Some((prefix, local)) = class.split_once(':') {
            return (self.view.namespace(prefix) == Some(EXTENSION_NS)).then(|| local.to_string());
        }
        Some(class.to_string())
    }

    fn network_access(&self, process: &Process<'_>) -> Option<usize> {
        for entry in process.requirement("NetworkAccess") {
            let value = entry.body.get("networkAccess")?;
            let value = self.yaml.deref(value);
            let enabled = match value.resolve() {
                Some(Resolved::Bool(b)) => b,
                Some(Resolved::Str(s)) => s.contains("$(") || s.contains("${"),
                _ => false,
            };
            if enabled {
                return Some(value.span.start);
            }
        }
        None
    }

    fn writes(&self, process: &Process<'_>) -> Vec<(String, usize)> {
        let mut out = Vec::new();
        for entry in process.requirement("InplaceUpdateRequirement") {
            if let Some(v) = entry.body.get("inplaceUpdate")
                && self.yaml.deref(v).resolve() == Some(Resolved::Bool(true))
            {
                out.push((
                    "`InplaceUpdateRequirement` with `inplaceUpdate: true`".to_string(),
                    v.span.start,
                ));
            }
        }
        for entry in process.requirement("InitialWorkDirRequirement") {
            let Some(listing) = entry.body.get("listing") else {
                continue;
            };
            for item in self.yaml.deref(listing).items().unwrap_or(&[]) {
                let item = self.yaml.deref(item);
                if let Some(w) = item.get("writable")
                    && self.yaml.deref(w).resolve() == Some(Resolved::Bool(true))
                {
                    out.push((
                        "an `InitialWorkDirRequirement` entry with `writable: true`".to_string(),
                        w.span.start,
                    ));
                }
            }
        }
        out
    }

    /// `name-invalid` for the name the Tool would get.
    fn effective_name(&mut self, process: &Process<'_>, hint: Option<&Entry<'_>>) {
        let explicit = hint.and_then(|h| {
            let pair = h.fields().find(|p| p.key.scalar() == Some("name"))?;
            let value = self.yaml.deref(&pair.value);
            match value.resolve() {
                Some(Resolved::Str(s)) if !s.is_empty() => {
                    Some((s.to_string(), value.span.clone()))
                }
                _ => None,
            }
        });
        let (name, span, source) = match explicit {
            Some((name, span)) => (name, span, "the hint's `name`"),
            None => {
                let anchor = process
                    .id_node
                    .map(|n| n.span.clone())
                    .unwrap_or_else(|| process.class_pair.key.span.clone());
                match self.profile {
                    Profile::Extension => {
                        let base = process
                            .id
                            .map(str::to_string)
                            .unwrap_or_else(|| self.context.file_stem.clone());
                        (
                            normalize_name(&base),
                            anchor,
                            "the name derived from the process id (no `name` in the hint)",
                        )
                    }
                    Profile::Cwl2mcp => {
                        // An id that is an absolute URI is not shortened: the exporter's loader
                        // keeps it whole (reference case 49).
                        let key = match process.id {
                            Some(id) if id.contains("://") && !process.inline => id.to_string(),
                            _ => process
                                .key
                                .clone()
                                .unwrap_or_else(|| self.context.uri.clone()),
                        };
                        let why = if process.id.is_some_and(|id| id.contains("://")) {
                            "the process id is a URI, which cwl2mcp keeps whole"
                        } else if process.id.is_none() && !process.inline {
                            "the process has no `id`, so cwl2mcp names it by its file URI"
                        } else if process.inline && hint.is_none() {
                            "an inline `run:` process is named by its step path"
                        } else {
                            "without a hint `name`, cwl2mcp uses the raw process id"
                        };
                        (key, anchor, why)
                    }
                }
            }
        };
        if let Err(problem) = is_valid_name(&name) {
            let shown: String = name.chars().take(80).collect();
            let ellipsis = if name.chars().count() > 80 { "…" } else { "" };
            self.push(
                span,
                Severity::Error,
                Code::NameInvalid,
                format!(
                    "the MCP tool name `{shown}{ellipsis}` ({source}) {problem}; MCP names are 1–128 \
                     characters of `A-Z a-z 0-9 _ - .`"
                ),
            );
        }
    }

    fn doc_field(&mut self, process: &Process<'_>, hinted: bool) {
        let Some(doc) = process.doc else { return };
        let doc = self.yaml.deref(doc);
        let is_list = matches!(&doc.kind, Kind::Seq { items, .. } if !items.is_empty());
        if !is_list {
            return;
        }
        match self.profile {
            Profile::Cwl2mcp => self.push(
                doc.span.clone(),
                Severity::Error,
                Code::DocNotString,
                "cwl2mcp 0.1.0 uses `doc` as the Tool description and fails on a list: join it \
                 into one string"
                    .into(),
            ),
            Profile::Extension if hinted => self.push(
                doc.span.clone(),
                Severity::Information,
                Code::Cwl2mcpIncompatible,
                "a list-valued `doc` is joined with blank lines here, but cwl2mcp 0.1.0 fails on it"
                    .into(),
            ),
            Profile::Extension => {}
        }
    }
}

fn expect_string(value: &Node) -> Result<(), String> {
    match value.resolve() {
        Some(Resolved::Str(_)) => Ok(()),
        _ => Err(describe(value)),
    }
}

/// How a value is described in messages: its YAML type and, for scalars, its text.
pub fn describe(value: &Node) -> String {
    match &value.kind {
        Kind::Map { .. } => "a mapping".into(),
        Kind::Seq { .. } => "a list".into(),
        Kind::Alias(_) => "an alias".into(),
        Kind::Invalid => "invalid YAML".into(),
        Kind::Deferred(_) => "a large mapping or list".into(),
        Kind::Scalar { text, .. } => match value.resolve() {
            Some(Resolved::Null) => "null (an empty value)".into(),
            Some(Resolved::Bool(_)) => format!("the boolean `{text}`"),
            Some(Resolved::Int(_)) => format!("the integer `{text}`"),
            Some(Resolved::Float(_)) => format!("the number `{text}`"),
            _ => format!("the string `{text}`"),
        },
    }
}

/// YAML 1.1 booleans that YAML 1.2 (and so CWL) reads as strings.
pub fn is_yaml11_bool(text: &str) -> bool {
    matches!(
        text.to_ascii_lowercase().as_str(),
        "yes" | "no" | "on" | "off" | "y" | "n"
    )
}

pub fn yaml11_bool_value(text: &str) -> &'static str {
    if matches!(text.to_ascii_lowercase().as_str(), "yes" | "on" | "y") {
        "true"
    } else {
        "false"
    }
}

#[cfg(test)]
#[path = "validate_tests.rs"]
mod fixture_tests;
