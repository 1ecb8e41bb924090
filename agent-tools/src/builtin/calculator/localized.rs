//! Numbers in an expression as other languages and scripts write them,
//! rewritten in the plain form the lexer reads before anything else: a
//! model answering a question asked in French, Arabic or Japanese copies
//! its numbers as the question writes them.
//!
//! - Digits of other scripts, full-width signs and the Arabic number
//!   signs become ASCII ([`ascii_numerals`]): `١٥٪` is `15%`.
//! - A decimal comma becomes a point ([`comma_decimals`]): `12,5` is
//!   `12.5`, `1.234,56` is `1234.56`; unless a function's parentheses
//!   hold a comma, where commas separate its arguments (`round(2,5)`).
//! - Groups of three digits after a space (`1 234 567`, with a no-break
//!   or thin space too) or an apostrophe (`7'850`) are one number
//!   ([`grouped_thousands`]).
//! - Superscript digits after a number or `)` are a power: `5²` is
//!   `5^2`, `10⁻³` is `10^(-3)`; after a letter they are part of a unit
//!   (`120 m²`).

use std::borrow::Cow;

use agent_core::numerals::{ascii_numerals, comma_decimals, grouped_thousands};

/// `input` with its numbers written the plain way (see the module doc).
pub(super) fn localized(input: &str) -> Cow<'_, str> {
    let ascii = ascii_numerals(input);
    let powers = superscript_powers(&ascii);
    let grouped = grouped_thousands(&powers);
    if commas_in_calls(&grouped) {
        return owned_if_changed(input, grouped.into_owned());
    }
    let plain = comma_decimals(&grouped).into_owned();
    owned_if_changed(input, plain)
}

fn owned_if_changed(input: &str, text: String) -> Cow<'_, str> {
    if text == input {
        Cow::Borrowed(input)
    } else {
        Cow::Owned(text)
    }
}

/// The ASCII digit or minus a superscript stands for.
fn from_superscript(c: char) -> Option<char> {
    Some(match c {
        '⁰' => '0',
        '¹' => '1',
        '²' => '2',
        '³' => '3',
        '⁴' => '4',
        '⁵' => '5',
        '⁶' => '6',
        '⁷' => '7',
        '⁸' => '8',
        '⁹' => '9',
        '⁻' => '-',
        _ => return None,
    })
}

/// Superscript digits after a number or `)` written as a power. After a
/// letter they belong to a unit (`m²`, `km²`), which the calculator
/// drops: the power is not the number's.
fn superscript_powers(text: &str) -> Cow<'_, str> {
    if !text.chars().any(|c| from_superscript(c).is_some()) {
        return Cow::Borrowed(text);
    }
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len() + 8);
    let mut i = 0;
    while i < chars.len() {
        let run = chars[i..]
            .iter()
            .map_while(|c| from_superscript(*c))
            .collect::<String>();
        let after_base = i > 0 && (chars[i - 1].is_ascii_digit() || chars[i - 1] == ')');
        if run.chars().any(|c| c.is_ascii_digit()) && after_base {
            if run.starts_with('-') {
                out.push_str(&format!("^({run})"));
            } else {
                out.push_str(&format!("^{run}"));
            }
            i += run.chars().count();
        } else {
            out.push(chars[i]);
            i += 1;
        }
    }
    Cow::Owned(out)
}

/// Whether a comma sits inside the parentheses of a function call
/// (`round(2,5)`, `max(3,5)`): there it separates arguments.
fn commas_in_calls(text: &str) -> bool {
    let mut calls: Vec<bool> = Vec::new();
    let mut previous = ' ';
    for c in text.chars() {
        match c {
            '(' | '[' => calls.push(previous.is_alphanumeric() || previous == '_'),
            ')' | ']' => {
                calls.pop();
            }
            ',' if calls.last() == Some(&true) => return true,
            _ => {}
        }
        if !c.is_whitespace() {
            previous = c;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_of_other_languages_are_written_plainly() {
        assert_eq!(localized("١٢ + ٣"), "12 + 3");
        assert_eq!(localized("１２＋３"), "12+3");
        assert_eq!(localized("12,5 % de 840"), "12.5 % de 840");
        assert_eq!(localized("3 * 2,40 + 2 * 3,15"), "3 * 2.40 + 2 * 3.15");
        assert_eq!(localized("1 234 567 + 1"), "1234567 + 1");
        assert_eq!(localized("7'850 * 2"), "7850 * 2");
        assert_eq!(localized("1\u{202f}250\u{a0}000 / 4"), "1250000 / 4");
        assert_eq!(localized("5² + 10⁻³"), "5^2 + 10^(-3)");
        assert_eq!(localized("(2 + 3)³"), "(2 + 3)^3");
    }

    #[test]
    fn plain_expressions_and_function_arguments_stay() {
        for text in [
            "2,450 + 1",
            "round(2,5)",
            "max(3,5) + 1,5",
            "12 + 345",
            "1, 234",
            "2 3456",
        ] {
            let out = localized(text);
            assert_eq!(out, text, "{text}");
            assert!(matches!(out, Cow::Borrowed(_)), "{text}");
        }
        assert_eq!(localized("2 345.5"), "2345.5");
    }
}
