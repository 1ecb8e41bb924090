//! [`Mutator`]: the mutation engine. It edits a byte buffer — mostly at
//! char boundaries, sometimes raw bytes — with stacked insertions,
//! deletions, duplications, splices of another pool entry, dictionary
//! tokens, interesting characters and chunk repetition (occasionally up to
//! ~100 kB), then hands back valid UTF-8 (lossily repaired when a raw byte
//! edit broke it). Buffers are reused across inputs.

use super::rng::Rng;

/// Longest input produced, in bytes.
pub(crate) const MAX_INPUT_BYTES: usize = 128 * 1024;

/// Characters worth inserting: multi-byte text, look-alike punctuation,
/// invisible and case-changing characters, controls.
const CHARS: &[char] = &[
    '\n', '\r', '\t', ' ', 'é', 'É', 'ß', 'ẞ', 'İ', 'ﬀ', '中', '文', '：', '，', '＂', '｛', '｝',
    '😀', '🦀', '\u{200b}', '\u{feff}', '\u{fffd}', '\u{0}', '\u{7f}', '\u{301}', '“', '”', '‘',
    '−', '×', '÷', '²', '１',
];

/// Stacked mutations per input: 1 to this many.
const MAX_STACK: usize = 4;

/// The mutation engine; see the module docs.
#[derive(Debug)]
pub(crate) struct Mutator {
    dictionary: &'static [&'static str],
    bytes: Vec<u8>,
    scratch: Vec<u8>,
}

impl Mutator {
    /// A mutator inserting tokens from `dictionary`.
    pub(crate) fn new(dictionary: &'static [&'static str]) -> Self {
        Self {
            dictionary,
            bytes: Vec::new(),
            scratch: Vec::new(),
        }
    }

    /// Writes a mutant of `base` into `out` (`pool` feeds splices).
    pub(crate) fn mutate(&mut self, rng: &mut Rng, base: &str, pool: &[String], out: &mut String) {
        self.bytes.clear();
        self.bytes.extend_from_slice(base.as_bytes());
        for _ in 0..rng.range(1, MAX_STACK) {
            self.step(rng, pool);
        }
        if self.bytes.len() > MAX_INPUT_BYTES {
            self.bytes.truncate(MAX_INPUT_BYTES);
        }
        out.clear();
        match std::str::from_utf8(&self.bytes) {
            Ok(text) => out.push_str(text),
            Err(_) => out.push_str(&String::from_utf8_lossy(&self.bytes)),
        }
    }

    fn step(&mut self, rng: &mut Rng, pool: &[String]) {
        let len = self.bytes.len();
        match rng.below(12) {
            0..=2 => {
                let token = rng.pick(self.dictionary).copied().unwrap_or("\n");
                let at = self.position(rng);
                self.insert(at, token.as_bytes());
            }
            3 => {
                let c = rng.pick(CHARS).copied().unwrap_or('é');
                let mut utf8 = [0u8; 4];
                let at = self.position(rng);
                self.insert(at, c.encode_utf8(&mut utf8).as_bytes());
            }
            4 => {
                let at = self.position(rng);
                let c = [rng.range(0x20, 0x7e) as u8];
                self.insert(at, &c);
            }
            5 | 6 => {
                let max = if rng.one_in(8) { len } else { 16 };
                let (start, end) = self.span(rng, max);
                self.bytes.drain(start..end);
            }
            7 => {
                let (start, end) = self.span(rng, 64);
                self.scratch.clear();
                self.scratch.extend_from_slice(&self.bytes[start..end]);
                let at = self.position(rng);
                self.splice_scratch(at);
            }
            8 => {
                let Some(other) = rng.pick(pool) else { return };
                let other = other.as_bytes();
                let start = snap(other, rng.below(other.len() + 1));
                let end = snap(other, start + rng.below(other.len() - start + 1));
                self.scratch.clear();
                self.scratch.extend_from_slice(&other[start..end]);
                let at = self.position(rng);
                if rng.one_in(2) {
                    self.bytes.truncate(at);
                }
                self.splice_scratch(at);
            }
            9 => self.repeat(rng),
            10 => {
                // Raw bytes: may split a character; repaired lossily.
                if len > 0 && rng.one_in(2) {
                    let at = rng.below(len);
                    self.bytes[at] = rng.next_u64() as u8;
                } else {
                    let at = rng.below(len + 1);
                    self.bytes.insert(at, rng.next_u64() as u8);
                }
            }
            _ => {
                let (start, end) = self.span(rng, 24);
                let upper = rng.one_in(2);
                for b in &mut self.bytes[start..end] {
                    *b = if upper {
                        b.to_ascii_uppercase()
                    } else {
                        b.to_ascii_lowercase()
                    };
                }
            }
        }
    }

    /// Repeats a chunk — a random span or a whole line — usually a few
    /// times, rarely up to ~100 kB.
    fn repeat(&mut self, rng: &mut Rng) {
        let (start, end) = if rng.one_in(2) {
            self.span(rng, 64)
        } else {
            self.line(rng)
        };
        if start == end {
            return;
        }
        let unit = end - start;
        let target = if rng.one_in(2048) {
            rng.range(1_000, 100_000)
        } else {
            unit * rng.range(2, 16)
        };
        let times = (target / unit).clamp(1, (MAX_INPUT_BYTES / unit).max(1));
        self.scratch.clear();
        for _ in 0..times {
            self.scratch.extend_from_slice(&self.bytes[start..end]);
        }
        self.splice_scratch(start);
    }

    /// The line (with its `\n`) around a random position, if under 256 bytes.
    fn line(&self, rng: &mut Rng) -> (usize, usize) {
        let at = self.position(rng);
        let start = self.bytes[..at]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |nl| nl + 1);
        let end = self.bytes[at..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(self.bytes.len(), |nl| at + nl + 1);
        if end - start > 256 {
            (at, at)
        } else {
            (start, end)
        }
    }

    /// A random char boundary of the buffer.
    fn position(&self, rng: &mut Rng) -> usize {
        snap(&self.bytes, rng.below(self.bytes.len() + 1))
    }

    /// A random span of at most `max` bytes, both ends on char boundaries.
    fn span(&self, rng: &mut Rng, max: usize) -> (usize, usize) {
        let start = self.position(rng);
        let room = (self.bytes.len() - start).min(max);
        let end = snap(&self.bytes, start + rng.below(room + 1));
        (start, end.max(start))
    }

    fn insert(&mut self, at: usize, piece: &[u8]) {
        self.bytes.splice(at..at, piece.iter().copied());
    }

    fn splice_scratch(&mut self, at: usize) {
        let at = at.min(self.bytes.len());
        self.bytes.splice(at..at, self.scratch.iter().copied());
    }
}

/// Moves `at` back to the start of the UTF-8 sequence it falls in.
fn snap(bytes: &[u8], mut at: usize) -> usize {
    at = at.min(bytes.len());
    while at > 0 && at < bytes.len() && bytes[at] & 0xC0 == 0x80 {
        at -= 1;
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mutants_are_bounded_and_mostly_keep_their_characters() {
        let pool = vec!["Thought: 中文：é 😀\nAction: x\nAction Input: {\"a\": 1}".to_string()];
        let mut mutator = Mutator::new(&["Action:", "```", "{"]);
        let mut rng = Rng::new(11);
        let mut out = String::new();
        let mut repaired = 0;
        for _ in 0..20_000 {
            mutator.mutate(&mut rng, &pool[0], &pool, &mut out);
            assert!(out.len() <= MAX_INPUT_BYTES + 3 * 16);
            if out.contains('\u{fffd}') {
                repaired += 1;
            }
        }
        assert!(repaired < 5_000, "raw byte edits should be a minority");
    }

    #[test]
    fn snapping_never_lands_inside_a_character() {
        let text = "a中😀b".as_bytes();
        for at in 0..=text.len() + 2 {
            let s = snap(text, at);
            assert!(std::str::from_utf8(&text[..s]).is_ok());
        }
    }
}
