//! The one description of every field of `mcp:Tool` and its `annotations` (SPEC §3).
//! Completion, hover and validation all read this table.
use crate::base::settings::Profile;

/// Whether a profile requires, allows or rejects a field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Need {
    Optional,
    Required,
    Rejected,
}

/// The value type a field takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FieldType {
    /// The record's `class` discriminator.
    Class,
    String,
    /// A string, or null (treated as absent).
    NullableString,
    StringList,
    Mapping,
    Boolean,
}

impl FieldType {
    pub fn describe(self) -> &'static str {
        match self {
            FieldType::Class => "string (class name)",
            FieldType::String => "string",
            FieldType::NullableString => "string",
            FieldType::StringList => "list of strings",
            FieldType::Mapping => "mapping",
            FieldType::Boolean => "boolean",
        }
    }
}

#[derive(Clone, Copy, Debug)]
pub struct Field {
    pub key: &'static str,
    pub ty: FieldType,
    pub extension: Need,
    pub cwl2mcp: Need,
    /// The value MCP clients assume when the field is absent (annotations only).
    pub mcp_default: Option<bool>,
    /// What a client assumes, in words, when the field is absent.
    pub default_meaning: &'static str,
    pub doc: &'static str,
}

impl Field {
    pub fn need(&self, profile: Profile) -> Need {
        match profile {
            Profile::Extension => self.extension,
            Profile::Cwl2mcp => self.cwl2mcp,
        }
    }
}

/// The doc of the `mcp:Tool` record itself (completion of the class, hover on it).
pub const TOOL_DOC: &str = "CWL hint describing the MCP Tool derived from this process: its \
    callable name, display title, selection guidance and behavioural annotations. The Tool's \
    input and output schemas are derived from the CWL inputs and outputs, not written here.";

pub const TOOL_FIELDS: &[Field] = &[
    Field {
        key: "class",
        ty: FieldType::Class,
        extension: Need::Optional,
        cwl2mcp: Need::Optional,
        mcp_default: None,
        default_meaning: "",
        doc: "The hint's class (list form): `mcp:Tool`, with the prefix bound to \
              `https://eoap.github.io/cwl-mcp-extension#`.",
    },
    Field {
        key: "name",
        ty: FieldType::String,
        extension: Need::Optional,
        cwl2mcp: Need::Required,
        mcp_default: None,
        default_meaning: "the normalized CWL process id (extension profile); cwl2mcp requires it",
        doc: "Canonical callable MCP name: 1–128 characters of `A-Z a-z 0-9 _ - .`, unique \
              within a server.",
    },
    Field {
        key: "title",
        ty: FieldType::NullableString,
        extension: Need::Optional,
        cwl2mcp: Need::Optional,
        mcp_default: None,
        default_meaning: "the CWL `label`",
        doc: "Human-readable display name; overrides the CWL process `label`.",
    },
    Field {
        key: "description",
        ty: FieldType::String,
        extension: Need::Optional,
        cwl2mcp: Need::Rejected,
        mcp_default: None,
        default_meaning: "composed from the CWL `doc`, `useWhen` and `doNotUseWhen`",
        doc: "Overrides the Tool description composed from the CWL `doc`, `useWhen` and \
              `doNotUseWhen`. cwl2mcp 0.1.0 rejects this field.",
    },
    Field {
        key: "aliases",
        ty: FieldType::StringList,
        extension: Need::Optional,
        cwl2mcp: Need::Required,
        mcp_default: None,
        default_meaning: "no aliases",
        doc: "Discovery synonyms only; they do not register additional callable names. Kept in \
              the Tool's `_meta`.",
    },
    Field {
        key: "useWhen",
        ty: FieldType::String,
        extension: Need::Optional,
        cwl2mcp: Need::Required,
        mcp_default: None,
        default_meaning: "no selection guidance",
        doc: "Conditions under which an agent should select this tool.",
    },
    Field {
        key: "doNotUseWhen",
        ty: FieldType::String,
        extension: Need::Optional,
        cwl2mcp: Need::Required,
        mcp_default: None,
        default_meaning: "no selection guidance",
        doc: "Conditions under which an agent should NOT select this tool.",
    },
    Field {
        key: "annotations",
        ty: FieldType::Mapping,
        extension: Need::Optional,
        cwl2mcp: Need::Required,
        mcp_default: None,
        default_meaning: "no annotations: clients assume the conservative MCP defaults",
        doc: "MCP Tool annotations: behavioural hints (read-only, destructive, idempotent, \
              open world), not enforced guarantees.",
    },
];

pub const ANNOTATION_FIELDS: &[Field] = &[
    Field {
        key: "class",
        ty: FieldType::Class,
        extension: Need::Optional,
        cwl2mcp: Need::Optional,
        mcp_default: None,
        default_meaning: "",
        doc: "Optional discriminator: `ToolAnnotations` or `Annotations` (extension profile); \
              cwl2mcp accepts only `Annotations`.",
    },
    Field {
        key: "title",
        ty: FieldType::String,
        extension: Need::Optional,
        cwl2mcp: Need::Rejected,
        mcp_default: None,
        default_meaning: "",
        doc: "A human-readable title for the tool (legacy; the Tool's `title` takes \
              precedence). cwl2mcp 0.1.0 rejects this field.",
    },
    Field {
        key: "readOnlyHint",
        ty: FieldType::Boolean,
        extension: Need::Optional,
        cwl2mcp: Need::Required,
        mcp_default: Some(false),
        default_meaning: "the tool may modify its environment",
        doc: "If true, the tool does not modify its environment.",
    },
    Field {
        key: "destructiveHint",
        ty: FieldType::Boolean,
        extension: Need::Optional,
        cwl2mcp: Need::Required,
        mcp_default: Some(true),
        default_meaning: "the tool may perform destructive updates",
        doc: "If true, the tool may perform destructive updates to its environment; if false, \
              only additive updates. Meaningful only when `readOnlyHint` is false.",
    },
    Field {
        key: "idempotentHint",
        ty: FieldType::Boolean,
        extension: Need::Optional,
        cwl2mcp: Need::Required,
        mcp_default: Some(false),
        default_meaning: "repeated calls may have additional effects",
        doc: "If true, calling the tool repeatedly with the same arguments has no additional \
              effect on its environment. Meaningful only when `readOnlyHint` is false.",
    },
    Field {
        key: "openWorldHint",
        ty: FieldType::Boolean,
        extension: Need::Optional,
        cwl2mcp: Need::Required,
        mcp_default: Some(true),
        default_meaning: "the tool may interact with an open world of external entities",
        doc: "If true, the tool may interact with an \"open world\" of external entities; if \
              false, its domain of interaction is closed.",
    },
];

pub fn tool_field(key: &str) -> Option<&'static Field> {
    TOOL_FIELDS.iter().find(|f| f.key == key)
}

pub fn annotation_field(key: &str) -> Option<&'static Field> {
    ANNOTATION_FIELDS.iter().find(|f| f.key == key)
}

/// The four boolean annotations, in the order MCP lists them.
pub fn boolean_annotations() -> impl Iterator<Item = &'static Field> {
    ANNOTATION_FIELDS
        .iter()
        .filter(|f| f.ty == FieldType::Boolean)
}

/// The annotation record class names a profile accepts (local names).
pub fn annotation_classes(profile: Profile) -> &'static [&'static str] {
    match profile {
        Profile::Extension => &["ToolAnnotations", "Annotations"],
        Profile::Cwl2mcp => &["Annotations"],
    }
}

/// The fields of a record that a profile lists, in table order, for messages.
pub fn allowed_keys(fields: &[Field], profile: Profile) -> Vec<&'static str> {
    fields
        .iter()
        .filter(|f| f.need(profile) != Need::Rejected)
        .map(|f| f.key)
        .collect()
}

/// The value to write for a boolean annotation that is left out (quick fixes, completion): its
/// MCP default, except `destructiveHint` of a read-only tool, where MCP ignores the hint and
/// `true` would be reported as `annotation-ignored`: `false` there changes nothing a client sees.
pub fn suggested_value(field: &Field, read_only: bool) -> bool {
    if read_only && field.key == "destructiveHint" {
        return false;
    }
    field.mcp_default.unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profiles_differ_as_the_spec_table_says() {
        let required = |p| {
            TOOL_FIELDS
                .iter()
                .filter(|f| f.need(p) == Need::Required)
                .map(|f| f.key)
                .collect::<Vec<_>>()
        };
        assert_eq!(required(Profile::Extension), Vec::<&str>::new());
        assert_eq!(
            required(Profile::Cwl2mcp),
            vec!["name", "aliases", "useWhen", "doNotUseWhen", "annotations"]
        );
        assert_eq!(tool_field("description").unwrap().cwl2mcp, Need::Rejected);
        assert_eq!(annotation_field("title").unwrap().cwl2mcp, Need::Rejected);
        let defaults: Vec<_> = boolean_annotations()
            .map(|f| (f.key, f.mcp_default))
            .collect();
        assert_eq!(
            defaults,
            vec![
                ("readOnlyHint", Some(false)),
                ("destructiveHint", Some(true)),
                ("idempotentHint", Some(false)),
                ("openWorldHint", Some(true))
            ]
        );
    }
}
