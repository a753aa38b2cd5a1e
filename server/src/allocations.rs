//! The fair-scheduler allocation file of `placer serve --allocations`
//! (docs/operations/allocation-files.md; Apache Hadoop FairScheduler.md, "Allocation file format";
//! HFS design doc §3.8: "the allocation file … is automatically reloaded if it is modified on
//! disk"): read with the config, held in the [`crate::ServerConfig`] in force, and so reloaded and
//! swapped with it ([`crate::reload`]). Each snapshot's undefined pools and users are filled from
//! it ([`placer_datasets::FairAllocations::fill`]).

use crate::error::ServerError;
use placer_datasets::{DatasetError, FairAllocations};
use std::path::Path;
use std::sync::Arc;

/// A parsed allocation file, shared by the requests of one config generation. Two are equal
/// when their contents are (a reload that rewrites the file unchanged changes nothing).
#[derive(Clone, Debug)]
pub struct Allocations(pub Arc<FairAllocations>);

impl PartialEq for Allocations {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || *self.0 == *other.0
    }
}

// Every number in a parsed file is finite (the reader refuses the others), so equality is
// reflexive.
impl Eq for Allocations {}

/// Reads and checks the allocation file at `path`. O(file).
///
/// # Errors
/// [`ServerError::Config`] naming the file, the element (as the key, `<weight>`) and its
/// line, or the read error.
pub fn load(path: &Path) -> Result<Allocations, ServerError> {
    let file = path.display().to_string();
    let text = crate::operator_file::read_text(
        path,
        crate::operator_file::MAX_ALLOCATIONS_BYTES,
        crate::operator_file::READ_TIMEOUT,
    )
    .map_err(|message| ServerError::Config {
        file: file.clone(),
        key: None,
        line: None,
        message,
    })?;
    let parsed = placer_datasets::parse_fair_allocations(&file, &text);
    parsed.map(|a| Allocations(Arc::new(a))).map_err(|e| match e {
        DatasetError::Allocations { line, element, message, .. } => ServerError::Config {
            file,
            key: Some(format!("<{element}>")),
            line: usize::try_from(line).ok(),
            message,
        },
        other => ServerError::Config { file, key: None, line: None, message: other.to_string() },
    })
}
