//! A question that asks for its number to a given count of decimals
//! ("one decimal", "à une décimale", "소수점 한 자리"): each result of a
//! computing call with more decimals than that gets a note with the
//! result rounded as asked. The calculator shows long results "to 2
//! decimals" too, and the 1.5B model, asked for one decimal, answered
//! with those two (`26.82` for `26.8`, `11.29%` for `11.3%`).

use serde::{Deserialize, Serialize};

/// Words for a decimal place (lower case): what follows the count.
const DECIMAL_WORDS: &[&str] = &[
    "decimal",
    "decimals",
    "dp",
    "décimale",
    "décimales",
    "decimales",
    "decimali",
    "decimale",
    "casa decimal",
    "casas decimais",
    "casas decimales",
    "nachkommastelle",
    "nachkommastellen",
    "dezimalstelle",
    "dezimalstellen",
    "decimaal",
    "decimalen",
    "miejsca po przecinku",
    "miejsc po przecinku",
    "знака после запятой",
    "знак после запятой",
    "знаков после запятой",
    "знаку після коми",
    "знаки після коми",
    "ondalık",
    "ondalik",
    "chữ số thập phân",
    "angka desimal",
    "desimal",
];

/// Counts as words (lower case), by value: English, French, Spanish,
/// Italian, Portuguese, German, Dutch, Polish, Russian, Ukrainian,
/// Turkish, Vietnamese, Indonesian.
const COUNT_WORDS: &[(&str, u32)] = &[
    ("one", 1),
    ("single", 1),
    ("two", 2),
    ("three", 3),
    ("une", 1),
    ("un", 1),
    ("deux", 2),
    ("trois", 3),
    ("una", 1),
    ("uno", 1),
    ("dos", 2),
    ("tres", 3),
    ("due", 2),
    ("tre", 3),
    ("uma", 1),
    ("um", 1),
    ("duas", 2),
    ("dois", 2),
    ("três", 3),
    ("eine", 1),
    ("einer", 1),
    ("zwei", 2),
    ("drei", 3),
    ("één", 1),
    ("een", 1),
    ("twee", 2),
    ("drie", 3),
    ("jednego", 1),
    ("jedno", 1),
    ("dwóch", 2),
    ("dwa", 2),
    ("trzech", 3),
    ("одного", 1),
    ("один", 1),
    ("двух", 2),
    ("два", 2),
    ("трёх", 3),
    ("трех", 3),
    ("двох", 2),
    ("трьох", 3),
    ("bir", 1),
    ("iki", 2),
    ("üç", 3),
    ("một", 1),
    ("hai", 2),
    ("ba", 3),
    ("satu", 1),
    ("dua", 2),
    ("tiga", 3),
];

/// Count words that are also the word "a": a count only right after a
/// word that asks for rounding or says "to" (`à une décimale`, `auf eine
/// Nachkommastelle`), not in "as a decimal" (`como un decimal`).
const ARTICLES: &[&str] = &[
    "un", "une", "una", "uno", "um", "uma", "een", "eine", "einer", "bir",
];

/// Words before an article-like count that make it one (see [`ARTICLES`]).
const ROUNDING_CUES: &[&str] = &[
    "à",
    "a",
    "al",
    "con",
    "com",
    "auf",
    "mit",
    "op",
    "tot",
    "met",
    "até",
    "hasta",
    "fino",
    "to",
    "arrondi",
    "arrondis",
    "arrondir",
    "redondea",
    "redondear",
    "redondeado",
    "arrotonda",
    "arrotondato",
    "arredonda",
    "arredondar",
    "runde",
    "runden",
    "gerundet",
    "afronden",
    "rond",
    "yuvarla",
    "yuvarlayın",
];

/// Words after a decimal word that make it a kind of number, not places
/// (`two decimal numbers`).
const NUMBER_WORDS: &[&str] = &[
    "number", "numbers", "getal", "getallen", "sayı", "sayısı", "número", "números", "nombre",
    "nombres", "numero", "numeri", "zahl", "zahlen", "value", "values",
];

/// Phrases of languages written without spaces, each with its count:
/// Chinese, Japanese and Korean.
const UNSPACED_PHRASES: &[(&str, u32)] = &[
    ("一位小数", 1),
    ("1位小数", 1),
    ("两位小数", 2),
    ("二位小数", 2),
    ("2位小数", 2),
    ("小数点以下1桁", 1),
    ("小数点以下一桁", 1),
    ("小数点以下2桁", 2),
    ("小数点以下二桁", 2),
    ("小数点第1位", 1),
    ("小数点第一位", 1),
    ("小数点第2位", 2),
    ("소수점 한 자리", 1),
    ("소수점 첫째 자리", 1),
    ("소수점 1자리", 1),
    ("소수 첫째 자리", 1),
    ("소수점 두 자리", 2),
    ("소수점 둘째 자리", 2),
    ("소수점 2자리", 2),
];

/// The most decimals a question is taken to ask for.
const MAX_DECIMALS: u32 = 6;

/// The count of decimals a question asks its number to, if it asks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct DecimalsAsked(Option<u32>);

impl DecimalsAsked {
    /// What `question` asks: a count (a digit or a word) right before a
    /// word for decimal places, or a phrase that says both.
    pub(super) fn of(question: &str) -> Self {
        let lower = question.to_lowercase();
        if let Some((_, count)) = UNSPACED_PHRASES.iter().find(|(p, _)| lower.contains(p)) {
            return Self(Some(*count));
        }
        let words: Vec<&str> = lower
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .collect();
        for i in 1..words.len() {
            let Some(count) = count_of(words[i - 1]) else {
                continue;
            };
            let phrase_end = DECIMAL_WORDS.iter().find_map(|phrase| {
                let parts: Vec<&str> = phrase.split(' ').collect();
                (words.get(i..i + parts.len()) == Some(parts.as_slice())).then_some(i + parts.len())
            });
            let Some(end) = phrase_end else {
                continue;
            };
            let of_numbers = words.get(end).is_some_and(|w| NUMBER_WORDS.contains(w));
            let article = ARTICLES.contains(&words[i - 1]);
            let cued = i >= 2 && ROUNDING_CUES.contains(&words[i - 2]);
            if !of_numbers && (!article || cued) && count <= MAX_DECIMALS {
                return Self(Some(count));
            }
        }
        Self(None)
    }

    /// The note for a computing call's result (`content`, its
    /// observation, whose first word is the number) when that number has
    /// more decimals than asked: the number rounded as asked, halves away
    /// from zero as the calculator's `round` does. None for a number
    /// written with an exponent, which no count of decimals shows.
    pub(super) fn note(&self, content: &str) -> Option<String> {
        let decimals = self.0?;
        let first = content.split_whitespace().next()?;
        if first.contains(['e', 'E']) {
            return None;
        }
        let value: f64 = first.parse().ok()?;
        let written = first.split_once('.').map_or(0, |(_, d)| d.len());
        if written <= decimals as usize || !value.is_finite() {
            return None;
        }
        let scale = 10f64.powi(i32::try_from(decimals).ok()?);
        let rounded = (value * scale).round() / scale;
        let places = if decimals == 1 { "decimal" } else { "decimals" };
        let width = decimals as usize;
        Some(format!(
            "\n(To {decimals} {places}, as the question asks: {rounded:.width$}.)"
        ))
    }
}

/// The count a word says: digits, or one of [`COUNT_WORDS`].
fn count_of(word: &str) -> Option<u32> {
    if let Ok(n) = word.parse::<u32>() {
        return Some(n);
    }
    COUNT_WORDS
        .iter()
        .find_map(|(w, n)| (*w == word).then_some(*n))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn asked(question: &str) -> Option<u32> {
        DecimalsAsked::of(question).0
    }

    #[test]
    fn a_count_of_decimals_is_read_in_several_languages() {
        assert_eq!(
            asked("What percent of Japan lives in Tokyo? one decimal"),
            Some(1)
        );
        assert_eq!(asked("Round to 2 decimal places."), Some(2));
        assert_eq!(
            asked("Combien de fois l'Everest est-il plus haut ? Arrondis à une décimale."),
            Some(1)
        );
        assert_eq!(asked("Arrotonda a due decimali."), Some(2));
        assert_eq!(asked("Redondea a una cifra: con dos decimales"), Some(2));
        assert_eq!(asked("Auf eine Nachkommastelle runden"), Some(1));
        assert_eq!(asked("с точностью до одного знака после запятой"), Some(1));
        assert_eq!(
            asked("독일 인구가 베를린 인구의 몇 배야? 소수점 한 자리까지"),
            Some(1)
        );
        assert_eq!(asked("保留一位小数"), Some(1));
        assert_eq!(asked("小数点以下2桁で答えて"), Some(2));
        // No count, or no decimals asked.
        assert_eq!(asked("Give the answer as a decimal."), None);
        assert_eq!(asked("How many decimals does pi have?"), None);
        assert_eq!(asked("Add 3 and 4."), None);
        assert_eq!(asked("Expresa 3/8 como un decimal."), None);
        assert_eq!(asked("Schrijf het als een decimaal getal."), None);
        assert_eq!(
            asked("Add the two decimal numbers 3.14159 and 2.71828."),
            None
        );
    }

    #[test]
    fn a_result_with_more_decimals_than_asked_gets_it_rounded() {
        let one = DecimalsAsked(Some(1));
        assert_eq!(
            one.note("26.8151515152 (to 2 decimals: 26.82)").as_deref(),
            Some("\n(To 1 decimal, as the question asks: 26.8.)")
        );
        assert_eq!(one.note("26.8"), None);
        assert_eq!(one.note("27"), None);
        // The sign stays; halves go away from zero; no exponent form.
        assert_eq!(
            one.note("-11.2903").as_deref(),
            Some("\n(To 1 decimal, as the question asks: -11.3.)")
        );
        assert_eq!(
            one.note("26.25").as_deref(),
            Some("\n(To 1 decimal, as the question asks: 26.3.)")
        );
        assert_eq!(one.note("1.23456789012e-6"), None);
        let two = DecimalsAsked(Some(2));
        assert_eq!(
            two.note("1.66766666667").as_deref(),
            Some("\n(To 2 decimals, as the question asks: 1.67.)")
        );
        assert_eq!(DecimalsAsked(None).note("1.2345"), None);
    }
}
