//! Steps written in XML-like tags instead of ReAct lines: LangChain's XML
//! agent asks for `<tool>NAME</tool><tool_input>VALUE</tool_input>` and
//! `<final_answer>TEXT</final_answer>`, models prompted with tags answer
//! with `<action>`/`<action_input>` (or, as dspy-go asks, `<action>`
//! around `<tool_name>` and `<arguments>` holding `<arg key="…">`
//! elements), and models tuned to reason in
//! `<think>` tags put their reply in `<answer>…</answer>`. The closing tag
//! of an input or an answer may be missing: the XML agent's stop sequence
//! is `</tool_input>`, and a token limit cuts anywhere.

use agent_core::family_calls::read_argument_elements;
use serde_json::Value;

use crate::action::clean_name;
use crate::blob::{Blob, skip_space};
use crate::input::decode_input;

/// Opening tags of a tool name, with their closing tags.
const NAME_TAGS: [(&str, &str); 3] = [
    ("<tool>", "</tool>"),
    ("<action>", "</action>"),
    ("<tool_name>", "</tool_name>"),
];
/// A tag that may wrap a whole step (`<action><tool_name>…`).
const WRAPPER: &str = "<action>";
/// Opening tags of a tool's input, with their closing tags.
const INPUT_TAGS: [(&str, &str); 4] = [
    ("<tool_input>", "</tool_input>"),
    ("<action_input>", "</action_input>"),
    ("<input>", "</input>"),
    ("<arguments>", "</arguments>"),
];
/// Opening tags of an answer, with their closing tags.
const ANSWER_TAGS: [(&str, &str); 2] = [
    ("<final_answer>", "</final_answer>"),
    ("<answer>", "</answer>"),
];
/// How far a tool name may run before its closing tag, in bytes.
const NAME_WINDOW: usize = 128;

/// Whether a line (trimmed at its start) opens a step in tags.
pub(crate) fn opens_tag_step(line: &str) -> bool {
    NAME_TAGS
        .iter()
        .chain(ANSWER_TAGS.iter())
        .any(|(open, _)| line.starts_with(open))
}

/// Reads a step in tags at byte `p`; `None` when none opens there.
pub(crate) fn read_tag_step(text: &str, p: usize) -> Option<Blob> {
    let rest = &text[p..];
    if let Some((open, close)) = ANSWER_TAGS.iter().find(|(open, _)| rest.starts_with(open)) {
        let from = p + open.len();
        let (body, end) = until_close(text, from, close);
        let answer = body.trim();
        return Some(if answer.is_empty() {
            Blob::Failed { stop: end }
        } else {
            Blob::Final {
                answer: answer.to_string(),
                thought: None,
                end,
            }
        });
    }
    // `<action>` around the name and input tags: the step is inside.
    if let Some(inner) = rest.strip_prefix(WRAPPER) {
        let at = skip_space(text, p + WRAPPER.len());
        let names_inside = inner.trim_start().starts_with('<')
            && NAME_TAGS
                .iter()
                .any(|(open, _)| *open != WRAPPER && text[at..].starts_with(open));
        if names_inside {
            return read_tag_step(text, at);
        }
    }
    let (open, close) = NAME_TAGS.iter().find(|(open, _)| rest.starts_with(open))?;
    let from = p + open.len();
    let window = &text[from..crate::labels::floor_boundary(text, from + NAME_WINDOW)];
    let Some(name_len) = window.find(close) else {
        return Some(Blob::Failed {
            stop: from + window.len(),
        });
    };
    let name = clean_name(&window[..name_len]);
    let after_name = from + name_len + close.len();
    let at = skip_space(text, after_name);
    let input_tag = INPUT_TAGS
        .iter()
        .find(|(open, _)| text[at..].starts_with(open));
    let Some((input_open, input_close)) = input_tag else {
        return Some(Blob::Failed { stop: after_name });
    };
    if name.is_empty() || name.contains(char::is_whitespace) {
        return Some(Blob::Failed { stop: after_name });
    }
    let (body, end) = until_close(text, at + input_open.len(), input_close);
    // `<arg key="…">` or `<parameter name="…">` elements are the arguments.
    let input = if body.trim_start().starts_with('<') {
        read_argument_elements(body).map_or_else(|| decode_input(body), Value::Object)
    } else {
        decode_input(body)
    };
    Some(Blob::Action {
        tool: name,
        input,
        thought: None,
        end,
    })
}

/// The text from `from` to `close` (or to the end), and where the step
/// ends (after `close` when it is there).
fn until_close<'a>(text: &'a str, from: usize, close: &str) -> (&'a str, usize) {
    match text[from..].find(close) {
        Some(n) => (&text[from..from + n], from + n + close.len()),
        None => (&text[from..], text.len()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tool_and_input_tags_are_an_action() {
        let text = "<tool>search</tool><tool_input>weather in Paris";
        let Some(Blob::Action {
            tool, input, end, ..
        }) = read_tag_step(text, 0)
        else {
            panic!("not an action");
        };
        assert_eq!(
            (tool.as_str(), input),
            ("search", json!("weather in Paris"))
        );
        assert_eq!(end, text.len());
        let text = "<action>calculator</action>\n<action_input>{\"expression\": \"2+2\"}</action_input> more";
        let Some(Blob::Action { input, end, .. }) = read_tag_step(text, 0) else {
            panic!("not an action");
        };
        assert_eq!(input, json!({"expression": "2+2"}));
        assert_eq!(&text[end..], " more");
    }

    #[test]
    fn a_wrapped_step_with_argument_elements_is_an_action() {
        let text = "<action>\n<tool_name>search_files</tool_name>\n<arguments><arg key=\"pattern\">*.go</arg><arg key=\"limit\">5</arg></arguments>\n</action>";
        let Some(Blob::Action { tool, input, .. }) = read_tag_step(text, 0) else {
            panic!("not an action");
        };
        assert_eq!(
            (tool.as_str(), input),
            ("search_files", json!({"pattern": "*.go", "limit": 5}))
        );
        // Nested wrappers are not unwrapped again and again.
        let nested = "<action>".repeat(1000);
        assert!(!matches!(
            read_tag_step(&nested, 0),
            Some(Blob::Action { .. })
        ));
    }

    #[test]
    fn answer_tags_are_the_answer() {
        for text in [
            "<final_answer>It is 42.</final_answer>",
            "<answer>It is 42.",
        ] {
            assert!(
                matches!(read_tag_step(text, 0), Some(Blob::Final { ref answer, .. }) if answer == "It is 42."),
                "{text}"
            );
        }
    }

    #[test]
    fn broken_or_unrelated_tags_are_not_steps() {
        assert!(matches!(
            read_tag_step("<tool>search</tool> then", 0),
            Some(Blob::Failed { .. })
        ));
        assert!(matches!(
            read_tag_step("<tool>two words</tool><tool_input>x", 0),
            Some(Blob::Failed { .. })
        ));
        assert!(matches!(
            read_tag_step("<answer></answer>", 0),
            Some(Blob::Failed { .. })
        ));
        assert_eq!(read_tag_step("<div>x</div>", 0), None);
    }
}
