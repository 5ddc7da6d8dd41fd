//! YAML reading and writing (feature `yaml`).

pub(crate) mod de;
pub(crate) mod emit;
mod float;
pub(crate) mod node;
mod scalar;
