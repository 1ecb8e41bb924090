//! Multi-byte text split across chunk boundaries at every offset, through
//! a real `Agent` with streaming on, on both transports: a ReAct reply
//! whose Thought is Chinese, accented and emoji text, an action whose JSON
//! input is non-ASCII and a non-ASCII final answer (text); non-ASCII
//! tool-call arguments and a non-ASCII answer (native). Each reply is cut
//! into two pieces at every character boundary (`ScriptedModel`), and at
//! every byte inside a multi-byte character of the SSE body through the
//! real HTTP client (`CannedServer`). The tool gets the right input, the
//! answer is right, nothing panics.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use agent_core::message::Role;
use agent_core::testing::ScriptedModel;
use agent_core::{
    Agent, Budget, Complete, Outcome, StopReason, ToolCall, ToolError, ToolOutput, ToolSpec,
    Toolbox, Transport,
};
use agent_native::testing::{Canned, CannedServer};
use agent_native::{NativeTransport, OpenAiCompatible, ProviderConfig};
use agent_text::TextTransport;
use serde_json::{Value, json};

const THOUGHT: &str = "我需要先查一下 — café, naïve, Ærøskøbing 🧭🚀";
const INPUT: &str = "Grüße aus 東京 🗼 — «ñ» e\u{301}";
const ANSWER: &str = "Die Antwort ist 四十二 🎉 — déjà vu, ça va 👍🏽";

/// The text transport's replies: an action with a non-ASCII JSON input,
/// then a final answer.
fn text_replies() -> [String; 2] {
    [
        format!(
            "Thought: {THOUGHT}\nAction: echo\nAction Input: {}",
            json!({ "text": INPUT })
        ),
        format!("Thought: 好的 ✅ jetzt weiß ich es.\nFinal Answer: {ANSWER}"),
    ]
}

/// A tool that answers with its `text` argument and records what it got.
#[derive(Clone, Default)]
struct Echo(Arc<Mutex<Vec<Value>>>);

#[async_trait::async_trait]
impl Toolbox for Echo {
    fn specs(&self) -> Vec<ToolSpec> {
        vec![ToolSpec {
            name: "echo".into(),
            description: "Repeats the text.".into(),
            parameters: json!({
                "type": "object",
                "properties": {"text": {"type": "string"}},
                "required": ["text"]
            }),
        }]
    }

    async fn call(&self, call: &ToolCall) -> Result<ToolOutput, ToolError> {
        self.0.lock().unwrap().push(call.arguments.clone());
        Ok(ToolOutput::new(
            call.arguments["text"].as_str().unwrap_or("(no text)"),
        ))
    }
}

fn agent(model: impl Complete + 'static, transport: Arc<dyn Transport>, echo: &Echo) -> Agent {
    Agent::builder()
        .model(model)
        .transport(transport)
        .toolbox(echo.clone())
        .streaming(true)
        .budget(Budget {
            max_steps: 4,
            ..Budget::default()
        })
        .build()
        .unwrap()
}

/// The run answered right, and the tool got exactly the input.
fn check(outcome: &Outcome, echo: &Echo, label: &str) {
    assert_eq!(
        outcome.stop_reason,
        StopReason::FinalAnswer,
        "{label}: {outcome:#?}"
    );
    assert_eq!(outcome.answer.as_deref(), Some(ANSWER), "{label}");
    assert_eq!(
        *echo.0.lock().unwrap(),
        [json!({ "text": INPUT })],
        "{label}"
    );
    assert_eq!(outcome.tool_calls, 1, "{label}");
}

fn char_count(replies: &[String]) -> usize {
    replies.iter().map(|r| r.chars().count()).max().unwrap()
}

#[tokio::test]
async fn text_transport_split_at_every_character() {
    let replies = text_replies();
    for offset in 0..=char_count(&replies) {
        let label = format!("text, split at character {offset}");
        let model = ScriptedModel::new()
            .text(replies[0].clone())
            .text(replies[1].clone())
            .split_at(vec![offset]);
        let echo = Echo::default();
        let outcome = agent(model, Arc::new(TextTransport::new()), &echo)
            .run("Echo the greeting, then answer.")
            .await;
        check(&outcome, &echo, &label);
        // The step kept is the whole action, Thought and all.
        let step = &outcome.transcript[2];
        assert_eq!(step.role, Role::Assistant, "{label}");
        assert_eq!(step.content, replies[0], "{label}");
    }
}

#[tokio::test]
async fn native_transport_split_at_every_character() {
    let arguments = json!({ "text": INPUT }).to_string();
    let chars = arguments.chars().count().max(ANSWER.chars().count());
    for offset in 0..=chars {
        let label = format!("native, split at character {offset}");
        let model = ScriptedModel::new()
            .call("call_1", "echo", json!({ "text": INPUT }))
            .text(ANSWER)
            .split_at(vec![offset]);
        let echo = Echo::default();
        let outcome = agent(model, Arc::new(NativeTransport::new()), &echo)
            .run("Echo the greeting, then answer.")
            .await;
        check(&outcome, &echo, &label);
        let tool = outcome
            .transcript
            .iter()
            .find(|m| m.role == Role::Tool)
            .unwrap();
        assert_eq!(tool.content, INPUT, "{label}");
    }
}

// ---- through the real HTTP client ------------------------------------------------

fn chunk(delta: Value, finish: Option<&str>) -> String {
    json!({"choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}).to_string()
}

fn usage() -> String {
    json!({"choices": [], "usage": {"prompt_tokens": 9, "completion_tokens": 9, "total_tokens": 18}})
        .to_string()
}

/// Text content as SSE events: two content pieces (cut at a character
/// boundary), the finish reason and the usage.
fn text_events(text: &str) -> Vec<String> {
    let mid = text.char_indices().nth(text.chars().count() / 2).unwrap().0;
    vec![
        chunk(json!({"role": "assistant", "content": &text[..mid]}), None),
        chunk(json!({"content": &text[mid..]}), None),
        chunk(json!({}), Some("stop")),
        usage(),
    ]
}

/// A tool call as SSE events, its arguments in two pieces.
fn call_events(arguments: &str) -> Vec<String> {
    let mid = arguments
        .char_indices()
        .nth(arguments.chars().count() / 2)
        .unwrap()
        .0;
    vec![
        chunk(
            json!({"tool_calls": [{"index": 0, "id": "call_1", "type": "function", "function": {"name": "echo", "arguments": &arguments[..mid]}}]}),
            None,
        ),
        chunk(
            json!({"tool_calls": [{"index": 0, "function": {"arguments": &arguments[mid..]}}]}),
            None,
        ),
        chunk(json!({}), Some("tool_calls")),
        usage(),
    ]
}

/// The bytes of the event stream the server writes for `events`.
fn sse_body(events: &[String]) -> String {
    let mut body: String = events.iter().map(|e| format!("data: {e}\n\n")).collect();
    body.push_str("data: [DONE]\n\n");
    body
}

/// Every byte offset that falls inside a multi-byte character of `text`.
fn inside_characters(text: &str) -> Vec<usize> {
    text.char_indices()
        .flat_map(|(i, c)| (i + 1)..(i + c.len_utf8()))
        .collect()
}

/// Runs each transport's script with both replies' SSE bodies cut once,
/// at each byte inside a multi-byte character of either body.
async fn through_http(transport: fn() -> Arc<dyn Transport>, turns: [Vec<String>; 2]) {
    let mut offsets: Vec<usize> = turns
        .iter()
        .flat_map(|events| inside_characters(&sse_body(events)))
        .collect();
    offsets.sort_unstable();
    offsets.dedup();
    assert!(offsets.len() > 20, "{offsets:?}");
    for offset in offsets {
        let label = format!("{}, SSE body split at byte {offset}", transport().name());
        let server = CannedServer::start(
            turns
                .iter()
                .map(|events| {
                    Canned::Sse {
                        events: events.clone(),
                        cut: false,
                    }
                    .split_at(vec![offset])
                })
                .collect(),
        )
        .await
        .unwrap();
        let model = OpenAiCompatible::new(
            ProviderConfig::new(server.url(), "m")
                .with_timeout(Duration::from_secs(5))
                .with_constrain(agent_native::Constrain::Off),
        )
        .unwrap();
        let echo = Echo::default();
        let outcome = agent(model, transport(), &echo)
            .run("Echo the greeting, then answer.")
            .await;
        check(&outcome, &echo, &label);
        let requests = server.requests();
        assert_eq!(requests.len(), 2, "{label}");
        assert_eq!(requests[0]["stream"], true, "{label}");
    }
}

#[tokio::test]
async fn text_transport_sse_split_inside_characters() {
    let [action, answer] = text_replies();
    through_http(
        || Arc::new(TextTransport::new()),
        [text_events(&action), text_events(&answer)],
    )
    .await;
}

#[tokio::test]
async fn native_transport_sse_split_inside_characters() {
    through_http(
        || Arc::new(NativeTransport::new()),
        [
            call_events(&json!({ "text": INPUT }).to_string()),
            text_events(ANSWER),
        ],
    )
    .await;
}
