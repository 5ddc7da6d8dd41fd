//! The integration tests of `oatf-conformance`, one binary: each module checks one behaviour. They read
//! the repository's `conformance/`, `examples/` and `third_party/` directories, which the published
//! package does not hold, so the package leaves `tests/` out.
#![allow(clippy::unwrap_used, reason = "test setup failures fail the test")]

mod support;

mod corpus;
mod examples;
mod live;
mod nothing_lost;
mod runner_policy;
mod upstream_samples;
mod yaml_shape;
