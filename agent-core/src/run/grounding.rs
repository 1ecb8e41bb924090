//! Grounded numbers ([`Budget::ground_numbers`](crate::Budget)): a call
//! to a tool that computes on the numbers it is given (the calculator,
//! whose tool says so) is not run the first time its arguments hold a
//! number that appears nowhere in the conversation (the system prompt,
//! the task, earlier turns of a chat, tool results). Its observation
//! names the numbers and says to look them up, or to make the same call
//! again when the model is sure of them; the same call again runs. A
//! model that looked things up in between and then makes the same call,
//! its numbers still in no result, has not confirmed them but ignored
//! what it found: that call is sent back once more. Once run, the call
//! runs whenever it is made again. A number sent back
//! the first time must then be in a result: what the lookup brought in
//! does not make it a unit conversion (`10000 / 25`, sent back for the
//! length of a wall, is not grounded by the `21,196` km the search found).
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
//! hundred with one or two significant digits (`4`, `12`, `0.5`) and a
//! few calendar and unit constants are taken as known in a computing
//! call (in an answer only counts under ten are, and the constants a
//! computing call used; in an answer given before any tool returned a
//! result only the system prompt's and the task's numbers); and in a run
//! with tools to look things up, a computing call whose numbers are all
//! only taken as known, none from the conversation, is sent back the
//! first time too: `12 * 100` for a year of subscriptions no file was
//! read for, or a lone `3600`, which computes nothing. In a computing call the powers
//! of ten that convert units or scales are known too (a hundred, a
//! thousand, a million; ten thousand where the conversation has numbers
//! that large), but not in an answer.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::arithmetic::{FalseClaim, false_claims};
use super::fed_back::string_values;
use super::gutter::split_gutters;
use crate::equation::{computed_side, is_lone_number};
use crate::message::{Message, Role};
use crate::numerals::{
    dot_grouped_thousands, has_digits, is_group_mark, numbers_tell, one_dot_group_numbers,
    plain_numbers, plain_numbers_reading, writes_thousands_with_dots,
};
use crate::script::is_spaced_letter;

/// Constants a model may use without finding them in the conversation:
/// days in a year, seconds in an hour and a day, minutes in a day, hours
/// in a week, bytes in a kibibyte. By value, not by significant digits:
/// the hour's `3600` as digits let a made-up `Python 3.6` pass (the 0.5B
/// model's answer, where the file said 3.11).
const KNOWN_CONSTANTS: &[f64] = &[365.0, 366.0, 3600.0, 86400.0, 1440.0, 168.0, 1024.0];

/// Whether `written` is one of [`KNOWN_CONSTANTS`].
fn is_known_constant(written: &str) -> bool {
    let value = magnitude(written);
    KNOWN_CONSTANTS.iter().any(|c| same(value, *c))
}

/// Whether two values are the same number, up to the rounding of their
/// last digits; a value too large to read is no number.
pub(super) fn same(a: f64, b: f64) -> bool {
    a.is_finite() && b.is_finite() && (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

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
    /// Every number of what the model was given, as written and without
    /// its separators (`21,196` and `21196`; the values of `137,34.50`, a
    /// row of a file, one by one): what an answer turn asked again for a
    /// made-up number may write.
    #[serde(default)]
    written: BTreeSet<String>,
    /// The numbers of the question, written as in `written`: an answer
    /// turn asked again may write them whatever their size.
    #[serde(default)]
    asked: BTreeSet<String>,
    /// Calls (canonical keys) already sent back once for their numbers.
    warned: BTreeSet<String>,
    /// For the calls of `warned` that may be sent back once more: the
    /// count of numbers learned when they were sent back.
    #[serde(default)]
    warned_at: BTreeMap<String, usize>,
    /// For the calls of `warned_at`: the numbers they were sent back for.
    #[serde(default)]
    warned_numbers: BTreeMap<String, Vec<String>>,
    /// For the calls of `warned` sent back for slips alone: each slip,
    /// with the known number the message named in its place.
    #[serde(default)]
    slips: BTreeMap<String, Vec<(String, String)>>,
    /// An answer was already sent back once for its numbers.
    #[serde(default)]
    answer_warned: bool,
    /// Arithmetic claims (`expression = result`) already sent back once.
    #[serde(default)]
    claims_warned: BTreeSet<String>,
    /// The significant digits of numbers the conversation has only as line
    /// numbers of tool results (see [`gutter`](super::gutter)): no value
    /// a computing call that looked nothing else up can stand on.
    #[serde(default)]
    gutter_only: BTreeSet<String>,
    /// Whether the question writes thousands with a dot
    /// ([`writes_thousands_with_dots`]): how one group after a dot
    /// (`3.500`) is read in a text that does not tell, such as a table.
    #[serde(default)]
    dots_are_thousands: bool,
    /// Numbers written with one group after a dot (`3.500`), as written,
    /// that a text the model was given means as thousands.
    #[serde(default)]
    thousands_dots: BTreeSet<String>,
    /// The same, that a text means as decimals (`1.250` mm in English).
    #[serde(default)]
    decimal_dots: BTreeSet<String>,
    /// The constants (see [`KNOWN_CONSTANTS`]) computing calls used that
    /// gave a result, by value: an answer may name them.
    #[serde(default)]
    constants_used: Vec<f64>,
    /// Whether a tool result's numbers write thousands with a dot (a
    /// decimal comma, `1.234.567`; see `numbers_tell`), whatever the
    /// question does: an answer copies `149,90` from such a file.
    #[serde(default)]
    results_write_dots: bool,
    /// Numbers written with dots between thousands and a decimal comma
    /// (`1.250,75`), each as it reads with the comma dropped (`1.25075`)
    /// and as it is (`1250.75`): a small model copies it so, and a
    /// calculator reads a thousandth of it.
    #[serde(default)]
    comma_dropped: BTreeMap<String, String>,
}

impl Grounding {
    /// Learns the numbers of a text the model was given: the system
    /// prompt, the task, an earlier user turn, a successful tool result.
    /// Never the model's own turns, nor the loop's error observations (a
    /// call sent back for `1930` must not make `1930` known).
    pub(super) fn learn(&mut self, text: &str) {
        // Most of a system prompt, and many results, write no number.
        if !has_digits(text) {
            return;
        }
        let (gutters, rest) = split_gutters(text);
        if !gutters.is_empty() || !self.gutter_only.is_empty() {
            let data: BTreeSet<String> = numbers_with_text(&rest)
                .into_iter()
                .map(|(_, digits)| digits)
                .collect();
            for number in gutters {
                if let Some(digits) = significant_digits(number)
                    && !data.contains(&digits)
                    && !self.known.contains(&digits)
                {
                    self.gutter_only.insert(digits);
                }
            }
            self.gutter_only.retain(|digits| !data.contains(digits));
        }
        self.learn_forms(text, false);
    }

    /// Whether every one of `numbers` (as written) is in the conversation
    /// only as a line number of a tool result.
    pub(super) fn only_line_numbers(&self, numbers: &[String]) -> bool {
        !numbers.is_empty()
            && numbers
                .iter()
                .all(|written| self.is_line_number_only(written))
    }

    /// Whether `written` is in the conversation only as a line number of
    /// a tool result.
    fn is_line_number_only(&self, written: &str) -> bool {
        significant_digits(written).is_some_and(|digits| self.gutter_only.contains(&digits))
    }

    /// [`learn`](Self::learn) but for line numbers, the question's numbers
    /// also kept in `asked` when `question` (see `written_forms`). Numbers
    /// written the way other languages write them (`12,5`, `١٥`; see
    /// [`numerals`](crate::numerals)) are learned in their plain form too:
    /// a model copies `12.5` from a question that says `12,5`.
    fn learn_forms(&mut self, text: &str, question: bool) {
        if !has_digits(text) {
            return;
        }
        self.learn_dot_groups(text, question);
        self.learn_dropped_commas(text);
        if !question && !self.results_write_dots && text.contains([',', '.']) {
            self.results_write_dots = numbers_tell(text) == Some(true);
        }
        self.learn_forms_as_written(text, question);
        let plain = if question {
            plain_numbers(text)
        } else {
            plain_numbers_reading(text, self.dots_are_thousands)
        };
        if let Cow::Owned(plain) = plain {
            self.learn_forms_as_written(&plain, question);
        }
    }

    /// Learns how the question writes thousands (see
    /// `dots_are_thousands`), before any text of the run is learned.
    pub(super) fn learn_how_numbers_are_written(&mut self, task: &[Message]) {
        self.dots_are_thousands = task
            .iter()
            .rev()
            .find(|m| m.role == Role::User)
            .and_then(|m| writes_thousands_with_dots(&m.content))
            .unwrap_or(false);
    }

    /// Remembers each number of `text` written with one group after a dot
    /// as thousands or as a decimal, as `text` means it.
    fn learn_dot_groups(&mut self, text: &str, question: bool) {
        let numbers = one_dot_group_numbers(text);
        if numbers.is_empty() {
            return;
        }
        // A question's words tell its language; a result's may be the
        // tool's own, around a file in another language.
        let told = if question {
            writes_thousands_with_dots(text)
        } else {
            numbers_tell(text)
        };
        let thousands = told.unwrap_or(self.dots_are_thousands);
        let kept = if thousands {
            &mut self.thousands_dots
        } else {
            &mut self.decimal_dots
        };
        kept.extend(numbers.into_iter().map(str::to_string));
    }

    /// The numbers of a computing call's `arguments` written with one group
    /// after a dot (`3.500`) that the texts the model was given mean as
    /// thousands (and none as a decimal), each with its plain form
    /// (`3500`): a small model copies `3.500` from a German or Italian
    /// result, and a calculator reads three and a half.
    /// A number written with its decimal comma dropped (`1.25075` for
    /// `1.250,75`, see `comma_dropped`) is one too, with the number as
    /// the text means it.
    pub(super) fn thousands_dots_in(&self, arguments: &Value) -> Vec<(String, String)> {
        let mut found = Vec::new();
        if self.thousands_dots.is_empty() && self.comma_dropped.is_empty() {
            return found;
        }
        let mut texts = Vec::new();
        string_values(arguments, &mut texts);
        for text in &texts {
            for (written, _) in numbers_with_text(text) {
                if let Some(plain) = self.comma_dropped.get(&written)
                    && !found.iter().any(|(w, _)| *w == written)
                {
                    found.push((written, plain.clone()));
                }
            }
            for written in one_dot_group_numbers(text) {
                if self.thousands_dots.contains(written)
                    && !self.decimal_dots.contains(written)
                    && !found.iter().any(|(w, _)| w == written)
                {
                    found.push((written.to_string(), written.replace('.', "")));
                }
            }
        }
        found
    }

    /// Remembers each number of `text` written with one group after a dot
    /// and a decimal comma (`1.250,75`) as it reads with the comma dropped
    /// (see `comma_dropped`).
    fn learn_dropped_commas(&mut self, text: &str) {
        if !text.contains(',') || !text.contains('.') {
            return;
        }
        let chars: Vec<char> = text.chars().collect();
        for start in 0..chars.len() {
            let starts = chars[start].is_ascii_digit()
                && (start == 0
                    || !(chars[start - 1].is_ascii_digit()
                        || matches!(chars[start - 1], '.' | ',')));
            if !starts {
                continue;
            }
            let whole = chars[start..]
                .iter()
                .take_while(|c| c.is_ascii_digit())
                .count();
            let dot = start + whole;
            let group =
                |at: usize| (at..at + 3).all(|k| chars.get(k).is_some_and(char::is_ascii_digit));
            if whole > 3
                || chars[start] == '0'
                || chars.get(dot) != Some(&'.')
                || !group(dot + 1)
                || chars.get(dot + 4) != Some(&',')
            {
                continue;
            }
            let decimals = chars[dot + 5..]
                .iter()
                .take_while(|c| c.is_ascii_digit())
                .count();
            let ends = !chars
                .get(dot + 5 + decimals)
                .is_some_and(|c| matches!(c, '.' | ','));
            if decimals == 0 || !ends {
                continue;
            }
            let head: String = chars[start..dot].iter().collect();
            let group: String = chars[dot + 1..dot + 4].iter().collect();
            let tail: String = chars[dot + 5..dot + 5 + decimals].iter().collect();
            self.comma_dropped.insert(
                format!("{head}.{group}{tail}"),
                format!("{head}{group}.{tail}"),
            );
        }
    }

    /// [`learn_forms`](Self::learn_forms) of `text` as it is written.
    fn learn_forms_as_written(&mut self, text: &str, question: bool) {
        let found = numbers_with_text(text);
        let forms = written_forms(&found, text);
        if question {
            self.asked.extend(forms.iter().cloned());
        }
        self.written.extend(forms);
        for (written, digits, scale) in with_parts(found) {
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

    /// Learns the numbers of the question (the task's messages), which an
    /// answer bound to the conversation's numbers may always write, small
    /// ones included: "25 towers" is what the sum needs, not a line
    /// number.
    pub(super) fn learn_question(&mut self, messages: &[Message]) {
        for message in messages.iter().filter(|m| m.role != Role::Assistant) {
            self.learn_forms(&message.content, true);
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
    /// model wrote them; empty when the call `key` may run. A call sent
    /// back before runs when it comes again, unless the conversation has
    /// learned numbers since (the model looked something up in between)
    /// and they still do not hold it: then it is sent back a second and
    /// last time. (A lookup that learned no new number, such as the same
    /// search again, leaves the call confirmed: counted as a lookup, the
    /// 1.5B model's right year for Rust 1.0 was sent back twice and the
    /// run ended in a refusal.) In a run that `can_look_up`, a call whose numbers are
    /// all only taken as known (`12 * 100` for a year of subscriptions no
    /// file was read for), none of them in the conversation, is sent back
    /// the first time too: it computes from nothing the question or a
    /// result gave.
    pub(super) fn check(&mut self, key: &str, arguments: &Value, can_look_up: bool) -> Vec<String> {
        let computed;
        let arguments = if holds_equation(arguments) {
            computed = without_claimed_results(arguments);
            &computed
        } else {
            arguments
        };
        let learned = self.known.len();
        let mut missing = Vec::new();
        if self.warned.contains(key) {
            match self.warned_at.remove(key) {
                Some(at) if at != learned => {}
                // Confirmed (made again with nothing learned in between),
                // or sent back twice already: it runs, now and whenever
                // it is made again (its own result is no lookup).
                _ => return Vec::new(),
            }
            for written in self.warned_numbers.remove(key).unwrap_or_default() {
                if !is_grounded_written(&written, self, Rule::Rechecked) {
                    missing.push(written);
                }
            }
        }
        collect_ungrounded(arguments, self, Rule::Everyday, &mut missing);
        if missing.is_empty() && can_look_up && !self.warned.contains(key) {
            missing = self.all_only_assumed(arguments);
        }
        missing.dedup();
        if !missing.is_empty() && self.warned.insert(key.to_string()) {
            self.warned_at.insert(key.to_string(), learned);
            self.warned_numbers.insert(key.to_string(), missing.clone());
        }
        missing
    }

    /// Every number of `arguments` when they are two or more, written in
    /// numbers alone (no letters), and none of them is in the conversation
    /// (each is only taken as known: a small number, a constant, a power
    /// of ten), or only as a line number of a tool result; otherwise none.
    /// A lone number (the whole expression) counts too: it computes
    /// nothing, and a call that only echoes a constant gives a made-up
    /// answer the look of a computed one. (`2 + 2` is one number twice,
    /// everyday arithmetic; beside names or functions the tool's own
    /// error says more.)
    fn all_only_assumed(&self, arguments: &Value) -> Vec<String> {
        if has_letters(arguments) {
            return Vec::new();
        }
        let mut all = Vec::new();
        collect_ungrounded(arguments, &Grounding::default(), Rule::Strict, &mut all);
        let mut absent = Vec::new();
        collect_ungrounded(arguments, self, Rule::Strict, &mut absent);
        let only_assumed = all
            .iter()
            .filter(|written| absent.contains(written) || self.is_line_number_only(written))
            .count();
        if (all.len() >= 2 || (all.len() == 1 && is_lone_number_call(arguments)))
            && only_assumed == all.len()
        {
            all
        } else {
            Vec::new()
        }
    }

    /// Whether the call `key` was sent back for its numbers before.
    pub(super) fn was_sent_back(&self, key: &str) -> bool {
        self.warned.contains(key)
    }

    /// The numbers an answer may write once bound (see
    /// [`RequestParts::answer_numbers`](crate::transport::RequestParts)):
    /// the conversation's, as written and without separators, sorted, but
    /// its whole numbers under a hundred that the question does not
    /// write. Those are line numbers, counts and days more often than
    /// answers, and the answer was sent back for a number no tool gave: a
    /// model kept from writing it writes its first digits when they are
    /// found (`4` of `4608`, a line number), then another, in a list that
    /// means nothing. The question's own small numbers stay: kept from
    /// writing the `25` of "25 towers", a 1.5B model wrote a year from a
    /// result in its place and computed with it.
    pub(super) fn answer_numbers(&self) -> Vec<String> {
        self.written
            .iter()
            .filter(|n| n.contains('.') || magnitude(n) >= 100.0 || self.asked.contains(*n))
            .cloned()
            .collect()
    }

    /// Remembers the constants (see [`KNOWN_CONSTANTS`]) that a computing
    /// call with `arguments` used and that gave a result: an answer that
    /// says how it computed ("36 hours, 129600 s at 3600 s an hour") may
    /// name them, though no result writes them. By value: `3600` grounds
    /// no `3.6`.
    pub(super) fn learn_constants_of(&mut self, arguments: &Value) {
        let mut texts = Vec::new();
        string_values(arguments, &mut texts);
        for text in &texts {
            for (written, _) in numbers_with_text(text) {
                let value = magnitude(&written);
                if is_known_constant(&written)
                    && !self.constants_used.iter().any(|c| same(*c, value))
                {
                    self.constants_used.push(value);
                }
            }
        }
    }

    /// The numbers an answer may write after a compute round's call with
    /// `arguments` gave a result, beside that result's: the
    /// conversation's (see [`answer_numbers`](Self::answer_numbers)) but
    /// the call's own operands, as written and read plainly. Given the sum
    /// it had been sent to compute, the 1.5B model answered with an
    /// addend; an answer of two parts may still write a looked-up number.
    pub(super) fn answer_numbers_but_operands(&self, arguments: &Value) -> Vec<String> {
        let mut texts = Vec::new();
        string_values(arguments, &mut texts);
        // Compared by value: `84,000,000` is the operand `84000000`.
        let value = |n: &str| {
            n.replace(|c: char| matches!(c, ',' | '_') || is_group_mark(c), "")
                .parse::<f64>()
                .ok()
        };
        let mut operands = Vec::new();
        for text in &texts {
            let plain = plain_numbers_reading(text, self.dots_are_thousands);
            for n in written_numbers(text).iter().chain(&written_numbers(&plain)) {
                operands.extend(value(n));
            }
        }
        self.answer_numbers()
            .into_iter()
            .filter(|n| value(n).is_none_or(|v| !operands.iter().any(|o| same(*o, v))))
            .collect()
    }

    /// `numbers`, and when the question or a tool result writes thousands
    /// with a dot, each written that way too (`60.000` for `60000`, `3,8`
    /// for `3.8`; see [`dot_grouped_thousands`]): an answer in German or
    /// Italian writes its numbers so, which an English answer would read
    /// as other ones, and an answer copies a file's `149,90` as written
    /// (kept to `149.90`, the 1.5B model wrote `149, 149, 149, …`).
    pub(super) fn with_local_forms(&self, mut numbers: Vec<String>) -> Vec<String> {
        if self.dots_are_thousands || self.results_write_dots {
            let local: Vec<String> = numbers
                .iter()
                .filter_map(|n| dot_grouped_thousands(n))
                .collect();
            numbers.extend(local);
        }
        numbers
    }

    /// The question's numbers, as written and without separators.
    pub(super) fn asked_numbers(&self) -> impl Iterator<Item = &String> {
        self.asked.iter()
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
            Rule::Answer
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

    /// The numbers of an answer `text` the conversation does not hold.
    pub(super) fn ungrounded_in(&self, text: &str) -> Vec<String> {
        self.ungrounded_by(text, Rule::Answer)
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

    /// Remembers that the call `key` was sent back naming, for each of
    /// its `slips` (numbers written with a zero dropped or added), the
    /// known number to send instead; no slips forgets any it had.
    pub(super) fn remember_slips(&mut self, key: &str, slips: Vec<(String, String)>) {
        if slips.is_empty() {
            self.slips.remove(key);
        } else {
            self.slips.insert(key.to_string(), slips);
        }
    }

    /// The slips the call `key` was sent back for, each with the number
    /// named in its place (see [`remember_slips`](Self::remember_slips)),
    /// while none of them has been given since; otherwise none.
    pub(super) fn slips_sent_back(&self, key: &str) -> &[(String, String)] {
        match self.slips.get(key) {
            Some(slips)
                if slips
                    .iter()
                    .all(|(written, _)| !is_grounded_written(written, self, Rule::Rechecked)) =>
            {
                slips
            }
            _ => &[],
        }
    }

    /// The known number that `written` copies with a zero dropped or
    /// added (`124,000,000` for `12400000`), as the conversation wrote it.
    /// A number of one significant digit copies nothing: `100` and `10`
    /// (a line number) share a digit, not a value.
    pub(super) fn miscopied(&self, written: &str) -> Option<&str> {
        let scale = scale_of(written)?;
        let digits = significant_digits(written)
            .filter(|d| d.chars().filter(char::is_ascii_digit).count() >= 2)?;
        self.scales
            .get(&digits)?
            .iter()
            .find(|(known, _)| (scale - *known).abs() == 1)
            .map(|(_, as_written)| as_written.as_str())
    }

    /// Whether a power of ten at `scale` is a factor that converts units
    /// or scales: a hundred or a thousand, a million, a billion or a
    /// trillion, or any power up to the largest number the conversation
    /// holds (ten thousand where it writes `万`). `10000` as the length of
    /// a wall is a made-up fact, and a power of ten past every number in
    /// sight (`1000…0`, a run of zeros from a model stuck repeating
    /// itself) is no factor at all.
    fn converts_with(&self, scale: Option<i32>) -> bool {
        let Some(scale) = scale else {
            return false;
        };
        let largest = self.scales.values().flat_map(BTreeMap::keys).max().copied();
        scale <= 3 || matches!(scale, 6 | 9 | 12) || largest.is_some_and(|l| scale <= l)
    }

    /// Whether `digits` were written at exactly `scale`.
    fn written_at(&self, digits: &str, scale: Option<i32>) -> bool {
        scale.is_some_and(|scale| {
            self.scales
                .get(digits)
                .is_some_and(|seen| seen.contains_key(&scale))
        })
    }

    /// Whether `written` is a known percentage added to or taken from
    /// one: `1.18` or `0.82` for `18%`, `1.0275` for `2.75%`, the factor
    /// of a tip, a discount or a year of interest.
    fn knows_percent_factor(&self, written: &str) -> bool {
        let Ok(value) = written.parse::<f64>() else {
            return false;
        };
        if !(value > 0.0 && value < 2.0) || value == 1.0 {
            return false;
        }
        let change = format!("{:.10}", (value - 1.0).abs());
        significant_digits(&change).is_some_and(|digits| self.knows(&digits, scale_of(&change)))
    }

    /// Whether `digits`, written at `scale`, are known in that scale.
    fn knows(&self, digits: &str, scale: Option<i32>) -> bool {
        self.known.contains(digits) && self.fits_scale(digits, scale)
    }
}

/// Which numbers count as known without being in the conversation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Rule {
    /// In a computing call: small numbers, a few constants and the powers
    /// of ten that convert units or scales are known.
    Everyday,
    /// In an answer after tool results: counts under ten are known;
    /// other small numbers, powers of ten from ten up and the constants
    /// are not. A bare `1000`, `10` or `8.5` no result holds is a guess,
    /// not a count or a conversion, and so is a `3600` that no sum gave
    /// (the 1.5B model answered a yearly fee so, then "computed" it as
    /// the lone number `3600`).
    Answer,
    /// Only the conversation's numbers (and rounded copies of them).
    Strict,
    /// A number of a computing call that was sent back for it, checked
    /// again once the model has looked things up: as `Everyday`, but no
    /// power of ten becomes a conversion because a result holds larger
    /// numbers. It was not one when the call was sent back.
    Rechecked,
}

/// Whether a number of a text, as the model wrote it, is known under
/// `rule`.
fn is_grounded_written(written: &str, known: &Grounding, rule: Rule) -> bool {
    significant_digits(written).is_some_and(|digits| is_grounded(written, &digits, known, rule))
        || list_grounded(written, known, rule)
}

/// `arguments` with each one-line text that is an equation cut to the
/// side that is computed ([`computed_side`]): the result a model writes
/// after `=` is its claim, which the tool does not compute with, and no
/// number to look up. (Texts of several lines, code more than an
/// expression, are checked whole.)
fn without_claimed_results(arguments: &Value) -> Value {
    match arguments {
        Value::String(text) if !text.contains('\n') => {
            Value::String(computed_side(text).unwrap_or(text).to_string())
        }
        Value::Array(items) => Value::Array(items.iter().map(without_claimed_results).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(key, value)| (key.clone(), without_claimed_results(value)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// Whether a string of `value` (at any depth) holds an `=` or `＝`: only
/// then is there a claim to cut (the common call is checked as it is,
/// not copied).
fn holds_equation(value: &Value) -> bool {
    match value {
        Value::String(text) => text.contains(['=', '＝']),
        Value::Array(items) => items.iter().any(holds_equation),
        Value::Object(map) => map.values().any(holds_equation),
        _ => false,
    }
}

/// Whether `text` is one number alone, maybe in brackets (see
/// [`is_lone_number`]): a computation of it computes nothing.
pub(super) fn is_lone_number_text(text: &str) -> bool {
    is_lone_number(text.trim_matches(|c: char| c.is_whitespace() || matches!(c, '(' | ')')))
}

/// Whether the only text of `arguments` is one number alone (see
/// [`is_lone_number_text`]).
fn is_lone_number_call(arguments: &Value) -> bool {
    let mut texts = Vec::new();
    string_values(arguments, &mut texts);
    matches!(texts.as_slice(), [text] if is_lone_number_text(text))
}

/// Whether a string of `value` (at any depth) holds a letter.
pub(super) fn has_letters(value: &Value) -> bool {
    match value {
        Value::String(text) => text.chars().any(char::is_alphabetic),
        Value::Array(items) => items.iter().any(has_letters),
        Value::Object(map) => map.values().any(has_letters),
        Value::Number(_) | Value::Bool(_) | Value::Null => false,
    }
}

fn collect_ungrounded(value: &Value, known: &Grounding, rule: Rule, out: &mut Vec<String>) {
    match value {
        Value::String(text) => {
            // A text whose numbers are all known once read the way its
            // language writes them (`3,8 millions`, see `numerals`) is
            // grounded; otherwise its numbers count as written.
            let missing = ungrounded_numbers(text, known, rule);
            if missing.is_empty() {
                return;
            }
            if let Cow::Owned(plain) = plain_numbers_reading(text, known.dots_are_thousands)
                && ungrounded_numbers(&plain, known, rule).is_empty()
            {
                return;
            }
            for written in missing {
                if !out.contains(&written) {
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

/// The numbers of `text`, as written, that are not known under `rule`.
fn ungrounded_numbers(text: &str, known: &Grounding, rule: Rule) -> Vec<String> {
    numbers_with_text(text)
        .into_iter()
        .filter(|(written, digits)| {
            !is_grounded(written, digits, known, rule) && !list_grounded(written, known, rule)
        })
        .map(|(written, _)| written)
        .collect()
}

fn is_grounded(written: &str, digits: &str, known: &Grounding, rule: Rule) -> bool {
    let scale = scale_of(written);
    if digits == "1" {
        // A power of ten: every `1` of a result (a line number, a
        // version) has its digits, so only the same power counts.
        if known.written_at(digits, scale) {
            return true;
        }
    } else if known.knows(digits, scale) {
        return true;
    }
    // Small numbers (`4`, `12`, `60`, `0.5`) are everyday arithmetic; a
    // round number past a hundred (`300`, `6,700,000`) is a fact, and
    // small models make those up. In an answer, only a count under ten
    // is: a `10`, `70` or `8.5` that no result holds was made up.
    let small = match rule {
        Rule::Everyday | Rule::Rechecked => digits.len() <= 2 && magnitude(written) < 100.0,
        Rule::Answer => digits.len() == 1 && magnitude(written) < 10.0 && !written.contains('.'),
        Rule::Strict => false,
    };
    if rule != Rule::Strict
        && (small
            || (is_known_constant(written)
                && (rule != Rule::Answer
                    || known
                        .constants_used
                        .iter()
                        .any(|c| same(*c, magnitude(written)))))
            || known.knows_percent_factor(written))
    {
        return true;
    }
    if rule == Rule::Everyday && digits == "1" && known.converts_with(scale) {
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
    // Most numbers have no word after them.
    if !rest
        .iter()
        .find(|c| !c.is_whitespace())
        .is_some_and(|c| c.is_alphabetic())
    {
        return 1.0;
    }
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
pub(super) fn magnitude(written: &str) -> f64 {
    let chars: Vec<char> = written.chars().collect();
    let end = chars
        .iter()
        .position(|c| !(c.is_ascii_digit() || *c == '.' || SEPARATORS.contains(c)))
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
pub(super) fn scale_of(written: &str) -> Option<i32> {
    let value = written
        .parse::<f64>()
        .map(f64::abs)
        .unwrap_or_else(|_| magnitude(written));
    (value.is_finite() && value > 0.0).then(|| value.log10().floor() as i32)
}

/// The significant digits of the numbers `found` in a text (see
/// [`numbers_with_text`]), with the power of ten each was written at, and
/// as written. A number written with separators counts whole and in its
/// parts too: in a row of a CSV file, `96,830` is two values. A part of
/// zeros makes it one number (`124,000,000` is no list).
fn with_parts(found: Vec<(String, String)>) -> impl Iterator<Item = (String, String, Option<i32>)> {
    found.into_iter().flat_map(|(written, digits)| {
        let parts: Option<Vec<(String, String, Option<i32>)>> = if written.contains(SEPARATORS) {
            written
                .split(SEPARATORS)
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

/// The marks that separate groups of digits in a number as written.
const SEPARATORS: [char; 6] = [',', ' ', '_', '\u{a0}', '\u{202f}', '\u{2009}'];

/// Every number of `text` as written and without its separators, with
/// its dotted and spelled-out forms (see `written_forms`).
pub(super) fn written_numbers(text: &str) -> Vec<String> {
    written_forms(&numbers_with_text(text), text)
}

/// Every number of `text` (`found` in it) as written and without its
/// separators (`21,196` and `21196`; the values of `137,34.50`, a row of
/// a file, one by one), with its dotted and spelled-out forms.
fn written_forms(found: &[(String, String)], text: &str) -> Vec<String> {
    let mut forms = Vec::new();
    for (written, _) in found {
        // `.1` is the tail of a version (`2.4.1`), kept whole below.
        if written.starts_with('.') {
            continue;
        }
        let number = written.trim_end_matches(|c: char| !c.is_ascii_digit());
        let values: Vec<&str> = if is_whole(number) {
            vec![number]
        } else {
            number.split(SEPARATORS).filter(|v| !v.is_empty()).collect()
        };
        for value in values {
            forms.push(value.to_string());
            if value.contains(|c: char| !(c.is_ascii_digit() || c == '.')) {
                forms.push(
                    value
                        .chars()
                        .filter(|c| c.is_ascii_digit() || *c == '.')
                        .collect(),
                );
            }
        }
    }
    forms.extend(dotted_and_in_words(text).map(str::to_string));
    forms
}

/// The runs of digits and dots in `text` that are no number of
/// [`numbers_with_text`] but an answer may still copy: a version or an
/// address (`2.4.1`, `10.0.0.7`) and digits inside a word (`2` of `H2O`,
/// `3` of `Q3`).
fn dotted_and_in_words(text: &str) -> impl Iterator<Item = &str> {
    let mut after_letter = false;
    let mut runs = Vec::new();
    let mut start = None;
    for (i, c) in text
        .char_indices()
        .chain(std::iter::once((text.len(), ' ')))
    {
        let in_run = c.is_ascii_digit() || (c == '.' && start.is_some());
        match (start, in_run) {
            (None, true) => start = Some((i, after_letter)),
            (Some((from, in_word)), false) => {
                let run = text[from..i].trim_end_matches('.');
                if in_word || run.matches('.').count() >= 2 {
                    runs.push(run);
                }
                start = None;
            }
            _ => {}
        }
        after_letter = is_spaced_letter(c) || c == '_';
    }
    runs.into_iter()
}

/// Whether `number` is one value as written: no separator, or groups of
/// three digits after the first (`21,196`, `1 250 000.5`), not values
/// side by side (`137,34.50`).
fn is_whole(number: &str) -> bool {
    let integer = number.split('.').next().unwrap_or_default();
    let mut groups = integer.split(SEPARATORS);
    let first = groups.next().unwrap_or_default();
    !integer.contains(SEPARATORS) || (1..=3).contains(&first.len()) && groups.all(|g| g.len() == 3)
}

/// Every number in `text`, as written and as significant digits. A
/// number is digits with an optional decimal part, with thousands
/// separators (`,`, or a space or `_` between groups of three) read as
/// part of it; digits inside a word (`E4127`, `utf8`) are not numbers,
/// and a unit after them (`512Mi`, `330m`) does not matter. Text in a
/// script without spaces puts its numbers right against its letters
/// (`长是23.5米`): those are numbers.
pub(super) fn numbers_with_text(text: &str) -> Vec<(String, String)> {
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
        if i > 0 && (is_spaced_letter(chars[i - 1]) || chars[i - 1] == '_') {
            // Digits inside a word: skip the rest of the word (and the
            // point that starts `.1` after a letter, as in `app.log.1`).
            i += 1;
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
            } else if (c == ',' || c == '_' || is_group_mark(c))
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
        let written = if scale.is_empty() {
            number
        } else {
            format!("{}{scale}", number.trim())
        };
        out.push((written, digits));
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
        if let Ok(value) = plain.trim().parse::<f64>()
            && value.is_finite()
        {
            digits = format!("{value:.11e}")
                .split('e')
                .next()
                .unwrap_or("")
                .chars()
                .filter(char::is_ascii_digit)
                .collect();
        }
    }
    let significant = digits.trim_start_matches('0').trim_end_matches('0');
    if significant.is_empty() {
        None
    } else if significant.len() == digits.len() {
        Some(digits)
    } else {
        Some(significant.to_string())
    }
}

#[cfg(test)]
#[path = "grounding_tests.rs"]
mod tests;
