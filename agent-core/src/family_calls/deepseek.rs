//! DeepSeek's call tokens: V3/R1's
//! `<｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME` before a fenced JSON
//! body and V3.1's `<｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{…}`, each up to
//! `<｜tool▁call▁end｜>`, in every spelling of the tokens (`｜` or ASCII
//! `|`, `▁` or `_`).

use super::Read;
use super::json_body::json_body_call;
use super::shared::{is_name, skip_space};

/// A DeepSeek token in each spelling it comes in: `<｜…｜>` with `▁`
/// between words, and the same with ASCII `|` or `_`.
type Token = [&'static str; 4];

pub(super) const CALLS_BEGIN: Token = [
    "<｜tool▁calls▁begin｜>",
    "<|tool▁calls▁begin|>",
    "<｜tool_calls_begin｜>",
    "<|tool_calls_begin|>",
];
pub(super) const CALL_BEGIN: Token = [
    "<｜tool▁call▁begin｜>",
    "<|tool▁call▁begin|>",
    "<｜tool_call_begin｜>",
    "<|tool_call_begin|>",
];
const CALL_END: Token = [
    "<｜tool▁call▁end｜>",
    "<|tool▁call▁end|>",
    "<｜tool_call_end｜>",
    "<|tool_call_end|>",
];
const SEPARATOR: Token = [
    "<｜tool▁sep｜>",
    "<|tool▁sep|>",
    "<｜tool_sep｜>",
    "<|tool_sep|>",
];

/// The first `token`, in any of its spellings, at or after `from`: its
/// start and end.
pub(super) fn find_token(text: &str, from: usize, token: Token) -> Option<(usize, usize)> {
    token
        .iter()
        .filter_map(|spelling| {
            text[from..]
                .find(spelling)
                .map(|n| (from + n, from + n + spelling.len()))
        })
        .min()
}

/// The DeepSeek call whose begin token starts at `at`. Arguments read
/// whole are the call, even when a token limit cut its end token.
pub(super) fn deepseek_call(text: &str, at: usize) -> Option<Read> {
    let (_, body_at) = find_token(text, at, CALL_BEGIN)?;
    let call_end = find_token(text, body_at, CALL_END);
    let body_end = call_end.map_or(text.len(), |(start, _)| start);
    let body = &text[body_at..body_end];
    let (sep, after_sep) = find_token(body, 0, SEPARATOR)?;
    let before = body[..sep].trim();
    let (name, args_at) = if before == "function" {
        // V3/R1: the name on the line after the separator, then a fence.
        let after = &body[after_sep..];
        match after.split_once('\n') {
            Some((name, _)) => (name.trim(), body_at + after_sep + name.len() + 1),
            None => (after.trim(), body_end),
        }
    } else {
        (before, body_at + after_sep)
    };
    if !is_name(name) {
        return None;
    }
    let (mut call, whole) = json_body_call(
        &text[..body_end],
        skip_space(text, args_at).min(body_end),
        name.to_string(),
    );
    if let Some((_, end)) = call_end {
        call.end = end;
    }
    Some((call, whole))
}

#[cfg(test)]
mod tests {
    use crate::family_calls::read_family_calls;
    use crate::family_calls::tests::first;
    use serde_json::json;

    #[test]
    fn deepseek_calls_in_both_generations_and_spellings() {
        let v3 = "Let me check.<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>search\n```json\n{\"query\": \"Oslo\"}\n```<｜tool▁call▁end｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>calculator\n```json\n{\"expression\": \"1+1\"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>";
        let read = read_family_calls(v3).unwrap();
        assert_eq!(&v3[..read.prose_end], "Let me check.");
        assert!(read.complete);
        let names: Vec<&str> = read.calls.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["search", "calculator"]);
        assert_eq!(read.calls[0].arguments, json!({"query": "Oslo"}));
        let v31 = "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>search<｜tool▁sep｜>{\"query\": \"Oslo\"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>";
        assert_eq!(
            first(v31),
            ("search".into(), json!({"query": "Oslo"}), true)
        );
        let ascii = "<|tool_call_begin|>search<|tool_sep|>{\"query\": \"Oslo\"}<|tool_call_end|>";
        assert_eq!(
            first(ascii),
            ("search".into(), json!({"query": "Oslo"}), true)
        );
        // Cut inside the arguments: read, but not complete; broken JSON
        // stays text for the gateway to reject.
        let (name, arguments, complete) =
            first("<｜tool▁call▁begin｜>search<｜tool▁sep｜>{\"query\": \"Os");
        assert_eq!((name.as_str(), complete), ("search", false));
        assert!(arguments.is_string());
    }
}
