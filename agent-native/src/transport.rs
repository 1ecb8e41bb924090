//! [`NativeTransport`]: the provider's own function calling. Tool specs go
//! in `tools=` (with a configurable `tool_choice`), parallel `tool_calls`
//! are honoured, and every call is answered by exactly one `role: tool`
//! message with its id (the core answers denied, skipped and cancelled
//! calls too). Tool calls written into `content` are recognised.

use std::sync::Arc;

use agent_core::message::{ToolChoice, ToolSpec};
use agent_core::tool::Observation;
use agent_core::transport::{Decision, Interpretation, Opening, RequestParts, Turn};
use agent_core::{Completion, CompletionRequest, Message, Transport};

use crate::answer_tool::{
    ANSWER_TOOL, AnswerCall, WithAnswerTool, has_own_answer_tool, take_answer,
};
use crate::content_calls::calls_in_content;

/// The default system prompt: one sentence (every prompt token costs time
/// on a local model), telling small models to answer once a tool has given
/// the result (they otherwise repeat the call).
pub const DEFAULT_SYSTEM_PROMPT: &str =
    "Once a tool gives you what you need, answer instead of calling it again.";

/// The default system prompt with the answer tool on: every turn is a
/// call, and the answer is a call to `final_answer`.
pub const ANSWER_TOOL_SYSTEM_PROMPT: &str = "Look things up with the tools. Once a tool result shows the answer, call final_answer with it.";

/// The native tool-calling transport.
///
/// ```
/// use agent_core::transport::Decision;
/// use agent_core::{Completion, ToolCall, Transport};
/// use agent_native::NativeTransport;
///
/// let read = NativeTransport::new().interpret(Completion::tool_calls(vec![
///     ToolCall::new("call_1", "calculator", serde_json::json!({"expression": "2+2"})),
/// ]), &[]);
/// assert!(matches!(read.turn.decision, Decision::Act(calls) if calls[0].id == "call_1"));
/// ```
#[derive(Debug, Clone)]
pub struct NativeTransport {
    system_prompt: Option<String>,
    tool_choice: Option<ToolChoice>,
    tool_names: Vec<String>,
    tools_on_answer_turn: bool,
    answer_tool: Option<WithAnswerTool>,
}

impl Default for NativeTransport {
    fn default() -> Self {
        Self::new()
    }
}

impl NativeTransport {
    /// The transport with the default system prompt.
    pub fn new() -> Self {
        Self {
            system_prompt: None,
            tool_choice: None,
            tool_names: Vec::new(),
            tools_on_answer_turn: false,
            answer_tool: Some(WithAnswerTool::default()),
        }
    }

    /// Replaces the system prompt.
    pub fn with_system_prompt(mut self, prompt: impl Into<String>) -> Self {
        self.system_prompt = Some(prompt.into());
        self
    }

    /// Offers a `final_answer` tool beside the run's tools and sends
    /// `tool_choice: "required"` on ordinary turns (default on), so every
    /// turn is a call and the answer is a call to `final_answer`. Small
    /// local models then stop describing calls in prose instead of making
    /// them. A reply in prose (a server that ignores `required`) is still
    /// read as the answer. A run tool named `final_answer` turns it off.
    pub fn with_answer_tool(mut self, on: bool) -> Self {
        self.answer_tool = on.then(WithAnswerTool::default);
        self
    }

    /// Whether the answer tool applies to a run with these tools.
    fn answer_tool_for(&self, tools: &[ToolSpec]) -> Option<&WithAnswerTool> {
        self.answer_tool
            .as_ref()
            .filter(|_| !tools.is_empty() && !has_own_answer_tool(tools))
    }

    fn system_prompt(&self) -> &str {
        match (&self.system_prompt, &self.answer_tool) {
            (Some(prompt), _) => prompt,
            (None, Some(_)) => ANSWER_TOOL_SYSTEM_PROMPT,
            (None, None) => DEFAULT_SYSTEM_PROMPT,
        }
    }

    /// Whether an answer turn still lists the tools, with `tool_choice:
    /// "none"` (default off: it lists only the answer tool, with
    /// `tool_choice: "required"`, or with the answer tool off, no tools
    /// and no `tool_choice`).
    /// Servers that render the tools into the prompt (llama.cpp's chat
    /// templates) keep their prefix cache with the tools listed, but small
    /// models then answer with a tool call written as text instead of the
    /// answer; without them they answer.
    pub fn with_tools_on_answer_turn(mut self, on: bool) -> Self {
        self.tools_on_answer_turn = on;
        self
    }

    /// The `tool_choice` of ordinary requests (default `required` with the
    /// answer tool, `auto` without); answer turns are set apart (see
    /// [`with_tools_on_answer_turn`](Self::with_tools_on_answer_turn)).
    pub fn with_tool_choice(mut self, choice: ToolChoice) -> Self {
        self.tool_choice = Some(choice);
        self
    }

    /// Only these tool names are recognised in `content` (default: any
    /// object with `name` and `arguments`).
    pub fn with_tool_names(mut self, names: Vec<String>) -> Self {
        self.tool_names = names;
        self
    }
}

impl Transport for NativeTransport {
    fn name(&self) -> &str {
        "native"
    }

    fn opening(&self, task: &str, _tools: &[ToolSpec]) -> Opening {
        let prompt = self.system_prompt();
        let system = if prompt.is_empty() {
            Vec::new()
        } else {
            vec![Message::system(prompt)]
        };
        Opening {
            system,
            task: Message::user(task),
        }
    }

    fn render(&self, parts: RequestParts<'_>) -> CompletionRequest {
        let mut request = parts.plain();
        if parts.answer_only {
            request.tool_choice = ToolChoice::None;
            if let Some(answer_tool) = self
                .answer_tool_for(parts.tools)
                .filter(|_| !self.tools_on_answer_turn)
            {
                // The answer tool alone, and a call required: the server
                // itself makes the turn an answer. Small models otherwise
                // write the call they wanted to repeat as text.
                request.tools = answer_tool.alone();
                request.tool_choice = ToolChoice::Required;
            } else if self.tools_on_answer_turn {
                // The same list as ordinary turns, so the prefix holds.
                request.tools = match self.answer_tool_for(parts.tools) {
                    Some(answer_tool) => answer_tool.tools(parts.tools),
                    None => Arc::clone(parts.tools),
                };
            }
        } else if let Some(answer_tool) = self.answer_tool_for(parts.tools) {
            request.tools = answer_tool.tools(parts.tools);
            request.tool_choice = self.tool_choice.clone().unwrap_or(ToolChoice::Required);
        } else {
            request.tools = Arc::clone(parts.tools);
            request.tool_choice = self.tool_choice.clone().unwrap_or(ToolChoice::Auto);
        }
        request
    }

    fn interpret(&self, completion: Completion, tools: &[ToolSpec]) -> Interpretation {
        let mut calls = completion.tool_calls;
        let mut text = completion.text;
        let answer_tool = self.answer_tool_for(tools).is_some();
        if calls.is_empty() && !text.is_empty() {
            let mut names: Vec<&str> = if self.tool_names.is_empty() {
                tools.iter().map(|t| t.name.as_str()).collect()
            } else {
                self.tool_names.iter().map(String::as_str).collect()
            };
            if answer_tool {
                names.push(ANSWER_TOOL);
            }
            let found = calls_in_content(&text, &names);
            if !found.is_empty() {
                calls = found;
                text.clear();
            }
        }
        if answer_tool {
            match take_answer(&mut calls) {
                AnswerCall::None => {}
                AnswerCall::Answer(answer) => {
                    return Interpretation {
                        turn: Turn {
                            thought: None,
                            decision: Decision::Final(answer.clone()),
                        },
                        message: Message::assistant(answer),
                    };
                }
                AnswerCall::Empty => {
                    return Interpretation {
                        turn: Turn {
                            thought: None,
                            decision: Decision::Malformed(format!(
                                "`{ANSWER_TOOL}` was called without an `answer`"
                            )),
                        },
                        message: Message::assistant(text),
                    };
                }
            }
        }
        let decision = if !calls.is_empty() {
            Decision::Act(calls.as_slice().into())
        } else if text.trim().is_empty() {
            Decision::Malformed("the reply was empty".into())
        } else if !text.chars().any(char::is_alphanumeric) {
            // A stray `{` from a tool call the server did not parse is not
            // an answer.
            Decision::Malformed("the reply held no words or numbers, only punctuation".into())
        } else {
            Decision::Final(text.trim().to_string())
        };
        Interpretation {
            turn: Turn {
                thought: None,
                decision,
            },
            message: Message::assistant_with_calls(text, calls),
        }
    }

    fn observations(&self, observations: &[Observation]) -> Vec<Message> {
        observations
            .iter()
            .map(|o| Message::tool(o.call_id.clone(), o.content.clone()))
            .collect()
    }

    fn malformed(&self, reason: &str, tools: &[ToolSpec]) -> Vec<Message> {
        let mut names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
        let answer_tool = self.answer_tool_for(tools).is_some();
        if answer_tool {
            names.push(ANSWER_TOOL);
        }
        let listed = if names.is_empty() {
            String::new()
        } else {
            format!(" ({})", names.join(", "))
        };
        let answer = if answer_tool {
            format!("call {ANSWER_TOOL} with the answer")
        } else {
            "reply with the final answer".to_string()
        };
        vec![Message::user(format!(
            "Error: {reason}. Call one of the tools{listed}, or {answer}."
        ))]
    }
}
