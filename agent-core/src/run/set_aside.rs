//! Setting a failing tool aside for one turn
//! ([`Budget::set_aside_failing_tool`](crate::Budget)): when a call that
//! failed or found nothing is repeated exactly and fails or finds nothing
//! again, the next request offers the run's other tools only, and a call
//! to the set-aside tool in that round is not run. At a low temperature a
//! small model otherwise repeats the same failing call until loop
//! detection ends the work (a file search in a folder that does not
//! exist, with the files that do exist listed in its result).

use std::sync::Arc;

use crate::message::ToolSpec;

use super::Run;
use super::progress::FailingStreak;
use super::reasons::either;
use crate::tool::ToolErrorKind;

impl Run {
    /// After `tool`'s exact repeat failed again, or found no match again
    /// (`found_nothing`: nothing, or only what it shows in a match's
    /// place): sets it aside for the next turn when the run has
    /// other tools, and returns the note for the observation that says
    /// which ones can be called.
    pub(super) fn set_aside_after_failed_repeat(
        &mut self,
        tool: &str,
        found_nothing: bool,
    ) -> Option<String> {
        if !self.state.budget.set_aside_failing_tool {
            return None;
        }
        let again = if found_nothing {
            "found no match"
        } else {
            "failed"
        };
        let note = self.set_aside(
            tool,
            &format!("this exact call {again} again. For the next turn, `{tool}` is set aside"),
        );
        if note.is_some() {
            self.state.progress.set_aside_found_nothing = found_nothing;
        }
        note
    }

    /// After a call of `tool` that ran and failed with `error` (`None`
    /// when it succeeded): when it is the [`Budget::loop_threshold`]th
    /// call in a row of that tool to fail that way, whatever its
    /// arguments, sets the tool aside for the next turn as above, and
    /// returns the note that says so.
    ///
    /// [`Budget::loop_threshold`]: crate::Budget
    pub(super) fn set_aside_after_failures(
        &mut self,
        tool: &str,
        error: Option<ToolErrorKind>,
    ) -> Option<String> {
        let progress = &mut self.state.progress;
        progress.failing_streak = FailingStreak::after(progress.failing_streak.take(), tool, error);
        let count = progress.failing_streak.as_ref()?.count;
        if !self.state.budget.set_aside_failing_tool || count < self.state.budget.loop_threshold {
            return None;
        }
        self.set_aside(
            tool,
            &format!(
                "`{tool}` failed this way {count} times in a row. For the next turn, it is set aside"
            ),
        )
    }

    /// Sets `tool` aside for the next turn when the run has other tools,
    /// and returns the observation's note: `why`, then the tools to call
    /// instead.
    fn set_aside(&mut self, tool: &str, why: &str) -> Option<String> {
        let others = self.other_tools(tool);
        if others.is_empty() {
            return None;
        }
        let note = format!("\n(Note: {why}: call {} instead.)", either(&others));
        self.state.progress.set_aside = Some(tool.to_string());
        self.state.progress.set_aside_found_nothing = false;
        Some(note)
    }

    /// The tools the next request offers, when they are not all the run's:
    /// all but the set-aside one, on a turn that may call tools.
    pub(super) fn offered_tools(&self, answer_only: bool) -> Option<Arc<[ToolSpec]>> {
        let state = &self.state;
        let aside = state
            .progress
            .set_aside
            .as_deref()
            .filter(|_| !answer_only)?;
        let offered: Arc<[ToolSpec]> = state
            .tools
            .iter()
            .filter(|t| t.name != aside)
            .cloned()
            .collect();
        (!offered.is_empty() && offered.len() < state.tools.len()).then_some(offered)
    }

    /// Why a call to the set-aside tool `aside` is not run this round.
    pub(super) fn set_aside_reason(&self, aside: &str) -> String {
        let why = match &self.state.progress.failing_streak {
            Some(streak)
                if streak.tool == aside && streak.count >= self.state.budget.loop_threshold =>
            {
                format!("{} calls of it failed in a row", streak.count)
            }
            _ if self.state.progress.set_aside_found_nothing => {
                "the same call found no match twice".to_string()
            }
            _ => "the same call failed twice".to_string(),
        };
        format!(
            "`{aside}` is set aside for this turn, after {why}; call {} instead",
            either(&self.other_tools(aside))
        )
    }

    /// The names of the run's tools other than `tool`.
    fn other_tools(&self, tool: &str) -> Vec<&str> {
        self.state
            .tools
            .iter()
            .map(|t| t.name.as_str())
            .filter(|name| *name != tool)
            .collect()
    }
}
