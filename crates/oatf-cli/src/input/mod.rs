//! Inputs: reading documents and traces safely, and finding the documents of a threat library.

pub(crate) mod library;
pub(crate) mod safe_fs;
pub(crate) mod source;
pub(crate) mod walk;
