//! A unit the question asks its answer in (`in Fahrenheit`, `en millas`,
//! `in Fuß`), and a tool result that gives the quantity in another unit
//! of the same kind (`100 degrees Celsius`, `8,849 metres`). Asked for
//! the boiling point of water in Fahrenheit, the 1.5B model found it in
//! Celsius, searched again twice for a Fahrenheit figure that no entry
//! has, and answered in Celsius. The first such result gets a note: the
//! unit asked, the unit found, and how one converts to the other, so
//! the next call computes the conversion.

use serde::{Deserialize, Serialize};

/// A kind of quantity: units convert only within one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
enum Kind {
    Temperature,
    Length,
    Mass,
    Volume,
}

/// A unit: its kind, the name a note gives it, and the words that write
/// it (lower case; scripts without spaces are matched inside words).
struct Unit {
    kind: Kind,
    name: &'static str,
    words: &'static [&'static str],
}

/// The units a question may ask for and a result may give.
const UNITS: &[Unit] = &[
    Unit {
        kind: Kind::Temperature,
        name: "degrees Celsius",
        words: &[
            "celsius",
            "centigrade",
            "цельсия",
            "цельсию",
            "摂氏",
            "摄氏",
            "santigrat",
        ],
    },
    Unit {
        kind: Kind::Temperature,
        name: "degrees Fahrenheit",
        words: &["fahrenheit", "фаренгейта", "фаренгейту", "華氏", "华氏"],
    },
    Unit {
        kind: Kind::Temperature,
        name: "kelvin",
        words: &["kelvin", "kelvins", "кельвинах", "кельвина"],
    },
    Unit {
        kind: Kind::Length,
        name: "kilometres",
        words: &[
            "km",
            "kilometre",
            "kilometres",
            "kilometer",
            "kilometers",
            "kilómetros",
            "kilomètres",
            "kilometri",
            "quilômetros",
            "quilómetros",
            "kilometrów",
            "километрах",
            "километров",
            "キロメートル",
            "公里",
            "千米",
        ],
    },
    Unit {
        kind: Kind::Length,
        name: "metres",
        words: &[
            "metre",
            "metres",
            "meter",
            "meters",
            "metros",
            "mètres",
            "metri",
            "metrów",
            "метрах",
            "метров",
            "メートル",
        ],
    },
    Unit {
        kind: Kind::Length,
        name: "miles",
        words: &[
            "mile",
            "miles",
            "mi",
            "millas",
            "milles",
            "miglia",
            "milhas",
            "meilen",
            "mijl",
            "mijlen",
            "milach",
            "милях",
            "миль",
            "マイル",
            "英里",
        ],
    },
    Unit {
        kind: Kind::Length,
        name: "feet",
        words: &[
            "feet",
            "foot",
            "ft",
            "pieds",
            "piedi",
            "pés",
            "fuß",
            "fuss",
            "voet",
            "stopach",
            "футах",
            "футов",
            "フィート",
            "英尺",
        ],
    },
    Unit {
        kind: Kind::Mass,
        name: "kilograms",
        words: &[
            "kg",
            "kilogram",
            "kilograms",
            "kilogramme",
            "kilogrammes",
            "kilogramos",
            "chilogrammi",
            "quilogramas",
            "kilogramach",
            "килограммах",
            "килограммов",
            "キログラム",
            "公斤",
            "千克",
        ],
    },
    // Only the abbreviations: "pounds", "libras", "livres", "Pfund" are
    // as often money (and "livres" books).
    Unit {
        kind: Kind::Mass,
        name: "pounds",
        words: &["lb", "lbs"],
    },
    Unit {
        kind: Kind::Volume,
        name: "litres",
        words: &[
            "litre",
            "litres",
            "liter",
            "liters",
            "litros",
            "litri",
            "litrach",
            "литрах",
            "литров",
            "リットル",
        ],
    },
    Unit {
        kind: Kind::Volume,
        name: "US gallons",
        words: &[
            "gallon",
            "gallons",
            "gal",
            "galones",
            "gallonen",
            "galões",
            "galloni",
            "галлонах",
            "галлонов",
            "ガロン",
            "加仑",
        ],
    },
];

/// Words that put the unit an answer is wanted in before it (`in`, `en`,
/// `into`), at most two words before it (`in degrees Fahrenheit`).
const ASKED_IN: &[&str] = &[
    "in", "into", "to", "en", "em", "auf", "w", "в", "во", "naar",
];

/// What the run knows of a unit the question asks its answer in.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(super) struct UnitAsked {
    /// The name of the unit asked (in [`UNITS`]), if any.
    asked: Option<String>,
    /// A result was given its note (once per run).
    noted: bool,
}

impl UnitAsked {
    /// Reads `question` for a unit its answer is asked in.
    pub(super) fn of(question: &str) -> Self {
        let lower = with_unit_names(question);
        let words: Vec<&str> = lower
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .collect();
        // `in <unit>`, `in degrees <unit>`; not `in 5 miles`, a quantity
        // given, not the unit asked.
        let spaced = words.iter().enumerate().find_map(|(i, word)| {
            let unit = unit_of_word(word)?;
            let before = &words[i.saturating_sub(2)..i];
            let asked_in = before.iter().rposition(|w| ASKED_IN.contains(w))?;
            let between = &before[asked_in + 1..];
            (!between
                .iter()
                .any(|w| w.chars().any(|c| c.is_ascii_digit())))
            .then_some(unit)
        });
        // In a script without spaces, a unit alone: with two (a quantity
        // in one, the answer in the other) which is asked is not read.
        let unspaced = match unspaced_units(&lower).as_slice() {
            [one] => Some(*one),
            _ => None,
        };
        Self {
            asked: spaced.or(unspaced).map(|u| UNITS[u].name.to_string()),
            noted: false,
        }
    }

    /// Whether a result may still get the note: a unit is asked, and no
    /// result has had the note yet.
    pub(super) fn pending(&self) -> bool {
        self.asked.is_some() && !self.noted
    }

    /// The note for a tool result that gives a quantity in another unit
    /// of the kind asked, and not in the unit asked: the first such
    /// result only. `computing` names the tool to convert with.
    pub(super) fn note(&mut self, result: &str, computing: Option<&str>) -> Option<String> {
        let asked = UNITS
            .iter()
            .position(|u| Some(u.name) == self.asked.as_deref())?;
        if self.noted {
            return None;
        }
        let lower = with_unit_names(result);
        let given: Vec<usize> = units_in(&lower);
        if given.contains(&asked) {
            return None;
        }
        let found = given
            .into_iter()
            .find(|&u| UNITS[u].kind == UNITS[asked].kind)?;
        self.noted = true;
        let (to, from) = (&UNITS[asked], &UNITS[found]);
        let how = conversion(from.name, to.name)?;
        let with = computing.map_or_else(String::new, |tool| format!(" with {tool}"));
        Some(format!(
            "\n(Note: the question asks for {}, and this gives {}: convert it{with} ({how}).)",
            to.name, from.name
        ))
    }
}

/// The index of the unit `word` writes, by a whole word.
fn unit_of_word(word: &str) -> Option<usize> {
    UNITS.iter().position(|u| u.words.contains(&word))
}

/// The units written in a script without spaces or cases (`華氏`,
/// `マイル`), found inside longer runs of text, in [`UNITS`] order.
fn unspaced_units(text: &str) -> Vec<usize> {
    let uncased =
        |w: &str| !w.is_ascii() && w.chars().all(|c| !c.is_lowercase() && !c.is_uppercase());
    (0..UNITS.len())
        .filter(|&u| {
            UNITS[u]
                .words
                .iter()
                .any(|w| uncased(w) && text.contains(w))
        })
        .collect()
}

/// `text` in lower case, with the degree signs written as the units'
/// names (`°F`, `℉`).
fn with_unit_names(text: &str) -> String {
    text.to_lowercase()
        .replace("°f", " fahrenheit ")
        .replace("°c", " celsius ")
        .replace('℉', " fahrenheit ")
        .replace('℃', " celsius ")
}

/// The units `text` (lower case) writes, each once, in [`UNITS`] order.
fn units_in(text: &str) -> Vec<usize> {
    let words: Vec<&str> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let mut found: Vec<usize> = words.iter().filter_map(|w| unit_of_word(w)).collect();
    found.extend(unspaced_units(text));
    found.sort_unstable();
    found.dedup();
    found
}

/// How a quantity in `from` is written in `to`.
fn conversion(from: &str, to: &str) -> Option<&'static str> {
    Some(match (from, to) {
        ("degrees Celsius", "degrees Fahrenheit") => "°F = °C × 9 / 5 + 32",
        ("degrees Fahrenheit", "degrees Celsius") => "°C = (°F − 32) × 5 / 9",
        ("degrees Celsius", "kelvin") => "K = °C + 273.15",
        ("kelvin", "degrees Celsius") => "°C = K − 273.15",
        ("degrees Fahrenheit", "kelvin") => "K = (°F − 32) × 5 / 9 + 273.15",
        ("kelvin", "degrees Fahrenheit") => "°F = (K − 273.15) × 9 / 5 + 32",
        ("kilometres", "miles") => "1 mile = 1.609344 kilometres: divide by 1.609344",
        ("miles", "kilometres") => "1 mile = 1.609344 kilometres: multiply by 1.609344",
        ("metres", "feet") => "1 foot = 0.3048 metres: divide by 0.3048",
        ("feet", "metres") => "1 foot = 0.3048 metres: multiply by 0.3048",
        ("kilometres", "feet") => "1 foot = 0.3048 metres, 1 kilometre = 1000 metres",
        ("feet", "kilometres") => "1 foot = 0.3048 metres, 1 kilometre = 1000 metres",
        ("metres", "miles") => "1 mile = 1609.344 metres: divide by 1609.344",
        ("miles", "metres") => "1 mile = 1609.344 metres: multiply by 1609.344",
        ("metres", "kilometres") => "1 kilometre = 1000 metres: divide by 1000",
        ("kilometres", "metres") => "1 kilometre = 1000 metres: multiply by 1000",
        ("miles", "feet") => "1 mile = 5280 feet: multiply by 5280",
        ("feet", "miles") => "1 mile = 5280 feet: divide by 5280",
        ("kilograms", "pounds") => "1 pound = 0.45359237 kilograms: divide by 0.45359237",
        ("pounds", "kilograms") => "1 pound = 0.45359237 kilograms: multiply by 0.45359237",
        ("litres", "US gallons") => "1 US gallon = 3.785411784 litres: divide by 3.785411784",
        ("US gallons", "litres") => "1 US gallon = 3.785411784 litres: multiply by 3.785411784",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_result_in_another_unit_of_the_kind_asked_gets_a_note_once() {
        let mut asked =
            UnitAsked::of("What's the boiling point of H2O at sea level, in Fahrenheit?");
        let result = "Water: Water boils at 100 degrees Celsius at sea level.";
        assert_eq!(
            asked.note(result, Some("calculator")).as_deref(),
            Some(
                "\n(Note: the question asks for degrees Fahrenheit, and this gives degrees Celsius: \
                 convert it with calculator (°F = °C × 9 / 5 + 32).)"
            )
        );
        assert_eq!(asked.note(result, Some("calculator")), None, "once per run");
    }

    #[test]
    fn units_are_read_in_several_languages() {
        for (question, result, unit) in [
            (
                "¿Cuánto mide el Everest en kilómetros?",
                "5.5 miles",
                "kilometres",
            ),
            (
                "Wie lang ist der Amazonas in Meilen?",
                "about 6,400 kilometres long",
                "miles",
            ),
            (
                "Quelle est la hauteur de la tour en pieds ?",
                "330 metres",
                "feet",
            ),
            ("How heavy is it in lbs?", "it weighs 12 kg", "pounds"),
            (
                "Какова температура кипения воды по Фаренгейту? Ответ в градусах Фаренгейта",
                "100 degrees Celsius",
                "Fahrenheit",
            ),
            (
                "水の沸点は華氏で何度ですか？",
                "100 degrees Celsius",
                "Fahrenheit",
            ),
        ] {
            let mut asked = UnitAsked::of(question);
            let note = asked.note(result, None);
            assert!(
                note.as_deref().is_some_and(|n| n.contains(unit)),
                "{question}: {note:?}"
            );
        }
    }

    #[test]
    fn no_unit_asked_the_unit_given_or_another_kind_is_no_note() {
        for (question, result) in [
            ("How tall is Mount Everest?", "8,849 metres"),
            ("How tall is Mount Everest in metres?", "8,849 metres"),
            ("How far is it in miles?", "it weighs 12 kg"),
            ("How many km is a marathon?", "42 miles"),
            ("What is the boiling point in Fahrenheit?", "212 °F, 100 °C"),
            ("What is the boiling point in Fahrenheit?", "212℉"),
            ("How many kilometres in 5 miles?", "8.05 kilometres"),
            (
                "What does 1 kg of coffee cost in pounds?",
                "12 euros per kg",
            ),
            ("这条路长5公里，合多少英里？", "5 kilometres"),
            ("How far is the Moon in miles?", "384,400 km (238,855 mi)"),
        ] {
            let mut asked = UnitAsked::of(question);
            assert_eq!(asked.note(result, None), None, "{question}");
        }
    }
}
