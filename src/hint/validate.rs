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
use super::values::{HintReading, HintValues, refuses};

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
    out: Vec<Diagnostic>,
    /// The values of the hint being checked.
    values: HintValues,
    /// Each class written with a prefix bound to a near-miss namespace: the prefix and where.
    mismatched: Vec<(String, std::ops::Range<usize>)>,
}

/// What the hint rules find in a document: their diagnostics, and for each process of the
/// view (by index) the reading of its recognised hint, which derivation takes as it is.
#[derive(Clone, Debug, Default)]
pub struct Validation {
    pub diagnostics: Vec<Diagnostic>,
    pub hints: Vec<Option<HintReading>>,
}

pub fn validate<'a>(
    view: &CwlView<'a>,
    yaml: &'a YamlDoc,
    snapshot: &Snapshot,
    settings: &Settings,
    _context: &DocumentContext,
) -> Validation {
    let mut v = Validator {
        view,
        yaml,
        snapshot,
        profile: settings.profile,
        out: Vec::new(),
        values: HintValues::default(),
        mismatched: Vec::new(),
    };
    let hints = view.processes.iter().map(|p| v.process(p)).collect();
    v.near_miss_bindings();
    Validation {
        diagnostics: v.out,
        hints,
    }
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

    fn process(&mut self, process: &Process<'_>) -> Option<HintReading> {
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
                    if let Some(p) = prefix {
                        self.mismatched.push((p, node.span.clone()));
                    }
                    self.push(
                        node.span.clone(),
                        Severity::Warning,
                        Code::NamespaceMismatch,
                        format!(
                            "`{class}`: {what}, which resembles but is not the MCP extension's \
                             namespace `{EXTENSION_NS}`; this hint is ignored"
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
            if let ClassMatch::Mismatch {
                prefix: Some(p), ..
            } = &m
            {
                self.mismatched.push((p.clone(), node.span.clone()));
            }
            if matches!(m, ClassMatch::Tool)
                || (matches!(m, ClassMatch::Mismatch { .. }) && class.ends_with("Tool"))
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

        // The effective name and `doc` are derivation's to check (`name-invalid`,
        // `doc-not-string`): it decides them. Here only what cwl2mcp would treat differently.
        let reading = hints.hint.map(|hint| {
            let start = self.out.len();
            self.values = HintValues {
                path: hint.path.clone(),
                ..HintValues::default()
            };
            self.hint(process, hint);
            let profile = self.profile;
            HintReading {
                values: std::mem::take(&mut self.values),
                blocking: self.out[start..]
                    .iter()
                    .filter(|d| refuses(profile, d))
                    .cloned()
                    .collect(),
            }
        });
        if hints.hint.is_some() {
            self.doc_field(process);
        }
        reading
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
                    if self.check_type(field, pair) {
                        self.record(field, pair);
                    }
                    if key == "annotations" {
                        let value = self.yaml.deref(&pair.value);
                        if value.is_map() {
                            self.values.annotations = Some(Default::default());
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

    /// `namespace-mismatch` on the `$namespaces` value itself, once per near-miss binding that
    /// an extension class uses, pointing at each use: the wrong URI is where the fix goes.
    fn near_miss_bindings(&mut self) {
        let mut prefixes: Vec<&str> = self.mismatched.iter().map(|(p, _)| p.as_str()).collect();
        prefixes.sort_unstable();
        prefixes.dedup();
        let mut found = Vec::new();
        for prefix in prefixes {
            let Some(ns) = self.view.namespaces.iter().find(|n| n.prefix == prefix) else {
                continue;
            };
            let uses: Vec<std::ops::Range<usize>> = self
                .mismatched
                .iter()
                .filter(|(p, _)| p == prefix)
                .map(|(_, s)| s.clone())
                .collect();
            let lines = uses
                .iter()
                .map(|s| self.line_of(s.start).to_string())
                .collect::<Vec<_>>()
                .join(", ");
            let mut d = Diagnostic::new(
                ns.pair.value.span.clone(),
                Severity::Warning,
                Code::NamespaceMismatch,
                format!(
                    "`{}` resembles the MCP extension's namespace `{EXTENSION_NS}` but is not \
                     it: the classes written with `{prefix}:` (line {lines}) are ignored",
                    ns.uri
                ),
            );
            d.related = uses
                .into_iter()
                .map(|span| crate::base::Related {
                    uri: None,
                    span,
                    line: None,
                    message: format!("`{prefix}:` is used here"),
                })
                .collect();
            found.push(d);
        }
        self.out.extend(found);
    }

    /// Takes the value of a field that passed its type check into the hint's values.
    fn record(&mut self, field: &Field, pair: &Pair) {
        let value = self.yaml.deref(&pair.value);
        let text = || match value.resolve() {
            Some(Resolved::Str(s)) => Some(s.to_string()),
            _ => None,
        };
        let v = &mut self.values;
        match field.key {
            "name" => v.name = text().filter(|s| !s.is_empty()),
            "title" => v.title = text().filter(|s| !s.is_empty()),
            "description" if self.profile == Profile::Extension => {
                v.description = text().filter(|s| !s.is_empty())
            }
            "useWhen" => v.use_when = text(),
            "doNotUseWhen" => v.do_not_use_when = text(),
            "aliases" => {
                v.aliases = value
                    .items()
                    .unwrap_or(&[])
                    .iter()
                    .filter_map(|i| match self.yaml.deref(i).resolve() {
                        Some(Resolved::Str(s)) => Some(s.to_string()),
                        _ => None,
                    })
                    .collect()
            }
            _ => {}
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
                    if self.check_type(field, pair) {
                        let written = match self.yaml.deref(&pair.value).resolve() {
                            Some(Resolved::Bool(b)) => {
                                values.push((field.key, b, &pair.value));
                                Some(serde_json::Value::Bool(b))
                            }
                            Some(Resolved::Str(s)) => Some(serde_json::Value::String(s.into())),
                            _ => None,
                        };
                        if let (Some(w), Some(a)) = (written, self.values.annotations.as_mut()) {
                            a.insert(field.key.to_string(), w);
                        }
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
        match self.view.extension_local(class) {
            Some(local) => Some(local.to_string()),
            None if !class.contains(':') => Some(class.to_string()),
            None => None,
        }
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

    /// Under `extension`: a list-valued `doc`, which cwl2mcp fails on (under `cwl2mcp`,
    /// derivation reports `doc-not-string` itself).
    fn doc_field(&mut self, process: &Process<'_>) {
        let Some(doc) = process.doc else { return };
        let doc = self.yaml.deref(doc);
        let is_list = matches!(&doc.kind, Kind::Seq { items, .. } if !items.is_empty());
        if is_list && self.profile == Profile::Extension {
            self.push(
                doc.span.clone(),
                Severity::Information,
                Code::Cwl2mcpIncompatible,
                "a list-valued `doc` is joined with blank lines here, but cwl2mcp 0.1.0 fails on it"
                    .into(),
            );
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
