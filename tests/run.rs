//! `fleet run`: the whole process group dies on timeout, on a forwarded signal and after
//! a clean exit; exit codes follow `timeout`. Liveness is checked in /proc.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::Env;
use crate::common::procs::{live, read_pid};

/// Alive and not a zombie; waits a little for a dying process to go.
fn alive(pid: i32) -> bool {
    let deadline = Instant::now() + Duration::from_secs(2);
    while live(pid) {
        if Instant::now() > deadline {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

#[test]
fn exit_codes_follow_the_command_and_timeout_conventions() {
    let env = Env::new();
    let dir = env.path();
    env.fleet(&dir, &["run", "--", "sh", "-c", "exit 7"])
        .code(7);
    env.fleet(&dir, &["run", "--", "true"]).ok();
    env.fleet(&dir, &["run", "--timeout", "200ms", "--", "sleep", "30"])
        .code(124);
    let run = env
        .fleet(&dir, &["run", "--", "no-such-program-xyz"])
        .code(127);
    assert!(
        run.stderr.contains("cannot run `no-such-program-xyz`"),
        "{}",
        run.stderr
    );
    env.fleet(&dir, &["run", "--timeout", "soon", "--", "true"])
        .code(2);
    env.fleet(&dir, &["run"]).code(2);
    // Arguments that look like flags belong to the command.
    let run = env
        .fleet(
            &dir,
            &["run", "--", "sh", "-c", "echo \"$1\"", "sh", "--timeout"],
        )
        .ok();
    assert_eq!(run.stdout, "--timeout\n");
}

#[test]
fn a_grandchild_that_ignores_sigterm_dies_on_timeout() {
    let env = Env::new();
    let pidfile = env.path().join("grandchild.pid");
    let script = format!(
        "sh -c 'trap \"\" TERM; echo $$ > {}; while :; do sleep 1; done' & wait",
        pidfile.display()
    );
    env.fleet(
        &env.path(),
        &[
            "run",
            "--timeout",
            "500ms",
            "--grace",
            "300ms",
            "--",
            "sh",
            "-c",
            &script,
        ],
    )
    .code(124);
    let pid = read_pid(&pidfile);
    assert!(!alive(pid), "grandchild {pid} survived the timeout");
}

#[test]
fn helpers_left_running_after_a_clean_exit_are_killed() {
    let env = Env::new();
    let pidfile = env.path().join("helper.pid");
    // The helper outlives its parent, ignores SIGTERM and holds no pipe of ours.
    let script = format!(
        "sh -c 'trap \"\" TERM; echo $$ > {}; while :; do sleep 1; done' >/dev/null 2>&1 & sleep 0.2; exit 0",
        pidfile.display()
    );
    let run = env
        .fleet(
            &env.path(),
            &[
                "run", "--grace", "300ms", "--json", "--", "sh", "-c", &script,
            ],
        )
        .ok();
    let last = run.stderr.lines().last().unwrap_or_default();
    let report: serde_json::Value = serde_json::from_str(last).unwrap();
    assert_eq!(report["exit_code"], 0);
    let pid = read_pid(&pidfile);
    assert!(!alive(pid), "helper {pid} outlived fleet run");
}

#[test]
fn ctrl_c_is_forwarded_to_the_group_and_nothing_survives() {
    let env = Env::new();
    let marker = env.path().join("got-int");
    let pidfile = env.path().join("helper.pid");
    let script = format!(
        "trap 'echo int > {}; exit 130' INT; sh -c 'trap \"\" INT TERM; echo $$ > {}; while :; do sleep 1; done' & while :; do sleep 0.1; done",
        marker.display(),
        pidfile.display()
    );
    let mut child = Command::new(env!("CARGO_BIN_EXE_fleet"))
        .args(["run", "--grace", "300ms", "--", "sh", "-c", &script])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let helper = read_pid(&pidfile);
    // SAFETY: sending SIGINT to the fleet process we started.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGINT);
    }
    let status = child.wait().unwrap();
    assert_eq!(
        status.code(),
        Some(130),
        "fleet run should exit with the command's code"
    );
    assert_eq!(std::fs::read_to_string(&marker).unwrap().trim(), "int");
    assert!(
        !alive(helper),
        "helper {helper} ignored SIGINT/SIGTERM and survived"
    );
}

#[test]
fn sigterm_to_fleet_run_terminates_the_command_group() {
    // Forwarded like Ctrl-C: the command dies with fleet.
    let env = Env::new();
    let pidfile = env.path().join("slow.pid");
    let mut child = Command::new(env!("CARGO_BIN_EXE_fleet"))
        .args([
            "run",
            "--",
            "sh",
            "-c",
            &format!("echo $$ > {}; sleep 30", pidfile.display()),
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = read_pid(&pidfile);
    // SAFETY: signalling the fleet process we started.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGTERM);
    }
    child.wait().unwrap();
    assert!(!alive(pid), "child {pid} outlived fleet");
}

#[test]
fn kill_9_of_fleet_takes_the_command_down_too() {
    let env = Env::new();
    let pidfile = env.path().join("leader.pid");
    let mut child = Command::new(env!("CARGO_BIN_EXE_fleet"))
        .args([
            "run",
            "--",
            "sh",
            "-c",
            &format!("echo $$ > {}; sleep 30", pidfile.display()),
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = read_pid(&pidfile);
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(!alive(pid), "command {pid} outlived a kill -9 of fleet");
}

/// `fleet run` is a wrapper: the command sees the git variables fleet was given (a
/// hook's `GIT_INDEX_FILE`, a script's `GIT_DIR`), untouched and without a warning.
#[test]
fn the_command_gets_the_git_variables_fleet_was_given() {
    let env = Env::new();
    let dir = env.path();
    let run = env
        .fleet_cmd(
            &dir,
            &["run", "--", "sh", "-c", "echo \"$GIT_DIR|$GIT_INDEX_FILE\""],
        )
        .envs(&[("GIT_DIR", "/x/.git"), ("GIT_INDEX_FILE", "/x/index.tmp")])
        .run()
        .ok();
    assert_eq!(run.stdout.trim(), "/x/.git|/x/index.tmp");
    assert!(!run.stderr.contains("ignoring"), "{}", run.stderr);
}
