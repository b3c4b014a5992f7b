//! `kill -9` at many points of `fleet worktree new`: the next run must converge to a
//! consistent worktree, and `rm` must then remove everything.

mod common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{Env, write};

fn populate(dir: &Path, files: usize) {
    for i in 0..files {
        write(
            &dir.join(format!("d{}/f{i}.txt", i % 40)),
            &format!("{i}\n").repeat(50),
        );
    }
}

fn spawn_fleet(env: &Env, dir: &Path, name: &str) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_fleet"))
        .current_dir(dir)
        .args(["worktree", "new", name])
        .env("HOME", env.path().join("home"))
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", env.path().join("home/.gitconfig"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

#[test]
fn new_killed_at_any_point_converges_on_the_next_run() {
    let env = Env::new();
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

    let mut killed_mid_run = 0;
    let mut attempt = 0;
    for step in 0..10u32 {
        // Kill at step/10 of a run; a run that finished first is retried with an earlier
        // kill, so the kills land while fleet works.
        let mut delay = full * step / 10 + Duration::from_millis(step as u64);
        for _ in 0..4 {
            attempt += 1;
            let name = format!("k{attempt}");
            let mut child = spawn_fleet(&env, &outer, &name);
            std::thread::sleep(delay);
            let hit = child.try_wait().unwrap().is_none();
            let _ = child.kill();
            let _ = child.wait();
            assert_converges(&env, &outer, &name);
            if hit {
                killed_mid_run += 1;
                break;
            }
            delay = delay * 2 / 3;
        }
    }
    assert!(
        killed_mid_run >= 7,
        "only {killed_mid_run} kills landed while fleet was running"
    );
}

/// The next run completes the worktree, consistent and clean; `rm` then removes it all.
fn assert_converges(env: &Env, outer: &Path, name: &str) {
    env.fleet(outer, &["worktree", "new", name]).ok();
    let wt = env.path().join(".fleet-work").join(name);
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
