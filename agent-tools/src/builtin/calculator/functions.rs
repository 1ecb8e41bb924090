//! The calculator's functions (`sqrt`, `round`, `mean`, ...) and
//! constants (`pi`, `e`, `tau`), and the errors for names that are
//! neither (a file's name, a column).

use super::arithmetic::{add, div, pow};
use super::{CalcError, Number};

/// The functions that take a list of numbers.
pub(super) const LIST_FUNCTIONS: [&str; 6] = ["min", "max", "sum", "mean", "avg", "average"];

/// The names of the function that divides its numbers' sum by their count.
pub(super) const MEAN_FUNCTIONS: [&str; 3] = ["mean", "avg", "average"];

pub(super) fn constant(name: &str) -> Result<Number, CalcError> {
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
pub(in crate::builtin) fn is_known_name(name: &str) -> bool {
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

pub(super) fn call_function(name: &str, args: &[Number]) -> Result<Number, CalcError> {
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
        _ if name == "sum" || MEAN_FUNCTIONS.contains(&name) => {
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
