//! Submodules as a checkout registers them (its `.gitmodules`). Reading only: cloning
//! and updating them needs the git binary (see [`super::cli`]).

use std::path::PathBuf;

use super::{ObjectId, Repo, bstr_path};

/// A submodule registered in a checkout.
#[derive(Clone, Debug)]
pub struct Submodule {
    /// Its name in `.gitmodules`.
    pub name: String,
    /// Its folder, relative to the checkout.
    pub path: PathBuf,
    /// Its `url` in `.gitmodules`, `None` when unreadable.
    pub url: Option<String>,
    /// The commit the checkout's index records for it, `None` when it has none.
    pub index_id: Option<ObjectId>,
}

impl Repo {
    /// The submodules this checkout registers, in `.gitmodules` order. None when there
    /// is no `.gitmodules` or it cannot be read; one whose path cannot be read is left
    /// out.
    pub fn submodules(&self) -> Vec<Submodule> {
        let Ok(Some(subs)) = self.inner.submodules() else {
            return Vec::new();
        };
        subs.filter_map(|sub| {
            let path = sub.path().ok()?;
            Some(Submodule {
                name: sub.name().to_string(),
                path: bstr_path(path.as_ref()),
                url: sub.url().ok().map(|u| u.to_bstring().to_string()),
                index_id: sub.index_id().ok().flatten(),
            })
        })
        .collect()
    }

    /// The folders of [`Self::submodules`], relative to the checkout.
    pub fn submodule_paths(&self) -> Vec<PathBuf> {
        self.submodules().into_iter().map(|sub| sub.path).collect()
    }
}
