//! The `mcpServers` JSON file desktop MCP clients share, and
//! [`McpConfigError`], which names the file and the server at fault.
//!
//! ```json
//! {
//!   "mcpServers": {
//!     "files": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/srv/data"] },
//!     "tracker": { "url": "https://tracker.example/mcp", "bearerTokenEnv": "TRACKER_TOKEN" }
//!   }
//! }
//! ```
//!
//! Per server: `command`, `args`, `env`, `cwd` for stdio; `url`, `headers`,
//! `bearerToken` or `bearerTokenEnv` for streamable HTTP; optionally
//! `type` (`stdio`, `http`, `streamable-http`), `prefix`,
//! `startupTimeoutSec`, `instructions` (`true` passes the server's
//! instructions on to the model) and `disabled`. Other fields are ignored, so files
//! written for other clients load. A top-level `servers` object (VS Code's
//! spelling) is read the same way.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;
use serde_json::Value;

use super::config::{McpServerConfig, McpTransport};
use crate::gateway::is_valid_name;

/// A config file or command line that cannot be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum McpConfigError {
    /// The file could not be read.
    #[error("cannot read MCP config `{}`: {source}", file.display())]
    Read {
        /// The file.
        file: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The file is not JSON, or not the `mcpServers` shape.
    #[error("MCP config `{file}`: {reason}")]
    File {
        /// The file (or another origin label).
        file: String,
        /// What is wrong.
        reason: String,
    },
    /// One server's entry is wrong.
    #[error("MCP config `{file}`, server `{server}`: {reason}")]
    Server {
        /// The file (or another origin label).
        file: String,
        /// The server's key.
        server: String,
        /// What is wrong.
        reason: String,
    },
    /// A one-string server command line cannot be split.
    #[error("MCP server command line `{line}`: {reason}")]
    CommandLine {
        /// The line.
        line: String,
        /// What is wrong.
        reason: String,
    },
}

/// Reads the servers of an `mcpServers` file. Disabled servers are left out.
pub fn load_config(path: impl AsRef<Path>) -> Result<Vec<McpServerConfig>, McpConfigError> {
    let path = path.as_ref();
    let text = std::fs::read_to_string(path).map_err(|source| McpConfigError::Read {
        file: path.to_path_buf(),
        source,
    })?;
    parse_config(&text, &path.display().to_string())
}

/// Parses the servers of an `mcpServers` document; `origin` names it in
/// errors (usually the file's path). Servers come in name order.
///
/// ```
/// use agent_tools::mcp::{parse_config, McpTransport};
///
/// let servers = parse_config(
///     r#"{"mcpServers": {
///         "files": {"command": "mcp-server-filesystem", "args": ["/srv/data"], "env": {"LOG": "1"}},
///         "remote": {"url": "http://127.0.0.1:3001/mcp", "headers": {"X-Team": "blue"}},
///         "old": {"command": "retired-server", "disabled": true}
///     }}"#,
///     "mcp.json",
/// )
/// .unwrap();
/// assert_eq!(servers.len(), 2);
/// assert_eq!(servers[0].name, "files");
/// assert!(matches!(servers[1].transport, McpTransport::Http { .. }));
///
/// let err = parse_config(r#"{"mcpServers": {"files": {"args": []}}}"#, "mcp.json").unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     "MCP config `mcp.json`, server `files`: needs `command` (stdio) or `url` (streamable HTTP)"
/// );
/// ```
pub fn parse_config(text: &str, origin: &str) -> Result<Vec<McpServerConfig>, McpConfigError> {
    let file_error = |reason: String| McpConfigError::File {
        file: origin.to_string(),
        reason,
    };
    let document: Value = serde_json::from_str(text).map_err(|e| {
        file_error(format!(
            "not valid JSON (line {}, column {}): {e}",
            e.line(),
            e.column()
        ))
    })?;
    let servers = document
        .get("mcpServers")
        .or_else(|| document.get("servers"))
        .ok_or_else(|| file_error("expected an object with an `mcpServers` object".to_string()))?
        .as_object()
        .ok_or_else(|| file_error("`mcpServers` must be an object of servers".to_string()))?;
    let mut configs = Vec::new();
    for (name, entry) in servers {
        let server_error = |reason: String| McpConfigError::Server {
            file: origin.to_string(),
            server: name.clone(),
            reason,
        };
        let raw: RawServer =
            serde_json::from_value(entry.clone()).map_err(|e| server_error(e.to_string()))?;
        if raw.disabled {
            continue;
        }
        configs.push(raw.into_config(name).map_err(server_error)?);
    }
    Ok(configs)
}

/// One server's entry as written.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawServer {
    #[serde(rename = "type")]
    kind: Option<String>,
    command: Option<String>,
    #[serde(default)]
    args: Vec<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    cwd: Option<PathBuf>,
    url: Option<String>,
    #[serde(default)]
    headers: BTreeMap<String, String>,
    bearer_token: Option<String>,
    bearer_token_env: Option<String>,
    prefix: Option<String>,
    startup_timeout_sec: Option<f64>,
    #[serde(default)]
    instructions: bool,
    #[serde(default)]
    disabled: bool,
}

impl RawServer {
    fn into_config(self, name: &str) -> Result<McpServerConfig, String> {
        if !is_valid_name(name) {
            return Err(
                "server names may only use letters, digits, `_` and `-` (at most 64)".to_string(),
            );
        }
        let kind = self.kind.as_deref().map(str::to_ascii_lowercase);
        let transport = match (kind.as_deref(), self.command, self.url) {
            (Some("sse"), _, _) => {
                return Err(
                    "the SSE transport is not supported; use the server's streamable HTTP endpoint"
                        .to_string(),
                );
            }
            (_, Some(_), Some(_)) => {
                return Err("has both `command` and `url`; a server uses one".to_string());
            }
            (None | Some("stdio"), Some(command), None) => McpTransport::Stdio {
                command,
                args: self.args,
                env: self.env,
                cwd: self.cwd,
            },
            (
                None | Some("http" | "streamable-http" | "streamablehttp" | "streamable_http"),
                None,
                Some(url),
            ) => {
                let bearer_token = match (self.bearer_token, self.bearer_token_env) {
                    (Some(_), Some(_)) => {
                        return Err("set `bearerToken` or `bearerTokenEnv`, not both".to_string());
                    }
                    (Some(token), None) => Some(token),
                    (None, Some(var)) => Some(std::env::var(&var).map_err(|_| {
                        format!("`bearerTokenEnv` names `{var}`, which is not set")
                    })?),
                    (None, None) => None,
                };
                McpTransport::Http {
                    url,
                    headers: self.headers,
                    bearer_token,
                }
            }
            (None, None, None) => {
                return Err("needs `command` (stdio) or `url` (streamable HTTP)".to_string());
            }
            (Some(kind @ "stdio"), None, _) => {
                return Err(format!("`type` is `{kind}` but there is no `command`"));
            }
            (Some(kind), _, _)
                if matches!(
                    kind,
                    "http" | "streamable-http" | "streamablehttp" | "streamable_http"
                ) =>
            {
                return Err(format!("`type` is `{kind}` but there is no `url`"));
            }
            (Some(kind), _, _) => {
                return Err(format!(
                    "unknown `type` `{kind}` (expected `stdio` or `http`)"
                ));
            }
        };
        let mut config = McpServerConfig::new(name, transport).with_instructions(self.instructions);
        if let Some(prefix) = self.prefix {
            config = config.with_prefix(prefix);
        }
        if let Some(seconds) = self.startup_timeout_sec {
            let timeout = Duration::try_from_secs_f64(seconds)
                .ok()
                .filter(|d| !d.is_zero())
                .ok_or_else(|| {
                    format!(
                        "`startupTimeoutSec` must be a positive number of seconds, got {seconds}"
                    )
                })?;
            config = config.with_startup_timeout(timeout);
        }
        Ok(config)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn error(text: &str) -> String {
        parse_config(text, "cfg.json").unwrap_err().to_string()
    }

    #[test]
    fn reads_the_desktop_shape_with_both_transports() {
        let servers = parse_config(
            r#"{"mcpServers": {
                "b": {"command": "srv", "args": ["x", "y z"], "env": {"K": "V"}, "cwd": "/w",
                      "prefix": "bb", "startupTimeoutSec": 2.5, "alwaysAllow": ["t"],
                      "instructions": true},
                "a": {"type": "http", "url": "http://h/mcp", "headers": {"X-A": "1"},
                      "bearerToken": "tok"}
            }}"#,
            "cfg.json",
        )
        .unwrap();
        assert_eq!(servers[1].name, "a");
        assert_eq!(
            servers[1].transport,
            McpTransport::Http {
                url: "http://h/mcp".into(),
                headers: BTreeMap::from([("X-A".into(), "1".into())]),
                bearer_token: Some("tok".into()),
            }
        );
        assert_eq!(servers[0].name, "b");
        assert_eq!(servers[0].prefix.as_deref(), Some("bb"));
        assert_eq!(servers[0].startup_timeout, Duration::from_millis(2500));
        assert!(servers[0].instructions);
        assert!(!servers[1].instructions, "off unless asked for");
        assert_eq!(
            servers[0].transport,
            McpTransport::Stdio {
                command: "srv".into(),
                args: vec!["x".into(), "y z".into()],
                env: BTreeMap::from([("K".into(), "V".into())]),
                cwd: Some(PathBuf::from("/w")),
            }
        );
    }

    #[test]
    fn errors_name_the_file_and_the_server() {
        assert_eq!(
            error(r#"{"mcpServers": {"s": {"command": "c", "url": "u"}}}"#),
            "MCP config `cfg.json`, server `s`: has both `command` and `url`; a server uses one"
        );
        assert_eq!(
            error(r#"{"mcpServers": {"s": {"type": "sse", "url": "u"}}}"#),
            "MCP config `cfg.json`, server `s`: the SSE transport is not supported; use the \
             server's streamable HTTP endpoint"
        );
        assert!(
            error(r#"{"mcpServers": {"s": {"command": "c", "args": "x"}}}"#)
                .starts_with("MCP config `cfg.json`, server `s`: invalid type: string \"x\"")
        );
        assert!(
            error(r#"{"mcpServers": {"my.server": {"command": "c"}}}"#)
                .contains("server `my.server`: server names may only use")
        );
        assert!(
            error(r#"{"mcpServers": {"s": {"type": "stdio", "url": "u"}}}"#)
                .contains("server `s`: `type` is `stdio` but there is no `command`")
        );
        assert!(
            error(r#"{"mcpServers": {"s": {"type": "ws", "url": "u"}}}"#)
                .contains("unknown `type` `ws`")
        );
        assert!(
            error(r#"{"mcpServers": {"s": {"command": "c", "startupTimeoutSec": -1}}}"#)
                .contains("`startupTimeoutSec` must be a positive number")
        );
        assert!(error(
            r#"{"mcpServers": {"s": {"url": "u", "bearerTokenEnv": "AGENT_TOOLS_SURELY_UNSET_VAR"}}}"#
        )
        .contains("`AGENT_TOOLS_SURELY_UNSET_VAR`, which is not set"));
        assert_eq!(
            error(r#"{"mcpServers": ["s"]}"#),
            "MCP config `cfg.json`: `mcpServers` must be an object of servers"
        );
        assert_eq!(
            error(r#"{"tools": {}}"#),
            "MCP config `cfg.json`: expected an object with an `mcpServers` object"
        );
        assert!(
            error("{\"mcpServers\": {,}")
                .starts_with("MCP config `cfg.json`: not valid JSON (line 1, column")
        );
    }

    #[test]
    fn a_missing_file_is_a_read_error_naming_it() {
        let err = load_config("/nonexistent/agentloop/mcp.json").unwrap_err();
        assert!(matches!(err, McpConfigError::Read { .. }));
        assert!(
            err.to_string().contains("/nonexistent/agentloop/mcp.json"),
            "{err}"
        );
    }
}
