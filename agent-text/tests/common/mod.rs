//! What the end-to-end tests share: a text-transport agent with the
//! built-in search and calculator driven by a scripted model, and the
//! observations a run got back, and what a run asked for half of
//! Berlin's population must end with.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;

use agent_core::testing::ScriptedModel;
use agent_core::{Agent, Outcome, StopReason};
use agent_text::TextTransport;
use agent_tools::builtin;

/// The real `Agent`, the text transport and the built-in search and
/// calculator, with `model` writing the replies.
pub(crate) fn search_and_calculator_agent(model: ScriptedModel) -> Agent {
    Agent::builder()
        .model(Arc::new(model))
        .transport(TextTransport::new())
        .toolbox(
            builtin::registry(&["search", "calculator"], None, true)
                .unwrap()
                .allow_all(),
        )
        .build()
        .unwrap()
}

/// The observation messages of a run, in order.
pub(crate) fn observations(outcome: &Outcome) -> Vec<&str> {
    outcome
        .transcript
        .iter()
        .map(|m| m.content.as_str())
        .filter(|c| c.starts_with("Observation:"))
        .collect()
}

/// A run asked for half of Berlin's population that looked it up and
/// computed it: the right answer, both tools ran, and their results.
pub(crate) fn assert_half_of_berlin(outcome: &Outcome) {
    assert_eq!(outcome.stop_reason, StopReason::FinalAnswer);
    assert_eq!(outcome.tool_calls, 2);
    let observations = observations(outcome);
    assert!(observations[0].contains("3,800,000"), "{observations:?}");
    assert!(observations[1].contains("1900000"), "{observations:?}");
    let answer = outcome.answer.as_deref().unwrap_or_default();
    assert!(answer.contains("1,900,000"), "{answer}");
}
