//! [`McpServerConfig`]: how to reach one MCP server (a command to spawn, or
//! a streamable HTTP endpoint), its name, tool-name prefix and start-up
//! timeout.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

/// Default time a server has to start and list its tools.
pub const DEFAULT_STARTUP_TIMEOUT: Duration = Duration::from_secs(30);

/// How to reach a server.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum McpTransport {
    /// Spawn `command` with `args` and speak MCP over its stdin/stdout.
    /// Nothing goes through a shell.
    Stdio {
        /// The program: a path, or a name looked up on `PATH`.
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// Variables added to the inherited environment.
        env: BTreeMap<String, String>,
        /// The working directory; the agent's own when `None`.
        cwd: Option<PathBuf>,
    },
    /// Streamable HTTP at `url`.
    Http {
        /// The endpoint, e.g. the server's `/mcp` path.
        url: String,
        /// Headers sent with every request.
        headers: BTreeMap<String, String>,
        /// Sent as `Authorization: Bearer <token>`.
        bearer_token: Option<String>,
    },
}

/// One MCP server to connect to.
///
/// ```
/// use std::time::Duration;
/// use agent_tools::mcp::McpServerConfig;
///
/// let files = McpServerConfig::stdio("files", "mcp-server-filesystem", ["/srv/data"])
///     .with_prefix("fs")
///     .with_startup_timeout(Duration::from_secs(10));
/// assert_eq!(files.name, "files");
/// assert_eq!(files.prefix.as_deref(), Some("fs"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct McpServerConfig {
    /// The server's name: its tools form the allowlist group `name.*`, and
    /// errors name it. Letters, digits, `_` and `-`.
    pub name: String,
    /// How to reach it.
    pub transport: McpTransport,
    /// When set, each tool is registered as `prefix_tool`.
    pub prefix: Option<String>,
    /// How long connecting (start, handshake, tool listing) may take.
    pub startup_timeout: Duration,
    /// Whether the instructions the server sends when the session opens
    /// (`instructions` of its `initialize` result, written for the model)
    /// reach the model: the server's tools then carry them as their
    /// context ([`Tool::context`](agent_core::Tool::context)), written once
    /// after the task of each run that offers one of them. Off by default:
    /// servers write them for large models, often a page long, and every
    /// token costs a small local model time.
    pub instructions: bool,
}

impl McpServerConfig {
    /// A server spawned as `command args…`.
    pub fn stdio<I, S>(name: impl Into<String>, command: impl Into<String>, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Self::new(
            name,
            McpTransport::Stdio {
                command: command.into(),
                args: args.into_iter().map(Into::into).collect(),
                env: BTreeMap::new(),
                cwd: None,
            },
        )
    }

    /// A server reached over streamable HTTP at `url`.
    pub fn http(name: impl Into<String>, url: impl Into<String>) -> Self {
        Self::new(
            name,
            McpTransport::Http {
                url: url.into(),
                headers: BTreeMap::new(),
                bearer_token: None,
            },
        )
    }

    /// A server with this transport.
    pub fn new(name: impl Into<String>, transport: McpTransport) -> Self {
        Self {
            name: name.into(),
            transport,
            prefix: None,
            startup_timeout: DEFAULT_STARTUP_TIMEOUT,
            instructions: false,
        }
    }

    /// Renames the server.
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// Registers its tools as `prefix_tool`.
    pub fn with_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = Some(prefix.into());
        self
    }

    /// Passes the server's instructions on to the model (see
    /// [`instructions`](Self::instructions)).
    pub fn with_instructions(mut self, on: bool) -> Self {
        self.instructions = on;
        self
    }

    /// Sets the start-up timeout.
    pub fn with_startup_timeout(mut self, timeout: Duration) -> Self {
        self.startup_timeout = timeout;
        self
    }

    /// Adds an environment variable (stdio servers; ignored for HTTP).
    pub fn with_env(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        if let McpTransport::Stdio { env, .. } = &mut self.transport {
            env.insert(key.into(), value.into());
        }
        self
    }

    /// Sets the working directory (stdio servers; ignored for HTTP).
    pub fn with_cwd(mut self, dir: impl Into<PathBuf>) -> Self {
        if let McpTransport::Stdio { cwd, .. } = &mut self.transport {
            *cwd = Some(dir.into());
        }
        self
    }

    /// Adds a header (HTTP servers; ignored for stdio).
    pub fn with_header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        if let McpTransport::Http { headers, .. } = &mut self.transport {
            headers.insert(name.into(), value.into());
        }
        self
    }

    /// Sends `Authorization: Bearer <token>` (HTTP servers; ignored for stdio).
    pub fn with_bearer_token(mut self, token: impl Into<String>) -> Self {
        if let McpTransport::Http { bearer_token, .. } = &mut self.transport {
            *bearer_token = Some(token.into());
        }
        self
    }
}
