//! Assertions many tests make: a refusal that leaves the target alone, landing receipts
//! (the git note under refs/notes/fleet) and lane states.

use std::path::Path;

use super::{Env, Run};

impl Env {
    /// `git args` in `dir` fails and the guard says why; its stderr.
    pub fn guard_refuses(&self, dir: &Path, args: &[&str]) -> String {
        let run = self.git_cmd(dir, args).run();
        assert_ne!(run.code, 0, "git {args:?} was not refused");
        assert!(
            run.stderr.contains("fleet guard"),
            "git {args:?} failed without the guard saying why: {}",
            run.stderr
        );
        run.stderr
    }

    /// `fleet args` in `dir` is refused: exit 1, and stderr says `says`.
    pub fn refused(&self, dir: &Path, args: &[&str], says: &str) -> Run {
        let run = self.fleet(dir, args).code(1);
        assert!(run.stderr.contains(says), "{}", run.stderr);
        run
    }

    /// `fleet args` in `repo` is refused: exit 1, stderr says `says`, and main is still
    /// at `old`.
    pub fn refused_and_unchanged(&self, repo: &Path, args: &[&str], says: &str, old: &str) -> Run {
        let run = self.refused(repo, args, says);
        assert_eq!(self.git(repo, &["rev-parse", "main"]), old);
        run
    }
}

/// The landing receipt on `commit`; fails the test when there is none.
pub fn receipt(env: &Env, repo: &Path, commit: &str) -> toml::Value {
    let text = env.git(repo, &["notes", "--ref", "fleet", "show", commit]);
    toml::from_str(&text).unwrap()
}

/// The landing receipt on `commit`, if it has one.
pub fn receipt_if_any(env: &Env, repo: &Path, commit: &str) -> Option<toml::Value> {
    let note = env
        .git_cmd(repo, &["notes", "--ref", "fleet", "show", commit])
        .run();
    (note.code == 0).then(|| toml::from_str(&note.stdout).unwrap())
}

/// (branch, state) of every lane, from `fleet status --json`.
pub fn lane_states(env: &Env, repo: &Path) -> Vec<(String, String)> {
    states_from(env, repo, &["status", "--json"])
}

/// (branch, state) of every lane of `remote`'s queue as clone `repo` sees it, from
/// `fleet status --remote REMOTE --json`.
pub fn remote_lane_states(env: &Env, repo: &Path, remote: &str) -> Vec<(String, String)> {
    states_from(env, repo, &["status", "--remote", remote, "--json"])
}

fn states_from(env: &Env, repo: &Path, args: &[&str]) -> Vec<(String, String)> {
    let run = env.fleet(repo, args).ok();
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    v.as_array()
        .unwrap()
        .iter()
        .map(|l| {
            (
                l["branch"].as_str().unwrap().to_string(),
                l["state"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}
