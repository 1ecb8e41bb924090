//! Builds what a run needs from the flags: the model, the transport, the
//! tools and the budget. Every flag is checked here, so bad input is a
//! one-line usage error, never a panic deeper down.

use std::sync::Arc;
use std::time::Duration;

use agent_core::agent::AgentBuilder;
use agent_core::run::RequestOptions;
use agent_core::{Agent, Budget, Transport};
use agent_native::{
    Constrain, DEFAULT_BASE_URL, MAX_TIMEOUT, NativeTransport, OpenAiCompatible, ProviderConfig,
    ProviderError,
};
use agent_text::TextTransport;
use agent_tools::ToolSet;
use agent_tools::mcp::McpServers;

use crate::cli::{BudgetArgs, ConstrainArg, ModelArgs, ToolArgs, TransportKind};
use crate::exit::{CliError, NO_MODEL};
use crate::overrides::PromptOverrides;
use crate::toolbox;

/// Tokens generated per request at most (local servers need a cap).
pub(crate) const MAX_GENERATED_TOKENS: u32 = 1024;

/// The run's wall clock when `--timeout` is not given, in seconds.
pub(crate) const DEFAULT_RUN_TIMEOUT_SECS: f64 = 300.0;

/// Which setting the API key came from, for error messages.
fn api_key_source() -> &'static str {
    if std::env::args().any(|a| a == "--api-key" || a.starts_with("--api-key=")) {
        "--api-key"
    } else {
        "OPENAI_API_KEY"
    }
}

/// The provider for these flags, or a one-line usage error.
pub(crate) fn model(
    args: &ModelArgs,
    request_timeout: Duration,
) -> Result<OpenAiCompatible, CliError> {
    let model = args.model.clone().filter(|m| !m.trim().is_empty());
    let base_url = args
        .base_url
        .clone()
        .filter(|u| !u.trim().is_empty())
        .or_else(|| args.api_key.as_ref().map(|_| DEFAULT_BASE_URL.to_string()));
    let (Some(base_url), Some(model)) = (base_url, model) else {
        return Err(CliError::Usage(NO_MODEL.into()));
    };
    let mut config = ProviderConfig::new(base_url, model)
        .with_timeout(request_timeout)
        .with_constrain(constrain(args.constrain));
    if let Some(key) = args.api_key.clone().filter(|k| !k.is_empty()) {
        config = config.with_api_key(key);
    }
    OpenAiCompatible::new(config).map_err(|e| match e {
        ProviderError::InvalidApiKey(reason) => CliError::Usage(format!(
            "the API key from {} is not valid: {reason}",
            api_key_source()
        )),
        ProviderError::InvalidBaseUrl { .. } => {
            CliError::Usage(format!("{e} (from --base-url or OPENAI_BASE_URL)"))
        }
        other => CliError::Usage(other.to_string()),
    })
}

/// The provider's setting for `--constrain`.
pub(crate) fn constrain(arg: ConstrainArg) -> Constrain {
    match arg {
        ConstrainArg::Auto => Constrain::Auto,
        ConstrainArg::On => Constrain::On,
        ConstrainArg::Off => Constrain::Off,
    }
}

/// The transport with its default prompt.
pub(crate) fn transport(kind: TransportKind) -> Arc<dyn Transport> {
    match kind {
        TransportKind::Text => Arc::new(TextTransport::new()),
        TransportKind::Native => Arc::new(NativeTransport::new()),
    }
}

/// The tool set of a command: `--tools` over the built-ins and the MCP
/// servers' tools (see [`crate::toolbox`]), with the tool timeout.
pub(crate) fn tools(
    args: &ToolArgs,
    default: &[&str],
    servers: &McpServers,
    budget_args: &BudgetArgs,
) -> Result<ToolSet, CliError> {
    let tool_timeout = seconds(budget_args.tool_timeout, "tool-timeout")?;
    Ok(toolbox::toolset(args, default, servers)?.with_default_timeout(tool_timeout))
}

/// Seconds from a flag: a positive, finite number, at most a year.
pub(crate) fn seconds(value: f64, flag: &str) -> Result<Duration, CliError> {
    let error = || {
        CliError::Usage(format!(
            "--{flag} must be a positive number of seconds, at most {} (got {value})",
            MAX_TIMEOUT.as_secs()
        ))
    };
    if !(value.is_finite() && value > 0.0) {
        return Err(error());
    }
    match Duration::try_from_secs_f64(value) {
        Ok(duration) if duration <= MAX_TIMEOUT && !duration.is_zero() => Ok(duration),
        _ => Err(error()),
    }
}

/// The budget.
pub(crate) fn budget(args: &BudgetArgs) -> Result<Budget, CliError> {
    let budget = Budget {
        max_steps: args.max_steps,
        max_tool_calls: args.max_tool_calls,
        max_total_tokens: args.max_tokens,
        timeout: Some(seconds(args.timeout, "timeout")?),
        answer_turn: !args.no_answer_turn,
        retry_after_failed_calls: !args.no_retry_after_failed_calls,
        set_aside_failing_tool: !args.no_set_aside_failing_tool,
        loop_threshold: args.loop_threshold,
        answer_on_repeat: !args.no_answer_on_repeat,
        ground_numbers: !args.no_ground_numbers,
        ground_names: !args.no_ground_names,
        compute_when_planned: !args.no_compute_when_planned,
        ..Budget::default()
    };
    budget
        .validate()
        .map_err(|e| CliError::Usage(e.to_string()))?;
    Ok(budget)
}

/// The generation options of every request a command sends.
pub(crate) fn request_options() -> RequestOptions {
    RequestOptions {
        max_tokens: Some(MAX_GENERATED_TOKENS),
        ..RequestOptions::default()
    }
}

/// An agent builder for a run from the flags: model, transport (with the
/// prompt overrides), budget, streaming and the generation cap; the tools
/// come with [`tools`], once the MCP servers have started. Every flag is
/// checked here, before any server starts.
pub(crate) fn agent_builder(
    model_args: &ModelArgs,
    budget_args: &BudgetArgs,
    kind: TransportKind,
    prompt: &PromptOverrides,
) -> Result<AgentBuilder, CliError> {
    let budget = budget(budget_args)?;
    let request_timeout = seconds(budget_args.request_timeout, "request-timeout")?;
    seconds(budget_args.tool_timeout, "tool-timeout")?;
    let provider = model(model_args, request_timeout)?;
    Ok(Agent::builder()
        .model(provider)
        .transport(prompt.transport(kind, !budget_args.no_answer_turn)?)
        .budget(budget)
        .streaming(!model_args.no_stream)
        .request_options(request_options()))
}

/// A task from the command line: refused when empty or blank.
pub(crate) fn task(text: &str) -> Result<&str, CliError> {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        Err(CliError::Usage(
            "the task is empty: say what the agent should do".into(),
        ))
    } else {
        Ok(trimmed)
    }
}
