//! [`NativeTransport`]: the provider's own function calling. Tool specs go
//! in `tools=` (with a configurable `tool_choice`), parallel `tool_calls`
//! are honoured, and every call is answered by exactly one `role: tool`
//! message with its id (the core answers denied, skipped and cancelled
//! calls too). Tool calls written into `content` are recognised.

use std::sync::Arc;

use agent_core::message::{ToolChoice, ToolSpec};
use agent_core::tool::Observation;
use agent_core::transport::{Decision, Findings, Interpretation, Opening, RequestParts, Turn};
use agent_core::{Completion, CompletionRequest, Message, Transport};

use crate::answer_tool::{
    ANSWER_TOOL, AnswerCall, WithAnswerTool, answer_in_object, has_own_answer_tool, take_answer,
};
use crate::content_calls::{
    calls_after_prose, calls_ending_reasoning, calls_in_content, looks_like_broken_call,
    unknown_tool_call,
};
use crate::words::{refusal_constraint, words_constraint, words_constraint_with_numbers};
use agent_core::family_calls::functionary_prose;
use agent_core::harmony::{HarmonyStep, read_harmony};
use agent_core::model::parse_arguments;
use agent_core::reasoning::split_reasoning;

/// The default system prompt of [`AnswerMode::AfterCalls`]: one short
/// sentence (every prompt token costs time on a local model) that sends
/// the model to the tools for facts and sums.
pub const DEFAULT_SYSTEM_PROMPT: &str =
    "Look facts up with the tools first, then compute with them; never guess a number.";

/// The default system prompt of [`AnswerMode::Words`], telling small
/// models to answer once a tool has given the result (they otherwise
/// repeat the call).
pub const WORDS_SYSTEM_PROMPT: &str =
    "Once a tool gives you what you need, answer instead of calling it again.";

/// The default system prompt of [`AnswerMode::AnswerTool`]: every turn is
/// a call, and the answer is a call to `final_answer`.
pub const ANSWER_TOOL_SYSTEM_PROMPT: &str = "Look things up with the tools. Once a tool result shows the answer, call final_answer with it.";

/// How a run's answer comes with native tool calling.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum AnswerMode {
    /// Every ordinary turn must be a tool call (`tool_choice:
    /// "required"`), and the answer comes on the run's answer turn
    /// (`tool_choice: "none"`), which the core starts when the model
    /// repeats the call that just gave its result, when a result keeps
    /// coming back, or at a limit. Small local models that are free to
    /// reply in words describe the call they should make ("you can use the
    /// `grep` function…") or guess; a turn that must be a call cannot, and
    /// they repeat a call once they have what they need. Costs no prompt
    /// tokens. Needs the answer turn (`Budget::answer_turn`, on by
    /// default): without it a run ends at a limit with no answer.
    #[default]
    AfterCalls,
    /// A `final_answer` tool beside the run's tools, with `tool_choice:
    /// "required"`: every turn is a call, and the answer is a call to
    /// `final_answer`. About 50 prompt tokens more per request than
    /// [`AfterCalls`](Self::AfterCalls). A run tool named `final_answer`
    /// turns it off.
    AnswerTool,
    /// `tool_choice: "auto"`: the model calls tools or answers in words
    /// when it sees fit, as hosted models do well.
    Words,
}

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
    mode: AnswerMode,
    answer_tool: WithAnswerTool,
}

impl Default for NativeTransport {
    fn default() -> Self {
        Self::new()
    }
}

impl NativeTransport {
    /// The transport in [`AnswerMode::AfterCalls`] with its default
    /// system prompt.
    pub fn new() -> Self {
        Self {
            system_prompt: None,
            tool_choice: None,
            tool_names: Vec::new(),
            mode: AnswerMode::default(),
            answer_tool: WithAnswerTool::default(),
        }
    }

    /// Replaces the system prompt.
    pub fn with_system_prompt(mut self, prompt: impl Into<String>) -> Self {
        self.system_prompt = Some(prompt.into());
        self
    }

    /// How the answer comes (default [`AnswerMode::AfterCalls`]).
    pub fn with_answer_mode(mut self, mode: AnswerMode) -> Self {
        self.mode = mode;
        self
    }

    /// The answer mode.
    pub fn answer_mode(&self) -> AnswerMode {
        self.mode
    }

    /// Whether the answer tool applies to a run with these tools.
    fn answer_tool_for(&self, tools: &[ToolSpec]) -> Option<&WithAnswerTool> {
        (self.mode == AnswerMode::AnswerTool && !tools.is_empty() && !has_own_answer_tool(tools))
            .then_some(&self.answer_tool)
    }

    fn system_prompt(&self) -> &str {
        match (&self.system_prompt, self.mode) {
            (Some(prompt), _) => prompt,
            (None, AnswerMode::AfterCalls) => DEFAULT_SYSTEM_PROMPT,
            (None, AnswerMode::AnswerTool) => ANSWER_TOOL_SYSTEM_PROMPT,
            (None, AnswerMode::Words) => WORDS_SYSTEM_PROMPT,
        }
    }

    /// The `tool_choice` of ordinary requests (by default `required`, or
    /// `auto` in [`AnswerMode::Words`]); answer turns send `none`.
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

/// Adds `more` to the turn's thought, on a line of its own; nothing when
/// it is empty.
fn add_thought(thought: &mut Option<String>, more: &str) {
    if more.is_empty() {
        return;
    }
    *thought = Some(match thought.take() {
        Some(before) => format!("{before}\n{more}"),
        None => more.to_string(),
    });
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
        // The answer turn lists the same tools as ordinary turns, so a
        // server that renders them into the prompt (llama.cpp's chat
        // templates) keeps its whole prefix cache, with `tool_choice`
        // none. (llama.cpp ignores a grammar sent beside tools, so the
        // wording of the answer request is what keeps the reply in words.)
        // Some small models (Qwen2.5-Coder 0.5B) answer a tool list with a
        // call written as text whatever `tool_choice` says; when the first
        // answer turn got one, the second lists no tools. That costs the
        // prefix cache (the tools are rendered into the system prompt), so
        // only a retry pays it, and it asks for words with a grammar where
        // the server honours one (whose numbers are only the
        // conversation's, when the first answer had one no tool gave).
        let refusal = parts.found_nothing && parts.answer_only && parts.answer_tools.is_empty();
        request.tools = if refusal {
            // No call found anything: the answer says it cannot find it,
            // as in the text transport, where the 1.5B model asked in
            // words alone answered from memory. The grammar needs no
            // tools listed (llama.cpp ignores it beside them), so this
            // last turn pays the prefix cache.
            request.constraint = Some(refusal_constraint());
            agent_core::message::no_tools()
        } else if parts.answer_retry {
            request.constraint = Some(match parts.answer_numbers {
                Some(numbers) => Arc::new(words_constraint_with_numbers(numbers)),
                None => words_constraint(),
            });
            agent_core::message::no_tools()
        } else {
            match self.answer_tool_for(parts.tools) {
                Some(answer_tool) => answer_tool.tools(parts.tools),
                None => Arc::clone(parts.tools),
            }
        };
        request.tool_choice = if !parts.must_call.is_empty() {
            // A turn that must compute, or look up: the run lists the
            // same tools (the prefix cache) and requires a call.
            ToolChoice::Required
        } else if parts.answer_only && !parts.answer_tools.is_empty() {
            // An answer turn's compute round: the run lists the same
            // tools (the prefix cache) and skips a call to any other than
            // `answer_tools`.
            ToolChoice::Required
        } else if parts.answer_only {
            ToolChoice::None
        } else if parts.tools.is_empty() {
            ToolChoice::Auto
        } else if let Some(choice) = &self.tool_choice {
            choice.clone()
        } else if self.mode == AnswerMode::Words
            || (self.mode == AnswerMode::AnswerTool && self.answer_tool_for(parts.tools).is_none())
        {
            ToolChoice::Auto
        } else {
            ToolChoice::Required
        };
        request
    }

    fn interpret(&self, completion: Completion, tools: &[ToolSpec]) -> Interpretation {
        let mut calls = completion.tool_calls;
        let mut text = completion.text;
        // A reasoning model's reasoning (sent apart by the server, or as a
        // `<think>` block in the text) is its thought, not its reply;
        // calls or answers drafted in it are not taken.
        let mut thought = Some(completion.reasoning.trim().to_string()).filter(|t| !t.is_empty());
        let mut unfinished_reasoning = false;
        if calls.is_empty()
            && let Some(reply) = read_harmony(&text)
        {
            // gpt-oss's channels, from a server that did not parse them.
            add_thought(&mut thought, &reply.thought);
            text = match reply.step {
                Some(HarmonyStep::Call { tool, body }) => {
                    let arguments = parse_arguments(text[body].trim().to_string());
                    calls.push(agent_core::ToolCall::new("harmony_call_0", tool, arguments));
                    String::new()
                }
                Some(HarmonyStep::Final { body }) => text[body].to_string(),
                None => String::new(),
            };
        }
        if let Some(split) = split_reasoning(&text) {
            add_thought(&mut thought, split.reasoning.trim());
            unfinished_reasoning = !split.closed;
            text = split.reply.to_string();
        }
        if calls.is_empty()
            && let Some(answer) = answer_in_object(&text)
        {
            // An answer written as `{"answer": …}`.
            return Interpretation {
                turn: Turn {
                    thought: thought.clone(),
                    decision: Decision::Final(answer.clone()),
                },
                message: Message::assistant(answer),
            };
        }
        let answer_tool = self.answer_tool_for(tools).is_some();
        // The names a call written as text may have (only wanted when the
        // server returned no calls).
        let text_call_names = || {
            let mut names: Vec<&str> = if self.tool_names.is_empty() {
                tools.iter().map(|t| t.name.as_str()).collect()
            } else {
                self.tool_names.iter().map(String::as_str).collect()
            };
            if answer_tool {
                names.push(ANSWER_TOOL);
            }
            names
        };
        if calls.is_empty() && !text.is_empty() {
            let names = text_call_names();
            let found = calls_in_content(&text, &names);
            if !found.is_empty() {
                calls = found;
                text.clear();
            } else if let Some((prose, found)) = calls_after_prose(&text, &names) {
                // Prose, then calls: the prose is the thought.
                calls = found;
                text.clear();
                add_thought(&mut thought, &prose);
            }
        }
        if calls.is_empty()
            && text.trim().is_empty()
            && let Some(reasoning) = &thought
        {
            // Calls a model emitted before closing its thinking.
            if let Some((prose, found)) = calls_ending_reasoning(reasoning, &text_call_names()) {
                calls = found;
                unfinished_reasoning = false;
                thought = Some(prose).filter(|p| !p.is_empty());
            }
        }
        if answer_tool {
            match take_answer(&mut calls) {
                AnswerCall::None => {}
                AnswerCall::Answer(answer) => {
                    return Interpretation {
                        turn: Turn {
                            thought: thought.clone(),
                            decision: Decision::Final(answer.clone()),
                        },
                        message: Message::assistant(answer),
                    };
                }
                AnswerCall::Empty => {
                    return Interpretation {
                        turn: Turn {
                            thought: thought.clone(),
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
        } else if unfinished_reasoning {
            Decision::Malformed(
                "the reply stopped inside its reasoning: close it and write the reply after it"
                    .into(),
            )
        } else if text.trim().is_empty() && thought.is_some() {
            Decision::Malformed("the reply was only reasoning: write the reply after it".into())
        } else if text.trim().is_empty() {
            Decision::Malformed("the reply was empty".into())
        } else if let Some(name) = unknown_tool_call(&text, &text_call_names()) {
            Decision::Malformed(format!(
                "the reply was a call to `{name}`, which is not a tool here"
            ))
        } else if looks_like_broken_call(&text) {
            Decision::Malformed(
                "the reply was a tool call written as text and cut off or broken".into(),
            )
        } else if !text.chars().any(char::is_alphanumeric) {
            // A stray `{` from a tool call the server did not parse is not
            // an answer.
            Decision::Malformed("the reply held no words or numbers, only punctuation".into())
        } else {
            // Functionary writes its answer after a `>>>all` line.
            let answer = functionary_prose(&text).unwrap_or(&text);
            Decision::Final(answer.trim().to_string())
        };
        Interpretation {
            turn: Turn { thought, decision },
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
        let or_answer = if answer_tool {
            format!(", or call {ANSWER_TOOL} with the answer")
        } else if self.mode == AnswerMode::AfterCalls && !tools.is_empty() {
            // Ordinary turns must be calls: the answer comes later.
            String::new()
        } else {
            ", or reply with the final answer".to_string()
        };
        vec![Message::user(format!(
            "Error: {reason}. Call one of the tools{listed}{or_answer}."
        ))]
    }

    /// Asked a second time, a native answer turn lists no tools and wants
    /// words (see `render`), so the message restates the task and asks
    /// for words, without the reason the first reply was refused.
    /// Measured on the 0.5B model, replaying the 55 second asks of a full
    /// eval run: the default `Error: {reason}. …` got 10 right, since the
    /// model copies its first line as the answer (`Error: no more tool
    /// calls are possible; answer in words.`, which the echo check
    /// refuses); the task then "Answer in words, from the results above."
    /// got 17, but lost the turns where no call found anything: asked only
    /// for words, the model answered those from memory. Those keep the
    /// request that says nothing was found.
    fn answer_retry(&self, _reason: &str, task: &str, found: Findings) -> Message {
        match found {
            Findings::Something => {
                Message::user(format!("{task}\nAnswer in words, from the results above."))
            }
            Findings::Nothing => self.answer_request(task, found),
        }
    }
}
