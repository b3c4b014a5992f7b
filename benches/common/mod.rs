//! What the benches share: a hermetic environment for git and the fleet binary (its own
//! home and git config, a fixed identity, no colour), the 200-file base repository,
//! `FLEET_BENCH_RUNS`, the target folder, and medians printed as milliseconds.

// Each bench is its own crate and uses only part of this module.
#![allow(dead_code)]

pub mod lint;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// A temporary folder with an empty home in it, and the fleet binary under bench.
pub struct Env {
    /// The temporary folder, canonical; removed when the `Env` is dropped.
    pub base: PathBuf,
    pub home: PathBuf,
    pub fleet: PathBuf,
    _tmp: tempfile::TempDir,
}

impl Env {
    pub fn new() -> Env {
        let tmp = tempfile::tempdir().expect("tempdir");
        let base = tmp.path().canonicalize().unwrap();
        let home = base.join("home");
        std::fs::create_dir_all(&home).unwrap();
        std::fs::write(home.join(".gitconfig"), "").unwrap();
        Env {
            base,
            home,
            fleet: PathBuf::from(env!("CARGO_BIN_EXE_fleet")),
            _tmp: tmp,
        }
    }

    /// `program args` in `dir` with nothing from the caller's environment but PATH.
    pub fn cmd(&self, program: &Path, dir: &Path, args: &[&str]) -> Command {
        let mut cmd = Command::new(program);
        cmd.current_dir(dir)
            .args(args)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", &self.home)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", self.home.join(".gitconfig"))
            .env("GIT_AUTHOR_NAME", "Bench")
            .env("GIT_AUTHOR_EMAIL", "bench@example.invalid")
            .env("GIT_COMMITTER_NAME", "Bench")
            .env("GIT_COMMITTER_EMAIL", "bench@example.invalid")
            .env("NO_COLOR", "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        cmd
    }

    pub fn git_cmd(&self, dir: &Path, args: &[&str]) -> Command {
        self.cmd(Path::new("git"), dir, args)
    }

    pub fn fleet_cmd(&self, dir: &Path, args: &[&str]) -> Command {
        self.cmd(&self.fleet, dir, args)
    }

    /// Run git, which must succeed.
    pub fn git(&self, dir: &Path, args: &[&str]) {
        check(self.git_cmd(dir, args));
    }

    /// Run git, which must succeed; its stdout.
    pub fn git_stdout(&self, dir: &Path, args: &[&str]) -> String {
        String::from_utf8_lossy(&check(self.git_cmd(dir, args)).stdout).into_owned()
    }

    /// Run fleet, which must succeed.
    pub fn fleet(&self, dir: &Path, args: &[&str]) {
        check(self.fleet_cmd(dir, args));
    }

    /// Wall time of git, which must succeed.
    pub fn time_git(&self, dir: &Path, args: &[&str]) -> Duration {
        timed(self.git_cmd(dir, args))
    }

    /// Wall time of fleet, which must succeed.
    pub fn time_fleet(&self, dir: &Path, args: &[&str]) -> Duration {
        timed(self.fleet_cmd(dir, args))
    }

    /// 200 small files under src/ and `fleet.toml` holding `fleet_toml`, in one commit
    /// on `main`.
    pub fn base_repo(&self, dir: &Path, fleet_toml: &str) {
        std::fs::create_dir_all(dir).unwrap();
        self.git(dir, &["init", "-q", "-b", "main"]);
        for i in 0..200 {
            let path = dir.join(format!("src/d{}/f{i}.txt", i % 10));
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, format!("file {i}\n").repeat(20)).unwrap();
        }
        std::fs::write(dir.join("fleet.toml"), fleet_toml).unwrap();
        self.git(dir, &["add", "-A"]);
        self.git(dir, &["commit", "-q", "-m", "base"]);
    }
}

/// What `cmd` printed, whatever its exit code.
pub fn output(mut cmd: Command) -> Output {
    cmd.spawn()
        .and_then(|c| c.wait_with_output())
        .unwrap_or_else(|e| panic!("cannot run {:?}: {e}", cmd.get_program()))
}

/// What `cmd` printed; it must succeed.
pub fn check(cmd: Command) -> Output {
    let what = describe(&cmd);
    let out = output(cmd);
    assert!(
        out.status.success(),
        "{what}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Wall time of `cmd`, process start included; it must succeed.
pub fn timed(cmd: Command) -> Duration {
    let what = describe(&cmd);
    let started = Instant::now();
    let out = output(cmd);
    let took = started.elapsed();
    assert!(
        out.status.success(),
        "{what}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    took
}

fn describe(cmd: &Command) -> String {
    let args: Vec<_> = cmd.get_args().collect();
    let dir = cmd.get_current_dir().unwrap_or(Path::new("."));
    format!("{:?} {args:?} in {}", cmd.get_program(), dir.display())
}

/// Timed runs per case: `FLEET_BENCH_RUNS`, else `default`.
pub fn runs(default: usize) -> usize {
    std::env::var("FLEET_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|n| *n > 0)
        .unwrap_or(default)
}

/// Cargo's target folder, where the setup scripts put the tools and corpora they fetch.
pub fn target_dir() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    std::env::var_os("CARGO_TARGET_DIR")
        .map(|t| manifest.join(t))
        .unwrap_or_else(|| manifest.join("target"))
}

pub fn median(times: &[Duration]) -> Duration {
    let mut sorted = times.to_vec();
    sorted.sort();
    sorted[sorted.len() / 2]
}

pub fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

/// One table row: the medians of the other tool's and fleet's times, and their ratio.
pub fn report(case: &str, other: &[Duration], fleet: &[Duration]) {
    let (o, f) = (median(other), median(fleet));
    println!(
        "| {case} | {} | {} | {:.2} |",
        ms(o),
        ms(f),
        f.as_secs_f64() / o.as_secs_f64()
    );
}
