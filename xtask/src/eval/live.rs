//! A few public eval tasks against the live model server, on both
//! transports, as part of `cargo test --workspace` (the full eval stays a
//! dev task: `cargo xtask eval`). The tasks are one per kind of work:
//! arithmetic, a lookup, a file question and both together. When no server
//! answers, the test says plainly that it skipped.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use agent_native::{OpenAiCompatible, ProviderConfig};

use super::run::{Kind, Settings, run_task};
use super::tasks::load;

/// One public task per category.
const TASKS: [&str; 4] = ["calculator-01", "search-01", "files-01", "mixed-01"];

/// The server's base URL when `GET {url}/models` answers 200.
fn live_server() -> Option<String> {
    let url =
        std::env::var("AGENT_LIVE_BASE_URL").unwrap_or_else(|_| "http://127.0.0.1:8088/v1".into());
    let answers = (|| {
        let rest = url.strip_prefix("http://")?;
        let (host, path) = rest.split_once('/').unwrap_or((rest, ""));
        let address = host.to_socket_addrs().ok()?.next()?;
        let mut stream = TcpStream::connect_timeout(&address, Duration::from_secs(3)).ok()?;
        stream.set_read_timeout(Some(Duration::from_secs(3))).ok()?;
        let request = format!("GET /{path}/models HTTP/1.0\r\nHost: {host}\r\n\r\n");
        stream.write_all(request.as_bytes()).ok()?;
        let mut head = [0u8; 12];
        stream.read_exact(&mut head).ok()?;
        Some(head.ends_with(b" 200"))
    })();
    if answers == Some(true) {
        Some(url)
    } else {
        eprintln!(
            "SKIPPED live eval test: no model server answers at {url} \
             (start one with ../shared/tools/local-llm/start.sh, or set AGENT_LIVE_BASE_URL)"
        );
        None
    }
}

#[test]
fn public_tasks_finish_on_both_transports() {
    let Some(url) = live_server() else { return };
    let tasks_file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../evals/tasks.jsonl");
    let tasks: Vec<_> = load(&tasks_file)
        .unwrap()
        .into_iter()
        .filter(|t| TASKS.contains(&t.id.as_str()))
        .collect();
    assert_eq!(tasks.len(), TASKS.len(), "the public tasks are in the set");
    let model = std::env::var("AGENT_MODEL").unwrap_or_else(|_| "qwen2.5-coder-1.5b".into());
    let timeout = Duration::from_secs(300);
    let settings = Settings {
        provider: Arc::new(
            OpenAiCompatible::new(ProviderConfig::new(&url, model).with_timeout(timeout)).unwrap(),
        ),
        stream: true,
        timeout,
        traces: None,
        file_overview: false,
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    for kind in [Kind::Text, Kind::Native] {
        let mut right = 0;
        for task in &tasks {
            let record = runtime.block_on(run_task(task, kind, &settings)).unwrap();
            eprintln!(
                "{} {}: {} ({}, {} tool calls, answer {:?})",
                kind.name(),
                task.id,
                if record.right { "right" } else { "WRONG" },
                record.stop_reason,
                record.tool_calls,
                record.answer
            );
            assert!(record.clean, "{}: not a clean stop", task.id);
            assert!(
                record.answer.is_some(),
                "{} on {}: every run ends with an answer, forced or not",
                task.id,
                kind.name()
            );
            right += usize::from(record.right);
        }
        // A regression guard, not the eval: the 1.5B model gets three or
        // four of these right on text; fewer than half is a regression.
        // Native answers every one but gets one or two right on this server
        // (`evals/results/`), so only its clean stops and answers are held.
        if kind == Kind::Text {
            assert!(
                2 * right >= tasks.len(),
                "{}: {right} of {} public tasks right",
                kind.name(),
                tasks.len()
            );
        }
    }
}
