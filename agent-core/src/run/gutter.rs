//! Line-number gutters of tool results: the `12| ` that file tools write
//! before each line they show, and the `path:12: ` before each line a
//! search in files found. Their numbers say where a line is, not what it
//! holds; a small model that sums them (`sum(4, 6, 8)` for three cities
//! on lines 4, 6 and 8) computes with no value of the file.

use std::borrow::Cow;

/// The numbers of `text`'s line gutters, and `text` without them (`text`
/// itself, uncopied, when it has none).
pub(super) fn split_gutters(text: &str) -> (Vec<&str>, Cow<'_, str>) {
    if !text
        .split_inclusive('\n')
        .any(|line| gutter_of(line).is_some())
    {
        return (Vec::new(), Cow::Borrowed(text));
    }
    let mut numbers = Vec::new();
    let mut rest = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        match gutter_of(line) {
            Some((number, after)) => {
                numbers.push(number);
                rest.push_str(&line[after..]);
            }
            None => rest.push_str(line),
        }
    }
    (numbers, Cow::Owned(rest))
}

/// The lines of `text` that have a gutter: each one's number and its
/// text without the gutter.
pub(super) fn gutter_lines(text: &str) -> Vec<(&str, &str)> {
    text.lines()
        .filter_map(|line| gutter_of(line).map(|(number, after)| (number, &line[after..])))
        .collect()
}

/// The gutter number of `line` and where the line's own text starts:
/// `<spaces><digits>| ` (or `|` ending the line) or `<path>:<digits>:`
/// (a path: no spaces, with a `.` or a `/`).
fn gutter_of(line: &str) -> Option<(&str, usize)> {
    let trimmed = line.trim_start_matches(' ');
    let indent = line.len() - trimmed.len();
    let digits = trimmed.bytes().take_while(u8::is_ascii_digit).count();
    let after = &trimmed[digits..];
    if digits > 0 && (after == "|" || after.starts_with("| ") || after.starts_with("|\n")) {
        return Some((&trimmed[..digits], indent + digits + 1));
    }
    let colon = line.find(':')?;
    let path = &line[..colon];
    let is_path = !path.is_empty()
        && !path.contains(char::is_whitespace)
        && (path.contains('.') || path.contains('/'));
    let after_path = &line[colon + 1..];
    let digits = after_path.bytes().take_while(u8::is_ascii_digit).count();
    (is_path && digits > 0 && after_path[digits..].starts_with(':'))
        .then(|| (&after_path[..digits], colon + 1 + digits + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_and_search_gutters_are_split_from_the_lines() {
        let read = " 9| nights: 4\n10| - city: Roma\n";
        let (numbers, rest) = split_gutters(read);
        assert_eq!(
            (numbers, &*rest),
            (vec!["9", "10"], " nights: 4\n - city: Roma\n")
        );
        let grep = "trip/plan.yaml:4:   - city: Parigi\nnotes.md:12: 250 km";
        let (numbers, rest) = split_gutters(grep);
        assert_eq!(
            (numbers, &*rest),
            (vec!["4", "12"], "   - city: Parigi\n 250 km")
        );
    }

    #[test]
    fn numbers_that_are_data_are_no_gutter() {
        for text in [
            "Paris: 2,100,000 people",
            "ratio 3:2:1",
            "12 | 13 | 14",
            "the time was 10:30: late",
            "a|b",
            "12|13|14",
        ] {
            let (numbers, rest) = split_gutters(text);
            assert!(numbers.is_empty(), "{text}: {numbers:?}");
            assert!(matches!(rest, Cow::Borrowed(same) if same == text));
        }
    }
}
