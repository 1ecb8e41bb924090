//! Numbers as other languages and scripts write them, rewritten the way
//! the loop's checks and the calculator read numbers: ASCII digits, a
//! decimal point, no group separators.
//!
//! - [`ascii_numerals`]: the digits of other scripts (Arabic-Indic,
//!   Persian, Devanagari, Bengali, Thai, full-width and more) as ASCII
//!   digits, full-width signs (`＋`, `％`, `（`) as ASCII ones, and the
//!   Arabic percent, decimal and thousands signs as `%`, `.` and `,`.
//! - [`comma_decimals`]: numbers written with a decimal comma, as most of
//!   Europe, Latin America, Russia, Turkey, Indonesia and Vietnam write
//!   them (`12,5`, `0,125`, `1.234,56`, `1.234.567`), with a decimal
//!   point and no separators (`12.5`, `0.125`, `1234.56`, `1234567`). A
//!   comma followed by exactly three digits after a group of one to three
//!   other than `0` (`2,450`) is a thousands separator the English way
//!   and stays as it is; one group after a dot (`48.000`) is thousands
//!   only on a line that writes a decimal comma, or in a text that
//!   writes thousands with a dot.
//! - [`grouped_thousands`]: groups of three digits after a space, a
//!   no-break space or a thin space ([`GROUP_SPACES`]), or after an
//!   apostrophe as Switzerland writes them ([`GROUP_APOSTROPHES`]),
//!   joined into one number (`1 234 567` and `1'234'567` are `1234567`).
//! - [`plain_numbers`]: all three, in that order.
//!
//! One group after a dot (`3.500`) is read as thousands in a text that
//! writes thousands with a dot, as [`writes_thousands_with_dots`] tells
//! from the text's numbers and words ([`plain_numbers_reading`] says how
//! to read a text that does not tell).

mod dot_groups;

use std::borrow::Cow;

pub(crate) use dot_groups::numbers_tell;
pub use dot_groups::{one_dot_group_numbers, writes_thousands_with_dots};

/// The first code point (the digit zero) of each run of ten decimal
/// digits outside ASCII that a question or a model may write.
const DIGIT_ZEROS: [u32; 19] = [
    0x0660, // Arabic-Indic
    0x06F0, // Extended Arabic-Indic (Persian, Urdu)
    0x07C0, // NKo
    0x0966, // Devanagari
    0x09E6, // Bengali
    0x0A66, // Gurmukhi
    0x0AE6, // Gujarati
    0x0B66, // Oriya
    0x0BE6, // Tamil
    0x0C66, // Telugu
    0x0CE6, // Kannada
    0x0D66, // Malayalam
    0x0E50, // Thai
    0x0ED0, // Lao
    0x0F20, // Tibetan
    0x1040, // Myanmar
    0x17E0, // Khmer
    0x1810, // Mongolian
    0xFF10, // full-width
];

/// The ASCII digit or sign `c` stands for, if it is a digit of another
/// script, a full-width form or an Arabic number sign.
fn ascii_for(c: char) -> Option<char> {
    let code = u32::from(c);
    if let Some(zero) = DIGIT_ZEROS
        .iter()
        .find(|zero| (**zero..**zero + 10).contains(&code))
    {
        return char::from_digit(code - zero, 10);
    }
    match c {
        // Full-width ASCII forms: `＋`, `％`, `（`, `．`, letters.
        '\u{FF01}'..='\u{FF5E}' => char::from_u32(code - 0xFEE0),
        '\u{066A}' => Some('%'),
        '\u{066B}' => Some('.'),
        '\u{066C}' | '\u{060C}' => Some(','),
        _ => None,
    }
}

/// `text` with the digits of other scripts, full-width signs and the
/// Arabic number signs written in ASCII (`١٢٣` → `123`, `１５％` → `15%`);
/// borrowed when there are none.
pub fn ascii_numerals(text: &str) -> Cow<'_, str> {
    if text.is_ascii() || text.chars().all(|c| ascii_for(c).is_none()) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(text.chars().map(|c| ascii_for(c).unwrap_or(c)).collect())
}

/// `text` with its numbers written with a decimal comma rewritten with a
/// decimal point and without separators (see the module doc); borrowed
/// when there are none. A line that writes a decimal comma writes its
/// thousands with dots: there one group after a dot (`48.000`) is
/// thousands too, and so it is in a text that writes thousands with a
/// dot ([`writes_thousands_with_dots`]).
pub fn comma_decimals(text: &str) -> Cow<'_, str> {
    comma_decimals_reading(text, writes_thousands_with_dots)
}

/// [`comma_decimals`], reading one group after a dot as thousands when
/// `tell` says so of the text (`None`: it does not tell; not thousands).
fn comma_decimals_reading(text: &str, tell: impl Fn(&str) -> Option<bool>) -> Cow<'_, str> {
    if !text.bytes().any(|b| b.is_ascii_digit()) || !text.contains([',', '.']) {
        return Cow::Borrowed(text);
    }
    // How the text writes thousands only matters to one dot group.
    let dots_are_thousands =
        dot_groups::may_have_one_dot_group(text) && tell(text).unwrap_or(false);
    let mut out = String::new();
    let mut changed = false;
    for (line, row) in lines_and_rows(text) {
        // Only a comma or a dot makes a number's plain form differ.
        if !line.contains([',', '.']) || !line.bytes().any(|b| b.is_ascii_digit()) {
            out.push_str(line);
            continue;
        }
        if row {
            // Each field of a row of comma-separated values is read on
            // its own: `50,1250` is two fields, not fifty point one.
            for (i, field) in line.split(',').enumerate() {
                if i > 0 {
                    out.push(',');
                }
                let chars: Vec<char> = field.chars().collect();
                match rewrite_line(&chars, dots_are_thousands) {
                    Some(plain) => {
                        out.push_str(&plain);
                        changed = true;
                    }
                    None => out.push_str(field),
                }
            }
            continue;
        }
        let chars: Vec<char> = line.chars().collect();
        match rewrite_line(&chars, dots_are_thousands) {
            Some(plain) => {
                out.push_str(&plain);
                changed = true;
            }
            None => out.push_str(line),
        }
    }
    if changed {
        Cow::Owned(out)
    } else {
        Cow::Borrowed(text)
    }
}

/// One line's numbers in their plain form, `None` when none changes; one
/// group after a dot is thousands when `dots_are_thousands` or the line
/// writes a decimal comma.
fn rewrite_line(chars: &[char], dots_are_thousands: bool) -> Option<String> {
    let (plain, decimal_comma) = rewrite_numbers(chars, dots_are_thousands);
    if decimal_comma && !dots_are_thousands {
        rewrite_numbers(chars, true).0
    } else {
        plain
    }
}

/// The lines of `text` (each with its line break), and whether each is a
/// row of comma-separated values: a line with two commas or more, none
/// followed by a space, no tab and fewer `;`, beside a line with as many (a
/// table's header or another row).
fn lines_and_rows(text: &str) -> Vec<(&str, bool)> {
    // A line split on tabs, or on `;` more than on `,`, writes its
    // decimals with a comma.
    let commas = |line: &str| {
        let semicolons = line.matches(';').count();
        if line.contains('\t') || semicolons >= line.matches(',').count() || line.contains(", ") {
            0
        } else {
            line.matches(',').count()
        }
    };
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let counts: Vec<usize> = lines.iter().map(|line| commas(line)).collect();
    lines
        .iter()
        .enumerate()
        .map(|(i, line)| {
            let n = counts[i];
            let beside = (i > 0 && counts[i - 1] == n) || counts.get(i + 1) == Some(&n);
            (*line, n >= 2 && beside)
        })
        .collect()
}

/// `text` with every number written plainly: [`ascii_numerals`], then
/// [`grouped_thousands`], then [`comma_decimals`]; borrowed when
/// nothing changes.
pub fn plain_numbers(text: &str) -> Cow<'_, str> {
    plain_numbers_with(text, writes_thousands_with_dots)
}

/// [`plain_numbers`], where one group after a dot (`3.500`) is thousands
/// when the text's numbers say so (a decimal comma, `1.234.567`; a
/// decimal point such as `3.5` says not), and when they do not tell (a
/// table of numbers, a short answer), when `untold_dots_are_thousands`.
/// Its words are not read: the loop reads a tool result, whose words are
/// often the tool's own, the way the question writes its numbers.
///
/// ```
/// use agent_core::numerals::plain_numbers_reading;
///
/// let table = "sku,name,stock\nA-101,hub,3.500\n";
/// assert_eq!(plain_numbers_reading(table, true), "sku,name,stock\nA-101,hub,3500\n");
/// assert_eq!(plain_numbers_reading(table, false), table);
/// assert_eq!(plain_numbers_reading("3.500 of 12.25", true), "3.500 of 12.25");
/// ```
pub fn plain_numbers_reading(text: &str, untold_dots_are_thousands: bool) -> Cow<'_, str> {
    plain_numbers_with(text, |text| {
        Some(dot_groups::numbers_tell(text).unwrap_or(untold_dots_are_thousands))
    })
}

/// [`plain_numbers`] with `tell` saying whether the text writes
/// thousands with dots.
fn plain_numbers_with(text: &str, tell: impl Fn(&str) -> Option<bool>) -> Cow<'_, str> {
    let ascii = ascii_numerals(text);
    let grouped = grouped_thousands(&ascii);
    let plain = comma_decimals_reading(&grouped, tell);
    if plain == text {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(plain.into_owned())
    }
}

/// The spaces that may sit between groups of three digits: a space, a
/// no-break space, a narrow no-break space (French) and a thin space.
pub const GROUP_SPACES: [char; 4] = [' ', '\u{a0}', '\u{202f}', '\u{2009}'];

/// The apostrophes that may sit between groups of three digits, as
/// Switzerland and Liechtenstein write them (`7'850`, `1’250’000`): a
/// straight one and a typographic one.
pub const GROUP_APOSTROPHES: [char; 2] = ['\'', '\u{2019}'];

/// Whether `c` may sit between groups of three digits besides a comma or a
/// dot: one of [`GROUP_SPACES`] or [`GROUP_APOSTROPHES`].
pub fn is_group_mark(c: char) -> bool {
    GROUP_SPACES.contains(&c) || GROUP_APOSTROPHES.contains(&c)
}

/// `text` with each run of one to three digits followed by groups of
/// exactly three digits, each after a space or an apostrophe
/// ([`is_group_mark`]), written as one number (`1 234 567` and
/// `1'234'567` as `1234567`); borrowed when there is none. Two numbers
/// side by side mean nothing in arithmetic.
pub fn grouped_thousands(text: &str) -> Cow<'_, str> {
    if !has_digit_mark_digit(text) {
        return Cow::Borrowed(text);
    }
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::new();
    let mut copied = 0;
    let mut i = 0;
    while i < chars.len() {
        if !number_starts(&chars, i) {
            i += 1;
            continue;
        }
        let first = digits_at(&chars, i);
        let mut end = i + first;
        while first <= 3
            && chars.get(end).is_some_and(|c| is_group_mark(*c))
            && digits_at(&chars, end + 1) == 3
        {
            end += 4;
        }
        if end > i + first {
            out.extend(&chars[copied..i]);
            out.extend(chars[i..end].iter().filter(|c| !is_group_mark(**c)));
            copied = end;
        }
        i = end;
    }
    if copied == 0 {
        return Cow::Borrowed(text);
    }
    out.extend(&chars[copied..]);
    Cow::Owned(out)
}

/// `number`, plain digits with maybe a `.` and decimals, with its whole
/// part grouped by thousands with `,` (`110000000` as `110,000,000`),
/// when that part has four digits or more and does not start with `0`;
/// `None` otherwise (a number written with other marks, a sign, or no
/// decimals after its `.`).
///
/// ```
/// use agent_core::numerals::comma_grouped_thousands;
///
/// assert_eq!(comma_grouped_thousands("1082.73").as_deref(), Some("1,082.73"));
/// assert_eq!(comma_grouped_thousands("999"), None);
/// ```
pub fn comma_grouped_thousands(number: &str) -> Option<String> {
    let (whole, decimals) = whole_and_decimals(number)?;
    (whole.len() >= 4).then(|| written_with(whole, decimals, ',', '.'))
}

/// `number` (as for [`comma_grouped_thousands`]) the way a language that
/// writes a decimal comma writes it: thousands grouped with `.` when its
/// whole part has four digits or more, decimals after a `,` (`60000` as
/// `60.000`, `3.8` as `3,8`, `1234.5` as `1.234,5`); `None` when that is
/// how it is written already.
///
/// ```
/// use agent_core::numerals::dot_grouped_thousands;
///
/// assert_eq!(dot_grouped_thousands("1234.5").as_deref(), Some("1.234,5"));
/// assert_eq!(dot_grouped_thousands("3.8").as_deref(), Some("3,8"));
/// assert_eq!(dot_grouped_thousands("999"), None);
/// ```
pub fn dot_grouped_thousands(number: &str) -> Option<String> {
    let (whole, decimals) = whole_and_decimals(number)?;
    (whole.len() >= 4 || decimals.is_some()).then(|| written_with(whole, decimals, '.', ','))
}

/// The whole part and the decimals of a plain `number`; `None` unless it
/// is digits, not starting with `0` before more digits, with maybe a `.`
/// and more digits.
fn whole_and_decimals(number: &str) -> Option<(&str, Option<&str>)> {
    let (whole, decimals) = match number.split_once('.') {
        Some((whole, decimals)) => (whole, Some(decimals)),
        None => (number, None),
    };
    let digits = |part: &str| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit());
    (digits(whole) && !(whole.len() > 1 && whole.starts_with('0')) && decimals.is_none_or(digits))
        .then_some((whole, decimals))
}

/// `whole` grouped by thousands with `thousands`, then `decimal` and the
/// `decimals` if any.
fn written_with(whole: &str, decimals: Option<&str>, thousands: char, decimal: char) -> String {
    let mut grouped = String::with_capacity(whole.len() * 2);
    for (i, digit) in whole.chars().enumerate() {
        if i > 0 && (whole.len() - i).is_multiple_of(3) {
            grouped.push(thousands);
        }
        grouped.push(digit);
    }
    if let Some(decimals) = decimals {
        grouped.push(decimal);
        grouped.push_str(decimals);
    }
    grouped
}

/// Whether `text` has an ASCII digit, a group mark ([`is_group_mark`])
/// and an ASCII digit in a row: the only place a group of thousands can
/// be.
fn has_digit_mark_digit(text: &str) -> bool {
    let (mut before, mut last) = (None, None);
    for c in text.chars() {
        if c.is_ascii_digit()
            && before.is_some_and(|b: char| b.is_ascii_digit())
            && last.is_some_and(is_group_mark)
        {
            return true;
        }
        (before, last) = (last, Some(c));
    }
    false
}

/// Whether `text` writes a digit, in ASCII or in another script
/// ([`ascii_numerals`]): a text without one holds no number.
pub(crate) fn has_digits(text: &str) -> bool {
    text.chars().any(|c| {
        c.is_ascii_digit() || (!c.is_ascii() && ascii_for(c).is_some_and(|a| a.is_ascii_digit()))
    })
}

/// Whether a number starts at `i`: a digit that does not go on a word, a
/// number or a decimal part (`E4`, `1.5`, `3,5`).
fn number_starts(chars: &[char], i: usize) -> bool {
    chars[i].is_ascii_digit()
        && !(i > 0 && (chars[i - 1].is_alphanumeric() || matches!(chars[i - 1], '.' | ',')))
}

/// `chars` with each number read by [`read_number`] in its plain form
/// (`None` when none changes), and whether one had a decimal comma.
fn rewrite_numbers(chars: &[char], one_dot_group: bool) -> (Option<String>, bool) {
    let mut out = String::new();
    let mut copied = 0;
    let mut decimal_comma = false;
    let mut i = 0;
    while i < chars.len() {
        if !number_starts(chars, i) {
            i += 1;
            continue;
        }
        let (end, plain) = read_number(chars, i, one_dot_group);
        if let Some(plain) = plain {
            decimal_comma |= plain.contains('.');
            out.extend(&chars[copied..i]);
            out.push_str(&plain);
            copied = end;
        }
        i = end.max(i + 1);
    }
    if copied == 0 {
        return (None, false);
    }
    out.extend(&chars[copied..]);
    (Some(out), decimal_comma)
}

/// The digits from `i` on.
fn digits_at(chars: &[char], i: usize) -> usize {
    chars[i.min(chars.len())..]
        .iter()
        .take_while(|c| c.is_ascii_digit())
        .count()
}

/// Reads the number starting at `start` (a digit): where it ends, and its
/// plain form when it is written with a decimal comma or dots between
/// thousands (two groups or more, or one when `one_dot_group`).
fn read_number(chars: &[char], start: usize, one_dot_group: bool) -> (usize, Option<String>) {
    let first = digits_at(chars, start);
    let mut i = start + first;
    let integer: String = chars[start..i].iter().collect();
    // Dots between groups of three: `1.234.567`, `1.234,56`.
    let mut groups = Vec::new();
    while chars.get(i) == Some(&'.') && digits_at(chars, i + 1) == 3 {
        groups.push(i);
        i += 4;
    }
    // A group of thousands never follows a lone `0` (`0.125`).
    let dotted = (1..=3).contains(&first) && !groups.is_empty() && integer != "0";
    let comma_digits = if chars.get(i) == Some(&',') {
        digits_at(chars, i + 1)
    } else {
        0
    };
    // A further `,<digit>` makes it a list (`3,5,7`), not a number.
    let list = comma_digits > 0
        && chars.get(i + 1 + comma_digits) == Some(&',')
        && chars
            .get(i + 2 + comma_digits)
            .is_some_and(char::is_ascii_digit);
    let decimal_comma =
        comma_digits > 0 && !list && (comma_digits != 3 || integer == "0" || first > 3 || dotted);
    let thousands: String = groups
        .iter()
        .flat_map(|g| chars[g + 1..g + 4].iter())
        .collect();
    match (dotted, decimal_comma) {
        (_, true) if dotted || groups.is_empty() => {
            let fraction: String = chars[i + 1..i + 1 + comma_digits].iter().collect();
            (
                i + 1 + comma_digits,
                Some(format!("{integer}{thousands}.{fraction}")),
            )
        }
        // `1.234.567`: two groups or more after dots, and no point after
        // them, is a whole number (one group, `48.000`, may be either,
        // unless the text writes decimal commas).
        (true, false) if (groups.len() >= 2 || one_dot_group) && chars.get(i) != Some(&'.') => {
            (i, Some(format!("{integer}{thousands}")))
        }
        _ => (start + first, None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_numbers_group_by_thousands_with_commas() {
        for (plain, grouped) in [
            ("1000", Some("1,000")),
            ("110000000", Some("110,000,000")),
            ("1234.5", Some("1,234.5")),
            ("999", None),
            ("0123", None),
            ("1234.", None),
            ("-1234", None),
            ("1,234", None),
            ("1e6", None),
        ] {
            assert_eq!(
                comma_grouped_thousands(plain).as_deref(),
                grouped,
                "{plain}"
            );
        }
    }

    #[test]
    fn plain_numbers_group_by_thousands_with_dots_and_a_decimal_comma() {
        for (plain, grouped) in [
            ("60000", Some("60.000")),
            ("110000000", Some("110.000.000")),
            ("1234.5", Some("1.234,5")),
            ("3.8", Some("3,8")),
            ("0.25", Some("0,25")),
            ("999", None),
            ("0123", None),
            ("1234.", None),
            ("-3.8", None),
            ("1,234", None),
        ] {
            assert_eq!(dot_grouped_thousands(plain).as_deref(), grouped, "{plain}");
        }
    }

    #[test]
    fn digits_of_other_scripts_and_full_width_signs_become_ascii() {
        assert_eq!(ascii_numerals("١٢ + ٣"), "12 + 3");
        assert_eq!(ascii_numerals("۱۴۰۳"), "1403");
        assert_eq!(ascii_numerals("१२५"), "125");
        assert_eq!(ascii_numerals("１２＋３＝？"), "12+3=?");
        assert_eq!(ascii_numerals("１５％"), "15%");
        assert_eq!(ascii_numerals("٢٫٥ و ١٥٪"), "2.5 و 15%");
        assert!(matches!(ascii_numerals("plain 42"), Cow::Borrowed(_)));
        assert!(matches!(ascii_numerals("東京 ²"), Cow::Borrowed(_)));
    }

    #[test]
    fn decimal_commas_become_points() {
        assert_eq!(comma_decimals("12,5 % de 840"), "12.5 % de 840");
        assert_eq!(comma_decimals("3,5 * 2"), "3.5 * 2");
        assert_eq!(comma_decimals("2,40 € al chilo"), "2.40 € al chilo");
        assert_eq!(comma_decimals("0,125"), "0.125");
        assert_eq!(comma_decimals("1.234,56"), "1234.56");
        assert_eq!(comma_decimals("R$ 1.250.000"), "R$ 1250000");
        assert_eq!(comma_decimals("19,9999"), "19.9999");
        assert_eq!(comma_decimals("1234,5"), "1234.5");
        // Beside a decimal comma, one group after a dot is thousands, on
        // that line.
        assert_eq!(comma_decimals("48.000 * 0,88^3"), "48000 * 0.88^3");
        assert_eq!(comma_decimals("R$ 48.000 e 12,5%"), "R$ 48000 e 12.5%");
        assert_eq!(
            comma_decimals("rate 0.125\nprice 12,5"),
            "rate 0.125\nprice 12.5"
        );
    }

    #[test]
    fn each_field_of_a_comma_table_is_read_on_its_own_and_semicolon_tables_keep_decimal_commas() {
        let table = "producto,unidades,importe\ncafé molido,50,1250\ntazas,96,830\n";
        assert!(matches!(comma_decimals(table), Cow::Borrowed(_)));
        assert_eq!(
            plain_numbers_reading("producto,unidades,importe\ncafé molido,50,1.250\n", true),
            "producto,unidades,importe\ncafé molido,50,1250\n"
        );
        assert_eq!(
            comma_decimals("Kaffee;3,50;1,25\nTee;2,10;0,75\n"),
            "Kaffee;3.50;1.25\nTee;2.10;0.75\n"
        );
    }

    #[test]
    fn digits_of_any_script_are_digits() {
        assert!(has_digits("it is ١٥ km"));
        assert!(has_digits("\u{FF15}"));
        assert!(has_digits("H2O"));
        assert!(!has_digits("no numbers, \u{FF31}, \u{066A}"));
    }

    #[test]
    fn plain_numbers_apply_every_reading() {
        assert_eq!(plain_numbers("١ ٢٣٤,٥ €"), "1234.5 €");
        assert!(matches!(plain_numbers("12.5 and 2,450"), Cow::Borrowed(_)));
    }

    #[test]
    fn groups_of_three_after_a_space_or_an_apostrophe_are_one_number() {
        assert_eq!(grouped_thousands("1 234 567 + 1"), "1234567 + 1");
        assert_eq!(grouped_thousands("CHF 7'850 * 12"), "CHF 7850 * 12");
        assert_eq!(
            grouped_thousands("1\u{2019}250\u{2019}000 / 4"),
            "1250000 / 4"
        );
        assert_eq!(plain_numbers("Miete: 2'450.50 CHF"), "Miete: 2450.50 CHF");
        assert_eq!(
            grouped_thousands("1\u{202f}250\u{a0}000 / 4\u{2009}000"),
            "1250000 / 4000"
        );
        assert_eq!(grouped_thousands("2 345.5"), "2345.5");
        for text in [
            "12 + 345",
            "1, 234",
            "2 3456",
            "1234 567",
            "v2 345",
            "'12' + '345'",
            "it's 12'3456",
        ] {
            assert_eq!(grouped_thousands(text), text, "{text}");
            assert!(
                matches!(grouped_thousands(text), Cow::Borrowed(_)),
                "{text}"
            );
        }
    }

    #[test]
    fn thousands_the_english_way_lists_and_versions_stay() {
        for text in [
            "2,450 people",
            "3,800,000",
            "1,234.5",
            "mean(3,5,7)",
            "3, 5",
            "48.000",
            "v2.4.1",
            "10.0.0.7",
            "E4,5",
            "1.5",
        ] {
            assert_eq!(comma_decimals(text), text, "{text}");
            assert!(matches!(comma_decimals(text), Cow::Borrowed(_)), "{text}");
        }
    }
}
