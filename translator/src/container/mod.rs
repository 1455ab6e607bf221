//! The DXBC container: header, chunk table and the chunks a translator reads.

/// A malformed container.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("at byte offset {offset:#x}: {what}")]
pub struct ContainerError {
    pub offset: usize,
    pub what: String,
}
