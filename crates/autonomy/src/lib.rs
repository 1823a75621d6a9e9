//! Autonomy: the daemon, senses and impulses, attention, the journal queries.
