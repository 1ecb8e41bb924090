//! A question that asks how many times one thing is another, answered
//! with a difference. "How many times taller is Mount Everest than the
//! Eiffel Tower?": the 1.5B model planned "the height difference",
//! subtracted, and answered with the difference. When the question asks
//! for a ratio (in one of several languages) and the run's computing
//! calls have only subtracted (or added: the 0.5B model added the two
//! lengths), never divided, the answer is sent back once and the next
//! turn must compute
//! ([`Budget::compute_when_planned`](crate::Budget)).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::arithmetic::{calculator_form, subtracts};
use super::fed_back::string_values;
use crate::equation::computed_side;
use crate::script::is_spaced_letter;

/// Words that ask how many times one thing is another by themselves
/// (lower case).
const RATIO_QUESTIONS: &[&str] = &[
    "wievielmal",
    "wie viel mal",
    "во сколько раз",
    "何倍",
    "几倍",
    "多少倍",
];

/// Words that ask "how many times", which may also count how often
/// something happened, each with the words of comparison that make it a
/// ratio when one of them follows (`how many times taller … than`, not
/// `how many times did it restart`, nor a ratio stated and a difference
/// asked: `3 times as many … how many more`).
const HOW_MANY_TIMES: &[(&str, &[&str])] = &[
    (
        "how many times",
        &[
            "than", "as", "taller", "larger", "bigger", "higher", "longer", "heavier", "more",
            "greater", "faster",
        ],
    ),
    ("combien de fois", &["plus"]),
    ("cuántas veces", &["más", "mas", "mayor"]),
    ("cuantas veces", &["más", "mas", "mayor"]),
    ("quante volte", &["più", "piu", "maggiore"]),
    ("quantas vezes", &["mais", "maior"]),
    ("hoeveel keer", &["groter", "hoger", "meer", "zo"]),
];

/// Words that, right after "how many times", make it a count of how
/// often (`how many times did`, `was`, `has`).
const COUNTING_VERBS: &[&str] = &[
    "did", "does", "do", "was", "were", "is", "are", "has", "have", "had", "will", "can", "could",
    "should", "would",
];

/// What the run knows of a ratio the question asks for.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(super) struct RatioAsked {
    /// The question asks how many times one thing is another.
    asked: bool,
    /// A computing call that gave a result subtracted, added or
    /// multiplied, and did not divide.
    #[serde(alias = "subtracted")]
    undivided: bool,
    /// A computing call that gave a result divided.
    divided: bool,
    /// An answer was sent back for it (once per run).
    sent_back: bool,
}

impl RatioAsked {
    /// Reads `question` for a ratio.
    pub(super) fn of(question: &str) -> Self {
        let lower = question.to_lowercase();
        let asked = RATIO_QUESTIONS
            .iter()
            .any(|p| !phrase_ends(&lower, p).is_empty())
            || HOW_MANY_TIMES.iter().any(|(phrase, comparisons)| {
                phrase_ends(&lower, phrase).into_iter().any(|end| {
                    let mut after = lower[end..]
                        .split(|c: char| !c.is_alphabetic())
                        .filter(|w| !w.is_empty());
                    let first = after.clone().next();
                    !first.is_some_and(|w| COUNTING_VERBS.contains(&w))
                        && after.any(|w| comparisons.contains(&w))
                })
            });
        Self {
            asked,
            ..Self::default()
        }
    }

    /// A computing call with `arguments` gave a result.
    pub(super) fn computed(&mut self, arguments: &Value) {
        if !self.asked {
            return;
        }
        let mut texts = Vec::new();
        string_values(arguments, &mut texts);
        for text in &texts {
            // The side computed (`8849 - 330 = 8519`), a minus sign as `-`.
            let computed = computed_side(text).unwrap_or(text).replace('−', "-");
            if computed.contains(['/', '÷']) {
                self.divided = true;
            } else if subtracts(&calculator_form(&computed)) || computed.contains(['+', '*', '×'])
            {
                self.undivided = true;
            }
        }
    }

    /// Whether an answer now is sent back: the question asks for a ratio,
    /// a call subtracted (or added, or multiplied) and none divided, and
    /// none was sent back before.
    pub(super) fn sends_back(&mut self) -> bool {
        let send = self.asked && self.undivided && !self.divided && !self.sent_back;
        self.sent_back |= send;
        send
    }
}

/// Where each `phrase` of `text` that starts a word ends (byte
/// offsets; `sometimes as` holds no `times as`); in a script written
/// without spaces, wherever it is.
fn phrase_ends(text: &str, phrase: &str) -> Vec<usize> {
    let spaced = phrase.chars().next().is_some_and(is_spaced_letter);
    text.match_indices(phrase)
        .filter(|(at, _)| {
            !spaced
                || text[..*at]
                    .chars()
                    .next_back()
                    .is_none_or(|c| !c.is_alphabetic())
        })
        .map(|(at, _)| at + phrase.len())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_ratio_question_answered_after_a_subtraction_is_sent_back_once() {
        let mut ratio =
            RatioAsked::of("How many times taller is Mount Everest than the Eiffel Tower?");
        assert!(!ratio.sends_back(), "nothing computed");
        ratio.computed(&json!({"expression": "8849 − 330 = 8519"}));
        assert!(ratio.sends_back());
        assert!(!ratio.sends_back(), "once per run");
        // A division, before or after, makes the ratio.
        let mut divided = RatioAsked::of("Combien de fois la tour est-elle plus haute ?");
        divided.computed(&json!({"expression": "8849 / 330"}));
        divided.computed(&json!({"expression": "26.8 - 1"}));
        assert!(!divided.sends_back());
        // A sum is no ratio either (the 0.5B model added the lengths).
        let mut added = RatioAsked::of("How many times longer is the Great Wall than the Amazon?");
        added.computed(&json!({"expression": "21196 + 6400"}));
        assert!(added.sends_back());
        // No ratio asked: a difference stands.
        let mut difference = RatioAsked::of("How much taller is Mount Everest?");
        difference.computed(&json!({"expression": "8849 - 330"}));
        assert!(!difference.sends_back());
    }

    #[test]
    fn counting_how_often_or_a_stated_ratio_is_no_ratio_asked() {
        for question in [
            "How many times did the service restart last week?",
            "How many times was latency higher than 200 ms?",
            "Combien de fois le serveur a-t-il redémarré ?",
            "It was sometimes larger; what is the total?",
            "How much taller is the tower?",
            "A has 3 times as many apples as B, who has 5. How many more does A have?",
            "Es ist 3 mal so hoch. Wie viel höher ist es?",
        ] {
            assert!(!RatioAsked::of(question).asked, "{question}");
        }
        for question in [
            "How many times taller is Mount Everest than the Eiffel Tower?",
            "¿Cuántas veces es más alto el Everest que la torre?",
            "Combien de fois la tour est-elle plus haute que la maison ?",
            "Wie viel mal höher ist der Berg?",
            "Во сколько раз Эверест выше башни?",
            "エベレストはタワーの何倍の高さですか？",
        ] {
            assert!(RatioAsked::of(question).asked, "{question}");
        }
    }

    #[test]
    fn only_a_minus_between_numbers_subtracts() {
        for text in ["8849 - 330", "8849-330", "(2 + 3)-1", "10 - (2)", "5 -2"] {
            assert!(subtracts(text), "{text}");
        }
        for text in ["-5 * 2", "3 * -2", "sqrt(2) - 1"] {
            assert!(!subtracts(text), "{text}");
        }
    }
}
