//! Reasoning a server sends apart from the text is generated work: when
//! the server reports no usage, the estimate counts it, and it survives a
//! streamed turn.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use agent_core::testing::{ScriptedModel, TestTransport};
use agent_core::{Agent, Completion, StopReason};
use common::TestTools;

fn answered(reasoning: &str) -> Completion {
    Completion {
        reasoning: reasoning.into(),
        ..Completion::text("done")
    }
}

async fn completion_tokens(reasoning: &str, streaming: bool) -> u64 {
    let agent = Agent::builder()
        .model(ScriptedModel::new().reply(answered(reasoning)).chunked(3))
        .transport(TestTransport)
        .toolbox(TestTools::new())
        .streaming(streaming)
        .build()
        .unwrap();
    let outcome = agent.run("go").await;
    assert_eq!(outcome.stop_reason, StopReason::FinalAnswer);
    assert!(outcome.usage.estimated);
    outcome.usage.completion_tokens
}

#[tokio::test]
async fn estimated_usage_counts_reasoning_sent_apart() {
    let long = "thinking it over ".repeat(20);
    for streaming in [false, true] {
        let without = completion_tokens("", streaming).await;
        let with = completion_tokens(&long, streaming).await;
        assert!(
            with >= without + 80,
            "{without} vs {with} (streaming {streaming})"
        );
    }
}
