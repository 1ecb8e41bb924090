//! [`Watchdog`]: runs each case on a worker thread and waits for it a
//! bounded time, so an input that makes the code under test loop forever
//! is reported instead of hanging the fuzzer. A worker that does not
//! answer in time is abandoned (a thread cannot be stopped: it keeps
//! running until the process exits, or ends when its case does); the next
//! case gets a new one. While `max_stuck` abandoned workers are still
//! running the watchdog refuses more cases, so a hang found many times
//! does not fill the machine with spinning threads (a case that was only
//! slow frees its place when it ends). Panics are caught on the worker
//! with [`catch`] and handed back.

use std::fmt;
use std::sync::Arc;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender, TryRecvError};
use std::thread;
use std::time::Duration;

use super::case::Case;
use super::hook::{Panicked, catch};

/// What the worker runs for each case.
type Job<R> = Arc<dyn Fn(&Case) -> R + Send + Sync>;

/// Why a case gave no result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Stalled {
    /// No result within the limit; its worker was abandoned.
    TimedOut,
    /// The case was not run: too many workers are stuck, or none could
    /// be started.
    Refused(String),
}

/// A worker thread: cases go in, results come out, one at a time.
struct Worker<R> {
    cases: Sender<Case>,
    results: Receiver<Result<R, Panicked>>,
}

/// Runs cases on a worker thread with a time limit; see the module docs.
pub(crate) struct Watchdog<R> {
    job: Job<R>,
    limit: Duration,
    max_stuck: usize,
    /// The result channels of abandoned workers, while they run.
    abandoned: Vec<Receiver<Result<R, Panicked>>>,
    worker: Option<Worker<R>>,
}

impl<R> fmt::Debug for Watchdog<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Watchdog")
            .field("limit", &self.limit)
            .field("max_stuck", &self.max_stuck)
            .field("abandoned", &self.abandoned.len())
            .finish_non_exhaustive()
    }
}

impl<R: Send + 'static> Watchdog<R> {
    /// A watchdog running `job`, waiting `limit` for each case, that
    /// abandons at most `max_stuck` workers.
    pub(crate) fn new(
        limit: Duration,
        max_stuck: usize,
        job: impl Fn(&Case) -> R + Send + Sync + 'static,
    ) -> Self {
        Self {
            job: Arc::new(job),
            limit,
            max_stuck,
            abandoned: Vec::new(),
            worker: None,
        }
    }

    /// The time limit per case.
    pub(crate) fn limit(&self) -> Duration {
        self.limit
    }

    /// Abandoned workers still running their case.
    pub(crate) fn stuck(&mut self) -> usize {
        self.abandoned
            .retain(|results| matches!(results.try_recv(), Err(TryRecvError::Empty)));
        self.abandoned.len()
    }

    /// Whether it refuses further cases.
    pub(crate) fn exhausted(&mut self) -> bool {
        self.stuck() >= self.max_stuck
    }

    /// Runs `case` on the worker: its result, or its panic, or why there
    /// is neither.
    pub(crate) fn run(&mut self, case: &Case) -> Result<Result<R, Panicked>, Stalled> {
        if self.exhausted() {
            return Err(Stalled::Refused(format!(
                "{} worker threads are stuck already; no more cases are run",
                self.abandoned.len()
            )));
        }
        let worker = match self.worker.take() {
            Some(worker) => worker,
            None => self.spawn()?,
        };
        if worker.cases.send(case.clone()).is_err() {
            return Err(Stalled::Refused("the worker thread has ended".into()));
        }
        match worker.results.recv_timeout(self.limit) {
            Ok(result) => {
                self.worker = Some(worker);
                Ok(result)
            }
            Err(RecvTimeoutError::Timeout) => {
                // Without its case channel, the thread ends when the case
                // does; its result tells that it has.
                self.abandoned.push(worker.results);
                Err(Stalled::TimedOut)
            }
            Err(RecvTimeoutError::Disconnected) => {
                Err(Stalled::Refused("the worker thread has ended".into()))
            }
        }
    }

    fn spawn(&self) -> Result<Worker<R>, Stalled> {
        let (cases, inbox) = mpsc::channel::<Case>();
        let (outbox, results) = mpsc::channel();
        let job = Arc::clone(&self.job);
        thread::Builder::new()
            .name("fuzz-worker".into())
            .spawn(move || {
                for case in inbox {
                    if outbox.send(catch(|| job(&case))).is_err() {
                        break;
                    }
                }
            })
            .map_err(|e| Stalled::Refused(format!("cannot start a worker thread: {e}")))?;
        Ok(Worker { cases, results })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::Instant;

    /// `wait` runs until `release` is set, `boom` panics; any other case
    /// gives its length.
    fn waiter(release: &Arc<AtomicBool>) -> Watchdog<usize> {
        let release = Arc::clone(release);
        // The limit leaves time to print a panic's backtrace.
        Watchdog::new(Duration::from_secs(1), 2, move |case| {
            match case.text.as_str() {
                "boom" => panic!("boom"),
                "wait" => {
                    while !release.load(Ordering::SeqCst) {
                        thread::sleep(Duration::from_millis(5));
                    }
                }
                _ => {}
            }
            case.text.len()
        })
    }

    #[test]
    fn a_case_over_the_limit_is_reported_and_the_next_gets_a_new_worker() {
        let release = Arc::new(AtomicBool::new(false));
        let mut dog = waiter(&release);
        assert_eq!(dog.run(&Case::new("1")), Ok(Ok(1)));
        let started = Instant::now();
        assert_eq!(dog.run(&Case::new("wait")), Err(Stalled::TimedOut));
        assert!(started.elapsed() < Duration::from_secs(4));
        assert_eq!(dog.stuck(), 1);
        assert_eq!(dog.run(&Case::new("22")), Ok(Ok(2)));
        let Ok(Err(panicked)) = dog.run(&Case::new("boom")) else {
            panic!("the panic is handed back")
        };
        assert_eq!(panicked.message, "boom");
        assert_eq!(dog.run(&Case::new("333")), Ok(Ok(3)));
        assert_eq!(dog.run(&Case::new("wait")), Err(Stalled::TimedOut));
        assert!(dog.exhausted());
        assert!(matches!(dog.run(&Case::new("1")), Err(Stalled::Refused(_))));
        // Cases that end free their places.
        release.store(true, Ordering::SeqCst);
        let deadline = Instant::now() + Duration::from_secs(5);
        while dog.stuck() > 0 && Instant::now() < deadline {
            thread::sleep(Duration::from_millis(10));
        }
        assert_eq!(dog.stuck(), 0);
        assert_eq!(dog.run(&Case::new("1")), Ok(Ok(1)));
    }
}
