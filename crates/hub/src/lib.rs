//! hub — the one place that knows a hub's format: where each file lives (`layout`), what
//! `cn.yaml` says (`config`, parsed once into one typed section per layer), the journal
//! (`journal`, one handle, the seed's typed entries), ids (`id`), the impulse files (`tasks`: tasks and ideas; `schedule`, its
//! times read by `cn_cron`), the words a person names them by (`words`) and an item's typed origin (`origin`:
//! sense, author, kind, thread, where to answer). Every other crate takes a `&Hub` or its
//! config section, never a path it builds itself.

pub mod approvals;
pub mod config;
pub mod hub;
pub mod id;
pub mod journal;
pub mod layout;
pub mod origin;
pub mod owner_token;
pub mod protect;
pub mod provenance;
pub mod schedule;
pub mod tasks;
pub mod words;

/// The schedule's cron expressions: a crate of their own, named here as the schedule reads them.
pub use cn_cron as cron;
pub use config::{ConfigError, HubConfig};
pub use hub::{find_hub, valid_name, Hub, HubError, Peer, OWNER};
pub use layout::Layout;
pub use origin::{AnswerTo, Kind, Origin, Sense, Via};
pub use protect::SandboxSpec;
pub use provenance::Provenance;
