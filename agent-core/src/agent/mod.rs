//! The [`Agent`]: a model, a transport, tools, a budget, hooks and sinks,
//! and the ways to run a [`Task`] with them (to the end, step by step with
//! pauses before tool rounds, or as a stream of events). The builder is in
//! `builder`, per-run controls in `control`, the IO loop in `driver`, tool
//! rounds in `round`, and events in `stream`.

mod builder;
mod control;
mod driver;
mod round;
mod stream;

use std::fmt;
use std::sync::Arc;

use futures::FutureExt;

use crate::budget::{Budget, Estimator};
use crate::event::{Event, EventSink};
use crate::hook::Hook;
use crate::message::{Message, ToolSpec};
use crate::model::Complete;
use crate::outcome::Outcome;
use crate::run::{RequestOptions, Run, RunConfig, RunError, Step};
use crate::tool::Toolbox;
use crate::trace::now_ms;
use crate::transport::Transport;

pub use builder::{AgentBuilder, AgentError, ToolboxDraft};
pub use control::RunControl;
pub use stream::RunStream;
pub use tokio_util::sync::CancellationToken;

use stream::{Emitter, QueueSink};

/// What an agent is asked to do: the task, and the conversation it
/// continues (earlier messages, sent as real messages so a server's prompt
/// cache keeps serving them).
///
/// ```
/// use agent_core::Task;
///
/// let task: Task = "What is six times seven?".into();
/// assert!(task.history.is_empty());
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Task {
    /// The task text.
    pub text: String,
    /// The conversation before it, without a system prompt.
    pub history: Vec<Message>,
}

impl Task {
    /// A task with no earlier conversation.
    pub fn new(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            history: Vec::new(),
        }
    }

    /// A task that continues the conversation of an earlier run.
    pub fn follow_up(previous: &Outcome, text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            history: previous.conversation().to_vec(),
        }
    }

    /// The same task after these earlier messages.
    pub fn with_history(mut self, history: Vec<Message>) -> Self {
        self.history = history;
        self
    }
}

impl From<&str> for Task {
    fn from(text: &str) -> Self {
        Self::new(text)
    }
}

impl From<String> for Task {
    fn from(text: String) -> Self {
        Self::new(text)
    }
}

impl From<&String> for Task {
    fn from(text: &String) -> Self {
        Self::new(text.as_str())
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
///         Err(ToolError::failed("no tools"))
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
/// assert_eq!(outcome.to_string(), "42");
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

impl fmt::Debug for Agent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let count = self.tool_count();
        let tools: &dyn fmt::Debug = match &count {
            Some(count) => count,
            None => &"<the toolbox panicked listing them>",
        };
        f.debug_struct("Agent")
            .field("transport", &self.transport.id())
            .field("tools", tools)
            .field("budget", &self.budget)
            .field("hooks", &self.hooks.len())
            .field("sinks", &self.sinks.len())
            .field("max_parallel", &self.max_parallel)
            .field("streaming", &self.streaming)
            .finish_non_exhaustive()
    }
}

impl Agent {
    /// A builder.
    pub fn builder() -> AgentBuilder {
        AgentBuilder::new()
    }

    /// The transport.
    pub fn transport(&self) -> &dyn Transport {
        &*self.transport
    }

    /// The budget runs start with.
    pub fn budget(&self) -> &Budget {
        &self.budget
    }

    /// The tools offered to the model. A custom toolbox that panics
    /// listing its tools panics here too ([`Agent::start`] catches it).
    pub fn tools(&self) -> Vec<ToolSpec> {
        self.toolbox.specs()
    }

    /// How many tools the toolbox lists, for `Debug`; `None` when a
    /// custom toolbox panics listing them (`Debug` must not panic).
    fn tool_count(&self) -> Option<usize> {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.toolbox.specs().len())).ok()
    }

    /// A new run of `task`, ready to be driven (or stored). A custom
    /// toolbox that panics while it lists its tools gives a run that has
    /// already stopped with `Internal`, naming the panic, its task in
    /// the transcript.
    pub fn start(&self, task: impl Into<Task>) -> Run {
        let task = task.into();
        let listed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let tools = self.toolbox.specs();
            let grounded_tools: Vec<String> = tools
                .iter()
                .filter(|t| self.toolbox.needs_grounded_numbers(&t.name))
                .map(|t| t.name.clone())
                .collect();
            (tools, grounded_tools)
        }));
        let (tools, grounded_tools, failure) = match listed {
            Ok((tools, grounded_tools)) => (tools, grounded_tools, None),
            Err(panic) => (
                Vec::new(),
                Vec::new(),
                Some(format!(
                    "the toolbox panicked listing its tools: {}",
                    crate::tool::panic_message(&*panic)
                )),
            ),
        };
        let context = if failure.is_none() {
            self.toolbox_context()
        } else {
            None
        };
        // The builder validated the budget.
        let mut run = Run::create(
            task.text,
            task.history,
            RunConfig {
                transport: Arc::clone(&self.transport),
                tools,
                budget: self.budget.clone(),
                options: self.options.clone(),
                estimator: self.estimator.clone(),
                grounded_tools,
                context,
            },
            now_ms(),
        );
        if let Some(detail) = failure {
            run.fail(detail, now_ms());
        }
        run
    }

    /// What the toolbox gives the model before its first step. A custom
    /// toolbox whose `context` panics gives nothing: the run starts
    /// without it, and the panic is logged.
    fn toolbox_context(&self) -> Option<String> {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.toolbox.context()))
            .unwrap_or_else(|panic| {
                tracing::warn!(
                    "the toolbox's context was left out: {}",
                    crate::tool::panic_message(&*panic)
                );
                None
            })
    }

    /// Reads a run stored with [`Run::to_json`]; it must have been made
    /// with this agent's transport.
    pub fn restore(&self, json: &str) -> Result<Run, RunError> {
        Run::from_json(json, Arc::clone(&self.transport), self.estimator.clone())
    }

    /// Runs `task` to its outcome.
    pub async fn run(&self, task: impl Into<Task>) -> Outcome {
        self.run_with(task, &RunControl::default()).await
    }

    /// Runs `task` with per-run controls (cancellation, sinks).
    pub async fn run_with(&self, task: impl Into<Task>, control: &RunControl) -> Outcome {
        let control = RunControl {
            pause_before_tools: false,
            ..control.clone()
        };
        let mut run = self.start(task);
        let emitter = Emitter::new(&self.sinks, &control.sinks);
        emitter.emit(|| self.started_event(&run));
        // A fresh run that does not pause always ends in an outcome; if the
        // loop ever returned anything else, the run's own state still does.
        match self.drive_inner(&mut run, &control, &emitter).await {
            Ok(Step::Done(outcome)) => outcome,
            Ok(_) | Err(_) => {
                run.fail("the driver stopped before the run ended", now_ms());
                match run.next_step(now_ms()) {
                    Ok(Step::Done(outcome)) => outcome,
                    _ => run.into_outcome(),
                }
            }
        }
    }

    /// Resumes a stored run to its outcome (pending tool calls run first).
    pub async fn resume(&self, mut run: Run) -> Result<Outcome, RunError> {
        self.check_transport(&run)?;
        match self.drive(&mut run, &RunControl::default()).await? {
            Step::Done(outcome) => Ok(outcome),
            _ => Err(RunError::UnexpectedInput {
                expected: "a run to finish",
                got: "a pause",
            }),
        }
    }

    /// Drives `run` until it is done ([`Step::Done`]), or, with
    /// `control.pause_before_tools`, until it is about to run a new round of
    /// tool calls ([`Step::CallTools`]). A run that is already waiting for
    /// tools (e.g. one resumed after a pause) runs them.
    ///
    /// ```
    /// use agent_core::agent::RunControl;
    /// use agent_core::run::Step;
    /// use agent_core::testing::{ScriptedModel, TestTransport};
    /// use agent_core::{Agent, ToolCall, ToolError, ToolOutput, ToolSpec, Toolbox};
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
    /// let Step::CallTools(calls) = agent.drive(&mut run, &pause).await.unwrap() else { unreachable!() };
    /// assert_eq!(calls[0].name, "echo");
    /// let stored = run.to_json().unwrap();
    /// // …then resume it, possibly in another process.
    /// let outcome = agent.resume(agent.restore(&stored).unwrap()).await.unwrap();
    /// assert_eq!(outcome.answer.as_deref(), Some("done"));
    /// # });
    /// ```
    pub async fn drive(&self, run: &mut Run, control: &RunControl) -> Result<Step, RunError> {
        self.check_transport(run)?;
        let emitter = Emitter::new(&self.sinks, &control.sinks);
        if run.steps() == 0 && !run.is_done() {
            emitter.emit(|| self.started_event(run));
        }
        self.drive_inner(run, control, &emitter).await
    }

    /// Runs `task`, yielding its events as they happen; the outcome comes
    /// from the stream once it ends.
    ///
    /// ```
    /// use agent_core::testing::{ScriptedModel, TestTransport};
    /// use agent_core::{Agent, Event, ToolCall, ToolError, ToolOutput, ToolSpec, Toolbox};
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
    /// let mut events = agent.stream("greet");
    /// let mut saw_final = false;
    /// while let Some(event) = events.next().await {
    ///     if let Event::FinalAnswer { answer } = event {
    ///         saw_final = answer == "hello";
    ///     }
    /// }
    /// assert!(saw_final);
    /// assert!(events.outcome().unwrap().is_success());
    /// # });
    /// ```
    pub fn stream(&self, task: impl Into<Task>) -> RunStream<'_> {
        self.stream_with(task, RunControl::default())
    }

    /// [`stream`](Agent::stream) with per-run controls.
    pub fn stream_with(&self, task: impl Into<Task>, control: RunControl) -> RunStream<'_> {
        let queue = Arc::new(QueueSink::default());
        let control = control.with_sink(Arc::clone(&queue));
        let task = task.into();
        let future = async move { self.run_with(task, &control).await }.boxed();
        RunStream::new(future, queue)
    }

    fn check_transport(&self, run: &Run) -> Result<(), RunError> {
        let given = self.transport.id();
        if run.transport_id() == given {
            Ok(())
        } else {
            Err(RunError::TransportMismatch {
                stored: run.transport_id().to_string(),
                given,
            })
        }
    }

    fn started_event(&self, run: &Run) -> Event {
        Event::RunStarted {
            task: run.task().to_string(),
            context: run.context().map(str::to_string),
            history: run.history().to_vec(),
            transport: self.transport.name().to_string(),
            tools: run.tools().iter().map(|t| t.name.clone()).collect(),
            budget: run.budget().clone(),
        }
    }
}
