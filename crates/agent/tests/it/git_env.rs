//! cn.yaml's `git.env` belongs to its hub: with two hubs open in one process (a daemon's
//! test, a program using cn's crates), the git run for each sees what its own cn.yaml names,
//! whichever hub was opened last.

use crate::support::*;

/// ada names `GIT_SSH_COMMAND` in `git.env`, bob does not; both have the same ssh peer. The
/// command (a script that records it was run, then fails) is in this process's environment:
/// only ada's git may use it.
#[test]
fn each_hubs_git_sees_the_git_env_its_own_cn_yaml_names() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let log = root.join("ssh.log");
    let script = root.join("ssh.sh");
    std::fs::write(&script, format!("echo \"$*\" >> {}\nexit 1\n", log.display())).unwrap();
    // This test's alone in its binary: no other test reaches a peer over ssh.
    std::env::set_var("GIT_SSH_COMMAND", format!("sh {}", script.display()));
    let (ada, bob) = (init_hub(root, "ada"), init_hub(root, "bob"));
    let yaml = std::fs::read_to_string(ada.join("cn.yaml")).unwrap();
    std::fs::write(ada.join("cn.yaml"), format!("{yaml}git:\n  env: [GIT_SSH_COMMAND]\n")).unwrap();
    for hub in [&ada, &bob] {
        cn_agent::add_peer(&open(hub), "carol", "ssh://carol.invalid/hub.git").unwrap();
    }
    let runs = || std::fs::read_to_string(&log).unwrap_or_default().lines().count();

    // ada opened first, bob last: ada's git still runs ada's ssh command.
    let (ada_hub, bob_hub) = (open(&ada), open(&bob));
    assert!(cn_agent::peer_unreachable(&ada_hub, "carol").is_some(), "the command fails");
    let by_ada = runs();
    assert!(by_ada > 0, "ada's git ran the command its cn.yaml names");
    // bob's git never sees it, though ada was opened since.
    let ada_again = open(&ada);
    assert!(cn_agent::peer_unreachable(&bob_hub, "carol").is_some());
    assert_eq!(runs(), by_ada, "bob's git ran the command ada's cn.yaml names");
    assert!(cn_agent::peer_unreachable(&ada_again, "carol").is_some());
    assert!(runs() > by_ada, "ada's git, after bob's");
    let said = std::fs::read_to_string(&log).unwrap();
    assert!(said.lines().all(|l| l.contains("carol.invalid")), "{said}");
}
