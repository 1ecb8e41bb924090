//! Tool rounds: checking a model's calls (a name each, an id unique in
//! the run), deciding per call whether it runs, repeats an earlier call or
//! is skipped (tool-call budget, loop detection), and recording a round's
//! observations in call order.

use std::hash::BuildHasher;
use std::sync::Arc;

use foldhash::fast::FixedState;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::canonical::canonical_call_key;
use crate::message::{Message, Role, ToolCall};
use crate::outcome::StopReason;
use crate::tool::{Observation, ToolErrorKind};
use crate::tool_name::resolve_tool_name;
use crate::transport::Decision;

use super::answer::AnswerCompute;
use super::asked_words::asked_words_note;
use super::column_call::column_call;
use super::fed_back::{FedBack, LastComputed, string_values};
use super::grounding::has_letters;
use super::head_work::worked_out_in;
use super::miscopy::{corrected_text, corrected_with_thousands, correction_note};
use super::planned::ShownCall;
use super::reasons::{
    MISCOPIES_NAMED, climb_reason, either, fed_back_reason, line_numbers_reason, lone_number_note,
    look_up_first_reason, miscopy_reason, sends_to_look_up, step_twice_reason, ungrounded_reason,
    worked_out_reason,
};
use super::runaway::note_runaway_argument;
use super::unmentioned::unmentioned_note;
use super::{Phase, Run, State};

/// What happens to one call of a round.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "plan", rename_all = "snake_case")]
pub(super) enum CallPlan {
    Run,
    /// Runs, and its observation notes it repeats an earlier call.
    Repeat,
    /// Runs with `arguments`, the model's with the numbers it slipped
    /// corrected (see `miscopy`); its observation ends with `note`, and
    /// notes it repeats an earlier call when it does (`repeat`).
    Corrected {
        arguments: Value,
        note: String,
        repeat: bool,
    },
    /// Not run; this text is its observation.
    Skip {
        reason: String,
    },
    /// Not run: the same call just gave this result, which is its
    /// observation again.
    Answered {
        content: String,
    },
}

impl CallPlan {
    /// The call that goes to the toolbox for the model's `call`, if any.
    pub(super) fn to_run(&self, call: &ToolCall) -> Option<ToolCall> {
        match self {
            CallPlan::Run | CallPlan::Repeat => Some(call.clone()),
            CallPlan::Corrected { arguments, .. } => {
                let mut corrected = call.clone();
                corrected.arguments = arguments.clone();
                Some(corrected)
            }
            CallPlan::Skip { .. } | CallPlan::Answered { .. } => None,
        }
    }

    /// Whether the call runs and repeats an earlier call.
    fn is_repeat(&self) -> bool {
        matches!(
            self,
            CallPlan::Repeat | CallPlan::Corrected { repeat: true, .. }
        )
    }

    /// Whether the call goes to the toolbox as the model wrote it.
    pub(super) fn runs_as_written(&self) -> bool {
        matches!(self, CallPlan::Run | CallPlan::Repeat)
    }

    /// Whether the call goes to the toolbox.
    pub(super) fn runs(&self) -> bool {
        matches!(
            self,
            CallPlan::Run | CallPlan::Repeat | CallPlan::Corrected { .. }
        )
    }
}

pub(super) fn skip(reason: &str) -> CallPlan {
    CallPlan::Skip {
        reason: reason.to_string(),
    }
}

/// Why a computing call is sent back for its `missing` numbers (see
/// `Grounding::check`; `again` when it was sent back before). A call
/// whose numbers are all slips of known ones is told the numbers to send,
/// which are remembered for when it comes again unchanged (see
/// `miscopy`); numbers the turn worked out in words go back into the call
/// as the arithmetic that gave them, a slip named first.
fn sent_back_reason(
    state: &mut State,
    call: &ToolCall,
    key: &str,
    missing: &[String],
    computing_only: bool,
    again: bool,
) -> String {
    let miscopied: Vec<(String, String)> = missing
        .iter()
        .filter_map(|written| {
            let known = state.grounding.miscopied(written)?;
            Some((written.clone(), known.to_string()))
        })
        .collect();
    let all_slips = !miscopied.is_empty()
        && miscopied.len() == missing.len()
        && miscopied.len() <= MISCOPIES_NAMED
        && !state.grounding.only_line_numbers(missing)
        && !miscopied.iter().any(|(_, known)| {
            state
                .grounding
                .only_line_numbers(std::slice::from_ref(known))
        });
    // The message names the number to send for each slip; a call sent
    // back for anything else has no slips to correct when it comes again.
    let slips = if all_slips {
        miscopied.clone()
    } else {
        Vec::new()
    };
    state.grounding.remember_slips(key, slips);
    // The compute round refuses lookups: none is suggested.
    let find_with = if computing_only {
        Vec::new()
    } else {
        finding_tools(state)
    };
    let turn_text = state.transcript.last().map_or("", |m| m.content.as_str());
    let worked = (miscopied.len() < missing.len())
        .then(|| worked_out_in(turn_text, missing, &call.arguments))
        .flatten();
    match worked {
        Some(worked) => {
            if let Some(text) = &worked.rewritten {
                state.planned.show_call(ShownCall {
                    tool: call.name.clone(),
                    text: text.clone(),
                });
            }
            worked_out_reason(&worked, &call.name)
        }
        None if all_slips => {
            let text = corrected_text(&call.arguments, &miscopied);
            if let Some(text) = &text {
                state.planned.show_call(ShownCall {
                    tool: call.name.clone(),
                    text: text.clone(),
                });
            }
            miscopy_reason(&miscopied, text.as_deref())
        }
        None if state.grounding.only_line_numbers(missing) => {
            line_numbers_reason(missing, &find_with)
        }
        None => {
            // Not asked again, the next turn must look them up (a small
            // model makes the same call again instead).
            let mut reason = ungrounded_reason(missing, &find_with, &miscopied, again);
            if sends_to_look_up(missing, &find_with, &miscopied) {
                reason.push_str(&unmentioned_note(&state.unmentioned.names()));
                if !again {
                    state.look_up.force();
                }
            }
            reason
        }
    }
}

impl Run {
    /// Rejects decisions no loop can act on, gives every call an id no
    /// other call of the run has (servers that send none, or the same ones
    /// each turn, get fresh ones), and names every call by the offered tool
    /// its spelling means (`read-file` is `read_file`), so that repeats,
    /// set-aside tools and checks count one tool as one.
    pub(super) fn check_decision(&mut self, decision: &mut Decision, message: &mut Message) {
        let Decision::Act(calls) = decision else {
            return;
        };
        if calls.is_empty() {
            *decision =
                Decision::Malformed("the reply asked for an action but named no tool".into());
            return;
        }
        if calls.iter().any(|c| c.name.trim().is_empty()) {
            *decision = Decision::Malformed("a tool call had no tool name".into());
            return;
        }
        let steps = self.state.steps;
        // Unique here (just made by the transport), so no copy is made.
        for (i, call) in Arc::make_mut(calls).iter_mut().enumerate() {
            if call.id.trim().is_empty() || self.state.used_ids.contains(&call.id) {
                let mut n = i;
                let mut id = format!("call_{steps}_{n}");
                while self.state.used_ids.contains(&id) {
                    n += 1;
                    id = format!("call_{steps}_{n}");
                }
                call.id = id;
                if let Some(native) = message.tool_calls.get_mut(i) {
                    native.id = call.id.clone();
                }
            }
            self.state.used_ids.insert(call.id.clone());
            let offered = self.state.tools.iter().map(|t| t.name.as_str());
            if let Some(meant) = resolve_tool_name(&call.name, offered)
                && meant != call.name
            {
                call.name = meant.to_string();
                if let Some(native) = message.tool_calls.get_mut(i) {
                    native.name = call.name.clone();
                }
            }
        }
    }

    /// Decides, per call, whether it runs, repeats or is skipped.
    pub(super) fn plan_round(&mut self, calls: Arc<[ToolCall]>) {
        // A tool set aside is set aside for this one round.
        let aside = self.state.progress.set_aside.take().map(|tool| {
            let reason = self.set_aside_reason(&tool);
            (tool, reason)
        });
        let state = &mut self.state;
        let mut budget_left = state.budget.max_tool_calls.saturating_sub(state.tool_calls);
        if budget_left == 0 {
            let plans = vec![skip("the tool-call budget is used up"); calls.len()];
            self.record_round(&calls, &plans, Vec::new());
            self.state.phase = Phase::Limit {
                reason: StopReason::MaxToolCalls,
            };
            return;
        }
        let grounding = state.budget.ground_numbers
            && calls.iter().any(|c| state.grounded_tools.contains(&c.name));
        let mut plans = Vec::with_capacity(calls.len());
        let mut looped = false;
        let mut repeated_result = false;
        // The compute round of an answer turn runs computing tools only.
        let computing_only = matches!(state.answer_compute, AnswerCompute::Offered { .. });
        for call in calls.iter() {
            if computing_only && !state.grounded_tools.contains(&call.name) {
                plans.push(skip(&format!(
                    "no more lookups are possible; only {} can be called now",
                    state.grounded_tools.join(" or ")
                )));
                continue;
            }
            if let Some((_, reason)) = aside.as_ref().filter(|(tool, _)| *tool == call.name) {
                plans.push(skip(reason));
                continue;
            }
            if state.look_up.on_turn() && state.grounded_tools.contains(&call.name) {
                // A native model may still compute on a lookup turn.
                let reason = look_up_first_reason(&finding_tools(state))
                    + &unmentioned_note(&state.unmentioned.names());
                plans.push(skip(&reason));
                continue;
            }
            let key = canonical_call_key(&call.name, &call.arguments);
            let mut correction = None;
            if grounding && state.grounded_tools.contains(&call.name) {
                let again = state.grounding.was_sent_back(&key);
                // Read before `check`, which forgets what a call was sent
                // back for when it sends it back again.
                let slips = state.grounding.slips_sent_back(&key).to_vec();
                let can_look_up = !finding_tools(state).is_empty();
                let missing = state.grounding.check(&key, &call.arguments, can_look_up);
                if !missing.is_empty() {
                    // Sent back before it counts as a call: the same call
                    // again is its first run, not a repeat.
                    let reason =
                        sent_back_reason(state, call, &key, &missing, computing_only, again);
                    plans.push(skip(&reason));
                    continue;
                }
                let dots = state.grounding.thousands_dots_in(&call.arguments);
                correction =
                    corrected_with_thousands(&call.arguments, &slips, &dots).map(|arguments| {
                        CallPlan::Corrected {
                            arguments,
                            note: correction_note(&slips, &dots),
                            repeat: false,
                        }
                    });
            }
            let just_answered = state
                .budget
                .answer_on_repeat
                .then(|| {
                    state
                        .progress
                        .last_round_succeeded
                        .iter()
                        .find(|(done, _)| *done == key)
                        .map(|(_, content)| content.clone())
                })
                .flatten();
            let count = state.call_counts.entry(key).or_insert(0);
            *count += 1;
            if let Some(content) = just_answered {
                // The model has this result in front of it: it gets the
                // same result again (a model that copies the last message
                // copies the result), and the work ends for its answer.
                repeated_result = true;
                plans.push(CallPlan::Answered { content });
            } else if *count >= state.budget.loop_threshold && !computing_only {
                // (In the compute round a repeat runs: its result is what
                // the answer turn after it needs.)
                looped = true;
                plans.push(skip(&format!(
                    "this exact call was already made {} times; use the results you have",
                    *count - 1
                )));
            } else if budget_left == 0 {
                plans.push(skip("the tool-call budget is used up"));
            } else if let Some((last, fed_back)) = state
                .progress
                .last_computed
                .as_ref()
                .filter(|_| grounding && state.grounded_tools.contains(&call.name))
                .and_then(|last| Some((last, last.fed_back_by(&call.arguments)?)))
            {
                // Counted above: the same call again reaches the loop
                // threshold. A climb ends the work now (it goes on to the
                // step limit otherwise), but not in the compute round.
                looped |= !computing_only && fed_back == FedBack::Climb;
                plans.push(skip(&match fed_back {
                    FedBack::Climb => climb_reason(last),
                    FedBack::Into => fed_back_reason(last),
                }));
            } else if let Some((last, step)) = state
                .progress
                .last_computed
                .as_ref()
                .filter(|_| grounding && state.grounded_tools.contains(&call.name))
                .and_then(|last| Some((last, last.step_taken_twice(&call.arguments, &state.task)?)))
            {
                plans.push(skip(&step_twice_reason(last, &step)));
            } else if let Some(CallPlan::Corrected {
                arguments, note, ..
            }) = correction
            {
                budget_left -= 1;
                plans.push(CallPlan::Corrected {
                    arguments,
                    note,
                    repeat: *count > 1,
                });
            } else {
                budget_left -= 1;
                plans.push(if *count > 1 {
                    CallPlan::Repeat
                } else {
                    CallPlan::Run
                });
            }
        }
        let looked_up = calls
            .iter()
            .zip(&plans)
            .any(|(call, plan)| plan.runs() && !self.state.grounded_tools.contains(&call.name));
        if looked_up {
            self.state.look_up.looked_up();
        }
        if looped || repeated_result {
            // No call of a looping round runs: answer them all and stop.
            let plans: Vec<CallPlan> = plans
                .into_iter()
                .map(|plan| match plan {
                    CallPlan::Skip { .. } | CallPlan::Answered { .. } => plan,
                    _ => skip("the run stopped: a repeated call was detected"),
                })
                .collect();
            self.record_round(&calls, &plans, Vec::new());
            self.state.phase = Phase::Limit {
                reason: if looped {
                    StopReason::LoopDetected
                } else {
                    StopReason::RepeatedCall
                },
            };
            return;
        }
        self.state.phase = Phase::AwaitingTools { calls, plans };
    }

    /// Appends the observations of a round in call order: executed ones
    /// from `executed` (in order), skipped ones from their plan.
    pub(super) fn record_round(
        &mut self,
        calls: &[ToolCall],
        plans: &[CallPlan],
        executed: Vec<Observation>,
    ) {
        let mut executed = executed.into_iter();
        let mut round = Vec::with_capacity(calls.len());
        let mut succeeded = Vec::new();
        for (call, plan) in calls.iter().zip(plans) {
            match plan {
                CallPlan::Skip { reason } => {
                    if self.state.grounded_tools.contains(&call.name) {
                        let state = &mut self.state;
                        state.planned.called(None, state.grounding.asked_numbers());
                    }
                    let content = format!("Error ({}): {reason}", ToolErrorKind::Skipped.label());
                    self.learn_loop_text(&content);
                    round.push(Observation {
                        call_id: call.id.clone(),
                        tool: call.name.clone(),
                        content,
                        error: Some(ToolErrorKind::Skipped),
                        no_results: false,
                        missed: false,
                    });
                }
                CallPlan::Answered { content } => round.push(Observation {
                    call_id: call.id.clone(),
                    tool: call.name.clone(),
                    content: content.clone(),
                    error: None,
                    no_results: false,
                    missed: false,
                }),
                CallPlan::Run | CallPlan::Repeat | CallPlan::Corrected { .. } => {
                    let Some(mut observation) = executed.next() else {
                        continue;
                    };
                    let before_notes = observation.content.len();
                    // A computing call that gave back its one number
                    // computed nothing (the model's own answer, alone):
                    // nothing found, nothing learned, nothing to build on.
                    let echoed = self.state.budget.ground_numbers
                        && self.state.grounded_tools.contains(&call.name)
                        && LastComputed::of(
                            &plan.to_run(call).unwrap_or_else(|| call.clone()),
                            &observation,
                        )
                        .is_some_and(|last| last.echoes_its_number());
                    if echoed {
                        observation.no_results = true;
                    }
                    // A repeat of a call that found nothing runs again
                    // and is told so: the model is stuck, not done.
                    // (Nor does a search that missed: made again at once, it
                    // runs, and misses again.)
                    if observation.found_something()
                        && !observation.missed
                        && self.state.budget.answer_on_repeat
                    {
                        succeeded.push((
                            canonical_call_key(&call.name, &call.arguments),
                            observation.content.clone(),
                        ));
                    }
                    if self.state.grounded_tools.contains(&call.name) {
                        let result = (!observation.is_error() && !echoed)
                            .then_some(observation.content.as_str());
                        let state = &mut self.state;
                        // With something found to compute on: a run that
                        // found nothing has nothing to compute.
                        if observation.error == Some(ToolErrorKind::InvalidArgs)
                            && state.progress.found_something
                        {
                            state.planned.unread();
                        }
                        state
                            .planned
                            .called(result, state.grounding.asked_numbers());
                        if result.is_some() {
                            state.ratio.computed(&call.arguments);
                            state.grounding.learn_constants_of(&call.arguments);
                            if matches!(state.answer_compute, AnswerCompute::Offered { .. }) {
                                // The operands as the model wrote them and as
                                // they ran (`85.000`, corrected to 85000).
                                let ran = plan.to_run(call).unwrap_or_else(|| call.clone());
                                let both = serde_json::json!([call.arguments, ran.arguments]);
                                let others = state.grounding.answer_numbers_but_operands(&both);
                                state.planned.widen_binding(others);
                            }
                        }
                    }
                    // Answered repeats do not count here: their result came before.
                    self.state.progress.found_something |= observation.found_something();
                    if observation.found_something() {
                        self.state.named.see(&observation.content);
                        self.state.unmentioned.see(&observation.content);
                    }
                    if !observation.is_error() {
                        // Another tool's result ends a run of computing calls.
                        let computing = self.state.grounded_tools.contains(&call.name);
                        let before = self.state.progress.last_computed.take();
                        // What ran: a corrected call's arguments, copied
                        // only then (this runs for every result).
                        // An echo computed nothing to build on: the call
                        // before it stays the last computed.
                        if echoed {
                            self.state.progress.last_computed = before;
                        } else {
                            self.state.progress.last_computed = computing
                                .then(|| match plan {
                                    CallPlan::Corrected { .. } => plan
                                        .to_run(call)
                                        .and_then(|ran| LastComputed::of(&ran, &observation)),
                                    _ => LastComputed::of(call, &observation),
                                })
                                .flatten()
                                .map(|last| last.after(before.as_ref()));
                            // Rounded as the question asks, beside the
                            // tool's own rounding.
                            let state = &self.state;
                            let rounded = (computing
                                && state.budget.ground_numbers
                                && state.progress.last_computed.is_some())
                            .then(|| state.decimals.note(&observation.content))
                            .flatten();
                            if let Some(note) = rounded {
                                observation.content.push_str(&note);
                            }
                        }
                    }
                    if observation.error.is_none() && self.state.budget.ground_numbers && !echoed {
                        self.state.grounding.learn(&observation.content);
                    }
                    if !note_runaway_argument(
                        &call.arguments,
                        &mut observation,
                        self.state.progress.cut_runaway,
                    ) {
                        self.hint_lookup_before_computing(&call.arguments, &mut observation);
                        self.show_column_numbers(call, &mut observation);
                    }
                    let seen = self.count_result(&observation);
                    // (After the result is counted: a note is not part of
                    // it.) A search that found nothing, with the question's
                    // own words in the lines it showed instead.
                    let missed = observation.missed
                        || (observation.error.is_none() && !observation.found_something());
                    if missed
                        && !echoed
                        && self.state.budget.ground_names
                        && !self.state.grounded_tools.contains(&call.name)
                        && let Some(note) = asked_words_note(
                            &self.state.task,
                            &call.arguments,
                            &observation.content,
                        )
                    {
                        observation.content.push_str(&note);
                    }
                    // A quantity found in another unit than the one asked.
                    if observation.found_something()
                        && !echoed
                        && self.state.units.pending()
                        && self.state.budget.ground_numbers
                        && !self.state.grounded_tools.contains(&call.name)
                    {
                        let computing = self.computing_tool_names();
                        if let Some(note) = self
                            .state
                            .units
                            .note(&observation.content, computing.first().map(String::as_str))
                        {
                            observation.content.push_str(&note);
                        }
                    }
                    // (A search that missed again, showing the same files in
                    // its place, is no nearer the answer than one that found
                    // nothing.)
                    let failed_repeat = plan.is_repeat()
                        && !echoed
                        && (!observation.found_something() || observation.missed);
                    let streak_note = self.set_aside_after_failures(&call.name, observation.error);
                    let aside_note = failed_repeat
                        .then(|| {
                            let found_nothing = observation.error.is_none();
                            self.set_aside_after_failed_repeat(&call.name, found_nothing)
                        })
                        .flatten()
                        .or(streak_note);
                    if let CallPlan::Corrected { note, .. } = plan {
                        observation.content.push_str(note);
                    }
                    // (The compute round's next turn may only answer.)
                    if echoed && !matches!(self.state.answer_compute, AnswerCompute::Offered { .. })
                    {
                        observation.content.push_str(&lone_number_note());
                    }
                    if let Some(note) = aside_note {
                        observation.content.push_str(&note);
                    } else if plan.is_repeat() && !observation.found_something() {
                        observation.content.push_str(
                            "\n(Note: you already made this exact call, and again it gave \
                             nothing to answer with. Make a different call: other arguments \
                             or another tool.)",
                        );
                    } else if plan.is_repeat()
                        && seen > 1
                        && self.state.budget.answer_on_repeat
                        && self.state.progress.last_round_found
                    {
                        // Right after a round that found something, the
                        // same call gave the same result again, however far
                        // back it was first made: the model is going round
                        // in circles, and the work ends for its answer.
                        // (After a failed round, going back to an earlier
                        // call is how it recovers.)
                        self.state.progress.repeated = true;
                    } else if plan.is_repeat() {
                        observation.content.push_str(&format!(
                            "\n(Note: you already made this exact call and got this result. \
                             Do not call it again; if you have what you need, {}.)",
                            self.when_enough_hint()
                        ));
                    } else if seen > 1 {
                        observation.content.push_str(&format!(
                            "\n(Note: an earlier call already gave this same result. \
                             If you have what you need, {}.)",
                            self.when_enough_hint()
                        ));
                    }
                    if let Some(notes) = observation.content.get(before_notes..)
                        && !notes.is_empty()
                    {
                        let notes = notes.to_string();
                        self.learn_loop_text(&notes);
                    }
                    round.push(observation);
                }
            }
        }
        if !round.is_empty() {
            let progress = &mut self.state.progress;
            progress.last_round_failed = round.iter().all(|o| o.error.is_some());
            progress.any_result |= round.iter().any(|o| o.error.is_none());
            progress.last_round_succeeded = succeeded;
            progress.last_round_found = round.iter().any(Observation::found_something);
        }
        for message in self.transport.observations(&round) {
            self.push(message);
        }
    }

    /// Counts a successful result by its tool and content, and returns how
    /// often it has come back; at the loop threshold the work is stalled,
    /// however the calls' arguments differed.
    fn count_result(&mut self, observation: &Observation) -> u32 {
        if observation.error.is_some() {
            return 0;
        }
        let key = FixedState::with_seed(0).hash_one((&observation.tool, &observation.content));
        let threshold = self.state.budget.loop_threshold;
        let progress = &mut self.state.progress;
        let count = progress.result_counts.entry(key).or_insert(0);
        *count += 1;
        if *count >= threshold {
            progress.stalled = true;
        }
        *count
    }

    /// A computing tool that could not read its arguments, which hold
    /// words, before any tool gave a result: the model is computing with
    /// names for numbers it never found, so its error names the run's
    /// tools that find them. (Arguments of numbers alone that fail are
    /// written wrong, and the tool's own error says how.)
    fn hint_lookup_before_computing(&self, arguments: &Value, observation: &mut Observation) {
        let state = &self.state;
        if !state.budget.ground_numbers
            || state.progress.any_result
            || observation.error != Some(ToolErrorKind::InvalidArgs)
            || !state.grounded_tools.contains(&observation.tool)
            || !has_letters(arguments)
        {
            return;
        }
        let find_with = finding_tools(state);
        if find_with.is_empty() {
            return;
        }
        let ended = observation.content.trim_end().ends_with(['.', '!', '?']);
        observation.content.push_str(&format!(
            "{} Look the numbers up with {} first.",
            if ended { "" } else { "." },
            either(&find_with)
        ));
    }

    /// A computing call its tool could not read, which applies a list
    /// function to a column that a table in a tool result has (see
    /// `column_call`): its error shows the call with the column's
    /// numbers, and an answer given instead of that call is sent back to
    /// it.
    fn show_column_numbers(&mut self, call: &ToolCall, observation: &mut Observation) {
        let state = &self.state;
        if !state.budget.ground_numbers
            || !state.progress.any_result
            || observation.error != Some(ToolErrorKind::InvalidArgs)
            || !state.grounded_tools.contains(&observation.tool)
        {
            return;
        }
        let results = state
            .transcript
            .get(state.task_index + 1..)
            .unwrap_or_default()
            .iter()
            .rev()
            .filter(|m| m.role != Role::Assistant)
            .map(|m| m.content.as_str());
        let mut texts = Vec::new();
        string_values(&call.arguments, &mut texts);
        let Some(found) = texts
            .iter()
            .find_map(|text| column_call(text, results.clone()))
        else {
            return;
        };
        let ended = observation.content.trim_end().ends_with(['.', '!', '?']);
        observation.content.push_str(&format!(
            "{} `{}` is the column `{}` shown above, which holds {}: call {} with `{}`",
            if ended { "" } else { "." },
            found.named,
            found.column,
            found.values.join(", "),
            call.name,
            found.text
        ));
        self.state.planned.show_call(ShownCall {
            tool: call.name.clone(),
            text: found.text,
        });
    }

    /// What a model that has what it needs does next: compute with the
    /// run's computing tools, if it has any, or answer. A small model that
    /// has gathered every number and is told only to answer does sums in
    /// its head, or gathers them again.
    fn when_enough_hint(&self) -> String {
        match self.state.grounded_tools.as_slice() {
            [] => "give the final answer".to_string(),
            tools => format!(
                "compute with {} if the question needs it, or give the final answer",
                tools.join(" or ")
            ),
        }
    }
}

/// The run's tools that find things rather than compute on numbers.
pub(super) fn finding_tools(state: &State) -> Vec<&str> {
    state
        .tools
        .iter()
        .map(|t| t.name.as_str())
        .filter(|name| !state.grounded_tools.iter().any(|g| g == name))
        .collect()
}
