//! The sans-IO [`Run`] state machine: decides what comes next, checks the
//! budgets and records the transcript. It performs no IO and reads no
//! clock: the caller passes the time in (milliseconds since any fixed
//! origin, e.g. the Unix epoch). It is serializable with a format version,
//! so a run paused before its tool calls can be stored and resumed in
//! another process.

use std::collections::HashMap;
use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize};

use crate::budget::{Budget, BudgetError, Estimator};
use crate::canonical::canonical_call_key;
use crate::message::{
    Completion, CompletionRequest, Message, Role, ToolCall, ToolChoice, ToolSpec, Usage,
};
use crate::model::ModelError;
use crate::outcome::{Outcome, StopReason};
use crate::tool::{Observation, ToolErrorKind};
use crate::transport::{Decision, Transport};

/// The serialization format of [`Run`] this build reads and writes.
pub const RUN_FORMAT_VERSION: u32 = 1;

/// Tokens added per message on top of its text estimate (role, separators).
const MESSAGE_OVERHEAD_TOKENS: u64 = 4;

/// Request options that are not part of the conversation.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RequestOptions {
    /// Cap on generated tokens per request.
    pub max_tokens: Option<u32>,
    /// Sampling temperature.
    pub temperature: Option<f32>,
    /// How the model may pick tools (native transports).
    pub tool_choice: ToolChoice,
}

/// What the caller must do next.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// Send this request to the model, then call [`Run::model_turn`] or
    /// [`Run::model_error`].
    CallModel(CompletionRequest),
    /// Run these calls (in this order), then call [`Run::tool_results`] with
    /// one observation per call, in the same order.
    CallTools(Vec<ToolCall>),
    /// The run is over.
    Done(Outcome),
}

/// Misuse of the state machine, or a stored run that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RunError {
    /// The budget cannot work.
    #[error("invalid budget: {0}")]
    Budget(#[from] BudgetError),
    /// A stored run of another format version.
    #[error("unsupported run format version {found} (this build reads version {supported})")]
    UnsupportedFormat {
        /// The version in the stored run.
        found: u32,
        /// [`RUN_FORMAT_VERSION`].
        supported: u32,
    },
    /// A stored run that is not valid JSON for a run.
    #[error("cannot read stored run: {0}")]
    Decode(String),
    /// An input that does not fit the current phase.
    #[error("the run expected {expected}, not {got}")]
    UnexpectedInput {
        /// What the run is waiting for.
        expected: &'static str,
        /// What it was given.
        got: &'static str,
    },
    /// Observations that do not answer the pending calls one to one.
    #[error("expected observations for calls {expected:?}, got {got:?}")]
    ObservationMismatch {
        /// Ids of the pending calls.
        expected: Vec<String>,
        /// Ids of the observations given.
        got: Vec<String>,
    },
    /// The outcome was already taken.
    #[error("the run is finished")]
    Finished,
}

/// What happens to one call of a round.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "plan", rename_all = "snake_case")]
enum CallPlan {
    Run,
    /// Runs, and its observation notes it repeats an earlier call.
    Repeat,
    /// Not run; this text is its observation.
    Skip {
        reason: String,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "phase", rename_all = "snake_case")]
enum Phase {
    Ready,
    /// A request was issued. `final_turn` holds the limit being answered.
    AwaitingModel {
        final_turn: Option<StopReason>,
    },
    AwaitingTools {
        calls: Vec<ToolCall>,
        plans: Vec<CallPlan>,
    },
    /// A limit was reached; `next_step` decides on the final-answer turn.
    Limit {
        reason: StopReason,
    },
    Done {
        reason: StopReason,
    },
    Finished,
}

/// A report of one interpreted model turn, for events.
#[derive(Debug, Clone, PartialEq)]
pub struct TurnReport {
    /// The model's reasoning, when the transport could tell.
    pub thought: Option<String>,
    /// What the turn was, after the run's checks (e.g. an empty action list is malformed).
    pub kind: TurnKind,
}

/// The kind of an interpreted turn.
#[derive(Debug, Clone, PartialEq)]
pub enum TurnKind {
    /// A final answer.
    Final(String),
    /// This many tool calls.
    Act(usize),
    /// Malformed output, with the reason.
    Malformed(String),
}

/// One ReAct run as a state machine. See the crate docs for the loop.
///
/// ```
/// use agent_core::testing::{ScriptedModel, TestTransport};
/// use agent_core::{Budget, Completion, Run, Step, StopReason};
///
/// let transport = TestTransport;
/// let mut run = Run::new("say hi", Budget::default(), &transport, vec![], 0).unwrap();
/// let Step::CallModel(request) = run.next_step(&transport, 0).unwrap() else { unreachable!() };
/// assert_eq!(request.messages.len(), 2);
/// run.model_turn(Completion::text("hi"), &transport, 5).unwrap();
/// let Step::Done(outcome) = run.next_step(&transport, 5).unwrap() else { unreachable!() };
/// assert_eq!(outcome.stop_reason, StopReason::FinalAnswer);
/// assert_eq!(outcome.answer.as_deref(), Some("hi"));
/// ```
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Run {
    #[serde(deserialize_with = "supported_version")]
    format_version: u32,
    task: String,
    budget: Budget,
    options: RequestOptions,
    tools: Arc<[ToolSpec]>,
    transcript: Arc<Vec<Message>>,
    /// Estimated tokens of each transcript message.
    estimates: Vec<u64>,
    /// Messages always kept in a request (system prompt and task).
    head: usize,
    /// First transcript index after the head that requests still include.
    window_start: usize,
    head_tokens: u64,
    window_tokens: u64,
    tools_tokens: u64,
    last_request_tokens: u64,
    usage: Usage,
    steps: u32,
    tool_calls: u32,
    consecutive_malformed: u32,
    call_counts: HashMap<String, u32>,
    final_turn_used: bool,
    answer: Option<String>,
    started_ms: u64,
    last_ms: u64,
    phase: Phase,
    #[serde(skip)]
    estimator: Estimator,
}

fn supported_version<'de, D: Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
    let found = u32::deserialize(d)?;
    if found == RUN_FORMAT_VERSION {
        Ok(found)
    } else {
        Err(serde::de::Error::custom(format!(
            "unsupported run format version {found} (this build reads version {RUN_FORMAT_VERSION})"
        )))
    }
}

impl Run {
    /// Starts a run of `task` with `tools`, at time `now_ms`.
    pub fn new(
        task: impl Into<String>,
        budget: Budget,
        transport: &dyn Transport,
        tools: Vec<ToolSpec>,
        now_ms: u64,
    ) -> Result<Self, RunError> {
        budget.validate()?;
        Ok(Self::create(task.into(), budget, transport, tools, now_ms))
    }

    /// [`new`](Run::new) for a budget already validated.
    pub(crate) fn create(
        task: String,
        budget: Budget,
        transport: &dyn Transport,
        tools: Vec<ToolSpec>,
        now_ms: u64,
    ) -> Self {
        let opening = transport.opening(&task, &tools);
        let estimator = Estimator::default();
        let tools_tokens = tools
            .iter()
            .map(|t| {
                estimator.0.estimate(&t.name)
                    + estimator.0.estimate(&t.description)
                    + estimator.0.estimate(&t.parameters.to_string())
            })
            .sum();
        let mut run = Self {
            format_version: RUN_FORMAT_VERSION,
            task,
            budget,
            options: RequestOptions::default(),
            tools: Arc::from(tools),
            transcript: Arc::new(Vec::with_capacity(16)),
            estimates: Vec::with_capacity(16),
            head: 0,
            window_start: 0,
            head_tokens: 0,
            window_tokens: 0,
            tools_tokens,
            last_request_tokens: 0,
            usage: Usage::default(),
            steps: 0,
            tool_calls: 0,
            consecutive_malformed: 0,
            call_counts: HashMap::new(),
            final_turn_used: false,
            answer: None,
            started_ms: now_ms,
            last_ms: now_ms,
            phase: Phase::Ready,
            estimator,
        };
        for message in opening {
            run.push(message);
        }
        run.head = run.transcript.len();
        run.window_start = run.head;
        run.head_tokens = run.window_tokens;
        run.window_tokens = 0;
        run
    }

    /// Sets the request options (max tokens, temperature, tool choice).
    pub fn with_options(mut self, options: RequestOptions) -> Self {
        self.options = options;
        self
    }

    /// Uses `estimator` for the token estimates of messages added from now
    /// on. A deserialized run uses the default until this is called.
    pub fn with_estimator(mut self, estimator: Estimator) -> Self {
        self.estimator = estimator;
        self
    }

    /// Serializes the run to JSON.
    pub fn to_json(&self) -> Result<String, RunError> {
        serde_json::to_string(self).map_err(|e| RunError::Decode(e.to_string()))
    }

    /// Reads a run stored by [`to_json`](Run::to_json), checking the format version first.
    pub fn from_json(json: &str) -> Result<Self, RunError> {
        #[derive(Deserialize)]
        struct Probe {
            format_version: Option<u32>,
        }
        let probe: Probe =
            serde_json::from_str(json).map_err(|e| RunError::Decode(e.to_string()))?;
        match probe.format_version {
            Some(RUN_FORMAT_VERSION) => {}
            Some(found) => {
                return Err(RunError::UnsupportedFormat {
                    found,
                    supported: RUN_FORMAT_VERSION,
                });
            }
            None => return Err(RunError::Decode("missing `format_version`".into())),
        }
        serde_json::from_str(json).map_err(|e| RunError::Decode(e.to_string()))
    }

    /// The task.
    pub fn task(&self) -> &str {
        &self.task
    }

    /// The budget.
    pub fn budget(&self) -> &Budget {
        &self.budget
    }

    /// The transcript so far.
    pub fn transcript(&self) -> &[Message] {
        &self.transcript
    }

    /// Usage so far.
    pub fn usage(&self) -> Usage {
        self.usage
    }

    /// Model calls made so far.
    pub fn steps(&self) -> u32 {
        self.steps
    }

    /// Tool calls executed so far.
    pub fn tool_calls(&self) -> u32 {
        self.tool_calls
    }

    /// The tool specs of the run.
    pub fn tools(&self) -> &[ToolSpec] {
        &self.tools
    }

    /// When the run started (as passed in).
    pub fn started_ms(&self) -> u64 {
        self.started_ms
    }

    /// Time left on the wall-clock budget at `now_ms`, if there is one.
    pub fn remaining_ms(&self, now_ms: u64) -> Option<u64> {
        let limit = u64::try_from(self.budget.timeout?.as_millis()).unwrap_or(u64::MAX);
        Some(limit.saturating_sub(now_ms.saturating_sub(self.started_ms)))
    }

    /// `true` once the run has an outcome.
    pub fn is_done(&self) -> bool {
        matches!(self.phase, Phase::Done { .. } | Phase::Finished)
    }

    /// `true` while the run waits for tool results (a safe point to pause).
    pub fn awaiting_tools(&self) -> bool {
        matches!(self.phase, Phase::AwaitingTools { .. })
    }

    /// What to do next. Idempotent while a request or tool round is
    /// pending: it issues the same step again (so a resumed run continues).
    pub fn next_step(&mut self, transport: &dyn Transport, now_ms: u64) -> Result<Step, RunError> {
        self.tick(now_ms);
        match &self.phase {
            Phase::Finished => Err(RunError::Finished),
            Phase::Done { .. } => Ok(Step::Done(self.take_outcome())),
            Phase::AwaitingModel { final_turn } => {
                let final_turn = final_turn.is_some();
                Ok(Step::CallModel(self.build_request(transport, final_turn)))
            }
            Phase::AwaitingTools { calls, plans } => Ok(Step::CallTools(
                calls
                    .iter()
                    .zip(plans)
                    .filter(|(_, plan)| !matches!(plan, CallPlan::Skip { .. }))
                    .map(|(call, _)| call.clone())
                    .collect(),
            )),
            Phase::Limit { reason } => {
                let reason = reason.clone();
                Ok(self.reach_limit(reason, transport))
            }
            Phase::Ready => Ok(self.ready_step(transport, now_ms)),
        }
    }

    fn ready_step(&mut self, transport: &dyn Transport, now_ms: u64) -> Step {
        if let Some(0) = self.remaining_ms(now_ms) {
            return self.finish(StopReason::Timeout);
        }
        if self.steps >= self.budget.max_steps {
            return self.reach_limit(StopReason::MaxSteps, transport);
        }
        self.issue_request(transport, None)
    }

    /// Issues a model request, unless a token budget forbids it.
    fn issue_request(&mut self, transport: &dyn Transport, final_turn: Option<StopReason>) -> Step {
        let request = self.build_request(transport, final_turn.is_some());
        if let Some(max) = self.budget.max_request_tokens {
            if self.last_request_tokens > max {
                return self.finish(StopReason::TokenBudget);
            }
        }
        if let Some(max) = self.budget.max_total_tokens {
            if self
                .usage
                .total_tokens
                .saturating_add(self.last_request_tokens)
                > max
            {
                return self.finish(StopReason::TokenBudget);
            }
        }
        self.steps += 1;
        self.phase = Phase::AwaitingModel { final_turn };
        Step::CallModel(request)
    }

    /// A step or tool budget ran out: one last answer turn, or stop.
    fn reach_limit(&mut self, reason: StopReason, transport: &dyn Transport) -> Step {
        let may_ask = matches!(reason, StopReason::MaxSteps | StopReason::MaxToolCalls);
        if self.budget.final_answer_on_limit && may_ask && !self.final_turn_used {
            self.final_turn_used = true;
            self.push(transport.final_answer_request());
            return self.issue_request(transport, Some(reason));
        }
        self.finish(reason)
    }

    fn build_request(&mut self, transport: &dyn Transport, final_turn: bool) -> CompletionRequest {
        self.trim_window();
        self.last_request_tokens = self.head_tokens + self.window_tokens + self.tools_tokens;
        let messages = if self.window_start == self.head {
            Arc::clone(&self.transcript)
        } else {
            let mut kept =
                Vec::with_capacity(self.head + self.transcript.len() - self.window_start);
            kept.extend_from_slice(&self.transcript[..self.head]);
            kept.extend_from_slice(&self.transcript[self.window_start..]);
            Arc::new(kept)
        };
        let mut request = CompletionRequest {
            messages,
            tools: Arc::clone(&self.tools),
            tool_choice: if final_turn {
                ToolChoice::None
            } else {
                self.options.tool_choice.clone()
            },
            stop: Vec::new(),
            max_tokens: self.options.max_tokens,
            temperature: self.options.temperature,
        };
        transport.prepare(&mut request);
        request
    }

    /// Drops whole old turns from requests when the window overflows.
    fn trim_window(&mut self) {
        let Some(window) = self.budget.history_window else {
            return;
        };
        let fixed = self.head_tokens + self.tools_tokens;
        if fixed + self.window_tokens <= window.max_tokens {
            return;
        }
        // Turn starts: assistant messages. Keep at least the last turn.
        let last_turn = (self.window_start..self.transcript.len())
            .rev()
            .find(|&i| self.transcript[i].role == Role::Assistant)
            .unwrap_or(self.window_start);
        let mut start = self.window_start;
        let mut tokens = self.window_tokens;
        while start < last_turn && fixed + tokens > window.keep_tokens {
            tokens -= self.estimates[start];
            start += 1;
            while start < last_turn && self.transcript[start].role != Role::Assistant {
                tokens -= self.estimates[start];
                start += 1;
            }
        }
        self.window_start = start;
        self.window_tokens = tokens;
    }

    fn push(&mut self, message: Message) {
        let mut tokens = MESSAGE_OVERHEAD_TOKENS + self.estimator.0.estimate(&message.content);
        for call in &message.tool_calls {
            tokens += self.estimator.0.estimate(&call.name) + json_len(&call.arguments).div_ceil(4);
        }
        self.estimates.push(tokens);
        self.window_tokens += tokens;
        Arc::make_mut(&mut self.transcript).push(message);
    }

    fn tick(&mut self, now_ms: u64) {
        self.last_ms = self.last_ms.max(now_ms);
    }

    /// Feeds the model's answer to the pending request.
    pub fn model_turn(
        &mut self,
        completion: Completion,
        transport: &dyn Transport,
        now_ms: u64,
    ) -> Result<TurnReport, RunError> {
        self.tick(now_ms);
        let Phase::AwaitingModel { final_turn } = &self.phase else {
            return Err(self.unexpected("a model turn"));
        };
        let final_turn = final_turn.clone();
        let usage = match completion.usage {
            Some(usage) => usage,
            None => {
                let mut generated = self.estimator.0.estimate(&completion.text);
                for call in &completion.tool_calls {
                    generated += json_len(&call.arguments).div_ceil(4);
                }
                Usage::new(self.last_request_tokens, generated)
            }
        };
        self.usage.add(usage);

        let mut turn = transport.interpret(completion);
        self.check_decision(&mut turn.decision, &mut turn.message);
        let report = TurnReport {
            thought: turn.thought.clone(),
            kind: match &turn.decision {
                Decision::Final(answer) => TurnKind::Final(answer.clone()),
                Decision::Act(calls) => TurnKind::Act(calls.len()),
                Decision::Malformed(reason) => TurnKind::Malformed(reason.clone()),
            },
        };
        self.push(turn.message);

        if let Some(limit) = final_turn {
            match turn.decision {
                Decision::Final(answer) => self.answer = Some(answer),
                Decision::Act(calls) => {
                    let plans = vec![skip("the run has reached its budget"); calls.len()];
                    self.record_round(transport, &calls, &plans, Vec::new());
                }
                Decision::Malformed(_) => {}
            }
            self.stop(limit);
            return Ok(report);
        }

        match turn.decision {
            Decision::Final(answer) => {
                self.consecutive_malformed = 0;
                self.answer = Some(answer);
                self.stop(StopReason::FinalAnswer);
            }
            Decision::Malformed(reason) => {
                self.consecutive_malformed += 1;
                for message in transport.malformed(&reason) {
                    self.push(message);
                }
                if self.consecutive_malformed >= self.budget.max_consecutive_malformed {
                    self.stop(StopReason::TooManyMalformed);
                } else {
                    self.phase = Phase::Ready;
                }
            }
            Decision::Act(calls) => {
                self.consecutive_malformed = 0;
                self.plan_round(calls, transport);
            }
        }
        Ok(report)
    }

    /// Rejects decisions no loop can act on, and gives every call a unique id.
    fn check_decision(&self, decision: &mut Decision, message: &mut Message) {
        let Decision::Act(calls) = decision else {
            return;
        };
        if calls.is_empty() {
            *decision =
                Decision::Malformed("the reply asked for an action but named no tool".into());
            return;
        }
        if calls.iter().any(|c| c.name.trim().is_empty()) {
            *decision = Decision::Malformed("a tool call had no tool name".into());
            return;
        }
        let mut seen = std::collections::HashSet::new();
        for (i, call) in calls.iter_mut().enumerate() {
            if call.id.trim().is_empty() || !seen.insert(call.id.clone()) {
                call.id = format!("call_{}_{i}", self.steps);
                seen.insert(call.id.clone());
                if let Some(native) = message.tool_calls.get_mut(i) {
                    native.id = call.id.clone();
                }
            }
        }
    }

    /// Decides, per call, whether it runs, repeats or is skipped.
    fn plan_round(&mut self, calls: Vec<ToolCall>, transport: &dyn Transport) {
        let mut budget_left = self.budget.max_tool_calls.saturating_sub(self.tool_calls);
        if budget_left == 0 {
            let plans = vec![skip("the tool-call budget is used up"); calls.len()];
            self.record_round(transport, &calls, &plans, Vec::new());
            self.phase = Phase::Limit {
                reason: StopReason::MaxToolCalls,
            };
            return;
        }
        let mut plans = Vec::with_capacity(calls.len());
        let mut looped = false;
        for call in &calls {
            let count = self
                .call_counts
                .entry(canonical_call_key(&call.name, &call.arguments))
                .or_insert(0);
            *count += 1;
            if *count >= self.budget.loop_threshold {
                looped = true;
                plans.push(skip(&format!(
                    "this exact call was already made {} times; use the results you have",
                    *count - 1
                )));
            } else if budget_left == 0 {
                plans.push(skip("the tool-call budget is used up"));
            } else {
                budget_left -= 1;
                plans.push(if *count > 1 {
                    CallPlan::Repeat
                } else {
                    CallPlan::Run
                });
            }
        }
        if looped {
            // No call of a looping round runs: answer them all and stop.
            let plans: Vec<CallPlan> = plans
                .into_iter()
                .map(|plan| match plan {
                    CallPlan::Skip { .. } => plan,
                    _ => skip("the run stopped: a repeated call was detected"),
                })
                .collect();
            self.record_round(transport, &calls, &plans, Vec::new());
            self.stop(StopReason::LoopDetected);
            return;
        }
        self.phase = Phase::AwaitingTools { calls, plans };
    }

    /// Feeds the observations of the pending round, one per call returned
    /// by [`Step::CallTools`], in that order.
    pub fn tool_results(
        &mut self,
        observations: Vec<Observation>,
        transport: &dyn Transport,
        now_ms: u64,
    ) -> Result<(), RunError> {
        self.tick(now_ms);
        let Phase::AwaitingTools { calls, plans } = &self.phase else {
            return Err(self.unexpected("tool results"));
        };
        let runnable: Vec<&ToolCall> = calls
            .iter()
            .zip(plans)
            .filter(|(_, plan)| !matches!(plan, CallPlan::Skip { .. }))
            .map(|(call, _)| call)
            .collect();
        let matches = runnable.len() == observations.len()
            && runnable
                .iter()
                .zip(&observations)
                .all(|(c, o)| c.id == o.call_id);
        if !matches {
            return Err(RunError::ObservationMismatch {
                expected: runnable.iter().map(|c| c.id.clone()).collect(),
                got: observations.iter().map(|o| o.call_id.clone()).collect(),
            });
        }
        let Phase::AwaitingTools { calls, plans } =
            std::mem::replace(&mut self.phase, Phase::Ready)
        else {
            return Err(self.unexpected("tool results"));
        };
        self.tool_calls += observations.len() as u32;
        self.record_round(transport, &calls, &plans, observations);
        Ok(())
    }

    /// Appends the observations of a round in call order: executed ones
    /// from `executed` (in order), skipped ones from their plan.
    fn record_round(
        &mut self,
        transport: &dyn Transport,
        calls: &[ToolCall],
        plans: &[CallPlan],
        executed: Vec<Observation>,
    ) {
        let mut executed = executed.into_iter();
        let mut round = Vec::with_capacity(calls.len());
        for (call, plan) in calls.iter().zip(plans) {
            match plan {
                CallPlan::Skip { reason } => round.push(Observation {
                    call_id: call.id.clone(),
                    tool: call.name.clone(),
                    content: format!("Error ({}): {reason}", ToolErrorKind::Skipped.label()),
                    error: Some(ToolErrorKind::Skipped),
                }),
                CallPlan::Run | CallPlan::Repeat => {
                    let Some(mut observation) = executed.next() else {
                        continue;
                    };
                    if *plan == CallPlan::Repeat {
                        observation.content.push_str(
                            "\n(Note: you already made this exact call and got this result. \
                             Do not call it again; if you have what you need, give the final answer.)",
                        );
                    }
                    round.push(observation);
                }
            }
        }
        for message in transport.observations(&round) {
            self.push(message);
        }
    }

    /// The model call failed: the run stops with `Model(error)`.
    pub fn model_error(&mut self, error: ModelError, now_ms: u64) -> Result<(), RunError> {
        self.tick(now_ms);
        if !matches!(self.phase, Phase::AwaitingModel { .. }) {
            return Err(self.unexpected("a model error"));
        }
        self.stop(StopReason::Model(error));
        Ok(())
    }

    /// Cancels the run. Pending tool calls are answered "not run".
    pub fn cancel(&mut self, transport: &dyn Transport, now_ms: u64) {
        self.interrupt(
            StopReason::Cancelled,
            "the run was cancelled",
            transport,
            now_ms,
        );
    }

    /// Stops the run for a hook, with its reason.
    pub fn halt(&mut self, reason: impl Into<String>, transport: &dyn Transport, now_ms: u64) {
        let reason = reason.into();
        let text = format!("the run was stopped: {reason}");
        self.interrupt(StopReason::Halted(reason), &text, transport, now_ms);
    }

    /// The wall clock ran out while the caller was waiting (for the model or tools).
    pub fn time_out(&mut self, transport: &dyn Transport, now_ms: u64) {
        self.interrupt(
            StopReason::Timeout,
            "the run ran out of time",
            transport,
            now_ms,
        );
    }

    fn interrupt(
        &mut self,
        reason: StopReason,
        text: &str,
        transport: &dyn Transport,
        now_ms: u64,
    ) {
        self.tick(now_ms);
        if self.is_done() {
            return;
        }
        if let Phase::AwaitingTools { calls, .. } = std::mem::replace(&mut self.phase, Phase::Ready)
        {
            let plans = vec![skip(text); calls.len()];
            self.record_round(transport, &calls, &plans, Vec::new());
        }
        self.stop(reason);
    }

    /// Ends the run; the outcome is handed out by the next `next_step`.
    fn stop(&mut self, reason: StopReason) {
        self.phase = Phase::Done { reason };
    }

    /// Ends the run and hands out the outcome now.
    fn finish(&mut self, reason: StopReason) -> Step {
        self.stop(reason);
        Step::Done(self.take_outcome())
    }

    fn take_outcome(&mut self) -> Outcome {
        let reason = match std::mem::replace(&mut self.phase, Phase::Finished) {
            Phase::Done { reason } => reason,
            _ => StopReason::Cancelled,
        };
        let transcript = std::mem::take(&mut self.transcript);
        let transcript = Arc::try_unwrap(transcript).unwrap_or_else(|shared| (*shared).clone());
        Outcome {
            answer: self.answer.take(),
            stop_reason: reason,
            transcript,
            usage: self.usage,
            steps: self.steps,
            tool_calls: self.tool_calls,
            elapsed_ms: self.last_ms.saturating_sub(self.started_ms),
        }
    }

    fn unexpected(&self, got: &'static str) -> RunError {
        let expected = match self.phase {
            Phase::Ready | Phase::Limit { .. } => "a call to next_step",
            Phase::AwaitingModel { .. } => "a model turn or model error",
            Phase::AwaitingTools { .. } => "tool results",
            Phase::Done { .. } => "a call to next_step (the run is done)",
            Phase::Finished => "nothing (the run is finished)",
        };
        RunError::UnexpectedInput { expected, got }
    }
}

/// The length of `value` as compact JSON, approximately (strings are not
/// escaped), without serializing it.
fn json_len(value: &serde_json::Value) -> u64 {
    use serde_json::Value;
    match value {
        Value::Null => 4,
        Value::Bool(_) => 5,
        Value::Number(_) => 8,
        Value::String(s) => s.len() as u64 + 2,
        Value::Array(items) => 2 + items.iter().map(|v| json_len(v) + 1).sum::<u64>(),
        Value::Object(map) => {
            2 + map
                .iter()
                .map(|(k, v)| k.len() as u64 + 4 + json_len(v))
                .sum::<u64>()
        }
    }
}

fn skip(reason: &str) -> CallPlan {
    CallPlan::Skip {
        reason: reason.to_string(),
    }
}
