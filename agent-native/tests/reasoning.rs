//! Reasoning models behind a real HTTP server: the reasoning a server sends
//! apart (`reasoning_content`) and the `<think>` block a server leaves in
//! the content are the turn's thought on both transports, never its reply,
//! streamed or not.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use agent_core::event::EventSink;
use agent_core::{Agent, Event, StopReason, Transport};
use agent_native::testing::{Canned, CannedServer};
use agent_native::{Constrain, NativeTransport, OpenAiCompatible, ProviderConfig};
use agent_text::TextTransport;
use agent_tools::builtin;
use serde_json::json;

#[derive(Default)]
struct Thoughts(Mutex<Vec<String>>);

impl EventSink for Thoughts {
    fn emit(&self, event: &Event) {
        if let Event::Thought { text } = event {
            self.0.lock().unwrap().push(text.clone());
        }
    }
}

/// A completion whose reasoning the server sent apart from its content.
fn reasoned(reasoning: &str, content: &str) -> Canned {
    Canned::json(json!({
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content,
            "reasoning_content": reasoning}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 20, "completion_tokens": 5, "total_tokens": 25}
    }))
}

async fn run(
    server: &CannedServer,
    transport: Arc<dyn Transport>,
    streaming: bool,
) -> (agent_core::Outcome, Vec<String>) {
    let provider = OpenAiCompatible::new(
        ProviderConfig::new(server.url(), "test-model")
            .with_timeout(Duration::from_millis(800))
            .with_constrain(Constrain::Off),
    )
    .unwrap();
    let thoughts = Arc::new(Thoughts::default());
    let agent = Agent::builder()
        .model(provider)
        .transport(transport)
        .toolbox(
            builtin::registry(&["calculator"], None, true)
                .unwrap()
                .allow_all(),
        )
        .streaming(streaming)
        .sink(Arc::clone(&thoughts))
        .build()
        .unwrap();
    let outcome = agent.run("What is 12 cubed?").await;
    let thoughts = thoughts.0.lock().unwrap().clone();
    (outcome, thoughts)
}

fn calculator_results(outcome: &agent_core::Outcome) -> Vec<String> {
    outcome
        .transcript
        .iter()
        .filter(|m| m.content.contains("1728"))
        .map(|m| m.content.clone())
        .collect()
}

#[tokio::test]
async fn text_transport_reads_the_step_a_model_left_in_its_reasoning() {
    for streaming in [false, true] {
        let server = CannedServer::start(vec![
            // Everything went into the reasoning; the content is empty.
            reasoned(
                "Cube it.\nAction: calculator\nAction Input: {\"expression\": \"12**3\"}",
                "",
            ),
            reasoned("The result is there.", "Thought: done.\nFinal Answer: 1728"),
        ])
        .await
        .unwrap();
        let (outcome, thoughts) = run(&server, Arc::new(TextTransport::new()), streaming).await;
        assert_eq!(
            outcome.stop_reason,
            StopReason::FinalAnswer,
            "streaming {streaming}"
        );
        assert_eq!(outcome.answer.as_deref(), Some("1728"));
        assert_eq!(outcome.tool_calls, 1);
        assert!(
            thoughts
                .iter()
                .any(|t| t.starts_with("The result is there.") && t.ends_with("done.")),
            "{thoughts:?}"
        );
    }
}

#[tokio::test]
async fn native_transport_keeps_reasoning_out_of_the_answer() {
    for streaming in [false, true] {
        let server = CannedServer::start(vec![
            Canned::tool_calls(&[("c1", "calculator", r#"{"expression": "12**3"}"#)]),
            // A server that leaves the block in the content.
            Canned::text(
                "<think>\nIt printed 1728. Maybe say 1,728?\n</think>\n\n12 cubed is 1728.",
            ),
        ])
        .await
        .unwrap();
        let (outcome, thoughts) = run(&server, Arc::new(NativeTransport::new()), streaming).await;
        assert_eq!(
            outcome.stop_reason,
            StopReason::FinalAnswer,
            "streaming {streaming}"
        );
        assert_eq!(outcome.answer.as_deref(), Some("12 cubed is 1728."));
        assert!(!calculator_results(&outcome).is_empty());
        assert!(
            thoughts.iter().any(|t| t.contains("Maybe say 1,728?")),
            "{thoughts:?}"
        );
    }
}

#[tokio::test]
async fn native_transport_takes_the_reasoning_a_server_sent_apart_as_the_thought() {
    let server = CannedServer::start(vec![
        reasoned("Only reasoning, no reply.", ""),
        reasoned(
            "Now I reply.",
            "one thousand seven hundred and twenty-eight",
        ),
    ])
    .await
    .unwrap();
    let (outcome, thoughts) = run(&server, Arc::new(NativeTransport::new()), false).await;
    assert_eq!(outcome.stop_reason, StopReason::FinalAnswer);
    assert_eq!(
        outcome.answer.as_deref(),
        Some("one thousand seven hundred and twenty-eight")
    );
    assert_eq!(thoughts, ["Only reasoning, no reply.", "Now I reply."]);
    // The reply that was only reasoning was sent back as a correction.
    let second = &server.requests()[1]["messages"];
    let last = second.as_array().unwrap().last().unwrap();
    assert!(
        last["content"].as_str().unwrap().contains("only reasoning"),
        "{last}"
    );
}
