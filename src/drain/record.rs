//! A record per running drainer, `<common>/fleet/drainers/<pid>.json`, so `fleet
//! doctor` and `fleet status` can see who drains this repository, and tell a drainer
//! still running an older binary than the one installed.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// One running drainer, as it described itself when it started.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DrainerRecord {
    pub pid: u32,
    /// Its start time (seconds since the epoch, from /proc): a pid reused by another
    /// process does not match.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub process_start: Option<u64>,
    pub host: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub boot_id: Option<String>,
    pub version: String,
    /// The commit its binary was built from.
    pub commit: String,
    /// Its binary, and that file's modification time when it started (seconds since
    /// the epoch): a newer file there means it runs old code.
    pub binary: PathBuf,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub binary_mtime: Option<i64>,
    pub started: i64,
}

impl DrainerRecord {
    /// Is the process this record describes still the one running (same pid, same
    /// start time)? Only meaningful on the host and boot that wrote it.
    pub fn alive(&self) -> bool {
        crate::sys::procfs::started_at(self.pid).is_some_and(|at| Some(at) == self.process_start)
    }
}

/// The folder of drainer records.
pub fn folder(common: &Path) -> PathBuf {
    crate::state::dir(common).join("drainers")
}

/// Write this drainer's record; returns its path, to remove when the drainer ends.
pub fn write(common: &Path, record: &DrainerRecord) -> std::io::Result<PathBuf> {
    let dir = folder(common);
    std::fs::create_dir_all(&dir)?;
    let path = dir.join(format!("{}.json", record.pid));
    let tmp = dir.join(format!(".{}.json.tmp", record.pid));
    std::fs::write(&tmp, serde_json::to_vec_pretty(record).unwrap_or_default())?;
    std::fs::rename(&tmp, &path)?;
    Ok(path)
}

/// Every record in the folder (unreadable ones skipped), dead drainers' included.
pub fn list(common: &Path) -> Vec<DrainerRecord> {
    let Ok(entries) = std::fs::read_dir(folder(common)) else {
        return Vec::new();
    };
    let mut records: Vec<DrainerRecord> = entries
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
        .filter_map(|e| serde_json::from_slice(&std::fs::read(e.path()).ok()?).ok())
        .collect();
    records.sort_by_key(|r| r.pid);
    records
}
