//! What the CLI's integration tests share: the built `agent` binary with a
//! clean environment.

#![allow(dead_code, clippy::unwrap_used)]

use std::process::{Command, Output};

use serde_json::Value;

/// The binary under test.
pub(crate) const BIN: &str = env!("CARGO_BIN_EXE_agent");

/// `agent` with none of the user's settings, no colour, and grammars off:
/// canned servers answer the run's own requests, not a grammar probe.
pub(crate) fn agent() -> Command {
    let mut command = Command::new(BIN);
    for var in [
        "OPENAI_BASE_URL",
        "AGENT_MODEL",
        "OPENAI_API_KEY",
        "AGENT_LOG",
    ] {
        command.env_remove(var);
    }
    command.env("NO_COLOR", "1");
    command.env("AGENT_CONSTRAIN", "off");
    command
}

/// Runs `command` to its end off the async runtime's threads.
pub(crate) async fn output(mut command: Command) -> Output {
    tokio::task::spawn_blocking(move || command.output().unwrap())
        .await
        .unwrap()
}

/// The names of the tools a request body offers, in order.
pub(crate) fn tool_names(request: &Value) -> Vec<&str> {
    request["tools"]
        .as_array()
        .map(|tools| {
            tools
                .iter()
                .filter_map(|t| t["function"]["name"].as_str())
                .collect()
        })
        .unwrap_or_default()
}
