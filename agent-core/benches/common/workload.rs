//! The model of the shared peer workload (`../shared/bench/WORKLOAD.md`),
//! used by the criterion benches of agent-core and agent-text and by
//! `cargo xtask bench`. It is bench code, not part of any crate's API.

#![allow(dead_code, unreachable_pub)]

use std::sync::atomic::{AtomicUsize, Ordering};

use agent_core::{Complete, Completion, CompletionRequest, ModelError};
use async_trait::async_trait;

/// The reply style of a [`WorkloadModel`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WorkloadStyle {
    /// ReAct text (`Action:` / `Action Input:` / `Final Answer:`).
    Text,
    /// Native tool calls, and the answer as plain text.
    Native,
}

/// The model of the shared peer workload (`WORKLOAD.md`): call i < K asks
/// for `add {"a": i, "b": 1}`, call K answers `DONE-K`. The step number
/// comes from the request (two opening messages, then two per step), so one
/// model serves any number of runs, concurrent ones included. It counts its
/// calls for the workload's checks.
#[derive(Debug)]
pub struct WorkloadModel {
    k: usize,
    style: WorkloadStyle,
    calls: AtomicUsize,
}

impl WorkloadModel {
    /// A model for K tool steps, replying in `style`.
    pub fn new(k: usize, style: WorkloadStyle) -> Self {
        Self {
            k,
            style,
            calls: AtomicUsize::new(0),
        }
    }

    /// Calls received so far.
    pub fn calls(&self) -> usize {
        self.calls.load(Ordering::Relaxed)
    }
}

#[async_trait]
impl Complete for WorkloadModel {
    async fn complete(&self, request: &CompletionRequest) -> Result<Completion, ModelError> {
        self.calls.fetch_add(1, Ordering::Relaxed);
        let i = request.messages.len().saturating_sub(2) / 2;
        let k = self.k;
        Ok(match (i < k, self.style) {
            (true, WorkloadStyle::Text) => Completion::text(format!(
                "Thought: I should add.\nAction: add\nAction Input: {{\"a\": {i}, \"b\": 1}}"
            )),
            (true, WorkloadStyle::Native) => {
                Completion::tool_calls(vec![agent_core::ToolCall::new(
                    format!("call_{i}"),
                    "add",
                    serde_json::json!({"a": i, "b": 1}),
                )])
            }
            (false, WorkloadStyle::Text) => {
                Completion::text(format!("Thought: done\nFinal Answer: DONE-{k}"))
            }
            (false, WorkloadStyle::Native) => Completion::text(format!("DONE-{k}")),
        })
    }
}
