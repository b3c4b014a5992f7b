//! The branch a folder is on, asked from wherever the user stands (a linked worktree
//! has its own HEAD, so the shared checkout's repository cannot answer it).

use std::path::Path;

use super::Repo;
use crate::error::Result;

impl Repo {
    /// The short name of the branch checked out in the worktree holding `dir`; `None`
    /// on a detached HEAD.
    pub fn branch_at(dir: &Path) -> Result<Option<String>> {
        Repo::discover(dir)?.head_branch()
    }
}
