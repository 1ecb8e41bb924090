//! JSON action blobs: `{"action": …, "action_input": …}` (the JSON ReAct
//! style) and `{"name": …, "arguments": …}` (the tool-call style small
//! models fall back to), bare, fenced, or inside `<tool_call>` tags, and
//! the calls other model families write in their own formats (see
//! [`foreign`]) or in XML-like tags (see
//! [`xml_tags`]). A
//! `{"final_answer": …}` object is the answer, and a `"thought"` string
//! next to either is the step's reasoning: the shape of the JSON-schema
//! envelope a schema-constrained server writes (see `grammar`).

use serde_json::{Map, Value};

use crate::action::{clean_name, is_sentence};
use crate::foreign;
use crate::input::decode_input;
use crate::lenient_json::read_lenient;
use crate::xml_tags;

/// How a blob wrapped in a prompt template's placeholder marks opens
/// (`${{ … }}$`, as a model copies `$JSON_BLOB` and its escaped braces):
/// the blob is read from its brace.
pub(crate) const TEMPLATE_BLOB: &str = "${";

/// What a candidate blob turned out to be.
#[derive(Debug, PartialEq)]
pub(crate) enum Blob {
    /// A tool call.
    Action {
        /// The tool.
        tool: String,
        /// Its input.
        input: Value,
        /// The `"thought"` next to it.
        thought: Option<String>,
        /// Where the blob ends.
        end: usize,
    },
    /// A final answer (`"action": "Final Answer"`, or `"final_answer"`).
    Final {
        /// The answer.
        answer: String,
        /// The `"thought"` next to it.
        thought: Option<String>,
        /// Where the blob ends.
        end: usize,
    },
    /// JSON, but not an action: part of the reasoning. It ends here.
    NotAction {
        /// Where the JSON ends.
        end: usize,
    },
    /// Not JSON; reading stopped at this byte.
    Failed {
        /// Where reading stopped.
        stop: usize,
    },
}

/// Keys that name the tool, with whether the input key is required.
const NAME_KEYS: [(&str, bool); 5] = [
    ("action", false),
    ("tool", false),
    ("tool_name", false),
    ("name", true),
    ("function", true),
];

/// Keys that hold the input.
const INPUT_KEYS: [&str; 12] = [
    "action_input",
    "action_inputs",
    "tool_input",
    "input",
    "arguments",
    "args",
    "parameters",
    // MemGPT / Letta (`{"function": …, "params": …}`)
    "params",
    "tool_args",
    "tool_params",
    // smolagents' tool-calling agent
    "tool_arguments",
    // Semantic Kernel's stepwise planner
    "action_variables",
];

/// Reads the blob that starts at byte `at` (maybe after whitespace).
pub(crate) fn read_blob(text: &str, at: usize) -> Blob {
    let mut p = skip_space(text, at);
    if text[p..].starts_with(TEMPLATE_BLOB) {
        p += '$'.len_utf8();
    }
    let tagged = text[p..].starts_with("<tool_call>");
    if tagged {
        p = skip_space(text, p + "<tool_call>".len());
    }
    if let Some(blob) = foreign::read_call(text, p) {
        return blob;
    }
    if let Some(blob) = xml_tags::read_tag_step(text, p) {
        return blob;
    }
    if let Some(tag) = foreign::PYTHON_TAGS
        .iter()
        .find(|tag| text[p..].starts_with(**tag))
    {
        p = skip_space(text, p + tag.len());
        if let Some(step) = foreign::python_step(text, p, false) {
            return step;
        }
    }
    let fenced = text[p..].starts_with("```");
    if fenced {
        let tool_code = text[p..].starts_with(foreign::TOOL_CODE_FENCE);
        let after = &text[p + 3..];
        let tag = after
            .find(|c: char| !c.is_ascii_alphanumeric() && c != '_')
            .unwrap_or(after.len());
        p = skip_space(text, p + 3 + tag);
        if tool_code && let Some(step) = foreign::python_step(text, p, true) {
            return step;
        }
    }
    let (value, used) = match read_lenient(&text[p..]) {
        Ok(found) => found,
        Err(stop) => return Blob::Failed { stop: p + stop },
    };
    let mut end = p + used;
    for (wanted, closer) in [(fenced, "```"), (tagged, "</tool_call>")] {
        if wanted {
            let rest = &text[end..];
            let trimmed = rest.trim_start();
            if trimmed.starts_with(closer) {
                end += rest.len() - trimmed.len() + closer.len();
            }
        }
    }
    match value {
        Value::Object(object) => from_object(object, end),
        // A list of calls (`[{"name": …, "arguments": …}, …]`): the first
        // is the step.
        Value::Array(mut calls) if !calls.is_empty() => match calls.swap_remove(0) {
            Value::Object(object) => match from_object(object, end) {
                step @ (Blob::Action { .. } | Blob::Final { .. }) => step,
                _ => Blob::NotAction { end },
            },
            _ => Blob::NotAction { end },
        },
        _ => Blob::NotAction { end },
    }
}

/// The object with its keys written the plain way (lower case, `_` for a
/// space or `-`) when it is the ReAct lines written as JSON, which a
/// `Thought`, `Action Input` or `Final Answer` key shows (`"Action
/// Input"` → `action_input`); other objects, such as data with a `Name`,
/// are left as they are. Only the top level changes; a key already
/// written the plain way wins over one that becomes it.
fn with_plain_keys(object: Map<String, Value>) -> Map<String, Value> {
    let plain = |key: &str| key.trim().to_lowercase().replace([' ', '-'], "_");
    let react = object.keys().any(|key| {
        matches!(
            plain(key).as_str(),
            "thought" | "action_input" | "final_answer"
        )
    });
    if !react || object.keys().all(|key| plain(key) == *key) {
        return object;
    }
    let mut out = Map::new();
    let mut others = Vec::new();
    for (key, value) in object {
        if plain(&key) == key {
            out.insert(key, value);
        } else {
            others.push((plain(&key), value));
        }
    }
    for (key, value) in others {
        out.entry(key).or_insert(value);
    }
    out
}

/// The call inside an OpenAI-style wrapper printed as text:
/// `{"tool_calls": [{…}]}` (the first call), `{"tool_call": {…}}`,
/// `{"function_call": {…}}` (OpenAI's legacy field),
/// `{"function": {"name": …, "arguments": …}}` and AutoGPT's
/// `{"thoughts": {"text": …}, "command": {"name": …, "args": …}}`. Any other object is
/// returned as it is.
fn unwrapped_call(mut object: Map<String, Value>) -> Map<String, Value> {
    if let Some(Value::Array(calls)) = object.get("tool_calls")
        && let Some(Value::Object(first)) = calls.first()
    {
        object = first.clone();
    } else if object.len() == 1
        && let Some(Value::Object(call)) = object
            .get("tool_call")
            .or_else(|| object.get("function_call"))
    {
        object = call.clone();
    }
    if let Some(Value::Object(function)) = object.get("function")
        && function.get("name").is_some_and(Value::is_string)
    {
        return function.clone();
    }
    if let Some(Value::Object(command)) = object.get("command")
        && command.get("name").is_some_and(Value::is_string)
    {
        // AutoGPT's reply: its thought is `thoughts.text`.
        let mut call = command.clone();
        if let Some(Value::String(text)) = object.get("thoughts").and_then(|t| t.get("text")) {
            call.insert("thought".into(), Value::String(text.clone()));
        }
        return call;
    }
    object
}

/// The arguments of a call written flat beside its name (`{"action":
/// <tool>, "query": <text>}`): every other key but the thought and the
/// call's `type` and `id` (and the reasoning some models put there).
fn flat_arguments(mut object: Map<String, Value>, name_key: &str) -> Value {
    for key in [name_key, "thought", "reasoning", "type", "id"] {
        object.remove(key);
    }
    Value::Object(object)
}

/// The answer a final-answer call carries: its text, or the one text in
/// an object of arguments (`{"answer": …}`, as smolagents' `final_answer`
/// tool takes it); other values as JSON.
pub(crate) fn answer_text(input: Value) -> String {
    match input {
        Value::String(text) => text,
        Value::Object(arguments) => {
            let mut texts = arguments.values().filter_map(Value::as_str);
            match (texts.next(), texts.next(), arguments.len()) {
                (Some(text), None, 1) => text.to_string(),
                _ => Value::Object(arguments).to_string(),
            }
        }
        other => other.to_string(),
    }
}

/// The first non-space byte at or after `at`.
pub(crate) fn skip_space(text: &str, at: usize) -> usize {
    let rest = &text[at..];
    at + (rest.len() - rest.trim_start().len())
}

/// The step a call object stands for, ending at `end`.
pub(crate) fn from_object(object: Map<String, Value>, end: usize) -> Blob {
    let mut object = with_plain_keys(unwrapped_call(object));
    let thought = object
        .get("thought")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(str::to_string);
    let Some((name_key, name, input_required)) = NAME_KEYS.iter().find_map(|(key, required)| {
        object
            .get(*key)
            .and_then(Value::as_str)
            .map(|name| (*key, name.to_string(), *required))
    }) else {
        return match object.get("final_answer") {
            Some(Value::String(answer)) => Blob::Final {
                answer: answer.trim().to_string(),
                thought,
                end,
            },
            _ => Blob::NotAction { end },
        };
    };
    let input = INPUT_KEYS.iter().find_map(|key| object.remove(*key));
    let has_input = input.is_some();
    if input.is_none() && input_required {
        return Blob::NotAction { end };
    }
    let input = input.unwrap_or_else(|| flat_arguments(object, name_key));
    if names_the_answer(&name) {
        return Blob::Final {
            answer: answer_text(input).trim().to_string(),
            thought,
            end,
        };
    }
    let tool = clean_name(&name);
    // A name of more than three words names a tool only with an input
    // beside it (`{"action": "Send the contract to Ana", "due": …}` is a
    // to-do, not a call).
    let long = tool.split_whitespace().count() > 3;
    if tool.is_empty() || is_sentence(&tool) || (long && !has_input) {
        return Blob::NotAction { end };
    }
    let input = match input {
        Value::String(s) => decode_input(&s),
        other => other,
    };
    Blob::Action {
        tool,
        input,
        thought,
        end,
    }
}

/// `Final Answer`, `final_answer`, `Answer`, `Finish`: an action whose
/// name says it is the answer, in a blob or after `Action:`.
pub(crate) fn names_the_answer(name: &str) -> bool {
    matches!(
        name.trim().to_ascii_lowercase().replace('_', " ").as_str(),
        "final answer" | "answer" | "finish"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn blobs_in_their_usual_wrappings() {
        let fenced = "```json\n{\"action\": \"search\", \"action_input\": \"x\"}\n```";
        assert_eq!(
            read_blob(fenced, 0),
            Blob::Action {
                tool: "search".into(),
                input: json!("x"),
                thought: None,
                end: fenced.len()
            }
        );
        let tagged = "<tool_call>\n{\"name\": \"add\", \"arguments\": {\"a\": 1}}\n</tool_call>";
        assert_eq!(
            read_blob(tagged, 0),
            Blob::Action {
                tool: "add".into(),
                input: json!({"a": 1}),
                thought: None,
                end: tagged.len()
            }
        );
        assert!(matches!(
            read_blob("{\"action\": \"Final Answer\", \"action_input\": \"42\"}", 0),
            Blob::Final { answer, .. } if answer == "42"
        ));
    }

    #[test]
    fn envelope_replies_keep_their_thought() {
        let action = r#"{"thought": "I must add.", "action": "add", "action_input": {"a": 1}}"#;
        assert_eq!(
            read_blob(action, 0),
            Blob::Action {
                tool: "add".into(),
                input: json!({"a": 1}),
                thought: Some("I must add.".into()),
                end: action.len()
            }
        );
        let last = r#"{"thought": " I know it. ", "final_answer": " 42 "}"#;
        assert_eq!(
            read_blob(last, 0),
            Blob::Final {
                answer: "42".into(),
                thought: Some("I know it.".into()),
                end: last.len()
            }
        );
        assert!(matches!(
            read_blob(r#"{"thought": "", "final_answer": "42"}"#, 0),
            Blob::Final { thought: None, .. }
        ));
        // Not a string: not an answer.
        assert!(matches!(
            read_blob(r#"{"final_answer": {"x": 1}}"#, 0),
            Blob::NotAction { .. }
        ));
    }

    #[test]
    fn plain_json_is_not_an_action() {
        assert!(matches!(
            read_blob("{\"name\": \"Alice\", \"age\": 3}", 0),
            Blob::NotAction { .. }
        ));
        assert!(matches!(read_blob("{{{{ x", 0), Blob::Failed { .. }));
    }
}
