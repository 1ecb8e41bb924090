//! The minimizer: shrinks a failing [`Case`] while it still fails the
//! same way — merging deltas, then deleting ever smaller spans of text
//! (halves down to single characters) — within a time budget.

use std::time::{Duration, Instant};

use super::case::Case;

/// Most candidates tried per minimization.
const MAX_TRIES: usize = 200_000;

/// The smallest case found that `fails`, starting from `case` (which must
/// fail). Stops when no single deletion helps, or at `budget`.
pub(crate) fn minimize(
    case: &Case,
    mut fails: impl FnMut(&Case) -> bool,
    budget: Duration,
) -> Case {
    let deadline = Instant::now() + budget;
    let mut tries = 0;
    let mut out_of_time = || {
        tries += 1;
        tries > MAX_TRIES || Instant::now() > deadline
    };
    let mut best = case.clone();
    loop {
        let before = (best.text.len(), best.cuts.len());
        best = merge_deltas(best, &mut fails, &mut out_of_time);
        best = delete_spans(best, &mut fails, &mut out_of_time);
        if (best.text.len(), best.cuts.len()) == before || out_of_time() {
            return best;
        }
    }
}

fn merge_deltas(
    mut best: Case,
    fails: &mut impl FnMut(&Case) -> bool,
    out_of_time: &mut impl FnMut() -> bool,
) -> Case {
    let mut i = 0;
    while i < best.cuts.len() && !out_of_time() {
        let candidate = best.without_cut(i);
        if fails(&candidate) {
            best = candidate;
        } else {
            i += 1;
        }
    }
    best
}

fn delete_spans(
    mut best: Case,
    fails: &mut impl FnMut(&Case) -> bool,
    out_of_time: &mut impl FnMut() -> bool,
) -> Case {
    let mut span = (best.text.len() / 2).max(1);
    loop {
        let mut start = 0;
        while start < best.text.len() {
            if out_of_time() {
                return best;
            }
            let mut end = (start + span).min(best.text.len());
            while !best.text.is_char_boundary(end) {
                end += 1;
            }
            let candidate = best.without(start, end);
            if fails(&candidate) {
                best = candidate;
            } else {
                start = end;
            }
        }
        if span == 1 {
            return best;
        }
        span /= 2;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shrinks_to_what_the_failure_needs() {
        let text = "Thought: 中文 long prose here\nAction Input: é!\nObservation";
        let after_e = text.find("é!").unwrap() + 'é'.len_utf8();
        let case = Case {
            text: text.into(),
            cuts: vec![3, 9, after_e, after_e + 3],
        };
        // Fails when a delta ends with `é` and the next starts with `!`.
        let fails = |c: &Case| {
            let chunks: Vec<&str> = c.chunks().collect();
            chunks
                .windows(2)
                .any(|w| w[0].ends_with('é') && w[1].starts_with('!'))
        };
        let small = minimize(&case, fails, Duration::from_secs(5));
        assert_eq!(small.literal(true), r#"["é", "!"]"#);
    }
}
