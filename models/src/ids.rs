//! Newtype string ids for the entities of a cluster snapshot (docs/wire-schema.md), so that
//! a node id can never be passed where a task id is meant (lsap-sched §3.2: tasks T, slots IS).

use serde::{Deserialize, Serialize};
use std::fmt;

macro_rules! string_id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
        #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
        #[serde(transparent)]
        pub struct $name(pub String);

        impl $name {
            /// The id as a string slice.
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl From<&str> for $name {
            fn from(s: &str) -> Self {
                Self(s.to_owned())
            }
        }

        impl From<String> for $name {
            fn from(s: String) -> Self {
                Self(s)
            }
        }
    };
}

string_id!(
    /// A rack (a top-of-rack switch domain).
    RackId
);
string_id!(
    /// A block: a group of racks under one spine switch, the level above a rack in a
    /// topology domain (Kueue's topology levels, Volcano's HyperNode tiers).
    BlockId
);
string_id!(
    /// A worker node (a Hadoop TaskTracker).
    NodeId
);
string_id!(
    /// A pool: the fair scheduler's unit of sharing (weight, min shares).
    PoolId
);
string_id!(
    /// A job: a set of map and reduce tasks submitted together.
    JobId
);
string_id!(
    /// A task (pending or running), unique across the whole snapshot.
    TaskId
);
string_id!(
    /// A user submitting jobs (for running-job limits).
    UserId
);
