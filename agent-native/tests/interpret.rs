//! How the native transport reads a reply with no tool calls: words are an
//! answer, nothing or bare punctuation (a tool call the server failed to
//! parse, such as a lone `{`) is a malformed turn the model is told about.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use agent_core::transport::Decision;
use agent_core::{Completion, Transport};
use agent_native::NativeTransport;

fn decide(text: &str) -> Decision {
    NativeTransport::new()
        .interpret(Completion::text(text), &[])
        .turn
        .decision
}

#[test]
fn words_in_any_language_are_an_answer() {
    for text in [
        "The answer is 441.",
        "441",
        "答案是四百四十一",
        "  Ça fait 441 €  ",
    ] {
        assert!(
            matches!(decide(text), Decision::Final(ref a) if a == text.trim()),
            "{text:?}"
        );
    }
}

#[test]
fn bare_punctuation_is_not_an_answer() {
    for text in ["{", "{\n", "{}", "[]", "```", " ... ", "\"\""] {
        match decide(text) {
            Decision::Malformed(reason) => assert!(reason.contains("punctuation"), "{reason}"),
            other => panic!("{text:?} was read as {other:?}"),
        }
    }
    assert!(matches!(decide("  \n"), Decision::Malformed(r) if r.contains("empty")));
}
