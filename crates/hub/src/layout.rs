//! layout — where each file of a hub lives. [`Layout`] is built from the hub's root and has
//! one accessor per path the code uses; no other crate writes a `"state/…"` or `"threads/…"`
//! literal.
//!
//! ```text
//! cn.yaml                          config (name, peers, models, budget, policy, reflexes,
//!                                  loops, pacing, attention, senses)
//! .cn.lock                         the hub lock (commands that change the hub hold it)
//! state/input.md  state/output.md  the current item; the decision on it
//! state/journal.jsonl  state/interactions.jsonl   what happened; what models were asked
//! state/journal/NNNNNN.jsonl                    the journal's older segments (rotated)
//! state/interactions/NNNNNN.jsonl               the model calls' older segments (rotated)
//! state/tasks.json  ideas.json  schedule.json  schedule-state.json   impulses
//! state/attention.jsonl            attention's spool (percepts survive a restart)
//! state/routine-pending.json       the routine's questions awaiting an answer, per conversation
//! state/budget.json  budget.lock  budget-holders/   the thinking budget's spend and
//!                                  reservations, its lock, the processes holding them
//! state/reflex-stats.json          each reflex's runs and failures (and agreement, in shadow)
//! state/reflex-learning.json       recent executive decisions a reflex may be proposed from
//! state/peers.json                 peers added with `cn peer add` (name → git remote)
//! state/received.json              mail taken before the read-only layout (commit → item id)
//! state/peer-mail.json             per peer: mail received and not yet released, last fetch
//! state/telegram.json              the Telegram updates already taken (the getUpdates offset)
//! state/email.json                 the mail already taken (the folder's UIDVALIDITY, last UID)
//! state/github-deliveries.txt      the GitHub deliveries already taken (their bodies' SHA-256)
//! state/run.lock  state/run.json   the one `cn run` on this hub; where it listens
//! .git/cn-owner-token              the owner endpoint's token (mode 0600; never committed)
//! .git/cn-id-key                   the key of the hub's unguessable ids (mode 0600)
//! .git/cn-clone-id                 this clone's name in the lease (`origin.lease`)
//! .git/cn-lease.json  cn-lease.lock   the lease this clone holds in origin; its push lock
//! state/approvals.json            actions held for the owner's approval
//! state/reflexes/  state/mca/  state/notes/
//! threads/inbox/<id>.md            the queue
//! threads/doing/ deferred/ archived/ reflections/<cadence>/   where items go
//! threads/mail/outbox/ sent/       mail to peers, before and after `cn sync`
//! ```
//!
//! Invariant: the names here are the on-disk format a user sees; changing one is a format
//! change, not a refactoring.

use std::path::{Path, PathBuf};

/// The config file that marks a directory as a hub.
pub const CONFIG: &str = "cn.yaml";
/// The hub lock's file name (at the root, so it is never inside a watched directory).
pub const LOCK: &str = ".cn.lock";
/// The state directory, relative to the root (also a path component the file sense ignores).
pub const STATE: &str = "state";
/// The threads directory, relative to the root.
pub const THREADS: &str = "threads";
/// What a hub's own commits stage: its files, not whatever else the folder holds.
pub const OWN: [&str; 5] = [CONFIG, STATE, THREADS, "loops", ".gitignore"];
/// The impulse files, relative to the state directory; a change to one wakes the daemon.
pub const TASKS: &str = "tasks.json";
pub const IDEAS: &str = "ideas.json";
pub const SCHEDULE: &str = "schedule.json";
pub const SCHEDULE_STATE: &str = "schedule-state.json";
pub const JOURNAL: &str = "journal.jsonl";
pub const INTERACTIONS: &str = "interactions.jsonl";
pub const ATTENTION: &str = "attention.jsonl";
/// The note every prompt of the agent starts from, relative to the notes directory.
pub const CORE_SEED: &str = "core_seed.md";

/// Every path of one hub.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    root: PathBuf,
}

macro_rules! paths {
    ($($(#[$doc:meta])* $name:ident => $rel:expr;)*) => {
        $($(#[$doc])* pub fn $name(&self) -> PathBuf { self.root.join($rel) })*
        /// Every fixed path relative to the root, with its accessor's name (the format as a list).
        pub const RELATIVE: &'static [(&'static str, &'static str)] = &[$((stringify!($name), $rel)),*];
    };
}

impl Layout {
    pub fn new(root: impl Into<PathBuf>) -> Layout {
        Layout { root: root.into() }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The hub's journal, open for appending typed records (`Hub::journal` for code holding
    /// the hub): the one way to write it.
    pub fn open_journal(&self) -> Result<crate::journal::HubJournal, crate::journal::JournalError> {
        crate::journal::HubJournal::open(&self.state())
    }

    paths! {
        /// `cn.yaml`.
        config => CONFIG;
        /// `.cn.lock`: the hub lock.
        lock_file => LOCK;
        /// `state/`.
        state => STATE;
        /// `threads/`.
        threads => THREADS;
        /// `state/input.md`: the current item.
        input => "state/input.md";
        /// `state/output.md`: the decision on the current item.
        output => "state/output.md";
        /// `state/output.abandoned.md`: an unreadable decision, set aside.
        output_abandoned => "state/output.abandoned.md";
        /// `state/journal.jsonl`.
        journal => "state/journal.jsonl";
        /// `state/journal/`: the journal's older segments, `NNNNNN.jsonl`, oldest first.
        journal_segments => "state/journal";
        /// `state/interactions.jsonl`.
        interactions => "state/interactions.jsonl";
        /// `state/interactions/`: its older segments, rotated with the journal.
        interaction_segments => "state/interactions";
        /// `state/tasks.json`.
        tasks => "state/tasks.json";
        /// `state/ideas.json`.
        ideas => "state/ideas.json";
        /// `state/schedule.json`.
        schedule => "state/schedule.json";
        /// `state/schedule-state.json`: when each schedule entry last fired.
        schedule_state => "state/schedule-state.json";
        /// `state/attention.jsonl`: attention's spool.
        attention => "state/attention.jsonl";
        /// `state/budget.json`.
        budget => "state/budget.json";
        /// `state/budget.lock`: held while the budget is read and changed.
        budget_lock => "state/budget.lock";
        /// `state/budget-holders/`: one lock per process with an executive call in flight.
        budget_holders => "state/budget-holders";
        /// `state/reflex-stats.json`.
        reflex_stats => "state/reflex-stats.json";
        /// `state/reflex-learning.json`: the recent executive decisions proposals read.
        reflex_learning => "state/reflex-learning.json";
        /// `state/peers.json`.
        peers => "state/peers.json";
        /// `state/received.json`: mail taken before issue 19's layout (commit → item id),
        /// read so mail in flight then is not delivered twice; no longer written.
        received => "state/received.json";
        /// `state/telegram.json`: the Bot API update offset already taken (never answered
        /// twice across a restart).
        telegram => "state/telegram.json";
        /// `state/email.json`: the folder's UIDVALIDITY and the last message UID taken.
        email => "state/email.json";
        /// `state/github-deliveries.txt`: the SHA-256 of every GitHub delivery body taken
        /// lately, one a line — a signed body is taken once, whatever its delivery id, across
        /// restarts.
        github_deliveries => "state/github-deliveries.txt";
        /// `state/peer-mail.json`: per peer, the mail received and not yet released by its
        /// sender (whose receipts this hub publishes). Changes only when mail moves.
        peer_mail => "state/peer-mail.json";
        /// `state/peer-status.json`: per peer, the last fetch, its error, what waits each way
        /// (`cn peer list`); refreshed by every sync, so a runtime file, never committed.
        peer_status => "state/peer-status.json";
        /// `state/working.json`: the item the daemon's model is working on now, at which
        /// level, since when (`cn chat` shows it while it waits); never committed.
        working => "state/working.json";
        /// `state/run.lock`: held by the one `cn run` on this hub.
        run_lock => "state/run.lock";
        /// `state/run.json`: who runs and where the owner endpoint listens.
        run_info => "state/run.json";
        /// `state/cache/`: this machine's caches (the local model's prompt keys and values);
        /// never committed.
        cache => "state/cache";
        /// `.git/cn-owner-token`: the owner endpoint's bearer token, inside git's own
        /// directory so it is never committed, pushed, or readable by a tool.
        owner_token => ".git/cn-owner-token";
        /// `.git/cn-id-key`: the secret that makes the ids of impulse items unguessable.
        id_key => ".git/cn-id-key";
        /// `.git/cn-clone-id`: this clone of the hub, as the lease in origin names its holder.
        clone_id => ".git/cn-clone-id";
        /// `.git/cn-lease.json`: the lease this clone holds in origin, and until when (the
        /// machine's boot clock) it may decide; every push of this clone reads and renews it.
        lease_file => ".git/cn-lease.json";
        /// `.git/cn-lease.lock`: held while a process of this clone pushes to origin.
        lease_lock => ".git/cn-lease.lock";
        /// `state/approvals.json`: actions held for the owner's approval.
        approvals => "state/approvals.json";
        /// `state/reflexes/`.
        reflexes => "state/reflexes";
        /// `state/mca/`: what was surfaced to the owner.
        mca => "state/mca";
        /// `state/notes/`.
        notes => "state/notes";
        /// `state/notes/core_seed.md`.
        core_seed => "state/notes/core_seed.md";
        /// `threads/inbox/`: the queue.
        inbox => "threads/inbox";
        /// `threads/doing/`.
        doing => "threads/doing";
        /// `threads/deferred/`.
        deferred => "threads/deferred";
        /// `threads/archived/`.
        archived => "threads/archived";
        /// `threads/reflections/`.
        reflections_root => "threads/reflections";
        /// `threads/mail/outbox/`: mail waiting for `cn sync`.
        outbox => "threads/mail/outbox";
        /// `threads/mail/sent/`.
        sent => "threads/mail/sent";
        /// `loops/`: where `cn init` puts AI loops (`loops/<name>/loop-run/`); the control
        /// room looks there.
        loops => "loops";
    }

    /// `threads/reflections/<cadence>/`.
    pub fn reflections(&self, cadence: &str) -> PathBuf {
        self.reflections_root().join(cadence)
    }

    /// `state/reflexes/<name>.yaml`.
    pub fn reflex(&self, name: &str) -> PathBuf {
        self.reflexes().join(format!("{name}.yaml"))
    }

    /// `state/notes/<name>.md`.
    pub fn note(&self, name: &str) -> PathBuf {
        self.notes().join(format!("{name}.md"))
    }

    /// `state/mca/<file>`.
    pub fn mca_file(&self, file: &str) -> PathBuf {
        self.mca().join(file)
    }

    /// Why no tool may write `rel` (a path relative to the root), or `None` when one may:
    /// the hub's configuration and trust (`cn.yaml`, `state/peers.json`, `.git/`, the
    /// reflexes, the core memory, the journal, the budget) change only by the owner's own
    /// commands. Secret files are refused too ([`is_secret`]).
    pub fn write_protected(&self, rel: &Path) -> Option<&'static str> {
        if let Some(why) = self.read_protected(rel) {
            return Some(why);
        }
        self.protected_paths().into_iter().find(|(p, _)| rel.starts_with(p)).map(|(_, why)| why)
    }

    /// The paths (relative to the root) [`Layout::write_protected`] protects by place, each
    /// with why; `.git/` and secret files, protected by name anywhere, are not listed. The
    /// sandbox (`cn_tools::sandbox::for_hub`) leaves each of them unwritable.
    pub fn protected_paths(&self) -> [(PathBuf, &'static str); 24] {
        [
            (self.relative(&self.approvals()).into(), "the owner's approvals"),
            (PathBuf::from(CONFIG), "the hub's configuration"),
            (PathBuf::from(LOCK), "the hub lock"),
            (PathBuf::from(".gitignore"), "what the hub commits"),
            (self.relative(&self.peers()).into(), "the hub's peers"),
            (self.relative(&self.reflexes()).into(), "the reflexes (the executive writes them with reflex_write)"),
            (self.relative(&self.core_seed()).into(), "the core memory"),
            (self.relative(&self.journal()).into(), "the journal"),
            (self.relative(&self.journal_segments()).into(), "the journal"),
            (self.relative(&self.interactions()).into(), "the journal of model calls"),
            (self.relative(&self.interaction_segments()).into(), "the journal of model calls"),
            (self.relative(&self.budget()).into(), "the thinking budget"),
            (self.relative(&self.reflex_stats()).into(), "the reflexes' health"),
            (self.relative(&self.reflex_learning()).into(), "what the reflexes learn from"),
            (self.relative(&self.received()).into(), "the mail already taken"),
            (self.relative(&self.telegram()).into(), "the Telegram messages already taken"),
            (self.relative(&self.email()).into(), "the mail already taken"),
            (self.relative(&self.github_deliveries()).into(), "the GitHub deliveries already taken"),
            (self.relative(&self.peer_mail()).into(), "the peer mail taken and not yet released"),
            (self.relative(&self.peer_status()).into(), "how the peers' mail stands"),
            (self.relative(&self.working()).into(), "what the daemon works on"),
            (self.relative(&self.run_info()).into(), "the daemon's address"),
            (self.relative(&self.run_lock()).into(), "the daemon's lock"),
            (self.relative(&self.cache()).into(), "cn's caches (llama.cpp loads them)"),
        ]
    }

    /// Why no tool may read `rel` (relative to the root): git's directory (its config holds
    /// remotes with credentials, and the owner token lives there) and secret files.
    pub fn read_protected(&self, rel: &Path) -> Option<&'static str> {
        if rel.components().any(|c| c.as_os_str() == ".git") {
            return Some("git's own directory");
        }
        rel.file_name().and_then(|n| n.to_str()).filter(|n| is_secret(n)).map(|_| "a secret file")
    }

    /// A path relative to the root, as the journal and tool answers show it (`state/mca/x.md`).
    pub fn relative<'a>(&self, path: &'a Path) -> &'a Path {
        path.strip_prefix(&self.root).unwrap_or(path)
    }
}

/// A file name that holds secrets by convention: `.env*`, keys and certificates, ssh
/// identities, `.netrc`, git credentials, and anything named `*secret*` or `*token*`.
pub fn is_secret(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    n == ".env"
        || n.starts_with(".env.")
        || n == ".netrc"
        || n == ".git-credentials"
        || n.starts_with("id_rsa")
        || n.starts_with("id_ed25519")
        || n.starts_with("id_ecdsa")
        || [".pem", ".key", ".p12", ".pfx"].iter().any(|ext| n.ends_with(ext))
        || n.contains("secret")
        || n.contains("token")
        || n.contains("credential")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hubs_trust_and_secrets_are_protected() {
        let l = Layout::new("/h");
        for p in ["cn.yaml", "state/peers.json", ".git/config", "state/reflexes/x.yaml", "state/notes/core_seed.md"] {
            assert!(l.write_protected(Path::new(p)).is_some(), "{p}");
        }
        for p in [".env", "deploy/id_rsa", "a/b/.git/HEAD", "keys/server.pem", ".git/cn-owner-token"] {
            assert!(l.read_protected(Path::new(p)).is_some() && l.write_protected(Path::new(p)).is_some(), "{p}");
        }
        for p in ["state/notes/plans.md", "notes.txt", "state/tasks.json", "src/main.rs"] {
            assert!(l.write_protected(Path::new(p)).is_none() && l.read_protected(Path::new(p)).is_none(), "{p}");
        }
    }

    #[test]
    fn every_path_is_under_the_root_where_the_format_says() {
        let l = Layout::new("/h");
        assert_eq!(l.config(), Path::new("/h/cn.yaml"));
        assert_eq!(l.lock_file(), Path::new("/h/.cn.lock"));
        assert_eq!(l.input(), Path::new("/h/state/input.md"));
        assert_eq!(l.output(), Path::new("/h/state/output.md"));
        assert_eq!(l.journal(), Path::new("/h/state/journal.jsonl"));
        assert_eq!(l.interactions(), Path::new("/h/state/interactions.jsonl"));
        assert_eq!(l.tasks(), Path::new("/h/state/tasks.json"));
        assert_eq!(l.ideas(), Path::new("/h/state/ideas.json"));
        assert_eq!(l.schedule(), Path::new("/h/state/schedule.json"));
        assert_eq!(l.schedule_state(), Path::new("/h/state/schedule-state.json"));
        assert_eq!(l.attention(), Path::new("/h/state/attention.jsonl"));
        assert_eq!(l.budget(), Path::new("/h/state/budget.json"));
        assert_eq!(l.reflex_stats(), Path::new("/h/state/reflex-stats.json"));
        assert_eq!(l.peers(), Path::new("/h/state/peers.json"));
        assert_eq!(l.received(), Path::new("/h/state/received.json"));
        assert_eq!(l.run_lock(), Path::new("/h/state/run.lock"));
        assert_eq!(l.run_info(), Path::new("/h/state/run.json"));
        assert_eq!(l.owner_token(), Path::new("/h/.git/cn-owner-token"));
        assert_eq!(l.reflex("hello"), Path::new("/h/state/reflexes/hello.yaml"));
        assert_eq!(l.mca_file("x.md"), Path::new("/h/state/mca/x.md"));
        assert_eq!(l.note("plans"), Path::new("/h/state/notes/plans.md"));
        assert_eq!(l.core_seed(), Path::new("/h/state/notes/core_seed.md"));
        assert_eq!(l.inbox(), Path::new("/h/threads/inbox"));
        assert_eq!(l.doing(), Path::new("/h/threads/doing"));
        assert_eq!(l.deferred(), Path::new("/h/threads/deferred"));
        assert_eq!(l.archived(), Path::new("/h/threads/archived"));
        assert_eq!(l.reflections("daily"), Path::new("/h/threads/reflections/daily"));
        assert_eq!(l.outbox(), Path::new("/h/threads/mail/outbox"));
        assert_eq!(l.sent(), Path::new("/h/threads/mail/sent"));
        assert_eq!(l.relative(&l.mca_file("x.md")), Path::new("state/mca/x.md"));
    }

    #[test]
    fn the_impulse_file_names_match_their_paths() {
        let l = Layout::new("/h");
        assert_eq!(l.state().join(TASKS), l.tasks());
        assert_eq!(l.state().join(IDEAS), l.ideas());
        assert_eq!(l.state().join(SCHEDULE), l.schedule());
        assert_eq!(l.state().join(SCHEDULE_STATE), l.schedule_state());
        assert_eq!(l.state().join(JOURNAL), l.journal());
        assert_eq!(l.state().join(INTERACTIONS), l.interactions());
        assert_eq!(l.state().join(ATTENTION), l.attention());
        assert_eq!(l.notes().join(CORE_SEED), l.core_seed());
        assert!(Layout::RELATIVE.iter().all(|(_, rel)| !rel.starts_with('/')));
    }
}
