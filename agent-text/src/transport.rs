//! [`TextTransport`]: the text ReAct transport. Tools go into the system
//! prompt, `\nObservation:` is sent as a stop sequence with every request,
//! completions are parsed by the tolerant parser, the assistant message
//! keeps only the first complete step, observations come back as fenced
//! user messages, and malformed output gets a short correction.

use agent_core::{
    Completion, CompletionRequest, Decision, Message, Observation, StreamWatcher, ToolCall,
    ToolSpec, Transport, Turn,
};

use crate::parser::{ParseOptions, Parsed, parse_with};
use crate::prompt::{Dialect, PromptBuilder};
use crate::stream::ActionWatcher;

/// The stop sequence sent with every request.
pub const STOP_SEQUENCE: &str = "\nObservation:";

/// The text ReAct transport.
///
/// ```
/// use agent_core::{Completion, Decision, Transport};
/// use agent_text::TextTransport;
///
/// let transport = TextTransport::new();
/// let turn = transport.interpret(Completion::text(
///     "Thought: I must compute.\nAction: calculator\nAction Input: {\"expression\": \"2+2\"}\nObservation: 5",
/// ));
/// let Decision::Act(calls) = turn.decision else { panic!() };
/// assert_eq!(calls[0].name, "calculator");
/// assert_eq!(turn.thought.as_deref(), Some("I must compute."));
/// assert!(!turn.message.content.contains("Observation")); // the fake observation is cut
/// ```
#[derive(Debug, Clone, Default)]
pub struct TextTransport {
    prompt: PromptBuilder,
    options: ParseOptions,
}

impl TextTransport {
    /// The classic dialect with the default prompt.
    pub fn new() -> Self {
        Self::default()
    }

    /// Uses this prompt builder.
    pub fn with_prompt(mut self, prompt: PromptBuilder) -> Self {
        self.prompt = prompt;
        self
    }

    /// Uses the default prompt of `dialect`.
    pub fn with_dialect(self, dialect: Dialect) -> Self {
        self.with_prompt(PromptBuilder::new(dialect))
    }

    /// Parser options (e.g. `implicit_final_answer`).
    pub fn with_parse_options(mut self, options: ParseOptions) -> Self {
        self.options = options;
        self
    }

    /// The prompt builder.
    pub fn prompt(&self) -> &PromptBuilder {
        &self.prompt
    }

    fn format_reminder(&self) -> &'static str {
        match self.prompt.dialect() {
            Dialect::Paper => {
                "Reply with `Thought: ...` then `Action: tool[input]`, or `Action: Finish[answer]`."
            }
            Dialect::AnswerEnding => {
                "Reply with `Thought: ...`, `Action: tool`, `Action Input: {JSON}`, or `Answer: ...`."
            }
            Dialect::Classic => {
                "Reply with `Thought: ...`, `Action: tool`, `Action Input: {JSON}`, or `Final Answer: ...`."
            }
        }
    }
}

/// Wraps tool output in a fence longer than any backtick run inside it.
fn fence(content: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in content.chars() {
        if c == '`' {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    let ticks = "`".repeat(longest.max(2) + 1);
    format!("{ticks}\n{}\n{ticks}", content.trim_end())
}

impl Transport for TextTransport {
    fn name(&self) -> &str {
        "text"
    }

    fn opening(&self, task: &str, tools: &[ToolSpec]) -> Vec<Message> {
        vec![
            Message::system(self.prompt.system(tools)),
            Message::user(self.prompt.task(task)),
        ]
    }

    fn prepare(&self, request: &mut CompletionRequest) {
        request.tools = std::sync::Arc::from(Vec::new());
        if !request.stop.iter().any(|s| s == STOP_SEQUENCE) {
            request.stop.push(STOP_SEQUENCE.to_string());
        }
    }

    fn interpret(&self, completion: Completion) -> Turn {
        let text = completion.text;
        match parse_with(&text, self.options) {
            Parsed::Action {
                tool,
                input,
                thought,
                end,
            } => Turn {
                thought,
                decision: Decision::Act(vec![ToolCall::new("", tool, input)]),
                message: Message::assistant(text[..end.min(text.len())].trim_end()),
            },
            Parsed::Final {
                answer,
                thought,
                end,
            } => Turn {
                thought,
                decision: Decision::Final(answer),
                message: Message::assistant(text[..end.min(text.len())].trim_end()),
            },
            Parsed::Error { reason } => Turn {
                thought: None,
                decision: Decision::Malformed(reason),
                message: Message::assistant(text),
            },
        }
    }

    fn observations(&self, observations: &[Observation]) -> Vec<Message> {
        let body = observations
            .iter()
            .map(|o| format!("Observation: {}", fence(&o.content)))
            .collect::<Vec<_>>()
            .join("\n");
        vec![Message::user(body)]
    }

    fn malformed(&self, reason: &str) -> Vec<Message> {
        vec![Message::user(format!(
            "Observation: Error: {reason}. {}",
            self.format_reminder()
        ))]
    }

    fn stream_watcher(&self) -> Option<Box<dyn StreamWatcher>> {
        Some(Box::new(ActionWatcher::new()))
    }
}
