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
//! the answer.

use std::sync::{Arc, OnceLock};

use agent_core::message::Constraint;
use serde_json::json;

/// The longest answer the grammar allows, in characters.
const MAX_ANSWER_CHARS: usize = 1500;

/// The words-only constraint, built once.
pub(crate) fn words_constraint() -> Arc<Constraint> {
    static WORDS: OnceLock<Arc<Constraint>> = OnceLock::new();
    Arc::clone(WORDS.get_or_init(|| {
        Arc::new(Constraint {
            grammar: format!(
                r#"root ::= [^\u0000-\u0020{{}}<>\x5B\x5D`"'*#|] [^\u0000{{}}]{{0,{}}}"#,
                MAX_ANSWER_CHARS - 1
            ),
            json_schema: Some(json!({
                "type": "object",
                "properties": {"answer": {"type": "string", "maxLength": MAX_ANSWER_CHARS}},
                "required": ["answer"],
                "additionalProperties": false
            })),
            answer_only: true,
        })
    }))
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
}
