//! A computing call that uses a number the model worked out in its own
//! words (`3,800,000 + 14,000,000 = 17,800,000`, then `17800000 / 2`):
//! the arithmetic the turn wrote for each such number, and the call's
//! argument with that arithmetic in the number's place, for the message
//! that sends the call back. Small models add in their head and get sums
//! wrong; the tool gets the sum right when it is given the arithmetic.

use serde_json::Value;

use super::arithmetic::worked_out;
use super::grounding::magnitude;

/// The numbers of a call that the turn's text worked out, each with its
/// arithmetic.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct WorkedOut {
    /// Each number as the call writes it, with the arithmetic as a
    /// calculator reads it.
    pub(super) numbers: Vec<(String, String)>,
    /// The call's text argument with each number replaced by its
    /// arithmetic, when one text argument holds them all.
    pub(super) rewritten: Option<String>,
}

/// How the turn's `text` worked out every one of `missing` (numbers of
/// the call's `arguments` that no result gave); `None` unless it worked
/// out all of them.
pub(super) fn worked_out_in(
    text: &str,
    missing: &[String],
    arguments: &Value,
) -> Option<WorkedOut> {
    if missing.is_empty() {
        return None;
    }
    let numbers = missing
        .iter()
        .map(|written| {
            let value = magnitude(written);
            if !value.is_finite() {
                return None;
            }
            worked_out(text, value).map(|arithmetic| (written.clone(), arithmetic))
        })
        .collect::<Option<Vec<_>>>()?;
    let rewritten = rewritten_argument(arguments, &numbers);
    Some(WorkedOut { numbers, rewritten })
}

/// The first text argument that holds each number whole, with each
/// replaced by its arithmetic (in parentheses unless it is the whole
/// argument).
fn rewritten_argument(arguments: &Value, numbers: &[(String, String)]) -> Option<String> {
    let texts: Vec<&str> = match arguments {
        Value::String(text) => vec![text.as_str()],
        Value::Object(map) => map.values().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    texts.into_iter().find_map(|text| {
        let mut out = text.to_string();
        for (written, arithmetic) in numbers {
            let at = whole_number_at(&out, written)?;
            let replacement = if out.trim() == written {
                arithmetic.clone()
            } else {
                format!("({arithmetic})")
            };
            out.replace_range(at..at + written.len(), &replacement);
        }
        Some(out)
    })
}

/// Where `written` stands in `text` as a whole number: not a part of a
/// longer number.
pub(super) fn whole_number_at(text: &str, written: &str) -> Option<usize> {
    text.match_indices(written).map(|(at, _)| at).find(|&at| {
        let before = text[..at].chars().next_back();
        let mut after = text[at + written.len()..].chars();
        let next = after.next();
        let continues = |c: Option<char>| c.is_some_and(|c| c.is_ascii_digit());
        // A `,` before three digits makes them a thousands group.
        let grouped = before == Some(',') && written.len() == 3;
        let inside_before = continues(before) || before == Some('.') || grouped;
        let inside_after =
            continues(next) || (matches!(next, Some('.' | ',')) && continues(after.next()));
        !inside_before && !inside_after
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_sum_worked_out_in_words_goes_back_into_the_call() {
        let text = "Thought: The sum is 3,800,000 + 14,000,000 + 2,100,000 = 78,650,000.\nAction: calculator";
        let found = worked_out_in(
            text,
            &["78650000".to_string()],
            &json!({"expression": "78650000 / 3"}),
        );
        assert_eq!(
            found,
            Some(WorkedOut {
                numbers: vec![(
                    "78650000".to_string(),
                    "3800000 + 14000000 + 2100000".to_string()
                )],
                rewritten: Some("(3800000 + 14000000 + 2100000) / 3".to_string()),
            })
        );
    }

    #[test]
    fn the_whole_argument_is_replaced_without_parentheses() {
        let found = worked_out_in(
            "so 12 × 7 = 84",
            &["84".to_string()],
            &json!({"expression": "84"}),
        );
        assert_eq!(found.and_then(|w| w.rewritten), Some("12 * 7".to_string()));
    }

    #[test]
    fn every_number_must_be_worked_out_in_the_text() {
        let text = "3 + 4 = 7";
        let missing = ["7".to_string(), "19".to_string()];
        assert_eq!(
            worked_out_in(text, &missing, &json!({"expression": "7 * 19"})),
            None
        );
        assert_eq!(
            worked_out_in("no arithmetic here", &["7".to_string()], &json!("7 * 2")),
            None
        );
    }

    #[test]
    fn a_number_inside_a_longer_one_is_not_replaced() {
        let found = worked_out_in(
            "2 + 3 = 5",
            &["5".to_string()],
            &json!({"expression": "15 + 5.5 + 5"}),
        );
        assert_eq!(
            found.and_then(|w| w.rewritten),
            Some("15 + 5.5 + (2 + 3)".to_string())
        );
        let listed = worked_out_in("2 + 3 = 5", &["5".to_string()], &json!("max(1,5)"));
        assert_eq!(
            listed.and_then(|w| w.rewritten),
            Some("max(1,(2 + 3))".to_string())
        );
    }

    #[test]
    fn a_number_written_only_as_a_json_number_has_no_rewrite() {
        let found = worked_out_in("10 * 4 = 40", &["40".to_string()], &json!({"value": 40}));
        assert_eq!(
            found,
            Some(WorkedOut {
                numbers: vec![("40".to_string(), "10 * 4".to_string())],
                rewritten: None,
            })
        );
    }
}
