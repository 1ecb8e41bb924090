//! Tool calls that a local model writes into `content` instead of
//! `tool_calls`: a JSON object or array of `{"name", "arguments"}` (fenced
//! or not), or `<tool_call>…</tool_call>` blocks (Hermes/Qwen style).
//! When the tool names are known, only those are recognised; otherwise an
//! object needs both `name` and `arguments` (or `parameters`). Ordinary
//! JSON answers stay answers.

use agent_core::ToolCall;
use serde_json::Value;

/// The tool calls in `content`, if it is made of them.
pub(crate) fn calls_in_content(content: &str, tool_names: &[&str]) -> Vec<ToolCall> {
    let text = content.trim();
    if text.is_empty() {
        return Vec::new();
    }
    let mut values = Vec::new();
    if text.contains("<tool_call>") {
        for block in text.split("<tool_call>").skip(1) {
            let inner = block.split("</tool_call>").next().unwrap_or(block);
            if let Ok(value) = serde_json::from_str::<Value>(strip_fence(inner.trim())) {
                values.push(value);
            }
        }
    } else if let Ok(value) = serde_json::from_str::<Value>(strip_fence(text)) {
        match value {
            Value::Array(items) => values.extend(items),
            other => values.push(other),
        }
    }
    let calls: Vec<ToolCall> = values
        .iter()
        .enumerate()
        .filter_map(|(i, v)| {
            let name = v.get("name").and_then(Value::as_str)?;
            let has_arguments = v.get("arguments").or_else(|| v.get("parameters")).is_some();
            let known = if tool_names.is_empty() {
                has_arguments
            } else {
                tool_names.contains(&name)
            };
            if !known {
                return None;
            }
            let arguments = v
                .get("arguments")
                .or_else(|| v.get("parameters"))
                .cloned()
                .unwrap_or(Value::Object(serde_json::Map::new()));
            let arguments = match arguments {
                Value::String(raw) => agent_core::model::parse_arguments(raw),
                other => other,
            };
            Some(ToolCall::new(format!("content_call_{i}"), name, arguments))
        })
        .collect();
    // All or nothing: a half-recognised blob is not a tool call.
    if calls.len() == values.len() {
        calls
    } else {
        Vec::new()
    }
}

/// Whether `content` opens like a tool call written as text (a
/// `<tool_call>` tag, or an object whose first key is `name`) but could
/// not be read as one: cut off at the token limit, or broken JSON. Such a
/// reply is no answer, whatever it holds.
pub(crate) fn looks_like_broken_call(content: &str) -> bool {
    let text = strip_fence(content.trim());
    if text.starts_with("<tool_call>") {
        return true;
    }
    let Some(rest) = text.strip_prefix('{').or_else(|| {
        text.strip_prefix('[')
            .and_then(|r| r.trim_start().strip_prefix('{'))
    }) else {
        return false;
    };
    let rest = rest.trim_start();
    rest.starts_with("\"name\"") && serde_json::from_str::<Value>(text).is_err()
}

fn strip_fence(text: &str) -> &str {
    let Some(after) = text.strip_prefix("```") else {
        return text;
    };
    let body = after.split_once('\n').map_or("", |(_, rest)| rest);
    body.trim_end().strip_suffix("```").unwrap_or(body).trim()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn recognises_the_shapes_local_models_write() {
        let names = ["calculator"];
        let plain = calls_in_content(
            r#"{"name": "calculator", "arguments": {"expression": "2+2"}}"#,
            &names,
        );
        assert_eq!(plain[0].arguments, json!({"expression": "2+2"}));
        let fenced = calls_in_content(
            "```json\n{\"name\": \"calculator\", \"arguments\": \"{\\\"expression\\\": \\\"1\\\"}\"}\n```",
            &names,
        );
        assert_eq!(fenced[0].arguments, json!({"expression": "1"}));
        let tagged = calls_in_content(
            "<tool_call>\n{\"name\": \"calculator\", \"arguments\": {\"expression\": \"3\"}}\n</tool_call>\n<tool_call>{\"name\": \"calculator\", \"arguments\": {\"expression\": \"4\"}}</tool_call>",
            &names,
        );
        assert_eq!(tagged.len(), 2);
        let array = calls_in_content(
            r#"[{"name": "calculator", "parameters": {"expression": "5"}}]"#,
            &names,
        );
        assert_eq!(array[0].arguments, json!({"expression": "5"}));
    }

    #[test]
    fn ordinary_answers_stay_answers() {
        let names = ["calculator"];
        assert!(calls_in_content("The answer is 4.", &names).is_empty());
        assert!(calls_in_content(r#"{"name": "Alice", "age": 3}"#, &names).is_empty());
        assert!(calls_in_content(r#"{"result": 4}"#, &names).is_empty());
        assert!(calls_in_content(r#"{"name": "Alice"}"#, &[]).is_empty());
        assert_eq!(
            calls_in_content(r#"{"name": "lookup", "arguments": {}}"#, &[]).len(),
            1
        );
    }

    #[test]
    fn a_cut_off_call_is_told_from_an_answer() {
        assert!(looks_like_broken_call(
            r#"{"name": "calculator", "arguments": {"expression":"23.5 * 1000000"#
        ));
        assert!(looks_like_broken_call(
            "```json\n{\"name\": \"grep\", \"argu"
        ));
        assert!(looks_like_broken_call("<tool_call>\n{\"name\": \"grep\""));
        assert!(!looks_like_broken_call(r#"{"name": "Alice", "age": 3}"#));
        assert!(!looks_like_broken_call("The name is Alice {\"name\""));
        assert!(!looks_like_broken_call("42"));
    }
}
