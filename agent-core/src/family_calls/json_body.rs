//! Arguments written as a JSON object, maybe in a fence: the body of a
//! DeepSeek, GLM (JSON form) or Functionary call, and [`strip_fence`],
//! which the transports' own readers use too.

use serde_json::Value;

use super::shared::skip_space;
use super::{FamilyCall, Read};

/// A call whose arguments are the JSON object (maybe fenced) at `at`; it
/// ends after the object (and its fence), and the text after it, such as
/// a made-up result, is not read.
pub(super) fn json_body_call(text: &str, at: usize, name: String) -> Read {
    let fenced = text[at..].starts_with("```");
    let json_at = if fenced {
        text[at..]
            .find('\n')
            .map_or(text.len(), |n| skip_space(text, at + n))
    } else {
        at
    };
    let mut values = serde_json::Deserializer::from_str(&text[json_at..]).into_iter::<Value>();
    match values.next() {
        Some(Ok(arguments)) => {
            let mut end = json_at + values.byte_offset();
            if fenced {
                let after = skip_space(text, end);
                if text[after..].starts_with("```") {
                    end = after + 3;
                }
            }
            (
                FamilyCall {
                    name,
                    arguments,
                    end,
                },
                true,
            )
        }
        _ => (
            FamilyCall {
                name,
                arguments: Value::String(strip_fence(&text[at..]).to_string()),
                end: text.len(),
            },
            false,
        ),
    }
}

/// The body of a fenced block (any language tag) that `text` is, or
/// `text` itself, trimmed.
pub fn strip_fence(text: &str) -> &str {
    let text = text.trim();
    let Some(after) = text.strip_prefix("```") else {
        return text;
    };
    let body = after.split_once('\n').map_or("", |(_, rest)| rest);
    body.trim_end().strip_suffix("```").unwrap_or(body).trim()
}
