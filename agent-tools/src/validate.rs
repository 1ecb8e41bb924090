//! Argument validation against a tool's JSON Schema, compiled once, with
//! error messages a model can act on: which field, and what was expected.

use std::sync::Arc;

use agent_core::ToolError;
use agent_core::numerals::plain_numbers;
use jsonschema::error::{TypeKind, ValidationErrorKind};

use crate::named_args::Field;
use crate::schema::LATIN_TEXT_PATTERN;
use serde_json::Value;

/// At most this many schema violations are reported in one observation.
const MAX_REPORTED: usize = 3;

/// A compiled validator plus what the gateway needs to know of the schema.
#[derive(Clone)]
pub(crate) struct ArgsValidator {
    validator: Arc<jsonschema::Validator>,
    single_string_param: Option<String>,
    single_param: Option<String>,
    field_summary: String,
    allowed_fields: Vec<String>,
    field_types: Vec<Option<String>>,
    required: Vec<String>,
}

impl ArgsValidator {
    /// Compiles `schema`. A schema that is not an object schema is refused.
    pub(crate) fn compile(schema: &Value) -> Result<Self, String> {
        let validator = jsonschema::validator_for(schema).map_err(|e| e.to_string())?;
        let properties = schema.get("properties").and_then(Value::as_object);
        let required: Vec<&str> = schema
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let type_of = |name: &str| {
            properties
                .and_then(|p| p.get(name))
                .and_then(|p| p.get("type"))
                .and_then(single_type)
        };
        let single_string_param = match required.as_slice() {
            [only] if type_of(only) == Some("string") => Some((*only).to_string()),
            _ => None,
        };
        let single_param = match required.as_slice() {
            [only] => Some((*only).to_string()),
            [] => match properties.map(|p| p.keys().collect::<Vec<_>>()) {
                Some(keys) if keys.len() == 1 => Some(keys[0].clone()),
                _ => None,
            },
            _ => None,
        };
        let allowed_fields: Vec<String> = properties
            .map(|p| p.keys().cloned().collect())
            .unwrap_or_default();
        let field_types: Vec<Option<String>> = allowed_fields
            .iter()
            .map(|name| type_of(name).map(str::to_string))
            .collect();
        let field_summary = allowed_fields
            .iter()
            .map(|name| {
                let ty = type_of(name).unwrap_or("any");
                if required.contains(&name.as_str()) {
                    format!("`{name}` ({ty}, required)")
                } else {
                    format!("`{name}` ({ty})")
                }
            })
            .collect::<Vec<_>>()
            .join(", ");
        Ok(Self {
            validator: Arc::new(validator),
            single_string_param,
            single_param,
            field_summary,
            allowed_fields,
            field_types,
            required: required.iter().map(|r| r.to_string()).collect(),
        })
    }

    /// The one required string parameter, if the schema has exactly one required parameter and it is a string.
    pub(crate) fn single_string_param(&self) -> Option<&str> {
        self.single_string_param.as_deref()
    }

    /// The only parameter a scalar can bind to, if there is exactly one.
    pub(crate) fn single_param(&self) -> Option<&str> {
        self.single_param.as_deref()
    }

    /// Removes `null` values of optional arguments: a model that sends
    /// `null` for an argument it does not use means it is absent.
    pub(crate) fn drop_optional_nulls(&self, arguments: &mut Value) {
        if let Value::Object(map) = arguments {
            map.retain(|key, value| !value.is_null() || self.required.contains(key));
        }
    }

    /// The schema's arguments, for reading arguments written as named text.
    pub(crate) fn named_fields(&self) -> Vec<Field<'_>> {
        self.allowed_fields
            .iter()
            .zip(&self.field_types)
            .map(|(name, ty)| Field {
                name,
                is_string: ty.as_deref() == Some("string"),
            })
            .collect()
    }

    /// An argument sent under another name (`pattern` for `glob`, `file`
    /// for `path`): when exactly one required argument is missing, exactly
    /// one argument is not the schema's, and its value has the missing
    /// one's type, it is renamed to the missing one.
    pub(crate) fn rename_lone_stranger(&self, arguments: &mut Value) {
        let Value::Object(map) = arguments else {
            return;
        };
        let mut missing = self.required.iter().filter(|r| !map.contains_key(*r));
        let (Some(wanted), None) = (missing.next(), missing.next()) else {
            return;
        };
        let mut strangers = map.keys().filter(|k| !self.allowed_fields.contains(k));
        let (Some(stranger), None) = (strangers.next(), strangers.next()) else {
            return;
        };
        let stranger = stranger.clone();
        let ty = self
            .allowed_fields
            .iter()
            .position(|name| name == wanted)
            .and_then(|i| self.field_types.get(i)?.as_deref());
        let fits = map.get(&stranger).is_some_and(|value| match ty {
            Some("string") => value.is_string(),
            Some("integer") => value.is_i64() || value.is_u64(),
            Some("number") => value.is_number(),
            Some("boolean") => value.is_boolean(),
            Some("array") => value.is_array(),
            Some("object") => value.is_object(),
            _ => true,
        });
        if fits && let Some(value) = map.remove(&stranger) {
            map.insert(wanted.clone(), value);
        }
    }

    /// Values of the right meaning in the wrong JSON type, turned into the
    /// schema's type where nothing is lost: `"3"` for an integer (also as
    /// other languages write numbers: `"12,5"`, `"1 250"`, `"١٥"`), `3.0`
    /// for an integer, `"true"` for a boolean, a number for a string
    /// (`1984` as text), a list of one value for that value, and an array
    /// or object sent as a JSON string.
    /// Models write these, and formats that put each argument in its own
    /// element cannot say a value's type; anything else is left for
    /// [`check`](Self::check) to report.
    pub(crate) fn coerce_scalars(&self, arguments: &mut Value) {
        let Value::Object(map) = arguments else {
            return;
        };
        for (name, ty) in self.allowed_fields.iter().zip(&self.field_types) {
            let (Some(value), Some(ty)) = (map.get_mut(name), ty.as_deref()) else {
                continue;
            };
            if let Some(coerced) = coerced(value, ty) {
                *value = coerced;
            }
        }
    }

    /// "`a` (integer, required), `b` (integer)".
    pub(crate) fn field_summary(&self) -> &str {
        &self.field_summary
    }

    /// Validates `arguments`; the error names each offending field.
    pub(crate) fn check(&self, arguments: &Value) -> Result<(), ToolError> {
        if self.validator.is_valid(arguments) {
            return Ok(());
        }
        let mut problems: Vec<String> = Vec::new();
        let mut total = 0usize;
        for error in self.validator.iter_errors(arguments) {
            total += 1;
            if problems.len() < MAX_REPORTED {
                problems.push(self.describe(&error));
            }
        }
        if problems.is_empty() {
            return Ok(());
        }
        let more = total.saturating_sub(problems.len());
        let mut message = problems.join("; ");
        if more > 0 {
            message.push_str(&format!(" (and {more} more)"));
        }
        if !self.field_summary.is_empty() {
            message.push_str(&format!(". Expected fields: {}", self.field_summary));
        }
        Err(ToolError::invalid_args(message))
    }

    fn describe(&self, error: &jsonschema::ValidationError<'_>) -> String {
        let path = error.instance_path().to_string();
        let field = field_name(&path);
        match error.kind() {
            ValidationErrorKind::Required { property } => {
                let property = property
                    .as_str()
                    .map(str::to_string)
                    .unwrap_or_else(|| property.to_string());
                match field {
                    Some(parent) => format!("missing required field `{property}` in `{parent}`"),
                    None => format!("missing required field `{property}`"),
                }
            }
            ValidationErrorKind::Type { kind } => {
                let expected = match kind {
                    TypeKind::Single(t) => t.to_string(),
                    TypeKind::Multiple(set) => format!("{set:?}").to_lowercase(),
                };
                let got = describe_type(error.instance());
                match field {
                    Some(field) => format!("field `{field}` must be {expected}, got {got}"),
                    None => format!("the arguments must be {expected}, got {got}"),
                }
            }
            ValidationErrorKind::AdditionalProperties { unexpected } => {
                let names = unexpected
                    .iter()
                    .map(|u| format!("`{}`", clip(u, 40)))
                    .collect::<Vec<_>>()
                    .join(", ");
                let allowed = if self.allowed_fields.is_empty() {
                    "none".to_string()
                } else {
                    self.allowed_fields.join(", ")
                };
                format!("unexpected field {names} (allowed: {allowed})")
            }
            ValidationErrorKind::Pattern { pattern } if pattern == LATIN_TEXT_PATTERN => {
                let what = field.map_or("the value".to_string(), |f| format!("field `{f}`"));
                format!(
                    "{what} must be written in the Latin alphabet: translate it into English words"
                )
            }
            ValidationErrorKind::MaxLength { limit } => {
                let got = error.instance().as_str().map_or(0, |s| s.chars().count());
                let what = field.map_or("the value".to_string(), |f| format!("field `{f}`"));
                format!(
                    "{what} is {got} characters long, more than its limit of {limit}; write it shorter"
                )
            }
            _ => {
                // jsonschema's messages lead with the value: clip the value,
                // not the reason that follows it.
                let message = error.to_string();
                let value = error.instance().to_string();
                let text = match message.strip_prefix(&value) {
                    Some(reason) => clip(&format!("{}{reason}", clip(&value, 60)), 200),
                    None => clip(&message, 160),
                };
                match field {
                    Some(field) => format!("field `{field}`: {text}"),
                    None => text,
                }
            }
        }
    }
}

/// `/a/0/b` → `a[0].b`; the root is `None`.
fn field_name(pointer: &str) -> Option<String> {
    if pointer.is_empty() || pointer == "/" {
        return None;
    }
    let mut out = String::new();
    for part in pointer.trim_start_matches('/').split('/') {
        let part = part.replace("~1", "/").replace("~0", "~");
        if part.chars().all(|c| c.is_ascii_digit()) && !out.is_empty() {
            out.push_str(&format!("[{part}]"));
        } else {
            if !out.is_empty() {
                out.push('.');
            }
            out.push_str(&part);
        }
    }
    Some(out)
}

/// "a string (\"abc\")", "a number (3.5)", "an object"…
/// A schema's `type` when it names one type (`"integer"`, or
/// `["integer", "null"]` for an optional one).
fn single_type(ty: &Value) -> Option<&str> {
    match ty {
        Value::String(ty) => Some(ty),
        Value::Array(types) => {
            let mut named = types
                .iter()
                .filter_map(Value::as_str)
                .filter(|t| *t != "null");
            match (named.next(), named.next()) {
                (Some(only), None) => Some(only),
                _ => None,
            }
        }
        _ => None,
    }
}

/// `value` in the JSON type `ty`, when it is another type and converts
/// without loss; `None` otherwise.
fn coerced(value: &Value, ty: &str) -> Option<Value> {
    match (ty, value) {
        // One value in a list, where one value is asked for.
        ("string" | "integer" | "number" | "boolean", Value::Array(items)) => {
            match items.as_slice() {
                [Value::Array(_) | Value::Object(_) | Value::Null] => None,
                [only] => coerced(only, ty).or_else(|| Some(only.clone())),
                _ => None,
            }
        }
        ("string", Value::Number(_) | Value::Bool(_)) => Some(Value::String(value.to_string())),
        ("integer", Value::String(text)) => plain_numbers(text.trim())
            .parse::<i64>()
            .ok()
            .map(Value::from),
        ("integer", Value::Number(n)) if !n.is_i64() && !n.is_u64() => {
            let f = n.as_f64()?;
            let whole = f.fract() == 0.0 && f.abs() < 9.0e15;
            whole.then(|| Value::from(f as i64))
        }
        ("number", Value::String(text)) => {
            let text = plain_numbers(text.trim());
            let text = text.as_ref();
            match text.parse::<i64>() {
                Ok(n) => Some(Value::from(n)),
                Err(_) => text
                    .parse::<f64>()
                    .ok()
                    .and_then(serde_json::Number::from_f64)
                    .map(Value::Number),
            }
        }
        ("boolean", Value::String(text)) => match text.trim().to_ascii_lowercase().as_str() {
            "true" => Some(Value::Bool(true)),
            "false" => Some(Value::Bool(false)),
            _ => None,
        },
        ("array" | "object", Value::String(text)) => {
            let parsed = serde_json::from_str::<Value>(text.trim()).ok()?;
            let fits =
                (ty == "array" && parsed.is_array()) || (ty == "object" && parsed.is_object());
            fits.then_some(parsed)
        }
        _ => None,
    }
}

pub(crate) fn describe_type(value: &Value) -> String {
    match value {
        Value::Null => "null".to_string(),
        Value::Bool(b) => format!("a boolean ({b})"),
        Value::Number(n) => format!("a number ({n})"),
        Value::String(s) => format!("a string ({:?})", clip(s, 40)),
        Value::Array(_) => "an array".to_string(),
        Value::Object(_) => "an object".to_string(),
    }
}

fn clip(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        text.to_string()
    } else {
        let cut: String = text.chars().take(max).collect();
        format!("{cut}…")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn coercion_takes_only_what_converts_without_loss() {
        assert_eq!(coerced(&json!("[1, 2]"), "array"), Some(json!([1, 2])));
        assert_eq!(
            coerced(&json!("{\"a\": 1}"), "object"),
            Some(json!({"a": 1}))
        );
        assert_eq!(coerced(&json!("{\"a\": 1}"), "array"), None);
        assert_eq!(coerced(&json!(" 2.5 "), "number"), Some(json!(2.5)));
        assert_eq!(coerced(&json!("NaN"), "number"), None);
        assert_eq!(coerced(&json!("TRUE"), "boolean"), Some(json!(true)));
        assert_eq!(coerced(&json!(1e300), "integer"), None);
        assert_eq!(coerced(&json!(7), "integer"), None);
        // Numbers as other languages write them, and one value in a list.
        assert_eq!(coerced(&json!("12,5"), "number"), Some(json!(12.5)));
        assert_eq!(coerced(&json!("1 250"), "integer"), Some(json!(1250)));
        assert_eq!(coerced(&json!("١٥"), "integer"), Some(json!(15)));
        assert_eq!(coerced(&json!("1.234"), "integer"), None);
        assert_eq!(coerced(&json!(["2+2"]), "string"), Some(json!("2+2")));
        assert_eq!(coerced(&json!(["4"]), "integer"), Some(json!(4)));
        assert_eq!(coerced(&json!(["a", "b"]), "string"), None);
        assert_eq!(coerced(&json!([["a"]]), "string"), None);
        assert_eq!(single_type(&json!(["integer", "null"])), Some("integer"));
        assert_eq!(single_type(&json!(["integer", "string"])), None);
    }
}
