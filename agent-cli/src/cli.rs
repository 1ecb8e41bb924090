//! The command line: every subcommand and flag of `agent`.

use std::path::PathBuf;

use agent_core::Budget;
use clap::{Args, Parser, Subcommand, ValueEnum};

/// agentloop's command-line agent: run ReAct agents against any
/// OpenAI-compatible model, with the text or native transport.
#[derive(Debug, Parser)]
#[command(name = "agent", version, about, long_about = None)]
pub(crate) struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub(crate) command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Run one task to its answer.
    Run(RunArgs),
    /// A conversation: each line is a task; /transport, /tools, /reset, /exit.
    Chat(ChatArgs),
    /// Parse a raw model output from stdin; print the decision as JSON.
    Parse(ParseArgs),
    /// Print a trace as the live view would; --verify re-runs it.
    Replay(ReplayArgs),
    /// List the available tools with their argument schemas.
    Tools(ToolsArgs),
    /// Run one tool call through the gateway and print the observation.
    Call(CallArgs),
    /// Print the first request of a run exactly as it would be sent
    /// (messages, tools, grammar), without calling a model.
    Prompt(PromptArgs),
    /// The offline demo: scripted scenes, no key and no server.
    Demo(DemoArgs),
}

/// Which transport a run uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum TransportKind {
    /// ReAct text: Thought / Action / Action Input / Final Answer.
    Text,
    /// The provider's native tool calling.
    Native,
}

/// Where the model is.
#[derive(Debug, Clone, Args)]
pub(crate) struct ModelArgs {
    /// Base URL of an OpenAI-compatible API.
    #[arg(long, env = "OPENAI_BASE_URL")]
    pub(crate) base_url: Option<String>,
    /// Model name.
    #[arg(long, env = "AGENT_MODEL")]
    pub(crate) model: Option<String>,
    /// API key (local servers need none).
    #[arg(long, env = "OPENAI_API_KEY", hide_env_values = true)]
    pub(crate) api_key: Option<String>,
    /// Do not stream model output.
    #[arg(long)]
    pub(crate) no_stream: bool,
    /// Grammar-constrained decoding for the text transport: auto (probe the
    /// server once and use grammars if it honours them), on, or off.
    #[arg(long, value_enum, env = "AGENT_CONSTRAIN", default_value_t = ConstrainArg::Auto)]
    pub(crate) constrain: ConstrainArg,
}

/// The `--constrain` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ConstrainArg {
    /// Probe the server once; use grammars only if it honours them.
    Auto,
    /// Always send grammars.
    On,
    /// Never send grammars.
    Off,
}

/// Which tools a run may use.
#[derive(Debug, Clone, Args)]
pub(crate) struct ToolArgs {
    /// The allowlist: built-in groups (calculator, search, files), single
    /// tool names and `server.*` for every tool of an MCP server (default:
    /// calculator,search for runs, all three for `tools` and `call`, plus
    /// every tool of the MCP servers given).
    #[arg(long, value_delimiter = ',')]
    pub(crate) tools: Option<Vec<String>>,
    /// Root directory of the file tools.
    #[arg(long, default_value = ".")]
    pub(crate) dir: PathBuf,
    /// Offer the writing file tools too (write_file, edit_file); naming
    /// one in --tools offers it as well. Without either, the files group
    /// only reads.
    #[arg(long)]
    pub(crate) write: bool,
    /// Open each run that has the file tools with what --dir holds, after
    /// the task: its files by path when it holds few, its top-level
    /// entries otherwise (run, chat and prompt; tools and call have no
    /// run to open).
    #[arg(long)]
    pub(crate) file_overview: bool,
}

/// Replacements for parts of the prompt.
#[derive(Debug, Clone, Default, Args)]
pub(crate) struct PromptOverrideArgs {
    /// Replace the role / system section: the text, or @FILE to read it
    /// from a file. With the native transport this is the whole system
    /// prompt.
    #[arg(long, value_name = "TEXT|@FILE")]
    pub(crate) system: Option<String>,
    /// Replace a section of the text transport's prompt: role, tools,
    /// format, endings, rules or intro, as NAME=TEXT or NAME=@FILE; an
    /// empty TEXT removes the section. `{tools}` in a tools section stands
    /// for the tool list. Repeatable.
    #[arg(long, value_name = "NAME=TEXT|@FILE")]
    pub(crate) section: Vec<String>,
    /// Native transport: how the answer comes. `calls` (the default):
    /// every turn must be a tool call, and the answer comes on the answer
    /// turn, once the model repeats a call or reaches a limit; `tool`: a
    /// `final_answer` tool beside the others; `words`: the model answers
    /// in words when it sees fit (`tool_choice: auto`, the default with
    /// --no-answer-turn).
    #[arg(long, value_enum, value_name = "MODE")]
    pub(crate) answer_mode: Option<AnswerModeArg>,
}

/// How the native transport's answer comes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum AnswerModeArg {
    /// Every turn is a tool call; the answer comes on the answer turn.
    Calls,
    /// A `final_answer` tool beside the others.
    Tool,
    /// The model answers in words when it sees fit.
    Words,
}

impl From<AnswerModeArg> for agent_native::AnswerMode {
    fn from(mode: AnswerModeArg) -> Self {
        match mode {
            AnswerModeArg::Calls => Self::AfterCalls,
            AnswerModeArg::Tool => Self::AnswerTool,
            AnswerModeArg::Words => Self::Words,
        }
    }
}

/// MCP servers whose tools join the built-ins. They start before the
/// command and stop when it ends.
#[derive(Debug, Clone, Default, Args)]
pub(crate) struct McpArgs {
    /// An MCP server over stdio: 'COMMAND ARGS', split like a shell splits
    /// words but never run through one; leading NAME=VALUE words set its
    /// environment. Repeatable.
    #[arg(long = "mcp", value_name = "COMMAND")]
    pub(crate) stdio: Vec<String>,
    /// An MCP server over streamable HTTP, `[NAME=]URL` (named after the
    /// host when no NAME is given). Repeatable.
    #[arg(long = "mcp-http", value_name = "[NAME=]URL")]
    pub(crate) http: Vec<String>,
    /// Send the token in this environment variable as
    /// `Authorization: Bearer` to the --mcp-http servers.
    #[arg(long = "mcp-token-env", value_name = "VAR", requires = "http")]
    pub(crate) token_env: Option<String>,
    /// An `mcpServers` JSON file, as desktop MCP clients write it.
    /// Repeatable.
    #[arg(long = "mcp-config", value_name = "FILE")]
    pub(crate) config: Vec<PathBuf>,
    /// Pass MCP servers' instructions (sent when a session opens) on to
    /// the model, written once after the task: every server's, or with
    /// `=NAME,…` only those servers'. A config file may ask for them per
    /// server with `"instructions": true`.
    #[arg(
        long = "mcp-instructions",
        value_name = "NAME",
        num_args = 0..,
        value_delimiter = ',',
        require_equals = true
    )]
    pub(crate) instructions: Option<Vec<String>>,
}

/// Limits of a run. Defaults come from the library ([`Budget::default`],
/// the provider's and the gateway's timeouts): one source of defaults.
#[derive(Debug, Clone, Args)]
pub(crate) struct BudgetArgs {
    /// Model calls at most.
    #[arg(long, default_value_t = Budget::default().max_steps)]
    pub(crate) max_steps: u32,
    /// Tool calls at most.
    #[arg(long, default_value_t = Budget::default().max_tool_calls)]
    pub(crate) max_tool_calls: u32,
    /// Wall clock for the whole run, in seconds.
    #[arg(long, default_value_t = crate::setup::DEFAULT_RUN_TIMEOUT_SECS)]
    pub(crate) timeout: f64,
    /// Time limit for one model request, in seconds.
    #[arg(long, default_value_t = agent_native::DEFAULT_REQUEST_TIMEOUT.as_secs_f64())]
    pub(crate) request_timeout: f64,
    /// Time limit for one tool call, in seconds.
    #[arg(long, default_value_t = agent_tools::DEFAULT_TIMEOUT.as_secs_f64())]
    pub(crate) tool_timeout: f64,
    /// Total tokens (prompt + completion) at most.
    #[arg(long)]
    pub(crate) max_tokens: Option<u64>,
    /// Stop at a limit or a repeated call without the one answer turn
    /// that otherwise asks the model for its answer first.
    #[arg(long)]
    pub(crate) no_answer_turn: bool,
    /// Take an answer given right after failed calls, before any tool gave
    /// a result, as it is, instead of asking once for another call first.
    #[arg(long)]
    pub(crate) no_retry_after_failed_calls: bool,
    /// Keep offering a tool whose call failed again when it was repeated
    /// exactly, instead of setting it aside for the next turn.
    #[arg(long)]
    pub(crate) no_set_aside_failing_tool: bool,
    /// The same call (or the same result) this many times ends the work as
    /// a loop; at least 2.
    #[arg(long, default_value_t = Budget::default().loop_threshold)]
    pub(crate) loop_threshold: u32,
    /// Run a call that repeats the one that just succeeded, instead of
    /// ending the work for the answer; repeats then count towards
    /// --loop-threshold.
    #[arg(long)]
    pub(crate) no_answer_on_repeat: bool,
    /// Run calculator calls, and take answers, whose numbers appear in no
    /// tool result, the task or the system prompt, instead of sending them
    /// back once.
    #[arg(long)]
    pub(crate) no_ground_numbers: bool,
    /// Take an answer given before any tool result has shown a name the
    /// task writes in code form (words joined by `_`), instead of sending
    /// it back once.
    #[arg(long)]
    pub(crate) no_ground_names: bool,
    /// Take an answer with a number given after the model's thought said
    /// it would compute and before it called a computing tool, instead of
    /// sending it back once to a turn that must compute.
    #[arg(long)]
    pub(crate) no_compute_when_planned: bool,
}

/// `agent run`.
#[derive(Debug, Args)]
pub(crate) struct RunArgs {
    /// The task.
    pub(crate) task: String,
    /// The transport.
    #[arg(long, value_enum, default_value_t = TransportKind::Text)]
    pub(crate) transport: TransportKind,
    /// The model.
    #[command(flatten)]
    pub(crate) model: ModelArgs,
    /// The tools.
    #[command(flatten)]
    pub(crate) tools: ToolArgs,
    /// The MCP servers.
    #[command(flatten)]
    pub(crate) mcp: McpArgs,
    /// The limits.
    #[command(flatten)]
    pub(crate) budget: BudgetArgs,
    /// The prompt.
    #[command(flatten)]
    pub(crate) prompt: PromptOverrideArgs,
    /// Write a JSONL trace of the run here.
    #[arg(long)]
    pub(crate) trace: Option<PathBuf>,
    /// Print the outcome as JSON on stdout.
    #[arg(long)]
    pub(crate) json: bool,
    /// No live view and no summary: only the answer on stdout.
    #[arg(long, short)]
    pub(crate) quiet: bool,
}

/// `agent chat`.
#[derive(Debug, Args)]
pub(crate) struct ChatArgs {
    /// The transport to start with.
    #[arg(long, value_enum, default_value_t = TransportKind::Text)]
    pub(crate) transport: TransportKind,
    /// The model.
    #[command(flatten)]
    pub(crate) model: ModelArgs,
    /// The tools.
    #[command(flatten)]
    pub(crate) tools: ToolArgs,
    /// The MCP servers.
    #[command(flatten)]
    pub(crate) mcp: McpArgs,
    /// The limits of each task.
    #[command(flatten)]
    pub(crate) budget: BudgetArgs,
    /// The prompt.
    #[command(flatten)]
    pub(crate) prompt: PromptOverrideArgs,
}

/// The output grammars `agent parse` accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum DialectArg {
    /// Classic ReAct with `Final Answer:`.
    Classic,
    /// `Answer:` ending.
    Answer,
    /// Paper style `Tool[input]` / `Finish[answer]`.
    Paper,
}

/// `agent parse`.
#[derive(Debug, Args)]
pub(crate) struct ParseArgs {
    /// The dialect (the parser accepts all; this is for symmetry with prompts).
    #[arg(long, value_enum, default_value_t = DialectArg::Classic)]
    pub(crate) dialect: DialectArg,
    /// Treat text with no markers as the final answer.
    #[arg(long)]
    pub(crate) implicit_final_answer: bool,
}

/// `agent replay`.
#[derive(Debug, Args)]
pub(crate) struct ReplayArgs {
    /// The trace file (JSONL).
    pub(crate) file: PathBuf,
    /// Re-run it with the recorded model turns and compare the outcome.
    #[arg(long)]
    pub(crate) verify: bool,
    /// Root directory of the file tools, for --verify.
    #[arg(long, default_value = ".")]
    pub(crate) dir: PathBuf,
}

/// `agent tools`.
#[derive(Debug, Args)]
pub(crate) struct ToolsArgs {
    /// Print the specs as JSON.
    #[arg(long)]
    pub(crate) json: bool,
    /// The tools.
    #[command(flatten)]
    pub(crate) tools: ToolArgs,
    /// The MCP servers.
    #[command(flatten)]
    pub(crate) mcp: McpArgs,
}

/// `agent call`.
#[derive(Debug, Args)]
pub(crate) struct CallArgs {
    /// The tool's name.
    pub(crate) tool: String,
    /// The arguments: JSON, or a plain string for a one-string-argument tool.
    pub(crate) args: String,
    /// The tools.
    #[command(flatten)]
    pub(crate) tools: ToolArgs,
    /// The MCP servers.
    #[command(flatten)]
    pub(crate) mcp: McpArgs,
}

/// `agent prompt`.
#[derive(Debug, Args)]
pub(crate) struct PromptArgs {
    /// The task (default: a `<task>` placeholder).
    pub(crate) task: Option<String>,
    /// The transport.
    #[arg(long, value_enum, default_value_t = TransportKind::Text)]
    pub(crate) transport: TransportKind,
    /// The model (only its name, streaming and --constrain shape the
    /// request; nothing is sent).
    #[command(flatten)]
    pub(crate) model: ModelArgs,
    /// The tools.
    #[command(flatten)]
    pub(crate) tools: ToolArgs,
    /// The MCP servers (started to read their tools).
    #[command(flatten)]
    pub(crate) mcp: McpArgs,
    /// The prompt.
    #[command(flatten)]
    pub(crate) prompt: PromptOverrideArgs,
    /// Print the request body as JSON, as it goes on the wire.
    #[arg(long)]
    pub(crate) json: bool,
}

/// `agent demo`.
#[derive(Debug, Args)]
pub(crate) struct DemoArgs {
    /// Only this transport (default: both).
    #[arg(long, value_enum)]
    pub(crate) transport: Option<TransportKind>,
    /// Only this scene: multi-hop, recovery, refund, files, budget.
    #[arg(long)]
    pub(crate) scene: Option<String>,
}

/// Tool groups of `agent run` and `agent chat` when none are given.
pub(crate) const RUN_TOOLS: &[&str] = &["calculator", "search"];
/// Tool groups of `agent tools` and `agent call` when none are given.
pub(crate) const ALL_TOOLS: &[&str] = &["calculator", "search", "files"];
