//! Seeing a fleet of drainers (issue 15, point 4): `fleet status` counts the tasks by
//! state and shows each task a drainer holds, above the lanes; `fleet doctor` fails on a
//! stale claim, a dead holder (here, or an expired lease elsewhere), a drainer older
//! than its binary and an orphaned agent group, and passes when all is well. The states
//! are planted directly (task refs written with git, drainer records by hand), so no
//! drainer runs here.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::procs::{all_pids, live, members, read_pid, stat_fields};
use crate::common::{Env, snap};

fn repo(env: &Env) -> PathBuf {
    let dir = env.path().join("repo");
    env.repo(&dir, "main", &[("fleet.toml", "")]);
    env.fleet(&dir, &["init"]).ok();
    dir
}

fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

fn proc_text(path: &str) -> String {
    std::fs::read_to_string(path).unwrap().trim().to_string()
}

fn hostname() -> String {
    proc_text("/proc/sys/kernel/hostname")
}

fn boot_id() -> String {
    proc_text("/proc/sys/kernel/random/boot_id")
}

/// `pid`'s start time in seconds since the epoch, as fleet reads it from /proc (boot
/// time plus the start ticks).
fn started_at(pid: u32) -> u64 {
    let btime: u64 = std::fs::read_to_string("/proc/stat")
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix("btime "))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let ticks: u64 = stat_fields(pid as i32).unwrap()[19].parse().unwrap();
    let out = Command::new("getconf").arg("CLK_TCK").output().unwrap();
    let hz: u64 = String::from_utf8_lossy(&out.stdout).trim().parse().unwrap();
    btime + ticks / hz
}

/// A process that lives until killed (dropped), in its own process group.
struct Sleeper(Child);

impl Sleeper {
    fn new() -> Sleeper {
        use std::os::unix::process::CommandExt;
        let child = Command::new("sleep")
            .arg("1000")
            .stdin(Stdio::piped())
            .process_group(0)
            .spawn()
            .unwrap();
        Sleeper(child)
    }

    fn pid(&self) -> u32 {
        self.0.id()
    }
}

impl Drop for Sleeper {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A pid that was alive a moment ago and is gone now (it exited and was reaped).
fn dead_pid() -> u32 {
    let mut child = Command::new("true").stdin(Stdio::piped()).spawn().unwrap();
    let pid = child.id();
    child.wait().unwrap();
    pid
}

/// Who holds a planted run.
struct Holder {
    host: String,
    pid: u32,
    process_start: u64,
}

impl Holder {
    /// A live process on this machine.
    fn live_here(pid: u32) -> Holder {
        Holder {
            host: hostname(),
            pid,
            process_start: started_at(pid),
        }
    }

    /// A process on this machine that is gone.
    fn dead_here() -> Holder {
        Holder {
            host: hostname(),
            pid: dead_pid(),
            process_start: 1,
        }
    }

    /// A drainer on another machine, which only its lease can speak for.
    fn elsewhere(host: &str, pid: u32) -> Holder {
        Holder {
            host: host.into(),
            pid,
            process_start: 1_700_000_000,
        }
    }
}

/// A planted run of a task.
struct Run<'a> {
    id: &'a str,
    attempt: u32,
    claimed: i64,
    started: Option<i64>,
    lease_expires: i64,
    worktree: Option<&'a str>,
    pgid: Option<u32>,
    holder: Holder,
}

/// Write task `name` in `state` (with `run` as its latest run) as a task ref, the way
/// fleet stores it: a commit whose tree holds `task.toml`.
fn plant(env: &Env, dir: &Path, name: &str, state: &str, run: Option<Run>) {
    let mut toml = format!(
        "name = \"{name}\"\nstate = \"{state}\"\npriority = 0\nmax_attempts = 3\ncreated = {}\n",
        now() - 600
    );
    if let Some(r) = run {
        toml.push_str(&format!(
            "\n[[run]]\nid = \"{}\"\nattempt = {}\nlease_expires = {}\nclaimed = {}\n",
            r.id, r.attempt, r.lease_expires, r.claimed
        ));
        if let Some(at) = r.started {
            toml.push_str(&format!("started = {at}\n"));
        }
        if let Some(wt) = r.worktree {
            toml.push_str(&format!("worktree = \"{wt}\"\nbranch = \"fleet/{name}\"\n"));
        }
        if let Some(pgid) = r.pgid {
            toml.push_str(&format!("pgid = {pgid}\n"));
        }
        let h = &r.holder;
        let boot = if h.host == hostname() {
            format!("boot_id = \"{}\"\n", boot_id())
        } else {
            String::new()
        };
        toml.push_str(&format!(
            "\n[run.holder]\nhost = \"{}\"\n{boot}pid = {}\nprocess_start = {}\nversion = \"0.1.0\"\ncommit = \"abc\"\n",
            h.host, h.pid, h.process_start
        ));
    }
    let blob = env
        .git_cmd(dir, &["hash-object", "-w", "--stdin"])
        .stdin(&toml)
        .stdout();
    let tree = env
        .git_cmd(dir, &["mktree"])
        .stdin(&format!("100644 blob {blob}\ttask.toml\n"))
        .stdout();
    let commit = env.git(dir, &["commit-tree", &tree, "-m", "planted task"]);
    // Planted behind the guard, which refuses a hand-made move of fleet's refs.
    env.git_cmd(
        dir,
        &["update-ref", &format!("refs/fleet/tasks/{name}"), &commit],
    )
    .env("FLEET_ALLOW_SHARED", "1")
    .stdout();
}

/// A drainer record, as `fleet drain` writes it, at `<common>/fleet/drainers/<pid>.json`.
fn drainer_record(dir: &Path, pid: u32, commit: &str, binary: &Path, binary_mtime: i64) -> PathBuf {
    let start = if live(pid as i32) { started_at(pid) } else { 1 };
    let record = serde_json::json!({
        "pid": pid,
        "process_start": start,
        "host": hostname(),
        "boot_id": boot_id(),
        "version": "0.1.0",
        "commit": commit,
        "binary": binary,
        "binary_mtime": binary_mtime,
        "started": now() - 30,
    });
    let folder = dir.join(".git/fleet/drainers");
    std::fs::create_dir_all(&folder).unwrap();
    let path = folder.join(format!("{pid}.json"));
    std::fs::write(&path, record.to_string()).unwrap();
    path
}

fn mtime(path: &Path) -> i64 {
    std::fs::metadata(path)
        .unwrap()
        .modified()
        .unwrap()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

/// Doctor's check `name`, and doctor's exit code.
pub(crate) fn doctor_check(env: &Env, dir: &Path, name: &str) -> (i32, serde_json::Value) {
    let run = env.fleet(dir, &["doctor", "--json"]);
    let all: serde_json::Value = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}\n{}", run.stdout, run.stderr));
    let check = all
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("no {name} check in {all:#}"))
        .clone();
    (run.code, check)
}

fn status_json(env: &Env, dir: &Path) -> serde_json::Value {
    let run = env.fleet(dir, &["status", "--json", "--tasks"]).ok();
    serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {}", run.stdout))
}

#[test]
fn status_counts_tasks_by_state_and_shows_each_held_task_above_the_lanes() {
    let env = Env::new();
    let dir = repo(&env);
    let wt = env.agent(&dir, "lane");
    env.commit_file(&wt, "a.txt", "a\n", "lane work");
    env.fleet(&dir, &["track", "lane"]).ok();
    for name in ["one", "two", "three"] {
        env.fleet(&dir, &["task", "add", name, "--prompt", "do it"])
            .ok();
    }
    // One claimed by a drainer elsewhere, one running here (its holder this very test).
    let claimed = env
        .fleet(&dir, &["task", "claim", "--holder", "box-1", "--json"])
        .ok()
        .stdout;
    let claimed: serde_json::Value = serde_json::from_str(&claimed).unwrap();
    let claimed_run = claimed["run"]["id"].as_str().unwrap().to_string();
    let group = Sleeper::new();
    let t = now();
    plant(
        &env,
        &dir,
        "four",
        "running",
        Some(Run {
            id: "abc-run-four",
            attempt: 2,
            claimed: t - 90,
            started: Some(t - 80),
            lease_expires: t + 300,
            worktree: Some("/work/four"),
            pgid: Some(group.pid()),
            holder: Holder::live_here(std::process::id()),
        }),
    );

    let text = env.fleet(&dir, &["status"]).ok().stdout;
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "tasks: 2 queued, 1 claimed, 1 running", "{text}");
    let held: Vec<&str> = lines[1..3].to_vec();
    let claimed_line = held.iter().find(|l| l.contains("claimed")).unwrap();
    assert!(
        claimed_line.contains(&format!("run {claimed_run} attempt 1")),
        "{text}"
    );
    assert!(claimed_line.contains("on box-1"), "{text}");
    assert!(claimed_line.contains("pgid -"), "{text}");
    let running = held.iter().find(|l| l.contains("four")).unwrap();
    for part in [
        "running".to_string(),
        "run abc-run-four attempt 2".into(),
        format!("pid {}", std::process::id()),
        format!("pgid {}", group.pid()),
        format!("on {}", hostname()),
        "/work/four".into(),
    ] {
        assert!(running.contains(&part), "{part:?} missing from {running:?}");
    }
    assert!(!running.contains("holder gone"), "{running}");
    let lane_at = lines
        .iter()
        .position(|l| l.starts_with("fleet/lane"))
        .unwrap();
    assert!(lane_at > 3, "the lanes come after the tasks: {text}");

    // The lanes' JSON stays the array scripts read; --tasks wraps it with the tasks.
    let lanes: serde_json::Value =
        serde_json::from_str(&env.fleet(&dir, &["status", "--json"]).ok().stdout).unwrap();
    assert_eq!(lanes.as_array().unwrap().len(), 1, "{lanes}");
    let all = status_json(&env, &dir);
    assert_eq!(all["lanes"], lanes);
    let counts = &all["tasks"]["counts"];
    assert_eq!(counts["queued"], 2, "{counts}");
    assert_eq!(counts["claimed"], 1, "{counts}");
    assert_eq!(counts["running"], 1, "{counts}");
    assert_eq!(counts["parked"], 0, "zero counts are there too: {counts}");
    let running = all["tasks"]["running"].as_array().unwrap();
    assert_eq!(running.len(), 2, "{running:?}");
    let four = running.iter().find(|r| r["name"] == "four").unwrap();
    assert_eq!(four["run"], "abc-run-four");
    assert_eq!(four["attempt"], 2);
    assert_eq!(four["worktree"], "/work/four");
    assert_eq!(four["pid"], std::process::id());
    assert_eq!(four["pgid"], group.pid());
    assert_eq!(four["started"], t - 80);
    assert_eq!(four["holder_alive"], true);
    let one = running.iter().find(|r| r["state"] == "claimed").unwrap();
    assert_eq!(one["run"], claimed_run.as_str());
    assert_eq!(one["host"], "box-1");
    assert_eq!(one["holder_alive"], serde_json::Value::Null);
}

#[test]
fn status_without_tasks_has_no_task_section_and_zero_counts_in_json() {
    let env = Env::new();
    let dir = repo(&env);
    let wt = env.agent(&dir, "lane");
    env.commit_file(&wt, "a.txt", "a\n", "lane work");
    env.fleet(&dir, &["track", "lane"]).ok();
    let text = env.fleet(&dir, &["status"]).ok().stdout;
    assert!(text.starts_with("fleet/lane"), "{text}");
    assert!(!text.contains("tasks"), "{text}");
    let all = status_json(&env, &dir);
    let counts = all["tasks"]["counts"].as_object().unwrap();
    assert!(counts.len() >= 9, "every state is counted: {counts:?}");
    assert!(counts.values().all(|n| n == 0), "{counts:?}");
    assert_eq!(all["tasks"]["running"], serde_json::json!([]));
    assert_eq!(all["lanes"].as_array().unwrap().len(), 1);

    // Tasks and no lanes: the tasks, and the note about lanes on stderr.
    let empty = Env::new();
    let bare = repo(&empty);
    empty
        .fleet(&bare, &["task", "add", "only", "--prompt", "p"])
        .ok();
    let run = empty.fleet(&bare, &["status"]).ok();
    assert_eq!(run.stdout, "tasks: 1 queued\n");
    assert!(run.stderr.contains("no lanes"), "{}", run.stderr);
}

#[test]
fn status_with_tasks_reads_the_same_run_after_run() {
    let env = Env::new();
    let _snap = snap::settings(&env).bind_to_scope();
    let dir = repo(&env);
    let wt = env.agent(&dir, "lane");
    env.commit_file(&wt, "a.txt", "a\n", "lane work");
    env.fleet(&dir, &["track", "--ready", "lane"]).ok();
    env.fleet(&dir, &["task", "add", "queued-one", "--prompt", "p"])
        .ok();
    let t = now();
    let run = |id, started, pgid, host: &str| Run {
        id,
        attempt: 1,
        claimed: t - 30,
        started,
        lease_expires: t + 300,
        worktree: started.map(|_| "/work/wt/run"),
        pgid,
        holder: Holder::elsewhere(host, 4242),
    };
    plant(
        &env,
        &dir,
        "claimed-one",
        "claimed",
        Some(run("r-claimed", None, None, "box-1")),
    );
    plant(
        &env,
        &dir,
        "running-one",
        "running",
        Some(run("r-running", Some(t - 20), Some(4250), "box-2")),
    );
    plant(&env, &dir, "parked-one", "parked", None);
    insta::assert_snapshot!("status_tasks", snap::run(&env.fleet(&dir, &["status"])));
}

#[test]
fn doctor_stale_claims_fails_on_a_claim_never_started_past_its_grace() {
    let env = Env::new();
    let dir = repo(&env);
    let t = now();
    let claim = |claimed| Run {
        id: "r1",
        attempt: 1,
        claimed,
        started: None,
        lease_expires: t + 300,
        worktree: None,
        pgid: None,
        holder: Holder::live_here(std::process::id()),
    };
    // Within the grace (60 s): fine.
    plant(&env, &dir, "fresh", "claimed", Some(claim(t - 5)));
    let (code, check) = doctor_check(&env, &dir, "stale-claims");
    assert_eq!(
        (code, check["verdict"].as_str()),
        (0, Some("ok")),
        "{check}"
    );

    plant(&env, &dir, "stuck", "claimed", Some(claim(t - 120)));
    let before = env.git(&dir, &["rev-parse", "refs/fleet/tasks/stuck"]);
    let (code, check) = doctor_check(&env, &dir, "stale-claims");
    assert_eq!(code, 1, "{check}");
    assert_eq!(check["verdict"], "fail", "{check}");
    let detail = check["detail"].as_str().unwrap();
    assert!(detail.contains("task stuck (run r1)"), "{detail}");
    assert!(!detail.contains("fresh"), "{detail}");
    assert!(
        check["fix"]
            .as_str()
            .unwrap()
            .contains("fleet drain --once"),
        "{check}"
    );
    assert_eq!(
        env.git(&dir, &["rev-parse", "refs/fleet/tasks/stuck"]),
        before,
        "doctor only reports"
    );
    // A live holder is no dead holder.
    let (_, dead) = doctor_check(&env, &dir, "dead-holders");
    assert_eq!(dead["verdict"], "ok", "{dead}");
}

#[test]
fn doctor_dead_holders_fails_on_a_gone_holder_here_and_an_expired_lease_elsewhere() {
    let env = Env::new();
    let dir = repo(&env);
    let t = now();
    let run = |holder, lease_expires, pgid| Run {
        id: "r1",
        attempt: 1,
        claimed: t - 30,
        started: Some(t - 25),
        lease_expires,
        worktree: Some("/work/x"),
        pgid,
        holder,
    };
    // Healthy: a live holder here, and one elsewhere whose lease runs.
    plant(
        &env,
        &dir,
        "here",
        "running",
        Some(run(Holder::live_here(std::process::id()), t + 300, None)),
    );
    plant(
        &env,
        &dir,
        "away",
        "running",
        Some(run(Holder::elsewhere("box-9", 7), t + 300, None)),
    );
    let (code, check) = doctor_check(&env, &dir, "dead-holders");
    assert_eq!(
        (code, check["verdict"].as_str()),
        (0, Some("ok")),
        "{check}"
    );

    // A holder gone from this machine, its agent group left running; a lease expired
    // on another machine.
    let group = Sleeper::new();
    plant(
        &env,
        &dir,
        "orphaned",
        "running",
        Some(run(Holder::dead_here(), t + 300, Some(group.pid()))),
    );
    plant(
        &env,
        &dir,
        "lapsed",
        "running",
        Some(run(Holder::elsewhere("box-9", 8), t - 100, None)),
    );
    let (code, check) = doctor_check(&env, &dir, "dead-holders");
    assert_eq!(code, 1, "{check}");
    let detail = check["detail"].as_str().unwrap();
    assert!(
        detail.contains("task orphaned (run r1) is running"),
        "{detail}"
    );
    assert!(detail.contains("on this machine, is gone"), "{detail}");
    assert!(
        detail.contains(&format!("agent group {} still has 1 process", group.pid())),
        "{detail}"
    );
    assert!(detail.contains("task lapsed"), "{detail}");
    assert!(
        detail.contains("on box-9, let its lease expire"),
        "{detail}"
    );
    assert!(
        !detail.contains("task here") && !detail.contains("task away"),
        "{detail}"
    );
    let fix = check["fix"].as_str().unwrap();
    assert!(fix.contains(&format!("kill -- -{}", group.pid())), "{fix}");
    let status = env.fleet(&dir, &["status"]).ok().stdout;
    let line = status.lines().find(|l| l.contains("orphaned")).unwrap();
    assert!(
        line.ends_with("holder gone"),
        "status says so too: {status}"
    );
    let here = status.lines().find(|l| l.contains(" here ")).unwrap();
    assert!(!here.contains("holder gone"), "{status}");
    assert!(fix.contains("fleet drain --once"), "{fix}");
    assert!(live(group.pid() as i32), "doctor only reports");
}

#[test]
fn doctor_old_drainers_fails_on_a_drainer_older_than_its_binary_and_removes_dead_records() {
    let env = Env::new();
    let dir = repo(&env);
    let fleet = PathBuf::from(env!("CARGO_BIN_EXE_fleet"));
    let version = env.fleet(&dir, &["--version"]).ok().stdout;
    let commit = version
        .trim()
        .rsplit(['(', ')'])
        .nth(1)
        .unwrap()
        .to_string();
    // A live drainer on the installed binary, of the same commit: fine.
    let current = Sleeper::new();
    drainer_record(&dir, current.pid(), &commit, &fleet, mtime(&fleet));
    let (code, check) = doctor_check(&env, &dir, "old-drainers");
    assert_eq!(
        (code, check["verdict"].as_str()),
        (0, Some("ok")),
        "{check}"
    );

    // One started before its binary was replaced; one built from another commit.
    let binary = env.path().join("bin/fleet");
    crate::common::write(&binary, "new build\n");
    let replaced = Sleeper::new();
    drainer_record(
        &dir,
        replaced.pid(),
        &commit,
        &binary,
        mtime(&binary) - 3600,
    );
    let other = Sleeper::new();
    drainer_record(&dir, other.pid(), "0123456789ab", &fleet, mtime(&fleet));
    // And one that is gone: its record is a leftover.
    let dead = dead_pid();
    let dead_record = drainer_record(&dir, dead, &commit, &fleet, mtime(&fleet));
    let (code, check) = doctor_check(&env, &dir, "old-drainers");
    assert_eq!(code, 1, "{check}");
    assert_eq!(check["verdict"], "fail", "{check}");
    let detail = check["detail"].as_str().unwrap();
    assert!(
        detail.contains(&format!(
            "drainer pid {} started before {} was last changed",
            replaced.pid(),
            binary.display()
        )),
        "{detail}"
    );
    assert!(
        detail.contains(&format!(
            "drainer pid {} was built from commit 0123456789ab, but",
            other.pid()
        )),
        "{detail}"
    );
    assert!(
        !detail.contains(&format!("pid {} ", current.pid())),
        "{detail}"
    );
    assert!(
        detail.contains(&format!(
            "removed the record of drainer pid {dead}, which is gone"
        )),
        "{detail}"
    );
    assert!(
        !dead_record.exists(),
        "the dead drainer's record is removed"
    );
    assert!(
        check["fix"]
            .as_str()
            .unwrap()
            .contains("restart the drainer"),
        "{check}"
    );
    let records = std::fs::read_dir(dir.join(".git/fleet/drainers"))
        .unwrap()
        .count();
    assert_eq!(records, 3, "the live drainers' records stay");

    // Only a dead record: said and removed, a warning rather than a failure.
    drop((replaced, other));
    let (code, check) = doctor_check(&env, &dir, "old-drainers");
    assert_eq!(
        (code, check["verdict"].as_str()),
        (0, Some("warn")),
        "{check}"
    );
    let (_, again) = doctor_check(&env, &dir, "old-drainers");
    assert_eq!(again["verdict"], "ok", "removed once, gone after: {again}");
}

/// The guardians (fleet re-executed to watch a group) that fleet process `fleet` started.
fn guardians_of(fleet: u32) -> Vec<i32> {
    all_pids()
        .into_iter()
        .filter(|&pid| {
            let is_guardian = std::fs::read(format!("/proc/{pid}/cmdline")).is_ok_and(|c| {
                c.split(|b| *b == 0)
                    .nth(1)
                    .is_some_and(|a| a == b"__fleet-guardian")
            });
            let parent = stat_fields(pid).and_then(|f| f.get(1)?.parse::<u32>().ok());
            is_guardian && parent == Some(fleet) && live(pid)
        })
        .collect()
}

#[test]
fn doctor_orphan_groups_covers_an_agent_group_started_in_an_agent_worktree() {
    let env = Env::new();
    let dir = repo(&env);
    let wt = env.agent(&dir, "agent");
    let pids = env.path().join("pids");
    std::fs::create_dir_all(&pids).unwrap();
    let d = pids.display();
    // How a drainer runs an agent: the process-group runner, in the agent's worktree.
    let script = format!("echo $$ > {d}/leader; sleep 1000 & echo $! > {d}/bg; wait");
    let mut fleet = env
        .fleet_cmd(&wt, &["run", "--", "bash", "-c", &script])
        .spawn();
    let leader = read_pid(&pids.join("leader"));
    let bg = read_pid(&pids.join("bg"));
    let reap = || {
        let _ = Command::new("kill")
            .args(["-9", "--", &format!("-{leader}")])
            .status();
    };
    let guardians = guardians_of(fleet.id());
    assert_eq!(guardians.len(), 1, "one guardian per group");
    for pid in guardians {
        Command::new("kill")
            .args(["-9", &pid.to_string()])
            .status()
            .unwrap();
    }
    fleet.kill().unwrap();
    fleet.wait().unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while live(leader) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(live(bg), "the agent's helper outlived its fleet");
    let (code, check) = doctor_check(&env, &dir, "orphan-groups");
    reap();
    assert_eq!(code, 1, "{check}");
    let detail = check["detail"].as_str().unwrap();
    assert!(detail.contains(&format!("group {leader}")), "{detail}");
    assert!(
        check["fix"]
            .as_str()
            .unwrap()
            .contains(&format!("kill -- -{leader}"))
    );
    let deadline = Instant::now() + Duration::from_secs(30);
    while !members(leader).is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    let (_, check) = doctor_check(&env, &dir, "orphan-groups");
    assert_eq!(check["verdict"], "ok", "{check}");
}
