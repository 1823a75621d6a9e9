//! `cn parse` end to end: the real binary on files and stdin.

use std::io::Write;
use std::process::{Command, Stdio};

use serde_json::{json, Value};

fn cn_parse_stdin(input: &str, args: &[&str]) -> (Value, i32) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_cn"))
        .arg("parse")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    (serde_json::from_slice(&out.stdout).unwrap(), out.status.code().unwrap())
}

#[test]
fn every_case_of_the_issue() {
    let md = "\
I'll do three things.

```yaml
tool: reply
message: \"LGTM\"
```

~~~YML
- tool: read_file
  path: a.md
- tool: noop
  reason: done
~~~

    tool: indented (not a call)

```python
tool = 'not yaml'
```

1. in a list

   ````yaml
   tool: listed
   ````

> ```yaml
> tool: quoted
> ```

```yaml
tool: [broken
```

```yaml
no_tool: here
```

```yaml
tool: unclosed
runs: to the end
";
    let (v, code) = cn_parse_stdin(md, &[]);
    assert_eq!(code, 0);
    assert_eq!(
        v,
        json!([
            {"tool": "reply", "params": {"message": "LGTM"}},
            {"tool": "read_file", "params": {"path": "a.md"}},
            {"tool": "noop", "params": {"reason": "done"}},
            {"tool": "listed", "params": {}},
            {"tool": "quoted", "params": {}},
            {"error": v[5]["error"], "block": 4, "line": 31},
            {"error": v[6]["error"], "block": 5, "line": 35},
            {"tool": "unclosed", "params": {"runs": "to the end"}},
        ])
    );
    assert!(v[5]["error"].as_str().unwrap().contains("not valid YAML"));
    assert!(v[6]["error"].as_str().unwrap().contains("no `tool`"));
}

#[test]
fn file_dash_and_empty_input() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("answer.md");
    std::fs::write(&f, "```yaml\ntool: x\n```\n").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_cn")).arg("parse").arg(&f).output().unwrap();
    assert!(out.status.success());
    assert_eq!(serde_json::from_slice::<Value>(&out.stdout).unwrap(), json!([{"tool": "x", "params": {}}]));

    let (v, code) = cn_parse_stdin("```yaml\ntool: y\n```\n", &["-"]);
    assert_eq!((v, code), (json!([{"tool": "y", "params": {}}]), 0));

    let (v, code) = cn_parse_stdin("just prose, no calls", &[]);
    assert_eq!((v, code), (json!([]), 0));
}

#[test]
fn unreadable_file_is_an_error_naming_it() {
    let out = Command::new(env!("CARGO_BIN_EXE_cn")).args(["parse", "/nonexistent/answer.md"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "a file that cannot be read is bad input");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("/nonexistent/answer.md"), "{err}");
}

#[test]
fn version_and_help() {
    let out = Command::new(env!("CARGO_BIN_EXE_cn")).arg("--version").output().unwrap();
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), format!("cn {}", env!("CARGO_PKG_VERSION")));
    let out = Command::new(env!("CARGO_BIN_EXE_cn")).arg("--help").output().unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("parse"));
}
