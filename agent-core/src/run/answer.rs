//! Answer turns ([`Budget::answer_turn`](crate::Budget)): when a limit, a
//! repeated call or malformed replies end the work, one turn that may
//! only answer; a reply
//! that is no answer is asked once more; and an answer holding a number
//! no tool gave gets one compute round first, in a run with a computing
//! tool, before the answer is asked for again.
//!
//! The compute round exists because small models do the last sum in
//! their head on the answer turn (the populations' sum is right in the
//! results, the average they give is not). Told only to answer with
//! what the results show, they give the same number again; let them
//! call the calculator once, and they compute it. The answer asked for
//! after that call writes the numbers it computed, the question's and the
//! conversation's, but not that call's operands: given the sum, the 1.5B
//! model answered with an addend.

use serde::{Deserialize, Serialize};

use super::Step;
use crate::message::ToolSpec;
use crate::outcome::StopReason;
use crate::transport::{Decision, Findings};

use super::grounding::same;
use super::reasons::{
    answer_compute_reason, false_claim_reason, planned_compute_reason,
    ungrounded_answer_turn_reason, unseen_names_reason,
};
use super::{Phase, Run};
use crate::numerals::plain_numbers;

/// Where a run's compute round of the answer turn is.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(tag = "compute", rename_all = "snake_case")]
pub(super) enum AnswerCompute {
    /// Not offered yet.
    #[default]
    NotOffered,
    /// Offered: the model may call a computing tool, then it is asked
    /// for the answer to `limit` again.
    Offered {
        /// The stop the answer turn answers.
        limit: StopReason,
        /// The numbers no tool gave that the answer before the round was
        /// sent back for, when they were its only fault: when the round's
        /// result is each of them, that answer stands, and the model is
        /// not asked again.
        #[serde(default)]
        confirms: Vec<String>,
    },
    /// Over; the answer turn comes without it.
    Done,
}

impl Run {
    /// A limit was reached: one answer turn if the budget allows it, or
    /// stop. A compute round of the answer turn that just ended goes back
    /// to the answer turn instead.
    pub(super) fn reach_limit(&mut self, reason: StopReason) -> Step {
        if let AnswerCompute::Offered { limit, confirms } = &self.state.answer_compute {
            let (limit, confirms) = (limit.clone(), confirms.clone());
            self.state.answer_compute = AnswerCompute::Done;
            if self.round_confirms(&confirms) {
                // The model had worked it out; the call computed the same.
                return self.finish(limit);
            }
            return self.ask_for_answer(limit);
        }
        let state = &self.state;
        let answerable = matches!(
            reason,
            StopReason::MaxSteps
                | StopReason::MaxToolCalls
                | StopReason::LoopDetected
                | StopReason::RepeatedCall
                | StopReason::TooManyMalformed
        );
        if answerable
            && state.budget.answer_turn
            && !state.answer_turn_used
            && state.steps < state.budget.max_steps
        {
            return self.answer_turn(reason);
        }
        self.finish(reason)
    }

    /// Whether the compute round just ended confirms the answer it was
    /// offered for: the answer was sent back only for the numbers
    /// `missing`, the round's last result is each of them, and the answer
    /// writes no other number the conversation lacks (`300 - 221.85` gave
    /// the `78.15` it answered; asked again, the 1.5B model answered with
    /// another result's sum). An operand or a constant of the round is no
    /// confirmation.
    fn round_confirms(&self, missing: &[String]) -> bool {
        let state = &self.state;
        let Some(computed) = state.progress.last_computed.as_ref() else {
            return false;
        };
        let is_result = |number: &String| {
            let plain = plain_numbers(number).replace([',', '_'], "");
            plain
                .trim_start_matches('-')
                .parse::<f64>()
                .is_ok_and(|value| same(value, computed.value()))
        };
        !missing.is_empty()
            && missing.iter().all(is_result)
            && state
                .answer
                .as_deref()
                .is_some_and(|answer| self.ungrounded_in_answer(answer).is_empty())
    }

    /// Asks for the answer on a turn that may only answer.
    pub(super) fn answer_turn(&mut self, reason: StopReason) -> Step {
        self.state.answer_turn_used = true;
        self.ask_for_answer(reason)
    }

    /// The answer-turn request, within the step budget; past it the run
    /// stops with what it has.
    fn ask_for_answer(&mut self, reason: StopReason) -> Step {
        if self.state.steps >= self.state.budget.max_steps {
            return self.finish(reason);
        }
        let request = self
            .transport
            .answer_request(&self.state.task, self.findings());
        self.push_loop(request);
        self.issue_request(Some(reason), false)
    }

    /// What the run's calls found, for the answer turn's request.
    pub(super) fn findings(&self) -> Findings {
        if self.state.progress.found_something {
            Findings::Something
        } else {
            Findings::Nothing
        }
    }

    /// Takes the decision of an answer turn answering `limit`; `text` is
    /// the reply as recorded (its thought included), `compute` when the
    /// turn may call the computing tools.
    pub(super) fn answer_turn_reply(
        &mut self,
        decision: &Decision,
        text: &str,
        limit: StopReason,
        compute: bool,
    ) {
        let retry = match decision {
            Decision::Final(answer) => {
                self.state.answer = Some(answer.clone());
                if compute {
                    // The compute round was the second ask: this answer stands.
                    None
                } else if let Some((reason, confirms)) = self.uncomputed(answer, text) {
                    self.state.answer_numbers_bound = true;
                    self.offer_compute(&reason, limit, confirms);
                    return;
                } else if let Some(reason) = self.planned_uncomputed(answer) {
                    self.state.planned.force();
                    self.offer_compute(&reason, limit, Vec::new());
                    return;
                } else {
                    let missing = self.ungrounded_in_answer(answer);
                    self.state.answer_numbers_bound |= !missing.is_empty();
                    if missing.is_empty() {
                        let unseen = self.state.named.check_answer();
                        (!unseen.is_empty()).then(|| unseen_names_reason(&unseen, false))
                    } else {
                        Some(ungrounded_answer_turn_reason(&missing))
                    }
                }
            }
            Decision::Act(calls) if compute => {
                self.state.planned.await_result();
                self.plan_round(std::sync::Arc::clone(calls));
                return;
            }
            Decision::Act(calls) => {
                let plans = vec![super::plan::skip("the run has reached its budget"); calls.len()];
                let calls = std::sync::Arc::clone(calls);
                self.record_round(&calls, &plans, Vec::new());
                Some("no more tool calls are possible; answer in words".to_string())
            }
            Decision::Malformed(reason) => Some(reason.clone()),
        };
        match retry {
            Some(reason) => self.retry_answer_turn(&reason, limit),
            None => self.stop(limit),
        }
    }

    /// Why an answer-turn reply gets a compute round, if it does: its
    /// text claims arithmetic that does not hold (`512 + 768 + 2048 =
    /// 4384`: the claim is named), or its answer has numbers no tool gave
    /// (the round must make the call the run showed, if it showed one:
    /// see `force_shown_call`). With the reason, the numbers the round's
    /// result may confirm the answer by (none after a false claim).
    fn uncomputed(&mut self, answer: &str, text: &str) -> Option<(String, Vec<String>)> {
        if !self.state.budget.ground_numbers || !self.compute_round_open() {
            return None;
        }
        let names = self.computing_tool_names();
        if let Some(claim) = self.state.grounding.check_claims(text) {
            return Some((
                false_claim_reason(&claim, &self.computing_tools()),
                Vec::new(),
            ));
        }
        let missing = self.ungrounded_in_answer(answer);
        if missing.is_empty() {
            return None;
        }
        let reason = self
            .force_shown_call(&missing)
            .unwrap_or_else(|| answer_compute_reason(&missing, &names));
        Some((reason, missing))
    }

    /// Why an answer-turn answer gets a compute round that must call a
    /// computing tool, if it does: a thought of the run said the answer
    /// is worked out, and nothing was computed (see
    /// `ComputePlan::skipped_by`;
    /// [`Budget::compute_when_planned`](crate::Budget)).
    fn planned_uncomputed(&self, answer: &str) -> Option<String> {
        let state = &self.state;
        (state.budget.compute_when_planned
            && state.planned.skipped_by(answer)
            && !state.named.would_send_back()
            && self.compute_round_open())
        .then(|| planned_compute_reason(&self.computing_tool_names()))
    }

    /// Whether the answer turn may still get a compute round: the run has
    /// a computing tool, the round was not offered and the answer not yet
    /// asked again, and the steps left hold the compute turn and the
    /// answer turn after it.
    fn compute_round_open(&self) -> bool {
        let state = &self.state;
        !self.computing_tools().is_empty()
            && state.answer_compute == AnswerCompute::NotOffered
            && !state.answer_retry_used
            && state.steps + 2 <= state.budget.max_steps
    }

    /// The names of [`computing_tools`](Self::computing_tools).
    pub(super) fn computing_tool_names(&self) -> Vec<String> {
        self.computing_tools().into_iter().map(|t| t.name).collect()
    }

    /// The run's tools that compute on numbers ([`RunConfig::grounded_tools`](super::RunConfig)).
    pub(super) fn computing_tools(&self) -> Vec<ToolSpec> {
        let state = &self.state;
        state
            .tools
            .iter()
            .filter(|t| state.grounded_tools.contains(&t.name))
            .cloned()
            .collect()
    }

    /// The tools among `offered` (the run's tools when `None`) that find
    /// things rather than compute (see `plan::finding_tools`).
    pub(super) fn finding_tool_specs(&self, offered: Option<&[ToolSpec]>) -> Vec<ToolSpec> {
        let state = &self.state;
        offered
            .unwrap_or(&state.tools)
            .iter()
            .filter(|t| !state.grounded_tools.contains(&t.name))
            .cloned()
            .collect()
    }

    /// Says what was not computed (`reason`) and lets the next turn call
    /// the computing tools (or answer); `confirms`: see
    /// [`AnswerCompute::Offered`].
    fn offer_compute(&mut self, reason: &str, limit: StopReason, confirms: Vec<String>) {
        let tools = self.computing_tools();
        for message in self.transport.malformed(reason, &tools) {
            self.push_loop(message);
        }
        self.state.answer_compute = AnswerCompute::Offered {
            limit: limit.clone(),
            confirms,
        };
        self.build_request(true, true);
        if self.over_token_budget() {
            self.stop(limit);
            return;
        }
        self.state.steps += 1;
        self.state.phase = Phase::AwaitingModel {
            answer_turn: Some(limit),
            compute: true,
        };
    }

    /// A forced answer turn whose reply was no answer (a call, a
    /// malformed reply, a number no tool gave) is asked once more, saying
    /// why, while the step and token budgets allow; otherwise the run
    /// stops with what it has.
    fn retry_answer_turn(&mut self, reason: &str, limit: StopReason) {
        let state = &self.state;
        if state.answer_retry_used || state.steps >= state.budget.max_steps {
            self.stop(limit);
            return;
        }
        self.state.answer_retry_used = true;
        let message = self
            .transport
            .answer_retry(reason, &self.state.task, self.findings());
        self.push_loop(message);
        self.build_request(true, false);
        if self.over_token_budget() {
            self.stop(limit);
            return;
        }
        self.state.steps += 1;
        self.state.phase = Phase::AwaitingModel {
            answer_turn: Some(limit),
            compute: false,
        };
    }
}
