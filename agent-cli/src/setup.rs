//! Builds what a run needs from the flags: the model, the transport, the
//! tools and the budget.

use std::sync::Arc;
use std::time::Duration;

use agent_core::{Agent, AgentBuilder, Budget, RequestOptions, Transport};
use agent_native::{DEFAULT_BASE_URL, NativeTransport, OpenAiCompatible, ProviderConfig};
use agent_text::TextTransport;
use agent_tools::{ToolRegistry, ToolSet, builtin};

use crate::cli::{BudgetArgs, ModelArgs, ToolArgs, TransportKind};

/// Tokens generated per request at most (local servers need a cap).
pub const MAX_GENERATED_TOKENS: u32 = 1024;
use crate::exit::{CliError, NO_MODEL};

/// The provider for these flags, or the one-line "no model" error.
pub fn model(args: &ModelArgs, timeout: Duration) -> Result<OpenAiCompatible, CliError> {
    let model = args.model.clone().filter(|m| !m.trim().is_empty());
    let base_url = args
        .base_url
        .clone()
        .filter(|u| !u.trim().is_empty())
        .or_else(|| args.api_key.as_ref().map(|_| DEFAULT_BASE_URL.to_string()));
    let (Some(base_url), Some(model)) = (base_url, model) else {
        return Err(CliError::Usage(NO_MODEL.into()));
    };
    let mut config = ProviderConfig::new(base_url, model).with_timeout(timeout);
    if let Some(key) = args.api_key.clone().filter(|k| !k.is_empty()) {
        config = config.with_api_key(key);
    }
    OpenAiCompatible::new(config).map_err(|e| CliError::Usage(e.to_string()))
}

/// The transport.
pub fn transport(kind: TransportKind) -> Arc<dyn Transport> {
    match kind {
        TransportKind::Text => Arc::new(TextTransport::new()),
        TransportKind::Native => Arc::new(NativeTransport::new()),
    }
}

/// The registry of the built-in groups asked for (or `default`).
pub fn registry(args: &ToolArgs, default: &[&str]) -> Result<ToolRegistry, CliError> {
    builtin::registry(&args.groups(default), Some(&args.dir), args.read_only)
        .map_err(|e| CliError::Usage(e.to_string()))
}

/// The tool set of a run, with a tool timeout.
pub fn tools(args: &ToolArgs, tool_timeout: Duration) -> Result<ToolSet, CliError> {
    Ok(registry(args, crate::cli::RUN_TOOLS)?
        .allow_all()
        .with_default_timeout(tool_timeout))
}

/// Seconds from a flag.
pub fn seconds(value: f64, flag: &str) -> Result<Duration, CliError> {
    if value.is_finite() && value > 0.0 {
        Ok(Duration::from_secs_f64(value))
    } else {
        Err(CliError::Usage(format!(
            "--{flag} must be a positive number of seconds"
        )))
    }
}

/// The budget.
pub fn budget(args: &BudgetArgs) -> Result<Budget, CliError> {
    let budget = Budget {
        max_steps: args.max_steps,
        max_tool_calls: args.max_tool_calls,
        max_total_tokens: args.max_tokens,
        timeout: Some(seconds(args.timeout, "timeout")?),
        tool_timeout: Some(seconds(args.tool_timeout, "tool-timeout")?),
        ..Budget::default()
    };
    budget
        .validate()
        .map_err(|e| CliError::Usage(e.to_string()))?;
    Ok(budget)
}

/// An agent builder for a run from the flags: model, transport, tools,
/// budget, streaming and the generation cap.
pub fn agent_builder(
    model_args: &ModelArgs,
    tool_args: &ToolArgs,
    budget_args: &BudgetArgs,
    kind: TransportKind,
) -> Result<AgentBuilder, CliError> {
    let budget = budget(budget_args)?;
    let provider = model(model_args, budget.timeout.unwrap_or_default())?;
    let toolbox = tools(tool_args, budget.tool_timeout.unwrap_or_default())?;
    Ok(Agent::builder()
        .model(provider)
        .transport_arc(transport(kind))
        .toolbox(toolbox)
        .budget(budget)
        .streaming(!model_args.no_stream)
        .request_options(RequestOptions {
            max_tokens: Some(MAX_GENERATED_TOKENS),
            ..RequestOptions::default()
        }))
}
