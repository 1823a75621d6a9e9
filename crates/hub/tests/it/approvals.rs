//! The approvals file shared by processes: every held call is kept while others hold theirs
//! and `cn approvals` lists (and expires) beside them, under the hub lock.

/// Set in the children of [`three_processes_holding_calls_beside_cn_approvals_lose_none`]:
/// the hub each one holds [`HOLDS`] calls on.
const HOLDER: &str = "CN_TEST_APPROVALS_HOLDER";
const HOLDS: usize = 40;

#[test]
fn three_processes_holding_calls_beside_cn_approvals_lose_none() {
    if let Some(hub) = std::env::var_os(HOLDER) {
        let layout = cn_hub::Layout::new(std::path::Path::new(&hub));
        for n in 0..HOLDS {
            let req = cn_hub::approvals::Request {
                tool: "fetch_url".into(),
                params: serde_json::json!({"url": format!("https://example.com/{}/{n}", std::process::id())}),
                runs: "fetch it".into(),
                remembers: "nothing".into(),
                item: None,
                from: None,
                level: None,
            };
            cn_hub::approvals::request(&layout, req, 3600).unwrap();
        }
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let hub = dir.path();
    // One held call already timed out, so `cn approvals` writes the file while they hold.
    cn_hub::approvals::request(
        &cn_hub::Layout::new(hub),
        cn_hub::approvals::Request {
            tool: "fetch_url".into(),
            params: serde_json::json!({"url": "https://example.com/old"}),
            runs: "fetch it".into(),
            remembers: "nothing".into(),
            item: None,
            from: None,
            level: None,
        },
        0,
    )
    .unwrap();
    let name = "approvals::three_processes_holding_calls_beside_cn_approvals_lose_none";
    let mut children: Vec<_> = (0..3)
        .map(|_| {
            std::process::Command::new(std::env::current_exe().unwrap())
                .args(["--exact", name, "--test-threads=1"])
                .env(HOLDER, hub)
                .stdout(std::process::Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    let mut listed = 0;
    while children.iter_mut().any(|c| c.try_wait().unwrap().is_none()) || listed == 0 {
        cn_hub::approvals::list(&cn_hub::Layout::new(hub)).unwrap();
        listed += 1;
    }
    for mut c in children {
        assert!(c.wait().unwrap().success(), "a holder failed");
    }
    let all = cn_hub::approvals::list(&cn_hub::Layout::new(hub)).unwrap();
    let pending = all.iter().filter(|a| a.status == cn_hub::approvals::Status::Pending).count();
    let held =
        cn_testkit::hub::journal(hub).iter().filter(|e| e["type"] == "approval" && e["outcome"] == "held").count();
    assert_eq!((held, pending, all.len()), (3 * HOLDS + 1, 3 * HOLDS, 3 * HOLDS + 1), "listed {listed} times");
}
