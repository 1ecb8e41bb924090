//! Runaways in the model's own replies: one character, or one short
//! piece, written again and again until the reply was cut
//! (`8000 * 1.0275 ** 6 * 1000000…`, four hundred zeros; a search query
//! followed by ` 2015-01-01 00:00:00 UTC` seven times; an expression that
//! subtracts the same term twenty times; years counted on, `2023, 2024,
//! …, 2044, 2`, until a query's length limit). The message the run keeps, and
//! sends back with every later request, has each such run replaced by
//! `…`: shown its own runaway, a 1.5B model wrote it again on every later
//! turn (a compound-interest task: five calls, each with the same four
//! hundred zeros, and an answer of ten million); shown its first eight
//! zeros, it sent those eight again. A repeated piece keeps its first
//! copy, which the model meant; a repeated character goes whole, since
//! its first may be part of the runaway too (a number's zeros). The
//! trace's `ModelResponded` event keeps the reply as it came. A call that
//! ran away and failed is told so in its observation.

use serde_json::Value;

use crate::message::{Message, Role};
use crate::model::RUNAWAY_PERIOD;
use crate::tool::Observation;

/// One character repeated this many times in a row is a runaway.
const RUNAWAY_CHARS: usize = 32;

/// A piece of two characters or more repeated this many times in a row
/// is a runaway when the copies also cover [`RUNAWAY_PIECE_BYTES`]; so
/// are this many numbers counted on until the text was cut.
const RUNAWAY_COPIES: usize = 6;

/// The bytes the copies of a repeated piece cover at least to make a
/// runaway (so a short markdown rule such as `| --- | --- |` is not one).
const RUNAWAY_PIECE_BYTES: usize = 64;

/// Cuts the runaways of an assistant message: its text and the string
/// values of its tool calls' arguments; whether it cut any.
pub(super) fn cut_runaways(message: &mut Message) -> bool {
    if message.role != Role::Assistant {
        return false;
    }
    let mut cut_any = false;
    if let Some(cut) = without_runaways(&message.content) {
        message.content = cut;
        cut_any = true;
    }
    for call in &mut message.tool_calls {
        cut_any |= cut_in_value(&mut call.arguments);
    }
    cut_any
}

/// Notes on a failed call whose argument wrote one piece again and
/// again (the reply ran away until it was cut), or that copies the `…`
/// of a runaway the run cut before (`cut_before`), that the call is to be
/// written again, short; whether it did. The tool's own error names only
/// the symptom (`the expression ends too early`), and a model shown it
/// writes the same runaway again. A call that worked keeps its result
/// alone: a sum of many equal amounts repeats a piece too.
pub(super) fn note_runaway_argument(
    arguments: &Value,
    observation: &mut Observation,
    cut_before: bool,
) -> bool {
    if observation.error.is_none() {
        return false;
    }
    // (Only after a cut: the run's tools write `…` of their own.)
    if cut_before && copies_the_cut(arguments) {
        // The model copied the `…` that stands for its cut runaway (the
        // 1.5B model sent `4.2 * 2.6 * 3 * 2.6…` three times, told each
        // time only that `…` was unexpected).
        let ended = observation.content.trim_end().ends_with(['.', '!', '?']);
        observation.content.push_str(&format!(
            "{} `…` marks where an earlier reply wrote one piece again and again and was cut; \
             it is no part of a call. Write the call again in full, with each part once.",
            if ended { "" } else { "." },
        ));
        return true;
    }
    let Some(name) = runaway_argument(arguments) else {
        return false;
    };
    let which = if name.is_empty() {
        "The input".to_string()
    } else {
        format!("Your `{name}`")
    };
    let ended = observation.content.trim_end().ends_with(['.', '!', '?']);
    observation.content.push_str(&format!(
        "{} {which} wrote one piece again and again until it was cut off. \
         Write the call again, short, with each part once.",
        if ended { "" } else { "." },
    ));
    true
}

/// Whether a string of `arguments` holds the `…` a cut runaway leaves.
fn copies_the_cut(arguments: &Value) -> bool {
    match arguments {
        Value::String(text) => text.contains('…'),
        Value::Array(items) => items.iter().any(copies_the_cut),
        Value::Object(map) => map.values().any(copies_the_cut),
        _ => false,
    }
}

/// The name of the first argument of a call whose text holds a runaway
/// (`""` when the arguments are one bare text), or `None`.
fn runaway_argument(arguments: &Value) -> Option<String> {
    match arguments {
        Value::String(text) => has_runaway(text).then(String::new),
        Value::Array(items) => items.iter().find_map(runaway_argument),
        Value::Object(map) => map.iter().find_map(|(name, value)| {
            runaway_argument(value).map(|inner| {
                if inner.is_empty() {
                    name.clone()
                } else {
                    inner
                }
            })
        }),
        _ => None,
    }
}

fn has_runaway(text: &str) -> bool {
    (may_run_away(text.as_bytes()) && !runaways(text).is_empty())
        || !counting_runaways(text).is_empty()
}

/// Cuts the runaways of the strings in `value`; whether it cut any.
fn cut_in_value(value: &mut Value) -> bool {
    match value {
        Value::String(text) => match without_runaways(text) {
            Some(cut) => {
                *text = cut;
                true
            }
            None => false,
        },
        Value::Array(items) => {
            items
                .iter_mut()
                .map(cut_in_value)
                .filter(|&cut| cut)
                .count()
                > 0
        }
        Value::Object(map) => {
            map.values_mut()
                .map(cut_in_value)
                .filter(|&cut| cut)
                .count()
                > 0
        }
        _ => false,
    }
}

/// `text` with every runaway replaced by `…` (a repeated piece keeps its
/// first copy); `None` when it has none (the common case, found with a
/// few comparisons per sixteen bytes, and a look at each digit before a
/// quote or the end, without allocating).
fn without_runaways(text: &str) -> Option<String> {
    if !has_runaway(text) {
        return None;
    }
    let runaways = runaways(text);
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for Runaway { start, kept, end } in runaways {
        out.push_str(&text[at..start + kept]);
        out.push('…');
        at = end;
    }
    out.push_str(&text[at..]);
    Some(out)
}

/// How often [`may_run_away`] looks: every runaway holds a stretch this
/// long that repeats itself one period later.
const SAMPLE: usize = 16;

/// Whether `bytes` may hold a runaway: at some multiple of [`SAMPLE`], the
/// next [`SAMPLE`] bytes come again one period later. Every runaway passes
/// (it covers more than `SAMPLE` bytes past its first multiple plus one
/// period), and ordinary text nearly never does.
fn may_run_away(bytes: &[u8]) -> bool {
    (0..bytes.len()).step_by(SAMPLE).any(|at| {
        (1..=RUNAWAY_PERIOD).any(|period| {
            let Some(later) = bytes.get(at + period..at + period + SAMPLE) else {
                return false;
            };
            bytes[at] == bytes[at + period] && bytes[at..at + SAMPLE] == *later
        })
    })
}

/// One runaway in a text, in bytes: it covers `start..end`, and its
/// first `kept` bytes stay.
struct Runaway {
    start: usize,
    kept: usize,
    end: usize,
}

/// The runaways of `text`, in order and apart, each by the shortest
/// period that makes one where several do.
fn runaways(text: &str) -> Vec<Runaway> {
    let bytes = text.as_bytes();
    let mut found: Vec<Runaway> = (1..=RUNAWAY_PERIOD)
        .flat_map(|period| periodic_stretches(bytes, period))
        .filter_map(|(start, end, period)| runaway(text, start, end, period))
        .chain(counting_runaways(text))
        .collect();
    found.sort_by_key(|r| (r.start, std::cmp::Reverse(r.end)));
    let mut apart: Vec<Runaway> = Vec::with_capacity(found.len());
    for runaway in found {
        if apart.last().is_none_or(|last| runaway.start >= last.end) {
            apart.push(runaway);
        }
    }
    apart
}

/// Numbers counted on until a text was cut off, one step at a time with
/// one separator (`2023, 2024, 2025, …, 2044, 2`): at least
/// [`RUNAWAY_COPIES`] whole numbers, then the start of the next one at
/// the very end of the text or of a quoted string in it (a call's
/// argument cut at its length limit). The first number stays. A 1.5B
/// model's search query ran on so into a list of years, and its next
/// call took a year from that list. A list that ends whole was meant.
fn counting_runaways(text: &str) -> Vec<Runaway> {
    let bytes = text.as_bytes();
    (1..=bytes.len())
        .filter(|&end| {
            bytes[end - 1].is_ascii_digit() && (end == bytes.len() || bytes[end] == b'"')
        })
        .filter_map(|end| counting_runaway_to(text, end))
        .collect()
}

/// The counting runaway whose cut number ends at `end`, if there is one
/// (see [`counting_runaways`]).
fn counting_runaway_to(text: &str, end: usize) -> Option<Runaway> {
    let bytes = text.as_bytes();
    // The numbers and the separators between them, from the end back.
    let mut numbers: Vec<(usize, usize, u64)> = Vec::new();
    let mut separator: Option<&[u8]> = None;
    let mut partial = None;
    let mut at = end;
    loop {
        let start = bytes[..at]
            .iter()
            .rposition(|b| !b.is_ascii_digit())
            .map_or(0, |p| p + 1);
        if start == at || at - start > 12 {
            break;
        }
        let value: u64 = text[start..at].parse().ok()?;
        if partial.is_none() {
            partial = Some(&text[start..at]);
        } else {
            numbers.push((start, at - start, value));
        }
        let gap_start = bytes[..start]
            .iter()
            .rposition(|b| b.is_ascii_alphanumeric() || !b.is_ascii())
            .map_or(0, |p| p + 1);
        let gap = &bytes[gap_start..start];
        if gap.is_empty()
            || gap.len() > 3
            || gap.contains(&b'.')
            || gap.contains(&b'"')
            || separator.is_some_and(|s| s != gap)
        {
            break;
        }
        separator = Some(gap);
        at = gap_start;
    }
    // Whole numbers in order; the run that ends the list, each one step
    // on from the one before (`May 5, 2023, 2024, …`: the 5 is no part).
    numbers.reverse();
    let [.., (_, _, before_last), (_, _, last)] = numbers.as_slice() else {
        return None;
    };
    let step = i128::from(*last) - i128::from(*before_last);
    let run = 1 + numbers
        .windows(2)
        .rev()
        .take_while(|pair| i128::from(pair[1].2) - i128::from(pair[0].2) == step)
        .count();
    let next = (i128::from(*last) + step).to_string();
    let cut = partial.is_some_and(|p| p.len() < next.len() && next.starts_with(p));
    let (start, kept, _) = numbers[numbers.len() - run];
    (step != 0 && cut && run >= RUNAWAY_COPIES).then_some(Runaway { start, kept, end })
}

/// The longest stretches `start..end` of `bytes` that repeat themselves
/// `period` bytes later (each byte equals the one `period` before it),
/// with their period.
fn periodic_stretches(bytes: &[u8], period: usize) -> Vec<(usize, usize, usize)> {
    let mut stretches = Vec::new();
    let mut from = None;
    for at in period..=bytes.len() {
        let repeats = at < bytes.len() && bytes[at] == bytes[at - period];
        match (repeats, from) {
            (true, None) => from = Some(at - period),
            (false, Some(start)) => {
                stretches.push((start, at, period));
                from = None;
            }
            _ => {}
        }
    }
    stretches
}

/// The runaway a periodic stretch makes, if it makes one: a character
/// repeated more than [`RUNAWAY_CHARS`] times, or a longer piece
/// [`RUNAWAY_COPIES`] times over [`RUNAWAY_PIECE_BYTES`] bytes or more.
/// Only whole copies that start on a character count, and whitespace
/// alone is layout.
fn runaway(text: &str, start: usize, end: usize, period: usize) -> Option<Runaway> {
    let start = (start..end).find(|&at| text.is_char_boundary(at))?;
    let copies = (end - start) / period;
    let end = start + copies * period;
    let piece = text.get(start..start + period)?;
    if piece.trim().is_empty() {
        return None;
    }
    let long = if period == 1 {
        copies > RUNAWAY_CHARS
    } else {
        copies >= RUNAWAY_COPIES && end - start >= RUNAWAY_PIECE_BYTES
    };
    let kept = if period == 1 { 0 } else { period };
    long.then_some(Runaway { start, kept, end })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::ToolCall;
    use serde_json::json;

    #[test]
    fn a_character_repeated_past_the_limit_is_cut_short() {
        let runaway = format!(
            "Action Input: {{\"expression\": \"8000 * 1{}",
            "0".repeat(400)
        );
        assert_eq!(
            without_runaways(&runaway).as_deref(),
            Some("Action Input: {\"expression\": \"8000 * 1…")
        );
        // Ordinary text, and a markdown rule of a few dozen, stay whole.
        assert_eq!(without_runaways("1,000,000 and 2000000000"), None);
        assert_eq!(without_runaways(&"-".repeat(32)), None);
        assert_eq!(without_runaways(&" ".repeat(80)), None);
    }

    #[test]
    fn a_piece_repeated_many_times_keeps_its_first_copy() {
        let query = format!(
            "Rust 1.0 release date{}",
            " 2015-01-01 00:00:00 UTC".repeat(7)
        );
        assert_eq!(
            without_runaways(&query).as_deref(),
            Some("Rust 1.0 release date 2015-01-01 00:00:00 UTC…")
        );
        let expression = format!(
            "48000 * (1 - 0.12)^3{} - 48",
            " - 48000 * (1 - 0.12)^0".repeat(20)
        );
        assert_eq!(
            without_runaways(&expression).as_deref(),
            Some("48000 * (1 - 0.12)^3 - 48000 * (1 - 0.12)^0… - 48")
        );
        // Characters of several bytes: the copy kept is whole.
        assert_eq!(
            without_runaways(&format!("答：{}", "中文解释".repeat(20))).as_deref(),
            Some("答：中文解释…")
        );
        // Two runaways in one text are both cut.
        let two = format!("a{}b{}c", "xy".repeat(40), "0".repeat(40));
        assert_eq!(without_runaways(&two).as_deref(), Some("axy…b…c"));
    }

    #[test]
    fn a_runaway_just_long_enough_is_found_wherever_it_starts() {
        // The quick look samples every sixteen bytes; none is missed.
        let prose = "Then the model wrote this, and it began to repeat itself.";
        for lead in 0..40 {
            let lead = &prose[..lead];
            let zeros = format!("{lead}{}", "0".repeat(RUNAWAY_CHARS + 1));
            assert_eq!(without_runaways(&zeros), Some(format!("{lead}…")));
            let piece = "ab + 12.5 ";
            let pieces = format!("{lead}{}", piece.repeat(RUNAWAY_COPIES + 1));
            let cut = without_runaways(&pieces).unwrap_or_default();
            // One copy stays (in whichever phase the repeat starts).
            assert!(cut.starts_with(lead), "{cut}");
            assert_eq!(cut.matches("12.5").count(), 1, "{cut}");
            assert!(cut.len() < lead.len() + 2 * piece.len(), "{cut}");
        }
    }

    #[test]
    fn numbers_counted_on_until_the_text_was_cut_keep_the_first() {
        let years = (2023..2045).map(|y| format!("{y}, ")).collect::<String>();
        let query = format!("Rust 1.0 release date in {years}2");
        assert_eq!(
            without_runaways(&query).as_deref(),
            Some("Rust 1.0 release date in 2023…")
        );
        let reply = format!("Action Input: {{\"query\": \"Rust 1.0 in {years}2\"}}");
        assert_eq!(
            without_runaways(&reply).as_deref(),
            Some("Action Input: {\"query\": \"Rust 1.0 in 2023…\"}")
        );
        let dated = format!("released May 5, {years}2");
        assert_eq!(
            without_runaways(&dated).as_deref(),
            Some("released May 5, 2023…")
        );
        let down = format!(
            "{}2",
            (0..8)
                .map(|i| format!("{} ", 100 - 10 * i))
                .collect::<String>()
        );
        assert_eq!(without_runaways(&down).as_deref(), Some("100…"));
        // Ended whole, too short, or not one step at a time: meant.
        for text in [
            format!("in {years}2045"),
            "in 2023, 2024, 2025, 2026, 2027, 2".to_string(),
            "sum(3, 7, 12, 20, 31, 44, 5".to_string(),
            "in 2023, 2024, 2025, 2026, 2027, 2028, 2029, 3".to_string(),
            "v1.2.3.4.5.6.7.8.9.1".to_string(),
        ] {
            assert_eq!(without_runaways(&text), None, "{text}");
        }
    }

    #[test]
    fn repeats_that_a_writer_means_stay_whole() {
        // A sum of one number, a table rule, a sentence said twice, a list.
        let sum = format!("{}107181.5", "107181.5 + ".repeat(4));
        let rule = format!("|{}", " --- |".repeat(8));
        let twice = "The api talks to the worker through a Redis queue. ".repeat(2);
        let list = (1..40).map(|i| format!("{i}, ")).collect::<String>();
        for text in [sum, rule, twice, list] {
            assert_eq!(without_runaways(&text), None, "{text}");
        }
    }

    #[test]
    fn only_assistant_messages_are_cut_their_calls_included() {
        let zeros = format!("1{}", "0".repeat(100));
        let mut reply = Message::assistant(format!("Thought: {zeros}"));
        reply.tool_calls = vec![ToolCall::new(
            "c1",
            "calculator",
            json!({ "expression": format!("2 * {zeros}") }),
        )];
        cut_runaways(&mut reply);
        assert_eq!(reply.content, "Thought: 1…");
        assert_eq!(reply.tool_calls[0].arguments["expression"], "2 * 1…");
        let mut observation = Message::user(zeros.clone());
        cut_runaways(&mut observation);
        assert_eq!(observation.content, zeros);
    }
}
