//! Object ids in serde as their full hex text, the form fleet's persisted records
//! (receipts first) have always held them: `#[serde(with = "hex")]`, or `hex::option`
//! for an optional id (absent, never empty). Text that does not parse as an id is an
//! error, so a record holding one is not taken for valid.

use serde::{Deserialize, Deserializer, Serializer};

use super::ObjectId;

pub fn serialize<S: Serializer>(id: &ObjectId, to: S) -> Result<S::Ok, S::Error> {
    to.collect_str(id)
}

pub fn deserialize<'de, D: Deserializer<'de>>(from: D) -> Result<ObjectId, D::Error> {
    let text = String::deserialize(from)?;
    ObjectId::from_hex(text.as_bytes()).map_err(serde::de::Error::custom)
}

/// The same for an optional id (absent, never empty).
pub mod option {
    use serde::{Deserialize, Deserializer, Serializer};

    use crate::git::ObjectId;

    pub fn serialize<S: Serializer>(id: &Option<ObjectId>, to: S) -> Result<S::Ok, S::Error> {
        match id {
            Some(id) => super::serialize(id, to),
            None => to.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(from: D) -> Result<Option<ObjectId>, D::Error> {
        match Option::<String>::deserialize(from)? {
            Some(text) => ObjectId::from_hex(text.as_bytes())
                .map(Some)
                .map_err(serde::de::Error::custom),
            None => Ok(None),
        }
    }
}
