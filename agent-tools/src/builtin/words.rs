//! The looser reading of a plain `grep` text: its words, each cut to a
//! stem, to be found anywhere on a line, whatever their accents (a text
//! of several words is always read so besides as written; one word only
//! when it found nothing). A model asks for "USB-C hubs" where the file says
//! "USB-C hub", for words in another order than the file's, or for
//! "Zurich" where the file says "Zürich".

use super::fold::fold;

/// Marks that join fields rather than words: a model greps
/// `region:North,Aug` or `dept=Sales` for the row that has both values.
const FIELD_SEPARATORS: [char; 5] = [',', ';', '|', '=', ':'];

/// The stems of the words of `text` (split at spaces and at
/// [`FIELD_SEPARATORS`]), folded (lower case, no accents): punctuation
/// around a word and a possessive `'s` dropped, a plural `s` cut from a
/// word of four letters or more (`hubs` → `hub`, not `bus`, not `class`).
/// Words of one or two Latin letters (`a`, `of`, `de`) are left out, but
/// not those with a digit (`2m`) or in another script (`东京`). `None`
/// when no word is left.
pub(crate) fn stems(text: &str) -> Option<Vec<String>> {
    let stems: Vec<String> = text
        .split(|c: char| c.is_whitespace() || FIELD_SEPARATORS.contains(&c))
        .filter_map(stem)
        .collect();
    (!stems.is_empty()).then_some(stems)
}

/// Whether `stems` (of `text`) find lines that `text` as written does not
/// find in ASCII text, whatever its case: more than one word, or a word
/// cut or folded (`hubs`, `São`). One plain word (`phone`) finds no more
/// there.
pub(crate) fn looser_than_written(stems: &[String], text: &str) -> bool {
    stems.len() > 1 || stems.first().is_some_and(|s| *s != text.to_lowercase())
}

/// Whether `line` holds each of `stems`, whatever its case and accents;
/// a stem with a digit not inside a longer number (`7` is not in `17`).
pub(crate) fn holds_each(line: &str, stems: &[String]) -> bool {
    let line = fold(line);
    stems.iter().all(|stem| {
        if !stem.contains(|c: char| c.is_ascii_digit()) {
            return line.contains(stem.as_str());
        }
        line.match_indices(stem.as_str()).any(|(at, _)| {
            let before = line[..at].chars().next_back();
            let after = line[at + stem.len()..].chars().next();
            !before.is_some_and(|c| c.is_ascii_digit())
                && !after.is_some_and(|c| c.is_ascii_digit())
        })
    })
}

fn stem(word: &str) -> Option<String> {
    let word = fold(word.trim_matches(|c: char| !c.is_alphanumeric()));
    let word = word
        .strip_suffix("'s")
        .or_else(|| word.strip_suffix("\u{2019}s"))
        .unwrap_or(&word);
    let letters = word.chars().count();
    if letters == 0 || (letters <= 2 && word.chars().all(|c| c.is_ascii_alphabetic())) {
        return None;
    }
    let cut = letters >= 4 && word.ends_with('s') && !word.ends_with("ss");
    let stem = if cut {
        word.strip_suffix('s').unwrap_or(word)
    } else {
        word
    };
    Some(stem.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_cut_to_stems_and_folded() {
        assert_eq!(
            stems("USB-C hubs"),
            Some(vec!["usb-c".into(), "hub".into()])
        );
        assert_eq!(
            stems("the landlord's phone number?"),
            Some(vec![
                "the".into(),
                "landlord".into(),
                "phone".into(),
                "number".into()
            ])
        );
        assert_eq!(stems("ventas"), Some(vec!["venta".into()]));
        assert_eq!(stems("Phone"), Some(vec!["phone".into()]));
        assert_eq!(stems("class"), Some(vec!["class".into()]));
        assert_eq!(stems("bus"), Some(vec!["bus".into()]));
        assert_eq!(stems("São Paulo"), Some(vec!["sao".into(), "paulo".into()]));
        // One plain word is looser only where the lines are not ASCII.
        assert!(!looser_than_written(&["phone".into()], "Phone"));
        assert!(looser_than_written(&["hub".into()], "hubs"));
        assert!(looser_than_written(&["sao".into()], "São"));
        assert_eq!(stems("a ?"), None);
        assert_eq!(
            stems("cable of 2m"),
            Some(vec!["cable".into(), "2m".into()])
        );
        assert_eq!(stems("東京 人口"), Some(vec!["東京".into(), "人口".into()]));
        assert_eq!(
            stems("region:North,Aug"),
            Some(vec!["region".into(), "north".into(), "aug".into()])
        );
        assert_eq!(
            stems("dept=Sales; office=Berlin"),
            Some(vec![
                "dept".into(),
                "sale".into(),
                "office".into(),
                "berlin".into()
            ])
        );
    }

    #[test]
    fn a_line_holds_each_stem_in_any_order_and_case() {
        let stems = stems("stock USB-C hubs").unwrap_or_default();
        assert!(holds_each(
            "sku: A-101 | name: USB-C hub | stock: 137",
            &stems
        ));
        assert!(!holds_each("A-101,USB-C hub,137", &stems));
    }

    #[test]
    fn a_line_holds_a_word_whatever_its_accents() {
        let zurich = stems("Zurich").unwrap_or_default();
        assert!(holds_each("office: Zürich, 42 desks", &zurich));
        let accented = stems("São Paulo").unwrap_or_default();
        assert!(holds_each("Sao Paulo branch opened", &accented));
        assert!(!holds_each("Porto Alegre branch opened", &accented));
    }
}
