//! Arithmetic a model claims in its own words (`2,100,000 + 3,800,000 =
//! 8,900,000`), and whether it holds. Small models add in their head and
//! get sums wrong; a final answer built on a false claim is sent back
//! once, naming the claim, so the model computes it with a tool; a
//! call that uses a number worked out that way is shown the arithmetic
//! to compute in its place.
//!
//! Only plain arithmetic is read: numbers (with thousands separators),
//! `+ - * / × x` and parentheses, before an `=` and a number. A unit of
//! one to three letters written onto a number (`512Mi`, `40ms`) and a
//! currency sign before one (`$4.75`) are read past. Anything else
//! (names, functions, words inside the expression) is not a claim.

/// A claim that does not hold: `expression` (as the model wrote it) is
/// not `claimed`.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct FalseClaim {
    pub(super) expression: String,
    pub(super) claimed: String,
}

impl FalseClaim {
    /// The claim as one text, to remember it by.
    pub(super) fn key(&self) -> String {
        format!("{} = {}", self.expression, self.claimed)
    }
}

/// The claims of `text` that are false, in order, each once.
pub(super) fn false_claims(text: &str) -> Vec<FalseClaim> {
    let mut out: Vec<FalseClaim> = Vec::new();
    for claim in claims(text) {
        let tolerance = (claim.value.abs() * 0.005).max(0.5 * 10f64.powi(-claim.decimals));
        let false_claim = FalseClaim {
            expression: claim.expression,
            claimed: claim.claimed,
        };
        if (claim.value - claim.claimed_value).abs() > tolerance && !out.contains(&false_claim) {
            out.push(false_claim);
        }
    }
    out
}

/// The arithmetic `text` last claims gives `value`, whether it does or
/// not, written as a calculator reads it (`3,800,000 + 2 × 5` becomes
/// `3800000 + 2 * 5`): how the model worked that number out in its head.
pub(super) fn worked_out(text: &str, value: f64) -> Option<String> {
    let claim = claims(text)
        .into_iter()
        .rev()
        .find(|claim| (claim.claimed_value - value).abs() <= value.abs() * 1e-12)?;
    Some(calculator_form(&claim.expression))
}

/// A claim's arithmetic as a calculator reads it: no thousands
/// separators (the only commas a claim's arithmetic holds), `*` for `×`
/// and `x`.
pub(super) fn calculator_form(expression: &str) -> String {
    expression
        .chars()
        .filter(|c| *c != ',')
        .map(|c| if matches!(c, '×' | 'x') { '*' } else { c })
        .collect()
}

/// One `expression = number` of a text: the expression as written and
/// its value, the number as written, its value and its decimals.
struct Claim {
    expression: String,
    value: f64,
    claimed: String,
    claimed_value: f64,
    decimals: i32,
}

/// Every claim of `text`, in order.
fn claims(text: &str) -> Vec<Claim> {
    let chars = without_units(text);
    let mut out = Vec::new();
    for (at, c) in chars.iter().enumerate() {
        if *c != '=' {
            continue;
        }
        let Some((expression, value)) = expression_before(&chars[..at]) else {
            continue;
        };
        let Some((claimed, claimed_value, decimals)) = number_after(&chars[at + 1..]) else {
            continue;
        };
        out.push(Claim {
            expression,
            value,
            claimed,
            claimed_value,
            decimals,
        });
    }
    out
}

/// The characters of `text` without the units written onto its numbers:
/// one to three ASCII letters right after a digit and before a character
/// that is neither a letter nor a digit (`512Mi`, `40ms`; not the `x` of
/// `3x4`, and not a lone `x`, which multiplies), and a currency sign
/// right before a digit.
fn without_units(text: &str) -> Vec<char> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::with_capacity(chars.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if matches!(c, '$' | '€' | '£' | '¥') && chars.get(i + 1).is_some_and(char::is_ascii_digit)
        {
            i += 1;
            continue;
        }
        out.push(c);
        i += 1;
        if !c.is_ascii_digit() {
            continue;
        }
        let letters = chars[i..]
            .iter()
            .take_while(|l| l.is_ascii_alphabetic())
            .count();
        let ends = chars.get(i + letters).is_none_or(|n| !n.is_alphanumeric());
        let lone_x = letters == 1 && chars[i] == 'x';
        if (1..=3).contains(&letters) && ends && !lone_x {
            i += letters;
        }
    }
    out
}

/// The arithmetic right before an `=`, as written and as its value: the
/// longest run of arithmetic characters, which must hold an operator
/// between two numbers.
fn expression_before(before: &[char]) -> Option<(String, f64)> {
    let start = before
        .iter()
        .rposition(|c| !is_arithmetic(*c))
        .map_or(0, |i| i + 1);
    let written: String = before[start..].iter().collect();
    let written = written
        .trim()
        .trim_start_matches(|c: char| !(c.is_ascii_digit() || c == '('))
        .to_string();
    let tokens = tokens(&written)?;
    let has_operator = tokens.windows(2).any(|pair| {
        matches!(
            pair,
            [Token::Number(_), Token::Op(_)] | [Token::Close, Token::Op(_)]
        )
    });
    if !has_operator {
        return None;
    }
    let mut parser = Parser { tokens, at: 0 };
    let value = parser.sum()?;
    (parser.at == parser.tokens.len() && value.is_finite()).then_some((written, value))
}

fn is_arithmetic(c: char) -> bool {
    c.is_ascii_digit()
        || matches!(
            c,
            ' ' | ',' | '.' | '+' | '-' | '*' | '/' | '×' | 'x' | '(' | ')'
        )
}

/// The number right after an `=`: as written, its value and its number
/// of decimals.
fn number_after(after: &[char]) -> Option<(String, f64, i32)> {
    let text: String = after.iter().take(40).collect();
    let text = text.trim_start();
    let (sign, text) = match text.strip_prefix('-') {
        Some(rest) => (-1.0, rest),
        None => (1.0, text),
    };
    let digits: String = text
        .chars()
        .take_while(|c| c.is_ascii_digit() || matches!(c, ',' | '.'))
        .collect();
    let digits = digits.trim_end_matches(['.', ',']);
    if digits.is_empty() {
        return None;
    }
    let value = sign * plain(digits)?;
    let decimals = digits
        .split_once('.')
        .map_or(0, |(_, fraction)| fraction.len() as i32);
    let written = if sign < 0.0 {
        format!("-{digits}")
    } else {
        digits.to_string()
    };
    Some((written, value, decimals))
}

/// The value of a number written with `,` between groups of three.
fn plain(written: &str) -> Option<f64> {
    let (whole, fraction) = written.split_once('.').unwrap_or((written, ""));
    let mut groups = whole.split(',');
    let first = groups.next()?;
    if first.is_empty() || (whole.contains(',') && first.len() > 3) {
        return None;
    }
    if !groups.all(|g| g.len() == 3) {
        return None;
    }
    format!("{}.{fraction}", whole.replace(',', ""))
        .trim_end_matches('.')
        .parse()
        .ok()
}

/// Whether `expression` (plain arithmetic) takes one number from another:
/// a `-` after a number or a closing bracket, not a sign.
pub(super) fn subtracts(expression: &str) -> bool {
    tokens(expression).is_some_and(|tokens| {
        tokens
            .windows(2)
            .any(|pair| matches!(pair, [Token::Number(_) | Token::Close, Token::Op('-')]))
    })
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Token {
    Number(f64),
    Op(char),
    Open,
    Close,
}

fn tokens(written: &str) -> Option<Vec<Token>> {
    let chars: Vec<char> = written.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_ascii_digit() || c == '.' {
            let start = i;
            while i < chars.len()
                && (chars[i].is_ascii_digit()
                    || chars[i] == '.'
                    || (chars[i] == ',' && chars.get(i + 1).is_some_and(char::is_ascii_digit)))
            {
                i += 1;
            }
            let number: String = chars[start..i].iter().collect();
            out.push(Token::Number(plain(&number)?));
            continue;
        }
        match c {
            ' ' => {}
            '+' | '-' | '*' | '/' => out.push(Token::Op(c)),
            '×' | 'x' => out.push(Token::Op('*')),
            '(' => out.push(Token::Open),
            ')' => out.push(Token::Close),
            _ => return None,
        }
        i += 1;
    }
    Some(out)
}

/// A recursive-descent reader of sums of products, with parentheses.
struct Parser {
    tokens: Vec<Token>,
    at: usize,
}

impl Parser {
    fn sum(&mut self) -> Option<f64> {
        self.chain(['+', '-'], Self::product)
    }

    fn product(&mut self) -> Option<f64> {
        self.chain(['*', '/'], Self::atom)
    }

    /// `operand (op operand)*` for the two operators of one precedence
    /// level, left to right.
    fn chain(&mut self, ops: [char; 2], operand: fn(&mut Self) -> Option<f64>) -> Option<f64> {
        let mut value = operand(self)?;
        while let Some(Token::Op(op)) = self.tokens.get(self.at).copied()
            && ops.contains(&op)
        {
            self.at += 1;
            let right = operand(self)?;
            value = match op {
                '+' => value + right,
                '-' => value - right,
                '*' => value * right,
                _ => value / right,
            };
        }
        Some(value)
    }

    fn atom(&mut self) -> Option<f64> {
        let token = self.tokens.get(self.at).copied()?;
        self.at += 1;
        match token {
            Token::Number(n) => Some(n),
            Token::Op('-') => self.atom().map(|v| -v),
            Token::Open => {
                let value = self.sum()?;
                (self.tokens.get(self.at) == Some(&Token::Close)).then(|| {
                    self.at += 1;
                    value
                })
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn claims(text: &str) -> Vec<(String, String)> {
        false_claims(text)
            .into_iter()
            .map(|c| (c.expression, c.claimed))
            .collect()
    }

    #[test]
    fn a_wrong_sum_is_found_and_a_right_one_is_not() {
        let text = "The sum is 2,100,000 + 3,800,000 + 14,000,000 + 2,750,000 = 8,900,000. \
                    The average is 8,900,000 / 4 = 2,225,000.";
        assert_eq!(
            claims(text),
            [(
                "2,100,000 + 3,800,000 + 14,000,000 + 2,750,000".to_string(),
                "8,900,000".to_string()
            )]
        );
        assert!(claims("(212 + 198 + 240) / 3 = 216.67 ms").is_empty());
        assert!(claims("so 14 / 124 * 100 = 11.29%").is_empty());
        assert!(claims("2 × 3 = 6, and 10 - 4 = 6").is_empty());
        assert!(claims("3 - 5 = -2").is_empty());
        assert_eq!(claims("3 - 5 = 2"), [("3 - 5".into(), "2".into())]);
        assert_eq!(
            claims("1024 + 768 + 2048 = 2816"),
            [("1024 + 768 + 2048".into(), "2816".into())]
        );
    }

    #[test]
    fn units_written_onto_numbers_are_read_past() {
        assert_eq!(
            claims("The sum is 512Mi + 768Mi + 2048Mi = 4384Mi."),
            [("512 + 768 + 2048".into(), "4384".into())]
        );
        assert!(claims("512Mi + 768Mi + 2048Mi = 3328Mi").is_empty());
        assert!(claims("$4.75 × 3 + $1.30 × 2 = $16.85").is_empty());
        assert_eq!(
            claims("3 × $4.75 = $15.25"),
            [("3 × 4.75".into(), "15.25".into())]
        );
        assert!(claims("(212ms + 198ms) / 2 = 205ms").is_empty());
        // Not units: a multiplying x, a word, a unit with digits after it.
        assert_eq!(claims("3x4 = 13"), [("3x4".into(), "13".into())]);
        assert!(claims("2 people + 3 people = 6 people").is_empty());
        assert!(claims("2x = 10").is_empty());
    }

    #[test]
    fn what_is_not_plain_arithmetic_is_no_claim() {
        assert!(claims("x = 5").is_empty());
        assert!(claims("mean(212,198) = 300").is_empty());
        assert!(claims("version = 2").is_empty());
        assert!(claims("a == b").is_empty());
        assert!(claims("12 = 13").is_empty());
        assert!(claims("the result of 7 / 0 = 1").is_empty());
        // A rounded result holds.
        assert!(claims("10 / 3 = 3.33").is_empty());
        assert!(claims("22,650,000 / 4 = 5,662,500").is_empty());
    }
}
