//! Where validation checks the syntax of regular expressions (V-013, V-042) and JSONPath selectors
//! (V-015), D-190: [`BuiltInSyntax`] by default, or a [`SyntaxCheck`] installed with
//! [`ValidateOptions::with_syntax_check`](crate::ValidateOptions::with_syntax_check) that asks
//! elsewhere (the npm package's validation module asks its on-demand module, which answers with
//! [`BuiltInSyntax`]).
//!
//! ```
//! use oatf::syntax::{BuiltInSyntax, SyntaxCheck};
//! assert_eq!(BuiltInSyntax.capture_groups("id=(\\d+)"), Some(1));
//! ```

pub use oatf_model::{BuiltInSyntax, JsonPathSyntax, SyntaxCheck};
