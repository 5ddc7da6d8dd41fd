//! Helpers shared by the test modules: running a whole suite, the documents of the corpus and the
//! tables of `examples/README.md`.

pub(crate) mod documents;
pub(crate) mod readme_tables;
pub(crate) mod suite;
