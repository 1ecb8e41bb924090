//! The seed corpus: `xtask/fuzz-seeds/` (see its README) plus the texts of
//! the parser corpora, every `agent-text/tests/data/*.jsonl` (real outputs
//! of many model families and frameworks).
//! `react/` and `json/` hold one seed per file; `calculator.txt` and
//! `paths.txt` one per line; `regressions/TARGET-*.txt` are reproducers,
//! one per file, seeding their target's set. JSON seeds also include every
//! ReAct seed's text from its first `{`. The `run` target's seeds are
//! written in its module (`targets/run/corpus.rs`), plus every ReAct seed
//! as a model reply in a run.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// Which seeds a target starts from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SeedSet {
    /// ReAct completions (parser, watcher).
    React,
    /// JSON-ish tool inputs.
    Json,
    /// Arithmetic expressions.
    Calculator,
    /// Model-given paths.
    Paths,
    /// Whole runs: task, replies and tool results, split at `␞`.
    Run,
}

/// The seed folder, `xtask/fuzz-seeds`.
pub(crate) fn folder() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz-seeds")
}

/// The parser corpora (JSON lines with a `text` field), in name order.
fn parser_corpora() -> io::Result<Vec<PathBuf>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../agent-text/tests/data");
    let mut paths: Vec<PathBuf> = fs::read_dir(dir)?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    paths.sort();
    Ok(paths)
}

/// Loads the seeds of `set`, in a stable order.
pub(crate) fn load(set: SeedSet) -> io::Result<Vec<String>> {
    let dir = folder();
    match set {
        SeedSet::React => react(&dir),
        SeedSet::Json => {
            let mut seeds = files(&dir.join("json"), "")?;
            seeds.extend(files(&dir.join("regressions"), "json-")?);
            seeds.extend(
                react(&dir)?
                    .iter()
                    .filter_map(|text| text.find('{').map(|at| text[at..].to_string())),
            );
            Ok(seeds)
        }
        SeedSet::Calculator => {
            let mut seeds = lines(&dir.join("calculator.txt"))?;
            seeds.extend(files(&dir.join("regressions"), "calculator-")?);
            Ok(seeds)
        }
        SeedSet::Paths => {
            let mut seeds = lines(&dir.join("paths.txt"))?;
            seeds.extend(files(&dir.join("regressions"), "paths-")?);
            Ok(seeds)
        }
        SeedSet::Run => {
            let mut seeds = super::targets::run_seeds(&react(&dir)?);
            seeds.extend(files(&dir.join("regressions"), "run-")?);
            Ok(seeds)
        }
    }
}

fn react(dir: &Path) -> io::Result<Vec<String>> {
    let mut seeds = files(&dir.join("react"), "")?;
    seeds.extend(files(&dir.join("regressions"), "parser-")?);
    seeds.extend(files(&dir.join("regressions"), "watcher-")?);
    for corpus in parser_corpora()? {
        for line in fs::read_to_string(corpus)?.lines() {
            let Ok(case) = serde_json::from_str::<serde_json::Value>(line) else {
                continue;
            };
            if let Some(text) = case.get("text").and_then(|t| t.as_str()) {
                seeds.push(text.to_string());
            }
        }
    }
    Ok(seeds)
}

/// Every `.txt` file of `dir` whose name starts with `prefix` (sorted by
/// name) as one seed; a missing folder has none.
fn files(dir: &Path, prefix: &str) -> io::Result<Vec<String>> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let mut paths: Vec<PathBuf> = entries
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| {
            path.is_file()
                && path.extension().is_some_and(|e| e == "txt")
                && path
                    .file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with(prefix))
        })
        .collect();
    paths.sort();
    paths
        .iter()
        .map(|path| fs::read(path).map(|bytes| String::from_utf8_lossy(&bytes).into_owned()))
        .collect()
}

/// Every line of `path` as one seed, taken literally.
fn lines(path: &Path) -> io::Result<Vec<String>> {
    Ok(fs::read_to_string(path)?
        .lines()
        .map(str::to_string)
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_seed_set_loads_and_is_not_empty() {
        for set in [
            SeedSet::React,
            SeedSet::Json,
            SeedSet::Calculator,
            SeedSet::Paths,
            SeedSet::Run,
        ] {
            let seeds = load(set).unwrap();
            assert!(seeds.len() >= 10, "{set:?}: {} seeds", seeds.len());
        }
        let react = load(SeedSet::React).unwrap();
        assert!(react.iter().any(|s| s.contains('：')));
        assert!(react.iter().any(|s| s.contains("```")));
    }
}
