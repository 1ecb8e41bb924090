//! A toolbox's context ([`Toolbox::context`]): read when each run starts,
//! written after the task in the opening message, and never taken for the
//! question by the checks that read it; and a custom toolbox that panics
//! when a run starts (its context left out, or, listing its tools, the run
//! stopped with a typed reason).

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Mutex;

use agent_core::message::Role;
use agent_core::testing::{ScriptedModel, TestTransport};
use agent_core::{Agent, Outcome, StopReason, ToolCall, ToolError, ToolOutput, ToolSpec, Toolbox};
use async_trait::async_trait;
use serde_json::json;

/// A file reader whose context is what its directory holds now.
struct Reader {
    holds: Mutex<Vec<String>>,
}

#[async_trait]
impl Toolbox for Reader {
    fn specs(&self) -> Vec<ToolSpec> {
        vec![ToolSpec {
            name: "read".into(),
            description: "Reads a file.".into(),
            parameters: json!({"type": "object"}),
        }]
    }
    async fn call(&self, _call: &ToolCall) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::new("port = 8443"))
    }
    fn context(&self) -> Option<String> {
        let holds = self.holds.lock().unwrap();
        (!holds.is_empty()).then(|| format!("Files: {}.", holds.join(", ")))
    }
}

fn opening(outcome: &Outcome) -> String {
    outcome
        .transcript
        .iter()
        .find(|m| m.role == Role::User)
        .map(|m| m.content.clone())
        .unwrap()
}

#[tokio::test]
async fn the_context_follows_the_task_in_the_opening_message_of_each_run() {
    let reader = std::sync::Arc::new(Reader {
        holds: Mutex::new(vec!["hosts/staging.ini".into()]),
    });
    let model = ScriptedModel::new()
        .call("1", "read", json!({"path": "hosts/staging.ini"}))
        .text("8443")
        .text("8443");
    let agent = Agent::builder()
        .model(model)
        .transport(TestTransport)
        .toolbox(std::sync::Arc::clone(&reader))
        .build()
        .unwrap();
    let outcome = agent.run("Which port does staging use?").await;
    assert_eq!(outcome.stop_reason, StopReason::FinalAnswer);
    assert_eq!(
        opening(&outcome),
        "Which port does staging use?\n\nFiles: hosts/staging.ini."
    );
    // Read again at the next run's start: a file added since is there.
    reader.holds.lock().unwrap().push("hosts/prod.ini".into());
    let outcome = agent.run("And prod?").await;
    assert_eq!(
        opening(&outcome),
        "And prod?\n\nFiles: hosts/staging.ini, hosts/prod.ini."
    );
}

#[tokio::test]
async fn no_context_leaves_the_task_alone() {
    let model = ScriptedModel::new().text("Nothing to read.");
    let agent = Agent::builder()
        .model(model)
        .transport(TestTransport)
        .toolbox(Reader {
            holds: Mutex::new(Vec::new()),
        })
        .build()
        .unwrap();
    let outcome = agent.run("Which port?").await;
    assert_eq!(opening(&outcome), "Which port?");
}

/// A toolbox whose context panics: a bug in the user's own toolbox.
struct BrokenContext;

#[async_trait]
impl Toolbox for BrokenContext {
    fn specs(&self) -> Vec<ToolSpec> {
        Reader {
            holds: Mutex::new(Vec::new()),
        }
        .specs()
    }
    async fn call(&self, _call: &ToolCall) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::new("port = 8443"))
    }
    fn context(&self) -> Option<String> {
        panic!("the directory listing failed")
    }
}

#[tokio::test]
async fn a_context_that_panics_is_left_out_and_the_run_goes_on() {
    let model = ScriptedModel::new()
        .call("1", "read", json!({"path": "hosts/staging.ini"}))
        .text("8443");
    let agent = Agent::builder()
        .model(model)
        .transport(TestTransport)
        .toolbox(BrokenContext)
        .build()
        .unwrap();
    let outcome = agent.run("Which port does staging use?").await;
    assert_eq!(outcome.stop_reason, StopReason::FinalAnswer);
    assert_eq!(outcome.answer.as_deref(), Some("8443"));
    assert_eq!(opening(&outcome), "Which port does staging use?");
}

/// A toolbox that panics while it lists its tools.
struct BrokenListing;

#[async_trait]
impl Toolbox for BrokenListing {
    fn specs(&self) -> Vec<ToolSpec> {
        panic!("the tool server went away")
    }
    async fn call(&self, _call: &ToolCall) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::new("unreachable"))
    }
}

/// An agent over `toolbox` whose model is never asked.
fn unasked_agent(toolbox: impl Toolbox + 'static) -> Agent {
    Agent::builder()
        .model(ScriptedModel::new().text("never asked"))
        .transport(TestTransport)
        .toolbox(toolbox)
        .build()
        .unwrap()
}

#[tokio::test]
async fn a_toolbox_that_panics_listing_its_tools_stops_the_run_with_a_typed_reason() {
    let agent = unasked_agent(BrokenListing);
    let outcome = agent.run("Which port does staging use?").await;
    match &outcome.stop_reason {
        StopReason::Internal(detail) => assert!(
            detail.contains("the toolbox panicked listing its tools")
                && detail.contains("the tool server went away"),
            "{detail}"
        ),
        other => panic!("expected Internal, got {other:?}"),
    }
    assert_eq!(outcome.answer, None);
    // The task is kept, and no model request was made.
    assert_eq!(opening(&outcome), "Which port does staging use?");
    assert_eq!(outcome.steps, 0);
}

#[test]
fn an_agent_whose_toolbox_panics_listing_its_tools_still_prints_with_debug() {
    let agent = unasked_agent(BrokenListing);
    let printed = format!("{agent:?}");
    assert!(
        printed.contains(r#"tools: "<the toolbox panicked listing them>""#),
        "{printed}"
    );
    let reader = Reader {
        holds: Mutex::new(Vec::new()),
    };
    let printed = format!("{:?}", unasked_agent(reader));
    assert!(printed.contains("tools: 1,"), "{printed}");
}
