//! Answers that echo the loop's own words. Small models (Qwen2.5-Coder
//! 0.5B) copy the last message they were given; when that message is one
//! the loop wrote (an error, a note on a repeated call, the request for an
//! answer), the copy comes back as the "answer": `Error: no more tool
//! calls are possible; answer in words.` Such a reply is not an answer,
//! and it never becomes the outcome's answer: it is a malformed turn.
//!
//! The run remembers the word 5-grams of every text it wrote to the model
//! (the task's own words taken out, so an answer that restates the
//! question is not an echo). A final answer sharing two or more of them
//! echoes the loop. Short answers ("I cannot find it.") have no 5-gram to
//! share. A tool's own error is not the loop's words: an answer may pass
//! it on ("that file does not exist").

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

/// Words in a run of text compared between an answer and the loop's texts.
const GRAM: usize = 5;
/// Shared runs that make an answer an echo.
const ECHOED_GRAMS: usize = 2;

/// The loop's words, as a run has written them.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(super) struct LoopWords {
    grams: BTreeSet<String>,
}

impl LoopWords {
    /// Learns a text the loop wrote to the model, without the words of
    /// `task` (which the loop restates, and an answer may too).
    pub(super) fn learn(&mut self, text: &str, task: &str) {
        let text = if task.trim().is_empty() {
            text.to_string()
        } else {
            text.replace(task.trim(), " ")
        };
        self.grams.extend(grams(&text));
    }

    /// Whether `answer` echoes what the loop wrote.
    pub(super) fn echoed_by(&self, answer: &str) -> bool {
        grams(answer)
            .filter(|g| self.grams.contains(g))
            .take(ECHOED_GRAMS)
            .count()
            >= ECHOED_GRAMS
    }
}

/// The runs of [`GRAM`] words of `text`, lower-cased, letters only:
/// numbers are left out, since the loop quotes the model's own numbers
/// back to it (`2,100,000 + 3,800,000 is not 8,900,000`).
fn grams(text: &str) -> impl Iterator<Item = String> {
    let words: Vec<String> = text
        .split(|c: char| !c.is_alphabetic())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    let count = words.len().saturating_sub(GRAM - 1);
    (0..count)
        .map(move |i| words[i..i + GRAM].join(" "))
        .collect::<Vec<_>>()
        .into_iter()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn learned(texts: &[&str], task: &str) -> LoopWords {
        let mut words = LoopWords::default();
        for text in texts {
            words.learn(text, task);
        }
        words
    }

    #[test]
    fn a_copied_error_or_request_is_an_echo() {
        let task = "What is the population of Spain?";
        let words = learned(
            &[
                "Error: no more tool calls are possible; answer in words. What is the population of Spain?\nAnswer from the tool results above, without calling tools.",
                "The tool calls above found nothing about this question: What is the population of Spain?\nReply without calling tools: say that you cannot find it.",
            ],
            task,
        );
        assert!(words.echoed_by("Error: no more tool calls are possible; answer in words."));
        assert!(words.echoed_by(
            "The tool calls above found nothing about this question: What is the population of Spain?"
        ));
        // Answers, even ones that restate the question or say they cannot find it.
        assert!(!words.echoed_by("I cannot find it."));
        assert!(!words.echoed_by("You cannot find it: the tools have no entry for Spain."));
        assert!(!words.echoed_by("The population of Spain is about 48 million."));
        assert!(!words.echoed_by("From the tool results above, the answer is 48 million."));
    }

    #[test]
    fn a_claim_the_loop_quoted_back_is_not_an_echo() {
        let words = learned(
            &[
                "Error: 2,100,000 + 3,800,000 is not 8,900,000. Compute it with add, then give the final answer",
            ],
            "How many together?",
        );
        assert!(!words.echoed_by("2,100,000 + 3,800,000 = 8,900,000, so 8,900,000"));
        assert!(words.echoed_by("8,900,000. Compute it with add, then give the final answer"));
    }

    #[test]
    fn grams_are_words_in_order() {
        assert_eq!(
            grams("One, two; three 3 four five six").collect::<Vec<_>>(),
            ["one two three four five", "two three four five six"]
        );
        assert_eq!(grams("too short").count(), 0);
    }
}
