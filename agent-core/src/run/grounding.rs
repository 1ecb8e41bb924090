//! Grounded numbers ([`Budget::ground_numbers`](crate::Budget)): a call
//! to a tool that computes on the numbers it is given (the calculator,
//! whose tool says so) is not run the first time its arguments hold a
//! number that appears nowhere in the conversation (the system prompt,
//! the task, earlier turns of a chat, tool results). Its observation
//! names the numbers and says to look them up, or to make the same call
//! again when the model is sure of them; the same call again runs.
//!
//! Small models otherwise compute with facts they made up (a city's
//! population, a year) and answer with a confident wrong number. The
//! model's own turns never ground a number: a made-up value written in a
//! thought is still made up.
//!
//! A number is compared by its significant digits, so `3.8 million`
//! grounds `3800000`, `18%` grounds `0.18`, and `2,450` grounds `2450`;
//! a rounded copy of a longer result (`7.07` of `7.0710678`) is grounded
//! too. Its scale must fit: the same digits ten times larger or smaller
//! (`12400000` for `124,000,000`, `12500` for `1250`) are a dropped or an
//! added zero, not a unit change, and do not count. Numbers under a
//! hundred with one or two significant digits (`4`, `12`, `0.5`), powers
//! of ten and a few calendar and unit constants are
//! taken as known, except in an answer given before any tool returned a
//! result: there only the system prompt's and the task's numbers are.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::arithmetic::{FalseClaim, false_claims};
use crate::message::{Message, Role};

/// Constants a model may use without finding them in the conversation,
/// by significant digits: days in a year, seconds in an hour and a day,
/// minutes in a day, hours in a week, bytes in a kibibyte.
const KNOWN_CONSTANTS: &[&str] = &["365", "366", "36", "864", "144", "168", "1024"];

/// What a run has learned of the numbers in its conversation.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(super) struct Grounding {
    /// The significant digits of every number in what the model was given.
    known: BTreeSet<String>,
    /// The powers of ten at which each of `known` was written, with the
    /// number as first written there: `124` at 8 is `124,000,000`. Digits
    /// without an entry (a run saved before scales were kept) match at
    /// any scale.
    #[serde(default)]
    scales: BTreeMap<String, BTreeMap<i32, String>>,
    /// Calls (canonical keys) already sent back once for their numbers.
    warned: BTreeSet<String>,
    /// An answer was already sent back once for its numbers.
    #[serde(default)]
    answer_warned: bool,
    /// Arithmetic claims (`expression = result`) already sent back once.
    #[serde(default)]
    claims_warned: BTreeSet<String>,
}

impl Grounding {
    /// Learns the numbers of a text the model was given: the system
    /// prompt, the task, an earlier user turn, a successful tool result.
    /// Never the model's own turns, nor the loop's error observations (a
    /// call sent back for `1930` must not make `1930` known).
    pub(super) fn learn(&mut self, text: &str) {
        for (written, digits, scale) in numbers_in(text) {
            if let Some(scale) = scale {
                self.scales
                    .entry(digits.clone())
                    .or_default()
                    .entry(scale)
                    .or_insert(written);
            }
            self.known.insert(digits);
        }
    }

    /// Learns the numbers of the messages a run opens with, but the
    /// model's own.
    pub(super) fn learn_messages(&mut self, messages: &[Message]) {
        for message in messages.iter().filter(|m| m.role != Role::Assistant) {
            self.learn(&message.content);
        }
    }

    /// Learns the numbers of an earlier conversation, the model's answers
    /// included: the user has read them and may build on them ("twice
    /// that?").
    pub(super) fn learn_history(&mut self, messages: &[Message]) {
        for message in messages {
            self.learn(&message.content);
        }
    }

    /// The numbers of `arguments` the conversation does not hold, as the
    /// model wrote them, when the call `key` was not sent back before;
    /// empty when it may run.
    pub(super) fn check(&mut self, key: &str, arguments: &Value) -> Vec<String> {
        if self.warned.contains(key) {
            return Vec::new();
        }
        let mut missing = Vec::new();
        collect_ungrounded(arguments, self, Rule::Everyday, &mut missing);
        missing.dedup();
        if !missing.is_empty() {
            self.warned.insert(key.to_string());
        }
        missing
    }

    /// The numbers of a final answer the conversation does not hold, the
    /// first time only: a second answer stands. Before any tool gave a
    /// result (`before_results`), small numbers and constants are not
    /// taken as known: the model has looked nothing up, and a small model
    /// that answers at once makes up `24` as readily as `46.7 million`.
    pub(super) fn check_answer(&mut self, answer: &str, before_results: bool) -> Vec<String> {
        if self.answer_warned {
            return Vec::new();
        }
        let rule = if before_results {
            Rule::Strict
        } else {
            Rule::Everyday
        };
        let missing = self.ungrounded_by(answer, rule);
        if !missing.is_empty() {
            self.answer_warned = true;
        }
        missing
    }

    /// The first arithmetic claim of `text` that is false and was not sent
    /// back before; it will not be again.
    pub(super) fn check_claims(&mut self, text: &str) -> Option<FalseClaim> {
        let claim = false_claims(text)
            .into_iter()
            .find(|c| !self.claims_warned.contains(&c.key()))?;
        self.claims_warned.insert(claim.key());
        Some(claim)
    }

    /// The numbers of `text` the conversation does not hold.
    pub(super) fn ungrounded_in(&self, text: &str) -> Vec<String> {
        self.ungrounded_by(text, Rule::Everyday)
    }

    /// The numbers of `text` that are not known under `rule`.
    fn ungrounded_by(&self, text: &str, rule: Rule) -> Vec<String> {
        let mut missing = Vec::new();
        collect_ungrounded(&Value::String(text.to_string()), self, rule, &mut missing);
        missing
    }

    /// Whether `digits` are known at a scale that fits `scale`: the same,
    /// or a unit change (a percentage, thousands, millions), not a factor
    /// of ten, which is a zero dropped or added.
    fn fits_scale(&self, digits: &str, scale: Option<i32>) -> bool {
        let (Some(scale), Some(seen)) = (scale, self.scales.get(digits)) else {
            return true;
        };
        seen.is_empty() || seen.keys().any(|known| (scale - known).abs() != 1)
    }

    /// The known number that `written` copies with a zero dropped or
    /// added (`124,000,000` for `12400000`), as the conversation wrote it.
    pub(super) fn miscopied(&self, written: &str) -> Option<&str> {
        let scale = scale_of(written)?;
        let digits = significant_digits(written)?;
        self.scales
            .get(&digits)?
            .iter()
            .find(|(known, _)| (scale - *known).abs() == 1)
            .map(|(_, as_written)| as_written.as_str())
    }

    /// Whether `digits`, written at `scale`, are known in that scale.
    fn knows(&self, digits: &str, scale: Option<i32>) -> bool {
        self.known.contains(digits) && self.fits_scale(digits, scale)
    }
}

/// Why an answer is sent back for its numbers; `compute_with` names the
/// tools that compute, if the run has any; `before_results` says no tool
/// has given a result yet.
pub(super) fn ungrounded_answer_reason(
    numbers: &[String],
    compute_with: &[String],
    before_results: bool,
) -> String {
    let shown: Vec<&str> = numbers.iter().take(4).map(String::as_str).collect();
    let verb = if shown.len() == 1 { "is" } else { "are" };
    let how = match (compute_with, before_results) {
        ([], _) => "Look it up with the tools first".to_string(),
        (tools, true) => format!(
            "No tool has been used yet: work it out with {}, or look it up, first",
            tools.join(" or ")
        ),
        (tools, false) => format!(
            "Work it out with {} from the numbers in the tool results, or look it up",
            tools.join(" or ")
        ),
    };
    format!("{} {verb} in no tool result. {how}", shown.join(", "))
}

/// Why an answer built on false arithmetic is sent back; `compute_with`
/// names the tools that compute.
pub(super) fn false_claim_reason(claim: &FalseClaim, compute_with: &[String]) -> String {
    let names: Vec<&str> = compute_with.iter().map(String::as_str).collect();
    format!(
        "{} is not {}. Compute it with {}, then give the final answer",
        claim.expression,
        claim.claimed,
        either(&names)
    )
}

/// Why an answer on a forced answer turn, when no tool can be called, is
/// asked again.
pub(super) fn ungrounded_answer_turn_reason(numbers: &[String]) -> String {
    let shown: Vec<&str> = numbers.iter().take(4).map(String::as_str).collect();
    let verb = if shown.len() == 1 { "is" } else { "are" };
    format!(
        "the answer has {} which {verb} in no tool result; answer only with what the results show, or say that they do not show it",
        shown.join(", ")
    )
}

/// Why an answer on a forced answer turn gets a compute round: it has
/// numbers no tool gave, and `compute_with` names the tools that compute.
pub(super) fn answer_compute_reason(numbers: &[String], compute_with: &[String]) -> String {
    let shown: Vec<&str> = numbers.iter().take(4).map(String::as_str).collect();
    let verb = if shown.len() == 1 { "is" } else { "are" };
    let names: Vec<&str> = compute_with.iter().map(String::as_str).collect();
    format!(
        "the answer has {} which {verb} in no tool result. If it is worked out from the results, compute it with {} now; if not, answer only with what the results show",
        shown.join(", "),
        either(&names)
    )
}

/// The observation of a call sent back for its numbers; `find_with`
/// names the run's tools that can find them, `miscopied` pairs a number
/// with the one the conversation has with a zero more or less.
pub(super) fn ungrounded_reason(
    numbers: &[String],
    find_with: &[&str],
    miscopied: &[(String, String)],
) -> String {
    let shown: Vec<&str> = numbers.iter().take(4).map(String::as_str).collect();
    if !miscopied.is_empty() && miscopied.len() == numbers.len() {
        return miscopy_reason(miscopied);
    }
    let (list, verb, them, they) = if shown.len() == 1 {
        (shown[0].to_string(), "is", "it", "it is")
    } else {
        (shown.join(", "), "are", "them", "they are")
    };
    let find = match find_with {
        [] => format!("Take {them} from the question"),
        tools => format!(
            "Look up the facts the question needs with {} first, in words",
            either(tools)
        ),
    };
    format!(
        "{list} {verb} not in the question or in any tool result. {find}; if you are sure {they} right, make this same call again"
    )
}

/// Names as alternatives: `a`, `a or b`, `a, b or c`.
pub(super) fn either(names: &[&str]) -> String {
    match names {
        [] => String::new(),
        [one] => (*one).to_string(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
    }
}

/// The observation of a call whose every unknown number is a known one
/// with a zero dropped or added: it names each and the number to send.
fn miscopy_reason(miscopied: &[(String, String)]) -> String {
    let mut wrong = Vec::new();
    let mut right = Vec::new();
    for (written, known) in miscopied.iter().take(4) {
        let smaller = scale_of(written) < scale_of(known);
        let integers = !written.contains('.') && !known.contains('.');
        let how = match (integers, smaller) {
            (true, true) => "has one zero too few",
            (true, false) => "has one zero too many",
            (false, true) => "is ten times too small",
            (false, false) => "is ten times too large",
        };
        wrong.push(format!("{written} {how}: the results say {known}"));
        right.push(format!("{} in place of {written}", plain_number(known)));
    }
    format!(
        "{}. Make the call again with {}",
        wrong.join("; "),
        right.join(", and ")
    )
}

/// A number as a calculator reads it: no thousands separators, and a
/// scale word multiplied out (`3.8 million` is `3800000`).
fn plain_number(written: &str) -> String {
    let value = magnitude(written);
    if value.is_finite() && value.fract() == 0.0 && value < 1e15 {
        format!("{value:.0}")
    } else {
        written
            .chars()
            .filter(|c| c.is_ascii_digit() || *c == '.')
            .collect()
    }
}

/// Which numbers count as known without being in the conversation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Rule {
    /// Small numbers, powers of ten and a few constants are known.
    Everyday,
    /// Only the conversation's numbers (and rounded copies of them).
    Strict,
}

fn collect_ungrounded(value: &Value, known: &Grounding, rule: Rule, out: &mut Vec<String>) {
    match value {
        Value::String(text) => {
            for (written, digits) in numbers_with_text(text) {
                if !is_grounded(&written, &digits, known, rule)
                    && !list_grounded(&written, known, rule)
                    && !out.contains(&written)
                {
                    out.push(written);
                }
            }
        }
        Value::Number(n) => {
            let written = n.to_string();
            if let Some(digits) = significant_digits(&written)
                && !is_grounded(&written, &digits, known, rule)
                && !out.contains(&written)
            {
                out.push(written);
            }
        }
        Value::Array(items) => items
            .iter()
            .for_each(|v| collect_ungrounded(v, known, rule, out)),
        Value::Object(map) => map
            .values()
            .for_each(|v| collect_ungrounded(v, known, rule, out)),
        Value::Bool(_) | Value::Null => {}
    }
}

fn is_grounded(written: &str, digits: &str, known: &Grounding, rule: Rule) -> bool {
    let scale = scale_of(written);
    if known.knows(digits, scale) {
        return true;
    }
    if rule == Rule::Everyday && KNOWN_CONSTANTS.contains(&digits) {
        return true;
    }
    // Small numbers (`4`, `12`, `60`, `0.5`) and powers of ten are
    // everyday arithmetic; a round number past a hundred (`300`,
    // `6,700,000`) is a fact, and small models make those up.
    if rule == Rule::Everyday && digits.len() <= 2 && (digits == "1" || magnitude(written) < 100.0)
    {
        return true;
    }
    if digits.len() <= 2 {
        return false;
    }
    // A rounded or cut copy of a longer number: all but its last digit
    // begin that number (the last may have been rounded up).
    // `digits` is ASCII (digits and a point); `get` keeps that a checked fact.
    let Some(stem) = digits.get(..digits.len() - 1) else {
        return false;
    };
    known
        .known
        .range(stem.to_string()..)
        .take_while(|k| k.starts_with(stem))
        .any(|k| k.len() > digits.len() && known.fits_scale(k, scale))
}

/// Whether `written`, read as a list of numbers between commas with no
/// space (`212,198,240`, as a small model writes a function's arguments),
/// holds only numbers the conversation has: thousands groups and a list
/// look alike. A part of zeros (`3,800,000`) is no list.
fn list_grounded(written: &str, known: &Grounding, rule: Rule) -> bool {
    if !written.contains(',') || written.contains(|c: char| !c.is_ascii_digit() && c != ',') {
        return false;
    }
    written.split(',').all(|part| {
        significant_digits(part).is_some_and(|digits| is_grounded(part, &digits, known, rule))
    })
}

/// Scale words after a number, lower case, with their factor: `47
/// million` is a large number even if its digits are few.
const SCALES: &[(&str, f64)] = &[
    ("thousand", 1e3),
    ("tausend", 1e3),
    ("mille", 1e3),
    ("mil", 1e3),
    ("million", 1e6),
    ("millones", 1e6),
    ("mio", 1e6),
    ("billion", 1e9),
    ("milliard", 1e9),
    ("trillion", 1e12),
    ("万", 1e4),
    ("亿", 1e8),
];

/// The scale word at the start of `rest` (after spaces), if any.
fn scale_after(rest: &[char]) -> f64 {
    let word: String = rest
        .iter()
        .skip_while(|c| c.is_whitespace())
        .take_while(|c| c.is_alphabetic())
        .collect::<String>()
        .to_lowercase();
    SCALES
        .iter()
        .filter(|(name, _)| word.starts_with(name))
        .map(|(_, factor)| *factor)
        .fold(1.0, f64::max)
}

/// The value of a number as written, ignoring its separators and with
/// its scale word (`47 million`); infinite when it cannot be read.
fn magnitude(written: &str) -> f64 {
    let chars: Vec<char> = written.chars().collect();
    let end = chars
        .iter()
        .position(|c| {
            !(c.is_ascii_digit() || matches!(c, '.' | ',' | '_' | ' ' | '\u{a0}' | '\u{202f}'))
        })
        .unwrap_or(chars.len());
    let plain: String = chars[..end]
        .iter()
        .filter(|c| c.is_ascii_digit() || **c == '.')
        .collect();
    plain
        .parse::<f64>()
        .map_or(f64::INFINITY, |v| v.abs() * scale_after(&chars[end..]))
}

/// The power of ten of a number as written (`2` for `124`, `8` for
/// `124 million`, `-1` for `0.18`); `None` for zero or what cannot be
/// read.
fn scale_of(written: &str) -> Option<i32> {
    let value = written
        .parse::<f64>()
        .map(f64::abs)
        .unwrap_or_else(|_| magnitude(written));
    (value.is_finite() && value > 0.0).then(|| value.log10().floor() as i32)
}

/// The significant digits of every number in `text`, with the power of
/// ten it was written at, and as written. A number written with separators counts whole
/// and in its parts too: in a row of a CSV file, `96,830` is two values.
/// A part of zeros makes it one number (`124,000,000` is no list).
fn numbers_in(text: &str) -> impl Iterator<Item = (String, String, Option<i32>)> + '_ {
    numbers_with_text(text)
        .into_iter()
        .flat_map(|(written, digits)| {
            let parts: Option<Vec<(String, String, Option<i32>)>> = if written
                .contains([',', ' ', '_', '\u{a0}', '\u{202f}'])
            {
                written
                    .split([',', ' ', '_', '\u{a0}', '\u{202f}'])
                    .filter(|part| !part.is_empty())
                    .map(|part| Some((part.to_string(), significant_digits(part)?, scale_of(part))))
                    .collect()
            } else {
                None
            };
            let scale = scale_of(&written);
            std::iter::once((written, digits, scale)).chain(parts.into_iter().flatten())
        })
}

/// Every number in `text`, as written and as significant digits. A
/// number is digits with an optional decimal part, with thousands
/// separators (`,`, or a space or `_` between groups of three) read as
/// part of it; digits inside a word (`E4127`, `utf8`) are not numbers,
/// and a unit after them (`512Mi`, `330m`) does not matter.
fn numbers_with_text(text: &str) -> Vec<(String, String)> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let starts = chars[i].is_ascii_digit()
            || (chars[i] == '.' && chars.get(i + 1).is_some_and(char::is_ascii_digit));
        if !starts {
            i += 1;
            continue;
        }
        if i > 0 && (chars[i - 1].is_alphabetic() || chars[i - 1] == '_') {
            // Digits inside a word: skip the rest of the word.
            while i < chars.len() && chars[i].is_ascii_alphanumeric() {
                i += 1;
            }
            continue;
        }
        let start = i;
        let mut seen_point = false;
        while i < chars.len() {
            let c = chars[i];
            if c.is_ascii_digit() {
                i += 1;
            } else if c == '.' && !seen_point && chars.get(i + 1).is_some_and(char::is_ascii_digit)
            {
                seen_point = true;
                i += 1;
            } else if matches!(c, ',' | ' ' | '_' | '\u{a0}' | '\u{202f}')
                && !seen_point
                && (1..=3).all(|k| chars.get(i + k).is_some_and(char::is_ascii_digit))
                && !chars.get(i + 4).is_some_and(char::is_ascii_digit)
            {
                i += 4;
            } else {
                break;
            }
        }
        let number: String = chars[start..i].iter().collect();
        let Some(digits) = significant_digits(&number) else {
            continue;
        };
        // A scale word after it belongs to what was written.
        let scale: String = if scale_after(&chars[i..]) > 1.0 {
            let word: String = chars[i..]
                .iter()
                .skip_while(|c| c.is_whitespace())
                .take_while(|c| c.is_alphabetic())
                .collect();
            let gap = if chars.get(i).is_some_and(|c| c.is_whitespace()) {
                " "
            } else {
                ""
            };
            format!("{gap}{word}")
        } else {
            String::new()
        };
        out.push((format!("{}{scale}", number.trim()), digits));
    }
    out
}

/// The significant digits of a number as written: no sign, separators,
/// point, leading or trailing zeros (`0.0180` → `18`, `3,800,000` →
/// `38`). `None` for zero.
fn significant_digits(written: &str) -> Option<String> {
    let mantissa = written.split(['e', 'E']).next().unwrap_or("");
    let mut digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    // A float's printing noise (`100.00000000000001`, `0.30000000000000004`)
    // is the round number it stands for: past 15 significant digits, the
    // value is read at 12.
    if digits.trim_start_matches('0').len() > 15 {
        let plain: String = mantissa
            .chars()
            .filter(|c| *c != ',' && *c != '_')
            .collect();
        if let Ok(value) = plain.trim().parse::<f64>() {
            digits = format!("{value:.11e}")
                .split('e')
                .next()
                .unwrap_or("")
                .chars()
                .filter(char::is_ascii_digit)
                .collect();
        }
    }
    let digits = digits.trim_start_matches('0').trim_end_matches('0');
    (!digits.is_empty()).then(|| digits.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn grounding(texts: &[&str]) -> Grounding {
        let mut g = Grounding::default();
        let messages: Vec<Message> = texts.iter().map(|t| Message::user(*t)).collect();
        g.learn_messages(&messages);
        g
    }

    #[test]
    fn numbers_are_read_with_their_separators_and_not_inside_words() {
        let found =
            |t: &str| -> Vec<String> { numbers_in(t).map(|(_, digits, _)| digits).collect() };
        assert_eq!(found("about 3,800,000 people (3.8 million)"), ["38", "38"]);
        assert_eq!(
            found("error E4127 in utf8 at 21 196 km"),
            ["21196", "21", "196"]
        );
        assert_eq!(found("memory: 512Mi, 2048Mi"), ["512", "2048"]);
        assert_eq!(found("0.0180 and .5 and 1_000"), ["18", "5", "1"]);
        assert_eq!(found("2024-06-03,212"), ["2024", "6", "3212", "3", "212"]);
        assert_eq!(found("tazas,96,830"), ["9683", "96", "83"]);
        assert_eq!(found("no digits here"), Vec::<String>::new());
    }

    #[test]
    fn made_up_numbers_are_found_and_copied_ones_are_not() {
        let mut g = grounding(&[
            "Question: What is the combined population of Paris and Berlin?",
            "Observation: Paris: about 2,100,000 people. Berlin: 3.8 million.",
        ]);
        let call = json!({"expression": "2100000 + 3800000"});
        assert!(g.check("a", &call).is_empty());
        let made_up = json!({"expression": "2140000 + 3667000 / 2"});
        assert_eq!(g.check("b", &made_up), ["2140000", "3667000"]);
        // Sent back once; the same call again runs.
        assert!(g.check("b", &made_up).is_empty());
    }

    #[test]
    fn a_list_written_without_spaces_is_grounded_by_its_numbers() {
        let mut g = grounding(&["Observation: 1| run,latency_ms\n2| 1,212\n3| 2,198\n4| 3,240"]);
        // Read as one number it is unknown; read as a list, every number is.
        let list = json!({"expression": "mean(212,198,240)"});
        assert!(g.check("a", &list).is_empty());
        // A list with a made-up number, and thousands groups, still count.
        let made_up = json!({"expression": "mean(212,198,251)"});
        assert_eq!(g.check("b", &made_up), ["212,198,251"]);
        let thousands = json!({"expression": "3,212,000 / 2"});
        assert_eq!(g.check("c", &thousands), ["3,212,000"]);
    }

    #[test]
    fn small_numbers_constants_and_rounded_copies_are_known() {
        let mut g = grounding(&["Question: what's 18% of 2450", "7.07106781187"]);
        for expression in [
            "0.18 * 2450",
            "18 / 100 * 2,450",
            "round(7.07, 2) * 365 / 24 / 3600",
            "7.0711 * 1000",
            "2 ** 10",
        ] {
            assert!(
                g.check(expression, &json!({"expression": expression}))
                    .is_empty(),
                "{expression}"
            );
        }
        assert_eq!(g.check("x", &json!({"n": 4271})), ["4271"]);
        // Float noise is the round number it stands for.
        assert!(
            g.check(
                "f",
                &json!({"expression": "18 * 2450 / 100.00000000000001"})
            )
            .is_empty()
        );
        // A large round number is a fact to look up.
        assert_eq!(
            g.check("y", &json!({"expression": "84000000 - 6700000"})),
            ["84000000", "6700000"]
        );
        assert!(
            g.check("z", &json!({"expression": "2450 * 1000000"}))
                .is_empty()
        );
    }

    #[test]
    fn the_same_digits_ten_times_larger_or_smaller_are_not_known() {
        let mut g = grounding(&[
            "Japan: about 124,000,000 people. Tokyo: 14,000,000 people.",
            "1| producto,unidades,importe\n2| café molido,50,1250\n3| tazas,96,830",
        ]);
        // A dropped zero and an added one.
        assert_eq!(
            g.check("a", &json!({"expression": "14000000 / 12400000 * 100"})),
            ["12400000"]
        );
        assert_eq!(g.check_answer("12500", false), ["12500"]);
        assert_eq!(g.miscopied("12400000"), Some("124,000,000"));
        assert_eq!(g.miscopied("12.5"), None);
        // Units change by thousands or hundreds: millions, percentages.
        for expression in ["14 / 124 * 100", "1.25 * 1000", "0.124e9 - 12.5 * 100"] {
            assert!(
                g.check(expression, &json!({"expression": expression}))
                    .is_empty(),
                "{expression}"
            );
        }
        assert!(g.check("n", &json!({"total": 1250})).is_empty());
        assert_eq!(
            g.check("m", &json!({"total": 125})),
            [json!(125).to_string()]
        );
    }

    #[test]
    fn a_scale_word_makes_a_number_large() {
        let mut g = grounding(&["Question: What is the population of Spain?"]);
        assert_eq!(
            g.check_answer(
                "The population of Spain is approximately 47 million.",
                false
            ),
            ["47 million"]
        );
        let mut g = grounding(&["Question: 東京の人口は?", "Tokyo: about 14,000,000 people."]);
        assert!(g.check_answer("約1400万人です", false).is_empty());
        let mut g = grounding(&["Question: How old?"]);
        assert!(g.check_answer("About 47 years.", false).is_empty());
    }

    #[test]
    fn before_any_result_small_numbers_and_constants_are_not_known() {
        let mut g = grounding(&["Question: Please compute 7 to the 9th power."]);
        assert_eq!(
            g.check_answer("The result is 24, about 1024.", true),
            ["24", "1024"]
        );
        // The question's own numbers stay known, and words without
        // numbers pass.
        let mut g = grounding(&["Question: Please compute 7 to the 9th power."]);
        assert!(g.check_answer("7 to the 9th power", true).is_empty());
        assert!(g.check_answer("Hello! How can I help?", true).is_empty());
        // After a result, the everyday rule is back.
        let mut g = grounding(&["Question: Please compute 7 to the 9th power."]);
        assert!(g.check_answer("The result is 24.", false).is_empty());
    }

    #[test]
    fn the_models_own_turns_do_not_ground_a_number() {
        let mut g = Grounding::default();
        g.learn_messages(&[
            Message::user("How many people live in Rome?"),
            Message::assistant("Thought: Rome has 2,873,000 people."),
        ]);
        assert_eq!(
            g.check("k", &json!({"expression": "2873000 * 2"})),
            ["2873000"]
        );
    }

    #[test]
    fn the_reason_names_the_numbers_and_where_to_find_them() {
        let one = ungrounded_reason(&["2021".into()], &["search"], &[]);
        assert_eq!(
            one,
            "2021 is not in the question or in any tool result. Look up the facts the question needs with search first, in words; if you are sure it is right, make this same call again"
        );
        let two = ungrounded_reason(&["2021".into(), "1930".into()], &["read_file", "grep"], &[]);
        assert!(two.starts_with("2021, 1930 are not"), "{two}");
        assert!(
            two.contains("with read_file or grep first, in words; if you are sure they are right"),
            "{two}"
        );
        let alone = ungrounded_reason(&["2021".into()], &[], &[]);
        assert!(alone.contains("Take it from the question"), "{alone}");
        let miscopied = ungrounded_reason(
            &["12400000".into()],
            &["search"],
            &[("12400000".into(), "124,000,000".into())],
        );
        assert_eq!(
            miscopied,
            "12400000 has one zero too few: the results say 124,000,000. Make the call again with 124000000 in place of 12400000"
        );
        let two = ungrounded_reason(
            &["1.25".into(), "140 million".into()],
            &["search"],
            &[
                ("1.25".into(), "12.5".into()),
                ("140 million".into(), "14 million".into()),
            ],
        );
        assert_eq!(
            two,
            "1.25 is ten times too small: the results say 12.5; 140 million has one zero too many: the results say 14 million. Make the call again with 12.5 in place of 1.25, and 14000000 in place of 140 million"
        );
    }
}
