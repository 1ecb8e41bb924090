//! The live view: a spinner while the model thinks, then each Thought,
//! Action and Observation as it happens, the final answer and a summary
//! line. It writes to stderr (stdout keeps the answer or `--json`), with
//! colour only on a terminal and when `NO_COLOR` is unset.

use std::io::{IsTerminal, Write};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use agent_core::Event;
use agent_core::event::EventSink;

/// How long an observation may be on screen, in characters.
const OBSERVATION_CHARS: usize = 300;

#[derive(Default)]
struct Spinner {
    active: bool,
    label: String,
    frame: usize,
    drawn: bool,
}

/// The live view; also prints traces for `agent replay`.
pub(crate) struct LiveView {
    colour: bool,
    terminal: bool,
    spinner: Arc<Mutex<Spinner>>,
}

const FRAMES: [&str; 10] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

impl LiveView {
    /// A view of stderr. On a terminal a spinner task runs on the current runtime.
    pub(crate) fn new() -> Arc<Self> {
        let terminal = std::io::stderr().is_terminal();
        let colour = terminal && std::env::var_os("NO_COLOR").is_none();
        let view = Arc::new(Self {
            colour,
            terminal,
            spinner: Arc::new(Mutex::new(Spinner::default())),
        });
        if terminal && let Ok(handle) = tokio::runtime::Handle::try_current() {
            let spinner = Arc::clone(&view.spinner);
            handle.spawn(async move {
                let mut tick = tokio::time::interval(Duration::from_millis(100));
                loop {
                    tick.tick().await;
                    let Ok(mut s) = spinner.lock() else { return };
                    if s.active {
                        s.frame = (s.frame + 1) % FRAMES.len();
                        let line = format!("\r\x1b[2K{} {}", FRAMES[s.frame], s.label);
                        let mut err = std::io::stderr().lock();
                        let _ = err.write_all(line.as_bytes());
                        let _ = err.flush();
                        s.drawn = true;
                    }
                }
            });
        }
        view
    }

    fn paint(&self, code: &str, text: &str) -> String {
        if self.colour {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }

    /// Prints lines, clearing the spinner first.
    fn print(&self, text: &str) {
        let mut spinner = self.spinner.lock().unwrap_or_else(|p| p.into_inner());
        let mut err = std::io::stderr().lock();
        if spinner.drawn {
            let _ = err.write_all(b"\r\x1b[2K");
            spinner.drawn = false;
        }
        spinner.active = false;
        let _ = writeln!(err, "{text}");
        let _ = err.flush();
    }

    fn spin(&self, label: String) {
        if self.terminal
            && let Ok(mut s) = self.spinner.lock()
        {
            s.active = true;
            s.label = label;
        }
    }

    /// Stops the spinner and clears its line.
    pub(crate) fn finish(&self) {
        let mut spinner = self.spinner.lock().unwrap_or_else(|p| p.into_inner());
        if spinner.drawn {
            let mut err = std::io::stderr().lock();
            let _ = err.write_all(b"\r\x1b[2K");
            let _ = err.flush();
            spinner.drawn = false;
        }
        spinner.active = false;
    }
}

fn summary_line(reason: &str, steps: u32, tool_calls: u32, tokens: u64, elapsed_ms: u64) -> String {
    format!(
        "── stop: {reason} | steps {steps} | tool calls {tool_calls} | tokens {tokens} | {:.1} s",
        elapsed_ms as f64 / 1000.0
    )
}

/// One line for the screen: newlines shown as ⏎, cut at `max` characters.
pub(crate) fn one_line(text: &str, max: usize) -> String {
    let flat: String = text.trim().replace('\n', " ⏎ ");
    if flat.chars().count() <= max {
        flat
    } else {
        let cut: String = flat.chars().take(max).collect();
        format!("{cut}… ({} chars)", text.chars().count())
    }
}

impl EventSink for LiveView {
    fn emit(&self, event: &Event) {
        match event {
            Event::RunStarted {
                task,
                context,
                transport,
                tools,
                ..
            } => {
                self.print(&format!(
                    "{} {task}\n{}",
                    self.paint("1", "Task:"),
                    self.paint(
                        "2",
                        &format!("   transport {transport} · tools {}", tools.join(", "))
                    )
                ));
                if let Some(context) = context {
                    self.print(&self.paint("2", &format!("   after the task: {context}")));
                }
            }
            Event::ModelRequestStarted {
                step, answer_only, ..
            } => {
                if *answer_only {
                    self.print(&self.paint("2", "   (answer turn: no more tool calls)"));
                }
                self.spin(format!("thinking… (step {step})"))
            }
            Event::Notice { message } => {
                self.print(&format!("{} {message}", self.paint("33", "Note:")))
            }
            Event::Thought { text } => self.print(&format!(
                "{} {}",
                self.paint("36", "Thought:"),
                one_line(text, 400)
            )),
            Event::ToolCallStarted { call } => self.print(&format!(
                "{} {} {}",
                self.paint("33", "Action:"),
                self.paint("1", &call.name),
                one_line(&call.arguments.to_string(), 200)
            )),
            Event::Observation { observation } => {
                let label = if observation.is_error() {
                    self.paint("31", "Observation:")
                } else {
                    self.paint("32", "Observation:")
                };
                self.print(&format!(
                    "{label} {}",
                    one_line(&observation.content, OBSERVATION_CHARS)
                ));
            }
            Event::Malformed { reason } => self.print(&format!(
                "{} {reason}",
                self.paint("31", "Malformed output:")
            )),
            Event::FinalAnswer { answer } => {
                self.print(&format!("{} {answer}", self.paint("1;32", "Final Answer:")))
            }
            Event::Stopped {
                reason,
                forced_answer,
                ungrounded_numbers,
                steps,
                tool_calls,
                usage,
                elapsed_ms,
            } => {
                let mut reason = if *forced_answer {
                    format!("{reason}, answered on a forced turn")
                } else {
                    reason.to_string()
                };
                if !ungrounded_numbers.is_empty() {
                    reason.push_str(&format!(
                        ", numbers in no tool result: {}",
                        ungrounded_numbers.join(", ")
                    ));
                }
                self.print(&self.paint(
                    "2",
                    &summary_line(
                        &reason,
                        *steps,
                        *tool_calls,
                        usage.total_tokens,
                        *elapsed_ms,
                    ),
                ))
            }
            _ => {}
        }
    }
}
