//! The command line: every subcommand and flag of `agent`.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// agentloop's command-line agent: run ReAct agents against any
/// OpenAI-compatible model, with the text or native transport.
#[derive(Debug, Parser)]
#[command(name = "agent", version, about, long_about = None)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
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
    /// The offline demo: scripted scenes, no key and no server.
    Demo(DemoArgs),
}

/// Which transport a run uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TransportKind {
    /// ReAct text: Thought / Action / Action Input / Final Answer.
    Text,
    /// The provider's native tool calling.
    Native,
}

/// Where the model is.
#[derive(Debug, Clone, Args)]
pub struct ModelArgs {
    /// Base URL of an OpenAI-compatible API.
    #[arg(long, env = "OPENAI_BASE_URL")]
    pub base_url: Option<String>,
    /// Model name.
    #[arg(long, env = "AGENT_MODEL")]
    pub model: Option<String>,
    /// API key (local servers need none).
    #[arg(long, env = "OPENAI_API_KEY", hide_env_values = true)]
    pub api_key: Option<String>,
    /// Do not stream model output.
    #[arg(long)]
    pub no_stream: bool,
}

/// Which tools a run may use.
#[derive(Debug, Clone, Args)]
pub struct ToolArgs {
    /// Tool groups: calculator, search, files (default: calculator,search
    /// for runs; all three for `tools` and `call`).
    #[arg(long, value_delimiter = ',')]
    pub tools: Option<Vec<String>>,
    /// Root directory of the file tools.
    #[arg(long, default_value = ".")]
    pub dir: PathBuf,
    /// Leave out the writing file tools.
    #[arg(long)]
    pub read_only: bool,
}

/// Limits of a run.
#[derive(Debug, Clone, Args)]
pub struct BudgetArgs {
    /// Model calls at most.
    #[arg(long, default_value_t = 10)]
    pub max_steps: u32,
    /// Tool calls at most.
    #[arg(long, default_value_t = 20)]
    pub max_tool_calls: u32,
    /// Wall clock for the run, in seconds.
    #[arg(long, default_value_t = 300.0)]
    pub timeout: f64,
    /// Time limit per tool call, in seconds.
    #[arg(long, default_value_t = 30.0)]
    pub tool_timeout: f64,
    /// Total tokens (prompt + completion) at most.
    #[arg(long)]
    pub max_tokens: Option<u64>,
}

/// `agent run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// The task.
    pub task: String,
    /// The transport.
    #[arg(long, value_enum, default_value_t = TransportKind::Text)]
    pub transport: TransportKind,
    /// The model.
    #[command(flatten)]
    pub model: ModelArgs,
    /// The tools.
    #[command(flatten)]
    pub tools: ToolArgs,
    /// The limits.
    #[command(flatten)]
    pub budget: BudgetArgs,
    /// Write a JSONL trace of the run here.
    #[arg(long)]
    pub trace: Option<PathBuf>,
    /// Print the outcome as JSON on stdout.
    #[arg(long)]
    pub json: bool,
    /// No live view.
    #[arg(long, short)]
    pub quiet: bool,
}

/// `agent chat`.
#[derive(Debug, Args)]
pub struct ChatArgs {
    /// The transport to start with.
    #[arg(long, value_enum, default_value_t = TransportKind::Text)]
    pub transport: TransportKind,
    /// The model.
    #[command(flatten)]
    pub model: ModelArgs,
    /// The tools.
    #[command(flatten)]
    pub tools: ToolArgs,
    /// The limits of each task.
    #[command(flatten)]
    pub budget: BudgetArgs,
}

/// The output grammars `agent parse` accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DialectArg {
    /// Classic ReAct with `Final Answer:`.
    Classic,
    /// `Answer:` ending.
    Answer,
    /// Paper style `Tool[input]` / `Finish[answer]`.
    Paper,
}

/// `agent parse`.
#[derive(Debug, Args)]
pub struct ParseArgs {
    /// The dialect (the parser accepts all; this is for symmetry with prompts).
    #[arg(long, value_enum, default_value_t = DialectArg::Classic)]
    pub dialect: DialectArg,
    /// Treat text with no markers as the final answer.
    #[arg(long)]
    pub implicit_final_answer: bool,
}

/// `agent replay`.
#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// The trace file (JSONL).
    pub file: PathBuf,
    /// Re-run it with the recorded model turns and compare the outcome.
    #[arg(long)]
    pub verify: bool,
    /// Root directory of the file tools, for --verify.
    #[arg(long, default_value = ".")]
    pub dir: PathBuf,
}

/// `agent tools`.
#[derive(Debug, Args)]
pub struct ToolsArgs {
    /// Print the specs as JSON.
    #[arg(long)]
    pub json: bool,
    /// The tools.
    #[command(flatten)]
    pub tools: ToolArgs,
}

/// `agent call`.
#[derive(Debug, Args)]
pub struct CallArgs {
    /// The tool's name.
    pub tool: String,
    /// The arguments: JSON, or a plain string for a one-string-argument tool.
    pub args: String,
    /// The tools.
    #[command(flatten)]
    pub tools: ToolArgs,
}

/// `agent demo`.
#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Only this transport (default: both).
    #[arg(long, value_enum)]
    pub transport: Option<TransportKind>,
    /// Only this scene: multi-hop, recovery, refund, files, budget.
    #[arg(long)]
    pub scene: Option<String>,
}

impl ToolArgs {
    /// The groups asked for, or `default`.
    pub fn groups(&self, default: &[&str]) -> Vec<String> {
        self.tools
            .clone()
            .unwrap_or_else(|| default.iter().map(|g| g.to_string()).collect())
    }
}

/// Tool groups of `agent run` and `agent chat` when none are given.
pub const RUN_TOOLS: &[&str] = &["calculator", "search"];
/// Tool groups of `agent tools` and `agent call` when none are given.
pub const ALL_TOOLS: &[&str] = &["calculator", "search", "files"];
