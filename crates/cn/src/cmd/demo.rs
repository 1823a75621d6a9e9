//! `cn demo` — the main job: a hub in a temporary directory (or `--hub DIR`), and a scenario
//! that shows every layer working for real, one progress line a step. Each step runs the real
//! `cn` commands a user would (this same binary), against real git repositories and a real
//! HTTP server on loopback; the local model answers where a model is needed.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Instant;

use anyhow::{bail, Context};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Where to create the demo (default: a new temporary directory, kept afterwards).
    #[arg(long = "dir", value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

struct Demo {
    exe: PathBuf,
    root: PathBuf,
    hub: PathBuf,
    step: usize,
    started: Instant,
}

const STEPS: usize = 8;

impl Demo {
    fn progress(&mut self, what: &str) {
        self.step += 1;
        println!("[{}/{STEPS}] {what}", self.step);
    }

    fn detail(&self, what: impl AsRef<str>) {
        for line in what.as_ref().lines() {
            println!("      {line}");
        }
    }

    /// Run `cn ARGS` on `hub`; its stdout, or an error with its stderr.
    fn cn(&self, hub: &Path, args: &[&str]) -> anyhow::Result<String> {
        let out = Command::new(&self.exe)
            .arg("--hub")
            .arg(hub)
            .args(args)
            .output()
            .with_context(|| format!("cannot run cn {}", args.join(" ")))?;
        // 3 is "nothing to do": a normal answer for a queue.
        if !out.status.success() && out.status.code() != Some(3) {
            bail!("`cn {}` failed ({}): {}", args.join(" "), out.status, String::from_utf8_lossy(&out.stderr).trim());
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    }

    fn git(&self, dir: &Path, args: &[&str]) -> anyhow::Result<()> {
        cn_git::Git::new(dir).run(args)?;
        Ok(())
    }

    /// The newest journal decision's summary for the hub.
    fn last_decision(&self, hub: &Path) -> anyhow::Result<String> {
        let read = cn_hub::journal::HubJournal::read(&cn_hub::Layout::new(hub).state())?;
        Ok(read
            .entries
            .iter()
            .rev()
            .find(|e| e.kind() == "decision")
            .and_then(|e| {
                let summary = e.0.get("summary")?.as_str()?;
                // Who decided it, as the journal says: never told by the step's words alone.
                Some(match e.0.get("level").and_then(|l| l.as_u64()) {
                    Some(level) => format!("{summary} — decided at level {level}"),
                    None => summary.to_string(),
                })
            })
            .unwrap_or_else(|| "(no decision journaled)".into()))
    }

    fn owner_says(&self, text: &str) -> anyhow::Result<()> {
        let hub = cn_agent::Hub::open(&self.hub)?;
        cn_agent::enqueue_new(&hub, cn_agent::OWNER, cn_agent::Cadence::Inbox, text)?;
        Ok(())
    }
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let root = match args.dir {
        Some(d) => {
            std::fs::create_dir_all(&d)?;
            d.canonicalize()?
        }
        None => tempfile::Builder::new().prefix("cn-demo-").tempdir()?.keep(),
    };
    let mut d = Demo {
        exe: std::env::current_exe().context("cannot find the cn binary")?,
        hub: root.join("ada"),
        root,
        step: 0,
        started: Instant::now(),
    };
    println!("cn demo — an agent named ada, in {}", d.root.display());

    // 1. A hub, with a git remote on disk for mail.
    d.progress("create the hub (cn init) with a git remote on disk");
    d.cn(&d.hub, &["init", d.hub.to_str().unwrap_or("ada"), "--name", "ada"])?;
    let ada_remote = d.root.join("remotes/ada.git");
    std::fs::create_dir_all(&ada_remote)?;
    d.git(&d.root, &["init", "-q", "--bare", ada_remote.to_str().unwrap_or_default()])?;
    d.git(&d.hub, &["remote", "add", "origin", ada_remote.to_str().unwrap_or_default()])?;
    d.detail(format!("hub: {}", d.hub.display()));
    if std::env::var_os("ANTHROPIC_API_KEY").is_some() {
        // With a key in the environment the executive answers at level 3.
        let path = cn_hub::Layout::new(&d.hub).config();
        let text = std::fs::read_to_string(&path)?;
        let exec = "  local:\n    provider: embedded\n  executive:\n    provider: anthropic\n    model: claude-sonnet-4-5\n    api_key_env: ANTHROPIC_API_KEY\n";
        cn_storage::write_atomic(&path, text.replacen("  local:\n    provider: embedded\n", exec, 1).as_bytes())?;
        d.detail("executive: Claude (ANTHROPIC_API_KEY is set)");
    }

    // 2. The owner says hello: a level-0 reflex answers, no model asked.
    d.progress("the owner says hello → a level-0 reflex answers");
    d.owner_says("hello")?;
    d.cn(&d.hub, &["run", "--once"])?;
    d.detail(d.last_decision(&d.hub)?);

    // 3. Summarize a page: the summarize-url reflex fetches it from loopback, the local model summarizes.
    d.progress("the owner asks for a summary → summarize-url fetches the page, the local model summarizes");
    let page = "<html><head><title>Tides</title></head><body><h1>Tides</h1><p>Tides are the rise and fall \
        of sea levels caused by the gravity of the Moon and the Sun acting on the rotating Earth. Most places \
        see two high tides and two low tides a day. Spring tides, the largest, come when the Sun and Moon \
        line up.</p></body></html>";
    let (url, _hits) = cn_reflex::testing::serve_html(page.to_string())?;
    // Fetches never reach loopback unless a policy.urls entry names the host: the owner's line.
    let config = cn_hub::Layout::new(&d.hub).config();
    let text = std::fs::read_to_string(&config)?;
    let allowed = format!("  shell: false\n  urls: [\"{url}/\"]      # the demo's page on loopback\n");
    cn_storage::write_atomic(&config, text.replacen("  shell: false\n", &allowed, 1).as_bytes())?;
    d.owner_says(&format!("summarize {url}/tides"))?;
    d.cn(&d.hub, &["run", "--once"])?;
    d.detail(d.last_decision(&d.hub)?);

    // 4. A task falls due: attention picks it; with no executive to do it, it is closed
    // saying so, and the task stays open (followed up a day later).
    d.progress("a task falls due → attention picks it; with no executive to do it, it is closed saying so and the task stays open");
    d.cn(
        &d.hub,
        &[
            "task",
            "add",
            "Write a one-line status note for the owner",
            "--due",
            "2000-01-01T00:00:00Z",
            "--priority",
            "1",
        ],
    )?;
    d.cn(&d.hub, &["run", "--until-idle"])?;
    d.detail(d.last_decision(&d.hub)?);

    // 5. A schedule entry fires: the daily reflection missed while the agent was down catches up.
    d.progress("the daily reflection fires (missed while down, caught up at start)");
    let yesterday = jiff::Timestamp::now() - jiff::SignedDuration::from_hours(24);
    let state = serde_json::json!({"daily-reflection": {"last_fired": cn_storage::rfc3339(yesterday - jiff::SignedDuration::from_hours(1))}});
    cn_storage::write_json_atomic(&cn_hub::Layout::new(&d.hub).schedule_state(), &state)?;
    d.cn(&d.hub, &["run", "--until-idle"])?;
    let reflections = count_files(&cn_hub::Layout::new(&d.hub).reflections("daily"));
    d.detail(format!("{} · threads/reflections/daily/ holds {reflections}", d.last_decision(&d.hub)?));

    // 6. Mail: a second hub mails ada over git; ada replies; the sender is notified.
    d.progress("a second hub (bob) mails ada a request over git; ada hands it up (no pretending); bob is told");
    let bob = d.root.join("bob");
    let bob_remote = d.root.join("remotes/bob.git");
    d.cn(&bob, &["init", bob.to_str().unwrap_or("bob"), "--name", "bob"])?;
    d.git(&d.root, &["init", "-q", "--bare", bob_remote.to_str().unwrap_or_default()])?;
    d.git(&bob, &["remote", "add", "origin", bob_remote.to_str().unwrap_or_default()])?;
    d.cn(&d.hub, &["peer", "add", "bob", bob_remote.to_str().unwrap_or_default()])?;
    d.cn(&bob, &["peer", "add", "ada", ada_remote.to_str().unwrap_or_default()])?;
    d.cn(&bob, &["send", "--to", "ada", "--message", "Can you look at the release notes today?"])?;
    d.cn(&bob, &["sync"])?;
    d.cn(&d.hub, &["sync"])?;
    d.cn(&d.hub, &["run", "--until-idle"])?;
    d.cn(&d.hub, &["sync"])?;
    d.cn(&bob, &["sync"])?;
    let bob_inbox = count_files(&cn_hub::Layout::new(&bob).inbox());
    d.detail(format!("ada: {} · bob's inbox now holds {bob_inbox} message(s) from ada", d.last_decision(&d.hub)?));

    // 7. An AI loop brings a small program to compile, with command components.
    d.progress("an AI loop brings a small C program to compile (command components)");
    let code = d.root.join("hello-c");
    loop_fixture(&code)?;
    d.git(&code, &["init", "-q"])?;
    d.git(&code, &["add", "-A"])?;
    d.git(&code, &["commit", "-qm", "a program that does not compile yet"])?;
    let out = Command::new(&d.exe).args(["loop", "run"]).arg(&code).output()?;
    if !out.status.success() {
        bail!("cn loop run failed: {}", String::from_utf8_lossy(&out.stderr).trim());
    }
    d.detail(
        d.cn(&d.hub, &["loop", "status", code.to_str().unwrap_or_default()])?
            .lines()
            .take(3)
            .collect::<Vec<_>>()
            .join("\n"),
    );

    // 8. What did you do today?
    d.progress("\"what did you do today?\" — from the journal");
    let today = d.cn(&d.hub, &["journal", "--today", "--type", "decision"])?;
    d.detail(today.lines().take(12).collect::<Vec<_>>().join("\n"));

    println!(
        "done in {:.1} s. Look around: cd {} && cn journal --today",
        d.started.elapsed().as_secs_f64(),
        d.hub.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// The items (markdown files) in a thread directory.
fn count_files(dir: &Path) -> usize {
    std::fs::read_dir(dir)
        .map(|r| r.filter_map(Result::ok).filter(|e| e.path().extension().is_some_and(|x| x == "md")).count())
        .unwrap_or(0)
}

/// A C program with a missing semicolon, and a loop whose components are shell commands: the
/// sensor compiles, the controller reads the exit status, the actuator fixes the line.
fn loop_fixture(dir: &Path) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir.join("loop-run"))?;
    // In a directory: the loop's sandbox lets components create and replace files in the
    // tree's directories, not at its top, where `.git/` is.
    std::fs::create_dir_all(dir.join("src"))?;
    std::fs::write(
        dir.join("src/hello.c"),
        "#include <stdio.h>\nint main(void) {\n    printf(\"hello\\n\")\n    return 0;\n}\n",
    )?;
    std::fs::write(
        dir.join("loop-run/task.md"),
        r#"---
max-iterations: 3
sensors:
  compilation:
    command: "cc -c src/hello.c -o /dev/null"
    target: "no errors"
controller:
  command: "if grep -q '^exit-status: 0' \"$CN_LOOP_RUN/sensor-output.md\"; then printf -- '---\ntarget-met: true\n---\n\nThe program compiles.\n' > \"$CN_LOOP_RUN/controller-output.md\"; else printf -- '---\ntarget-met: false\n---\n\nFix the compile errors in src/hello.c.\n' > \"$CN_LOOP_RUN/controller-output.md\"; fi"
actuator:
  command: "sed -i 's/printf(\"hello\\\\n\")$/printf(\"hello\\\\n\");/' src/hello.c && echo added the missing semicolon"
---

# Task

Make src/hello.c compile.
"#,
    )?;
    Ok(())
}
