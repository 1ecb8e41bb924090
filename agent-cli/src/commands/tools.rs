//! `agent tools` and `agent call`: list the tools, or run one call through
//! the same gateway a run uses (validation, timeout, cap, root confinement).
//! The MCP servers given start first and stop when the command ends.

use agent_core::{ToolCall, Toolbox};
use serde_json::Value;

use crate::cli::{ALL_TOOLS, CallArgs, ToolsArgs};
use crate::exit::{CliError, FAILURE, OK};
use crate::{mcp, toolbox};

/// Lists the tools with their schemas.
pub(crate) async fn list(args: &ToolsArgs) -> Result<u8, CliError> {
    let servers = mcp::start(&args.mcp).await?;
    let specs = toolbox::toolset(&args.tools, ALL_TOOLS, &servers)?.specs();
    drop(servers);
    if args.json {
        let text =
            serde_json::to_string_pretty(&specs).map_err(|e| CliError::Failure(e.to_string()))?;
        println!("{text}");
        return Ok(OK);
    }
    for spec in specs {
        println!("{}  {}", spec.name, spec.description);
        println!(
            "    {}",
            agent_text::render_tools(std::slice::from_ref(&spec)).trim_start_matches("Tools:\n- ")
        );
        println!("    schema: {}", spec.parameters);
    }
    Ok(OK)
}

/// Runs one call; exit 0 when the tool succeeded.
pub(crate) async fn call(args: &CallArgs) -> Result<u8, CliError> {
    let servers = mcp::start(&args.mcp).await?;
    // Naming a writing tool is asking for it.
    let mut tool_args = args.tools.clone();
    tool_args.write |= toolbox::is_writing_tool(&args.tool);
    let tools = toolbox::toolset(&tool_args, ALL_TOOLS, &servers)?;
    let arguments = serde_json::from_str::<Value>(&args.args)
        .unwrap_or_else(|_| Value::String(args.args.clone()));
    let result = tools
        .call(&ToolCall::new("cli", &args.tool, arguments))
        .await;
    drop(servers);
    match result {
        Ok(output) => {
            println!("{}", output.content);
            Ok(OK)
        }
        Err(err) => {
            eprintln!("{}", err.model_text());
            Ok(FAILURE)
        }
    }
}
