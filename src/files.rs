//! Writing the small files fleet keeps (hook scripts, the guard's branch list, the
//! watchdog's state): whole or not at all, so a kill never leaves half a file.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// Write `bytes` to `path` through a temporary file in the same folder and a rename,
/// creating the folder if needed. `mode` (e.g. 0o755 for a hook) is set before the
/// rename, so the file is never seen without it.
pub fn write_atomically(path: &Path, bytes: &[u8], mode: Option<u32>) -> Result<()> {
    use std::os::unix::fs::PermissionsExt;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| Error::env(format!("cannot create {}: {e}", dir.display())))?;
    }
    let mut tmp = path.as_os_str().to_os_string();
    tmp.push(format!(".tmp{}", std::process::id()));
    let tmp = PathBuf::from(tmp);
    std::fs::write(&tmp, bytes)
        .and_then(|()| match mode {
            Some(mode) => std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(mode)),
            None => Ok(()),
        })
        .and_then(|()| std::fs::rename(&tmp, path))
        .map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            Error::env(format!("cannot write {}: {e}", path.display()))
        })
}

/// Delete the folder `path` and everything in it; one that is already gone is fine
/// (a crash may have deleted part of it, or all).
pub fn remove_tree(path: &Path) -> std::io::Result<()> {
    match std::fs::remove_dir_all(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        other => other,
    }
}
