//! YAML 1.2 core-schema resolution: what a scalar means (null, bool, int, float or string),
//! for plain scalars and under `!!str`-style tags; `yes` and `on` stay strings.
//!
//! Uses `node` (adds [`Node::resolve`]).
use super::node::{Kind, Node, Style};

/// A scalar's value under the YAML 1.2 core schema (`yes` is a string).
#[derive(Clone, Debug, PartialEq)]
pub enum Resolved<'a> {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(&'a str),
}

impl Node {
    /// The scalar resolved under the YAML 1.2 core schema, honouring `!!str`-style tags.
    pub fn resolve(&self) -> Option<Resolved<'_>> {
        let Kind::Scalar { text, style } = &self.kind else {
            return None;
        };
        let tag = self.tag.as_deref().map(|t| short_tag(t));
        match tag {
            Some("str") => return Some(Resolved::Str(text)),
            Some("null") => return Some(Resolved::Null),
            Some("bool") => {
                return Some(match text.as_str() {
                    "true" | "True" | "TRUE" => Resolved::Bool(true),
                    "false" | "False" | "FALSE" => Resolved::Bool(false),
                    _ => Resolved::Str(text),
                });
            }
            Some("int") => return Some(parse_int(text).map_or(Resolved::Str(text), Resolved::Int)),
            Some("float") => {
                return Some(
                    parse_float(text)
                        .or_else(|| parse_int(text).map(|i| i as f64))
                        .map_or(Resolved::Str(text), Resolved::Float),
                );
            }
            _ => {}
        }
        if *style != Style::Plain {
            return Some(Resolved::Str(text));
        }
        Some(resolve_plain(text))
    }
}

fn short_tag(tag: &str) -> &str {
    tag.strip_prefix("tag:yaml.org,2002:")
        .or_else(|| tag.strip_prefix("!!"))
        .unwrap_or(tag)
}

/// YAML 1.2 core schema resolution of a plain scalar.
pub fn resolve_plain(text: &str) -> Resolved<'_> {
    match text {
        "" | "~" | "null" | "Null" | "NULL" => return Resolved::Null,
        "true" | "True" | "TRUE" => return Resolved::Bool(true),
        "false" | "False" | "FALSE" => return Resolved::Bool(false),
        _ => {}
    }
    if let Some(i) = parse_int(text) {
        return Resolved::Int(i);
    }
    if let Some(f) = parse_float(text) {
        return Resolved::Float(f);
    }
    Resolved::Str(text)
}

fn parse_int(text: &str) -> Option<i64> {
    if let Some(hex) = text.strip_prefix("0x") {
        return i64::from_str_radix(hex, 16).ok();
    }
    if let Some(oct) = text.strip_prefix("0o") {
        return i64::from_str_radix(oct, 8).ok();
    }
    let digits = text.strip_prefix(['-', '+']).unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

fn parse_float(text: &str) -> Option<f64> {
    match text {
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => return Some(f64::INFINITY),
        "-.inf" | "-.Inf" | "-.INF" => return Some(f64::NEG_INFINITY),
        ".nan" | ".NaN" | ".NAN" => return Some(f64::NAN),
        _ => {}
    }
    // [-+]? ( \. [0-9]+ | [0-9]+ ( \. [0-9]* )? ) ( [eE] [-+]? [0-9]+ )?
    let b = text.as_bytes();
    let mut i = 0;
    if i < b.len() && (b[i] == b'-' || b[i] == b'+') {
        i += 1;
    }
    let int_start = i;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    let int_digits = i - int_start;
    let mut frac_digits = 0;
    if i < b.len() && b[i] == b'.' {
        i += 1;
        let s = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        frac_digits = i - s;
    }
    if int_digits == 0 && frac_digits == 0 {
        return None;
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        i += 1;
        if i < b.len() && (b[i] == b'-' || b[i] == b'+') {
            i += 1;
        }
        let s = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        if i == s {
            return None;
        }
    }
    if i != b.len() {
        return None;
    }
    text.parse().ok()
}

#[cfg(test)]
mod tests {
    use crate::document::yaml::YamlDoc;

    fn json(text: &str) -> serde_json::Value {
        YamlDoc::parse(text).to_json().unwrap()
    }

    #[test]
    fn yes_and_on_are_strings_and_json_form_with_tabs_parses() {
        assert_eq!(
            json("a: yes\nb: on\nc: true\n"),
            serde_json::json!({"a": "yes", "b": "on", "c": true})
        );
        let j = "{\n\t\"class\": \"CommandLineTool\",\n\t\"inputs\": []\n}\n";
        let doc = YamlDoc::parse(j);
        assert!(doc.errors.is_empty(), "{:?}", doc.errors);
        assert_eq!(
            doc.to_json().unwrap(),
            serde_json::json!({"class": "CommandLineTool", "inputs": []})
        );
    }
}
