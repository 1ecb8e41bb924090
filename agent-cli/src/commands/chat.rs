//! `agent chat`: a REPL. Each line is a task in the same conversation (the
//! earlier questions and answers go with it); `/transport text|native`,
//! `/tools a,b`, `/reset`, `/exit`. Ctrl-C cancels the running task only.

use std::io::{IsTerminal, Write};

use agent_core::Agent;
use tokio::io::{AsyncBufReadExt, BufReader};

use crate::cli::{ChatArgs, RUN_TOOLS, TransportKind};
use crate::commands::run::run_cancellable;
use crate::exit::{CliError, OK};
use crate::setup;
use crate::view::LiveView;

/// How many earlier exchanges go with each task.
const HISTORY: usize = 6;

/// Runs the REPL until `/exit` or end of input.
pub async fn chat(mut args: ChatArgs) -> Result<u8, CliError> {
    let budget = setup::budget(&args.budget)?;
    // Fail early, in one line, when no model is configured.
    setup::model(&args.model, budget.timeout.unwrap_or_default())?;
    let interactive = std::io::stdin().is_terminal();
    let mut lines = BufReader::new(tokio::io::stdin()).lines();
    let mut history: Vec<(String, String)> = Vec::new();
    let view = LiveView::new();
    eprintln!("agent chat — /transport text|native, /tools a,b, /reset, /exit");
    loop {
        if interactive {
            eprint!("you> ");
            let _ = std::io::stderr().flush();
        }
        let Ok(Some(line)) = lines.next_line().await else {
            break;
        };
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        if let Some(command) = line.strip_prefix('/') {
            let (name, value) = command
                .split_once(' ')
                .map_or((command, ""), |(n, v)| (n, v.trim()));
            match name {
                "exit" | "quit" => break,
                "reset" => {
                    history.clear();
                    eprintln!("conversation cleared");
                }
                "transport" => match value {
                    "text" => args.transport = TransportKind::Text,
                    "native" => args.transport = TransportKind::Native,
                    _ => eprintln!("usage: /transport text|native (now {:?})", args.transport),
                },
                "tools" if !value.is_empty() => {
                    args.tools.tools =
                        Some(value.split(',').map(|s| s.trim().to_string()).collect());
                    match setup::registry(&args.tools, RUN_TOOLS) {
                        Ok(registry) => eprintln!("tools: {}", registry.names().join(", ")),
                        Err(e) => eprintln!("error: {e}"),
                    }
                }
                "tools" => eprintln!("tools: {}", args.tools.groups(RUN_TOOLS).join(", ")),
                other => eprintln!("unknown command /{other}"),
            }
            continue;
        }
        let agent = match build(&args) {
            Ok(agent) => agent,
            Err(e) => {
                eprintln!("error: {e}");
                continue;
            }
        };
        let outcome = run_cancellable(&agent, &with_history(&history, line), Some(&view)).await;
        view.finish();
        if let Some(answer) = &outcome.answer {
            if !std::io::stderr().is_terminal() {
                println!("{answer}");
            }
            history.push((line.to_string(), answer.clone()));
            if history.len() > HISTORY {
                history.remove(0);
            }
        }
    }
    Ok(OK)
}

fn build(args: &ChatArgs) -> Result<Agent, CliError> {
    setup::agent_builder(&args.model, &args.tools, &args.budget, args.transport)?
        .build()
        .map_err(|e| CliError::Usage(e.to_string()))
}

fn with_history(history: &[(String, String)], task: &str) -> String {
    if history.is_empty() {
        return task.to_string();
    }
    let mut text = String::from("Earlier in this conversation:\n");
    for (question, answer) in history {
        text.push_str(&format!("Q: {question}\nA: {answer}\n"));
    }
    text.push_str(&format!("Now: {task}"));
    text
}
