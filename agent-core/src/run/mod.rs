//! The sans-IO [`Run`]: one ReAct run as a state machine. This module owns
//! the run's configuration ([`RunConfig`]), its public face (what to do
//! next, what it has done) and its storage format. The transitions are in
//! `machine`, round planning in `plan`, the request window in `window`.
//!
//! A run performs no IO and reads no clock: the caller passes the time in
//! (milliseconds since any fixed origin, e.g. the Unix epoch). It knows its
//! transport and token estimator from the start. It serializes with a
//! format version and the id of its transport, so a run paused before its
//! tool calls can be stored and resumed in another process, with the same
//! transport only.

mod answer;
mod arithmetic;
mod asked_words;
mod checks;
mod column_call;
mod decimals;
mod echo;
mod error;
mod fed_back;
mod grounding;
mod gutter;
mod head_work;
mod look_up;
mod machine;
mod miscopy;
mod named;
mod persist;
mod plan;
mod planned;
mod progress;
mod ratio;
mod reasons;
mod runaway;
mod set_aside;
mod units;
mod unmentioned;
mod window;

use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::budget::{Budget, Estimator};
use crate::message::{CompletionRequest, Message, Role, ToolCall, ToolSpec, Usage};
use crate::outcome::{Outcome, StopReason};
use crate::transport::Transport;

pub use error::RunError;
use plan::CallPlan;
use progress::ToolProgress;

/// The serialization format of [`Run`] this build reads and writes.
pub const RUN_FORMAT_VERSION: u32 = 2;

/// Generation options sent with every request of a run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RequestOptions {
    /// Cap on generated tokens per request.
    pub max_tokens: Option<u32>,
    /// Sampling temperature.
    pub temperature: Option<f32>,
}

/// Everything a run is made with, besides its task.
#[derive(Debug, Clone)]
pub struct RunConfig {
    /// How the run talks to the model.
    pub transport: Arc<dyn Transport>,
    /// The tools offered.
    pub tools: Vec<ToolSpec>,
    /// The limits.
    pub budget: Budget,
    /// Generation options.
    pub options: RequestOptions,
    /// How request sizes are estimated before sending.
    pub estimator: Estimator,
    /// The tools whose numeric arguments must come from the conversation
    /// ([`Budget::ground_numbers`]): the agent takes them from its toolbox.
    pub grounded_tools: Vec<String>,
    /// What the model should know before its first step, written after
    /// the task in the opening message (the agent takes it from its
    /// toolbox, [`Toolbox::context`](crate::Toolbox::context)). Checks that
    /// read the question read the task alone.
    pub context: Option<String>,
}

impl RunConfig {
    /// A configuration with this transport, no tools and defaults for the rest.
    pub fn new(transport: impl Transport + 'static) -> Self {
        Self {
            transport: Arc::new(transport),
            tools: Vec::new(),
            budget: Budget::default(),
            options: RequestOptions::default(),
            estimator: Estimator::default(),
            grounded_tools: Vec::new(),
            context: None,
        }
    }
}

/// What the caller must do next.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// Send this request to the model, then call [`Run::model_turn`] or
    /// [`Run::model_error`].
    CallModel(CompletionRequest),
    /// Run these calls (in this order), then call [`Run::tool_results`]
    /// with one observation per call, in the same order.
    CallTools(Arc<[ToolCall]>),
    /// The run is over.
    Done(Outcome),
}

/// Where a run is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "phase", rename_all = "snake_case")]
enum Phase {
    Ready,
    /// A request was issued. `answer_turn` holds the limit being answered
    /// on a forced answer turn; `compute` when that turn may still call
    /// the computing tools (see `answer`).
    AwaitingModel {
        answer_turn: Option<StopReason>,
        #[serde(default)]
        compute: bool,
    },
    AwaitingTools {
        calls: Arc<[ToolCall]>,
        plans: Vec<CallPlan>,
    },
    /// A limit was reached; `next_step` decides on an answer turn.
    Limit {
        reason: StopReason,
    },
    Done {
        reason: StopReason,
    },
    Finished,
}

/// A request whose prompt size the server reported.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
struct PromptAnchor {
    prompt_tokens: u64,
    /// Transcript length when it was built.
    request_len: usize,
    /// Window start when it was built (a trim invalidates the anchor).
    window_start: usize,
}

/// The serializable part of a run.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct State {
    format_version: u32,
    /// The id of the transport the run is made with.
    transport: String,
    task: String,
    /// What the toolbox gave the model after the task
    /// ([`RunConfig::context`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    context: Option<String>,
    budget: Budget,
    options: RequestOptions,
    tools: Arc<[ToolSpec]>,
    transcript: Arc<Vec<Message>>,
    /// Estimated tokens of each transcript message.
    estimates: Vec<u64>,
    /// System messages, always kept in a request.
    head: usize,
    /// The task message, always kept in a request.
    task_index: usize,
    /// First transcript index after the head that requests still include.
    window_start: usize,
    head_tokens: u64,
    /// Tokens of `transcript[window_start..]`.
    window_tokens: u64,
    tools_tokens: u64,
    /// Whether the last request offered the tools natively.
    tools_in_request: bool,
    last_request_tokens: u64,
    /// Transcript length when the pending request was built.
    request_len: usize,
    /// The server's prompt count for the last request that reported one.
    prompt_anchor: Option<PromptAnchor>,
    usage: Usage,
    steps: u32,
    tool_calls: u32,
    consecutive_malformed: u32,
    call_counts: foldhash::HashMap<String, u32>,
    used_ids: foldhash::HashSet<String>,
    answer_turn_used: bool,
    /// The answer turn was asked once more (see `retry_answer_turn`).
    #[serde(default)]
    answer_retry_used: bool,
    /// An answer-turn reply had numbers no tool gave: the answers after
    /// it may only write the conversation's numbers (see
    /// [`RequestParts::answer_numbers`](crate::transport::RequestParts)).
    #[serde(default)]
    answer_numbers_bound: bool,
    /// The answer turn's compute round (see `answer`).
    #[serde(default)]
    answer_compute: answer::AnswerCompute,
    /// What the loop wrote to the model, to tell an echo from an answer.
    #[serde(default)]
    loop_words: echo::LoopWords,
    #[serde(default)]
    progress: ToolProgress,
    /// See [`RunConfig::grounded_tools`].
    #[serde(default)]
    grounded_tools: Vec<String>,
    #[serde(default)]
    grounding: grounding::Grounding,
    /// The question's code-form names no result has shown yet.
    #[serde(default)]
    named: named::NamedInQuestion,
    /// The question's names (`Eiffel Tower`) no result has mentioned yet.
    #[serde(default)]
    unmentioned: unmentioned::Unmentioned,
    /// The decimals the question asks its number to (see `decimals`).
    #[serde(default)]
    decimals: decimals::DecimalsAsked,
    /// A ratio the question asks for (see `ratio`).
    #[serde(default)]
    ratio: ratio::RatioAsked,
    /// A unit the question asks its answer in (see `units`).
    #[serde(default)]
    units: units::UnitAsked,
    /// The model's plan to compute, and whether it was kept.
    #[serde(default)]
    planned: planned::ComputePlan,
    /// Whether the model, which computed with numbers from memory, was
    /// made to look them up.
    #[serde(default)]
    look_up: look_up::LookUpFirst,
    answer: Option<String>,
    started_ms: u64,
    last_ms: u64,
    phase: Phase,
}

/// One ReAct run as a state machine. See the module docs.
///
/// ```
/// use agent_core::run::{Run, RunConfig, Step};
/// use agent_core::testing::TestTransport;
/// use agent_core::{Completion, StopReason};
///
/// let mut run = Run::new("say hi", Vec::new(), RunConfig::new(TestTransport), 0).unwrap();
/// let Step::CallModel(request) = run.next_step(0).unwrap() else { unreachable!() };
/// assert_eq!(request.messages.len(), 2);
/// run.model_turn(Completion::text("hi"), 5).unwrap();
/// let Step::Done(outcome) = run.next_step(5).unwrap() else { unreachable!() };
/// assert_eq!(outcome.stop_reason, StopReason::FinalAnswer);
/// assert_eq!(outcome.answer.as_deref(), Some("hi"));
/// ```
#[derive(Clone)]
pub struct Run {
    state: State,
    transport: Arc<dyn Transport>,
    estimator: Estimator,
}

impl fmt::Debug for Run {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Run")
            .field("transport", &self.state.transport)
            .field("task", &self.state.task)
            .field("steps", &self.state.steps)
            .field("tool_calls", &self.state.tool_calls)
            .field("messages", &self.state.transcript.len())
            .field("phase", &self.state.phase)
            .finish_non_exhaustive()
    }
}

impl Run {
    /// Starts a run of `task` at time `now_ms`, continuing `history` (the
    /// earlier messages of a conversation, without a system prompt; leading
    /// system messages are dropped).
    pub fn new(
        task: impl Into<String>,
        history: Vec<Message>,
        config: RunConfig,
        now_ms: u64,
    ) -> Result<Self, RunError> {
        config.budget.validate()?;
        Ok(Self::create(task.into(), history, config, now_ms))
    }

    /// [`new`](Run::new) for a budget already validated.
    pub(crate) fn create(
        task: String,
        history: Vec<Message>,
        config: RunConfig,
        now_ms: u64,
    ) -> Self {
        let RunConfig {
            transport,
            tools,
            budget,
            options,
            estimator,
            grounded_tools,
            context,
        } = config;
        let context = context
            .map(|c| c.trim().to_string())
            .filter(|c| !c.is_empty());
        let opening = match &context {
            Some(context) => transport.opening(&format!("{task}\n\n{context}"), &tools),
            None => transport.opening(&task, &tools),
        };
        let named = if budget.ground_names && !tools.is_empty() {
            named::NamedInQuestion::of(&task)
        } else {
            named::NamedInQuestion::default()
        };
        let unmentioned = unmentioned::Unmentioned::of(&task);
        let ratio = ratio::RatioAsked::of(&task);
        let units = units::UnitAsked::of(&task);
        let decimals = decimals::DecimalsAsked::of(&task);
        let tools_tokens = tools
            .iter()
            .map(|t| {
                estimator.estimate(&t.name)
                    + estimator.estimate(&t.description)
                    + window::json_len(&t.parameters).div_ceil(4)
            })
            .sum();
        let history_len = history.len();
        let mut run = Self {
            state: State {
                format_version: RUN_FORMAT_VERSION,
                transport: transport.id(),
                task,
                context,
                budget,
                options,
                tools: Arc::from(tools),
                transcript: Arc::new(Vec::with_capacity(16 + history_len)),
                estimates: Vec::with_capacity(16 + history_len),
                head: 0,
                task_index: 0,
                window_start: 0,
                head_tokens: 0,
                window_tokens: 0,
                tools_tokens,
                tools_in_request: false,
                last_request_tokens: 0,
                request_len: 0,
                prompt_anchor: None,
                usage: Usage::default(),
                steps: 0,
                tool_calls: 0,
                consecutive_malformed: 0,
                call_counts: foldhash::HashMap::default(),
                used_ids: foldhash::HashSet::default(),
                answer_turn_used: false,
                answer_retry_used: false,
                answer_numbers_bound: false,
                answer_compute: answer::AnswerCompute::NotOffered,
                loop_words: echo::LoopWords::default(),
                progress: ToolProgress::default(),
                grounded_tools,
                grounding: grounding::Grounding::default(),
                named,
                unmentioned,
                ratio,
                units,
                decimals,
                planned: planned::ComputePlan::default(),
                look_up: look_up::LookUpFirst::default(),
                answer: None,
                started_ms: now_ms,
                last_ms: now_ms,
                phase: Phase::Ready,
            },
            transport,
            estimator,
        };
        for message in opening.system {
            run.push(message);
        }
        run.state.head = run.state.transcript.len();
        run.state.head_tokens = run.state.window_tokens;
        run.state.window_tokens = 0;
        run.state.window_start = run.state.head;
        let history = history.into_iter().skip_while(|m| m.role == Role::System);
        for message in history {
            run.state.progress.found_something = true;
            run.push(message);
        }
        run.state.task_index = run.state.transcript.len();
        run.push(opening.task);
        if run.state.budget.ground_numbers {
            let Run { state, .. } = &mut run;
            let (opening, rest) = state.transcript.split_at(state.head);
            let (history, task) = rest.split_at(state.task_index - state.head);
            state.grounding.learn_how_numbers_are_written(task);
            state.grounding.learn_messages(opening);
            state.grounding.learn_history(history);
            state.grounding.learn_question(task);
        }
        run
    }

    /// The task.
    pub fn task(&self) -> &str {
        &self.state.task
    }

    /// What the toolbox gave the model after the task, trimmed
    /// ([`RunConfig::context`]); `None` when it gave nothing.
    pub fn context(&self) -> Option<&str> {
        self.state.context.as_deref()
    }

    /// The id of the transport the run is made with.
    pub fn transport_id(&self) -> &str {
        &self.state.transport
    }

    /// The budget.
    pub fn budget(&self) -> &Budget {
        &self.state.budget
    }

    /// The transcript so far: system prompt, earlier conversation, task and
    /// every turn since.
    pub fn transcript(&self) -> &[Message] {
        &self.state.transcript
    }

    /// The earlier conversation the run continues (empty for a new one).
    pub fn history(&self) -> &[Message] {
        &self.state.transcript[self.state.head..self.state.task_index]
    }

    /// Usage so far.
    pub fn usage(&self) -> Usage {
        self.state.usage
    }

    /// Model calls made so far.
    pub fn steps(&self) -> u32 {
        self.state.steps
    }

    /// Tool calls executed so far (denied calls do not count).
    pub fn tool_calls(&self) -> u32 {
        self.state.tool_calls
    }

    /// The tool specs of the run.
    pub fn tools(&self) -> &[ToolSpec] {
        &self.state.tools
    }

    /// When the run started (as passed in).
    pub fn started_ms(&self) -> u64 {
        self.state.started_ms
    }

    /// Time left on the wall-clock budget at `now_ms`, if there is one.
    pub fn remaining_ms(&self, now_ms: u64) -> Option<u64> {
        let limit = u64::try_from(self.state.budget.timeout?.as_millis()).unwrap_or(u64::MAX);
        Some(limit.saturating_sub(now_ms.saturating_sub(self.state.started_ms)))
    }

    /// `true` once the run has an outcome.
    pub fn is_done(&self) -> bool {
        matches!(self.state.phase, Phase::Done { .. } | Phase::Finished)
    }

    /// `true` while the run waits for tool results (a safe point to pause).
    pub fn awaiting_tools(&self) -> bool {
        matches!(self.state.phase, Phase::AwaitingTools { .. })
    }

    /// `true` while the pending request is a forced answer turn.
    pub fn on_answer_turn(&self) -> bool {
        matches!(
            self.state.phase,
            Phase::AwaitingModel {
                answer_turn: Some(_),
                ..
            }
        )
    }

    fn unexpected(&self, got: &'static str) -> RunError {
        let expected = match self.state.phase {
            Phase::Ready | Phase::Limit { .. } => "a call to next_step",
            Phase::AwaitingModel { .. } => "a model turn or model error",
            Phase::AwaitingTools { .. } => "tool results",
            Phase::Done { .. } => "a call to next_step (the run is done)",
            Phase::Finished => "nothing (the run is finished)",
        };
        RunError::UnexpectedInput { expected, got }
    }
}
