//! Attention — one pool of percepts and impulses, scored by salience, the most salient
//! first. [`Attention`] is the shared handle: senses (on their own threads or tasks) admit
//! percepts through it, the daemon's `decide` takes from it, and its `rest` waits on it.
//!
//! Invariant: admitting never blocks on anything but the pool's lock, and it wakes a waiting
//! `rest` at once — a new percept is never left waiting out a pacing interval.

pub mod carry;
pub mod pool;
pub mod salience;
pub mod spool;

use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use crate::impulses::Impulse;
use crate::percept::Percept;
pub use pool::{Admission, Candidate, FloodReport, Pool, PoolConfig, Pooled};
pub use salience::{Salience, Weights};

/// Anything attention can choose: a percept or an impulse.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Input {
    Percept(Percept),
    Impulse(Impulse),
}

impl Input {
    pub fn id(&self) -> &str {
        match self {
            Input::Percept(p) => &p.id,
            Input::Impulse(i) => &i.id,
        }
    }
    pub fn summary(&self) -> &str {
        match self {
            Input::Percept(p) => &p.summary,
            Input::Impulse(i) => &i.summary,
        }
    }
    pub fn owner(&self) -> bool {
        matches!(self, Input::Percept(p) if p.owner)
    }
    /// Items with the same key are the same thing again (coalesced in the pool).
    pub fn key(&self) -> Option<&str> {
        match self {
            Input::Percept(p) => p.key.as_deref(),
            // An impulse's id is stable per task / idea / schedule time.
            Input::Impulse(i) => Some(&i.id),
        }
    }
    pub fn at(&self) -> Timestamp {
        match self {
            Input::Percept(p) => p.at,
            Input::Impulse(i) => i.at,
        }
    }
    pub fn due(&self) -> Option<Timestamp> {
        match self {
            Input::Percept(p) => p.due,
            Input::Impulse(i) => i.due,
        }
    }
    pub fn priority(&self) -> Option<u8> {
        match self {
            Input::Percept(_) => None,
            Input::Impulse(i) => i.priority,
        }
    }
    /// The hub's inbox item this percept offers again (the inbox is read into attention), if
    /// it is one: the hub's files already hold it.
    pub fn inbox_item(&self) -> Option<&str> {
        match self {
            Input::Percept(p) => p.inbox.as_ref().map(|i| i.id.as_str()),
            Input::Impulse(_) => None,
        }
    }
    /// `owner`, `github`, … for percepts; `task`, `schedule`, `idea` for impulses.
    pub fn source_name(&self) -> &'static str {
        match self {
            Input::Percept(p) => crate::percept::written_name(p.sense),
            Input::Impulse(i) => i.source.name(),
        }
    }
}

impl From<Percept> for Input {
    fn from(p: Percept) -> Self {
        Input::Percept(p)
    }
}
impl From<Impulse> for Input {
    fn from(i: Impulse) -> Self {
        Input::Impulse(i)
    }
}

/// Why a wait ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wake {
    /// Something was admitted.
    Admitted,
    /// The timeout (or the wake-up deadline) passed.
    Timeout,
    /// Stop was requested.
    Stopped,
}

struct Shared {
    state: Mutex<State>,
    changed: Condvar,
    /// Leased: waits until origin holds everything admitted so far ([`Attention::replicated`]).
    upstream: Mutex<Option<Upstream>>,
}

/// What [`Attention::replicated`] waits on: the pusher's push of the carry.
pub type Upstream = Arc<dyn Fn() -> Result<(), String> + Send + Sync>;

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shared").field("state", &self.state).finish_non_exhaustive()
    }
}

#[derive(Debug)]
struct State {
    pool: Pool,
    /// Bumped on every admission; a waiter compares it to see news.
    generation: u64,
    stopped: bool,
    /// When the pool last handed out an item (pacing: active or idle).
    last_decided: Option<Instant>,
    /// Wake a rest no later than this (the next schedule fire or task due time).
    wake_at: Option<Instant>,
    /// The generation the last `decide` or `rest` saw: a rest waits for news after it.
    seen: u64,
    /// Where admitted items are recorded until a decision closes them, if durable.
    spool: Option<spool::Spool>,
    /// Leased: what origin must hold before a sense acknowledges it ([`carry`]).
    carry: Option<carry::Carry>,
    /// The hub's id key: a message a channel may deliver again gets the same id each time
    /// ([`Attention::delivery_id`]).
    id_key: Option<String>,
}

impl State {
    fn spool_done(&mut self, id: &str) {
        if let Some(spool) = self.spool.as_mut() {
            spool.done(id);
        }
        if let Some(carry) = self.carry.as_mut() {
            carry.close(id);
        }
    }
}

/// The shared attention handle. Clone it for each sense.
#[derive(Debug, Clone)]
pub struct Attention {
    shared: Arc<Shared>,
}

impl Attention {
    pub fn new(config: PoolConfig) -> Self {
        Attention {
            shared: Arc::new(Shared {
                state: Mutex::new(State {
                    pool: Pool::new(config),
                    generation: 0,
                    stopped: false,
                    last_decided: None,
                    wake_at: None,
                    seen: 0,
                    spool: None,
                    carry: None,
                    id_key: None,
                }),
                changed: Condvar::new(),
                upstream: Mutex::new(None),
            }),
        }
    }

    /// Attention whose queue survives a crash: items are spooled to `path` (a hub's
    /// `state/attention.jsonl`) on admission, and what was pending there is admitted again.
    /// Returns the handle and how many items were restored.
    pub fn durable(config: PoolConfig, path: &std::path::Path) -> std::io::Result<(Self, usize)> {
        let (spool, spooled) = spool::Spool::open(path)?;
        let attention = Attention::new(config);
        let restored = spooled.pending.len() + spooled.extra.values().sum::<u64>() as usize;
        {
            let mut s = attention.state();
            for (item, _into) in spooled.pending {
                // Already in the spool: admit to the pool only. Coalesced items coalesce again.
                if let Admission::Displaced { shed: id } | Admission::Shed { id } = s.pool.admit(item) {
                    s.spool_done(&id);
                }
            }
            for (id, n) in &spooled.extra {
                s.pool.count_merged(id, *n);
            }
            s.generation += 1;
            s.spool = Some(spool);
        }
        Ok((attention, restored))
    }

    /// Give percepts a channel may deliver again ids keyed with the hub's id key (see
    /// [`Attention::delivery_id`]).
    pub fn key_ids_with(&self, key: String) {
        self.state().id_key = Some(key);
    }

    /// The id of the percept for delivery `seed` (a channel's own, unforgeable name for one
    /// message: Telegram's update id, the mail folder's UID, a webhook body's digest), keyed
    /// with the hub's id key so nobody else can file an item under it: the same message
    /// delivered again (a position not yet saved when a machine died, a takeover) is found
    /// in the hub by this id and not decided twice. `None` without a key.
    pub fn delivery_id(&self, seed: &str) -> Option<String> {
        let s = self.state();
        s.id_key.as_ref().map(|k| cn_hub::id::delivery(k, seed))
    }

    /// Put back an item `decide` took and the daemon could not make an item of (it is still in
    /// the spool): into the pool, closing what a full pool shed for it. Not news: no rest
    /// wakes for it (the daemon's failure backs off as it did).
    pub fn readmit(&self, item: Input) {
        let mut s = self.state();
        if let Admission::Displaced { shed: id } | Admission::Shed { id } = s.pool.admit(item) {
            s.spool_done(&id);
        }
    }

    /// Keep the carry from now on (a leased hub; see [`carry`]): what is pending now, and
    /// every percept admitted after, until a commit holds it. `replicated`, the pusher's wait
    /// for a push that carries it, is what senses wait on before acknowledging a message.
    pub fn carry(&self, replicated: Upstream) {
        {
            let mut s = self.state();
            let mut c = carry::Carry::default();
            for p in s.pool.iter() {
                c.add(&p.item, None);
                for m in &p.merged {
                    c.add(m, Some(p.item.id()));
                }
            }
            s.carry = Some(c);
        }
        *self.shared.upstream.lock().unwrap_or_else(|p| p.into_inner()) = Some(replicated);
    }

    /// Stop keeping the carry (the term ended): a sense's [`Attention::replicated`] fails
    /// from now on, so nothing is acknowledged that no origin holds. Returns the last carry,
    /// taken after no new wait can begin: every sense that began one before admitted what it
    /// waits for before this snapshot.
    pub fn drop_carry(&self) -> Option<Vec<u8>> {
        *self.shared.upstream.lock().unwrap_or_else(|p| p.into_inner()) =
            Some(Arc::new(|| Err("this daemon no longer holds the hub's lease".to_string())));
        self.state().carry.take().map(|c| c.snapshot())
    }

    /// The carry as spool lines (`None` when none is kept): what the pusher sends to origin.
    pub fn carry_snapshot(&self) -> Option<Vec<u8>> {
        self.state().carry.as_ref().map(carry::Carry::snapshot)
    }

    /// Where the carry's closings stand: pass it to [`Attention::carry_committed`] once a
    /// commit made after this call holds the hub's files.
    pub fn carry_mark(&self) -> u64 {
        self.state().carry.as_ref().map_or(0, carry::Carry::mark)
    }

    /// A commit holds every item closed up to `mark`: they leave the carry.
    pub fn carry_committed(&self, mark: u64) {
        if let Some(c) = self.state().carry.as_mut() {
            c.committed(mark);
        }
    }

    /// Wait until origin holds everything admitted so far, so the sense that brought it may
    /// acknowledge it upstream (a leased hub; at once otherwise). Err: it is admitted here but
    /// not in origin (the lease was lost, origin cannot be reached in the lease's time) — do
    /// not acknowledge it; the channel delivers it again, or the sender is told.
    pub fn replicated(&self) -> Result<(), String> {
        // Called outside the lock: senses waiting at once share one push.
        let wait = self.shared.upstream.lock().unwrap_or_else(|p| p.into_inner()).clone();
        match wait {
            Some(wait) => wait(),
            None => Ok(()),
        }
    }

    /// A decision closed this item (and everything coalesced into it): it leaves the spool.
    pub fn done(&self, candidate: &Candidate) {
        let mut s = self.state();
        s.spool_done(candidate.item.id());
        for m in &candidate.merged {
            s.spool_done(m.id());
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        // A panic elsewhere must not stop the senses; the pool's data stays consistent
        // because every mutation completes under the lock before it is released.
        self.shared.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Offer a percept or impulse; wakes a resting daemon. When the spool cannot record it (a
    /// full disk), it is admitted all the same — held in memory, logged — so a sense that
    /// cannot ask again loses nothing while the daemon runs; see [`Attention::admit_durable`].
    pub fn admit(&self, item: impl Into<Input>) -> Admission {
        match self.offer(item.into(), false) {
            Ok(admission) => admission,
            Err((admission, e)) => {
                tracing::error!(e = %cn_compute::Chain(&e), "attention: admitted in memory only; it would not survive a crash");
                admission
            }
        }
    }

    /// Offer an item only if the spool records it: when it cannot (a full disk), nothing is
    /// admitted and the error says why — for a sense that can answer "not taken, send it
    /// again" (the owner endpoint and the webhooks answer 507).
    pub fn admit_durable(&self, item: impl Into<Input>) -> Result<Admission, spool::NotSpooled> {
        self.offer(item.into(), true).map_err(|(_, e)| e)
    }

    /// Spool first (once a sense is answered, the item must survive a kill), then the pool.
    /// Err: the spool failed; with `durable`, nothing was admitted (the admission is
    /// `Shed` then), else the item is in the pool.
    fn offer(&self, item: Input, durable: bool) -> Result<Admission, (Admission, spool::NotSpooled)> {
        let mut s = self.state();
        let State { pool, spool, carry, .. } = &mut *s;
        let mut failed = None;
        let into = (spool.is_some() || carry.is_some()).then(|| pool.coalesce_target(&item).map(str::to_string));
        let into = into.flatten();
        if let Some(spool) = spool.as_mut() {
            if let Err(e) = spool.add(&item, into.as_deref()) {
                if durable {
                    return Err((Admission::Shed { id: item.id().to_string() }, e));
                }
                failed = Some(e);
            }
        }
        if let Some(carry) = carry.as_mut() {
            carry.add(&item, into.as_deref());
        }
        let admission = pool.admit(item);
        if let Admission::Displaced { shed: id } | Admission::Shed { id } = &admission {
            s.spool_done(id);
        }
        s.generation += 1;
        drop(s);
        self.shared.changed.notify_all();
        match failed {
            None => Ok(admission),
            Some(e) => Err((admission, e)),
        }
    }

    /// Wake a waiting rest without admitting anything: something outside the pool changed
    /// (an item written to the hub's inbox, a task added) that the next `decide` will read.
    pub fn poke(&self) {
        self.state().generation += 1;
        self.shared.changed.notify_all();
    }

    /// The caller has read everything outside the pool as of `generation` (taken from
    /// [`Attention::generation`] before it read): a poke after that still ends the next rest,
    /// even though a `decide` since saw the pool.
    pub fn seen_up_to(&self, generation: u64) {
        let mut s = self.state();
        s.seen = s.seen.min(generation);
    }

    /// Take the most salient item, if any.
    pub fn decide(&self, now: Timestamp) -> Option<Candidate> {
        let mut s = self.state();
        s.seen = s.generation;
        let c = s.pool.decide(now);
        if c.is_some() {
            s.last_decided = Some(Instant::now());
        }
        c
    }

    /// Work on the pool directly (peek, iterate, take the flood report).
    pub fn with_pool<R>(&self, f: impl FnOnce(&mut Pool) -> R) -> R {
        f(&mut self.state().pool)
    }

    pub fn len(&self) -> usize {
        self.state().pool.len()
    }
    /// An owner item is waiting: the daemon's `decide` switches to it after the current act.
    pub fn owner_waiting(&self) -> bool {
        self.state().pool.owner_waiting()
    }
    pub fn is_empty(&self) -> bool {
        self.state().pool.is_empty()
    }

    /// Ask any waiter to return (shutdown).
    pub fn stop(&self) {
        self.state().stopped = true;
        self.shared.changed.notify_all();
    }

    /// Make the next rest end no later than `at` (e.g. the next scheduled fire).
    pub fn wake_at(&self, at: Option<Instant>) {
        self.state().wake_at = at;
        self.shared.changed.notify_all();
    }

    /// True if an item was decided within `window`.
    pub fn active_within(&self, window: Duration) -> bool {
        self.state().last_decided.is_some_and(|t| t.elapsed() < window)
    }

    /// The current generation, to pass to [`Attention::wait`].
    pub fn generation(&self) -> u64 {
        self.state().generation
    }

    /// The daemon's rest: wait for an admission the last `decide` (or rest) did not see, the
    /// timeout, the wake-up deadline or stop. An item admitted between `decide` and this call
    /// ends the wait at once; each admission ends at most one rest, so items that stay pooled
    /// (say, while the thinking budget says no) cannot make rest spin.
    pub fn rest(&self, timeout: Duration) -> Wake {
        let seen = self.state().seen;
        let wake = self.wait(seen, timeout);
        let mut s = self.state();
        s.seen = s.generation;
        wake
    }

    /// Wait until something is admitted after `seen`, `timeout` (or the wake-up deadline)
    /// passes, or stop — whichever is first. No polling: a condition variable.
    pub fn wait(&self, seen: u64, timeout: Duration) -> Wake {
        let deadline = Instant::now() + timeout;
        let mut s = self.state();
        loop {
            if s.stopped {
                return Wake::Stopped;
            }
            if s.generation != seen {
                return Wake::Admitted;
            }
            let until = s.wake_at.map_or(deadline, |w| w.min(deadline));
            let now = Instant::now();
            if now >= until {
                if s.wake_at.is_some_and(|w| w <= now) {
                    s.wake_at = None;
                }
                return Wake::Timeout;
            }
            s = self.shared.changed.wait_timeout(s, until - now).unwrap_or_else(|p| p.into_inner()).0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use cn_hub::Sense;

    #[test]
    fn a_burst_of_ten_thousand_stays_bounded_and_the_owner_comes_first() {
        let attention = Attention::new(PoolConfig { capacity: 500, ..PoolConfig::default() });
        let threads: Vec<_> = (0..4)
            .map(|t| {
                let a = attention.clone();
                std::thread::spawn(move || {
                    for i in 0..2500 {
                        let sense = if i % 2 == 0 { Sense::Github } else { Sense::File };
                        let key = format!("k{t}-{}", i % 700);
                        a.admit(Percept::new(sense, format!("flood {t}/{i}")).key(key));
                        if t == 2 && i == 1200 {
                            a.admit(Percept::new(Sense::Chat, "owner: stop that"));
                        }
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert!(attention.len() <= 501, "pool grew to {}", attention.len());
        let first = attention.decide(Timestamp::now()).unwrap();
        assert_eq!(first.item.summary(), "owner: stop that");
        let report = attention.with_pool(|p| p.take_flood_report()).unwrap();
        // Every one of the 10,000 is accounted for: pooled, coalesced or shed.
        assert_eq!(attention.len() as u64 + report.coalesced + report.shed, 10_000);
    }

    #[test]
    fn a_durable_queue_survives_a_restart_until_done() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("attention.jsonl");
        let config = PoolConfig { capacity: 3, ..PoolConfig::default() };
        {
            let (a, restored) = Attention::durable(config.clone(), &path).unwrap();
            assert_eq!(restored, 0);
            a.admit(Percept::new(Sense::Chat, "owner asks"));
            a.admit(Percept::new(Sense::File, "a.md").key("file:a.md"));
            a.admit(Percept::new(Sense::File, "a.md again").key("file:a.md"));
            a.admit(Percept::new(Sense::Github, "gh 1"));
            a.admit(Percept::new(Sense::Github, "gh 2"));
            a.admit(Percept::new(Sense::Github, "gh 3")); // full: the file item (and its merge) shed
            let c = a.decide(Timestamp::now()).unwrap();
            assert_eq!(c.item.summary(), "owner asks");
            a.done(&c);
            // gh 1 decided but not done: killed mid-act, it must come back.
            a.decide(Timestamp::now()).unwrap();
            // Simulate a kill mid-write.
            use std::io::Write;
            std::fs::OpenOptions::new().append(true).open(&path).unwrap().write_all(b"{\"add\":{\"ki").unwrap();
        }
        let (a, restored) = Attention::durable(config, &path).unwrap();
        assert_eq!(restored, 3);
        let back: Vec<String> =
            std::iter::from_fn(|| a.decide(Timestamp::now())).map(|c| c.item.summary().to_string()).collect();
        assert_eq!(back, ["gh 1", "gh 2", "gh 3"]);
        assert_eq!(std::fs::read_to_string(&path).unwrap().lines().count(), 3, "compacted on open");
    }

    #[test]
    fn a_restart_restores_a_flood_as_the_pool_held_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("attention.jsonl");
        {
            let (a, _) = Attention::durable(PoolConfig::default(), &path).unwrap();
            for i in 0..=300 {
                a.admit(Percept::new(Sense::Github, format!("comment {i}")).key("github:acme#7"));
            }
        }
        let (a, restored) = Attention::durable(PoolConfig::default(), &path).unwrap();
        assert_eq!(restored, 301);
        let c = a.decide(Timestamp::now()).unwrap();
        assert_eq!(c.item.summary(), "comment 0");
        assert_eq!((c.merged.len(), c.merged_count), (pool::KEEP_MERGED, 300), "the count survives the restart");
        assert!(a.decide(Timestamp::now()).is_none());
    }

    #[test]
    fn an_item_the_spool_cannot_record_is_refused_when_it_must_be_durable() {
        let a = Attention::new(PoolConfig::default());
        a.state().spool = Some(spool::Spool::on_full_disk());
        let e = a.admit_durable(Percept::new(Sense::Chat, "hello")).unwrap_err().to_string();
        assert!(e.contains("/dev/full") && e.contains("No space left"), "{e}");
        assert!(a.is_empty(), "refused: nothing admitted, so the sender may send it again");
        // A sense that cannot ask again: the item is held in memory while the daemon runs.
        a.admit(Percept::new(Sense::Github, "gh"));
        assert_eq!(a.len(), 1);
    }

    #[test]
    fn the_carry_holds_what_no_commit_holds_and_senses_wait_on_the_pusher() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let a = Attention::new(PoolConfig::default());
        a.admit(Percept::new(Sense::Telegram, "pending before the term"));
        assert!(a.carry_snapshot().is_none(), "no carry unless leased");
        assert_eq!(a.replicated(), Ok(()), "unleased: nothing to wait for");
        let pushes = Arc::new(AtomicUsize::new(0));
        let counted = pushes.clone();
        a.carry(Arc::new(move || {
            counted.fetch_add(1, Ordering::SeqCst);
            Ok(())
        }));
        a.admit(Percept::new(Sense::Chat, "the owner asks"));
        assert_eq!(a.replicated(), Ok(()));
        assert_eq!(pushes.load(Ordering::SeqCst), 1, "a sense's wait is the pusher's");
        let snapshot = || String::from_utf8(a.carry_snapshot().unwrap()).unwrap();
        assert!(snapshot().contains("pending before the term") && snapshot().contains("the owner asks"));
        let c = a.decide(Timestamp::now()).unwrap();
        assert_eq!(c.item.summary(), "the owner asks");
        // A commit that started before the decision took it does not hold it.
        let before = a.carry_mark();
        a.done(&c);
        a.carry_committed(before);
        assert!(snapshot().contains("the owner asks"));
        let after = a.carry_mark();
        a.carry_committed(after);
        assert!(!snapshot().contains("the owner asks") && snapshot().contains("pending before the term"));
        // The term ends: nothing is acknowledged any more; the last carry is what was pending.
        let last = String::from_utf8(a.drop_carry().unwrap()).unwrap();
        assert!(last.contains("pending before the term") && !last.contains("the owner asks"));
        assert!(a.replicated().unwrap_err().contains("no longer holds the hub's lease"));
        assert!(a.carry_snapshot().is_none());
        assert!(a.delivery_id("telegram:update/7").is_none(), "no key, no delivery id");
        a.key_ids_with("k".into());
        let id = a.delivery_id("telegram:update/7").unwrap();
        assert_eq!(a.delivery_id("telegram:update/7").unwrap(), id, "the same delivery, the same id");
        assert_ne!(a.delivery_id("telegram:update/8").unwrap(), id);
        a.key_ids_with("another hub's key".into());
        assert_ne!(a.delivery_id("telegram:update/7").unwrap(), id, "keyed: nobody else can make it");
    }

    #[test]
    fn wait_wakes_on_admission_and_on_stop() {
        let attention = Attention::new(PoolConfig::default());
        let seen = attention.generation();
        let a = attention.clone();
        let t = std::thread::spawn(move || a.wait(seen, Duration::from_secs(60)));
        attention.admit(Percept::new(Sense::Chat, "hi"));
        assert_eq!(t.join().unwrap(), Wake::Admitted);
        let seen = attention.generation();
        let a = attention.clone();
        let t = std::thread::spawn(move || a.wait(seen, Duration::from_secs(60)));
        attention.stop();
        assert_eq!(t.join().unwrap(), Wake::Stopped);
        assert_eq!(attention.wait(seen, Duration::from_millis(1)), Wake::Stopped);
    }
}
