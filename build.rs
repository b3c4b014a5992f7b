//! Record the commit the binary is built from, for `fleet --version`: a bug report then
//! names the exact code, and a supervisor still running last week's build is visible.
//! Outside a git checkout (a crate download) the commit is `unknown`.
//!
//! The script reruns when HEAD moves, and only then (each rerun rebuilds the crate):
//! - HEAD itself, this worktree's own file: a switch, a detach;
//! - the branch HEAD names, in the common dir a linked worktree shares: a commit or a
//!   reset here, and also a move from another worktree or a fetch, which never touch
//!   this worktree's reflog (watching `logs/HEAD` missed those);
//! - `packed-refs` once that branch is packed, and a reftable's table list.
//!
//! Only files that exist are named: cargo reruns a script on every build for a path that
//! is missing (a loose ref once packed, `logs/HEAD` with the reflog off).

use std::path::Path;
use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    (out.status.success() && !text.trim().is_empty()).then(|| text.trim().to_string())
}

fn main() {
    let commit = git(&["rev-parse", "--short=12", "HEAD"]).unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=FLEET_COMMIT={commit}");
    let mut watched = vec!["HEAD".to_string()];
    if let Some(branch) = git(&["symbolic-ref", "-q", "HEAD"]) {
        watched.extend([branch, "packed-refs".into(), "reftable/tables.list".into()]);
    }
    for path in watched {
        if let Some(file) = git(&["rev-parse", "--git-path", &path])
            && Path::new(&file).is_file()
        {
            println!("cargo:rerun-if-changed={file}");
        }
    }
    println!("cargo:rerun-if-changed=build.rs");
}
