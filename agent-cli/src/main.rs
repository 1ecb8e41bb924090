//! `agent`: agentloop's command-line agent. See `agent --help`; exit codes
//! are in [`exit`].

mod cli;
mod commands;
mod exit;
mod mcp;
mod overrides;
mod setup;
mod toolbox;
mod view;

use std::panic::AssertUnwindSafe;
use std::process::ExitCode;

use agent_core::tool::panic_message;
use clap::Parser;
use clap::error::ErrorKind;

use crate::cli::{Cli, Command};
use crate::exit::CliError;

/// Exit code of an internal error the program could not contain.
const CRASH: u8 = 101;

/// Logs go to stderr through `tracing`: errors by default (the live view
/// shows what a user needs), more with `AGENT_LOG` (e.g. `AGENT_LOG=warn`
/// for retries, `AGENT_LOG=debug` for caught panics). The client library
/// and the MCP SDK (`rmcp`) are silent by default: what goes wrong reaches
/// the user as our own one-line error or as an observation, not twice.
fn install_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_env("AGENT_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("error,async_openai=off,rmcp=off"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .without_time()
        .with_target(false)
        .try_init();
}

/// A panic (most are caught: a tool's by the gateway, a component's by the
/// run) is logged through `tracing` instead of printed with a backtrace,
/// so the terminal stays clean; one that escapes is reported by `main`.
fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let location = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        tracing::debug!("{}{location}", panic_message(info.payload()));
    }));
}

fn main() -> ExitCode {
    install_logging();
    install_panic_hook();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(err)
            if matches!(
                err.kind(),
                ErrorKind::DisplayHelp
                    | ErrorKind::DisplayVersion
                    | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
            ) =>
        {
            let _ = err.print();
            return ExitCode::SUCCESS;
        }
        Err(err) => {
            // One clear line, not a page of usage.
            let text = err.to_string();
            let first = text.lines().next().unwrap_or("error: bad usage");
            eprintln!("{first} (see `agent --help`)");
            return ExitCode::from(exit::USAGE);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("error: cannot start the async runtime: {err}");
            return ExitCode::from(exit::FAILURE);
        }
    };
    let result =
        std::panic::catch_unwind(AssertUnwindSafe(|| runtime.block_on(dispatch(cli.command))));
    match result {
        Ok(Ok(code)) => ExitCode::from(code),
        Ok(Err(err)) => {
            eprintln!("error: {err}");
            err.code()
        }
        Err(panic) => {
            let message = panic_message(&*panic);
            // `agent tools | head`: the reader left, which is no error of
            // ours; stop quietly, as other command-line tools do.
            if is_closed_stdout(&message) {
                return ExitCode::SUCCESS;
            }
            eprintln!("error: internal error ({message})");
            ExitCode::from(CRASH)
        }
    }
}

/// `true` for the panic `println!` raises when standard output is a pipe
/// whose reader has gone.
fn is_closed_stdout(message: &str) -> bool {
    message.contains("failed printing to stdout") && message.contains("Broken pipe")
}

async fn dispatch(command: Command) -> Result<u8, CliError> {
    match command {
        Command::Run(args) => commands::run::run(args).await,
        Command::Chat(args) => commands::chat::chat(args).await,
        Command::Parse(args) => commands::parse::parse(&args),
        Command::Replay(args) => commands::replay::replay(&args).await,
        Command::Tools(args) => commands::tools::list(&args).await,
        Command::Call(args) => commands::tools::call(&args).await,
        Command::Prompt(args) => commands::prompt::prompt(&args).await,
        Command::Demo(args) => commands::demo::demo(&args).await,
    }
}
