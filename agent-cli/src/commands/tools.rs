//! `agent tools` and `agent call`: list the tools, or run one call through
//! the same gateway a run uses (validation, timeout, cap, root confinement).

use agent_core::{ToolCall, Toolbox};
use serde_json::Value;

use crate::cli::{ALL_TOOLS, CallArgs, ToolsArgs};
use crate::exit::{CliError, FAILURE, OK};
use crate::setup;

/// Lists the tools with their schemas.
pub(crate) fn list(args: &ToolsArgs) -> Result<u8, CliError> {
    let specs = setup::registry(&args.tools, ALL_TOOLS)?.allow_all().specs();
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
    let tools = setup::registry(&args.tools, ALL_TOOLS)?.allow_all();
    let arguments = serde_json::from_str::<Value>(&args.args)
        .unwrap_or_else(|_| Value::String(args.args.clone()));
    match tools
        .call(&ToolCall::new("cli", &args.tool, arguments))
        .await
    {
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
