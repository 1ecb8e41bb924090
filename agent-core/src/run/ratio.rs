//! A question that asks how many times one thing is another, answered
//! with a difference. "How many times taller is Mount Everest than the
//! Eiffel Tower?": the 1.5B model planned "the height difference",
//! subtracted, and answered with the difference. When the question asks
//! for a ratio (in one of several languages) and the run's computing
//! calls have only subtracted, never divided, the answer is sent back
//! once and the next turn must compute
//! ([`Budget::compute_when_planned`](crate::Budget)).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::arithmetic::{calculator_form, subtracts};
use super::fed_back::string_values;
use crate::script::is_spaced_letter;

/// Words by which a question asks how many times one thing is another
/// whatever else it says (lower case).
const RATIO_PHRASES: &[&str] = &[
    "times taller",
    "times larger",
    "times bigger",
    "times higher",
    "times longer",
    "times heavier",
    "times more",
    "times as many",
    "times as much",
    "fois plus",
    "veces más",
    "veces mas",
    "volte più",
    "vezes mais",
    "keer zo",
    "mal so ",
    "mal größer",
    "mal höher",
    "wievielmal",
    "во сколько раз",
    "何倍",
    "几倍",
    "多少倍",
];

/// Words that ask "how many times", which may also count how often
/// something happened: a ratio only beside a word of comparison
/// ([`COMPARISON_WORDS`]).
const HOW_MANY_TIMES: &[&str] = &[
    "how many times",
    "wie viel mal",
    "wie viele male",
    "combien de fois",
    "cuántas veces",
    "cuantas veces",
    "quante volte",
    "quantas vezes",
    "hoeveel keer",
];

/// Words that compare one thing with another ("than"); those of other
/// languages (`que`, `di`) say too much else, and their ratio phrases
/// (`fois plus`, `veces más`) are read instead.
const COMPARISON_WORDS: &[&str] = &["than", "als"];

/// What the run knows of a ratio the question asks for.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(super) struct RatioAsked {
    /// The question asks how many times one thing is another.
    asked: bool,
    /// A computing call that gave a result subtracted.
    subtracted: bool,
    /// A computing call that gave a result divided.
    divided: bool,
    /// An answer was sent back for it (once per run).
    sent_back: bool,
}

impl RatioAsked {
    /// Reads `question` for a ratio.
    pub(super) fn of(question: &str) -> Self {
        let lower = question.to_lowercase();
        let compares = lower
            .split(|c: char| !c.is_alphabetic())
            .any(|word| COMPARISON_WORDS.contains(&word));
        let asked = RATIO_PHRASES.iter().any(|p| has_phrase(&lower, p))
            || (compares && HOW_MANY_TIMES.iter().any(|p| has_phrase(&lower, p)));
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
            if text.contains(['/', '÷']) {
                self.divided = true;
            } else if subtracts(&calculator_form(text)) {
                self.subtracted = true;
            }
        }
    }

    /// Whether an answer now is sent back: the question asks for a ratio,
    /// a call subtracted and none divided, and none was sent back before.
    pub(super) fn sends_back(&mut self) -> bool {
        let send = self.asked && self.subtracted && !self.divided && !self.sent_back;
        self.sent_back |= send;
        send
    }
}

/// Whether `phrase` starts a word of `text` (`sometimes as` holds no
/// `times as`); in a script written without spaces, wherever it is.
fn has_phrase(text: &str, phrase: &str) -> bool {
    let spaced = phrase.chars().next().is_some_and(is_spaced_letter);
    text.match_indices(phrase).any(|(at, _)| {
        !spaced
            || text[..at]
                .chars()
                .next_back()
                .is_none_or(|c| !c.is_alphabetic())
    })
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
        ratio.computed(&json!({"expression": "8849 - 330"}));
        assert!(ratio.sends_back());
        assert!(!ratio.sends_back(), "once per run");
        // A division, before or after, makes the ratio.
        let mut divided = RatioAsked::of("Combien de fois la tour est-elle plus haute ?");
        divided.computed(&json!({"expression": "8849 / 330"}));
        divided.computed(&json!({"expression": "26.8 - 1"}));
        assert!(!divided.sends_back());
        // No ratio asked: a difference stands.
        let mut difference = RatioAsked::of("How much taller is Mount Everest?");
        difference.computed(&json!({"expression": "8849 - 330"}));
        assert!(!difference.sends_back());
    }

    #[test]
    fn counting_how_often_or_a_stated_ratio_is_no_ratio_asked() {
        for question in [
            "How many times did the service restart last week?",
            "Combien de fois le serveur a-t-il redémarré ?",
            "It was sometimes larger; what is the total?",
            "How much taller is the tower?",
        ] {
            assert!(!RatioAsked::of(question).asked, "{question}");
        }
        for question in [
            "How many times taller is Mount Everest than the Eiffel Tower?",
            "¿Cuántas veces más alto es el Everest que la torre?",
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
