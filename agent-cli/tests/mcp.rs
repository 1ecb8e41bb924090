//! The built `agent` binary with MCP servers: the reference servers from
//! npm (pinned in `.ci/mcp-servers`, installed by `.ci/run`) over stdio,
//! over streamable HTTP and from an `mcpServers` file; listing, calling,
//! allowlisting, a run whose model calls a server's tool, start-up
//! failures, and no server left behind. Tests that need an npm server say
//! that they skipped, and why, when it is not installed.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{agent, output, tool_names};

use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use std::time::Duration;

use agent_native::testing::{Canned, CannedServer};
use serde_json::Value;

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).to_string()
}

/// An npm server's binary under `.ci/mcp-servers/node_modules/.bin/`.
fn npm_bin(name: &str) -> Option<PathBuf> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .join(".ci/mcp-servers/node_modules/.bin")
        .join(name);
    path.exists().then_some(path)
}

/// The binary, or return from the test saying why it skipped.
macro_rules! npm_server {
    ($name:literal) => {
        match npm_bin($name) {
            Some(path) => path.display().to_string(),
            None => {
                eprintln!(
                    "skipped: {} is not installed under .ci/mcp-servers/node_modules/.bin \
                     (run `npm ci --prefix .ci/mcp-servers`, which .ci/run does)",
                    $name
                );
                return;
            }
        }
    };
}

/// The names in `agent tools --json` output.
fn names(out: &Output) -> Vec<String> {
    let specs: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {} / {}", text(&out.stdout), text(&out.stderr)));
    specs
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap().to_string())
        .collect()
}

fn assert_one_line(out: &Output) -> String {
    let err = text(&out.stderr);
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(!err.contains("panicked"), "{err}");
    err.trim().to_string()
}

/// Processes whose environment holds `marker` (the servers a test started
/// with `MARK=… command`).
fn processes_with(marker: &str) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|entry| {
            let pid: u32 = entry.file_name().to_str()?.parse().ok()?;
            let environ = std::fs::read(entry.path().join("environ")).ok()?;
            let needle = marker.as_bytes();
            environ
                .windows(needle.len())
                .any(|w| w == needle)
                .then_some(pid)
        })
        .collect()
}

/// The processes with `marker` once they have had time to die: a killed
/// server group leaves `/proc` a moment after the command returns, later
/// on a loaded machine.
fn processes_left(marker: &str) -> Vec<u32> {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let left = processes_with(marker);
        if left.is_empty() || std::time::Instant::now() > deadline {
            return left;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

/// A marker unique to this test and process.
fn marker(test: &str) -> String {
    format!("AGENT_CLI_MCP_TEST={test}-{}", std::process::id())
}

#[tokio::test]
async fn tools_lists_the_servers_tools_with_their_schemas() {
    let bin = npm_server!("mcp-server-everything");
    let mcp = format!("{bin} stdio");
    let mut command = agent();
    command.args(["tools", "--json", "--mcp", &mcp]);
    let out = output(command).await;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let all = names(&out);
    // The default built-ins, then every tool of the server.
    assert_eq!(&all[..3], ["calculator", "search", "read_file"]);
    for tool in ["echo", "get-sum", "get-tiny-image"] {
        assert!(all.contains(&tool.to_string()), "{tool} missing: {all:?}");
    }
    let specs: Value = serde_json::from_slice(&out.stdout).unwrap();
    let echo = specs
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "echo")
        .unwrap();
    assert_eq!(echo["description"], "Echoes back the input string");
    assert_eq!(
        echo["parameters"]["properties"]["message"]["type"],
        "string"
    );
    assert_eq!(
        echo["parameters"]["required"],
        serde_json::json!(["message"])
    );

    // The text listing has the same format as the built-ins'.
    let mut command = agent();
    command.args(["tools", "--tools", "mcp-server-everything.*", "--mcp", &mcp]);
    let out = output(command).await;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let listing = text(&out.stdout);
    assert!(
        listing.contains("echo  Echoes back the input string\n    echo(message: string)"),
        "{listing}"
    );
    assert!(listing.contains("    schema: {"), "{listing}");
    assert!(!listing.contains("calculator"), "{listing}");
}

#[tokio::test]
async fn call_runs_a_servers_tool_through_the_gateway() {
    let bin = npm_server!("mcp-server-everything");
    let mcp = format!("{bin} stdio");
    for (tool, args, expected) in [
        ("echo", r#"{"message": "héllo wörld"}"#, "Echo: héllo wörld"),
        ("echo", "just a string", "Echo: just a string"),
        (
            "get-sum",
            r#"{"a": 2, "b": 3.5}"#,
            "The sum of 2 and 3.5 is 5.5.",
        ),
    ] {
        let mut command = agent();
        command.args(["call", tool, args, "--mcp", &mcp]);
        let out = output(command).await;
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        assert_eq!(text(&out.stdout).trim(), expected);
    }
}

#[tokio::test]
async fn arguments_that_break_the_schema_are_refused_by_the_gateway() {
    let bin = npm_server!("mcp-server-everything");
    let mut command = agent();
    command.args([
        "call",
        "get-sum",
        r#"{"a": "two", "b": 3}"#,
        "--mcp",
        &format!("{bin} stdio"),
    ]);
    let out = output(command).await;
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let err = assert_one_line(&out);
    // Our gateway's wording: the server (zod) would say "Expected number",
    // and an answer from the server would name it.
    assert!(
        err.starts_with("Error (invalid arguments): field `a` must be number"),
        "{err}"
    );
    assert!(
        !err.contains("Expected number") && !err.contains("MCP server"),
        "{err}"
    );
}

#[tokio::test]
async fn an_allowlist_that_names_no_mcp_tool_exposes_none() {
    let bin = npm_server!("mcp-server-everything");
    let mcp = format!("{bin} stdio");
    let listed = |allow: &'static str| {
        let mut command = agent();
        command.args(["tools", "--json", "--tools", allow, "--mcp", &mcp]);
        async move { names(&output(command).await) }
    };
    assert_eq!(listed("calculator").await, ["calculator"]);
    assert_eq!(listed("calculator,echo").await, ["calculator", "echo"]);
    let everything = listed("mcp-server-everything.*").await;
    assert!(
        everything.contains(&"get-sum".to_string()),
        "{everything:?}"
    );
    assert!(!everything.contains(&"calculator".to_string()));

    let mut command = agent();
    command.args([
        "call",
        "echo",
        r#"{"message": "hi"}"#,
        "--tools",
        "calculator",
        "--mcp",
        &mcp,
    ]);
    let out = output(command).await;
    assert_eq!(out.status.code(), Some(1));
    let err = assert_one_line(&out);
    assert!(err.starts_with("Error (unknown tool)"), "{err}");

    let mut command = agent();
    command.args(["tools", "--tools", "calculator,nope.*", "--mcp", &mcp]);
    let out = output(command).await;
    assert_eq!(out.status.code(), Some(2));
    let err = assert_one_line(&out);
    assert!(
        err.starts_with("error: unknown tool or tool group `nope.*` (built-in groups: calculator, search, files; MCP server `mcp-server-everything`: echo,"),
        "{err}"
    );
}

#[tokio::test]
async fn a_bad_server_is_one_clear_line_and_a_non_zero_exit() {
    let cases: [(&[&str], i32, &str); 6] = [
        (
            &["--mcp", "/nonexistent/mcp-server --stdio"],
            1,
            "error: MCP server `mcp-server` failed to start: could not run `/nonexistent/mcp-server`",
        ),
        (
            &["--mcp", "echo this is not MCP"],
            1,
            "error: MCP server `echo` failed to start: the server exited during start-up",
        ),
        (
            &["--mcp", "server 'unclosed"],
            2,
            "error: --mcp `server 'unclosed`: a single quote is not closed",
        ),
        (
            &["--mcp-config", "/no/such/mcp.json"],
            1,
            "error: cannot read MCP config `/no/such/mcp.json`",
        ),
        (
            &["--mcp-token-env", "SOME_TOKEN"],
            2,
            "error: the following required arguments were not provided:",
        ),
        (
            &["--mcp-http", "ftp://example.invalid/mcp"],
            2,
            "error: --mcp-http `ftp://example.invalid/mcp`: expected an http:// or https:// URL",
        ),
    ];
    for (flags, code, expected) in cases {
        let mut command = agent();
        command.args(["call", "calculator", "1+1"]).args(flags);
        let out = output(command).await;
        assert_eq!(
            out.status.code(),
            Some(code),
            "{flags:?}: {}",
            text(&out.stderr)
        );
        let err = assert_one_line(&out);
        assert!(err.starts_with(expected), "{flags:?}: {err}");
        assert!(out.stdout.is_empty(), "{flags:?}: nothing ran");
    }
    // `agent run` fails the same way, after its own flags are checked.
    let mut command = agent();
    command.args([
        "run",
        "hi",
        "--base-url",
        "http://127.0.0.1:9/v1",
        "--model",
        "m",
        "--mcp",
        "/nonexistent/mcp-server",
    ]);
    let out = output(command).await;
    assert_eq!(out.status.code(), Some(1));
    assert!(assert_one_line(&out).contains("MCP server `mcp-server` failed to start"));
}

#[tokio::test]
async fn a_run_calls_a_servers_tool_and_leaves_no_server_behind() {
    let bin = npm_server!("mcp-server-everything");
    let model = CannedServer::start(vec![
        Canned::tool_calls(&[
            ("c1", "echo", r#"{"message": "from the model"}"#),
            ("c2", "calculator", r#"{"expression": "6 * 7"}"#),
        ]),
        Canned::text("Echoed, and 42."),
    ])
    .await
    .unwrap();
    let mark = marker("run");
    let mut command = agent();
    command.args([
        "run",
        "Echo something and compute 6 * 7.",
        "--transport",
        "native",
        "--json",
        "--base-url",
        model.url(),
        "--model",
        "m",
        "--mcp",
        &format!("{mark} {bin} stdio"),
    ]);
    let out = output(command).await;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let outcome: Value = serde_json::from_str(text(&out.stdout).trim()).unwrap();
    assert_eq!(outcome["answer"], "Echoed, and 42.");
    assert_eq!(outcome["tool_calls"], 2);
    let transcript = outcome["transcript"].to_string();
    assert!(transcript.contains("Echo: from the model"), "{transcript}");
    // The model was offered the default built-ins and the server's tools.
    let offered: Vec<String> = model.requests()[0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(&offered[..2], ["calculator", "search"]);
    assert!(offered.contains(&"get-sum".to_string()), "{offered:?}");
    // The server lived as long as the command, no longer.
    assert_eq!(processes_left(&mark), Vec::<u32>::new());
}

#[tokio::test]
async fn default_builtins_yield_to_a_server_with_the_same_tool_names() {
    let bin = npm_server!("mcp-server-filesystem");
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("fact.txt"),
        "The lighthouse has 127 steps.\n",
    )
    .unwrap();
    let root = dir.path().canonicalize().unwrap();
    let mcp = format!("{bin} '{}'", root.display());
    // `agent tools` offers the file tools by default; the server has its
    // own `read_file` and friends, so the built-in ones are left out, with
    // a note.
    let mut command = agent();
    command.args(["tools", "--json", "--mcp", &mcp]);
    let out = output(command).await;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let listed = names(&out);
    assert_eq!(&listed[..2], ["calculator", "search"]);
    assert!(listed.contains(&"read_text_file".to_string()), "{listed:?}");
    assert!(!listed.contains(&"grep".to_string()), "{listed:?}");
    assert!(
        text(&out.stderr).contains(
            "note: leaving out the built-in `files` tools: MCP server `mcp-server-filesystem` has its own `read_file`"
        ),
        "{}",
        text(&out.stderr)
    );
    // Asked for by name, the clash is an error that names both.
    let mut command = agent();
    command.args([
        "tools",
        "--tools",
        "files,mcp-server-filesystem.*",
        "--mcp",
        &mcp,
    ]);
    let out = output(command).await;
    assert_eq!(out.status.code(), Some(2));
    let err = assert_one_line(&out);
    assert!(
        err.contains("of MCP server `mcp-server-filesystem` clashes with the built-in tool of that name (group `files`)"),
        "{err}"
    );
    // A single name means the server's tool.
    let path = root.join("fact.txt");
    let mut command = agent();
    command.args([
        "call",
        "read_text_file",
        &format!(r#"{{"path": "{}"}}"#, path.display()),
        "--tools",
        "read_text_file",
        "--mcp",
        &mcp,
    ]);
    let out = output(command).await;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout).trim(), "The lighthouse has 127 steps.");
}

/// An `mcpServers` file holding `servers`, in a directory that lives as
/// long as the handle returned with it.
fn config_file(servers: Value) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("mcp.json");
    let config = serde_json::json!({ "mcpServers": servers });
    std::fs::write(&file, config.to_string()).unwrap();
    (dir, file)
}

#[tokio::test]
async fn a_config_file_names_and_prefixes_its_servers() {
    let bin = npm_server!("mcp-server-everything");
    let (_dir, file) = config_file(serde_json::json!({
        "ev": { "command": bin, "args": ["stdio"], "prefix": "ev" },
        "off": { "command": "/nonexistent", "disabled": true }
    }));
    let mut command = agent();
    command
        .args([
            "call",
            "ev_echo",
            "from a file",
            "--tools",
            "ev.*",
            "--mcp-config",
        ])
        .arg(&file);
    let out = output(command).await;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout).trim(), "Echo: from a file");
    std::fs::write(&file, r#"{"mcpServers": {"ev": {"args": []}}}"#).unwrap();
    let mut command = agent();
    command.args(["tools", "--mcp-config"]).arg(&file);
    let out = output(command).await;
    assert_eq!(out.status.code(), Some(2));
    assert!(
        assert_one_line(&out)
            .ends_with("server `ev`: needs `command` (stdio) or `url` (streamable HTTP)")
    );
}

#[tokio::test]
async fn instructions_reach_the_prompt_only_for_the_servers_named() {
    let bin = npm_server!("mcp-server-everything");
    let (_dir, file) = config_file(serde_json::json!({
        "first": { "command": bin, "args": ["stdio"], "prefix": "a" },
        "second": { "command": bin, "args": ["stdio"], "prefix": "b" }
    }));
    let prompt = |flag: Option<&str>| {
        let mut command = agent();
        command
            .args(["prompt", "Which tools echo?", "--tools", "first.*,second.*"])
            .arg("--mcp-config")
            .arg(&file);
        if let Some(flag) = flag {
            command.arg(flag);
        }
        output(command)
    };
    let heading = |name: &str| format!("Instructions of the MCP server `{name}`:");

    let out = prompt(Some("--mcp-instructions=second")).await;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let shown = text(&out.stdout);
    assert!(shown.contains(&heading("second")), "{shown}");
    assert!(shown.contains("Everything Server"), "{shown}");
    assert!(!shown.contains(&heading("first")), "{shown}");

    // Without names, every server's; without the flag, none.
    let out = prompt(Some("--mcp-instructions")).await;
    let shown = text(&out.stdout);
    assert!(
        shown.contains(&heading("first")) && shown.contains(&heading("second")),
        "{shown}"
    );
    let out = prompt(None).await;
    assert!(!text(&out.stdout).contains("Instructions of the MCP server"));

    // A name no server has: one line naming the servers there are.
    let out = prompt(Some("--mcp-instructions=secnod")).await;
    assert_eq!(out.status.code(), Some(2));
    let line = assert_one_line(&out);
    assert!(
        line.contains("no MCP server is named `secnod`; the servers are: first, second"),
        "{line}"
    );
}

/// A free local port.
fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

#[tokio::test]
async fn streamable_http_servers_and_the_token_from_the_environment() {
    let bin = npm_server!("mcp-server-everything");
    let port = free_port();
    let mark = marker("http");
    let (key, value) = mark.split_once('=').unwrap();
    let mut server = tokio::process::Command::new(&bin)
        .arg("streamableHttp")
        .env("PORT", port.to_string())
        .env(key, value)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut up = false;
    for _ in 0..200 {
        if tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_ok()
        {
            up = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(up, "server-everything did not listen on port {port}");
    // The marker finds a live server (what the other tests rely on).
    assert_eq!(processes_with(&mark).len(), 1);
    let mut command = agent();
    command.args([
        "call",
        "get-sum",
        r#"{"a": 1, "b": 2}"#,
        "--tools",
        "remote.*",
        "--mcp-http",
        &format!("remote=http://127.0.0.1:{port}/mcp"),
    ]);
    let out = output(command).await;
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout).trim(), "The sum of 1 and 2 is 3.");
    server.kill().await.unwrap();
}

#[tokio::test]
async fn the_bearer_token_is_sent_and_a_refusal_names_the_server() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let recorder = tokio::spawn(async move {
        let (mut socket, _) = listener.accept().await.unwrap();
        let mut head = Vec::new();
        let mut buf = [0u8; 4096];
        while !head.windows(4).any(|w| w == b"\r\n\r\n") {
            let n = socket.read(&mut buf).await.unwrap();
            if n == 0 {
                break;
            }
            head.extend_from_slice(&buf[..n]);
        }
        socket
            .write_all(
                b"HTTP/1.1 401 Unauthorized\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
            )
            .await
            .unwrap();
        String::from_utf8_lossy(&head).to_ascii_lowercase()
    });
    let mut command = agent();
    command
        .args([
            "tools",
            "--mcp-http",
            &format!("http://127.0.0.1:{port}/mcp"),
            "--mcp-token-env",
            "AGENT_TEST_MCP_TOKEN",
        ])
        .env("AGENT_TEST_MCP_TOKEN", "s3cr3t-t0ken");
    let out = output(command).await;
    assert_eq!(out.status.code(), Some(1));
    let err = assert_one_line(&out);
    assert!(
        err.starts_with(&format!(
            "error: MCP server `127-0-0-1` failed to start: could not open a session at `http://127.0.0.1:{port}/mcp`"
        )),
        "{err}"
    );
    assert!(!err.contains("s3cr3t"), "the token is not printed: {err}");
    let head = recorder.await.unwrap();
    assert!(
        head.contains("\r\nauthorization: bearer s3cr3t-t0ken\r\n"),
        "{head}"
    );
    // A variable that is not set is a usage error, before any connection.
    let mut command = agent();
    command
        .args([
            "tools",
            "--mcp-http",
            &format!("http://127.0.0.1:{port}/mcp"),
            "--mcp-token-env",
            "AGENT_TEST_MCP_TOKEN",
        ])
        .env_remove("AGENT_TEST_MCP_TOKEN");
    let out = output(command).await;
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        assert_one_line(&out),
        "error: --mcp-token-env: the environment variable `AGENT_TEST_MCP_TOKEN` is not set"
    );
}

#[tokio::test]
async fn chat_keeps_its_servers_and_tools_chooses_among_their_tools() {
    let bin = npm_server!("mcp-server-everything");
    let model = CannedServer::start(vec![
        Canned::tool_calls(&[("c1", "echo", r#"{"message": "one"}"#)]),
        Canned::text("said one"),
        Canned::tool_calls(&[("c2", "echo", r#"{"message": "two"}"#)]),
        Canned::text("said two"),
    ])
    .await
    .unwrap();
    let mark = marker("chat");
    let url = model.url().to_string();
    let mcp = format!("{mark} {bin} stdio");
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
                "--mcp",
                &mcp,
            ])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let script = "/tools echo,nope\n/tools echo\nSay one.\nSay two.\n/exit\n";
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
    assert_eq!(
        text(&out.stdout).lines().collect::<Vec<_>>(),
        ["said one", "said two"]
    );
    assert!(
        stderr.contains("error: unknown tool or tool group `nope`"),
        "{stderr}"
    );
    assert!(stderr.contains("tools: echo\n"), "{stderr}");
    let requests = model.requests();
    assert_eq!(requests.len(), 4);
    for request in [&requests[0], &requests[2]] {
        assert_eq!(tool_names(request), ["echo"], "the chosen tool only");
    }
    // One server served both tasks and stopped with the chat.
    assert!(requests[3].to_string().contains("Echo: two"));
    assert_eq!(processes_left(&mark), Vec::<u32>::new());
}
