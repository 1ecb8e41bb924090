//! The question's own words in the text a search that found nothing
//! showed in its place. A model that translates the question's word
//! before it searches (asked in French how much went on `carburant`, the
//! 1.5B model searched the French files for `fuel`), or swaps it for a
//! word of its own, finds nothing; the file tools then show the short
//! files whole, and the question's word is right there in their lines.
//! Shown the files alone, the model searched for `fuel` again until its
//! loop limit and answered that the files did not say. The note names
//! the question's words that the shown lines hold, and not the call, so
//! that the next search uses them.

use serde_json::Value;

use super::gutter::gutter_lines;

/// Words shorter than this (in characters) are not looked for.
const MIN_WORD_CHARS: usize = 4;

/// Words named in a note, at most.
const MAX_WORDS: usize = 3;

/// Words that ask, not name what is asked about (a note that named
/// `what` for a line of notes that holds it would lead nowhere).
const QUESTION_WORDS: &[&str] = &[
    "what", "which", "where", "when", "does", "much", "many", "have", "with", "from", "that",
    "this", "there", "their", "were", "will", "would", "could", "should", "about", "into", "than",
    "them", "they", "your", "also", "just", "only", "some", "been", "please", "tell", "dans",
    "pour", "avec", "sont", "quel", "quelle", "combien", "welche", "welcher", "sind", "haben",
    "nach", "wieviel", "para", "como", "cuál", "cuánto", "cuántos", "quanto", "quanti", "qual",
    "quale", "sono", "total", "amount", "spent", "spend", "file", "files", "folder", "month",
    "months", "year", "years", "number", "average",
];

/// The note for a search that found nothing (`arguments` as the model
/// wrote them) and showed `shown` in its place: the words of `question`
/// that lines of `shown` hold (lines with a file tool's gutter; not the
/// paths, not the note's own words, not a table's header line) and the
/// call does not. A word in more than half of those lines is no lead (a
/// column every row repeats). `None` when there is no such word.
pub(super) fn asked_words_note(question: &str, arguments: &Value, shown: &str) -> Option<String> {
    // A table's header line names its columns, not what a row is about.
    let is_header =
        |number: &str, line: &str| number == "1" && line.contains([',', ';', '|', '\t']);
    let lines: Vec<Vec<String>> = gutter_lines(shown)
        .into_iter()
        .filter(|(number, line)| !is_header(number, line))
        .map(|(_, line)| words(line).collect())
        .collect();
    if lines.is_empty() {
        return None;
    }
    let called = arguments.to_string().to_lowercase();
    let mut found: Vec<(String, usize)> = Vec::new();
    for word in words(question) {
        if found.iter().any(|(w, _)| *w == word) || called.contains(&word) {
            continue;
        }
        let holding = lines.iter().filter(|line| line.contains(&word)).count();
        if holding > 0 && holding * 2 <= lines.len().max(2) {
            found.push((word, holding));
        }
    }
    if found.is_empty() {
        return None;
    }
    let named: Vec<String> = found
        .iter()
        .take(MAX_WORDS)
        .map(|(word, holding)| {
            let lines = if *holding == 1 { "line" } else { "lines" };
            format!("`{word}` is in {holding} {lines} above")
        })
        .collect();
    let (them, it) = if named.len() == 1 {
        ("the question's word", "it")
    } else {
        ("the question's words", "them")
    };
    Some(format!(
        "\n(Note: this call found nothing, but {them} {}: search for {it} as the question writes {it}.)",
        named.join(", ")
    ))
}

/// The words of `text` in lower case, in order: runs of letters and
/// digits with a letter, [`MIN_WORD_CHARS`] long at least, none of
/// [`QUESTION_WORDS`].
fn words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().count() >= MIN_WORD_CHARS && w.chars().any(char::is_alphabetic))
        .map(str::to_lowercase)
        .filter(|w| !QUESTION_WORDS.contains(&w.as_str()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const SHOWN: &str = "no matches for `fuel` in 1 file under `comptes/2024/fevrier.csv`, ignoring case. \
        `comptes/2024/fevrier.csv` is short; here it is whole:\n\
        1| date;categorie;libelle;montant\n\
        2| 01/02/2024;loyer;Loyer appartement;780,00\n\
        3| 02/02/2024;carburant;TotalEnergies Lyon;62,40\n\
        4| 05/02/2024;courses;Carrefour Market;84,17\n\
        5| 11/02/2024;carburant;Esso A6;58,15\n";

    #[test]
    fn the_questions_word_in_the_shown_lines_is_named() {
        let question = "Combien ai-je dépensé en carburant en février 2024 ? Mes relevés sont dans le dossier comptes.";
        let note = asked_words_note(
            question,
            &json!({"pattern": "fuel", "path": "comptes"}),
            SHOWN,
        );
        assert_eq!(
            note.as_deref(),
            Some(
                "\n(Note: this call found nothing, but the question's word `carburant` is in 2 lines above: \
                 search for it as the question writes it.)"
            )
        );
    }

    #[test]
    fn paths_the_call_and_words_in_most_lines_are_no_lead() {
        // `comptes` is only in the paths, `fevrier` too; the call has `loyer`.
        // `montant` is in the header line only, `loyer` in the call.
        let question = "loyer et montant de comptes en fevrier";
        assert_eq!(
            asked_words_note(question, &json!({"pattern": "loyer"}), SHOWN),
            None
        );
        let question = "total amount spent on fuel";
        let shown = "1| date,category,amount\n2| 2024-01-02,rent,780\n3| 2024-01-05,food,84\n";
        assert_eq!(
            asked_words_note(question, &json!({"pattern": "fuel"}), shown),
            None
        );
        let every_row = "1| kettle,blue\n2| kettle,red\n3| kettle,green\n";
        assert_eq!(
            asked_words_note("how many kettle sales", &json!({"pattern": "x"}), every_row),
            None
        );
        assert_eq!(
            asked_words_note("carburant", &json!({"pattern": "x"}), "no files match"),
            None
        );
    }
}
