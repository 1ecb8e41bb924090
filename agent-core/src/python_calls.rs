//! Python-style tool calls written as text: Llama 3.2's list
//! `[name(key=value, …), …]` read as call objects (`name` and
//! `arguments`, [`call_list`]), and the keyword arguments of one call
//! (`(key=value, …)`, [`keyword_call_arguments`]; ChatGLM3's
//! `tool_call(…)`, read by [`family_calls`](crate::family_calls)). Values
//! are JSON or Python literals (`'text'`, `True`, `False`, `None`); every
//! argument must be a keyword argument, so prose in brackets stays prose.

use serde_json::{Map, Value};

/// The calls of `text` when the whole of it is one such list.
///
/// ```
/// use agent_core::python_calls::call_list;
/// use serde_json::json;
///
/// assert_eq!(
///     call_list("[search(query='a topic', limit=3)]"),
///     Some(vec![json!({"name": "search", "arguments": {"query": "a topic", "limit": 3}})])
/// );
/// assert_eq!(call_list("[see (above)]"), None);
/// ```
pub fn call_list(text: &str) -> Option<Vec<Value>> {
    let inner = text.trim().strip_prefix('[')?.strip_suffix(']')?;
    let mut calls = Vec::new();
    let mut rest = inner.trim_start();
    while !rest.is_empty() {
        let open = rest.find('(')?;
        let name = rest[..open].trim();
        if name.is_empty()
            || !name
                .chars()
                .all(|c| c.is_alphanumeric() || c == '_' || c == '.')
        {
            return None;
        }
        let close = open + closing(&rest[open..])?;
        let arguments = keyword_arguments(&rest[open + 1..close])?;
        calls.push(serde_json::json!({"name": name, "arguments": arguments}));
        rest = rest[close + 1..].trim_start();
        rest = rest.strip_prefix(',').unwrap_or(rest).trim_start();
    }
    (!calls.is_empty()).then_some(calls)
}

/// The keyword arguments of the call whose `(` opens `text`, as an
/// object, and the byte after its `)`. `None` when the parentheses do not
/// close or an argument has no key.
///
/// ```
/// use agent_core::python_calls::keyword_call_arguments;
/// use serde_json::json;
///
/// let text = "(place=\"a city\", unit='metric') and more";
/// let (arguments, end) = keyword_call_arguments(text).unwrap();
/// assert_eq!(arguments, json!({"place": "a city", "unit": "metric"}));
/// assert_eq!(&text[end..], " and more");
/// assert_eq!(keyword_call_arguments("(a city)"), None);
/// ```
pub fn keyword_call_arguments(text: &str) -> Option<(Value, usize)> {
    if !text.starts_with('(') {
        return None;
    }
    let close = closing(text)?;
    Some((keyword_arguments(&text[1..close])?, close + 1))
}

/// Whether `name` is one word as a keyword argument's name or a tool's
/// name is written: letters, digits and `_`, at least one of them.
///
/// ```
/// use agent_core::python_calls::is_word_name;
///
/// assert!(is_word_name("read_file"));
/// assert!(!is_word_name("read file") && !is_word_name(""));
/// ```
pub fn is_word_name(name: &str) -> bool {
    !name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_')
}

/// `key=value, …` as an object; `None` when an argument has no key.
fn keyword_arguments(args: &str) -> Option<Value> {
    let mut object = Map::new();
    for argument in top_level(args, ',') {
        let argument = argument.trim();
        if argument.is_empty() {
            continue;
        }
        let (key, value) = argument.split_once('=')?;
        let key = key.trim();
        if !is_word_name(key) {
            return None;
        }
        object.insert(key.to_string(), literal(value.trim()));
    }
    Some(Value::Object(object))
}

/// A Python or JSON literal; anything else as its text.
fn literal(value: &str) -> Value {
    match value {
        "True" => return Value::Bool(true),
        "False" => return Value::Bool(false),
        "None" => return Value::Null,
        _ => {}
    }
    if let Some(inner) = value.strip_prefix('\'').and_then(|v| v.strip_suffix('\'')) {
        return Value::String(inner.replace("\\'", "'"));
    }
    serde_json::from_str(value).unwrap_or_else(|_| Value::String(value.to_string()))
}

/// The byte of the `)` closing the `(` that `text` starts with, skipping
/// quoted strings and nested brackets.
fn closing(text: &str) -> Option<usize> {
    for (i, c, depth) in unquoted(text) {
        if matches!(c, ')' | ']' | '}') {
            // A closer at depth 0 has no opener: unbalanced.
            if depth <= 1 {
                return (depth == 1 && c == ')').then_some(i);
            }
        }
    }
    None
}

/// `text` split at each `separator` outside quotes and brackets.
fn top_level(text: &str, separator: char) -> Vec<&str> {
    let mut parts = Vec::new();
    let mut start = 0;
    for (i, c, depth) in unquoted(text) {
        if c == separator && depth == 0 {
            parts.push(&text[start..i]);
            start = i + c.len_utf8();
        }
    }
    parts.push(&text[start..]);
    parts
}

/// The characters of `text` outside quoted strings (`"…"` or `'…'`, with
/// backslash escapes), each with its bracket depth: an opening bracket
/// counts itself, a closing one the pair it closes.
fn unquoted(text: &str) -> impl Iterator<Item = (usize, char, usize)> + '_ {
    let mut quote = None;
    let mut escaped = false;
    let mut depth = 0usize;
    text.char_indices().filter_map(move |(i, c)| {
        if let Some(q) = quote {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == q {
                quote = None;
            }
            return None;
        }
        match c {
            '"' | '\'' => {
                quote = Some(c);
                None
            }
            '(' | '[' | '{' => {
                depth += 1;
                Some((i, c, depth))
            }
            ')' | ']' | '}' => {
                let pair = depth;
                depth = depth.saturating_sub(1);
                Some((i, c, pair))
            }
            _ => Some((i, c, depth)),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn lists_of_keyword_calls() {
        assert_eq!(
            call_list(
                "[search(query=\"Berlin, Germany\"), calculator(expression='(2 + 3) * 4', precise=True)]"
            ),
            Some(vec![
                json!({"name": "search", "arguments": {"query": "Berlin, Germany"}}),
                json!({"name": "calculator", "arguments": {"expression": "(2 + 3) * 4", "precise": true}}),
            ])
        );
        assert_eq!(
            call_list("[read_file(path=\"a.txt\", start=1, end=None)]"),
            Some(vec![
                json!({"name": "read_file", "arguments": {"path": "a.txt", "start": 1, "end": null}})
            ])
        );
        assert_eq!(
            call_list("[list_files()]"),
            Some(vec![json!({"name": "list_files", "arguments": {}})])
        );
    }

    #[test]
    fn prose_and_broken_calls_are_not_calls() {
        for text in [
            "[1, 2, 3]",
            "[see(above)]",
            "[search(query=\"x\"]",
            "[search(query=\"x\")) extra]",
            "[]",
            "Berlin(query=x)",
            "[(query=\"x\")]",
        ] {
            assert_eq!(call_list(text), None, "{text}");
        }
    }
}
