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

use super::fed_back::string_values;

/// Words by which a question asks how many times one thing is another
/// (lower case).
const RATIO_PHRASES: &[&str] = &[
    "how many times",
    "times taller",
    "times larger",
    "times bigger",
    "times higher",
    "times longer",
    "times heavier",
    "times as ",
    "wie viel mal",
    "wievielmal",
    "wie oft passt",
    "combien de fois",
    "cuántas veces",
    "cuantas veces",
    "quante volte",
    "quantas vezes",
    "hoeveel keer",
    "во сколько раз",
    "何倍",
    "几倍",
    "多少倍",
];

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
        Self {
            asked: RATIO_PHRASES.iter().any(|p| lower.contains(p)),
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
            } else if subtracts(text) {
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

/// Whether `text` takes one number from another: a `-` after a digit,
/// a closing bracket or a space, before a digit, a bracket or a space
/// (not the sign of `-5`, nor a date's or a name's hyphen).
fn subtracts(text: &str) -> bool {
    let chars: Vec<char> = text.chars().collect();
    chars.iter().enumerate().any(|(i, &c)| {
        c == '-'
            && i > 0
            && (chars[i - 1].is_ascii_digit() || chars[i - 1] == ')' || chars[i - 1] == ' ')
            && chars
                .get(i + 1)
                .is_some_and(|n| n.is_ascii_digit() || *n == '(' || *n == ' ')
            && (chars[i - 1] == ' ') == chars.get(i + 1).is_some_and(|n| *n == ' ')
    })
}

/// The observation of an answer sent back because the question asks how
/// many times one thing is another and only a difference was computed.
pub(super) fn ratio_reason(computing: &[String]) -> String {
    let tool = computing.first().map_or("the calculator", String::as_str);
    format!(
        "the question asks how many times one is the other, and only a difference has been computed: \
         that is a division. Call {tool} now with the one divided by the other"
    )
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
    fn only_a_minus_between_numbers_subtracts() {
        for text in ["8849 - 330", "8849-330", "(2 + 3)-1", "10 - (2)"] {
            assert!(subtracts(text), "{text}");
        }
        for text in ["-5 * 2", "x-ray", "3 * -2", "5 -2"] {
            assert!(!subtracts(text), "{text}");
        }
    }
}
