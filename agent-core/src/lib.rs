//! # agent-core
//!
//! The ReAct loop of agentloop, written once for every transport.
//!
//! The root holds what you type in the first hour; everything else lives
//! in named modules:
//!
//! - [`message`]: the provider-neutral message model ([`Message`],
//!   [`ToolCall`], [`CompletionRequest`], [`Completion`], usage).
//! - [`model`]: the [`Complete`] trait (a model), streaming deltas and the
//!   typed [`ModelError`].
//! - [`tool`]: the [`Tool`] and [`Toolbox`] traits, [`ToolError`] and the
//!   observation a call becomes. `agent-tools` provides the gateway.
//! - [`transport`]: the [`Transport`] trait (text ReAct or native tool
//!   calls: `agent-text` and `agent-native`).
//! - [`run`]: [`Run`](run::Run), the sans-IO state machine: it says what to
//!   do next, checks the [`Budget`] and ends with an [`Outcome`] that keeps
//!   the transcript and usage whatever the [`StopReason`]. It can be
//!   stored and resumed elsewhere.
//! - [`agent`]: the [`Agent`] that does the IO (model calls, concurrent
//!   tool rounds, [`Hook`]s, [`Event`]s, cancellation, wall clock), and
//!   [`Task`], a task with the conversation it continues.
//! - [`budget`], [`outcome`], [`event`], [`hook`], [`trace`] (JSONL traces
//!   and replay), [`reasoning`] (`<think>` blocks split off a reply),
//!   [`harmony`] (gpt-oss's channels, read from a reply).
//! - With the `testing` feature: `testing::ScriptedModel` and
//!   `testing::TestTransport`, for tests.
//!
//! ```
//! use agent_core::testing::{ScriptedModel, TestTransport};
//! use agent_core::{Agent, Budget, StopReason, Toolbox, ToolCall, ToolError, ToolOutput, ToolSpec};
//! use serde_json::json;
//!
//! struct Adder;
//! #[async_trait::async_trait]
//! impl Toolbox for Adder {
//!     fn specs(&self) -> Vec<ToolSpec> {
//!         vec![ToolSpec { name: "add".into(), description: "a+b".into(),
//!                         parameters: json!({"type": "object"}) }]
//!     }
//!     async fn call(&self, call: &ToolCall) -> Result<ToolOutput, ToolError> {
//!         let a = call.arguments["a"].as_i64().unwrap_or(0);
//!         let b = call.arguments["b"].as_i64().unwrap_or(0);
//!         Ok(ToolOutput::new((a + b).to_string()))
//!     }
//! }
//!
//! let model = ScriptedModel::new()
//!     .call("c1", "add", json!({"a": 2, "b": 3}))
//!     .text("5");
//! let agent = Agent::builder()
//!     .model(model)
//!     .transport(TestTransport)
//!     .toolbox(Adder)
//!     .budget(Budget { max_steps: 5, ..Budget::default() })
//!     .build()
//!     .unwrap();
//! # let rt = tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap();
//! # rt.block_on(async {
//! let outcome = agent.run("2 + 3?").await;
//! assert_eq!(outcome.stop_reason, StopReason::FinalAnswer);
//! assert_eq!(outcome.answer.as_deref(), Some("5"));
//! assert_eq!((outcome.steps, outcome.tool_calls), (2, 1));
//! # });
//! ```

pub mod agent;
pub mod budget;
mod canonical;
pub mod equation;
pub mod event;
pub mod family_calls;
pub mod harmony;
pub mod hook;
pub mod kimi;
pub mod message;
pub mod model;
pub mod numerals;
pub mod outcome;
pub mod python_calls;
pub mod reasoning;
pub mod run;
pub mod script;
pub mod tool;
pub mod tool_name;
pub mod trace;
pub mod transport;
pub mod typos;

#[cfg(feature = "testing")]
pub mod testing;

pub use agent::{Agent, Task};
pub use budget::Budget;
pub use event::Event;
pub use hook::{Hook, HookAction};
pub use message::{Completion, CompletionRequest, Message, ToolCall, ToolSpec};
pub use model::{Complete, ModelError};
pub use outcome::{Outcome, StopReason};
pub use tool::{Tool, ToolError, ToolOutput, Toolbox};
pub use tool_name::resolve_tool_name;
pub use transport::{Findings, Transport};
