//! The `calculator` tool: [`Calculator`] and [`CalculatorArgs`], and the
//! notes its output adds for the usual slips of small models.

use agent_core::{Tool, ToolError, ToolOutput};
use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use super::functions::{MEAN_FUNCTIONS, is_known_name};
use super::lexer::{Token, tokenize};
use super::number::{in_words, to_cents};
use super::parser::evaluate_as_written;
use super::{CalcError, Number};
use crate::schema::{schema_for, without_property_descriptions};

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
                if let Some(note) = mean_precedence_note(&args.expression)
                    .or_else(|| mean_divided_again_note(&args.expression))
                {
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

/// A note for the other usual slip in a mean: `mean(a, b, c) / 3`, where
/// the mean, already divided by how many numbers it has, is divided by
/// that count again (measured on a 1.5B model, told to write the numbers
/// as `(<number> + …) / <how many>`, it kept its `mean(…)` and added the
/// division). The result stays as written; the note gives the mean alone.
fn mean_divided_again_note(expression: &str) -> Option<String> {
    let tokens = tokenize(expression).ok()?;
    let [
        Token::Ident(function),
        Token::LParen,
        inner @ ..,
        Token::RParen,
        Token::Slash,
        Token::Num(Number::Int(n)),
    ] = tokens.as_slice()
    else {
        return None;
    };
    let function = function.to_lowercase();
    let function = function.strip_prefix("math.").unwrap_or(&function);
    if !MEAN_FUNCTIONS.contains(&function)
        || !inner
            .iter()
            .all(|t| matches!(t, Token::Num(_) | Token::Minus | Token::Comma))
    {
        return None;
    }
    let count = 1 + inner.iter().filter(|t| matches!(t, Token::Comma)).count();
    if *n < 2 || *n != count as i128 {
        return None;
    }
    let (mean, _) = evaluate_as_written(expression.get(..expression.rfind('/')?)?).ok()?;
    Some(format!(
        "\n(Note: {function}(…) already divides the sum of its {n} numbers by {n}, so this result divides by {n} twice. {function}(…) alone is {mean}.)"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let twice = run("mean(212, 198, 240, 205, 220) / 5").await;
        assert!(twice.starts_with("43"), "{twice}");
        assert!(
            twice.contains("divides by 5 twice. mean(…) alone is 215."),
            "{twice}"
        );
        assert!(
            run("AVG(10, -2, 4) / 3")
                .await
                .contains("avg(…) alone is 4.")
        );
        // Not a mean: no note.
        assert!(!run("mean(212, 198) / 3").await.contains("Note"));
        assert!(!run("sum(212, 198) / 2").await.contains("Note"));
        assert!(!run("mean(212, 198) / 2 + 1").await.contains("Note"));
        assert!(!run("212 + 198 + 240 / 2").await.contains("Note"));
        assert!(!run("(212 + 198 + 240) / 3").await.contains("Note"));
        let column = run("sum(ventas.csv:importe)").await;
        assert!(column.contains("copy the numbers themselves"), "{column}");
        assert!(!run("2 +").await.contains("copy the numbers"));
    }
}
