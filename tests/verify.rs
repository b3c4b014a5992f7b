//! `fleet verify` on real repositories: every commit the target moved to through
//! `fleet land` is verified, anything else (or a receipt that does not match) is listed.

use std::path::{Path, PathBuf};

use crate::common::{Env, Run, write};
use serde_json::Value;

/// A repository whose committed gate always passes; its first commit predates fleet.
fn repo(env: &Env) -> PathBuf {
    let repo = env.path().join("repo");
    env.repo(
        &repo,
        "main",
        &[
            ("README", "r\n"),
            ("fleet.toml", "[gate]\ncommands = [\"true\"]\n"),
        ],
    );
    repo
}

/// Make a lane `name` with one commit per (file, text) and land it; the new target tip.
fn land(env: &Env, repo: &Path, name: &str, files: &[(&str, &str)], extra: &[&str]) -> String {
    let wt = PathBuf::from(
        env.fleet(repo, &["worktree", "new", name])
            .ok()
            .stdout
            .trim(),
    );
    for (file, text) in files {
        env.commit_file(&wt, file, text, &format!("{name}: {file}"));
    }
    env.fleet(repo, &["track", "--ready", name]).ok();
    let mut args = vec!["land", name, "--yes"];
    args.extend_from_slice(extra);
    let run = env.fleet(repo, &args).ok();
    assert!(run.stderr.contains("landed"), "{}", run.stderr);
    env.git(repo, &["rev-parse", "main"])
}

/// Change the landing strategy through a lane (so the change has a receipt too).
fn land_strategy(env: &Env, repo: &Path, name: &str, strategy: &str) -> String {
    let toml = format!("[lanes]\nstrategy = \"{strategy}\"\n[gate]\ncommands = [\"true\"]\n");
    land(
        env,
        repo,
        name,
        &[("fleet.toml", &toml)],
        &["--allow-protected"],
    )
}

fn verify_json(env: &Env, dir: &Path, args: &[&str], code: i32) -> Value {
    let mut all = vec!["verify", "--json"];
    all.extend_from_slice(args);
    let run = env.fleet(dir, &all).code(code);
    serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {}", run.stdout))
}

fn ids(report: &Value, list: &str) -> Vec<String> {
    report[list]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["id"].as_str().unwrap().to_string())
        .collect()
}

fn first_parents(env: &Env, repo: &Path, range: &str) -> Vec<String> {
    env.git(repo, &["rev-list", "--first-parent", range])
        .lines()
        .map(String::from)
        .collect()
}

/// Rewrite the receipt of `commit` on refs/notes/fleet with plumbing, as a forger would.
fn forge(env: &Env, repo: &Path, commit: &str, edit: impl Fn(&str) -> String) {
    let notes = env.git(repo, &["rev-parse", "refs/notes/fleet"]);
    let text = env.git(repo, &["cat-file", "blob", &format!("{notes}:{commit}")]);
    let forged = env.path().join("forged.toml");
    write(&forged, &edit(&text));
    let blob = env.git(repo, &["hash-object", "-w", forged.to_str().unwrap()]);
    let index = env.path().join("notes.index");
    let index = [("GIT_INDEX_FILE", index.to_str().unwrap())];
    let steps: [&[&str]; 3] = [
        &["read-tree", &notes],
        &[
            "update-index",
            "--cacheinfo",
            &format!("100644,{blob},{commit}"),
        ],
        &["write-tree"],
    ];
    let mut tree = String::new();
    for step in steps {
        let run = env.git_cmd(repo, step).envs(&index).run();
        assert_eq!(run.code, 0, "{step:?}: {}", run.stderr);
        tree = run.stdout.trim().to_string();
    }
    let new = env.git(repo, &["commit-tree", &tree, "-p", &notes, "-m", "forged"]);
    env.git(repo, &["update-ref", "refs/notes/fleet", &new, &notes]);
}

fn assert_clean(run: &Run, checked: usize) {
    assert_eq!(run.stdout, "", "nothing listed");
    assert!(
        run.stderr.contains(&format!(
            "{checked} commit(s) checked (main since fleet was adopted at"
        )),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains(&format!("{checked} verified, 0 not")),
        "{}",
        run.stderr
    );
}

#[test]
fn lands_by_every_strategy_verify_clean_without_listing_rebased_chains() {
    let env = Env::new();
    let repo = repo(&env);
    let adopted = env.git(&repo, &["rev-parse", "main"]);
    let rebased = land(
        &env,
        &repo,
        "chain",
        &[("a1", "1\n"), ("a2", "2\n"), ("a3", "3\n")],
        &[],
    );
    let to_merge = land_strategy(&env, &repo, "to-merge", "merge");
    let merged = land(&env, &repo, "m", &[("m1", "1\n"), ("m2", "2\n")], &[]);
    assert_eq!(
        env.git(&repo, &["rev-parse", "main^2"]),
        env.git(&repo, &["rev-parse", "fleet/m"]),
        "landed as a merge"
    );
    let to_squash = land_strategy(&env, &repo, "to-squash", "squash");
    let squashed = land(&env, &repo, "s", &[("s1", "1\n"), ("s2", "2\n")], &[]);
    assert_eq!(env.git(&repo, &["rev-parse", "main~1"]), to_squash);

    let report = verify_json(&env, &repo, &[], 0);
    let landed = vec![
        squashed.clone(),
        to_squash.clone(),
        merged,
        to_merge,
        rebased.clone(),
    ];
    assert_eq!(ids(&report, "verified"), landed);
    assert_eq!(report["checked"], 5);
    assert_eq!(report["unverified"], Value::Array(vec![]));
    assert_eq!(report["range"]["from"].as_str(), Some(adopted.as_str()));
    assert_eq!(report["range"]["since_adoption"], true);
    // The rebased lane's first two commits are on main's first-parent line but were
    // never where main pointed: skipped, not checked.
    let line = first_parents(&env, &repo, &format!("{adopted}..main"));
    assert_eq!(line.len(), 7, "{line:?}");
    let chain = &report["verified"][4];
    assert_eq!(chain["lane"], "fleet/chain");
    assert_eq!(chain["strategy"], "rebase");
    assert_eq!(chain["skipped"], 2);
    assert_eq!(chain["moved_from"].as_str(), Some(adopted.as_str()));
    assert_eq!(chain["subject"], "chain: a3");
    assert_eq!(report["verified"][2]["strategy"], "merge");
    assert_eq!(report["verified"][0]["strategy"], "squash");
    for intermediate in [&line[5], &line[6]] {
        assert!(!ids(&report, "verified").contains(intermediate));
    }

    let run = env.fleet(&repo, &["verify"]).ok();
    assert_clean(&run, 5);
}

#[test]
fn commits_pushed_behind_fleets_back_are_listed() {
    let env = Env::new();
    let repo = repo(&env);
    let first = land(&env, &repo, "a", &[("a", "a\n")], &[]);
    // No guard hooks here: a plain commit on main and a raw update-ref both get through.
    let sneaked = env.commit_file(&repo, "sneak.txt", "s\n", "sneak in a fix");
    let tree = env.git(&repo, &["rev-parse", "main^{tree}"]);
    let raw = env.git(
        &repo,
        &["commit-tree", &tree, "-p", "main", "-m", "raw update-ref"],
    );
    env.git(&repo, &["update-ref", "refs/heads/main", &raw]);
    env.git(&repo, &["reset", "-q", "--hard", "main"]);
    let last = land(&env, &repo, "b", &[("b", "b\n")], &[]);

    let report = verify_json(&env, &repo, &[], 1);
    assert_eq!(ids(&report, "verified"), vec![last.clone(), first]);
    assert_eq!(
        ids(&report, "unverified"),
        vec![raw.clone(), sneaked.clone()]
    );
    assert_eq!(report["checked"], 4);
    let listed = &report["unverified"][1];
    assert_eq!(listed["subject"], "sneak in a fix");
    assert_eq!(listed["reason"], "no-receipt");
    assert!(
        listed["detail"].as_str().unwrap().contains("no receipt"),
        "{listed}"
    );
    assert_eq!(report["unverified"][0]["subject"], "raw update-ref");

    let run = env.fleet(&repo, &["verify"]).code(1);
    assert!(run.stdout.contains(&sneaked[..12]), "{}", run.stdout);
    assert!(run.stdout.contains("sneak in a fix"), "{}", run.stdout);
    assert!(run.stdout.contains(&raw[..12]), "{}", run.stdout);
    assert!(run.stdout.contains("no receipt"), "{}", run.stdout);
    assert!(!run.stdout.contains(&last[..12]), "{}", run.stdout);
    assert!(
        run.stderr.contains("4 commit(s) checked") && run.stderr.contains("2 verified, 2 not"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("help:"), "{}", run.stderr);
}

#[test]
fn a_receipt_for_another_tree_is_reported() {
    let env = Env::new();
    let repo = repo(&env);
    let adopted = env.git(&repo, &["rev-parse", "main"]);
    let forged = land(&env, &repo, "a", &[("a", "a\n")], &[]);
    let last = land(&env, &repo, "b", &[("b", "b\n")], &[]);
    let real_tree = env.git(&repo, &["rev-parse", &format!("{forged}^{{tree}}")]);
    let wrong_tree = env.git(&repo, &["rev-parse", &format!("{adopted}^{{tree}}")]);
    forge(&env, &repo, &forged, |text| {
        text.replace(&real_tree, &wrong_tree)
    });
    assert!(
        env.git(&repo, &["notes", "--ref", "fleet", "show", &forged])
            .contains(&wrong_tree)
    );

    let report = verify_json(&env, &repo, &[], 1);
    assert_eq!(ids(&report, "verified"), vec![last]);
    assert_eq!(ids(&report, "unverified"), vec![forged.clone()]);
    let listed = &report["unverified"][0];
    assert_eq!(listed["reason"], "tree-differs");
    let detail = listed["detail"].as_str().unwrap();
    assert!(
        detail.contains(&wrong_tree[..12]) && detail.contains(&real_tree[..12]),
        "{detail}"
    );

    let run = env.fleet(&repo, &["verify"]).code(1);
    assert!(run.stdout.contains("tested tree differs"), "{}", run.stdout);
}

#[test]
fn red_receipts_and_receipts_from_off_the_line_are_reported() {
    let env = Env::new();
    let repo = repo(&env);
    let red = land(&env, &repo, "a", &[("a", "a\n")], &[]);
    let elsewhere = land(&env, &repo, "b", &[("b", "b\n")], &[]);
    let lane_tip = env.git(&repo, &["rev-parse", "fleet/b"]);
    forge(&env, &repo, &red, |text| {
        text.replace("exit_code = 0", "exit_code = 3")
    });
    forge(&env, &repo, &elsewhere, |text| {
        text.replace(
            &format!("base = \"{red}\""),
            &format!("base = \"{lane_tip}\""),
        )
    });

    let report = verify_json(&env, &repo, &[], 1);
    assert_eq!(ids(&report, "verified"), Vec::<String>::new());
    assert_eq!(ids(&report, "unverified"), vec![elsewhere, red]);
    assert_eq!(report["unverified"][0]["reason"], "base-not-on-line");
    assert!(
        report["unverified"][0]["detail"]
            .as_str()
            .unwrap()
            .contains(&lane_tip[..12])
    );
    assert_eq!(report["unverified"][1]["reason"], "not-green");
    assert!(
        report["unverified"][1]["detail"]
            .as_str()
            .unwrap()
            .contains("`true` exited 3")
    );
}

#[test]
fn ranges_pick_the_part_of_history_checked() {
    let env = Env::new();
    let repo = repo(&env);
    let adopted = env.git(&repo, &["rev-parse", "main"]);
    let a = land(&env, &repo, "a", &[("a1", "1\n"), ("a2", "2\n")], &[]);
    let b = land(&env, &repo, "b", &[("b", "b\n")], &[]);
    let sneaked = env.commit_file(&repo, "sneak.txt", "s\n", "sneak");
    let d = land(&env, &repo, "d", &[("d", "d\n")], &[]);

    // A..B: B's line down to A.
    let r = verify_json(&env, &repo, &[&format!("{b}..main")], 1);
    assert_eq!(ids(&r, "verified"), vec![d.clone()]);
    assert_eq!(ids(&r, "unverified"), vec![sneaked.clone()]);
    assert_eq!(r["range"]["from"].as_str(), Some(b.as_str()));
    assert_eq!(r["range"]["to"].as_str(), Some(d.as_str()));
    assert_eq!(r["range"]["since_adoption"], false);
    assert_eq!(r["range"]["spec"].as_str().unwrap(), format!("{b}..main"));

    // A..: down to A from the target.
    let r = verify_json(&env, &repo, &[&format!("{sneaked}..")], 0);
    assert_eq!(ids(&r, "verified"), vec![d.clone()]);
    assert_eq!(r["checked"], 1);

    // ..B and a single REV: that line since adoption.
    for spec in [format!("..{b}"), b.clone()] {
        let r = verify_json(&env, &repo, &[&spec], 0);
        assert_eq!(ids(&r, "verified"), vec![b.clone(), a.clone()], "{spec}");
        assert_eq!(r["range"]["from"].as_str(), Some(adopted.as_str()));
        assert_eq!(r["range"]["since_adoption"], true);
    }

    // A range that starts inside a rebased chain: the move to its tip came from below
    // the range, which is still a first-parent ancestor.
    let r = verify_json(&env, &repo, &[&format!("{a}~1..{b}")], 0);
    assert_eq!(ids(&r, "verified"), vec![b.clone(), a.clone()]);
    assert_eq!(r["verified"][1]["skipped"], 1);

    // Nothing in the range.
    let r = verify_json(&env, &repo, &[&format!("{b}..{b}")], 0);
    assert_eq!(r["checked"], 0);

    let human = env.fleet(&repo, &["verify", &format!("{b}..main")]).code(1);
    assert!(human.stdout.contains(&sneaked[..12]), "{}", human.stdout);
    assert!(
        human
            .stderr
            .contains(&format!("2 commit(s) checked ({}..main)", &b[..12])),
        "{}",
        human.stderr
    );

    let before = env.git(&repo, &["for-each-ref"]);
    for bad in ["nope..main", "main..nope", "nope"] {
        let run = env.fleet(&repo, &["verify", bad]).code(2);
        assert!(run.stderr.contains("nope"), "{bad}: {}", run.stderr);
        assert!(run.stderr.contains("help:"), "{bad}: {}", run.stderr);
        assert_eq!(run.stdout, "");
    }
    let run = env.fleet(&repo, &["verify", "main...HEAD"]).code(2);
    assert!(run.stderr.contains("A..B"), "{}", run.stderr);
    assert_eq!(env.git(&repo, &["for-each-ref"]), before, "read-only");
}

#[test]
fn a_fresh_clone_verifies_once_it_fetched_the_receipts() {
    let env = Env::new();
    let repo = repo(&env);
    let a = land(&env, &repo, "a", &[("a1", "1\n"), ("a2", "2\n")], &[]);
    let b = land(&env, &repo, "b", &[("b", "b\n")], &[]);
    let clone = env.path().join("clone");
    env.git(
        &env.path(),
        &[
            "clone",
            "-q",
            repo.to_str().unwrap(),
            clone.to_str().unwrap(),
        ],
    );

    let run = env.refused(
        &clone,
        &["verify"],
        "`main` has no fleet receipts: this clone has no refs/notes/fleet",
    );
    assert!(
        run.stderr
            .contains("`fleet verify --remote <remote>` fetches them first"),
        "{}",
        run.stderr
    );

    env.git(
        &clone,
        &["fetch", "-q", "origin", "refs/notes/fleet:refs/notes/fleet"],
    );
    let report = verify_json(&env, &clone, &[], 0);
    assert_eq!(ids(&report, "verified"), vec![b, a]);
    assert_eq!(report, verify_json(&env, &repo, &[], 0), "same answer");
    assert_clean(&env.fleet(&clone, &["verify"]).ok(), 2);
}

#[test]
fn no_receipts_at_all_is_said_plainly() {
    let env = Env::new();
    let repo = repo(&env);
    env.commit_file(&repo, "x", "x\n", "before fleet");
    let run = env.fleet(&repo, &["verify"]).code(1);
    assert_eq!(run.stdout, "");
    assert!(
        run.stderr.contains("error: `main` has no fleet receipts"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("receipts are written by `fleet land`")
            && run
                .stderr
                .contains("`fleet verify --remote <remote>` fetches them first"),
        "{}",
        run.stderr
    );

    // Receipts exist, but none on this line of history.
    env.git(&repo, &["branch", "old", "main"]);
    land(&env, &repo, "a", &[("a", "a\n")], &[]);
    let run = env.fleet(&repo, &["verify", "old", "--json"]).code(1);
    let doc: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(doc["error"]["kind"], "refused", "{doc}");
    assert!(
        run.stderr
            .contains("`old` has no fleet receipts: no commit on its first-parent history"),
        "{}",
        run.stderr
    );
    verify_json(&env, &repo, &[], 0);
}
