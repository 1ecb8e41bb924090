//! JSON Schema → grammar: the rules for a JSON value that follows a tool's
//! argument schema.
//!
//! - **Objects**: the declared properties in the schema's order; required
//!   ones always present, optional ones may be left out; no other keys,
//!   whether or not `additionalProperties` is `false` (an object that
//!   declares no properties takes string keys, up to
//!   [`MAX_OBJECT_ENTRIES`], with values that follow `additionalProperties`
//!   when it is a schema).
//! - **Strings**: JSON string syntax with its escapes (no lone
//!   surrogates), at most [`MAX_STRING_CHARS`] characters, or the
//!   schema's `minLength`/`maxLength` when tighter. A `pattern` that is
//!   one character class repeated (`^[…]*$`, such as the Latin-alphabet
//!   query of an English base) limits the characters, with no `\u`
//!   escapes; other patterns and `format` are left to the gateway's
//!   validation.
//! - **Numbers**: JSON integers and numbers with bounded digits; an
//!   integer with a `minimum` of zero or more has no sign.
//! - `boolean`, `null`, `enum` and `const` (their values as compact JSON),
//!   a list of types, `anyOf`/`oneOf` (alternatives), `allOf` (merged),
//!   local `$ref`s (`#/$defs/…`, followed at most [`MAX_JSON_DEPTH`] deep).
//! - **Arrays**: `items`, from `minItems` to `maxItems` (at most
//!   [`MAX_ARRAY_ITEMS`]).
//! - Anything else, or a schema that says nothing, is any JSON value
//!   nested at most [`MAX_JSON_DEPTH`] deep.
//!
//! The tokens themselves (whitespace, strings, numbers) are in `tokens`.

use serde_json::{Map, Value};

use super::ast::{Expr, Grammar, RuleSet, rule_name};
use super::bounds::{MAX_ARRAY_ITEMS, MAX_JSON_DEPTH, MAX_OBJECT_ENTRIES, MAX_STRING_CHARS};
use super::tokens;

/// The grammar of a JSON value that follows `schema` (see the module
/// docs for what is followed and the bounds).
///
/// ```
/// use agent_text::grammar::schema_grammar;
/// use serde_json::json;
///
/// let grammar = schema_grammar(&json!({
///     "type": "object",
///     "properties": {"query": {"type": "string"}},
///     "required": ["query"],
///     "additionalProperties": false
/// }));
/// assert!(grammar.matches(r#"{"query": "x"}"#));
/// assert!(!grammar.matches(r#"{"q": "x"}"#));
/// ```
pub fn schema_grammar(schema: &Value) -> Grammar {
    let mut rules = RuleSet::new();
    let root = SchemaCompiler::new(&mut rules).value(schema, "json");
    rules.finish(root)
}

/// Compiles the schemas of one grammar into rules of `rules`.
pub(crate) struct SchemaCompiler<'r> {
    rules: &'r mut RuleSet,
}

impl<'r> SchemaCompiler<'r> {
    /// A compiler adding to `rules`.
    pub(crate) fn new(rules: &'r mut RuleSet) -> Self {
        Self { rules }
    }

    /// The value `schema` describes; its rules are named after `hint`.
    pub(crate) fn value(&mut self, schema: &Value, hint: &str) -> Expr {
        self.compile(schema, schema, hint, 0)
    }

    /// `schema` within the document `root` (what `$ref`s point into),
    /// `refs` references deep.
    fn compile(&mut self, root: &Value, schema: &Value, hint: &str, refs: u32) -> Expr {
        let Value::Object(map) = schema else {
            return self.any(MAX_JSON_DEPTH);
        };
        if let Some(Value::String(pointer)) = map.get("$ref") {
            let target = pointer.strip_prefix('#').and_then(|p| root.pointer(p));
            return match target {
                Some(target) if refs < MAX_JSON_DEPTH => {
                    let merged = merged_with(map, "$ref", target);
                    let name = pointer.rsplit('/').next().unwrap_or(hint);
                    self.compile(root, &merged, name, refs + 1)
                }
                _ => self.any(MAX_JSON_DEPTH),
            };
        }
        if let Some(Value::Array(parts)) = map.get("allOf") {
            let merged = parts
                .iter()
                .fold(without(map, "allOf"), |acc, part| merge(&acc, part));
            return self.compile(root, &Value::Object(merged), hint, refs);
        }
        if let Some(value) = map.get("const") {
            return json_literal(value);
        }
        if let Some(Value::Array(values)) = map.get("enum")
            && !values.is_empty()
        {
            return Expr::alt(values.iter().map(json_literal));
        }
        for key in ["anyOf", "oneOf"] {
            if let Some(Value::Array(options)) = map.get(key)
                && !options.is_empty()
            {
                let many = options.len() > 1;
                return Expr::alt(options.iter().enumerate().map(|(i, option)| {
                    let hint = if many {
                        format!("{hint}-{}", i + 1)
                    } else {
                        hint.to_string()
                    };
                    self.compile(root, option, &hint, refs)
                }));
            }
        }
        let types: Vec<&str> = match map.get("type") {
            Some(Value::String(t)) => vec![t.as_str()],
            Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
            _ if map.contains_key("properties") => vec!["object"],
            _ if map.contains_key("items") => vec!["array"],
            _ => Vec::new(),
        };
        if types.is_empty() {
            return self.any(MAX_JSON_DEPTH);
        }
        Expr::alt(
            types
                .into_iter()
                .map(|t| self.typed(root, map, t, hint, refs)),
        )
    }

    fn typed(
        &mut self,
        root: &Value,
        map: &Map<String, Value>,
        ty: &str,
        hint: &str,
        refs: u32,
    ) -> Expr {
        match ty {
            "string" => self.string_within(map),
            "integer" => {
                let natural = ["minimum", "exclusiveMinimum"].iter().any(|k| {
                    map.get(*k)
                        .and_then(Value::as_f64)
                        .is_some_and(|m| m >= 0.0)
                });
                if natural {
                    tokens::unsigned(self.rules)
                } else {
                    tokens::integer(self.rules)
                }
            }
            "number" => tokens::number(self.rules),
            "boolean" => tokens::boolean(self.rules),
            "null" => Expr::lit("null"),
            "object" => self.object(root, map, hint, refs),
            "array" => self.array(root, map, hint, refs),
            _ => self.any(MAX_JSON_DEPTH),
        }
    }

    fn object(&mut self, root: &Value, map: &Map<String, Value>, hint: &str, refs: u32) -> Expr {
        let Some(Value::Object(properties)) = map.get("properties") else {
            let values = match map.get("additionalProperties") {
                Some(Value::Bool(false)) => return self.empty_object(),
                Some(schema @ Value::Object(_)) => {
                    self.compile(root, schema, &format!("{hint}-value"), refs)
                }
                _ => self.any(MAX_JSON_DEPTH - 1),
            };
            let keys = tokens::string(self.rules);
            let body = self.entries(keys, values, 0, MAX_OBJECT_ENTRIES, "{", "}");
            return self.rules.define(hint, body);
        };
        let required: Vec<&str> = map
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let mut members: Vec<(Expr, bool)> = Vec::new();
        for (key, schema) in properties {
            let value = self.compile(root, schema, &format!("{hint}-{key}"), refs);
            members.push((self.member(key, value), required.contains(&key.as_str())));
        }
        for key in required.iter().filter(|k| !properties.contains_key(**k)) {
            let value = self.any(MAX_JSON_DEPTH - 1);
            members.push((self.member(key, value), true));
        }
        if members.is_empty() {
            return self.empty_object();
        }
        let ws = tokens::ws(self.rules);
        let body = Expr::seq([
            Expr::lit("{"),
            ws.clone(),
            self.members(members),
            ws,
            Expr::lit("}"),
        ]);
        self.rules.define(hint, body)
    }

    /// `"key": value`.
    fn member(&mut self, key: &str, value: Expr) -> Expr {
        let key = Value::String(key.to_string()).to_string();
        Expr::seq([Expr::lit(key), tokens::colon(self.rules), value])
    }

    /// Members in order, separated by commas: each required one present,
    /// each optional one maybe.
    fn members(&mut self, members: Vec<(Expr, bool)>) -> Expr {
        let comma = tokens::comma(self.rules);
        match members.iter().position(|(_, required)| *required) {
            // Optional members before the first required one carry their
            // comma after them; the rest carry theirs before.
            Some(first) => Expr::seq(members.into_iter().enumerate().map(|(i, (m, required))| {
                if i < first {
                    Expr::opt(Expr::seq([m, comma.clone()]))
                } else if i == first {
                    m
                } else if required {
                    Expr::seq([comma.clone(), m])
                } else {
                    Expr::opt(Expr::seq([comma.clone(), m]))
                }
            })),
            // All optional: any one may come first, then any of the later
            // ones, or none at all.
            None => {
                let firsts = (0..members.len()).map(|i| {
                    Expr::seq(
                        std::iter::once(members[i].0.clone()).chain(
                            members[i + 1..]
                                .iter()
                                .map(|(m, _)| Expr::opt(Expr::seq([comma.clone(), m.clone()]))),
                        ),
                    )
                });
                Expr::opt(Expr::alt(firsts.collect::<Vec<_>>()))
            }
        }
    }

    fn array(&mut self, root: &Value, map: &Map<String, Value>, hint: &str, refs: u32) -> Expr {
        let item = match map.get("items") {
            Some(schema @ (Value::Object(_) | Value::Bool(true))) => {
                self.compile(root, schema, &format!("{hint}-item"), refs)
            }
            _ => self.any(MAX_JSON_DEPTH - 1),
        };
        let item = match item {
            atom @ (Expr::Rule(_) | Expr::Literal(_) | Expr::Class(_)) => atom,
            compound => self.rules.define(&format!("{hint}-item"), compound),
        };
        let max = bound(map, "maxItems").map_or(MAX_ARRAY_ITEMS, |m| m.min(MAX_ARRAY_ITEMS));
        let min = bound(map, "minItems").unwrap_or(0).min(max);
        let body = self.entries(item, Expr::empty(), min, max, "[", "]");
        self.rules.define(hint, body)
    }

    /// `open` + from `min` to `max` comma-separated entries + `close`; an
    /// entry is `key: value`, or `key` alone when `value` is empty.
    fn entries(
        &mut self,
        key: Expr,
        value: Expr,
        min: u32,
        max: u32,
        open: &str,
        close: &str,
    ) -> Expr {
        let ws = tokens::ws(self.rules);
        if max == 0 {
            return Expr::seq([Expr::lit(open), ws, Expr::lit(close)]);
        }
        let entry = if value == Expr::empty() {
            key
        } else {
            Expr::seq([key, tokens::colon(self.rules), value])
        };
        let more = Expr::repeat(
            Expr::seq([tokens::comma(self.rules), entry.clone()]),
            min.saturating_sub(1),
            Some(max - 1),
        );
        let list = Expr::seq([entry, more]);
        let list = if min == 0 { Expr::opt(list) } else { list };
        Expr::seq([Expr::lit(open), ws.clone(), list, ws, Expr::lit(close)])
    }

    fn empty_object(&mut self) -> Expr {
        let ws = tokens::ws(self.rules);
        Expr::seq([Expr::lit("{"), ws, Expr::lit("}")])
    }

    /// Any JSON value, containers nested at most `depth` deep.
    fn any(&mut self, depth: u32) -> Expr {
        if depth == 0 {
            return self.rules.shared("scalar", |rules| {
                Expr::alt([
                    tokens::string(rules),
                    tokens::number(rules),
                    tokens::boolean(rules),
                    Expr::lit("null"),
                ])
            });
        }
        let inner = self.any(depth - 1);
        let string = tokens::string(self.rules);
        let object = self.entries(string, inner.clone(), 0, MAX_OBJECT_ENTRIES, "{", "}");
        let object = self.rules.define(&format!("object-{depth}"), object);
        let array = self.entries(inner.clone(), Expr::empty(), 0, MAX_ARRAY_ITEMS, "[", "]");
        let array = self.rules.define(&format!("array-{depth}"), array);
        let body = Expr::alt([object, array, inner]);
        self.rules.define(&format!("value-{depth}"), body)
    }

    /// A JSON string within the schema's length bounds, and of the
    /// characters of its `pattern` when that is one class repeated.
    fn string_within(&mut self, map: &Map<String, Value>) -> Expr {
        let max = bound(map, "maxLength");
        let min = bound(map, "minLength").unwrap_or(0);
        if let Some(ranges) = map
            .get("pattern")
            .and_then(Value::as_str)
            .and_then(class_pattern)
        {
            let max = max.map_or(MAX_STRING_CHARS, |m| m.min(MAX_STRING_CHARS));
            return tokens::string_in(&ranges, min.min(max), max);
        }
        if max.is_none() && min == 0 {
            return tokens::string(self.rules);
        }
        let max = max.map_or(MAX_STRING_CHARS, |m| m.min(MAX_STRING_CHARS));
        tokens::string_of(self.rules, min.min(max), max)
    }
}

/// The ranges of a `pattern` that is one character class repeated,
/// `^[…]*$`, whose members are `\uXXXX` escapes, ranges of them, or
/// plain characters other than `\`, `]`, `^` and `-`. Any other pattern
/// is `None` and is left to the gateway's validation.
fn class_pattern(pattern: &str) -> Option<Vec<(char, char)>> {
    let body = pattern.strip_prefix("^[")?.strip_suffix("]*$")?;
    let mut chars = body.chars().peekable();
    let one = |chars: &mut std::iter::Peekable<std::str::Chars<'_>>| -> Option<char> {
        match chars.next()? {
            '\\' => {
                if chars.next()? != 'u' {
                    return None;
                }
                let hex: String = (0..4).filter_map(|_| chars.next()).collect();
                u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32)
            }
            ']' | '^' | '-' | '[' => None,
            c => Some(c),
        }
    };
    let mut ranges = Vec::new();
    while chars.peek().is_some() {
        let lo = one(&mut chars)?;
        let hi = if chars.peek() == Some(&'-') {
            chars.next();
            one(&mut chars)?
        } else {
            lo
        };
        if lo > hi {
            return None;
        }
        ranges.push((lo, hi));
    }
    (!ranges.is_empty()).then_some(ranges)
}

/// A JSON value as compact JSON text.
fn json_literal(value: &Value) -> Expr {
    Expr::lit(value.to_string())
}

/// A non-negative integer keyword of `map` (`maxItems`, `minLength`…).
fn bound(map: &Map<String, Value>, key: &str) -> Option<u32> {
    map.get(key)
        .and_then(Value::as_u64)
        .map(|n| u32::try_from(n).unwrap_or(u32::MAX))
}

/// `map` without `key`.
fn without(map: &Map<String, Value>, key: &str) -> Map<String, Value> {
    let mut map = map.clone();
    map.shift_remove(key);
    map
}

/// `target` with the keywords `map` has next to `key` (a `$ref`'s
/// siblings) added.
fn merged_with(map: &Map<String, Value>, key: &str, target: &Value) -> Value {
    Value::Object(merge(&without(map, key), target))
}

/// Two schemas as one: properties in order (the first's, then the
/// second's new ones), required keys together, and the first's value of
/// any other keyword the two share.
fn merge(first: &Map<String, Value>, second: &Value) -> Map<String, Value> {
    let mut out = first.clone();
    let Value::Object(second) = second else {
        return out;
    };
    for (key, value) in second {
        match (key.as_str(), out.get_mut(key), value) {
            ("properties", Some(Value::Object(mine)), Value::Object(theirs)) => {
                for (k, v) in theirs {
                    mine.entry(k.clone()).or_insert_with(|| v.clone());
                }
            }
            ("required", Some(Value::Array(mine)), Value::Array(theirs)) => {
                for r in theirs {
                    if !mine.contains(r) {
                        mine.push(r.clone());
                    }
                }
            }
            (_, Some(_), _) => {}
            (_, None, _) => {
                out.insert(key.clone(), value.clone());
            }
        }
    }
    out
}

/// The hint of a tool's input rule.
pub(crate) fn input_hint(tool: &str) -> String {
    format!("{}-input", rule_name(tool))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn grammar(schema: Value) -> Grammar {
        let mut rules = RuleSet::new();
        let root = SchemaCompiler::new(&mut rules).value(&schema, "args");
        rules.finish(root)
    }

    #[test]
    fn a_pattern_of_one_class_limits_the_characters() {
        let latin = "^[\\u0020-\\u007E\\u00A0-\\u024F]*$";
        assert_eq!(
            class_pattern(latin),
            Some(vec![(' ', '~'), ('\u{a0}', '\u{24f}')])
        );
        assert_eq!(
            class_pattern("^[a-z0-9_]*$"),
            Some(vec![('a', 'z'), ('0', '9'), ('_', '_')])
        );
        for other in [
            "^[a-z]+$", "[a-z]*", "^[^a]*$", "^(a|b)*$", "^[\\d]*$", "^[z-a]*$",
        ] {
            assert_eq!(class_pattern(other), None, "{other}");
        }
        let g = grammar(json!({"type": "string", "pattern": latin, "maxLength": 10}));
        assert!(g.matches("\"Great Wall\""), "{g:?}");
        assert!(g.matches("\"caf\u{e9} \\\"x\\\"\""));
        assert!(!g.matches("\"\u{957f}\u{57ce}\""), "no CJK");
        assert!(!g.matches("\"\\u957f\""), "no \\u escape");
        assert!(!g.matches("\"abcdefghijk\""), "bounded");
        // Any other pattern leaves the string free (the gateway checks it).
        let free = grammar(json!({"type": "string", "pattern": "^a+$"}));
        assert!(free.matches("\"\u{957f}\""));
    }

    #[test]
    fn strings_escape_and_are_bounded() {
        let g = grammar(json!({"type": "string", "maxLength": 3}));
        assert!(g.matches(r#""abc""#));
        assert!(g.matches(r#""\n\u00e9\ud83d\ude00""#));
        assert!(!g.matches(r#""abcd""#));
        assert!(!g.matches(r#""\ud83d""#), "a lone surrogate");
        assert!(!g.matches("\"a\nb\""), "a raw newline");
        assert!(!g.matches(r#""\x""#));
    }

    #[test]
    fn numbers() {
        let int = grammar(json!({"type": "integer"}));
        for ok in ["0", "-12", "9223372036854775807"] {
            assert!(int.matches(ok), "{ok}");
        }
        for bad in ["01", "1.5", "+1", "", "99999999999999999999"] {
            assert!(!int.matches(bad), "{bad}");
        }
        let natural = grammar(json!({"type": "integer", "minimum": 0}));
        assert!(natural.matches("7") && !natural.matches("-7"));
        let num = grammar(json!({"type": "number"}));
        for ok in ["0", "-1.25", "6.02e23", "1E-7", "3"] {
            assert!(num.matches(ok), "{ok}");
        }
        for bad in ["1.", ".5", "1e", "1e999", "NaN"] {
            assert!(!num.matches(bad), "{bad}");
        }
    }

    #[test]
    fn objects_keep_order_and_optional_members() {
        let g = grammar(json!({
            "type": "object",
            "properties": {
                "a": {"type": "integer"},
                "b": {"type": "string"},
                "c": {"type": "boolean"}
            },
            "required": ["b"],
            "additionalProperties": false
        }));
        for ok in [
            r#"{"b":"x"}"#,
            r#"{"a":1,"b":"x"}"#,
            r#"{"a": 1, "b": "x", "c": true}"#,
            "{\n  \"b\": \"x\",\n  \"c\": false\n}",
            r#"{"b":"x","c":true}"#,
        ] {
            assert!(g.matches(ok), "{ok}");
        }
        for bad in [
            r#"{}"#,
            r#"{"a":1}"#,
            r#"{"b":"x","a":1}"#,
            r#"{"b":"x",}"#,
            r#"{,"b":"x"}"#,
            r#"{"b":"x","d":1}"#,
            r#"{"b":1}"#,
            r#"{"b":"x"  }"#,
        ] {
            assert!(!g.matches(bad), "{bad}");
        }
        let all_optional = grammar(json!({
            "type": "object",
            "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}
        }));
        for ok in ["{}", r#"{"a":1}"#, r#"{"b":2}"#, r#"{"a":1,"b":2}"#] {
            assert!(all_optional.matches(ok), "{ok}");
        }
        for bad in [r#"{"b":2,"a":1}"#, r#"{,}"#, r#"{"a":1,}"#] {
            assert!(!all_optional.matches(bad), "{bad}");
        }
    }

    #[test]
    fn enums_consts_arrays_alternatives_and_refs() {
        let g = grammar(json!({
            "type": "object",
            "properties": {
                "kind": {"enum": ["a", "b c", 3]},
                "tag": {"const": "t"},
                "list": {"type": "array", "items": {"type": "integer"}, "minItems": 1, "maxItems": 2},
                "either": {"anyOf": [{"type": "string"}, {"type": "null"}]},
                "node": {"$ref": "#/$defs/Node"}
            },
            "required": ["kind", "tag", "list", "either", "node"],
            "$defs": {"Node": {"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]}}
        }));
        assert!(
            g.matches(r#"{"kind":"b c","tag":"t","list":[1, 2],"either":null,"node":{"x":1}}"#)
        );
        assert!(g.matches(r#"{"kind":3,"tag":"t","list":[1],"either":"s","node":{"x":1}}"#));
        assert!(!g.matches(r#"{"kind":"d","tag":"t","list":[1],"either":null,"node":{"x":1}}"#));
        assert!(!g.matches(r#"{"kind":"a","tag":"u","list":[1],"either":null,"node":{"x":1}}"#));
        assert!(!g.matches(r#"{"kind":"a","tag":"t","list":[],"either":null,"node":{"x":1}}"#));
        assert!(
            !g.matches(r#"{"kind":"a","tag":"t","list":[1,2,3],"either":null,"node":{"x":1}}"#)
        );
        assert!(!g.matches(r#"{"kind":"a","tag":"t","list":[1],"either":1,"node":{"x":1}}"#));
    }

    #[test]
    fn untyped_values_are_bounded_json() {
        let g = grammar(json!({}));
        assert!(g.matches(r#"{"a":[1,{"b":null}],"c":"d"}"#));
        assert!(g.matches("true"));
        assert!(!g.matches(r#"[[[[1]]]]"#), "deeper than the bound");
        assert!(g.matches(r#"[[[1]]]"#));
        let recursive = grammar(json!({
            "$ref": "#/$defs/T",
            "$defs": {"T": {"type": "object", "properties": {"next": {"$ref": "#/$defs/T"}}}}
        }));
        assert!(recursive.matches(r#"{"next":{"next":{}}}"#));
        let map = grammar(json!({"type": "object", "additionalProperties": {"type": "integer"}}));
        assert!(map.matches(r#"{"x":1,"y":2}"#));
        assert!(!map.matches(r#"{"x":"1"}"#));
    }
}
