//! What the tests of forced turns and of corrected calls share (a turn
//! that must compute, a turn that must look up, a number or a column
//! read for the model): a text-transport agent over a scripted model with
//! built-in tools, a folder of files for them, and the grammar each
//! request sent.

// Each test file uses some of these.
#![allow(dead_code)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::sync::Arc;

use agent_core::testing::ScriptedModel;
use agent_core::{Agent, Budget};
use agent_text::TextTransport;
use agent_tools::builtin;

/// The real `Agent`, the text transport and these built-in `tools`,
/// with `model` writing the replies.
pub(crate) fn builtin_agent(model: &Arc<ScriptedModel>, tools: &[&str], budget: Budget) -> Agent {
    agent_with_files(model, tools, budget, None)
}

/// [`builtin_agent`] whose file tools work in `dir`.
pub(crate) fn agent_with_files(
    model: &Arc<ScriptedModel>,
    tools: &[&str],
    budget: Budget,
    dir: Option<&Path>,
) -> Agent {
    Agent::builder()
        .model(Arc::clone(model))
        .transport(TextTransport::new())
        .toolbox(builtin::registry(tools, dir, true).unwrap().allow_all())
        .budget(budget)
        .build()
        .unwrap()
}

/// A fresh temporary directory, named after `name`, holding `files`;
/// removed when dropped.
pub(crate) fn folder(name: &str, files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::Builder::new()
        .prefix(&format!("agentloop-{name}-"))
        .tempdir()
        .unwrap();
    for (path, text) in files {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir
}

/// A reply that calls `tool` with `input` (a JSON object).
pub(crate) fn call_step(tool: &str, input: &str) -> String {
    format!("Thought: I call {tool}.\nAction: {tool}\nAction Input: {input}")
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
