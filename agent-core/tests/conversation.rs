//! Conversations and configuration from the start: a follow-up run sends
//! the earlier turns as real messages, byte-identical, so a server's prompt
//! cache keeps serving them; and a custom token estimator sizes the very
//! first request, system prompt and tools included.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::sync::{Arc, Mutex};

use agent_core::budget::TokenEstimator;
use agent_core::message::Role;
use agent_core::testing::{ScriptedModel, TestTransport};
use agent_core::{Agent, Budget, StopReason, Task};
use common::TestTools;
use serde_json::json;

#[tokio::test]
async fn a_follow_up_sends_the_earlier_turns_as_the_same_messages() {
    let model = Arc::new(
        ScriptedModel::new()
            .call("c0", "add", json!({"a": 40, "b": 2}))
            .text("It is 42.")
            .text("The first number was 40."),
    );
    let agent = Agent::builder()
        .model(model.clone())
        .transport(TestTransport)
        .toolbox(TestTools::new())
        .build()
        .unwrap();
    let first = agent.run("What is 40 + 2?").await;
    assert_eq!(first.answer.as_deref(), Some("It is 42."));
    let second = agent
        .run(Task::follow_up(&first, "And the first number?"))
        .await;
    assert_eq!(second.answer.as_deref(), Some("The first number was 40."));

    let requests = model.requests();
    let last_of_first = &requests[1].messages;
    let first_of_second = &requests[2].messages;
    // Append-only across the turns: everything the first run last sent is
    // the start of the second run's first request, byte for byte.
    assert_eq!(&first_of_second[..last_of_first.len()], &last_of_first[..]);
    // The first answer is its own assistant message, then the new question.
    let tail: Vec<(Role, &str)> = first_of_second[last_of_first.len()..]
        .iter()
        .map(|m| (m.role, m.content.as_str()))
        .collect();
    assert_eq!(
        tail,
        [
            (Role::Assistant, "It is 42."),
            (Role::User, "And the first number?")
        ]
    );
    // The outcome's conversation leaves the system prompt out.
    assert_eq!(second.conversation()[0].content, "What is 40 + 2?");
    assert_eq!(
        second.conversation().last().unwrap().content,
        "The first number was 40."
    );
}

/// Counts characters, and remembers what it was asked to estimate.
#[derive(Default)]
struct Chars(Mutex<Vec<String>>);

impl TokenEstimator for Chars {
    fn estimate(&self, text: &str) -> u64 {
        self.0.lock().unwrap().push(text.to_string());
        text.chars().count() as u64
    }
}

#[tokio::test]
async fn a_custom_estimator_sizes_the_first_request_with_its_system_prompt_and_tools() {
    let estimator = Arc::new(Chars::default());
    // One token per character: the system prompt, task and tool specs
    // are well over 60, so the first request is refused before sending.
    let model = Arc::new(ScriptedModel::new().text("never"));
    let agent = Agent::builder()
        .model(model.clone())
        .transport(TestTransport)
        .toolbox(TestTools::new())
        .estimator(SharedChars(estimator.clone()))
        .budget(Budget {
            max_request_tokens: Some(60),
            ..Budget::default()
        })
        .build()
        .unwrap();
    let outcome = agent.run("hi").await;
    assert_eq!(outcome.stop_reason, StopReason::TokenBudget);
    assert!(model.requests().is_empty(), "nothing was sent");
    let seen = estimator.0.lock().unwrap().clone();
    assert!(
        seen.iter().any(|t| t == "You are a test agent."),
        "{seen:?}"
    );
    assert!(seen.iter().any(|t| t == "the add tool"), "{seen:?}");
}

struct SharedChars(Arc<Chars>);

impl TokenEstimator for SharedChars {
    fn estimate(&self, text: &str) -> u64 {
        self.0.estimate(text)
    }
}
