//! The child process of a stdio server: spawned in its own process group
//! (so the whole tree can be signalled), with stderr kept as a short tail
//! for error messages, the first stdout line kept to explain a server that
//! does not speak MCP, and killed (the whole group) when dropped.

use std::collections::VecDeque;
use std::io;
use std::path::PathBuf;
use std::pin::Pin;
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::Duration;

use process_wrap::tokio::{ChildWrapper, CommandWrap, KillOnDrop};
use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader, ReadBuf};
use tokio::process::{ChildStdin, ChildStdout};

/// At most this much of the server's stderr is kept, from the end.
const STDERR_TAIL_BYTES: usize = 2048;
/// At most this much of the server's first stdout line is kept.
const FIRST_LINE_BYTES: usize = 200;
/// The signal that kills (the same number on every Unix).
#[cfg(unix)]
const SIGKILL: i32 = 9;

/// What to spawn.
pub(crate) struct Spawn<'a> {
    pub server: &'a str,
    pub command: &'a str,
    pub args: &'a [String],
    pub env: &'a std::collections::BTreeMap<String, String>,
    pub cwd: Option<&'a PathBuf>,
}

/// A running server process. Dropping it kills its process group.
pub(crate) struct ServerProcess {
    child: Option<Box<dyn ChildWrapper>>,
    pid: Option<u32>,
    stderr: StderrTail,
    stderr_reader: Option<tokio::task::JoinHandle<()>>,
    first_line: Arc<Mutex<Vec<u8>>>,
}

/// The last bytes a server wrote to stderr; cheap to clone, and it does not
/// keep the process alive.
#[derive(Clone, Default)]
pub(crate) struct StderrTail(Arc<Mutex<VecDeque<u8>>>);

impl StderrTail {
    /// The tail as trimmed text.
    pub(crate) fn text(&self) -> String {
        let tail = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let bytes: Vec<u8> = tail.iter().copied().collect();
        String::from_utf8_lossy(&bytes).trim().to_string()
    }

    fn push_line(&self, line: &[u8]) {
        let mut tail = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        tail.extend(line.iter().copied().chain(std::iter::once(b'\n')));
        let excess = tail.len().saturating_sub(STDERR_TAIL_BYTES);
        tail.drain(..excess);
    }
}

impl ServerProcess {
    /// Spawns the server; returns it with the pipes to speak MCP over.
    pub(crate) fn spawn(spec: &Spawn<'_>) -> io::Result<(Self, TappedStdout, ChildStdin)> {
        let mut command = tokio::process::Command::new(spec.command);
        command
            .args(spec.args)
            .envs(spec.env)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(dir) = spec.cwd {
            command.current_dir(dir);
        }
        let mut wrap = CommandWrap::from(command);
        #[cfg(unix)]
        wrap.wrap(process_wrap::tokio::ProcessGroup::leader());
        wrap.wrap(KillOnDrop);
        let mut child = wrap.spawn()?;
        let pid = child.id();
        let stdin = child.stdin().take();
        let stdout = child.stdout().take();
        let stderr_pipe = child.stderr().take();
        let mut process = Self {
            child: Some(child),
            pid,
            stderr: StderrTail::default(),
            stderr_reader: None,
            first_line: Arc::new(Mutex::new(Vec::new())),
        };
        let (Some(stdin), Some(stdout)) = (stdin, stdout) else {
            process.kill();
            return Err(io::Error::other(
                "the child's stdin or stdout was not piped",
            ));
        };
        if let Some(stderr_pipe) = stderr_pipe {
            process.stderr_reader = Some(tokio::spawn(keep_stderr(
                spec.server.to_string(),
                stderr_pipe,
                process.stderr.clone(),
            )));
        }
        let stdout = TappedStdout {
            inner: stdout,
            first_line: Arc::clone(&process.first_line),
            done: false,
        };
        Ok((process, stdout, stdin))
    }

    /// The process id of the server (its process group's leader).
    pub(crate) fn pid(&self) -> Option<u32> {
        self.pid
    }

    /// The exit status, if the server has exited.
    pub(crate) fn try_exit_status(&mut self) -> Option<ExitStatus> {
        self.child.as_mut()?.try_wait().ok().flatten()
    }

    /// Waits up to `limit` for the server to exit.
    pub(crate) async fn wait_exit(&mut self, limit: Duration) -> Option<ExitStatus> {
        let child = self.child.as_mut()?;
        tokio::time::timeout(limit, child.wait()).await.ok()?.ok()
    }

    /// The end of what the server wrote to stderr, as text.
    pub(crate) fn stderr_tail(&self) -> String {
        self.stderr.text()
    }

    /// A handle on the stderr tail; it does not keep the process alive.
    pub(crate) fn stderr_tail_handle(&self) -> StderrTail {
        self.stderr.clone()
    }

    /// Waits up to `limit` for stderr to reach its end (after the server
    /// exited), so the tail holds its last words.
    pub(crate) async fn settle_stderr(&mut self, limit: Duration) {
        if let Some(reader) = self.stderr_reader.as_mut()
            && tokio::time::timeout(limit, reader).await.is_ok()
        {
            self.stderr_reader = None;
        }
    }

    /// The first line the server wrote to stdout, if it is not JSON (that
    /// is, the server does not speak MCP on stdout).
    pub(crate) fn non_json_first_line(&self) -> Option<String> {
        let line = self
            .first_line
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let text = String::from_utf8_lossy(&line);
        let text = text.trim();
        // JSON-RPC messages are objects; a long one is cut, so only its
        // start is looked at.
        if text.is_empty() || text.starts_with('{') {
            return None;
        }
        Some(text.to_string())
    }

    /// Kills the process group at once and reaps the leader in the background.
    pub(crate) fn kill(&mut self) {
        let Some(mut child) = self.child.take() else {
            return;
        };
        if let Ok(Some(_)) = child.try_wait() {
            // Exited and reaped; other members of its group may remain.
            #[cfg(unix)]
            let _ = child.signal(SIGKILL);
            return;
        }
        if let Err(error) = child.start_kill() {
            tracing::debug!(pid = ?self.pid, %error, "killing an MCP server failed");
        }
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => {
                runtime.spawn(async move {
                    let _ = child.wait().await;
                });
            }
            // Without a runtime, dropping the child leaves reaping to Tokio.
            Err(_) => drop(child),
        }
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Reads the server's stderr to its end, logging each line and keeping the
/// last [`STDERR_TAIL_BYTES`].
async fn keep_stderr(server: String, pipe: tokio::process::ChildStderr, tail: StderrTail) {
    let mut lines = BufReader::new(pipe).split(b'\n');
    while let Ok(Some(line)) = lines.next_segment().await {
        tracing::debug!(server = %server, "stderr: {}", String::from_utf8_lossy(&line));
        tail.push_line(&line);
    }
}

/// The server's stdout, which records its first line on the way through.
pub(crate) struct TappedStdout {
    inner: ChildStdout,
    first_line: Arc<Mutex<Vec<u8>>>,
    done: bool,
}

impl AsyncRead for TappedStdout {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let poll = Pin::new(&mut self.inner).poll_read(cx, buf);
        if !self.done {
            let fresh = &buf.filled()[before..];
            let mut line = self
                .first_line
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            let end = fresh.iter().position(|&b| b == b'\n');
            let take = end.unwrap_or(fresh.len());
            let room = FIRST_LINE_BYTES.saturating_sub(line.len());
            line.extend_from_slice(&fresh[..take.min(room)]);
            let done = end.is_some() || line.len() >= FIRST_LINE_BYTES;
            drop(line);
            self.done = done;
        }
        poll
    }
}
