//! The eval task file: one JSON task per line (see `evals/README.md`),
//! read and checked before anything runs.

use std::collections::{BTreeMap, HashSet};
use std::path::Path;

use serde::Deserialize;

/// One task.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct Task {
    pub(crate) id: String,
    pub(crate) split: String,
    pub(crate) category: String,
    pub(crate) task: String,
    pub(crate) tools: Vec<String>,
    #[serde(default)]
    pub(crate) files: BTreeMap<String, String>,
    #[serde(default)]
    pub(crate) answers: Vec<String>,
    #[serde(default)]
    pub(crate) refusal: bool,
    #[serde(default)]
    pub(crate) forbidden: Vec<String>,
}

/// The tool groups a task may offer.
const GROUPS: [&str; 3] = ["calculator", "search", "files"];

/// Reads and checks the task file.
pub(crate) fn load(path: &Path) -> Result<Vec<Task>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mut tasks = Vec::new();
    let mut ids = HashSet::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let at = |what: String| format!("{}:{}: {what}", path.display(), n + 1);
        let task: Task = serde_json::from_str(line).map_err(|e| at(e.to_string()))?;
        if !ids.insert(task.id.clone()) {
            return Err(at(format!("duplicate id `{}`", task.id)));
        }
        if !matches!(task.split.as_str(), "tune" | "check") {
            return Err(at(format!(
                "split must be tune or check, not `{}`",
                task.split
            )));
        }
        if let Some(group) = task.tools.iter().find(|g| !GROUPS.contains(&g.as_str())) {
            return Err(at(format!("unknown tool group `{group}`")));
        }
        if task.answers.is_empty() != task.refusal {
            return Err(at(
                "a task has answers, or is a refusal, not both or neither".into(),
            ));
        }
        if !task.files.is_empty() && !task.tools.iter().any(|g| g == "files") {
            return Err(at(
                "files are given but the files tools are not offered".into()
            ));
        }
        tasks.push(task);
    }
    if tasks.is_empty() {
        return Err(format!("{} has no tasks", path.display()));
    }
    Ok(tasks)
}

/// Writes a task's files into `dir`.
pub(crate) fn materialize(task: &Task, dir: &Path) -> Result<(), String> {
    for (relative, content) in &task.files {
        let path = dir.join(relative);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| format!("{}: cannot create {}: {e}", task.id, parent.display()))?;
        }
        std::fs::write(&path, content)
            .map_err(|e| format!("{}: cannot write {}: {e}", task.id, path.display()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every committed set loads, with ids distinct across all of them and
    /// no one-character answer. The measured sets (the public set and the
    /// holdout) keep their halves balanced; the probe sets are tuning data,
    /// and the tasks moved into `probe.jsonl` once read while tuning leave
    /// its halves uneven.
    #[test]
    fn every_committed_task_set_loads_with_distinct_ids_and_measured_sets_keep_both_halves() {
        let evals = Path::new(env!("CARGO_MANIFEST_DIR")).join("../evals");
        let mut ids = HashSet::new();
        for (file, measured) in [
            ("tasks.jsonl", true),
            ("probe.jsonl", false),
            ("probe2.jsonl", false),
            ("probe3.jsonl", false),
            ("probe4.jsonl", false),
            ("probe5.jsonl", false),
            ("probe6.jsonl", false),
            ("holdout.jsonl", true),
        ] {
            let tasks = load(&evals.join(file)).unwrap();
            if measured {
                let half = |split: &str| tasks.iter().filter(|t| t.split == split).count();
                assert_eq!(half("tune"), half("check"), "{file}");
            }
            for task in &tasks {
                assert!(ids.insert(task.id.clone()), "{} twice", task.id);
                assert!(
                    task.answers.iter().all(|a| a.trim().chars().count() > 1),
                    "{}: a one-character answer matches by accident",
                    task.id
                );
            }
        }
    }
}
