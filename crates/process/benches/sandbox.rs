//! The sandbox's own start-up cost: spawning `/bin/true` and waiting for it, unsandboxed and
//! under each combination of layers this kernel gives (building the ruleset included, as
//! `cn_process::child` does for every sandboxed child). BENCHMARKS.md records the medians.

use std::path::Path;
use std::process::Command;

use cn_process::sandbox::{kernel, Kernel, Overlay, Sandbox};
use criterion::{criterion_group, criterion_main, Criterion};

fn tree() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for d in [".git/hooks", "src", "loop-run"] {
        std::fs::create_dir_all(dir.path().join(d)).unwrap();
    }
    std::fs::write(dir.path().join("loop-run/task.md"), "---\n---\n").unwrap();
    dir
}

/// What a hub's layout protects in this tree (`cn_hub::Layout::read_protected`): `.git`.
fn git_only(rel: &Path) -> bool {
    rel.components().any(|c| c.as_os_str() == ".git")
}

fn spawn(sandbox: Option<(&Sandbox, &Kernel)>) {
    let mut cmd = Command::new("/bin/true");
    if let Some((s, k)) = sandbox {
        s.apply_on(&mut cmd, k).unwrap();
    }
    assert!(cmd.status().unwrap().success());
}

fn bench(c: &mut Criterion) {
    let real = kernel().clone();
    let t = tree();
    let root = t.path();
    let mut g = c.benchmark_group("spawn /bin/true");
    g.bench_function("unsandboxed", |b| b.iter(|| spawn(None)));
    let landlock = Kernel { namespaces: false, scope: false, ..real.clone() };
    g.bench_function("Landlock + seccomp (no namespaces, no scope)", |b| {
        b.iter(|| spawn(Some((&Sandbox::for_tree_on(root, &git_only, &landlock), &landlock))))
    });
    if real.scope {
        let scoped = Kernel { namespaces: false, ..real.clone() };
        g.bench_function("Landlock with scope", |b| {
            b.iter(|| spawn(Some((&Sandbox::for_tree_on(root, &git_only, &scoped), &scoped))))
        });
    }
    if real.namespaces {
        g.bench_function("namespace (.git read-only) + Landlock", |b| {
            b.iter(|| spawn(Some((&Sandbox::for_tree_on(root, &git_only, &real), &real))))
        });
        let run = root.join("loop-run");
        g.bench_function("controller: loop-run/ + its files read-only", |b| {
            b.iter(|| {
                let s = Sandbox::writes_in(&run).protect_on([run.join("task.md")], &real);
                spawn(Some((&s, &real)))
            })
        });
        if cn_process::sandbox::overlay_works(root) {
            g.bench_function("sensor: overlay + namespace + Landlock", |b| {
                b.iter(|| {
                    let scratch = tempfile::tempdir().unwrap();
                    let mut s = Sandbox::for_tree_on(root, &git_only, &real);
                    s.overlay = Some(Overlay { dir: root.to_path_buf(), scratch: scratch.path().to_path_buf() });
                    spawn(Some((&s, &real)))
                })
            });
        }
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(50);
    targets = bench
}
criterion_main!(benches);
