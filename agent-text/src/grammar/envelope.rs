//! The same steps as a JSON schema, for servers that constrain by schema
//! instead of grammar (Ollama's `format`): one object per tool,
//! `{"thought", "action", "action_input"}`, and the final answer,
//! `{"thought", "final_answer"}`. The text parser reads such a reply as
//! the same step (see `blob.rs`), thought included.

use agent_core::ToolSpec;
use serde_json::{Value, json};

use super::bounds::{MAX_ANSWER_CHARS, MAX_THOUGHT_CHARS};

/// A JSON schema whose top-level `anyOf` has one object per tool
/// (`thought`, `action` set to its name, `action_input` following its
/// parameters) and the final-answer object. Every key is required and no
/// other key is allowed. A tool's local `$ref`s are rebased so that they
/// still point into its parameters.
///
/// ```
/// use agent_core::ToolSpec;
/// use agent_text::grammar::ollama_envelope;
/// use serde_json::json;
///
/// let search = ToolSpec {
///     name: "search".into(),
///     description: "Look things up.".into(),
///     parameters: json!({"type": "object", "properties": {"query": {"type": "string"}}}),
/// };
/// let envelope = ollama_envelope(&[search]);
/// assert_eq!(envelope["anyOf"][0]["properties"]["action"]["const"], "search");
/// assert!(envelope["anyOf"][1]["properties"]["final_answer"].is_object());
/// ```
pub fn ollama_envelope(tools: &[ToolSpec]) -> Value {
    let mut options = call_options(tools);
    options.push(final_envelope());
    json!({ "anyOf": options })
}

/// [`ollama_envelope`] without the final-answer object, for a step that
/// must call one of `tools` (see [`call_grammar`](super::call_grammar)).
/// With no tools, the final-answer object alone.
///
/// ```
/// use agent_text::grammar::call_envelope;
///
/// assert!(call_envelope(&[])["properties"]["final_answer"].is_object());
/// ```
pub fn call_envelope(tools: &[ToolSpec]) -> Value {
    let options = call_options(tools);
    if options.is_empty() {
        return final_envelope();
    }
    json!({ "anyOf": options })
}

/// One object per tool (the first of each name): a thought, the tool's
/// name and its input.
fn call_options(tools: &[ToolSpec]) -> Vec<Value> {
    let mut options: Vec<Value> = Vec::new();
    let mut seen: Vec<&str> = Vec::new();
    for tool in tools {
        if seen.contains(&tool.name.as_str()) {
            continue;
        }
        seen.push(&tool.name);
        let at = format!("#/anyOf/{}/properties/action_input", options.len());
        let mut parameters = tool.parameters.clone();
        rebase_refs(&mut parameters, &at);
        options.push(json!({
            "type": "object",
            "properties": {
                "thought": thought(),
                "action": {"type": "string", "const": tool.name},
                "action_input": parameters
            },
            "required": ["thought", "action", "action_input"],
            "additionalProperties": false
        }));
    }
    options
}

/// The final-answer object alone, for a forced answer turn:
/// `{"thought": …, "final_answer": …}`, both required.
pub fn final_envelope() -> Value {
    json!({
        "type": "object",
        "properties": {
            "thought": thought(),
            "final_answer": {"type": "string", "minLength": 1, "maxLength": MAX_ANSWER_CHARS}
        },
        "required": ["thought", "final_answer"],
        "additionalProperties": false
    })
}

fn thought() -> Value {
    json!({"type": "string", "maxLength": MAX_THOUGHT_CHARS})
}

/// Makes every local `$ref` (`#/…`) in `schema` point below `at`.
fn rebase_refs(schema: &mut Value, at: &str) {
    match schema {
        Value::Object(map) => {
            for (key, value) in map.iter_mut() {
                match value {
                    Value::String(pointer) if key == "$ref" => {
                        if let Some(rest) = pointer.strip_prefix('#') {
                            *pointer = format!("{at}{rest}");
                        }
                    }
                    other => rebase_refs(other, at),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|i| rebase_refs(i, at)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refs_are_rebased_into_the_envelope() {
        let tool = ToolSpec {
            name: "walk".into(),
            description: "Walks a list.".into(),
            parameters: json!({
                "type": "object",
                "properties": {"head": {"$ref": "#/$defs/Node"}},
                "required": ["head"],
                "$defs": {"Node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/Node"}}}}
            }),
        };
        let envelope = ollama_envelope(&[tool.clone(), tool]);
        assert_eq!(envelope["anyOf"].as_array().map(Vec::len), Some(2));
        let head =
            &envelope["anyOf"][0]["properties"]["action_input"]["properties"]["head"]["$ref"];
        assert_eq!(head, "#/anyOf/0/properties/action_input/$defs/Node");
        let target = head.as_str().and_then(|p| envelope.pointer(&p[1..]));
        assert!(target.is_some_and(|t| t["properties"]["next"]["$ref"] == *head));
    }
}
