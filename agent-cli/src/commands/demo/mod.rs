//! `agent demo` (what `cargo xtask demo` runs): offline scenes played by
//! [`model::DemoModel`], shown exactly as a live run is: same
//! agent, tools and live view. Scenes: multi-hop, recovery, refund, files,
//! budget; both transports.

mod model;
mod scenes;

use std::sync::Arc;

use agent_core::Agent;
use agent_core::agent::RunControl;

use crate::cli::{DemoArgs, TransportKind};
use crate::exit::{CliError, FAILURE, OK};
use crate::setup;
use crate::view::LiveView;

use model::DemoModel;
use scenes::{NAMES, completion, scenes};

/// The original content of the files scene's `src/lib.rs`.
const LIB_RS: &str = "/// The answer.\npub fn answer() -> u32 {\n    41\n}\n";

/// A tiny Rust project for the files scene.
fn sample_project() -> Result<tempfile::TempDir, CliError> {
    let io = |e: std::io::Error| CliError::Failure(format!("cannot create the demo project: {e}"));
    let dir = tempfile::tempdir().map_err(io)?;
    std::fs::create_dir_all(dir.path().join("src")).map_err(io)?;
    std::fs::write(
        dir.path().join("Cargo.toml"),
        "[package]\nname = \"tiny\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    )
    .map_err(io)?;
    std::fs::write(dir.path().join("src/lib.rs"), LIB_RS).map_err(io)?;
    std::fs::write(
        dir.path().join("src/main.rs"),
        "fn main() {\n    println!(\"{}\", tiny::answer());\n}\n",
    )
    .map_err(io)?;
    std::fs::write(
        dir.path().join("README.md"),
        "# tiny\n\nPrints the answer.\n",
    )
    .map_err(io)?;
    Ok(dir)
}

/// Runs the scenes asked for; exit 0 when each ended as scripted.
pub(crate) async fn demo(args: &DemoArgs) -> Result<u8, CliError> {
    let kinds: Vec<TransportKind> = match args.transport {
        Some(kind) => vec![kind],
        None => vec![TransportKind::Text, TransportKind::Native],
    };
    if let Some(scene) = &args.scene
        && !NAMES.contains(&scene.as_str())
    {
        return Err(CliError::Usage(format!(
            "unknown scene `{scene}` (scenes: {})",
            NAMES.join(", ")
        )));
    }
    let view = LiveView::new();
    let mut failures = 0;
    for kind in kinds {
        let project = sample_project()?;
        for scene in scenes(project.path())? {
            if args.scene.as_deref().is_some_and(|s| s != scene.name) {
                continue;
            }
            eprintln!(
                "\n══ scene {} · {} transport ══",
                scene.name,
                if kind == TransportKind::Text {
                    "text"
                } else {
                    "native"
                }
            );
            let model = DemoModel::new(
                scene
                    .beats
                    .iter()
                    .enumerate()
                    .map(|(n, beat)| completion(beat, kind, n)),
            );
            let agent = Agent::builder()
                .model(model)
                .transport(setup::transport(kind))
                .toolbox(scene.tools)
                .budget(scene.budget)
                .streaming(true)
                .build()
                .map_err(|e| CliError::Failure(e.to_string()))?;
            let control = RunControl::default().with_sink(Arc::clone(&view));
            let outcome = agent.run_with(scene.task, &control).await;
            view.finish();
            if scene.name == "files" {
                let fixed =
                    std::fs::read_to_string(project.path().join("src/lib.rs")).unwrap_or_default();
                eprintln!(
                    "   src/lib.rs is now: {}",
                    crate::view::one_line(&fixed, 120)
                );
                // Restore it for the next transport.
                let _ = std::fs::write(project.path().join("src/lib.rs"), LIB_RS);
            }
            if scene.name == "budget" {
                eprintln!(
                    "   transcript kept: {} messages, {} tool results",
                    outcome.transcript.len(),
                    outcome.tool_calls
                );
            }
            if outcome.answer.is_some() != scene.expect_answer {
                failures += 1;
                eprintln!("   unexpected outcome: {}", outcome.stop_reason);
            }
        }
    }
    Ok(if failures == 0 { OK } else { FAILURE })
}
