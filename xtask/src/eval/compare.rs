//! `--compare EARLIER.jsonl`: what a run changed against an earlier one.
//! The earlier records (as `--jsonl` wrote them) are read once; each task
//! whose result flipped says so on its progress line, and the report ends
//! with the flips per transport and split, so a prompt or policy change is
//! judged task by task, not only by its totals.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;

use serde::Deserialize;

use super::report::Report;
use super::run::Record;

/// What an earlier run gave for one task on one transport.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub(crate) struct Earlier {
    pub(crate) right: bool,
    #[serde(default)]
    pub(crate) answer: Option<String>,
}

/// The earlier records, by task id and transport.
#[derive(Debug, Default)]
pub(crate) struct Baseline {
    source: String,
    runs: HashMap<(String, String), Earlier>,
}

/// The keys of a `--jsonl` line that a comparison reads.
#[derive(Deserialize)]
struct Line {
    id: String,
    transport: String,
    #[serde(flatten)]
    earlier: Earlier,
}

impl Baseline {
    /// Reads the records of an earlier `--jsonl`; a line that is not such
    /// a record is an error that names it (blank lines are skipped).
    pub(crate) fn load(path: &Path) -> Result<Self, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        Self::parse(&path.display().to_string(), &text)
    }

    fn parse(source: &str, text: &str) -> Result<Self, String> {
        let mut runs = HashMap::new();
        for (n, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let line: Line = serde_json::from_str(line).map_err(|e| {
                format!(
                    "{source}:{}: not an eval record (id, transport, right): {e}",
                    n + 1
                )
            })?;
            runs.insert((line.id, line.transport), line.earlier);
        }
        Ok(Self {
            source: source.to_string(),
            runs,
        })
    }

    /// What the earlier run gave for `record`'s task and transport.
    pub(crate) fn earlier(&self, record: &Record) -> Option<&Earlier> {
        self.runs
            .get(&(record.id.clone(), record.transport.to_string()))
    }

    /// The note on a progress line: empty unless the result flipped.
    pub(crate) fn progress_note(&self, record: &Record) -> &'static str {
        match self.earlier(record) {
            Some(earlier) if earlier.right && !record.right => " (was right)",
            Some(earlier) if !earlier.right && record.right => " (was WRONG)",
            _ => "",
        }
    }

    /// The report's closing section: per transport, the tasks that turned
    /// right and those that turned wrong (with both answers), and the
    /// tasks the earlier run did not have.
    pub(crate) fn render(&self, reports: &[Report]) -> String {
        let mut out = format!("\n## Against {}\n", self.source);
        for report in reports {
            let mut gained = Vec::new();
            let mut lost = Vec::new();
            let mut unknown = Vec::new();
            for record in &report.records {
                match self.earlier(record) {
                    None => unknown.push(record.id.as_str()),
                    Some(earlier) if earlier.right != record.right => {
                        let line = format!(
                            "- `{}` [{}]: {:?} → {:?}",
                            record.id,
                            record.split,
                            earlier.answer.as_deref().unwrap_or(""),
                            record.answer.as_deref().unwrap_or("")
                        );
                        if record.right {
                            gained.push(line);
                        } else {
                            lost.push(line);
                        }
                    }
                    Some(_) => {}
                }
            }
            let _ = writeln!(
                out,
                "\n{} transport: {} turned right, {} turned wrong.",
                report.kind.name(),
                gained.len(),
                lost.len()
            );
            for (title, lines) in [("Turned right:", &gained), ("Turned wrong:", &lost)] {
                if !lines.is_empty() {
                    let _ = writeln!(out, "\n{title}\n\n{}", lines.join("\n"));
                }
            }
            if !unknown.is_empty() {
                let _ = writeln!(out, "\nNot in the earlier run: {}.", unknown.join(", "));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::run::Kind;

    fn record(id: &str, right: bool, answer: &str) -> Record {
        Record {
            id: id.into(),
            split: "tune".into(),
            category: "c".into(),
            transport: "text",
            right,
            clean: true,
            stop_reason: "final_answer".into(),
            answer: Some(answer.into()),
            forced_answer: false,
            ungrounded_numbers: Vec::new(),
            steps: 2,
            requests: 2,
            tool_calls: 1,
            usages: Vec::new(),
            seconds: 1.0,
        }
    }

    const EARLIER: &str = r#"{"id": "a", "transport": "text", "right": true, "answer": "42", "steps": 2}
{"id": "b", "transport": "text", "right": false, "answer": "7"}

{"id": "a", "transport": "native", "right": false, "answer": null}
"#;

    #[test]
    fn flips_are_named_on_the_progress_line_and_in_the_report() {
        let baseline = Baseline::parse("old.jsonl", EARLIER).unwrap();
        let now = [
            record("a", false, "41"),
            record("b", true, "8"),
            record("c", true, "1"),
        ];
        assert_eq!(baseline.progress_note(&now[0]), " (was right)");
        assert_eq!(baseline.progress_note(&now[1]), " (was WRONG)");
        assert_eq!(baseline.progress_note(&now[2]), "");
        let report = Report {
            kind: Kind::Text,
            first_request: None,
            records: now.to_vec(),
        };
        let text = baseline.render(&[report]);
        assert!(text.contains("## Against old.jsonl"), "{text}");
        assert!(
            text.contains("text transport: 1 turned right, 1 turned wrong."),
            "{text}"
        );
        assert!(text.contains("- `b` [tune]: \"7\" → \"8\""), "{text}");
        assert!(text.contains("- `a` [tune]: \"42\" → \"41\""), "{text}");
        assert!(text.contains("Not in the earlier run: c."), "{text}");
    }

    #[test]
    fn an_unchanged_result_is_no_flip_and_transports_are_apart() {
        let baseline = Baseline::parse("old.jsonl", EARLIER).unwrap();
        let mut native = record("a", false, "");
        native.transport = "native";
        assert_eq!(baseline.progress_note(&native), "");
        assert_eq!(baseline.earlier(&native).map(|e| e.right), Some(false));
    }

    #[test]
    fn a_line_that_is_no_record_is_an_error_that_names_it() {
        let err = Baseline::parse("old.jsonl", "{\"id\": \"a\"}\n").unwrap_err();
        assert!(err.starts_with("old.jsonl:1: not an eval record"), "{err}");
        let err = Baseline::parse("old.jsonl", "\nnot json\n").unwrap_err();
        assert!(err.starts_with("old.jsonl:2:"), "{err}");
        let err = Baseline::load(Path::new("/nonexistent/old.jsonl")).unwrap_err();
        assert!(err.contains("cannot read"), "{err}");
    }
}
