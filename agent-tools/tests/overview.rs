//! The file tools' overview (turned on with `FileTools::overview`, or
//! `BuiltinOptions::file_overview` in the built-in registry): a run that
//! has them opens with what the working directory holds, through the
//! gateway's context, written once however many file tools are offered,
//! read fresh at each run's start, and never able to take the run down.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;

use agent_core::{Tool, ToolError, ToolOutput, Toolbox};
use agent_tools::ToolRegistry;
use agent_tools::builtin::{BuiltinOptions, registry, registry_with};
use async_trait::async_trait;
use serde_json::{Value, json};

fn root_with(files: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for path in files {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, "x\n").unwrap();
    }
    dir
}

/// The read-only file tools over `root`, their overview on or off, and
/// the calculator, as `builtin::registry_with` sets them up.
fn file_registry_with(root: &Path, overview: bool) -> ToolRegistry {
    let options = BuiltinOptions {
        dir: Some(root),
        read_only: true,
        file_overview: overview,
    };
    registry_with(&["calculator", "files"], options).unwrap()
}

fn file_registry(root: &Path) -> ToolRegistry {
    file_registry_with(root, true)
}

#[test]
fn the_files_a_root_holds_are_the_runs_context_once() {
    let dir = root_with(&["hosts/web-b.ini", "notes/2024-05-14.md", "README.md"]);
    let tools = file_registry(dir.path()).allow_all();
    assert_eq!(
        tools.context().as_deref(),
        Some(
            "Files in the working directory: README.md, hosts/web-b.ini, notes/2024-05-14.md (Tuesday)."
        )
    );
    // One file tool offered is enough; none offered, no overview.
    let grep_only = file_registry(dir.path()).allow(["grep"]).unwrap();
    assert_eq!(grep_only.context(), tools.context());
    let calculator_only = file_registry(dir.path()).allow(["calculator"]).unwrap();
    assert_eq!(calculator_only.context(), None);
}

#[test]
fn the_overview_is_read_again_at_each_runs_start() {
    let dir = root_with(&["a.md"]);
    let tools = file_registry(dir.path()).allow_all();
    assert_eq!(
        tools.context().as_deref(),
        Some("Files in the working directory: a.md.")
    );
    std::fs::write(dir.path().join("b.md"), "y\n").unwrap();
    assert_eq!(
        tools.context().as_deref(),
        Some("Files in the working directory: a.md, b.md.")
    );
}

#[test]
fn an_empty_root_or_the_overview_off_adds_nothing() {
    let empty = root_with(&[]);
    assert_eq!(file_registry(empty.path()).allow_all().context(), None);
    let dir = root_with(&["a.md"]);
    assert_eq!(
        file_registry_with(dir.path(), false).allow_all().context(),
        None
    );
    // Off by default, as the built-in registry has them.
    let builtin = registry(&["files"], Some(dir.path()), true).unwrap();
    assert_eq!(builtin.allow_all().context(), None);
}

/// A tool whose context panics.
struct Broken;

#[async_trait]
impl Tool for Broken {
    fn name(&self) -> &str {
        "broken"
    }
    fn description(&self) -> &str {
        "Has a context that panics."
    }
    fn parameters(&self) -> Value {
        json!({"type": "object"})
    }
    async fn call(&self, _args: Value) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::new("ok"))
    }
    fn context(&self) -> Option<String> {
        panic!("context failed")
    }
}

#[test]
fn a_context_that_panics_adds_nothing_and_the_others_stay() {
    let dir = root_with(&["a.md"]);
    let mut registry = file_registry(dir.path());
    registry.register(Broken).unwrap();
    let tools = registry.allow_all();
    assert_eq!(
        tools.context().as_deref(),
        Some("Files in the working directory: a.md.")
    );
}
