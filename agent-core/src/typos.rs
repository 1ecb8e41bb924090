//! Words a typo apart: a task written in a hurry names `reciepts.csv`,
//! and a small model copies the name as written. The file tools take a
//! missing file's name so misspelt for the file it misspells, and the
//! run's names check takes a result that shows the name spelt right as
//! showing it. (`search` does not: everyday words are a letter from title
//! words, `count` from `Mount`, and a query about what the base lacks
//! must find nothing.)

/// Letters a word needs before a typo in it is read as one: shorter words
/// one letter apart are often other words (`cat`, `car`).
const MIN_TYPO_LETTERS: usize = 5;

/// Whether `a` and `b` (folded, see `fold`) are two spellings of one word,
/// a typo apart: one letter changed, added or dropped, or two neighbours
/// swapped. Both must be letters only, five of them or more: digits tell
/// versions and dates apart (`2023`, `2024`), and short words are often
/// different words. Equal words are not a typo apart.
pub fn one_typo_apart(a: &str, b: &str) -> bool {
    let letters =
        |w: &str| w.chars().all(char::is_alphabetic) && w.chars().count() >= MIN_TYPO_LETTERS;
    if a == b || !letters(a) || !letters(b) {
        return false;
    }
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let (short, long) = if a.len() <= b.len() {
        (&a, &b)
    } else {
        (&b, &a)
    };
    match long.len() - short.len() {
        0 => {
            let differ: Vec<usize> = (0..short.len()).filter(|&i| short[i] != long[i]).collect();
            match differ.as_slice() {
                [_] => true,
                [i, j] => *j == i + 1 && short[*i] == long[*j] && short[*j] == long[*i],
                _ => false,
            }
        }
        1 => {
            let first = (0..short.len())
                .find(|&i| short[i] != long[i])
                .unwrap_or(short.len());
            short[first..] == long[first + 1..]
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::one_typo_apart;

    #[test]
    fn one_letter_changed_added_dropped_or_swapped_is_a_typo() {
        assert!(one_typo_apart("reciepts", "receipts"));
        assert!(one_typo_apart("inventroy", "inventory"));
        assert!(one_typo_apart("eifel", "eiffel"));
        assert!(one_typo_apart("everst", "everest"));
        assert!(one_typo_apart("budgte", "budget"));
        assert!(one_typo_apart("invoices", "invoicez"));
        assert!(one_typo_apart("contrat", "contract"));
    }

    #[test]
    fn other_words_digits_and_short_words_are_not() {
        assert!(!one_typo_apart("receipts", "receipts"));
        assert!(!one_typo_apart("austria", "australia"));
        assert!(!one_typo_apart("report2023", "report2024"));
        assert!(!one_typo_apart("notes", "nodes1"));
        assert!(!one_typo_apart("cats", "cars"));
        assert!(!one_typo_apart("budget", "gudbet"));
        assert!(!one_typo_apart("", "x"));
    }
}
