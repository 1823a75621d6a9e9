//! The `cn out` grammar: `cn out <gtd> [op] [flags]`, parsed from the argument list the shell
//! already split (so quotes are the shell's business; a value may hold anything). The forms
//! and their flags come from the ops ([`crate::gtd::KINDS`]); [`grammar`] prints them:
//!
//! ```text
//! cn out do reply    --message TEXT
//! cn out do send     --to PEER --message TEXT [--body TEXT]
//! …
//! cn out delete      --reason TEXT
//! any of them: [--dry-run] [--json]
//! ```
//!
//! Flags come in any order, as `--flag VALUE` or `--flag=VALUE`. The word after a value flag
//! is always its value, even when it starts with a dash. Invariant: anything else — no gtd,
//! an unknown gtd or op, `do` without an op, a missing flag or value, a flag given twice, a
//! flag the form does not take, a stray word — is an [`OutArgsError`] naming the problem
//! and the accepted form.

use serde_json::{Map, Value};

use crate::gtd::{Gtd, Kind, GTD_NAMES, KINDS, OP_NAMES};

/// A parsed `cn out` command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutArgs {
    pub gtd: Gtd,
    /// Validate and print; write nothing.
    pub dry_run: bool,
    /// Print the decision as one flat JSON object.
    pub json: bool,
}

/// Bad `cn out` input: what is wrong, and the form that is accepted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{problem}; usage: {form}")]
pub struct OutArgsError {
    pub problem: String,
    pub form: String,
}

/// The grammar, as `cn out --help` prints it: every form, from the ops.
pub fn grammar() -> String {
    let mut s = String::from("cn out <gtd> [op] [flags] — decide the current item\n\n");
    for k in KINDS {
        s.push_str(&format!("  cn out {:<12}{}\n", k.words(), k.flags()));
    }
    s.push_str("\n  --dry-run  validate and print; write nothing\n");
    s.push_str("  --json     print the decision as one flat JSON object\n");
    s
}

/// `cn out <do|defer|delegate|delete> [op] [flags] [--dry-run] [--json]`
fn form_any() -> String {
    format!("cn out <{}> [op] [flags] [--dry-run] [--json]", GTD_NAMES.join("|"))
}

/// `cn out do <reply|send|…> [flags]`
fn form_do() -> String {
    format!("cn out do <{}> [flags]", OP_NAMES.join("|"))
}

/// The accepted form of one gtd (and op), or the general one.
fn form(gtd: &str, op: Option<&str>) -> String {
    match gtd {
        "do" => op.and_then(|op| Kind::find("do", Some(op))).map_or_else(form_do, Kind::form),
        _ => Kind::find(gtd, None).map_or_else(form_any, Kind::form),
    }
}

/// The form the words so far point at.
fn form_of(words: &[&str]) -> String {
    form(words.first().copied().unwrap_or(""), words.get(1).copied())
}

/// A value flag of any form: its name as the ops spell it.
fn value_flag(name: &str) -> Option<&'static str> {
    KINDS.iter().flat_map(|k| k.fields).find(|f| f.name == name).map(|f| f.name)
}

fn err(problem: impl Into<String>, form: String) -> OutArgsError {
    OutArgsError { problem: problem.into(), form }
}

/// Parse the words after `cn out`.
pub fn parse_out<S: AsRef<str>>(args: &[S]) -> Result<OutArgs, OutArgsError> {
    let mut words: Vec<&str> = Vec::new();
    let mut flags: Vec<(&'static str, String)> = Vec::new();
    let (mut dry_run, mut json) = (false, false);
    // An unknown flag is reported after the words: `do frobnicate --x 1` is about the op.
    let mut unknown: Option<String> = None;
    let mut i = 0;
    while i < args.len() {
        let arg = args[i].as_ref();
        i += 1;
        let Some(flag) = arg.strip_prefix("--") else {
            words.push(arg);
            continue;
        };
        let (name, inline) = match flag.split_once('=') {
            Some((n, v)) => (n, Some(v)),
            None => (flag, None),
        };
        match name {
            "dry-run" | "json" if inline.is_none() => {
                let seen = if name == "json" { &mut json } else { &mut dry_run };
                if *seen {
                    return Err(err(format!("--{name} is given twice"), form_of(&words)));
                }
                *seen = true;
            }
            "dry-run" | "json" => return Err(err(format!("--{name} takes no value"), form_of(&words))),
            _ => {
                let Some(known) = value_flag(name) else {
                    unknown.get_or_insert_with(|| format!("unknown flag `--{name}`"));
                    // Its value, if it has one, is not a word of the form.
                    if inline.is_none() && args.get(i).is_some_and(|v| !v.as_ref().starts_with("--")) {
                        i += 1;
                    }
                    continue;
                };
                let value = match inline {
                    Some(v) => v.to_string(),
                    None => match args.get(i) {
                        Some(v) => {
                            i += 1;
                            v.as_ref().to_string()
                        }
                        None => return Err(err(format!("--{name} needs a value"), form_of(&words))),
                    },
                };
                if flags.iter().any(|(k, _)| *k == known) {
                    return Err(err(format!("--{name} is given twice"), form_of(&words)));
                }
                flags.push((known, value));
            }
        }
    }

    let Some(&gtd) = words.first() else {
        return Err(err(format!("no gtd given (one of {})", GTD_NAMES.join(", ")), form_any()));
    };
    if !GTD_NAMES.contains(&gtd) {
        return Err(err(format!("unknown gtd `{gtd}` (one of {})", GTD_NAMES.join(", ")), form_any()));
    }
    let op = if gtd == "do" {
        match words.get(1) {
            None => return Err(err("`do` needs an operation", form_do())),
            Some(op) if !OP_NAMES.contains(op) => {
                return Err(err(format!("unknown op `{op}` (one of {})", OP_NAMES.join(", ")), form_do()))
            }
            Some(op) => Some(*op),
        }
    } else {
        None
    };
    let Some(kind) = Kind::find(gtd, op) else {
        return Err(err(format!("no form `{}`", words.join(" ")), form_any()));
    };
    let taken = if op.is_some() { 2 } else { 1 };
    if let Some(stray) = words.get(taken) {
        return Err(err(format!("unexpected word `{stray}`"), kind.form()));
    }
    if let Some(problem) = unknown {
        return Err(err(problem, kind.form()));
    }

    // The form's fields, taken one by one; whatever is left over is not part of the form.
    let mut values = Map::new();
    for field in kind.fields {
        match flags.iter().position(|(k, _)| *k == field.name) {
            Some(at) => {
                let (_, value) = flags.remove(at);
                values.insert(field.name.to_string(), Value::String(value));
            }
            None if field.required => return Err(err(format!("missing --{}", field.name), kind.form())),
            None => {}
        }
    }
    if let Some((k, _)) = flags.first() {
        return Err(err(format!("`--{k}` does not belong to this form"), kind.form()));
    }
    // Cannot fail: every field is a string and the values are exactly the fields.
    let gtd =
        kind.build(values).map_err(|e| err(format!("bad fields: {e}", e = cn_compute::Chain(&e)), kind.form()))?;
    Ok(OutArgs { gtd, dry_run, json })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gtd::Op;
    use crate::ops::{Ack, Commit, Defer, Delegate, Delete, Noop, Reply, Send, Surface};

    /// Split like a shell: words separated by spaces, `"…"` quoting (with `\"` escapes).
    fn shell(line: &str) -> Vec<String> {
        let mut out = Vec::new();
        let mut cur = String::new();
        let (mut quoted, mut any) = (false, false);
        let mut chars = line.chars();
        while let Some(c) = chars.next() {
            match c {
                '"' => {
                    quoted = !quoted;
                    any = true;
                }
                '\\' if quoted => cur.extend(chars.next()),
                ' ' if !quoted => {
                    if any || !cur.is_empty() {
                        out.push(std::mem::take(&mut cur));
                    }
                    any = false;
                }
                c => cur.push(c),
            }
        }
        if any || !cur.is_empty() {
            out.push(cur);
        }
        out
    }

    /// The document's `parse_cn_out "cn out …"`.
    fn parse_cn_out(line: &str) -> Gtd {
        let words = shell(line);
        assert_eq!(&words[..2], ["cn", "out"]);
        parse_out(&words[2..]).unwrap_or_else(|e| panic!("{line}: {e}")).gtd
    }

    fn s(v: &str) -> String {
        v.to_string()
    }

    #[test]
    fn every_example_of_the_document_parses_to_its_value() {
        assert_eq!(
            parse_cn_out("cn out do reply --message \"LGTM\""),
            Gtd::Do(Op::Reply(Reply { message: s("LGTM") }))
        );
        assert_eq!(
            parse_cn_out("cn out do send --to pi --message \"hello\""),
            Gtd::Do(Op::Send(Send { to: s("pi"), message: s("hello"), body: None }))
        );
        assert_eq!(
            parse_cn_out("cn out do send --to pi --message \"summary\" --body \"full response\""),
            Gtd::Do(Op::Send(Send { to: s("pi"), message: s("summary"), body: Some(s("full response")) }))
        );
        assert_eq!(
            parse_cn_out("cn out do noop --reason \"acknowledged\""),
            Gtd::Do(Op::Noop(Noop { reason: s("acknowledged") }))
        );
        assert_eq!(
            parse_cn_out("cn out defer --reason \"waiting on review\""),
            Gtd::Defer(Defer { reason: s("waiting on review"), until: None })
        );
        assert_eq!(parse_cn_out("cn out delegate --to pi"), Gtd::Delegate(Delegate { to: s("pi") }));
        assert_eq!(
            parse_cn_out("cn out delete --reason \"duplicate\""),
            Gtd::Delete(Delete { reason: s("duplicate") })
        );
    }

    #[test]
    fn the_table_ops_parse() {
        assert_eq!(parse_cn_out("cn out do ack --reason seen"), Gtd::Do(Op::Ack(Ack { reason: s("seen") })));
        assert_eq!(
            parse_cn_out("cn out do surface --desc \"flaky CI\""),
            Gtd::Do(Op::Surface(Surface { desc: s("flaky CI") }))
        );
        assert_eq!(
            parse_cn_out("cn out do commit --artifact abc123"),
            Gtd::Do(Op::Commit(Commit { artifact: s("abc123") }))
        );
        assert_eq!(
            parse_cn_out("cn out defer --until 2026-01-07T10:00:00Z --reason later"),
            Gtd::Defer(Defer { reason: s("later"), until: Some(s("2026-01-07T10:00:00Z")) })
        );
    }

    #[test]
    fn flags_in_any_order_and_values_hold_quotes_newlines_and_dashes() {
        let a = parse_out(&[
            "--json",
            "do",
            "send",
            "--body",
            "--not a flag\n\"quoted\"",
            "--message=a=b",
            "--to",
            "pi",
            "--dry-run",
        ])
        .unwrap();
        assert!(a.json && a.dry_run);
        assert_eq!(
            a.gtd,
            Gtd::Do(Op::Send(Send { to: s("pi"), message: s("a=b"), body: Some(s("--not a flag\n\"quoted\"")) }))
        );
        let a = parse_out(&["delete", "--reason", "-"]).unwrap();
        assert_eq!(a.gtd, Gtd::Delete(Delete { reason: s("-") }));
        assert!(!a.json && !a.dry_run);
    }

    #[test]
    fn bad_input_names_the_problem_and_the_form() {
        let cases: &[(&[&str], &str, &str)] = &[
            (&[], "no gtd", &form_any()),
            (&["done"], "unknown gtd `done`", &form_any()),
            (&["do"], "`do` needs an operation", &form_do()),
            (&["do", "shout", "--message", "x"], "unknown op `shout`", &form_do()),
            (&["do", "frobnicate", "--x", "1"], "unknown op `frobnicate`", &form_do()),
            (&["delegat", "--x", "1"], "unknown gtd `delegat`", &form_any()),
            (&["do", "reply"], "missing --message", "cn out do reply --message TEXT"),
            (&["do", "reply", "--message"], "--message needs a value", "cn out do reply --message TEXT"),
            (
                &["do", "send", "--to", "pi"],
                "missing --message",
                "cn out do send --to PEER --message TEXT [--body TEXT]",
            ),
            (&["do", "reply", "--message", "x", "--loud"], "unknown flag `--loud`", "cn out do reply --message TEXT"),
            (
                &["do", "reply", "--message", "x", "--to", "pi"],
                "`--to` does not belong",
                "cn out do reply --message TEXT",
            ),
            (
                &["do", "reply", "--message", "x", "--message", "y"],
                "--message is given twice",
                "cn out do reply --message TEXT",
            ),
            (&["do", "reply", "LGTM", "--message", "x"], "unexpected word `LGTM`", "cn out do reply --message TEXT"),
            (&["delegate", "pi"], "unexpected word `pi`", "cn out delegate --to PEER"),
            (&["defer"], "missing --reason", "cn out defer --reason TEXT [--until RFC3339-TIME]"),
            (&["delete", "--reason", "x", "--json=yes"], "--json takes no value", "cn out delete --reason TEXT"),
        ];
        for (args, problem, form) in cases {
            let e = parse_out(args).unwrap_err();
            assert!(e.problem.contains(problem), "{args:?}: {e}");
            assert_eq!(e.form, *form, "{args:?}");
            let line = e.to_string();
            assert!(!line.contains('\n') && line.contains("usage: cn out"), "{line}");
        }
    }

    #[test]
    fn the_grammar_lists_every_form_from_the_ops() {
        assert_eq!(
            grammar(),
            "\
cn out <gtd> [op] [flags] — decide the current item

  cn out do reply    --message TEXT
  cn out do send     --to PEER --message TEXT [--body TEXT]
  cn out do noop     --reason TEXT
  cn out do ack      --reason TEXT
  cn out do surface  --desc TEXT
  cn out do commit   --artifact HASH
  cn out defer       --reason TEXT [--until RFC3339-TIME]
  cn out delegate    --to PEER
  cn out delete      --reason TEXT

  --dry-run  validate and print; write nothing
  --json     print the decision as one flat JSON object
"
        );
        assert_eq!(form_any(), "cn out <do|defer|delegate|delete> [op] [flags] [--dry-run] [--json]");
        assert_eq!(form_do(), "cn out do <reply|send|noop|ack|surface|commit> [flags]");
    }

    #[test]
    fn the_printed_command_parses_back_to_the_same_value() {
        let values = [
            Gtd::Do(Op::Send(Send { to: s("pi"), message: s("a \"b\"\nc"), body: Some(s("--x")) })),
            Gtd::Defer(Defer { reason: s("r"), until: Some(s("2026-01-07T10:00:00Z")) }),
            Gtd::Delegate(Delegate { to: s("pi") }),
        ];
        for g in values {
            // The printed form quotes like Rust's Debug; undo that to get the shell's words.
            let words: Vec<String> = shell(&g.to_command().replace("\\n", "\n"));
            assert_eq!(parse_out(&words).unwrap().gtd, g);
        }
    }
}

#[cfg(test)]
mod properties {
    use super::*;
    use crate::gtd::Op;
    use crate::ops::{Ack, Commit, Defer, Delegate, Delete, Noop, Reply, Send, Surface};
    use proptest::prelude::*;

    fn text() -> impl Strategy<Value = String> {
        // Anything a shell can pass: quotes, newlines, leading dashes, `=`.
        prop_oneof![".*", "--[a-z=\" \\n-]{0,12}", Just(String::new())]
    }

    fn gtd() -> impl Strategy<Value = Gtd> {
        prop_oneof![
            text().prop_map(|message| Gtd::Do(Op::Reply(Reply { message }))),
            (text(), text(), proptest::option::of(text())).prop_map(|(to, message, body)| Gtd::Do(Op::Send(Send {
                to,
                message,
                body
            }))),
            text().prop_map(|reason| Gtd::Do(Op::Noop(Noop { reason }))),
            text().prop_map(|reason| Gtd::Do(Op::Ack(Ack { reason }))),
            text().prop_map(|desc| Gtd::Do(Op::Surface(Surface { desc }))),
            text().prop_map(|artifact| Gtd::Do(Op::Commit(Commit { artifact }))),
            (text(), proptest::option::of(text())).prop_map(|(reason, until)| Gtd::Defer(Defer { reason, until })),
            text().prop_map(|to| Gtd::Delegate(Delegate { to })),
            text().prop_map(|reason| Gtd::Delete(Delete { reason })),
        ]
    }

    proptest! {
        /// Any value, its flags in any order, parses back to itself.
        #[test]
        fn every_value_round_trips(g in gtd(), seed in any::<u64>(), json in any::<bool>()) {
            let mut words: Vec<String> = vec![g.name().to_string()];
            if let Some(op) = g.op() {
                words.push(op.name().to_string());
            }
            let mut pairs: Vec<[String; 2]> = g.fields().into_iter().map(|(k, v)| [format!("--{k}"), v.to_string()]).collect();
            // A cheap deterministic shuffle of the flag pairs.
            let n = pairs.len();
            for i in 0..n {
                pairs.swap(i, (seed as usize).wrapping_add(i * 7) % n);
            }
            words.extend(pairs.into_iter().flatten());
            if json {
                // Before, between or after the words; never between a flag and its value.
                let at = [0, 1, words.len()][(seed % 3) as usize];
                words.insert(at, "--json".to_string());
            }
            let parsed = parse_out(&words).map_err(|e| TestCaseError::fail(format!("{words:?}: {e}")))?;
            prop_assert_eq!(parsed.gtd, g);
            prop_assert_eq!(parsed.json, json);
        }

        /// Whatever the words, the parser answers (a value or one line), never panics.
        #[test]
        fn any_words_give_a_value_or_one_line(words in proptest::collection::vec(".*", 0..6)) {
            if let Err(e) = parse_out(&words) {
                prop_assert!(e.to_string().contains("; usage: cn out"));
            }
        }
    }
}
