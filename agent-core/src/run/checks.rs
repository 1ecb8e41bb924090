//! The checks a final answer passes before it stands: an answer that
//! echoes the loop's own words, that gives up after the first failed
//! calls, that claims arithmetic that does not hold, that holds a number
//! no tool gave, that skips a computation the model said it would do,
//! that gives a difference where the question asks how many times one
//! thing is another, or that comes before any result has shown a name
//! the question writes in code form is sent back (see each check for how
//! often).

use crate::transport::Decision;

use super::Run;
use super::reasons::{
    false_claim_reason, planned_compute_reason, ratio_reason, shown_call_reason,
    ungrounded_answer_reason, unseen_names_reason,
};

impl Run {
    /// A final answer holding a number found nowhere in the conversation
    /// is sent back once ([`Budget::ground_numbers`](crate::Budget)), in a
    /// run that offers tools: small models do sums in their head and
    /// recall facts wrong. Before any tool gave a result, small numbers
    /// count too: the model answered without looking anything up.
    pub(super) fn check_ungrounded_answer(&mut self, decision: &mut Decision) {
        let state = &mut self.state;
        let Decision::Final(answer) = decision else {
            return;
        };
        if !state.budget.ground_numbers || state.tools.is_empty() {
            return;
        }
        // Nothing looked up yet (and no earlier conversation to answer from).
        let before_results = !state.progress.any_result && state.task_index == state.head;
        let missing = state.grounding.check_answer(answer, before_results);
        if missing.is_empty() {
            return;
        }
        let reason = match self.force_shown_call(&missing) {
            Some(reason) => reason,
            None => ungrounded_answer_reason(&missing, &self.state.grounded_tools, before_results),
        };
        *decision = Decision::Malformed(reason);
    }

    /// When the run showed a computing call to make (in place of
    /// arithmetic worked out in the model's head, or with slips
    /// corrected), and no computing call has given a result since, an
    /// answer with `missing` numbers skips it: the next turn must call a
    /// computing tool
    /// ([`Budget::compute_when_planned`](crate::Budget)), and the reason
    /// shows the call once more. Once per shown call.
    pub(super) fn force_shown_call(&mut self, missing: &[String]) -> Option<String> {
        let state = &mut self.state;
        if !state.budget.compute_when_planned {
            return None;
        }
        let (tool, text) = state.planned.force_shown_call(&state.tools)?;
        Some(shown_call_reason(missing, tool, &text))
    }

    /// A final answer whose text (its thought included) claims arithmetic
    /// that does not hold (`2,100,000 + 3,800,000 = 8,900,000`) is sent
    /// back, once per claim, in a run with a computing tool
    /// ([`Budget::ground_numbers`](crate::Budget)): the claim is named and
    /// the model is told to compute it with the tool. Checked before the
    /// answer's numbers, so a model that did a sum wrong in its head is
    /// told what was wrong, not only that the result is nowhere.
    pub(super) fn check_false_arithmetic(&mut self, decision: &mut Decision, text: &str) {
        if !matches!(decision, Decision::Final(_))
            || !self.state.budget.ground_numbers
            || self.state.grounded_tools.is_empty()
        {
            return;
        }
        let computing = self.computing_tools();
        if computing.is_empty() {
            return;
        }
        if let Some(claim) = self.state.grounding.check_claims(text) {
            *decision = Decision::Malformed(false_claim_reason(&claim, &computing));
        }
    }

    /// Reads the model's thought for a plan to compute
    /// ([`Budget::compute_when_planned`](crate::Budget)), and ends the
    /// turn a skipped plan (or a lookup, see `look_up`) forced. A thought that replies to a message
    /// that sent its turn back is not read: it often repeats that
    /// message's words ("work it out with calculator" became "the error
    /// in the calculation is…" in a 0.5B model's reply), which are no
    /// plan of its own.
    pub(super) fn hear_plan(&mut self, thought: Option<&str>) {
        self.state.planned.answered();
        self.state.look_up.answered();
        let state = &mut self.state;
        let Some(thought) = thought else {
            return;
        };
        if !state.budget.compute_when_planned
            || state.consecutive_malformed > 0
            || state.planned.heard()
        {
            return;
        }
        let computing: Vec<&str> = state
            .tools
            .iter()
            .map(|t| t.name.as_str())
            .filter(|name| state.grounded_tools.iter().any(|g| g == name))
            .collect();
        if !computing.is_empty() {
            state.planned.hear(thought, &computing);
        }
    }

    /// A final answer with a number, given after a thought said the
    /// answer is worked out and before any computing tool was called (or
    /// any answer, after computing calls whose arguments were refused and
    /// none that gave a result; see `ComputePlan::skipped_by`),
    /// is sent back once, and the next turn must call a computing tool
    /// ([`Budget::compute_when_planned`](crate::Budget)). Not while the
    /// question names something no result has shown (see
    /// `check_unseen_names`): then what to compute has not been found,
    /// and the model is first sent to look for it.
    pub(super) fn check_planned_compute(&mut self, decision: &mut Decision) {
        let Decision::Final(answer) = decision else {
            return;
        };
        if !self.state.budget.compute_when_planned
            || !self.state.planned.skipped_by(answer)
            || self.state.named.would_send_back()
        {
            return;
        }
        let computing = self.computing_tool_names();
        if computing.is_empty() {
            return;
        }
        self.state.planned.force();
        *decision = Decision::Malformed(planned_compute_reason(&computing));
    }

    /// A final answer to a question that asks how many times one thing
    /// is another, after computing calls that only subtracted, is sent
    /// back once, and the next turn must call a computing tool
    /// ([`Budget::compute_when_planned`](crate::Budget); see `ratio`).
    pub(super) fn check_ratio(&mut self, decision: &mut Decision) {
        let Decision::Final(answer) = decision else {
            return;
        };
        // A refusal stands, and a name still to look for comes first.
        if !self.state.budget.compute_when_planned
            || !answer.chars().any(|c| c.is_ascii_digit())
            || self.state.named.would_send_back()
        {
            return;
        }
        let computing = self.computing_tool_names();
        if computing.is_empty() || !self.state.ratio.sends_back() {
            return;
        }
        self.state.planned.force();
        *decision = Decision::Malformed(ratio_reason(&computing));
    }

    /// The numbers of an answer that are found nowhere in the
    /// conversation (whether or not an earlier answer was sent back for
    /// one); empty when the run does not ground numbers. On a forced
    /// answer turn such an answer is asked again, or gets a compute round,
    /// once at most; the outcome lists them
    /// ([`Outcome::ungrounded_numbers`](crate::Outcome)).
    pub(super) fn ungrounded_in_answer(&self, answer: &str) -> Vec<String> {
        let state = &self.state;
        if !state.budget.ground_numbers || state.tools.is_empty() {
            return Vec::new();
        }
        state.grounding.ungrounded_in(answer)
    }

    /// A final answer given while no tool result has shown a name the
    /// question writes in code form is sent back once
    /// ([`Budget::ground_names`](crate::Budget)).
    pub(super) fn check_unseen_names(&mut self, decision: &mut Decision) {
        if !matches!(decision, Decision::Final(_)) {
            return;
        }
        let unseen = self.state.named.check_answer();
        if !unseen.is_empty() {
            *decision = Decision::Malformed(unseen_names_reason(&unseen, true));
        }
    }

    /// A final answer that echoes a message the loop wrote (see `echo`)
    /// is a malformed turn, on any turn.
    pub(super) fn check_echo(&mut self, decision: &mut Decision) {
        if let Decision::Final(answer) = decision
            && self.state.loop_words.echoed_by(answer)
        {
            *decision = Decision::Malformed(
                "that reply repeats a message you were given instead of answering the question"
                    .into(),
            );
        }
    }

    /// An answer given right after a round of failed calls, before any
    /// call of the run gave a result, is sent back once as malformed
    /// ([`Budget::retry_after_failed_calls`](crate::Budget)).
    pub(super) fn check_premature_answer(&mut self, decision: &mut Decision) {
        let progress = &mut self.state.progress;
        if matches!(decision, Decision::Final(_))
            && self.state.budget.retry_after_failed_calls
            && progress.last_round_failed
            && !progress.any_result
            && !progress.retry_asked
        {
            progress.retry_asked = true;
            *decision = Decision::Malformed(
                "that answer came right after a failed call, before any tool gave a result; \
                 read the error above and try another call first"
                    .into(),
            );
        }
    }
}
