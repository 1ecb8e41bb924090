//! A computation with numbers from memory: the turn after it must look
//! them up ([`Budget::ground_numbers`](crate::Budget)). A computing call
//! whose numbers are in no tool result, and are no slips of known ones, is
//! sent back with a message that says to look the facts up first; a 0.5B
//! model that has not looked anything up makes the same call again
//! instead (`2015 - 1984` for "how many years after the Eiffel Tower was
//! completed"), which then runs as the model insisted. So the turn after
//! such a call must call one of the run's tools that find things (a
//! grammar of those tools and no final answer on the text transport,
//! `tool_choice: "required"` on the native one), once per run. The turn
//! after that is free: a model that was right about its numbers makes its
//! call again, and it runs.

use serde::{Deserialize, Serialize};

/// Whether the run made, or is making, the model look its numbers up.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct LookUpFirst {
    /// The next request must call a tool that finds things.
    pending: bool,
    /// A turn was made to look up already (once per run).
    used: bool,
}

impl LookUpFirst {
    /// A computing call was sent back for numbers from memory: the next
    /// request must look them up, unless a turn did so already.
    pub(super) fn force(&mut self) {
        if !self.used {
            self.pending = true;
            self.used = true;
        }
    }

    /// Whether the request being built must call a tool that finds things.
    pub(super) fn pending(&self) -> bool {
        self.pending
    }

    /// The model replied to a request: a forced lookup turn is over.
    pub(super) fn answered(&mut self) {
        self.pending = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_turn_after_numbers_from_memory_must_look_up_once_per_run() {
        let mut look_up = LookUpFirst::default();
        assert!(!look_up.pending());
        look_up.force();
        assert!(look_up.pending());
        look_up.answered();
        assert!(!look_up.pending(), "one turn");
        look_up.force();
        assert!(!look_up.pending(), "once per run");
    }
}
