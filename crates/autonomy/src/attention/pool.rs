//! The attention pool: every percept and impulse waiting for a decision, kept ordered by
//! salience in a `BTreeMap`, so taking the most salient item, shedding the least salient
//! and coalescing by key are all O(log n) however large the pool is.
//!
//! Invariants: owner items come out before every other item and are never coalesced or
//! shed; the number of other items never exceeds the capacity; every item coalesced or shed
//! is counted in the flood report, which the daemon writes to the journal.

use std::cmp::Reverse;
use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};

use jiff::Timestamp;
use serde::Serialize;

use super::salience::{self, Salience, Scored, Weights};
use super::Input;

/// Pool settings (`attention:` in cn.yaml; the type lives in `cn_hub::config`).
pub use cn_hub::config::PoolConfig;

/// Sort key: owner first, then salience, then first come first served.
type Rank = (bool, i64, Reverse<u64>);

/// An item in the pool.
#[derive(Debug, Clone)]
pub struct Pooled {
    pub item: Input,
    scored: Scored,
    /// Later items with the same key, merged into this one (at most [`KEEP_MERGED`] kept).
    pub merged: Vec<Input>,
    /// How many items were merged in all.
    pub merged_count: u64,
}

impl Pooled {
    /// Its salience at `now`, explained.
    pub fn salience(&self, w: &Weights, now: Timestamp) -> Salience {
        Salience::at(&self.scored, w, now)
    }
}

/// How many merged items a pooled item keeps in full; the rest are counted.
pub const KEEP_MERGED: usize = 16;

/// What became of an item offered to the pool.
#[derive(Debug, Clone, PartialEq)]
pub enum Admission {
    Admitted,
    /// Merged into the pooled item with this id (same key).
    Coalesced {
        into: String,
    },
    /// Admitted into a full pool: the pooled item `shed` (the least salient) was let go.
    Displaced {
        shed: String,
    },
    /// The pool was full and this item was the least salient: it was let go.
    Shed {
        id: String,
    },
}

/// The item attention chose, with its salience now.
#[derive(Debug, Clone)]
pub struct Candidate {
    pub item: Input,
    pub salience: Salience,
    pub merged: Vec<Input>,
    pub merged_count: u64,
}

/// What a flood did since the last report.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct FloodReport {
    pub coalesced: u64,
    pub shed: u64,
    /// The first shed items (id, source, summary), so the journal says what was let go.
    pub shed_sample: Vec<(String, String, String)>,
}

const SHED_SAMPLE: usize = 32;

/// The pool.
#[derive(Debug)]
pub struct Pool {
    config: PoolConfig,
    items: BTreeMap<Rank, Pooled>,
    by_key: HashMap<String, Rank>,
    non_owner: usize,
    seq: u64,
    recent: VecDeque<String>,
    recent_set: HashSet<String>,
    report: FloodReport,
}

impl Pool {
    pub fn new(config: PoolConfig) -> Self {
        Pool {
            config,
            items: BTreeMap::new(),
            by_key: HashMap::new(),
            non_owner: 0,
            seq: 0,
            recent: VecDeque::new(),
            recent_set: HashSet::new(),
            report: FloodReport::default(),
        }
    }

    pub fn config(&self) -> &PoolConfig {
        &self.config
    }

    /// Take new settings (cn.yaml changed under a running daemon). They rank every item from
    /// the next decide on (salience is computed from the weights then); a smaller capacity
    /// applies to the items admitted next — none held now is shed for it.
    pub fn set_config(&mut self, config: PoolConfig) {
        self.config = config;
    }
    /// Whether a non-owner item would be admitted without shedding one.
    pub fn has_room(&self) -> bool {
        self.non_owner < self.config.capacity
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
    /// True when an owner item is waiting (it pre-empts autonomous work at the next decide).
    pub fn owner_waiting(&self) -> bool {
        self.items.last_key_value().is_some_and(|(r, _)| r.0)
    }

    /// Offer an item.
    pub fn admit(&mut self, item: Input) -> Admission {
        let owner = item.owner();
        let key = if owner { None } else { item.key().map(str::to_string) };
        if let Some(rank) = key.as_ref().and_then(|k| self.by_key.get(k)).copied() {
            return self.coalesce(rank, item);
        }
        let repeated = key.as_ref().is_some_and(|k| self.recent_set.contains(k));
        let scored = salience::score(&item, &self.config.weights, repeated);
        self.seq += 1;
        let rank = (owner, scored.rank, Reverse(self.seq));
        let mut admission = Admission::Admitted;
        if !owner && self.non_owner >= self.config.capacity {
            // Full: the least salient non-owner item goes — the newcomer if it is the least.
            let lowest = self.items.first_key_value().map(|(r, _)| *r).filter(|r| !r.0);
            match lowest {
                Some(low) if low < rank => {
                    if let Some(gone) = self.remove(low) {
                        self.note_shed(&gone.item);
                        admission = Admission::Displaced { shed: gone.item.id().to_string() };
                    }
                }
                _ => {
                    self.note_shed(&item);
                    return Admission::Shed { id: item.id().to_string() };
                }
            }
        }
        if let Some(k) = key {
            self.by_key.insert(k, rank);
        }
        if !owner {
            self.non_owner += 1;
        }
        self.items.insert(rank, Pooled { item, scored, merged: Vec::new(), merged_count: 0 });
        admission
    }

    /// The id of the pooled item `item` would be coalesced into, if any (what [`Pool::admit`]
    /// will answer with `Coalesced`).
    pub fn coalesce_target(&self, item: &Input) -> Option<&str> {
        if item.owner() {
            return None;
        }
        let rank = self.by_key.get(item.key()?)?;
        self.items.get(rank).map(|p| p.item.id())
    }

    /// Take the most salient item (owner items first), with its salience at `now`.
    pub fn decide(&mut self, now: Timestamp) -> Option<Candidate> {
        let rank = *self.items.last_key_value()?.0;
        let pooled = self.remove(rank)?;
        if let Some(k) = pooled.item.key() {
            self.remember(k.to_string());
        }
        let salience = Salience::at(&pooled.scored, &self.config.weights, now);
        Some(Candidate { item: pooled.item, salience, merged: pooled.merged, merged_count: pooled.merged_count })
    }

    /// Look at the most salient item without taking it.
    pub fn peek(&self) -> Option<&Pooled> {
        self.items.last_key_value().map(|(_, p)| p)
    }

    /// Everything pooled, most salient first (for persisting the queue, or a status view).
    pub fn iter(&self) -> impl Iterator<Item = &Pooled> {
        self.items.values().rev()
    }

    /// What floods did since the last call, if anything.
    pub fn take_flood_report(&mut self) -> Option<FloodReport> {
        if self.report.coalesced == 0 && self.report.shed == 0 {
            return None;
        }
        Some(std::mem::take(&mut self.report))
    }

    /// Count `n` more items merged into the pooled item `id` than it keeps (a restored spool
    /// keeps [`KEEP_MERGED`] of them in full and their number). False when `id` is not pooled.
    pub fn count_merged(&mut self, id: &str, n: u64) -> bool {
        match self.items.values_mut().find(|p| p.item.id() == id) {
            Some(p) => {
                p.merged_count += n;
                true
            }
            None => false,
        }
    }

    fn coalesce(&mut self, rank: Rank, item: Input) -> Admission {
        self.report.coalesced += 1;
        let scored = salience::score(&item, &self.config.weights, false);
        let Some(mut pooled) = self.remove(rank) else { return Admission::Admitted };
        let into = pooled.item.id().to_string();
        pooled.merged_count += 1;
        // The merged item is as salient as its most salient part.
        let new_rank = if scored.rank > rank.1 {
            pooled.scored = scored;
            (false, pooled.scored.rank, rank.2)
        } else {
            rank
        };
        if pooled.merged.len() < KEEP_MERGED {
            pooled.merged.push(item);
        }
        if let Some(k) = pooled.item.key() {
            self.by_key.insert(k.to_string(), new_rank);
        }
        self.non_owner += 1;
        self.items.insert(new_rank, pooled);
        Admission::Coalesced { into }
    }

    fn remove(&mut self, rank: Rank) -> Option<Pooled> {
        let pooled = self.items.remove(&rank)?;
        if !rank.0 {
            self.non_owner -= 1;
        }
        if let Some(k) = pooled.item.key() {
            if self.by_key.get(k) == Some(&rank) {
                self.by_key.remove(k);
            }
        }
        Some(pooled)
    }

    fn note_shed(&mut self, item: &Input) {
        self.report.shed += 1;
        if self.report.shed_sample.len() < SHED_SAMPLE {
            self.report.shed_sample.push((
                item.id().to_string(),
                item.source_name().to_string(),
                item.summary().to_string(),
            ));
        }
    }

    fn remember(&mut self, key: String) {
        if self.config.recent == 0 || self.recent_set.contains(&key) {
            return;
        }
        if self.recent.len() >= self.config.recent {
            if let Some(old) = self.recent.pop_front() {
                self.recent_set.remove(&old);
            }
        }
        self.recent_set.insert(key.clone());
        self.recent.push_back(key);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::percept::Percept;
    use cn_hub::Sense;

    fn percept(sense: Sense, summary: &str, key: Option<&str>) -> Input {
        let mut p = Percept::new(sense, summary);
        p.key = key.map(str::to_string);
        Input::Percept(p)
    }

    #[test]
    fn owner_first_then_salience_then_arrival() {
        let mut pool = Pool::new(PoolConfig::default());
        pool.admit(percept(Sense::File, "file", None));
        pool.admit(percept(Sense::Github, "gh 1", None));
        pool.admit(percept(Sense::Github, "gh 2", None));
        pool.admit(percept(Sense::Chat, "hello", None));
        let now = Timestamp::now();
        let order: Vec<String> =
            std::iter::from_fn(|| pool.decide(now)).map(|c| c.item.summary().to_string()).collect();
        assert_eq!(order, ["hello", "gh 1", "gh 2", "file"]);
    }

    #[test]
    fn same_key_coalesces_and_full_pool_sheds_the_least_salient() {
        let mut pool = Pool::new(PoolConfig { capacity: 2, ..PoolConfig::default() });
        assert_eq!(pool.admit(percept(Sense::File, "a.md changed", Some("file:a.md"))), Admission::Admitted);
        assert!(matches!(
            pool.admit(percept(Sense::File, "a.md changed again", Some("file:a.md"))),
            Admission::Coalesced { .. }
        ));
        assert_eq!(pool.len(), 1);
        pool.admit(percept(Sense::Github, "gh", None));
        // Full (2). A more salient item pushes the file item out; a less salient one is refused.
        assert!(matches!(pool.admit(percept(Sense::Github, "gh 2", None)), Admission::Displaced { .. }));
        assert!(matches!(pool.admit(percept(Sense::File, "b.md", None)), Admission::Shed { .. }));
        // Owner items are never shed, whatever the capacity.
        for i in 0..5 {
            assert_eq!(pool.admit(percept(Sense::Chat, &format!("owner {i}"), Some("same"))), Admission::Admitted);
        }
        assert_eq!(pool.len(), 7);
        let report = pool.take_flood_report().unwrap();
        assert_eq!((report.coalesced, report.shed), (1, 2));
        assert_eq!(report.shed_sample[0].2, "a.md changed");
        assert!(pool.take_flood_report().is_none());
        let first = pool.decide(Timestamp::now()).unwrap();
        assert_eq!(first.item.summary(), "owner 0");
    }

    #[test]
    fn recently_decided_keys_are_less_novel() {
        let mut pool = Pool::new(PoolConfig::default());
        pool.admit(percept(Sense::Github, "first", Some("github:o/r#1")));
        pool.decide(Timestamp::now()).unwrap();
        pool.admit(percept(Sense::Github, "again", Some("github:o/r#1")));
        let c = pool.decide(Timestamp::now()).unwrap();
        assert!(c.salience.explanation.contains("seen recently"), "{}", c.salience.explanation);
    }
}
