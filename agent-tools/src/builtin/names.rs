//! An entry's other names (what its subject is called in other languages
//! and scripts) found inside a search query, so a question asked in
//! Japanese, Chinese or Russian finds the entry written in English.
//!
//! - A name in a script written without spaces between words (Han, kana,
//!   Hangul, Thai) is found anywhere in the query: the words around it are
//!   joined to it (`<name>的人口`).
//! - Any other name is matched word by word against the query's words,
//!   which must follow each other. A word of five letters or more may end
//!   differently, by up to three letters after all but its last one (all
//!   but its last two when a Cyrillic word ends in two vowels, as
//!   adjectives do: `Великая`, `Великой`), so inflected forms match in
//!   every word of a name (`Эйфелевой башни` for `Эйфелева башня`,
//!   `Chinesischen Mauer`); a shorter word must be whole, so it is not
//!   found inside a longer one. A short Cyrillic word (three or four
//!   letters) may end in up to two letters after its final vowel (`Луны`
//!   for `Луна`, `Рима` for `Рим`).

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
    /// How it is found.
    form: Form,
}

/// How a name is found in a query.
#[derive(Debug, Clone)]
enum Form {
    /// A name in a script without spaces: found anywhere, as written.
    Unspaced(String),
    /// A name of words: each found in the query's words, in a row.
    Words(Vec<WordForm>),
}

/// One word of a name: the part that must start a query word as written,
/// and how many letters may follow it in that word.
#[derive(Debug, Clone)]
struct WordForm {
    stem: String,
    ending: usize,
}

impl WordForm {
    fn new(word: &str) -> Self {
        let letters = word.chars().count();
        let cyrillic = word.chars().all(|c| ('\u{0400}'..='\u{04FF}').contains(&c));
        let mut stem = word.to_string();
        if cyrillic && (3..INFLECTED_FROM).contains(&letters) {
            if letters == 4 && stem.ends_with(is_cyrillic_ending) {
                stem.pop();
            }
            return Self { stem, ending: 2 };
        }
        if letters < INFLECTED_FROM {
            return Self { stem, ending: 0 };
        }
        stem.pop();
        if cyrillic && ADJECTIVE_ENDINGS.iter().any(|e| word.ends_with(e)) {
            // An adjective's two-letter ending (`-ая`, `-ий`) changes
            // whole; a noun's `-ия` keeps its `и` (`Франция`, not `Франц`).
            stem.pop();
        }
        Self {
            stem,
            ending: MAX_ENDING,
        }
    }

    fn matches(&self, word: &str) -> bool {
        word.strip_prefix(self.stem.as_str())
            .is_some_and(|rest| rest.chars().count() <= self.ending)
    }
}

/// The words of a folded text: its runs of letters and digits.
fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
}

impl Name {
    /// The name prepared for matching, or `None` for a blank one.
    pub(super) fn new(name: &str) -> Option<Self> {
        let written = name.trim().to_string();
        let lower = fold(&written);
        let first = lower.chars().next()?;
        let form = if is_unspaced(first) {
            Form::Unspaced(lower)
        } else {
            let forms: Vec<WordForm> = words(&lower).map(WordForm::new).collect();
            if forms.is_empty() {
                return None;
            }
            Form::Words(forms)
        };
        Some(Self { written, form })
    }

    /// The name as written.
    pub(super) fn written(&self) -> &str {
        &self.written
    }

    /// Whether a folded query names the subject by this name.
    pub(super) fn found_in(&self, query: &str) -> bool {
        match &self.form {
            Form::Unspaced(name) => query.contains(name.as_str()),
            Form::Words(forms) => {
                let query: Vec<&str> = words(query).collect();
                query
                    .windows(forms.len())
                    .any(|run| forms.iter().zip(run).all(|(form, word)| form.matches(word)))
            }
        }
    }
}

/// The endings of Russian and Ukrainian adjectives, folded as queries
/// are: two letters that change whole when the word is inflected.
const ADJECTIVE_ENDINGS: [&str; 14] = [
    "ая", "яя", "ый", "ыи", "ий", "ии", "ой", "ои", "ое", "ее", "ые", "ие", "ої", "оі",
];

/// Vowels (and the soft sign) a Russian, Ukrainian or Bulgarian word
/// ends in and changes when it is inflected (`Луна`, `Луны`, `Луне`),
/// folded as queries are (`й` as `и`, `ї` as `і`).
const CYRILLIC_ENDINGS: &str = "аяоеёиіїыуюьйє";

fn is_cyrillic_ending(c: char) -> bool {
    CYRILLIC_ENDINGS.contains(c)
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
        // Short words are whole.
        assert!(found("nước Ý", "dân số nước Ý"));
        assert!(!found("nước Ý", "dân số nước Đức"));
        assert!(found("Çin Seddi", "Çin Seddi'nin uzunluğu"));
        // Accents do not count: a query may drop them or add others.
        assert!(found("Japón", "poblacion de Japon"));
        assert!(found("Tokio", "población de Tókio"));
        assert!(!found("", "anything"));
    }

    #[test]
    fn every_word_of_a_name_may_be_inflected() {
        assert!(found("Эйфелева башня", "Какова высота Эйфелевой башни?"));
        assert!(found("Ейфелева вежа", "Яка висота Ейфелевої вежі"));
        assert!(found(
            "Великая Китайская стена",
            "длина Великой Китайской стены"
        ));
        assert!(found("скорость света", "чему равна скорость света"));
        assert!(found("Chinesische Mauer", "Länge der Chinesischen Mauer"));
        assert!(found("Wieża Eiffla", "wysokość wieży Eiffla"));
        // The words follow each other, and each is still a whole word.
        assert!(!found("Эйфелева башня", "башня Эйфелева"));
        assert!(!found("Tour Eiffel", "tour de France, Eiffel"));
        assert!(!found("Chinesische Mauer", "chinesischer Mauerbau"));
        // A noun's ending is not an adjective's: no shorter stem.
        assert!(found("Франция", "население Франции"));
        assert!(!found("Франция", "Франц Кафка"));
        assert!(!found("Германия", "Герман Титов"));
    }
}
