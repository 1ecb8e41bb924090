//! The OpenAI chat-completions wire format, read tolerantly: requests are
//! built as JSON from the core types; responses and stream chunks are read
//! from JSON values, accepting missing or extra fields, `content: null` or
//! content parts, arguments as strings or objects, and missing ids.

use agent_core::message::{FinishReason, Role, ToolChoice, Usage};
use agent_core::model::{StreamDelta, parse_arguments};
use agent_core::{Completion, CompletionRequest, Message, ModelError, ToolCall};
use serde_json::{Map, Value, json};

use crate::constrain::{self, Dialect};

/// The request body for `model`, with the request's constraint in
/// `dialect` when one is given.
pub(crate) fn request_body(
    model: &str,
    request: &CompletionRequest,
    stream: bool,
    dialect: Option<Dialect>,
) -> Value {
    let messages: Vec<Value> = request.messages.iter().map(message_json).collect();
    let mut body = Map::new();
    body.insert("model".into(), json!(model));
    body.insert("messages".into(), Value::Array(messages));
    if !request.tools.is_empty() {
        let tools: Vec<Value> = request
            .tools
            .iter()
            .map(|t| {
                // Some servers (llama.cpp) answer 500 without both fields.
                let parameters = if t.parameters.is_object() {
                    model_view(&t.parameters)
                } else {
                    json!({"type": "object", "properties": {}})
                };
                json!({"type": "function", "function": {
                    "name": t.name,
                    "description": if t.description.is_empty() { t.name.as_str() } else { t.description.as_str() },
                    "parameters": parameters,
                }})
            })
            .collect();
        body.insert("tools".into(), Value::Array(tools));
        let choice = match &request.tool_choice {
            ToolChoice::Auto => json!("auto"),
            ToolChoice::None => json!("none"),
            ToolChoice::Required => json!("required"),
            ToolChoice::Tool(name) => json!({"type": "function", "function": {"name": name}}),
        };
        body.insert("tool_choice".into(), choice);
    }
    if !request.stop.is_empty() {
        body.insert("stop".into(), json!(request.stop));
    }
    if let Some(max) = request.max_tokens {
        body.insert("max_tokens".into(), json!(max));
    }
    if let Some(t) = request.temperature {
        body.insert("temperature".into(), json!(t));
    }
    if let (Some(constraint), Some(dialect)) = (&request.constraint, dialect) {
        constrain::apply(&mut body, constraint, dialect);
    }
    body.insert("stream".into(), json!(stream));
    if stream {
        body.insert("stream_options".into(), json!({"include_usage": true}));
    }
    Value::Object(body)
}

/// A tool's parameters as the model needs to see them: without
/// `additionalProperties: false` and a string's length bounds and
/// pattern, which only the gateway needs (it refuses unknown keys and overlong strings, and
/// says why, whatever the model was shown), so each tool costs fewer
/// prompt tokens.
fn model_view(schema: &Value) -> Value {
    match schema {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(k, v)| {
                    let gateway_only = match k.as_str() {
                        "additionalProperties" => **v == Value::Bool(false),
                        "maxLength" | "minLength" => {
                            v.is_u64() && map.get("type") == Some(&json!("string"))
                        }
                        "pattern" => v.is_string() && map.get("type") == Some(&json!("string")),
                        _ => false,
                    };
                    !gateway_only
                })
                .map(|(k, v)| (k.clone(), model_view(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(model_view).collect()),
        other => other.clone(),
    }
}

fn message_json(message: &Message) -> Value {
    let role = match message.role {
        Role::System => "system",
        Role::User => "user",
        Role::Assistant => "assistant",
        Role::Tool => "tool",
    };
    let mut out = Map::new();
    out.insert("role".into(), json!(role));
    if message.role == Role::Assistant && !message.tool_calls.is_empty() {
        out.insert(
            "content".into(),
            if message.content.is_empty() {
                Value::Null
            } else {
                json!(message.content)
            },
        );
        let calls: Vec<Value> = message
            .tool_calls
            .iter()
            .map(|c| {
                let arguments = match &c.arguments {
                    Value::String(raw) => raw.clone(),
                    other => other.to_string(),
                };
                json!({"id": c.id, "type": "function", "function": {"name": c.name, "arguments": arguments}})
            })
            .collect();
        out.insert("tool_calls".into(), Value::Array(calls));
    } else {
        out.insert("content".into(), json!(message.content));
    }
    if let Some(id) = &message.tool_call_id {
        out.insert("tool_call_id".into(), json!(id));
    }
    Value::Object(out)
}

/// Text of a `content` field: a string, null, or an array of parts.
fn content_text(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter_map(|p| p.get("text").and_then(Value::as_str).or_else(|| p.as_str()))
            .collect::<Vec<_>>()
            .join(""),
        _ => String::new(),
    }
}

/// The reasoning a server sent apart from the content: `reasoning_content`
/// (llama.cpp, vLLM, DeepSeek) or `reasoning` (Ollama, vLLM, OpenRouter).
fn reasoning_text(message: &Value) -> String {
    let text = content_text(message.get("reasoning_content"));
    if text.is_empty() {
        content_text(message.get("reasoning"))
    } else {
        text
    }
}

fn finish_reason(value: Option<&Value>) -> Option<FinishReason> {
    Some(match value?.as_str()? {
        "stop" => FinishReason::Stop,
        "length" => FinishReason::Length,
        "tool_calls" | "function_call" => FinishReason::ToolCalls,
        "content_filter" => FinishReason::ContentFilter,
        other => FinishReason::Other(other.to_string()),
    })
}

/// Usage, with the prompt tokens the server served from its cache when it
/// says: `usage.prompt_tokens_details.cached_tokens` (OpenAI, vLLM), or
/// llama.cpp's `timings.prompt_n` (the tokens it evaluated; the rest of
/// the prompt came from its cache).
fn usage(body: &Value) -> Option<Usage> {
    let u = body.get("usage")?.as_object()?;
    let get = |k: &str| u.get(k).and_then(Value::as_u64);
    let prompt = get("prompt_tokens").unwrap_or(0);
    let completion = get("completion_tokens").unwrap_or(0);
    let cached = u
        .get("prompt_tokens_details")
        .and_then(|d| d.get("cached_tokens"))
        .and_then(Value::as_u64)
        .or_else(|| {
            let evaluated = body.get("timings")?.get("prompt_n")?.as_u64()?;
            Some(prompt.saturating_sub(evaluated))
        });
    Some(Usage {
        cached_prompt_tokens: cached,
        total_tokens: get("total_tokens").unwrap_or(prompt + completion),
        ..Usage::new(prompt, completion)
    })
}

fn arguments_text(function: &Value) -> String {
    match function.get("arguments") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Null) | None => String::new(),
        Some(other) => other.to_string(),
    }
}

/// How much of an error body that is not JSON becomes the message.
const ERROR_TEXT_CHARS: usize = 300;

/// The message of an error response's body, wherever the server put it:
/// OpenAI's `{"error": {"message": …}}` (with any `code`, llama.cpp's is a
/// number), `{"error": "…"}` (Ollama), a top-level `message` (vLLM) or
/// `detail` (FastAPI), or else the body's text (a proxy's HTML page,
/// plain text) on one line, cut at 300 characters.
pub(crate) fn error_message(body: &[u8]) -> String {
    if let Ok(value) = serde_json::from_slice::<Value>(body) {
        let found = [
            value.pointer("/error/message"),
            value.get("error"),
            value.get("message"),
            value.get("detail"),
        ]
        .into_iter()
        .flatten()
        .find_map(Value::as_str);
        if let Some(message) = found {
            return message.to_string();
        }
    }
    let text = String::from_utf8_lossy(body);
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= ERROR_TEXT_CHARS {
        flat
    } else {
        let cut: String = flat.chars().take(ERROR_TEXT_CHARS).collect();
        format!("{cut}…")
    }
}

/// Reads a non-streamed response. Anything without a usable choice is a
/// `BadResponse` that keeps the raw body.
pub(crate) fn parse_response(body: &Value) -> Result<Completion, ModelError> {
    let raw = || body.to_string();
    if let Some(error) = body.get("error") {
        let message = error
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or("unknown error");
        return Err(ModelError::bad_response(
            format!("the server returned an error: {message}"),
            raw(),
        ));
    }
    let choice = body
        .get("choices")
        .and_then(Value::as_array)
        .and_then(|c| c.first())
        .ok_or_else(|| ModelError::bad_response("the response has no choices", raw()))?;
    let message = choice
        .get("message")
        .or_else(|| choice.get("delta"))
        .ok_or_else(|| ModelError::bad_response("the choice has no message", raw()))?;
    let text = match (
        content_text(message.get("content")),
        choice.get("text").and_then(Value::as_str),
    ) {
        (t, Some(legacy)) if t.is_empty() => legacy.to_string(),
        (t, _) => t,
    };
    let calls = message
        .get("tool_calls")
        .and_then(Value::as_array)
        .map(|calls| {
            calls
                .iter()
                .enumerate()
                .filter_map(|(i, call)| {
                    let function = call.get("function").unwrap_or(call);
                    let name = function.get("name").and_then(Value::as_str)?.to_string();
                    let id = call
                        .get("id")
                        .and_then(Value::as_str)
                        .filter(|s| !s.is_empty())
                        .map_or_else(|| format!("call_{i}"), str::to_string);
                    Some(ToolCall::new(
                        id,
                        name,
                        parse_arguments(arguments_text(function)),
                    ))
                })
                .collect()
        })
        .unwrap_or_default();
    Ok(Completion {
        constrained: false,
        notices: Vec::new(),
        text,
        reasoning: reasoning_text(message),
        tool_calls: calls,
        usage: usage(body),
        finish_reason: finish_reason(choice.get("finish_reason")),
    })
}

/// Reads one stream chunk into deltas.
pub(crate) fn chunk_deltas(chunk: &Value) -> Vec<StreamDelta> {
    let mut deltas = Vec::new();
    if let Some(choice) = chunk
        .get("choices")
        .and_then(Value::as_array)
        .and_then(|c| c.first())
    {
        if let Some(delta) = choice.get("delta").or_else(|| choice.get("message")) {
            let reasoning = reasoning_text(delta);
            if !reasoning.is_empty() {
                deltas.push(StreamDelta::Reasoning { text: reasoning });
            }
            let text = content_text(delta.get("content"));
            if !text.is_empty() {
                deltas.push(StreamDelta::Text { text });
            }
            if let Some(calls) = delta.get("tool_calls").and_then(Value::as_array) {
                for (position, call) in calls.iter().enumerate() {
                    let index = call
                        .get("index")
                        .and_then(Value::as_u64)
                        .map_or(position, |i| i as usize);
                    let function = call.get("function").unwrap_or(call);
                    deltas.push(StreamDelta::ToolCall {
                        index,
                        id: call.get("id").and_then(Value::as_str).map(str::to_string),
                        name: function
                            .get("name")
                            .and_then(Value::as_str)
                            .map(str::to_string),
                        arguments: arguments_text(function),
                    });
                }
            }
        }
        if let Some(reason) = finish_reason(choice.get("finish_reason")) {
            deltas.push(StreamDelta::Finish { reason });
        }
    }
    if let Some(usage) = usage(chunk) {
        deltas.push(StreamDelta::Usage { usage });
    }
    deltas
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_messages_wherever_the_server_put_them() {
        let cases: [(&[u8], &str); 7] = [
            (
                br#"{"error": {"message": "Incorrect API key", "code": "invalid_api_key"}}"#,
                "Incorrect API key",
            ),
            (
                br#"{"error": {"code": 401, "message": "Invalid API Key"}}"#,
                "Invalid API Key",
            ),
            (
                br#"{"error": "model 'x' not found"}"#,
                "model 'x' not found",
            ),
            (
                br#"{"object": "error", "message": "Forbidden", "code": 403}"#,
                "Forbidden",
            ),
            (br#"{"detail": "Not authenticated"}"#, "Not authenticated"),
            (
                b"<html>\n  <title>401</title>\n</html>\n",
                "<html> <title>401</title> </html>",
            ),
            (b"", ""),
        ];
        for (body, message) in cases {
            assert_eq!(error_message(body), message);
        }
        let long = error_message("é ".repeat(1000).as_bytes());
        assert_eq!(long.chars().count(), 301);
        assert!(long.ends_with('…'));
    }

    #[test]
    fn tools_go_out_without_what_only_the_gateway_checks() {
        use agent_core::message::ToolSpec;
        let request = CompletionRequest {
            tools: vec![ToolSpec {
                name: "lookup".into(),
                description: "Look a thing up.".into(),
                parameters: json!({"type": "object", "properties": {
                    "query": {"type": "string", "maxLength": 200, "pattern": "^[a-z ]*$"},
                    "maxLength": {"type": "integer"}
                }, "additionalProperties": false}),
            }]
            .into(),
            ..CompletionRequest::new(vec![Message::user("q")])
        };
        let body = request_body("m", &request, false, None);
        let parameters = &body["tools"][0]["function"]["parameters"];
        assert_eq!(parameters["properties"]["query"], json!({"type": "string"}));
        // A property that happens to be called `maxLength` stays.
        assert_eq!(
            parameters["properties"]["maxLength"],
            json!({"type": "integer"})
        );
        assert!(parameters.get("additionalProperties").is_none());
    }

    #[test]
    fn tolerant_reading_of_odd_responses() {
        let odd = json!({"choices": [{"message": {"content": null, "tool_calls": [
            {"function": {"name": "add", "arguments": {"a": 1}}},
            {"id": "", "type": "function", "function": {"name": "bad", "arguments": "{not json"}}
        ]}, "extra": true}]});
        let c = parse_response(&odd).unwrap();
        assert_eq!(c.text, "");
        assert_eq!(c.tool_calls[0].id, "call_0");
        assert_eq!(c.tool_calls[0].arguments, json!({"a": 1}));
        assert_eq!(c.tool_calls[1].arguments, json!("{not json"));
        assert!(c.usage.is_none());
        let parts =
            json!({"choices": [{"message": {"content": [{"type": "text", "text": "hi"}]}}]});
        assert_eq!(parse_response(&parts).unwrap().text, "hi");
        let empty = json!({"id": "x"});
        assert!(
            matches!(parse_response(&empty), Err(ModelError::BadResponse { raw, .. }) if raw.contains("\"id\""))
        );
    }
}
