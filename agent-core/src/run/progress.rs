//! [`ToolProgress`]: what a run's tool rounds have given so far, as the
//! loop's rules read it (answers after failures, repeats, stalls, what the
//! answer turn says was found).

use serde::{Deserialize, Serialize};

use super::fed_back::LastComputed;
use crate::tool::ToolErrorKind;

/// What the tool rounds so far have given, for
/// [`Budget::retry_after_failed_calls`](crate::Budget) and the same-result
/// loop check.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(super) struct ToolProgress {
    /// Some call of the run gave a result.
    pub(super) any_result: bool,
    /// Some call of the run (or the history it continues) gave a result
    /// that found something: the answer turn asks for the answer the
    /// results show; otherwise it says that the calls found nothing.
    #[serde(default)]
    pub(super) found_something: bool,
    /// Every call of the last round failed (or was not run).
    pub(super) last_round_failed: bool,
    /// A reply of the run had a runaway cut, with `…` in its place.
    #[serde(default)]
    pub(super) cut_runaway: bool,
    /// The model was already asked to try again once.
    pub(super) retry_asked: bool,
    /// How often each successful result (tool and content, hashed) came
    /// back: calls whose arguments differ but whose result does not are
    /// no progress either.
    #[serde(default)]
    pub(super) result_counts: foldhash::HashMap<u64, u32>,
    /// Some result came back [`Budget::loop_threshold`](crate::Budget) times.
    #[serde(default)]
    pub(super) stalled: bool,
    /// Some call of the last round found something.
    #[serde(default)]
    pub(super) last_round_found: bool,
    /// A call repeated an earlier one of the run and got the same result
    /// again ([`Budget::answer_on_repeat`](crate::Budget)).
    #[serde(default)]
    pub(super) repeated: bool,
    /// The canonical keys and results of the last round's calls that
    /// succeeded, for [`Budget::answer_on_repeat`](crate::Budget).
    #[serde(default)]
    pub(super) last_round_succeeded: Vec<(String, String)>,
    /// A tool whose call failed again on its exact repeat: the next
    /// request does not offer it, and a call to it in the next round is
    /// not run ([`Budget::set_aside_failing_tool`](crate::Budget)).
    #[serde(default)]
    pub(super) set_aside: Option<String>,
    /// The set-aside tool's repeat found no match again (nothing, or
    /// only what it shows in a match's place), rather than failing: what
    /// the reason for not running it says.
    #[serde(default)]
    pub(super) set_aside_found_nothing: bool,
    /// The run's last calls that ran, when they are failures of one tool
    /// with one kind of error, and how many there were in a row.
    #[serde(default)]
    pub(super) failing_streak: Option<FailingStreak>,
    /// The last computing call that succeeded, while no other call has
    /// succeeded after it ([`Budget::ground_numbers`](crate::Budget)).
    #[serde(default)]
    pub(super) last_computed: Option<LastComputed>,
}

/// Calls of one tool that failed the same way, one after another, with
/// whatever arguments (a model stepping `..`, `../..`, `../../..` up out
/// of the root, or guessing one file name after another).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct FailingStreak {
    /// The tool.
    pub(super) tool: String,
    /// Its error.
    pub(super) kind: ToolErrorKind,
    /// How many calls in a row.
    pub(super) count: u32,
}

impl FailingStreak {
    /// The streak after a call of `tool` that ran and failed with `error`
    /// (`None` when it succeeded): one longer, a new one, or none.
    pub(super) fn after(
        streak: Option<Self>,
        tool: &str,
        error: Option<ToolErrorKind>,
    ) -> Option<Self> {
        let kind = error?;
        match streak {
            Some(mut streak) if streak.tool == tool && streak.kind == kind => {
                streak.count += 1;
                Some(streak)
            }
            _ => Some(Self {
                tool: tool.to_string(),
                kind,
                count: 1,
            }),
        }
    }
}
