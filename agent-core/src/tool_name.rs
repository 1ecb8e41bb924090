//! Which offered tool a model meant when it spells or words the name its
//! own way:
//! the one rule the tool gateway runs calls by and the run counts repeats
//! by, so `read-file` and `read_file` are one tool everywhere.

/// The offered name a model meant by `written`, if exactly one fits.
///
/// In order: the name as written (trimmed); without a `functions.` or
/// `tools.` prefix and surrounding quotes, backticks or asterisks; the same
/// ignoring ASCII case; and last the one name with the same letters and
/// digits (`read-file`, `ReadFile` or `read file` for `read_file`), also
/// with a trailing "tool" dropped (`search tool` for `search`); and only
/// then by words, the one name whose words are all in the spelling or that
/// holds all of its words (`web_search` or `search_web` for `search`,
/// `read` for `read_file`; plurals and the word "tool" aside). A spelling
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
    let mut same = names.clone().filter(|n| {
        let name = name_key(n);
        name == key || name == short
    });
    match (same.next(), same.next()) {
        (Some(name), None) => return Some(name),
        (Some(_), Some(_)) => return None,
        _ => {}
    }
    // Last, by words: the one name whose words are all in the spelling, or
    // that holds all of its words (`web_search` for `search`, `read` for
    // `read_file`).
    let written_words = name_words(bare);
    if written_words.is_empty() {
        return None;
    }
    let mut fitting = names.filter(|n| {
        let words = name_words(n);
        !words.is_empty()
            && (words.iter().all(|w| written_words.contains(w))
                || written_words.iter().all(|w| words.contains(w)))
    });
    match (fitting.next(), fitting.next()) {
        (Some(name), None) => Some(name),
        _ => None,
    }
}

/// A tool name's words, lower-cased, split at separators and case changes
/// (`readFile`, `read_file`, `Read File`), a plural `s` dropped and the
/// word "tool" left out.
fn name_words(name: &str) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    let mut current = String::new();
    let mut previous_lower = false;
    for c in name.chars() {
        let boundary = !c.is_ascii_alphanumeric() || (c.is_ascii_uppercase() && previous_lower);
        if boundary && !current.is_empty() {
            words.push(std::mem::take(&mut current));
        }
        if c.is_ascii_alphanumeric() {
            current.push(c.to_ascii_lowercase());
        }
        previous_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
    }
    if !current.is_empty() {
        words.push(current);
    }
    words
        .into_iter()
        .filter(|w| w != "tool")
        .map(|w| match w.strip_suffix('s') {
            Some(stem) if stem.len() >= 3 && !stem.ends_with('s') => stem.to_string(),
            _ => w,
        })
        .collect()
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
    fn names_with_the_words_of_one_offered_name_resolve() {
        assert_eq!(resolve("web_search"), Some("search"));
        assert_eq!(resolve("searchWeb"), Some("search"));
        assert_eq!(resolve("read"), Some("read_file"));
        assert_eq!(resolve("read_text_file"), Some("read_file"));
        assert_eq!(resolve("calculator_tool"), Some("calculator"));
        // Words that fit two names, or none, do not resolve.
        assert_eq!(resolve("file_search"), None);
        assert_eq!(resolve("file"), None);
        assert_eq!(resolve("read_url"), None);
        assert_eq!(resolve("delete_files"), None);
    }

    #[test]
    fn unknown_ambiguous_and_empty_names_do_not_resolve() {
        assert_eq!(resolve("write_file"), None);
        assert_eq!(resolve("tool"), None);
        assert_eq!(resolve(""), None);
        assert_eq!(resolve_tool_name("a-b", ["a_b", "ab"]), None);
    }
}
