//! fleet packs the task refs itself (`Repo::pack_refs_under`, `git pack-refs --include
//! 'refs/fleet/tasks/*'`): claimers and lease renewals racing packs lose no update and
//! claim nothing twice, and no listing misses a task while a pack moves it; `fleet task
//! add` and `fleet drain` pack once more than `drain::pack::PACK_AT` task refs are loose,
//! and leave every other ref's loose file alone.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use crate::common::{Env, write};
use fleet::context::Context;
use fleet::git::Repo;
use fleet::queue::Queue;
use fleet::tasks::{Holder, Store, Task, TaskName, TaskState};

const PREFIX: &str = "refs/fleet/tasks/";

fn repo(env: &Env) -> PathBuf {
    let dir = env.path().join("repo");
    env.repo(&dir, "main", &[("README", "r\n")]);
    env.git(&dir, &["config", "user.name", "Test"]);
    env.git(&dir, &["config", "user.email", "test@example.invalid"]);
    dir
}

/// `n` queued tasks added in-process (quicker than a process per task), none packed.
fn add_tasks(dir: &Path, n: usize) {
    let ctx = Context::find(dir).unwrap();
    let store = Store::new(&ctx, &Queue::Local);
    for i in 0..n {
        let name = TaskName::parse(&format!("t{i:04}")).unwrap();
        let mut task = Task::new(&name, 1_000 + i as i64);
        task.prompt = Some(format!("do thing {i}"));
        store.add(&task, None).unwrap();
    }
}

/// The names `packed-refs` holds under `prefix`.
fn packed_names(dir: &Path, prefix: &str) -> Vec<String> {
    std::fs::read_to_string(dir.join(".git/packed-refs"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.split_once(' ').map(|(_, name)| name.to_string()))
        .filter(|name| name.starts_with(prefix))
        .collect()
}

#[test]
fn claims_and_renewals_racing_packs_of_the_task_refs_lose_no_update_and_claim_nothing_twice() {
    const TASKS: usize = 240;
    const CLAIMERS: usize = 4;
    const CLAIMS_EACH: usize = 12;
    const RENEWALS: i64 = 3;
    let env = Env::new();
    let dir = repo(&env);
    add_tasks(&dir, TASKS);

    let done = AtomicBool::new(false);
    let packs = AtomicUsize::new(0);
    let pack_errors = std::sync::Mutex::new(Vec::new());
    let short_lists = AtomicUsize::new(0);
    // (task, run id, holder host, the last lease this claimer stored).
    let claims: Vec<(String, String, String, i64)> = std::thread::scope(|s| {
        let packer = s.spawn(|| {
            let repo = Repo::open(&dir).unwrap();
            while !done.load(Ordering::SeqCst) {
                match repo.pack_refs_under(PREFIX) {
                    Ok(()) => {
                        packs.fetch_add(1, Ordering::SeqCst);
                    }
                    // Claims kept packed-refs.lock busy past git's wait: the pack
                    // changed nothing, which is allowed; anything else is not.
                    Err(e) if e.kind == fleet::error::Kind::Locked => {}
                    Err(e) => pack_errors.lock().unwrap().push(e.message),
                }
                std::thread::sleep(Duration::from_millis(5));
            }
        });
        let lister = s.spawn(|| {
            let repo = Repo::open(&dir).unwrap();
            while !done.load(Ordering::SeqCst) {
                if repo.ref_ids_under(PREFIX).unwrap().len() != TASKS {
                    short_lists.fetch_add(1, Ordering::SeqCst);
                }
            }
        });
        let claimers: Vec<_> = (0..CLAIMERS)
            .map(|i| {
                let dir = &dir;
                s.spawn(move || {
                    let ctx = Context::find(dir).unwrap();
                    let store = Store::new(&ctx, &Queue::Local);
                    let mut holder = Holder::this_process("test");
                    holder.host = format!("claimer-{i}");
                    let mut mine = Vec::new();
                    for k in 0..CLAIMS_EACH {
                        let claimed = store
                            .claim_next(&holder, 10_000, Duration::from_secs(300))
                            .unwrap()
                            .expect("a task to claim");
                        let name = TaskName::parse(&claimed.task.name).unwrap();
                        // Each renewal is one more compare-and-swap of the task's ref;
                        // the last one must be what the ref holds at the end.
                        let mut lease = 0;
                        for r in 1..=RENEWALS {
                            lease = 1_000_000 * (i as i64 + 1) + 100 * k as i64 + r;
                            store.renew(&name, &claimed.run.id, lease).unwrap();
                        }
                        mine.push((
                            claimed.task.name,
                            claimed.run.id,
                            holder.host.clone(),
                            lease,
                        ));
                    }
                    mine
                })
            })
            .collect();
        // The packer and the lister stop once the claimers are done, panicked or not.
        let claims: Vec<_> = claimers.into_iter().map(|c| c.join()).collect();
        done.store(true, Ordering::SeqCst);
        packer.join().unwrap();
        lister.join().unwrap();
        claims
            .into_iter()
            .flat_map(|c| c.unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    });
    let pack_errors = pack_errors.into_inner().unwrap();
    assert!(pack_errors.is_empty(), "packs failed: {pack_errors:#?}");
    // One more pack after the race: every claim's loose ref goes into packed-refs too.
    Repo::open(&dir).unwrap().pack_refs_under(PREFIX).unwrap();

    assert!(
        packs.load(Ordering::SeqCst) > 0,
        "no pack ran during the race"
    );
    assert_eq!(
        short_lists.load(Ordering::SeqCst),
        0,
        "a listing during a pack missed task refs"
    );
    let names: HashSet<&str> = claims.iter().map(|c| c.0.as_str()).collect();
    assert_eq!(
        names.len(),
        CLAIMERS * CLAIMS_EACH,
        "a task was claimed twice"
    );

    let ctx = Context::find(&dir).unwrap();
    let tasks: BTreeMap<String, Task> = Store::new(&ctx, &Queue::Local)
        .list()
        .unwrap()
        .into_iter()
        .map(|t| (t.name.clone(), t))
        .collect();
    assert_eq!(tasks.len(), TASKS);
    for (name, run, host, lease) in &claims {
        let task = &tasks[name];
        assert_eq!(task.state, TaskState::Claimed, "{name}");
        assert_eq!(task.runs.len(), 1, "{name}: claimed once: {:?}", task.runs);
        let stored = &task.runs[0];
        assert_eq!(&stored.id, run, "{name}");
        assert_eq!(&stored.holder.host, host, "{name}");
        assert_eq!(stored.lease_expires, *lease, "{name}: a renewal was lost");
    }
    let queued = tasks
        .values()
        .filter(|t| t.state == TaskState::Queued && t.runs.is_empty())
        .count();
    assert_eq!(queued, TASKS - claims.len());
    // All packed, and git agrees with fleet on every ref.
    let repo = Repo::open(&dir).unwrap();
    assert_eq!(repo.loose_refs_under(PREFIX), 0);
    assert_eq!(packed_names(&dir, PREFIX).len(), TASKS);
    let by_git = env.git(&dir, &["for-each-ref", "--format=%(refname)", PREFIX]);
    assert_eq!(by_git.lines().count(), TASKS);
}

#[test]
fn task_add_packs_the_task_refs_past_the_threshold_and_leaves_every_other_loose_ref_alone() {
    let env = Env::new();
    let dir = repo(&env);
    // main packed, then moved: its loose file shadows the stale packed copy. A loose
    // branch, a loose tag, and a loose ref of fleet's own outside the tasks.
    env.git(&dir, &["pack-refs", "--all"]);
    let main = env.commit_file(&dir, "a", "1", "main moves on");
    env.git(&dir, &["branch", "side"]);
    env.git(&dir, &["tag", "v1"]);
    env.git(&dir, &["update-ref", "refs/fleet/other", "HEAD"]);
    let at = fleet::drain::pack::PACK_AT;
    add_tasks(&dir, at);
    let repo = Repo::open(&dir).unwrap();
    assert_eq!(repo.loose_refs_under(PREFIX), at);

    env.fleet(&dir, &["task", "add", "last", "--prompt", "p"])
        .ok();

    assert_eq!(
        repo.loose_refs_under(PREFIX),
        0,
        "fleet task add did not pack"
    );
    assert_eq!(packed_names(&dir, PREFIX).len(), at + 1);
    for loose in [
        "refs/heads/main",
        "refs/heads/side",
        "refs/tags/v1",
        "refs/fleet/other",
    ] {
        assert!(dir.join(".git").join(loose).is_file(), "{loose} was packed");
    }
    assert_eq!(env.git(&dir, &["rev-parse", "main"]), main);
    let list: serde_json::Value =
        serde_json::from_str(&env.fleet(&dir, &["task", "list", "--json"]).ok().stdout).unwrap();
    assert_eq!(list.as_array().unwrap().len(), at + 1);
}

#[test]
fn a_drain_pass_packs_the_loose_task_refs_then_runs_its_task() {
    let env = Env::new();
    let dir = env.path().join("repo");
    let agent = env.path().join("agent.sh");
    write(
        &agent,
        "#!/bin/sh\necho x > x.txt\ngit add x.txt\ngit commit -qm agent\n",
    );
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&agent, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let toml = format!(
        "[gate]\ncommands = [\"true\"]\n[drain]\nagent = \"commit\"\n[agents.commit]\ncommand = [{:?}]\n",
        agent.display().to_string()
    );
    env.repo(&dir, "main", &[("README", "r\n"), ("fleet.toml", &toml)]);
    env.git(&dir, &["config", "user.name", "Test"]);
    env.git(&dir, &["config", "user.email", "test@example.invalid"]);
    let n = fleet::drain::pack::PACK_AT + 1;
    add_tasks(&dir, n);
    let repo = Repo::open(&dir).unwrap();
    assert_eq!(repo.loose_refs_under(PREFIX), n);

    let run = env
        .fleet(&dir, &["drain", "--once", "--max", "1", "--json"])
        .ok();
    let report: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();

    let runs = report["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 1, "{report}");
    assert_eq!(runs[0]["state"], "succeeded", "{report}");
    assert_eq!(packed_names(&dir, PREFIX).len(), n, "the pass did not pack");
    // Only the task the pass ran was written since: its ref alone is loose again.
    assert_eq!(repo.loose_refs_under(PREFIX), 1);
    assert!(dir.join(".git").join(PREFIX).join("t0000").is_file());
}
