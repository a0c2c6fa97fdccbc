//! The MCP hint: its field table, how its class is recognised, and its validation.
pub mod fields;
pub mod recognize;
pub mod validate;

/// The extension profile's name fallback (SPEC §4), shared with derivation.
pub use crate::derive::normalize_name;

/// The MCP name rules (tools.mdx "Tool Names"): 1–128 characters of `A-Z a-z 0-9 _ - .`.
pub fn is_valid_name(name: &str) -> Result<(), &'static str> {
    if name.is_empty() {
        return Err("is empty");
    }
    if name.chars().count() > 128 {
        return Err("is longer than 128 characters");
    }
    if !name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
    {
        return Err("has characters outside A-Z a-z 0-9 _ - .");
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
