//! The tolerant ReAct parser: a pure function from model text to a
//! [`Parsed`] decision. It follows the corpus contract:
//!
//! 1. The first complete step wins: `Action` + `Action Input` (or an
//!    action written as a call), or `Final Answer` / `Answer`, whichever
//!    completes first; the rest is speculation and is dropped.
//! 2. A hallucinated `Observation` (with or without colon) ends the step,
//!    and so does a partial `Observ` at the very end, a next turn the
//!    model writes itself (`Question:`, `Human:` at a line start), or an
//!    end-of-turn token a model leaks (`<|im_end|>`, `<|eot_id|>`…).
//! 3. Inputs (see [`decode_input`]): any JSON value
//!    reaches the tool whole; a fence is stripped when it holds JSON; text
//!    meant as JSON that cannot be read is a format error; other text is
//!    kept verbatim, minus wrapping quotes.
//! 4. Labels are matched leniently at line starts (case, indentation,
//!    markdown, step numbers, `_` for space, full-width colons) and
//!    strictly mid-line, so a whole step on one line or a label glued to
//!    the word before it is read. Paper style `Tool[arg]` is an action and
//!    `Finish[x]` a final answer, after `Action:` or as the reply's first
//!    line; a JSON blob (`action`/`action_input`, or `name`/`arguments`,
//!    keys in any case, spaces for `_`, arguments flat beside the name, a
//!    list of calls) is an action too. An action named `Final Answer`,
//!    `Answer` or `Finish`, on a line or in a blob, is the final answer.
//!    Calls in model families' own syntax are read too (see
//!    [`crate::foreign`], [`crate::gemma`]), and a call's keyword strings
//!    may run over several lines.
//! 5. No markers, an `Action` with no input, a sentence where the tool
//!    name should be, and empty output are errors, never silently a final
//!    answer (unless `implicit_final_answer`).
//! 6. The parser is syntactic: unknown tool names are returned as written.
//!
//! It walks the text forward once (see [`crate::labels`]), so it runs in
//! linear time on any input.

use std::ops::Range;

use agent_core::harmony::{Harmony, HarmonyStep, read_harmony};
use agent_core::reasoning::split_reasoning;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use agent_core::family_calls::{
    find_json_call_marker, functionary_prose, opens_chatglm_call, read_family_calls, strip_fence,
};
use agent_core::kimi::read_kimi_calls;

use crate::action::{ActionValue, bare_paper_step, read_action};
use crate::blob::{Blob, answer_text, names_the_answer, read_blob, skip_space};
use crate::input::{decode_input, decode_plain, read_input, without_stray_fence};
use crate::labels::{Event, Found, Label, Mode, Scanner, floor_boundary, input_words_after};

/// The decision parsed from one model output. Its JSON form is stable:
/// `{"kind":"action","tool":…,"input":…}`, `{"kind":"final","answer":…}`,
/// `{"kind":"error","reason":…}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Parsed {
    /// Call `tool` with `input` (a JSON value, or a string).
    Action {
        /// The tool name as written.
        tool: String,
        /// The input.
        input: Value,
        /// The reasoning before the action.
        #[serde(skip_serializing_if = "Option::is_none", default)]
        thought: Option<String>,
        /// Bytes of the text that make up the step (the rest is dropped).
        #[serde(skip)]
        end: usize,
    },
    /// The final answer.
    Final {
        /// The answer.
        answer: String,
        /// The reasoning before it.
        #[serde(skip_serializing_if = "Option::is_none", default)]
        thought: Option<String>,
        /// Bytes of the text that make up the step.
        #[serde(skip)]
        end: usize,
    },
    /// The output cannot be used; the reason is shown to the model.
    Error {
        /// What is wrong.
        reason: String,
        /// The tool the broken step named, when it named one (so the
        /// correction can say what that tool takes).
        #[serde(skip_serializing_if = "Option::is_none", default)]
        tool: Option<String>,
    },
}

impl Parsed {
    /// The same decision with its `end` moved `offset` bytes on.
    fn shifted(mut self, offset: usize) -> Self {
        if let Parsed::Action { end, .. } | Parsed::Final { end, .. } = &mut self {
            *end += offset;
        }
        self
    }

    /// The step's thought, to add to (`None` for an error).
    pub(crate) fn thought_mut(&mut self) -> Option<&mut Option<String>> {
        match self {
            Parsed::Action { thought, .. } | Parsed::Final { thought, .. } => Some(thought),
            Parsed::Error { .. } => None,
        }
    }

    /// The stable JSON form (without `thought`).
    pub fn to_json(&self) -> Value {
        match self {
            Parsed::Action { tool, input, .. } => {
                serde_json::json!({"kind": "action", "tool": tool, "input": input})
            }
            Parsed::Final { answer, .. } => serde_json::json!({"kind": "final", "answer": answer}),
            Parsed::Error { reason, .. } => serde_json::json!({"kind": "error", "reason": reason}),
        }
    }
}

/// Parser options.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ParseOptions {
    /// Treat text with no markers at all as the final answer (off by default).
    pub implicit_final_answer: bool,
}

/// End-of-turn tokens that models leak into their text; nothing after one
/// belongs to the turn.
const TURN_END_TOKENS: [&str; 18] = [
    // ChatML (Qwen, many fine-tunes)
    "<|im_end|>",
    "<|im_start|>",
    "<|endoftext|>",
    // Llama 3
    "<|eot_id|>",
    "<|eom_id|>",
    "<|end_of_text|>",
    "<|start_header_id|>",
    // Phi-3, gpt-oss
    "<|end|>",
    "<|user|>",
    "<|assistant|>",
    // Gemma
    "<end_of_turn>",
    "<start_of_turn>",
    "<eos>",
    // DeepSeek (full-width bars)
    "<｜end▁of▁sentence｜>",
    "<｜User｜>",
    "<｜Assistant｜>",
    // Cohere
    "<|END_OF_TURN_TOKEN|>",
    // Llama 2, Mistral
    "</s>",
];

/// The text before the first leaked end-of-turn token (one pass over the
/// `<` characters). ChatGLM3's `<|assistant|>NAME` header before a call
/// continues the reply instead, unless a ReAct step came before it.
fn cut_turn_end(text: &str) -> &str {
    let mut from = 0;
    let mut step_labels = StepLabels::default();
    while let Some(lt) = text[from..].find('<') {
        let at = from + lt;
        if TURN_END_TOKENS.iter().any(|t| text[at..].starts_with(t))
            && (!opens_chatglm_call(text, at) || step_labels.before(text, at))
        {
            return &text[..at];
        }
        from = at + 1;
    }
    text
}

/// Whether an `Action:`, `Action Input` or `Answer:` label (any case), a
/// step the model already wrote, stands before a position; the text is
/// read once, however many positions are asked about in order.
#[derive(Default)]
struct StepLabels {
    /// How far the text has been read.
    read: usize,
    /// Whether a label was found in it.
    seen: bool,
}

impl StepLabels {
    const LABELS: [&str; 3] = ["action:", "action input", "answer:"];
    /// The longest label, in bytes: a label cut by the last position
    /// read is found on the next read.
    const OVERLAP: usize = 12;

    fn before(&mut self, text: &str, at: usize) -> bool {
        if !self.seen && at > self.read {
            let mut start = self.read.saturating_sub(Self::OVERLAP);
            while !text.is_char_boundary(start) {
                start -= 1;
            }
            let lower = text[start..at].to_lowercase();
            self.seen = Self::LABELS.iter().any(|label| lower.contains(label));
            self.read = at;
        }
        self.seen
    }
}

/// Removes a partial stop token (`Observ`, `Obs`…) on the last line.
fn strip_partial_observation(text: &str) -> &str {
    let trimmed = text.trim_end();
    if let Some(nl) = trimmed.rfind('\n') {
        let last = trimmed[nl + 1..].trim().to_ascii_lowercase();
        if last.len() >= 3 && "observation".starts_with(&last) {
            return &trimmed[..nl];
        }
    }
    text
}

fn clean(text: &str) -> Option<String> {
    let t = text.trim();
    (!t.is_empty()).then(|| t.to_string())
}

/// The answer of a code agent's answer written as a fenced
/// `final_answer(<value>)` call (smolagents), as its value's text.
fn fenced_answer_call(raw: &str) -> Option<String> {
    let raw = raw.trim();
    if !(raw.starts_with("```") && raw.ends_with("```")) {
        return None;
    }
    let args = strip_fence(raw)
        .strip_prefix("final_answer(")?
        .strip_suffix(')')?
        .trim();
    let args = args.strip_prefix("answer=").unwrap_or(args).trim();
    if args.contains("final_answer(") {
        return None;
    }
    match decode_plain(args) {
        Value::String(text) => clean(&text),
        other => Some(other.to_string()),
    }
}

fn push_thought(thought: &mut String, text: &str) {
    let text = text.trim();
    if text.is_empty() {
        return;
    }
    if !thought.is_empty() {
        thought.push('\n');
    }
    thought.push_str(text);
}

/// Parses one model output.
pub fn parse(text: &str) -> Parsed {
    parse_with(text, ParseOptions::default())
}

/// Parses one model output with options.
///
/// A reply in gpt-oss's harmony format is read by its channels, and a
/// reasoning block that opens the reply (`<think>…</think>` and kindred,
/// see [`agent_core::reasoning`]) is the thought: the step is read from
/// the reply after it. Only when nothing follows the block (or it was
/// never closed) is a step drafted inside it taken.
pub fn parse_with(text: &str, options: ParseOptions) -> Parsed {
    if let Some(reply) = read_harmony(text) {
        return parse_harmony(text, reply, options);
    }
    let text = strip_partial_observation(cut_turn_end(text));
    if text.trim().is_empty() {
        return Parsed::Error {
            reason: "the reply was empty".into(),
            tool: None,
        };
    }
    let Some(split) = split_reasoning(text) else {
        return parse_body(text, 0..text.len(), String::new(), options);
    };
    if split.closed && !split.reply.trim().is_empty() {
        let thought = split.reasoning.trim().to_string();
        return parse_body(text, split.reply_start..text.len(), thought, options);
    }
    let draft = split.reasoning_start..split.reasoning_start + split.reasoning.len();
    draft_step(parse_body(text, draft, String::new(), options))
}

/// A step drafted in reasoning with nothing after it: when there is none,
/// the error says the reply was only reasoning.
pub(crate) fn draft_step(parsed: Parsed) -> Parsed {
    match parsed {
        Parsed::Error { tool: None, .. } => Parsed::Error {
            reason: "the reply was only reasoning: write the step after it".into(),
            tool: None,
        },
        parsed => parsed,
    }
}

/// Reads a harmony reply: a call's body is its input, and the final
/// channel's body is read as a ReAct reply of its own (a model asked for
/// ReAct lines writes them there), or is the answer when it holds no
/// markers.
fn parse_harmony(text: &str, reply: Harmony, options: ParseOptions) -> Parsed {
    match reply.step {
        Some(HarmonyStep::Call { tool, body }) => Parsed::Action {
            tool,
            input: decode_input(&text[body.clone()]),
            thought: clean(&reply.thought),
            end: body.end,
        },
        Some(HarmonyStep::Final { body }) => {
            let options = ParseOptions {
                implicit_final_answer: true,
            };
            let (said, after) = (body.clone(), body.end);
            match parse_body(text, body, reply.thought.clone(), options) {
                // A final message with no step in it (only a thought
                // line), then a call: the call is the step.
                error @ Parsed::Error { .. } => {
                    let mut thought = reply.thought;
                    push_thought(&mut thought, &text[said]);
                    harmony_call_after(text, after, thought).unwrap_or(error)
                }
                parsed => parsed,
            }
        }
        None => match reply.last_body {
            Some(body) => draft_step(parse_body(text, body, String::new(), options)),
            None => Parsed::Error {
                reason: "the reply was empty".into(),
                tool: None,
            },
        },
    }
}

/// The harmony call in the assistant's messages that start right after
/// the final message ending at `from`, if the next step there is one,
/// with `thought` before it. A final message that ended the turn
/// (`<|return|>`) or another role's message after it leaves none.
fn harmony_call_after(text: &str, from: usize, mut thought: String) -> Option<Parsed> {
    let rest = &text[from..];
    let rest_at = from + (rest.len() - rest.trim_start().len());
    let next = text[rest_at..]
        .strip_prefix("<|end|>")
        .map_or(rest_at, |_| rest_at + "<|end|>".len());
    let at = next + (text[next..].len() - text[next..].trim_start().len());
    if !text[at..].starts_with("<|start|>assistant") {
        return None;
    }
    let later = read_harmony(&text[at..])?;
    let Some(HarmonyStep::Call { tool, body }) = later.step else {
        return None;
    };
    let body = at + body.start..at + body.end;
    push_thought(&mut thought, &later.thought);
    Some(Parsed::Action {
        tool,
        input: decode_input(&text[body.clone()]),
        thought: clean(&thought),
        end: body.end,
    })
}

/// Parses the part `range` of `text` as a reply whose reasoning so far is
/// `thought`; the step's `end` counts from the start of `text`.
fn parse_body(text: &str, range: Range<usize>, thought: String, options: ParseOptions) -> Parsed {
    let offset = range.start;
    let body = &text[range];
    let reasoning = clean(&thought);
    if body.trim().is_empty() {
        return Parsed::Error {
            reason: "the reply was empty".into(),
            tool: None,
        };
    }
    let mut walk = Walk {
        text: body,
        scanner: Scanner::new(body),
        thought,
        free_from: 0,
        in_observation: false,
        saw_marker: false,
        blob_floor: 0,
        pending: None,
    };
    if let Some(parsed) = walk.run() {
        return parsed.shifted(offset);
    }
    if let Some((prose_end, tool, input, end)) = family_step(body) {
        let prose = clean(&body[..prose_end]);
        return Parsed::Action {
            tool,
            input,
            thought: match (reasoning, prose) {
                (Some(before), Some(prose)) => Some(format!("{before}\n{prose}")),
                (before, prose) => before.or(prose),
            },
            end: offset + end,
        };
    }
    // A model asked for answers in plain words (`implicit_final_answer`)
    // may cite as `Paris[1]`: no step.
    match bare_paper_step(body).filter(|_| !options.implicit_final_answer) {
        Some(ActionValue::Paper { name, input, end }) => {
            return Parsed::Action {
                tool: name,
                input,
                thought: reasoning,
                end: offset + end,
            };
        }
        Some(ActionValue::Finish { answer, end }) => {
            return Parsed::Final {
                answer,
                thought: reasoning,
                end: offset + end,
            };
        }
        _ => {}
    }
    // Functionary's answer after its `>>>all` recipient line.
    if !walk.saw_marker
        && let Some(answer) = functionary_prose(body).and_then(clean)
    {
        return Parsed::Final {
            answer,
            thought: reasoning,
            end: offset + body.len(),
        };
    }
    if options.implicit_final_answer
        && !walk.saw_marker
        && let Some(answer) = clean(body)
    {
        return Parsed::Final {
            answer,
            thought: reasoning,
            end: offset + body.len(),
        };
    }
    Parsed::Error {
        reason: if walk.saw_marker {
            "the reply has no `Action:` with `Action Input:` and no `Final Answer:`".into()
        } else {
            "the reply has no `Thought:`/`Action:`/`Action Input:` or `Final Answer:` lines".into()
        },
        tool: None,
    }
}

/// The first call in a family's own call tokens or tags after prose
/// (Kimi K2, DeepSeek, MiniMax, GLM…, or JSON after a family's marker):
/// where the prose ends, the tool, its input, and where the call ends.
fn family_step(body: &str) -> Option<(usize, String, Value, usize)> {
    if let Some(read) = read_kimi_calls(body)
        && let Some(call) = read.calls.first()
    {
        let input = decode_input(call.arguments);
        return Some((read.prose_end, call.name.to_string(), input, call.end));
    }
    if let Some(read) = read_family_calls(body)
        && let Some(call) = read.calls.into_iter().next()
    {
        let input = match call.arguments {
            Value::String(raw) => decode_input(&raw),
            arguments => arguments,
        };
        return Some((read.prose_end, call.name, input, call.end));
    }
    let (marker_at, _) = find_json_call_marker(body)?;
    match read_blob(body, marker_at) {
        Blob::Action {
            tool, input, end, ..
        } => Some((marker_at, tool, input, end)),
        _ => None,
    }
}

/// The state of one forward walk over a text.
struct Walk<'a> {
    text: &'a str,
    scanner: Scanner<'a>,
    thought: String,
    /// Start of the reasoning text not yet added to `thought`.
    free_from: usize,
    /// Inside a hallucinated observation: its text is not reasoning.
    in_observation: bool,
    saw_marker: bool,
    /// Blob candidates before this byte were already read as part of an
    /// earlier failed attempt.
    blob_floor: usize,
    /// A label to handle before scanning on.
    pending: Option<Found>,
}

impl Walk<'_> {
    /// Walks to the first complete step. `None` when there is none.
    fn run(&mut self) -> Option<Parsed> {
        loop {
            let event = match self.pending.take() {
                Some(found) => Event::Label(found),
                None => match self.scanner.next(Mode::Free) {
                    Some(event) => event,
                    None => break,
                },
            };
            match event {
                Event::Blob(at) if at >= self.blob_floor => {
                    if let Some(parsed) = self.blob(at) {
                        return Some(parsed);
                    }
                }
                Event::Blob(_) => {}
                Event::Label(found) => {
                    self.take_free_text(found.start);
                    self.saw_marker = true;
                    self.free_from = found.value;
                    match found.label {
                        Label::Thought => self.in_observation = false,
                        Label::Observation => self.in_observation = true,
                        Label::FinalAnswer => return Some(self.final_answer(found)),
                        Label::ActionInput => {
                            return Some(Parsed::Error {
                                reason: "found `Action Input:` without an `Action:` line before it"
                                    .into(),
                                tool: None,
                            });
                        }
                        Label::Action => {
                            if let Some(parsed) = self.action(found) {
                                return Some(parsed);
                            }
                        }
                    }
                }
            }
        }
        self.take_free_text(self.text.len());
        None
    }

    /// Adds the reasoning text before `end` to the thought.
    fn take_free_text(&mut self, end: usize) {
        if !self.in_observation && end > self.free_from {
            push_thought(&mut self.thought, &self.text[self.free_from..end]);
        }
        self.free_from = self.free_from.max(end);
    }

    fn thought(&self) -> Option<String> {
        clean(&self.thought)
    }

    /// The thought, with the `"thought"` a JSON blob carried added.
    fn thought_with(&mut self, blob_thought: Option<String>) -> Option<String> {
        if let Some(text) = blob_thought {
            push_thought(&mut self.thought, &text);
        }
        self.thought()
    }

    /// A blob candidate at `at`: a step, or reasoning to walk on from.
    fn blob(&mut self, at: usize) -> Option<Parsed> {
        match read_blob(self.text, at) {
            step @ (Blob::Action { .. } | Blob::Final { .. }) => {
                self.take_free_text(at);
                self.step_of(step)
            }
            Blob::NotAction { end } => {
                self.blob_floor = end;
                self.scanner.seek(end);
                None
            }
            Blob::Failed { stop } => {
                self.blob_floor = stop;
                None
            }
        }
    }

    /// `Final Answer:` — the answer runs to the next line-start label.
    fn final_answer(&mut self, found: Found) -> Parsed {
        let end = loop {
            match self.scanner.next(Mode::LineStart) {
                Some(Event::Label(next)) => break next.start,
                Some(Event::Blob(_)) => {}
                None => break self.text.len(),
            }
        };
        if let Some(step) = self.step_in_answer(found) {
            return step;
        }
        let raw = without_stray_fence(self.text[found.value..end].trim_end());
        match fenced_answer_call(raw).or_else(|| clean(raw)) {
            Some(answer) => Parsed::Final {
                answer,
                thought: self.thought(),
                end: found.value + raw.len(),
            },
            None => Parsed::Error {
                reason: "the Final Answer was empty".into(),
                tool: None,
            },
        }
    }

    /// A final answer whose text is a JSON step, maybe after a role word
    /// (`AI: ` then `Assistant: ```json {"action": "Final Answer", …}```
    /// from LangChain's conversational agent, whose `AI:` prefix is read
    /// as the answer's label): the blob's answer; its call only when the
    /// label was that `AI:` prefix, which says nothing of the step.
    fn step_in_answer(&mut self, found: Found) -> Option<Parsed> {
        let mut at = skip_space(self.text, found.value);
        let lower = self.text[at..floor_boundary(self.text, at + 10)].to_ascii_lowercase();
        if let Some(role) = ["assistant:", "ai:"]
            .iter()
            .find(|r| lower.starts_with(**r))
        {
            at = skip_space(self.text, at + role.len());
        }
        if !(self.text[at..].starts_with('{') || self.text[at..].starts_with("```")) {
            return None;
        }
        let label = self.text[found.start..found.value].trim_matches(|c: char| !c.is_alphabetic());
        let ai_prefix = label.eq_ignore_ascii_case("ai");
        match read_blob(self.text, at) {
            blob @ Blob::Final { .. } => self.step_of(blob),
            blob @ Blob::Action { .. } if ai_prefix => self.step_of(blob),
            _ => None,
        }
    }

    /// The step a blob read as an action or an answer stands for, with
    /// the thought so far and the blob's own; `None` for any other blob.
    fn step_of(&mut self, blob: Blob) -> Option<Parsed> {
        match blob {
            Blob::Action {
                tool,
                input,
                thought,
                end,
            } => Some(Parsed::Action {
                tool,
                input,
                thought: self.thought_with(thought),
                end,
            }),
            Blob::Final {
                answer,
                thought,
                end,
            } => Some(Parsed::Final {
                answer,
                thought: self.thought_with(thought),
                end,
            }),
            Blob::NotAction { .. } | Blob::Failed { .. } => None,
        }
    }

    /// `Action:` — its value, then its input. `None` when the model said
    /// it takes no action (the walk goes on to find its answer).
    fn action(&mut self, found: Found) -> Option<Parsed> {
        let next = self.next_label();
        let limit = next.map_or(self.text.len(), |n| n.start);
        match read_action(self.text, found.value, limit) {
            // An action line that names no tool, with a final answer
            // right after it (no input between): the answer is the step.
            ActionValue::Invalid(reason) => Some(match next {
                Some(next) if next.label == Label::FinalAnswer => self.final_answer(next),
                _ => Parsed::Error { reason, tool: None },
            }),
            ActionValue::Blob(at) => {
                let blob = read_blob(self.text, at);
                Some(self.step_of(blob).unwrap_or_else(|| Parsed::Error {
                    reason: "the `Action:` line does not name a tool".into(),
                    tool: None,
                }))
            }
            ActionValue::Finish { answer, end } => Some(Parsed::Final {
                answer,
                thought: self.thought(),
                end,
            }),
            ActionValue::Paper { name, input, end } => Some(Parsed::Action {
                tool: name,
                input,
                thought: self.thought(),
                end,
            }),
            ActionValue::Nothing => {
                self.skip_empty_input(next);
                None
            }
            ActionValue::Named { name, args, end } => {
                // A label inside the call's arguments is not the next label.
                let next = match next {
                    Some(n) if n.start < end => {
                        self.scanner.seek(end);
                        self.next_label()
                    }
                    other => other,
                };
                Some(self.action_input(name, args, next, end))
            }
        }
    }

    /// The input of `Action: name`: from `Action Input:`, else from the
    /// call on the action line, else from an `Arguments:` line right after
    /// it, else a final answer that completes first. `name_end` is where
    /// the action line's name ends.
    fn action_input(
        &mut self,
        name: String,
        args: Option<(Result<Value, String>, usize)>,
        next: Option<Found>,
        name_end: usize,
    ) -> Parsed {
        let input = match next {
            Some(next) if next.label == Label::ActionInput => {
                let input = read_input(self.text, next.value, &mut self.scanner);
                Some((input.value, input.end))
            }
            _ => args.or_else(|| {
                let value = input_words_after(self.text, name_end)?;
                let input = read_input(self.text, value, &mut self.scanner);
                Some((input.value, input.end))
            }),
        };
        match input {
            // `Action: Final Answer` with the answer as its input.
            Some((Ok(input), end)) if names_the_answer(&name) => Parsed::Final {
                answer: answer_text(input).trim().to_string(),
                thought: self.thought(),
                end,
            },
            Some((Ok(input), end)) => Parsed::Action {
                tool: name,
                input,
                thought: self.thought(),
                end,
            },
            Some((Err(reason), _)) => Parsed::Error {
                reason,
                tool: Some(name),
            },
            None => match next {
                Some(next) if next.label == Label::FinalAnswer => self.final_answer(next),
                _ => Parsed::Error {
                    reason: format!("`Action: {name}` has no `Action Input:` line after it"),
                    tool: Some(name),
                },
            },
        }
    }

    /// After `Action: None`, an `Action Input: None` line is skipped too.
    fn skip_empty_input(&mut self, next: Option<Found>) {
        let Some(next) = next else {
            self.free_from = self.text.len();
            return;
        };
        self.free_from = next.start;
        if next.label == Label::ActionInput {
            let line_end = self.text[next.value..]
                .find('\n')
                .map_or(self.text.len(), |n| next.value + n);
            self.scanner.seek(line_end);
            self.free_from = line_end;
        } else {
            // Let the main walk see this label again.
            self.pending = Some(next);
        }
    }

    fn next_label(&mut self) -> Option<Found> {
        loop {
            match self.scanner.next(Mode::Value)? {
                Event::Label(found) => return Some(found),
                Event::Blob(_) => {}
            }
        }
    }
}
