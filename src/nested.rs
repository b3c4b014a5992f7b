//! Nested repositories: separate git repositories living in folders of another
//! repository's checkout that the outer one does not track (not submodules).
//!
//! A worktree of the outer repository does not isolate them, so each agent worktree
//! gets a linked worktree of every nested repository, at the same relative path.
//! Found by walking the shared checkout (symlinks are not followed), plus the ones
//! listed in `[worktrees] nested`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::git::{self, DotGit, Repo};

/// A nested repository, relative to the outer shared checkout.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Nested {
    /// Path relative to the outer shared checkout, e.g. `cockpit` or `cockpit/engine`.
    pub rel: PathBuf,
    /// How many repositories enclose it: 1 for a direct child of the outer repository.
    pub depth: usize,
}

/// Every nested repository under `shared` (whose repository is `repo`, open already),
/// parents before children. `skip` is a folder not to enter (the agent worktree root
/// when it lies inside). Returns the repositories and warnings for listed ones that are
/// missing.
pub fn discover(
    repo: &Repo,
    shared: &Path,
    listed: &[PathBuf],
    skip: &Path,
) -> (Vec<Nested>, Vec<String>) {
    let mut found = BTreeSet::new();
    let mut warnings = Vec::new();
    let submodules = submodule_paths_in(repo, shared);
    let mut walk = Walk {
        shared,
        skip,
        found: &mut found,
        warnings: &mut warnings,
    };
    walk.dir(shared, &canonical_common_dir(repo), &submodules, 1);
    for rel in listed {
        let abs = shared.join(rel);
        if found.iter().any(|n: &Nested| &n.rel == rel) {
            continue;
        }
        if std::fs::symlink_metadata(&abs).is_ok_and(|m| m.file_type().is_symlink()) {
            warnings.push(format!(
                "[worktrees] nested lists `{}`, which is a symlink; skipped (a worktree cannot stand in for a link)",
                rel.display()
            ));
        } else if let Some(format) = git::unsupported_format(&abs) {
            warnings.push(unsupported(&abs, &format));
        } else if abs.join(".git").exists() {
            let depth = found.iter().filter(|n| rel.starts_with(&n.rel)).count() + 1;
            found.insert(Nested {
                rel: rel.clone(),
                depth,
            });
        } else {
            warnings.push(format!(
                "[worktrees] nested lists `{}`, but {} is not a git repository; skipped",
                rel.display(),
                abs.display()
            ));
        }
    }
    let mut list: Vec<Nested> = found.into_iter().collect();
    list.sort_by(|a, b| a.depth.cmp(&b.depth).then(a.rel.cmp(&b.rel)));
    (list, warnings)
}

/// The warning for a nested repository fleet cannot open (a SHA-256 one): left out, so
/// the rest of the project is still guarded and landed, and said plainly.
fn unsupported(path: &Path, format: &str) -> String {
    format!(
        "{} is a {} repository, which fleet does not support (SHA-1 only): it is not guarded, its lanes do not land, and agents get no copy of it",
        path.display(),
        git::format_name(format)
    )
}

/// One walk of a shared checkout for nested repositories.
struct Walk<'a> {
    shared: &'a Path,
    /// A folder not to enter (the agent worktree root when it lies inside).
    skip: &'a Path,
    found: &'a mut BTreeSet<Nested>,
    warnings: &'a mut Vec<String>,
}

impl Walk<'_> {
    /// Walk `dir`, a folder of the checkout of the repository whose git dir is `common`.
    fn dir(&mut self, dir: &Path, common: &Path, submodules: &BTreeSet<PathBuf>, depth: usize) {
        for path in subfolders(dir) {
            if path == self.skip {
                continue;
            }
            match git::dot_git(&path) {
                DotGit::None => self.dir(&path, common, submodules, depth),
                // The enclosing repository's own linked worktree is not a nested
                // repository; another repository's cannot be given a worktree.
                DotGit::LinkedWorktree => {
                    if common_dir_of(&path) != common {
                        self.warnings.push(format!(
                            "{} is a linked worktree of another repository; it is not a nested repository fleet can isolate, and agents will not get their own copy",
                            path.display()
                        ));
                    }
                }
                DotGit::Repository => {
                    if submodules.contains(&path) {
                        continue;
                    }
                    if let Some(format) = git::unsupported_format(&path) {
                        self.warnings.push(unsupported(&path, &format));
                        continue;
                    }
                    let rel = path
                        .strip_prefix(self.shared)
                        .unwrap_or(&path)
                        .to_path_buf();
                    self.found.insert(Nested { rel, depth });
                    let inner = submodule_paths(&path);
                    self.dir(&path, &common_dir_of(&path), &inner, depth + 1);
                }
            }
        }
    }
}

/// The common git dir of the repository checked out at `checkout` (canonical; empty
/// when it cannot be opened).
fn common_dir_of(checkout: &Path) -> PathBuf {
    Repo::open(checkout)
        .map(|r| canonical_common_dir(&r))
        .unwrap_or_default()
}

/// `repo`'s common git dir, canonical (as given when it cannot be resolved).
fn canonical_common_dir(repo: &Repo) -> PathBuf {
    let dir = repo.common_dir();
    dir.canonicalize().unwrap_or(dir)
}

/// Absolute paths of the submodules registered in the checkout at `dir`.
fn submodule_paths(dir: &Path) -> BTreeSet<PathBuf> {
    match Repo::open(dir) {
        Ok(repo) => submodule_paths_in(&repo, dir),
        Err(_) => BTreeSet::new(),
    }
}

/// [`submodule_paths`] of `repo`, open already, whose checkout is `dir`.
fn submodule_paths_in(repo: &Repo, dir: &Path) -> BTreeSet<PathBuf> {
    repo.submodule_paths()
        .into_iter()
        .map(|rel| dir.join(rel))
        .collect()
}

/// Every folder under `dir` (not `dir` itself) that holds a `.git` and is not a
/// submodule of the checkout around it, entering every repository on the way, and every
/// folder that is a git dir itself (a bare repository, a separate git dir). Used to find
/// repositories that removing `dir` would delete.
pub fn repositories_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    collect_repositories(dir, &submodule_paths(dir), &mut out);
    out
}

fn collect_repositories(dir: &Path, submodules: &BTreeSet<PathBuf>, out: &mut Vec<PathBuf>) {
    for path in subfolders(dir) {
        if git::is_git_dir(&path) {
            // A bare repository, or the git dir of a repository checked out elsewhere.
            out.push(path);
        } else if std::fs::symlink_metadata(path.join(".git")).is_ok() {
            if !submodules.contains(&path) {
                out.push(path.clone());
            }
            collect_repositories(&path, &submodule_paths(&path), out);
        } else {
            collect_repositories(&path, submodules, out);
        }
    }
}

/// The folders directly in `dir`, without `.git` and without following symlinks.
fn subfolders(dir: &Path) -> impl Iterator<Item = PathBuf> {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|entry| entry.file_type().is_ok_and(|k| k.is_dir()) && entry.file_name() != ".git")
        .map(|entry| entry.path())
}
