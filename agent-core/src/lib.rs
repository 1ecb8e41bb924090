//! # agent-core
//!
//! The ReAct loop of agentloop, written once for every transport.
//!
//! - The **message model** ([`Message`], [`ToolCall`], [`CompletionRequest`],
//!   [`Completion`], [`Usage`]) and the **traits** a run is made of:
//!   [`Complete`] (the model), [`Tool`] and [`Toolbox`] (the tools) and
//!   [`Transport`] (how the run talks to the model: text ReAct or native
//!   tool calls).
//! - [`Run`], a sans-IO state machine: [`Run::next_step`] says what to do
//!   ([`Step::CallModel`], [`Step::CallTools`], [`Step::Done`]); the caller
//!   feeds back completions and observations. It checks the [`Budget`] and
//!   ends with an [`Outcome`] that always keeps the transcript and usage,
//!   whatever the [`StopReason`]. It is serializable, so a run paused before
//!   its tool calls can be stored and resumed elsewhere.
//! - [`Agent`], the driver that does the IO: model calls (optionally
//!   streamed), concurrent tool rounds in call order, [`Hook`]s,
//!   [`Event`]s, cancellation and the wall clock.
//! - [`TraceWriter`] writes a JSONL trace; [`ReplayModel`] replays one.
//! - With the `testing` feature: [`testing::ScriptedModel`] and
//!   [`testing::TestTransport`].
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

mod agent;
mod budget;
mod canonical;
mod event;
mod hook;
mod message;
mod model;
mod outcome;
mod replay;
mod run;
mod tool;
mod trace;
mod transport;

#[cfg(feature = "testing")]
pub mod testing;

pub use agent::{
    Agent, AgentBuilder, AgentError, Progress, RunControl, RunStream, StreamItem, panic_message,
};
pub use budget::{Budget, BudgetError, BytesPerToken, Estimator, HistoryWindow, TokenEstimator};
pub use canonical::write_canonical;
pub use event::{Event, EventSink};
pub use hook::{FnHook, Hook, HookAction};
pub use message::{
    Completion, CompletionRequest, FinishReason, Message, Role, ToolCall, ToolChoice, ToolSpec,
    Usage,
};
pub use model::{
    Complete, CompletionAccumulator, CompletionStream, ModelError, StreamDelta,
    completion_to_deltas, parse_arguments,
};
pub use outcome::{Outcome, StopReason};
pub use replay::ReplayModel;
pub use run::{RUN_FORMAT_VERSION, RequestOptions, Run, RunError, Step, TurnKind, TurnReport};
pub use tokio_util::sync::CancellationToken;
pub use tool::{Observation, Tool, ToolError, ToolErrorKind, ToolOutput, Toolbox};
pub use trace::{TRACE_FORMAT_VERSION, TraceError, TraceRecord, TraceWriter, read_trace};
pub use transport::{Decision, StreamWatcher, Transport, Turn};
