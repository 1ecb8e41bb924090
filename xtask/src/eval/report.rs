//! The eval's report: per transport, a table by split (right answers,
//! clean stops, steps, tool calls, prompt tokens sent, evaluated and served
//! from the server's cache, completion tokens, time), the cache share of
//! every request after a run's first, the first request's size, and one
//! line per wrong answer. Also the JSONL records.

use std::fmt::Write as _;

use serde_json::json;

use super::run::{Kind, PROBE_TASK, Record};

/// What the report is about.
#[derive(Debug)]
pub(crate) struct Header {
    pub(crate) base_url: String,
    pub(crate) model: String,
    pub(crate) tasks: String,
    pub(crate) stream: bool,
    pub(crate) file_overview: bool,
}

/// The runs of one transport.
#[derive(Debug)]
pub(crate) struct Report {
    pub(crate) kind: Kind,
    pub(crate) first_request: Option<u64>,
    pub(crate) records: Vec<Record>,
}

fn percent(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        0.0
    } else {
        100.0 * part as f64 / whole as f64
    }
}

fn row(name: &str, records: &[&Record]) -> String {
    let n = records.len();
    let right = records.iter().filter(|r| r.right).count();
    let clean = records.iter().filter(|r| r.clean).count();
    let mean = |f: &dyn Fn(&Record) -> f64| {
        if n == 0 {
            0.0
        } else {
            records.iter().map(|r| f(r)).sum::<f64>() / n as f64
        }
    };
    let cached: Option<u64> = records.iter().map(|r| r.cached_prompt_tokens()).sum();
    let prompt = mean(&|r| r.prompt_tokens() as f64);
    let (evaluated, cached) = match cached {
        Some(cached) => {
            let cached = cached as f64 / n.max(1) as f64;
            (format!("{:.0}", prompt - cached), format!("{cached:.0}"))
        }
        None => ("?".to_string(), "?".to_string()),
    };
    format!(
        "| {name} | {right}/{n} ({:.0}%) | {clean}/{n} | {:.1} | {:.1} | {prompt:.0} | {evaluated} | {cached} | {:.0} | {:.1} |",
        percent(right, n),
        mean(&|r| r.steps as f64),
        mean(&|r| r.tool_calls as f64),
        mean(&|r| r.completion_tokens() as f64),
        mean(&|r| r.seconds),
    )
}

/// The report as Markdown text.
pub(crate) fn render(header: &Header, reports: &[Report]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# Eval: {} at {}\n\nTasks: `{}`. Requests {}streamed{}. Token figures are per task, means; \"evaluated\" and \"cached\" are the server's own counts.\n",
        header.model,
        header.base_url,
        header.tasks,
        if header.stream { "" } else { "not " },
        if header.file_overview {
            "; runs with file tools open with the directory's overview"
        } else {
            ""
        }
    );
    for report in reports {
        let _ = writeln!(out, "## {} transport\n", report.kind.name());
        let _ = writeln!(
            out,
            "| split | right | clean stops | steps | tool calls | prompt tokens sent | evaluated | cached | completion tokens | seconds |"
        );
        let _ = writeln!(out, "|---|---|---|---|---|---|---|---|---|---|");
        for split in ["tune", "check"] {
            let records: Vec<&Record> =
                report.records.iter().filter(|r| r.split == split).collect();
            if !records.is_empty() {
                let _ = writeln!(out, "{}", row(split, &records));
            }
        }
        let all: Vec<&Record> = report.records.iter().collect();
        let _ = writeln!(out, "{}\n", row("all", &all));
        let shares: Vec<f64> = report
            .records
            .iter()
            .flat_map(Record::later_cache_shares)
            .collect();
        if shares.is_empty() {
            let _ = writeln!(
                out,
                "Prompt cache: the server reported no cache figures (or no run had a second request)."
            );
        } else {
            let mean = shares.iter().sum::<f64>() / shares.len() as f64;
            let min = shares.iter().copied().fold(f64::INFINITY, f64::min);
            let high = shares.iter().filter(|&&s| s >= 0.9).count();
            let _ = writeln!(
                out,
                "Prompt cache, requests after a run's first: {:.1}% of their prompt tokens served from the cache on average (lowest {:.1}%); {high} of {} requests at 90% or more.",
                100.0 * mean,
                100.0 * min,
                shares.len()
            );
            let reuse: Vec<f64> = report
                .records
                .iter()
                .flat_map(Record::later_prefix_reuse)
                .collect();
            if !reuse.is_empty() {
                let mean = reuse.iter().sum::<f64>() / reuse.len() as f64;
                let min = reuse.iter().copied().fold(f64::INFINITY, f64::min);
                let _ = writeln!(
                    out,
                    "Prefix reuse, same requests: of the tokens the server had already processed for the run (the previous request and its reply), {:.1}% were served from its cache on average (lowest {:.1}%). The rest of each prompt is the new observation.",
                    100.0 * mean,
                    100.0 * min
                );
            }
        }
        match report.first_request {
            Some(tokens) => {
                let _ = writeln!(
                    out,
                    "First request with the calculator and search tools (task `{PROBE_TASK}`): {tokens} prompt tokens (server count)."
                );
            }
            None => {
                let _ = writeln!(
                    out,
                    "First request with the calculator and search tools: the server did not report its size."
                );
            }
        }
        let forced = report.records.iter().filter(|r| r.forced_answer).count();
        let _ = writeln!(out, "Answers given on a forced answer turn: {forced}.");
        let ungrounded: Vec<&Record> = report
            .records
            .iter()
            .filter(|r| !r.ungrounded_numbers.is_empty())
            .collect();
        let ungrounded_right = ungrounded.iter().filter(|r| r.right).count();
        let _ = writeln!(
            out,
            "Answers with a number no tool result holds: {} ({ungrounded_right} of them right).\n",
            ungrounded.len()
        );
        let wrong: Vec<&Record> = report.records.iter().filter(|r| !r.right).collect();
        if !wrong.is_empty() {
            let _ = writeln!(out, "Wrong answers:\n");
            for r in wrong {
                let answer = r.answer.as_deref().map_or("(none)".to_string(), |a| {
                    let flat = a.replace('\n', " ");
                    let cut: String = flat.chars().take(140).collect();
                    format!("{cut:?}")
                });
                let _ = writeln!(
                    out,
                    "- `{}` [{}] stop: {}{}; answer: {answer}{}",
                    r.id,
                    r.split,
                    r.stop_reason,
                    if r.forced_answer { " (forced)" } else { "" },
                    if r.ungrounded_numbers.is_empty() {
                        String::new()
                    } else {
                        format!(" (in no result: {})", r.ungrounded_numbers.join(", "))
                    }
                );
            }
            let _ = writeln!(out);
        }
    }
    out
}

/// One JSON line per run.
pub(crate) fn jsonl_line(record: &Record) -> String {
    let line = json!({
        "id": record.id,
        "split": record.split,
        "category": record.category,
        "transport": record.transport,
        "right": record.right,
        "clean": record.clean,
        "stop_reason": record.stop_reason,
        "answer": record.answer,
        "forced_answer": record.forced_answer,
        "ungrounded_numbers": record.ungrounded_numbers,
        "steps": record.steps,
        "requests": record.requests,
        "tool_calls": record.tool_calls,
        "prompt_tokens": record.prompt_tokens(),
        "cached_prompt_tokens": record.cached_prompt_tokens(),
        "completion_tokens": record.completion_tokens(),
        "first_prompt_tokens": record.usages.first().and_then(|u| u.map(|u| u.prompt_tokens)),
        "seconds": (record.seconds * 10.0).round() / 10.0,
    });
    let mut text = line.to_string();
    text.push('\n');
    text
}
