//! Landing under attack (issue 13): a lane whose tree git or gix refuses to write or
//! check out, a rebase that would drop what a lane did inside a merge commit, and
//! SHA-256 repositories.

use std::path::{Path, PathBuf};

use crate::common::Env;
use crate::common::assert::lane_states;

/// Give lane `name`'s branch (its agent worktree `wt`) one more commit whose tree is
/// the branch's own plus a blob entry named `.git`, made with plumbing (no porcelain
/// writes such a tree). The worktree's index and files are left alone.
fn commit_a_dot_git_entry(env: &Env, wt: &Path) -> String {
    let blob = env
        .git_cmd(wt, &["hash-object", "-w", "--stdin"])
        .stdin("not a repository\n")
        .stdout();
    let listing = env.git(wt, &["ls-tree", "HEAD"]);
    let tree = env
        .git_cmd(wt, &["mktree"])
        .stdin(&format!("{listing}\n100644 blob {blob}\t.git\n"))
        .stdout();
    let commit = env.git(
        wt,
        &[
            "commit-tree",
            &tree,
            "-p",
            "HEAD",
            "-m",
            "an entry named .git",
        ],
    );
    env.git(wt, &["update-ref", "HEAD", &commit]);
    commit
}

/// repo/ with an always-green gate and lanes l1 (an entry named `.git`), l2, l3
/// (one plain file each), all ready, in that order. Returns the repo and main's tip.
fn a_bad_lane_before_two_good_ones(env: &Env) -> (PathBuf, String) {
    let repo = env.path().join("repo");
    env.repo(
        &repo,
        "main",
        &[
            ("README", "r\n"),
            ("fleet.toml", "[gate]\ncommands = [\"true\"]\n"),
        ],
    );
    for i in 1..=3 {
        let wt = env.agent(&repo, &format!("l{i}"));
        env.commit_file(&wt, &format!("l{i}.txt"), "x\n", &format!("lane {i}"));
        if i == 1 {
            commit_a_dot_git_entry(env, &wt);
        }
        env.fleet(&repo, &["track", "--ready", &format!("l{i}")])
            .ok();
    }
    let old = env.git(&repo, &["rev-parse", "main"]);
    (repo, old)
}

/// After `land`: l1 refused and recorded so, l2 and l3 on main, main's tree free of
/// the `.git` entry, the shared checkout clean.
fn only_the_good_lanes_landed(env: &Env, repo: &Path, old: &str) {
    let files = env.git(repo, &["ls-tree", "--name-only", "main"]);
    assert!(
        files.contains("l2.txt") && files.contains("l3.txt"),
        "{files}"
    );
    assert!(
        !files.contains("l1.txt") && !files.contains(".git"),
        "{files}"
    );
    assert_eq!(
        env.git(repo, &["merge-base", "--is-ancestor", old, "main"]),
        ""
    );
    assert_eq!(
        lane_states(env, repo),
        vec![
            ("fleet/l1".into(), "refused".into()),
            ("fleet/l2".into(), "landed".into()),
            ("fleet/l3".into(), "landed".into()),
        ]
    );
    assert_eq!(env.git(repo, &["status", "--porcelain"]), "");
}

#[test]
fn a_lane_whose_tree_cannot_be_written_is_refused_by_name_and_the_others_land() {
    let env = Env::new();
    let (repo, old) = a_bad_lane_before_two_good_ones(&env);
    let run = env.fleet(&repo, &["land", "--all", "--yes"]).code(1);
    assert!(
        run.stderr.contains("fleet/l1") && run.stderr.contains(".git"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("landed fleet/l2"), "{}", run.stderr);
    assert!(run.stderr.contains("landed fleet/l3"), "{}", run.stderr);
    only_the_good_lanes_landed(&env, &repo, &old);
    // The registry says why, as for a conflicting lane; --all leaves it alone now.
    let status: serde_json::Value =
        serde_json::from_str(&env.fleet(&repo, &["status", "--json"]).ok().stdout).unwrap();
    let detail = status[0]["detail"].to_string();
    assert!(detail.contains(".git"), "{detail}");
    let again = env.fleet(&repo, &["land", "--all", "--yes"]).ok();
    assert!(again.stderr.contains("nothing to land"), "{}", again.stderr);
}

#[test]
fn a_lane_whose_tree_cannot_be_written_is_refused_in_a_batch_and_the_others_land() {
    let env = Env::new();
    let (repo, old) = a_bad_lane_before_two_good_ones(&env);
    let run = env
        .fleet(&repo, &["land", "--all", "--batch", "--yes", "--json"])
        .code(1);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let l1 = v["lanes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["lane"] == "fleet/l1")
        .unwrap_or_else(|| panic!("{}", run.stdout));
    assert_eq!(l1["result"], "refused", "{}", run.stdout);
    assert!(l1["reason"].to_string().contains(".git"), "{l1}");
    only_the_good_lanes_landed(&env, &repo, &old);
}

#[test]
fn a_single_lane_whose_tree_cannot_be_written_is_refused_with_the_reason() {
    let env = Env::new();
    let (repo, old) = a_bad_lane_before_two_good_ones(&env);
    let run = env.fleet(&repo, &["land", "l1", "--yes", "--json"]).code(1);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(v[0]["lane"], "fleet/l1", "{}", run.stdout);
    assert_eq!(v[0]["result"], "refused", "{}", run.stdout);
    assert!(
        v[0]["reason"].to_string().contains(".git"),
        "{}",
        run.stdout
    );
    assert_eq!(env.git(&repo, &["rev-parse", "main"]), old);
    assert_eq!(lane_states(&env, &repo)[0].1, "refused");
}

/// repo/ (gate always green, `fleet.toml` with `lanes` before the gate) and a ready
/// lane `l1` whose history is: one plain commit (a.txt), then a merge of a side branch
/// (s.txt) that also adds evil.txt, a change made in the merge commit alone. Main
/// moves on (m.txt) so the lane must be rebuilt. Returns the repo, main's tip and the
/// lane's tip.
fn a_lane_with_an_evil_merge(env: &Env, lanes: &str) -> (PathBuf, String, String) {
    let repo = env.path().join("repo");
    env.repo(
        &repo,
        "main",
        &[
            ("README", "r\n"),
            (
                "fleet.toml",
                &format!("{lanes}[gate]\ncommands = [\"true\"]\n"),
            ),
        ],
    );
    let wt = env.agent(&repo, "l1");
    env.commit_file(&wt, "a.txt", "a\n", "lane work");
    env.git(&wt, &["switch", "-q", "-c", "side", "main"]);
    env.commit_file(&wt, "s.txt", "s\n", "side work");
    env.git(&wt, &["switch", "-q", "fleet/l1"]);
    env.git(&wt, &["merge", "-q", "--no-ff", "--no-commit", "side"]);
    crate::common::write(&wt.join("evil.txt"), "made in the merge\n");
    env.git(&wt, &["add", "evil.txt"]);
    env.git(&wt, &["commit", "-q", "-m", "merge side, and more"]);
    env.commit_file(&repo, "m.txt", "m\n", "main moves");
    env.fleet(&repo, &["track", "--ready", "l1"]).ok();
    let old = env.git(&repo, &["rev-parse", "main"]);
    let tip = env.git(&repo, &["rev-parse", "fleet/l1"]);
    (repo, old, tip)
}

#[test]
fn a_rebase_landing_that_would_drop_a_merge_commits_changes_is_refused_and_status_agrees() {
    let env = Env::new();
    let (repo, old, tip) = a_lane_with_an_evil_merge(&env, "");
    let run = env
        .fleet(&repo, &["land", "--all", "--yes", "--json"])
        .code(1);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(v[0]["lane"], "fleet/l1", "{}", run.stdout);
    assert_eq!(v[0]["result"], "refused", "{}", run.stdout);
    assert!(
        v[0]["reason"].to_string().contains("evil.txt"),
        "{}",
        run.stdout
    );
    // Nothing moved, nothing of the lane is lost: its branch still holds the merge.
    assert_eq!(env.git(&repo, &["rev-parse", "main"]), old);
    assert_eq!(env.git(&repo, &["rev-parse", "fleet/l1"]), tip);
    assert_eq!(
        env.git(&repo, &["show", "fleet/l1:evil.txt"]),
        "made in the merge"
    );
    // status and land agree: refused, and --all does not take it again.
    assert_eq!(
        lane_states(&env, &repo),
        vec![("fleet/l1".into(), "refused".into())]
    );
    let status = env.fleet(&repo, &["status"]).ok().stdout;
    assert!(status.contains("evil.txt"), "{status}");
    let again = env.fleet(&repo, &["land", "--all", "--yes"]).ok();
    assert!(again.stderr.contains("nothing to land"), "{}", again.stderr);
    // A batch refuses it just the same.
    env.fleet(&repo, &["ready", "l1"]).ok();
    let batch = env
        .fleet(&repo, &["land", "--all", "--batch", "--yes", "--json"])
        .code(1);
    let v: serde_json::Value = serde_json::from_str(&batch.stdout).unwrap();
    assert_eq!(v["lanes"][0]["result"], "refused", "{}", batch.stdout);
    assert_eq!(env.git(&repo, &["rev-parse", "main"]), old);
}

#[test]
fn a_lane_with_an_evil_merge_lands_whole_with_the_merge_strategy() {
    let env = Env::new();
    let (repo, old, tip) = a_lane_with_an_evil_merge(&env, "[lanes]\nstrategy = \"merge\"\n");
    env.fleet(&repo, &["land", "--all", "--yes"]).ok();
    assert_eq!(env.git(&repo, &["rev-parse", "main^1"]), old);
    assert_eq!(env.git(&repo, &["rev-parse", "main^2"]), tip);
    for file in ["a.txt", "s.txt", "evil.txt", "m.txt"] {
        assert!(repo.join(file).exists(), "{file}");
    }
    assert_eq!(
        lane_states(&env, &repo),
        vec![("fleet/l1".into(), "landed".into())]
    );
}

#[test]
fn status_and_land_agree_on_a_landed_lane_whose_file_the_target_changed_since() {
    let env = Env::new();
    let repo = env.one_ready_lane_editing_readme();
    // Main moves first, so the lane lands as a new commit (its branch is not merged).
    env.commit_file(&repo, "other.txt", "o\n", "main moves");
    env.fleet(&repo, &["land", "a", "--yes"]).ok();
    assert_ne!(
        env.git(&repo, &["rev-parse", "main"]),
        env.git(&repo, &["rev-parse", "fleet/a"])
    );
    env.commit_file(
        &repo,
        "README",
        "newer line\n",
        "main edits the lane's file",
    );
    let main = env.git(&repo, &["rev-parse", "main"]);
    let again = env.fleet(&repo, &["land", "--all", "--yes"]).ok();
    assert!(again.stderr.contains("nothing to land"), "{}", again.stderr);
    assert_eq!(env.git(&repo, &["rev-parse", "main"]), main);
    assert_eq!(
        lane_states(&env, &repo),
        vec![("fleet/a".into(), "landed".into())]
    );
}

#[test]
fn a_lane_that_merged_the_target_in_without_changes_of_its_own_still_lands_by_rebase() {
    let env = Env::new();
    let repo = env.gated_repo("true");
    let wt = env.agent(&repo, "a");
    env.commit_file(&wt, "a.txt", "a\n", "lane work");
    env.commit_file(&repo, "m1.txt", "1\n", "main moves");
    env.git(&wt, &["merge", "-q", "--no-edit", "main"]);
    env.commit_file(&repo, "m2.txt", "2\n", "main moves again");
    env.fleet(&repo, &["track", "--ready", "a"]).ok();
    let old = env.git(&repo, &["rev-parse", "main"]);
    env.fleet(&repo, &["land", "a", "--yes"]).ok();
    assert_eq!(env.git(&repo, &["rev-parse", "main~1"]), old);
    assert_eq!(
        env.git(&repo, &["rev-list", "--merges", "--count", "main"]),
        "0"
    );
    assert_eq!(env.git(&repo, &["show", "main:a.txt"]), "a");
    assert_eq!(
        lane_states(&env, &repo),
        vec![("fleet/a".into(), "landed".into())]
    );
}

/// A SHA-256 repository at `dir` (branch main) with one commit holding README.
fn sha256_repo(env: &Env, dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    env.git(dir, &["init", "-q", "-b", "main", "--object-format=sha256"]);
    crate::common::write(&dir.join("README"), "sha256\n");
    env.git(dir, &["add", "-A"]);
    env.git(dir, &["commit", "-q", "-m", "initial"]);
}

#[test]
fn a_sha256_repository_is_refused_as_unsupported_by_every_command() {
    let env = Env::new();
    let repo = env.path().join("repo");
    sha256_repo(&env, &repo);
    let head = env.git(&repo, &["rev-parse", "HEAD"]);
    for args in [
        &["status"][..],
        &["init"],
        &["worktree", "new", "x"],
        &["land", "--all", "--yes"],
    ] {
        let run = env.fleet(&repo, args).code(3);
        assert!(
            run.stderr.contains("SHA-256")
                && run.stderr.contains(repo.to_str().unwrap())
                && run.stderr.contains("SHA-1 repositories only"),
            "{args:?}: {}",
            run.stderr
        );
        assert!(
            !run.stderr.contains("not inside a git repository")
                && !run.stderr.contains("no commits"),
            "{args:?}: {}",
            run.stderr
        );
    }
    // Nothing was made: no branch, no worktree, no hook, no fleet.toml.
    assert_eq!(env.git(&repo, &["rev-parse", "HEAD"]), head);
    assert_eq!(
        env.git(&repo, &["branch", "--format=%(refname)"]),
        "refs/heads/main"
    );
    assert_eq!(env.git(&repo, &["worktree", "list"]).lines().count(), 1);
    assert!(!repo.join(".git/hooks/pre-commit").exists());
    assert!(!repo.join("fleet.toml").exists());
}

#[test]
fn a_nested_sha256_repository_leaves_the_outer_project_guarded_and_is_named() {
    let env = Env::new();
    let outer = env.path().join("outer");
    env.repo(
        &outer,
        "main",
        &[("README", "outer\n"), (".gitignore", "cockpit/\n")],
    );
    sha256_repo(&env, &outer.join("cockpit"));
    let init = env.fleet(&outer, &["init"]).ok();
    let doctor = env.fleet(&outer, &["doctor"]).code(1);
    assert!(
        doctor.stdout.contains("nested-repos") && doctor.stdout.contains("cockpit"),
        "doctor must name the nested repository it cannot guard: {}",
        doctor.stdout
    );
    assert!(
        init.stderr.contains("cockpit") && init.stderr.contains("SHA-256"),
        "init must say which nested repository it leaves unguarded: {}",
        init.stderr
    );
    let main = env.git(&outer, &["rev-parse", "main"]);
    // The outer shared checkout's guard still refuses a commit there.
    crate::common::write(&outer.join("README"), "edited in the shared checkout\n");
    let commit = env
        .git_cmd(&outer, &["commit", "-q", "-am", "in the shared checkout"])
        .run();
    assert_ne!(commit.code, 0, "{}", commit.stderr);
    assert!(commit.stderr.contains("fleet guard"), "{}", commit.stderr);
    assert_eq!(env.git(&outer, &["rev-parse", "main"]), main);
    // status names the nested repository as unsupported, and works for the rest.
    let status = env.fleet(&outer, &["status"]).ok();
    let cockpit = outer.join("cockpit");
    assert!(
        status.stderr.contains(cockpit.to_str().unwrap())
            && status.stderr.contains("SHA-256")
            && status.stderr.contains("not support"),
        "{}",
        status.stderr
    );
    // An agent worktree of the outer project is still made, without a copy of it.
    let wt = env.agent(&outer, "a");
    assert!(wt.join("README").exists());
    assert!(!wt.join("cockpit").exists());
}
