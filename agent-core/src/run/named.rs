//! Names the question writes in code form (`latency_ms`, `max_retries`:
//! words joined by `_`) and whether a tool result has shown them
//! ([`Budget::ground_names`](crate::Budget)). Such a name is exact: a
//! file or a result that holds the answer holds the name. A small model
//! that finds no such column or key answers from what it found instead
//! (asked for the average `latency_ms` of a file without one, the 1.5B
//! model gave the mean of the `requests` column), so an answer given
//! while a result has shown none of them is sent back once.

use serde::{Deserialize, Serialize};

use crate::typos::one_typo_apart;

/// The question's code-form names a result has not shown yet.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(super) struct NamedInQuestion {
    /// The names not yet shown, as the question writes them.
    unseen: Vec<String>,
    /// An answer was already sent back for them.
    warned: bool,
}

impl NamedInQuestion {
    /// The code-form names of `question`.
    pub(super) fn of(question: &str) -> Self {
        let mut unseen: Vec<String> = Vec::new();
        for word in question.split(|c: char| !(c.is_alphanumeric() || c == '_')) {
            let word = word.trim_matches('_');
            let joined = word
                .split('_')
                .filter(|part| part.chars().any(char::is_alphabetic))
                .count()
                >= 2;
            if joined && !unseen.iter().any(|n| n.eq_ignore_ascii_case(word)) {
                unseen.push(word.to_string());
            }
        }
        Self {
            unseen,
            warned: false,
        }
    }

    /// Marks the names that `result`, a tool result that found something,
    /// shows: in any case, or spelt a typo apart (the question's
    /// `guest_inof.txt` is the result's `guest_info.txt`: a question
    /// typed in a hurry misspells the name the files write right).
    pub(super) fn see(&mut self, result: &str) {
        if self.unseen.is_empty() {
            return;
        }
        let result = result.to_lowercase();
        let shown_words: Vec<String> = result
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .filter(|word| word.contains('_'))
            .map(letters_of)
            .collect();
        self.unseen.retain(|name| {
            let name = name.to_lowercase();
            let letters = letters_of(&name);
            !result.contains(&name)
                && !shown_words
                    .iter()
                    .any(|word| one_typo_apart(word, &letters))
        });
    }

    /// Whether an answer given now would be sent back for these names.
    pub(super) fn would_send_back(&self) -> bool {
        !self.warned && !self.unseen.is_empty()
    }

    /// The names no result has shown when an answer is given, the first
    /// time only: a second answer stands.
    pub(super) fn check_answer(&mut self) -> Vec<String> {
        if self.warned || self.unseen.is_empty() {
            return Vec::new();
        }
        self.warned = true;
        self.unseen.clone()
    }
}

/// A code-form name without its `_` joins: the letters a typo is read in.
fn letters_of(name: &str) -> String {
    name.chars().filter(|c| *c != '_').collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_words_joined_by_underscores_are_names() {
        let named = NamedInQuestion::of(
            "What's the average latency_ms in metrics.csv? And __init__, MAX_RETRIES, 1_000, v_2?",
        );
        assert_eq!(named.unseen, ["latency_ms", "MAX_RETRIES"]);
        assert!(
            NamedInQuestion::of("Wie viele Einwohner hat Berlin?")
                .unseen
                .is_empty()
        );
    }

    #[test]
    fn a_result_that_shows_a_name_in_any_case_clears_it() {
        let mut named = NamedInQuestion::of("Which max_retries and idle_timeout apply?");
        named.see("MAX_RETRIES = 5");
        assert_eq!(named.unseen, ["idle_timeout"]);
        named.see("timeout: 30");
        assert_eq!(named.check_answer(), ["idle_timeout"]);
        // A second answer stands.
        assert!(named.check_answer().is_empty());
        let mut shown = NamedInQuestion::of("What is latency_ms?");
        shown.see("ts,latency_ms\n1,20");
        assert!(shown.check_answer().is_empty());
    }

    #[test]
    fn a_result_that_shows_a_misspelt_name_spelt_right_clears_it() {
        let mut named = NamedInQuestion::of("what's the wifi pasword? it's in guest_inof.txt");
        named.see("guest_info.txt:4: Password: x");
        assert!(named.check_answer().is_empty());
        let mut named = NamedInQuestion::of("the average of respnse_time?");
        named.see("ts,response_time\n1,20");
        assert!(named.check_answer().is_empty());
        // Another name, or a name with other digits, is not the same one.
        let mut named = NamedInQuestion::of("What is max_retries and sales_q3_total?");
        named.see("max_requests = 5\nsales_q4_total = 3");
        assert_eq!(named.check_answer(), ["max_retries", "sales_q3_total"]);
    }
}
