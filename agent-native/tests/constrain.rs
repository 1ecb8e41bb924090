//! Grammar-constrained decoding against servers that honour, refuse or
//! ignore grammars, through the real provider and the text transport. A
//! grammar never stops the model from answering: whatever the server does,
//! the run ends with the right answer, and the user is told when requests
//! went unconstrained.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use agent_core::event::EventSink;
use agent_core::{Agent, Event, Outcome, StopReason};
use agent_native::testing::{Canned, CannedServer};
use agent_native::{Constrain, OpenAiCompatible, ProviderConfig, RetryPolicy};
use agent_text::TextTransport;
use agent_tools::builtin;
use serde_json::Value;

const ANSWER: &str = "Thought: I know it.\nFinal Answer: forty-two";
const PROBE_WORD: &str = "zqxv";

#[derive(Default)]
struct Notices(Mutex<Vec<String>>);

impl EventSink for Notices {
    fn emit(&self, event: &Event) {
        if let Event::Notice { message } = event {
            self.0.lock().unwrap().push(message.clone());
        }
    }
}

async fn run(
    server: &CannedServer,
    constrain: Constrain,
    streaming: bool,
) -> (Outcome, Vec<String>) {
    let provider = OpenAiCompatible::new(
        ProviderConfig::new(server.url(), "test-model")
            .with_timeout(Duration::from_millis(800))
            .with_constrain(constrain)
            .with_retry(RetryPolicy {
                max_retries: 2,
                base_delay: Duration::from_millis(10),
                max_delay: Duration::from_millis(50),
            }),
    )
    .unwrap();
    let notices = Arc::new(Notices::default());
    let agent = Agent::builder()
        .model(provider)
        .transport(TextTransport::new())
        .toolbox(
            builtin::registry(&["calculator"], None, true)
                .unwrap()
                .allow_all(),
        )
        .streaming(streaming)
        .sink(Arc::clone(&notices))
        .build()
        .unwrap();
    let outcome = agent.run("What is six times seven?").await;
    let notices = notices.0.lock().unwrap().clone();
    (outcome, notices)
}

fn has(request: &Value, field: &str) -> bool {
    !request[field].is_null()
}

#[tokio::test]
async fn a_server_that_honours_grammars_gets_them() {
    for streaming in [false, true] {
        let server = CannedServer::start(vec![Canned::text(PROBE_WORD), Canned::text(ANSWER)])
            .await
            .unwrap();
        let (outcome, notices) = run(&server, Constrain::Auto, streaming).await;
        assert_eq!(outcome.answer.as_deref(), Some("forty-two"));
        assert!(notices.is_empty(), "{notices:?}");
        let requests = server.requests();
        assert_eq!(requests.len(), 2, "one probe, one request");
        // The probe allows one made-up word; the request carries the ReAct grammar.
        assert!(
            requests[0]["grammar"]
                .as_str()
                .unwrap()
                .contains(PROBE_WORD)
        );
        let grammar = requests[1]["grammar"].as_str().unwrap();
        assert!(grammar.starts_with("root ::= \"Thought: \""), "{grammar}");
        assert!(
            grammar.contains("\"calculator\\nAction Input: \""),
            "{grammar}"
        );
        // The trace says the request was constrained.
        let responded = outcome
            .transcript
            .iter()
            .any(|m| m.content.contains("Final Answer: forty-two"));
        assert!(responded);
    }
}

#[tokio::test]
async fn a_server_that_refuses_the_grammar_field_gets_unconstrained_requests() {
    let refused = || Canned::status(400, r#"{"error": {"message": "unknown field"}}"#);
    let server = CannedServer::start(vec![refused(), refused(), refused(), Canned::text(ANSWER)])
        .await
        .unwrap();
    let (outcome, notices) = run(&server, Constrain::Auto, false).await;
    assert_eq!(outcome.stop_reason, StopReason::FinalAnswer);
    assert_eq!(outcome.answer.as_deref(), Some("forty-two"));
    assert_eq!(notices.len(), 1, "{notices:?}");
    assert!(
        notices[0].contains("does not honour grammars"),
        "{notices:?}"
    );
    let requests = server.requests();
    // Three dialects probed, then the real request without any of them.
    assert!(has(&requests[0], "grammar"));
    assert!(has(&requests[1], "structured_outputs"));
    assert!(has(&requests[2], "response_format"));
    let last = requests.last().unwrap();
    assert!(
        !has(last, "grammar") && !has(last, "structured_outputs") && !has(last, "response_format")
    );
}

#[tokio::test]
async fn a_server_that_ignores_the_grammar_field_gets_unconstrained_requests() {
    let ignored = || Canned::text("Hello");
    let server = CannedServer::start(vec![ignored(), ignored(), ignored(), Canned::text(ANSWER)])
        .await
        .unwrap();
    let (outcome, notices) = run(&server, Constrain::Auto, true).await;
    assert_eq!(outcome.answer.as_deref(), Some("forty-two"));
    assert_eq!(notices.len(), 1, "{notices:?}");
    let last = server.requests().last().unwrap().clone();
    assert!(!has(&last, "grammar"));
}

#[tokio::test]
async fn a_grammar_refused_mid_run_is_dropped_and_the_request_sent_again() {
    let server = CannedServer::start(vec![
        Canned::text(PROBE_WORD),
        Canned::status(400, r#"{"error": {"message": "Failed to parse grammar"}}"#),
        Canned::text(ANSWER),
    ])
    .await
    .unwrap();
    let (outcome, notices) = run(&server, Constrain::Auto, false).await;
    assert_eq!(outcome.answer.as_deref(), Some("forty-two"));
    assert!(
        notices.iter().any(|n| n.contains("HTTP 400")),
        "{notices:?}"
    );
    let requests = server.requests();
    assert_eq!(requests.len(), 3);
    assert!(has(&requests[1], "grammar"));
    assert!(!has(&requests[2], "grammar"));
}

#[tokio::test]
async fn a_dropped_connection_during_the_probe_is_retried() {
    let server = CannedServer::start(vec![
        Canned::raw(Vec::new()),
        Canned::text(PROBE_WORD),
        Canned::text(ANSWER),
    ])
    .await
    .unwrap();
    let (outcome, notices) = run(&server, Constrain::Auto, false).await;
    assert_eq!(outcome.answer.as_deref(), Some("forty-two"));
    assert!(notices.is_empty(), "{notices:?}");
    assert!(has(server.requests().last().unwrap(), "grammar"));
}

#[tokio::test]
async fn constrain_off_never_sends_a_grammar_and_on_always_does() {
    let server = CannedServer::start(vec![Canned::text(ANSWER)])
        .await
        .unwrap();
    let (outcome, _) = run(&server, Constrain::Off, false).await;
    assert_eq!(outcome.answer.as_deref(), Some("forty-two"));
    let requests = server.requests();
    assert_eq!(requests.len(), 1, "no probe");
    assert!(!has(&requests[0], "grammar"));

    let ignored = || Canned::text("Hello");
    let server = CannedServer::start(vec![ignored(), ignored(), ignored(), Canned::text(ANSWER)])
        .await
        .unwrap();
    let (outcome, _) = run(&server, Constrain::On, false).await;
    assert_eq!(outcome.answer.as_deref(), Some("forty-two"));
    assert!(has(server.requests().last().unwrap(), "grammar"));
}
