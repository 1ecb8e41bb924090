//! [`RunError`]: misuse of the state machine, or a stored run that cannot
//! be read.

use crate::budget::BudgetError;

/// Misuse of the state machine, or a stored run that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RunError {
    /// The budget cannot work.
    #[error("invalid budget: {0}")]
    Budget(#[from] BudgetError),
    /// A stored run of another format version.
    #[error("unsupported run format version {found} (this build reads version {supported})")]
    UnsupportedFormat {
        /// The version in the stored run.
        found: u32,
        /// [`RUN_FORMAT_VERSION`](super::RUN_FORMAT_VERSION).
        supported: u32,
    },
    /// A stored run that is not valid JSON for a run.
    #[error("cannot read stored run: {0}")]
    Decode(String),
    /// The run could not be written as JSON.
    #[error("cannot store the run: {0}")]
    Encode(String),
    /// A stored run resumed with another transport than it was made with.
    #[error("the run was made with the `{stored}` transport, not `{given}`")]
    TransportMismatch {
        /// The transport the run records.
        stored: String,
        /// The transport it was resumed with.
        given: String,
    },
    /// An input that does not fit the current phase.
    #[error("the run expected {expected}, not {got}")]
    UnexpectedInput {
        /// What the run is waiting for.
        expected: &'static str,
        /// What it was given.
        got: &'static str,
    },
    /// Observations that do not answer the pending calls one to one.
    #[error("expected observations for calls {expected:?}, got {got:?}")]
    ObservationMismatch {
        /// Ids of the pending calls.
        expected: Vec<String>,
        /// Ids of the observations given.
        got: Vec<String>,
    },
    /// The outcome was already taken.
    #[error("the run is finished")]
    Finished,
}
