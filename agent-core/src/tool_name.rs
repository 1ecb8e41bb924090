//! Which offered tool a model meant when it spells the name its own way:
//! the one rule the tool gateway runs calls by and the run counts repeats
//! by, so `read-file` and `read_file` are one tool everywhere.

/// The offered name a model meant by `written`, if exactly one fits.
///
/// In order: the name as written (trimmed); without a `functions.` or
/// `tools.` prefix and surrounding quotes, backticks or asterisks; the same
/// ignoring ASCII case; and last the one name with the same letters and
/// digits (`read-file`, `ReadFile` or `read file` for `read_file`), also
/// with a trailing "tool" dropped (`search tool` for `search`). A spelling
/// that fits two names, or none, gives `None`.
pub fn resolve_tool_name<'a, I>(written: &str, names: I) -> Option<&'a str>
where
    I: IntoIterator<Item = &'a str>,
    I::IntoIter: Clone,
{
    let names = names.into_iter();
    let written = written.trim();
    if let Some(name) = names.clone().find(|n| *n == written) {
        return Some(name);
    }
    let bare = written
        .strip_prefix("functions.")
        .or_else(|| written.strip_prefix("tools."))
        .unwrap_or(written)
        .trim_matches(|c: char| c == '`' || c == '"' || c == '\'' || c == '*');
    if let Some(name) = names.clone().find(|n| *n == bare) {
        return Some(name);
    }
    if let Some(name) = names.clone().find(|n| n.eq_ignore_ascii_case(bare)) {
        return Some(name);
    }
    let key = name_key(bare);
    let short = key.strip_suffix("tool").unwrap_or(&key);
    if short.is_empty() {
        return None;
    }
    let mut same = names.filter(|n| {
        let name = name_key(n);
        name == key || name == short
    });
    match (same.next(), same.next()) {
        (Some(name), None) => Some(name),
        _ => None,
    }
}

/// A tool name's letters and digits, lower-cased: what stays of it when a
/// model writes its separators and case its own way.
fn name_key(name: &str) -> String {
    name.chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::resolve_tool_name;

    const NAMES: [&str; 4] = ["read_file", "search", "search_files", "calculator"];

    fn resolve(written: &str) -> Option<&'static str> {
        resolve_tool_name(written, NAMES)
    }

    #[test]
    fn exact_and_decorated_names_resolve() {
        assert_eq!(resolve("read_file"), Some("read_file"));
        assert_eq!(resolve("  search "), Some("search"));
        assert_eq!(resolve("functions.calculator"), Some("calculator"));
        assert_eq!(resolve("`search_files`"), Some("search_files"));
        assert_eq!(resolve("**Calculator**"), Some("calculator"));
    }

    #[test]
    fn other_separators_case_and_a_trailing_tool_resolve_when_unique() {
        assert_eq!(resolve("read-file"), Some("read_file"));
        assert_eq!(resolve("ReadFile"), Some("read_file"));
        assert_eq!(resolve("read file"), Some("read_file"));
        assert_eq!(resolve("search tool"), Some("search"));
        assert_eq!(resolve("SearchFiles"), Some("search_files"));
    }

    #[test]
    fn unknown_ambiguous_and_empty_names_do_not_resolve() {
        assert_eq!(resolve("write_file"), None);
        assert_eq!(resolve("tool"), None);
        assert_eq!(resolve(""), None);
        assert_eq!(resolve_tool_name("a-b", ["a_b", "ab"]), None);
    }
}
