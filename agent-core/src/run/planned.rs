//! A computation the model said it would do and did not
//! ([`Budget::compute_when_planned`](crate::Budget)). Small models plan
//! well and then skip the plan: the thought says "calculate the
//! difference" or "add their populations together", the lookup comes
//! back, and the next reply gives one of the looked-up numbers as the
//! answer, with the calculator never called. Told so in words, a 0.5B
//! model gives the same answer again; so the turn after such an answer
//! must call a computing tool (a grammar without the final answer on the
//! text transport, `tool_choice: "required"` on the native one), once
//! per run. Given the result, the 0.5B model wrote its stale thought and
//! answer again ("the combined population is about 2,100,000", with
//! 8,650,000 computed right above it); so the turn right after that
//! result writes, in its thought and answer, only the numbers computed
//! then and the question's own (a transport that constrains decoding
//! holds it to them; it may still make another call). A computing call
//! whose arguments its tool refused (a calculator given names for
//! numbers) computed nothing either: after it, any answer skips the plan,
//! a refusal too (the 1.5B model read the file again and answered that
//! it could not find the scores it had just read).

use serde::{Deserialize, Serialize};

use super::grounding::written_numbers;
use crate::message::ToolSpec;

/// Word stems by which a thought says that the answer is worked out
/// (lower case, each at the start of a word): "calculate", "compute",
/// "add up", "sum", "subtract", "divide", "multiply", "difference". Not
/// "average" or "total", which also name looked-up facts ("the average
/// distance"), nor "percent".
const COMPUTING_STEMS: &[&str] = &[
    "calculat", "comput", "add ", "adding ", "sum ", "sum,", "sum.", "summing", "subtract",
    "divid", "multipl", "differen",
];

/// Turns made to compute at most in a run: the first, and one more when
/// its call gave no result.
const MAX_FORCED_TURNS: u8 = 2;

/// What the run knows of the model's plan to compute.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(super) struct ComputePlan {
    /// A thought of the run said the answer is worked out.
    said: bool,
    /// A computing tool was called in this run (whatever it gave: the
    /// model kept to its plan, and what the tool said is for the model
    /// to read).
    called: bool,
    /// A computing call ran, after some tool found something, and its
    /// tool refused the arguments (`ToolErrorKind::InvalidArgs`: for the
    /// calculator, words for numbers or a malformed expression; not a call
    /// the loop sent back, nor a sum that cannot be done, such as a
    /// division by zero), and no computing call has given a result.
    #[serde(default)]
    unread: bool,
    /// A computing call gave a result.
    #[serde(default)]
    computed: bool,
    /// The next request must call a computing tool.
    pending: bool,
    /// A turn was already made to compute (once per run for a skipped
    /// plan; a shown call forces its own, see `force_shown_call`).
    used: bool,
    /// Turns made to compute so far: a forced call that gave no result
    /// (sent back for a miscopied number, or failed) gets one more try.
    forced_turns: u8,
    /// The forced turn (or an answer turn's compute round) was answered;
    /// the result of its computing call binds the turn after it.
    awaiting_result: bool,
    /// The numbers the turn after the forced computation may write.
    binding: Option<Vec<String>>,
    /// The call a computing call sent back was shown to make instead (its
    /// arithmetic worked out in words, or its slips of known numbers
    /// corrected), until a computing call gives a result.
    #[serde(default)]
    shown_call: Option<ShownCall>,
}

/// A computing call the loop showed the model: with the arithmetic the
/// model had worked out in its head written into it (see `head_work`),
/// or with the known numbers in place of its slips (see `miscopy`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct ShownCall {
    /// The computing tool.
    pub(super) tool: String,
    /// Its text argument (the calculator's expression).
    pub(super) text: String,
}

impl ComputePlan {
    /// Reads a thought of the model (or a tool name it wrote, such as the
    /// calculator's, in `tool_names`).
    pub(super) fn hear(&mut self, thought: &str, tool_names: &[&str]) {
        if self.said {
            return;
        }
        let lower = format!("{} ", thought.to_lowercase());
        self.said = says_compute(&lower)
            || tool_names
                .iter()
                .any(|name| contains_word(&lower, &name.to_lowercase()));
    }

    /// Whether a thought of the run has said the answer is worked out.
    pub(super) fn heard(&self) -> bool {
        self.said
    }

    /// A computing tool was called; `result` is what it gave, when it
    /// gave something (not when it failed or was sent back), and `asked`
    /// the question's numbers.
    pub(super) fn called<'a>(
        &mut self,
        result: Option<&str>,
        asked: impl Iterator<Item = &'a String>,
    ) {
        self.called = true;
        if result.is_some() {
            self.shown_call = None;
            self.computed = true;
            self.unread = false;
        }
        if !self.awaiting_result {
            return;
        }
        let Some(result) = result else {
            if self.forced_turns < MAX_FORCED_TURNS {
                self.forced_turns += 1;
                self.pending = true;
            }
            return;
        };
        let mut numbers = written_numbers(result);
        numbers.extend(asked.cloned());
        numbers.sort();
        numbers.dedup();
        self.binding.get_or_insert_with(Vec::new).extend(numbers);
    }

    /// A computing call ran, after some tool found something, and its
    /// tool refused the arguments (see the field).
    pub(super) fn unread(&mut self) {
        if !self.computed {
            self.unread = true;
        }
    }

    /// Whether `answer` skips the plan: a thought said the answer is
    /// worked out, nothing has been computed, no turn was made to compute
    /// yet, and either no computing tool was called and the answer has a
    /// number, or a computing call ran whose arguments its tool could not
    /// read (whatever the answer says: the 1.5B model whose
    /// `sum(scores) / count(scores)` was not read read the file again and
    /// answered that it could not find the scores it had just read).
    pub(super) fn skipped_by(&self, answer: &str) -> bool {
        self.said
            && !self.used
            && !self.computed
            && (self.unread || (!self.called && answer.chars().any(|c| c.is_ascii_digit())))
    }

    /// The model called a computing tool on an answer turn's compute
    /// round: as on a forced turn, the result binds the answer asked for
    /// next (the 1.5B model, sent back to compute its head sum `139.000`,
    /// computed 139000 and then answered with one of the two addends),
    /// widened to the conversation's numbers but the call's operands.
    /// A call that gives no result is not forced again: the answer turn
    /// comes next.
    pub(super) fn await_result(&mut self) {
        self.awaiting_result = true;
        self.forced_turns = self.forced_turns.max(MAX_FORCED_TURNS);
    }

    /// Lets the turn a result binds also write `numbers` (the compute
    /// round's: see `Grounding::answer_numbers_but_operands`).
    pub(super) fn widen_binding(&mut self, numbers: Vec<String>) {
        if let Some(binding) = &mut self.binding {
            binding.extend(numbers);
            binding.sort();
            binding.dedup();
        }
    }

    /// The next request must call a computing tool.
    pub(super) fn force(&mut self) {
        self.pending = true;
        self.used = true;
        self.forced_turns = 1;
    }

    /// Remembers the call a computing call sent back was shown to make.
    pub(super) fn show_call(&mut self, call: ShownCall) {
        self.shown_call = Some(call);
    }

    /// The call shown and not made, with its tool among `tools`, if there
    /// is one: the next request must call a computing tool, and the call
    /// is shown once.
    pub(super) fn force_shown_call<'t>(
        &mut self,
        tools: &'t [ToolSpec],
    ) -> Option<(&'t ToolSpec, String)> {
        let call = self.shown_call.as_ref()?;
        let tool = tools.iter().find(|t| t.name == call.tool)?;
        let text = self.shown_call.take()?.text;
        self.force();
        Some((tool, text))
    }

    /// Whether the request being built must call a computing tool.
    pub(super) fn pending(&self) -> bool {
        self.pending
    }

    /// The numbers the request being built may write, right after the
    /// forced computation's result.
    pub(super) fn binding(&self) -> Option<&[String]> {
        self.binding.as_deref()
    }

    /// The model replied to a request: to the forced one (its call's
    /// result will bind the next turn), or to any other (a binding is
    /// spent).
    pub(super) fn answered(&mut self) {
        self.awaiting_result = self.pending;
        self.pending = false;
        self.binding = None;
    }
}

/// Whether `lower` (a lower-case thought, ending in a space) says the
/// answer is worked out.
fn says_compute(lower: &str) -> bool {
    COMPUTING_STEMS
        .iter()
        .any(|stem| contains_word(lower, stem))
}

/// Whether `text` holds `word` at the start of a word.
fn contains_word(text: &str, word: &str) -> bool {
    text.match_indices(word).any(|(at, _)| {
        text[..at]
            .chars()
            .next_back()
            .is_none_or(|c| !c.is_alphanumeric())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn heard(thought: &str) -> ComputePlan {
        let mut plan = ComputePlan::default();
        plan.hear(thought, &["calculator"]);
        plan
    }

    #[test]
    fn a_thought_that_plans_a_computation_is_heard() {
        for thought in [
            "To find out, we need to look up both populations and calculate the difference.",
            "I need to add their respective populations together.",
            "Read the deploy files and sum them up.",
            "Then divide by the number of cities.",
            "I will use the calculator once I have the numbers.",
            "Compute the growth.",
        ] {
            assert!(heard(thought).said, "{thought}");
        }
        for thought in [
            "I need to look up the average distance between the Moon and the Earth.",
            "The total is in the file.",
            "The addendum says so.",
            "Search the encyclopedia for the city.",
            "There is no summary.",
        ] {
            assert!(!heard(thought).said, "{thought}");
        }
    }

    #[test]
    fn an_answer_with_a_number_skips_the_plan_until_a_computing_call_or_a_forced_turn() {
        let mut plan = heard("We need to calculate the ratio.");
        assert!(plan.skipped_by("21196"));
        assert!(!plan.skipped_by("The results do not show it."));
        plan.force();
        assert!(plan.pending());
        plan.answered();
        assert!(!plan.pending());
        assert!(!plan.skipped_by("21196"), "once per run");

        let mut called = heard("We need to calculate the ratio.");
        called.called(None, std::iter::empty());
        assert!(
            !called.skipped_by("3.31"),
            "sent back: its own message says why"
        );
        // A call its tool could not read computed nothing: any answer skips.
        called.unread();
        assert!(called.skipped_by("3.31"));
        assert!(called.skipped_by("I cannot find it."));
        called.called(Some("81"), std::iter::empty());
        assert!(!called.skipped_by("81"), "computed");
        called.unread();
        assert!(!called.skipped_by("81"), "a call not read after a result");
        assert!(!ComputePlan::default().skipped_by("3.31"), "no plan heard");
    }

    #[test]
    fn the_forced_result_binds_the_next_turn_to_its_numbers_and_the_questions() {
        let mut plan = heard("Add them together.");
        plan.force();
        plan.answered();
        assert_eq!(plan.binding(), None);
        let asked = ["3".to_string()];
        plan.called(Some("8650000 (8.65 million)"), asked.iter());
        let bound = plan.binding().unwrap();
        assert!(bound.contains(&"8650000".to_string()), "{bound:?}");
        assert!(bound.contains(&"3".to_string()), "{bound:?}");
        assert!(!bound.contains(&"2100000".to_string()));
        // Spent by the next reply.
        plan.answered();
        assert_eq!(plan.binding(), None);
        // A forced call that gave no result is forced once more.
        let mut failed = heard("Add them together.");
        failed.force();
        failed.answered();
        failed.called(None, asked.iter());
        assert!(failed.pending());
        failed.answered();
        failed.called(None, asked.iter());
        assert!(!failed.pending(), "twice at most");
        // A shown call forces the next turn once, until a computing
        // call gives a result.
        let calculator = ToolSpec {
            name: "calculator".into(),
            description: String::new(),
            parameters: serde_json::json!({}),
        };
        let tools = [calculator.clone()];
        let mut shown = ComputePlan::default();
        let call = ShownCall {
            tool: "calculator".into(),
            text: "(2 + 3) / 2".into(),
        };
        shown.show_call(call.clone());
        assert_eq!(shown.force_shown_call(&[]), None, "not offered");
        assert!(!shown.pending());
        assert_eq!(
            shown.force_shown_call(&tools),
            Some((&calculator, call.text.clone()))
        );
        assert!(shown.pending());
        assert_eq!(shown.force_shown_call(&tools), None, "shown once");
        shown.show_call(call);
        shown.called(None, asked.iter());
        assert!(shown.shown_call.is_some(), "a call sent back made nothing");
        shown.called(Some("2.5"), asked.iter());
        assert_eq!(shown.force_shown_call(&tools), None, "made");
        // A computing call not made on the forced turn binds nothing.
        let mut free = heard("Add them together.");
        free.called(Some("8650000"), asked.iter());
        assert_eq!(free.binding(), None);
        // A compute round's call binds the answer asked for next, and one
        // that gave no result is not forced again.
        let mut round = ComputePlan::default();
        round.await_result();
        round.called(None, asked.iter());
        assert!(!round.pending());
        assert_eq!(round.binding(), None);
        round.await_result();
        round.called(Some("139000"), asked.iter());
        assert_eq!(
            round.binding(),
            Some(&["139000".to_string(), "3".to_string()][..])
        );
    }
}
