//! Storing a run: JSON with the format version and the id of the
//! transport it was made with, checked when it is read back.

use std::sync::Arc;

use serde::Deserialize;

use crate::budget::Estimator;
use crate::transport::Transport;

use super::{RUN_FORMAT_VERSION, Run, RunError, State};

impl Run {
    /// Writes the run as JSON, with its format version and transport id.
    pub fn to_json(&self) -> Result<String, RunError> {
        serde_json::to_string(&self.state).map_err(|e| RunError::Encode(e.to_string()))
    }

    /// Reads a run stored by [`to_json`](Run::to_json). The format version
    /// is checked first, then that `transport` is the one the run was made
    /// with; `estimator` sizes the requests from now on.
    pub fn from_json(
        json: &str,
        transport: Arc<dyn Transport>,
        estimator: Estimator,
    ) -> Result<Self, RunError> {
        #[derive(Deserialize)]
        struct Probe {
            format_version: Option<u32>,
        }
        let probe: Probe =
            serde_json::from_str(json).map_err(|e| RunError::Decode(e.to_string()))?;
        match probe.format_version {
            Some(RUN_FORMAT_VERSION) => {}
            Some(found) => {
                return Err(RunError::UnsupportedFormat {
                    found,
                    supported: RUN_FORMAT_VERSION,
                });
            }
            None => return Err(RunError::Decode("missing `format_version`".into())),
        }
        let state: State =
            serde_json::from_str(json).map_err(|e| RunError::Decode(e.to_string()))?;
        let given = transport.id();
        if state.transport != given {
            return Err(RunError::TransportMismatch {
                stored: state.transport,
                given,
            });
        }
        Ok(Self {
            state,
            transport,
            estimator,
        })
    }
}
