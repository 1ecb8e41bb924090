//! Tables among the files (`.csv`, `.tsv`, markdown tables in any text,
//! and JSON files written one record per line): their cells, their rows
//! labelled with the header's names, and the sums a `grep` adds for a
//! column named by the pattern or for the rows that matched.

use std::ops::Range;
use std::path::Path;

use agent_core::numerals::one_dot_group_numbers;

/// The cell separator of a table whose first line names its columns
/// (`.csv`: `,`, or `;` when its header has more of those, as
/// spreadsheets in much of Europe write it; `.tsv`: a tab); `None` for
/// other files.
pub(super) fn table_separator(path: &Path, text: &str) -> Option<char> {
    let extension = path.extension().and_then(|e| e.to_str())?;
    if extension.eq_ignore_ascii_case("csv") {
        let header = text.lines().next().unwrap_or_default();
        let semicolons = header.matches(';').count();
        Some(if semicolons > header.matches(',').count() {
            ';'
        } else {
            ','
        })
    } else if extension.eq_ignore_ascii_case("tsv") {
        Some('\t')
    } else {
        None
    }
}

/// Whether the table `text` (cells split on `separator`) writes its
/// numbers with a decimal comma: when a cell shows one (`92,10`); else,
/// in a `;`-separated table, as spreadsheets in much of Europe write
/// them, unless a cell shows a decimal point (`8.99`, not the `8.412` of
/// a group of thousands).
pub(super) fn decimal_comma_in<'a>(
    separator: char,
    lines: impl IntoIterator<Item = &'a str>,
) -> bool {
    let mut decimal_point = false;
    for cell in lines.into_iter().flat_map(|line| cells(line, separator)) {
        if written_with_decimal_comma(&cell) {
            return true;
        }
        decimal_point |= written_with_decimal_point(&cell);
    }
    separator == ';' && !decimal_point
}

/// `8.99`: digits, a point, digits other than a group of three.
fn written_with_decimal_point(cell: &str) -> bool {
    let cell = cell.trim_matches(CURRENCY_SIGNS).trim();
    cell.split_once('.').is_some_and(|(whole, fraction)| {
        !whole.is_empty()
            && whole
                .trim_start_matches('-')
                .bytes()
                .all(|b| b.is_ascii_digit())
            && fraction.len() != 3
            && !fraction.is_empty()
            && fraction.bytes().all(|b| b.is_ascii_digit())
    })
}

/// A markdown table in a text (`| name | name |`, a `|---|---|` line,
/// then its rows).
#[derive(Debug, PartialEq)]
pub(super) struct PipeTable {
    /// The indexes of the lines of its rows.
    pub(super) rows: Range<usize>,
    /// Its column names.
    pub(super) names: Vec<String>,
    /// Whether its numbers are written with a decimal comma (a cell such
    /// as `92,10`).
    pub(super) decimal_comma: bool,
}

/// The markdown tables in `text`.
pub(super) fn pipe_tables(text: &str) -> Vec<PipeTable> {
    let lines: Vec<&str> = text.lines().collect();
    let is_row = |line: &str| line.trim_start().starts_with('|');
    let mut tables = Vec::new();
    let mut n = 0;
    while n + 1 < lines.len() {
        if !(is_row(lines[n]) && is_rule(lines[n + 1])) {
            n += 1;
            continue;
        }
        let start = n + 2;
        let end = (start..lines.len())
            .find(|&i| !is_row(lines[i]))
            .unwrap_or(lines.len());
        let decimal_comma = decimal_comma_in('|', lines[start..end].iter().copied());
        tables.push(PipeTable {
            rows: start..end,
            names: cells(lines[n], '|'),
            decimal_comma,
        });
        n = end;
    }
    tables
}

/// `|---|:---:|`: the line under a markdown table's header.
fn is_rule(line: &str) -> bool {
    let line = line.trim();
    line.contains('-')
        && line.contains('|')
        && line.chars().all(|c| matches!(c, '|' | '-' | ':' | ' '))
}

/// `92,10`: digits, a comma, one or two digits (a group of thousands has
/// three).
fn written_with_decimal_comma(cell: &str) -> bool {
    let cell = cell.trim_matches(CURRENCY_SIGNS).trim();
    cell.split_once(',').is_some_and(|(whole, fraction)| {
        !whole.is_empty()
            && whole
                .trim_start_matches('-')
                .bytes()
                .all(|b| b.is_ascii_digit() || b == b'.')
            && (1..=2).contains(&fraction.len())
            && fraction.bytes().all(|b| b.is_ascii_digit())
    })
}

/// Fields a JSON record is summed by, at most (wider ones are not).
const MAX_RECORD_FIELDS: usize = 32;

/// The object a line of a JSON file holds whole (`{"item": …, "units":
/// 12},` in a list written one record per line, or a JSON Lines row),
/// as a row: its keys and its values' text.
pub(super) fn json_record(line: &str) -> Option<Vec<(String, String)>> {
    let line = line.trim().trim_end_matches(',');
    if !line.starts_with('{') {
        return None;
    }
    let serde_json::Value::Object(object) = serde_json::from_str(line).ok()? else {
        return None;
    };
    if object.len() > MAX_RECORD_FIELDS {
        return None;
    }
    let fields = object.into_iter().map(|(key, value)| {
        let text = match value {
            serde_json::Value::String(text) => text,
            other => other.to_string(),
        };
        (key, text)
    });
    Some(fields.collect())
}

/// The summary of a grep's matching JSON records (see
/// [`matching_rows_summary`]), by the first record's keys; a record
/// without one of them has an empty cell there, so that column is not
/// summed.
pub(super) fn matching_records_summary(
    records: &[(usize, Vec<(String, String)>)],
) -> Option<String> {
    let (_, first) = records.first()?;
    let names: Vec<String> = first.iter().map(|(key, _)| key.clone()).collect();
    let rows: Vec<(usize, Vec<String>)> = records
        .iter()
        .map(|(line, fields)| {
            let cells = names
                .iter()
                .map(|name| {
                    fields
                        .iter()
                        .find(|(key, _)| key == name)
                        .map(|(_, text)| text.clone())
                        .unwrap_or_default()
                })
                .collect();
            (*line, cells)
        })
        .collect();
    matching_rows_summary(&rows, &names, false)
}

/// Columns a row is shown with names for, at most.
pub(super) const MAX_LABELLED_COLUMNS: usize = 16;

/// `name: value | name: value` for a row (its cells) with as many cells
/// as the header names; `None` otherwise.
pub(super) fn labelled_row(values: &[String], names: &[String]) -> Option<String> {
    if values.len() != names.len() || names.len() > MAX_LABELLED_COLUMNS {
        return None;
    }
    let row = names
        .iter()
        .zip(values)
        .map(|(name, value)| format!("{name}: {value}"))
        .collect::<Vec<_>>()
        .join(" | ");
    Some(row.chars().take(300).collect())
}

/// Values shown at most for a column.
pub(super) const MAX_COLUMN_VALUES: usize = 100;

/// The cells of one line of a table, split on its separator, with
/// double-quoted cells (which may hold the separator) unquoted; a
/// markdown row's (`|`) outer pipes are no cells' edges.
pub(super) fn cells(line: &str, separator: char) -> Vec<String> {
    let line = if separator == '|' {
        let line = line.trim();
        let line = line.strip_prefix('|').unwrap_or(line);
        line.strip_suffix('|').unwrap_or(line)
    } else {
        line
    };
    let mut cells = Vec::new();
    let mut cell = String::new();
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' if quoted && chars.peek() == Some(&'"') => {
                cell.push('"');
                chars.next();
            }
            '"' => quoted = !quoted,
            c if c == separator && !quoted => cells.push(std::mem::take(&mut cell)),
            c => cell.push(c),
        }
    }
    cells.push(cell);
    cells.into_iter().map(|c| c.trim().to_string()).collect()
}

/// `column `NAME`: v1, v2, …` for the one column of the table `text`
/// whose name `regex` matches; `None` when it matches none or several.
pub(super) fn column_values(text: &str, path: &Path, regex: &regex::Regex) -> Option<String> {
    let separator = table_separator(path, text)?;
    let mut lines = text.lines();
    let header = cells(lines.next()?, separator);
    let rows: Vec<&str> = lines.collect();
    let decimal_comma = decimal_comma_in(separator, rows.iter().copied());
    named_column(&header, &rows, separator, decimal_comma, regex)
}

/// The same for a markdown table of `text` whose header `regex` matches
/// one column of.
pub(super) fn pipe_column_values(text: &str, regex: &regex::Regex) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    pipe_tables(text).iter().find_map(|table| {
        let rows = lines.get(table.rows.clone())?;
        named_column(&table.names, rows, '|', table.decimal_comma, regex)
    })
}

/// `column `NAME`: v1, v2, …` (and its sums) for the one column of
/// `header` that `regex` matches, over the table's `rows` (lines split on
/// `separator`); `None` when it matches none or several.
fn named_column(
    header: &[String],
    rows: &[&str],
    separator: char,
    decimal_comma: bool,
    regex: &regex::Regex,
) -> Option<String> {
    let mut named = header.iter().enumerate().filter(|(_, h)| regex.is_match(h));
    let (index, name) = named.next()?;
    if named.next().is_some() {
        return None;
    }
    let rows: Vec<String> = rows
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| cells(l, separator).get(index).cloned().unwrap_or_default())
        .collect();
    let mut shown: Vec<String> = rows
        .iter()
        .take(MAX_COLUMN_VALUES)
        .map(|v| v.chars().take(60).collect())
        .collect();
    if rows.len() > MAX_COLUMN_VALUES {
        shown.push(format!("… {} more", rows.len() - MAX_COLUMN_VALUES));
    }
    Some(format!(
        "column `{name}` ({} rows): {}{}",
        rows.len(),
        shown.join(", "),
        column_summary(&rows, decimal_comma)
    ))
}

/// `; sum …, mean …` for a column whose every cell is a plain number
/// (a small model asked for a column usually wants to add it up, and
/// adds badly); empty otherwise. `decimal_comma`: how the table writes
/// its numbers.
pub(super) fn column_summary(rows: &[String], decimal_comma: bool) -> String {
    if !decimal_comma && dots_left_open(rows.iter().map(String::as_str)) {
        return String::new();
    }
    let numbers: Option<Vec<f64>> = rows.iter().map(|v| plain_value(v, decimal_comma)).collect();
    match numbers {
        Some(numbers) if numbers.len() >= 2 => {
            let sum: f64 = numbers.iter().sum();
            let mean = sum / numbers.len() as f64;
            format!("; sum {}, mean {}", plain_number(sum), plain_number(mean))
        }
        _ => String::new(),
    }
}

/// Whether cells read with a decimal point leave open what a dot means:
/// a cell is one group of three digits after a dot (`2.400`: thousands
/// in Italian or German, two point four in English), and no cell shows a
/// decimal point another way (`8.99`, `0.125`). Such a column gets no
/// sum: the agent computes it, reading the numbers the way its question
/// writes them, where a sum of `2.4 + 1.02 + 450` would be taken as
/// found.
fn dots_left_open<'a>(mut cells: impl Iterator<Item = &'a str> + Clone) -> bool {
    cells.clone().any(one_dot_group)
        && !cells.any(|cell| written_with_decimal_point(cell) || cell.trim().starts_with("0."))
}

/// `2.400`: one to three digits, not a lone `0`, a point and three digits.
fn one_dot_group(cell: &str) -> bool {
    let cell = cell.trim_matches(CURRENCY_SIGNS).trim();
    let cell = cell.strip_prefix('-').unwrap_or(cell);
    one_dot_group_numbers(cell) == [cell]
}

/// A number without float noise: up to four decimals, trailing zeros cut.
pub(super) fn plain_number(x: f64) -> String {
    let s = format!("{x:.4}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" { "0".into() } else { s.to_string() }
}

/// Currency signs a cell's number may carry before or after it.
const CURRENCY_SIGNS: [char; 6] = ['€', '$', '£', '¥', '₹', '₽'];

/// The value of a cell written as a plain number: digits, a minus sign,
/// a decimal mark, digit groups, maybe a currency sign (`€ 61.35`,
/// `1,290.50 $`). A table with a decimal comma groups with points
/// (`61,35`, `1.290,50`); other tables the other way round. `None` for
/// anything else.
fn plain_value(cell: &str, decimal_comma: bool) -> Option<f64> {
    let plain = cell
        .trim()
        .trim_start_matches(CURRENCY_SIGNS)
        .trim_end_matches(CURRENCY_SIGNS)
        .trim();
    let (group, decimal) = if decimal_comma {
        ('.', ',')
    } else {
        (',', '.')
    };
    let (sign, digits) = match plain.strip_prefix('-') {
        Some(rest) => ("-", rest),
        None => ("", plain),
    };
    let (whole, fraction) = match digits.split_once(decimal) {
        Some((whole, fraction)) => (whole, Some(fraction)),
        None => (digits, None),
    };
    let mut groups = whole.split(group);
    let first = groups.next()?;
    let grouped_right = groups.all(|g| g.len() == 3 && g.bytes().all(|b| b.is_ascii_digit()));
    let whole_right = !first.is_empty()
        && first.bytes().all(|b| b.is_ascii_digit())
        && (first.len() <= 3 || !whole.contains(group));
    let fraction_right =
        fraction.is_none_or(|f| !f.is_empty() && f.bytes().all(|b| b.is_ascii_digit()));
    if !(grouped_right && whole_right && fraction_right) {
        return None;
    }
    let number = format!(
        "{sign}{}{}",
        whole.replace(group, ""),
        fraction.map(|f| format!(".{f}")).unwrap_or_default()
    );
    number.parse::<f64>().ok()
}

/// Numeric columns summed up over a grep's matching rows, at most.
const MAX_SUMMED_COLUMNS: usize = 4;

/// `the N matching rows: `col` sum …, mean …, highest … (line L: label),
/// lowest …` for each column whose every matching cell is a plain
/// number, when a table has two matching rows or more (`rows`: line
/// number and cells, as many as `names`); `None` otherwise. A small
/// model asked which row is highest, or what some rows add up to, picks
/// the first row or adds badly. The label of a row is its text cells
/// that differ between the matching rows (the region, not the month
/// every row shares).
pub(super) fn matching_rows_summary(
    rows: &[(usize, Vec<String>)],
    names: &[String],
    decimal_comma: bool,
) -> Option<String> {
    if rows.len() < 2 {
        return None;
    }
    let column = |i: usize| rows.iter().map(move |(_, cells)| cells[i].as_str());
    let all_numbers = |i: usize| column(i).all(|cell| plain_value(cell, decimal_comma).is_some());
    let numeric: Vec<usize> = (0..names.len())
        .filter(|&i| all_numbers(i) && (decimal_comma || !dots_left_open(column(i))))
        .collect();
    let labels: Vec<usize> = (0..names.len())
        .filter(|&i| !all_numbers(i))
        .filter(|&i| column(i).any(|cell| cell != rows[0].1[i]))
        .collect();
    let label = |(line, cells): &(usize, Vec<String>)| -> String {
        let text: Vec<&str> = labels.iter().map(|&i| cells[i].as_str()).collect();
        let text: String = text.join(", ").chars().take(60).collect();
        if text.is_empty() {
            format!("line {line}")
        } else {
            format!("line {line}: {text}")
        }
    };
    let summaries: Vec<String> = numeric
        .iter()
        .take(MAX_SUMMED_COLUMNS)
        .map(|&i| {
            let value =
                |row: &(usize, Vec<String>)| plain_value(&row.1[i], decimal_comma).unwrap_or(0.0);
            let sum: f64 = rows.iter().map(value).sum();
            let mean = sum / rows.len() as f64;
            let mut text = format!(
                "`{}` sum {}, mean {}",
                names[i],
                plain_number(sum),
                plain_number(mean)
            );
            let highest = rows.iter().max_by(|a, b| value(a).total_cmp(&value(b)));
            let lowest = rows.iter().min_by(|a, b| value(a).total_cmp(&value(b)));
            if let (Some(high), Some(low)) = (highest, lowest)
                && value(high) > value(low)
            {
                text.push_str(&format!(
                    ", highest {} ({}), lowest {} ({})",
                    high.1[i],
                    label(high),
                    low.1[i],
                    label(low)
                ));
            }
            text
        })
        .collect();
    let span = labels
        .iter()
        .find_map(|&i| date_span(column(i)))
        .map(|(first, last)| format!(", {first} to {last}"))
        .unwrap_or_default();
    (!summaries.is_empty()).then(|| {
        format!(
            "the {} matching rows{span}: {}",
            rows.len(),
            summaries.join("; ")
        )
    })
}

/// The earliest and the latest of `cells` as written, when every one is
/// a date (`2024-03`, `2024-03-14`, `14/03/2024`, `14.03.2024`, a time
/// after it read past) and they are not all one: the sum of matching
/// rows is the sum over that span, which a question about one month of
/// it does not ask for (asked how many blue kettles sold in March, the
/// 1.5B model answered with the sum of the quarter's three months).
/// Dates written with `/` are read day first when a first part is over
/// twelve, month first when a second one is, and not at all when no part
/// says which (`02/10/2024` and `10/02/2024`).
fn date_span<'a>(cells: impl Iterator<Item = &'a str>) -> Option<(&'a str, &'a str)> {
    let mut dated: Vec<(DateParts, &str)> = Vec::new();
    for cell in cells {
        dated.push((date_parts(cell)?, cell));
    }
    let slashed = dated.iter().any(|(d, _)| d.slashed);
    let day_first = dated.iter().any(|(d, _)| d.slashed && d.first > 12);
    let month_first = dated.iter().any(|(d, _)| d.slashed && d.second > 12);
    let month_first = match (slashed, day_first, month_first) {
        (false, _, _) | (true, true, false) => false,
        (true, false, true) => true,
        _ => return None,
    };
    let key = |d: &DateParts| d.ordered(month_first);
    let first = dated.iter().min_by_key(|(d, _)| key(d))?;
    let last = dated.iter().max_by_key(|(d, _)| key(d))?;
    let (first_key, last_key) = (key(&first.0)?, key(&last.0)?);
    (first_key != last_key).then_some((first.1, last.1))
}

/// A cell written as a date: year first with `-` (`first` the month,
/// `second` the day, 0 when not written), or the year last with `/` or
/// `.` (`first` and `second` the two parts before it).
struct DateParts {
    year: u32,
    first: u32,
    second: u32,
    year_first: bool,
    slashed: bool,
}

impl DateParts {
    /// Year, month and day, for ordering; `None` when the month is no
    /// month.
    fn ordered(&self, month_first: bool) -> Option<(u32, u32, u32)> {
        let (month, day) = if self.year_first || month_first {
            (self.first, self.second)
        } else {
            (self.second, self.first)
        };
        ((1..=12).contains(&month) && day <= 31).then_some((self.year, month, day))
    }
}

/// The parts of a cell written as a date (a time after it read past).
fn date_parts(cell: &str) -> Option<DateParts> {
    let date = cell.trim().split(['T', ' ']).next()?;
    let parts: Vec<&str> = date.split(['-', '/', '.']).collect();
    let number = |p: &str, digits: std::ops::RangeInclusive<usize>| {
        (digits.contains(&p.len()) && p.bytes().all(|b| b.is_ascii_digit()))
            .then(|| p.parse::<u32>().ok())
            .flatten()
    };
    let dashed = date.contains('-');
    let parts = match parts.as_slice() {
        [y, m] if dashed => DateParts {
            year: number(y, 4..=4)?,
            first: number(m, 1..=2)?,
            second: 0,
            year_first: true,
            slashed: false,
        },
        [y, m, d] if dashed => DateParts {
            year: number(y, 4..=4)?,
            first: number(m, 1..=2)?,
            second: number(d, 1..=2)?,
            year_first: true,
            slashed: false,
        },
        [a, b, y] if !dashed => DateParts {
            year: number(y, 4..=4)?,
            first: number(a, 1..=2)?,
            second: number(b, 1..=2)?,
            year_first: false,
            slashed: date.contains('/'),
        },
        _ => return None,
    };
    // A dotted date is day first; either way its parts must make one.
    parts
        .ordered(parts.slashed && parts.second > 12)
        .map(|_| parts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_date_span_is_read_only_from_dates_it_can_order() {
        let span = |cells: &[&'static str]| date_span(cells.iter().copied());
        assert_eq!(span(&["2024-03", "2024-01"]), Some(("2024-01", "2024-03")));
        assert_eq!(
            span(&["14/03/2024", "02/03/2024"]),
            Some(("02/03/2024", "14/03/2024"))
        );
        assert_eq!(
            span(&["03/14/2024", "03/02/2024"]),
            Some(("03/02/2024", "03/14/2024"))
        );
        assert_eq!(
            span(&["14.03.2024", "2.3.2024"]),
            Some(("2.3.2024", "14.03.2024"))
        );
        // Which part is the month cannot be told; codes are no dates.
        assert_eq!(span(&["02/10/2024", "10/02/2024"]), None);
        assert_eq!(span(&["2024-001", "2024-007"]), None);
        assert_eq!(span(&["2024-13", "2024-01"]), None);
        assert_eq!(span(&["2024-03", "2024-03"]), None);
    }

    #[test]
    fn a_csv_separated_by_semicolons_is_read_so() {
        let path = Path::new("a.csv");
        assert_eq!(table_separator(path, "a;b;c\n1;2;3"), Some(';'));
        assert_eq!(table_separator(path, "a,b;c\n1,2;3"), Some(','));
        assert_eq!(table_separator(Path::new("a.tsv"), "a;b;c"), Some('\t'));
        assert_eq!(table_separator(Path::new("a.txt"), "a;b;c"), None);
    }

    #[test]
    fn a_tables_decimal_mark_is_read_from_its_cells() {
        assert!(decimal_comma_in(';', ["a;1.290", "b;8.412"]));
        assert!(!decimal_comma_in(';', ["a;1.085", "b;8.99"]));
        assert!(decimal_comma_in(',', ["a,\"92,10\""]));
        assert!(!decimal_comma_in(',', ["a,1.290", "b,8"]));
        assert!(decimal_comma_in('|', ["| a | 92,10 |"]));
    }

    #[test]
    fn a_column_whose_dots_may_be_thousands_is_not_summed() {
        let cells = |cells: &[&str]| cells.iter().map(|c| c.to_string()).collect::<Vec<_>>();
        // Two point four or two thousand four hundred: no sum.
        assert_eq!(
            column_summary(&cells(&["2.400", "1.020", "450"]), false),
            ""
        );
        // A decimal point written another way settles it.
        assert_eq!(
            column_summary(&cells(&["2.400", "1.25", "450"]), false),
            "; sum 453.65, mean 151.2167"
        );
        assert_eq!(
            column_summary(&cells(&["2.400", "0.500"]), false),
            "; sum 2.9, mean 1.45"
        );
        // So does a table that writes decimal commas.
        assert_eq!(
            column_summary(&cells(&["2.400", "1.020", "450"]), true),
            "; sum 3870, mean 1290"
        );
    }

    #[test]
    fn numbers_are_read_as_the_table_writes_them() {
        assert_eq!(plain_value("61,35", true), Some(61.35));
        assert_eq!(plain_value("1.290,5", true), Some(1290.5));
        assert_eq!(plain_value("8.412", true), Some(8412.0));
        assert_eq!(plain_value("-3", true), Some(-3.0));
        assert_eq!(plain_value("€ 12,00", true), Some(12.0));
        assert_eq!(plain_value("8.99", false), Some(8.99));
        assert_eq!(plain_value("1,290.50 $", false), Some(1290.5));
        assert_eq!(plain_value("412", false), Some(412.0));
        // Not numbers, or not written the table's way.
        for (cell, decimal_comma) in [
            ("8.99", true),
            ("12,5", false),
            ("1,29", false),
            ("12/08", false),
            ("", false),
            ("-", false),
            ("2024-05", false),
            ("1.2.3", false),
            ("A-101", false),
        ] {
            assert_eq!(plain_value(cell, decimal_comma), None, "{cell:?}");
        }
    }

    #[test]
    fn markdown_tables_are_found_with_their_names() {
        let text = "# Costs\n\n| Month | Power (€) |\n|---|:---:|\n| Jan | 92,10 |\n| Feb | 88,45 |\n\nnotes\n| a | b |\n| x | y |\n";
        assert_eq!(
            pipe_tables(text),
            vec![PipeTable {
                rows: 4..6,
                names: vec!["Month".into(), "Power (€)".into()],
                decimal_comma: true,
            }]
        );
        assert_eq!(cells("| Jan | 92,10 |", '|'), ["Jan", "92,10"]);
        let english = "| item | kg |\n| --- | --- |\n| tent | 1,250 |\n| stove | 0.5 |";
        assert!(!pipe_tables(english)[0].decimal_comma);
    }
}
