//! The ReAct step grammars, in the classic dialect the default prompt
//! teaches (see [`PromptBuilder`](crate::PromptBuilder)):
//!
//! ```text
//! Thought: <one line of reasoning>
//! Action: <an offered tool>
//! Action Input: <JSON that follows that tool's schema>
//! ```
//!
//! or `Thought: …` then `Final Answer: <text, maybe over several lines>`.
//! The final-answer branch is always open. The grammar ends after the
//! Action Input, so the model stops there (the server's stop sequence,
//! `\nObservation:`, never needs to fire).
//!
//! The thought is one line without `:` (so no label can hide in it for
//! the parser to find mid-line) that starts with a visible character;
//! the answer starts with one too. Both are bounded
//! ([`MAX_THOUGHT_CHARS`], [`MAX_ANSWER_CHARS`]).

use agent_core::ToolSpec;
use agent_core::transport::REFUSAL_OPENING;

use super::ast::{CharClass, Expr, Grammar, RuleSet};
use super::bounds::{MAX_ANSWER_CHARS, MAX_THOUGHT_CHARS};
use super::json::{SchemaCompiler, input_hint};
use super::numbers::text_with_numbers;

/// The labels, as the classic prompt writes them.
const THOUGHT: &str = "Thought: ";
const ACTION: &str = "Action: ";
const ACTION_INPUT: &str = "Action Input: ";
const FINAL_ANSWER: &str = "Final Answer: ";

/// The grammar of one ReAct step with these tools: a thought, then an
/// action on one of them with input that follows its schema, or the final
/// answer. With no tools, only the final answer.
///
/// ```
/// use agent_core::ToolSpec;
/// use agent_text::grammar::react_grammar;
/// use serde_json::json;
///
/// let search = ToolSpec {
///     name: "search".into(),
///     description: "Look things up.".into(),
///     parameters: json!({
///         "type": "object",
///         "properties": {"query": {"type": "string"}},
///         "required": ["query"],
///         "additionalProperties": false
///     }),
/// };
/// let grammar = react_grammar(&[search]);
/// assert!(grammar.matches("Thought: look it up\nAction: search\nAction Input: {\"query\":\"x\"}"));
/// assert!(grammar.matches("Thought: done\nFinal Answer: x"));
/// assert!(!grammar.matches("Thought: hm\nAction: fetch\nAction Input: {}"));
/// assert!(grammar.to_gbnf().starts_with("root ::= \"Thought: \" thought \"\\n\" "));
/// ```
pub fn react_grammar(tools: &[ToolSpec]) -> Grammar {
    step_grammar(tools, None, true)
}

/// The grammar of a step that must call one of `tools`: a thought, then
/// an action with input that follows the tool's schema, and no final
/// answer. For a turn the run has decided must compute, or look up (see
/// [`RequestParts::must_call`](agent_core::transport::RequestParts)); with
/// no tools it is [`react_grammar`]'s final answer alone.
///
/// ```
/// use agent_core::ToolSpec;
/// use agent_text::grammar::call_grammar;
/// use serde_json::json;
///
/// let calculator = ToolSpec {
///     name: "calculator".into(),
///     description: "Evaluate arithmetic.".into(),
///     parameters: json!({
///         "type": "object",
///         "properties": {"expression": {"type": "string"}},
///         "required": ["expression"],
///         "additionalProperties": false
///     }),
/// };
/// let grammar = call_grammar(&[calculator]);
/// assert!(grammar.matches("Thought: work it out\nAction: calculator\nAction Input: {\"expression\":\"a\"}"));
/// assert!(!grammar.matches("Thought: done\nFinal Answer: x"));
/// ```
pub fn call_grammar(tools: &[ToolSpec]) -> Grammar {
    step_grammar(tools, None, false)
}

/// [`react_grammar`] for an answer turn's compute round after an answer
/// with a number no tool gave: the thought and the final answer write
/// only `numbers` (see [`final_grammar_with_numbers`]); the tool inputs
/// follow their schemas.
pub fn react_grammar_with_numbers(tools: &[ToolSpec], numbers: &[String]) -> Grammar {
    step_grammar(tools, Some(numbers), true)
}

/// One step with `tools`, its thought and answer writing only `numbers`
/// when given; the final answer is a choice only when `final_open` (or
/// when there is no tool to call).
fn step_grammar(tools: &[ToolSpec], numbers: Option<&[String]>, final_open: bool) -> Grammar {
    let mut rules = RuleSet::new();
    let thought = thought(&mut rules, numbers);
    let answer = answer(&mut rules, numbers);
    let mut seen: Vec<&str> = Vec::new();
    let mut calls = Vec::new();
    for tool in tools {
        if seen.contains(&tool.name.as_str()) {
            continue;
        }
        seen.push(&tool.name);
        let input =
            SchemaCompiler::new(&mut rules).value(&tool.parameters, &input_hint(&tool.name));
        calls.push(Expr::seq([
            Expr::lit(tool.name.as_str()),
            Expr::lit("\n"),
            Expr::lit(ACTION_INPUT),
            input,
        ]));
    }
    let finish = Expr::seq([Expr::lit(FINAL_ANSWER), answer]);
    let next = if calls.is_empty() {
        finish
    } else {
        let action = rules.define("action", Expr::alt(calls));
        let call = Expr::seq([Expr::lit(ACTION), action]);
        if final_open {
            Expr::alt([call, finish])
        } else {
            call
        }
    };
    let root = Expr::seq([Expr::lit(THOUGHT), thought, Expr::lit("\n"), next]);
    rules.finish(root)
}

/// The grammar of a forced answer turn: maybe a thought, then the final
/// answer.
///
/// ```
/// use agent_text::grammar::final_grammar;
///
/// let grammar = final_grammar();
/// assert!(grammar.matches("Thought: I know it.\nFinal Answer: 42"));
/// assert!(grammar.matches("Final Answer: 42\nbecause of the two lines above"));
/// assert!(!grammar.matches("Thought: more\nAction: search\nAction Input: {}"));
/// ```
pub fn final_grammar() -> Grammar {
    answer_grammar(None)
}

/// The grammar of a forced answer turn asked again because its answer had
/// a number no tool gave: as [`final_grammar`], but every number of the
/// thought and the answer is one of `numbers` (the conversation's, see
/// [`RequestParts::answer_numbers`](agent_core::transport::RequestParts)).
///
/// ```
/// use agent_text::grammar::final_grammar_with_numbers;
///
/// let grammar = final_grammar_with_numbers(&["21,196".into(), "21196".into()]);
/// assert!(grammar.matches("Thought: the results say so.\nFinal Answer: 21,196 km"));
/// assert!(grammar.matches("Final Answer: The results do not show it."));
/// assert!(!grammar.matches("Final Answer: 1300"));
/// assert!(!grammar.matches("Thought: about 1300\nFinal Answer: 21196"));
/// ```
pub fn final_grammar_with_numbers(numbers: &[String]) -> Grammar {
    answer_grammar(Some(numbers))
}

/// The grammar of a forced answer turn when no call of the run found
/// anything: maybe a thought, then a final answer that opens with
/// [`REFUSAL_OPENING`] and goes on freely (what it cannot find, or why).
/// The request asks for that in words; asked in words only, the 1.5B
/// model wrote "I cannot find it." as its thought and then answered
/// from memory.
///
/// ```
/// use agent_text::grammar::refusal_grammar;
///
/// let grammar = refusal_grammar();
/// assert!(grammar.matches("Thought: the searches found nothing.\nFinal Answer: I cannot find it."));
/// assert!(grammar.matches("Final Answer: I cannot find who wrote it with these tools."));
/// assert!(!grammar.matches("Thought: I cannot find it.\nFinal Answer: It was written in 1850."));
/// assert!(!grammar.matches("Thought: look again\nAction: search\nAction Input: {}"));
/// ```
pub fn refusal_grammar() -> Grammar {
    let mut rules = RuleSet::new();
    let thought = thought(&mut rules, None);
    let rest = Expr::repeat(
        Expr::class(CharClass::not([('\0', '\0')])),
        0,
        Some(MAX_ANSWER_CHARS.saturating_sub(REFUSAL_OPENING.len() as u32)),
    );
    let root = Expr::seq([
        Expr::opt(Expr::seq([Expr::lit(THOUGHT), thought, Expr::lit("\n")])),
        Expr::lit(FINAL_ANSWER),
        Expr::lit(REFUSAL_OPENING),
        rest,
    ]);
    rules.finish(root)
}

/// Maybe a thought, then the final answer, writing only `numbers` when
/// given.
fn answer_grammar(numbers: Option<&[String]>) -> Grammar {
    let mut rules = RuleSet::new();
    let thought = thought(&mut rules, numbers);
    let answer = answer(&mut rules, numbers);
    let root = Expr::seq([
        Expr::opt(Expr::seq([Expr::lit(THOUGHT), thought, Expr::lit("\n")])),
        Expr::lit(FINAL_ANSWER),
        answer,
    ]);
    rules.finish(root)
}

/// One line of reasoning: no colon, starting with a visible character.
fn thought(rules: &mut RuleSet, numbers: Option<&[String]>) -> Expr {
    let line = [('\n', '\n'), ('\r', '\r'), (':', ':'), ('：', '：')];
    if let Some(numbers) = numbers {
        let blank = [(' ', ' '), ('\t', '\t')];
        return text_with_numbers(rules, "thought", &line, &blank, numbers, MAX_THOUGHT_CHARS);
    }
    let first = [(' ', ' '), ('\t', '\t')].into_iter().chain(line);
    rules.shared("thought", |_| {
        Expr::seq([
            Expr::class(CharClass::not(first)),
            Expr::repeat(
                Expr::class(CharClass::not(line)),
                0,
                Some(MAX_THOUGHT_CHARS - 1),
            ),
        ])
    })
}

/// Free text, maybe over several lines, starting with a visible character.
fn answer(rules: &mut RuleSet, numbers: Option<&[String]>) -> Expr {
    let blank = [(' ', ' '), ('\t', '\t'), ('\n', '\n'), ('\r', '\r')];
    if let Some(numbers) = numbers {
        return text_with_numbers(
            rules,
            "answer",
            &[('\0', '\0')],
            &blank,
            numbers,
            MAX_ANSWER_CHARS,
        );
    }
    rules.shared("answer", |_| {
        Expr::seq([
            Expr::class(CharClass::not(std::iter::once(('\0', '\0')).chain(blank))),
            Expr::repeat(
                Expr::class(CharClass::not([('\0', '\0')])),
                0,
                Some(MAX_ANSWER_CHARS - 1),
            ),
        ])
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::PromptBuilder;
    use crate::prompt::Dialect;
    use serde_json::json;

    fn tool(name: &str) -> ToolSpec {
        ToolSpec {
            name: name.into(),
            description: "A tool.".into(),
            parameters: json!({
                "type": "object",
                "properties": {"query": {"type": "string"}},
                "required": ["query"],
                "additionalProperties": false
            }),
        }
    }

    /// The step format the default prompt teaches, its placeholders filled
    /// in, is in the grammar, and so is the ending it teaches.
    #[test]
    fn the_prompt_format_and_ending_are_in_the_grammar() {
        let tools = [tool("search")];
        let prompt = PromptBuilder::new(Dialect::Classic).system(&tools);
        let lines: Vec<&str> = prompt.lines().collect();
        let start = lines
            .iter()
            .position(|l| l.starts_with("Thought: "))
            .unwrap_or_default();
        let step = lines[start..start + 3]
            .join("\n")
            .replace("<one tool name>", "search")
            .replace(
                "<the tool's arguments as a JSON object>",
                "{\"query\": \"x\"}",
            );
        let grammar = react_grammar(&tools);
        assert!(grammar.matches(&step), "{step}");
        let ending_at = lines
            .iter()
            .position(|l| l.starts_with("Final Answer: "))
            .unwrap_or_default();
        let ending = lines[ending_at - 1..=ending_at].join("\n");
        assert!(grammar.matches(&ending), "{ending}");
    }

    #[test]
    fn thoughts_are_one_line_without_labels() {
        let grammar = react_grammar(&[tool("search")]);
        let finish = |thought: &str| format!("Thought: {thought}\nFinal Answer: x");
        assert!(grammar.matches(&finish("plain words, numbers 1.5 and é")));
        assert!(!grammar.matches(&finish("two\nlines")));
        assert!(!grammar.matches(&finish("sneaky Action: search")));
        assert!(!grammar.matches(&finish(" leading space")));
        assert!(!grammar.matches(&finish("")));
        assert!(!grammar.matches(&finish(&"a".repeat(MAX_THOUGHT_CHARS as usize + 1))));
        assert!(grammar.matches(&finish(&"a".repeat(MAX_THOUGHT_CHARS as usize))));
        assert!(
            !grammar.matches("Final Answer: x"),
            "the thought is required"
        );
    }

    #[test]
    fn answers_span_lines_and_are_bounded() {
        let grammar = final_grammar();
        assert!(grammar.matches("Final Answer: a\n\nb"));
        assert!(!grammar.matches("Final Answer: "));
        assert!(!grammar.matches("Final Answer: \nx"));
        let long = "a".repeat(MAX_ANSWER_CHARS as usize);
        assert!(grammar.matches(&format!("Final Answer: {long}")));
        assert!(!grammar.matches(&format!("Final Answer: {long}b")));
    }

    #[test]
    fn no_tools_leaves_only_the_answer_and_duplicates_count_once() {
        let grammar = react_grammar(&[]);
        assert!(grammar.matches("Thought: t\nFinal Answer: x"));
        assert!(!grammar.to_gbnf().contains("Action"));
        let twice = react_grammar(&[tool("search"), tool("search")]);
        assert_eq!(twice, react_grammar(&[tool("search")]));
    }

    #[test]
    fn nothing_may_follow_the_action_input() {
        let grammar = react_grammar(&[tool("search")]);
        let step = "Thought: t\nAction: search\nAction Input: {\"query\":\"x\"}";
        assert!(grammar.matches(step));
        assert!(!grammar.matches(&format!("{step}\nObservation: y")));
        assert!(!grammar.matches(&format!("{step}\n")));
    }
}
