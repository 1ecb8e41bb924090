//! A computing call sent back because a number in it is a known one with
//! a zero dropped or added (`1400000` where the results say `14,000,000`),
//! and made again unchanged: it runs with the number the results hold in
//! place of the slip, and its observation says so. The message that sent
//! it back named the exact number to send; a small model that makes the
//! same call again has not read it (the 0.5B model summed four
//! populations with `1400000` twice), and the slip run as written makes
//! every later step wrong. Any other number sent back and made again
//! still runs as written: the model may know what the results do not.
//!
//! A number copied with a dot between thousands (`3.500` from a German
//! or Italian text, see `Grounding::thousands_dots_in`) runs as a plain
//! one the same way, at once: a calculator reads three and a half.

use serde_json::{Number, Value};

use super::grounding::{magnitude, same};
use super::head_work::whole_number_at;
use super::reasons::{in_place_of, plain_number};
use crate::equation::computed_side;

/// `arguments` with each number `written` (as the call wrote it, in a
/// text argument or as a JSON number) replaced by its known form, written
/// as a calculator reads it; `None` when there are no slips, or unless
/// every one was found.
pub(super) fn corrected_arguments(arguments: &Value, slips: &[(String, String)]) -> Option<Value> {
    if slips.is_empty() {
        return None;
    }
    let mut corrected = arguments.clone();
    for (written, known) in slips {
        let plain = plain_number(known);
        if !replace_number(&mut corrected, written, &plain) {
            return None;
        }
    }
    Some(corrected)
}

/// `arguments` with the `slips` corrected (see [`corrected_arguments`])
/// and each number written with a dot between thousands (`dots`: `3.500`
/// and its plain `3500`) written plainly in the text values only (a
/// JSON number `3.5` is no such number); `None` when there is nothing to
/// correct, or unless every one was found.
pub(super) fn corrected_with_thousands(
    arguments: &Value,
    slips: &[(String, String)],
    dots: &[(String, String)],
) -> Option<Value> {
    let mut corrected = if slips.is_empty() {
        if dots.is_empty() {
            return None;
        }
        arguments.clone()
    } else {
        corrected_arguments(arguments, slips)?
    };
    for (written, plain) in dots {
        if !replace_in_texts(&mut corrected, written, plain) {
            return None;
        }
    }
    Some(corrected)
}

/// Replaces every whole `written` in the text values of `value` with
/// `plain`; whether any was.
fn replace_in_texts(value: &mut Value, written: &str, plain: &str) -> bool {
    match value {
        Value::String(_) => replace_number(value, written, plain),
        Value::Array(items) => items.iter_mut().fold(false, |any, item| {
            replace_in_texts(item, written, plain) | any
        }),
        Value::Object(map) => map.values_mut().fold(false, |any, item| {
            replace_in_texts(item, written, plain) | any
        }),
        _ => false,
    }
}

/// The one text argument of `arguments` (the calculator's expression)
/// that holds the slips, corrected and without a result the model
/// claimed for it (`= <result>`): the call the message that sends the
/// call back shows, for a small model to copy. `None` unless the slips
/// are all in that one text.
pub(super) fn corrected_text(arguments: &Value, slips: &[(String, String)]) -> Option<String> {
    let corrected = corrected_arguments(arguments, slips)?;
    let text = match (arguments, corrected) {
        (Value::String(_), Value::String(text)) => text,
        (Value::Object(before), Value::Object(after)) => {
            let mut changed = after
                .into_iter()
                .filter(|(key, value)| before.get(key) != Some(value));
            match (changed.next(), changed.next()) {
                (Some((_, Value::String(text))), None) => text,
                _ => return None,
            }
        }
        _ => return None,
    };
    Some(match computed_side(&text) {
        Some(side) if !text.contains('\n') => side.trim().to_string(),
        _ => text,
    })
}

/// The note an observation of a corrected call ends with: the `slips` it
/// ran with the known numbers in place of, and the numbers written with
/// a dot between thousands (`dots`, as `3.500`) it ran with as plain ones.
pub(super) fn correction_note(slips: &[(String, String)], dots: &[(String, String)]) -> String {
    let mut note = String::new();
    if !slips.is_empty() {
        let each: Vec<String> = slips
            .iter()
            .map(|(written, known)| in_place_of(written, known))
            .collect();
        let known: Vec<&str> = slips.iter().map(|(_, known)| known.as_str()).collect();
        let numbers = if slips.len() == 1 {
            "the number"
        } else {
            "the numbers"
        };
        note.push_str(&format!(
            "\n(Note: this call ran with {}, {numbers} written above as {}.)",
            each.join(" and "),
            known.join(" and ")
        ));
    }
    if !dots.is_empty() {
        let each: Vec<String> = dots
            .iter()
            .map(|(written, plain)| in_place_of(written, plain))
            .collect();
        note.push_str(&format!(
            "\n(Note: this call ran with {}: the text it comes from writes thousands with a dot.)",
            each.join(" and ")
        ));
    }
    note
}

/// Replaces every whole `written` in the text values of `value`, and
/// every JSON number of the same value, with `plain`; whether any was.
fn replace_number(value: &mut Value, written: &str, plain: &str) -> bool {
    match value {
        Value::String(text) => {
            let mut replaced = false;
            let mut from = 0;
            while let Some(at) = text
                .get(from..)
                .and_then(|rest| whole_number_at(rest, written))
            {
                let at = from + at;
                text.replace_range(at..at + written.len(), plain);
                from = at + plain.len();
                replaced = true;
            }
            replaced
        }
        Value::Number(number) => {
            // A slip is read without its sign (see `magnitude`); the
            // number keeps its own.
            let Some(value) = number
                .as_f64()
                .filter(|v| same(v.abs(), magnitude(written)))
            else {
                return false;
            };
            let negative = value < 0.0;
            let with = match plain.parse::<u64>() {
                Ok(whole) if !negative => Some(Number::from(whole)),
                Ok(whole) => i64::try_from(whole).ok().map(|w| Number::from(-w)),
                Err(_) => plain
                    .parse::<f64>()
                    .ok()
                    .and_then(|v| Number::from_f64(if negative { -v } else { v })),
            };
            match with {
                Some(with) => {
                    *number = with;
                    true
                }
                None => false,
            }
        }
        Value::Array(items) => items.iter_mut().fold(false, |any, item| {
            replace_number(item, written, plain) | any
        }),
        Value::Object(map) => map.values_mut().fold(false, |any, item| {
            replace_number(item, written, plain) | any
        }),
        Value::Bool(_) | Value::Null => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn slip() -> Vec<(String, String)> {
        vec![("1400000".to_string(), "14,000,000".to_string())]
    }

    #[test]
    fn a_thousands_dot_is_written_plainly_in_texts_only() {
        let dots = vec![("3.500".to_string(), "3500".to_string())];
        let arguments = json!({ "expression": "3.500 * 2 + 13.500", "rate": 3.5 });
        assert_eq!(
            corrected_with_thousands(&arguments, &[], &dots),
            Some(json!({ "expression": "3500 * 2 + 13.500", "rate": 3.5 }))
        );
        assert_eq!(corrected_with_thousands(&arguments, &[], &[]), None);
        // A number written only as JSON is not found: nothing is corrected.
        assert_eq!(
            corrected_with_thousands(&json!({ "a": 3.5 }), &[], &dots),
            None
        );
    }

    #[test]
    fn a_slipped_number_is_replaced_in_an_expression_wherever_it_stands_whole() {
        let arguments = json!({ "expression": "(3800000 + 1400000 + 2100000) / 3 + 1400000" });
        assert_eq!(
            corrected_arguments(&arguments, &slip()),
            Some(json!({ "expression": "(3800000 + 14000000 + 2100000) / 3 + 14000000" }))
        );
        // Inside a longer number it is no slip.
        let longer = json!({ "expression": "21400000 + 5" });
        assert_eq!(corrected_arguments(&longer, &slip()), None);
        assert_eq!(corrected_arguments(&arguments, &[]), None);
    }

    #[test]
    fn a_slipped_json_number_is_replaced_and_keeps_its_sign() {
        let arguments = json!({ "terms": [3800000, 1400000, -1400000], "round": 2 });
        assert_eq!(
            corrected_arguments(&arguments, &slip()),
            Some(json!({ "terms": [3800000, 14000000, -14000000], "round": 2 }))
        );
    }

    #[test]
    fn the_corrected_text_is_shown_only_when_one_text_holds_every_slip() {
        let one = json!({ "expression": "1400000 / 2", "precision": 2 });
        assert_eq!(
            corrected_text(&one, &slip()).as_deref(),
            Some("14000000 / 2")
        );
        let bare = json!("1400000 + 1");
        assert_eq!(
            corrected_text(&bare, &slip()).as_deref(),
            Some("14000000 + 1")
        );
        let two = json!({ "a": "1400000", "b": "1400000 + 1" });
        assert_eq!(corrected_text(&two, &slip()), None);
        let number = json!({ "a": 1400000, "b": 2 });
        assert_eq!(corrected_text(&number, &slip()), None);
        // A result the model claimed is no part of the call to copy.
        let claimed = json!({ "expression": "1400000 + 3800000 = 5200000" });
        assert_eq!(
            corrected_text(&claimed, &slip()).as_deref(),
            Some("14000000 + 3800000")
        );
    }

    #[test]
    fn the_note_names_each_number_run_and_what_the_results_say() {
        assert_eq!(
            correction_note(&slip(), &[]),
            "\n(Note: this call ran with 14000000 in place of 1400000, the number written above as 14,000,000.)"
        );
    }
}
