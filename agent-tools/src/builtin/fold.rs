//! Text as the file and search tools compare it: lower case, without
//! accents. A model writes `Zurich`, `Sao Paulo` or `reunion.md` where
//! the file says `Zürich`, `São Paulo` or `reunión.md` (or the other way
//! round), and a name may be stored composed (`é`) or decomposed (`e` and
//! a combining accent, as macOS writes file names): both read the same
//! once folded. Full-width letters and digits (`Ｔｏｋｙｏ`, `２０２４`) and
//! the digits of other scripts (`٢٠٢٤`) read as ASCII ones.
//!
//! Only Latin and Greek letters and the Cyrillic `ё` lose their marks, so
//! letters that are letters of their own elsewhere stay apart: Cyrillic
//! `й` is not `и`, Japanese `ガ` is not `カ`, Hangul stays Hangul. Latin
//! letters that do not decompose are written with the letters a reader
//! would type for them (`ß` as `ss`, `æ` as `ae`, `ø` as `o`, `ł` as `l`,
//! Turkish `ı` as `i`), and the Greek final `ς` as `σ`. In codes (words
//! with a digit: sizes, article numbers) Cyrillic and Greek letters that
//! look Latin read as Latin, and `×` as `x`: `М6×20` is `m6x20`.

use agent_core::numerals::ascii_numerals;
use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::decompose_canonical;

/// `text` folded: lower case, accents dropped (see the module doc).
pub(crate) fn fold(text: &str) -> String {
    if text.is_ascii() {
        return text.to_ascii_lowercase();
    }
    let text = ascii_numerals(text);
    let mut folded = String::with_capacity(text.len());
    let mut after_unaccented = false;
    for c in text.nfc() {
        if c.is_ascii() {
            folded.push(c.to_ascii_lowercase());
            after_unaccented = c.is_ascii_alphabetic();
            continue;
        }
        // A combining accent that did not compose with the letter before
        // it, one that loses its marks (`q` with an acute), is dropped too.
        if after_unaccented && is_combining_accent(c) {
            continue;
        }
        if let Some(base) = unaccented(c) {
            folded.extend(base.to_lowercase());
            after_unaccented = true;
            continue;
        }
        if let Some(spelled) = spelled_out(c) {
            folded.push_str(spelled);
            after_unaccented = true;
            continue;
        }
        folded.extend(c.to_lowercase());
        after_unaccented = false;
    }
    codes_in_latin(&folded).unwrap_or(folded)
}

/// `folded` with its codes written in Latin letters, or `None` when it
/// has none to rewrite. A code is a word (letters, digits, `-` and `×`)
/// that starts with a letter and holds a digit, every letter of it Latin
/// or like one (`м6×20`, `в-105`), or digits joined by `×`
/// (`1920×1080`): its Cyrillic and Greek letters that look like Latin
/// ones read as those, and its `×` as `x`. A sheet typed on a Russian
/// keyboard writes the screw size `М6×20` with a Cyrillic `М`, and a
/// model asks for `M6x20`. A number with its unit (`5кг`, `10см`) and
/// words without a digit keep their script.
fn codes_in_latin(folded: &str) -> Option<String> {
    if !folded.bytes().any(|b| b.is_ascii_digit())
        || !folded.chars().any(|c| latin_look_alike(c).is_some())
    {
        return None;
    }
    let is_code_char = |c: char| c.is_alphanumeric() || matches!(c, '×' | '-');
    let mut out = String::with_capacity(folded.len());
    let mut changed = false;
    let mut rest = folded;
    while let Some(start) = rest.find(is_code_char) {
        out.push_str(&rest[..start]);
        let word_len = rest[start..]
            .find(|c: char| !is_code_char(c))
            .unwrap_or(rest.len() - start);
        let word = &rest[start..start + word_len];
        if is_code(word) {
            for c in word.chars() {
                let latin = latin_look_alike(c);
                changed |= latin.is_some();
                out.push(latin.unwrap_or(c));
            }
        } else {
            out.push_str(word);
        }
        rest = &rest[start + word_len..];
    }
    out.push_str(rest);
    changed.then_some(out)
}

/// Whether `word` is a code (see [`codes_in_latin`]).
fn is_code(word: &str) -> bool {
    let mut chars = word.chars();
    let starts_with_letter = chars.next().is_some_and(char::is_alphabetic);
    let letters_latin_like = word
        .chars()
        .filter(|c| c.is_alphabetic())
        .all(|c| c.is_ascii_alphabetic() || latin_look_alike(c).is_some());
    let has_digit = word.chars().any(|c| c.is_ascii_digit());
    let digits_times = word.chars().all(|c| c.is_ascii_digit() || c == '×') && word.contains('×');
    (starts_with_letter && has_digit && letters_latin_like) || digits_times
}

/// The Latin letter a lower-case Cyrillic or Greek letter (or `×`) looks
/// like in capitals, as codes write them.
fn latin_look_alike(c: char) -> Option<char> {
    Some(match c {
        '×' => 'x',
        'а' | 'α' => 'a',
        'в' | 'β' => 'b',
        'е' | 'ε' => 'e',
        'і' | 'ι' => 'i',
        'ј' => 'j',
        'к' | 'κ' => 'k',
        'м' | 'μ' => 'm',
        'н' | 'η' => 'h',
        'ν' => 'n',
        'о' | 'ο' => 'o',
        'р' | 'ρ' => 'p',
        'с' => 'c',
        'ѕ' => 's',
        'т' | 'τ' => 't',
        'у' | 'υ' => 'y',
        'х' | 'χ' => 'x',
        'ζ' => 'z',
        _ => return None,
    })
}

/// Whether `c` is one of the combining diacritical marks (U+0300–U+036F),
/// the accents of Latin letters.
fn is_combining_accent(c: char) -> bool {
    ('\u{0300}'..='\u{036F}').contains(&c)
}

/// The letter `c` is made of, when `c` decomposes into one with
/// combining accents only: an ASCII letter (`é`, `ñ`, `ş`, `ệ`, `İ`), a
/// Greek one (`ά`, `ΐ`: Greek drops its accents in capitals and in
/// search), or the Cyrillic `е` of `ё` (Russian writes `ё` as `е` more
/// often than not). Other Cyrillic letters keep their marks: `й` is a
/// letter of its own.
fn unaccented(c: char) -> Option<char> {
    let mut base = None;
    let mut only_accents = true;
    decompose_canonical(c, |part| {
        if base.is_none() {
            base = Some(part);
        } else if !is_combining_accent(part) {
            only_accents = false;
        }
    });
    base.filter(|b| {
        only_accents
            && *b != c
            && (b.is_ascii_alphabetic()
                || ('\u{0391}'..='\u{03C9}').contains(b)
                || matches!(b, 'е' | 'Е'))
    })
}

/// How a letter that does not decompose is typed without it (and the
/// Greek final sigma as the sigma it is).
fn spelled_out(c: char) -> Option<&'static str> {
    Some(match c {
        'ß' | 'ẞ' => "ss",
        'æ' | 'Æ' => "ae",
        'œ' | 'Œ' => "oe",
        'ø' | 'Ø' => "o",
        'ł' | 'Ł' => "l",
        'đ' | 'Đ' | 'ð' | 'Ð' => "d",
        'ı' => "i",
        'þ' | 'Þ' => "th",
        'ħ' | 'Ħ' => "h",
        'ς' => "σ",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::fold;

    #[test]
    fn latin_accents_are_dropped_and_case_lowered() {
        assert_eq!(fold("Zürich"), "zurich");
        assert_eq!(fold("São Paulo"), "sao paulo");
        assert_eq!(fold("reunión.md"), "reunion.md");
        assert_eq!(fold("Ça coûte CHER"), "ca coute cher");
        assert_eq!(fold("Đà Nẵng, Việt Nam"), "da nang, viet nam");
        assert_eq!(fold("İstanbul Şişli ığdır"), "istanbul sisli igdir");
        assert_eq!(fold("Łódź"), "lodz");
        assert_eq!(fold("Straße Ærø"), "strasse aero");
        assert_eq!(fold("plain ASCII 42"), "plain ascii 42");
        assert_eq!(fold("Ｔｏｋｙｏ ２０２４"), "tokyo 2024");
        assert_eq!(fold("تقرير ٢٠٢٤"), "تقرير 2024");
    }

    #[test]
    fn a_decomposed_name_folds_like_a_composed_one() {
        assert_eq!(fold("reunio\u{301}n"), fold("reunión"));
        assert_eq!(fold("q\u{301}"), "q");
    }

    #[test]
    fn letters_of_other_scripts_keep_their_marks() {
        assert_eq!(fold("Йошкар-Ола"), "йошкар-ола");
        assert_ne!(fold("й"), fold("и"));
        // But `ё` is read as `е`, and Greek drops its accents.
        assert_eq!(fold("Королёв"), "королев");
        assert_eq!(fold("Αθήνα"), fold("ΑΘΗΝΑ"));
        assert_eq!(fold("Κύπρος"), fold("ΚΥΠΡΟΣ"));
        assert_eq!(fold("ガイド"), "ガイド");
        assert_ne!(fold("ガ"), fold("カ"));
        assert_eq!(fold("서울"), "서울");
        assert_eq!(fold("東京"), "東京");
    }

    #[test]
    fn codes_read_in_latin_letters() {
        // A Cyrillic `М` and a `×` in a size, as a Russian sheet types it.
        assert_eq!(fold("Винт М6×20, оцинк."), "винт m6x20, оцинк.");
        assert_eq!(fold("В-105"), "b-105");
        assert_eq!(fold("1920×1080"), "1920x1080");
        // Words without a digit, numbers with their units and paths keep
        // their script.
        assert_eq!(fold("Москва мир"), "москва мир");
        assert_eq!(fold("Пакет 3 шт"), "пакет 3 шт");
        assert_eq!(fold("вес 5кг, 10см"), "вес 5кг, 10см");
        assert_eq!(fold("склад/остатки2.csv"), "склад/остатки2.csv");
        // A word with a letter that looks like no Latin one is no code.
        assert_eq!(fold("Шайба6"), "шайба6");
    }
}
