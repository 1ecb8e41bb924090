//! `agent chat`: a REPL. Each line is a task in one conversation: every
//! run continues the previous run's messages as real messages, so a
//! server's prompt cache keeps serving the earlier turns. `/transport
//! text|native`, `/tools a,b`, `/reset`, `/exit`; a command that fails
//! leaves the previous setting in place. Ctrl-C cancels the running task
//! only.

use std::io::{IsTerminal, Write};

use agent_core::message::Message;
use agent_core::{Agent, Task};
use tokio::io::{AsyncBufReadExt, BufReader};

use crate::cli::{ChatArgs, RUN_TOOLS, TransportKind};
use crate::commands::run::run_cancellable;
use crate::exit::{CliError, OK};
use crate::setup;
use crate::view::LiveView;

/// Runs the REPL until `/exit` or end of input.
pub(crate) async fn chat(mut args: ChatArgs) -> Result<u8, CliError> {
    // Fail early, in one line, on a bad configuration.
    build(&args)?;
    let interactive = std::io::stdin().is_terminal();
    let mut lines = BufReader::new(tokio::io::stdin()).lines();
    let mut history: Vec<Message> = Vec::new();
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
            if !command_line(command, &mut args, &mut history) {
                break;
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
        let task = Task::new(line).with_history(history.clone());
        let (outcome, _) = run_cancellable(&agent, task, Some(&view)).await;
        view.finish();
        if let Some(answer) = &outcome.answer {
            if !std::io::stderr().is_terminal() {
                println!("{answer}");
            }
        }
        // The conversation goes on from this run, answered or not.
        history = outcome.conversation().to_vec();
    }
    Ok(OK)
}

/// Handles a `/command`; `false` to leave the chat.
fn command_line(command: &str, args: &mut ChatArgs, history: &mut Vec<Message>) -> bool {
    let (name, value) = command
        .split_once(' ')
        .map_or((command, ""), |(n, v)| (n, v.trim()));
    match name {
        "exit" | "quit" => return false,
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
            let mut tools = args.tools.clone();
            tools.tools = Some(value.split(',').map(|s| s.trim().to_string()).collect());
            match setup::registry(&tools, RUN_TOOLS) {
                Ok(registry) => {
                    args.tools = tools;
                    eprintln!("tools: {}", registry.names().join(", "));
                }
                Err(e) => eprintln!(
                    "error: {e}; keeping {}",
                    args.tools.groups(RUN_TOOLS).join(", ")
                ),
            }
        }
        "tools" => eprintln!("tools: {}", args.tools.groups(RUN_TOOLS).join(", ")),
        other => eprintln!("unknown command /{other}"),
    }
    true
}

fn build(args: &ChatArgs) -> Result<Agent, CliError> {
    setup::agent_builder(&args.model, &args.tools, &args.budget, args.transport)?
        .build()
        .map_err(|e| CliError::Usage(e.to_string()))
}
