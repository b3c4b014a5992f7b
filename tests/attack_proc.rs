//! No orphans, ever (issue 13, points 19 and 20): a process group fleet starts dies with
//! fleet however fleet dies, even by `kill -9` (the caller's `subprocess.run(timeout=)`
//! does that), and `fleet doctor` names a group that outlived its fleet anyway.
//! Liveness is read from /proc.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::common::Env;
use crate::common::procs::{all_pids, live, members, read_pid, stat_fields};

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

/// Poll (generous deadline) until `done` holds; `false` if it never did.
fn eventually(mut done: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + Duration::from_secs(30);
    while Instant::now() < deadline {
        if done() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    done()
}

/// A shell script that leaves two helpers in its own group: a plain background `sleep`
/// (disowned) and one behind a double fork (its parent exits, it goes to init, and
/// stays in the group). Their pids, and the script's own, land in `dir`; then the
/// script waits.
fn helper_script(dir: &Path) -> String {
    let d = dir.display();
    format!(
        "echo $$ > {d}/leader; \
         sleep 1000 & echo $! > {d}/bg; disown 2>/dev/null; \
         ( sleep 1000 & echo $! > {d}/df ) & \
         wait $!; sleep 1000"
    )
}

/// The pids written by [`helper_script`]: leader (= the group id), bg, df; and a
/// [`Reaper`] of the group.
fn helper_pids(dir: &Path) -> (i32, i32, i32, Reaper) {
    let leader = read_pid(&dir.join("leader"));
    let reaper = Reaper(leader);
    (
        leader,
        read_pid(&dir.join("bg")),
        read_pid(&dir.join("df")),
        reaper,
    )
}

/// Kills what is left of a group when a test ends, so a failing test leaves no orphans.
struct Reaper(i32);

impl Drop for Reaper {
    fn drop(&mut self) {
        if !members(self.0).is_empty() {
            let _ = std::process::Command::new("kill")
                .args(["-9", "--", &format!("-{}", self.0)])
                .status();
        }
    }
}

fn assert_group_dies(pgid: i32, helpers: &[i32], guardians: &[i32], what: &str) {
    assert!(
        eventually(|| members(pgid).is_empty()),
        "{what}: group {pgid} still has live members {:?} (helpers {helpers:?})",
        members(pgid)
    );
    for pid in helpers {
        assert!(!live(*pid), "{what}: helper {pid} survived");
    }
    assert!(!guardians.is_empty(), "{what}: no guardian was running");
    assert!(
        eventually(|| guardians.iter().all(|pid| !live(*pid))),
        "{what}: guardian(s) {guardians:?} of group {pgid} outlived it"
    );
}

#[test]
fn fleet_run_killed_with_sigkill_takes_every_helper_of_its_group_with_it() {
    let env = Env::new();
    let dir = env.path();
    let pids = dir.join("pids");
    std::fs::create_dir_all(&pids).unwrap();
    let script = helper_script(&pids);
    let mut fleet = env
        .fleet_cmd(
            &dir,
            &["run", "--grace", "500ms", "--", "bash", "-c", &script],
        )
        .spawn();
    let (pgid, bg, df, _reaper) = helper_pids(&pids);
    assert!(live(bg) && live(df), "the helpers never started");
    assert_eq!(
        members(pgid).len(),
        3,
        "leader and two helpers in one group"
    );
    let guardians = guardians_of(fleet.id());
    fleet.kill().unwrap();
    fleet.wait().unwrap();
    assert_group_dies(pgid, &[pgid, bg, df], &guardians, "fleet run killed -9");
}

#[test]
fn fleet_land_killed_with_sigkill_during_its_gate_takes_the_gate_commands_group_with_it() {
    let env = Env::new();
    let pids = env.path().join("pids");
    std::fs::create_dir_all(&pids).unwrap();
    let d = pids.display();
    // The gate runs under sh: no disown there, and none needed.
    let gate = format!(
        "echo $$ > {d}/leader; sleep 1000 & echo $! > {d}/bg; \
         ( sleep 1000 & echo $! > {d}/df ) & wait $!; sleep 1000"
    );
    let repo = env.gated_repo(&gate);
    let wt = env.agent(&repo, "a");
    env.commit_file(&wt, "a.txt", "a\n", "lane a");
    env.fleet(&repo, &["track", "--ready", "a"]).ok();
    let old = env.git(&repo, &["rev-parse", "main"]);
    let mut land = env.fleet_cmd(&repo, &["land", "a", "--yes"]).spawn();
    let (pgid, bg, df, _reaper) = helper_pids(&pids);
    assert!(live(bg) && live(df), "the gate's helpers never started");
    let guardians = guardians_of(land.id());
    land.kill().unwrap();
    land.wait().unwrap();
    assert_group_dies(pgid, &[pgid, bg, df], &guardians, "fleet land killed -9");
    assert_eq!(
        env.git(&repo, &["rev-parse", "main"]),
        old,
        "a killed gate landed nothing"
    );
}

#[test]
fn fleet_run_ending_normally_leaves_no_guardian_and_no_record() {
    // fleet's children while the command runs: the command and its guardian.
    let env = Env::new();
    let repo = env.path().join("repo");
    env.repo(&repo, "main", &[("fleet.toml", "")]);
    let pids = env.path().join("pids");
    std::fs::create_dir_all(&pids).unwrap();
    let d = pids.display();
    let script = format!(
        "pgrep -P $PPID | grep -vx $$ > {d}/guardian; \
         cat {d}/../repo/.git/fleet/groups/$$.json > {d}/record; exit 3"
    );
    env.fleet(&repo, &["run", "--", "bash", "-c", &script])
        .code(3);
    let guardian = read_pid(&pids.join("guardian"));
    assert!(!live(guardian), "guardian {guardian} outlived its run");
    let record: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(pids.join("record")).unwrap()).unwrap();
    assert_eq!(record["guardian_pid"], guardian, "{record}");
    assert_eq!(records(&repo), Vec::<PathBuf>::new());
    assert!(
        !repo.join(".git/fleet/groups").exists(),
        "an ended run leaves no records folder behind"
    );
}

/// The records of live groups fleet keeps for doctor.
fn records(repo: &Path) -> Vec<PathBuf> {
    match std::fs::read_dir(repo.join(".git/fleet/groups")) {
        Ok(entries) => entries.flatten().map(|e| e.path()).collect(),
        Err(_) => Vec::new(),
    }
}

fn orphan_check(env: &Env, repo: &Path) -> (i32, serde_json::Value) {
    let run = env.fleet(repo, &["doctor", "--json"]);
    let all: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let check = all
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "orphan-groups")
        .unwrap_or_else(|| panic!("no orphan-groups check in {all:#}"))
        .clone();
    (run.code, check)
}

#[test]
fn doctor_names_a_group_that_outlived_its_killed_fleet_and_forgets_it_once_gone() {
    let env = Env::new();
    let repo = env.path().join("repo");
    env.repo(&repo, "main", &[("fleet.toml", "")]);
    env.fleet(&repo, &["init"]).ok();
    let (code, check) = orphan_check(&env, &repo);
    assert_eq!(
        (code, check["verdict"].as_str()),
        (0, Some("ok")),
        "{check}"
    );

    let pids = env.path().join("pids");
    std::fs::create_dir_all(&pids).unwrap();
    let script = helper_script(&pids);
    let mut fleet = env
        .fleet_cmd(&repo, &["run", "--", "bash", "-c", &script])
        .spawn();
    let (pgid, bg, df, _reaper) = helper_pids(&pids);
    assert_eq!(records(&repo).len(), 1, "the running group is recorded");
    let (code, check) = orphan_check(&env, &repo);
    assert_eq!(
        (code, check["verdict"].as_str()),
        (0, Some("ok")),
        "a group whose fleet runs is no orphan: {check}"
    );
    // An orphan for real: its guardian killed first, then fleet itself.
    let guardians = guardians_of(fleet.id());
    assert_eq!(guardians.len(), 1, "one guardian per group");
    for pid in guardians {
        assert!(
            std::process::Command::new("kill")
                .args(["-9", &pid.to_string()])
                .status()
                .unwrap()
                .success()
        );
    }
    fleet.kill().unwrap();
    fleet.wait().unwrap();
    assert!(
        eventually(|| !live(pgid)),
        "the leader dies with its parent"
    );
    assert!(live(bg) && live(df), "the helpers are orphans now");

    let (code, check) = orphan_check(&env, &repo);
    assert_eq!(code, 1, "{check}");
    assert_eq!(check["verdict"], "fail", "{check}");
    let detail = check["detail"].as_str().unwrap();
    assert!(detail.contains(&format!("group {pgid}")), "{detail}");
    assert!(detail.contains("bash"), "names the command: {detail}");
    assert!(
        detail.contains(&format!("fleet pid {}", fleet.id())),
        "names the fleet that died: {detail}"
    );
    let fix = check["fix"].as_str().unwrap();
    assert!(fix.contains(&format!("kill -- -{pgid}")), "{fix}");
    assert_eq!(records(&repo).len(), 1, "doctor only reports");

    assert!(
        std::process::Command::new("kill")
            .args(["-9", "--", &format!("-{pgid}")])
            .status()
            .unwrap()
            .success()
    );
    assert!(eventually(|| members(pgid).is_empty()));
    let (code, check) = orphan_check(&env, &repo);
    assert_eq!(
        (code, check["verdict"].as_str()),
        (0, Some("ok")),
        "{check}"
    );
    assert_eq!(records(&repo), Vec::<PathBuf>::new(), "the record is gone");
}

/// The real Claude Code CLI, when there is one (see `common::claude`), with an MCP helper that does not exit when its stdin closes:
/// the case the caller's `subprocess.run(timeout=)` left running under init. The API
/// is a loopback port that never answers, so claude waits while fleet is killed.
#[test]
fn fleet_run_killed_with_sigkill_takes_the_mcp_helper_of_a_real_claude_with_it() {
    let Some(claude) = crate::common::claude::claude(
        "attack_proc::fleet_run_killed_with_sigkill_takes_the_mcp_helper_of_a_real_claude_with_it",
    ) else {
        return;
    };
    let env = Env::new();
    let dir = env.path();
    let home = dir.join("claude-home");
    std::fs::create_dir_all(&home).unwrap();
    let pid_file = dir.join("helper-pid");
    let helper = format!("echo $$ > {}; exec sleep 1000", pid_file.display());
    let config = serde_json::json!({
        "mcpServers": {"helper": {"command": "sh", "args": ["-c", helper]}}
    });
    std::fs::write(dir.join("mcp.json"), config.to_string()).unwrap();
    // Connections wait in the backlog, never answered.
    let api = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", api.local_addr().unwrap());
    let claude = claude.to_str().unwrap();
    let mut fleet = env
        .fleet_cmd(
            &dir,
            &["run", "--", claude, "-p", "hi", "--mcp-config", "mcp.json"],
        )
        .envs(&[
            ("HOME", home.to_str().unwrap()),
            ("ANTHROPIC_BASE_URL", &url),
            ("ANTHROPIC_API_KEY", "test"),
            ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1"),
            ("DISABLE_TELEMETRY", "1"),
            ("DISABLE_AUTOUPDATER", "1"),
        ])
        .spawn();
    let helper = read_pid(&pid_file);
    let pgid = std::fs::read_to_string(format!("/proc/{helper}/stat"))
        .ok()
        .and_then(|s| {
            s[s.rfind(')')? + 1..]
                .split_whitespace()
                .nth(2)?
                .parse()
                .ok()
        })
        .expect("the helper's group");
    let _reaper = Reaper(pgid);
    assert!(live(pgid), "claude leads the group its helper is in");
    let guardians = guardians_of(fleet.id());
    fleet.kill().unwrap();
    fleet.wait().unwrap();
    assert_group_dies(
        pgid,
        &[pgid, helper],
        &guardians,
        "fleet run of claude killed -9",
    );
    drop(api);
}
