//! `cn init` commits only its own files and a run keeps runtime files out of git (issue 18:
//! `cn init .` in an existing folder committed a `secret.env`; `state/run.lock` was
//! committed), through `cn_agent::init` and `cn_daemon::run`.

use std::path::Path;

use cn_autonomy::impulses::{tasks_of, Task};
use cn_daemon::RunMode;

use crate::promises::run;

fn tracked(dir: &Path) -> Vec<String> {
    cn_testkit::git(dir, &["ls-files"]).lines().map(str::to_string).collect()
}

#[test]
fn init_in_an_existing_folder_commits_only_its_own_files_and_never_runtime_files() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("work");
    std::fs::create_dir(&folder).unwrap();
    std::fs::write(folder.join("secret.env"), "TOKEN=hunter2\n").unwrap();
    std::fs::write(folder.join(".gitignore"), "target/\n").unwrap();
    cn_agent::init(&folder, None).unwrap();
    let files = tracked(&folder);
    assert!(files.contains(&"cn.yaml".to_string()) && files.contains(&".gitignore".to_string()), "{files:?}");
    assert!(!files.contains(&"secret.env".to_string()), "init committed a file not its own: {files:?}");
    let ignore = std::fs::read_to_string(folder.join(".gitignore")).unwrap();
    assert!(ignore.starts_with("target/\n") && ignore.contains("state/run.lock"), "{ignore}");

    // The agent at work (its models shell scripts that acknowledge): a decision and a run
    // commit the hub's files, still not the secret, and never the run lock or the run state.
    let ack = "cat > /dev/null\nprintf '```yaml\\ntool: ack\\nreason: seen\\n```\\n'\n";
    std::fs::write(folder.join("cn.yaml"), cn_testkit::hub::scripted_models(dir.path(), ack, ack)).unwrap();
    let hub = cn_agent::Hub::open(&folder).unwrap();
    assert!(cn_agent::take_next(&hub).unwrap().is_none(), "the queue starts empty");
    tasks_of(&folder).add(Task::new("Water the plants")).unwrap();
    run(&folder, RunMode::Once);
    assert!(folder.join("state/run.lock").exists(), "the run took its lock");
    let files = tracked(&folder);
    assert!(files.iter().any(|f| f.starts_with("threads/")), "{files:?}");
    for never in ["secret.env", "state/run.lock", "state/run.json", "state/attention.jsonl", ".cn.lock"] {
        assert!(!files.contains(&never.to_string()), "{never} was committed: {files:?}");
    }
}
