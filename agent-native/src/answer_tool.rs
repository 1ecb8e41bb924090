//! The answer tool: a `final_answer` function offered beside the run's
//! tools, with `tool_choice: "required"`, so that every ordinary turn is a
//! tool call and the answer is one of them. Small local models that are
//! free to reply in prose often describe the call they should make ("you
//! can use the `grep` function…") or paste the last observation; a turn
//! that must be a call cannot. This module owns the tool's spec, the list
//! of tools with it appended (built once per tool list), and reading the
//! answer back out of a call.

use std::sync::{Arc, Mutex};

use agent_core::ToolCall;
use agent_core::message::ToolSpec;
use serde_json::{Value, json};

/// The answer tool's name.
pub const ANSWER_TOOL: &str = "final_answer";

/// The answer tool's spec.
pub(crate) fn answer_tool_spec() -> ToolSpec {
    ToolSpec {
        name: ANSWER_TOOL.to_string(),
        description: "Give the final answer once the tool results show it, or say that the \
                      tools could not find it."
            .to_string(),
        parameters: json!({
            "type": "object",
            "properties": {"answer": {"type": "string"}},
            "required": ["answer"]
        }),
    }
}

/// The run's tools with the answer tool appended, built once per tool
/// list: a run hands the same `Arc` to every request, so later requests
/// reuse the first one's list.
#[derive(Debug, Clone, Default)]
pub(crate) struct WithAnswerTool {
    last: Arc<Mutex<Option<Extended>>>,
}

/// A run's tool list, and the same list with the answer tool appended.
#[derive(Debug)]
struct Extended {
    source: Arc<[ToolSpec]>,
    with_answer: Arc<[ToolSpec]>,
}

impl WithAnswerTool {
    /// `tools` plus the answer tool. The caller has checked that no run
    /// tool has its name ([`has_own_answer_tool`]).
    pub(crate) fn tools(&self, tools: &Arc<[ToolSpec]>) -> Arc<[ToolSpec]> {
        // A poisoned lock only means another request panicked mid-update;
        // the cached pair is still either whole or absent.
        let mut last = self.last.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(cached) = last.as_ref()
            && Arc::ptr_eq(&cached.source, tools)
        {
            return Arc::clone(&cached.with_answer);
        }
        let mut list: Vec<ToolSpec> = tools.to_vec();
        list.push(answer_tool_spec());
        let with_answer: Arc<[ToolSpec]> = list.into();
        *last = Some(Extended {
            source: Arc::clone(tools),
            with_answer: Arc::clone(&with_answer),
        });
        with_answer
    }
}

/// Whether one of the run's own tools is called `final_answer`.
pub(crate) fn has_own_answer_tool(tools: &[ToolSpec]) -> bool {
    tools.iter().any(|t| t.name == ANSWER_TOOL)
}

/// What a turn's calls say about the answer tool.
#[derive(Debug, PartialEq)]
pub(crate) enum AnswerCall {
    /// No call to the answer tool.
    None,
    /// Only the answer tool was called: this is the answer.
    Answer(String),
    /// The answer tool was called without a usable `answer`.
    Empty,
}

/// Reads the answer tool out of `calls`. Calls to other tools come first:
/// when the model calls a tool and the answer tool in one turn, the answer
/// call is dropped from `calls` (it was written before the results it
/// needs), and the other calls run.
pub(crate) fn take_answer(calls: &mut Vec<ToolCall>) -> AnswerCall {
    let is_answer = |c: &ToolCall| c.name == ANSWER_TOOL;
    if !calls.iter().any(is_answer) {
        return AnswerCall::None;
    }
    if calls.iter().any(|c| !is_answer(c)) {
        calls.retain(|c| !is_answer(c));
        return AnswerCall::None;
    }
    let answer = calls.first().map(|c| answer_text(&c.arguments));
    calls.clear();
    match answer {
        Some(text) if !text.trim().is_empty() => AnswerCall::Answer(text.trim().to_string()),
        _ => AnswerCall::Empty,
    }
}

/// The answer in the tool's arguments: `answer` as a string, a number or
/// any other value written out; or a lone argument under another name.
fn answer_text(arguments: &Value) -> String {
    let value = match arguments {
        Value::Object(map) => map
            .get("answer")
            .or_else(|| (map.len() == 1).then(|| map.values().next()).flatten()),
        Value::String(_) | Value::Number(_) => Some(arguments),
        _ => None,
    };
    match value {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Null) | None => String::new(),
        Some(other) => other.to_string(),
    }
}

/// The answer in a reply written as an object with the answer alone
/// (`{"answer": …}`, the answer tool's arguments written as text), if it
/// is one.
pub(crate) fn answer_in_object(text: &str) -> Option<String> {
    let value: Value = serde_json::from_str(text.trim()).ok()?;
    let object = value.as_object()?;
    if object.len() != 1 {
        return None;
    }
    object
        .get("answer")?
        .as_str()
        .map(str::trim)
        .filter(|a| !a.is_empty())
        .map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(name: &str, arguments: Value) -> ToolCall {
        ToolCall::new("c", name, arguments)
    }

    #[test]
    fn a_lone_answer_call_is_the_answer() {
        let mut calls = vec![call(ANSWER_TOOL, json!({"answer": " 42 km "}))];
        assert_eq!(take_answer(&mut calls), AnswerCall::Answer("42 km".into()));
        assert!(calls.is_empty());
    }

    #[test]
    fn a_number_or_a_renamed_argument_still_answers() {
        let mut calls = vec![call(ANSWER_TOOL, json!({"answer": 110}))];
        assert_eq!(take_answer(&mut calls), AnswerCall::Answer("110".into()));
        let mut calls = vec![call(ANSWER_TOOL, json!({"result": "Paris"}))];
        assert_eq!(take_answer(&mut calls), AnswerCall::Answer("Paris".into()));
    }

    #[test]
    fn an_answer_call_beside_other_calls_is_dropped() {
        let mut calls = vec![
            call("search", json!({"query": "q"})),
            call(ANSWER_TOOL, json!({"answer": "a guess"})),
        ];
        assert_eq!(take_answer(&mut calls), AnswerCall::None);
        assert_eq!(calls.len(), 1);
        assert_eq!(calls[0].name, "search");
    }

    #[test]
    fn an_answer_call_without_an_answer_is_empty() {
        let mut calls = vec![call(ANSWER_TOOL, json!({}))];
        assert_eq!(take_answer(&mut calls), AnswerCall::Empty);
        let mut calls = vec![call(ANSWER_TOOL, json!({"answer": "  "}))];
        assert_eq!(take_answer(&mut calls), AnswerCall::Empty);
    }

    #[test]
    fn the_extended_list_is_built_once_per_tool_list() {
        let cache = WithAnswerTool::default();
        let tools: Arc<[ToolSpec]> = vec![ToolSpec {
            name: "search".into(),
            description: "d".into(),
            parameters: json!({"type": "object"}),
        }]
        .into();
        let first = cache.tools(&tools);
        assert_eq!(first.len(), 2);
        assert_eq!(first[1].name, ANSWER_TOOL);
        assert!(Arc::ptr_eq(&first, &cache.tools(&tools)));
    }

    #[test]
    fn an_answer_object_is_read_back() {
        assert_eq!(
            answer_in_object(" {\"answer\": \" 42 \"} ").as_deref(),
            Some("42")
        );
        assert_eq!(answer_in_object("{\"answer\": \"\"}"), None);
        assert_eq!(answer_in_object("{\"answer\": \"a\", \"x\": 1}"), None);
        assert_eq!(answer_in_object("42"), None);
    }
}
