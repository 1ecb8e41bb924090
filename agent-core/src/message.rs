//! The message model: what goes to a model and what comes back.
//!
//! These types are provider-neutral and plain data. A transport turns a
//! run into a [`CompletionRequest`]; a model answers with a [`Completion`].

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Instructions for the model: the system prompt.
    System,
    /// The user, or the loop speaking for the user (task, text observations).
    User,
    /// The model.
    Assistant,
    /// The answer to one native tool call (carries `tool_call_id`).
    Tool,
}

/// One tool call the model asked for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// Identifier that pairs the call with its answer (`call_0`, provider ids…).
    pub id: String,
    /// The tool's name as the model wrote it (it may not exist); once a run
    /// has checked the reply, the offered tool's own name when the model's
    /// spelling means exactly one (`read-file` for `read_file`).
    pub name: String,
    /// The arguments: a JSON value, or a JSON string when the model wrote plain text.
    pub arguments: Value,
}

impl ToolCall {
    /// A call with the given id, tool name and arguments.
    pub fn new(id: impl Into<String>, name: impl Into<String>, arguments: Value) -> Self {
        Self {
            id: id.into(),
            name: name.into(),
            arguments,
        }
    }
}

/// One message of a conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    /// Who wrote it.
    pub role: Role,
    /// Its text (may be empty, e.g. an assistant turn made only of tool calls).
    #[serde(default)]
    pub content: String,
    /// Native tool calls made in this (assistant) message.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    /// For a `Tool` message: the id of the call it answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
}

impl Message {
    fn with_role(role: Role, content: impl Into<String>) -> Self {
        Self {
            role,
            content: content.into(),
            tool_calls: Vec::new(),
            tool_call_id: None,
        }
    }

    /// A system message.
    pub fn system(content: impl Into<String>) -> Self {
        Self::with_role(Role::System, content)
    }

    /// A user message.
    pub fn user(content: impl Into<String>) -> Self {
        Self::with_role(Role::User, content)
    }

    /// An assistant message with text only.
    pub fn assistant(content: impl Into<String>) -> Self {
        Self::with_role(Role::Assistant, content)
    }

    /// An assistant message carrying native tool calls.
    pub fn assistant_with_calls(content: impl Into<String>, tool_calls: Vec<ToolCall>) -> Self {
        Self {
            tool_calls,
            ..Self::with_role(Role::Assistant, content)
        }
    }

    /// The answer to the native tool call `call_id`.
    pub fn tool(call_id: impl Into<String>, content: impl Into<String>) -> Self {
        Self {
            tool_call_id: Some(call_id.into()),
            ..Self::with_role(Role::Tool, content)
        }
    }
}

/// A tool as the model sees it: name, description and JSON-Schema parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolSpec {
    /// Unique name the model calls it by.
    pub name: String,
    /// What the tool does and when to use it.
    pub description: String,
    /// JSON Schema of the arguments object.
    pub parameters: Value,
}

/// How the model may pick tools (native transports only).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum ToolChoice {
    /// The model decides (the default).
    #[default]
    Auto,
    /// The model must not call tools.
    None,
    /// The model must call some tool.
    Required,
    /// The model must call this tool.
    Tool(String),
}

/// A constraint on what the model may generate: grammar-constrained
/// decoding, where the server supports it. The transport builds it; the
/// provider sends it in its server's dialect, or not at all.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Constraint {
    /// The output grammar in GBNF (llama.cpp's `grammar`, vLLM's
    /// structured-outputs grammar).
    pub grammar: String,
    /// The same steps as a JSON schema, for servers that constrain by
    /// schema instead (Ollama's `format`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub json_schema: Option<Value>,
    /// Only a final answer is allowed (a forced answer turn).
    #[serde(default)]
    pub answer_only: bool,
}

/// Everything a model needs to produce the next turn.
///
/// `messages` is shared: from one step to the next the loop appends to the
/// same list, so building a request does not copy the transcript.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CompletionRequest {
    /// The conversation to continue.
    pub messages: Arc<Vec<Message>>,
    /// Tools offered with the provider's native `tools=` (empty for text transports).
    #[serde(default)]
    pub tools: Arc<[ToolSpec]>,
    /// How the model may pick among `tools`.
    #[serde(default)]
    pub tool_choice: ToolChoice,
    /// Generation stops before any of these strings.
    #[serde(default)]
    pub stop: Vec<String>,
    /// Cap on generated tokens.
    #[serde(default)]
    pub max_tokens: Option<u32>,
    /// Sampling temperature.
    #[serde(default)]
    pub temperature: Option<f32>,
    /// Grammar-constrained decoding, when the transport asks for it (the
    /// provider sends it in its server's dialect, or not at all). Shared:
    /// one run's requests carry the same constraint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub constraint: Option<Arc<Constraint>>,
}

impl CompletionRequest {
    /// A request for `messages` with no tools and default options.
    pub fn new(messages: Vec<Message>) -> Self {
        Self {
            messages: Arc::new(messages),
            tools: no_tools(),
            tool_choice: ToolChoice::Auto,
            stop: Vec::new(),
            max_tokens: None,
            temperature: None,
            constraint: None,
        }
    }
}

/// The empty tool list of a request that offers none: one shared
/// allocation for the process, not one per request.
pub fn no_tools() -> Arc<[ToolSpec]> {
    static NONE: std::sync::OnceLock<Arc<[ToolSpec]>> = std::sync::OnceLock::new();
    Arc::clone(NONE.get_or_init(|| Arc::from(Vec::new())))
}

/// Token counts of one or more requests.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// Tokens read by the model.
    pub prompt_tokens: u64,
    /// Tokens generated by the model.
    pub completion_tokens: u64,
    /// `prompt_tokens + completion_tokens` (as reported, or computed).
    pub total_tokens: u64,
    /// Of `prompt_tokens`, how many the server served from its prompt
    /// cache instead of evaluating them, when it said (`None`: unknown).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cached_prompt_tokens: Option<u64>,
    /// `true` when some of these counts are estimates, not the server's
    /// own (a stream cut early, or a server that reports no usage).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub estimated: bool,
}

impl Usage {
    /// Usage with the total computed from its parts.
    pub fn new(prompt_tokens: u64, completion_tokens: u64) -> Self {
        Self {
            prompt_tokens,
            completion_tokens,
            total_tokens: prompt_tokens.saturating_add(completion_tokens),
            cached_prompt_tokens: None,
            estimated: false,
        }
    }

    /// The same usage, marked as an estimate.
    pub fn estimate(mut self) -> Self {
        self.estimated = true;
        self
    }

    /// Prompt tokens the server evaluated (not served from its cache),
    /// when it said how many it served from its cache.
    pub fn evaluated_prompt_tokens(&self) -> Option<u64> {
        self.cached_prompt_tokens
            .map(|cached| self.prompt_tokens.saturating_sub(cached))
    }

    /// Adds `other` into `self`, saturating. The cached count stays known
    /// only while every part knows it.
    pub fn add(&mut self, other: Usage) {
        let known_before = self.total_tokens == 0 && self.cached_prompt_tokens.is_none();
        self.prompt_tokens = self.prompt_tokens.saturating_add(other.prompt_tokens);
        self.completion_tokens = self
            .completion_tokens
            .saturating_add(other.completion_tokens);
        self.total_tokens = self.total_tokens.saturating_add(other.total_tokens);
        self.cached_prompt_tokens = match (self.cached_prompt_tokens, other.cached_prompt_tokens) {
            (Some(a), Some(b)) => Some(a.saturating_add(b)),
            (None, Some(b)) if known_before => Some(b),
            _ => None,
        };
        self.estimated |= other.estimated;
    }
}

/// Why the model stopped generating.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FinishReason {
    /// Natural end or a stop sequence.
    Stop,
    /// Hit `max_tokens`.
    Length,
    /// The model called tools.
    ToolCalls,
    /// Filtered by the provider.
    ContentFilter,
    /// The loop stopped reading a stream because the step was complete.
    StreamCut,
    /// The loop stopped reading a stream that kept repeating itself (a
    /// small model stuck emitting the same characters until its token
    /// limit).
    Repetition,
    /// Anything else the provider said.
    Other(String),
}

/// One model turn.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Completion {
    /// The request's constraint was sent to the server (grammar-constrained
    /// decoding took place).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub constrained: bool,
    /// What the provider wants the user to know about this turn (e.g. that
    /// the server refused a grammar and the request went unconstrained).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notices: Vec<String>,
    /// Generated text (may be empty when the turn is only tool calls).
    #[serde(default)]
    pub text: String,
    /// The model's reasoning, when the server sent it apart from the text
    /// (`reasoning_content` or `reasoning`, as servers do for reasoning
    /// models). A `<think>` block left inside `text` stays there; see
    /// [`crate::reasoning`].
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub reasoning: String,
    /// Native tool calls.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    /// Token usage, when the provider reported it.
    #[serde(default)]
    pub usage: Option<Usage>,
    /// Why generation ended, when known.
    #[serde(default)]
    pub finish_reason: Option<FinishReason>,
}

impl Completion {
    /// A text-only completion.
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            finish_reason: Some(FinishReason::Stop),
            ..Self::default()
        }
    }

    /// A completion made of native tool calls.
    pub fn tool_calls(calls: Vec<ToolCall>) -> Self {
        Self {
            tool_calls: calls,
            finish_reason: Some(FinishReason::ToolCalls),
            ..Self::default()
        }
    }

    /// The same completion with usage attached.
    pub fn with_usage(mut self, usage: Usage) -> Self {
        self.usage = Some(usage);
        self
    }
}
