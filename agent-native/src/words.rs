//! The constraint of a native answer turn asked a second time: a reply in
//! words. The first ask of an answer turn lists the run's tools with
//! `tool_choice: "none"` (the prefix cache), and some small models
//! (Qwen2.5-Coder 0.5B) answer it with a tool call written out as text;
//! the second ask lists no tools, and, where the server honours grammars
//! (the provider's [`Constrain`](crate::Constrain) decides), its grammar
//! allows no call: no brace anywhere, and a first character that is no
//! space and none of the marks a call or markup opens with (`<`, `>`,
//! brackets, a backtick, quotes, `*`, `#`, `|`). Kept only from `{`,
//! `[` and `<` first, the 0.5B model wrote `>{"name": …}`; replaying the 55 second
//! asks of a full eval run, this grammar answered 21 right against 18,
//! and none worse. A
//! schema-only server gets `{"answer": …}`, which the transport reads as
//! the answer. An answer turn when no call of the run found anything
//! lists no tools on its first ask, and its grammar makes the answer open
//! with a refusal ([`refusal_constraint`]).

use std::sync::{Arc, OnceLock};

use agent_core::message::Constraint;
use agent_core::numerals::comma_grouped_thousands;
use agent_core::transport::REFUSAL_OPENING;
use serde_json::json;

/// The longest answer the grammar allows, in characters.
const MAX_ANSWER_CHARS: usize = 1500;

/// The characters no answer starts with.
const NOT_FIRST: &str = r#"\u0000-\u0020{}<>\x5B\x5D`"'*#|"#;

/// The characters no answer holds.
const NEVER: &str = r"\u0000{}";

/// The marks that join digits into one number.
const JOINERS: &str = ".,_";

/// The words-only constraint, built once.
pub(crate) fn words_constraint() -> Arc<Constraint> {
    static WORDS: OnceLock<Arc<Constraint>> = OnceLock::new();
    Arc::clone(WORDS.get_or_init(|| {
        Arc::new(words_with_grammar(format!(
            "root ::= [^{NOT_FIRST}] [^{NEVER}]{{0,{}}}",
            MAX_ANSWER_CHARS - 1
        )))
    }))
}

/// The words-only constraint of an answer turn when no call of the run
/// found anything: the answer opens with [`REFUSAL_OPENING`] and goes
/// on freely, braces aside.
pub(crate) fn refusal_constraint() -> Arc<Constraint> {
    static REFUSAL: OnceLock<Arc<Constraint>> = OnceLock::new();
    Arc::clone(REFUSAL.get_or_init(|| {
        Arc::new(words_with_grammar(format!(
            "root ::= \"{REFUSAL_OPENING}\" [^{NEVER}]{{0,{}}}",
            MAX_ANSWER_CHARS - REFUSAL_OPENING.len()
        )))
    }))
}

/// The words-only constraint of an answer turn asked again because its
/// answer had a number no tool gave: every number it writes is one of
/// `numbers` (the conversation's, see
/// [`RequestParts::answer_numbers`](agent_core::transport::RequestParts)), whole: no
/// digit, and no `.`, `,` or `_` and a digit, follows one, so two of them
/// cannot join into one that is not. A number of four whole digits or
/// more may be written grouped by thousands with `,` too (see
/// [`comma_grouped_thousands`]; where the question writes thousands with a
/// dot, the loop lists those forms). With no numbers, it writes none.
pub(crate) fn words_constraint_with_numbers(numbers: &[String]) -> Constraint {
    let mut listed: Vec<String> = numbers
        .iter()
        .filter(|n| {
            n.starts_with(|c: char| c.is_ascii_digit())
                && n.chars().all(|c| c.is_ascii_digit() || ".,_ ".contains(c))
        })
        .flat_map(|n| std::iter::once(n.clone()).chain(comma_grouped_thousands(n)))
        .map(|n| format!("\"{n}\""))
        .collect();
    listed.sort_unstable();
    listed.dedup();
    let rest = MAX_ANSWER_CHARS - 1;
    let grammar = if listed.is_empty() {
        format!("root ::= [^0-9{NOT_FIRST}] [^0-9{NEVER}]{{0,{rest}}}")
    } else {
        format!(
            "root ::= (found-number | [{JOINERS}] | [^0-9{JOINERS}{NOT_FIRST}] found-number?) \
             ([{JOINERS}] | [^0-9{JOINERS}{NEVER}] found-number?){{0,{rest}}}\n\
             found-number ::= {}",
            listed.join(" | ")
        )
    };
    words_with_grammar(grammar)
}

/// A words-only constraint with this GBNF `grammar`; a schema-only server
/// gets the answer object.
fn words_with_grammar(grammar: String) -> Constraint {
    Constraint {
        grammar,
        json_schema: Some(json!({
            "type": "object",
            "properties": {"answer": {"type": "string", "maxLength": MAX_ANSWER_CHARS}},
            "required": ["answer"],
            "additionalProperties": false
        })),
        answer_only: true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_grammar_allows_no_brace_and_no_opening_mark() {
        let grammar = &words_constraint().grammar;
        assert_eq!(
            grammar,
            r#"root ::= [^\u0000-\u0020{}<>\x5B\x5D`"'*#|] [^\u0000{}]{0,1499}"#
        );
    }

    #[test]
    fn the_numbers_grammar_lists_the_found_numbers_only() {
        let numbers = [
            "21,196".to_string(),
            "21196".into(),
            "6.4".into(),
            "x1".into(),
        ];
        assert_eq!(
            words_constraint_with_numbers(&numbers).grammar,
            "root ::= (found-number | [.,_] | [^0-9.,_\\u0000-\\u0020{}<>\\x5B\\x5D`\"'*#|] found-number?) \
             ([.,_] | [^0-9.,_\\u0000{}] found-number?){0,1499}\n\
             found-number ::= \"21,196\" | \"21196\" | \"6.4\""
        );
        assert_eq!(
            words_constraint_with_numbers(&[]).grammar,
            r#"root ::= [^0-9\u0000-\u0020{}<>\x5B\x5D`"'*#|] [^0-9\u0000{}]{0,1499}"#
        );
    }
}
