//! Where fleet is running: the repository, its shared checkout and its configuration.
//!
//! The shared checkout is the main worktree of the outermost fleet-managed repository.
//! From inside a nested repository (or one of its agent worktrees) fleet climbs to the
//! enclosing repository only when that one is fleet-managed (a `fleet.toml`, or a fleet
//! project's past in its git dir), so a project that happens to sit inside an unrelated
//! repository (a dotfiles repo in `$HOME`) is left alone.
//!
//! Finding the context writes nothing ([`Context::find`]). Which queue a command works on
//! is for the `queue` module to decide (it builds on this one, never the other way).

use std::path::{Path, PathBuf};

use crate::config::{self, Config};
use crate::error::{Error, Result};
use crate::git::Repo;

pub struct Context {
    /// The main repository (opened at the shared checkout).
    pub repo: Repo,
    /// The shared checkout: the main worktree's folder.
    pub shared: PathBuf,
    pub config: Config,
    /// The file the configuration came from; `None` means defaults.
    pub config_path: Option<PathBuf>,
    /// The checkout of a repository that holds this project's shared checkout, which
    /// fleet did not climb to (see `enclosing_checkout`): this project stands alone in it.
    pub inside_unmanaged: Option<PathBuf>,
    /// The nested repositories, found once per run (a walk of the shared checkout),
    /// and what that walk warned about.
    nested: std::cell::OnceCell<(Vec<crate::nested::Nested>, Vec<String>)>,
}

impl Context {
    /// The repository, shared checkout and configuration of the fleet project `cwd` is
    /// in. Reads only: nothing is written, whatever the command.
    pub fn find(cwd: &Path) -> Result<Context> {
        let mut repo = Repo::discover(cwd)?;
        // Inside a submodule, the project is the superproject around it.
        while repo.is_submodule() {
            let Some(parent) = repo
                .workdir()
                .and_then(|w| w.parent().map(Path::to_path_buf))
            else {
                break;
            };
            repo = Repo::discover(&parent)?;
        }
        if repo.is_bare() {
            return Err(Error::refused(format!(
                "{}: there is no shared checkout to work from",
                repo.bare_description()
            ))
            .with_help("run fleet in a non-bare clone"));
        }
        let mut shared = repo.main_workdir()?.ok_or_else(|| {
            Error::refused("the main repository is bare: there is no shared checkout")
                .with_help("run fleet in a non-bare clone")
        })?;
        // Canonical, so a checkout reached through a symlink compares equal to the
        // real paths git records for linked worktrees.
        shared = shared.canonicalize().unwrap_or(shared);
        let inside_unmanaged = loop {
            match enclosing_checkout(&shared) {
                Enclosing::Managed(outer) => shared = outer,
                Enclosing::Unmanaged(outer) => break Some(outer),
                Enclosing::None => break None,
            }
        };
        let repo = Repo::open(&shared)?;
        let (config, config_path) = Config::load(&shared)?;
        Ok(Context {
            repo,
            shared,
            config,
            config_path,
            inside_unmanaged,
            nested: std::cell::OnceCell::new(),
        })
    }

    /// The repository whose shared checkout is `shared`: this context's own (a clone,
    /// nothing read) when it is the project's shared checkout, else opened there.
    pub fn repo_at(&self, shared: &Path) -> Result<Repo> {
        self.own_repo_at(shared)
            .map_or_else(|| Repo::open(shared), Ok)
    }

    /// This context's own repository (a clone) when `shared` is its shared checkout; `None`
    /// for another one (a nested repository's), which the caller opens where it suits it.
    pub fn own_repo_at(&self, shared: &Path) -> Option<Repo> {
        (shared == self.shared).then(|| self.repo.clone())
    }

    /// The same project with this context's repository and configuration, for another
    /// thread: nothing is read again, so it sees the repository configuration this
    /// context opened with, as everything else this process does. (`find` in that
    /// thread would re-read and re-parse every config file and `fleet.toml`.)
    pub fn for_thread(&self) -> Context {
        Context {
            repo: self.repo.clone(),
            shared: self.shared.clone(),
            config: self.config.clone(),
            config_path: self.config_path.clone(),
            inside_unmanaged: self.inside_unmanaged.clone(),
            nested: std::cell::OnceCell::new(),
        }
    }

    /// Every shared checkout: the outer one (`.`) and each nested repository's, as paths
    /// relative to the outer one, parents first. The guard, the watchdog and the doctor
    /// all cover exactly these.
    pub fn shared_checkouts(&self) -> Vec<PathBuf> {
        std::iter::once(PathBuf::from("."))
            .chain(self.nested_repos().iter().map(|n| n.rel.clone()))
            .collect()
    }

    /// The nested repositories under the shared checkout (parents first), found on the
    /// first call of this run and remembered: landing many lanes walks the checkout once.
    pub fn nested_repos(&self) -> &[crate::nested::Nested] {
        &self.nested_walk().0
    }

    /// What finding the nested repositories warned about (one fleet cannot support, a
    /// listed one that is missing): for commands to pass on.
    pub fn nested_warnings(&self) -> &[String] {
        &self.nested_walk().1
    }

    fn nested_walk(&self) -> &(Vec<crate::nested::Nested>, Vec<String>) {
        self.nested
            .get_or_init(|| self.discover_nested(&self.worktree_root()))
    }

    /// Walk the shared checkout for nested repositories (the `[worktrees] nested` ones
    /// included), not entering `root`; warnings for listed ones that are missing.
    pub fn discover_nested(&self, root: &Path) -> (Vec<crate::nested::Nested>, Vec<String>) {
        let listed: Vec<PathBuf> = self
            .config
            .worktrees
            .nested
            .iter()
            .map(|p| p.as_path().to_path_buf())
            .collect();
        crate::nested::discover(&self.repo, &self.shared, &listed, root)
    }

    /// Where agent worktrees go: no `..` left in it, and symlinks resolved as far as the
    /// folders exist (git records worktree paths resolved, and a submodule's relative
    /// git dir link would otherwise be followed through the link and miss).
    pub fn worktree_root(&self) -> PathBuf {
        resolve_existing(&normalize(&self.config.worktrees.root_in(&self.shared)))
    }

    pub fn target(&self) -> &str {
        self.config.lanes.target.as_str()
    }

    pub fn branch_for(&self, name: &str) -> String {
        format!("{}{name}", self.config.lanes.prefix.as_str())
    }

    /// The tip of the target branch, or a configuration error naming the fix.
    pub fn target_tip(&self) -> Result<crate::git::ObjectId> {
        let target = self.target();
        // A repository with no commit yet cannot branch: the first commit makes it.
        let unborn = self.repo.head_id().ok().flatten().is_none();
        self.repo.branch_tip(target)?.ok_or_else(|| {
            Error::usage(format!(
                "the target branch `{target}` does not exist in {}",
                self.shared.display()
            ))
            .with_help(if unborn {
                format!("the repository has no commit yet: make the first one on `{target}` (`git commit`), then retry")
            } else {
                format!(
                    "create it (`git branch {target}`) or set [lanes] target in {}",
                    config::FILE_NAME
                )
            })
        })
    }
}

/// What holds a shared checkout: nothing, a fleet-managed repository whose nested
/// repository it is, or a repository it stands alone in.
enum Enclosing {
    None,
    Managed(PathBuf),
    Unmanaged(PathBuf),
}

/// The repository whose checkout holds `checkout` (a repository's shared checkout).
///
/// It is fleet-managed, and `checkout` one of its nested repositories, when it has a
/// `fleet.toml`, or when it has been a fleet project (`fleet init` recorded it, or
/// `fleet worktree new` made agent worktrees of it, or it is itself a nested repository
/// of a fleet-managed one) and `checkout` has neither a `fleet.toml` nor such a past of
/// its own. Otherwise (a project inside a dotfiles repository in `$HOME`) the inner
/// repository stands alone.
fn enclosing_checkout(checkout: &Path) -> Enclosing {
    let Some(outer) = checkout.parent().and_then(|p| Repo::discover(p).ok()) else {
        return Enclosing::None;
    };
    let Some(outer_shared) = outer.main_workdir().ok().flatten() else {
        return Enclosing::None;
    };
    let outer_shared = outer_shared.canonicalize().unwrap_or(outer_shared);
    if !checkout.starts_with(&outer_shared) {
        return Enclosing::None;
    }
    // The enclosing repository may itself be a nested repository of a fleet project.
    let managed = outer_shared.join(config::FILE_NAME).is_file()
        || (!claims_itself(checkout)
            && (was_a_project(&outer)
                || matches!(enclosing_checkout(&outer_shared), Enclosing::Managed(_))));
    if managed {
        Enclosing::Managed(outer_shared)
    } else {
        Enclosing::Unmanaged(outer_shared)
    }
}

/// A repository with a `fleet.toml` or a fleet project's past is a project of its own.
fn claims_itself(checkout: &Path) -> bool {
    checkout.join(config::FILE_NAME).is_file()
        || Repo::open(checkout).is_ok_and(|repo| was_a_project(&repo))
}

/// Has fleet treated `repo` as a project (see [`crate::state::was_a_project`])?
fn was_a_project(repo: &Repo) -> bool {
    crate::state::was_a_project(&repo.common_dir())
}

/// `path` with its longest existing ancestor resolved (symlinks followed), the rest kept.
pub(crate) fn resolve_existing(path: &Path) -> PathBuf {
    let mut existing = path;
    let mut rest = Vec::new();
    loop {
        if let Ok(real) = existing.canonicalize() {
            return rest.iter().rev().fold(real, |acc, part| acc.join(part));
        }
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                existing = parent;
            }
            _ => return path.to_path_buf(),
        }
    }
}

/// Resolve `.` and `..` without touching the file system.
pub fn normalize(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}
