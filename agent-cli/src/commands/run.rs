//! `agent run`: one task to its answer, shown live; Ctrl-C cancels cleanly
//! and the trace keeps everything done so far.

use std::io::IsTerminal;
use std::sync::Arc;

use agent_core::{Agent, CancellationToken, EventSink, Outcome, RunControl, TraceWriter};

use crate::cli::RunArgs;
use crate::exit::{CliError, for_stop};
use crate::setup;
use crate::view::LiveView;

/// Runs the task; returns the exit code.
pub async fn run(args: RunArgs) -> Result<u8, CliError> {
    let mut builder = setup::agent_builder(&args.model, &args.tools, &args.budget, args.transport)?;
    if let Some(path) = &args.trace {
        let writer = TraceWriter::create(path).map_err(|e| CliError::Failure(e.to_string()))?;
        builder = builder.sink(Arc::new(writer));
    }
    let agent = builder
        .build()
        .map_err(|e| CliError::Usage(e.to_string()))?;
    let view = (!args.quiet).then(LiveView::new);
    let outcome = run_cancellable(&agent, &args.task, view.as_ref()).await;
    if let Some(view) = &view {
        view.finish();
    }
    print_outcome(&outcome, args.json, args.quiet)?;
    Ok(for_stop(&outcome.stop_reason))
}

/// Runs `task`; Ctrl-C cancels it (the outcome says `Cancelled`).
pub async fn run_cancellable(agent: &Agent, task: &str, view: Option<&Arc<LiveView>>) -> Outcome {
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    let ctrl_c = tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            trigger.cancel();
        }
    });
    let mut control = RunControl::default().with_cancel(cancel);
    if let Some(view) = view {
        control = control.with_sink(Arc::clone(view) as Arc<dyn EventSink>);
    }
    let outcome = agent.run_with(task, &control).await;
    ctrl_c.abort();
    outcome
}

fn print_outcome(outcome: &Outcome, json: bool, quiet: bool) -> Result<(), CliError> {
    if json {
        let text = serde_json::to_string(outcome).map_err(|e| CliError::Failure(e.to_string()))?;
        println!("{text}");
        return Ok(());
    }
    // The live view already showed the answer on a terminal.
    let shown = !quiet && std::io::stdout().is_terminal();
    match &outcome.answer {
        Some(answer) if !shown => println!("{answer}"),
        Some(_) => {}
        None if quiet => eprintln!("{}", LiveView::summary(outcome)),
        None => {}
    }
    Ok(())
}
