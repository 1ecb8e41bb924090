//! Grammar-constrained decoding for the text transport: the run's tool
//! specs compile into a grammar of one ReAct step, which a server that
//! supports it enforces while the model writes. The tolerant parser still
//! reads every reply; the grammar only makes malformed ones impossible.
//!
//! - [`react_grammar`]: a `Thought:` line, then `Action:` naming an offered
//!   tool and `Action Input:` with JSON that follows that tool's schema,
//!   or `Final Answer:`. The final-answer branch is always open.
//! - [`call_grammar`] / [`call_envelope`]: a step that must call one of
//!   its tools (no final answer), for a turn the run has decided must
//!   compute.
//! - [`final_grammar`]: a forced answer turn (maybe a thought, then the
//!   final answer).
//! - [`refusal_grammar`]: a forced answer turn when no call of the run
//!   found anything: the final answer opens with [`REFUSAL_OPENING`].
//! - [`schema_grammar`]: the JSON values a schema allows.
//! - [`ollama_envelope`] / [`final_envelope`]: the same steps as a JSON
//!   schema, for servers that constrain by schema.
//! - [`final_grammar_with_numbers`] / [`react_grammar_with_numbers`]: an
//!   answer turn after an answer with a number no tool gave, whose
//!   numbers may only be the conversation's.
//! - [`constraint`] / [`constraint_with_numbers`]: all of it as the
//!   request's [`Constraint`].
//! - [`Grammar`] is the AST ([`Expr`], [`CharClass`]); [`Grammar::to_gbnf`]
//!   renders it and [`Grammar::matches`] tells whether a text is in it.
//! - The bounds (string lengths, digits, items, depth) are the `MAX_*`
//!   constants.
//!
//! # Where each server takes it
//!
//! - **llama.cpp** `llama-server`: the GBNF text in the `grammar` field of
//!   `/v1/chat/completions` (or `/completion`). It cannot be combined with
//!   `json_schema` or with `tools`. A grammar it cannot parse is answered
//!   with HTTP 400, "Failed to parse grammar" (checked against the vendored
//!   llama.cpp 4227c9b of 2025-08-14).
//! - **vLLM**: the same GBNF text as `structured_outputs: {"grammar": …}`
//!   (vLLM ≥ 0.10.2; the older `guided_grammar` field was removed in
//!   v0.12.0). Its xgrammar backend reads llama.cpp's GBNF syntax.
//! - **Ollama**: the [`ollama_envelope`] schema as `format` on `/api/chat`
//!   (or `response_format: {"type": "json_schema", …}` on its OpenAI
//!   endpoint); the reply is a JSON object the parser reads as the step.

mod ast;
mod bounds;
mod envelope;
mod gbnf;
mod json;
mod numbers;
mod react;
mod recognize;
mod tokens;

use agent_core::ToolSpec;
use agent_core::message::Constraint;

/// What a forced answer turn's final answer opens with when no call of
/// the run found anything ([`refusal_grammar`]).
pub use agent_core::transport::REFUSAL_OPENING;
pub use ast::{CharClass, Expr, Grammar};
pub use bounds::{
    MAX_ANSWER_CHARS, MAX_ARRAY_ITEMS, MAX_EXPONENT_DIGITS, MAX_FRACTION_DIGITS, MAX_INDENT,
    MAX_INTEGER_DIGITS, MAX_JSON_DEPTH, MAX_OBJECT_ENTRIES, MAX_STRING_CHARS, MAX_THOUGHT_CHARS,
};
pub use envelope::{call_envelope, final_envelope, ollama_envelope};
pub use json::schema_grammar;
pub use react::{
    call_grammar, final_grammar, final_grammar_with_numbers, react_grammar,
    react_grammar_with_numbers, refusal_grammar,
};

/// The constraint for a request offering `tools`: the GBNF grammar and
/// the JSON-schema envelope of one step, or of a final answer only when
/// `answer_only` (a forced answer turn).
///
/// ```
/// use agent_text::grammar::constraint;
///
/// let forced = constraint(&[], true);
/// assert!(forced.answer_only);
/// assert!(forced.grammar.contains("\"Final Answer: \""));
/// assert!(forced.json_schema.is_some());
/// ```
pub fn constraint(tools: &[ToolSpec], answer_only: bool) -> Constraint {
    constraint_with(tools, answer_only, None)
}

/// [`constraint`] for an answer turn after an answer with a number no
/// tool gave: its thought and final answer write only `numbers` (see
/// [`final_grammar_with_numbers`]). A compute round passes its computing
/// tools with `answer_only` false. The JSON-schema envelope does not
/// bound the numbers.
pub fn constraint_with_numbers(
    tools: &[ToolSpec],
    answer_only: bool,
    numbers: &[String],
) -> Constraint {
    constraint_with(tools, answer_only, Some(numbers))
}

/// The constraint of a forced answer turn when no call of the run found
/// anything ([`refusal_grammar`]). The JSON-schema envelope does not fix
/// the answer's opening.
///
/// ```
/// use agent_text::grammar::{REFUSAL_OPENING, refusal_constraint};
///
/// let refusal = refusal_constraint();
/// assert!(refusal.answer_only);
/// assert!(refusal.grammar.contains(REFUSAL_OPENING));
/// ```
pub fn refusal_constraint() -> Constraint {
    Constraint {
        grammar: refusal_grammar().to_gbnf(),
        json_schema: Some(final_envelope()),
        answer_only: true,
    }
}

/// The constraint of a step that must call one of `tools`: no final
/// answer ([`call_grammar`], [`call_envelope`]).
///
/// ```
/// use agent_text::grammar::call_constraint;
///
/// let forced = call_constraint(&[]);
/// assert!(!forced.answer_only);
/// assert!(forced.grammar.contains("Final Answer: "), "with no tool, only the answer");
/// ```
pub fn call_constraint(tools: &[ToolSpec]) -> Constraint {
    Constraint {
        grammar: call_grammar(tools).to_gbnf(),
        json_schema: Some(call_envelope(tools)),
        answer_only: false,
    }
}

/// The constraint of a step with `tools`, or of an answer only, its
/// numbers bound to `numbers` when given.
fn constraint_with(
    tools: &[ToolSpec],
    answer_only: bool,
    numbers: Option<&[String]>,
) -> Constraint {
    if answer_only {
        Constraint {
            grammar: numbers
                .map_or_else(final_grammar, final_grammar_with_numbers)
                .to_gbnf(),
            json_schema: Some(final_envelope()),
            answer_only,
        }
    } else {
        Constraint {
            grammar: match numbers {
                Some(numbers) => react_grammar_with_numbers(tools, numbers),
                None => react_grammar(tools),
            }
            .to_gbnf(),
            json_schema: Some(ollama_envelope(tools)),
            answer_only,
        }
    }
}
