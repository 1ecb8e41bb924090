//! Functionary's `>>>NAME` line before a JSON object, and its `>>>all`
//! line, which opens prose for the user instead ([`functionary_prose`]).

use super::json_body::json_body_call;
use super::shared::{NAME_WINDOW, is_name, skip_space, window};
use super::{Read, read_family_calls};

const FUNCTIONARY_OPEN: &str = ">>>";
/// Functionary's recipient for prose, not a call.
const FUNCTIONARY_PROSE: &str = "all";

/// The first `>>>NAME` line followed by a JSON object, at or after `from`:
/// at a line start, or right after the call that ends at `from`.
pub(super) fn find_functionary(text: &str, from: usize) -> Option<usize> {
    let mut search = from;
    loop {
        let at = search + text[search..].find(FUNCTIONARY_OPEN)?;
        search = at + FUNCTIONARY_OPEN.len();
        // At a line start, right after the previous call, or anywhere in
        // a reply that opens Functionary's way (`>>>all` prose, then calls).
        let at_line_start = at == 0
            || text[..at].ends_with('\n')
            || (from > 0 && at == skip_space(text, from))
            || text.starts_with(FUNCTIONARY_OPEN);
        if at_line_start && functionary_head(text, at).is_some() {
            return Some(at);
        }
    }
}

/// The name of the Functionary call at `at`, and where its JSON starts.
fn functionary_head(text: &str, at: usize) -> Option<(&str, usize)> {
    let name_at = at + FUNCTIONARY_OPEN.len();
    let line = window(&text[name_at..], NAME_WINDOW);
    let len = line.find('\n')?;
    let name = line[..len].trim();
    let json_at = skip_space(text, name_at + len);
    let opens_object = text[json_at..].starts_with('{');
    (opens_object && is_name(name) && name != FUNCTIONARY_PROSE).then_some((name, json_at))
}

/// The prose of a reply that opens with Functionary's `>>>all` recipient
/// line (its words for the user, not a call), when nothing in it is a
/// call in these formats.
pub fn functionary_prose(text: &str) -> Option<&str> {
    let rest = text.trim_start().strip_prefix(FUNCTIONARY_OPEN)?;
    let rest = rest.strip_prefix(FUNCTIONARY_PROSE)?;
    let (head, prose) = rest.split_once('\n')?;
    if !head.trim().is_empty() || read_family_calls(text).is_some() {
        return None;
    }
    Some(prose.trim())
}

/// The Functionary call at `at`.
pub(super) fn functionary_call(text: &str, at: usize) -> Option<Read> {
    let (name, json_at) = functionary_head(text, at)?;
    Some(json_body_call(text, json_at, name.to_string()))
}

#[cfg(test)]
mod tests {
    use super::functionary_prose;
    use crate::family_calls::read_family_calls;

    #[test]
    fn functionary_lines() {
        let text = ">>>search\n{\"query\": \"Oslo\"}>>>calculator\n{\"expression\": \"2\"}";
        let read = read_family_calls(text).unwrap();
        assert_eq!(read.calls.len(), 2);
        assert!(read.complete);
        // Prose for the user, a `>>>` inside a line, a quote: no calls.
        assert!(read_family_calls(">>>all\nHello there").is_none());
        assert!(read_family_calls("Python's prompt is >>>print\n{}").is_none());
    }

    #[test]
    fn functionary_prose_is_not_a_call() {
        assert_eq!(functionary_prose(">>>all\nIt is 42."), Some("It is 42."));
        assert_eq!(
            functionary_prose(">>>all\nLet me check.>>>search\n{\"q\": 1}"),
            None
        );
        assert_eq!(functionary_prose(">>>allow\nx"), None);
        assert_eq!(functionary_prose("It is 42."), None);
    }
}
