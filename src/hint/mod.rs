//! The MCP hint: its field table, how its class is recognised, and its validation.
pub mod fields;
pub mod recognize;
pub mod validate;
pub mod values;

/// The extension profile's id normalization (SPEC §4): the part after the last `#` or `/`,
/// each character outside `[A-Za-z0-9_]` replaced by `_`. Derivation and the fixes use it.
pub fn normalize_name(id_or_stem: &str) -> String {
    let cut = id_or_stem.rfind(['/', '#']).map(|i| i + 1).unwrap_or(0);
    id_or_stem[cut..]
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The MCP name rules (tools.mdx "Tool Names"): 1–128 characters of `A-Z a-z 0-9 _ - .`.
/// The error says what is wrong, e.g. "contains ` ` (a space)".
pub fn is_valid_name(name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err("is empty".into());
    }
    let count = name.chars().count();
    if count > 128 {
        return Err(format!("has {count} characters (at most 128)"));
    }
    let bad: Vec<char> = name
        .chars()
        .filter(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')))
        .collect();
    if let Some(&first) = bad.first() {
        let shown = match first {
            ' ' => "` ` (a space)".to_string(),
            c => format!("`{c}`"),
        };
        return Err(format!("contains {shown}"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_normalize_and_validate() {
        assert_eq!(normalize_name("echo-region"), "echo_region");
        assert_eq!(normalize_name("file:///a/b.cwl#main/s1"), "s1");
        assert_eq!(normalize_name("é x"), "__x");
        assert!(is_valid_name("admin.tools.list").is_ok());
        assert!(is_valid_name(&"a".repeat(128)).is_ok());
        assert!(is_valid_name(&"a".repeat(129)).is_err());
        assert!(is_valid_name("echo region").is_err());
        assert!(is_valid_name("ns:tool").is_err());
        assert!(is_valid_name("").is_err());
    }
}
