//! `calculator`: a safe arithmetic evaluator. It never calls an `eval`.
//! Integers are exact (`i128`) while the result fits; otherwise floats.
//! Input length, nesting depth, exponents and magnitudes are bounded, so
//! any input ends quickly with a value or a clear error.
//!
//! Conventions (Python's): `**` is right-associative and binds tighter
//! than unary minus, so `2**3**2 = 512` and `-2**2 = -4`; `^` means `**`;
//! `%` takes the sign of the divisor; `//` is floor division; `/` is exact
//! for divisible integers (`6/3 = 2`) and a float otherwise (`7/2 = 3.5`).
//!
//! The parts: [`number`] (the number type and how results are written),
//! [`lexer`] (text to tokens), [`parser`] (tokens to a value),
//! [`arithmetic`] (the operators), [`functions`] (functions and
//! constants) and [`tool`] (the `calculator` tool).

mod arithmetic;
mod functions;
mod lexer;
mod localized;
mod number;
mod parser;
mod tool;

pub(super) use functions::is_known_name;
pub(super) use lexer::Token;
pub use number::{Number, in_words, to_cents};
pub use parser::{evaluate, evaluate_as_written};
pub use tool::{Calculator, CalculatorArgs};

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
        // Not a group: two digits, or four, after a comma are decimals,
        // as most languages but English write them.
        assert_eq!(eval("1,50 + 1"), "2.5");
        assert_eq!(eval("1,5000"), "1.5");
    }

    #[test]
    fn numbers_are_read_as_other_languages_write_them() {
        assert_eq!(eval("12,5 % de 840"), "105");
        assert_eq!(eval("3 * 2,40 + 2 * 3,15"), "13.5");
        assert_eq!(eval("1.234,5 * 2"), "2469");
        assert_eq!(eval("48.000 * 0,5"), "24000");
        assert_eq!(eval("48.000 * 0.5"), "24");
        assert_eq!(eval("1 234 567 + 1"), "1234568");
        assert_eq!(eval("١٥٪ × ٨٤٠"), "126");
        assert_eq!(eval("１２＋３"), "15");
        assert_eq!(eval("5² + 2³"), "33");
        assert_eq!(eval("10⁻²"), "0.01");
        // After a unit a superscript is the unit's, not a power.
        assert_eq!(eval("120 m² * 3"), "360");
        // In a function's parentheses a comma separates arguments.
        assert_eq!(eval("round(2,5)"), "2");
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
    fn an_equation_computes_its_expression_side() {
        // The model's own claim after `=` is left out, right or wrong.
        assert_eq!(eval("84,000,000 - 68,000,000 = 17,000,000"), "16000000");
        assert_eq!(eval("3 * 4.75 + 2 * 1.30 ="), "16.85");
        // A name before `=` is a name.
        assert_eq!(eval("total = 3 * 4.75"), "14.25");
        assert_eq!(eval("17000000 = 84000000 - 68000000"), "16000000");
        assert!(eval("x = y").contains("unexpected character `=`"));
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
