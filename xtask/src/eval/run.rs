//! One eval run: a task in a fresh temporary directory, the agent a user
//! gets from the CLI's defaults (transport, budget, generation cap), and a
//! record of what happened, with each request's usage as the server
//! reported it.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use agent_core::event::EventSink;
use agent_core::message::Usage;
use agent_core::run::{RequestOptions, Run, RunConfig, Step};
use agent_core::trace::TraceWriter;
use agent_core::{Agent, Budget, Complete, Event, StopReason, Transport};
use agent_native::{NativeTransport, OpenAiCompatible};
use agent_text::TextTransport;
use agent_tools::builtin::{self, BuiltinOptions};

use super::judge::is_right;
use super::tasks::{Task, materialize};

/// Tokens generated per request at most (the CLI's cap).
const MAX_GENERATED_TOKENS: u32 = 1024;

/// The transports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Text,
    Native,
}

impl Kind {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Kind::Text => "text",
            Kind::Native => "native",
        }
    }

    fn transport(self) -> Arc<dyn Transport> {
        match self {
            Kind::Text => Arc::new(TextTransport::new()),
            Kind::Native => Arc::new(NativeTransport::new()),
        }
    }
}

/// What every run shares.
#[derive(Debug)]
pub(crate) struct Settings {
    pub(crate) provider: Arc<OpenAiCompatible>,
    pub(crate) stream: bool,
    pub(crate) timeout: Duration,
    /// Where each run's trace goes, when asked.
    pub(crate) traces: Option<PathBuf>,
    /// Whether runs with the file tools open with the directory's overview.
    pub(crate) file_overview: bool,
}

/// What one run did.
#[derive(Debug, Clone)]
pub(crate) struct Record {
    pub(crate) id: String,
    pub(crate) split: String,
    pub(crate) category: String,
    pub(crate) transport: &'static str,
    pub(crate) right: bool,
    /// A typed stop that is not an internal error.
    pub(crate) clean: bool,
    pub(crate) stop_reason: String,
    pub(crate) answer: Option<String>,
    pub(crate) forced_answer: bool,
    /// The answer's numbers that no tool result held (`Outcome::ungrounded_numbers`).
    pub(crate) ungrounded_numbers: Vec<String>,
    pub(crate) steps: u32,
    pub(crate) requests: usize,
    pub(crate) tool_calls: u32,
    /// Usage of each request, as the server reported it (`None`: it did not).
    pub(crate) usages: Vec<Option<Usage>>,
    pub(crate) seconds: f64,
}

impl Record {
    pub(crate) fn prompt_tokens(&self) -> u64 {
        self.usages.iter().flatten().map(|u| u.prompt_tokens).sum()
    }

    pub(crate) fn completion_tokens(&self) -> u64 {
        self.usages
            .iter()
            .flatten()
            .map(|u| u.completion_tokens)
            .sum()
    }

    /// Prompt tokens served from the server's cache, when it said so for
    /// every request.
    pub(crate) fn cached_prompt_tokens(&self) -> Option<u64> {
        self.usages
            .iter()
            .map(|u| u.as_ref().and_then(|u| u.cached_prompt_tokens))
            .sum()
    }

    /// For each request after the first: the share of what the server
    /// had already processed (the previous request's prompt and the reply
    /// it generated) that it served from its cache, where it said. This
    /// is what append-only requests control; the new observation's tokens
    /// cannot be cached.
    pub(crate) fn later_prefix_reuse(&self) -> Vec<f64> {
        self.usages
            .windows(2)
            .filter_map(|pair| {
                let (before, now) = (pair[0].as_ref()?, pair[1].as_ref()?);
                let seen = before.prompt_tokens + before.completion_tokens;
                let cached = now.cached_prompt_tokens?;
                (seen > 0).then(|| (cached as f64 / seen as f64).min(1.0))
            })
            .collect()
    }

    /// For each request after the first: the share of its prompt served
    /// from the cache, where the server said.
    pub(crate) fn later_cache_shares(&self) -> Vec<f64> {
        self.usages
            .iter()
            .skip(1)
            .flatten()
            .filter_map(|u| {
                let cached = u.cached_prompt_tokens?;
                (u.prompt_tokens > 0).then(|| cached as f64 / u.prompt_tokens as f64)
            })
            .collect()
    }
}

/// Keeps each request's reported usage.
#[derive(Default)]
struct Usages(Mutex<Vec<Option<Usage>>>);

impl EventSink for Usages {
    fn emit(&self, event: &Event) {
        if let Event::ModelResponded { completion, .. } = event
            && let Ok(mut usages) = self.0.lock()
        {
            usages.push(completion.usage.filter(|u| !u.estimated));
        }
    }
}

fn budget(timeout: Duration) -> Budget {
    Budget {
        timeout: Some(timeout),
        ..Budget::default()
    }
}

fn options() -> RequestOptions {
    RequestOptions {
        max_tokens: Some(MAX_GENERATED_TOKENS),
        ..RequestOptions::default()
    }
}

/// Runs one task on one transport.
pub(crate) async fn run_task(
    task: &Task,
    kind: Kind,
    settings: &Settings,
) -> Result<Record, String> {
    let dir = tempfile::tempdir().map_err(|e| format!("cannot make a temporary directory: {e}"))?;
    materialize(task, dir.path())?;
    let builtins = BuiltinOptions {
        dir: Some(dir.path()),
        read_only: true,
        file_overview: settings.file_overview,
    };
    let tools = builtin::registry_with(&task.tools, builtins)
        .map_err(|e| format!("{}: {e}", task.id))?
        .allow_all();
    let usages = Arc::new(Usages::default());
    let mut builder = Agent::builder();
    if let Some(dir) = &settings.traces {
        let path = dir.join(format!("{}-{}.jsonl", task.id, kind.name()));
        let trace = TraceWriter::create(&path).map_err(|e| e.to_string())?;
        builder = builder.sink(trace);
    }
    let agent = builder
        .model(Arc::clone(&settings.provider))
        .transport(kind.transport())
        .toolbox(tools)
        .budget(budget(settings.timeout))
        .streaming(settings.stream)
        .request_options(options())
        .sink(Arc::clone(&usages))
        .build()
        .map_err(|e| format!("{}: {e}", task.id))?;
    let started = Instant::now();
    let outcome = agent.run(task.task.as_str()).await;
    let usages = usages.0.lock().map(|u| u.clone()).unwrap_or_default();
    Ok(Record {
        id: task.id.clone(),
        split: task.split.clone(),
        category: task.category.clone(),
        transport: kind.name(),
        right: is_right(task, outcome.answer.as_deref()),
        clean: !matches!(outcome.stop_reason, StopReason::Internal(_)),
        stop_reason: outcome.stop_reason.to_string(),
        answer: outcome.answer.clone(),
        forced_answer: outcome.forced_answer,
        ungrounded_numbers: outcome.ungrounded_numbers.clone(),
        steps: outcome.steps,
        requests: usages.len(),
        tool_calls: outcome.tool_calls,
        usages,
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// The task of the first-request probe.
pub(crate) const PROBE_TASK: &str = "What is 2 + 2?";

/// The size of a run's first request with the calculator and search tools,
/// as the server counts it (`None` when it does not say).
pub(crate) async fn first_request_tokens(kind: Kind, settings: &Settings) -> Option<u64> {
    let tools = builtin::registry(&["calculator", "search"], None, true)
        .ok()?
        .allow_all();
    let config = RunConfig {
        transport: kind.transport(),
        tools: agent_core::Toolbox::specs(&tools),
        budget: budget(settings.timeout),
        options: RequestOptions {
            max_tokens: Some(1),
            ..RequestOptions::default()
        },
        estimator: Default::default(),
        grounded_tools: Vec::new(),
        context: agent_core::Toolbox::context(&tools),
    };
    let mut run = Run::new(PROBE_TASK, Vec::new(), config, 0).ok()?;
    let Ok(Step::CallModel(request)) = run.next_step(0) else {
        return None;
    };
    let completion = settings.provider.complete(&request).await.ok()?;
    completion.usage.map(|u| u.prompt_tokens)
}
