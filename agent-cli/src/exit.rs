//! Exit codes and the one-line errors of `agent`.
//!
//! | code | meaning |
//! |---|---|
//! | 0 | the run ended with a final answer, or with the answer asked for once the model repeated the call it had just been answered (or the command succeeded) |
//! | 1 | a failure: unreadable file, tool error in `agent call`, replay mismatch, an MCP server that does not start |
//! | 2 | bad usage: flags, missing model configuration, an MCP server description that cannot work |
//! | 3 | a budget stopped the run (steps, tool calls, tokens, time, loop, malformed) |
//! | 4 | the model failed (HTTP error, timeout, bad response, unreachable) |
//! | 5 | a hook halted the run |
//! | 130 | cancelled (Ctrl-C) |
//! | 143 | terminated (SIGTERM) |
//!
//! A run that stopped on an internal error exits 1. A trace that could not
//! be written turns an exit 0 into 1 (the outcome is still printed).

use std::process::ExitCode;

use agent_core::StopReason;

/// Success.
pub(crate) const OK: u8 = 0;
/// A failure.
pub(crate) const FAILURE: u8 = 1;
/// Bad usage.
pub(crate) const USAGE: u8 = 2;
/// A budget stop.
pub(crate) const BUDGET: u8 = 3;
/// A model error.
pub(crate) const MODEL: u8 = 4;
/// Halted by a hook.
pub(crate) const HALTED: u8 = 5;
/// Cancelled (Ctrl-C).
pub(crate) const CANCELLED: u8 = 130;
/// Terminated (SIGTERM).
pub(crate) const TERMINATED: u8 = 143;

/// The exit code for a run's stop reason.
pub(crate) fn for_stop(reason: &StopReason) -> u8 {
    match reason {
        StopReason::FinalAnswer | StopReason::RepeatedCall => OK,
        StopReason::Model(_) => MODEL,
        StopReason::Cancelled => CANCELLED,
        StopReason::Halted(_) => HALTED,
        StopReason::Internal(_) => FAILURE,
        _ => BUDGET,
    }
}

/// An error that ends the command with one line and a code.
#[derive(Debug, thiserror::Error)]
pub(crate) enum CliError {
    /// Bad usage.
    #[error("{0}")]
    Usage(String),
    /// Anything else.
    #[error("{0}")]
    Failure(String),
}

impl CliError {
    /// The process exit code.
    pub(crate) fn code(&self) -> ExitCode {
        ExitCode::from(match self {
            Self::Usage(_) => USAGE,
            Self::Failure(_) => FAILURE,
        })
    }
}

/// The message printed when no model is configured.
pub(crate) const NO_MODEL: &str = "no model configured: set OPENAI_BASE_URL and AGENT_MODEL (or pass --base-url and --model); for an offline demo, run `cargo xtask demo`";
