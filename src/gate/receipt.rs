//! Receipts: the evidence, kept as a git note on [`NOTES_REF`] for every commit the
//! target moved to, that its exact tree passed the gate. Written before the target
//! moves; read by `fleet verify` and `fleet revert`. The TOML form is persisted in
//! repositories, so a field's name or form never changes.

use serde::{Deserialize, Serialize};

use super::CommandResult;
use crate::config::Strategy;
use crate::error::{Error, Result};
use crate::git::{ObjectId, OwnRefStep, Repo};

pub const NOTES_REF: &str = "refs/notes/fleet";

/// The evidence that a commit the target moved to passed the gate.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Receipt {
    pub lane: String,
    pub lane_tip: String,
    /// The target commit the candidate was built on.
    pub base: String,
    pub candidate: String,
    pub tested_tree: String,
    pub strategy: Strategy,
    pub commands: Vec<CommandResult>,
    pub duration_ms: u64,
    pub log_digest: String,
    pub at: i64,
    /// Where the target was before it moved, when that is not `base`: a lane landed in
    /// a batch was built on the lane before it, but the target moved from the batch's
    /// base straight to the batch's top. `fleet verify` follows this link.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_before: Option<String>,
    /// The commit the target moved to, when that is not `candidate` (a batch's top).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub landed_with: Option<String>,
    /// The gate did not run again: an identical tree passed before (the gate cache).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cached: bool,
    /// A lane that spans nested repositories landed as one unit: every target move of
    /// the unit (the gate ran once over all of them together). The same list is in each
    /// repository's receipt.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unit: Vec<UnitMove>,
}

/// One target move of a landing that spans the outer repository and nested ones.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnitMove {
    /// The repository, relative to the outer shared checkout (`.` for the outer one).
    pub path: String,
    /// The target's full ref name in that repository.
    pub target: String,
    pub base: String,
    pub candidate: String,
}

impl Receipt {
    /// Every gate command exited 0.
    pub fn green(&self) -> bool {
        !self.commands.is_empty() && self.commands.iter().all(|c| c.exit_code == 0)
    }

    /// The target's position before it moved to this receipt's commit.
    pub fn moved_from(&self) -> &str {
        self.target_before.as_deref().unwrap_or(&self.base)
    }
}

/// Attach `receipt` to its candidate as a note on [`NOTES_REF`].
pub fn write_receipt(repo: &Repo, receipt: &Receipt) -> Result<()> {
    let text =
        toml::to_string(receipt).map_err(|e| Error::env(format!("cannot write a receipt: {e}")))?;
    put_file(
        repo,
        NOTES_REF,
        &receipt.candidate,
        text.as_bytes(),
        &format!(
            "fleet: receipt for {} ({})",
            receipt.lane, receipt.candidate
        ),
    )
}

/// Add a file to the tree of one of fleet's notes-like refs (a commit whose tree holds
/// one file per key) by compare-and-swap, retried when another process added a file at
/// the same time.
fn put_file(repo: &Repo, full_ref: &str, path: &str, bytes: &[u8], message: &str) -> Result<()> {
    repo.update_own_ref(full_ref, message, |old| {
        Ok(OwnRefStep::Set(
            repo.commit_with_file(old, path, bytes, message)?,
            (),
        ))
    })
}

/// The receipt for `commit`, if it has one.
pub fn read_receipt(repo: &Repo, commit: ObjectId) -> Result<Option<Receipt>> {
    let Some(notes) = repo.ref_target(NOTES_REF)? else {
        return Ok(None);
    };
    let Some(bytes) = repo.file_at(notes, &commit.to_string())? else {
        return Ok(None);
    };
    Ok(toml::from_str(&String::from_utf8_lossy(&bytes)).ok())
}
