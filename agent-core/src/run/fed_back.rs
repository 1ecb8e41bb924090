//! Computing calls that put the last result back into the computation
//! that gave it: `a * b` gave `r`, and the next call is `a * b * r`, or
//! `r + r + r + r`. A small model that does not know what to do next
//! climbs this way, each result feeding the next call, until the numbers
//! overflow and the step limit ends the run (measured on the 1.5B model:
//! eight multiplications to `1e168`, then `the result is too large`).
//! Its arguments all differ, so loop detection does not see it. So does
//! a model that applies the same step to each result in turn (`x * 1000`,
//! then `r * 1000`, then that result `* 1000`: the 1.5B model, asked how
//! far the Moon is, climbed from kilometres to `3.8e23` until the step
//! limit): the step taken again, twice, may be the next steps of a
//! computation (three years of interest, bytes to gibibytes), a fourth
//! time in a row it is such a climb, and the run's work ends there as on
//! a repeated call. Such a call is not run; the model is told what the
//! last call gave.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::grounding::{is_lone_number_text, magnitude, numbers_with_text, same};
use crate::message::ToolCall;
use crate::tool::Observation;

/// How often a call must hold the last result, and no other number, to
/// feed it back.
const SAME_RESULT_TIMES: usize = 4;

/// How many times in a row a step may be taken again on its own result
/// before the next time is a climb.
const CLIMB_AFTER: u32 = 2;

/// How a computing call puts the last result back (see
/// [`LastComputed::fed_back_by`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum FedBack {
    /// Into the computation that gave it.
    Into,
    /// By the same step again, a fourth time in a row: a loop.
    Climb,
}

/// The last successful call of a computing tool, when no other call
/// succeeded after it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(super) struct LastComputed {
    /// The call's arguments as the model wrote them (its expression).
    written: String,
    /// The numbers in its arguments.
    numbers: Vec<f64>,
    /// The result's leading number, as written.
    result: String,
    /// Its value.
    value: f64,
    /// How many times in a row this call took the step of the call
    /// before it again, on that call's result (see `steps_again`).
    #[serde(default)]
    iterations: u32,
    /// When it did: the call whose step it took again first, and that
    /// call's result (what the computation gave before the climb).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    climb_start: Option<ClimbStart>,
}

/// The first call of a run of calls that each take the same step on the
/// result before.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(super) struct ClimbStart {
    /// Its arguments as written (its expression).
    pub(super) written: String,
    /// Its result, as written.
    pub(super) result: String,
}

impl LastComputed {
    /// The record of a computing call that succeeded; `None` when its
    /// observation does not open with a number.
    pub(super) fn of(call: &ToolCall, observation: &Observation) -> Option<Self> {
        if observation.is_error() {
            return None;
        }
        let leading = observation.content.split_whitespace().next()?;
        let (result, _) = numbers_with_text(leading).into_iter().next()?;
        let value = value_of(&result)?;
        Some(Self {
            written: written_of(&call.arguments),
            numbers: numbers(&call.arguments),
            result,
            value,
            iterations: 0,
            climb_start: None,
        })
    }

    /// This record, as the call after `before`: counts the step taken
    /// again on `before`'s result.
    pub(super) fn after(mut self, before: Option<&LastComputed>) -> Self {
        (self.iterations, self.climb_start) = match before {
            Some(before) if before.steps_again(&self.written) => (
                before.iterations + 1,
                Some(before.climb_start.clone().unwrap_or_else(|| ClimbStart {
                    written: before.written.clone(),
                    result: before.result.clone(),
                })),
            ),
            _ => (0, None),
        };
        self
    }

    /// The call whose step this call and the ones before it took again,
    /// when this call did.
    pub(super) fn climb_start(&self) -> Option<&ClimbStart> {
        self.climb_start.as_ref()
    }

    /// Whether the call computed nothing: it wrote one number alone and
    /// gave that number back (`3600`, `(3600)`; not a conversion tool's
    /// `98.6`, which gives another).
    pub(super) fn echoes_its_number(&self) -> bool {
        matches!(self.numbers.as_slice(), [only] if same(*only, self.value))
            && is_lone_number_text(&self.written)
    }

    /// The result, as written.
    pub(super) fn result(&self) -> &str {
        &self.result
    }

    /// The result's value (its size: the sign is not read).
    pub(super) fn value(&self) -> f64 {
        self.value
    }

    /// The call's arguments as written (its expression).
    pub(super) fn written(&self) -> &str {
        &self.written
    }

    /// How a call with `arguments` puts this result back into the
    /// computation that gave it, if it does: beside the result, it holds
    /// every number of the last call, or no other number and the result
    /// [`SAME_RESULT_TIMES`] times or more (`r * r` squares a side the
    /// last call worked out; `r + r + r + r + r` goes nowhere), or it
    /// takes this call's step on its result a fourth time in a row (a
    /// climb, which is a loop: the run's work ends there, as on a
    /// repeated call).
    pub(super) fn fed_back_by(&self, arguments: &Value) -> Option<FedBack> {
        let new = numbers(arguments);
        let is_result = |v: &f64| same(*v, self.value);
        if !new.iter().any(is_result) {
            return None;
        }
        if self.iterations >= CLIMB_AFTER && self.steps_again(&written_of(arguments)) {
            return Some(FedBack::Climb);
        }
        let holds_last_call = !self.numbers.is_empty()
            && self
                .numbers
                .iter()
                .all(|last| new.iter().any(|v| same(*v, *last)));
        let only_the_result = new.len() >= SAME_RESULT_TIMES && new.iter().all(is_result);
        (holds_last_call || only_the_result).then_some(FedBack::Into)
    }

    /// The steps this call ended with (`/ 36`, `/ 13600 * 100`), when a
    /// call with `arguments` takes them again on this call's result, as
    /// the result was shown or rounded (`410.89 / 36` after
    /// `18490 * 0.8 / 36` gave 410.888…; `24.5 / 13600 * 100` after
    /// `3332 / 13600 * 100` gave 24.5), and those steps divide by a
    /// number the question gives once. The 1.5B model, its monthly rate
    /// worked out, took it for the total and divided it by the months
    /// again; the 0.5B model took a growth in percent and divided it by
    /// the base and multiplied it by 100 again, and again. Steps that
    /// only multiply or add (a year of interest, `* (1 + 3/100)`; a
    /// yearly growth, `+ 150`), divide by a number the question writes
    /// twice or not at all (`/ 1024` a unit) are no such slip; a model
    /// that means the steps twice can write both in one expression.
    pub(super) fn step_taken_twice(&self, arguments: &Value, question: &str) -> Option<String> {
        let now = written_of(arguments);
        let compact = without_spaces(&now);
        let inner = without_outer_parens(&compact);
        let number_len = inner
            .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == ','))
            .unwrap_or(inner.len());
        let (first_text, tail) = inner.split_at(number_len);
        if first_text.is_empty() || !tail.starts_with(['+', '-', '*', '/', '×', '÷']) {
            return None;
        }
        let last = without_spaces(&self.written);
        let last = without_outer_parens(&last);
        if !last.ends_with(tail) || last.len() == tail.len() || !balanced(tail) {
            return None;
        }
        let first = value_of(first_text)?;
        let asked = values_in(question);
        let given_once = divisors(tail)
            .iter()
            .any(|v| asked.iter().filter(|a| same(**a, *v)).count() == 1);
        (given_once && shows_result(first_text, first, self.value)).then(|| {
            // The steps as the call writes them, after its first number.
            let written = now.trim().trim_start_matches('(').trim_start();
            let after =
                written.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.' || c == ',');
            let after = after.trim();
            let steps = match after.strip_suffix(')') {
                Some(inside) if now.trim().starts_with('(') => inside,
                _ => after,
            };
            steps.trim().to_string()
        })
    }

    /// Whether `written` (a call's arguments, see `written_of`) is this
    /// call again with one of its numbers replaced by its result: the
    /// same text around the numbers, and the numbers the same but one,
    /// which is the result.
    fn steps_again(&self, written: &str) -> bool {
        if shape(written) != shape(&self.written) {
            return false;
        }
        let before = values_in(&self.written);
        let now = values_in(written);
        if before.len() != now.len() {
            return false;
        }
        let mut changed = before.iter().zip(&now).filter(|(b, n)| !same(**b, **n));
        matches!((changed.next(), changed.next()), (Some((_, n)), None) if same(*n, self.value))
    }
}

/// The numbers that `tail` (an expression without spaces) divides by:
/// each number right after a `/` or `÷`.
fn divisors(tail: &str) -> Vec<f64> {
    tail.match_indices(['/', '÷'])
        .filter_map(|(at, mark)| {
            let after = &tail[at + mark.len()..];
            let end = after
                .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == ','))
                .unwrap_or(after.len());
            value_of(&after[..end]).filter(|_| end > 0)
        })
        .collect()
}

/// `text` without its whitespace.
fn without_spaces(text: &str) -> String {
    text.chars().filter(|c| !c.is_whitespace()).collect()
}

/// Whether every parenthesis of `text` closes one opened before it, and
/// all are closed.
fn balanced(text: &str) -> bool {
    text.chars().try_fold(0i32, |depth, c| {
        let depth = depth + i32::from(c == '(') - i32::from(c == ')');
        (depth >= 0).then_some(depth)
    }) == Some(0)
}

/// `text` without parentheses around the whole of it.
fn without_outer_parens(text: &str) -> &str {
    let mut text = text;
    while let Some(inner) = text.strip_prefix('(').and_then(|t| t.strip_suffix(')')) {
        if !balanced(inner) {
            break;
        }
        text = inner;
    }
    text
}

/// Whether `first`, the first number of `written`, is `value` as a
/// result is shown: itself, or rounded to the decimals it is written
/// with (`410.89` for 410.888…).
fn shows_result(written: &str, first: f64, value: f64) -> bool {
    if same(first, value) {
        return true;
    }
    let Some((number, _)) = numbers_with_text(written).into_iter().next() else {
        return false;
    };
    let decimals = number
        .split_once('.')
        .map_or(0, |(_, fraction)| fraction.len());
    let scale = 10f64.powi(i32::try_from(decimals).unwrap_or(0));
    decimals > 0 && decimals <= 6 && ((value * scale).round() / scale - first).abs() < 0.5 / scale
}

/// A call's arguments as a text: its one string value (an expression),
/// or the arguments' JSON.
fn written_of(arguments: &Value) -> String {
    let mut strings = Vec::new();
    string_values(arguments, &mut strings);
    match strings.as_slice() {
        [one] => one.clone(),
        _ => arguments.to_string(),
    }
}

/// The values of the numbers written in a text, in order.
fn values_in(text: &str) -> Vec<f64> {
    numbers_with_text(text)
        .into_iter()
        .filter_map(|(written, _)| value_of(&written))
        .collect()
}

/// A text with each run of digits (and the separators inside a number)
/// as one `#`, and without whitespace: `384400 * 1000` and
/// `384400000 * 1000` have the same shape, `# * #`.
fn shape(text: &str) -> String {
    let mut shaped = String::with_capacity(text.len());
    let mut in_number = false;
    for c in text.chars() {
        let part_of_number = c.is_ascii_digit() || (in_number && (c == '.' || c == ','));
        if part_of_number {
            if !in_number {
                shaped.push('#');
            }
        } else if !c.is_whitespace() {
            shaped.push(c);
        }
        in_number = part_of_number;
    }
    shaped
}

/// The numbers in `value`: JSON numbers and the numbers written in its
/// strings, at any depth.
fn numbers(value: &Value) -> Vec<f64> {
    fn collect(value: &Value, out: &mut Vec<f64>) {
        match value {
            Value::Number(n) => out.extend(n.as_f64()),
            Value::String(s) => out.extend(values_in(s)),
            Value::Array(items) => items.iter().for_each(|v| collect(v, out)),
            Value::Object(map) => map.values().for_each(|v| collect(v, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    collect(value, &mut out);
    out
}

/// The value of a number as written (its scale word counted); `None`
/// when it cannot be read.
fn value_of(written: &str) -> Option<f64> {
    Some(magnitude(written)).filter(|v| v.is_finite())
}

/// The string values in `value`, trimmed, at any depth.
pub(super) fn string_values(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::String(s) if !s.trim().is_empty() => out.push(s.trim().to_string()),
        Value::Array(items) => items.iter().for_each(|v| string_values(v, out)),
        Value::Object(map) => map.values().for_each(|v| string_values(v, out)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tool::ToolOutput;
    use serde_json::json;

    fn computed(expression: &str, result: &str) -> LastComputed {
        let call = ToolCall::new("c1", "calculator", json!({ "expression": expression }));
        let observation = Observation::ok(&call, ToolOutput::new(result));
        LastComputed::of(&call, &observation).unwrap_or_else(|| panic!("{result}"))
    }

    impl LastComputed {
        fn feeds_back(&self, arguments: &Value) -> bool {
            self.fed_back_by(arguments).is_some()
        }
    }

    fn expression(text: &str) -> Value {
        json!({ "expression": text })
    }

    #[test]
    fn the_last_step_taken_again_on_its_result_is_a_step_taken_twice() {
        let question = "A car costs 18490. I pay 20 % now and the rest in 36 equal monthly payments. How much is one payment?";
        let last = computed(
            "18490 * (1 - 0.20) / 36",
            "410.888888889 (to 2 decimals: 410.89)",
        );
        for (again, step) in [
            ("410.89 / 36", "/ 36"),
            ("410.888888889/36", "/36"),
            ("(410.89 / 36)", "/ 36"),
        ] {
            assert_eq!(
                last.step_taken_twice(&expression(again), question)
                    .as_deref(),
                Some(step),
                "{again}"
            );
        }
        // Another step, another number, more than a step, or the result
        // not written as shown: none of them.
        for other in [
            "410.89 * 36",
            "410.89 / 12",
            "410.89 / 36 + 1",
            "410.8 / 36",
            "36 / 410.89",
        ] {
            assert_eq!(
                last.step_taken_twice(&expression(other), question),
                None,
                "{other}"
            );
        }
        // Several steps taken again on the result.
        let question = "Our newsletter went from 13,600 subscribers to 16,932 this quarter. By what percentage did it grow?";
        let last = computed("3332 / 13600 * 100", "24.5");
        assert_eq!(
            last.step_taken_twice(&expression("24.5 / 13600 * 100"), question)
                .as_deref(),
            Some("/ 13600 * 100")
        );
        assert_eq!(
            last.step_taken_twice(&expression("24.5 / 100"), question),
            None
        );
        // Steps that multiply or add, with a number the question gives
        // once: a year of interest, a yearly growth.
        let last = computed("5000 * (1 + 3/100)", "5150");
        assert_eq!(
            last.step_taken_twice(
                &expression("5150 * (1 + 3/100)"),
                "I invest 5000 at 3% per year. How much after 2 years?"
            ),
            None
        );
        let last = computed("1200 + 150", "1350");
        assert_eq!(
            last.step_taken_twice(
                &expression("1350 + 150"),
                "A town of 1,200 grows by 150 people a year. Its population after 2 years?"
            ),
            None
        );
        // A number the question does not give, or gives twice.
        let last = computed("5000 * 1.03", "5150");
        assert_eq!(
            last.step_taken_twice(&expression("5150 * 1.03"), "5000 at 3% for 2 years"),
            None
        );
        let last = computed("240 / 2", "120");
        assert_eq!(
            last.step_taken_twice(&expression("120 / 2"), "halve 240 by 2 and then by 2 again"),
            None
        );
    }

    #[test]
    fn the_last_result_put_back_into_its_own_computation_is_fed_back() {
        let last = computed(
            "299792458 * 384400",
            "115240220855200 (about 115.24 trillion)",
        );
        assert_eq!(last.result(), "115240220855200");
        assert!(last.feeds_back(&expression("299792458 * 384400 * 115240220855200")));
        assert!(last.feeds_back(&expression("115240220855200 / (299792458 * 384400)")));
        let last = computed("44120 + 35500.5 + 26800", "106420.5");
        assert!(last.feeds_back(&expression(
            "106420.5 + 106420.5 + 106420.5 + 106420.5 + 106420.5"
        )));
        // Numbers as JSON numbers (a typed tool) count the same way.
        let call = ToolCall::new("c1", "multiply", json!({ "a": 12, "b": 30 }));
        let observation = Observation::ok(&call, ToolOutput::new("360"));
        let last = LastComputed::of(&call, &observation).unwrap_or_else(|| panic!("360"));
        assert!(last.feeds_back(&json!({ "terms": [360, 360, 360, 360] })));
        // A square of the last result is the next step, not a loop.
        assert!(!last.feeds_back(&json!({ "a": 360, "b": 360 })));
        assert!(last.feeds_back(&json!({ "factors": [12, 30, 360] })));
        assert!(!last.feeds_back(&json!({ "a": 360, "b": 2 })));
    }

    #[test]
    fn using_the_last_result_with_other_numbers_is_not() {
        let last = computed("384400 * 1000", "384400000 (384.4 million)");
        // The next step of a computation: the result and a new number.
        assert!(!last.feeds_back(&expression("384400000 / 299792458")));
        assert!(!last.feeds_back(&expression("384400 * 1000")));
        assert!(!last.feeds_back(&expression("2 * 3")));
        let last = computed("1000 * 1.05", "1050");
        assert!(!last.feeds_back(&expression("1050 * 1.05")));
        // Three years of interest are three steps; a fourth time in a
        // row, the same step on its result is a climb.
        let first = computed("384400 * 1000", "384400000 (384.4 million)");
        let second = computed("384400000 * 1000", "384400000000").after(Some(&first));
        let third = computed("384400000000 * 1000", "384400000000000").after(Some(&second));
        assert!(!first.feeds_back(&expression("384400000 * 1000")));
        assert!(!second.feeds_back(&expression("384400000000 * 1000")));
        assert!(third.feeds_back(&expression("384400000000000 * 1000")));
        assert_eq!(
            third.fed_back_by(&expression("384400000000000 * 1000")),
            Some(FedBack::Climb)
        );
        assert!(third.feeds_back(&expression("384400000000000*1000")));
        // Another step after it, or the step on another number, is not.
        assert!(!third.feeds_back(&expression("384400000000000 / 1000")));
        assert!(!third.feeds_back(&expression("384400000000000 * 1000 + 1")));
        assert!(!third.feeds_back(&expression("384400000000 * 1000")));
        let unrelated = computed("16932 - 13600", "3332").after(Some(&third));
        assert!(!unrelated.feeds_back(&expression("3332 - 13600")));
        let last = computed("44120 + 35500.5 + 26800", "106420.5");
        assert!(!last.feeds_back(&expression("(44120 + 35500.5 + 26800) / 3")));
        assert!(!last.feeds_back(&expression("106420.5 / 3")));
        // A result that opens with no number is no record.
        let call = ToolCall::new("c1", "calculator", json!({ "expression": "x" }));
        let observation = Observation::ok(&call, ToolOutput::new("no number here"));
        assert!(LastComputed::of(&call, &observation).is_none());
    }
}
