//! The tools of a command: the built-in groups it needs and the tools of
//! its MCP servers in one registry, and the `--tools` allowlist over it.
//!
//! - Without `--tools`: the command's default built-in groups plus every
//!   tool of the MCP servers given. A default group with a tool of the
//!   same name as a server's tool is left out, with a note.
//! - With `--tools`: exactly what it names. An entry is a built-in group
//!   (`calculator`, `search`, `files`), a tool's name (a server's tool
//!   first, then a built-in), or `group.*` (a built-in group or an MCP
//!   server; a server's name alone works too). An allowlist that names no
//!   MCP tool exposes none.
//! - The files group reads only, unless `--write` is given or the
//!   allowlist names a writing tool: a question about files costs fewer
//!   prompt tokens, and nothing is written that the user did not ask for.

use agent_tools::builtin::{self, BuiltinOptions};
use agent_tools::mcp::McpServers;
use agent_tools::{ToolRegistry, ToolSet};

use crate::cli::ToolArgs;
use crate::exit::CliError;

/// The built-in groups.
pub(crate) const BUILTIN_GROUPS: &[&str] = &["calculator", "search", "files"];

/// Every built-in tool and its group.
const BUILTIN_TOOLS: &[(&str, &str)] = &[
    ("calculator", "calculator"),
    ("search", "search"),
    ("read_file", "files"),
    ("grep", "files"),
    ("search_files", "files"),
    ("write_file", "files"),
    ("edit_file", "files"),
];

/// The built-in tools that change files.
const WRITING_TOOLS: &[&str] = &["write_file", "edit_file"];

/// Whether `name` is a built-in tool that changes files.
pub(crate) fn is_writing_tool(name: &str) -> bool {
    WRITING_TOOLS.contains(&name)
}

/// The group of the built-in tool `name`.
pub(crate) fn builtin_group(name: &str) -> Option<&'static str> {
    BUILTIN_TOOLS
        .iter()
        .find(|(tool, _)| *tool == name)
        .map(|(_, group)| *group)
}

/// The allowed tools: `--tools` (or `default`'s built-in groups and every
/// MCP tool) over the built-ins and `servers`' tools.
pub(crate) fn toolset(
    args: &ToolArgs,
    default: &[&str],
    servers: &McpServers,
) -> Result<ToolSet, CliError> {
    let plan = match &args.tools {
        None => default_plan(default, servers),
        Some(entries) => allowlist_plan(entries, servers)?,
    };
    let registry = registry(&plan.groups, args.write || plan.write, args, servers)?;
    match plan.allow {
        None => Ok(registry.allow_all()),
        Some(allow) => registry
            .allow(&allow)
            .map_err(|e| CliError::Usage(e.to_string())),
    }
}

/// Which built-in groups to register, and what to allow (`None`: all).
#[derive(Debug, Default)]
struct Plan {
    groups: Vec<&'static str>,
    allow: Option<Vec<String>>,
    /// The allowlist names a writing tool.
    write: bool,
}

impl Plan {
    fn group(&mut self, group: &'static str) {
        if !self.groups.contains(&group) {
            self.groups.push(group);
        }
    }
}

/// The default groups, less those a server's tool would clash with.
fn default_plan(default: &[&str], servers: &McpServers) -> Plan {
    let mut plan = Plan::default();
    for group in BUILTIN_GROUPS.iter().filter(|g| default.contains(g)) {
        let clash = servers.connections().iter().find_map(|server| {
            server
                .tool_names()
                .into_iter()
                .find(|tool| builtin_group(tool) == Some(group))
                .map(|tool| (server.name(), tool))
        });
        match clash {
            Some((server, tool)) => eprintln!(
                "note: leaving out the built-in `{group}` tools: MCP server `{server}` has its own `{tool}`"
            ),
            None => plan.group(group),
        }
    }
    plan
}

/// The groups and entries `--tools` names; an unknown entry is an error.
fn allowlist_plan(entries: &[String], servers: &McpServers) -> Result<Plan, CliError> {
    let mut plan = Plan::default();
    let mut allow = Vec::new();
    let mcp_tool = |name: &str| {
        servers
            .connections()
            .iter()
            .any(|s| s.tool_names().contains(&name))
    };
    for entry in entries.iter().map(|e| e.trim()).filter(|e| !e.is_empty()) {
        let group = entry.strip_suffix(".*");
        let name = group.unwrap_or(entry);
        let builtin = BUILTIN_GROUPS.iter().find(|g| **g == name).copied();
        if group.is_none() && mcp_tool(name) {
            allow.push(name.to_string());
        } else if let Some(group) = builtin_group(name).filter(|_| group.is_none()) {
            plan.group(group);
            plan.write |= is_writing_tool(name);
            allow.push(name.to_string());
        } else if let Some(group) = builtin {
            plan.group(group);
            allow.push(format!("{group}.*"));
        } else if servers.get(name).is_some() {
            allow.push(format!("{name}.*"));
        } else {
            return Err(CliError::Usage(unknown(entry, servers)));
        }
    }
    plan.allow = Some(allow);
    Ok(plan)
}

/// The error for an allowlist entry nothing answers to.
fn unknown(entry: &str, servers: &McpServers) -> String {
    let mut text = format!(
        "unknown tool or tool group `{entry}` (built-in groups: {}",
        BUILTIN_GROUPS.join(", ")
    );
    for server in servers.connections() {
        text.push_str(&format!(
            "; MCP server `{}`: {}",
            server.name(),
            server.tool_names().join(", ")
        ));
    }
    text.push(')');
    text
}

/// The built-in `groups` and every tool of `servers`, each server's tools
/// in the group named after it. A server's tool named like a built-in one
/// is an error naming both.
fn registry(
    groups: &[&str],
    write: bool,
    args: &ToolArgs,
    servers: &McpServers,
) -> Result<ToolRegistry, CliError> {
    let options = BuiltinOptions {
        dir: Some(&args.dir),
        read_only: !write,
        file_overview: args.file_overview,
    };
    let mut registry =
        builtin::registry_with(groups, options).map_err(|e| CliError::Usage(e.to_string()))?;
    for server in servers.connections() {
        for tool in server.tools() {
            let name = tool.spec().name;
            if let Some(group) = registry.group_of(&name) {
                return Err(CliError::Usage(format!(
                    "tool `{name}` of MCP server `{}` clashes with the built-in tool of that name (group `{group}`); leave `{group}` out of --tools, or give the server a prefix in an --mcp-config file",
                    server.name()
                )));
            }
            registry
                .register_in_group(server.name(), tool)
                .map_err(|e| CliError::Usage(format!("MCP server `{}`: {e}", server.name())))?;
        }
    }
    Ok(registry)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn the_builtin_table_matches_the_library() {
        let dir = std::env::temp_dir();
        let registry = builtin::registry(BUILTIN_GROUPS, Some(&dir), false).unwrap();
        let names = registry.names();
        assert_eq!(names.len(), BUILTIN_TOOLS.len());
        for name in &names {
            assert_eq!(builtin_group(name), registry.group_of(name), "{name}");
        }
    }

    #[test]
    fn without_servers_entries_are_builtin_groups_or_tools() {
        let none = McpServers::default();
        let entries: Vec<String> = ["grep", "calculator", "files.*", "search"]
            .map(String::from)
            .to_vec();
        let plan = allowlist_plan(&entries, &none).unwrap();
        assert_eq!(plan.groups, ["files", "calculator", "search"]);
        assert_eq!(
            plan.allow.unwrap(),
            ["grep", "calculator", "files.*", "search"]
        );
        let err = allowlist_plan(&["nope".to_string()], &none)
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            "unknown tool or tool group `nope` (built-in groups: calculator, search, files)"
        );
        let err = allowlist_plan(&["grep.*".to_string()], &none).unwrap_err();
        assert!(err.to_string().contains("`grep.*`"));
        let plan = default_plan(&["search", "calculator"], &none);
        assert_eq!(plan.groups, ["calculator", "search"]);
        assert!(plan.allow.is_none());
    }
}
