//! What the loop tells the model when it sends a call or an answer back
//! for its numbers ([`Budget::ground_numbers`](crate::Budget)): which
//! numbers no tool gave, which sum does not hold, what to do instead.
//! Each text names the run's own tools; none holds a value a model could
//! copy as an answer.

use crate::message::ToolSpec;

use super::arithmetic::{FalseClaim, calculator_form};
use super::fed_back::LastComputed;
use super::grounding::{magnitude, scale_of};
use super::head_work::WorkedOut;

/// Why an answer is sent back for its numbers; `compute_with` names the
/// tools that compute, if the run has any; `before_results` says no tool
/// has given a result yet.
pub(super) fn ungrounded_answer_reason(
    numbers: &[String],
    compute_with: &[String],
    before_results: bool,
) -> String {
    let (list, one) = listed(numbers);
    let verb = if one { "is" } else { "are" };
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
    format!("{list} {verb} in no tool result. {how}")
}

/// Why an answer is sent back when the run showed a computing call to
/// make (`tool` with `text`: the arithmetic the model had worked out in
/// its head, or its call with slips corrected) and no computing call has
/// given a result since: `numbers`
/// are the answer's numbers no tool gave. The call is shown again.
pub(super) fn shown_call_reason(numbers: &[String], tool: &ToolSpec, text: &str) -> String {
    let (list, one) = listed(numbers);
    let (verb, them) = if one { ("is", "it") } else { ("are", "them") };
    let arguments = single_text_arguments(tool, text).unwrap_or_else(|| format!("`{text}`"));
    format!(
        "{list} {verb} in no tool result: nothing has computed {them} yet. Make the call you were shown: \
         call {} with {arguments}, then give the final answer",
        tool.name
    )
}

/// Why an answer built on false arithmetic is sent back; `compute_with`
/// are the tools that compute. With one such tool that takes a single
/// text (the calculator's expression), it names the call to make, the
/// claim's arithmetic as its argument: told only to compute it, the 1.5B
/// model computed other numbers of the results.
pub(super) fn false_claim_reason(claim: &FalseClaim, compute_with: &[ToolSpec]) -> String {
    if let [tool] = compute_with
        && let Some(arguments) = single_text_arguments(tool, &calculator_form(&claim.expression))
    {
        return format!(
            "{} is not {}. Compute it: call {} with {arguments}, then give the final answer",
            claim.expression, claim.claimed, tool.name
        );
    }
    let names: Vec<&str> = compute_with.iter().map(|t| t.name.as_str()).collect();
    format!(
        "{} is not {}. Compute it with {}, then give the final answer",
        claim.expression,
        claim.claimed,
        either(&names)
    )
}

/// The arguments of `tool` with `text` as its one text argument, as JSON,
/// when its schema has exactly one property and that is a string.
fn single_text_arguments(tool: &ToolSpec, text: &str) -> Option<String> {
    let properties = tool.parameters.get("properties")?.as_object()?;
    let [(name, schema)] = properties.iter().collect::<Vec<_>>()[..] else {
        return None;
    };
    (schema.get("type")? == "string").then(|| serde_json::json!({ name: text }).to_string())
}

/// Why an answer that skips the computation the model's thought planned
/// is sent back; `compute_with` names the tools that compute.
pub(super) fn planned_compute_reason(compute_with: &[String]) -> String {
    let names: Vec<&str> = compute_with.iter().map(String::as_str).collect();
    format!(
        "your thought says the answer is worked out, and nothing has been computed yet. Call {} now with the numbers the question needs, from the question and the observations",
        either(&names)
    )
}

/// Why an answer on a forced answer turn, when no tool can be called, is
/// asked again.
pub(super) fn ungrounded_answer_turn_reason(numbers: &[String]) -> String {
    let (list, one) = listed(numbers);
    let verb = if one { "is" } else { "are" };
    format!(
        "the answer has {list} which {verb} in no tool result; answer only with what the results show, or say that they do not show it"
    )
}

/// Why an answer on a forced answer turn gets a compute round: it has
/// numbers no tool gave, and `compute_with` names the tools that compute.
pub(super) fn answer_compute_reason(numbers: &[String], compute_with: &[String]) -> String {
    let (list, one) = listed(numbers);
    let verb = if one { "is" } else { "are" };
    let names: Vec<&str> = compute_with.iter().map(String::as_str).collect();
    format!(
        "the answer has {list} which {verb} in no tool result. If it is worked out from the results, compute it with {} now; if not, answer only with what the results show",
        either(&names)
    )
}

/// Why a call to a computing tool is not run on a turn that was made
/// to look the numbers up with `find_with` (see `look_up`).
pub(super) fn look_up_first_reason(find_with: &[&str]) -> String {
    format!(
        "this turn is for looking up the facts the question needs, with {}; make that call first",
        either(find_with)
    )
}

/// Whether [`ungrounded_reason`] sends a call with these unknown
/// `numbers` to look its facts up with `find_with`: when there are such
/// tools, and the numbers are neither all slips of known ones nor all
/// runaways.
pub(super) fn sends_to_look_up(
    numbers: &[String],
    find_with: &[&str],
    miscopied: &[(String, String)],
) -> bool {
    !find_with.is_empty() && !only_slips(numbers, miscopied) && !only_runaways(numbers)
}

fn only_slips(numbers: &[String], miscopied: &[(String, String)]) -> bool {
    !miscopied.is_empty() && miscopied.len() == numbers.len()
}

fn only_runaways(numbers: &[String]) -> bool {
    numbers.iter().all(|n| is_runaway(n))
}

/// The observation of a call sent back for its numbers; `find_with`
/// names the run's tools that can find them, `miscopied` pairs a number
/// with the one the conversation has with a zero more or less. `again`:
/// the same call was sent back before, and the model has looked things
/// up since without finding its numbers.
pub(super) fn ungrounded_reason(
    numbers: &[String],
    find_with: &[&str],
    miscopied: &[(String, String)],
    again: bool,
) -> String {
    if only_slips(numbers, miscopied) {
        return miscopy_reason(miscopied, None);
    }
    if only_runaways(numbers) {
        // Not a fact to look up: sent to search, the model searched for
        // the formula and came back with the same runaway. Its digits are
        // not shown: the model copies whatever start it is shown.
        let length = numbers.iter().map(|n| n.chars().count()).max().unwrap_or(0);
        return format!(
            "the call has a number of {length} characters, one digit written again and again until the reply was cut off: \
             that is no number. Write the call again with only the numbers the question and the results give"
        );
    }
    let (list, one) = listed(numbers);
    let (verb, them, they) = if one {
        ("is", "it", "it is")
    } else {
        ("are", "them", "they are")
    };
    if again {
        let instead = match find_with {
            [] => "Compute with the numbers the results give".to_string(),
            tools => format!(
                "Look up what {} should be with {}, using different words, or compute with the numbers the results give",
                if one { "it" } else { "they" },
                either(tools)
            ),
        };
        return format!(
            "{list} {verb} still not in any tool result. {instead}; if you are sure {they} right, make this same call again"
        );
    }
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

/// The note on a computing call that gave back the one number it was
/// given: it computed nothing (the 1.5B model, told that nothing was
/// computed yet, called the calculator with the answer it had made up,
/// alone, and answered with that "result"). A turn forced to compute
/// comes again.
pub(super) fn lone_number_note() -> String {
    "\n(Note: one number alone computes nothing. If the question needs a computation, \
     write the arithmetic that gives the answer, with the numbers the question and the results give.)"
        .to_string()
}

/// The observation of a call sent back because its numbers were worked
/// out in the model's head: it names the arithmetic for each, and the
/// call to make with `tool` instead.
pub(super) fn worked_out_reason(worked: &WorkedOut, tool: &str) -> String {
    let numbers: Vec<String> = worked.numbers.iter().map(|(n, _)| n.clone()).collect();
    let (list, one) = listed(&numbers);
    let verb = if one { "is" } else { "are" };
    let how: Vec<String> = worked
        .numbers
        .iter()
        .take(4)
        .map(|(number, arithmetic)| format!("{number} as `{arithmetic}`"))
        .collect();
    let instead = match &worked.rewritten {
        Some(call) => format!("call it with `{call}`"),
        None => "write that arithmetic in the call in place of the result".to_string(),
    };
    format!(
        "{list} {verb} not in the question or in any tool result: you worked out {} in your head. \
         Let {tool} do that arithmetic: {instead}",
        how.join(" and ")
    )
}

/// The observation of a call sent back because its numbers are only line
/// numbers of tool results; `find_with` names the run's tools that can
/// find values.
pub(super) fn line_numbers_reason(numbers: &[String], find_with: &[&str]) -> String {
    let (list, one) = listed(numbers);
    let verb = if one {
        "is a line number"
    } else {
        "are line numbers"
    };
    let find = match find_with {
        [] => "Compute with the values the question and the results give".to_string(),
        tools => format!(
            "Compute with the values the lines hold; if the question needs facts they do not hold, look them up with {} first",
            either(tools)
        ),
    };
    format!("{list} {verb} of the results, where a line is, not a value in it. {find}")
}

/// The observation of a computing call not run because it puts the last
/// result back into the computation that gave it.
pub(super) fn fed_back_reason(last: &LastComputed) -> String {
    let result = shown(&[last.result().to_string()]).join("");
    let expression: String = last.written().chars().take(80).collect();
    format!(
        "`{expression}` gave {result}, and this call puts {result} back into that same computation, \
         which answers nothing new. If {result} answers the question, give it as the final answer; if not, \
         compute what the question asks from the numbers in the question and the results"
    )
}

/// Why a call that takes the last call's final step (`step`, `/ 36`)
/// again on its result was not run (see `LastComputed::step_taken_twice`).
pub(super) fn step_twice_reason(last: &LastComputed, step: &str) -> String {
    let result = shown(&[last.result().to_string()]).join("");
    let expression: String = last.written().chars().take(80).collect();
    format!(
        "`{expression}` gave {result}, which has `{step}` in it already, and this call takes `{step}` again on it. \
         If {result} answers the question, give it as the final answer; if the question does ask for `{step}` twice, \
         write the whole calculation in one expression"
    )
}

/// Why a call that climbs (see [`FedBack::Climb`](super::fed_back::FedBack::Climb)) was not run: it names
/// what the computation gave before the climb, the likeliest answer (the
/// 0.5B model, its percentage right, divided it by the base again and
/// again). A climb with no start on record reads as a call fed back.
pub(super) fn climb_reason(last: &LastComputed) -> String {
    let Some(start) = last.climb_start() else {
        return fed_back_reason(last);
    };
    let result = shown(std::slice::from_ref(&start.result)).join("");
    let first: String = start.written.chars().take(80).collect();
    let latest: String = last.written().chars().take(80).collect();
    format!(
        "`{first}` gave {result}, and each call since has taken that same step again on the last result \
         (`{latest}` gave {}), which answers nothing new. If {result} answers the question, give it as the \
         final answer; if not, compute what the question asks from the numbers in the question and the results",
        shown(&[last.result().to_string()]).join("")
    )
}

/// Characters past which a written number is a runaway: a model stuck
/// repeating a digit, not a value anyone wrote.
const RUNAWAY_LENGTH: usize = 24;

/// Whether `written` is a runaway number (see [`RUNAWAY_LENGTH`]).
fn is_runaway(written: &str) -> bool {
    written.chars().count() > RUNAWAY_LENGTH
}

/// The first four of `numbers` as a message names them. A runaway is cut
/// to its start and its length, so the message does not repeat it.
fn shown(numbers: &[String]) -> Vec<String> {
    numbers
        .iter()
        .take(4)
        .map(|written| {
            if is_runaway(written) {
                let start: String = written.chars().take(8).collect();
                format!("{start}… ({} characters)", written.chars().count())
            } else {
                written.clone()
            }
        })
        .collect()
}

/// The first four of `numbers` as a message lists them (see [`shown`]),
/// and whether there is just one, for the verb that follows.
fn listed(numbers: &[String]) -> (String, bool) {
    let shown = shown(numbers);
    (shown.join(", "), shown.len() == 1)
}

/// Names as alternatives: `a`, `a or b`, `a, b or c`.
pub(super) fn either(names: &[&str]) -> String {
    match names {
        [] => String::new(),
        [one] => (*one).to_string(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
    }
}

/// How many slips (numbers with a zero dropped or added) the message
/// that sends a call back for them names.
pub(super) const MISCOPIES_NAMED: usize = 4;

/// The observation of a call whose every unknown number is a known one
/// with a zero dropped or added: it names each and the number to send,
/// and the call's text with them in place when there is one (`call`):
/// told only which number to change, the 0.5B model changed the other.
pub(super) fn miscopy_reason(miscopied: &[(String, String)], call: Option<&str>) -> String {
    let mut wrong = Vec::new();
    let mut right = Vec::new();
    for (written, known) in miscopied.iter().take(MISCOPIES_NAMED) {
        let smaller = scale_of(written) < scale_of(known);
        let integers = !written.contains('.') && !known.contains('.');
        let how = match (integers, smaller) {
            (true, true) => "has one zero too few",
            (true, false) => "has one zero too many",
            (false, true) => "is ten times too small",
            (false, false) => "is ten times too large",
        };
        wrong.push(format!("{written} {how}: the results say {known}"));
        right.push(in_place_of(written, known));
    }
    let shown = call.map_or(String::new(), |text| format!(": `{text}`"));
    format!(
        "{}. Make the call again with {}{shown}",
        wrong.join("; "),
        right.join(", and ")
    )
}

/// `known`, as a calculator reads it, "in place of" the slip `written`.
pub(super) fn in_place_of(written: &str, known: &str) -> String {
    format!("{} in place of {written}", plain_number(known))
}

/// A number as a calculator reads it: no thousands separators, and a
/// scale word multiplied out (`3.8 million` is `3800000`).
pub(super) fn plain_number(written: &str) -> String {
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

/// Why an answer is sent back when no tool result has shown `names`,
/// which the question writes in code form; `can_call` when the model may
/// still call tools.
pub(super) fn unseen_names_reason(names: &[String], can_call: bool) -> String {
    let shown: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    let told = format!(
        "no tool result shows {}, which the question names",
        shown.join(", ")
    );
    if !can_call {
        return told;
    }
    let (them, they_are) = if names.len() == 1 {
        ("it", "it is")
    } else {
        ("them", "they are")
    };
    format!("{told}. Look for {them} with the tools; if {they_are} not there, say so")
}

/// The observation of an answer sent back because the question asks how
/// many times one thing is another and only a difference was computed.
pub(super) fn ratio_reason(computing: &[String]) -> String {
    let tool = computing.first().map_or("the calculator", String::as_str);
    format!(
        "the question asks how many times one is the other, and nothing has been divided yet: \
         that is a division. Call {tool} now with the one divided by the other"
    )
}
