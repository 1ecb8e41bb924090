//! `cargo xtask eval`: runs the task set against a live OpenAI-compatible
//! endpoint, one task at a time (a local server has one slot), each in a
//! fresh temporary directory, with the same agent a user gets from the
//! CLI's defaults. It prints a table per transport and split, the prompt
//! cache figures from the server's own counters, the first request's size,
//! and a line per failure; `--jsonl OUT` keeps one record per run.
//!
//! ```text
//! cargo xtask eval [--base-url URL] [--model NAME] [--transport text|native|both]
//!                  [--tasks FILE] [--split tune|check] [--only ID-PREFIX]
//!                  [--jsonl OUT] [--report OUT.md] [--traces DIR] [--stream]
//!                  [--timeout SECS] [--compare EARLIER.jsonl] [--file-overview]
//! ```
//!
//! `--jsonl` gets each record as soon as its run ends, so a run stopped
//! part-way keeps what it did; `--traces DIR` keeps each run's JSONL trace
//! (`DIR/ID-TRANSPORT.jsonl`, readable with `agent replay`); `--compare`
//! names the tasks whose result flipped against an earlier `--jsonl`;
//! `--file-overview` opens each run that has the file tools with what the
//! task's directory holds (`agent run --file-overview`).
//!
//! Requests are not streamed by default, so every request's usage comes
//! from the server (a stream cut early carries none).

mod compare;
mod judge;
#[cfg(test)]
mod live;
mod report;
mod run;
mod tasks;

use std::io::Write as _;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use agent_native::{OpenAiCompatible, ProviderConfig};

use run::{Kind, Settings};

/// What the command line asked for.
#[derive(Debug)]
struct Args {
    base_url: String,
    model: String,
    kinds: Vec<Kind>,
    tasks: PathBuf,
    split: Option<String>,
    only: Option<String>,
    jsonl: Option<PathBuf>,
    report: Option<PathBuf>,
    traces: Option<PathBuf>,
    stream: bool,
    timeout: Duration,
    compare: Option<PathBuf>,
    file_overview: bool,
}

fn parse_args(args: &[String]) -> Result<Args, String> {
    let mut parsed = Args {
        base_url: std::env::var("OPENAI_BASE_URL")
            .unwrap_or_else(|_| "http://127.0.0.1:8088/v1".into()),
        model: std::env::var("AGENT_MODEL").unwrap_or_else(|_| "qwen2.5-coder-1.5b".into()),
        kinds: vec![Kind::Text, Kind::Native],
        tasks: PathBuf::from("evals/tasks.jsonl"),
        split: None,
        only: None,
        jsonl: None,
        report: None,
        traces: None,
        stream: false,
        timeout: Duration::from_secs(600),
        compare: None,
        file_overview: false,
    };
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        let mut value = || {
            it.next()
                .cloned()
                .ok_or_else(|| format!("{flag} needs a value"))
        };
        match flag.as_str() {
            "--base-url" => parsed.base_url = value()?,
            "--model" => parsed.model = value()?,
            "--transport" => {
                parsed.kinds = match value()?.as_str() {
                    "text" => vec![Kind::Text],
                    "native" => vec![Kind::Native],
                    "both" => vec![Kind::Text, Kind::Native],
                    other => {
                        return Err(format!("unknown transport `{other}` (text, native, both)"));
                    }
                }
            }
            "--tasks" => parsed.tasks = PathBuf::from(value()?),
            "--split" => {
                let split = value()?;
                if !matches!(split.as_str(), "tune" | "check") {
                    return Err(format!("unknown split `{split}` (tune, check)"));
                }
                parsed.split = Some(split);
            }
            "--only" => parsed.only = Some(value()?),
            "--jsonl" => parsed.jsonl = Some(PathBuf::from(value()?)),
            "--report" => parsed.report = Some(PathBuf::from(value()?)),
            "--traces" => parsed.traces = Some(PathBuf::from(value()?)),
            "--stream" => parsed.stream = true,
            "--file-overview" => parsed.file_overview = true,
            "--compare" => parsed.compare = Some(PathBuf::from(value()?)),
            "--timeout" => {
                let secs: f64 = value()?
                    .parse()
                    .map_err(|_| "--timeout needs seconds".to_string())?;
                parsed.timeout = Duration::try_from_secs_f64(secs)
                    .ok()
                    .filter(|d| !d.is_zero())
                    .ok_or("--timeout needs a positive number of seconds")?;
            }
            other => return Err(format!("unknown flag `{other}`")),
        }
    }
    Ok(parsed)
}

/// Runs the eval; `Ok(true)` when every run stopped cleanly.
pub(crate) fn run(args: &[String]) -> Result<bool, String> {
    let args = parse_args(args)?;
    let mut all = tasks::load(&args.tasks)?;
    all.retain(|t| args.split.as_ref().is_none_or(|s| &t.split == s));
    all.retain(|t| {
        args.only
            .as_ref()
            .is_none_or(|p| t.id.starts_with(p.as_str()))
    });
    if all.is_empty() {
        return Err("no task matches the filters".into());
    }
    let baseline = args
        .compare
        .as_deref()
        .map(compare::Baseline::load)
        .transpose()?;
    let provider = OpenAiCompatible::new(
        ProviderConfig::new(&args.base_url, &args.model).with_timeout(args.timeout),
    )
    .map_err(|e| e.to_string())?;
    if let Some(dir) = &args.traces {
        std::fs::create_dir_all(dir).map_err(|e| format!("cannot make {}: {e}", dir.display()))?;
    }
    let settings = Settings {
        provider: Arc::new(provider),
        stream: args.stream,
        timeout: args.timeout,
        traces: args.traces.clone(),
        file_overview: args.file_overview,
    };
    let mut jsonl = args
        .jsonl
        .as_ref()
        .map(|path| {
            std::fs::File::create(path)
                .map(|file| (path, file))
                .map_err(|e| format!("cannot write {}: {e}", path.display()))
        })
        .transpose()?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start a runtime: {e}"))?;
    let mut reports = Vec::new();
    for kind in &args.kinds {
        eprintln!(
            "eval: {} tasks on the {} transport against {} ({})",
            all.len(),
            kind.name(),
            args.base_url,
            args.model
        );
        let first_request = runtime.block_on(run::first_request_tokens(*kind, &settings));
        let mut records = Vec::new();
        for (n, task) in all.iter().enumerate() {
            let record = runtime.block_on(run::run_task(task, *kind, &settings))?;
            eprintln!(
                "  [{}/{}] {} {} ({:.0} s, {}){}",
                n + 1,
                all.len(),
                task.id,
                if record.right { "right" } else { "WRONG" },
                record.seconds,
                record.stop_reason,
                baseline
                    .as_ref()
                    .map_or("", |baseline| baseline.progress_note(&record))
            );
            if let Some((path, file)) = jsonl.as_mut() {
                file.write_all(report::jsonl_line(&record).as_bytes())
                    .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
            }
            records.push(record);
        }
        reports.push(report::Report {
            kind: *kind,
            first_request,
            records,
        });
    }
    let header = report::Header {
        base_url: args.base_url.clone(),
        model: args.model.clone(),
        tasks: args.tasks.display().to_string(),
        stream: args.stream,
        file_overview: args.file_overview,
    };
    let mut text = report::render(&header, &reports);
    if let Some(baseline) = &baseline {
        text.push_str(&baseline.render(&reports));
    }
    println!("{text}");
    if let Some(path) = &args.report {
        std::fs::write(path, &text).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    Ok(reports
        .iter()
        .all(|r| r.records.iter().all(|record| record.clean)))
}
