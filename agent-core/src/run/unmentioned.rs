//! The names a question writes with a capital inside a sentence (`Eiffel
//! Tower`, `Rust`, `Paris`) and whether a tool result has mentioned them
//! yet. A call sent back to look its numbers up names those no result has
//! mentioned: asked how many years after the Eiffel Tower was completed
//! Rust 1.0 came out, the 1.5B model searched for Rust, computed with a
//! year for the tower from memory, and sent to look the facts up searched
//! for Rust again. The names point at the fact still missing.
//!
//! A word that opens a sentence is no name (`How`, `What`); a question in
//! a language without capitals (Chinese, Japanese) has none. Languages
//! that capitalise every noun (German) list their nouns too, which is
//! still what the question asks about.

use serde::{Deserialize, Serialize};

/// The most names a message lists.
const NAMES_LISTED: usize = 3;

/// The question's names no tool result has mentioned yet.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(super) struct Unmentioned {
    /// Each name as the question writes it, with its words in lower case.
    names: Vec<(String, Vec<String>)>,
}

impl Unmentioned {
    /// The names of `question`: runs of capitalised words, each run one
    /// name (`Eiffel Tower`), none opening a sentence.
    pub(super) fn of(question: &str) -> Self {
        let mut names: Vec<(String, Vec<String>)> = Vec::new();
        let mut run: Vec<&str> = Vec::new();
        let mut opens_sentence = true;
        let mut rest = question;
        loop {
            let (between, after) = rest.split_at(rest.find(is_word_char).unwrap_or(rest.len()));
            if between.contains(SENTENCE_ENDS) {
                opens_sentence = true;
            }
            // A name's words are apart by one space, nothing else.
            if between != " " {
                end_name(&mut run, &mut names);
            }
            let (word, next) =
                after.split_at(after.find(|c| !is_word_char(c)).unwrap_or(after.len()));
            if word.is_empty() {
                break;
            }
            if !opens_sentence && is_name(word) {
                run.push(word);
            } else {
                end_name(&mut run, &mut names);
            }
            opens_sentence = false;
            rest = next;
        }
        end_name(&mut run, &mut names);
        Self { names }
    }

    /// Marks the names that `result`, a tool result that found something,
    /// mentions: every word of the name, in any case.
    pub(super) fn see(&mut self, result: &str) {
        if self.names.is_empty() {
            return;
        }
        let result = result.to_lowercase();
        let words: Vec<&str> = result.split(|c: char| !is_word_char(c)).collect();
        self.names
            .retain(|(_, name)| !name.iter().all(|w| words.contains(&w.as_str())));
    }

    /// The names no result has mentioned yet, at most a few, as the
    /// question writes them.
    pub(super) fn names(&self) -> Vec<&str> {
        self.names
            .iter()
            .take(NAMES_LISTED)
            .map(|(name, _)| name.as_str())
            .collect()
    }
}

/// What ends a sentence, so that the next word opens one.
const SENTENCE_ENDS: [char; 10] = ['.', '?', '!', ':', '\n', '。', '？', '！', '¿', '¡'];

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '-'
}

/// Whether `word` is written as a name: two letters or more, a capital
/// first.
fn is_name(word: &str) -> bool {
    word.chars().count() >= 2 && word.chars().next().is_some_and(char::is_uppercase)
}

/// Ends the name being read (`run`), keeping it once.
fn end_name(run: &mut Vec<&str>, names: &mut Vec<(String, Vec<String>)>) {
    if run.is_empty() {
        return;
    }
    let name = run.join(" ");
    if !names.iter().any(|(n, _)| *n == name) {
        names.push((name, run.iter().map(|w| w.to_lowercase()).collect()));
    }
    run.clear();
}

/// The note a message that sends the model to look facts up ends with:
/// the names the question writes that no result has mentioned yet;
/// empty when there are none.
pub(super) fn unmentioned_note(names: &[&str]) -> String {
    match names {
        [] => String::new(),
        [one] => format!(". No result has mentioned {one} yet"),
        [first @ .., last] => format!(
            ". No result has mentioned {} or {last} yet",
            first.join(", ")
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(question: &str) -> Vec<String> {
        Unmentioned::of(question)
            .names
            .into_iter()
            .map(|(n, _)| n)
            .collect()
    }

    #[test]
    fn capitalised_words_inside_a_sentence_are_names() {
        assert_eq!(
            names("How many years after the Eiffel Tower was completed did Rust 1.0 come out?"),
            ["Eiffel Tower", "Rust"]
        );
        assert_eq!(
            names("What is the average population of Paris, Berlin, Tokyo and Rome?"),
            ["Paris", "Berlin", "Tokyo", "Rome"]
        );
        assert_eq!(
            names("¿Cuántos habitantes tiene Madrid? Dime también Sevilla."),
            ["Madrid", "Sevilla"]
        );
        assert!(names("東京の人口はどのくらいですか？").is_empty());
        assert!(names("What is 18% of 2450? Use the calculator.").is_empty());
    }

    #[test]
    fn a_result_that_mentions_every_word_of_a_name_clears_it() {
        let mut unmentioned = Unmentioned::of(
            "How many years after the Eiffel Tower was completed did Rust 1.0 come out?",
        );
        unmentioned.see("Rust (programming language): Version 1.0 was released in May 2015.");
        assert_eq!(unmentioned.names(), ["Eiffel Tower"]);
        unmentioned.see("The tower of London");
        assert_eq!(unmentioned.names(), ["Eiffel Tower"]);
        unmentioned.see("The EIFFEL TOWER was completed in 1889.");
        assert!(unmentioned.names().is_empty());
    }

    #[test]
    fn the_note_lists_the_names() {
        assert_eq!(unmentioned_note(&[]), "");
        assert_eq!(
            unmentioned_note(&["Eiffel Tower"]),
            ". No result has mentioned Eiffel Tower yet"
        );
        assert_eq!(
            unmentioned_note(&["Paris", "Tokyo", "Rome"]),
            ". No result has mentioned Paris, Tokyo or Rome yet"
        );
    }
}
