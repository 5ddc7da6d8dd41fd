//! The direct path: a subset of CEL evaluated straight on the `serde_json` values, without
//! converting them and without the `cel` crate's interpreter, exact or abstaining.
//!
//! When a program is compiled, its (unmetered) syntax tree is translated into [`Node`]s if every
//! part of it is in the subset: literals, `message`, the declared variables and comprehension
//! variables, field selection, `has()`, constant indexes, `&&`, `||`, `!`, `?:`, `==`, `!=`, `<`,
//! `<=`, `>`, `>=`, `+`, `-`, `*`, `in`, `size`, `contains`, `startsWith`, `endsWith`, `matches`,
//! and the `exists` and `all` macros, nested or not. Anything else leaves the program without a
//! direct path.
//!
//! An evaluation on the direct path returns `Some(outcome)` only when it is certain the
//! interpreter gives the same outcome: `Ok(result)`, or one of the errors it reproduces (D-125): a
//! budget of [`crate::metering`] going over its limit, or an error of `matches`. In every other
//! case (a missing key, a type the subset does not decide, any other error, an error after a loop
//! over a map, a message nested too deep) it returns `None` and the caller runs the interpreter,
//! whose answer (result or error, with its message) is the one reported. The argument, for each
//! rule:
//! - Errors: the direct path abstains on every error it does not reproduce, so when it answers,
//!   the interpreter's evaluation raises no other error; it follows the `cel` crate's rules for the
//!   ones it reproduces: `&&` and `||` evaluate the right operand unless the left one decides, the
//!   right operand's error wins, an error on the left is absorbed by a deciding right operand and
//!   kept otherwise; `all` and `exists` over a list keep a body's error while the loop goes on (the
//!   last one wins), drop it at a deciding body, and end with it; any other node passes its
//!   operand's error on. Without errors CEL is plain boolean logic: `&&`, `||`, `?:`, `exists` and
//!   `all` short-circuit exactly where the interpreter does, so both evaluate the same
//!   subexpressions, in the same order (a call's arguments before its target).
//! - Values: JSON integers are `int` (`uint` beyond `i64`), other numbers `double`, as in
//!   [`crate::convert`]; equality and ordering are decided only between values whose CEL semantics
//!   are spelled out below (same kinds, and unequal kinds of scalars, which the `cel` crate
//!   compares as unequal), anything else abstains; arithmetic only on numbers of one kind, an
//!   integer overflow abstaining.
//! - Budgets: the charges of the metered tree ([`crate::metering`]) are counted on the same
//!   values, in the same order: every non-literal argument of a metered call its size, every
//!   arithmetic result one produced byte, every comprehension its range's length in iterations and
//!   its loop cost (D-127). A charge over a limit is the budget's error and adds nothing, as in the
//!   interpreter; so the direct path's own work is bounded by the same limits, and its totals are
//!   the interpreter's at every point. A comprehension over a map, which the interpreter iterates
//!   in hash order and may stop early, is evaluated for every key: the result and the charges then
//!   cover every order, the charges only bounding the interpreter's, so an error after it is left
//!   to the interpreter.
//! - Depth: a message or variable nested deeper than the interpreter converts makes it abstain.
//!
//! Modules: `tree.rs` translates the syntax tree into [`Node`]s (and owns the charges of
//! literals), `run.rs` is one evaluation of such a tree, `guard.rs` the literal guard (D-95); this
//! module binds the values and chooses the tree.
//!
//! The randomized differential tests `direct::tests::direct_path_agrees_with_the_interpreter` and
//! `direct::tests::errors` compare both paths, results and errors, on generated expressions and
//! messages.

use std::collections::HashMap;

use cel::ExecutionError;
use cel::common::ast::IdedExpr;
use serde_json::Value;

use crate::limits::CelLimits;
use crate::metering::NAMESPACES;
use crate::regex_cache::RegexCache;
pub(crate) use guard::Guard;
use run::{Run, V, bound};
use tree::{Node, Scope};

/// A compiled expression of the subset.
#[derive(Debug)]
pub(crate) struct Direct {
    root: Node,
    /// Slots: `message`, the declared variables, then the comprehension variables.
    slots: usize,
    variables: Vec<String>,
    /// The literal guard, for an expression without variables that searches the message's
    /// strings for literals (D-95).
    pub(crate) guard: Option<Guard>,
}

impl Direct {
    /// The direct form of `expr` with `message` and `variables` bound, if it is in the subset.
    pub(crate) fn of(
        expr: &IdedExpr,
        variables: &[&str],
        limits: &CelLimits,
        weights: &HashMap<u64, usize>,
    ) -> Option<Direct> {
        let mut names = vec![String::from("message")];
        names.extend(variables.iter().map(|v| (*v).to_owned()));
        // A name with a dot could be resolved as a qualified name by the interpreter, a namespace
        // name as a function call: both stay with the interpreter.
        if names
            .iter()
            .any(|n| n.contains('.') || NAMESPACES.contains(&n.as_str()))
        {
            return None;
        }
        let mut scope = Scope {
            slots: names.len(),
            names,
            weights,
        };
        let root = Node::of(expr, &mut scope)?;
        let guard = if variables.is_empty() {
            Guard::of(&root, scope.slots, limits)
        } else {
            None
        };
        Some(Direct {
            root,
            slots: scope.slots,
            variables: variables.iter().map(|v| (*v).to_owned()).collect(),
            guard,
        })
    }

    /// Evaluates the residual of the guard (D-95) with `message` bound: on a message none of
    /// whose strings contains a needle, `Some(result)` is the direct path's (and so the
    /// interpreter's) `Ok(result)`; `None` when there is no guard, the direct path abstains or
    /// the outcome is an error (the whole expression then gives it).
    pub(crate) fn evaluate_residual(
        &self,
        message: &Value,
        limits: &CelLimits,
        regexes: &RegexCache,
    ) -> Option<bool> {
        let guard = self.guard.as_ref()?;
        self.run_tree(guard.residual(), message, &[], limits, regexes, false)?
            .ok()
    }

    /// Evaluates on the direct path: `Some(outcome)` when it is the interpreter's outcome, a
    /// result or one of the errors the direct path reproduces (D-125), as the `cel` crate's error
    /// for [`crate::program`] to report; `None` when the interpreter must decide.
    pub(crate) fn evaluate(
        &self,
        message: &Value,
        variables: &[(&str, &Value)],
        limits: &CelLimits,
        regexes: &RegexCache,
    ) -> Option<Result<bool, ExecutionError>> {
        self.run_tree(&self.root, message, variables, limits, regexes, true)
    }

    fn run_tree(
        &self,
        root: &Node,
        message: &Value,
        variables: &[(&str, &Value)],
        limits: &CelLimits,
        regexes: &RegexCache,
        answer_errors: bool,
    ) -> Option<Result<bool, ExecutionError>> {
        const NULL: Value = Value::Null;
        // The slots live on the stack for the usual handful (message, a few variables, nested
        // comprehensions): no allocation per evaluation.
        let mut inline = [V::Null; INLINE_SLOTS];
        let mut heap = Vec::new();
        let slots: &mut [V<'_>] = if self.slots <= INLINE_SLOTS {
            inline.get_mut(..self.slots)?
        } else {
            heap.resize(self.slots, V::Null);
            &mut heap
        };
        *slots.first_mut()? = bound(message)?;
        for (slot, name) in slots.iter_mut().skip(1).zip(&self.variables) {
            let value = variables
                .iter()
                .find(|(n, _)| n == name)
                .map_or(&NULL, |(_, v)| *v);
            *slot = bound(value)?;
        }
        Run::new(slots, limits, regexes, answer_errors).finish(root)
    }
}

/// Slots kept on the stack (more use a vector).
const INLINE_SLOTS: usize = 8;

mod guard;
mod run;
#[cfg(test)]
mod tests;
mod tree;
