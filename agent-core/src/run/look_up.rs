//! A computation with numbers from memory: the turn after it must look
//! them up ([`Budget::ground_numbers`](crate::Budget)). A computing call
//! sent back to look its numbers up (numbers in no tool result that are
//! no slips of known ones, no runaway digits, no arithmetic worked out in
//! words, no line numbers) says to look the facts up first; a 0.5B model
//! that has not looked anything up makes the same call again instead
//! (`2015 - 1984` for "how many years after the Eiffel Tower was
//! completed"), which then runs as the model insisted. So the turn after
//! such a call must call one of the run's tools that find things, once
//! per run: the text transport sends a grammar of those tools and no
//! final answer, the native one `tool_choice: "required"`, and a call to
//! another tool on that turn is not run (a native model may still make
//! its computing call). Not when the same round also made a lookup that
//! ran. The turn after the lookup is free: a model sure of its numbers
//! makes its call again (sent back once more if the lookup brought new
//! numbers, see `Grounding::check`), and it runs.

use serde::{Deserialize, Serialize};

/// Whether the run made, or is making, the model look its numbers up.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub(super) struct LookUpFirst {
    /// The next request must call a tool that finds things.
    pending: bool,
    /// The request being built was made to look up.
    requested: bool,
    /// The reply being read answers a request made to look up: its calls
    /// to other tools are not run.
    on_turn: bool,
    /// A request was made to look up already (once per run).
    used: bool,
}

impl LookUpFirst {
    /// A computing call was sent back for numbers from memory: the next
    /// request must look them up, unless one did so already.
    pub(super) fn force(&mut self) {
        self.pending = !self.used;
    }

    /// The round that sent the call back also made a lookup that ran: the
    /// next request need not make another.
    pub(super) fn looked_up(&mut self) {
        self.pending = false;
    }

    /// Whether the request being built must call a tool that finds things.
    pub(super) fn pending(&self) -> bool {
        self.pending
    }

    /// The request being built was made to look up (it offers tools that
    /// find things): the once per run is spent.
    pub(super) fn requested(&mut self) {
        self.requested = true;
        self.used = true;
    }

    /// The model replied to a request: a forced lookup turn is over, and
    /// its calls are read as the reply to one.
    pub(super) fn answered(&mut self) {
        self.on_turn = self.requested;
        self.requested = false;
        self.pending = false;
    }

    /// Whether the calls being planned reply to a request made to look up.
    pub(super) fn on_turn(&self) -> bool {
        self.on_turn
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
        // Not requested (an answer turn came first): not spent.
        look_up.answered();
        assert!(!look_up.pending() && !look_up.on_turn());
        look_up.force();
        look_up.requested();
        look_up.answered();
        assert!(!look_up.pending(), "one turn");
        assert!(look_up.on_turn(), "its calls are read as a lookup turn's");
        look_up.answered();
        assert!(!look_up.on_turn());
        look_up.force();
        assert!(!look_up.pending(), "once per run");
    }

    #[test]
    fn a_round_that_also_looked_up_forces_no_lookup() {
        let mut look_up = LookUpFirst::default();
        look_up.force();
        look_up.looked_up();
        assert!(!look_up.pending());
        look_up.force();
        assert!(look_up.pending(), "still unspent");
    }
}
