//! `agent`: agentloop's command-line agent. See `agent --help`; exit codes
//! are in [`exit`].

mod cli;
mod commands;
mod exit;
mod setup;
mod view;

use std::process::ExitCode;

use clap::Parser;
use clap::error::ErrorKind;

use crate::cli::{Cli, Command};
use crate::exit::CliError;

fn main() -> ExitCode {
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
    match runtime.block_on(dispatch(cli.command)) {
        Ok(code) => ExitCode::from(code),
        Err(err) => {
            eprintln!("error: {err}");
            err.code()
        }
    }
}

async fn dispatch(command: Command) -> Result<u8, CliError> {
    match command {
        Command::Run(args) => commands::run::run(args).await,
        Command::Chat(args) => commands::chat::chat(args).await,
        Command::Parse(args) => commands::parse::parse(&args),
        Command::Replay(args) => commands::replay::replay(&args).await,
        Command::Tools(args) => commands::tools::list(&args),
        Command::Call(args) => commands::tools::call(&args).await,
        Command::Demo(args) => commands::demo::demo(&args).await,
    }
}
