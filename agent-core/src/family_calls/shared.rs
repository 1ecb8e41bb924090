//! What the family readers share: the bounds on names and tag prefixes,
//! reading an element's value, telling a tool name, the tag name that
//! ends at a point (`<invoke` elements and GLM's tags), and cutting
//! windows of text at character boundaries.

use serde_json::Value;

/// How far a call's name, or a tag's attributes, may run, in bytes.
pub(super) const NAME_WINDOW: usize = 256;
/// How long a tag-name prefix (`minimax:`, `｜DSML｜`) may be, in bytes.
pub(super) const PREFIX_WINDOW: usize = 32;

/// An element's value: JSON when it reads as JSON, else its trimmed text;
/// always the text when `raw`.
pub(super) fn element_value(text: &str, raw: bool) -> Value {
    let trimmed = text.trim();
    if raw {
        return Value::String(trimmed.to_string());
    }
    serde_json::from_str::<Value>(trimmed).unwrap_or_else(|_| Value::String(trimmed.to_string()))
}

/// A tool name as these formats write it: not empty, no spaces, no tags.
pub(super) fn is_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= NAME_WINDOW
        && !name
            .chars()
            .any(|c| c.is_whitespace() || matches!(c, '<' | '>' | '{' | '[' | '"'))
}

/// The first `max` bytes of `text`, cut back to a character boundary.
pub(crate) fn window(text: &str, max: usize) -> &str {
    let mut end = max.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// The last `max` bytes of `text`, cut forward to a character boundary.
pub(super) fn tail(text: &str, max: usize) -> &str {
    let mut start = text.len().saturating_sub(max);
    while !text.is_char_boundary(start) {
        start += 1;
    }
    &text[start..]
}

/// The first byte at or after `p` that is not whitespace.
pub(super) fn skip_space(text: &str, p: usize) -> usize {
    p + (text[p..].len() - text[p..].trim_start().len())
}

/// The `<` and the tag name (prefix included) that end at `end`, when the
/// text from a `<` to there is a plain tag name.
pub(super) fn tag_name_before(text: &str, end: usize) -> Option<(usize, &str)> {
    let before = tail(&text[..end], PREFIX_WINDOW);
    let lt = end - before.len() + before.rfind('<')?;
    let tag = &text[lt + 1..end];
    let plain = !tag.is_empty()
        && !tag
            .chars()
            .any(|c| c.is_whitespace() || matches!(c, '<' | '>' | '/'));
    plain.then_some((lt, tag))
}
