//! The [`Transport`] trait: how a run talks to a model. The loop never
//! knows which transport it runs; `agent-text` and `agent-native` implement it.

use serde::{Deserialize, Serialize};

use crate::message::{Completion, CompletionRequest, Message, ToolCall, ToolSpec};
use crate::tool::Observation;

/// What the model decided in one turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "value", rename_all = "snake_case")]
pub enum Decision {
    /// The run is over: this is the answer.
    Final(String),
    /// Run these tool calls, then ask again.
    Act(Vec<ToolCall>),
    /// The output could not be understood; the reason is shown to the model.
    Malformed(String),
}

/// A model turn as a transport understood it.
#[derive(Debug, Clone, PartialEq)]
pub struct Turn {
    /// The model's reasoning, when the transport can tell it apart.
    pub thought: Option<String>,
    /// What to do next.
    pub decision: Decision,
    /// The assistant message to record in the transcript (for the text
    /// transport: the output cut after its first complete step).
    pub message: Message,
}

/// Watches a streamed turn and says when the step is complete, so the
/// driver can stop reading (and paying for) the rest.
pub trait StreamWatcher: Send {
    /// Feeds the next text delta. Returns `Some(len)` once the step is
    /// complete: the length in bytes of the whole text received so far that
    /// belongs to the step. The driver then drops the stream.
    fn push(&mut self, delta: &str) -> Option<usize>;
}

/// How a run talks to a model: renders requests and interprets answers.
pub trait Transport: Send + Sync {
    /// A short name (`text`, `native`) for events and traces.
    fn name(&self) -> &str;

    /// The messages that open a run: the system prompt and the task.
    /// They are kept in every request, whatever the history window does.
    fn opening(&self, task: &str, tools: &[ToolSpec]) -> Vec<Message>;

    /// Adjusts a request built from the run's messages and tool specs
    /// (e.g. removes native tools and adds stop sequences).
    fn prepare(&self, request: &mut CompletionRequest);

    /// Understands a completion.
    fn interpret(&self, completion: Completion) -> Turn;

    /// Renders the observations of one round (in call order) as messages.
    fn observations(&self, observations: &[Observation]) -> Vec<Message>;

    /// The message telling the model its last output was malformed.
    fn malformed(&self, reason: &str) -> Vec<Message>;

    /// The message asking for a last answer when a budget ran out.
    fn final_answer_request(&self) -> Message {
        Message::user(
            "You have reached the limit of steps or tool calls. Do not call any more tools. \
             Give your final answer now with what you have.",
        )
    }

    /// A watcher for streamed text, when the transport can tell early that
    /// a step is complete.
    fn stream_watcher(&self) -> Option<Box<dyn StreamWatcher>> {
        None
    }
}
