//! The task queue's shape, measured: one ref per task (what fleet stores) against one
//! registry blob holding every task (the lanes' shape), at `FLEET_BENCH_TASKS` tasks
//! (default 10,000) with 4 claimers racing.
//!
//!   cargo bench --bench tasks
//!
//! 1. Listing the task refs in-process, loose and packed, peeled (`Repo::refs_under`)
//!    and not (`Repo::ref_ids_under`, what every list and claim reads even when the
//!    memo knows every task).
//! 2. Claims per second with 4 claimer threads (each its own repository handle and
//!    store, as 4 drainers are) making `FLEET_BENCH_CLAIMS` claims in all (default 200),
//!    and double claims (a task claimed twice, or a claim the stored task does not
//!    show): must be 0. Run on loose refs, then again once the refs are packed. Also one
//!    claim per process (`fleet task claim`), which reads the memo file each time.
//! 3. Reading the whole queue: `fleet task list --json` (the process), without the
//!    memo file (the first list) and with it, on loose refs, packed refs, and packed
//!    refs and objects, against parsing the registry blob in-process. The refs are
//!    packed the way fleet packs them (`Repo::pack_refs_under`), timed once.
//! 4. Claims through a bare remote holding the queue, from 2 clones with 2 claimer
//!    threads each (`FLEET_BENCH_REMOTE_CLAIMS`, default 40): each claim fetches, then
//!    pushes leased on the task's old commit; with the clones' tracking refs of the tasks
//!    loose (as fetches leave them), then packed by fleet. Double claims must be 0.

mod common;

use std::collections::HashSet;
use std::path::Path;
use std::time::{Duration, Instant};

use common::{Env, median, ms, runs};
use fleet::context::Context;
use fleet::git::OwnRefStep;
use fleet::queue::Queue;
use fleet::tasks::{Holder, Store, Task, TaskName, TaskState};

const REGISTRY: &str = "refs/fleet/bench-registry";
const CLAIMERS: usize = 4;

#[derive(serde::Serialize, serde::Deserialize)]
struct Registry {
    #[serde(default, rename = "task")]
    tasks: Vec<Task>,
}

fn count(var: &str, default: usize) -> usize {
    std::env::var(var)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn task(i: usize) -> Task {
    let mut t = Task::new(
        &TaskName::parse(&format!("t{i:05}")).unwrap(),
        1_000 + i as i64,
    );
    t.priority = (i % 5) as i32;
    t.prompt = Some(format!("do thing {i}"));
    t
}

fn main() {
    let env = Env::new();
    let n = count("FLEET_BENCH_TASKS", 10_000);
    let claims = count("FLEET_BENCH_CLAIMS", 200);
    let dir = env.base.join("repo");
    env.base_repo(&dir, "");
    env.git(&dir, &["config", "user.name", "Bench"]);
    env.git(&dir, &["config", "user.email", "bench@example.invalid"]);

    let started = Instant::now();
    {
        let ctx = Context::find(&dir).unwrap();
        let store = Store::new(&ctx, &Queue::Local);
        for i in 0..n {
            store.add(&task(i), None).unwrap();
        }
        let registry = Registry {
            tasks: (0..n).map(task).collect(),
        };
        let text = toml::to_string(&registry).unwrap();
        let commit = ctx
            .repo
            .write_commit(&[("tasks.toml", text.as_bytes())], "registry", &[])
            .unwrap();
        ctx.repo
            .cas_update(REGISTRY, None, commit, "bench")
            .unwrap();
    }
    println!(
        "{n} tasks added in {:.1} s\n",
        started.elapsed().as_secs_f64()
    );

    let ctx = Context::find(&dir).unwrap();
    let memo = ctx.repo.common_dir().join("fleet/cache/task-memo-v1.json");
    let refs_under = |label: &str| {
        let times: Vec<Duration> = (0..runs(5))
            .map(|_| {
                let started = Instant::now();
                let refs = ctx.repo.refs_under("refs/fleet/tasks/").unwrap();
                assert_eq!(refs.len(), n);
                started.elapsed()
            })
            .collect();
        println!(
            "| `refs_under` (peeled), {label} | {} |",
            ms(median(&times))
        );
        let times: Vec<Duration> = (0..runs(5))
            .map(|_| {
                let started = Instant::now();
                let refs = ctx.repo.ref_ids_under("refs/fleet/tasks/").unwrap();
                assert_eq!(refs.len(), n);
                started.elapsed()
            })
            .collect();
        println!(
            "| `ref_ids_under` (not peeled: what the store reads), {label} | {} |",
            ms(median(&times))
        );
    };
    let list = |label: &str| {
        let _ = std::fs::remove_file(&memo);
        let cold = env.time_fleet(&dir, &["task", "list", "--json"]);
        let times: Vec<Duration> = (0..runs(5))
            .map(|_| env.time_fleet(&dir, &["task", "list", "--json"]))
            .collect();
        println!(
            "| `fleet task list --json`, {label}: no memo file / with it | {} / {} |",
            ms(cold),
            ms(median(&times))
        );
    };
    let per_process = |label: &str| {
        let times: Vec<Duration> = (0..runs(10))
            .map(|_| env.time_fleet(&dir, &["task", "claim", "--json"]))
            .collect();
        println!(
            "| `fleet task claim`, one per process, {label} | {} |",
            ms(median(&times))
        );
    };

    println!("| {n} tasks | median |");
    println!("| --- | ---: |");
    refs_under("loose refs");
    list("loose refs and objects");
    let (loose_rate, loose_doubles) = race(&dir, claims, claim_one_ref);
    per_process("loose refs");
    let started = Instant::now();
    ctx.repo.pack_refs_under("refs/fleet/tasks/").unwrap();
    let pack_took = started.elapsed();
    assert_eq!(ctx.repo.loose_refs_under("refs/fleet/tasks/"), 0);
    println!(
        "| packing the task refs (`Repo::pack_refs_under`: `git pack-refs --include`), once | {} |",
        ms(pack_took)
    );
    refs_under("packed refs");
    list("packed refs, loose objects");
    let (packed_rate, packed_doubles) = race(&dir, claims, claim_one_ref);
    per_process("packed refs (the claims since are loose again)");
    env.git(&dir, &["repack", "-adq"]);
    list("packed refs and objects");
    let times: Vec<Duration> = (0..runs(5))
        .map(|_| {
            let started = Instant::now();
            let reg = read_registry(&ctx);
            assert_eq!(reg.tasks.len(), n);
            started.elapsed()
        })
        .collect();
    println!(
        "| registry blob read and parsed (in-process, no process start) | {} |",
        ms(median(&times))
    );

    let (reg_rate, reg_doubles) = race(&dir, claims, claim_registry);
    println!("\n| {n} tasks, {CLAIMERS} claimers | claims/s | double claims |");
    println!("| --- | ---: | ---: |");
    println!("| one ref per task (fleet), loose refs | {loose_rate:.0} | {loose_doubles} |");
    println!("| one ref per task (fleet), packed refs | {packed_rate:.0} | {packed_doubles} |");
    println!("| one registry blob | {reg_rate:.0} | {reg_doubles} |");
    let stored = Store::new(&ctx, &Queue::Local).list().unwrap();
    let claimed = stored
        .iter()
        .filter(|t| t.state == TaskState::Claimed)
        .count();
    assert_eq!(
        claimed,
        2 * claims + 2 * runs(10),
        "the refs show every claim once"
    );

    through_a_remote(&env, &dir, loose_rate, packed_rate);
}

/// Section 4: claims through a bare remote holding the same queue, from 2 clones with
/// 2 claimer threads each (each claim a fetch, then a push leased on the task's old
/// commit), first with the clones' tracking refs of the tasks loose (as fetches leave
/// them), then packed by fleet.
fn through_a_remote(env: &Env, dir: &Path, loose_rate: f64, packed_rate: f64) {
    const CLONES: usize = 2;
    let claims = count("FLEET_BENCH_REMOTE_CLAIMS", 40);
    let remote = env.base.join("remote.git");
    env.git(
        &env.base,
        &[
            "init",
            "-q",
            "--bare",
            "-b",
            "main",
            remote.to_str().unwrap(),
        ],
    );
    env.git(dir, &["remote", "add", "origin", remote.to_str().unwrap()]);
    env.git(
        dir,
        &[
            "push",
            "-q",
            "origin",
            "main",
            "refs/fleet/tasks/*:refs/fleet/tasks/*",
        ],
    );
    // What a hosted remote's own housekeeping (`git gc`) would leave.
    env.git(&remote, &["pack-refs", "--all"]);
    let clones: Vec<_> = (0..CLONES)
        .map(|i| {
            let clone = env.base.join(format!("clone-{i}"));
            env.git(
                &env.base,
                &[
                    "clone",
                    "-q",
                    remote.to_str().unwrap(),
                    clone.to_str().unwrap(),
                ],
            );
            env.git(&clone, &["config", "user.name", "Bench"]);
            env.git(&clone, &["config", "user.email", "bench@example.invalid"]);
            // The first fetch of the queue, not timed.
            let ctx = Context::find(&clone).unwrap();
            Store::new(&ctx, &Queue::Remote("origin".into()))
                .refresh()
                .unwrap();
            clone
        })
        .collect();
    let prefix = fleet::refs::remote_tasks("origin");
    let loose = Context::find(&clones[0])
        .unwrap()
        .repo
        .loose_refs_under(&prefix);
    let (remote_loose, loose_doubles) = race_remote(&clones, claims);
    for clone in &clones {
        let ctx = Context::find(clone).unwrap();
        ctx.repo.pack_refs_under(&prefix).unwrap();
    }
    let (remote_packed, packed_doubles) = race_remote(&clones, claims);
    println!(
        "\n| {CLONES} clones x 2 claimers through a bare remote ({} tasks on it) | claims/s | double claims | same repository, 4 claimers |",
        count("FLEET_BENCH_TASKS", 10_000)
    );
    println!("| --- | ---: | ---: | ---: |");
    println!(
        "| tracking refs of the tasks loose ({loose} files per clone) | {remote_loose:.1} | {loose_doubles} | {loose_rate:.0} (loose) |"
    );
    println!(
        "| tracking refs packed by fleet | {remote_packed:.1} | {packed_doubles} | {packed_rate:.0} (packed) |"
    );
    // Every claim is on the remote once.
    let on_remote = env.git_stdout(
        &remote,
        &["for-each-ref", "--format=%(refname)", "refs/fleet/tasks/"],
    );
    assert_eq!(
        on_remote.lines().count(),
        count("FLEET_BENCH_TASKS", 10_000)
    );
}

/// `claims` claims in all by 2 threads per clone, each fetching before it claims as
/// `fleet task claim --remote` does; claims per second and double claims.
fn race_remote(clones: &[std::path::PathBuf], claims: usize) -> (f64, usize) {
    let threads = clones.len() * 2;
    let started = Instant::now();
    let names: Vec<String> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|i| {
                let clone = &clones[i % clones.len()];
                s.spawn(move || {
                    let ctx = Context::find(clone).unwrap();
                    let queue = Queue::Remote("origin".into());
                    let store = Store::new(&ctx, &queue);
                    let mut holder = Holder::this_process("bench");
                    holder.host = format!("remote-claimer-{i}");
                    (0..claims / threads)
                        .map(|_| {
                            store.refresh().unwrap();
                            store
                                .claim_next(&holder, fleet::time::now(), Duration::from_secs(300))
                                .unwrap()
                                .expect("a task to claim")
                                .task
                                .name
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    let took = started.elapsed();
    let unique: HashSet<&String> = names.iter().collect();
    (
        names.len() as f64 / took.as_secs_f64(),
        names.len() - unique.len(),
    )
}

/// `claims` claims made by `CLAIMERS` threads with `claim`; claims per second and
/// double claims.
fn race(
    dir: &Path,
    claims: usize,
    claim: fn(&Context, &Holder, usize) -> Vec<String>,
) -> (f64, usize) {
    let started = Instant::now();
    let names: Vec<String> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..CLAIMERS)
            .map(|i| {
                s.spawn(move || {
                    let ctx = Context::find(dir).unwrap();
                    let mut holder = Holder::this_process("bench");
                    holder.host = format!("claimer-{i}");
                    claim(&ctx, &holder, claims / CLAIMERS)
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    let took = started.elapsed();
    let unique: HashSet<&String> = names.iter().collect();
    (
        names.len() as f64 / took.as_secs_f64(),
        names.len() - unique.len(),
    )
}

/// `k` claims through one store, as a drainer keeps one.
fn claim_one_ref(ctx: &Context, holder: &Holder, k: usize) -> Vec<String> {
    let store = Store::new(ctx, &Queue::Local);
    (0..k)
        .map(|_| {
            store
                .claim_next(holder, fleet::time::now(), Duration::from_secs(300))
                .unwrap()
                .expect("a task to claim")
                .task
                .name
        })
        .collect()
}

fn read_registry(ctx: &Context) -> Registry {
    let commit = ctx.repo.ref_target(REGISTRY).unwrap().unwrap();
    let bytes = ctx.repo.file_at(commit, "tasks.toml").unwrap().unwrap();
    toml::from_str(&String::from_utf8_lossy(&bytes)).unwrap()
}

/// The registry's claim: read every task, take the first claimable one, write every
/// task back, compare-and-swap the one ref (under fleet's refs lock, as the lanes do).
fn claim_registry(ctx: &Context, holder: &Holder, k: usize) -> Vec<String> {
    (0..k)
        .map(|_| claim_registry_once(ctx, holder).expect("a task to claim"))
        .collect()
}

fn claim_registry_once(ctx: &Context, holder: &Holder) -> Option<String> {
    let repo = &ctx.repo;
    repo.update_own_ref(REGISTRY, "claim", |old| {
        let bytes = repo.file_at(old.unwrap(), "tasks.toml")?.unwrap();
        let mut reg: Registry = toml::from_str(&String::from_utf8_lossy(&bytes)).unwrap();
        let now = fleet::time::now();
        let Some(i) = (0..reg.tasks.len())
            .filter(|i| reg.tasks[*i].state == TaskState::Queued)
            .min_by(|a, b| Task::queue_order(&reg.tasks[*a], &reg.tasks[*b]))
        else {
            return Ok(OwnRefStep::Keep(None));
        };
        let t = &mut reg.tasks[i];
        t.claim(holder, now, 300);
        let name = t.name.clone();
        let text = toml::to_string(&reg).unwrap();
        let new = repo.write_commit(
            &[("tasks.toml", text.as_bytes())],
            "claim",
            &old.into_iter().collect::<Vec<_>>(),
        )?;
        Ok(OwnRefStep::Set(new, Some(name)))
    })
    .unwrap()
}
