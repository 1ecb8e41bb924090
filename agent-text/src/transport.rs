//! [`TextTransport`]: the text ReAct transport. Tools go into the system
//! prompt, `\nObservation:` is sent as a stop sequence with every request,
//! completions are parsed by the tolerant parser, the assistant message
//! keeps only the first complete step, observations come back as fenced
//! user messages, and malformed output gets a short correction that names
//! the tools there are and what the named one takes.

use std::sync::{Arc, Mutex};

use agent_core::message::{Constraint, ToolSpec};
use agent_core::tool::Observation;
use agent_core::transport::{
    Decision, Findings, Interpretation, Opening, RequestParts, StreamWatcher, Turn,
};
use agent_core::{Completion, CompletionRequest, Message, ToolCall, Transport};

use crate::grammar;
use crate::parser::{ParseOptions, Parsed, draft_step, parse_with};
use crate::prompt::{Dialect, PromptBuilder, render_params};
use crate::stream::ActionWatcher;

/// The stop sequence sent with every request.
pub const STOP_SEQUENCE: &str = "\nObservation:";

/// The text ReAct transport.
///
/// ```
/// use agent_core::transport::Decision;
/// use agent_core::{Completion, Transport};
/// use agent_text::TextTransport;
///
/// let transport = TextTransport::new();
/// let read = transport.interpret(Completion::text(
///     "Thought: I must compute.\nAction: calculator\nAction Input: {\"expression\": \"2+2\"}\nObservation: 5",
/// ), &[]);
/// let Decision::Act(calls) = read.turn.decision else { panic!() };
/// assert_eq!(calls[0].name, "calculator");
/// assert_eq!(read.turn.thought.as_deref(), Some("I must compute."));
/// assert!(!read.message.content.contains("Observation")); // the fake observation is cut
/// ```
#[derive(Debug, Clone)]
pub struct TextTransport {
    prompt: PromptBuilder,
    options: ParseOptions,
    constrain: bool,
    constraints: Arc<Mutex<Option<Compiled>>>,
}

/// The grammars of one set of tools, compiled once for all its requests.
#[derive(Debug)]
struct Compiled {
    tools: Arc<[ToolSpec]>,
    step: Arc<Constraint>,
    answer: Arc<Constraint>,
}

impl Default for TextTransport {
    fn default() -> Self {
        Self {
            prompt: PromptBuilder::default(),
            options: ParseOptions::default(),
            constrain: true,
            constraints: Arc::new(Mutex::new(None)),
        }
    }
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

    /// Whether requests describe their grammar (default on, for the classic
    /// dialect): a well-formed step, or only a final answer on an answer
    /// turn. The provider sends it where the server supports it.
    pub fn with_constraint(mut self, on: bool) -> Self {
        self.constrain = on;
        self
    }

    /// Whether requests carry a grammar: on, in the classic dialect.
    fn grammar_on(&self) -> bool {
        self.constrain && self.prompt.dialect() == Dialect::Classic
    }

    /// The constraint of a request offering `tools`, compiled once per set
    /// of tools.
    fn constraint(&self, tools: &Arc<[ToolSpec]>, answer_only: bool) -> Option<Arc<Constraint>> {
        if !self.grammar_on() {
            return None;
        }
        let mut cache = self.constraints.lock().ok()?;
        let same = cache.as_mut().is_some_and(|c| {
            if Arc::ptr_eq(&c.tools, tools) {
                return true;
            }
            // The same tools from another run: keep its `Arc`, so the
            // rest of that run's requests are a pointer comparison.
            let equal = c.tools[..] == tools[..];
            if equal {
                c.tools = Arc::clone(tools);
            }
            equal
        });
        if !same {
            *cache = Some(Compiled {
                tools: Arc::clone(tools),
                step: Arc::new(grammar::constraint(tools, false)),
                answer: Arc::new(grammar::constraint(tools, true)),
            });
        }
        let compiled = cache.as_ref()?;
        Some(Arc::clone(if answer_only {
            &compiled.answer
        } else {
            &compiled.step
        }))
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

    /// How a valid reply looks, naming the tools there are.
    fn format_reminder(&self, tools: &[ToolSpec]) -> String {
        let names = if tools.is_empty() {
            "a tool name".to_string()
        } else {
            format!(
                "one of: {}",
                tools
                    .iter()
                    .map(|t| t.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        match self.prompt.dialect() {
            Dialect::Paper => format!(
                "Reply with `Thought: ...` then `Action: tool[input]` (tool {names}), or `Action: Finish[answer]`."
            ),
            Dialect::AnswerEnding => format!(
                "Reply with `Thought: ...`, then `Action:` ({names}) and `Action Input:` with a JSON object, or `Answer: ...`."
            ),
            Dialect::Classic => format!(
                "Reply with `Thought: ...`, then `Action:` ({names}) and `Action Input:` with a JSON object, or `Final Answer: ...`."
            ),
        }
    }
}

/// Parses a reply, and the reasoning the server sent apart from it: that
/// reasoning is the start of the thought, and when the reply itself is
/// empty, a step the model wrote in its reasoning is the step (as a
/// `<think>` block with nothing after it is read). Returns the text the
/// step was read from.
fn read_reply(completion: Completion, options: ParseOptions) -> (String, Parsed) {
    let reasoning = completion.reasoning.trim();
    if reasoning.is_empty() {
        let parsed = parse_with(&completion.text, options);
        return (completion.text, parsed);
    }
    if completion.text.trim().is_empty() {
        let parsed = draft_step(parse_with(reasoning, options));
        return (reasoning.to_string(), parsed);
    }
    let mut parsed = parse_with(&completion.text, options);
    if let Some(thought) = parsed.thought_mut() {
        *thought = Some(joined(reasoning, thought.take()));
    }
    (completion.text, parsed)
}

/// The reasoning, then the thought written in the reply.
fn joined(reasoning: &str, thought: Option<String>) -> String {
    match thought {
        Some(thought) => format!("{reasoning}\n{thought}"),
        None => reasoning.to_string(),
    }
}

/// What `tool` takes, when the run has it: "`calculator` takes expression: string".
fn arguments_hint(tool: Option<&str>, tools: &[ToolSpec]) -> String {
    let Some(spec) = tool.and_then(|name| tools.iter().find(|t| t.name == name)) else {
        return String::new();
    };
    let params = render_params(&spec.parameters);
    if params.is_empty() {
        format!(" `{}` takes no arguments: send {{}}.", spec.name)
    } else {
        format!(" `{}` takes {params}.", spec.name)
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

    fn id(&self) -> String {
        let dialect = match self.prompt.dialect() {
            Dialect::Classic => "classic",
            Dialect::AnswerEnding => "answer",
            Dialect::Paper => "paper",
        };
        format!("text/{dialect}")
    }

    fn opening(&self, task: &str, tools: &[ToolSpec]) -> Opening {
        Opening {
            system: vec![Message::system(self.prompt.system(tools))],
            task: Message::user(self.prompt.task(task)),
        }
    }

    fn render(&self, parts: RequestParts<'_>) -> CompletionRequest {
        let mut request = parts.plain();
        request.stop.push(STOP_SEQUENCE.to_string());
        let compute_round = parts.answer_only && !parts.answer_tools.is_empty();
        request.constraint = if !self.grammar_on() {
            None
        } else if !parts.must_call.is_empty() {
            // A turn that must compute, or look up: a step that calls
            // one of those tools, and no final answer.
            Some(Arc::new(grammar::call_constraint(parts.must_call)))
        } else if parts.found_nothing {
            // No call found anything: the answer says it cannot find it
            // (asked in words alone, a small model answers from memory).
            Some(Arc::new(grammar::refusal_constraint()))
        } else if compute_round || parts.answer_numbers.is_some() {
            // Rare enough to compile each time: an answer turn's compute
            // round (a step that calls one of the computing tools, or the
            // final answer), and an answer turn whose answer may write
            // only the conversation's numbers.
            let (tools, answer_only) = if compute_round {
                (parts.answer_tools, false)
            } else {
                (&parts.tools[..], parts.answer_only)
            };
            Some(Arc::new(match parts.answer_numbers {
                Some(numbers) => grammar::constraint_with_numbers(tools, answer_only, numbers),
                None => grammar::constraint(tools, answer_only),
            }))
        } else {
            self.constraint(parts.tools, parts.answer_only)
        };
        request
    }

    fn interpret(&self, completion: Completion, tools: &[ToolSpec]) -> Interpretation {
        let (text, parsed) = read_reply(completion, self.options);
        let (turn, message) = match parsed {
            Parsed::Action {
                tool,
                input,
                thought,
                end,
            } => (
                Turn {
                    thought,
                    decision: Decision::Act(Arc::from([ToolCall::new("", tool, input)])),
                },
                Message::assistant(text[..end.min(text.len())].trim_end()),
            ),
            Parsed::Final {
                answer,
                thought,
                end,
            } => (
                Turn {
                    thought,
                    decision: Decision::Final(answer),
                },
                Message::assistant(text[..end.min(text.len())].trim_end()),
            ),
            Parsed::Error { reason, tool } => {
                let hint = arguments_hint(tool.as_deref(), tools);
                (
                    Turn {
                        thought: None,
                        decision: Decision::Malformed(format!("{reason}.{hint}")),
                    },
                    Message::assistant(text),
                )
            }
        };
        Interpretation { turn, message }
    }

    fn observations(&self, observations: &[Observation]) -> Vec<Message> {
        let body = observations
            .iter()
            .map(|o| format!("Observation: {}", fence(&o.content)))
            .collect::<Vec<_>>()
            .join("\n");
        vec![Message::user(body)]
    }

    fn malformed(&self, reason: &str, tools: &[ToolSpec]) -> Vec<Message> {
        let reason = reason.trim_end_matches('.');
        vec![Message::user(format!(
            "Observation: Error: {reason}. {}",
            self.format_reminder(tools)
        ))]
    }

    fn answer_retry(&self, reason: &str, task: &str, found: Findings) -> Message {
        let request = self.answer_request(task, found);
        let rest = request
            .content
            .strip_prefix("Observation: ")
            .unwrap_or(&request.content);
        Message::user(format!(
            "Observation: Error: {}. {rest}",
            reason.trim_end_matches('.')
        ))
    }

    fn answer_request(&self, task: &str, found: Findings) -> Message {
        let label = match self.prompt.dialect() {
            Dialect::Classic => "`Final Answer: ...`",
            Dialect::AnswerEnding => "`Answer: ...`",
            Dialect::Paper => "`Action: Finish[...]`",
        };
        // Measured on the 1.5B model, replaying the answer turns of an
        // eval run: the question restated as the run opened, and a
        // thought asked to say what the observations hold, answered more
        // turns right than a thought left free (which copies the last,
        // often stale, thought: "no matches, so it is not there") or no
        // thought at all (which answers from memory).
        Message::user(match found {
            Findings::Something => format!(
                "Observation: No more tool calls are possible.\n{}\nReply now with `Thought: ...` (what the observations above say about the question) then {label}.",
                self.prompt.task(task)
            ),
            Findings::Nothing => format!(
                "Observation: No more tool calls are possible, and the calls above found nothing. The question was: {task}\nReply now with `Thought: ...` then {label}: that you cannot find it."
            ),
        })
    }

    fn stream_watcher(&self) -> Option<Box<dyn StreamWatcher>> {
        Some(Box::new(ActionWatcher::new()))
    }
}
