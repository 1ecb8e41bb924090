//! The MCP client against real servers: the reference servers from npm
//! (`@modelcontextprotocol/server-everything` and `server-filesystem`,
//! pinned in `.ci/mcp-servers`, installed by `.ci/run`) and this crate's own
//! `mcp-test-server` (counters, crash on demand, broken start-ups). Tests
//! that need an npm server say that they skipped, and why, when it is not
//! installed.

#![cfg(feature = "mcp")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use agent_core::tool::ToolErrorKind;
use agent_core::{ToolCall, Toolbox};
use agent_tools::mcp::{McpConnection, McpError, McpServerConfig, McpServers, register_servers};
use agent_tools::{ToolRegistry, ToolSetError, builtin, typed_tool};
use serde_json::{Value, json};

// ---------------------------------------------------------------- helpers

fn workspace_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap()
}

/// An npm server's binary under `.ci/mcp-servers/node_modules/.bin/`.
fn npm_bin(name: &str) -> Option<PathBuf> {
    let path = workspace_root()
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

fn everything(bin: &str) -> McpServerConfig {
    McpServerConfig::stdio("everything", bin, ["stdio"])
        .with_startup_timeout(Duration::from_secs(30))
}

const TEST_SERVER: &str = env!("CARGO_BIN_EXE_mcp-test-server");

fn test_server(name: &str) -> McpServerConfig {
    McpServerConfig::stdio(name, TEST_SERVER, ["serve"])
        .with_startup_timeout(Duration::from_secs(20))
}

async fn call(
    tools: &impl Toolbox,
    name: &str,
    args: Value,
) -> Result<String, agent_core::ToolError> {
    tools
        .call(&ToolCall::new("1", name, args))
        .await
        .map(|o| o.content)
}

/// `true` once the process `pid` and every member of its process group are
/// gone (a zombie counts as alive: it has not been reaped).
fn gone(pid: u32) -> bool {
    if Path::new(&format!("/proc/{pid}")).exists() {
        return false;
    }
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return true;
    };
    for entry in entries.flatten() {
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // pid (comm) state ppid pgrp …; comm may hold spaces, so split after ')'.
        let Some((_, rest)) = stat.rsplit_once(')') else {
            continue;
        };
        let pgrp = rest.split_whitespace().nth(2);
        if pgrp == Some(pid.to_string().as_str()) {
            return false;
        }
    }
    true
}

async fn wait_gone(pid: u32) -> bool {
    for _ in 0..100 {
        if gone(pid) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    false
}

fn kill9(pid: u32) {
    let status = std::process::Command::new("kill")
        .args(["-9", &pid.to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

async fn start(registry: &mut ToolRegistry, servers: &[McpServerConfig]) -> McpServers {
    match register_servers(registry, servers).await {
        Ok(servers) => servers,
        Err(e) => panic!("{e}"),
    }
}

// ---------------------------------------------------------- instructions

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_servers_instructions_reach_the_model_once_when_asked_for() {
    let mut registry = ToolRegistry::new();
    let _servers = start(
        &mut registry,
        &[test_server("counter").with_instructions(true)],
    )
    .await;
    let tools = registry.allow(["counter.*"]).unwrap();
    assert_eq!(
        tools.context().as_deref(),
        Some(
            "Instructions of the MCP server `counter`:\n\
             Add numbers with `add`; `stats` reports how many calls this session made."
        ),
        "once, for all of the server's tools"
    );
    // Through an agent: written after the task in the opening message.
    let model = std::sync::Arc::new(agent_core::testing::ScriptedModel::new().text("Done."));
    let agent = agent_core::Agent::builder()
        .model(std::sync::Arc::clone(&model))
        .transport(agent_core::testing::TestTransport)
        .toolbox(tools)
        .build()
        .unwrap();
    agent.run("Count to three.").await;
    let opening = &model.requests()[0].messages[1].content;
    assert!(
        opening.starts_with("Count to three.\n\nInstructions of the MCP server `counter`:"),
        "{opening}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_servers_instructions_stay_out_by_default() {
    let mut registry = ToolRegistry::new();
    let _servers = start(&mut registry, &[test_server("quiet")]).await;
    let tools = registry.allow(["quiet.*"]).unwrap();
    assert_eq!(tools.context(), None);
}

// ---------------------------------------------------------- tools and calls

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn everything_lists_its_tools_with_schemas_and_answers_echo_and_sum() {
    let bin = npm_server!("mcp-server-everything");
    let mut registry = ToolRegistry::new();
    let servers = start(&mut registry, &[everything(&bin)]).await;
    let names = registry.names();
    for tool in [
        "echo",
        "get-sum",
        "trigger-long-running-operation",
        "get-tiny-image",
    ] {
        assert!(
            names.contains(&tool.to_string()),
            "{tool} missing from {names:?}"
        );
        assert_eq!(registry.group_of(tool), Some("everything"));
    }
    let tools = registry.allow_all();
    let specs = tools.specs();
    let echo = specs.iter().find(|s| s.name == "echo").unwrap();
    assert_eq!(echo.description, "Echoes back the input string");
    assert_eq!(echo.parameters["properties"]["message"]["type"], "string");
    assert_eq!(echo.parameters["required"], json!(["message"]));
    let sum = specs.iter().find(|s| s.name == "get-sum").unwrap();
    assert_eq!(sum.parameters["properties"]["a"]["type"], "number");

    assert_eq!(
        call(&tools, "echo", json!({"message": "héllo wörld"}))
            .await
            .unwrap(),
        "Echo: héllo wörld"
    );
    assert_eq!(
        call(&tools, "get-sum", json!({"a": 2, "b": 3.5}))
            .await
            .unwrap(),
        "The sum of 2 and 3.5 is 5.5."
    );
    // A task-only tool cannot run as a plain call: the server's refusal is
    // an error observation, and the server stays available.
    let err = call(&tools, "simulate-research-query", json!({"topic": "tides"}))
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ToolErrorKind::Failed);
    assert!(
        err.message().contains("requires task augmentation"),
        "{err}"
    );
    // A bare string binds to the one required string parameter, as for built-ins.
    assert_eq!(call(&tools, "echo", json!("hi")).await.unwrap(), "Echo: hi");
    assert_eq!(servers.names(), ["everything"]);
}

#[tokio::test]
async fn arguments_that_break_the_schema_never_reach_the_server() {
    let mut registry = ToolRegistry::new();
    let _servers = start(&mut registry, &[test_server("counter")]).await;
    let tools = registry.allow(["counter.*"]).unwrap();
    for bad in [
        json!({"a": "two", "b": 3}),
        json!({"a": 1}),
        json!({"a": 1, "b": 2, "c": 3}),
        json!("1 + 2"),
    ] {
        let err = call(&tools, "add", bad.clone()).await.unwrap_err();
        assert_eq!(err.kind(), ToolErrorKind::InvalidArgs, "{bad}: {err}");
    }
    assert_eq!(
        call(&tools, "stats", json!({})).await.unwrap(),
        "calls: 0, cancelled: 0"
    );
    assert_eq!(
        call(&tools, "add", json!({"a": 1, "b": 2})).await.unwrap(),
        "1 + 2 = 3"
    );
    assert_eq!(
        call(&tools, "stats", json!({})).await.unwrap(),
        "calls: 1, cancelled: 0"
    );
}

#[tokio::test]
async fn everything_never_sees_arguments_its_schema_refuses() {
    let bin = npm_server!("mcp-server-everything");
    let mut registry = ToolRegistry::new();
    let _servers = start(&mut registry, &[everything(&bin)]).await;
    let tools = registry.allow(["get-sum"]).unwrap();
    let err = call(&tools, "get-sum", json!({"a": "two", "b": 3}))
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ToolErrorKind::InvalidArgs);
    // The gateway's wording, not the server's (zod would say "Expected number").
    assert!(err.message().contains("field `a` must be number"), "{err}");
}

#[tokio::test]
async fn every_page_of_tools_is_listed_and_names_are_made_callable() {
    let connection = McpConnection::connect(&test_server("paged")).await.unwrap();
    // The server lists three tools a page.
    assert_eq!(
        connection.tool_names(),
        [
            "add",
            "stats",
            "sleep",
            "fail",
            "crash",
            "text_upper",
            "media",
            "env"
        ]
    );
    let mut registry = ToolRegistry::new();
    for tool in connection.tools() {
        registry.register_in_group("paged", tool).unwrap();
    }
    let tools = registry.allow(["text_upper"]).unwrap();
    assert_eq!(
        call(&tools, "text_upper", json!({"text": "straße"}))
            .await
            .unwrap(),
        "STRASSE"
    );
}

#[tokio::test]
async fn media_and_resources_become_placeholders_and_errors_carry_the_servers_text() {
    let mut registry = ToolRegistry::new();
    let _servers = start(&mut registry, &[test_server("media")]).await;
    let tools = registry.allow_all();
    assert_eq!(
        call(&tools, "media", json!({})).await.unwrap(),
        "one of each:\n[image: image/png, 8 bytes]\n[audio: audio/wav, 4 bytes]\n\
         [resource: test://text]\nresource text\n[resource: test://blob, binary, 4 bytes]"
    );
    let err = call(&tools, "fail", json!({})).await.unwrap_err();
    assert_eq!(err.kind(), ToolErrorKind::Failed);
    assert_eq!(err.message(), "this tool always fails");
}

#[tokio::test]
async fn everything_images_and_resources_become_placeholders() {
    let bin = npm_server!("mcp-server-everything");
    let mut registry = ToolRegistry::new();
    let _servers = start(&mut registry, &[everything(&bin)]).await;
    let tools = registry.allow(["everything.*"]).unwrap();
    let image = call(&tools, "get-tiny-image", json!({})).await.unwrap();
    assert!(
        image.contains("[image: image/png, ") && image.contains(" bytes]"),
        "{image}"
    );
    assert!(
        !image.contains("iVBOR"),
        "no base64 in the observation: {image}"
    );
    let reference = call(&tools, "get-resource-reference", json!({"resourceId": 2}))
        .await
        .unwrap();
    assert!(
        reference.contains(
            "[resource: demo://resource/dynamic/text/2]\nResource 2: This is a plaintext resource"
        ),
        "{reference}"
    );
    let links = call(&tools, "get-resource-links", json!({"count": 2}))
        .await
        .unwrap();
    assert_eq!(links.matches("[resource link: ").count(), 2, "{links}");
}

#[tokio::test]
async fn environment_variables_reach_the_server() {
    let config = test_server("env").with_env("AGENT_TOOLS_MCP_TEST", "välue");
    let mut registry = ToolRegistry::new();
    let _servers = start(&mut registry, &[config]).await;
    let tools = registry.allow(["env"]).unwrap();
    assert_eq!(
        call(&tools, "env", json!({"name": "AGENT_TOOLS_MCP_TEST"}))
            .await
            .unwrap(),
        "välue"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_filesystem_tool_and_a_builtin_run_in_one_round() {
    let bin = npm_server!("mcp-server-filesystem");
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::write(root.join("notes.txt"), "first line\nsecond line\n").unwrap();
    let mut registry = builtin::registry(&["calculator"], None, true).unwrap();
    let config = McpServerConfig::stdio("fs", &bin, [root.display().to_string()])
        .with_prefix("fs")
        .with_startup_timeout(Duration::from_secs(30));
    let _servers = start(&mut registry, &[config]).await;
    let tools = registry.allow(["calculator", "fs_read_text_file"]).unwrap();
    assert_eq!(tools.names(), ["calculator", "fs_read_text_file"]);
    let read = ToolCall::new(
        "a",
        "fs_read_text_file",
        json!({"path": root.join("notes.txt")}),
    );
    let calc = ToolCall::new("b", "calculator", json!({"expression": "17 * 83"}));
    let (file, sum) = tokio::join!(tools.call(&read), tools.call(&calc));
    assert_eq!(file.unwrap().content, "first line\nsecond line\n");
    assert_eq!(sum.unwrap().content, "1411");
    // The server's own refusal (outside its root) is an error observation.
    let outside = call(
        &tools,
        "fs_read_text_file",
        json!({"path": "/etc/hostname"}),
    )
    .await
    .unwrap_err();
    assert_eq!(outside.kind(), ToolErrorKind::Failed);
    assert!(
        outside
            .message()
            .starts_with("Access denied - path outside allowed directories: "),
        "{outside}"
    );
}

// ------------------------------------------------------ failures mid-run

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_server_becomes_error_observations_and_leaves_no_process() {
    let bin = npm_server!("mcp-server-everything");
    let mut registry = builtin::registry(&["calculator"], None, true).unwrap();
    let servers = start(&mut registry, &[everything(&bin)]).await;
    let pid = servers.get("everything").unwrap().pid().unwrap();
    let tools = registry.allow(["calculator", "echo"]).unwrap();
    assert_eq!(
        call(&tools, "echo", json!({"message": "a"})).await.unwrap(),
        "Echo: a"
    );

    kill9(pid);
    for _ in 0..3 {
        let err = call(&tools, "echo", json!({"message": "b"}))
            .await
            .unwrap_err();
        assert_eq!(err.kind(), ToolErrorKind::Failed);
        assert_eq!(
            err.message(),
            "the MCP server `everything` is not available"
        );
        assert!(
            err.operator_detail().contains("MCP server `everything`"),
            "{}",
            err.operator_detail()
        );
    }
    assert_eq!(
        call(&tools, "calculator", json!({"expression": "2 ** 10"}))
            .await
            .unwrap(),
        "1024"
    );
    drop(servers);
    assert!(
        wait_gone(pid).await,
        "process {pid} (or its group) outlived the connection"
    );
}

#[tokio::test]
async fn a_server_crashing_during_a_call_fails_that_call_and_later_ones() {
    let mut registry = ToolRegistry::new();
    let servers = start(&mut registry, &[test_server("fragile").with_prefix("f")]).await;
    let pid = servers.get("fragile").unwrap().pid().unwrap();
    let tools = registry.allow(["fragile.*"]).unwrap();
    let err = call(&tools, "f_crash", json!({})).await.unwrap_err();
    assert_eq!(err.message(), "the MCP server `fragile` is not available");
    let err = call(&tools, "f_add", json!({"a": 1, "b": 2}))
        .await
        .unwrap_err();
    assert_eq!(err.message(), "the MCP server `fragile` is not available");
    drop(servers);
    assert!(
        wait_gone(pid).await,
        "process {pid} outlived the connection"
    );
}

#[tokio::test]
async fn dropping_the_servers_kills_them_and_shutdown_stops_them_politely() {
    let mut registry = ToolRegistry::new();
    let servers = start(
        &mut registry,
        &[test_server("one"), test_server("two").with_prefix("t")],
    )
    .await;
    let one = servers.get("one").unwrap().pid().unwrap();
    let two = servers.get("two").unwrap().pid().unwrap();
    assert!(!gone(one) && !gone(two));
    let tools = registry.allow_all();
    drop(servers);
    assert!(wait_gone(one).await && wait_gone(two).await);
    let err = call(&tools, "add", json!({"a": 1, "b": 2}))
        .await
        .unwrap_err();
    assert_eq!(err.message(), "the MCP server `one` is not available");

    let mut registry = ToolRegistry::new();
    let servers = start(&mut registry, &[test_server("polite")]).await;
    let pid = servers.get("polite").unwrap().pid().unwrap();
    servers.shutdown().await;
    assert!(wait_gone(pid).await);
}

/// `true` once `pid` has exited: gone, or a zombie no one reaped yet (an
/// orphan waits for init to reap it).
fn exited(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().next())
            .is_some_and(|state| state == "Z" || state == "X"),
    }
}

/// Runs an agent process (`mcp-test-server parent …`) connected to the
/// stdio server `command args`, kills it with SIGKILL (no destructor runs),
/// and checks that the server exits on its own.
async fn server_outlives_no_killed_agent(command: &str, args: &[&str]) {
    use tokio::io::AsyncBufReadExt;

    let mut agent = tokio::process::Command::new(TEST_SERVER)
        .arg("parent")
        .arg(command)
        .args(args)
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut lines = tokio::io::BufReader::new(agent.stdout.take().unwrap()).lines();
    let line = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
        .await
        .expect("the agent connected in time")
        .unwrap()
        .expect("the agent printed the server's pid");
    let pid: u32 = line.trim().parse().unwrap();
    assert!(!exited(pid));
    agent.kill().await.unwrap();
    for _ in 0..100 {
        if exited(pid) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("server {pid} outlived its killed agent");
}

#[tokio::test]
async fn a_server_exits_when_its_agent_process_is_killed() {
    server_outlives_no_killed_agent(TEST_SERVER, &["serve"]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn everything_exits_when_its_agent_process_is_killed() {
    let bin = npm_server!("mcp-server-everything");
    server_outlives_no_killed_agent(&bin, &["stdio"]).await;
}

// ------------------------------------------------ allowlists and names

#[tokio::test]
async fn allowlists_expose_mcp_tools_only_when_named() {
    let mut registry = builtin::registry(&["calculator", "search"], None, true).unwrap();
    let _servers = start(
        &mut registry,
        &[test_server("alpha"), test_server("beta").with_prefix("b")],
    )
    .await;

    let plain = registry.allow(["calculator"]).unwrap();
    assert_eq!(plain.names(), ["calculator"]);
    let err = call(&plain, "add", json!({"a": 1, "b": 2}))
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ToolErrorKind::NotFound);

    let alpha = registry.allow(["alpha.*"]).unwrap();
    assert_eq!(
        alpha.names(),
        [
            "add",
            "stats",
            "sleep",
            "fail",
            "crash",
            "text_upper",
            "media",
            "env"
        ]
    );
    let mixed = registry.allow(["search.*", "b_add", "alpha.*"]).unwrap();
    assert_eq!(mixed.names().len(), 10);
    assert!(mixed.names().contains(&"b_add") && !mixed.names().contains(&"b_stats"));
    assert_eq!(
        call(&mixed, "b_add", json!({"a": 2, "b": 2}))
            .await
            .unwrap(),
        "2 + 2 = 4"
    );

    assert_eq!(registry.groups(), ["calculator", "search", "alpha", "beta"]);
    assert!(matches!(
        registry.allow(["gamma.*"]),
        Err(ToolSetError::UnknownGroup(group, _)) if group == "gamma"
    ));
}

#[tokio::test]
async fn a_name_clash_is_an_error_naming_both_and_changes_nothing() {
    let mut registry = ToolRegistry::new();
    let _first = start(&mut registry, &[test_server("first")]).await;
    let before = registry.names();
    let err = register_servers(&mut registry, &[test_server("second")])
        .await
        .unwrap_err();
    assert!(
        matches!(&err, McpError::NameClash { tool, server, .. } if tool == "add" && server == "second")
    );
    assert_eq!(
        err.to_string(),
        "tool `add` of MCP server `second` clashes with the tool of that name from the tool \
         group `first`; give one of the servers a prefix"
    );
    assert_eq!(registry.names(), before);

    // Within one call, and against a tool registered by hand.
    let mut registry = ToolRegistry::new();
    let err = register_servers(&mut registry, &[test_server("a"), test_server("b")])
        .await
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("MCP server `b` clashes with the tool of that name from MCP server `a`"),
        "{err}"
    );
    assert!(registry.names().is_empty());
    registry
        .register_in_group(
            "math",
            Arc::new(typed_tool(
                "add",
                "Add.",
                |_: serde_json::Map<String, Value>| async { Ok::<_, agent_core::ToolError>("0") },
            )),
        )
        .unwrap();
    let err = register_servers(&mut registry, &[test_server("c")])
        .await
        .unwrap_err();
    assert!(
        err.to_string()
            .ends_with("from the tool group `math`; give one of the servers a prefix"),
        "{err}"
    );
    let _ok = start(&mut registry, &[test_server("c").with_prefix("c")]).await;
    assert!(registry.names().contains(&"c_add".to_string()));
    registry
        .register(typed_tool(
            "d_add",
            "Ungrouped.",
            |_: serde_json::Map<String, Value>| async { Ok::<_, agent_core::ToolError>("0") },
        ))
        .unwrap();
    let err = register_servers(&mut registry, &[test_server("d").with_prefix("d")])
        .await
        .unwrap_err();
    assert!(
        err.to_string().contains("tool `d_add` of MCP server `d` clashes with the tool of that name from an ungrouped tool"),
        "{err}"
    );
}

#[tokio::test]
async fn bad_names_and_prefixes_are_refused_before_anything_starts() {
    let mut registry = ToolRegistry::new();
    let err = register_servers(&mut registry, &[test_server("my.server")])
        .await
        .unwrap_err();
    assert!(
        matches!(err, McpError::InvalidName { ref server, .. } if server == "my.server"),
        "{err}"
    );
    let err = register_servers(&mut registry, &[test_server("s").with_prefix("a.b")])
        .await
        .unwrap_err();
    assert!(err.to_string().contains("the prefix `a.b`"), "{err}");
    let long = "p".repeat(60);
    let err = register_servers(&mut registry, &[test_server("s").with_prefix(long)])
        .await
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("longer than 64 characters; use a shorter prefix"),
        "{err}"
    );
    let err = register_servers(&mut registry, &[test_server("twin"), test_server("twin")])
        .await
        .unwrap_err();
    assert!(matches!(err, McpError::DuplicateServer { .. }), "{err}");
    let mut registry = builtin::registry(&["calculator"], None, true).unwrap();
    let err = register_servers(&mut registry, &[test_server("calculator").with_prefix("c")])
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "MCP server `calculator`: a tool group of that name is already registered; rename the \
         server"
    );
}

// ------------------------------------------------ timeouts and cancellation

#[tokio::test]
async fn a_timeout_cancels_the_call_at_the_server() {
    let mut registry = ToolRegistry::new();
    let _servers = start(&mut registry, &[test_server("sleepy")]).await;
    registry
        .set_timeout("sleep", Duration::from_millis(300))
        .unwrap();
    let tools = registry.allow_all();
    let started = Instant::now();
    let err = call(&tools, "sleep", json!({"seconds": 30}))
        .await
        .unwrap_err();
    assert_eq!(err.kind(), ToolErrorKind::Timeout);
    assert!(started.elapsed() < Duration::from_secs(5));
    let mut stats = String::new();
    for _ in 0..50 {
        stats = call(&tools, "stats", json!({})).await.unwrap();
        if stats == "calls: 1, cancelled: 1" {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the server did not see the cancellation: {stats}");
}

/// Lines of a JSON-lines log.
fn json_lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_timeout_cancels_everythings_long_running_operation() {
    let bin = npm_server!("mcp-server-everything");
    if !Path::new("/bin/sh").exists() {
        eprintln!("skipped: no /bin/sh to record the server's traffic with tee");
        return;
    }
    // The server runs behind two `tee`s that record what it reads and writes.
    let logs = tempfile::tempdir().unwrap();
    let input = logs.path().join("in.jsonl");
    let output = logs.path().join("out.jsonl");
    let script = "tee \"$1\" | \"$3\" stdio | tee \"$2\"";
    let config = McpServerConfig::stdio(
        "everything",
        "/bin/sh",
        [
            "-c",
            script,
            "sh",
            &input.display().to_string(),
            &output.display().to_string(),
            &bin,
        ],
    )
    .with_startup_timeout(Duration::from_secs(30));
    let mut registry = ToolRegistry::new();
    let servers = start(&mut registry, &[config]).await;
    let pid = servers.get("everything").unwrap().pid().unwrap();
    registry
        .set_timeout("trigger-long-running-operation", Duration::from_millis(500))
        .unwrap();
    let tools = registry.allow_all();
    let err = call(
        &tools,
        "trigger-long-running-operation",
        json!({"duration": 2, "steps": 2}),
    )
    .await
    .unwrap_err();
    assert_eq!(err.kind(), ToolErrorKind::Timeout);

    let request_id = json_lines(&input)
        .into_iter()
        .find(|m| {
            m["method"] == "tools/call" && m["params"]["name"] == "trigger-long-running-operation"
        })
        .map(|m| m["id"].clone())
        .expect("the call reached the server");
    let mut cancelled = false;
    for _ in 0..100 {
        cancelled = json_lines(&input).iter().any(|m| {
            m["method"] == "notifications/cancelled" && m["params"]["requestId"] == request_id
        });
        if cancelled {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(
        cancelled,
        "no notifications/cancelled for request {request_id}"
    );

    // The operation's two seconds pass; the server, having aborted the
    // request, never answers it. An answer to a later call shows the
    // recording works.
    tokio::time::sleep(Duration::from_millis(2500)).await;
    assert_eq!(
        call(&tools, "echo", json!({"message": "after"}))
            .await
            .unwrap(),
        "Echo: after"
    );
    // `tee` may write its file a moment after the pipe.
    let mut answers = Vec::new();
    for _ in 0..100 {
        answers = json_lines(&output)
            .into_iter()
            .filter(|m| m.get("id").is_some())
            .collect();
        if answers
            .iter()
            .any(|m| m["result"]["content"][0]["text"] == "Echo: after")
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(
        answers
            .iter()
            .any(|m| m["result"]["content"][0]["text"] == "Echo: after"),
        "the recording missed the answer to echo: {answers:?}"
    );
    assert!(
        !answers.iter().any(|m| m["id"] == request_id),
        "the server answered the cancelled request"
    );
    drop(servers);
    assert!(
        wait_gone(pid).await,
        "the shell, the tees or the server outlived the connection"
    );
}

// ----------------------------------------------------------- start-up

async fn startup_error(config: McpServerConfig) -> (String, Duration) {
    let started = Instant::now();
    let err = McpConnection::connect(&config).await.unwrap_err();
    let elapsed = started.elapsed();
    match &err {
        McpError::Startup { server, .. } => assert_eq!(server, &config.name),
        other => panic!("expected a start-up error, got {other:?}"),
    }
    (err.to_string(), elapsed)
}

#[tokio::test]
async fn start_up_failures_are_typed_errors_naming_the_server() {
    let (message, _) = startup_error(McpServerConfig::stdio(
        "ghost",
        "/nonexistent/mcp-server",
        ["x"],
    ))
    .await;
    assert!(
        message.starts_with(
            "MCP server `ghost` failed to start: could not run `/nonexistent/mcp-server`: "
        ),
        "{message}"
    );
    assert!(
        message.ends_with("No such file or directory (os error 2)"),
        "{message}"
    );

    let (message, elapsed) = startup_error(
        McpServerConfig::stdio("quitter", TEST_SERVER, ["exit"])
            .with_startup_timeout(Duration::from_secs(20)),
    )
    .await;
    assert_eq!(
        message,
        "MCP server `quitter` failed to start: the server exited during start-up (exit status: 2); \
         its stderr ends with: fatal: no configuration found"
    );
    assert!(elapsed < Duration::from_secs(5), "{elapsed:?}");

    let timeout = Duration::from_millis(1500);
    let (message, elapsed) = startup_error(
        McpServerConfig::stdio("chatty", TEST_SERVER, ["garbage"]).with_startup_timeout(timeout),
    )
    .await;
    assert_eq!(
        message,
        "MCP server `chatty` failed to start: it did not answer `initialize` within the start-up \
         timeout (1500 ms); it wrote output that is not MCP JSON-RPC to stdout: `Welcome to the \
         test server! Type HELP for a list of commands.`"
    );
    assert!(
        elapsed >= timeout && elapsed < timeout + Duration::from_secs(2),
        "{elapsed:?}"
    );

    let (message, elapsed) = startup_error(
        McpServerConfig::stdio("mute", TEST_SERVER, ["hang"]).with_startup_timeout(timeout),
    )
    .await;
    assert_eq!(
        message,
        "MCP server `mute` failed to start: it did not answer `initialize` within the start-up \
         timeout (1500 ms)"
    );
    assert!(
        elapsed >= timeout && elapsed < timeout + Duration::from_secs(2),
        "{elapsed:?}"
    );
}

#[tokio::test]
async fn one_failing_server_fails_the_whole_registration() {
    let mut registry = builtin::registry(&["calculator"], None, true).unwrap();
    let err = register_servers(
        &mut registry,
        &[
            test_server("good"),
            McpServerConfig::stdio("bad", TEST_SERVER, ["exit"]),
        ],
    )
    .await
    .unwrap_err();
    assert_eq!(err.server(), "bad");
    assert_eq!(registry.names(), ["calculator"]);
}

// ------------------------------------------------------ other entry points

#[tokio::test]
async fn a_command_line_and_a_config_file_describe_servers() {
    let line = format!("AGENT_TOOLS_LINE=yes '{TEST_SERVER}' serve");
    let server = McpServerConfig::from_command_line(&line).unwrap();
    assert_eq!(server.name, "mcp-test-server");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("mcp.json");
    std::fs::write(
        &file,
        json!({"mcpServers": {
            "configured": {"command": TEST_SERVER, "args": ["serve"], "env": {"AGENT_TOOLS_FILE": "yes"},
                           "prefix": "cfg"},
            "off": {"command": "/nonexistent", "disabled": true}
        }})
        .to_string(),
    )
    .unwrap();
    let mut servers = agent_tools::mcp::load_config(&file).unwrap();
    servers.push(server.with_prefix("line"));
    let mut registry = ToolRegistry::new();
    let _servers = start(&mut registry, &servers).await;
    let tools = registry.allow(["cfg_env", "line_env"]).unwrap();
    assert_eq!(
        call(&tools, "cfg_env", json!({"name": "AGENT_TOOLS_FILE"}))
            .await
            .unwrap(),
        "yes"
    );
    assert_eq!(
        call(&tools, "line_env", json!({"name": "AGENT_TOOLS_LINE"}))
            .await
            .unwrap(),
        "yes"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn everything_over_streamable_http() {
    let bin = npm_server!("mcp-server-everything");
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let mut server = tokio::process::Command::new(&bin)
        .arg("streamableHttp")
        .env("PORT", port.to_string())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
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
    let config = McpServerConfig::http("remote", format!("http://127.0.0.1:{port}/mcp"))
        .with_bearer_token("unused-by-this-server")
        .with_startup_timeout(Duration::from_secs(20));
    let mut registry = ToolRegistry::new();
    let servers = start(&mut registry, &[config]).await;
    assert_eq!(servers.get("remote").unwrap().pid(), None);
    let tools = registry.allow(["remote.*"]).unwrap();
    assert!(tools.names().contains(&"get-sum"));
    assert_eq!(
        call(&tools, "echo", json!({"message": "over http"}))
            .await
            .unwrap(),
        "Echo: over http"
    );
    assert_eq!(
        call(&tools, "get-sum", json!({"a": 1, "b": 2}))
            .await
            .unwrap(),
        "The sum of 1 and 2 is 3."
    );
    servers.shutdown().await;
    server.kill().await.unwrap();
}

#[tokio::test]
async fn http_sends_the_bearer_token_and_headers_and_names_the_server_on_refusal() {
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
    let config = McpServerConfig::http("locked", format!("http://127.0.0.1:{port}/mcp"))
        .with_bearer_token("s3cr3t")
        .with_header("X-Team", "blue")
        .with_startup_timeout(Duration::from_secs(10));
    let err = McpConnection::connect(&config).await.unwrap_err();
    assert!(
        matches!(&err, McpError::Startup { server, .. } if server == "locked"),
        "{err}"
    );
    assert!(
        err.to_string()
            .contains("could not open a session at `http://127.0.0.1:"),
        "{err}"
    );
    let head = recorder.await.unwrap();
    assert!(head.starts_with("post /mcp "), "{head}");
    assert!(
        head.contains("\r\nauthorization: bearer s3cr3t\r\n"),
        "{head}"
    );
    assert!(head.contains("\r\nx-team: blue\r\n"), "{head}");
}
