//! `fleet worktree new` made cheaper: a kill while a worktree is added leaves nothing git
//! chokes on, and the cost of a new worktree does not grow with the agents already there.

use std::path::{Path, PathBuf};

use crate::common::{Env, counting_git, write};

const NULL_HEAD: &str = "HEAD 0000000000000000000000000000000000000000";

/// What a kill left must not break git or fleet: no worktree listed with the null id as
/// HEAD, `git fetch` works, `fleet doctor` runs, and `worktree new` of the same name
/// then makes the worktree whole.
fn assert_converges(env: &Env, repo: &Path, name: &str) {
    let list = env.git(repo, &["worktree", "list", "--porcelain"]);
    assert!(!list.contains(NULL_HEAD), "{list}");
    // A worktree record whose HEAD is the null id makes every fetch fail.
    env.git(repo, &["fetch", "-q", ".", "main:refs/remotes/probe/main"]);
    let doctor = env.fleet(repo, &["doctor"]);
    assert!(
        doctor.code == 0 || doctor.code == 1,
        "doctor: {} {}",
        doctor.stdout,
        doctor.stderr
    );
    let wt = PathBuf::from(
        env.fleet(repo, &["worktree", "new", name])
            .ok()
            .stdout
            .trim(),
    );
    assert_eq!(
        env.git(&wt, &["symbolic-ref", "--short", "HEAD"]),
        format!("fleet/{name}")
    );
    assert_eq!(
        env.git(&wt, &["rev-parse", "HEAD"]),
        env.git(repo, &["rev-parse", "main"])
    );
    assert_eq!(
        std::fs::read_to_string(wt.join("shared.txt")).unwrap(),
        "one\n"
    );
    assert_eq!(env.git(&wt, &["status", "--porcelain"]), "");
    let list = env.git(repo, &["worktree", "list", "--porcelain"]);
    assert_eq!(list.matches("worktree ").count(), 2, "{list}");
    assert!(!list.contains("locked"), "{list}");
    assert!(!list.contains(NULL_HEAD), "{list}");
}

#[test]
fn worktree_new_killed_inside_add_worktree_leaves_no_null_head_and_converges() {
    let env = Env::new();
    let repo = env.gated_repo("true");
    let run = env
        .fleet_cmd(&repo, &["worktree", "new", "k"])
        .envs(&[("FLEET_FAILPOINT", "worktree-add-registered:abort")])
        .run();
    assert_ne!(
        run.code, 0,
        "the kill point was not reached: {}",
        run.stderr
    );
    let wt = env.path().join(".fleet-work/repo/k");
    assert!(
        wt.join(".git").is_file() && !wt.join("shared.txt").exists(),
        "the kill should have hit between the record and the checkout"
    );
    // Registered with its branch, locked as unfinished: never the null id.
    let list = env.git(&repo, &["worktree", "list", "--porcelain"]);
    assert!(list.contains("branch refs/heads/fleet/k"), "{list}");
    assert!(list.contains("locked initializing"), "{list}");
    assert_converges(&env, &repo, "k");
}

#[test]
fn worktree_new_redoes_a_record_a_killed_gix_add_left_without_its_head() {
    let env = Env::new();
    let repo = env.gated_repo("true");
    env.git(&repo, &["branch", "fleet/g"]);
    // What gix's add leaves when killed before it writes the new record's HEAD (fleet
    // before this change): `git worktree list` shows the null id for it.
    let wt = env.path().join(".fleet-work/repo/g");
    let record = repo.join(".git/worktrees/g");
    std::fs::create_dir_all(&wt).unwrap();
    std::fs::create_dir_all(&record).unwrap();
    write(&record.join("locked"), "initializing\n");
    write(
        &record.join("gitdir"),
        &format!("{}\n", wt.join(".git").display()),
    );
    write(&record.join("commondir"), "../..\n");
    write(&wt.join(".git"), &format!("gitdir: {}\n", record.display()));
    let list = env.git(&repo, &["worktree", "list", "--porcelain"]);
    assert!(list.contains(NULL_HEAD), "{list}");
    env.fleet(&repo, &["worktree", "new", "g"]).ok();
    let list = env.git(&repo, &["worktree", "list", "--porcelain"]);
    assert!(!list.contains(NULL_HEAD), "{list}");
    std::fs::remove_dir_all(&wt).unwrap();
    env.git(&repo, &["worktree", "prune"]);
    env.git(&repo, &["branch", "-D", "fleet/g"]);
    assert_converges(&env, &repo, "g");
}

/// The git processes one `fleet worktree new NAME` runs, with the counting git first on
/// PATH.
fn git_calls(env: &Env, repo: &Path, name: &str, bin: &Path, log: &Path) -> Vec<String> {
    let _ = std::fs::remove_file(log);
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    env.fleet_cmd(repo, &["worktree", "new", name])
        .env("PATH", path)
        .run()
        .ok();
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .map(String::from)
        .collect()
}

#[test]
fn worktree_new_runs_as_many_git_processes_with_eight_agents_as_with_one() {
    let env = Env::new();
    let repo = env.gated_repo("true");
    env.fleet(&repo, &["init"]).ok();
    let (bin, log) = counting_git(&env);
    env.agent(&repo, "first");
    let with_one = git_calls(&env, &repo, "second", &bin, &log);
    for i in 0..6 {
        env.agent(&repo, &format!("more{i}"));
    }
    let with_eight = git_calls(&env, &repo, "ninth", &bin, &log);
    assert_eq!(
        with_one.len(),
        with_eight.len(),
        "with one agent:\n{}\nwith eight:\n{}",
        with_one.join("\n"),
        with_eight.join("\n")
    );
    // And the worktree is whole.
    let wt = env.path().join(".fleet-work/repo/ninth");
    assert!(wt.join("shared.txt").is_file());
    assert_eq!(
        env.git(&wt, &["symbolic-ref", "--short", "HEAD"]),
        "fleet/ninth"
    );
}

#[test]
fn worktree_new_still_says_when_the_shared_checkout_is_unguarded_with_many_agents() {
    let env = Env::new();
    let repo = env.gated_repo("true");
    for i in 0..3 {
        let run = env
            .fleet(&repo, &["worktree", "new", &format!("a{i}")])
            .ok();
        assert!(
            run.stderr.contains("no guard hooks are installed in ."),
            "{}",
            run.stderr
        );
    }
    env.fleet(&repo, &["init"]).ok();
    let run = env.fleet(&repo, &["worktree", "new", "b"]).ok();
    assert!(!run.stderr.contains("no guard hooks"), "{}", run.stderr);
    // A hook that lost its run bit is said again.
    let hook = repo.join(".git/hooks/pre-commit");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o644)).unwrap();
    let run = env.fleet(&repo, &["worktree", "new", "c"]).ok();
    assert!(
        run.stderr.contains("no guard hooks are installed in ."),
        "{}",
        run.stderr
    );
}

/// The lock file `fleet worktree new NAME` takes turns on for its name (as
/// `src/worktree/mod.rs` picks it: FNV-1a of the name, 16 files).
fn name_lock(repo: &Path, name: &str) -> PathBuf {
    let hash = name.bytes().fold(0x811c_9dc5_u32, |h, b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    });
    repo.join(format!(".git/fleet/worktree-name-{}.lock", hash % 16))
}

/// `path` locked with flock(2) by this test until the file is dropped.
fn hold(path: &Path, exclusive: bool) -> std::fs::File {
    use std::os::fd::AsRawFd;
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
        .unwrap();
    let op = if exclusive {
        libc::LOCK_EX
    } else {
        libc::LOCK_SH
    };
    // SAFETY: flock(2) on a descriptor this test owns.
    assert_eq!(unsafe { libc::flock(file.as_raw_fd(), op) }, 0);
    file
}

/// Wait until `child` has `lock` open (it waits for it there), and check it is still
/// running a moment later: it waits, it did not fail.
fn waiting_on(child: &mut std::process::Child, lock: &Path) {
    let fd_dir = PathBuf::from(format!("/proc/{}/fd", child.id()));
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        let open = std::fs::read_dir(&fd_dir).is_ok_and(|d| {
            d.flatten()
                .any(|fd| std::fs::read_link(fd.path()).is_ok_and(|l| l == lock))
        });
        if open {
            break;
        }
        assert!(
            child.try_wait().unwrap().is_none(),
            "it ended instead of waiting on {}",
            lock.display()
        );
        assert!(
            std::time::Instant::now() < deadline,
            "never waited on {}",
            lock.display()
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    std::thread::sleep(std::time::Duration::from_millis(300));
    assert!(
        child.try_wait().unwrap().is_none(),
        "it stopped waiting on {}",
        lock.display()
    );
}

#[test]
fn worktree_new_of_another_name_runs_beside_one_under_way_and_the_same_name_waits_its_turn() {
    let env = Env::new();
    let repo = env.gated_repo("true");
    env.fleet(&repo, &["worktree", "new", "first"]).ok();
    let other = (0..)
        .map(|i| format!("b{i}"))
        .find(|b| name_lock(&repo, b) != name_lock(&repo, "a"))
        .unwrap();
    // This test stands in for a `new` of `a` under way: `worktree` shared, a's name.
    let all = hold(&repo.join(".git/fleet/worktree.lock"), false);
    let name = hold(&name_lock(&repo, "a"), true);
    let lock = name_lock(&repo, "a").canonicalize().unwrap();
    let root = env.path().join(".fleet-work/repo");
    env.fleet(&repo, &["worktree", "new", &other]).ok();
    assert!(root.join(&other).join("shared.txt").is_file());
    let mut same = env.fleet_cmd(&repo, &["worktree", "new", "a"]).spawn();
    waiting_on(&mut same, &lock);
    assert!(!root.join("a").exists());
    drop(name);
    drop(all);
    let out = Env::wait(same);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        env.git(&root.join("a"), &["symbolic-ref", "--short", "HEAD"]),
        "fleet/a"
    );
    let list = env.git(&repo, &["worktree", "list", "--porcelain"]);
    assert_eq!(list.matches("worktree ").count(), 4, "{list}");
    assert!(!list.contains("locked"), "{list}");
}

#[test]
fn worktree_rm_waits_for_the_news_under_way_and_a_new_after_it_waits_for_the_rm() {
    let env = Env::new();
    let repo = env.gated_repo("true");
    let root = env.path().join(".fleet-work/repo");
    env.fleet(&repo, &["worktree", "new", "gone"]).ok();
    let lock = repo
        .join(".git/fleet/worktree.lock")
        .canonicalize()
        .unwrap();
    let turnstile = repo.join(".git/fleet/worktree-turnstile.lock");
    // A `new` under way (this test) holds `worktree` shared.
    let under_way = hold(&lock, false);
    let mut rm = env.fleet_cmd(&repo, &["worktree", "rm", "gone"]).spawn();
    waiting_on(&mut rm, &lock);
    assert!(root.join("gone/shared.txt").is_file());
    // A `new` that comes after the `rm` does not slip in before it: it waits at the
    // turnstile the `rm` holds, however many `new`s hold `worktree` shared.
    let mut later = env.fleet_cmd(&repo, &["worktree", "new", "later"]).spawn();
    waiting_on(&mut later, &turnstile.canonicalize().unwrap());
    assert!(!root.join("later").exists());
    drop(under_way);
    let removed = Env::wait(rm);
    assert_eq!(removed.code, 0, "{}", removed.stderr);
    let made = Env::wait(later);
    assert_eq!(made.code, 0, "{}", made.stderr);
    assert!(!root.join("gone").exists());
    assert!(root.join("later/shared.txt").is_file());
    assert_eq!(
        env.branches(&repo)
            .iter()
            .filter(|b| b.contains("gone"))
            .count(),
        0
    );
}

#[test]
fn worktree_new_of_many_names_at_once_some_of_one_id_and_rm_beside_them_leave_every_record_right() {
    let env = Env::new();
    let repo = env.gated_repo("true");
    let root = env.path().join(".fleet-work/repo");
    // `x.1` and `x-1` (and so on) make one record id: they race for it.
    let first: Vec<String> = (0..4)
        .flat_map(|i| [format!("x.{i}"), format!("x-{i}")])
        .collect();
    let children: Vec<_> = first
        .iter()
        .map(|n| env.fleet_cmd(&repo, &["worktree", "new", n]).spawn())
        .collect();
    for child in children {
        let out = Env::wait(child);
        assert_eq!(out.code, 0, "{}", out.stderr);
    }
    // Half of them removed while as many others are made.
    let second: Vec<String> = (0..4).map(|i| format!("y.{i}")).collect();
    let mut children: Vec<_> = second
        .iter()
        .map(|n| env.fleet_cmd(&repo, &["worktree", "new", n]).spawn())
        .collect();
    children.extend(
        first
            .iter()
            .step_by(2)
            .map(|n| env.fleet_cmd(&repo, &["worktree", "rm", n]).spawn()),
    );
    for child in children {
        let out = Env::wait(child);
        assert_eq!(out.code, 0, "{}", out.stderr);
    }
    let kept: Vec<&String> = first.iter().skip(1).step_by(2).chain(&second).collect();
    let list = env.git(&repo, &["worktree", "list", "--porcelain"]);
    assert_eq!(list.matches("worktree ").count(), 1 + kept.len(), "{list}");
    assert!(
        !list.contains("locked") && !list.contains("prunable"),
        "{list}"
    );
    for name in &kept {
        let wt = root.join(name);
        assert_eq!(
            env.git(&wt, &["symbolic-ref", "--short", "HEAD"]),
            format!("fleet/{name}")
        );
        assert_eq!(env.git(&wt, &["status", "--porcelain"]), "", "{name}");
        let branch = format!("branch refs/heads/fleet/{name}");
        assert!(list.lines().any(|l| l == branch), "{list}");
    }
    for name in first.iter().step_by(2) {
        assert!(!root.join(name).exists(), "{name}");
    }
    let records = std::fs::read_dir(repo.join(".git/worktrees"))
        .unwrap()
        .count();
    assert_eq!(records, kept.len());
    let scratch: Vec<String> = std::fs::read_dir(repo.join(".git/fleet"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".new"))
        .collect();
    assert!(scratch.is_empty(), "{scratch:?}");
}

#[test]
fn worktree_new_of_many_names_at_once_in_a_repository_with_a_submodule_populates_each() {
    let env = Env::new();
    let outer = env.outer_with_submodule();
    let config = std::fs::read_to_string(outer.join(".git/config")).unwrap();
    let names: Vec<String> = (0..6).map(|i| format!("s{i}")).collect();
    let children: Vec<_> = names
        .iter()
        .map(|n| env.fleet_cmd(&outer, &["worktree", "new", n]).spawn())
        .collect();
    let outs: Vec<_> = children.into_iter().map(Env::wait).collect();
    for (name, out) in names.iter().zip(&outs) {
        assert_eq!(out.code, 0, "{name}: {}", out.stderr);
        let wt = PathBuf::from(out.stdout.trim());
        assert_eq!(
            std::fs::read_to_string(wt.join("vendor/lib/lib.txt")).unwrap(),
            "lib\n",
            "{name}"
        );
        assert_eq!(
            env.git(&wt, &["submodule", "status"]).chars().next(),
            Some(' '),
            "{name}: submodule not checked out cleanly"
        );
    }
    assert_eq!(
        std::fs::read_to_string(outer.join(".git/config")).unwrap(),
        config,
        "the shared repository's config changed"
    );
}

/// A submodule the shared repository's own settings leave inactive (`submodule.active`
/// names other paths) while another git holds the shared config's lock: git would
/// write `submodule.<name>.active` there, fail to, skip the submodule with exit 0, and
/// a `remote set-url` in the empty folder would then change the shared repository's
/// `origin`. Nothing of the shared config is written, and the submodule is populated.
#[test]
fn worktree_new_populates_a_submodule_without_writing_the_shared_config_even_while_it_is_locked() {
    let env = Env::new();
    let outer = env.outer_with_submodule();
    env.git(
        &outer,
        &[
            "remote",
            "add",
            "origin",
            "https://example.invalid/outer.git",
        ],
    );
    env.git(&outer, &["config", "submodule.active", "no-such-path"]);
    env.git(
        &outer,
        &["config", "--unset", "submodule.vendor/lib.active"],
    );
    let config = std::fs::read_to_string(outer.join(".git/config")).unwrap();
    let lock = outer.join(".git/config.lock");
    std::fs::write(&lock, "").unwrap();
    let out = env.fleet(&outer, &["worktree", "new", "s1"]);
    std::fs::remove_file(&lock).unwrap();
    assert_eq!(out.code, 0, "{}", out.stderr);
    let wt = PathBuf::from(out.stdout.trim());
    assert_eq!(
        std::fs::read_to_string(wt.join("vendor/lib/lib.txt")).unwrap(),
        "lib\n"
    );
    assert_eq!(
        std::fs::read_to_string(outer.join(".git/config")).unwrap(),
        config,
        "the shared repository's config changed"
    );
    assert_eq!(
        env.git(&outer, &["remote", "get-url", "origin"]).trim(),
        "https://example.invalid/outer.git"
    );
}
