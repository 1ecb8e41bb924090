//! The built `agent` binary: parse, run against a real HTTP test server
//! (both transports, --json, --trace) and replay --verify of that trace,
//! the no-model message, bad flags, unreachable servers, Ctrl-C, tools and
//! call, and the live view in a pseudo-terminal.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{BIN, agent, output, tool_names};

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use agent_native::testing::{Canned, CannedServer};
use serde_json::Value;

fn stdin_output(args: &[&str], input: &str) -> Output {
    use std::io::Write;
    let mut child = agent()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).to_string()
}

#[test]
fn parse_prints_the_decision_as_one_line_of_json() {
    let cases = [
        (
            "Thought: go\nAction: calculator\nAction Input: {\"expression\": \"2+2\"}\nObservation: 5",
            r#"{"kind":"action","tool":"calculator","input":{"expression":"2+2"}}"#,
        ),
        (
            "Thought: done\nFinal Answer: 42",
            r#"{"kind":"final","answer":"42"}"#,
        ),
        (
            "Action 1: Search[Paris]",
            r#"{"kind":"action","tool":"Search","input":"Paris"}"#,
        ),
    ];
    for (input, expected) in cases {
        let out = stdin_output(&["parse"], input);
        assert!(out.status.success());
        assert_eq!(text(&out.stdout).trim(), expected);
        assert_eq!(text(&out.stdout).lines().count(), 1);
    }
    let out = stdin_output(&["parse"], "just prose");
    let value: Value = serde_json::from_str(text(&out.stdout).trim()).unwrap();
    assert_eq!(value["kind"], "error");
    let out = stdin_output(&["parse", "--implicit-final-answer"], "just prose");
    assert!(text(&out.stdout).contains(r#""kind":"final""#));
}

async fn run_and_verify(transport: &str, responses: Vec<Canned>) {
    let server = CannedServer::start(responses).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("run.jsonl");
    let mut command = agent();
    command.args([
        "run",
        "What is (17 * 83) + (12 ** 3)?",
        "--transport",
        transport,
        "--json",
        "--trace",
    ]);
    command
        .arg(&trace)
        .args(["--base-url", server.url(), "--model", "test"]);
    let out = output(command).await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    let outcome: Value = serde_json::from_str(text(&out.stdout).trim()).unwrap();
    assert_eq!(outcome["answer"], "3139");
    assert_eq!(outcome["stop_reason"]["kind"], "final_answer");
    assert_eq!(outcome["tool_calls"], 1);
    assert!(outcome["transcript"].as_array().unwrap().len() >= 4);
    // The server saw a streamed request with the right shape.
    let first = &server.requests()[0];
    assert_eq!(first["stream"], true);
    assert_eq!(first["tools"].is_array(), transport == "native");
    // Replay prints the run and verifies it.
    let out = replay_verifies(&trace, None).await;
    assert!(text(&out.stderr).contains("Final Answer: 3139"));
}

/// `agent replay TRACE --verify` (with `--dir` when given): it must say
/// the replayed outcome is identical. Its output, for more checks.
async fn replay_verifies(trace: &Path, dir: Option<&Path>) -> Output {
    let mut replay = agent();
    replay.args(["replay"]).arg(trace).arg("--verify");
    if let Some(dir) = dir {
        replay.arg("--dir").arg(dir);
    }
    let out = output(replay).await;
    assert_eq!(
        out.status.code(),
        Some(0),
        "stdout: {} stderr: {}",
        text(&out.stdout),
        text(&out.stderr)
    );
    assert!(
        text(&out.stdout).contains("verify: identical"),
        "{}",
        text(&out.stdout)
    );
    out
}

#[tokio::test]
async fn an_answer_with_a_number_no_tool_gave_is_flagged_in_the_outcome_and_the_view() {
    let made_up = "Thought: I know it.\nFinal Answer: It is 1792.";
    let server = CannedServer::start(vec![
        Canned::text(
            "Thought: I will compute it.\nAction: calculator\nAction Input: {\"expression\": \"17 * 83\"}",
        ),
        Canned::text(made_up),
        Canned::text(made_up),
    ])
    .await
    .unwrap();
    let mut command = agent();
    command
        .args(["run", "What is 17 * 83?", "--transport", "text", "--json"])
        .args(["--base-url", server.url(), "--model", "test"]);
    let out = output(command).await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    let outcome: Value = serde_json::from_str(text(&out.stdout).trim()).unwrap();
    assert_eq!(outcome["answer"], "It is 1792.");
    assert_eq!(outcome["ungrounded_numbers"], serde_json::json!(["1792"]));
    assert!(
        text(&out.stderr).contains("numbers in no tool result: 1792"),
        "{}",
        text(&out.stderr)
    );
}

#[tokio::test]
async fn run_text_transport_against_a_test_server_then_replay_verify() {
    run_and_verify(
        "text",
        vec![
            Canned::text("Thought: I will compute it.\nAction: calculator\nAction Input: {\"expression\": \"(17 * 83) + (12 ** 3)\"}"),
            Canned::text("Thought: I know the answer.\nFinal Answer: 3139"),
        ],
    )
    .await;
}

#[tokio::test]
async fn run_native_transport_against_a_test_server_then_replay_verify() {
    run_and_verify(
        "native",
        vec![
            Canned::tool_calls(&[(
                "call_1",
                "calculator",
                r#"{"expression": "(17 * 83) + (12 ** 3)"}"#,
            )]),
            Canned::text("3139"),
        ],
    )
    .await;
}

#[test]
fn no_model_configured_says_what_to_set_in_one_line() {
    let out = agent().args(["run", "hi"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(
        err.contains("OPENAI_BASE_URL")
            && err.contains("AGENT_MODEL")
            && err.contains("cargo xtask demo")
    );
}

#[test]
fn bad_flags_and_unreadable_files_give_one_line_and_a_non_zero_exit() {
    let out = agent().args(["run", "--frobnicate", "x"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr).trim().lines().count(),
        1,
        "{}",
        text(&out.stderr)
    );
    let out = agent()
        .args(["run", "x", "--transport", "smoke-signals"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = agent()
        .args(["replay", "/no/such/trace.jsonl"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(text(&out.stderr).trim().lines().count(), 1);
    assert!(!text(&out.stderr).contains("panicked"));
}

#[test]
fn an_unreachable_server_is_one_clear_line() {
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", closed.local_addr().unwrap());
    drop(closed);
    let out = agent()
        .args(["run", "hi", "--quiet", "--base-url", &url, "--model", "m"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(4));
    let err = text(&out.stderr);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(err.contains("cannot reach the model server"), "{err}");
}

#[tokio::test]
async fn ctrl_c_mid_run_cancels_and_leaves_a_complete_trace() {
    let server = CannedServer::start(vec![
        Canned::tool_calls(&[("c", "calculator", r#"{"expression": "1+1"}"#)]),
        Canned::Hang,
    ])
    .await
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let trace = dir.path().join("cancelled.jsonl");
    let mut command = agent();
    command.args([
        "run",
        "hang",
        "--transport",
        "native",
        "--base-url",
        server.url(),
        "--model",
        "m",
        "--trace",
    ]);
    command
        .arg(&trace)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let child = command.spawn().unwrap();
    let pid = child.id().to_string();
    // Wait until the run is inside the hanging second request.
    for _ in 0..100 {
        if server.requests().len() >= 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(
        Command::new("kill")
            .args(["-INT", &pid])
            .status()
            .unwrap()
            .success()
    );
    let out = tokio::task::spawn_blocking(move || child.wait_with_output().unwrap())
        .await
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(130),
        "stderr: {}",
        text(&out.stderr)
    );
    let last = last_record(&trace);
    assert_eq!(last["event"]["type"], "stopped");
    assert_eq!(last["event"]["reason"]["kind"], "cancelled");
    assert_eq!(last["event"]["tool_calls"], 1);
}

fn last_record(path: &Path) -> Value {
    let content = std::fs::read_to_string(path).unwrap();
    serde_json::from_str(content.lines().last().unwrap()).unwrap()
}

#[test]
fn tools_lists_the_tools_with_their_schemas() {
    let out = agent().args(["tools", "--json"]).output().unwrap();
    assert!(out.status.success());
    let specs: Value = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<&str> = specs
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["calculator", "search", "read_file", "grep", "search_files",]
    );
    let out = agent()
        .args(["tools", "--json", "--write"])
        .output()
        .unwrap();
    let specs: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        specs.as_array().unwrap().len(),
        7,
        "--write adds the writing tools"
    );
    assert_eq!(
        specs[0]["parameters"]["required"],
        serde_json::json!(["expression"])
    );
    let out = agent()
        .args(["tools", "--tools", "calculator"])
        .output()
        .unwrap();
    assert!(text(&out.stdout).contains("calculator(expression: string)"));
}

#[test]
fn call_runs_one_tool_through_the_gateway() {
    let out = agent()
        .args([
            "call",
            "calculator",
            r#"{"expression": "(17 * 83) + (12 ** 3)"}"#,
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(text(&out.stdout).trim(), "3139");
    let out = agent()
        .args(["call", "calculator", "2 ** 10"])
        .output()
        .unwrap();
    assert_eq!(text(&out.stdout).trim(), "1024");
    let out = agent()
        .args(["call", "calculator", r#"{"expression": 5, "x": 1}"#])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).starts_with("Error (invalid arguments)"),
        "{}",
        text(&out.stderr)
    );
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "hello\n").unwrap();
    let root = dir.path().to_str().unwrap();
    let out = agent()
        .args(["call", "read_file", r#"{"path": "a.txt"}"#, "--dir", root])
        .output()
        .unwrap();
    assert_eq!(text(&out.stdout).trim(), "1| hello");
    let out = agent()
        .args([
            "call",
            "read_file",
            r#"{"path": "../etc/passwd"}"#,
            "--dir",
            root,
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).starts_with("Error (denied)"));
    let out = agent()
        .args([
            "call",
            "write_file",
            r#"{"path": "b.txt", "content": "x"}"#,
            "--dir",
            root,
            "--tools",
            "read_file",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).starts_with("Error (unknown tool)"),
        "{}",
        text(&out.stderr)
    );
    assert!(!dir.path().join("b.txt").exists());
}

fn strip_ansi(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            for n in chars.by_ref() {
                if n.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[tokio::test]
async fn the_live_view_in_a_pseudo_terminal() {
    let server = CannedServer::start(vec![
        Canned::text("Thought: I should use the calculator.\nAction: calculator\nAction Input: {\"expression\": \"6*7\"}"),
        Canned::text("Thought: I know it.\nFinal Answer: 42"),
    ])
    .await
    .unwrap();
    // `script` runs the binary in a pseudo-terminal, as a user's shell would.
    let command_line = format!(
        "{BIN} run 'What is 6*7?' --base-url {} --model m",
        server.url()
    );
    let mut command = Command::new("script");
    command
        .args(["-qec", &command_line, "/dev/null"])
        .env_remove("NO_COLOR")
        .env("AGENT_CONSTRAIN", "off");
    for var in ["OPENAI_BASE_URL", "AGENT_MODEL", "OPENAI_API_KEY"] {
        command.env_remove(var);
    }
    let out = output(command).await;
    let raw = text(&out.stdout);
    assert!(raw.contains("\x1b["), "colour on a terminal");
    let screen = strip_ansi(&raw);
    for expected in [
        "Task: What is 6*7?",
        "Thought: I should use the calculator.",
        "Action: calculator",
        "Observation: 42",
        "Final Answer: 42",
        "stop: final_answer",
    ] {
        assert!(
            screen.contains(expected),
            "missing {expected:?} in:\n{screen}"
        );
    }
}

#[tokio::test]
async fn chat_keeps_the_conversation_and_obeys_its_commands() {
    let server = CannedServer::start(vec![
        Canned::text("Thought: easy\nFinal Answer: Paris"),
        // A number no tool gave is sent back once; said again, it stands.
        Canned::text("Thought: I know it\nFinal Answer: about 2100000"),
        Canned::text("Thought: I know it\nFinal Answer: about 2100000"),
        Canned::tool_calls(&[("c", "calculator", r#"{"expression": "2100000 * 2"}"#)]),
        Canned::text("4200000"),
        Canned::text("Hello!"),
    ])
    .await
    .unwrap();
    let url = server.url().to_string();
    let out = tokio::task::spawn_blocking(move || {
        use std::io::Write;
        let mut child = agent()
            .args(["chat", "--base-url", &url, "--model", "m", "--no-stream"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let script = "What is the capital of France?\nAnd its population?\n/tools nope\n/transport native\n/tools calculator\nTwice that?\n/reset\nHello again\n/exit\nnever sent\n";
        child.stdin.take().unwrap().write_all(script.as_bytes()).unwrap();
        child.wait_with_output().unwrap()
    })
    .await
    .unwrap();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(
        text(&out.stdout).lines().collect::<Vec<_>>(),
        ["Paris", "about 2100000", "4200000", "Hello!"]
    );
    // A rejected command leaves the previous setting in place.
    assert!(
        stderr.contains("unknown tool or tool group `nope`"),
        "{stderr}"
    );
    let requests = server.requests();
    assert_eq!(requests.len(), 6, "nothing is sent after /exit");
    assert!(requests[0]["tools"].is_null(), "text transport first");
    // The second turn sends the first turn's messages again, byte for byte,
    // then the answer and the new question as messages of their own.
    let first = requests[0]["messages"].as_array().unwrap();
    let second = requests[1]["messages"].as_array().unwrap();
    assert_eq!(&second[..first.len()], &first[..]);
    assert_eq!(second[first.len()]["role"], "assistant");
    assert!(
        second[first.len()]["content"]
            .as_str()
            .unwrap()
            .contains("Final Answer: Paris")
    );
    assert_eq!(second[first.len() + 1]["role"], "user");
    assert!(
        second[first.len() + 1]["content"]
            .as_str()
            .unwrap()
            .contains("And its population?")
    );
    // Native with only the calculator, the conversation carried over.
    assert_eq!(tool_names(&requests[3]), ["calculator"]);
    let third = requests[3]["messages"].as_array().unwrap();
    assert!(third.iter().any(|m| {
        m["content"]
            .as_str()
            .is_some_and(|c| c.contains("about 2100000"))
    }));
    // After /reset, a fresh conversation: system prompt and the question.
    assert_eq!(requests[5]["messages"].as_array().unwrap().len(), 2);
}

#[tokio::test]
async fn replay_verify_gives_the_model_the_recorded_file_overview() {
    // The answer's year is only in the overview (a dated file's name), so
    // a replay that opened without it would send the answer back.
    let server = CannedServer::start(vec![Canned::text(
        "Thought: The notes are dated.\nFinal Answer: The notes are from 2024.",
    )])
    .await
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("notes")).unwrap();
    std::fs::write(dir.path().join("notes/2024-05-14.md"), "standup\n").unwrap();
    let traces = tempfile::tempdir().unwrap();
    let trace = traces.path().join("run.jsonl");
    let mut command = agent();
    command
        .args(["run", "Which year are the notes from?", "--tools", "files"])
        .args(["--file-overview", "--json", "--dir"])
        .arg(dir.path())
        .arg("--trace")
        .arg(&trace)
        .args(["--base-url", server.url(), "--model", "test"]);
    let out = output(command).await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    let outcome: Value = serde_json::from_str(text(&out.stdout).trim()).unwrap();
    assert_eq!(outcome["answer"], "The notes are from 2024.");
    assert!(
        text(&out.stderr).contains(
            "after the task: Files in the working directory: notes/2024-05-14.md (Tuesday)."
        ),
        "the live view shows the overview: {}",
        text(&out.stderr)
    );
    // The files change; the replay still opens as the run did.
    std::fs::remove_file(dir.path().join("notes/2024-05-14.md")).unwrap();
    replay_verifies(&trace, Some(dir.path())).await;
}
