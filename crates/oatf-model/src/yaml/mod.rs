//! YAML reading and writing (feature `yaml`).

pub(crate) mod de;
pub(crate) mod emit;
pub(crate) mod node;
mod float;
mod scalar;
