//! Whether a text writes thousands with a dot: whether one group of three
//! digits after a dot (`3.500`, `12.000`) is a thousands separator there
//! (three thousand five hundred, as German, Italian, Spanish, Portuguese,
//! Dutch, Danish, Norwegian, Indonesian, Turkish and Vietnamese write it)
//! or a decimal point (three and a half, as English does).
//!
//! The text's own numbers tell first: a decimal comma (`12,5`) or a number
//! with two dot groups (`1.234.567`) says dots are thousands; a decimal
//! point with other than three digits after it (`3.5`), or after a `0`
//! (`0.125`: a group of thousands never follows a `0`), or commas between
//! thousands (`1,234,567`), says they are decimals. When the numbers say both or
//! neither, its words tell: common words of a language that writes
//! thousands with a dot against common English ones. A text that tells
//! neither way (a table of numbers) gives `None`, and the caller decides
//! (the loop reads it the way the question's language writes).

use super::{digits_at, lines_and_rows};

/// Common words of languages that write thousands with a dot, none of
/// them an English word: articles, prepositions, question words and
/// verbs a question or a document uses in every other sentence.
const DOT_LANGUAGE_WORDS: &[&str] = &[
    // German
    "der",
    "das",
    "und",
    "ist",
    "nicht",
    "mit",
    "für",
    "ein",
    "eine",
    "einen",
    "dem",
    "auf",
    "wie",
    "viele",
    "hat",
    "haben",
    "sind",
    "wir",
    "unser",
    "unsere",
    "im",
    "zum",
    "zur",
    "vom",
    "bei",
    "auch",
    "oder",
    "aus",
    "pro",
    "jahr",
    "kostet",
    "gibt",
    "insgesamt",
    "wieviel",
    "sich",
    "werden",
    "wurde",
    // Italian
    "il",
    "della",
    "dei",
    "delle",
    "che",
    "sono",
    "gli",
    "alla",
    "nel",
    "nella",
    "anche",
    "quanto",
    "quanti",
    "quante",
    "costa",
    "ogni",
    "è",
    "é",
    "abbiamo",
    "nostro",
    "nostra",
    "del",
    "totale",
    "anno",
    "sul",
    "dal",
    "degli",
    "ha",
    "hanno",
    "al",
    "di",
    "un",
    "lo",
    // Spanish
    "el",
    "los",
    "las",
    "que",
    "según",
    "por",
    "para",
    "una",
    "cuánto",
    "cuántos",
    "cuántas",
    "tiene",
    "hay",
    "nuestro",
    "nuestra",
    "y",
    "año",
    "cada",
    "tenemos",
    "la",
    "de",
    // Portuguese
    "os",
    "da",
    "das",
    "dos",
    "não",
    "uma",
    "em",
    "quantos",
    "quantas",
    "tem",
    "nosso",
    "nossa",
    "ano",
    "o",
    // Dutch
    "het",
    "een",
    "en",
    "niet",
    "zijn",
    "hoeveel",
    "wat",
    "onze",
    "ons",
    "heeft",
    "voor",
    "bij",
    "jaar",
    // Danish, Norwegian
    "og",
    "er",
    "til",
    "af",
    "av",
    "det",
    "på",
    "hvor",
    "mange",
    "vi",
    "har",
    "hvad",
    "hva",
    // Indonesian
    "yang",
    "dan",
    "di",
    "dari",
    "untuk",
    "ini",
    "itu",
    "berapa",
    "ada",
    "kami",
    "tahun",
    // Turkish
    "ve",
    "bir",
    "bu",
    "için",
    "ile",
    "kaç",
    "kadar",
    "yıl",
    // Vietnamese
    "của",
    "và",
    "là",
    "có",
    "bao",
    "nhiêu",
    "người",
    "năm",
];

/// Common English words.
const ENGLISH_WORDS: &[&str] = &[
    "the",
    "of",
    "and",
    "is",
    "are",
    "how",
    "many",
    "much",
    "what",
    "our",
    "we",
    "in",
    "to",
    "for",
    "with",
    "has",
    "have",
    "an",
    "by",
    "on",
    "at",
    "it",
    "this",
    "that",
    "from",
    "does",
    "did",
    "total",
    "per",
    "each",
    "year",
    "there",
    "was",
    "were",
    "which",
    "who",
    "you",
    "your",
    "be",
    "or",
    "not",
    "can",
    "if",
    "my",
    "all",
    "will",
    "would",
    "should",
    "when",
    "where",
    "why",
    "after",
    "before",
    "than",
    "more",
    "less",
    "about",
    "its",
    "their",
    "they",
    "long",
    "far",
    "please",
    "according",
    "says",
    "tell",
    "give",
];

/// Whether `text` writes thousands with a dot (`Some(true)`), a decimal
/// point (`Some(false)`), or does not tell (`None`).
///
/// ```
/// use agent_core::numerals::writes_thousands_with_dots;
///
/// assert_eq!(writes_thousands_with_dots("Il museo ha 3.500 visitatori al giorno."), Some(true));
/// assert_eq!(writes_thousands_with_dots("Preis: 1.250 € (Vorjahr 980,50 €)"), Some(true));
/// assert_eq!(writes_thousands_with_dots("The rod is 1.250 m long."), Some(false));
/// assert_eq!(writes_thousands_with_dots("A-101,hub,3.500\nA-102,cable,12.000\n"), None);
/// ```
pub fn writes_thousands_with_dots(text: &str) -> Option<bool> {
    if let Some(told) = numbers_tell(text) {
        return Some(told);
    }
    let (mut dot_language, mut english) = (0usize, 0usize);
    // An apostrophe stays in its word: `we've` is no Turkish `ve`.
    for word in text
        .split(|c: char| !(c.is_alphabetic() || c == '\'' || c == '\u{2019}'))
        .filter(|w| !w.is_empty())
    {
        let word = word.to_lowercase();
        if DOT_LANGUAGE_WORDS.contains(&word.as_str()) {
            dot_language += 1;
        } else if ENGLISH_WORDS.contains(&word.as_str()) {
            english += 1;
        }
    }
    if dot_language >= 2 && dot_language > english {
        Some(true)
    } else if english >= 2 && english > dot_language {
        Some(false)
    } else {
        None
    }
}

/// What `text`'s numbers alone tell of how it writes thousands: `Some(true)`
/// for dots (a decimal comma, `1.234.567`), `Some(false)` for a decimal
/// point (`3.5`, `1,234,567`), `None` when they tell neither or both. The
/// loop reads a tool result so, whose words are often the tool's own
/// (`here it is whole:`) around a file in another language.
pub(crate) fn numbers_tell(text: &str) -> Option<bool> {
    match (thousands_numbers(text), decimal_numbers(text)) {
        (true, false) => Some(true),
        (false, true) => Some(false),
        _ => None,
    }
}

/// The numbers of `text` written with one group of three digits after a
/// dot and nothing more (`3.500`, `12.000`, not `0.125`, `1.234.567` or
/// `3.500,5`), as written; each field of a row of comma-separated values
/// on its own.
pub fn one_dot_group_numbers(text: &str) -> Vec<&str> {
    let mut found = Vec::new();
    if !may_have_one_dot_group(text) {
        return found;
    }
    for (piece, _) in pieces(text) {
        {
            let chars: Vec<char> = piece.chars().collect();
            for (start, first) in numbers(&chars) {
                let after = start + first;
                let plain_end = after + 4;
                let ends = !chars.get(plain_end).is_some_and(|c| {
                    c.is_ascii_digit()
                        || (matches!(c, '.' | ',')
                            && chars.get(plain_end + 1).is_some_and(char::is_ascii_digit))
                });
                if dot_groups_from(&chars, start) == 1 && ends {
                    let from: usize = chars[..start].iter().map(|c| c.len_utf8()).sum();
                    let len: usize = chars[start..plain_end].iter().map(|c| c.len_utf8()).sum();
                    found.push(&piece[from..from + len]);
                }
            }
        }
    }
    found
}

/// Whether `text` has a digit, a dot and three digits in a row, not
/// followed by a fourth: where a number with one dot group can be. A
/// quick look before reading the text's numbers and words.
pub(super) fn may_have_one_dot_group(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.windows(5).enumerate().any(|(i, w)| {
        w[0].is_ascii_digit()
            && w[1] == b'.'
            && w[2..].iter().all(u8::is_ascii_digit)
            && !bytes.get(i + 5).is_some_and(u8::is_ascii_digit)
    })
}

/// Whether a number of `text` can only be written with dots between
/// thousands: a decimal comma with one or two digits after it (`12,5`,
/// `1.234,56`; not in a row of comma-separated values, where `5001,2` is
/// two fields), or two dot groups (`1.234.567`).
fn thousands_numbers(text: &str) -> bool {
    if !text.contains([',', '.']) {
        return false;
    }
    pieces(text).into_iter().any(|(piece, field)| {
        let chars: Vec<char> = piece.chars().collect();
        numbers(&chars).any(|(start, _)| {
            dot_groups_from(&chars, start) >= 2 || (!field && decimal_comma_at(&chars, start))
        })
    })
}

/// The lines of `text`, each field of a row of comma-separated values on
/// its own (`true`: a field).
fn pieces(text: &str) -> Vec<(&str, bool)> {
    lines_and_rows(text)
        .into_iter()
        .flat_map(|(line, row)| {
            let fields: Vec<(&str, bool)> = if row {
                line.split(',').map(|field| (field, true)).collect()
            } else {
                vec![(line, false)]
            };
            fields
        })
        .collect()
}

/// Whether the number at `start` (not part of a code such as `A-101`)
/// ends in a comma and one or two digits, after its dot groups if any.
fn decimal_comma_at(chars: &[char], start: usize) -> bool {
    if start > 0 && matches!(chars[start - 1], '-' | '_' | '/') {
        return false;
    }
    let mut i = start + digits_at(chars, start);
    while chars.get(i) == Some(&'.') && digits_at(chars, i + 1) == 3 {
        i += 4;
    }
    let fraction = if chars.get(i) == Some(&',') {
        digits_at(chars, i + 1)
    } else {
        0
    };
    (1..=2).contains(&fraction)
        && !chars
            .get(i + 1 + fraction)
            .is_some_and(|c| c.is_ascii_digit() || matches!(c, '.' | ','))
}

/// Whether a number of `text` can only be written with a decimal point:
/// a point followed by other than three digits (`3.5`, `12.75`, `0.125`
/// counts too: a `0` before the point is no group of thousands), or
/// commas between groups of three ending in a point (`1,234.5`) or two
/// comma groups (`1,234,567`).
fn decimal_numbers(text: &str) -> bool {
    if !text.contains([',', '.']) {
        return false;
    }
    pieces(text)
        .into_iter()
        .any(|(piece, _)| decimal_number_in(&piece.chars().collect::<Vec<char>>()))
}

/// [`decimal_numbers`] of one line or field.
fn decimal_number_in(chars: &[char]) -> bool {
    numbers(chars).any(|(start, first)| {
        let after = start + first;
        match chars.get(after) {
            Some('.') => {
                let fraction = digits_at(chars, after + 1);
                fraction > 0
                    && (fraction != 3 || (first == 1 && chars[start] == '0'))
                    && !chars
                        .get(after + 1 + fraction)
                        .is_some_and(|c| *c == '.' || c.is_ascii_digit())
            }
            Some(',') => comma_groups_from(chars, start) >= 2,
            _ => false,
        }
    })
}

/// The numbers of `chars`: where each starts, and its first run of digits.
fn numbers(chars: &[char]) -> impl Iterator<Item = (usize, usize)> + '_ {
    (0..chars.len())
        .filter(|&i| super::number_starts(chars, i))
        .map(|i| (i, digits_at(chars, i)))
}

/// How many groups of three digits follow the first one to three digits
/// at `start`, each after a dot.
fn dot_groups_from(chars: &[char], start: usize) -> usize {
    groups_after(chars, start, '.')
}

/// How many groups of three digits follow the first one to three digits
/// at `start`, each after a comma, counting a decimal point after them as
/// one more.
fn comma_groups_from(chars: &[char], start: usize) -> usize {
    let groups = groups_after(chars, start, ',');
    let end = start + digits_at(chars, start) + 4 * groups;
    let point = groups > 0
        && chars.get(end) == Some(&'.')
        && chars.get(end + 1).is_some_and(char::is_ascii_digit);
    groups + usize::from(point)
}

/// How many groups of exactly three digits, each after `separator`,
/// follow the one to three digits at `start`.
fn groups_after(chars: &[char], start: usize, separator: char) -> usize {
    let first = digits_at(chars, start);
    if !(1..=3).contains(&first) || (first == 1 && chars[start] == '0') {
        return 0;
    }
    let mut i = start + first;
    let mut groups = 0;
    while chars.get(i) == Some(&separator)
        && digits_at(chars, i + 1) == 3
        && !chars.get(i + 4).is_some_and(char::is_ascii_digit)
    {
        groups += 1;
        i += 4;
    }
    // An address or a version goes on (`10.100.200.1`), or is four parts
    // of at most 255 (`192.168.100.200`).
    let part = |at: usize, len: usize| {
        chars
            .get(at..at + len)
            .unwrap_or_default()
            .iter()
            .fold(0u32, |n, c| n * 10 + c.to_digit(10).unwrap_or(0))
    };
    // (`2.000.000.000` is two billion: a group of an address does not
    // start with `0`.)
    let address = groups == 3
        && part(start, first) <= 255
        && (0..3).all(|g| {
            let at = start + first + 1 + 4 * g;
            part(at, 3) <= 255 && chars.get(at) != Some(&'0')
        });
    if separator == '.'
        && (address
            || (chars.get(i) == Some(&'.') && chars.get(i + 1).is_some_and(char::is_ascii_digit)))
    {
        return 0;
    }
    groups
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_numbers_tell_first() {
        for text in [
            "Einwohner: 3.800.000",
            "Budget 2.000.000.000 Euro, Kosten 3.500",
            "Umsatz 12,5 Mio., Kosten 3.500",
            "R$ 1.250.000",
            "prezzo 2,40",
        ] {
            assert_eq!(writes_thousands_with_dots(text), Some(true), "{text}");
        }
        for text in [
            "pH 7.25",
            "total 1,234,567",
            "1,234.5 km",
            "0.125 of the budget",
            "rate 3.5",
            "sku,price,length\nA-1,12.75,1.250\n",
        ] {
            assert_eq!(writes_thousands_with_dots(text), Some(false), "{text}");
        }
    }

    #[test]
    fn the_words_tell_when_the_numbers_do_not() {
        for text in [
            "Der Verein hat 1.250 Mitglieder.",
            "El archivo dice que hay 3.500 unidades.",
            "Quanti visitatori ha il museo? 12.000 al mese.",
            "O estoque tem 4.200 peças.",
            "Het magazijn heeft 2.300 dozen.",
        ] {
            assert_eq!(writes_thousands_with_dots(text), Some(true), "{text}");
        }
        for text in [
            "The part is 1.250 mm thick and the tolerance is tight.",
            "How many units are in the file? 3.500 is what it says.",
        ] {
            assert_eq!(writes_thousands_with_dots(text), Some(false), "{text}");
        }
    }

    #[test]
    fn numbers_with_one_dot_group_are_found_as_written() {
        assert_eq!(
            one_dot_group_numbers(
                "3.500 visitatori, 12.000 al mese; 0.125, 1.234.567, 3.500,5 e 4.2"
            ),
            ["3.500", "12.000"]
        );
        assert_eq!(
            one_dot_group_numbers(
                "producto,unidades,importe\ncafé molido,50,1.250\ntazas,96,830\n"
            ),
            ["1.250"]
        );
        assert!(one_dot_group_numbers("v1.250a 10.0.0.7").is_empty());
    }

    #[test]
    fn a_text_that_tells_neither_way_is_none() {
        for text in [
            "A-101,hub,3.500\nA-102,cable,12.000\n",
            "3.500",
            "Version 1.2.3",
            "12,5 / 3.5",
            "host 10.100.200.1 and 192.168.100.200",
            "we've met at 3.500",
            "",
        ] {
            assert_eq!(writes_thousands_with_dots(text), None, "{text}");
        }
    }
}
