//! The MCP servers of a command: `--mcp`, `--mcp-http` and `--mcp-config`
//! become server configurations, started together before the command
//! runs. The [`McpServers`] handle keeps them alive; the command holds it
//! until it ends, and dropping it stops them. A server that cannot be
//! described or started is one line naming it.

use agent_tools::ToolRegistry;
use agent_tools::mcp::{
    McpConfigError, McpError, McpServerConfig, McpServers, load_config, register_servers,
};

use crate::cli::McpArgs;
use crate::exit::CliError;
use crate::toolbox::BUILTIN_GROUPS;

/// Starts every server the flags name (none: an empty handle).
pub(crate) async fn start(args: &McpArgs) -> Result<McpServers, CliError> {
    let servers = configs(args)?;
    if servers.is_empty() {
        return Ok(McpServers::default());
    }
    for server in &servers {
        if BUILTIN_GROUPS.contains(&server.name.as_str()) {
            return Err(CliError::Usage(format!(
                "MCP server `{}` has the name of a built-in tool group; rename it",
                server.name
            )));
        }
    }
    // The servers' own tools are checked here (names, schemas, clashes
    // between servers); the command's registry is composed later, from
    // the built-ins it needs and these connections.
    register_servers(&mut ToolRegistry::new(), &servers)
        .await
        .map_err(start_error)
}

/// The servers the flags describe: the files first, then `--mcp`, then
/// `--mcp-http`. A server from the command line that would take a name
/// already used gets a `-2`, `-3` … suffix.
pub(crate) fn configs(args: &McpArgs) -> Result<Vec<McpServerConfig>, CliError> {
    let mut servers = Vec::new();
    for file in &args.config {
        servers.extend(load_config(file).map_err(config_error)?);
    }
    for line in &args.stdio {
        let server = McpServerConfig::from_command_line(line).map_err(|e| match e {
            McpConfigError::CommandLine { reason, .. } => {
                CliError::Usage(format!("--mcp `{line}`: {reason}"))
            }
            other => config_error(other),
        })?;
        let name = unique_name(&server.name, &servers);
        servers.push(server.with_name(name));
    }
    let token = match &args.token_env {
        Some(var) => Some(token_from(var)?),
        None => None,
    };
    for value in &args.http {
        let (name, url) = http_server(value)?;
        let name = unique_name(&name, &servers);
        let mut server = McpServerConfig::http(name, url);
        if let Some(token) = &token {
            server = server.with_bearer_token(token.clone());
        }
        servers.push(server);
    }
    if let Some(names) = &args.instructions {
        servers = with_instructions(servers, names)?;
    }
    Ok(servers)
}

/// `servers`, those named in `names` (every one when `names` is empty)
/// asking for their instructions. A name no server has is a usage error
/// that lists the names there are.
fn with_instructions(
    servers: Vec<McpServerConfig>,
    names: &[String],
) -> Result<Vec<McpServerConfig>, CliError> {
    let names: Vec<&str> = names
        .iter()
        .map(|n| n.trim())
        .filter(|n| !n.is_empty())
        .collect();
    if let Some(unknown) = names.iter().find(|n| servers.iter().all(|s| s.name != **n)) {
        let known: Vec<&str> = servers.iter().map(|s| s.name.as_str()).collect();
        let known = if known.is_empty() {
            "no MCP server is given".to_string()
        } else {
            format!("the servers are: {}", known.join(", "))
        };
        return Err(CliError::Usage(format!(
            "--mcp-instructions: no MCP server is named `{unknown}`; {known}"
        )));
    }
    Ok(servers
        .into_iter()
        .map(|server| {
            let asked = names.is_empty() || names.contains(&server.name.as_str());
            if asked {
                server.with_instructions(true)
            } else {
                server
            }
        })
        .collect())
}

/// `name`, or `name-2`, `name-3` … if a server already has it.
fn unique_name(name: &str, taken: &[McpServerConfig]) -> String {
    let free = |candidate: &str| taken.iter().all(|s| s.name != candidate);
    if free(name) {
        return name.to_string();
    }
    (2..)
        .map(|n| format!("{name}-{n}"))
        .find(|candidate| free(candidate))
        .unwrap_or_else(|| name.to_string())
}

/// The token in the environment variable `var`; never from a flag value,
/// so it stays out of shell history.
fn token_from(var: &str) -> Result<String, CliError> {
    match std::env::var(var) {
        Ok(token) if !token.trim().is_empty() => Ok(token.trim().to_string()),
        Ok(_) => Err(CliError::Usage(format!(
            "--mcp-token-env: the environment variable `{var}` is empty"
        ))),
        Err(std::env::VarError::NotPresent) => Err(CliError::Usage(format!(
            "--mcp-token-env: the environment variable `{var}` is not set"
        ))),
        Err(std::env::VarError::NotUnicode(_)) => Err(CliError::Usage(format!(
            "--mcp-token-env: the environment variable `{var}` is not valid UTF-8"
        ))),
    }
}

/// `[NAME=]URL` → the server's name and URL. Without a name, the server is
/// named after the URL's host.
fn http_server(value: &str) -> Result<(String, String), CliError> {
    let (name, url) = match value.split_once('=') {
        Some((name, url)) if has_http_scheme(url) && !has_http_scheme(name) => {
            let valid = name.len() <= 64
                && !name.is_empty()
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
            if !valid {
                return Err(CliError::Usage(format!(
                    "--mcp-http `{value}`: the server name `{name}` may only use letters, digits, `_` and `-`"
                )));
            }
            (Some(name.to_string()), url)
        }
        _ => (None, value),
    };
    if !has_http_scheme(url) {
        return Err(CliError::Usage(format!(
            "--mcp-http `{value}`: expected an http:// or https:// URL"
        )));
    }
    let name = name.unwrap_or_else(|| host_name(url));
    Ok((name, url.to_string()))
}

fn has_http_scheme(url: &str) -> bool {
    let lower = url.to_ascii_lowercase();
    lower.starts_with("http://") || lower.starts_with("https://")
}

/// A server name from a URL's host: `https://tracker.example:8443/mcp` →
/// `tracker-example`.
fn host_name(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or(rest);
    let host_port = authority.rsplit('@').next().unwrap_or(authority);
    let host = match host_port.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or(v6),
        None => host_port.split(':').next().unwrap_or(host_port),
    };
    agent_tools::mcp::server_name_from(host, "mcp-http")
}

/// A config file or command line that cannot be used: an unreadable file
/// is a failure, a wrong one is bad usage.
fn config_error(error: McpConfigError) -> CliError {
    match error {
        McpConfigError::Read { .. } => CliError::Failure(one_line(&error.to_string())),
        other => CliError::Usage(one_line(&other.to_string())),
    }
}

/// A server that did not start (or list its tools) is a failure; a
/// configuration the servers cannot have (names, clashes) is bad usage.
fn start_error(error: McpError) -> CliError {
    let text = one_line(&error.to_string());
    match error {
        McpError::Startup { .. } | McpError::ListTools { .. } => CliError::Failure(text),
        _ => CliError::Usage(text),
    }
}

/// `text` on one line: a server's stderr may span several.
fn one_line(text: &str) -> String {
    text.lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .collect::<Vec<_>>()
        .join(" | ")
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]

    use agent_tools::mcp::McpTransport;

    use super::*;

    fn args(stdio: &[&str], http: &[&str]) -> McpArgs {
        McpArgs {
            stdio: stdio.iter().map(|s| s.to_string()).collect(),
            http: http.iter().map(|s| s.to_string()).collect(),
            ..McpArgs::default()
        }
    }

    #[test]
    fn command_line_servers_get_distinct_names() {
        let servers = configs(&args(
            &["mcp-server-filesystem /a", "mcp-server-filesystem /b"],
            &["http://127.0.0.1:3001/mcp", "http://127.0.0.1:3002/mcp"],
        ))
        .unwrap();
        let names: Vec<&str> = servers.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "mcp-server-filesystem",
                "mcp-server-filesystem-2",
                "127-0-0-1",
                "127-0-0-1-2"
            ]
        );
    }

    #[test]
    fn the_instructions_flag_asks_every_server_for_its_instructions() {
        let mut flags = args(&["mcp-server-filesystem /a"], &["http://h/mcp"]);
        assert!(configs(&flags).unwrap().iter().all(|s| !s.instructions));
        flags.instructions = Some(Vec::new());
        assert!(configs(&flags).unwrap().iter().all(|s| s.instructions));
    }

    #[test]
    fn the_instructions_flag_with_names_asks_only_those_servers() {
        let mut flags = args(
            &["mcp-server-filesystem /a", "mcp-server-git"],
            &["tracker=http://h/mcp"],
        );
        flags.instructions = Some(vec!["tracker".into(), "mcp-server-git".into()]);
        let asked: Vec<(String, bool)> = configs(&flags)
            .unwrap()
            .into_iter()
            .map(|s| (s.name, s.instructions))
            .collect();
        assert_eq!(
            asked,
            [
                ("mcp-server-filesystem".to_string(), false),
                ("mcp-server-git".to_string(), true),
                ("tracker".to_string(), true)
            ]
        );
        flags.instructions = Some(vec!["trakcer".into()]);
        let err = configs(&flags).unwrap_err().to_string();
        assert!(
            err.contains("no MCP server is named `trakcer`")
                && err.contains("mcp-server-filesystem, mcp-server-git, tracker"),
            "{err}"
        );
    }

    #[test]
    fn http_servers_take_a_name_or_the_host() {
        let (name, url) = http_server("tracker=https://t.example/mcp?a=b").unwrap();
        assert_eq!(
            (name.as_str(), url.as_str()),
            ("tracker", "https://t.example/mcp?a=b")
        );
        let (name, url) = http_server("https://user@tracker.example:8443/mcp?x=y").unwrap();
        assert_eq!(name, "tracker-example");
        assert_eq!(url, "https://user@tracker.example:8443/mcp?x=y");
        assert_eq!(http_server("http://localhost:3000").unwrap().0, "localhost");
        let err = http_server("tracker.example/mcp").unwrap_err().to_string();
        assert!(err.contains("expected an http:// or https:// URL"), "{err}");
        let err = http_server("my server=http://h/mcp")
            .unwrap_err()
            .to_string();
        assert!(err.contains("`my server` may only use"), "{err}");
    }

    #[test]
    fn the_bearer_token_comes_from_the_environment_variable() {
        // Tests cannot set variables safely: an unset one, and PATH.
        let var = "AGENT_CLI_MCP_UNIT_TEST_TOKEN";
        let mut with_token = args(&[], &["http://h/mcp"]);
        with_token.token_env = Some(format!("{var}_UNSET"));
        let err = configs(&with_token).unwrap_err().to_string();
        assert_eq!(
            err,
            format!("--mcp-token-env: the environment variable `{var}_UNSET` is not set")
        );
        with_token.token_env = Some("PATH".into());
        let servers = configs(&with_token).unwrap();
        let McpTransport::Http { bearer_token, .. } = &servers[0].transport else {
            panic!("not http");
        };
        assert_eq!(
            bearer_token.as_deref(),
            Some(std::env::var("PATH").unwrap().trim())
        );
    }

    #[test]
    fn a_bad_command_line_names_the_flag() {
        let err = configs(&args(&["server 'unclosed"], &[]))
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            "--mcp `server 'unclosed`: a single quote is not closed"
        );
        assert!(matches!(
            configs(&args(&["  "], &[])),
            Err(CliError::Usage(_))
        ));
    }

    #[test]
    fn errors_fit_on_one_line() {
        assert_eq!(one_line("a\n  b \n\nc"), "a | b | c");
    }
}
