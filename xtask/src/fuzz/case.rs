//! [`Case`]: one fuzz input — a text and, for streamed targets, the byte
//! positions where it is cut into deltas. Owns the edits that keep cuts
//! consistent with the text, the random chunking, and the Rust literal a
//! reproducer is printed as.

use super::rng::Rng;

/// A fuzz input. `cuts` are non-decreasing char boundaries inside the
/// text; a repeated cut is an empty delta. Unchunked targets ignore them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Case {
    /// The text.
    pub(crate) text: String,
    /// Where the text is cut into deltas.
    pub(crate) cuts: Vec<usize>,
}

impl Case {
    /// A case with no cuts.
    #[cfg(test)]
    pub(crate) fn new(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            cuts: Vec::new(),
        }
    }

    /// The deltas: the text split at the cuts (one delta when uncut).
    pub(crate) fn chunks(&self) -> impl Iterator<Item = &str> {
        let ends = self.cuts.iter().copied().chain(Some(self.text.len()));
        let mut start = 0;
        ends.map(move |end| {
            let chunk = self.text.get(start..end).unwrap_or("");
            start = end;
            chunk
        })
    }

    /// Cuts the text at random char boundaries: chunk sizes are drawn from
    /// one of several scales per case (single bytes up to a few hundred),
    /// with an occasional empty delta.
    pub(crate) fn cut_randomly(&mut self, rng: &mut Rng) {
        self.cuts.clear();
        let len = self.text.len();
        let scale = *rng.pick(&[1usize, 3, 8, 32, 256]).unwrap_or(&8);
        let mut at = 0;
        loop {
            at += rng.range(1, scale);
            while at < len && !self.text.is_char_boundary(at) {
                at += 1;
            }
            if at >= len {
                return;
            }
            self.cuts.push(at);
            if rng.one_in(64) {
                self.cuts.push(at);
            }
        }
    }

    /// The case without bytes `start..end` (both char boundaries); cuts
    /// inside the range collapse onto `start`.
    pub(crate) fn without(&self, start: usize, end: usize) -> Case {
        let mut text = String::with_capacity(self.text.len() - (end - start));
        text.push_str(&self.text[..start]);
        text.push_str(&self.text[end..]);
        let cuts = self
            .cuts
            .iter()
            .map(|&c| {
                if c <= start {
                    c
                } else if c >= end {
                    c - (end - start)
                } else {
                    start
                }
            })
            .filter(|&c| c > 0 && c < text.len())
            .collect();
        Case { text, cuts }
    }

    /// The case without its `i`-th cut (two deltas merged).
    pub(crate) fn without_cut(&self, i: usize) -> Case {
        let mut cuts = self.cuts.clone();
        cuts.remove(i);
        Case {
            text: self.text.clone(),
            cuts,
        }
    }

    /// The case as a Rust literal: a string, or an array of the deltas
    /// when `chunked`.
    pub(crate) fn literal(&self, chunked: bool) -> String {
        if chunked {
            format!("{:?}", self.chunks().collect::<Vec<_>>())
        } else {
            format!("{:?}", self.text)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_cuts_fall_on_char_boundaries_and_rebuild_the_text() {
        let mut rng = Rng::new(3);
        let mut case = Case::new("Action Input: {\"q\": \"中文 é 😀：\"}\n".repeat(5));
        for _ in 0..200 {
            case.cut_randomly(&mut rng);
            assert!(case.cuts.windows(2).all(|w| w[0] <= w[1]));
            assert!(case.cuts.iter().all(|&c| case.text.is_char_boundary(c)));
            assert_eq!(case.chunks().collect::<String>(), case.text);
        }
    }

    #[test]
    fn removing_bytes_keeps_cuts_consistent() {
        let case = Case {
            text: "abcdef".into(),
            cuts: vec![1, 3, 5],
        };
        let smaller = case.without(2, 4);
        assert_eq!(smaller.text, "abef");
        assert_eq!(smaller.cuts, vec![1, 2, 3]);
        assert_eq!(smaller.literal(true), r#"["a", "b", "e", "f"]"#);
        assert_eq!(case.without_cut(1).literal(true), r#"["a", "bcde", "f"]"#);
        assert_eq!(Case::new("é\n").literal(false), r#""é\n""#);
    }
}
