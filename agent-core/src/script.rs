//! Writing systems, as far as the loop's and the tools' text reading
//! needs them: which letters are Latin, and which
//! scripts write their words without spaces between them (Chinese,
//! Japanese, Korean syllables, Thai). In such text a number sits right
//! against the letters around it (`长是23.5米`), so a letter next to a
//! digit does not make the digit part of a word, and a name may be found
//! inside a longer run of letters.

/// Whether `c` belongs to a script written without spaces between words:
/// Thai, Hiragana, Katakana, Han (with extension A and the compatibility
/// ideographs) and Hangul syllables.
pub fn is_unspaced(c: char) -> bool {
    matches!(
        u32::from(c),
        0x0E00..=0x0E7F // Thai
            | 0x3040..=0x30FF // Hiragana, Katakana
            | 0x3400..=0x4DBF // Han, extension A
            | 0x4E00..=0x9FFF // Han
            | 0xAC00..=0xD7AF // Hangul syllables
            | 0xF900..=0xFAFF // Han compatibility
    )
}

/// Whether `c` is a letter of a word written with spaces around it (Latin,
/// Cyrillic, Greek, Arabic…): a digit right after it is inside that word
/// (`E4127`, `utf8`). A letter of an unspaced script is not.
pub fn is_spaced_letter(c: char) -> bool {
    c.is_alphabetic() && !is_unspaced(c)
}

/// Whether `c` is a Latin letter: ASCII, with accents (Latin-1 to Latin
/// Extended-B, and the Latin Extended Additional block of Vietnamese), or
/// full-width.
pub fn is_latin_letter(c: char) -> bool {
    c.is_alphabetic()
        && matches!(
            u32::from(c),
            0x41..=0x5A | 0x61..=0x7A | 0xC0..=0x24F | 0x1E00..=0x1EFF | 0xFF21..=0xFF3A | 0xFF41..=0xFF5A
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latin_letters_are_latin_whatever_their_accents() {
        for c in ['a', 'Z', 'é', 'ł', 'ệ', 'Ｔ'] {
            assert!(is_latin_letter(c), "{c}");
        }
        for c in ['ж', 'α', '长', 'ب', '7', '×'] {
            assert!(!is_latin_letter(c), "{c}");
        }
    }

    #[test]
    fn han_kana_hangul_and_thai_are_unspaced_and_latin_is_not() {
        for c in ['长', '米', 'の', 'カ', '한', 'ก'] {
            assert!(is_unspaced(c), "{c}");
            assert!(!is_spaced_letter(c), "{c}");
        }
        for c in ['E', 'é', 'ж', 'ب'] {
            assert!(!is_unspaced(c), "{c}");
            assert!(is_spaced_letter(c), "{c}");
        }
        assert!(!is_spaced_letter('7'));
        assert!(!is_spaced_letter('，'));
    }
}
