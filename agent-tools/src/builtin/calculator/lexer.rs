//! The lexer: an expression's text to [`Token`]s, with thousands
//! separators, `math.` prefixes, `=`/`?` endings and the usual symbols
//! for times, divide and minus read as people write them.

use super::functions::LIST_FUNCTIONS;
use super::{CalcError, Number};

/// One token of an expression.
#[derive(Debug, Clone, PartialEq)]
pub(in crate::builtin) enum Token {
    Num(Number),
    Ident(String),
    Plus,
    Minus,
    Star,
    Slash,
    SlashSlash,
    Percent,
    Pow,
    LParen,
    RParen,
    Comma,
}

pub(super) fn describe(token: &Token) -> String {
    match token {
        Token::Num(n) => format!("number {n}"),
        Token::Ident(name) => format!("`{name}`"),
        Token::Plus => "`+`".into(),
        Token::Minus => "`-`".into(),
        Token::Star => "`*`".into(),
        Token::Slash => "`/`".into(),
        Token::SlashSlash => "`//`".into(),
        Token::Percent => "`%`".into(),
        Token::Pow => "`**`".into(),
        Token::LParen => "`(`".into(),
        Token::RParen => "`)`".into(),
        Token::Comma => "`,`".into(),
    }
}

/// Whether a thousands group starts at `i`: a comma, exactly three
/// digits, and no digit after them.
fn thousands_group_at(chars: &[char], i: usize) -> bool {
    chars.get(i) == Some(&',')
        && (1..=3).all(|k| chars.get(i + k).is_some_and(char::is_ascii_digit))
        && !chars.get(i + 4).is_some_and(char::is_ascii_digit)
}

pub(super) fn tokenize(input: &str) -> Result<Vec<Token>, CalcError> {
    let chars: Vec<char> = input.chars().collect();
    let mut tokens = Vec::new();
    // For each open parenthesis: whether it holds a function's arguments,
    // and whether that function takes a list of numbers.
    let mut calls: Vec<Option<bool>> = Vec::new();
    // Whether arguments are written `a, b`: then `1,234,567` in a call is
    // one number. Without such a comma, a function that takes a list reads
    // every comma as a separator (`mean(212,198,240)` is a mean of three
    // numbers, as in any programming language; the mean of one number
    // would be pointless).
    let spaced_commas = chars
        .windows(2)
        .any(|pair| pair[0] == ',' && pair[1].is_whitespace());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        match c {
            c if c.is_whitespace() => i += 1,
            '0'..='9' | '.' => {
                let start = i;
                // Thousands separators (`3,800,000`) are read as such, but
                // inside a function's parentheses a single group is a
                // second argument, as Python reads `max(1,200)`.
                let call = calls.last().copied().flatten();
                let in_call = call.is_some();
                let list_separators = call == Some(true) && !spaced_commas;
                let mut groups = 0usize;
                while i < chars.len()
                    && (chars[i].is_ascii_digit() || chars[i] == '.' || chars[i] == '_')
                {
                    i += 1;
                    if !list_separators
                        && !chars[start..i].contains(&'.')
                        && thousands_group_at(&chars, i)
                        && (!in_call || groups > 0 || thousands_group_at(&chars, i + 4))
                    {
                        groups += 1;
                        i += 1;
                    }
                }
                if i < chars.len() && (chars[i] == 'e' || chars[i] == 'E') {
                    let mut j = i + 1;
                    if j < chars.len() && (chars[j] == '+' || chars[j] == '-') {
                        j += 1;
                    }
                    if j < chars.len() && chars[j].is_ascii_digit() {
                        i = j;
                        while i < chars.len() && chars[i].is_ascii_digit() {
                            i += 1;
                        }
                    }
                }
                let text: String = chars[start..i]
                    .iter()
                    .filter(|c| **c != '_' && **c != ',')
                    .collect();
                tokens.push(Token::Num(parse_number(&text)?));
            }
            c if c.is_alphabetic() || c == '_' => {
                let start = i;
                while i < chars.len()
                    && (chars[i].is_alphanumeric() || chars[i] == '_' || chars[i] == '.')
                {
                    i += 1;
                }
                let name: String = chars[start..i].iter().collect::<String>().to_lowercase();
                let name = name.strip_prefix("math.").unwrap_or(&name).to_string();
                tokens.push(Token::Ident(name));
            }
            '+' => {
                tokens.push(Token::Plus);
                i += 1;
            }
            '-' | '−' => {
                tokens.push(Token::Minus);
                i += 1;
            }
            '*' if next == Some('*') => {
                tokens.push(Token::Pow);
                i += 2;
            }
            '*' | '×' | '·' => {
                tokens.push(Token::Star);
                i += 1;
            }
            '/' if next == Some('/') => {
                tokens.push(Token::SlashSlash);
                i += 2;
            }
            '/' | '÷' => {
                tokens.push(Token::Slash);
                i += 1;
            }
            '%' => {
                tokens.push(Token::Percent);
                i += 1;
            }
            '^' => {
                tokens.push(Token::Pow);
                i += 1;
            }
            '(' | '[' => {
                calls.push(match tokens.last() {
                    Some(Token::Ident(name)) => Some(LIST_FUNCTIONS.contains(&name.as_str())),
                    _ => None,
                });
                tokens.push(Token::LParen);
                i += 1;
            }
            ')' | ']' => {
                calls.pop();
                tokens.push(Token::RParen);
                i += 1;
            }
            ',' => {
                tokens.push(Token::Comma);
                i += 1;
            }
            '=' if chars[i + 1..]
                .iter()
                .all(|c| c.is_whitespace() || *c == '?') =>
            {
                break;
            }
            '?' if chars[i + 1..].iter().all(|c| c.is_whitespace()) => break,
            other => {
                return Err(CalcError::Syntax(format!(
                    "unexpected character `{other}` at position {}",
                    i + 1
                )));
            }
        }
    }
    Ok(tokens)
}

fn parse_number(text: &str) -> Result<Number, CalcError> {
    let bad = || CalcError::Syntax(format!("`{text}` is not a number"));
    if text.chars().all(|c| c.is_ascii_digit()) {
        return Ok(match text.parse::<i128>() {
            Ok(i) => Number::Int(i),
            Err(_) => Number::checked_float(text.parse::<f64>().map_err(|_| bad())?)?,
        });
    }
    if text == "." || text.matches('.').count() > 1 {
        return Err(bad());
    }
    Number::checked_float(text.parse::<f64>().map_err(|_| bad())?)
}
