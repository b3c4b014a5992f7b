//! `kill -9` at many points of `fleet worktree new` and `rm`, and Ctrl-C/SIGTERM during
//! `new`: the next run must converge to a consistent worktree, and `rm` must then
//! remove everything.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::{Env, write};

fn populate(dir: &Path, files: usize) {
    for i in 0..files {
        write(
            &dir.join(format!("d{}/f{i}.txt", i % 40)),
            &format!("{i}\n").repeat(50),
        );
    }
}

fn spawn_fleet(env: &Env, dir: &Path, name: &str) -> std::process::Child {
    spawn_worktree(env, dir, &["new", name])
}

fn spawn_worktree(env: &Env, dir: &Path, args: &[&str]) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_fleet"))
        .current_dir(dir)
        .arg("worktree")
        .args(args)
        .env("HOME", env.path().join("home"))
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", env.path().join("home/.gitconfig"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// outer/ (3,000 files) holding nested cockpit/ (1,500), holding nested engine/ (1,500).
fn three_level_project(env: &Env) -> std::path::PathBuf {
    let outer = env.path().join("outer");
    std::fs::create_dir_all(&outer).unwrap();
    populate(&outer, 3000);
    write(&outer.join(".gitignore"), "cockpit/\n");
    env.repo(&outer, "main", &[]);
    let cockpit = outer.join("cockpit");
    std::fs::create_dir_all(&cockpit).unwrap();
    populate(&cockpit, 1500);
    env.repo(&cockpit, "main", &[(".gitignore", "engine/\n")]);
    let engine = cockpit.join("engine");
    std::fs::create_dir_all(&engine).unwrap();
    populate(&engine, 1500);
    env.repo(&engine, "main", &[]);
    outer
}

#[test]
fn new_killed_at_any_point_converges_on_the_next_run() {
    let env = Env::new();
    let outer = three_level_project(&env);

    // How long one undisturbed run takes, to spread the kills over it.
    let started = Instant::now();
    let out = spawn_fleet(&env, &outer, "probe")
        .wait_with_output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let full = started.elapsed();

    // Kill at step/10 of a run (plus step ms).
    let killed_mid_run = kill_sweep(
        |step| full * step / 10 + Duration::from_millis(step as u64),
        |attempt| {
            let name = format!("k{attempt}");
            (spawn_fleet(&env, &outer, &name), name)
        },
        |name| assert_converges(&env, &outer, name),
    );
    assert!(
        killed_mid_run >= 7,
        "only {killed_mid_run} kills landed while fleet was running"
    );
}

/// Ten kills spread over a run (`delay(step)` for step 0..10), each of a fresh run that
/// `start(attempt)` spawns; after each, `check` the name it returned. A run that
/// finished before its kill is retried (at most four times) with an earlier one, so the
/// kills land while fleet works; the shrunk scale is kept for the steps after it, since
/// the one timed run the delays come from may have been slower than the runs now (a
/// second suite beside this one finishing meanwhile). Returns how many kills landed.
fn kill_sweep(
    delay: impl Fn(u32) -> Duration,
    mut start: impl FnMut(u32) -> (std::process::Child, String),
    check: impl Fn(&str),
) -> u32 {
    let mut killed_mid_run = 0;
    let mut attempt = 0;
    let mut scale = 1.0_f64;
    for step in 0..10u32 {
        for _ in 0..4 {
            attempt += 1;
            let (mut child, name) = start(attempt);
            std::thread::sleep(delay(step).mul_f64(scale));
            let hit = child.try_wait().unwrap().is_none();
            let _ = child.kill();
            let _ = child.wait();
            check(&name);
            if hit {
                killed_mid_run += 1;
                break;
            }
            scale *= 2.0 / 3.0;
        }
    }
    killed_mid_run
}

/// The next run completes the worktree, consistent and clean; `rm` then removes it all.
fn assert_converges(env: &Env, outer: &Path, name: &str) {
    env.fleet(outer, &["worktree", "new", name]).ok();
    let wt = env.path().join(".fleet-work/outer").join(name);
    let branch = format!("fleet/{name}");
    for member in [wt.clone(), wt.join("cockpit"), wt.join("cockpit/engine")] {
        assert_eq!(
            env.git(&member, &["symbolic-ref", "--short", "HEAD"]),
            branch,
            "{}",
            member.display()
        );
        assert_eq!(
            env.git(&member, &["status", "--porcelain"]),
            "",
            "{} not clean",
            member.display()
        );
    }
    env.fleet(outer, &["worktree", "rm", name]).ok();
    assert!(!wt.exists());
    for repo in [
        outer.to_path_buf(),
        outer.join("cockpit"),
        outer.join("cockpit/engine"),
    ] {
        assert!(
            !env.branches(&repo)
                .contains(&format!("refs/heads/{branch}"))
        );
    }
}

#[test]
fn rm_killed_at_any_point_converges_on_the_next_run() {
    let env = Env::new();
    let outer = three_level_project(&env);
    let started = Instant::now();
    env.fleet(&outer, &["worktree", "new", "probe"]).ok();
    let new_took = started.elapsed();
    let started = Instant::now();
    env.fleet(&outer, &["worktree", "rm", "probe"]).ok();
    let full = started.elapsed();
    let killed_mid_run = kill_sweep(
        |step| full * step / 10,
        |attempt| {
            let name = format!("r{attempt}");
            env.fleet(&outer, &["worktree", "new", &name]).ok();
            (spawn_worktree(&env, &outer, &["rm", &name]), name)
        },
        // Whatever the kill left, nothing asks for --force, and the name works again.
        |name| assert_converges(&env, &outer, name),
    );
    assert!(
        killed_mid_run >= 7,
        "only {killed_mid_run} kills landed while rm ran ({full:?}; new took {new_took:?})"
    );
}

/// Ctrl-C or SIGTERM while `new` runs: fleet stops its git children, undoes what it
/// did and then ends with the signal, so nothing is left (or, if the signal came too
/// late, the worktree is complete).
#[test]
fn new_interrupted_by_a_signal_leaves_nothing_or_a_whole_worktree() {
    let env = Env::new();
    let lib = env.path().join("lib-origin");
    std::fs::create_dir_all(&lib).unwrap();
    populate(&lib, 4000);
    env.repo(&lib, "main", &[]);
    let outer = three_level_project(&env);
    let add = ["-c", "protocol.file.allow=always", "submodule", "add", "-q"];
    env.git(
        &outer,
        &[&add[..], &[lib.to_str().unwrap(), "vendor/lib"]].concat(),
    );
    env.git(&outer, &["commit", "-q", "-m", "add submodule"]);
    let started = Instant::now();
    env.fleet(&outer, &["worktree", "new", "probe"]).ok();
    // The first run's time is one sample on a busy machine: a later, warmer run can be
    // much faster, and a signal timed on it lands after the end. Each signal that came
    // too late shrinks the scale for the next ones, so most land while `new` runs.
    let mut full = started.elapsed();
    let mut rolled_back = 0;
    for (step, signal) in (1..16u32).zip([libc::SIGTERM, libc::SIGINT].into_iter().cycle()) {
        let name = format!("s{step}");
        let child = spawn_fleet(&env, &outer, &name);
        std::thread::sleep(full * (step % 10) / 10);
        // SAFETY: kill(2) on our own child, still unreaped.
        unsafe { libc::kill(child.id() as i32, signal) };
        let out = child.wait_with_output().unwrap();
        let wt = env.path().join(".fleet-work/outer").join(&name);
        // Done before the signal was acted on (fleet still ends with it): complete.
        if out.status.success() || wt.exists() {
            for member in [wt.clone(), wt.join("cockpit"), wt.join("cockpit/engine")] {
                assert_eq!(
                    env.git(&member, &["symbolic-ref", "--short", "HEAD"]),
                    format!("fleet/{name}")
                );
            }
            assert_eq!(
                env.git(&wt, &["status", "--porcelain"]),
                "",
                "half a worktree"
            );
            assert_converges(&env, &outer, &name);
            full = full * 2 / 3;
            continue;
        }
        rolled_back += 1;
        env.assert_no_agent(&outer, &name);
    }
    assert!(
        rolled_back >= 4,
        "only {rolled_back} signals landed while new ran"
    );
}
