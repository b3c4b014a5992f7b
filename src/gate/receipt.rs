//! Receipts: the evidence, kept as a git note on [`refs::NOTES`] for every commit the
//! target moved to, that its exact tree passed the gate. Written before the target
//! moves; read by `fleet verify` and `fleet revert`. The TOML form is persisted in
//! repositories, so a field's name or form never changes.

use crate::git::hex;
use serde::{Deserialize, Serialize};

use super::CommandResult;
use crate::config::Strategy;
use crate::error::{Error, Result};
use crate::git::{ObjectId, OwnRefStep, Repo};
use crate::refs;

/// The evidence that a commit the target moved to passed the gate.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Receipt {
    pub lane: String,
    /// The lane branch's tip it was built from. Text, not an id: a unit's receipt in a
    /// repository where the lane's branch is gone by then holds an empty one.
    pub lane_tip: String,
    /// The target commit the candidate was built on.
    #[serde(with = "hex")]
    pub base: ObjectId,
    #[serde(with = "hex")]
    pub candidate: ObjectId,
    #[serde(with = "hex")]
    pub tested_tree: ObjectId,
    pub strategy: Strategy,
    pub commands: Vec<CommandResult>,
    pub duration_ms: u64,
    pub log_digest: String,
    pub at: i64,
    /// Where the target was before it moved, when that is not `base`: a lane landed in
    /// a batch was built on the lane before it, but the target moved from the batch's
    /// base straight to the batch's top. `fleet verify` follows this link.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "hex::option")]
    pub target_before: Option<ObjectId>,
    /// The commit the target moved to, when that is not `candidate` (a batch's top).
    #[serde(default, skip_serializing_if = "Option::is_none", with = "hex::option")]
    pub landed_with: Option<ObjectId>,
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
    #[serde(with = "hex")]
    pub base: ObjectId,
    #[serde(with = "hex")]
    pub candidate: ObjectId,
}

impl Receipt {
    /// Every gate command exited 0.
    pub fn green(&self) -> bool {
        !self.commands.is_empty() && self.commands.iter().all(|c| c.exit_code == 0)
    }

    /// The target's position before it moved to this receipt's commit.
    pub fn moved_from(&self) -> ObjectId {
        self.target_before.unwrap_or(self.base)
    }
}

/// Attach `receipt` to its candidate as a note on [`refs::NOTES`].
pub fn write_receipt(repo: &Repo, receipt: &Receipt) -> Result<()> {
    let text =
        toml::to_string(receipt).map_err(|e| Error::env(format!("cannot write a receipt: {e}")))?;
    put_file(
        repo,
        refs::NOTES,
        &receipt.candidate.to_string(),
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
    let Some(notes) = repo.ref_target(refs::NOTES)? else {
        return Ok(None);
    };
    let Some(bytes) = repo.file_at(notes, &commit.to_string())? else {
        return Ok(None);
    };
    Ok(toml::from_str(&String::from_utf8_lossy(&bytes)).ok())
}

#[cfg(test)]
mod tests {
    use serde::{Deserialize, Serialize};

    use super::*;

    /// The receipt as it was written before its ids were typed: what repositories hold.
    #[derive(Serialize, Deserialize)]
    struct Stored {
        lane: String,
        lane_tip: String,
        base: String,
        candidate: String,
        tested_tree: String,
        strategy: String,
        commands: Vec<CommandResult>,
        duration_ms: u64,
        log_digest: String,
        at: i64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        target_before: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        landed_with: Option<String>,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        cached: bool,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        unit: Vec<StoredMove>,
    }

    #[derive(Serialize, Deserialize)]
    struct StoredMove {
        path: String,
        target: String,
        base: String,
        candidate: String,
    }

    fn id(digit: char) -> String {
        std::iter::repeat_n(digit, 40).collect()
    }

    fn stored(batched: bool) -> Stored {
        Stored {
            lane: "fleet/a".into(),
            lane_tip: id('1'),
            base: id('2'),
            candidate: id('3'),
            tested_tree: id('4'),
            strategy: "squash".into(),
            commands: vec![CommandResult {
                command: "true".into(),
                exit_code: 0,
                timed_out: false,
                duration_ms: 5,
            }],
            duration_ms: 7,
            log_digest: id('5'),
            at: 1_700_000_000,
            target_before: batched.then(|| id('6')),
            landed_with: batched.then(|| id('7')),
            cached: batched,
            unit: if batched {
                vec![StoredMove {
                    path: ".".into(),
                    target: crate::refs::branch("main"),
                    base: id('2'),
                    candidate: id('3'),
                }]
            } else {
                Vec::new()
            },
        }
    }

    #[test]
    fn stored_receipts_parse_and_are_written_back_byte_for_byte() {
        for batched in [false, true] {
            let text = toml::to_string(&stored(batched)).unwrap();
            let receipt: Receipt = toml::from_str(&text).unwrap();
            assert_eq!(receipt.strategy, Strategy::Squash);
            assert_eq!(receipt.tested_tree.to_string(), id('4'));
            assert_eq!(toml::to_string(&receipt).unwrap(), text);
        }
    }

    #[test]
    fn a_note_with_an_id_that_does_not_parse_is_not_a_receipt() {
        let mut bad = stored(false);
        bad.tested_tree = "not an id".into();
        let text = toml::to_string(&bad).unwrap();
        assert!(toml::from_str::<Receipt>(&text).is_err());
    }
}
