//! The hub kept in origin while the daemon runs (cn.yaml `origin:`): one thread pushes the
//! hub's commits, batched (whatever was committed since the last push goes in one), retried
//! with backoff, and — leased — renews the lease every third of its time in the same push.
//!
//! Leased, the mind writes through at item boundaries ([`Replica::checkpoint`]): an item's
//! take is in origin before a model works on it (a standby resumes it, never takes it as
//! new), and a decision is in origin before anything of it leaves the machine (its answer on
//! a channel; its mail, whose publication carries the branch too). So a decision that reached
//! anyone is never made again by the clone that takes over.
//!
//! Leased, every push also carries attention's carry (`cn_autonomy::attention::carry`) to
//! origin's `refs/cn/attention`: what the senses took in and the branch lacks. A sense
//! acknowledges a message upstream only after [`Replica::carried`] (through
//! `Attention::replicated`), so what a channel delivered to a machine that dies is decided by
//! the clone that takes over. The carry's snapshot is taken before the push reads the
//! branch's head, and an item leaves the carry only once a checkpoint's commit holds it.
//!
//! Invariants: without a lease the thread waits on a condition variable and does nothing
//! until something is committed (no thread polls); leased, the renewal is its one periodic
//! act. A push that fails loses nothing — the commits are in the local repository and the
//! journal first — and is retried; one the lease forbids (lost, lapsed, origin's branch
//! moved under it) fences the daemon: `fence` is stopped, and no process of this clone
//! decides again until it takes the lease anew (`cn_lease::check`).

use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use cn_compute::StopToken;
use cn_hub::journal::{Kind, Record};
use cn_lease::{LeaseError, Upstream};

/// Why the daemon may not go on deciding: it lost (or could not keep) the lease.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Fenced(pub String);

/// The pusher (see the module's doc).
pub struct Replica {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

struct Shared {
    upstream: Upstream,
    /// Leased, while the agent runs: the attention whose carry each push sends.
    carry: Mutex<Option<cn_autonomy::Attention>>,
    /// Stopped when the lease is lost: the daemon of this term stops.
    fence: StopToken,
    state: Mutex<State>,
    cvar: Condvar,
}

#[derive(Default)]
struct State {
    /// Checkpoints asked for so far, and how many of them a push has covered.
    wanted: u64,
    done: u64,
    /// When the next renewal is due (leased).
    renew_at: Option<Instant>,
    /// After a failure: no push before this.
    retry_at: Option<Instant>,
    failures: u32,
    /// The last push's error, as journaled (reported again only when it changes).
    error: Option<String>,
    fenced: Option<String>,
    stopping: bool,
    /// The carry's lines origin holds (as last pushed): an unchanged carry is not written again.
    carried: Option<Vec<u8>>,
    /// The term's last carry, once its attention is gone ([`Replica::end_carry`]).
    last_carry: Option<Vec<u8>>,
    /// Why the carry could not go with the last push (too large, not writable): senses
    /// waiting on it are told, and acknowledge nothing.
    carry_error: Option<String>,
}

/// The longest wait between two tries of a failing push without a lease.
const BACKOFF_MAX: Duration = Duration::from_secs(300);

impl Replica {
    /// Start pushing for `upstream`; leased, `fence` is stopped when the lease is lost.
    pub fn start(upstream: Upstream, fence: StopToken) -> Replica {
        let leased = upstream.lease();
        let state = State { renew_at: leased.map(|l| Instant::now() + l / 3), ..State::default() };
        let shared = Arc::new(Shared {
            upstream,
            carry: Mutex::new(None),
            fence,
            state: Mutex::new(state),
            cvar: Condvar::new(),
        });
        let worker = shared.clone();
        let thread = std::thread::Builder::new().name("origin".into()).spawn(move || worker.run()).ok();
        if thread.is_none() {
            tracing::error!("cannot start the thread that pushes the hub to origin");
        }
        Replica { shared, thread }
    }

    /// Commit what the hub holds now (`message`) and have it pushed. Leased, wait until origin
    /// has it: `Err` when the lease is lost or lapses meanwhile (the daemon must stop deciding;
    /// nothing of this item may leave the machine). Without a lease, return at once.
    pub fn checkpoint(&self, message: &str) -> Result<(), Fenced> {
        let attention = self.shared.attention();
        // Taken before the commit: what was closed by now, the commit holds.
        let mark = attention.as_ref().map(cn_autonomy::Attention::carry_mark);
        if let Err(e) = self.shared.upstream.git().commit_paths_quick(message, &cn_hub::layout::OWN) {
            tracing::warn!(error = %cn_compute::Chain(&e), "cannot commit the hub before pushing it");
        } else if let (Some(a), Some(mark)) = (&attention, mark) {
            a.carry_committed(mark);
        }
        self.pushed(true).map(|_| ())
    }

    /// Leased: wait until a push that starts now has landed — what attention admitted so far
    /// is in origin's carry, and a sense may acknowledge it. `Err` when the lease is lost or
    /// lapses meanwhile. Without a lease, ask for a push and return at once.
    pub fn carried(&self) -> Result<(), Fenced> {
        match self.pushed(false)? {
            Some(why) => Err(Fenced(format!("what was taken in could not go to origin with the push: {why}"))),
            None => Ok(()),
        }
    }

    /// Keep `attention`'s carry in origin from now on (leased; the agent of this term runs):
    /// senses wait on [`Replica::carried`] before acknowledging what they admit.
    pub fn carry(self: &Arc<Self>, attention: &cn_autonomy::Attention) {
        if self.shared.upstream.lease().is_none() {
            return;
        }
        let me = Arc::downgrade(self);
        attention.carry(Arc::new(move || match me.upgrade() {
            Some(replica) => replica.carried().map_err(|f| f.0),
            None => Err("this daemon no longer holds the hub's lease".to_string()),
        }));
        *self.shared.carry.lock().unwrap_or_else(|p| p.into_inner()) = Some(attention.clone());
    }

    /// The agent of this term stops: its carry is pushed once more (what its senses admitted
    /// and no decision took, for the clone that takes over), and no sense acknowledges
    /// anything after.
    pub fn end_carry(&self) {
        let Some(attention) = self.shared.attention() else { return };
        // The last snapshot, taken once no sense can begin a wait, is what later pushes send;
        // taken under the state's lock, so a push between finds it (see `carry_to_push`).
        {
            let mut st = self.shared.lock();
            st.last_carry = attention.drop_carry();
        }
        *self.shared.carry.lock().unwrap_or_else(|p| p.into_inner()) = None;
        if let Err(e) = self.pushed(true) {
            tracing::warn!(%e, "the last carry could not be pushed");
        }
    }

    /// Ask for a push and, leased, wait until one that started after this call landed; the
    /// carry's error of that push, if it went without it. A `checkpoint` (an item boundary)
    /// is tried at once, whatever the backoff said; a sense's wait keeps the backoff.
    fn pushed(&self, checkpoint: bool) -> Result<Option<String>, Fenced> {
        let mut st = self.shared.lock();
        if let Some(why) = &st.fenced {
            return Err(Fenced(why.clone()));
        }
        st.wanted += 1;
        let seq = st.wanted;
        if checkpoint {
            st.retry_at = None;
        }
        self.shared.cvar.notify_all();
        if self.shared.upstream.lease().is_none() {
            return Ok(None);
        }
        loop {
            if let Some(why) = &st.fenced {
                return Err(Fenced(why.clone()));
            }
            if st.done >= seq {
                return Ok(st.carry_error.clone());
            }
            // Wait no longer than this clone may decide; past it, it is fenced whatever the
            // push still doing says.
            let Some(left) = self.shared.upstream.held().and_then(|h| h.remaining()) else {
                let why = "the lease lapsed while its push was waited for".to_string();
                drop(st);
                self.shared.fenced(&why);
                return Err(Fenced(why));
            };
            st = self.shared.cvar.wait_timeout(st, left).map(|(g, _)| g).unwrap_or_else(|p| p.into_inner().0);
        }
    }

    /// Whether this clone may still decide (leased: its hold is valid by the boot clock). A
    /// hold that lapsed — a daemon paused or asleep past it — fences the daemon here, before
    /// the renewal that would learn it was lost.
    pub fn holds(&self) -> Result<(), Fenced> {
        if let Some(why) = self.fenced() {
            return Err(Fenced(why));
        }
        if self.shared.upstream.lease().is_none() || self.shared.upstream.held().and_then(|h| h.remaining()).is_some() {
            return Ok(());
        }
        let why = "the lease lapsed: this daemon could not renew it in time (paused, asleep, or cut off)".to_string();
        self.shared.fenced(&why);
        Err(Fenced(why))
    }

    /// Why the daemon was fenced, if it was.
    pub fn fenced(&self) -> Option<String> {
        self.shared.lock().fenced.clone()
    }

    /// Push what is left now and stop the thread (a clean stop; the lease is released by the
    /// caller). Waits for the push in flight.
    pub fn finish(mut self) {
        self.stop_thread();
        let fenced = self.shared.lock().fenced.is_some();
        if !fenced && self.shared.upstream.lease().is_none() {
            if let Err(e) = self.shared.upstream.push(&[]) {
                tracing::warn!(error = %cn_compute::Chain(&e), "the hub's last commits are not in origin yet");
            }
        }
    }

    fn stop_thread(&mut self) {
        self.shared.lock().stopping = true;
        self.shared.cvar.notify_all();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Drop for Replica {
    fn drop(&mut self) {
        self.stop_thread();
    }
}

impl Shared {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn attention(&self) -> Option<cn_autonomy::Attention> {
        self.carry.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// The carry to send with the next push, when it changed since the last one: its lines
    /// and the refspec (`Ok(None)`: nothing new to send). Taken before the push reads the
    /// branch's head (see the module's doc). `Err`: it cannot go (too large for the clone
    /// that takes over to read, or not writable) — the push goes without it and the senses
    /// waiting on it acknowledge nothing.
    fn carry_to_push(&self) -> Result<Option<(Vec<u8>, String)>, String> {
        let lines = match self.attention() {
            // (None once the term's carry was dropped: its last snapshot is then set.)
            Some(a) => a.carry_snapshot().or_else(|| self.lock().last_carry.clone()),
            None => self.lock().last_carry.clone(),
        };
        let Some(lines) = lines else { return Ok(None) };
        if self.lock().carried.as_ref() == Some(&lines) {
            return Ok(None);
        }
        if lines.len() as u64 > cn_lease::CARRY_MAX {
            return Err(format!(
                "the queue of what was taken in is {} bytes, over the {} a clone taking over reads",
                lines.len(),
                cn_lease::CARRY_MAX
            ));
        }
        match self.upstream.carry_refspec(&lines) {
            Ok(spec) => Ok(Some((lines, spec))),
            Err(e) => Err(format!("cannot write it for origin: {}", cn_compute::Chain(&e))),
        }
    }

    fn run(&self) {
        let leased = self.upstream.lease();
        loop {
            let attempt = {
                let mut st = self.lock();
                loop {
                    if st.stopping || st.fenced.is_some() {
                        return;
                    }
                    let now = Instant::now();
                    let retry_ok = st.retry_at.is_none_or(|t| now >= t);
                    let push_due = st.wanted > st.done && retry_ok;
                    let renew_due = st.renew_at.is_some_and(|t| now >= t) && retry_ok;
                    if push_due || renew_due {
                        break;
                    }
                    // Sleep until the next thing due; without a lease and with nothing to
                    // push, until woken (no timer at all).
                    let next = match (retry_ok, st.renew_at) {
                        (false, _) if st.wanted > st.done || st.renew_at.is_some() => st.retry_at,
                        (false, _) => None,
                        (true, renew) => renew,
                    };
                    st = match next {
                        Some(t) => self
                            .cvar
                            .wait_timeout(st, t.saturating_duration_since(now))
                            .map(|(g, _)| g)
                            .unwrap_or_else(|p| p.into_inner().0),
                        None => self.cvar.wait(st).unwrap_or_else(|p| p.into_inner()),
                    };
                }
                st.wanted
            };
            let carry = self.carry_to_push();
            if let Err(why) = &carry {
                tracing::warn!(%why, "the push goes to origin without what the senses took in");
            }
            let extra: Vec<String> = carry.iter().flatten().map(|(_, spec)| spec.clone()).collect();
            let result = self.upstream.push(&extra);
            let mut st = self.lock();
            match result {
                Ok(pushed) => {
                    if let Some(found) = &pushed.repaired {
                        tracing::warn!(%found, "origin's lease was replaced by one no clone wrote; put back");
                        eprintln!(
                            "cn run: origin's lease was replaced by one no clone of this hub wrote; this clone put its own back ({})",
                            cn_process::redact::printable_line(found)
                        );
                        drop(st);
                        self.journal(
                            "origin's lease was replaced by one no clone of this hub wrote (someone who may push to origin): this clone, which holds it, put its own back and decides on",
                            Some(found),
                        );
                        st = self.lock();
                    }
                    match carry {
                        Ok(Some((lines, _))) => {
                            st.carried = Some(lines);
                            st.carry_error = None;
                        }
                        Ok(None) => st.carry_error = None,
                        Err(why) => st.carry_error = Some(why),
                    }
                    st.done = st.done.max(attempt);
                    st.failures = 0;
                    st.retry_at = None;
                    st.renew_at = leased.map(|l| Instant::now() + l / 3);
                    if st.error.take().is_some() {
                        drop(st);
                        self.journal("the hub is in origin again: the pushes that failed went through", None);
                        st = self.lock();
                    }
                }
                Err(e @ (LeaseError::Lost { .. } | LeaseError::Fenced { .. } | LeaseError::Diverged { .. })) => {
                    drop(st);
                    self.fenced(&cn_compute::chain(&e));
                    return;
                }
                Err(e) => {
                    st.failures = st.failures.saturating_add(1);
                    let cap = leased.map_or(BACKOFF_MAX, |l| (l / 6).max(Duration::from_millis(100)));
                    let wait =
                        Duration::from_secs(1).saturating_mul(1 << st.failures.min(16).saturating_sub(1)).min(cap);
                    st.retry_at = Some(Instant::now() + wait);
                    let shown = cn_compute::chain(&e);
                    let new = st.error.as_deref() != Some(shown.as_str());
                    st.error = Some(shown.clone());
                    drop(st);
                    tracing::warn!(error = %shown, retry_in = ?wait, "cannot push the hub to origin");
                    if new {
                        self.journal("the hub could not be pushed to origin; retried with backoff", Some(&shown));
                    }
                    if leased.is_some() && self.upstream.held().and_then(|h| h.remaining()).is_none() {
                        self.fenced(&format!("the lease lapsed: origin could not be reached to renew it ({shown})"));
                        return;
                    }
                    st = self.lock();
                }
            }
            drop(st);
            self.cvar.notify_all();
        }
    }

    /// The lease is gone: no process of this clone decides again, the daemon of this term
    /// stops, and the journal says why.
    fn fenced(&self, why: &str) {
        {
            let mut st = self.lock();
            if st.fenced.is_some() {
                return;
            }
            st.fenced = Some(why.to_string());
        }
        self.upstream.void();
        self.cvar.notify_all();
        tracing::warn!(%why, "fenced: this daemon stops deciding");
        self.journal("fenced: this clone no longer holds the hub's lease and stops deciding", Some(why));
        self.fence.stop();
    }

    fn journal(&self, summary: &str, error: Option<&str>) {
        let mut record = Record::new(Kind::Observation, cn_hub::id::prefixed("origin"), summary);
        if let Some(e) = error {
            record = record.context(e);
        }
        let layout = cn_hub::Layout::new(self.upstream.git().dir());
        if let Err(e) = layout.open_journal().and_then(|mut j| j.record(record)) {
            tracing::error!(e = %cn_compute::Chain(&e), "cannot write the journal");
        }
    }
}
