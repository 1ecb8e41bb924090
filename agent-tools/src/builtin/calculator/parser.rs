//! The parser and evaluator: a recursive descent over the tokens that
//! computes as it goes, bounded in depth, and [`evaluate`] and
//! [`evaluate_as_written`], which run the whole pipeline.

use agent_core::equation::computed_side;

use super::arithmetic::{add, div, floor_div, modulo, mul, negate, pow, sub};
use super::functions::{call_function, constant};
use super::lexer::{Token, describe, tokenize};
use super::localized::localized;
use super::{CalcError, MAX_DEPTH, MAX_EXPRESSION_CHARS, Number};
use crate::builtin::written;

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
/// unambiguous percentages, `x` for times, currency signs, `√`,
/// numbers as other languages write them (`12,5`, `١٥`, `5²`), and one
/// side of an equation (see [`computed_side`]).
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
    let spelt = written::spell_out(&localized(computed_side(input).unwrap_or(input)));
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
        let rest = &parser.tokens[parser.pos..];
        // `<expression>, 2`: the digits to round to, without `round`.
        let rounding = matches!(rest, [Token::Comma, Token::Num(Number::Int(digits))] if (0..=12).contains(digits));
        let hint = match extra {
            Token::Ident(_) => {
                "; a function takes its arguments inside its parentheses: round(<expression>, <digits>)".to_string()
            }
            Token::Comma if rounding => format!(
                "; to round, write round({}{})",
                written::render(&parser.tokens[..parser.pos]).trim(),
                written::render(rest)
            ),
            Token::Comma => "; write one expression (numbers without thousands separators)".to_string(),
            _ => "; write one expression".to_string(),
        };
        return Err(CalcError::Syntax(format!(
            "unexpected {} after a complete expression{hint}",
            describe(extra)
        )));
    }
    Ok((value, read_as))
}
