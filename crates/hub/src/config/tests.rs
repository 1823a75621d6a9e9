use std::net::SocketAddr;
use std::time::Duration;

use super::*;

#[test]
fn url_allowlist_entries_match_by_scheme_host_port_and_path_never_by_prefix() {
    let p = Policy {
        urls: Some(vec!["https://example.com".into(), "http://127.0.0.1:8080/docs/".into()]),
        ..Policy::default()
    };
    let ok = |u: &str| p.url_allowed(&url::Url::parse(u).unwrap());
    assert!(ok("https://example.com/") && ok("https://EXAMPLE.com/a?b") && ok("https://example.com:443/x"));
    assert!(ok("http://127.0.0.1:8080/docs") && ok("http://127.0.0.1:8080/docs/a"));
    for bad in [
        "https://example.com.evil/",
        "https://example.com@evil/",
        "https://user:pw@example.com/",
        "http://example.com/",
        "https://example.com:8443/",
        "http://127.0.0.1:8080/docsx",
        "http://127.0.0.1:8081/docs/",
    ] {
        assert!(!ok(bad), "{bad}");
    }
    assert!(p.names_host(&url::Url::parse("http://127.0.0.1:8080/other").unwrap()));
    assert!(!p.names_host(&url::Url::parse("http://127.0.0.1:9/").unwrap()));
    assert!(Policy::default().url_allowed(&url::Url::parse("https://anything.example/").unwrap()));
}

const TEMPLATE: &str = include_str!("../../../agent/src/templates/cn.yaml");

fn parse(yaml: &str) -> Result<HubConfig, ConfigError> {
    HubConfig::parse(yaml, Path::new("/h/cn.yaml"))
}

#[test]
fn otel_is_checked_and_unknown_keys_get_a_suggestion() {
    assert_eq!(parse("name: a\n").unwrap().otel, None, "off unless present");
    let c = parse("otel:\n  endpoint: https://collector.example:4318/v1/traces\n  headers_env: {authorization: OTEL_AUTH}\n  interval: 500ms\n").unwrap();
    let o = c.otel.unwrap();
    assert_eq!(o.headers_env["authorization"], "OTEL_AUTH");
    assert_eq!((o.service_name.as_str(), o.queue, o.interval), ("cn", 2048, Duration::from_millis(500)));
    for (yaml, want) in [
        ("otel:\n  endpoint: ftp://x/\n", "otel.endpoint"),
        ("otel:\n  endpoint: http://u:secret@x/v1/traces\n", "without credentials"),
        ("otel:\n  endpoint: http://x/\n  queue: 0\n", "otel.queue"),
        ("otel:\n  endpoint: http://x/\n  headers_env: {'a b': X}\n", "otel.headers_env"),
        ("otel:\n  endpoint: http://x/\n  endpont: 1\n", "did you mean `endpoint`?"),
        ("otel:\n  headers_env: {}\n", "endpoint"),
    ] {
        let e = parse(yaml).unwrap_err().to_string();
        assert!(e.contains(want), "{yaml}: {e}");
        assert!(!e.contains("secret"), "{e}");
    }
}

#[test]
fn peers_at_once_is_a_number_of_peers_within_bounds() {
    assert_eq!(parse("name: a\n").unwrap().mail.peers_at_once, PEERS_AT_ONCE);
    let c = parse("mail: {peers_at_once: 48}\n").unwrap();
    assert_eq!((c.mail.peers_at_once, c.mail.max_bytes), (48, 1 << 20), "the other key keeps its default");
    for yaml in ["mail: {peers_at_once: 0}\n", "mail: {peers_at_once: 129}\n", "mail: {peers_at_once: -1}\n"] {
        let e = parse(yaml).unwrap_err().to_string();
        assert!(e.contains("peers_at_once") || e.contains("mail"), "{yaml}: {e}");
        assert!(e.contains("cn.yaml"), "{yaml}: the file is named: {e}");
    }
    let e = parse("mail: {peers_at_once: 0}\n").unwrap_err().to_string();
    assert!(e.contains("peers_at_once must be 1 to 128, not 0"), "{e}");
    assert_eq!(parse("name: a\n").unwrap().mail.peer_timeout, PEER_TIMEOUT);
    assert_eq!(parse("mail: {peer_timeout: 4s}\n").unwrap().mail.peer_timeout, Duration::from_secs(4));
}

#[test]
fn mcp_servers_are_checked_with_the_key_named() {
    let c = parse("mcp:\n  time: {command: [mcp-server-time], env: [TZ], timeout: 5s}\n  web: {url: 'http://127.0.0.1:9/mcp', callers: anyone}\n").unwrap();
    assert_eq!(c.mcp["time"].command.as_deref(), Some(&["mcp-server-time".to_string()][..]));
    assert_eq!(c.mcp["time"].timeout, Duration::from_secs(5));
    assert_eq!(c.mcp["time"].callers, McpCallers::Owner);
    assert_eq!(c.mcp["web"].callers, McpCallers::Anyone);
    for (yaml, says) in [
        ("mcp:\n  t: {}\n", "exactly one of `command`"),
        ("mcp:\n  t: {command: [x], url: 'http://a/'}\n", "exactly one of"),
        ("mcp:\n  t: {command: []}\n", "`command` is empty"),
        ("mcp:\n  t: {url: 'http://u:secret@a/'}\n", "without credentials"),
        ("mcp:\n  t.x: {command: [x]}\n", "letters, digits"),
        ("mcp:\n  t: {command: [x], comand: [y]}\n", "comand"),
        ("mcp:\n  t: {command: [x], callers: everyone}\n", "everyone"),
    ] {
        let e = parse(yaml).unwrap_err().to_string();
        assert!(e.contains(says) && e.contains("mcp"), "{yaml}: {e}");
        assert!(!e.contains("secret"), "{e}");
    }
}

#[test]
fn every_section_parses_from_the_template() {
    let c = parse(&TEMPLATE.replace("{{name}}", "sigma").replace("{{port}}", "23456")).unwrap();
    assert_eq!(c.name.as_deref(), Some("sigma"));
    assert!(c.peers.is_empty());
    assert_eq!(c.models.local().provider, Some(ProviderKind::Embedded));
    assert_eq!(c.models.executive, None);
    assert_eq!(c.budget.daily_tokens, Some(200_000));
    assert_eq!((c.budget.min_interval_secs, c.budget.on_exhausted), (600, OnExhausted::Local));
    assert!(c.policy.allows(3, "read_file") && !c.policy.allows(2, "read_file") && !c.policy.shell);
    assert_eq!(c.reflexes, ReflexConfig::default());
    assert_eq!(c.loops, LoopsConfig::default());
    assert_eq!(c.pacing, Pacing::default());
    assert_eq!(c.attention, PoolConfig::default());
    assert_eq!(c.senses.bind, SocketAddr::from(([127, 0, 0, 1], 23456)));
    assert_eq!(c.senses.peers, PeersConfig { enabled: true, every: Duration::from_secs(60) });
    assert_eq!(
        SensesConfig { bind: c.senses.bind, peers: c.senses.peers.clone(), ..SensesConfig::default() },
        c.senses
    );
}

#[test]
fn a_partial_section_merges_with_the_documented_defaults_key_by_key() {
    // `policy:` with only `urls:` keeps the documented levels (a calendar item once ended
    // "level 2 may not call `noop`").
    let c = parse("policy:\n  urls: [https://example.com/]\n").unwrap();
    assert_eq!(c.policy.levels, Policy::documented().levels);
    assert!(c.policy.allows(2, "noop") && c.policy.url_allowed(&url::Url::parse("https://example.com/a").unwrap()));
    // A level named replaces that level's grant; the others keep theirs; `[]` empties one.
    let c = parse("policy:\n  levels:\n    2: [reply]\n    0: []\n").unwrap();
    assert!(c.policy.allows(2, "reply") && !c.policy.allows(2, "noop"));
    assert!(!c.policy.allows(0, "reply"), "an empty list grants nothing");
    assert_eq!(c.policy.levels[&1], Policy::documented().levels[&1]);
    assert_eq!(c.policy.levels[&3], Policy::documented().levels[&3]);
    // A partial `senses:` keeps the rest of its defaults.
    let c = parse("senses:\n  peers: {every: 30s}\n").unwrap();
    assert_eq!(c.senses.bind, SensesConfig::default().bind);
    assert!(c.senses.owner.enabled && c.senses.peers.enabled);
}

#[test]
fn every_section_parses_when_written_out() {
    let c = parse(
        "name: sigma\npeers: {pi: /srv/pi.git}\n\
         models: {executive: {provider: anthropic, model: m, api_key_env: K, price_per_mtok_in: 3}}\n\
         budget: {daily_tokens: 1000, on_exhausted: defer}\n\
         policy: {levels: {2: [reply]}, shell: true}\n\
         reflexes: {min_samples: 3, grants: {0: [reply]}}\n\
         loops: {controller: {model: executive}, actuator: manual}\n\
         pacing: {active: 2s, idle: 1m}\n\
         attention: {capacity: 5, weights: {owner: 1}}\n\
         senses: {bind: 127.0.0.1:0, peers: {every: 30s}, discord: {channels: [1, \"2\"]}}\n",
    )
    .unwrap();
    assert_eq!(c.peers["pi"], "/srv/pi.git");
    assert_eq!(c.models.executive.as_ref().map(|e| e.cost(1_000_000, 0)), Some(3.0));
    assert_eq!(c.budget.on_exhausted, OnExhausted::Defer);
    assert!(c.policy.allows(2, "reply") && c.policy.shell);
    assert_eq!(c.reflexes.min_samples, 3);
    assert_eq!(c.loops.actuator, Some(serde_json::json!("manual")));
    assert_eq!(c.pacing.idle, Duration::from_secs(60));
    assert_eq!((c.attention.capacity, c.attention.weights.owner), (5, 1.0));
    assert_eq!(c.senses.peers, PeersConfig { enabled: true, every: Duration::from_secs(30) });
    assert_eq!(c.senses.discord.map(|d| d.channels), Some(vec![1, 2]));
}

#[test]
fn serve_is_on_when_present_even_empty() {
    let p = Path::new("/h/cn.yaml");
    assert_eq!(HubConfig::parse("name: a\n", p).unwrap().serve, None);
    assert_eq!(HubConfig::parse("name: a\nserve:\n", p).unwrap().serve, Some(ServeConfig::default()));
    let c = HubConfig::parse("serve:\n  bind: 127.0.0.1:8787\n", p).unwrap().serve.unwrap();
    assert_eq!((c.bind.as_str(), c.allow_remote), ("127.0.0.1:8787", false));
    let e = HubConfig::parse("serve:\n  bnid: x\n", p).unwrap_err().to_string();
    assert!(e.contains("bnid") && e.contains("did you mean `bind`"), "{e}");
}

#[test]
fn an_unknown_key_names_its_path_and_the_file() {
    let e = parse("name: sigma\nbogus: 1\n").unwrap_err();
    let m = e.to_string();
    assert!(matches!(e, ConfigError::Key { .. }) && m.contains("bogus") && m.contains("/h/cn.yaml"), "{m}");
    let m = parse("senses:\n  github: {secret: x}\n").unwrap_err().to_string();
    assert!(m.contains("senses.github") && m.contains("secret") && m.contains("/h/cn.yaml"), "{m}");
    let m = parse("models:\n  local:\n    provder: ollama\n").unwrap_err().to_string();
    assert!(m.contains("models.local") && m.contains("provder"), "{m}");
    let m = parse("pacing: {idle: soon}\n").unwrap_err().to_string();
    assert!(m.contains("pacing.idle"), "{m}");
    let m = parse("reflexes:\n  learn:\n    promote_afterr: 2\n").unwrap_err().to_string();
    assert!(m.contains("promote_afterr") && m.contains("did you mean `promote_after`"), "{m}");
    let c = parse("reflexes:\n  learn:\n    promote_after: 0\n").unwrap();
    assert_eq!((c.reflexes.learn.promote_after, c.reflexes.learn.check_every), (0, 20));
    let m = parse("reflexes:\n  disable_above: 2\n").unwrap_err().to_string();
    assert!(m.contains("reflexes.disable_above") && m.contains("/h/cn.yaml"), "{m}");
}

#[test]
fn a_syntax_error_names_the_file_and_the_line() {
    let e = parse("name: sigma\npeers: [\n").unwrap_err();
    let m = e.to_string();
    assert!(m.contains("/h/cn.yaml") && m.contains("line"), "{m}");
}

#[test]
fn empty_or_missing_is_all_defaults_and_null_sections_are_defaults() {
    assert_eq!(parse("").unwrap(), HubConfig::default());
    assert_eq!(parse("# only a comment\n").unwrap(), HubConfig::default());
    assert_eq!(parse("senses:\npolicy:\n").unwrap(), HubConfig::default());
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(HubConfig::load(&dir.path().join("cn.yaml")).unwrap(), HubConfig::default());
    assert_eq!(HubConfig::parse_written("# only a comment\n", Path::new("cn.yaml")).unwrap().1, Written::default());
}

#[test]
fn the_written_keys_are_the_paths_to_values_not_null() {
    let (c, written) =
        HubConfig::parse_written("name: sigma\nbudget: {daily_tokens: 5}\nserve:\n", Path::new("cn.yaml")).unwrap();
    assert_eq!(c.budget.daily_tokens, Some(5));
    let has = |path: &[&str]| written.has(&path.iter().map(|k| k.to_string()).collect::<Vec<_>>());
    assert!(has(&["name"]) && has(&["budget"]) && has(&["budget", "daily_tokens"]));
    assert!(!has(&["serve"]) && !has(&["budget", "daily_cost"]) && !has(&["daily_tokens"]));
}

#[test]
fn telegram_and_email_sections_parse_and_misspellings_are_named() {
    let c = parse(
        "senses:\n  telegram: {token_env: T, owners: [42, \"-100123\"], api_base: \"http://127.0.0.1:9\"}\n  \
         email:\n    address: a@example.net\n    owners: [me@example.org]\n    authserv_id: mx.example.net\n    \
         imap: {host: 127.0.0.1, port: 143, security: plain}\n    smtp: {host: smtp.example.net, port: 587, security: starttls}\n",
    )
    .unwrap();
    let t = c.senses.telegram.unwrap();
    assert_eq!(
        (t.owners, t.api_base.as_str(), t.poll_timeout),
        (vec![42, -100123], "http://127.0.0.1:9", Duration::from_secs(30))
    );
    let e = c.senses.email.unwrap();
    assert_eq!(
        (e.imap.security, e.smtp.security, e.folder.as_str()),
        (MailSecurity::Plain, MailSecurity::Starttls, "INBOX")
    );
    let err = parse("senses:\n  telegram: {ownres: [1]}\n").unwrap_err().to_string();
    assert!(err.ends_with("did you mean `owners`?"), "{err}");
    let err = parse("senses:\n  telegram: {owners: [\"@grace\"]}\n").unwrap_err().to_string();
    assert!(err.contains("`@grace` is not a Telegram id"), "{err}");
    let err = parse("senses:\n  email: {imap: {security: tsl}}\n").unwrap_err().to_string();
    assert!(err.contains("tsl"), "{err}");
}

#[test]
fn a_misspelt_key_gets_a_suggestion_and_no_policy_means_the_documented_one() {
    let e = parse("name: a\nbugdet: {daily_tokens: 5}\n").unwrap_err().to_string();
    assert!(e.contains("/h/cn.yaml") && e.contains("bugdet") && e.ends_with("did you mean `budget`?"), "{e}");
    let e = parse("policy:\n  levles: {}\n").unwrap_err().to_string();
    assert!(e.contains("levles") && e.ends_with("did you mean `levels`?"), "{e}");
    let e = parse("zzzzzz: 1\n").unwrap_err().to_string();
    assert!(!e.contains("did you mean"), "{e}");
    let c = parse("name: a\n").unwrap();
    assert!(c.policy.allows(2, "defer") && c.policy.allows(3, "delegate") && !c.policy.allows(2, "send"));
    assert_eq!(parse("name: a\npolicy:\n").unwrap().policy, Policy::documented());
    assert_eq!(crate::words::edit_distance("bugdet", "budget"), 1);
}

#[test]
fn the_effective_config_says_where_each_value_came_from() {
    let text = "name: sigma\npolicy:\n  urls: [https://example.com/]\nsenses:\n  peers: {every: 30s}\n";
    let (c, written) = HubConfig::parse_written(text, Path::new("/h/cn.yaml")).unwrap();
    let settings = c.settings(&written);
    let get = |k: &str| settings.iter().find(|s| s.key == k).unwrap_or_else(|| panic!("{k}: {settings:#?}"));
    assert_eq!((get("name").from, get("name").value.clone()), (Source::File, serde_json::json!("sigma")));
    assert_eq!(get("policy.urls").from, Source::File);
    assert_eq!(get("policy.levels.2").from, Source::Default);
    assert_eq!(get("policy.levels.2").value, serde_json::json!(["reply", "noop", "ack", "defer"]));
    assert_eq!(
        (get("senses.peers.every").from, get("senses.peers.every").value.clone()),
        (Source::File, serde_json::json!("30s"))
    );
    assert_eq!(get("senses.peers.enabled").from, Source::Default);
    assert_eq!(get("senses.bind").from, Source::Default);
    assert_eq!(
        (get("models.executive").from, get("models.executive").value.clone()),
        (Source::Default, serde_json::Value::Null)
    );
}

#[test]
fn a_wrong_key_of_policy_is_named() {
    let e = parse("policy: {levels: {2: [reply]}, bogus: 1}\n").unwrap_err().to_string();
    assert!(e.contains("policy") && e.contains("bogus"), "{e}");
}
