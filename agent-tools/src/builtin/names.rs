//! An entry's other names (what its subject is called in other languages
//! and scripts) found inside a search query, so a question asked in
//! Japanese, Chinese or Russian finds the entry written in English.
//!
//! - A name in a script written without spaces between words (Han, kana,
//!   Hangul, Thai) is found anywhere in the query: the words around it are
//!   joined to it (`<name>的人口`).
//! - Any other name must start a word. A name whose last word has five
//!   letters or more may end differently, by up to three letters after
//!   all but its last one, so inflected forms match (a Russian genitive
//!   changes the last vowel); a name ending in a shorter word must end
//!   there, so it is not found inside a longer one.
//!   A short Cyrillic name (three or four letters) may end in up to two
//!   letters after its final vowel (`Луны` for `Луна`, `Рима` for `Рим`).

use agent_core::script::is_unspaced;

use super::fold::fold;

/// Letters a long name may end with after its stem.
const MAX_ENDING: usize = 3;

/// Letters from which a name may end differently.
const INFLECTED_FROM: usize = 5;

/// One name, folded (lower case, no accents), ready to be looked for in
/// folded queries.
#[derive(Debug, Clone)]
pub(super) struct Name {
    /// The name as written.
    written: String,
    /// The part that must appear as written.
    stem: String,
    /// Found anywhere, not only at the start of a word.
    unspaced: bool,
    /// Letters that may follow the stem in the same word.
    ending: usize,
}

impl Name {
    /// The name prepared for matching, or `None` for a blank one.
    pub(super) fn new(name: &str) -> Option<Self> {
        let written = name.trim().to_string();
        let lower = fold(&written);
        let first = lower.chars().next()?;
        if is_unspaced(first) {
            return Some(Self {
                written,
                stem: lower,
                unspaced: true,
                ending: 0,
            });
        }
        // Only the last word is inflected: a short one (`nước Ý`) is
        // whole, or the name would be found in any name that starts alike.
        let last_word = lower.split_whitespace().next_back().unwrap_or_default();
        if let Some((stem, ending)) = short_cyrillic_inflection(&lower, last_word) {
            return Some(Self {
                written,
                stem,
                unspaced: false,
                ending,
            });
        }
        if last_word.chars().count() < INFLECTED_FROM {
            return Some(Self {
                written,
                stem: lower,
                unspaced: false,
                ending: 0,
            });
        }
        let mut stem = lower;
        stem.pop();
        Some(Self {
            written,
            stem,
            unspaced: false,
            ending: MAX_ENDING,
        })
    }

    /// The name as written.
    pub(super) fn written(&self) -> &str {
        &self.written
    }

    /// Whether a folded query names the subject by this name.
    pub(super) fn found_in(&self, query: &str) -> bool {
        if self.unspaced {
            return query.contains(&self.stem);
        }
        query.match_indices(&self.stem).any(|(at, _)| {
            let starts_word = query[..at]
                .chars()
                .next_back()
                .is_none_or(|c| !c.is_alphanumeric());
            let ending = query[at + self.stem.len()..]
                .chars()
                .take_while(|c| c.is_alphanumeric())
                .count();
            starts_word && ending <= self.ending
        })
    }
}

/// Vowels (and the soft sign) a Russian, Ukrainian or Bulgarian noun
/// ends in and changes when it is inflected (`Луна`, `Луны`, `Луне`).
const CYRILLIC_ENDINGS: &str = "аяоеёиыуюьй";

/// How a short Cyrillic name (a last word of three or four letters, whose
/// case endings change it as much as a long one's: `Рим`, `Рима`; `Луна`,
/// `Луны`, `Луной`) is looked for: its stem, without a final vowel, and
/// up to two letters after it. `None` for any other name (a longer one
/// has the general rule; a Latin one stays whole, or `Rome` would be found
/// in `Romeo`).
fn short_cyrillic_inflection(lower: &str, last_word: &str) -> Option<(String, usize)> {
    let letters = last_word.chars().count();
    let cyrillic = last_word
        .chars()
        .all(|c| ('\u{0400}'..='\u{04FF}').contains(&c));
    if !cyrillic || !(3..INFLECTED_FROM).contains(&letters) {
        return None;
    }
    let mut stem = lower.to_string();
    if letters == 4 && stem.ends_with(|c: char| CYRILLIC_ENDINGS.contains(c)) {
        stem.pop();
    }
    Some((stem, 2))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(name: &str, query: &str) -> bool {
        Name::new(name)
            .map(|n| n.found_in(&fold(query)))
            .unwrap_or(false)
    }

    #[test]
    fn a_name_without_spaces_is_found_inside_the_words_around_it() {
        assert!(found("東京", "東京の人口はどのくらいですか"));
        assert!(found("长城", "中国的长城总长度大约是多少公里"));
        assert!(found("长城", "the total length of the长城"));
        assert!(found("에펠탑", "에펠탑의 높이"));
        assert!(!found("長城", "东京"));
    }

    #[test]
    fn another_name_starts_a_word_and_a_long_one_may_be_inflected() {
        assert!(found("Deutschland", "Einwohner Deutschland"));
        assert!(found("Германия", "население Германии"));
        assert!(found("Берлин", "сколько жителей в Берлине"));
        // A short Cyrillic name is inflected too, but not into another
        // word that starts alike.
        assert!(found("Луна", "расстояние до Луны"));
        assert!(found("Луна", "под Луной"));
        assert!(found("Рим", "население Рима"));
        assert!(!found("Рим", "римский"));
        assert!(!found("Луна", "лунатик"));
        assert!(!found("Марс", "Мария"));
        assert!(found("Tour Eiffel", "hauteur de la tour Eiffel ?"));
        // Short names are whole words only.
        assert!(found("Roma", "población de Roma"));
        assert!(!found("Roma", "population of Romania"));
        assert!(!found("Rom", "from the top"));
        // A long name does not match inside another word, nor a word that
        // goes on far past it.
        assert!(!found("Wasser", "Wasserstoffatom"));
        // Only a long last word is inflected.
        assert!(found("nước Ý", "dân số nước Ý"));
        assert!(!found("nước Ý", "dân số nước Đức"));
        assert!(found("Çin Seddi", "Çin Seddi'nin uzunluğu"));
        // Accents do not count: a query may drop them or add others.
        assert!(found("Japón", "poblacion de Japon"));
        assert!(found("Tokio", "población de Tókio"));
        assert!(!found("", "anything"));
    }
}
