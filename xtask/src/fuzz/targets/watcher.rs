//! `watcher`: [`agent_text::ActionWatcher`] fed a completion in deltas cut
//! at random byte positions (non-ASCII included). Oracles: a returned
//! length lies within the text received so far, on a char boundary; and
//! the cut point is the same however the text is chunked — the case's
//! random deltas, the whole text at once, and one character at a time.

use std::hint::black_box;
use std::time::Instant;

use agent_core::transport::StreamWatcher;
use agent_text::{ActionWatcher, Parsed, parse};

use super::parser::REACT_DICTIONARY;
use super::{Outcome, Target, Violation, check_cut, nanos_since, signature};
use crate::fuzz::case::Case;
use crate::fuzz::seeds::SeedSet;

/// The watcher target.
#[derive(Debug)]
pub(crate) struct Watcher;

impl Target for Watcher {
    fn name(&self) -> &'static str {
        "watcher"
    }

    fn seeds(&self) -> SeedSet {
        SeedSet::React
    }

    fn dictionary(&self) -> &'static [&'static str] {
        REACT_DICTIONARY
    }

    fn chunked(&self) -> bool {
        true
    }

    fn run(&mut self, case: &Case) -> Result<Outcome, Violation> {
        let text = case.text.as_str();
        let start = Instant::now();
        let chunked = black_box(feed(text, case.chunks()));
        let nanos = nanos_since(start);
        let chunked = chunked?;
        let whole = feed(text, std::iter::once(text))?;
        let by_char = feed(
            text,
            text.char_indices().map(|(i, c)| &text[i..i + c.len_utf8()]),
        )?;
        if chunked != whole || chunked != by_char {
            return Err(Violation::new(
                "watcher-chunking",
                "cut depends on chunking",
                format!(
                    "cut at {chunked:?} with these deltas, {whole:?} for the whole text, \
                     {by_char:?} one character at a time"
                ),
            ));
        }
        if let Some(n) = chunked {
            agrees_with_the_parser(text, n)?;
        }
        let cut = match chunked {
            None => 0,
            Some(n) if n == text.len() => 1,
            Some(n) if text[n..].starts_with('\n') => 2,
            Some(_) => 3,
        };
        Ok(Outcome {
            nanos,
            signature: signature(&[b"watch", &[cut]]),
        })
    }
}

/// The step read from the text the watcher kept is the step read from the
/// whole text: a cut never changes a plain-text input or its tool.
fn agrees_with_the_parser(text: &str, cut: usize) -> Result<(), Violation> {
    let Parsed::Action { tool, input, .. } = parse(text) else {
        return Ok(());
    };
    // Plain-text inputs only: a JSON input is cut where its brackets
    // close, and broken JSON is repaired by rules the watcher does not
    // mirror.
    if !input.is_string() || text.contains(['{', '[']) {
        return Ok(());
    }
    // A fence cut at its closing backticks can read otherwise when more
    // backticks follow on its line; fences are left to the other oracles.
    if text.contains("```") {
        return Ok(());
    }
    // A reply that opens with a tag is read by the parser's tag readers,
    // which the watcher, following ReAct labels, does not mirror.
    if text.trim_start().starts_with('<') {
        return Ok(());
    }
    // A reasoning block closed later in the text (a `</think>` whose
    // opening tag was in the prompt) cannot be known while streaming.
    if agent_core::reasoning::split_reasoning(text).is_some() {
        return Ok(());
    }
    match parse(&text[..cut]) {
        Parsed::Action {
            tool: kept_tool,
            input: kept_input,
            ..
        } if kept_tool == tool && kept_input == input => Ok(()),
        kept => Err(Violation::new(
            "watcher-parse",
            "the cut changes the step",
            format!(
                "whole text: {tool} {input}; cut at {cut}: {}",
                kept.to_json()
            ),
        )),
    }
}

/// Feeds `deltas` (which make up `text`) until the watcher reports the
/// step complete; checks the reported length against what was received.
fn feed<'a>(text: &str, deltas: impl Iterator<Item = &'a str>) -> Result<Option<usize>, Violation> {
    let mut watcher = ActionWatcher::new();
    let mut received = 0;
    for delta in deltas {
        received += delta.len();
        if let Some(len) = watcher.push(delta) {
            if len > received {
                return Err(Violation::new(
                    "watcher-cut",
                    "past the text received",
                    format!("returned {len} after receiving {received} bytes"),
                ));
            }
            check_cut("watcher-cut", text, len, "the returned length")?;
            return Ok(Some(len));
        }
    }
    Ok(None)
}
