//! A computing call that names a column of a table instead of its numbers
//! (`sum(notes) / count(notes)`, `mean(score)`): the tool cannot read the
//! name (or writes it with its file or table: `expenses.csv.amount`,
//! `df['amount']`), and a small model told only to copy the numbers in reads the
//! file again and makes the same call (the 1.5B model, asked for the mean
//! of a column of marks in a French question, did so until its loop limit
//! and then answered that the file did not say). When a tool result has
//! shown a table with that column (a CSV read whole, a markdown table, a
//! grep's ``column `<name>` (<n> rows): <values>`` line), the call's error
//! shows the call with the column's numbers in place of each list
//! function's name (`sum(<v1>, <v2>, …)`), and its count in place of
//! `count(<name>)`.

use crate::typos::one_typo_apart;

use super::gutter::split_gutters;

/// Functions of a list of numbers the calculator reads.
const LIST_FUNCTIONS: [&str; 7] = ["sum", "mean", "avg", "average", "min", "max", "total"];

/// Functions that count a list.
const COUNT_FUNCTIONS: [&str; 2] = ["count", "len"];

/// The most values a shown call writes.
const MAX_VALUES: usize = 40;

/// A column a computing call named, found in a tool result.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct ColumnCall {
    /// The name as the call wrote it.
    pub(super) named: String,
    /// The column's name as the table writes it.
    pub(super) column: String,
    /// Its values, as written.
    pub(super) values: Vec<String>,
    /// The call's text with the values in place of the name.
    pub(super) text: String,
}

/// The first name in `expression` that a list or count function is
/// applied to, and that is a column of a table in `results` (the newest
/// first), with the expression rewritten to use its values; `None` when
/// there is no such name or column.
pub(super) fn column_call<'a>(
    expression: &str,
    results: impl IntoIterator<Item = &'a str>,
) -> Option<ColumnCall> {
    let names = applied_names(expression);
    if names.is_empty() {
        return None;
    }
    let results: Vec<&str> = results.into_iter().collect();
    for named in &names {
        for result in &results {
            let (_, text) = split_gutters(result);
            // The name whole, then its last part: a column written with
            // its file or table (`expenses.csv.amount`, `df['amount']`).
            let found = std::iter::once(named.as_str())
                .chain(name_parts(named).last().copied())
                .find_map(|name| table_column(&text, name).or_else(|| listed_column(&text, name)));
            if let Some((column, values)) = found {
                let text = rewritten(expression, named, &values);
                // A call that also picks its rows (`sum(montant) for
                // line in lines where …`) would sum every row.
                if filters_rows(&text) {
                    return None;
                }
                return Some(ColumnCall {
                    named: named.clone(),
                    column,
                    values,
                    text,
                });
            }
        }
    }
    None
}

/// Whether `text` picks its rows in words (`for … in … where …`, a
/// comparison, a quoted value): a shown sum of the whole column would
/// not be what it asks for.
fn filters_rows(text: &str) -> bool {
    const FILTER_WORDS: [&str; 8] = ["for", "in", "where", "if", "and", "or", "select", "filter"];
    text.contains(['\'', '"'])
        || text.contains("==")
        || text
            .split(|c: char| !c.is_alphanumeric())
            .any(|word| FILTER_WORDS.contains(&word.to_lowercase().as_str()))
}

/// The names (words, not numbers) inside `f(<name>)` for a list or count
/// function `f`, in order, once each.
fn applied_names(expression: &str) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for (function, name) in applications(expression) {
        let known = LIST_FUNCTIONS.contains(&function.as_str())
            || COUNT_FUNCTIONS.contains(&function.as_str());
        let word = name.chars().next().is_some_and(char::is_alphabetic)
            && name
                .chars()
                .all(|c| c.is_alphanumeric() || matches!(c, '_' | '.' | '[' | ']' | '\'' | '"'));
        if known && word && !names.contains(&name) {
            names.push(name);
        }
    }
    names
}

/// The parts of a name written with its file or table, split on the
/// marks between them (`expenses`, `csv`, `amount`); none for a plain
/// name.
fn name_parts(name: &str) -> Vec<&str> {
    if name.chars().all(|c| c.is_alphanumeric() || c == '_') {
        return Vec::new();
    }
    name.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|part| part.chars().next().is_some_and(char::is_alphabetic))
        .collect()
}

/// Each `f(<arg>)` of `expression` whose argument has no comma or
/// parenthesis: the function in lower case and the argument trimmed.
fn applications(expression: &str) -> Vec<(String, String)> {
    let mut found = Vec::new();
    let mut rest = expression;
    while let Some(open) = rest.find('(') {
        let before = &rest[..open];
        let function: String = before
            .chars()
            .rev()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        let after = &rest[open + 1..];
        if let Some(close) = after.find(')') {
            let argument = &after[..close];
            if !function.is_empty() && !argument.contains([',', '(']) {
                found.push((function.to_lowercase(), argument.trim().to_string()));
            }
        }
        rest = after;
    }
    found
}

/// `expression` with `f(<named>)` written with `values` for a list
/// function and with their count for a count function.
fn rewritten(expression: &str, named: &str, values: &[String]) -> String {
    let mut out = String::with_capacity(expression.len() + values.len() * 8);
    let mut rest = expression;
    while let Some(open) = rest.find('(') {
        let function_start = rest[..open]
            .char_indices()
            .rev()
            .take_while(|(_, c)| c.is_alphanumeric() || *c == '_')
            .last()
            .map_or(open, |(i, _)| i);
        let function = rest[function_start..open].to_lowercase();
        let after = &rest[open + 1..];
        let argument = after.find(')').map(|close| (&after[..close], close));
        let applies = LIST_FUNCTIONS.contains(&function.as_str())
            || COUNT_FUNCTIONS.contains(&function.as_str());
        match argument {
            Some((argument, close)) if applies && argument.trim() == named => {
                out.push_str(&rest[..function_start]);
                if COUNT_FUNCTIONS.contains(&function.as_str()) {
                    out.push_str(&values.len().to_string());
                } else {
                    let function = if function == "total" {
                        "sum"
                    } else {
                        &rest[function_start..open]
                    };
                    out.push_str(&format!("{function}({})", values.join(", ")));
                }
                rest = &after[close + 1..];
            }
            _ => {
                out.push_str(&rest[..=open]);
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Whether a table's column name is the one a call wrote: the same in
/// any case, one a plural of the other, or a typo apart.
fn same_name(column: &str, named: &str) -> bool {
    let (column, named) = (column.to_lowercase(), named.to_lowercase());
    column == named
        || named.strip_suffix('s') == Some(column.as_str())
        || column.strip_suffix('s') == Some(named.as_str())
        || (named.chars().count() >= 5 && one_typo_apart(&column, &named))
}

/// The column `named` of a table in `text` (a header line of cells split
/// on `,`, `;`, a tab or `|`, then rows with as many cells), with its
/// values; `None` unless every row holds a number there, two rows or
/// more.
fn table_column(text: &str, named: &str) -> Option<(String, Vec<String>)> {
    let lines: Vec<&str> = text.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        for separator in [',', ';', '\t', '|'] {
            let header = cells(line, separator);
            if header.len() < 2 {
                continue;
            }
            let Some(index) = header.iter().position(|cell| same_name(cell, named)) else {
                continue;
            };
            let mut values = Vec::new();
            for row in &lines[i + 1..] {
                if is_rule(row) {
                    continue;
                }
                let row = cells(row, separator);
                if row.len() != header.len() {
                    break;
                }
                let value = row[index].trim_matches(CURRENCY_SIGNS).trim();
                // A table split on `;` writes a decimal comma (`12,5`).
                let value = if separator == ';' {
                    value.replace('.', "").replacen(',', ".", 1)
                } else {
                    value.to_string()
                };
                if !is_number(&value) {
                    values.clear();
                    break;
                }
                values.push(value);
            }
            if values.len() >= 2 && values.len() <= MAX_VALUES {
                return Some((header[index].clone(), values));
            }
        }
    }
    None
}

/// The values of a ``column `<name>` (<n> rows): <v1>, <v2>…`` line of
/// `text` (a search in files names a column so), when all are numbers.
fn listed_column(text: &str, named: &str) -> Option<(String, Vec<String>)> {
    text.lines().find_map(|line| {
        let (_, rest) = line.split_once("column `")?;
        let (column, rest) = rest.split_once("` (")?;
        if !same_name(column, named) {
            return None;
        }
        let (_, values) = rest.split_once("): ")?;
        let values = values.split(';').next()?;
        let values: Vec<String> = values
            .split(", ")
            .map(|v| v.trim_matches(CURRENCY_SIGNS).trim().to_string())
            .collect();
        (values.len() >= 2 && values.len() <= MAX_VALUES && values.iter().all(|v| is_number(v)))
            .then(|| (column.to_string(), values))
    })
}

/// Currency signs a cell's number may carry.
const CURRENCY_SIGNS: [char; 6] = ['€', '$', '£', '¥', '₹', '₽'];

/// The cells of a table line, trimmed (a markdown row's outer `|` cut).
fn cells(line: &str, separator: char) -> Vec<String> {
    let line = line.trim();
    let line = if separator == '|' {
        line.trim_start_matches('|').trim_end_matches('|')
    } else {
        line
    };
    line.split(separator)
        .map(|c| c.trim().trim_matches('"').trim().to_string())
        .collect()
}

/// A markdown table's rule line (`|---|:--|`).
fn is_rule(line: &str) -> bool {
    let line = line.trim();
    line.contains('-') && line.chars().all(|c| matches!(c, '|' | '-' | ':' | ' '))
}

/// A number as a calculator reads it: digits, maybe a sign and one `.`.
fn is_number(value: &str) -> bool {
    let digits = value.strip_prefix('-').unwrap_or(value);
    !digits.is_empty()
        && digits.bytes().filter(|b| *b == b'.').count() <= 1
        && digits.bytes().all(|b| b.is_ascii_digit() || b == b'.')
        && digits.bytes().next().is_some_and(|b| b.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOTES: &str = "1| eleve,note\n2| A,12\n3| B,15\n4| C,9\n5| D,14";

    #[test]
    fn a_column_named_in_a_call_is_shown_with_its_numbers() {
        let found = column_call("sum(notes) / count(notes)", [NOTES]).unwrap();
        assert_eq!(found.named, "notes");
        assert_eq!(found.column, "note");
        assert_eq!(found.values, ["12", "15", "9", "14"]);
        assert_eq!(found.text, "sum(12, 15, 9, 14) / 4");
        let mean = column_call("MEAN(Note)", ["Observation: ```", NOTES]).unwrap();
        assert_eq!(mean.text, "MEAN(12, 15, 9, 14)");
        let total = column_call("total(note) * 2", [NOTES]).unwrap();
        assert_eq!(total.text, "sum(12, 15, 9, 14) * 2");
    }

    #[test]
    fn a_column_written_with_its_file_or_table_is_found_by_its_part() {
        let expenses =
            "1| date,category,amount\n2| 2024-04-02,groceries,63.40\n3| 2024-04-05,transport,28.00";
        let found = column_call("sum(expenses.csv.amount)", [expenses]).unwrap();
        assert_eq!(found.named, "expenses.csv.amount");
        assert_eq!(found.column, "amount");
        assert_eq!(found.text, "sum(63.40, 28.00)");
        let frame = column_call("mean(df['amount'])", [expenses]).unwrap();
        assert_eq!(frame.text, "mean(63.40, 28.00)");
        assert_eq!(column_call("sum(expenses.csv.total)", [expenses]), None);
        // Only the last part: a file named like a column is no column.
        let sales = "1| sales,revenue_eur\n2| 3,120\n3| 5,80";
        assert_eq!(column_call("sum(sales.csv.revenue)", [sales]), None);
        assert_eq!(column_call("sum(revenue-sales)", [sales]), None);
    }

    #[test]
    fn markdown_tables_and_listed_columns_are_read_too() {
        let markdown = "| city | score |\n|---|---|\n| Lyon | 7.5 |\n| Nice | 8 |\n";
        assert_eq!(
            column_call("avg(scores)", [markdown]).unwrap().text,
            "avg(7.5, 8)"
        );
        let grep = "sales.csv:1: region,amount\nsales.csv: column `amount` (3 rows): 120, 75.5, 300; sum 495.5, mean 165.1667";
        assert_eq!(
            column_call("sum(amount)", [grep]).unwrap().text,
            "sum(120, 75.5, 300)"
        );
    }

    #[test]
    fn only_list_and_count_functions_of_the_name_are_rewritten() {
        let found = column_call("sum(notes) / sqrt(notes) + (notes)", [NOTES]).unwrap();
        assert_eq!(found.text, "sum(12, 15, 9, 14) / sqrt(notes) + (notes)");
        let semicolons = "Schüler;Note\nA;12,5\nB;1.009\n";
        assert_eq!(
            column_call("mean(Note)", [semicolons]).unwrap().text,
            "mean(12.5, 1009)"
        );
    }

    #[test]
    fn no_column_no_numbers_or_no_name_is_none() {
        // No such column.
        assert!(column_call("sum(prices)", [NOTES]).is_none());
        // A column that is not all numbers.
        assert!(column_call("sum(eleve)", [NOTES]).is_none());
        // Numbers, or a list, are no name.
        assert!(column_call("sum(12, 15) / count(3)", [NOTES]).is_none());
        // A call that filters its rows in words is no sum to show.
        assert!(
            column_call(
                "sum(note) for line in lines where line['eleve'] == 'Ana'",
                [NOTES]
            )
            .is_none()
        );
        // A name outside a list function is left alone.
        assert!(column_call("note * 2", [NOTES]).is_none());
        assert!(column_call("sum(notes)", std::iter::empty()).is_none());
    }
}
