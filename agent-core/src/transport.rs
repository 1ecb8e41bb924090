//! The [`Transport`] trait: how a run talks to a model. The loop never
//! knows which transport it runs; `agent-text` and `agent-native`
//! implement it. A transport owns every decision about what goes into a
//! request: the prompt, whether tools are offered natively, the tool
//! choice, stop sequences, and what an answer-only turn looks like.

use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::message::{Completion, CompletionRequest, Message, ToolCall, ToolSpec};
use crate::tool::Observation;

/// What a forced answer turn's answer opens with, in a transport that
/// constrains decoding, when no call of the run found anything
/// ([`RequestParts::found_nothing`]).
pub const REFUSAL_OPENING: &str = "I cannot find";

/// What the run's tool calls found, as a forced answer turn tells the
/// model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Findings {
    /// Some call succeeded with a result (or the run continues a history).
    Something,
    /// Every call failed, was not run, or found nothing
    /// ([`ToolOutput::no_results`](crate::ToolOutput::no_results)).
    Nothing,
}

/// What the model decided in one turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "value", rename_all = "snake_case")]
pub enum Decision {
    /// The run is over: this is the answer.
    Final(String),
    /// Run these tool calls, then ask again. Shared, so the run can keep
    /// them for the round without copying their arguments.
    Act(Arc<[ToolCall]>),
    /// The output could not be understood; the reason is shown to the model.
    Malformed(String),
}

/// One model turn as understood: the reasoning, when the transport can
/// tell it apart, and the decision.
#[derive(Debug, Clone, PartialEq)]
pub struct Turn {
    /// The model's reasoning.
    pub thought: Option<String>,
    /// What to do next.
    pub decision: Decision,
}

/// What [`Transport::interpret`] makes of a completion: the turn, and the
/// assistant message to record (for the text transport, the output cut
/// after its first complete step).
#[derive(Debug, Clone, PartialEq)]
pub struct Interpretation {
    /// The turn.
    pub turn: Turn,
    /// The message for the transcript.
    pub message: Message,
}

/// The messages that open a run: the system messages come first, then any
/// earlier conversation, then the task.
#[derive(Debug, Clone, PartialEq)]
pub struct Opening {
    /// System prompt messages (may be empty).
    pub system: Vec<Message>,
    /// The message that carries the task.
    pub task: Message,
}

/// What a request is made of, as the run hands it to [`Transport::render`].
#[derive(Debug, Clone, Copy)]
pub struct RequestParts<'a> {
    /// The conversation to send (already windowed).
    pub messages: &'a Arc<Vec<Message>>,
    /// The tools this request offers: the run's tools, less one set
    /// aside for this turn ([`Budget::set_aside_failing_tool`](crate::Budget)).
    pub tools: &'a Arc<[ToolSpec]>,
    /// This turn may only answer: no tool calls (a forced answer turn),
    /// except to the tools in `answer_tools`.
    pub answer_only: bool,
    /// On an answer turn, the tools the model may still call: the run's
    /// computing tools, when its answer held a number that no tool gave
    /// (it did a sum in its head). Empty otherwise.
    pub answer_tools: &'a [ToolSpec],
    /// This turn must call one of these tools, with no final answer: the
    /// computing tools when the model said it would compute and answered
    /// without computing
    /// ([`Budget::compute_when_planned`](crate::Budget)); the tools that
    /// find things when it computed with numbers from memory
    /// ([`Budget::ground_numbers`](crate::Budget)). A transport that
    /// constrains decoding leaves the answer out of the grammar; one with
    /// native tools requires a call. Empty otherwise.
    pub must_call: &'a [ToolSpec],
    /// This answer turn asks a second time, because the first reply was
    /// no answer (often a tool call written out as text): a transport may
    /// then leave out what invited the call, such as the tool list.
    pub answer_retry: bool,
    /// On a forced answer turn, once its answer had a number no tool gave
    /// (see [`Budget::ground_numbers`](crate::Budget)):
    /// the numbers the conversation holds (the system prompt, the task,
    /// the tool results), as written there and without separators, but
    /// whole numbers under a hundred. Also on the turn right after a
    /// computation the run made the model do
    /// ([`Budget::compute_when_planned`](crate::Budget)): the numbers it
    /// computed and the question's. A transport that constrains decoding
    /// may let the thought and the answer write only these, so the model
    /// cannot write a made-up or stale number again (that turn may still
    /// call a tool). `None` otherwise.
    pub answer_numbers: Option<&'a [String]>,
    /// On a forced answer turn that only answers: no call of the run
    /// found anything ([`Findings::Nothing`]), and the request asks the
    /// model to say that it cannot find the answer. A transport that
    /// constrains decoding may make the answer open with that: a small
    /// model asked in words answers from memory instead. `false`
    /// otherwise, and always on a compute round (`answer_tools` not
    /// empty).
    pub found_nothing: bool,
    /// Cap on generated tokens.
    pub max_tokens: Option<u32>,
    /// Sampling temperature.
    pub temperature: Option<f32>,
}

impl RequestParts<'_> {
    /// A request of these messages with no tools offered natively, no stop
    /// sequences and the run's options: the base every transport starts from.
    pub fn plain(&self) -> CompletionRequest {
        CompletionRequest {
            messages: Arc::clone(self.messages),
            tools: crate::message::no_tools(),
            tool_choice: crate::message::ToolChoice::Auto,
            stop: Vec::new(),
            max_tokens: self.max_tokens,
            temperature: self.temperature,
            constraint: None,
        }
    }
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
pub trait Transport: Send + Sync + fmt::Debug {
    /// A short name (`text`, `native`) for events and traces.
    fn name(&self) -> &str;

    /// What a stored run records of the transport: its name and variant
    /// (the text transport's dialect). Resuming a run with a transport of
    /// another id is refused.
    fn id(&self) -> String {
        self.name().to_string()
    }

    /// The system messages and the task message of a run.
    fn opening(&self, task: &str, tools: &[ToolSpec]) -> Opening;

    /// The request for these parts: this is where the transport decides
    /// whether tools are offered natively, the tool choice, stop sequences
    /// and how an answer-only turn is constrained.
    fn render(&self, parts: RequestParts<'_>) -> CompletionRequest;

    /// Understands a completion. `tools` are the run's tools (to tell a
    /// tool name from prose, or to say which names exist).
    fn interpret(&self, completion: Completion, tools: &[ToolSpec]) -> Interpretation;

    /// Renders the observations of one round (in call order) as messages.
    fn observations(&self, observations: &[Observation]) -> Vec<Message>;

    /// The messages telling the model its last output was malformed, and
    /// what a valid reply looks like with these tools.
    fn malformed(&self, reason: &str, tools: &[ToolSpec]) -> Vec<Message>;

    /// The message that asks for the answer to `task` on a forced answer
    /// turn, given what the run's calls `found`. The default restates the
    /// task first (after a few tool results a small model loses track of
    /// what was asked). When some call found something it names no
    /// refusal: measured on a 1.5B model, a refusal sentence in this
    /// message is what it copies when the answer is right above it. It
    /// asks the model to say so when the results do not answer the
    /// question, with no sentence to copy: on the 1.5B model's public
    /// native run that took 43 of 64 to 47 (a made-up sum became the
    /// computed one, a half-done answer the whole one), and no answer
    /// turned into a refusal. When
    /// no call found anything, it says so, and that the answer then is
    /// that it cannot be found: otherwise a small model answers from
    /// memory. It adds no "unless the results show it": a small model
    /// copies that clause as its reasoning and then answers from memory.
    /// In that case the task comes after the statement that nothing was
    /// found, not first: a 1.5B model given the question first answered
    /// 5 of 9 such turns from memory, and none with this order.
    fn answer_request(&self, task: &str, found: Findings) -> Message {
        match found {
            Findings::Something => Message::user(format!(
                "{task}\nAnswer from the tool results above, without calling tools. If they do not answer the question, say so."
            )),
            Findings::Nothing => Message::user(format!(
                "The tool calls above found nothing about this question: {task}\nReply without calling tools: say that you cannot find it."
            )),
        }
    }

    /// The message that asks once more on a forced answer turn whose reply
    /// was no answer, saying why (`reason`).
    fn answer_retry(&self, reason: &str, task: &str, found: Findings) -> Message {
        let request = self.answer_request(task, found);
        Message::user(format!(
            "Error: {}. {}",
            reason.trim_end_matches('.'),
            request.content
        ))
    }

    /// A watcher for streamed text, when the transport can tell early that
    /// a step is complete.
    fn stream_watcher(&self) -> Option<Box<dyn StreamWatcher>> {
        None
    }
}

impl<T: Transport + ?Sized> Transport for Arc<T> {
    fn name(&self) -> &str {
        (**self).name()
    }
    fn id(&self) -> String {
        (**self).id()
    }
    fn opening(&self, task: &str, tools: &[ToolSpec]) -> Opening {
        (**self).opening(task, tools)
    }
    fn render(&self, parts: RequestParts<'_>) -> CompletionRequest {
        (**self).render(parts)
    }
    fn interpret(&self, completion: Completion, tools: &[ToolSpec]) -> Interpretation {
        (**self).interpret(completion, tools)
    }
    fn observations(&self, observations: &[Observation]) -> Vec<Message> {
        (**self).observations(observations)
    }
    fn malformed(&self, reason: &str, tools: &[ToolSpec]) -> Vec<Message> {
        (**self).malformed(reason, tools)
    }
    fn answer_request(&self, task: &str, found: Findings) -> Message {
        (**self).answer_request(task, found)
    }
    fn answer_retry(&self, reason: &str, task: &str, found: Findings) -> Message {
        (**self).answer_retry(reason, task, found)
    }
    fn stream_watcher(&self) -> Option<Box<dyn StreamWatcher>> {
        (**self).stream_watcher()
    }
}
