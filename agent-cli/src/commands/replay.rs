//! `agent replay`: prints a trace as the live view would; `--verify`
//! re-runs it with `ReplayModel`, the recorded transport, tools, budget and
//! conversation, and reports whether the outcome is identical. A trace
//! with no stop record (the run was killed) is reported as incomplete,
//! with how far it replayed identically.

use std::sync::{Arc, Mutex};

use agent_core::agent::RunControl;
use agent_core::event::EventSink;
use agent_core::trace::{ReplayModel, TraceRecord, read_trace};
use agent_core::{
    Agent, Event, StopReason, Task, ToolCall, ToolError, ToolOutput, ToolSpec, Toolbox,
};
use agent_tools::{ToolSet, builtin};
use async_trait::async_trait;

use crate::cli::{ReplayArgs, TransportKind};
use crate::exit::{CliError, FAILURE, OK};
use crate::setup;
use crate::toolbox::builtin_group;
use crate::view::LiveView;

/// What a run did, as its events tell.
#[derive(Debug, Default, PartialEq)]
struct Summary {
    answer: Option<String>,
    stop: Option<StopReason>,
    steps: u32,
    tool_calls: u32,
    observations: Vec<String>,
}

fn summarize<'a>(events: impl Iterator<Item = &'a Event>) -> Summary {
    let mut summary = Summary::default();
    for event in events {
        match event {
            Event::FinalAnswer { answer } => summary.answer = Some(answer.clone()),
            Event::Observation { observation } => {
                summary.observations.push(observation.content.clone())
            }
            Event::Stopped {
                reason,
                steps,
                tool_calls,
                ..
            } => {
                summary.stop = Some(reason.clone());
                summary.steps = *steps;
                summary.tool_calls = *tool_calls;
            }
            _ => {}
        }
    }
    summary
}

#[derive(Default)]
struct Collect(Mutex<Vec<Event>>);

impl EventSink for Collect {
    fn emit(&self, event: &Event) {
        if let Ok(mut events) = self.0.lock() {
            events.push(event.clone());
        }
    }
}

/// Prints (and optionally verifies) a trace.
pub(crate) async fn replay(args: &ReplayArgs) -> Result<u8, CliError> {
    let records = read_trace(&args.file).map_err(|e| CliError::Failure(e.to_string()))?;
    let view = LiveView::new();
    for record in &records {
        view.emit(&record.event);
    }
    view.finish();
    if !args.verify {
        return Ok(OK);
    }
    verify(&records, args).await
}

fn tool_groups(tools: &[String]) -> Result<(Vec<&'static str>, bool), CliError> {
    let mut groups = Vec::new();
    let mut writes = false;
    for tool in tools {
        let Some(group) = builtin_group(tool) else {
            return Err(CliError::Failure(format!(
                "cannot verify: the trace uses the tool `{tool}`; --verify runs only the built-in tools"
            )));
        };
        writes |= matches!(tool.as_str(), "write_file" | "edit_file");
        if !groups.contains(&group) {
            groups.push(group);
        }
    }
    Ok((groups, !writes))
}

async fn verify(records: &[TraceRecord], args: &ReplayArgs) -> Result<u8, CliError> {
    let Some((task, context, transport, tools, budget)) =
        records.iter().find_map(|r| match &r.event {
            Event::RunStarted {
                task,
                context,
                history,
                transport,
                tools,
                budget,
            } => Some((
                Task::new(task.clone()).with_history(history.clone()),
                context.clone(),
                transport.clone(),
                tools.clone(),
                budget.clone(),
            )),
            _ => None,
        })
    else {
        return Err(CliError::Failure(
            "cannot verify: the trace has no run_started record".into(),
        ));
    };
    let kind = match transport.as_str() {
        "text" => TransportKind::Text,
        "native" => TransportKind::Native,
        other => {
            return Err(CliError::Failure(format!(
                "cannot verify: unknown transport `{other}`"
            )));
        }
    };
    let (groups, read_only) = tool_groups(&tools)?;
    let tools = builtin::registry(&groups, Some(&args.dir), read_only)
        .map_err(|e| CliError::Failure(e.to_string()))?
        .allow_all();
    let toolbox = RecordedContext { tools, context };
    let agent = Agent::builder()
        .model(ReplayModel::from_records(records))
        .transport(setup::transport(kind))
        .toolbox(toolbox)
        .budget(budget)
        .build()
        .map_err(|e| CliError::Failure(e.to_string()))?;
    let collect = Arc::new(Collect::default());
    let control = RunControl::default().with_sink(Arc::clone(&collect));
    agent.run_with(task, &control).await;
    let recorded = summarize(records.iter().map(|r| &r.event));
    let events = collect.0.lock().map(|e| e.clone()).unwrap_or_default();
    let replayed = summarize(events.iter());
    if recorded.stop.is_none() {
        return Ok(incomplete(records, &events));
    }
    if recorded == replayed {
        println!(
            "verify: identical — stop {}, steps {}, tool calls {}, {} observations",
            recorded
                .stop
                .as_ref()
                .map_or("none".to_string(), |s| s.to_string()),
            recorded.steps,
            recorded.tool_calls,
            recorded.observations.len()
        );
        Ok(OK)
    } else {
        println!("verify: differs\n  recorded: {recorded:?}\n  replayed: {replayed:?}");
        Ok(FAILURE)
    }
}

/// The replayed run's tools, giving the model what the recorded run's
/// toolbox gave it after the task (the file overview, when it was on), as
/// recorded: the opening message is the recorded one whatever `--dir`
/// holds now.
struct RecordedContext {
    tools: ToolSet,
    context: Option<String>,
}

#[async_trait]
impl Toolbox for RecordedContext {
    fn specs(&self) -> Vec<ToolSpec> {
        self.tools.specs()
    }
    fn is_sequential(&self, name: &str) -> bool {
        self.tools.is_sequential(name)
    }
    fn needs_grounded_numbers(&self, name: &str) -> bool {
        self.tools.needs_grounded_numbers(name)
    }
    async fn call(&self, call: &ToolCall) -> Result<ToolOutput, ToolError> {
        self.tools.call(call).await
    }
    fn context(&self) -> Option<String> {
        self.context.clone()
    }
}

/// Model turns with the observations that followed each, step by step.
fn steps(events: &[Event]) -> Vec<(String, Vec<String>)> {
    let mut steps: Vec<(String, Vec<String>)> = Vec::new();
    for event in events {
        match event {
            Event::ModelResponded { completion, .. } => steps.push((
                serde_json::to_string(completion).unwrap_or_default(),
                Vec::new(),
            )),
            Event::Observation { observation } => {
                if let Some(last) = steps.last_mut() {
                    last.1.push(observation.content.clone());
                }
            }
            _ => {}
        }
    }
    steps
}

/// A trace with no stop record: how many recorded steps replayed the same.
fn incomplete(records: &[TraceRecord], replayed: &[Event]) -> u8 {
    let recorded: Vec<Event> = records.iter().map(|r| r.event.clone()).collect();
    let recorded = steps(&recorded);
    let replayed = steps(replayed);
    let same = recorded
        .iter()
        .zip(&replayed)
        .take_while(|(a, b)| {
            // The last recorded step may have been cut before its observations.
            a.0 == b.0 && (a.1 == b.1 || a.1.is_empty())
        })
        .count();
    println!(
        "verify: the trace is incomplete (no stop record: the run was interrupted); {same} of its {} recorded steps replayed identically",
        recorded.len()
    );
    if same == recorded.len() { OK } else { FAILURE }
}
