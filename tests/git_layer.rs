//! The git layer against real repositories: compare-and-swap, ahead/behind, dirtiness,
//! landed-by-patch detection, worktree listing.

use crate::common::{Env, write};
use fleet::git::{ObjectId, Repo};

fn oid(hex: &str) -> ObjectId {
    ObjectId::from_hex(hex.as_bytes()).unwrap()
}

#[test]
fn cas_update_moves_only_from_the_expected_value() {
    let env = Env::new();
    let dir = env.path().join("r");
    env.repo(&dir, "main", &[("a", "1")]);
    let first = oid(&env.git(&dir, &["rev-parse", "HEAD"]));
    let second = oid(&env.commit_file(&dir, "a", "2", "two"));
    let repo = Repo::open(&dir).unwrap();
    env.git(&dir, &["branch", "lane", &first.to_string()]);

    // Expected value is stale: refused, and the ref is untouched.
    let err = repo
        .cas_update("refs/heads/lane", Some(second), first, "test")
        .unwrap_err();
    assert_eq!(err.kind, fleet::error::Kind::Refused);
    assert!(err.message.contains("expected"), "{}", err.message);
    assert_eq!(env.git(&dir, &["rev-parse", "lane"]), first.to_string());

    repo.cas_update("refs/heads/lane", Some(first), second, "test")
        .unwrap();
    assert_eq!(env.git(&dir, &["rev-parse", "lane"]), second.to_string());
    // The move is in the reflog, like any git ref update.
    assert!(
        env.git(&dir, &["reflog", "show", "lane"])
            .contains("fleet: test")
    );

    // "Must not exist" refuses an existing ref.
    assert!(
        repo.cas_update("refs/heads/lane", None, first, "test")
            .is_err()
    );
    assert_eq!(env.git(&dir, &["rev-parse", "lane"]), second.to_string());
    repo.cas_delete("refs/heads/lane", first).unwrap_err();
    repo.cas_delete("refs/heads/lane", second).unwrap();
    assert!(
        env.git_cmd(&dir, &["rev-parse", "--verify", "-q", "lane"])
            .run()
            .code
            != 0
    );
}

#[test]
fn racing_cas_updates_never_lose_one_silently() {
    let env = Env::new();
    let dir = env.path().join("r");
    env.repo(&dir, "main", &[("a", "1")]);
    let base = oid(&env.git(&dir, &["rev-parse", "HEAD"]));
    let tips: Vec<ObjectId> = (0..8)
        .map(|i| {
            env.git(&dir, &["switch", "-q", "--detach", &base.to_string()]);
            oid(&env.commit_file(&dir, "a", &format!("t{i}"), "tip"))
        })
        .collect();
    env.git(&dir, &["branch", "contested", &base.to_string()]);
    let wins: Vec<bool> = std::thread::scope(|s| {
        let handles: Vec<_> = tips
            .iter()
            .map(|tip| {
                let dir = dir.clone();
                s.spawn(move || {
                    Repo::open(&dir)
                        .unwrap()
                        .cas_update("refs/heads/contested", Some(base), *tip, "race")
                        .is_ok()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(
        wins.iter().filter(|w| **w).count(),
        1,
        "exactly one writer wins"
    );
    let winner = tips[wins.iter().position(|w| *w).unwrap()];
    assert_eq!(
        env.git(&dir, &["rev-parse", "contested"]),
        winner.to_string()
    );
}

#[test]
fn ahead_behind_and_dirty_checks_match_git() {
    let env = Env::new();
    let dir = env.path().join("r");
    env.repo(&dir, "main", &[("a", "1")]);
    env.git(&dir, &["switch", "-q", "-c", "side"]);
    env.commit_file(&dir, "b", "1", "b1");
    env.commit_file(&dir, "b", "2", "b2");
    env.git(&dir, &["switch", "-q", "main"]);
    env.commit_file(&dir, "c", "1", "c1");
    let repo = Repo::open(&dir).unwrap();
    let side = repo.resolve_commit("side").unwrap();
    let main = repo.resolve_commit("main").unwrap();
    assert_eq!(repo.ahead_behind(side, main).unwrap(), (2, 1));
    assert!(!repo.is_dirty().unwrap());
    write(&dir.join("untracked"), "u");
    assert!(repo.is_dirty().unwrap(), "untracked files count as dirty");
    std::fs::remove_file(dir.join("untracked")).unwrap();
    write(&dir.join("a"), "changed");
    assert_eq!(repo.dirty_paths(10).unwrap(), vec!["a".to_string()]);
    env.git(&dir, &["checkout", "--", "a"]);
    write(&dir.join(".gitignore"), "*.log\n");
    env.git(&dir, &["add", ".gitignore"]);
    env.git(&dir, &["commit", "-q", "-m", "ignore"]);
    write(&dir.join("x.log"), "ignored");
    assert!(!repo.is_dirty().unwrap(), "ignored files do not count");
}

#[test]
fn changes_already_in_sees_squash_rebase_and_cherry_pick_landings() {
    let env = Env::new();
    let dir = env.path().join("r");
    env.repo(&dir, "main", &[("a", "1\n2\n3\n")]);
    env.git(&dir, &["switch", "-q", "-c", "lane"]);
    env.commit_file(&dir, "l1", "x", "l1");
    env.commit_file(&dir, "l2", "y", "l2");
    env.git(&dir, &["switch", "-q", "main"]);
    env.commit_file(&dir, "m", "m", "main moves");
    let repo = Repo::open(&dir).unwrap();
    let lane = repo.resolve_commit("lane").unwrap();
    assert!(
        !repo
            .changes_already_in(lane, repo.resolve_commit("main").unwrap())
            .unwrap()
    );
    env.git(&dir, &["merge", "--squash", "-q", "lane"]);
    env.git(&dir, &["commit", "-q", "-m", "squashed"]);
    assert!(
        repo.changes_already_in(lane, repo.resolve_commit("main").unwrap())
            .unwrap()
    );
    // Unrelated later work on the target does not change the answer.
    env.commit_file(&dir, "later", "z", "later");
    assert!(
        repo.changes_already_in(lane, repo.resolve_commit("main").unwrap())
            .unwrap()
    );
    // A lane with one more commit is not landed.
    env.git(&dir, &["switch", "-q", "lane"]);
    let more = oid(&env.commit_file(&dir, "l3", "z", "l3"));
    env.git(&dir, &["switch", "-q", "main"]);
    assert!(
        !repo
            .changes_already_in(more, repo.resolve_commit("main").unwrap())
            .unwrap()
    );
    // A fully merged lane is landed by ancestry.
    env.git(&dir, &["merge", "-q", "--no-edit", "lane"]);
    assert!(
        repo.changes_already_in(more, repo.resolve_commit("main").unwrap())
            .unwrap()
    );
}

#[test]
fn worktrees_lists_main_then_linked_with_branches() {
    let env = Env::new();
    let dir = env.path().join("r");
    env.repo(&dir, "main", &[("a", "1")]);
    let wt = env.path().join("wt");
    env.git(
        &dir,
        &[
            "worktree",
            "add",
            "-q",
            "-b",
            "feat/x",
            wt.to_str().unwrap(),
        ],
    );
    let from_linked = Repo::discover(&wt).unwrap();
    assert!(from_linked.is_linked_worktree());
    assert_eq!(from_linked.main_workdir().unwrap().unwrap(), dir);
    let list = from_linked.worktrees().unwrap();
    assert_eq!(list.len(), 2);
    assert!(list[0].is_main && list[0].branch.as_deref() == Some("main"));
    assert_eq!(list[1].branch.as_deref(), Some("feat/x"));
    assert_eq!(list[1].path, wt);
    std::fs::remove_dir_all(&wt).unwrap();
    let list = Repo::open(&dir).unwrap().worktrees().unwrap();
    assert!(list[1].missing);
    assert_eq!(
        list[1].branch.as_deref(),
        Some("feat/x"),
        "branch still known for a vanished folder"
    );
}

#[test]
fn merge_attributes_cannot_make_unlanded_work_look_landed() {
    let env = Env::new();
    let dir = env.path().join("r");
    env.repo(
        &dir,
        "main",
        &[("a", "base\n"), (".gitattributes", "* merge=ours\n")],
    );
    env.git(&dir, &["config", "merge.ours.driver", "true"]);
    env.git(&dir, &["switch", "-q", "-c", "lane"]);
    let lane = oid(&env.commit_file(&dir, "a", "lane version\n", "lane"));
    env.git(&dir, &["switch", "-q", "main"]);
    let main = oid(&env.commit_file(&dir, "a", "main version\n", "main"));
    let repo = Repo::open(&dir).unwrap();
    assert!(!repo.changes_already_in(lane, main).unwrap());
    // Deleting a file counts too: landed only when the target lacks it as well.
    env.git(&dir, &["switch", "-q", "-c", "deleter", "main"]);
    env.git(&dir, &["rm", "-q", "a"]);
    env.git(&dir, &["commit", "-q", "-m", "delete a"]);
    let deleter = repo.resolve_commit("deleter").unwrap();
    env.git(&dir, &["switch", "-q", "main"]);
    assert!(!repo.changes_already_in(deleter, main).unwrap());
    env.git(&dir, &["rm", "-q", "a"]);
    env.git(&dir, &["commit", "-q", "-m", "delete a on main too"]);
    let main = repo.resolve_commit("main").unwrap();
    assert!(repo.changes_already_in(deleter, main).unwrap());
}
