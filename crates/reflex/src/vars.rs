//! Variables in step parameters: a whole string `$name` is the variable's value (any JSON
//! type), and `{{name}}` inside a string is its text. `name` may be a dotted path into a
//! JSON value (`{{pr.title}}`, `{{items.0}}`). Variables are what the trigger extracted,
//! `text`, `source`, `item`, `me` (the agent's own name), `intent`, and the earlier steps'
//! outputs.

use serde_json::{Map, Value};

/// The root names a value refers to (for checking a pipeline before it runs).
pub fn references(v: &Value) -> Vec<String> {
    let mut out = Vec::new();
    walk(v, &mut |s| {
        if let Some(name) = whole(s) {
            out.push(root(name).to_string());
        }
        let mut rest = s;
        while let Some((name, after)) = next_placeholder(rest) {
            out.push(root(name).to_string());
            rest = after;
        }
    });
    out
}

fn walk(v: &Value, f: &mut dyn FnMut(&str)) {
    match v {
        Value::String(s) => f(s),
        Value::Array(a) => a.iter().for_each(|x| walk(x, f)),
        Value::Object(o) => o.values().for_each(|x| walk(x, f)),
        _ => {}
    }
}

/// `$name` as the whole string. The name starts with a letter or `_`, so a JSONPath such as
/// `$.items[0]` or an amount like `$5` stays text.
fn whole(s: &str) -> Option<&str> {
    let name = s.strip_prefix('$')?;
    (name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.'))
    .then_some(name)
}

fn root(path: &str) -> &str {
    path.split('.').next().unwrap_or(path)
}

/// The next `{{ name }}` in `s`: the trimmed name and the text after it.
fn next_placeholder(s: &str) -> Option<(&str, &str)> {
    let start = s.find("{{")?;
    let end = s[start + 2..].find("}}")? + start + 2;
    Some((s[start + 2..end].trim(), &s[end + 2..]))
}

/// Look a dotted path up in the variables.
pub fn lookup<'a>(env: &'a Map<String, Value>, path: &str) -> Option<&'a Value> {
    let mut parts = path.split('.');
    let mut v = env.get(parts.next()?)?;
    for p in parts {
        v = match v {
            Value::Object(o) => o.get(p)?,
            Value::Array(a) => a.get(p.parse::<usize>().ok()?)?,
            _ => return None,
        };
    }
    Some(v)
}

/// A value as text in a template: strings as they are, null as nothing, the rest as JSON.
pub fn as_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// A variable a parameter names that is not defined, as written (`$name`, `{{name}}`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Undefined {
    #[error("`${0}` is not defined")]
    Whole(String),
    #[error("`{{{{{0}}}}}` is not defined")]
    Placeholder(String),
}

/// Replace variables in a parameter value. `missing` is asked for a path the variables do not
/// hold (a dry run's stand-in for a field of a step it did not run); a variable neither has is
/// an error naming it.
pub fn substitute_or(
    v: &Value,
    env: &Map<String, Value>,
    missing: &dyn Fn(&str) -> Option<Value>,
) -> Result<Value, Undefined> {
    let find = |name: &str| lookup(env, name).cloned().or_else(|| missing(name));
    Ok(match v {
        Value::String(s) => {
            if let Some(name) = whole(s) {
                return find(name).ok_or_else(|| Undefined::Whole(name.to_string()));
            }
            if !s.contains("{{") {
                return Ok(v.clone());
            }
            let mut out = String::with_capacity(s.len());
            let mut rest = s.as_str();
            while let Some(start) = rest.find("{{") {
                let Some((name, after)) = next_placeholder(rest) else { break };
                out.push_str(&rest[..start]);
                let value = find(name).ok_or_else(|| Undefined::Placeholder(name.to_string()))?;
                out.push_str(&as_text(&value));
                rest = after;
            }
            out.push_str(rest);
            Value::String(out)
        }
        Value::Array(a) => Value::Array(a.iter().map(|x| substitute_or(x, env, missing)).collect::<Result<_, _>>()?),
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, x)| Ok((k.clone(), substitute_or(x, env, missing)?)))
                .collect::<Result<_, Undefined>>()?,
        ),
        other => other.clone(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn substitute(v: &Value, env: &Map<String, Value>) -> Result<Value, Undefined> {
        substitute_or(v, env, &|_| None)
    }

    #[test]
    fn whole_values_keep_their_type_and_placeholders_become_text() {
        let env = json!({"url": "http://x", "n": 3, "pr": {"title": "Fix", "labels": ["a", "b"]}});
        let env = env.as_object().unwrap();
        assert_eq!(substitute(&json!("$n"), env).unwrap(), json!(3));
        assert_eq!(substitute(&json!("$pr.title"), env).unwrap(), json!("Fix"));
        assert_eq!(
            substitute(&json!("get {{url}} x{{ n }}y {{pr.labels.1}}"), env).unwrap(),
            json!("get http://x x3y b")
        );
        assert_eq!(substitute(&json!({"a": ["{{url}}"]}), env).unwrap(), json!({"a": ["http://x"]}));
        assert_eq!(substitute(&json!("costs $5 {{"), env).unwrap(), json!("costs $5 {{"));
        assert_eq!(substitute(&json!("$.pr.title"), env).unwrap(), json!("$.pr.title"));
        assert_eq!(substitute(&json!("$5"), env).unwrap(), json!("$5"));
        assert_eq!(substitute(&json!("{{nope}}"), env).unwrap_err().to_string(), "`{{nope}}` is not defined");
        assert_eq!(substitute(&json!("$nope"), env).unwrap_err().to_string(), "`$nope` is not defined");
        assert_eq!(references(&json!({"a": "$url", "b": "{{x.y}} {{z}}"})), ["url", "x", "z"]);
        // A stand-in for what the variables lack, only where they lack it.
        let missing = |p: &str| (p == "done.answer").then(|| json!("(not run)"));
        assert_eq!(
            substitute_or(&json!("{{done.answer}} {{url}}"), env, &missing).unwrap(),
            json!("(not run) http://x")
        );
        assert_eq!(substitute_or(&json!("$done.answer"), env, &missing).unwrap(), json!("(not run)"));
        assert!(substitute_or(&json!("{{done.other}}"), env, &missing).is_err());
    }
}
