//! `agent run`: one task to its answer, shown live. Ctrl-C or SIGTERM
//! cancels cleanly: the outcome is printed and the trace closed with its
//! stop record. A trace that could not be written is reported once, after
//! the outcome. The MCP servers given start before the run and stop when
//! it ends.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex};

use agent_core::agent::{CancellationToken, RunControl};
use agent_core::event::EventSink;
use agent_core::trace::TraceWriter;
use agent_core::{Agent, Event, Outcome, StopReason, Task};

use crate::cli::{RUN_TOOLS, RunArgs};
use crate::exit::{CANCELLED, CliError, FAILURE, OK, TERMINATED, for_stop};
use crate::overrides::PromptOverrides;
use crate::view::LiveView;
use crate::{mcp, setup};

/// Runs the task; returns the exit code.
pub(crate) async fn run(args: RunArgs) -> Result<u8, CliError> {
    let task = setup::task(&args.task)?.to_string();
    let prompt = PromptOverrides::read(&args.prompt)?;
    let builder = setup::agent_builder(&args.model, &args.budget, args.transport, &prompt)?;
    // The servers live as long as the run: `servers` is dropped on return,
    // which stops them.
    let servers = mcp::start(&args.mcp).await?;
    let tools = setup::tools(&args.tools, RUN_TOOLS, &servers, &args.budget)?;
    let mut builder = builder.toolbox(tools);
    let trace = match &args.trace {
        Some(path) => {
            let writer = TraceWriter::create(path).map_err(|e| CliError::Failure(e.to_string()))?;
            let trace = Arc::new(Trace {
                writer,
                error: Mutex::new(None),
            });
            builder = builder.sink(Arc::clone(&trace));
            Some(trace)
        }
        None => None,
    };
    let agent = builder
        .build()
        .map_err(|e| CliError::Usage(e.to_string()))?;
    let view = (!args.quiet).then(LiveView::new);
    let (outcome, signal) = run_cancellable(&agent, Task::new(task), view.as_ref()).await;
    if let Some(view) = &view {
        view.finish();
    }
    print_outcome(&outcome, args.json, args.quiet)?;
    let mut code = match (&outcome.stop_reason, signal) {
        (StopReason::Cancelled, Some(code)) => code,
        (reason, _) => for_stop(reason),
    };
    if let Some(error) = trace.as_ref().and_then(|t| t.error()) {
        eprintln!("error: the trace is incomplete: {error}");
        if code == OK {
            code = FAILURE;
        }
    }
    drop(servers);
    Ok(code)
}

/// The run's trace. Each event goes to the [`TraceWriter`]; a write that
/// fails is kept, not logged, so it is reported once, in one line, after
/// the outcome.
#[derive(Debug)]
struct Trace {
    writer: TraceWriter,
    error: Mutex<Option<String>>,
}

impl Trace {
    /// The first write error, if a write failed (the trace is incomplete).
    fn error(&self) -> Option<String> {
        self.error
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone()
    }
}

impl EventSink for Trace {
    fn emit(&self, event: &Event) {
        if let Err(error) = self.writer.write(event) {
            let mut first = self
                .error
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            if first.is_none() {
                *first = Some(error.to_string());
            }
        }
    }
}

/// Runs `task`; Ctrl-C or SIGTERM cancels it. Returns the outcome, and the
/// exit code of the signal that cancelled it, if one did.
pub(crate) async fn run_cancellable(
    agent: &Agent,
    task: Task,
    view: Option<&Arc<LiveView>>,
) -> (Outcome, Option<u8>) {
    let cancel = CancellationToken::new();
    let signal = Arc::new(AtomicU8::new(0));
    let watcher = tokio::spawn(watch_signals(cancel.clone(), Arc::clone(&signal)));
    let mut control = RunControl::default().with_cancel(cancel);
    if let Some(view) = view {
        control = control.with_sink(Arc::clone(view));
    }
    let outcome = agent.run_with(task, &control).await;
    watcher.abort();
    let code = signal.load(Ordering::SeqCst);
    (outcome, (code != 0).then_some(code))
}

/// Waits for Ctrl-C or SIGTERM, records which, and cancels.
async fn watch_signals(cancel: CancellationToken, signal: Arc<AtomicU8>) {
    let code = wait_for_signal().await;
    signal.store(code, Ordering::SeqCst);
    cancel.cancel();
}

#[cfg(unix)]
async fn wait_for_signal() -> u8 {
    use tokio::signal::unix::{SignalKind, signal};
    let mut term = match signal(SignalKind::terminate()) {
        Ok(term) => term,
        Err(_) => {
            let _ = tokio::signal::ctrl_c().await;
            return CANCELLED;
        }
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => CANCELLED,
        _ = term.recv() => TERMINATED,
    }
}

#[cfg(not(unix))]
async fn wait_for_signal() -> u8 {
    let _ = tokio::signal::ctrl_c().await;
    CANCELLED
}

fn print_outcome(outcome: &Outcome, json: bool, quiet: bool) -> Result<(), CliError> {
    if json {
        let text = serde_json::to_string(outcome).map_err(|e| CliError::Failure(e.to_string()))?;
        println!("{text}");
        return Ok(());
    }
    // The live view already showed the answer (or the stop) on a terminal.
    let shown = !quiet && std::io::stdout().is_terminal();
    match &outcome.answer {
        Some(answer) if !shown => println!("{answer}"),
        Some(_) => {}
        // Quiet: no summary line, but a run that failed says why, once.
        None if quiet => match &outcome.stop_reason {
            StopReason::Model(error) => eprintln!("error: {error}"),
            reason => eprintln!("error: the run stopped without an answer ({reason})"),
        },
        None => {}
    }
    Ok(())
}
