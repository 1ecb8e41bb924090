//! `calculator`: a safe arithmetic evaluator. It never calls an `eval`.
//! Integers are exact (`i128`) while the result fits; otherwise floats.
//! Input length, nesting depth, exponents and magnitudes are bounded, so
//! any input ends quickly with a value or a clear error.
//!
//! Conventions (Python's): `**` is right-associative and binds tighter
//! than unary minus, so `2**3**2 = 512` and `-2**2 = -4`; `^` means `**`;
//! `%` takes the sign of the divisor; `//` is floor division; `/` is exact
//! for divisible integers (`6/3 = 2`) and a float otherwise (`7/2 = 3.5`).

use agent_core::{Tool, ToolError, ToolOutput};
use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use super::written;
use crate::schema::{schema_for, without_property_descriptions};

/// Longest expression accepted, in characters.
pub const MAX_EXPRESSION_CHARS: usize = 2_000;
/// Deepest nesting of parentheses, unary signs and calls.
pub const MAX_DEPTH: usize = 64;
/// Largest exponent magnitude.
pub const MAX_EXPONENT: f64 = 10_000.0;
/// Largest result magnitude.
pub const MAX_MAGNITUDE: f64 = 1e300;

/// Why an expression has no value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CalcError {
    /// The text is not an expression.
    #[error("{0}")]
    Syntax(String),
    /// The expression is well formed but has no finite value.
    #[error("{0}")]
    Math(String),
    /// The expression is too large to evaluate.
    #[error("{0}")]
    Limit(String),
}

/// A number: exact integer or float.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Number {
    /// Exact integer.
    Int(i128),
    /// Floating point.
    Float(f64),
}

impl Number {
    fn as_f64(self) -> f64 {
        match self {
            Number::Int(i) => i as f64,
            Number::Float(f) => f,
        }
    }

    fn checked_float(f: f64) -> Result<Number, CalcError> {
        if f.is_nan() {
            Err(CalcError::Math("the result is not a real number".into()))
        } else if !f.is_finite() || f.abs() > MAX_MAGNITUDE {
            Err(CalcError::Math("the result is too large".into()))
        } else {
            Ok(Number::Float(f))
        }
    }
}

impl std::fmt::Display for Number {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            Number::Int(i) => write!(f, "{i}"),
            Number::Float(x) => f.write_str(&format_float(x)),
        }
    }
}

/// A large number read out (`16 million`, `about 1.235 billion`): small
/// models miscount zeros, and copy this instead. `None` below a million,
/// and from a thousand quadrillion up, where no name helps (`13280308502755
/// quadrillion` only lengthens a runaway product).
pub fn in_words(value: Number) -> Option<String> {
    const SCALES: [(f64, &str); 4] = [
        (1e15, "quadrillion"),
        (1e12, "trillion"),
        (1e9, "billion"),
        (1e6, "million"),
    ];
    let x = value.as_f64();
    if x.abs() >= 1e18 {
        return None;
    }
    let (scale, name) = SCALES.iter().find(|(scale, _)| x.abs() >= *scale)?;
    let scaled = x / scale;
    let rounded = (scaled * 1000.0).round() / 1000.0;
    let exact = (rounded * scale - x).abs() < 0.5;
    let digits = format!("{rounded:.3}");
    let digits = digits.trim_end_matches('0').trim_end_matches('.');
    let about = if exact { "" } else { "about " };
    Some(format!("{about}{digits} {name}"))
}

/// A result with more than two decimals, rounded to two (`to 2 decimals:
/// 6326.60`): small models truncate instead of rounding. `None` for whole
/// numbers, short decimals, values under one hundredth, and values past
/// the digits a float holds (written with an exponent), whose cents are
/// noise.
pub fn to_cents(value: Number) -> Option<String> {
    let Number::Float(x) = value else {
        return None;
    };
    let decimals = format_float(x)
        .split_once('.')
        .map_or(0, |(_, fraction)| fraction.len());
    // Half away from zero, as people round money (`{:.2}` alone rounds
    // half to even).
    let rounded = (x * 100.0).round() / 100.0;
    (decimals > 2 && (0.01..1e15).contains(&x.abs()))
        .then(|| format!("to 2 decimals: {rounded:.2}"))
}

/// Floats with 12 significant digits, trailing zeros trimmed.
fn format_float(x: f64) -> String {
    if x == 0.0 {
        return "0".into();
    }
    if x.fract() == 0.0 && x.abs() < 1e15 {
        return format!("{}", x as i64);
    }
    let magnitude = x.abs().log10().floor() as i32;
    if (-5..15).contains(&magnitude) {
        let decimals = (11 - magnitude).clamp(0, 17) as usize;
        let s = format!("{x:.decimals$}");
        let s = if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        };
        if s == "-0" { "0".into() } else { s }
    } else {
        format!("{x:.11e}")
            .replace(".00000000000e", "e")
            .trim_end_matches('0')
            .to_string()
    }
}

/// One token of an expression.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Token {
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

fn describe(token: &Token) -> String {
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

/// The functions that take a list of numbers.
const LIST_FUNCTIONS: [&str; 6] = ["min", "max", "sum", "mean", "avg", "average"];

/// Whether a thousands group starts at `i`: a comma, exactly three
/// digits, and no digit after them.
fn thousands_group_at(chars: &[char], i: usize) -> bool {
    chars.get(i) == Some(&',')
        && (1..=3).all(|k| chars.get(i + k).is_some_and(char::is_ascii_digit))
        && !chars.get(i + 4).is_some_and(char::is_ascii_digit)
}

fn tokenize(input: &str) -> Result<Vec<Token>, CalcError> {
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

struct Parser {
    tokens: Vec<Token>,
    pos: usize,
    depth: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.pos)
    }

    fn next(&mut self) -> Option<Token> {
        let token = self.tokens.get(self.pos).cloned();
        self.pos += 1;
        token
    }

    fn enter(&mut self) -> Result<(), CalcError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(CalcError::Limit(format!(
                "the expression is nested too deeply (max {MAX_DEPTH} levels)"
            )));
        }
        Ok(())
    }

    fn expression(&mut self) -> Result<Number, CalcError> {
        let mut value = self.term()?;
        while let Some(op) = self.peek() {
            let op = match op {
                Token::Plus | Token::Minus => op.clone(),
                _ => break,
            };
            self.pos += 1;
            let rhs = self.term()?;
            value = if op == Token::Plus {
                add(value, rhs)?
            } else {
                sub(value, rhs)?
            };
        }
        Ok(value)
    }

    fn term(&mut self) -> Result<Number, CalcError> {
        let mut value = self.unary()?;
        while let Some(op) = self.peek() {
            let op = match op {
                Token::Star | Token::Slash | Token::SlashSlash | Token::Percent => op.clone(),
                _ => break,
            };
            self.pos += 1;
            let rhs = self.unary()?;
            value = match op {
                Token::Star => mul(value, rhs)?,
                Token::Slash => div(value, rhs)?,
                Token::SlashSlash => floor_div(value, rhs)?,
                _ => modulo(value, rhs)?,
            };
        }
        Ok(value)
    }

    fn unary(&mut self) -> Result<Number, CalcError> {
        match self.peek() {
            Some(Token::Minus) => {
                self.pos += 1;
                self.enter()?;
                let value = self.unary()?;
                self.depth -= 1;
                negate(value)
            }
            Some(Token::Plus) => {
                self.pos += 1;
                self.enter()?;
                let value = self.unary();
                self.depth -= 1;
                value
            }
            _ => self.power(),
        }
    }

    fn power(&mut self) -> Result<Number, CalcError> {
        let base = self.primary()?;
        if self.peek() == Some(&Token::Pow) {
            self.pos += 1;
            self.enter()?;
            let exponent = self.unary()?;
            self.depth -= 1;
            return pow(base, exponent);
        }
        Ok(base)
    }

    fn primary(&mut self) -> Result<Number, CalcError> {
        match self.next() {
            Some(Token::Num(n)) => Ok(n),
            Some(Token::LParen) => {
                self.enter()?;
                let value = self.expression()?;
                self.depth -= 1;
                self.expect_close()?;
                Ok(value)
            }
            Some(Token::Ident(name)) => {
                if self.peek() == Some(&Token::LParen) {
                    self.pos += 1;
                    self.enter()?;
                    let mut args = Vec::new();
                    if self.peek() != Some(&Token::RParen) {
                        loop {
                            args.push(self.expression()?);
                            if self.peek() == Some(&Token::Comma) {
                                self.pos += 1;
                            } else {
                                break;
                            }
                        }
                    }
                    self.depth -= 1;
                    self.expect_close()?;
                    call_function(&name, &args)
                } else {
                    constant(&name)
                }
            }
            Some(other) => Err(CalcError::Syntax(format!(
                "unexpected {} at token {}",
                describe(&other),
                self.pos
            ))),
            None => Err(CalcError::Syntax("the expression ends too early".into())),
        }
    }

    fn expect_close(&mut self) -> Result<(), CalcError> {
        match self.next() {
            Some(Token::RParen) => Ok(()),
            Some(other) => Err(CalcError::Syntax(format!(
                "expected `)` but found {}",
                describe(&other)
            ))),
            None => Err(CalcError::Syntax("missing `)`".into())),
        }
    }
}

/// Evaluates `input`, read as people write arithmetic: units after a
/// number dropped, scale words (`million`) and suffixes (`k`, `M`),
/// unambiguous percentages, `x` for times, currency signs, `√`.
pub fn evaluate(input: &str) -> Result<Number, CalcError> {
    evaluate_as_written(input).map(|(value, _)| value)
}

/// Evaluates `input`, and returns with its value the plain expression it
/// was read as when that differs from what was written.
pub fn evaluate_as_written(input: &str) -> Result<(Number, Option<String>), CalcError> {
    let length = input.chars().count();
    if length > MAX_EXPRESSION_CHARS {
        return Err(CalcError::Limit(format!(
            "the expression is too long ({length} characters; max {MAX_EXPRESSION_CHARS})"
        )));
    }
    let spelt = written::spell_out(input);
    let (tokens, rewritten) = written::plain(tokenize(&spelt)?)?;
    let read_as = (rewritten || spelt != input).then(|| written::render(&tokens));
    if tokens.is_empty() {
        return Err(CalcError::Syntax("the expression is empty".into()));
    }
    let mut parser = Parser {
        tokens,
        pos: 0,
        depth: 0,
    };
    let value = parser.expression()?;
    if let Some(extra) = parser.peek() {
        let hint = match extra {
            Token::Ident(_) => {
                "; a function takes its arguments inside its parentheses: round(<expression>, <digits>)"
            }
            Token::Comma => "; write one expression (numbers without thousands separators)",
            _ => "; write one expression",
        };
        return Err(CalcError::Syntax(format!(
            "unexpected {} after a complete expression{hint}",
            describe(extra)
        )));
    }
    Ok((value, read_as))
}

fn int_or_float(
    a: Number,
    b: Number,
    int_op: impl Fn(i128, i128) -> Option<i128>,
    float_op: impl Fn(f64, f64) -> f64,
) -> Result<Number, CalcError> {
    if let (Number::Int(x), Number::Int(y)) = (a, b)
        && let Some(r) = int_op(x, y)
    {
        return Ok(Number::Int(r));
    }
    Number::checked_float(float_op(a.as_f64(), b.as_f64()))
}

fn add(a: Number, b: Number) -> Result<Number, CalcError> {
    int_or_float(a, b, i128::checked_add, |x, y| x + y)
}

fn sub(a: Number, b: Number) -> Result<Number, CalcError> {
    int_or_float(a, b, i128::checked_sub, |x, y| x - y)
}

fn mul(a: Number, b: Number) -> Result<Number, CalcError> {
    int_or_float(a, b, i128::checked_mul, |x, y| x * y)
}

fn negate(a: Number) -> Result<Number, CalcError> {
    match a {
        Number::Int(i) => Ok(i
            .checked_neg()
            .map_or(Number::Float(-(i as f64)), Number::Int)),
        Number::Float(f) => Ok(Number::Float(-f)),
    }
}

fn nonzero(b: Number) -> Result<(), CalcError> {
    if b.as_f64() == 0.0 {
        Err(CalcError::Math("division by zero".into()))
    } else {
        Ok(())
    }
}

fn div(a: Number, b: Number) -> Result<Number, CalcError> {
    nonzero(b)?;
    int_or_float(
        a,
        b,
        |x, y| {
            if x.checked_rem(y)? == 0 {
                x.checked_div(y)
            } else {
                None
            }
        },
        |x, y| x / y,
    )
}

fn floor_div(a: Number, b: Number) -> Result<Number, CalcError> {
    nonzero(b)?;
    int_or_float(
        a,
        b,
        |x, y| {
            let q = x.checked_div(y)?;
            let r = x.checked_rem(y)?;
            Some(if r != 0 && ((r < 0) != (y < 0)) {
                q - 1
            } else {
                q
            })
        },
        |x, y| (x / y).floor(),
    )
}

fn modulo(a: Number, b: Number) -> Result<Number, CalcError> {
    nonzero(b)?;
    int_or_float(
        a,
        b,
        |x, y| {
            let r = x.checked_rem(y)?;
            Some(if r != 0 && ((r < 0) != (y < 0)) {
                r + y
            } else {
                r
            })
        },
        |x, y| {
            let r = x % y;
            if r != 0.0 && ((r < 0.0) != (y < 0.0)) {
                r + y
            } else {
                r
            }
        },
    )
}

fn pow(base: Number, exponent: Number) -> Result<Number, CalcError> {
    let e = exponent.as_f64();
    if e.abs() > MAX_EXPONENT {
        return Err(CalcError::Limit(format!(
            "the exponent is too large (max {MAX_EXPONENT})"
        )));
    }
    if let (Number::Int(b), Number::Int(x)) = (base, exponent)
        && x >= 0
        && let Ok(x) = u32::try_from(x)
        && let Some(r) = b.checked_pow(x)
    {
        return Ok(Number::Int(r));
    }
    if base.as_f64() == 0.0 && e < 0.0 {
        return Err(CalcError::Math(
            "division by zero (0 to a negative power)".into(),
        ));
    }
    Number::checked_float(base.as_f64().powf(e))
}

fn constant(name: &str) -> Result<Number, CalcError> {
    match name {
        "pi" => Ok(Number::Float(std::f64::consts::PI)),
        "e" => Ok(Number::Float(std::f64::consts::E)),
        "tau" => Ok(Number::Float(std::f64::consts::TAU)),
        _ if looks_like_file_name(name) => Err(CalcError::Syntax(format!(
            "`{}` is a file name, not a number: read the file first, then copy its numbers into the expression",
            name.chars().take(64).collect::<String>()
        ))),
        _ => Err(CalcError::Syntax(format!(
            "unknown name `{}`: the calculator reads only numbers; copy the numbers themselves into the expression, as in (<number> + <number> + <number>) / <how many> (constants: pi, e, tau)",
            name.chars().take(32).collect::<String>()
        ))),
    }
}

/// Whether `name` (lower case) is a function or a constant.
pub(super) fn is_known_name(name: &str) -> bool {
    FUNCTIONS.split(", ").any(|f| f == name)
        || LIST_FUNCTIONS.contains(&name)
        || ["pi", "e", "tau"].contains(&name)
}

/// Extensions of the files whose numbers a task may ask to compute with.
const DATA_FILE_EXTENSIONS: &[&str] = &[
    "csv", "tsv", "txt", "json", "jsonl", "yaml", "yml", "toml", "ini", "cfg", "conf", "md", "log",
    "xml", "dat", "xls", "xlsx",
];

/// Whether a name in an expression is a data file's name
/// (`<stem>.<extension>`): a small model asked to add up a file's numbers
/// passes the file to the calculator, and must be told to read it first.
/// `math.pi` is not one.
fn looks_like_file_name(name: &str) -> bool {
    name.rsplit_once('.').is_some_and(|(stem, extension)| {
        !stem.is_empty()
            && DATA_FILE_EXTENSIONS
                .iter()
                .any(|known| known.eq_ignore_ascii_case(extension))
    })
}

const FUNCTIONS: &str = "sqrt, abs, min, max, sum, mean, round, floor, ceil, ln, log, log10, log2, exp, pow, sin, cos, tan, asin, acos, atan";

fn call_function(name: &str, args: &[Number]) -> Result<Number, CalcError> {
    let arity = |n: usize| {
        if args.len() == n {
            Ok(())
        } else {
            Err(CalcError::Syntax(format!(
                "`{name}` takes {n} argument{}, got {}",
                if n == 1 { "" } else { "s" },
                args.len()
            )))
        }
    };
    let float = |f: fn(f64) -> f64| -> Result<Number, CalcError> {
        arity(1)?;
        Number::checked_float(f(args[0].as_f64()))
    };
    let positive = |what: &str| -> Result<f64, CalcError> {
        arity(1)?;
        let x = args[0].as_f64();
        if x <= 0.0 {
            Err(CalcError::Math(format!(
                "{what} is only defined for positive numbers"
            )))
        } else {
            Ok(x)
        }
    };
    match name {
        "sqrt" => {
            arity(1)?;
            if args[0].as_f64() < 0.0 {
                return Err(CalcError::Math("sqrt of a negative number".into()));
            }
            if let Number::Int(i) = args[0] {
                let r = (i as f64).sqrt().round() as i128;
                if r.checked_mul(r) == Some(i) {
                    return Ok(Number::Int(r));
                }
            }
            Number::checked_float(args[0].as_f64().sqrt())
        }
        "abs" => {
            arity(1)?;
            match args[0] {
                Number::Int(i) => Ok(i
                    .checked_abs()
                    .map_or(Number::Float((i as f64).abs()), Number::Int)),
                Number::Float(f) => Ok(Number::Float(f.abs())),
            }
        }
        "min" | "max" => {
            let Some(first) = args.first() else {
                return Err(CalcError::Syntax(format!(
                    "`{name}` needs at least one argument"
                )));
            };
            let mut best = *first;
            for &arg in &args[1..] {
                let better = if name == "min" {
                    arg.as_f64() < best.as_f64()
                } else {
                    arg.as_f64() > best.as_f64()
                };
                if better {
                    best = arg;
                }
            }
            Ok(best)
        }
        "sum" | "mean" | "avg" | "average" => {
            let Some((&first, rest)) = args.split_first() else {
                return Err(CalcError::Syntax(format!(
                    "`{name}` needs at least one number"
                )));
            };
            let total = rest.iter().try_fold(first, |total, &x| add(total, x))?;
            if name == "sum" {
                Ok(total)
            } else {
                let count = Number::Int(i128::try_from(args.len()).unwrap_or(i128::MAX));
                div(total, count)
            }
        }
        "round" => match args {
            [x] => Ok(match *x {
                Number::Int(i) => Number::Int(i),
                Number::Float(f) => {
                    let r = f.round_ties_even();
                    if r.abs() < 1e18 {
                        Number::Int(r as i128)
                    } else {
                        Number::Float(r)
                    }
                }
            }),
            [x, digits] => {
                let d = digits.as_f64();
                if d.fract() != 0.0 || !(-15.0..=15.0).contains(&d) {
                    return Err(CalcError::Math(
                        "round's digits must be a whole number from -15 to 15".into(),
                    ));
                }
                let scale = 10f64.powi(d as i32);
                Number::checked_float((x.as_f64() * scale).round() / scale)
            }
            _ => Err(CalcError::Syntax("`round` takes 1 or 2 arguments".into())),
        },
        "floor" | "ceil" => {
            arity(1)?;
            let f = args[0].as_f64();
            let r = if name == "floor" { f.floor() } else { f.ceil() };
            match args[0] {
                Number::Int(i) => Ok(Number::Int(i)),
                Number::Float(_) if r.abs() < 1e18 => Ok(Number::Int(r as i128)),
                Number::Float(_) => Number::checked_float(r),
            }
        }
        "ln" => Number::checked_float(positive("ln")?.ln()),
        "log10" => Number::checked_float(positive("log10")?.log10()),
        "log2" => Number::checked_float(positive("log2")?.log2()),
        "log" => match args {
            [_] => Number::checked_float(positive("log")?.ln()),
            [x, base] => {
                let (x, base) = (x.as_f64(), base.as_f64());
                if x <= 0.0 || base <= 0.0 || base == 1.0 {
                    return Err(CalcError::Math(
                        "log needs a positive number and a positive base other than 1".into(),
                    ));
                }
                Number::checked_float(x.ln() / base.ln())
            }
            _ => Err(CalcError::Syntax("`log` takes 1 or 2 arguments".into())),
        },
        "exp" => float(f64::exp),
        "pow" => {
            arity(2)?;
            pow(args[0], args[1])
        }
        "sin" => float(f64::sin),
        "cos" => float(f64::cos),
        "tan" => float(f64::tan),
        "asin" => float(f64::asin),
        "acos" => float(f64::acos),
        "atan" => float(f64::atan),
        _ => Err(CalcError::Syntax(format!(
            "unknown function `{}` (available: {FUNCTIONS})",
            name.chars().take(32).collect::<String>()
        ))),
    }
}

/// Arguments of `calculator`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CalculatorArgs {
    /// The arithmetic expression to evaluate.
    #[schemars(length(max = 500))]
    pub expression: String,
}

/// The `calculator` tool.
#[derive(Debug, Clone, Default)]
pub struct Calculator;

impl Calculator {
    /// The calculator.
    pub fn new() -> Self {
        Self
    }
}

#[async_trait]
impl Tool for Calculator {
    fn name(&self) -> &str {
        "calculator"
    }

    fn description(&self) -> &str {
        "Evaluate an arithmetic expression with + - * / % ** ( ) sqrt round ln log10."
    }

    /// The numbers it computes on must come from the task or tool results.
    fn needs_grounded_numbers(&self) -> bool {
        true
    }

    /// The schema of [`CalculatorArgs`] without the argument's description:
    /// its name says it all, and every prompt token counts on a local model.
    fn parameters(&self) -> Value {
        without_property_descriptions(schema_for::<CalculatorArgs>())
    }

    async fn call(&self, args: Value) -> Result<ToolOutput, ToolError> {
        let args: CalculatorArgs =
            serde_json::from_value(args).map_err(|e| ToolError::invalid_args(e.to_string()))?;
        match evaluate_as_written(&args.expression) {
            Ok((value, read_as)) => {
                let readings: Vec<String> = [in_words(value), to_cents(value)]
                    .into_iter()
                    .flatten()
                    .collect();
                let mut out = if readings.is_empty() {
                    value.to_string()
                } else {
                    format!("{value} ({})", readings.join("; "))
                };
                if let Some(read_as) = read_as {
                    out.push_str(&format!("\n(Read as: {read_as})"));
                }
                if let Some(note) = mean_precedence_note(&args.expression) {
                    out.push_str(&note);
                }
                Ok(ToolOutput::new(out))
            }
            Err(CalcError::Syntax(mut msg)) => {
                if !msg.contains("reads only numbers") && names_a_non_number(&args.expression) {
                    msg.push_str(
                        "; the calculator reads only numbers, not names, columns or files: copy the numbers themselves into the expression",
                    );
                }
                Err(ToolError::invalid_args(msg))
            }
            Err(err) => Err(ToolError::failed(err.to_string())),
        }
    }
}

/// Whether `expression` holds a word that is neither a function nor a
/// constant (a column, a file, a variable).
fn names_a_non_number(expression: &str) -> bool {
    let known = |w: &str| {
        let w = w.to_lowercase();
        is_known_name(w.strip_prefix("math.").unwrap_or(&w))
    };
    expression
        .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.'))
        .filter(|w| w.chars().next().is_some_and(char::is_alphabetic))
        .any(|w| !known(w))
}

/// A note for the usual slip in a mean: `a + b + c / 3`, where the last
/// term alone is divided by the number of terms.
fn mean_precedence_note(expression: &str) -> Option<String> {
    let tokens = tokenize(expression).ok()?;
    if tokens
        .iter()
        .any(|t| matches!(t, Token::LParen | Token::RParen))
    {
        return None;
    }
    let terms = 1 + tokens
        .iter()
        .enumerate()
        .filter(|(i, t)| *i > 0 && matches!(t, Token::Plus))
        .count();
    match tokens.as_slice() {
        [.., Token::Num(_), Token::Slash, Token::Num(Number::Int(n))]
            if terms >= 2 && *n == terms as i128 =>
        {
            Some(format!(
                "\n(Note: / is done before +, so only the last number was divided by {n}. For the mean of the {n} numbers, put the sum in parentheses: (<sum>) / {n}.)"
            ))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eval(s: &str) -> String {
        match evaluate(s) {
            Ok(v) => v.to_string(),
            Err(e) => format!("error: {e}"),
        }
    }

    #[test]
    fn large_results_are_read_out() {
        let words = |s: &str| evaluate(s).ok().and_then(in_words);
        assert_eq!(words("84000000 - 68000000").as_deref(), Some("16 million"));
        assert_eq!(words("1234567").as_deref(), Some("about 1.235 million"));
        assert_eq!(words("-2500000000").as_deref(), Some("-2.5 billion"));
        assert_eq!(words("3.2e12").as_deref(), Some("3.2 trillion"));
        assert_eq!(words("999999"), None);
        // Past a thousand quadrillion a name is no help.
        assert_eq!(words("2 * 10 ** 17").as_deref(), Some("200 quadrillion"));
        assert_eq!(words("299792458 * 384400 * 115240220855200"), None);
        assert_eq!(words("1.5e42"), None);
        assert_eq!(words("0.5"), None);
        let cents = |s: &str| evaluate(s).ok().and_then(to_cents);
        assert_eq!(
            cents("5000 * 1.04 ** 6").as_deref(),
            Some("to 2 decimals: 6326.60")
        );
        assert_eq!(cents("1 / 8").as_deref(), Some("to 2 decimals: 0.13"));
        assert_eq!(cents("2.5 * 2"), None);
        assert_eq!(cents("1.25"), None);
        assert_eq!(cents("1 / 3000"), None);
        assert_eq!(cents("1.32803085028e42 * 1.5"), None);
        assert_eq!(cents("-0.5 * 3e20"), None);
    }

    #[test]
    fn precedence_and_associativity() {
        assert_eq!(eval("2**3**2"), "512");
        assert_eq!(eval("-2**2"), "-4");
        assert_eq!(eval("(-2)**2"), "4");
        assert_eq!(eval("2^10"), "1024");
        assert_eq!(eval("1 + 2 * 3"), "7");
        assert_eq!(eval("(1 + 2) * 3"), "9");
        assert_eq!(eval("10 - 4 - 3"), "3");
        assert_eq!(eval("100 / 10 / 5"), "2");
        assert_eq!(eval("2 * -3"), "-6");
        assert_eq!(eval("2**-1"), "0.5");
        assert_eq!(eval("--3"), "3");
    }

    #[test]
    fn the_seed_example() {
        assert_eq!(eval("(17 * 83) + (12 ** 3)"), "3139");
        assert_eq!(eval("17*83 + 12**3"), "3139");
        assert_eq!(eval("17 × 83 + 12^3 ="), "3139");
    }

    #[test]
    fn integers_are_exact_and_division_is_honest() {
        assert_eq!(eval("68000000 - 2100000"), "65900000");
        assert_eq!(eval("2**100"), "1267650600228229401496703205376");
        assert_eq!(eval("6/3"), "2");
        assert_eq!(eval("7/2"), "3.5");
        assert_eq!(eval("0.1 + 0.2"), "0.3");
        assert_eq!(eval("7 // 2"), "3");
        assert_eq!(eval("-7 // 2"), "-4");
        assert_eq!(eval("-7 % 3"), "2");
        assert_eq!(eval("7 % -3"), "-2");
        assert_eq!(eval("1_000 * 3"), "3000");
    }

    #[test]
    fn functions_and_constants() {
        assert_eq!(eval("sqrt(16)"), "4");
        assert_eq!(eval("sqrt(2)"), "1.41421356237");
        assert_eq!(eval("abs(-5)"), "5");
        assert_eq!(eval("max(1, 7, 3)"), "7");
        assert_eq!(eval("min(4, -2)"), "-2");
        assert_eq!(eval("round(2.5)"), "2");
        assert_eq!(eval("round(3.14159, 2)"), "3.14");
        assert_eq!(eval("ln(e)"), "1");
        assert_eq!(eval("log10(1000)"), "3");
        assert_eq!(eval("log(8, 2)"), "3");
        assert_eq!(eval("cos(0)"), "1");
        assert_eq!(eval("math.sqrt(9)"), "3");
        assert_eq!(eval("2 * pi"), "6.28318530718");
        assert_eq!(eval("sum(212, 198, 240)"), "650");
        assert_eq!(eval("mean(212, 198, 240, 205, 220)"), "215");
        assert_eq!(eval("average(1, 2)"), "1.5");
        assert_eq!(eval("avg(4)"), "4");
        assert!(eval("sum()").contains("needs at least one number"));
    }

    #[tokio::test]
    async fn outputs_teach_the_usual_slips() {
        let run = |e: &str| {
            let e = e.to_string();
            async move {
                match Calculator.call(serde_json::json!({"expression": e})).await {
                    Ok(out) => out.content,
                    Err(err) => err.message().to_string(),
                }
            }
        };
        let mean = run("212 + 198 + 240 / 3").await;
        assert!(mean.starts_with("490"), "{mean}");
        assert!(
            mean.contains("only the last number was divided by 3"),
            "{mean}"
        );
        // Not a mean: no note.
        assert!(!run("212 + 198 + 240 / 2").await.contains("Note"));
        assert!(!run("(212 + 198 + 240) / 3").await.contains("Note"));
        let column = run("sum(ventas.csv:importe)").await;
        assert!(column.contains("copy the numbers themselves"), "{column}");
        assert!(!run("2 +").await.contains("copy the numbers"));
    }

    #[test]
    fn thousands_separators_are_read_outside_function_arguments() {
        assert_eq!(eval("3,800,000 + 2,100,000"), "5900000");
        assert_eq!(eval("(1,250 + 830) / 2"), "1040");
        assert_eq!(eval("1,234.5 * 2"), "2469");
        // Inside a call, one group is a second argument, as in Python;
        // two or more are thousands.
        assert_eq!(eval("max(1,200)"), "200");
        assert_eq!(eval("sum(3,800,000, 2,100,000)"), "5900000");
        assert_eq!(eval("max(1,2)"), "2");
        // Without `, ` between arguments, a function that takes a list
        // reads every comma as a separator; one that takes one number
        // reads thousands.
        assert_eq!(eval("mean(212,198,240,205,220)"), "215");
        assert_eq!(eval("sum(1,250,830)"), "1081");
        assert_eq!(eval("max(3,800,000)"), "800");
        assert_eq!(eval("sqrt(1,234,321)"), "1111");
        assert_eq!(eval("mean(212, 198, 240)"), "216.666666667");
        assert_eq!(eval("3,800,000 + 1"), "3800001");
        // Not a group: two digits, or four.
        assert!(eval("1,50 + 1").contains("`,`"));
        assert!(eval("1,5000").contains("`,`"));
    }

    #[test]
    fn errors_are_clear() {
        assert_eq!(eval("1/0"), "error: division by zero");
        assert_eq!(eval("5 % 0"), "error: division by zero");
        assert_eq!(eval("sqrt(-1)"), "error: sqrt of a negative number");
        assert_eq!(
            eval("ln(0)"),
            "error: ln is only defined for positive numbers"
        );
        assert!(eval("10.0 ** 400").contains("too large"));
        assert!(eval("2 +").contains("ends too early"));
        assert!(eval("(1 + 2").contains("missing `)`"));
        assert!(eval("1 + 2)").contains("after a complete expression"));
        assert!(eval("foo(1)").contains("unknown function `foo`"));
        assert!(eval("x + 1").contains("unknown name `x`"));
        let file = eval("sum(expenses.csv)");
        assert!(
            file.contains("`expenses.csv` is a file name") && file.contains("read the file first"),
            "{file}"
        );
        assert!(eval("config.port + 1").contains("unknown name `config.port`"));
        assert!(eval("sum(latency_ms)").contains("copy the numbers themselves"));
        assert!(eval("sqrt(50) round(2)").contains("round(<expression>, <digits>)"));
        assert!(eval("2 @ 3").contains("unexpected character `@`"));
        assert!(eval("").contains("empty"));
        assert!(eval("1.2.3").contains("not a number"));
    }

    #[test]
    fn bombs_end_with_a_clear_error() {
        assert!(eval("9**9**9**9").contains("exponent is too large"));
        assert!(eval("2**99999").contains("exponent is too large"));
        assert!(eval("10**1000").contains("too large"));
        assert!(eval(&"1+".repeat(5000)).contains("too long"));
        assert!(
            eval(&format!("{}1{}", "(".repeat(100), ")".repeat(100))).contains("nested too deeply")
        );
        assert!(eval(&"-".repeat(500)).contains("nested too deeply"));
        assert!(eval(&format!("{}1", "2**".repeat(300))).contains("too"));
        assert!(
            eval("99999999999999999999999999999999999999999 * 99999999999999999999999999999")
                .contains("e")
        );
    }
}
