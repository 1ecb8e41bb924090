//! `agent prompt`: the first request of a run, exactly as the provider
//! would send it (messages, tool specs, stop sequences, options and the
//! grammar), built by the same run, transport and provider code as
//! `agent run`, without calling a model. Readable by default; the request
//! body's JSON with `--json`. A user debugging a bad run starts here.

use agent_core::budget::Estimator;
use agent_core::run::{Run, RunConfig, Step};
use agent_core::{Budget, Toolbox};
use agent_native::{DEFAULT_BASE_URL, ProviderConfig};
use serde_json::Value;

use crate::cli::{PromptArgs, RUN_TOOLS};
use crate::exit::{CliError, OK};
use crate::overrides::PromptOverrides;
use crate::{mcp, setup, toolbox};

/// The task shown when none is given.
const TASK_PLACEHOLDER: &str = "<task>";
/// The model name shown when none is given.
const MODEL_PLACEHOLDER: &str = "<model>";

/// Prints the first request.
pub(crate) async fn prompt(args: &PromptArgs) -> Result<u8, CliError> {
    let overrides = PromptOverrides::read(&args.prompt)?;
    let transport = overrides.transport(args.transport, true)?;
    let task = match &args.task {
        Some(task) => setup::task(task)?.to_string(),
        None => TASK_PLACEHOLDER.to_string(),
    };
    let servers = mcp::start(&args.mcp).await?;
    let toolset = toolbox::toolset(&args.tools, RUN_TOOLS, &servers)?;
    let (tools, context) = (toolset.specs(), toolset.context());
    drop(servers);
    let config = RunConfig {
        transport,
        tools,
        budget: Budget::default(),
        options: setup::request_options(),
        estimator: Estimator::default(),
        grounded_tools: Vec::new(),
        context,
    };
    let failure = |e: agent_core::run::RunError| CliError::Failure(e.to_string());
    let mut run = Run::new(task, Vec::new(), config, 0).map_err(failure)?;
    let Step::CallModel(request) = run.next_step(0).map_err(failure)? else {
        return Err(CliError::Failure(
            "the run did not start with a model request".into(),
        ));
    };
    let base_url = non_blank(args.model.base_url.as_deref()).unwrap_or(DEFAULT_BASE_URL);
    let model = non_blank(args.model.model.as_deref()).unwrap_or(MODEL_PLACEHOLDER);
    let provider =
        ProviderConfig::new(base_url, model).with_constrain(setup::constrain(args.model.constrain));
    let body = provider.request_body(&request, !args.model.no_stream);
    if args.json {
        let text =
            serde_json::to_string_pretty(&body).map_err(|e| CliError::Failure(e.to_string()))?;
        println!("{text}");
    } else {
        print!("{}", readable(base_url, &body));
    }
    Ok(OK)
}

fn non_blank(value: Option<&str>) -> Option<&str> {
    value.filter(|v| !v.trim().is_empty())
}

/// The request body for a person: the options on top, then each message,
/// the tools and the grammar in full, each under a `── name ──` rule.
fn readable(base_url: &str, body: &Value) -> String {
    let mut out = format!("POST {}/chat/completions\n", base_url.trim_end_matches('/'));
    let Some(fields) = body.as_object() else {
        return out;
    };
    let shown_apart = [
        "messages",
        "tools",
        "grammar",
        "structured_outputs",
        "response_format",
    ];
    for (key, value) in fields
        .iter()
        .filter(|(k, _)| !shown_apart.contains(&k.as_str()))
    {
        out.push_str(&format!("{key}: {value}\n"));
    }
    for message in fields
        .get("messages")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let role = message.get("role").and_then(Value::as_str).unwrap_or("?");
        let content = match message.get("content") {
            Some(Value::String(text)) => text.clone(),
            Some(other) => other.to_string(),
            None => String::new(),
        };
        out.push_str(&format!("\n── {role} ──\n{content}\n"));
    }
    if let Some(tools) = fields.get("tools").and_then(Value::as_array) {
        out.push_str("\n── tools ──\n");
        for tool in tools {
            let function = &tool["function"];
            out.push_str(&format!(
                "{}: {}\n  {}\n",
                function["name"].as_str().unwrap_or("?"),
                function["description"].as_str().unwrap_or(""),
                function["parameters"]
            ));
        }
    }
    let grammar = [
        ("grammar", "llama.cpp GBNF, sent as `grammar`"),
        ("structured_outputs", "vLLM structured outputs"),
        ("response_format", "JSON schema, sent as `response_format`"),
    ];
    for (key, what) in grammar {
        match fields.get(key) {
            Some(Value::String(text)) => {
                out.push_str(&format!("\n── grammar ({what}) ──\n{text}\n"))
            }
            Some(Value::Object(object)) if object.get("grammar").is_some_and(Value::is_string) => {
                let text = object["grammar"].as_str().unwrap_or_default();
                out.push_str(&format!("\n── grammar ({what}) ──\n{text}\n"));
            }
            Some(other) => out.push_str(&format!("\n── grammar ({what}) ──\n{other}\n")),
            None => {}
        }
    }
    out
}
