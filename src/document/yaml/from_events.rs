//! The tree built from libyaml's events, for documents tree-sitter rejects but libyaml (like
//! cwltool's ruamel.yaml) accepts: exact values and byte spans, nothing deferred.
//!
//! Uses `node`, `errors` (repeated keys), `doc`, and the event reader in
//! [`document::libyaml`](crate::document::libyaml).
use std::collections::HashMap;

use super::super::libyaml::{self, EventKind};
use super::doc::{Source, YamlDoc};
use super::errors::{SyntaxError, duplicate_keys};
use super::node::{Kind, MAX_DEPTH, Node, Pair, Style};

pub(super) fn from_events(text: &str, events: &[libyaml::Event]) -> YamlDoc {
    let mut anchors = HashMap::new();
    let mut errors = Vec::new();
    let mut documents = 0;
    let mut root = None;
    let mut i = 0;
    while i < events.len() {
        match &events[i].kind {
            EventKind::DocumentStart => {
                documents += 1;
                i += 1;
                let (node, next) = event_node(text, events, i, &mut anchors, &mut errors, 0);
                if documents == 1 {
                    root = node;
                } else if documents == 2 {
                    errors.push(SyntaxError {
                        span: events[i.saturating_sub(1)].start..events[i.saturating_sub(1)].end,
                        message:
                            "expected a single document in the stream but found another document"
                                .into(),
                    });
                }
                i = next;
            }
            _ => i += 1,
        }
    }
    YamlDoc {
        root,
        anchors,
        errors,
        source: Source::Libyaml,
        deferred: Vec::new(),
        text: None,
    }
}

/// Sets a node's tag and records it under its anchor.
fn tagged(
    mut node: Node,
    tag: &Option<String>,
    anchor: &Option<String>,
    anchors: &mut HashMap<String, Node>,
) -> Node {
    node.tag = tag.clone().map(Box::new);
    if let Some(a) = anchor {
        anchors.insert(a.clone(), node.clone());
    }
    node
}

fn event_node(
    text: &str,
    events: &[libyaml::Event],
    mut i: usize,
    anchors: &mut HashMap<String, Node>,
    errors: &mut Vec<SyntaxError>,
    depth: usize,
) -> (Option<Node>, usize) {
    let Some(event) = events.get(i) else {
        return (None, i);
    };
    if depth > MAX_DEPTH {
        // Too deep to be CWL: stop building here (the rest of the stream is skipped).
        return (None, events.len());
    }
    match &event.kind {
        EventKind::Scalar {
            anchor,
            tag,
            value,
            style,
        } => {
            let style = match style {
                libyaml::ScalarStyle::Plain => Style::Plain,
                libyaml::ScalarStyle::SingleQuoted => Style::SingleQuoted,
                libyaml::ScalarStyle::DoubleQuoted => Style::DoubleQuoted,
                libyaml::ScalarStyle::Literal => Style::Literal,
                libyaml::ScalarStyle::Folded => Style::Folded,
            };
            let node = Node::new(
                event.start..event.end,
                Kind::Scalar {
                    text: value.as_str().into(),
                    style,
                },
            );
            (Some(tagged(node, tag, anchor, anchors)), i + 1)
        }
        EventKind::Alias(name) => (
            Some(Node::new(event.start..event.end, Kind::Alias(name.clone()))),
            i + 1,
        ),
        EventKind::SequenceStart { anchor, tag, flow } => {
            let start = event.start;
            i += 1;
            let mut items = Vec::new();
            while i < events.len() && events[i].kind != EventKind::SequenceEnd {
                let (node, next) = event_node(text, events, i, anchors, errors, depth + 1);
                if next == i {
                    break;
                }
                if let Some(n) = node {
                    items.push(n);
                }
                i = next;
            }
            let end = events.get(i).map_or(text.len(), |e| e.end);
            let node = Node::new(start..end, Kind::Seq { items, flow: *flow });
            (Some(tagged(node, tag, anchor, anchors)), i + 1)
        }
        EventKind::MappingStart { anchor, tag, flow } => {
            let start = event.start;
            i += 1;
            let mut pairs = Vec::new();
            while i < events.len() && events[i].kind != EventKind::MappingEnd {
                let (key, next) = event_node(text, events, i, anchors, errors, depth + 1);
                if next == i {
                    break;
                }
                let (value, next2) = event_node(text, events, next, anchors, errors, depth + 1);
                if let (Some(key), Some(value)) = (key, value) {
                    pairs.push(Pair { key, value });
                }
                if next2 == next {
                    i = next;
                    break;
                }
                i = next2;
            }
            duplicate_keys(&pairs, errors);
            let end = events.get(i).map_or(text.len(), |e| e.end);
            let node = Node::new(start..end, Kind::Map { pairs, flow: *flow });
            (Some(tagged(node, tag, anchor, anchors)), i + 1)
        }
        _ => (None, i),
    }
}

#[cfg(test)]
mod tests {
    use crate::document::yaml::YamlDoc;

    fn norway(text: &str) -> serde_json::Value {
        serde_norway::from_str(text).unwrap()
    }

    #[test]
    fn libyaml_tree_is_used_where_tree_sitter_is_stricter() {
        let text = "class: CommandLineTool\narguments:\n  - valueFrom: '${\n    return 1;\n  }'\nhints:\n  mcp:Tool:\n    name: t\n";
        let doc = YamlDoc::parse(text);
        assert!(doc.errors.is_empty(), "{:?}", doc.errors);
        assert_eq!(doc.to_json().unwrap(), norway(text));
        let root = doc.root.unwrap();
        let name = root
            .get("hints")
            .unwrap()
            .get("mcp:Tool")
            .unwrap()
            .entry("name")
            .unwrap();
        assert_eq!(&text[name.value.span.clone()], "t");
    }
}
