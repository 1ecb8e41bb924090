//! Arithmetic as people (and small models) write it, read by the
//! calculator: the expression is rewritten into plain arithmetic before it
//! is parsed, and the result says how it was read.
//!
//! - **Units** after a number (`<n> km / <n> hours`, `<n> m`, `<n> km/s`)
//!   are dropped: the numbers are what is computed on.
//! - **Scale words** after a number (`<n> million`, `thousand`, `billion`,
//!   `trillion`, and `<n>k`, `<n>M`, `<n>B`, `<n>bn` written without a
//!   space) multiply it.
//! - **Percentages**: `<n>%` is `<n> / 100` where that is the only
//!   reading: before `of` (`<n>% of <m>`, or `de`, `von`, `di`…), `*`, `/`, `)`, `,` or the end,
//!   and not right after `+` or `-`. `<m> - <n>%` is refused as ambiguous
//!   (a calculator reads `<m> - <n>/100`, a person `<m>` less `<n>`
//!   percent), with the two ways to write it. `%` between two numbers stays
//!   the remainder.
//! - **`x` for times** and **`mod` (or `modulo`) for the remainder**
//!   between two numbers, **currency signs** (`$ € £ ¥`) dropped, and
//!   **`√<n>`** for `sqrt(<n>)`.
//!
//! - **Rounding in words** at the end (`<expr> rounded to <n> decimal
//!   places`, `<expr>, round to <n> decimals`, in a few languages) is
//!   `round(<expr>, <n>)`.
//!
//! A name that does not follow a number (`mean(latency)`) is still an
//! unknown name: it stands for numbers the model has not looked up.

use super::calculator::{CalcError, Number, Token, is_known_name};

/// Scale words (lower case) and what they multiply by: English, the
/// Romance and Germanic forms of million and milliard, Russian, and the
/// Chinese and Japanese characters. (`billion` is read the English way.)
const SCALES: [(&str, i128); 37] = [
    ("thousand", 1_000),
    ("thousands", 1_000),
    ("million", 1_000_000),
    ("millions", 1_000_000),
    ("billion", 1_000_000_000),
    ("billions", 1_000_000_000),
    ("trillion", 1_000_000_000_000),
    ("trillions", 1_000_000_000_000),
    ("quadrillion", 1_000_000_000_000_000),
    ("tausend", 1_000),
    ("mille", 1_000),
    ("mil", 1_000),
    ("millionen", 1_000_000),
    ("millones", 1_000_000),
    ("millón", 1_000_000),
    ("milione", 1_000_000),
    ("milioni", 1_000_000),
    ("milhão", 1_000_000),
    ("milhões", 1_000_000),
    ("milliard", 1_000_000_000),
    ("milliards", 1_000_000_000),
    ("milliarde", 1_000_000_000),
    ("milliarden", 1_000_000_000),
    ("miliardo", 1_000_000_000),
    ("miliardi", 1_000_000_000),
    ("тысяч", 1_000),
    ("тыс", 1_000),
    ("миллион", 1_000_000),
    ("миллиона", 1_000_000),
    ("миллионов", 1_000_000),
    ("млн", 1_000_000),
    ("млрд", 1_000_000_000),
    ("千", 1_000),
    ("万", 10_000),
    ("萬", 10_000),
    ("亿", 100_000_000),
    ("億", 100_000_000),
];

/// Whether an unknown word may be a scale the table lacks (`billón`, a
/// Russian case ending): such a word is not dropped as a unit, so the
/// expression is refused rather than computed a scale too small.
fn scale_like(name: &str) -> bool {
    ["illi", "illo", "illó", "ilh", "iliar", "илли", "тыс", "兆"]
        .iter()
        .any(|part| name.contains(part))
}

/// Scale suffixes written right after a number, case-sensitive (`m`
/// alone is metres), and the word each stands for.
const SUFFIXES: [(&str, &str); 5] = [
    ("bn", "billion"),
    ("k", "thousand"),
    ("K", "thousand"),
    ("M", "million"),
    ("B", "billion"),
];

/// The characters of `input` as the tokenizer should see them: currency
/// signs dropped, `√` spelt `sqrt` (with parentheses around a number that
/// follows it), and scale suffixes glued to a number spelt as words.
pub(super) fn spell_out(input: &str) -> String {
    let chars: Vec<char> = input.chars().collect();
    let mut out = String::with_capacity(input.len() + 8);
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '$' | '€' | '£' | '¥' => {}
            '√' => {
                let mut j = i + 1;
                while chars.get(j).is_some_and(|c| c.is_whitespace()) {
                    j += 1;
                }
                let end = number_end(&chars, j);
                if end > j {
                    out.push_str("sqrt(");
                    out.extend(&chars[j..end]);
                    out.push(')');
                    i = end;
                    continue;
                }
                out.push_str("sqrt");
            }
            _ => {
                out.push(c);
                let glued = c.is_ascii_digit()
                    && !chars
                        .get(i + 1)
                        .is_some_and(|n| n.is_ascii_digit() || *n == '.');
                if glued && let Some((len, word)) = suffix_at(&chars, i + 1) {
                    out.push(' ');
                    out.push_str(word);
                    i += 1 + len;
                    continue;
                }
            }
        }
        i += 1;
    }
    out
}

/// The end of a plain number starting at `start` (digits, `.`, `,`).
fn number_end(chars: &[char], start: usize) -> usize {
    let mut end = start;
    while chars
        .get(end)
        .is_some_and(|c| c.is_ascii_digit() || *c == '.' || *c == ',')
    {
        end += 1;
    }
    // A trailing separator belongs to what follows.
    while end > start && matches!(chars[end - 1], '.' | ',') {
        end -= 1;
    }
    end
}

/// A scale suffix at `at` that ends a word: its length and word.
fn suffix_at(chars: &[char], at: usize) -> Option<(usize, &'static str)> {
    SUFFIXES.iter().find_map(|(suffix, word)| {
        let len = suffix.chars().count();
        let matches = suffix
            .chars()
            .enumerate()
            .all(|(k, s)| chars.get(at + k) == Some(&s));
        let ends = !chars
            .get(at + len)
            .is_some_and(|c| c.is_alphanumeric() || *c == '_');
        (matches && ends).then_some((len, *word))
    })
}

fn is_operand_end(token: Option<&Token>) -> bool {
    matches!(token, Some(Token::Num(_) | Token::RParen))
}

fn is_operand_start(token: Option<&Token>) -> bool {
    matches!(token, Some(Token::Num(_) | Token::LParen))
}

fn scale_of(name: &str) -> Option<i128> {
    SCALES
        .iter()
        .find_map(|(word, scale)| (*word == name).then_some(*scale))
}

/// Whether `name` (not followed by `(`) is a unit: a word the calculator
/// does not know, after a number.
fn is_unit(name: &str, next: Option<&Token>) -> bool {
    next != Some(&Token::LParen)
        && !is_known_name(name)
        && scale_of(name).is_none()
        && !scale_like(name)
}

/// Words that start a rounding phrase: English, and the Romance and
/// Germanic forms a model may copy from the question.
const ROUND_WORDS: [&str; 12] = [
    "round",
    "rounded",
    "rounding",
    "arrotonda",
    "arrotondato",
    "redondea",
    "redondeado",
    "arrondi",
    "arrondir",
    "gerundet",
    "runde",
    "afgerond",
];

/// Words between a rounding word and its number (`to`, `a`, `auf`…).
const ROUND_TO: [&str; 6] = ["to", "a", "al", "à", "auf", "op"];

/// Words after the count that make it significant figures, not decimals.
const SIGNIFICANT: [&str; 5] = ["significant", "sig", "figures", "cifre", "signifikante"];

/// The numbers of decimals a rounding phrase may spell out, by value.
const DECIMALS_IN_WORDS: [&str; 5] = ["zero", "one", "two", "three", "four"];

/// Most decimals a rounding phrase may ask for.
const MAX_ROUND_DECIMALS: i128 = 12;

/// `tokens` with a rounding phrase at their end (`<expr> rounded to <n>
/// decimal places`) written as `round(<expr>, <n>)`; `None` when they end
/// in none. The phrase's last words (`decimal places`, `decimali`, `dp`)
/// are any words: the number of decimals is what counts.
fn rounded_in_words(tokens: &[Token]) -> Option<Vec<Token>> {
    let at = tokens
        .iter()
        .rposition(|t| matches!(t, Token::Ident(w) if ROUND_WORDS.contains(&w.as_str())))?;
    let mut k = at + 1;
    while matches!(tokens.get(k), Some(Token::Ident(w)) if ROUND_TO.contains(&w.as_str())) {
        k += 1;
    }
    let decimals = match tokens.get(k) {
        Some(Token::Num(Number::Int(n))) => *n,
        Some(Token::Ident(word)) => DECIMALS_IN_WORDS
            .iter()
            .position(|w| w == word)
            .and_then(|n| i128::try_from(n).ok())?,
        _ => return None,
    };
    let words_after = tokens[k + 1..]
        .iter()
        .all(|t| matches!(t, Token::Ident(w) if !SIGNIFICANT.iter().any(|s| w.starts_with(s))));
    let mut end = at;
    if end > 0 && tokens[end - 1] == Token::Comma {
        end -= 1;
    }
    if !words_after || !(0..=MAX_ROUND_DECIMALS).contains(&decimals) || end == 0 {
        return None;
    }
    let mut out = Vec::with_capacity(end + 5);
    out.push(Token::Ident("round".into()));
    out.push(Token::LParen);
    out.extend_from_slice(&tokens[..end]);
    out.push(Token::Comma);
    out.push(Token::Num(Number::Int(decimals)));
    out.push(Token::RParen);
    Some(out)
}

/// `tokens` read as plain arithmetic, and whether anything was rewritten.
pub(super) fn plain(tokens: Vec<Token>) -> Result<(Vec<Token>, bool), CalcError> {
    let (tokens, mut changed) = match rounded_in_words(&tokens) {
        Some(rounded) => (rounded, true),
        None => (tokens, false),
    };
    let mut out: Vec<Token> = Vec::with_capacity(tokens.len() + 4);
    let mut i = 0;
    while i < tokens.len() {
        let next = tokens.get(i + 1);
        match &tokens[i] {
            Token::Ident(name) if is_operand_end(out.last()) => {
                if let Some(scale) = scale_of(name) {
                    // `<n> million`: `(<n> * 1000000)`.
                    wrap_last(&mut out, Token::Star, Number::Int(scale));
                    changed = true;
                } else if name == "x" && is_operand_start(next) {
                    out.push(Token::Star);
                    changed = true;
                } else if matches!(name.as_str(), "mod" | "modulo") && is_operand_start(next) {
                    out.push(Token::Percent);
                    changed = true;
                } else if is_unit(name, next) {
                    changed = true;
                    // A unit per another: `km/s`, `km/h`.
                    if next == Some(&Token::Slash)
                        && let Some(Token::Ident(per)) = tokens.get(i + 2)
                        && is_unit(per, tokens.get(i + 3))
                    {
                        i += 2;
                    }
                } else {
                    out.push(tokens[i].clone());
                }
            }
            Token::Percent
                if next.is_none()
                    && out.len() >= 2
                    && out[out.len() - 1] == Token::Num(Number::Int(100))
                    && out[out.len() - 2] == Token::Star =>
            {
                // `… * 100%`: a share written as a percentage; the `%`
                // only says so.
                changed = true;
            }
            Token::Percent if matches!(out.last(), Some(Token::Num(_))) => {
                let of = matches!(next, Some(Token::Ident(w)) if PERCENT_OF.contains(&w.as_str()));
                let ends_operand = of
                    || matches!(
                        next,
                        None | Some(Token::RParen | Token::Comma | Token::Star | Token::Slash)
                    );
                if !ends_operand {
                    // `<a> % <b>`: the remainder.
                    out.push(Token::Percent);
                } else if after_sum_of_more_than_one(&out) {
                    return Err(CalcError::Syntax(
                        "`<a> + <b>%` and `<a> - <b>%` are ambiguous: for <b> percent of <a> write <a> * <b> / 100; for <a> increased or decreased by <b> percent write <a> * (1 + <b> / 100) or <a> * (1 - <b> / 100)".into(),
                    ));
                } else {
                    wrap_last(&mut out, Token::Slash, Number::Int(100));
                    if of {
                        out.push(Token::Star);
                        i += 1;
                    }
                    changed = true;
                }
            }
            token => out.push(token.clone()),
        }
        i += 1;
    }
    Ok((out, changed))
}

/// The word for "of" after a percentage (`<n>% of <m>`), in English and
/// as the question's language writes it (`de`, `von`, `di`, `van`, `z`,
/// `из`).
const PERCENT_OF: [&str; 20] = [
    "of", "de", "del", "des", "du", "von", "vom", "di", "da", "do", "dos", "das", "van", "av",
    "af", "z", "ze", "od", "из", "от",
];

/// Whether the number ending `out` is added to or taken from something
/// other than a lone `1`: then `<n>%` reads two ways. (`1 + <n>%`, a
/// growth factor, reads one way: `<n>` percent of 1 is `<n> / 100`.)
fn after_sum_of_more_than_one(out: &[Token]) -> bool {
    let Some(k) = out.len().checked_sub(2) else {
        return false;
    };
    if !matches!(out[k], Token::Plus | Token::Minus) || k == 0 {
        return false;
    }
    let lone_one = out[k - 1] == Token::Num(Number::Int(1))
        && (k == 1 || matches!(out[k - 2], Token::LParen | Token::Plus | Token::Minus));
    !lone_one
}

/// Replaces the last operand `<v>` of `out` with `(<v> <op> <by>)`.
fn wrap_last(out: &mut Vec<Token>, op: Token, by: Number) {
    let start = match out.last() {
        Some(Token::RParen) => {
            let mut depth = 0usize;
            let mut k = out.len();
            while k > 0 {
                k -= 1;
                match out[k] {
                    Token::RParen => depth += 1,
                    Token::LParen => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    _ => {}
                }
            }
            // A function call's name belongs to the operand.
            if k > 0 && matches!(out[k - 1], Token::Ident(_)) {
                k - 1
            } else {
                k
            }
        }
        _ => out.len().saturating_sub(1),
    };
    out.insert(start, Token::LParen);
    out.push(op);
    out.push(Token::Num(by));
    out.push(Token::RParen);
}

/// `tokens` written back as an expression.
pub(super) fn render(tokens: &[Token]) -> String {
    let mut out = String::new();
    for (i, token) in tokens.iter().enumerate() {
        let text = match token {
            Token::Num(n) => n.to_string(),
            Token::Ident(name) => name.clone(),
            Token::Plus => " + ".into(),
            Token::Minus => {
                // A sign sticks to its operand.
                let binary = i > 0 && is_operand_end(tokens.get(i - 1));
                if binary { " - ".into() } else { "-".into() }
            }
            Token::Star => " * ".into(),
            Token::Slash => " / ".into(),
            Token::SlashSlash => " // ".into(),
            Token::Percent => " % ".into(),
            Token::Pow => " ** ".into(),
            Token::LParen => "(".into(),
            Token::RParen => ")".into(),
            Token::Comma => ", ".into(),
        };
        out.push_str(&text);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::calculator::evaluate_as_written;

    /// The value and the plain expression it was read as.
    fn read(input: &str) -> (String, Option<String>) {
        let (value, read_as) = evaluate_as_written(input).unwrap();
        (value.to_string(), read_as)
    }

    fn value(input: &str) -> String {
        read(input).0
    }

    fn error(input: &str) -> String {
        evaluate_as_written(input).unwrap_err().to_string()
    }

    #[test]
    fn units_after_numbers_are_dropped() {
        assert_eq!(
            read("385 km / 3.5 hours"),
            ("110".into(), Some("385 / 3.5".into()))
        );
        assert_eq!(value("384400 km / 299792.458 km/s"), "1.28222038194");
        assert_eq!(value("8849 m / 330 m"), "26.8151515152");
        assert_eq!(value("384400 公里 / 2"), "192200");
        assert_eq!(value("round(385 km / 3.5 h, 2)"), "110");
        // Plain arithmetic is read as it is.
        assert_eq!(read("(125 - 47) * 6"), ("468".into(), None));
        // A name that does not follow a number stands for one not looked up.
        assert!(error("mean(latency)").contains("unknown name `latency`"));
        assert!(error("replicas * 3").contains("unknown name `replicas`"));
        // A known name after a number is not a unit.
        assert!(error("2 pi").contains("after a complete expression"));
    }

    #[test]
    fn scale_words_and_suffixes_multiply() {
        assert_eq!(value("3.8 million + 2.1 million"), "5900000");
        assert_eq!(value("3.8M + 2.1M"), "5900000");
        assert_eq!(value("2B / 4"), "500000000");
        assert_eq!(value("12k * 2"), "24000");
        assert_eq!(value("2.1 Millionen"), "2100000");
        assert_eq!(value("1400万 * 2"), "28000000");
        assert_eq!(value("84 млн - 68 млн"), "16000000");
        // A lower-case `m` glued to a number is metres, not millions.
        assert_eq!(value("330m * 25"), "8250");
        // A scale the table lacks is refused, never dropped as a unit.
        assert!(error("3 billón").contains("billón"));
        assert!(error("5 миллиардов").contains("миллиардов"));
    }

    #[test]
    fn percentages_are_read_where_they_read_one_way() {
        assert_eq!(
            read("15% of 840"),
            ("126".into(), Some("(15 / 100) * 840".into()))
        );
        assert_eq!(value("18% * 2450"), "441");
        assert_eq!(value("2450 * 18%"), "441");
        assert_eq!(value("(16932-13600)/13600*100%"), "24.5");
        assert_eq!(value("5000 * (1 + 4%)**6"), "6326.59509248");
        assert_eq!(value("1 - 4%"), "0.96");
        // The remainder stays the remainder.
        assert_eq!(value("17 % 5"), "2");
        // Two readings: refused, with both ways to write it.
        let ambiguous = error("100 - 20%");
        assert!(ambiguous.contains("ambiguous"), "{ambiguous}");
        assert!(ambiguous.contains("<a> * (1 - <b> / 100)"), "{ambiguous}");
        assert!(error("2 * 1 + 4%").contains("ambiguous"));
    }

    #[test]
    fn times_currency_and_roots() {
        assert_eq!(value("2450 x 0.18"), "441");
        assert_eq!(value("$4.75 * 3 + $1.30 * 2"), "16.85");
        assert_eq!(value("€12 + £3 + ¥5"), "20");
        assert_eq!(read("√50").1.as_deref(), Some("sqrt(50)"));
        assert_eq!(value("√(49)"), "7");
        assert_eq!(value("3 × 4"), "12");
        // `x` as a name is still one.
        assert!(error("x + 1").contains("unknown name `x`"));
    }

    #[test]
    fn rounding_in_words_at_the_end_is_round() {
        assert_eq!(
            value("1250.75 * 4 / 3 rounded to 2 decimal places"),
            "1667.67"
        );
        assert_eq!(
            value("1.250,75 * 4 / 3 rounded to 2 decimal places"),
            "1667.67"
        );
        assert_eq!(value("100 / 7, round to 1 decimal"), "14.3");
        assert_eq!(value("2 / 3 arrotondato a 3 decimali"), "0.667");
        assert_eq!(
            read("10 / 4 rounded to 0 places").1.as_deref(),
            Some("round(10 / 4, 0)")
        );
        assert_eq!(value("5 / 3 rounded to two decimals"), "1.67");
        // Rounded up, or to significant figures, is not this.
        assert!(error("10 / 3 rounded up to 1 decimal").contains("after a complete expression"));
        assert!(
            error("299792458 / 384400 rounded to 3 significant figures")
                .contains("after a complete expression")
        );
        // Not a phrase after an expression: still an error.
        assert!(error("rounded to 2 decimal places").contains("unknown name"));
    }

    #[test]
    fn digits_after_a_comma_at_the_end_are_shown_as_round() {
        let told = error("384400 / 299792458, 2");
        assert!(
            told.ends_with("; to round, write round(384400 / 299792458, 2)"),
            "{told}"
        );
        // Anything else after a comma is still one expression too many.
        assert!(error("3, 400").contains("write one expression"));
        assert!(error("10 / 4, 2, 3").contains("write one expression"));
    }

    #[test]
    fn mod_between_numbers_is_the_remainder() {
        assert_eq!(value("12345 mod 97"), "26");
        assert_eq!(value("(100 + 5) MODULO 7"), "0");
        assert_eq!(read("17 mod 5").1.as_deref(), Some("17 % 5"));
        // Not between two numbers it is no operator.
        assert!(error("mod 5").contains("unknown name `mod`"));
    }
}
