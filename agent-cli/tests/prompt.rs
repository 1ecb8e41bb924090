//! `agent prompt` and the prompt overrides: the exact first request of
//! both transports (snapshots: a snapshot is a contract with the model),
//! `--system` and `--section` as text and as files, on `agent prompt` and
//! on the request a real `agent run` sends, and the files group that
//! offers its writing tools only when asked, and the file overview
//! `--file-overview` adds after the task.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use std::process::{Command, Output};

use agent_native::testing::{Canned, CannedServer};
use serde_json::Value;

/// `agent` as a user has it: grammars in their default `auto` mode.
fn agent() -> Command {
    let mut command = common::agent();
    command.env_remove("AGENT_CONSTRAIN");
    command
}

fn run(args: &[&str]) -> Output {
    agent().args(args).output().unwrap()
}

fn stdout(out: &Output) -> String {
    assert_eq!(
        out.status.code(),
        Some(0),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).unwrap()
}

fn body(args: &[&str]) -> Value {
    let mut all = vec!["prompt", "--json"];
    all.extend_from_slice(args);
    serde_json::from_str(&stdout(&run(&all))).unwrap()
}

fn system_message(body: &Value) -> String {
    let first = &body["messages"][0];
    assert_eq!(first["role"], "system");
    first["content"].as_str().unwrap().to_string()
}

#[test]
fn the_text_transports_first_request_is_a_contract() {
    let out = run(&["prompt", "--tools", "calculator,search"]);
    insta::assert_snapshot!("text_readable", stdout(&out));
    let body = body(&[
        "What is 2 + 2?",
        "--tools",
        "calculator,search",
        "--model",
        "m",
    ]);
    insta::assert_json_snapshot!("text_json", body);
    // What `agent run` would send: the stop sequence, the grammar in
    // llama.cpp's field, no tools field.
    assert_eq!(body["stop"][0], "\nObservation:");
    assert!(
        body["grammar"]
            .as_str()
            .unwrap()
            .contains("\"calculator\\nAction Input: \"")
    );
    assert!(body.get("tools").is_none());
    // --constrain off: no grammar; --no-stream: a whole response.
    let plain = self::body(&["--constrain", "off", "--no-stream"]);
    assert!(plain.get("grammar").is_none());
    assert_eq!(plain["stream"], false);
}

#[test]
fn the_native_transports_first_request_is_a_contract() {
    let out = run(&[
        "prompt",
        "--transport",
        "native",
        "--tools",
        "calculator,search",
    ]);
    insta::assert_snapshot!("native_readable", stdout(&out));
    let body = body(&[
        "What is 2 + 2?",
        "--transport",
        "native",
        "--tools",
        "calculator,search",
        "--model",
        "m",
    ]);
    insta::assert_json_snapshot!("native_json", body);
    assert!(
        body.get("grammar").is_none(),
        "no grammar on native requests"
    );
}

#[test]
fn system_replaces_the_role_section_as_text_or_file() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("system.txt");
    std::fs::write(&file, "You answer questions about the files here.\n").unwrap();
    let from_file = format!("@{}", file.display());
    for system in [
        "You answer questions about the files here.",
        from_file.as_str(),
    ] {
        let text = system_message(&body(&["--system", system]));
        assert!(
            text.starts_with("You answer questions about the files here.\n\nTools:"),
            "{text}"
        );
        assert!(!text.contains("Answer the question. Use a tool"), "{text}");
        let native = system_message(&body(&["--transport", "native", "--system", system]));
        assert_eq!(native, "You answer questions about the files here.");
    }
}

#[test]
fn sections_are_replaced_or_removed() {
    let body = body(&[
        "a task",
        "--section",
        "rules=",
        "--section",
        "intro=Task:",
        "--section",
        "tools=Your tools:\n{tools}",
    ]);
    let text = system_message(&body);
    assert!(!text.contains("If a call fails"), "{text}");
    assert!(
        text.contains("Your tools:\nTools:\n- calculator("),
        "{text}"
    );
    assert_eq!(body["messages"][1]["content"], "Task: a task");
    // Bad overrides are one usage line, exit 2.
    for args in [
        &["prompt", "--section", "colour=x"][..],
        &["prompt", "--system", "@/no/such/file"],
        &["prompt", "--transport", "native", "--section", "rules=x"],
        &["prompt", "--system", "a", "--section", "role=b"],
    ] {
        let out = run(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    }
}

#[test]
fn the_files_group_writes_only_when_asked() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_str().unwrap();
    let names = |extra: &[&str]| -> Vec<String> {
        let mut args = vec!["--transport", "native", "--dir", root];
        args.extend_from_slice(extra);
        common::tool_names(&body(&args))
            .into_iter()
            .map(String::from)
            .collect()
    };
    assert_eq!(
        names(&["--tools", "files"]),
        ["read_file", "grep", "search_files"]
    );
    assert_eq!(
        names(&["--tools", "files", "--write"]),
        [
            "read_file",
            "grep",
            "search_files",
            "write_file",
            "edit_file"
        ]
    );
    assert_eq!(
        names(&["--tools", "read_file,edit_file"]),
        ["read_file", "edit_file"]
    );
    // (`--answer-mode tool` adds the answer tool last).
    assert_eq!(
        names(&["--tools", "files", "--answer-mode", "tool"]),
        ["read_file", "grep", "search_files", "final_answer"]
    );
    // `agent call` of a writing tool is asking for it.
    let out = run(&[
        "call",
        "write_file",
        r#"{"path": "note.txt", "content": "hi"}"#,
        "--dir",
        root,
    ]);
    stdout(&out);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("note.txt")).unwrap(),
        "hi"
    );
}

#[test]
fn file_overview_lists_the_directory_after_the_task_only_when_asked() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("notes")).unwrap();
    std::fs::write(dir.path().join("notes/2024-05-14.md"), "standup\n").unwrap();
    std::fs::write(dir.path().join("stock.csv"), "item;count\n").unwrap();
    let root = dir.path().to_str().unwrap();
    let last_message = |extra: &[&str]| -> String {
        let mut args = vec!["which note?", "--tools", "files", "--dir", root];
        args.extend_from_slice(extra);
        let body = body(&args);
        let messages = body["messages"].as_array().unwrap();
        messages.last().unwrap()["content"]
            .as_str()
            .unwrap()
            .to_string()
    };
    for transport in ["text", "native"] {
        let plain = last_message(&["--transport", transport]);
        assert!(!plain.contains("stock.csv"), "{transport}: {plain}");
        let with = last_message(&["--transport", transport, "--file-overview"]);
        assert!(with.contains("which note?"), "{transport}: {with}");
        assert!(
            with.contains("notes/2024-05-14.md (Tuesday), stock.csv"),
            "{transport}: {with}"
        );
    }
    // Without the file tools there is nothing to list.
    let body = body(&[
        "which note?",
        "--tools",
        "calculator",
        "--dir",
        root,
        "--file-overview",
    ]);
    assert!(!body.to_string().contains("stock.csv"));
}

#[tokio::test]
async fn run_sends_the_overridden_prompt() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("rules.txt");
    std::fs::write(&file, "Answer in one word.").unwrap();
    for transport in ["text", "native"] {
        let reply = match transport {
            "text" => "Thought: easy\nFinal Answer: Paris",
            _ => "Paris",
        };
        let server = CannedServer::start(vec![Canned::text(reply)])
            .await
            .unwrap();
        let mut command = agent();
        command
            .args(["run", "Capital of France?", "--transport", transport, "-q"])
            .args([
                "--base-url",
                server.url(),
                "--model",
                "m",
                "--constrain",
                "off",
            ])
            .arg("--system")
            .arg(format!("@{}", file.display()));
        let out = tokio::task::spawn_blocking(move || command.output().unwrap())
            .await
            .unwrap();
        assert_eq!(stdout(&out).trim(), "Paris");
        let sent = system_message(&server.requests()[0]);
        assert!(
            sent.starts_with("Answer in one word."),
            "{transport}: {sent}"
        );
    }
}
