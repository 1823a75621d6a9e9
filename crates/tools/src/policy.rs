//! Which tools each level may call. Loaded from `cn.yaml`'s `policy:` key; a level with no
//! grant may call nothing.
//!
//! ```yaml
//! policy:
//!   levels:
//!     2: [reply, noop, ack, defer]
//!     3: [cn.*, tasks.*, read_file]
//!   shell: false
//!   urls: [https://example.com/]
//! ```
//!
//! The types live in `cn_hub::config` (the `policy:` section); they are re-exported here.

pub use cn_hub::config::{Grant, Policy};

#[cfg(test)]
mod tests {
    use super::*;

    /// `policy:` as cn.yaml writes it (`yaml` is the whole file).
    fn policy(yaml: &str) -> Result<Policy, cn_hub::ConfigError> {
        cn_hub::HubConfig::parse(yaml, std::path::Path::new("cn.yaml")).map(|c| c.policy)
    }

    #[test]
    fn grants_are_per_level_with_prefix_globs() {
        let p = Policy::default().grant(2, &["reply"]).grant(3, &["cn.*", "read_file"]);
        assert!(p.allows(2, "reply"));
        assert!(!p.allows(2, "read_file"));
        assert!(p.allows(3, "cn.out"));
        assert!(!p.allows(1, "reply"));
    }

    #[test]
    fn namespaced_tools_need_their_namespace_named() {
        let p = Policy::default().grant(1, &["*"]).grant(2, &["ti*"]).grant(3, &["time.*"]).grant(0, &["time.now"]);
        assert!(p.allows(1, "reply"));
        assert!(!p.allows(1, "time.now"), "a bare `*` grants no MCP server's tools");
        assert!(!p.allows(2, "time.now"));
        assert!(p.allows(3, "time.now") && !p.allows(3, "timer.now"));
        assert!(p.allows(0, "time.now") && !p.allows(0, "time.later"));
    }

    #[test]
    fn provenance_decides_what_an_item_may_cause_and_a_line_widens_it() {
        use cn_hub::Provenance;
        let p = policy("policy: {levels: {3: [fetch_url]}, from: {github: [fetch_url], 'peer:pi': [send], 'discord:42': [note_write]}}")
            .unwrap();
        let stranger = Provenance::parse("discord:7");
        let pi = Provenance::Peer("pi".into());
        assert!(Policy::default().allows_from(&Provenance::Owner, "shell"), "the owner's may cause anything");
        for tool in ["reply", "add_task", "defer", "delete", "template"] {
            assert!(p.allows_from(&stranger, tool), "{tool}");
        }
        for tool in ["fetch_url", "note_write", "send", "write_file", "read_file", "reflex_write", "shell"] {
            assert!(!p.allows_from(&stranger, tool), "{tool}");
        }
        assert!(p.allows_from(&Provenance::parse("github:mallory"), "fetch_url"), "a sense's line covers its users");
        assert!(p.allows_from(&pi, "send") && !p.allows_from(&Provenance::Peer("ada".into()), "send"));
        assert!(
            p.allows_from(&Provenance::parse("discord:42"), "note_write") && !p.allows_from(&stranger, "note_write")
        );
        assert!(p.allows_from(&stranger, "time.now"), "MCP tools are their server's `callers:` to decide");
        // `anyone` replaces the default.
        let narrow = policy("policy: {from: {anyone: [reply]}}").unwrap();
        assert!(narrow.allows_from(&stranger, "reply") && !narrow.allows_from(&stranger, "add_task"));
        assert_eq!(
            Policy::widening(&Provenance::parse("github:mallory"), "fetch_url"),
            "policy.from.github:mallory: [fetch_url]  (added to cn.yaml under `policy: from:`)"
        );
    }

    #[test]
    fn config_errors_name_the_key() {
        let e = policy("policy: {levels: {2: [reply]}, bogus: 1}").unwrap_err();
        let e = e.to_string();
        assert!(e.contains("policy") && e.contains("bogus"), "{e}");
    }
}
