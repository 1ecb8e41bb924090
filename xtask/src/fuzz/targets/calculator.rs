//! `calculator`: [`agent_tools::builtin::evaluate`]. Oracle: a value is
//! finite and within the documented magnitude bound.

use std::hint::black_box;
use std::time::Instant;

use agent_tools::builtin::{CalcError, MAX_MAGNITUDE, Number, evaluate};

use super::{Outcome, Target, Violation, nanos_since, prefix, signature};
use crate::fuzz::case::Case;
use crate::fuzz::seeds::SeedSet;

const DICTIONARY: &[&str] = &[
    "0",
    "1",
    "2",
    "7",
    "9",
    "10",
    ".",
    ".5",
    "1e",
    "1e308",
    "1e-308",
    "1_000",
    "0x10",
    "0b1",
    "9999999999999999999999999999999999999999",
    "170141183460469231731687303715884105727",
    "+",
    "-",
    "*",
    "/",
    "//",
    "%",
    "**",
    "^",
    "(",
    ")",
    "[",
    "]",
    ",",
    " ",
    "=",
    "?",
    "−",
    "×",
    "÷",
    "·",
    "pi",
    "e",
    "tau",
    "inf",
    "nan",
    "sqrt(",
    "abs(",
    "min(",
    "max(",
    "round(",
    "floor(",
    "ceil(",
    "ln(",
    "log(",
    "exp(",
    "pow(",
    "sin(",
    "cos(",
    "tan(",
    "asin(",
    "acos(",
    "atan(",
    "math.",
    "x",
    "_",
    "é",
    "中",
    "😀",
    "１",
    "²",
    "\u{0}",
];

/// The calculator target.
#[derive(Debug)]
pub(crate) struct Calculator;

impl Target for Calculator {
    fn name(&self) -> &'static str {
        "calculator"
    }

    fn seeds(&self) -> SeedSet {
        SeedSet::Calculator
    }

    fn dictionary(&self) -> &'static [&'static str] {
        DICTIONARY
    }

    fn run(&mut self, case: &Case) -> Result<Outcome, Violation> {
        let start = Instant::now();
        let result = black_box(evaluate(black_box(&case.text)));
        let nanos = nanos_since(start);
        let signature = match &result {
            Ok(Number::Int(i)) => signature(&[b"int", &[u8::from(*i < 0), u8::from(*i == 0)]]),
            Ok(Number::Float(f)) => {
                if !f.is_finite() || f.abs() > MAX_MAGNITUDE {
                    return Err(Violation::new(
                        "calculator-finite",
                        if f.is_finite() {
                            "over the magnitude bound"
                        } else {
                            "not finite"
                        },
                        format!("the result is {f}"),
                    ));
                }
                signature(&[b"float", &[u8::from(*f < 0.0), u8::from(f.fract() == 0.0)]])
            }
            Err(CalcError::Syntax(m)) => signature(&[b"syntax", prefix(m, 12)]),
            Err(CalcError::Math(m)) => signature(&[b"math", prefix(m, 24)]),
            Err(CalcError::Limit(m)) => signature(&[b"limit", prefix(m, 24)]),
        };
        Ok(Outcome { nanos, signature })
    }
}
