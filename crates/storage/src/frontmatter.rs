//! Markdown with YAML frontmatter: the format of threads, items, loop artifacts and notes.
//!
//! ```text
//! ---
//! key: value
//! ---
//! body
//! ```
//!
//! The frontmatter is kept as an ordered YAML mapping so a document read and written back
//! keeps its keys in the order a person wrote them.

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_yaml_ng::{Mapping, Value};

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Doc {
    pub front: Mapping,
    pub body: String,
}

/// Why a text's frontmatter cannot be used. The YAML library's error is in the message, so
/// it is not also the source (`cn` prints the chain).
#[derive(Debug, thiserror::Error)]
pub enum FrontmatterError {
    #[error("the frontmatter opened on line 1 is never closed with `---`")]
    Unclosed,
    #[error("the frontmatter is not valid YAML{at}: {error}")]
    Yaml { at: String, error: serde_yaml_ng::Error },
    #[error("the frontmatter is not a mapping of keys to values")]
    NotMapping,
    #[error("frontmatter field `{field}`: {error}")]
    Field { field: String, error: serde_yaml_ng::Error },
    /// Too much nesting to parse at a bounded cost (a stranger's `[[[[…`).
    #[error("the frontmatter is refused: {0}")]
    TooComplex(cn_compute::yaml::TooComplex),
}

impl Doc {
    pub fn new(front: Mapping, body: impl Into<String>) -> Self {
        Doc { front, body: body.into() }
    }

    /// Split and parse. A document without a leading `---` line has empty frontmatter.
    pub fn parse(text: &str) -> Result<Doc, FrontmatterError> {
        let Some((yaml, body)) = split(text)? else {
            return Ok(Doc { front: Mapping::new(), body: text.to_string() });
        };
        let front = if yaml.trim().is_empty() {
            Mapping::new()
        } else {
            cn_compute::yaml::check(yaml).map_err(FrontmatterError::TooComplex)?;
            match serde_yaml_ng::from_str::<Value>(yaml) {
                Ok(Value::Mapping(m)) => m,
                Ok(Value::Null) => Mapping::new(),
                Ok(_) => return Err(FrontmatterError::NotMapping),
                Err(e) => {
                    let at = e
                        .location()
                        // +1: the frontmatter starts on the line after the opening `---`.
                        .map(|l| format!(" at line {}, column {}", l.line() + 1, l.column()))
                        .unwrap_or_default();
                    return Err(FrontmatterError::Yaml { at, error: e });
                }
            }
        };
        Ok(Doc { front, body: body.to_string() })
    }

    /// True when the text starts with a frontmatter block.
    pub fn has_frontmatter(text: &str) -> bool {
        matches!(split(text), Ok(Some(_)))
    }

    pub fn get(&self, key: &str) -> Option<&Value> {
        self.front.get(key)
    }

    pub fn get_str(&self, key: &str) -> Option<&str> {
        self.front.get(key).and_then(Value::as_str)
    }

    pub fn set(&mut self, key: &str, value: impl Into<Value>) {
        self.front.insert(Value::String(key.into()), value.into());
    }

    /// The frontmatter as a typed value; errors name the field.
    pub fn front_as<T: DeserializeOwned>(&self) -> Result<T, FrontmatterError> {
        serde_yaml_ng::from_value(Value::Mapping(self.front.clone())).map_err(|error| {
            let field = error.to_string().split('`').nth(1).unwrap_or("?").to_string();
            FrontmatterError::Field { field, error }
        })
    }

    /// Build a document from a serializable frontmatter value.
    pub fn from_front<T: Serialize>(front: &T, body: impl Into<String>) -> Result<Doc, FrontmatterError> {
        match serde_yaml_ng::to_value(front) {
            Ok(Value::Mapping(m)) => Ok(Doc { front: m, body: body.into() }),
            Ok(_) => Err(FrontmatterError::NotMapping),
            Err(error) => Err(FrontmatterError::Yaml { at: String::new(), error }),
        }
    }

    /// Render back to text. An empty frontmatter renders as the body alone.
    pub fn render(&self) -> String {
        if self.front.is_empty() {
            return self.body.clone();
        }
        let yaml = serde_yaml_ng::to_string(&self.front).unwrap_or_default();
        let mut out = String::with_capacity(yaml.len() + self.body.len() + 16);
        out.push_str("---\n");
        out.push_str(&yaml);
        if !yaml.ends_with('\n') {
            out.push('\n');
        }
        out.push_str("---\n");
        if !self.body.is_empty() && !self.body.starts_with('\n') {
            out.push('\n');
        }
        out.push_str(&self.body);
        out
    }
}

/// `Some((yaml, body))` when `text` opens with a `---` line; an unclosed block is an error.
fn split(text: &str) -> Result<Option<(&str, &str)>, FrontmatterError> {
    let text_nobom = text.strip_prefix('\u{feff}').unwrap_or(text);
    let rest = match text_nobom.strip_prefix("---\n").or_else(|| text_nobom.strip_prefix("---\r\n")) {
        Some(r) => r,
        None => return Ok(None),
    };
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        let trimmed = line.trim_end_matches(['\n', '\r']);
        if trimmed == "---" || trimmed == "..." {
            let yaml = &rest[..offset];
            let mut body = &rest[offset + line.len()..];
            // One blank line after the closing fence is layout, not content.
            body = body.strip_prefix("\r\n").or_else(|| body.strip_prefix('\n')).unwrap_or(body);
            return Ok(Some((yaml, body)));
        }
        offset += line.len();
    }
    Err(FrontmatterError::Unclosed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_keeps_order_and_body() {
        let text = "---\nid: abc123\nfrom: pi\ncadence: inbox\n---\n\nPlease review\n";
        let doc = Doc::parse(text).unwrap();
        assert_eq!(doc.get_str("from"), Some("pi"));
        assert_eq!(doc.body, "Please review\n");
        assert_eq!(doc.render(), text);
    }

    #[test]
    fn no_frontmatter_is_all_body() {
        let doc = Doc::parse("# Task\n").unwrap();
        assert!(doc.front.is_empty());
        assert_eq!(doc.body, "# Task\n");
    }

    #[test]
    fn errors_say_what_is_wrong() {
        assert!(matches!(Doc::parse("---\na: 1\n").unwrap_err(), FrontmatterError::Unclosed));
        let e = Doc::parse("---\na: 1\nb: [\n---\nbody").unwrap_err();
        assert!(matches!(e, FrontmatterError::Yaml { .. }), "{e}");
        assert!(e.to_string().contains("line"), "{e}");
        assert!(matches!(Doc::parse("---\n- a\n---\n").unwrap_err(), FrontmatterError::NotMapping));
    }
}
