//! The repositories the tests start from, built with git in an [`Env`].

use std::path::{Path, PathBuf};

use super::{Env, write};

impl Env {
    /// A repository with one commit holding `files`, on branch `branch`.
    pub fn repo(&self, dir: &Path, branch: &str, files: &[(&str, &str)]) {
        std::fs::create_dir_all(dir).unwrap();
        self.git(dir, &["init", "-q", "-b", branch]);
        for (name, text) in files {
            write(&dir.join(name), text);
        }
        self.git(dir, &["add", "-A"]);
        self.git(dir, &["commit", "-q", "-m", "initial"]);
    }

    pub fn commit_file(&self, dir: &Path, name: &str, text: &str, message: &str) -> String {
        write(&dir.join(name), text);
        self.git(dir, &["add", "-A"]);
        self.git(dir, &["commit", "-q", "-m", message]);
        self.git(dir, &["rev-parse", "HEAD"])
    }

    /// outer/ (branch main) holding nested repo cockpit/ (branch main), which holds
    /// cockpit/engine/ (branch dev). The outer repo ignores cockpit/.
    pub fn outer_with_nested(&self) -> PathBuf {
        let outer = self.path().join("outer");
        self.repo(
            &outer,
            "main",
            &[("README", "outer\n"), (".gitignore", "cockpit/\n")],
        );
        let cockpit = outer.join("cockpit");
        self.repo(
            &cockpit,
            "main",
            &[("c.txt", "cockpit\n"), (".gitignore", "engine/\n")],
        );
        self.repo(&cockpit.join("engine"), "dev", &[("e.txt", "engine\n")]);
        outer
    }

    /// outer/ with a submodule at vendor/lib, cloned from lib-origin/.
    pub fn outer_with_submodule(&self) -> PathBuf {
        let lib = self.path().join("lib-origin");
        self.repo(&lib, "main", &[("lib.txt", "lib\n")]);
        let outer = self.path().join("outer");
        self.repo(&outer, "main", &[("README", "x\n")]);
        let url = lib.to_str().unwrap();
        let add = [
            "-c",
            "protocol.file.allow=always",
            "submodule",
            "add",
            "-q",
            url,
            "vendor/lib",
        ];
        self.git(&outer, &add);
        self.git(&outer, &["commit", "-q", "-m", "add submodule"]);
        outer
    }

    /// repo/ (main: README, shared.txt) whose committed gate is the one command `gate`
    /// and forbids the word TODO_SCRUB.
    pub fn gated_repo(&self, gate: &str) -> PathBuf {
        let repo = self.path().join("repo");
        let toml = format!("[gate]\ncommands = [{gate:?}]\nforbid = [\"TODO_SCRUB\"]\n");
        self.repo(
            &repo,
            "main",
            &[
                ("README", "r\n"),
                ("shared.txt", "one\n"),
                ("fleet.toml", &toml),
            ],
        );
        repo
    }

    /// repo/ with `lanes` ready one-commit lanes l1.., those in `bad` failing the gate: a
    /// gate that appends a line to `runs` (outside the repository) and fails
    /// when the tree holds a file named `bad`. Returns the repository and main's tip.
    pub fn lanes_with_logged_gate(&self, lanes: usize, bad: &[usize]) -> (PathBuf, String) {
        let repo = self.path().join("repo");
        let runs = self.path().join("runs");
        let gate = format!("echo $FLEET_CANDIDATE >> {}; test ! -e bad", runs.display());
        self.repo(
            &repo,
            "main",
            &[
                ("README", "r\n"),
                (
                    "fleet.toml",
                    &format!("[gate]\ncommands = [{gate:?}]\nenv = [\"FLAVOUR\"]\n"),
                ),
            ],
        );
        for i in 1..=lanes {
            let wt = self.agent(&repo, &format!("l{i}"));
            self.commit_file(&wt, &format!("l{i}.txt"), "x\n", &format!("lane {i}"));
            if bad.contains(&i) {
                self.commit_file(&wt, "bad", "x\n", &format!("lane {i} breaks the gate"));
            }
            self.fleet(&repo, &["track", "--ready", &format!("l{i}")])
                .ok();
        }
        let old = self.git(&repo, &["rev-parse", "main"]);
        (repo, old)
    }

    /// repo/ with a gate that always passes and one ready lane `a` that edits README.
    pub fn one_ready_lane_editing_readme(&self) -> PathBuf {
        let repo = self.path().join("repo");
        self.repo(
            &repo,
            "main",
            &[
                ("README", "old line\n"),
                ("fleet.toml", "[gate]\ncommands = [\"true\"]\n"),
            ],
        );
        let wt = self.agent(&repo, "a");
        self.commit_file(&wt, "README", "new line\n", "edit readme");
        self.fleet(&repo, &["track", "--ready", "a"]).ok();
        repo
    }

    /// A repository with a gate that takes a moment, and `lanes` ready one-commit lanes.
    pub fn lanes_with_slow_gate(&self, lanes: usize) -> (PathBuf, String, Vec<String>) {
        let repo = self.path().join("repo");
        self.repo(
            &repo,
            "main",
            &[
                ("README", "r\n"),
                (
                    "fleet.toml",
                    "[gate]\ncommands = [\"sleep 0.3\", \"test -e README\"]\n",
                ),
            ],
        );
        let mut tips = Vec::new();
        for i in 0..lanes {
            let wt = self.agent(&repo, &format!("l{i}"));
            tips.push(self.commit_file(&wt, &format!("l{i}.txt"), "x\n", &format!("lane {i}")));
            self.fleet(&repo, &["track", "--ready", &format!("l{i}")])
                .ok();
        }
        let old = self.git(&repo, &["rev-parse", "main"]);
        (repo, old, tips)
    }

    /// outer/ (main) whose gate passes only when `cockpit/version` equals `expected`,
    /// with cockpit/ a nested repository (main) holding `version`.
    pub fn outer_gated_on_nested_version(&self) -> PathBuf {
        let outer = self.path().join("outer");
        let gate = format!(
            "echo run >> {}; test \"$(cat cockpit/version)\" = \"$(cat expected)\"",
            self.path().join("runs").display()
        );
        self.repo(
            &outer,
            "main",
            &[
                (".gitignore", "cockpit/\n"),
                ("expected", "1\n"),
                ("fleet.toml", &format!("[gate]\ncommands = [{gate:?}]\n")),
            ],
        );
        self.repo(&outer.join("cockpit"), "main", &[("version", "1\n")]);
        outer
    }

    /// A repository with fleet adopted and `n` agent worktrees, each with one commit.
    pub fn worktrees_with_one_commit(&self, n: usize) -> (PathBuf, Vec<PathBuf>) {
        let repo = self.path().join("repo");
        self.repo(
            &repo,
            "main",
            &[("README", "r\n"), ("shared.txt", "one\ntwo\nthree\n")],
        );
        let mut worktrees = Vec::new();
        for i in 0..n {
            let wt = self.agent(&repo, &format!("t{i}"));
            self.commit_file(&wt, &format!("t{i}.txt"), "work\n", &format!("work {i}"));
            worktrees.push(wt);
        }
        (repo, worktrees)
    }
}
