//! Calls written as `<invoke name="NAME">` (or `<function name="NAME">`)
//! elements holding `<parameter name="KEY">VALUE</parameter>` (or
//! `<param …>`, `<arg key=…>`) elements, with any tag-name prefix
//! (`minimax:`, `｜DSML｜`), and the wrapper tag around them; also the tag
//! scanning those elements need.

use serde_json::{Map, Value};

use super::shared::{
    NAME_WINDOW, PREFIX_WINDOW, element_value, is_name, tag_name_before, tail, window,
};
use super::{FamilyCall, MARKER_WINDOW, Read};

/// An `<invoke name="…">` (or `<function name="…">`) opening tag.
pub(super) struct Invoke<'a> {
    /// Where its `<` is.
    pub(super) lt: usize,
    /// The tool's name.
    name: &'a str,
    /// Where its body starts (after the tag's `>`).
    body_at: usize,
}

/// Element names of a call with a `name` attribute.
const CALL_ELEMENTS: [&str; 2] = ["invoke", "function"];
/// Element names of an argument with a `name` (or `key`) attribute.
const ARGUMENT_ELEMENTS: [&str; 3] = ["parameter", "param", "arg"];
/// The attributes that name a call.
const CALL_ATTRIBUTES: [&str; 1] = [" name"];
/// The attributes that name an argument (`key` in dspy's `<arg key=…>`).
const ARGUMENT_ATTRIBUTES: [&str; 2] = [" name", " key"];

/// The first `<…invoke name="…">` or `<…function name="…">` tag at or
/// after `from`.
pub(super) fn find_invoke(text: &str, from: usize) -> Option<Invoke<'_>> {
    let mut search = from;
    loop {
        let (lt, name_at) = find_named_tag(text, search, &CALL_ELEMENTS, &CALL_ATTRIBUTES)?;
        search = name_at;
        let Some((name, attributes_at)) = quoted(text, name_at) else {
            continue;
        };
        let Some(close) = window(&text[attributes_at..], NAME_WINDOW).find('>') else {
            continue;
        };
        if is_name(name) {
            return Some(Invoke {
                lt,
                name,
                body_at: attributes_at + close + 1,
            });
        }
    }
}

/// The first tag at or after `from` whose element is one of `elements`
/// (after a tag-name prefix such as `minimax:` or `｜DSML｜`) with one of
/// `attributes` (each with its leading space): where its `<` is, and where
/// the attribute's value starts. Each `=` is looked at once.
fn find_named_tag(
    text: &str,
    from: usize,
    elements: &[&str],
    attributes: &[&str],
) -> Option<(usize, usize)> {
    let mut search = from;
    loop {
        let equals = search + text[search..].find('=')?;
        search = equals + 1;
        let Some(attribute) = attributes
            .iter()
            .find(|attribute| text[..equals].ends_with(**attribute))
        else {
            continue;
        };
        let Some((lt, tag)) = tag_name_before(text, equals - attribute.len()) else {
            continue;
        };
        if elements.iter().any(|element| tag.ends_with(element)) {
            return Some((lt, search));
        }
    }
}

/// The first closing tag at or after `from` whose element is one of
/// `elements`, after any prefix: where it starts and ends.
fn find_closing_tag(text: &str, from: usize, elements: &[&str]) -> Option<(usize, usize)> {
    let mut search = from;
    loop {
        let at = search + text[search..].find("</")?;
        search = at + 2;
        let Some(len) = window(&text[search..], PREFIX_WINDOW).find('>') else {
            continue;
        };
        let tag = &text[search..search + len];
        if elements.iter().any(|element| tag.ends_with(element)) {
            return Some((at, search + len + 1));
        }
    }
}

/// The text between quotes that open at `at` (`"` or `'`), and where the
/// text after the closing quote starts.
fn quoted(text: &str, at: usize) -> Option<(&str, usize)> {
    let rest = &text[at..];
    let quote = rest.chars().next().filter(|c| matches!(c, '"' | '\''))?;
    let inner = &rest[1..];
    let len = window(inner, NAME_WINDOW).find(quote)?;
    Some((&inner[..len], at + 1 + len + 1))
}

/// The invoke call whose tag starts at `lt`. Its arguments are the
/// `<…parameter name="KEY">` (or `<param …>`) elements in its body; the
/// prefixes of opening and closing tags need not match, as models write
/// them.
pub(super) fn invoke_call(text: &str, lt: usize) -> Option<Read> {
    let invoke = find_invoke(text, lt)?;
    let (body_end, end, complete) = match find_closing_tag(text, invoke.body_at, &CALL_ELEMENTS) {
        Some((start, end)) => (start, end, true),
        None => (text.len(), text.len(), false),
    };
    let body = &text[invoke.body_at..body_end];
    let (arguments, whole) = argument_elements(body);
    Some((
        FamilyCall {
            name: invoke.name.to_string(),
            arguments: Value::Object(arguments),
            end,
        },
        complete && whole,
    ))
}

/// The arguments written as `<parameter name="KEY">VALUE</parameter>`
/// elements (or `<param name=…>`, `<arg key=…>`, any tag prefix) in
/// `body`, or `None` when it holds none. A value is JSON when it reads as
/// JSON, else its text (always its text with `string="true"`).
pub fn read_argument_elements(body: &str) -> Option<Map<String, Value>> {
    let (arguments, _) = argument_elements(body);
    (!arguments.is_empty()).then_some(arguments)
}

/// The argument elements in `body`, and whether each was read to its
/// closing tag.
fn argument_elements(body: &str) -> (Map<String, Value>, bool) {
    let mut arguments = Map::new();
    let mut at = 0;
    while let Some((_, name_at)) =
        find_named_tag(body, at, &ARGUMENT_ELEMENTS, &ARGUMENT_ATTRIBUTES)
    {
        let Some((key, attributes_at)) = quoted(body, name_at) else {
            return (arguments, false);
        };
        let Some(tag_len) = window(&body[attributes_at..], NAME_WINDOW).find('>') else {
            return (arguments, false);
        };
        let tag_end = attributes_at + tag_len;
        let raw = body[attributes_at..tag_end].contains("string=\"true\"");
        let value_at = tag_end + 1;
        let Some((value_end, next)) = find_closing_tag(body, value_at, &ARGUMENT_ELEMENTS) else {
            arguments.insert(key.to_string(), element_value(&body[value_at..], raw));
            return (arguments, false);
        };
        arguments.insert(
            key.to_string(),
            element_value(&body[value_at..value_end], raw),
        );
        at = next;
    }
    (arguments, true)
}

/// Where a wrapper tag around the call at `lt` starts (`<function_calls>`,
/// `<minimax:tool_call>`), or `lt` when the call has none.
pub(super) fn wrapper_start(text: &str, lt: usize) -> usize {
    let before = text[..lt].trim_end();
    if !before.ends_with('>') {
        return lt;
    }
    let tag_window = tail(before, MARKER_WINDOW);
    match tag_window.rfind('<') {
        Some(n) => {
            let start = before.len() - tag_window.len() + n;
            let tag = &before[start..];
            if tag.starts_with("</") || tag.contains(char::is_whitespace) {
                lt
            } else {
                start
            }
        }
        None => lt,
    }
}

#[cfg(test)]
mod tests {
    use crate::family_calls::read_family_calls;
    use crate::family_calls::tests::first;
    use serde_json::json;

    #[test]
    fn invoke_elements_with_any_prefix() {
        let minimax = "I will look it up.\n<minimax:tool_call>\n<invoke name=\"search\">\n<parameter name=\"query\">Oslo population</parameter>\n<parameter name=\"limit\">3</parameter>\n</invoke>\n</minimax:tool_call>";
        let read = read_family_calls(minimax).unwrap();
        assert_eq!(&minimax[..read.prose_end], "I will look it up.\n");
        assert_eq!(
            (
                read.calls[0].name.as_str(),
                &read.calls[0].arguments,
                read.complete
            ),
            (
                "search",
                &json!({"query": "Oslo population", "limit": 3}),
                true
            )
        );
        let dsml = "<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"read_file\">\n<｜DSML｜parameter name=\"path\" string=\"true\">2024</｜DSML｜parameter>\n</｜DSML｜invoke>\n<｜DSML｜invoke name=\"search\">\n<｜DSML｜parameter name=\"query\" string=\"true\">x</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>";
        let read = read_family_calls(dsml).unwrap();
        assert_eq!(read.prose_end, 0);
        assert_eq!(read.calls.len(), 2);
        assert_eq!(read.calls[0].arguments, json!({"path": "2024"}));
        let cut = "<function_calls><invoke name=\"search\"><parameter name=\"query\">Os";
        let (name, arguments, complete) = first(cut);
        assert_eq!(
            (name.as_str(), arguments, complete),
            ("search", json!({"query": "Os"}), false)
        );
    }
}
