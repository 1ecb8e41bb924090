//! [`AgentBuilder`]: assembles an [`Agent`] and checks it can work. Tools
//! come either as one [`Toolbox`] or one by one through a
//! [`ToolboxDraft`] that a toolbox crate provides (`agent-tools` adds
//! `.tool(…)` this way, so single tools go through its gateway too).

use std::any::Any;
use std::fmt;
use std::sync::Arc;

use crate::budget::{Budget, BudgetError, Estimator, TokenEstimator};
use crate::event::EventSink;
use crate::hook::Hook;
use crate::model::Complete;
use crate::run::RequestOptions;
use crate::tool::Toolbox;
use crate::transport::Transport;

use super::Agent;

/// Tool calls of one round that run at once, by default.
const DEFAULT_MAX_PARALLEL: usize = 8;

/// A configuration the agent cannot run with.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AgentError {
    /// No model was given.
    #[error("the agent needs a model")]
    MissingModel,
    /// No transport was given.
    #[error("the agent needs a transport")]
    MissingTransport,
    /// No tools were given (an agent with none takes an empty toolbox).
    #[error("the agent needs a toolbox, or tools added one by one")]
    MissingToolbox,
    /// Both a whole toolbox and single tools were given.
    #[error("give the agent either a toolbox or single tools, not both")]
    ToolboxAndTools,
    /// The single tools could not be assembled (e.g. two share a name).
    #[error("the tools cannot be used: {0}")]
    Tools(String),
    /// The budget cannot work.
    #[error("invalid budget: {0}")]
    Budget(#[from] BudgetError),
    /// `max_parallel_tools` is zero.
    #[error("max_parallel_tools must be at least 1")]
    ZeroParallelism,
}

/// A toolbox assembled tool by tool on an [`AgentBuilder`]. Toolbox crates
/// implement it to offer `.tool(…)` on the builder.
pub trait ToolboxDraft: Send + Sync + 'static {
    /// The finished toolbox, or why the tools cannot be used.
    fn finish(self: Box<Self>) -> Result<Arc<dyn Toolbox>, String>;
    /// The draft as `Any`, so the builder can hand it back typed.
    fn as_any_mut(&mut self) -> &mut dyn Any;
}

/// Builds an [`Agent`].
pub struct AgentBuilder {
    model: Option<Arc<dyn Complete>>,
    transport: Option<Arc<dyn Transport>>,
    toolbox: Option<Arc<dyn Toolbox>>,
    draft: Option<Box<dyn ToolboxDraft>>,
    budget: Budget,
    answer_turn: Option<bool>,
    hooks: Vec<Arc<dyn Hook>>,
    sinks: Vec<Arc<dyn EventSink>>,
    max_parallel: usize,
    streaming: bool,
    options: RequestOptions,
    estimator: Estimator,
}

impl fmt::Debug for AgentBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AgentBuilder")
            .field("model", &self.model.is_some())
            .field("transport", &self.transport.as_ref().map(|t| t.id()))
            .field("toolbox", &self.toolbox.is_some())
            .field("draft", &self.draft.is_some())
            .field("budget", &self.budget)
            .finish_non_exhaustive()
    }
}

impl Default for AgentBuilder {
    fn default() -> Self {
        Self::new()
    }
}

impl AgentBuilder {
    /// An empty builder.
    pub fn new() -> Self {
        Self {
            model: None,
            transport: None,
            toolbox: None,
            draft: None,
            budget: Budget::default(),
            answer_turn: None,
            hooks: Vec::new(),
            sinks: Vec::new(),
            max_parallel: DEFAULT_MAX_PARALLEL,
            streaming: false,
            options: RequestOptions::default(),
            estimator: Estimator::default(),
        }
    }

    /// The model (owned, or shared as an `Arc`).
    pub fn model(mut self, model: impl Complete + 'static) -> Self {
        self.model = Some(Arc::new(model));
        self
    }

    /// The transport (owned, or shared as an `Arc`).
    pub fn transport(mut self, transport: impl Transport + 'static) -> Self {
        self.transport = Some(Arc::new(transport));
        self
    }

    /// All the tools at once (owned, or shared as an `Arc`).
    pub fn toolbox(mut self, toolbox: impl Toolbox + 'static) -> Self {
        self.toolbox = Some(Arc::new(toolbox));
        self
    }

    /// Edits the tool-by-tool draft of type `D`, starting one if there is
    /// none (for toolbox crates; users call their `.tool(…)`).
    pub fn with_toolbox_draft<D: ToolboxDraft + Default>(
        mut self,
        edit: impl FnOnce(&mut D),
    ) -> Self {
        let fits = self
            .draft
            .as_mut()
            .is_some_and(|d| d.as_any_mut().is::<D>());
        if !fits {
            self.draft = Some(Box::new(D::default()));
        }
        if let Some(draft) = self
            .draft
            .as_mut()
            .and_then(|d| d.as_any_mut().downcast_mut::<D>())
        {
            edit(draft);
        }
        self
    }

    /// The budget (default: [`Budget::default`]).
    pub fn budget(mut self, budget: Budget) -> Self {
        self.budget = budget;
        self
    }

    /// Whether a run that stops on its step or tool-call budget or on a
    /// repeated call makes one forced answer turn first (default on; see
    /// [`Budget::answer_turn`]). Wins over the budget's setting whichever
    /// is called first.
    pub fn answer_turn(mut self, on: bool) -> Self {
        self.answer_turn = Some(on);
        self
    }

    /// Adds a hook; hooks run in the order added.
    pub fn hook(mut self, hook: impl Hook + 'static) -> Self {
        self.hooks.push(Arc::new(hook));
        self
    }

    /// Adds an event sink for every run (e.g. a
    /// [`TraceWriter`](crate::trace::TraceWriter), or an `Arc` you keep).
    pub fn sink(mut self, sink: impl EventSink + 'static) -> Self {
        self.sinks.push(Arc::new(sink));
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

    /// Generation options: max tokens, temperature.
    pub fn request_options(mut self, options: RequestOptions) -> Self {
        self.options = options;
        self
    }

    /// The token estimator for budgets (default:
    /// [`BytesPerToken`](crate::budget::BytesPerToken)). Runs use it from
    /// their first request, system prompt and tools included.
    pub fn estimator(mut self, estimator: impl TokenEstimator + 'static) -> Self {
        self.estimator = Estimator::new(estimator);
        self
    }

    /// Checks the configuration and builds the agent.
    pub fn build(mut self) -> Result<Agent, AgentError> {
        if let Some(on) = self.answer_turn {
            self.budget.answer_turn = on;
        }
        self.budget.validate()?;
        if self.max_parallel == 0 {
            return Err(AgentError::ZeroParallelism);
        }
        let toolbox = match (self.toolbox, self.draft) {
            (Some(_), Some(_)) => return Err(AgentError::ToolboxAndTools),
            (Some(toolbox), None) => toolbox,
            (None, Some(draft)) => draft.finish().map_err(AgentError::Tools)?,
            (None, None) => return Err(AgentError::MissingToolbox),
        };
        Ok(Agent {
            model: self.model.ok_or(AgentError::MissingModel)?,
            transport: self.transport.ok_or(AgentError::MissingTransport)?,
            toolbox,
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
