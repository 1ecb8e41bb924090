//! JSONL traces: one record per event, written and flushed as it happens
//! so a crash loses nothing already done; reading them back; and
//! [`ReplayModel`], which replays a trace's model turns.

mod replay;

pub use replay::ReplayModel;

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::event::{Event, EventSink};

/// The trace format version written in every record.
pub const TRACE_FORMAT_VERSION: u32 = 1;

/// One line of a trace.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TraceRecord {
    /// Trace format version.
    pub v: u32,
    /// Sequence number from 0.
    pub seq: u64,
    /// Wall-clock time, milliseconds since the Unix epoch.
    pub t_ms: u64,
    /// The event.
    pub event: Event,
}

/// A trace that cannot be written or read.
#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    /// The file could not be opened, read or written.
    #[error("trace file {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// A record could not be written as JSON.
    #[error("trace file {path}: cannot encode a record: {message}")]
    Encode {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// A line is not a trace record.
    #[error("trace file {path}, line {line}: {message}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        message: String,
    },
}

/// Writes events to a JSONL file, one flushed line each. A write that
/// fails is reported once through `tracing` and kept: [`error`](TraceWriter::error)
/// says whether the trace is incomplete.
#[derive(Debug)]
pub struct TraceWriter {
    path: PathBuf,
    file: Mutex<File>,
    seq: AtomicU64,
    failed: AtomicBool,
    error: Mutex<Option<String>>,
}

impl TraceWriter {
    /// Creates (or truncates) the trace file.
    pub fn create(path: impl AsRef<Path>) -> Result<Self, TraceError> {
        let path = path.as_ref().to_path_buf();
        let file = File::create(&path).map_err(|source| TraceError::Io {
            path: path.clone(),
            source,
        })?;
        Ok(Self {
            path,
            file: Mutex::new(file),
            seq: AtomicU64::new(0),
            failed: AtomicBool::new(false),
            error: Mutex::new(None),
        })
    }

    /// Writes one record and flushes it.
    pub fn write(&self, event: &Event) -> Result<(), TraceError> {
        let record = TraceRecord {
            v: TRACE_FORMAT_VERSION,
            seq: self.seq.fetch_add(1, Ordering::Relaxed),
            t_ms: now_ms(),
            event: event.clone(),
        };
        let mut line = serde_json::to_vec(&record).map_err(|e| TraceError::Encode {
            path: self.path.clone(),
            message: e.to_string(),
        })?;
        line.push(b'\n');
        let mut file = self
            .file
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        file.write_all(&line)
            .and_then(|()| file.flush())
            .map_err(|source| TraceError::Io {
                path: self.path.clone(),
                source,
            })
    }

    /// The file written to.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The first write error, if any write failed (the trace is then
    /// incomplete).
    pub fn error(&self) -> Option<String> {
        self.error
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone()
    }
}

impl EventSink for TraceWriter {
    fn emit(&self, event: &Event) {
        if let Err(err) = self.write(event) {
            // Report once; the run goes on without its trace.
            if !self.failed.swap(true, Ordering::Relaxed) {
                tracing::warn!(error = %err, "trace write failed");
                *self
                    .error
                    .lock()
                    .unwrap_or_else(|poisoned| poisoned.into_inner()) = Some(err.to_string());
            }
        }
    }
}

/// Reads a whole trace. Blank lines are skipped; a malformed line is an
/// error naming its line number, except a torn last line: the writer puts
/// each record and its newline down together, so a file that does not end
/// with a newline was cut while writing its last line (a crash), which is
/// ignored.
pub fn read_trace(path: impl AsRef<Path>) -> Result<Vec<TraceRecord>, TraceError> {
    let path = path.as_ref();
    let io = |source| TraceError::Io {
        path: path.to_path_buf(),
        source,
    };
    let text = std::fs::read(path).map_err(io)?;
    let torn = !text.is_empty() && !text.ends_with(b"\n");
    let text = String::from_utf8_lossy(&text);
    let lines: Vec<&str> = text.split('\n').collect();
    let last = lines.iter().rposition(|l| !l.trim().is_empty());
    let mut records = Vec::with_capacity(lines.len());
    for (i, line) in lines.iter().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<TraceRecord>(line) {
            Ok(record) => records.push(record),
            Err(_) if torn && Some(i) == last => {}
            Err(e) => {
                return Err(TraceError::Parse {
                    path: path.to_path_buf(),
                    line: i + 1,
                    message: e.to_string(),
                });
            }
        }
    }
    Ok(records)
}

/// Milliseconds since the Unix epoch.
pub(crate) fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}
