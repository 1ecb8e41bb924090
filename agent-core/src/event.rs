//! Events of a run, in the order they happen, and the [`EventSink`] trait
//! that receives them (the trace writer, the CLI's live view, streams).

use serde::{Deserialize, Serialize};

use crate::message::{Completion, ToolCall, Usage};
use crate::outcome::StopReason;
use crate::tool::{Observation, ToolErrorKind};

/// Something that happened during a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Event {
    /// The run began (not emitted again when a stored run is resumed).
    RunStarted {
        /// The task.
        task: String,
        /// What the toolbox gave the model after the task (the file
        /// tools' overview), when it gave something.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        context: Option<String>,
        /// The earlier conversation the run continues.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        history: Vec<crate::message::Message>,
        /// The transport's name.
        transport: String,
        /// Names of the tools offered.
        tools: Vec<String>,
        /// The run's budget (so a trace can be replayed under the same limits).
        #[serde(default)]
        budget: crate::Budget,
    },
    /// A request is about to be sent to the model.
    ModelRequestStarted {
        /// The step number (1-based).
        step: u32,
        /// Messages in the request.
        messages: usize,
        /// A forced answer turn: the model may only answer.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        answer_only: bool,
        /// The request asks for grammar-constrained decoding.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        constrained: bool,
        /// What the loop told the model since its last reply, as the model
        /// reads it: the system prompt and task on the first request, then
        /// tool results with the loop's notes, calls it did not run and
        /// why, error messages for malformed turns and answer-turn
        /// requests. (`Observation` events hold tool results as the tools
        /// returned them.)
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        told: Vec<crate::message::Message>,
    },
    /// A piece of streamed text.
    TextDelta {
        /// The text.
        text: String,
    },
    /// The model answered (the completion as the loop used it).
    ModelResponded {
        /// The step number.
        step: u32,
        /// The completion.
        completion: Completion,
        /// How long the call took.
        duration_ms: u64,
    },
    /// Something the user should know about the run that is not an error
    /// (e.g. a server that ignores grammars, so requests go unconstrained).
    Notice {
        /// One line.
        message: String,
    },
    /// The model's reasoning for this turn.
    Thought {
        /// The text.
        text: String,
    },
    /// A tool call starts (with arguments as edited by hooks).
    ToolCallStarted {
        /// The call.
        call: ToolCall,
    },
    /// A tool call ended.
    ToolCallFinished {
        /// The call id.
        call_id: String,
        /// The tool.
        tool: String,
        /// How long it took.
        duration_ms: u64,
        /// The error kind, when it failed.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        error: Option<ToolErrorKind>,
        /// Operator-only detail of a failure (full source chain). Never shown to the model.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        detail: Option<String>,
    },
    /// What the model will read for a call.
    Observation {
        /// The observation.
        observation: Observation,
    },
    /// The model's output could not be understood.
    Malformed {
        /// Why.
        reason: String,
    },
    /// The model gave its final answer.
    FinalAnswer {
        /// The answer.
        answer: String,
    },
    /// The run stopped.
    Stopped {
        /// Why.
        reason: StopReason,
        /// The answer came on a forced answer turn.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        forced_answer: bool,
        /// The answer's numbers that nothing the model was given holds
        /// ([`Outcome::ungrounded_numbers`](crate::Outcome)).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        ungrounded_numbers: Vec<String>,
        /// Model calls made.
        steps: u32,
        /// Tool calls executed.
        tool_calls: u32,
        /// Tokens used.
        usage: Usage,
        /// Run time in milliseconds.
        elapsed_ms: u64,
    },
}

/// Receives events as they happen. Implementations must be quick; they
/// run inline in the loop. A sink that panics is reported and skipped; the
/// run goes on.
pub trait EventSink: Send + Sync {
    /// Called once per event, in order.
    fn emit(&self, event: &Event);
}

impl<T: EventSink + ?Sized> EventSink for std::sync::Arc<T> {
    fn emit(&self, event: &Event) {
        (**self).emit(event)
    }
}

/// A sink made from a closure.
///
/// ```
/// use agent_core::event::{Event, EventSink, FnSink};
///
/// let sink = FnSink(|event: &Event| println!("{event:?}"));
/// sink.emit(&Event::TextDelta { text: "hi".into() });
/// ```
pub struct FnSink<F>(pub F);

impl<F: Fn(&Event) + Send + Sync> EventSink for FnSink<F> {
    fn emit(&self, event: &Event) {
        (self.0)(event)
    }
}

impl<F> std::fmt::Debug for FnSink<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("FnSink")
    }
}
