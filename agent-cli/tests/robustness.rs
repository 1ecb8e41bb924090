//! The built `agent` binary under bad input and bad luck: time limits out
//! of range, API keys with line breaks, empty tasks, malformed base URLs,
//! SIGTERM and SIGKILL mid-run, a trace that cannot be written, a hung
//! server, a rejected chat command, and `replay --verify` of a killed
//! run. Each ends with one clear line on stderr and the documented exit
//! code, and a trace is never torn but at its very end.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{agent, output, tool_names};

use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use agent_core::trace::read_trace;
use agent_native::testing::{Canned, CannedServer, refused_url};
use serde_json::{Value, json};

async fn wait(child: Child) -> Output {
    tokio::task::spawn_blocking(move || child.wait_with_output().unwrap())
        .await
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).to_string()
}

/// Exactly one line on stderr, returned.
fn one_line(out: &Output) -> String {
    let err = text(&out.stderr);
    assert_eq!(err.trim_end().lines().count(), 1, "stderr: {err}");
    assert!(!err.contains("panicked"), "{err}");
    err.trim_end().to_string()
}

/// Sends `signal` (`TERM`, `KILL`…) to a process with the `kill` command.
fn kill(signal: &str, pid: u32) {
    let sent = Command::new("kill")
        .args([&format!("-{signal}"), &pid.to_string()])
        .status()
        .unwrap();
    assert!(sent.success(), "kill -{signal} {pid}");
}

/// Waits until the server has received `n` requests.
async fn requests_reach(server: &CannedServer, n: usize) {
    let started = Instant::now();
    while server.requests().len() < n {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "the server got {} requests, not {n}",
            server.requests().len()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Every line of a trace is a whole JSON record, except perhaps a torn
/// last line (no newline at its end); `read_trace` reads all the whole
/// ones. Returns how many records there are.
fn check_trace_lines(path: &Path) -> usize {
    let content = std::fs::read(path).unwrap();
    let mut lines: Vec<&[u8]> = content.split(|&b| b == b'\n').collect();
    let torn = lines.pop().unwrap();
    for (i, line) in lines.iter().enumerate() {
        let record: Value = serde_json::from_slice(line)
            .unwrap_or_else(|e| panic!("line {} of {} is torn: {e}", i + 1, lines.len()));
        assert_eq!(record["seq"], i as u64, "line {}", i + 1);
    }
    // A write cut just before its newline leaves a whole record.
    let whole_tail = !torn.is_empty() && serde_json::from_slice::<Value>(torn).is_ok();
    let records = read_trace(path).unwrap();
    assert_eq!(records.len(), lines.len() + usize::from(whole_tail));
    records.len()
}

// ---- usage errors ------------------------------------------------------------

#[test]
fn time_limits_out_of_range_are_usage_errors() {
    let url = refused_url().unwrap();
    let cases = [
        ("--timeout", "1e20"),
        ("--tool-timeout", "1e20"),
        ("--timeout", "1.8e19"),
        ("--request-timeout", "0"),
        ("--request-timeout", "1e-12"),
        ("--timeout", "NaN"),
        ("--tool-timeout", "inf"),
    ];
    for (flag, value) in cases {
        let out = agent()
            .args(["run", "hi", "--base-url", &url, "--model", "m", flag, value])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{flag} {value}");
        let line = one_line(&out);
        assert!(
            line.starts_with(&format!(
                "error: {flag} must be a positive number of seconds, at most 31622400"
            )),
            "{flag} {value}: {line}"
        );
    }
}

#[test]
fn an_api_key_with_a_line_break_is_a_usage_error_naming_its_setting() {
    let url = refused_url().unwrap();
    for key in ["sk-secret\r\nX-Evil: 1", "sk-secret\n", "sk-\rsecret"] {
        let out = agent()
            .args([
                "run",
                "hi",
                "--base-url",
                &url,
                "--model",
                "m",
                "--api-key",
                key,
            ])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{key:?}");
        let line = one_line(&out);
        assert_eq!(
            line, "error: the API key from --api-key is not valid: it contains a line break",
            "{key:?}"
        );
        let out = agent()
            .args(["run", "hi", "--base-url", &url, "--model", "m"])
            .env("OPENAI_API_KEY", key)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{key:?}");
        let line = one_line(&out);
        assert_eq!(
            line, "error: the API key from OPENAI_API_KEY is not valid: it contains a line break",
            "{key:?}"
        );
        // The key itself is never printed.
        assert!(!text(&out.stderr).contains("secret"));
    }
}

#[tokio::test]
async fn an_empty_or_blank_task_is_refused_before_any_request() {
    let server = CannedServer::start(vec![Canned::text("Final Answer: no")])
        .await
        .unwrap();
    for task in ["", "   ", "\n\t  \n"] {
        let mut command = agent();
        command.args(["run", task, "--base-url", server.url(), "--model", "m"]);
        let out = output(command).await;
        assert_eq!(out.status.code(), Some(2), "{task:?}");
        assert_eq!(
            one_line(&out),
            "error: the task is empty: say what the agent should do"
        );
    }
    assert!(server.requests().is_empty());
}

#[test]
fn a_malformed_base_url_is_a_usage_error_not_an_unreachable_server() {
    for (url, reason) in [
        ("http://[::1", "invalid IPv6 address"),
        ("http://127.0.0.1:99999/v1", "invalid port number"),
        (
            "ftp://127.0.0.1/v1",
            "it must start with http:// or https://",
        ),
    ] {
        let out = agent()
            .args(["run", "hi", "--base-url", url, "--model", "m"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{url}");
        let line = one_line(&out);
        assert_eq!(
            line,
            format!(
                "error: invalid base URL `{url}`: {reason} (from --base-url or OPENAI_BASE_URL)"
            )
        );
        // From the environment, the same refusal.
        let out = agent()
            .args(["run", "hi", "--model", "m"])
            .env("OPENAI_BASE_URL", url)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{url}");
        let line = one_line(&out);
        assert!(
            line.contains(&format!("invalid base URL `{url}`")),
            "{line}"
        );
        assert!(!line.contains("cannot reach"), "{line}");
    }
}

// ---- signals -------------------------------------------------------------------

/// A native run whose second model request hangs.
async fn hanging_after_one_tool_round() -> CannedServer {
    CannedServer::start(vec![
        Canned::tool_calls(&[("call_1", "calculator", r#"{"expression": "6*7"}"#)]),
        Canned::Hang,
    ])
    .await
    .unwrap()
}

fn spawn_run(server: &CannedServer, trace: &Path, extra: &[&str]) -> Child {
    let mut command = agent();
    command
        .args([
            "run",
            "What is 6*7?",
            "--transport",
            "native",
            "--base-url",
            server.url(),
            "--model",
            "m",
            "--trace",
        ])
        .arg(trace)
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command.spawn().unwrap()
}

#[tokio::test]
async fn sigterm_mid_run_prints_the_outcome_and_closes_the_trace() {
    let server = hanging_after_one_tool_round().await;
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("terminated.jsonl");
    let child = spawn_run(&server, &trace, &["--json"]);
    requests_reach(&server, 2).await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    kill("TERM", child.id());
    let out = wait(child).await;
    assert_eq!(
        out.status.code(),
        Some(143),
        "stderr: {}",
        text(&out.stderr)
    );
    // The outcome, with the work done before the signal.
    let outcome: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(outcome["stop_reason"]["kind"], "cancelled");
    assert_eq!(outcome["tool_calls"], 1);
    let transcript = outcome["transcript"].as_array().unwrap();
    assert_eq!(transcript[1]["content"], "What is 6*7?");
    assert_eq!(transcript[3]["content"], "42");
    // The trace is closed with its stop record.
    check_trace_lines(&trace);
    let records = read_trace(&trace).unwrap();
    let last = serde_json::to_value(&records.last().unwrap().event).unwrap();
    assert_eq!(last["type"], "stopped");
    assert_eq!(last["reason"], json!({"kind": "cancelled"}));
    assert_eq!(last["tool_calls"], 1);
    assert!(!text(&out.stderr).contains("panicked"));
}

#[tokio::test]
async fn replay_verify_of_a_killed_run_says_the_trace_is_incomplete() {
    let server = hanging_after_one_tool_round().await;
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("killed.jsonl");
    let child = spawn_run(&server, &trace, &["--quiet"]);
    requests_reach(&server, 2).await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    kill("KILL", child.id());
    let out = wait(child).await;
    assert_eq!(out.status.code(), None, "killed by a signal");
    check_trace_lines(&trace);
    let records = read_trace(&trace).unwrap();
    assert!(
        !records
            .iter()
            .any(|r| matches!(r.event, agent_core::Event::Stopped { .. })),
        "no stop record after kill -9"
    );

    let mut replay = agent();
    replay.args(["replay", "--verify"]).arg(&trace);
    let out = output(replay).await;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    assert_eq!(
        text(&out.stdout).trim(),
        "verify: the trace is incomplete (no stop record: the run was interrupted); 1 of its 1 recorded steps replayed identically"
    );
    assert!(text(&out.stderr).contains("Observation: 42"));

    // A trace whose recorded observation differs from what the tool says
    // now does not replay identically: exit 1.
    let tampered = dir.path().join("tampered.jsonl");
    let content = std::fs::read_to_string(&trace)
        .unwrap()
        .replace(r#""content":"42""#, r#""content":"41""#);
    std::fs::write(&tampered, content).unwrap();
    let mut replay = agent();
    replay.args(["replay", "--verify"]).arg(&tampered);
    let out = output(replay).await;
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    assert!(
        text(&out.stdout).contains("0 of its 1 recorded steps replayed identically"),
        "{}",
        text(&out.stdout)
    );
}

#[tokio::test]
async fn kill_9_never_tears_a_trace_line_but_the_last() {
    // A stream of big text deltas (about 70 kB each, one trace line each),
    // killed at different moments while the trace is being written. (Words
    // that change as they go: a piece repeated over and over is a runaway,
    // and the run would cut the stream itself.)
    let piece: String = (0..5_000).map(|i| format!("forty-two {i} ")).collect();
    let events: Vec<String> = (0..400)
        .map(|_| json!({"choices": [{"index": 0, "delta": {"content": piece}}]}).to_string())
        .collect();
    for delay_ms in [150, 400, 900] {
        let server = CannedServer::start(vec![Canned::Sse {
            events: events.clone(),
            cut: false,
        }])
        .await
        .unwrap();
        let dir = tempfile::tempdir().unwrap();
        let trace = dir.path().join("killed.jsonl");
        let child = spawn_run(&server, &trace, &["--quiet"]);
        requests_reach(&server, 1).await;
        tokio::time::sleep(Duration::from_millis(delay_ms)).await;
        kill("KILL", child.id());
        let out = wait(child).await;
        assert_eq!(out.status.code(), None, "killed by a signal");
        let records = check_trace_lines(&trace);
        assert!(
            records >= 2,
            "run_started and model_request_started at least"
        );
        // A write the kill cut short leaves a torn last line: it is read
        // past, and the killed run's trace still replays.
        let mut content = std::fs::read(&trace).unwrap();
        if content.ends_with(b"\n") {
            let torn = format!(
                r#"{{"v":1,"seq":{records},"t_ms":1,"event":{{"type":"text_delta","text":"forty-two fo"#
            );
            content.extend_from_slice(torn.as_bytes());
            std::fs::write(&trace, content).unwrap();
        }
        assert_eq!(check_trace_lines(&trace), records);
        let mut replay = agent();
        replay.args(["replay", "--verify"]).arg(&trace);
        let out = output(replay).await;
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        assert!(
            text(&out.stdout).contains("the trace is incomplete"),
            "{}",
            text(&out.stdout)
        );
    }
}

// ---- a trace that cannot be written ----------------------------------------------------

#[tokio::test]
async fn a_trace_that_cannot_be_written_is_reported_and_the_answer_still_printed() {
    let server = CannedServer::start(vec![Canned::text(
        "Thought: easy.\nFinal Answer: forty-two",
    )])
    .await
    .unwrap();
    let mut command = agent();
    command.args([
        "run",
        "What is 6*7?",
        "--quiet",
        "--base-url",
        server.url(),
        "--model",
        "m",
        "--trace",
        "/dev/full",
    ]);
    let out = output(command).await;
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "forty-two\n");
    let line = one_line(&out);
    assert!(
        line.starts_with("error: the trace is incomplete: trace file /dev/full:"),
        "{line}"
    );
}

// ---- a hung server -------------------------------------------------------------------------

#[tokio::test]
async fn a_hung_server_ends_the_same_way_every_time() {
    let server = CannedServer::start(vec![Canned::Hang; 4]).await.unwrap();
    for (run, stream) in [(1, true), (2, true), (3, true), (4, false)] {
        let mut command = agent();
        command.args([
            "run",
            "What is 6*7?",
            "--quiet",
            "--base-url",
            server.url(),
            "--model",
            "m",
            "--request-timeout",
            "0.5",
            "--timeout",
            "30",
        ]);
        if !stream {
            command.arg("--no-stream");
        }
        let started = Instant::now();
        let out = output(command).await;
        let elapsed = started.elapsed();
        assert_eq!(
            out.status.code(),
            Some(4),
            "run {run}: {}",
            text(&out.stderr)
        );
        assert_eq!(
            one_line(&out),
            "error: model request timed out after 500 ms",
            "run {run}"
        );
        assert!(elapsed < Duration::from_secs(10), "run {run}: {elapsed:?}");
        assert!(text(&out.stdout).is_empty());
    }
    assert_eq!(
        server.requests().len(),
        4,
        "a timed-out request is not retried"
    );
}

// ---- chat ------------------------------------------------------------------------------------

#[tokio::test]
async fn chat_keeps_the_previous_tools_after_a_rejected_tools_command() {
    let server = CannedServer::start(vec![Canned::text("forty-two")])
        .await
        .unwrap();
    let url = server.url().to_string();
    let out = tokio::task::spawn_blocking(move || {
        use std::io::Write;
        let mut child = agent()
            .args([
                "chat",
                "--transport",
                "native",
                "--base-url",
                &url,
                "--model",
                "m",
                "--no-stream",
            ])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let script = "/tools calculator\n/tools nope\nWhat is 6*7?\n/exit\n";
        child
            .stdin
            .take()
            .unwrap()
            .write_all(script.as_bytes())
            .unwrap();
        child.wait_with_output().unwrap()
    })
    .await
    .unwrap();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("error: unknown tool or tool group `nope`")
            && stderr.contains("keeping calculator"),
        "{stderr}"
    );
    assert_eq!(text(&out.stdout), "forty-two\n");
    // The task went out with the tools set before the rejected command.
    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(tool_names(&requests[0]), ["calculator"]);
}

// ---- model failures ------------------------------------------------------------------------

#[tokio::test]
async fn a_model_failure_is_one_line_and_exit_4() {
    // (what the server says, the line without streaming, the line streaming)
    let cases: Vec<(Canned, &str, &str)> = vec![
        (
            Canned::status(200, "{\"choices\": [garbage"),
            "error: bad response from the model: the response is not valid JSON",
            "error: bad response from the model: the stream ended before the model finished its turn",
        ),
        (
            Canned::status(
                401,
                "<html>\n<title>401 Authorization Required</title>\n</html>",
            ),
            "error: authentication failed: <html> <title>401 Authorization Required</title> </html>",
            "error: authentication failed: <html> <title>401 Authorization Required</title> </html>",
        ),
        (
            Canned::text("The answer is forty").closed_after(60),
            "error: bad response from the model: the response broke off before its end",
            "error: bad response from the model: the stream ended before the model finished its turn",
        ),
    ];
    for (canned, whole, streamed) in cases {
        for stream in [false, true] {
            let server = CannedServer::start(vec![canned.clone()]).await.unwrap();
            let mut command = agent();
            command.args([
                "run",
                "What is 6*7?",
                "--quiet",
                "--base-url",
                server.url(),
                "--model",
                "m",
            ]);
            if !stream {
                command.arg("--no-stream");
            }
            let out = output(command).await;
            assert_eq!(out.status.code(), Some(4), "{}", text(&out.stderr));
            let line = one_line(&out);
            let expected = if stream { streamed } else { whole };
            assert!(line.starts_with(expected), "stream {stream}: {line}");
        }
    }
}

#[test]
fn a_reader_that_leaves_early_ends_the_output_quietly() {
    // `agent tools | head -1`: the pipe's reader is gone before the first
    // line is written. The program stops without an error of its own.
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let out = Command::new(env!("CARGO_BIN_EXE_agent"))
        .args(["tools", "--tools", "calculator,search,files"])
        .stdout(writer)
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{:?}: {}",
        out.status,
        text(&out.stderr)
    );
    assert_eq!(text(&out.stderr), "");
}
