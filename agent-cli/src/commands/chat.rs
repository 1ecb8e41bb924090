//! `agent chat`: a REPL. Each line is a task in one conversation: every
//! run continues the previous run's messages as real messages, so a
//! server's prompt cache keeps serving the earlier turns. `/transport
//! text|native`, `/tools a,b`, `/reset`, `/exit`; a command that fails
//! leaves the previous setting in place. Ctrl-C cancels the running task
//! only. The MCP servers given start once and serve the whole chat;
//! `/tools` chooses among the built-ins and their tools.

use std::io::{IsTerminal, Write};

use agent_core::message::Message;
use agent_core::{Agent, Task};
use agent_tools::ToolSet;
use agent_tools::mcp::McpServers;
use tokio::io::{AsyncBufReadExt, BufReader};

use crate::cli::{ChatArgs, RUN_TOOLS, TransportKind};
use crate::commands::run::run_cancellable;
use crate::exit::{CliError, OK};
use crate::overrides::PromptOverrides;
use crate::view::LiveView;
use crate::{mcp, setup};

/// Runs the REPL until `/exit` or end of input.
pub(crate) async fn chat(mut args: ChatArgs) -> Result<u8, CliError> {
    // Fail early, in one line, on a bad configuration, before any server
    // starts. The servers then live as long as the chat.
    let prompt = PromptOverrides::read(&args.prompt)?;
    setup::agent_builder(&args.model, &args.budget, args.transport, &prompt)?;
    let servers = mcp::start(&args.mcp).await?;
    let mut tools = setup::tools(&args.tools, RUN_TOOLS, &servers, &args.budget)?;
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
            let mut state = State {
                args: &mut args,
                history: &mut history,
                tools: &mut tools,
                servers: &servers,
            };
            if !state.command(command) {
                break;
            }
            continue;
        }
        let agent = match build(&args, &tools, &prompt) {
            Ok(agent) => agent,
            Err(e) => {
                eprintln!("error: {e}");
                continue;
            }
        };
        let task = Task::new(line).with_history(history.clone());
        let (outcome, _) = run_cancellable(&agent, task, Some(&view)).await;
        view.finish();
        if let Some(answer) = &outcome.answer
            && !std::io::stderr().is_terminal()
        {
            println!("{answer}");
        }
        // The conversation goes on from this run, answered or not.
        history = outcome.conversation().to_vec();
    }
    drop(servers);
    Ok(OK)
}

/// What a `/command` may change.
struct State<'a> {
    args: &'a mut ChatArgs,
    history: &'a mut Vec<Message>,
    tools: &'a mut ToolSet,
    servers: &'a McpServers,
}

impl State<'_> {
    /// Handles a `/command`; `false` to leave the chat.
    fn command(&mut self, command: &str) -> bool {
        let (name, value) = command
            .split_once(' ')
            .map_or((command, ""), |(n, v)| (n, v.trim()));
        match name {
            "exit" | "quit" => return false,
            "reset" => {
                self.history.clear();
                eprintln!("conversation cleared");
            }
            "transport" => match value {
                "text" => self.args.transport = TransportKind::Text,
                "native" => self.args.transport = TransportKind::Native,
                _ => eprintln!(
                    "usage: /transport text|native (now {:?})",
                    self.args.transport
                ),
            },
            "tools" if !value.is_empty() => {
                let mut tool_args = self.args.tools.clone();
                tool_args.tools = Some(value.split(',').map(|s| s.trim().to_string()).collect());
                match setup::tools(&tool_args, RUN_TOOLS, self.servers, &self.args.budget) {
                    Ok(tools) => {
                        self.args.tools = tool_args;
                        *self.tools = tools;
                        eprintln!("tools: {}", self.tools.names().join(", "));
                    }
                    Err(e) => eprintln!("error: {e}; keeping {}", self.tools.names().join(", ")),
                }
            }
            "tools" => eprintln!("tools: {}", self.tools.names().join(", ")),
            other => eprintln!("unknown command /{other}"),
        }
        true
    }
}

fn build(args: &ChatArgs, tools: &ToolSet, prompt: &PromptOverrides) -> Result<Agent, CliError> {
    setup::agent_builder(&args.model, &args.budget, args.transport, prompt)?
        .toolbox(tools.clone())
        .build()
        .map_err(|e| CliError::Usage(e.to_string()))
}
