//! The integration tests of the facade `oatf-sdk`, one binary: each module checks one behaviour of the
//! public API (`oatf::...`) on hostile input, at the documented limits, by property against a
//! reference evaluator, and on library-like documents (`tests/library/`).
#![allow(clippy::unwrap_used, reason = "test setup failures fail the test")]

#[cfg(feature = "cel")]
mod cel_budgets;
#[cfg(feature = "cel")]
mod cel_time_bounds;
#[cfg(all(feature = "yaml", feature = "cel"))]
mod hostile_input;
#[cfg(all(feature = "yaml", feature = "cel"))]
mod input_limits;
mod library_documents;
#[cfg(feature = "cel")]
mod literal_guard;
#[cfg(all(feature = "yaml", feature = "cel"))]
mod properties;
#[cfg(all(feature = "yaml", feature = "cel"))]
mod reference;
#[cfg(feature = "yaml")]
mod serialized_strings;
