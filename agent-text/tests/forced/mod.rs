//! What the tests of forced turns share (a turn that must compute, a
//! turn that must look up): a text-transport agent over a scripted model
//! with built-in tools, and the grammar each request sent.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;

use agent_core::testing::ScriptedModel;
use agent_core::{Agent, Budget};
use agent_text::TextTransport;
use agent_tools::builtin;

/// The real `Agent`, the text transport and these built-in `tools`,
/// with `model` writing the replies.
pub(crate) fn builtin_agent(model: &Arc<ScriptedModel>, tools: &[&str], budget: Budget) -> Agent {
    Agent::builder()
        .model(Arc::clone(model))
        .transport(TextTransport::new())
        .toolbox(builtin::registry(tools, None, true).unwrap().allow_all())
        .budget(budget)
        .build()
        .unwrap()
}

/// The grammar the model's `request`-th request was sent with.
pub(crate) fn sent_grammar(model: &ScriptedModel, request: usize) -> String {
    model.requests()[request]
        .constraint
        .as_ref()
        .unwrap()
        .grammar
        .clone()
}
