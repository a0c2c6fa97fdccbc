//! The JSON form of a tree (what schemas validate): aliases expanded under a node budget so
//! that alias bombs stay cheap, deferred subtrees taken from their memo.
//!
//! Uses `node`, `resolve` (scalar values), `doc` (anchors, deferred parts) and `memo` (a
//! deferred part's subtree).
use super::doc::YamlDoc;
use super::memo::Memo;
use super::node::{Kind, Node};
use super::resolve::Resolved;

/// How many values a document's JSON may hold (aliases expanded), at most.
const JSON_BUDGET: usize = 2_000_000;
/// How many values aliases may add to a text's JSON: a text of `n` bytes holds at most about
/// `n / 2` values of its own (each at least a character and a separator), so a budget of
/// `n` plus this never refuses a document without aliases, and an alias bomb of a few hundred
/// bytes stops after this many values (6 MB and a few milliseconds) instead of
/// [`JSON_BUDGET`] (it cost 250 ms and 270 MB per keystroke).
const ALIAS_VALUES: usize = 100_000;

/// The node budget of the JSON of a text of `len` bytes (`None`: unknown).
pub(super) fn budget_for(len: Option<usize>) -> usize {
    len.map_or(JSON_BUDGET, |n| {
        JSON_BUDGET.min(n.saturating_add(ALIAS_VALUES))
    })
}

impl Node {
    /// Converts to JSON. Aliases are expanded from `anchors`; `budget` bounds the number of
    /// nodes produced so that alias bombs stay cheap (`None` when it runs out).
    pub fn to_json(&self, doc: &YamlDoc, budget: &mut usize) -> Option<serde_json::Value> {
        self.to_json_depth(doc, budget, 0, &[])
    }

    /// The JSON of a mapping without the given top-level keys.
    pub fn to_json_without(&self, doc: &YamlDoc, skip: &[&str]) -> Option<serde_json::Value> {
        let mut budget = budget_for(doc.text().map(str::len));
        self.to_json_depth(doc, &mut budget, 0, skip)
    }

    pub(super) fn to_json_depth(
        &self,
        doc: &YamlDoc,
        budget: &mut usize,
        depth: usize,
        skip: &[&str],
    ) -> Option<serde_json::Value> {
        use serde_json::Value;
        if *budget == 0 || depth > 256 {
            return None;
        }
        *budget -= 1;
        Some(match &self.kind {
            Kind::Map { pairs, .. } => {
                // Sized: a map grown by inserts keeps up to twice the entries it holds
                // (every input's JSON form is kept with its memo, issue 14).
                let mut map = serde_json::Map::with_capacity(pairs.len());
                for pair in pairs {
                    let key = match pair.key.resolve() {
                        Some(Resolved::Str(s)) => s.to_string(),
                        Some(Resolved::Null) => String::new(),
                        Some(Resolved::Bool(b)) => b.to_string(),
                        Some(Resolved::Int(i)) => i.to_string(),
                        Some(Resolved::Float(_)) => pair.key.scalar().unwrap_or("").to_string(),
                        None => continue,
                    };
                    if skip.contains(&key.as_str()) {
                        continue;
                    }
                    let value = pair.value.to_json_depth(doc, budget, depth + 1, &[])?;
                    map.insert(key, value);
                }
                Value::Object(map)
            }
            Kind::Seq { items, .. } => Value::Array(
                items
                    .iter()
                    .map(|item| item.to_json_depth(doc, budget, depth + 1, &[]))
                    .collect::<Option<Vec<_>>>()?,
            ),
            Kind::Scalar { .. } => match self.resolve()? {
                Resolved::Null => Value::Null,
                Resolved::Bool(b) => Value::Bool(b),
                Resolved::Int(i) => Value::from(i),
                Resolved::Float(f) => serde_json::Number::from_f64(f)
                    .map(Value::Number)
                    .unwrap_or_else(|| Value::String(self.scalar().unwrap_or("").to_string())),
                Resolved::Str(s) => Value::String(s.to_string()),
            },
            Kind::Alias(name) => {
                doc.anchors
                    .get(name)?
                    .to_json_depth(doc, budget, depth + 1, &[])?
            }
            Kind::Invalid => Value::Null,
            Kind::Deferred(i) => {
                let memo = &doc.deferred.get(*i)?.memo;
                if !memo.view.deferred.is_empty() {
                    // A section: built here from its entries' JSON, not copied from its own
                    // (one copy of each entry instead of two). Its node was counted above.
                    *budget += 1;
                    return memo.node.to_json_depth(&memo.view, budget, depth, &[]);
                }
                let (json, nodes) = memo.to_json()?;
                *budget = budget.checked_sub(nodes)?;
                json
            }
        })
    }
}

impl Memo {
    /// The JSON form, built anew on each call (from the parts' own JSON), and how many values
    /// it holds below its root (for the alias budget); `None` when it cannot be built (an
    /// unresolved alias, too many values, too deep). Not kept: what is read from it per
    /// derivation is kept instead (`model::split`), and a 50,000-line tool's entries' JSON
    /// forms were 5.4 MB held beside their value trees (issue 14).
    pub fn to_json(&self) -> Option<(serde_json::Value, usize)> {
        let start = budget_for(Some(self.text.len()));
        let mut budget = start;
        let json = self
            .node
            .to_json_depth(&self.view, &mut budget, self.depth, &[])?;
        Some((json, start - budget - 1))
    }
}

impl YamlDoc {
    pub fn to_json(&self) -> Option<serde_json::Value> {
        let mut budget = budget_for(self.text().map(str::len));
        match &self.root {
            Some(root) => root.to_json(self, &mut budget),
            None => Some(serde_json::Value::Null),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::document::yaml::YamlDoc;

    fn bomb(levels: usize) -> String {
        let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..levels {
            let p = i - 1;
            text.push_str(&format!(
                "a{i}: &a{i} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n"
            ));
        }
        text
    }

    /// The expansion is bounded by its node budget, not by time (no timed test): a document
    /// whose aliases expand to 10^30 nodes gives up once the budget is spent, one that expands
    /// to fewer nodes is expanded whole, and a small budget is never overrun.
    #[test]
    fn alias_bombs_are_bounded() {
        let doc = YamlDoc::parse(&bomb(30));
        assert!(doc.to_json().is_none());
        let small = YamlDoc::parse(&bomb(4));
        let json = small.to_json().expect("10^4 nodes fit the budget");
        assert_eq!(json["a3"].as_array().unwrap().len(), 10);
        let mut budget = 1_000;
        assert!(
            small
                .root
                .as_ref()
                .unwrap()
                .to_json(&small, &mut budget)
                .is_none()
        );
        assert_eq!(budget, 0, "stops exactly when the budget is spent");
    }

    /// Aliases add at most `ALIAS_VALUES` values to a text's own: `bomb(5)`, a text of 400
    /// bytes whose expansion counts about 136,000 values, is refused (under `JSON_BUDGET` alone it
    /// was built); a text without aliases is never refused, however many values it holds
    /// (`[a,a,…]`: one value per two bytes).
    #[test]
    fn aliases_add_a_bounded_number_of_values_to_a_text() {
        let five = YamlDoc::parse(&bomb(5));
        assert!(five.text().unwrap().len() < 500);
        assert!(five.to_json().is_none());
        let mut budget = super::JSON_BUDGET;
        let root = five.root.as_ref().unwrap();
        assert!(root.to_json(&five, &mut budget).is_some());
        let used = super::JSON_BUDGET - budget;
        assert!((130_000..140_000).contains(&used), "{used}");
        let n = 300_000;
        let flat = format!("k: [{}a]\n", "a,".repeat(n - 1));
        let json = YamlDoc::parse(&flat).to_json().expect("its own values");
        assert_eq!(json["k"].as_array().unwrap().len(), n);
    }
}
