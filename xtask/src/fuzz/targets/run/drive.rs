//! Driving one [`Run`] through a case's pieces: the first piece is the
//! task; each model request takes the next piece as the reply, and each
//! tool round the next piece per call as that call's result. When the
//! pieces run out the model answers in words and the tools find nothing.
//! The run's steps are counted and the outcome checked against the budget.

use std::sync::{Arc, Mutex};

use agent_core::budget::Estimator;
use agent_core::model::parse_arguments;
use agent_core::run::{RequestOptions, Run, RunConfig, Step};
use agent_core::tool::{Observation, ToolErrorKind};
use agent_core::transport::Transport;
use agent_core::{Budget, Completion, StopReason, ToolCall, ToolOutput, ToolSpec};

use crate::fuzz::targets::Violation;

/// What splits a case into pieces.
pub(crate) const SEPARATOR: char = '␞';
/// The reply once the pieces have run out.
const LAST_REPLY: &str = "I could not find it.";
/// The result of a call once the pieces have run out.
const LAST_RESULT: &str = "No match.";

/// The tools a run offers, as the agent would take them from its toolbox.
#[derive(Debug, Clone)]
pub(crate) struct Tools {
    pub(crate) specs: Vec<ToolSpec>,
    pub(crate) grounded: Vec<String>,
    pub(crate) context: Option<String>,
}

/// Where a run is, for a report when it does not finish.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Progress {
    pub(crate) transport: &'static str,
    /// `next_step` calls made.
    pub(crate) step: usize,
    /// The piece being read (0: the task).
    pub(crate) piece: usize,
    pub(crate) doing: &'static str,
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Ended {
    pub(crate) stop: &'static str,
    pub(crate) steps: u32,
    pub(crate) tool_calls: u32,
    pub(crate) answered: bool,
    pub(crate) forced: bool,
}

/// Runs `pieces` through a run on `transport` (`native`: replies may hold
/// calls as `name {json}` lines); `progress` follows it.
pub(crate) fn drive(
    transport: &Arc<dyn Transport>,
    native: bool,
    tools: &Tools,
    pieces: &[&str],
    progress: &Mutex<Progress>,
) -> Result<Ended, Violation> {
    let budget = Budget::default();
    let config = RunConfig {
        transport: Arc::clone(transport),
        tools: tools.specs.clone(),
        budget: budget.clone(),
        options: RequestOptions::default(),
        estimator: Estimator::default(),
        grounded_tools: tools.grounded.clone(),
        context: tools.context.clone(),
    };
    let name = if native { "native" } else { "text" };
    let mut at = Progress {
        transport: name,
        doing: "Run::new",
        ..Progress::default()
    };
    note(progress, at);
    let mut run = Run::new(pieces.first().copied().unwrap_or(""), Vec::new(), config, 0)
        .map_err(|e| refused("Run::new", &e))?;
    let mut next = 1;
    let mut ids = 0;
    // Each model step is a request and at most one tool round.
    let max = 2 * budget.max_steps as usize + 4;
    for step in 0..max {
        let now = 1000 * step as u64;
        at = Progress {
            step,
            piece: next,
            doing: "next_step",
            ..at
        };
        note(progress, at);
        match run.next_step(now).map_err(|e| refused("next_step", &e))? {
            Step::CallModel(_) => {
                let piece = pieces.get(next).copied();
                next += 1;
                let completion = match piece {
                    Some(piece) if native => native_reply(piece, &tools.specs, &mut ids),
                    Some(piece) => Completion::text(piece),
                    None if native => Completion::text(LAST_REPLY),
                    None => Completion::text(format!("Final Answer: {LAST_REPLY}")),
                };
                note(
                    progress,
                    Progress {
                        doing: "model_turn",
                        ..at
                    },
                );
                run.model_turn(completion, now)
                    .map_err(|e| refused("model_turn", &e))?;
            }
            Step::CallTools(calls) => {
                let results = calls
                    .iter()
                    .map(|call| {
                        let piece = pieces.get(next).copied().unwrap_or(LAST_RESULT);
                        next += 1;
                        observation(call, piece)
                    })
                    .collect();
                note(
                    progress,
                    Progress {
                        doing: "tool_results",
                        ..at
                    },
                );
                run.tool_results(results, now)
                    .map_err(|e| refused("tool_results", &e))?;
            }
            Step::Done(outcome) => {
                if let StopReason::Internal(detail) = &outcome.stop_reason {
                    return Err(Violation::new(
                        "run-outcome",
                        "internal error",
                        format!("{name} transport: {detail}"),
                    ));
                }
                if outcome.steps > budget.max_steps || outcome.tool_calls > budget.max_tool_calls {
                    return Err(Violation::new(
                        "run-outcome",
                        "over the budget",
                        format!(
                            "{name} transport: {} steps, {} tool calls",
                            outcome.steps, outcome.tool_calls
                        ),
                    ));
                }
                return Ok(Ended {
                    stop: outcome.stop_reason.label(),
                    steps: outcome.steps,
                    tool_calls: outcome.tool_calls,
                    answered: outcome.answer.is_some(),
                    forced: outcome.forced_answer,
                });
            }
        }
    }
    Err(Violation::new(
        "run-ends",
        "too many steps",
        format!(
            "{name} transport: not done after {max} steps ({} model steps, {} tool calls)",
            run.steps(),
            run.tool_calls()
        ),
    ))
}

fn note(progress: &Mutex<Progress>, at: Progress) {
    if let Ok(mut progress) = progress.lock() {
        *progress = at;
    }
}

/// The state machine refused an input given by the book.
fn refused(what: &str, error: &dyn std::fmt::Display) -> Violation {
    Violation::new("run-protocol", "input refused", format!("{what}: {error}"))
}

/// A native turn: lines `name {json}` (a word and a JSON object), or
/// `name args` for an offered tool, each start a call whose arguments run
/// to the next such line; the lines before the first call are the text.
/// A piece without such a line is text alone.
pub(crate) fn native_reply(piece: &str, tools: &[ToolSpec], ids: &mut u32) -> Completion {
    let mut text = String::new();
    let mut calls: Vec<(&str, String)> = Vec::new();
    for line in piece.split_inclusive('\n') {
        match call_start(line, tools) {
            Some((name, arguments)) => calls.push((name, arguments.to_string())),
            None => match calls.last_mut() {
                Some((_, arguments)) => arguments.push_str(line),
                None => text.push_str(line),
            },
        }
    }
    if calls.is_empty() {
        return Completion::text(piece);
    }
    let calls = calls
        .into_iter()
        .map(|(name, arguments)| {
            *ids += 1;
            ToolCall::new(format!("call_{ids}"), name, parse_arguments(arguments))
        })
        .collect();
    Completion {
        text,
        ..Completion::tool_calls(calls)
    }
}

fn call_start<'a>(line: &'a str, tools: &[ToolSpec]) -> Option<(&'a str, &'a str)> {
    let (name, arguments) = line.split_once(' ')?;
    let word = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
    let offered = tools.iter().any(|t| t.name == name);
    (word && (offered || arguments.starts_with('{'))).then_some((name, arguments))
}

/// The result of `call`: `piece` as its text; a failure when it starts
/// with `Error`, a lookup that found nothing when it starts with `No `.
pub(crate) fn observation(call: &ToolCall, piece: &str) -> Observation {
    let mut observation = Observation::ok(call, ToolOutput::new(piece));
    if piece.starts_with("Error") {
        observation.error = Some(if piece.contains("invalid") {
            ToolErrorKind::InvalidArgs
        } else {
            ToolErrorKind::Failed
        });
    } else if piece.starts_with("No ") {
        observation.no_results = true;
    }
    observation
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn spec(name: &str) -> ToolSpec {
        ToolSpec {
            name: name.into(),
            description: String::new(),
            parameters: json!({"type": "object"}),
        }
    }

    #[test]
    fn native_lines_become_calls_with_their_arguments() {
        let tools = [spec("calculator"), spec("grep")];
        let mut ids = 0;
        let reply = native_reply(
            "Let me look.\ngrep {\"pattern\": \"ERROR\",\n \"path\": \"logs\"}\ncalculator 2 + 2\n",
            &tools,
            &mut ids,
        );
        assert_eq!(reply.text, "Let me look.\n");
        let calls: Vec<(&str, &str, &serde_json::Value)> = reply
            .tool_calls
            .iter()
            .map(|c| (c.id.as_str(), c.name.as_str(), &c.arguments))
            .collect();
        assert_eq!(
            calls,
            vec![
                (
                    "call_1",
                    "grep",
                    &json!({"pattern": "ERROR", "path": "logs"})
                ),
                ("call_2", "calculator", &json!("2 + 2\n")),
            ]
        );
        let words = native_reply("The answer is 4.", &tools, &mut ids);
        assert!(words.tool_calls.is_empty());
        assert_eq!(words.text, "The answer is 4.");
        let unknown = native_reply("lookup {\"q\": 1", &tools, &mut ids);
        assert_eq!(unknown.tool_calls[0].arguments, json!("{\"q\": 1"));
    }

    #[test]
    fn results_starting_with_error_or_no_are_failures_or_empty() {
        let call = ToolCall::new("c", "grep", json!({}));
        assert!(observation(&call, "Error (invalid_args): bad").is_error());
        assert!(!observation(&call, "No match.").found_something());
        assert!(observation(&call, "logs/app.log.1:2: x").found_something());
    }
}
