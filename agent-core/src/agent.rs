//! The [`Agent`] driver: does the IO a [`Run`] asks for. It calls the
//! model (streaming or not), runs each round's tool calls concurrently up
//! to a limit (in call order, sequential tools as barriers), applies hooks,
//! emits events, enforces the wall clock and handles cancellation.

use std::collections::VecDeque;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use futures::future::BoxFuture;
use futures::{FutureExt, Stream, StreamExt};
use tokio_util::sync::CancellationToken;

use crate::budget::{Budget, BudgetError, Estimator, TokenEstimator};
use crate::event::{Event, EventSink};
use crate::hook::{Hook, HookAction};
use crate::message::{Completion, CompletionRequest, FinishReason, ToolCall};
use crate::model::{Complete, CompletionAccumulator, ModelError, StreamDelta};
use crate::outcome::{Outcome, StopReason};
use crate::run::{RequestOptions, Run, RunError, Step, TurnKind};
use crate::tool::{Observation, ToolError, ToolErrorKind, Toolbox};
use crate::trace::now_ms;
use crate::transport::Transport;

/// A configuration the agent cannot run with.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AgentError {
    /// No model was given.
    #[error("the agent needs a model")]
    MissingModel,
    /// No transport was given.
    #[error("the agent needs a transport")]
    MissingTransport,
    /// No toolbox was given.
    #[error("the agent needs a toolbox")]
    MissingToolbox,
    /// The budget cannot work.
    #[error("invalid budget: {0}")]
    Budget(#[from] BudgetError),
    /// `max_parallel_tools` is zero.
    #[error("max_parallel_tools must be at least 1")]
    ZeroParallelism,
}

/// Per-run controls: cancellation and extra event sinks.
#[derive(Clone, Default)]
pub struct RunControl {
    /// Cancelling this token ends the run with `Cancelled`.
    pub cancel: CancellationToken,
    /// Sinks for this run only (on top of the agent's).
    pub sinks: Vec<Arc<dyn EventSink>>,
    /// Return [`Progress::Paused`] before running a new round of tool calls.
    pub pause_before_tools: bool,
}

impl RunControl {
    /// Adds a sink.
    pub fn with_sink(mut self, sink: Arc<dyn EventSink>) -> Self {
        self.sinks.push(sink);
        self
    }

    /// Uses this cancellation token.
    pub fn with_cancel(mut self, cancel: CancellationToken) -> Self {
        self.cancel = cancel;
        self
    }
}

/// Where [`Agent::drive`] left a run.
#[derive(Debug, Clone, PartialEq)]
pub enum Progress {
    /// Paused before these tool calls; drive the run again to execute them.
    Paused(Vec<ToolCall>),
    /// The run is over.
    Done(Outcome),
}

/// An item of [`Agent::stream`].
#[derive(Debug, Clone, PartialEq)]
pub enum StreamItem {
    /// Something happened.
    Event(Event),
    /// The run is over (always the last item).
    Outcome(Outcome),
}

/// Builds an [`Agent`].
#[derive(Default)]
pub struct AgentBuilder {
    model: Option<Arc<dyn Complete>>,
    transport: Option<Arc<dyn Transport>>,
    toolbox: Option<Arc<dyn Toolbox>>,
    budget: Budget,
    hooks: Vec<Arc<dyn Hook>>,
    sinks: Vec<Arc<dyn EventSink>>,
    max_parallel: usize,
    streaming: bool,
    options: RequestOptions,
    estimator: Estimator,
}

impl AgentBuilder {
    /// The model.
    pub fn model(mut self, model: impl Complete + 'static) -> Self {
        self.model = Some(Arc::new(model));
        self
    }

    /// The model, shared.
    pub fn model_arc(mut self, model: Arc<dyn Complete>) -> Self {
        self.model = Some(model);
        self
    }

    /// The transport.
    pub fn transport(mut self, transport: impl Transport + 'static) -> Self {
        self.transport = Some(Arc::new(transport));
        self
    }

    /// The transport, shared.
    pub fn transport_arc(mut self, transport: Arc<dyn Transport>) -> Self {
        self.transport = Some(transport);
        self
    }

    /// The tools.
    pub fn toolbox(mut self, toolbox: impl Toolbox + 'static) -> Self {
        self.toolbox = Some(Arc::new(toolbox));
        self
    }

    /// The tools, shared.
    pub fn toolbox_arc(mut self, toolbox: Arc<dyn Toolbox>) -> Self {
        self.toolbox = Some(toolbox);
        self
    }

    /// The budget (default: [`Budget::default`]).
    pub fn budget(mut self, budget: Budget) -> Self {
        self.budget = budget;
        self
    }

    /// Adds a hook; hooks run in the order added.
    pub fn hook(mut self, hook: impl Hook + 'static) -> Self {
        self.hooks.push(Arc::new(hook));
        self
    }

    /// Adds an event sink for every run (e.g. a [`TraceWriter`](crate::TraceWriter)).
    pub fn sink(mut self, sink: Arc<dyn EventSink>) -> Self {
        self.sinks.push(sink);
        self
    }

    /// Tool calls of one round run at most this many at a time (default 8).
    pub fn max_parallel_tools(mut self, n: usize) -> Self {
        self.max_parallel = n;
        self
    }

    /// Streams model turns (text deltas become events; the text transport
    /// stops reading once the step is complete). Default off.
    pub fn streaming(mut self, on: bool) -> Self {
        self.streaming = on;
        self
    }

    /// Request options: max tokens, temperature, tool choice.
    pub fn request_options(mut self, options: RequestOptions) -> Self {
        self.options = options;
        self
    }

    /// The token estimator for budgets (default: [`BytesPerToken`](crate::BytesPerToken)).
    pub fn estimator(mut self, estimator: impl TokenEstimator + 'static) -> Self {
        self.estimator = Estimator(Arc::new(estimator));
        self
    }

    /// Checks the configuration and builds the agent.
    pub fn build(self) -> Result<Agent, AgentError> {
        self.budget.validate()?;
        if self.max_parallel == 0 {
            return Err(AgentError::ZeroParallelism);
        }
        Ok(Agent {
            model: self.model.ok_or(AgentError::MissingModel)?,
            transport: self.transport.ok_or(AgentError::MissingTransport)?,
            toolbox: self.toolbox.ok_or(AgentError::MissingToolbox)?,
            budget: self.budget,
            hooks: self.hooks,
            sinks: self.sinks,
            max_parallel: self.max_parallel,
            streaming: self.streaming,
            options: self.options,
            estimator: self.estimator,
        })
    }
}

/// A configured agent: model, transport, tools, budget, hooks and sinks.
/// One agent can run many tasks, concurrently too.
///
/// ```
/// use agent_core::testing::{ScriptedModel, TestTransport};
/// use agent_core::{Agent, StopReason, Toolbox, ToolCall, ToolError, ToolOutput, ToolSpec};
///
/// struct NoTools;
/// #[async_trait::async_trait]
/// impl Toolbox for NoTools {
///     fn specs(&self) -> Vec<ToolSpec> { vec![] }
///     async fn call(&self, call: &ToolCall) -> Result<ToolOutput, ToolError> {
///         Err(ToolError::new(agent_core::ToolErrorKind::NotFound, "no tools"))
///     }
/// }
///
/// let agent = Agent::builder()
///     .model(ScriptedModel::new().text("42"))
///     .transport(TestTransport)
///     .toolbox(NoTools)
///     .build()
///     .unwrap();
/// # let rt = tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap();
/// # rt.block_on(async {
/// let outcome = agent.run("What is six times seven?").await;
/// assert_eq!(outcome.stop_reason, StopReason::FinalAnswer);
/// assert_eq!(outcome.answer.as_deref(), Some("42"));
/// # });
/// ```
pub struct Agent {
    model: Arc<dyn Complete>,
    transport: Arc<dyn Transport>,
    toolbox: Arc<dyn Toolbox>,
    budget: Budget,
    hooks: Vec<Arc<dyn Hook>>,
    sinks: Vec<Arc<dyn EventSink>>,
    max_parallel: usize,
    streaming: bool,
    options: RequestOptions,
    estimator: Estimator,
}

/// The sinks of one run; events are only built when someone listens.
struct Emitter<'a> {
    agent: &'a [Arc<dyn EventSink>],
    run: &'a [Arc<dyn EventSink>],
}

impl Emitter<'_> {
    fn active(&self) -> bool {
        !self.agent.is_empty() || !self.run.is_empty()
    }

    fn emit(&self, make: impl FnOnce() -> Event) {
        if self.active() {
            let event = make();
            for sink in self.agent.iter().chain(self.run) {
                sink.emit(&event);
            }
        }
    }
}

/// Emits `Stopped(Cancelled)` if the run's future is dropped mid-way, so a
/// trace is complete even then.
struct DropGuard<'a> {
    emitter: &'a Emitter<'a>,
    armed: bool,
    steps: u32,
    tool_calls: u32,
    usage: crate::Usage,
    started_ms: u64,
}

impl Drop for DropGuard<'_> {
    fn drop(&mut self) {
        if self.armed {
            self.emitter.emit(|| Event::Stopped {
                reason: StopReason::Cancelled,
                steps: self.steps,
                tool_calls: self.tool_calls,
                usage: self.usage,
                elapsed_ms: now_ms().saturating_sub(self.started_ms),
            });
        }
    }
}

enum Interrupted<T> {
    Finished(T),
    Cancelled,
    TimedOut,
}

impl Agent {
    /// A builder.
    pub fn builder() -> AgentBuilder {
        AgentBuilder {
            max_parallel: 8,
            ..AgentBuilder::default()
        }
    }

    /// The transport's name.
    pub fn transport_name(&self) -> &str {
        self.transport.name()
    }

    /// The budget runs start with.
    pub fn budget(&self) -> &Budget {
        &self.budget
    }

    /// A new run of `task`, ready to be driven (or stored).
    pub fn start(&self, task: impl Into<String>) -> Run {
        self.start_at(task, now_ms())
    }

    fn start_at(&self, task: impl Into<String>, now: u64) -> Run {
        // The builder validated the budget.
        let specs = self.toolbox.specs();
        Run::create(
            task.into(),
            self.budget.clone(),
            &*self.transport,
            specs,
            now,
        )
        .with_options(self.options.clone())
        .with_estimator(self.estimator.clone())
    }

    /// Runs `task` to its outcome.
    pub async fn run(&self, task: impl Into<String>) -> Outcome {
        self.run_with(task, &RunControl::default()).await
    }

    /// Runs `task` with per-run controls (cancellation, sinks).
    pub async fn run_with(&self, task: impl Into<String>, control: &RunControl) -> Outcome {
        let control = RunControl {
            pause_before_tools: false,
            ..control.clone()
        };
        let mut run = self.start(task);
        let emitter = Emitter {
            agent: &self.sinks,
            run: &control.sinks,
        };
        emitter.emit(|| self.started_event(&run));
        match self.drive_inner(&mut run, &control, &emitter).await {
            Ok(Progress::Done(outcome)) => outcome,
            // Unreachable for a fresh run without pausing; keep the work anyway.
            Ok(Progress::Paused(_)) | Err(_) => {
                run.cancel(&*self.transport, now_ms());
                match run.next_step(&*self.transport, now_ms()) {
                    Ok(Step::Done(outcome)) => outcome,
                    _ => empty_outcome(),
                }
            }
        }
    }

    /// Resumes a stored run to its outcome (pending tool calls run first).
    pub async fn resume(&self, mut run: Run) -> Result<Outcome, RunError> {
        let control = RunControl::default();
        match self.drive(&mut run, &control).await? {
            Progress::Done(outcome) => Ok(outcome),
            Progress::Paused(_) => Err(RunError::UnexpectedInput {
                expected: "a run to finish",
                got: "a pause",
            }),
        }
    }

    /// Drives `run` until it is done, or, with `control.pause_before_tools`,
    /// until it is about to run a new round of tool calls. A run that is
    /// already waiting for tools (e.g. one resumed after a pause) runs them.
    ///
    /// ```
    /// use agent_core::testing::{ScriptedModel, TestTransport};
    /// use agent_core::{Agent, Progress, Run, RunControl, ToolCall, ToolError, ToolOutput, ToolSpec, Toolbox};
    ///
    /// struct Echo;
    /// #[async_trait::async_trait]
    /// impl Toolbox for Echo {
    ///     fn specs(&self) -> Vec<ToolSpec> { vec![] }
    ///     async fn call(&self, call: &ToolCall) -> Result<ToolOutput, ToolError> {
    ///         Ok(ToolOutput::new(call.arguments.to_string()))
    ///     }
    /// }
    /// let model = ScriptedModel::new().call("c1", "echo", serde_json::json!({"x": 1})).text("done");
    /// let agent = Agent::builder().model(model).transport(TestTransport).toolbox(Echo).build().unwrap();
    /// # let rt = tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap();
    /// # rt.block_on(async {
    /// // Pause before the tool round, store the run (e.g. for a human to approve it)…
    /// let mut run = agent.start("echo something");
    /// let pause = RunControl { pause_before_tools: true, ..RunControl::default() };
    /// let Progress::Paused(calls) = agent.drive(&mut run, &pause).await.unwrap() else { unreachable!() };
    /// assert_eq!(calls[0].name, "echo");
    /// let stored = run.to_json().unwrap();
    /// // …then resume it, possibly in another process.
    /// let outcome = agent.resume(Run::from_json(&stored).unwrap()).await.unwrap();
    /// assert_eq!(outcome.answer.as_deref(), Some("done"));
    /// # });
    /// ```
    pub async fn drive(&self, run: &mut Run, control: &RunControl) -> Result<Progress, RunError> {
        let emitter = Emitter {
            agent: &self.sinks,
            run: &control.sinks,
        };
        if run.steps() == 0 && !run.is_done() {
            emitter.emit(|| self.started_event(run));
        }
        self.drive_inner(run, control, &emitter).await
    }

    /// Runs `task`, yielding events as they happen and then the outcome.
    ///
    /// ```
    /// use agent_core::testing::{ScriptedModel, TestTransport};
    /// use agent_core::{Agent, Event, StreamItem, ToolCall, ToolError, ToolOutput, ToolSpec, Toolbox};
    /// use futures::StreamExt;
    ///
    /// struct NoTools;
    /// #[async_trait::async_trait]
    /// impl Toolbox for NoTools {
    ///     fn specs(&self) -> Vec<ToolSpec> { vec![] }
    ///     async fn call(&self, _: &ToolCall) -> Result<ToolOutput, ToolError> { Ok("".into()) }
    /// }
    /// let agent = Agent::builder()
    ///     .model(ScriptedModel::new().text("hello"))
    ///     .transport(TestTransport)
    ///     .toolbox(NoTools)
    ///     .build()
    ///     .unwrap();
    /// # let rt = tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap();
    /// # rt.block_on(async {
    /// let mut items = agent.stream("greet");
    /// let mut saw_final = false;
    /// while let Some(item) = items.next().await {
    ///     match item {
    ///         StreamItem::Event(Event::FinalAnswer { answer }) => saw_final = answer == "hello",
    ///         StreamItem::Event(_) => {}
    ///         StreamItem::Outcome(outcome) => assert!(outcome.is_success()),
    ///     }
    /// }
    /// assert!(saw_final);
    /// # });
    /// ```
    pub fn stream(&self, task: impl Into<String>) -> RunStream<'_> {
        self.stream_with(task, RunControl::default())
    }

    /// [`stream`](Agent::stream) with per-run controls.
    pub fn stream_with(&self, task: impl Into<String>, control: RunControl) -> RunStream<'_> {
        let queue = Arc::new(QueueSink::default());
        let control = control.with_sink(Arc::clone(&queue) as Arc<dyn EventSink>);
        let task = task.into();
        let future = async move { self.run_with(task, &control).await }.boxed();
        RunStream {
            future: Some(future),
            queue,
            outcome: None,
        }
    }

    fn started_event(&self, run: &Run) -> Event {
        Event::RunStarted {
            task: run.task().to_string(),
            transport: self.transport.name().to_string(),
            tools: run.tools().iter().map(|t| t.name.clone()).collect(),
            budget: run.budget().clone(),
        }
    }

    async fn drive_inner(
        &self,
        run: &mut Run,
        control: &RunControl,
        emitter: &Emitter<'_>,
    ) -> Result<Progress, RunError> {
        let transport = &*self.transport;
        let mut resuming_tools = run.awaiting_tools();
        let mut guard = DropGuard {
            emitter,
            armed: emitter.active(),
            steps: run.steps(),
            tool_calls: run.tool_calls(),
            usage: run.usage(),
            started_ms: run.started_ms(),
        };
        loop {
            guard.steps = run.steps();
            guard.tool_calls = run.tool_calls();
            guard.usage = run.usage();
            let step = run.next_step(transport, now_ms())?;
            match step {
                Step::CallModel(request) => {
                    let step_no = run.steps();
                    emitter.emit(|| Event::ModelRequestStarted {
                        step: step_no,
                        messages: request.messages.len(),
                    });
                    let started = emitter.active().then(Instant::now);
                    let result = self
                        .interruptible(run, control, self.call_model(request, emitter))
                        .await;
                    let now = now_ms();
                    match result {
                        Interrupted::Finished(Ok(completion)) => {
                            emitter.emit(|| Event::ModelResponded {
                                step: step_no,
                                completion: completion.clone(),
                                duration_ms: started.map_or(0, |t| millis(t.elapsed())),
                            });
                            let report = run.model_turn(completion, transport, now)?;
                            if let Some(thought) = report.thought {
                                emitter.emit(|| Event::Thought { text: thought });
                            }
                            match report.kind {
                                TurnKind::Final(answer) => {
                                    emitter.emit(|| Event::FinalAnswer { answer })
                                }
                                TurnKind::Malformed(reason) => {
                                    emitter.emit(|| Event::Malformed { reason })
                                }
                                TurnKind::Act(_) => {}
                            }
                        }
                        Interrupted::Finished(Err(error)) => run.model_error(error, now)?,
                        Interrupted::Cancelled => run.cancel(transport, now),
                        Interrupted::TimedOut => run.time_out(transport, now),
                    }
                }
                Step::CallTools(calls) => {
                    if control.pause_before_tools && !resuming_tools {
                        guard.armed = false;
                        return Ok(Progress::Paused(calls));
                    }
                    resuming_tools = false;
                    self.tool_round(run, calls, control, emitter).await?;
                }
                Step::Done(outcome) => {
                    guard.armed = false;
                    emitter.emit(|| Event::Stopped {
                        reason: outcome.stop_reason.clone(),
                        steps: outcome.steps,
                        tool_calls: outcome.tool_calls,
                        usage: outcome.usage,
                        elapsed_ms: outcome.elapsed_ms,
                    });
                    return Ok(Progress::Done(outcome));
                }
            }
        }
    }

    /// Runs `work` unless the run is cancelled or its wall clock runs out first.
    /// Work that finishes on its first poll (the common case for fast
    /// models and tools) never touches the timer or the cancellation token.
    async fn interruptible<T>(
        &self,
        run: &Run,
        control: &RunControl,
        work: impl Future<Output = T>,
    ) -> Interrupted<T> {
        if control.cancel.is_cancelled() {
            return Interrupted::Cancelled;
        }
        let mut work = std::pin::pin!(work);
        if let Poll::Ready(value) = futures::poll!(work.as_mut()) {
            return Interrupted::Finished(value);
        }
        let deadline = match run.budget().timeout {
            Some(_) => run.remaining_ms(now_ms()).map(Duration::from_millis),
            None => None,
        };
        let timed = async {
            match deadline {
                Some(left) => match tokio::time::timeout(left, work).await {
                    Ok(value) => Interrupted::Finished(value),
                    Err(_) => Interrupted::TimedOut,
                },
                None => Interrupted::Finished(work.await),
            }
        };
        tokio::select! {
            biased;
            () = control.cancel.cancelled() => Interrupted::Cancelled,
            result = timed => result,
        }
    }

    async fn call_model(
        &self,
        request: CompletionRequest,
        emitter: &Emitter<'_>,
    ) -> Result<Completion, ModelError> {
        if !self.streaming {
            return self.model.complete(&request).await;
        }
        let mut stream = self.model.stream(&request).await?;
        drop(request);
        let mut watcher = self.transport.stream_watcher();
        let mut acc = CompletionAccumulator::new();
        while let Some(delta) = stream.next().await {
            let delta = delta?;
            if let StreamDelta::Text { text } = &delta {
                emitter.emit(|| Event::TextDelta { text: text.clone() });
                if let Some(watcher) = watcher.as_mut() {
                    if let Some(keep) = watcher.push(text) {
                        acc.push(delta);
                        acc.truncate_text(keep);
                        acc.set_finish_reason(FinishReason::StreamCut);
                        return Ok(acc.finish());
                    }
                }
            }
            acc.push(delta);
        }
        Ok(acc.finish())
    }

    async fn tool_round(
        &self,
        run: &mut Run,
        calls: Vec<ToolCall>,
        control: &RunControl,
        emitter: &Emitter<'_>,
    ) -> Result<(), RunError> {
        let transport = &*self.transport;
        // Hooks first, in call order: a stop prevents the whole round.
        let mut planned: Vec<(ToolCall, Option<ToolError>)> = Vec::with_capacity(calls.len());
        for mut call in calls {
            let mut denied = None;
            for hook in &self.hooks {
                match hook.before_tool_call(&call).await {
                    HookAction::Approve => {}
                    HookAction::Deny(reason) => {
                        denied = Some(ToolError::denied(reason));
                        break;
                    }
                    HookAction::Edit(arguments) => call.arguments = arguments,
                    HookAction::Stop(reason) => {
                        run.halt(reason, transport, now_ms());
                        return Ok(());
                    }
                }
            }
            planned.push((call, denied));
        }
        let result = self
            .interruptible(run, control, self.execute(planned, emitter))
            .await;
        let now = now_ms();
        match result {
            Interrupted::Finished(observations) => run.tool_results(observations, transport, now),
            Interrupted::Cancelled => {
                run.cancel(transport, now);
                Ok(())
            }
            Interrupted::TimedOut => {
                run.time_out(transport, now);
                Ok(())
            }
        }
    }

    /// Runs a round: concurrent up to the limit, sequential tools alone,
    /// results in call order.
    async fn execute(
        &self,
        planned: Vec<(ToolCall, Option<ToolError>)>,
        emitter: &Emitter<'_>,
    ) -> Vec<Observation> {
        let mut observations = Vec::with_capacity(planned.len());
        let mut batch: Vec<(ToolCall, Option<ToolError>)> = Vec::new();
        for (call, denied) in planned {
            if denied.is_none() && self.toolbox.is_sequential(&call.name) {
                observations.extend(
                    self.execute_batch(std::mem::take(&mut batch), emitter)
                        .await,
                );
                observations.extend(self.execute_batch(vec![(call, None)], emitter).await);
            } else {
                batch.push((call, denied));
            }
        }
        observations.extend(self.execute_batch(batch, emitter).await);
        observations
    }

    async fn execute_batch(
        &self,
        batch: Vec<(ToolCall, Option<ToolError>)>,
        emitter: &Emitter<'_>,
    ) -> Vec<Observation> {
        match batch.len() {
            0 => Vec::new(),
            1 => {
                let mut one = Vec::with_capacity(1);
                for (call, denied) in batch {
                    one.push(self.execute_one(call, denied, emitter).await);
                }
                one
            }
            _ => {
                futures::stream::iter(batch)
                    .map(|(call, denied)| self.execute_one(call, denied, emitter))
                    .buffered(self.max_parallel)
                    .collect()
                    .await
            }
        }
    }

    async fn execute_one(
        &self,
        call: ToolCall,
        denied: Option<ToolError>,
        emitter: &Emitter<'_>,
    ) -> Observation {
        emitter.emit(|| Event::ToolCallStarted { call: call.clone() });
        let started = emitter.active().then(Instant::now);
        let result = match denied {
            Some(err) => Err(err),
            None => self.call_guarded(&call).await,
        };
        if !emitter.active() {
            return match result {
                Ok(output) => Observation::ok(&call, output),
                Err(err) => Observation::error(&call, &err),
            };
        }
        let observation = Observation::from_result(&call, &result);
        {
            let duration_ms = started.map_or(0, |t| millis(t.elapsed()));
            emitter.emit(|| Event::ToolCallFinished {
                call_id: call.id.clone(),
                tool: call.name.clone(),
                duration_ms,
                error: result.as_ref().err().map(ToolError::kind),
                detail: result.as_ref().err().map(ToolError::operator_detail),
            });
            emitter.emit(|| Event::Observation {
                observation: observation.clone(),
            });
        }
        observation
    }

    /// One toolbox call with the budget's tool timeout; a panic becomes an error.
    async fn call_guarded(&self, call: &ToolCall) -> Result<crate::ToolOutput, ToolError> {
        let work = AssertUnwindSafe(self.toolbox.call(call)).catch_unwind();
        let result = match self.budget.tool_timeout {
            Some(limit) => match tokio::time::timeout(limit, work).await {
                Ok(result) => result,
                Err(_) => {
                    return Err(ToolError::new(
                        ToolErrorKind::Timeout,
                        format!("the tool did not finish within {} ms", limit.as_millis()),
                    ));
                }
            },
            None => work.await,
        };
        result.unwrap_or_else(|panic| {
            let detail = panic_message(&*panic);
            Err(ToolError::new(
                ToolErrorKind::Panicked,
                "the tool crashed; try different arguments or another tool",
            )
            .with_source(detail))
        })
    }
}

/// The text of a caught panic, for the operator.
pub fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = panic.downcast_ref::<&str>() {
        format!("panic: {s}")
    } else if let Some(s) = panic.downcast_ref::<String>() {
        format!("panic: {s}")
    } else {
        "panic with a non-string payload".to_string()
    }
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

fn empty_outcome() -> Outcome {
    Outcome {
        answer: None,
        stop_reason: StopReason::Cancelled,
        transcript: Vec::new(),
        usage: crate::Usage::default(),
        steps: 0,
        tool_calls: 0,
        elapsed_ms: 0,
    }
}

#[derive(Default)]
struct QueueSink(Mutex<VecDeque<Event>>);

impl EventSink for QueueSink {
    fn emit(&self, event: &Event) {
        if let Ok(mut queue) = self.0.lock() {
            queue.push_back(event.clone());
        }
    }
}

impl QueueSink {
    fn pop(&self) -> Option<Event> {
        self.0.lock().ok().and_then(|mut q| q.pop_front())
    }
}

/// The stream returned by [`Agent::stream`]: events as they happen, then
/// the outcome. Dropping it cancels the run.
pub struct RunStream<'a> {
    future: Option<BoxFuture<'a, Outcome>>,
    queue: Arc<QueueSink>,
    outcome: Option<Outcome>,
}

impl Stream for RunStream<'_> {
    type Item = StreamItem;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<StreamItem>> {
        let this = self.get_mut();
        if let Some(event) = this.queue.pop() {
            return Poll::Ready(Some(StreamItem::Event(event)));
        }
        if let Some(future) = this.future.as_mut() {
            match future.as_mut().poll(cx) {
                Poll::Ready(outcome) => {
                    this.future = None;
                    this.outcome = Some(outcome);
                }
                Poll::Pending => {
                    return match this.queue.pop() {
                        Some(event) => Poll::Ready(Some(StreamItem::Event(event))),
                        None => Poll::Pending,
                    };
                }
            }
        }
        if let Some(event) = this.queue.pop() {
            return Poll::Ready(Some(StreamItem::Event(event)));
        }
        Poll::Ready(this.outcome.take().map(StreamItem::Outcome))
    }
}
