//! Metering of a program: the syntax tree is rewritten once at compile time so that every call is
//! charged to the budgets of an evaluation (cost, produced bytes, comprehension iterations), and
//! the functions that charge them (their counters are per evaluation: [`crate::budget`]).

use std::collections::HashMap;

use cel::common::ast::{CallExpr, ComprehensionExpr, EntryExpr, Expr, IdedExpr, LiteralValue};
use cel::common::types::{CelInt, CelList, CelMap, CelString};
use cel::common::value::{CowVal, Val};
use cel::{ExecutionError, FunctionContext};

use crate::budget;

/// The function wrapped around the result of every function and operator call: charges its size to
/// the evaluation's [`CelLimits::max_produced_bytes`].
pub(crate) const PRODUCED_FUNCTION: &str = "@oatf_charge_produced";
/// The function wrapped around every argument of a function or operator call: charges its size to
/// the evaluation's [`CelLimits::max_cost`].
pub(crate) const COST_FUNCTION: &str = "@oatf_charge_cost";

/// The function wrapped around an element a comprehension's step appends to its list (`map`,
/// `filter`): charges its [`Copied`] to the evaluation's [`CelLimits::max_cost`] and
/// [`CelLimits::max_produced_bytes`].
pub(crate) const COPY_FUNCTION: &str = "@oatf_charge_copy";

/// The cost units of copying one value, besides its text (D-330): the `cel` crate copies a bound
/// or appended list element by element, each copy an allocation and later a free, several times
/// the work of comparing or walking one element (what a unit of [`deep_size`] stands for).
pub(crate) const COPY_WEIGHT: usize = 8;

/// The function wrapped around the target of `replace`, `join` and `split`, with their arguments:
/// charges the worst-case size of the result to [`CelLimits::max_produced_bytes`] before the call.
pub(crate) const PRECHECK_FUNCTION: &str = "@oatf_charge_worst_case";

/// Operators whose operands are not walked (logic on booleans, indexing) and whose results are
/// existing values or booleans: not metered.
fn unmetered(function: &str) -> bool {
    matches!(
        function,
        "_&&_" | "_||_" | "_?_:_" | "!_" | "@not_strictly_false" | "_[_]" | "_[?_]" | "-_"
    ) || function.starts_with("@oatf_")
}

fn wrap(function: &str, expr: &mut IdedExpr) {
    let inner = std::mem::take(expr);
    *expr = IdedExpr {
        id: inner.id,
        expr: Expr::Call(CallExpr {
            func_name: function.to_owned(),
            target: None,
            args: vec![inner],
        }),
    };
}

/// Meters `expr` (see [`CelLimits::max_cost`] and [`CelLimits::max_produced_bytes`]): every argument
/// of a call (its target too) is wrapped in [`COST_FUNCTION`], every call in [`PRODUCED_FUNCTION`].
/// Literals are not wrapped (they are part of the bounded expression). The loop steps of
/// comprehensions keep the shapes the `cel` crate recognizes (see [`meter_step`]). The tree is at
/// most [`CelLimits::max_ast_depth`] deep, so recursion is bounded.
pub(crate) fn meter(expr: &mut IdedExpr) {
    match &mut expr.expr {
        Expr::Call(call) => {
            let metered = !unmetered(&call.func_name);
            if let Some(target) = call.target.as_deref_mut() {
                meter(target);
                if metered && !matches!(target.expr, Expr::Literal(_)) {
                    wrap(COST_FUNCTION, target);
                }
            }
            for arg in &mut call.args {
                meter(arg);
                if metered && !matches!(arg.expr, Expr::Literal(_)) {
                    wrap(COST_FUNCTION, arg);
                }
            }
            // Functions whose one call can produce far more than their operands (`s.replace("", t)`,
            // a `join` of a list holding one large string many times, `split` into one string per
            // character) are charged their worst case before they run.
            if metered
                && matches!(call.func_name.as_str(), "replace" | "join" | "split")
                && let Some(target) = call.target.as_deref_mut()
            {
                let inner = std::mem::take(target);
                let mut args = vec![inner];
                args.extend(call.args.iter().cloned());
                *target = IdedExpr {
                    id: args[0].id,
                    expr: Expr::Call(CallExpr {
                        func_name: PRECHECK_FUNCTION.to_owned(),
                        target: None,
                        args,
                    }),
                };
            }
            // Comparisons, membership and tests give a boolean or a number: nothing to charge.
            let small_result = matches!(
                call.func_name.as_str(),
                "_==_"
                    | "_!=_"
                    | "_<_"
                    | "_<=_"
                    | "_>_"
                    | "_>=_"
                    | "@in"
                    | "size"
                    | "contains"
                    | "startsWith"
                    | "endsWith"
                    | "matches"
                    | "has"
            );
            if metered && !small_result {
                wrap(PRODUCED_FUNCTION, expr);
            }
        }
        Expr::Comprehension(c) => {
            let accu = c.accu_var.clone();
            meter(&mut c.iter_range);
            meter(&mut c.accu_init);
            meter_step(&mut c.loop_cond, &accu);
            meter_step(&mut c.loop_step, &accu);
            meter(&mut c.result);
        }
        Expr::List(list) => list.elements.iter_mut().for_each(meter),
        Expr::Map(map) => meter_entries(&mut map.entries),
        Expr::Struct(s) => meter_entries(&mut s.entries),
        Expr::Select(select) => meter(&mut select.operand),
        Expr::Ident(_) | Expr::Literal(_) | Expr::Unspecified => {}
    }
}

/// Meters a comprehension's loop condition or step without changing its shape: `accu && x`,
/// `accu || x`, `accu + [x]` and `c ? accu + [x] : accu` keep their operators, the accumulator and
/// the list literal; what they combine (`x`, `c`) is metered, and an appended `x` is charged its
/// [`Copied`] to the cost and produced-bytes budgets. The list the step appends to is the comprehension's own, charged
/// by the iteration budget.
fn meter_step(expr: &mut IdedExpr, accu: &str) {
    match &mut expr.expr {
        Expr::Call(call)
            if call.target.is_none()
                && matches!(call.func_name.as_str(), "_&&_" | "_||_" | "_+_" | "_?_:_") =>
        {
            for arg in &mut call.args {
                match &mut arg.expr {
                    Expr::Ident(name) if name == accu => {}
                    // The element the step appends is copied into the accumulator: charged as a
                    // copy (`copy_budget`).
                    Expr::List(list) => {
                        for element in &mut list.elements {
                            meter(element);
                            if !matches!(element.expr, Expr::Literal(_)) {
                                wrap(COPY_FUNCTION, element);
                            }
                        }
                    }
                    Expr::Call(_) => meter_step(arg, accu),
                    _ => meter(arg),
                }
            }
        }
        _ => meter(expr),
    }
}

fn meter_entries(entries: &mut [cel::common::ast::IdedEntryExpr]) {
    for entry in entries {
        match &mut entry.expr {
            EntryExpr::StructField(field) => meter(&mut field.value),
            EntryExpr::MapEntry(e) => {
                meter(&mut e.key);
                meter(&mut e.value);
            }
        }
    }
}

/// The size of a value for the budgets: a string or bytes its length in bytes (not its code points:
/// counting them is linear), a list or map its element count times `per_element`, anything else 1.
fn value_size(value: &dyn Val, per_element: usize) -> usize {
    if let Some(s) = value.downcast_ref::<CelString<'_>>() {
        s.inner().len()
    } else if let Some(b) = value.downcast_ref::<cel::common::types::CelBytes<'_>>() {
        b.inner().len()
    } else if let Some(sizer) = value.as_sizer() {
        usize::try_from(*sizer.size().inner())
            .unwrap_or(usize::MAX)
            .saturating_mul(per_element)
    } else {
        1
    }
}

/// The size of a value for the cost budget (D-127): a string or bytes its length in bytes, a list
/// the sum of its elements' sizes and a map of its values' sizes, each at least 1, anything else 1:
/// what comparing, searching or copying the value may touch, nested parts included. The recursion
/// follows the value's nesting, at most the message's 128 levels plus the expression's.
///
/// The walk stops once the size is past `cap` (the budget left) and answers a size past it: so
/// measuring a value costs at most what the budget allows, however large the value is.
pub(crate) fn deep_size(value: &dyn Val, cap: usize) -> usize {
    if let Some(s) = value.downcast_ref::<CelString<'_>>() {
        s.inner().len()
    } else if let Some(b) = value.downcast_ref::<cel::common::types::CelBytes<'_>>() {
        b.inner().len()
    } else if let Some(list) = value.downcast_ref::<CelList<'_>>() {
        sum_within(list.inner().iter().map(|item| item.as_ref()), cap)
    } else if let Some(map) = value.downcast_ref::<CelMap<'_>>() {
        sum_within(map.inner().values().map(|item| item.as_ref()), cap)
    } else {
        value_size(value, 1)
    }
}

/// The sum of the [`deep_size`]s of `items`, each at least 1, walked until it is past `cap`.
fn sum_within<'v>(items: impl Iterator<Item = &'v dyn Val>, cap: usize) -> usize {
    let mut total: usize = 0;
    for item in items {
        total = total.saturating_add(deep_size(item, cap - total).max(1));
        if total > cap {
            break;
        }
    }
    total
}

/// What copying a value copies (D-330): its values (the value itself and each element of a list or
/// value of a map, nested parts included) and the bytes of its strings and bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Copied {
    values: usize,
    bytes: usize,
}

/// The budget left to a walk of [`Copied::add`]: cost units and produced bytes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Left {
    pub(crate) cost: usize,
    pub(crate) produced: usize,
}

impl Copied {
    /// The copy's cost units: [`COPY_WEIGHT`] per value, plus its bytes.
    pub(crate) fn cost(self) -> usize {
        self.values
            .saturating_mul(COPY_WEIGHT)
            .saturating_add(self.bytes)
    }

    /// The bytes the copy produces: 48 per value (as [`produced_size`] counts a list's
    /// elements), plus its bytes.
    pub(crate) fn produced(self) -> usize {
        self.values.saturating_mul(48).saturating_add(self.bytes)
    }

    fn past(self, left: Left) -> bool {
        self.cost() > left.cost || self.produced() > left.produced
    }

    /// Adds the copy of `value`, walking it only until the total is past what is `left`: so
    /// measuring a copy costs at most what the budgets allow, however large the value. The
    /// recursion follows the value's nesting, at most the message's 128 levels plus the
    /// expression's.
    pub(crate) fn add(&mut self, value: &dyn Val, left: Left) {
        self.values = self.values.saturating_add(1);
        if let Some(s) = value.downcast_ref::<CelString<'_>>() {
            self.bytes = self.bytes.saturating_add(s.inner().len());
        } else if let Some(b) = value.downcast_ref::<cel::common::types::CelBytes<'_>>() {
            self.bytes = self.bytes.saturating_add(b.inner().len());
        } else if let Some(list) = value.downcast_ref::<CelList<'_>>() {
            self.add_all(list.inner().iter().map(|item| item.as_ref()), left);
        } else if let Some(map) = value.downcast_ref::<CelMap<'_>>() {
            self.add_all(map.inner().values().map(|item| item.as_ref()), left);
        }
    }

    fn add_all<'v>(&mut self, items: impl Iterator<Item = &'v dyn Val>, left: Left) {
        for item in items {
            if self.past(left) {
                return;
            }
            self.add(item, left);
        }
    }
}

/// The [`COPY_FUNCTION`] of one evaluation: charges the [`Copied`] of its argument to the cost
/// budget of `max_cost` and to the produced-bytes budget of `max_produced` (an appended copy is
/// kept in the comprehension's result), and passes the value through unchanged.
pub(crate) fn copy_budget(max_cost: usize, max_produced: usize) -> BuiltinFunction {
    Box::new(move |ftx: &mut FunctionContext<'_, '_>| {
        let Some(value) = ftx.args.pop() else {
            return Err(ExecutionError::invalid_argument_count(1, 0));
        };
        let left = Left {
            cost: budget::left(budget::Counter::Cost, max_cost),
            produced: budget::left(budget::Counter::Produced, max_produced),
        };
        let mut copied = Copied::default();
        copied.add(value.as_ref(), left);
        if !budget::charge(budget::Counter::Cost, copied.cost(), max_cost) {
            return Err(cost_exceeded(max_cost));
        }
        if !budget::charge(budget::Counter::Produced, copied.produced(), max_produced) {
            return Err(produced_exceeded(max_produced));
        }
        Ok(value)
    })
}

/// The size of a value for the produced-bytes budget: [`value_size`] with 48 bytes per element
/// (counted, not walked: the budget left does not matter).
pub(crate) fn produced_size(value: &dyn Val, _cap: usize) -> usize {
    value_size(value, 48)
}

/// The worst-case size in bytes of `target.replace(old, new)`, `target.join(sep)` and
/// `target.split(sep)`, from the target and the arguments (`args[0]` is the target); strings
/// produced by `split` are charged 48 bytes each besides their text.
fn worst_case(args: &[CowVal<'_, '_>]) -> usize {
    let text = |i: usize| {
        args.get(i)
            .and_then(|v| v.downcast_ref::<CelString<'_>>())
            .map_or(0, |s| s.inner().len())
    };
    let target = args.first().map(|v| v.as_ref());
    if let Some(list) = target.and_then(|v| v.downcast_ref::<CelList<'_>>()) {
        // join: every element and a separator between each two.
        let items: usize = list
            .inner()
            .iter()
            .map(|item| value_size(item.as_ref(), 48))
            .fold(0, usize::saturating_add);
        return items.saturating_add(list.inner().len().saturating_mul(text(1)));
    }
    let len = text(0);
    match args.len() {
        // split(sep) and split(sep, n): at most one piece per separator or per character.
        2 | 3
            if args
                .get(2)
                .is_none_or(|v| v.downcast_ref::<CelString<'_>>().is_none()) =>
        {
            let pieces = len / text(1).max(1) + 1;
            len.saturating_add(pieces.saturating_mul(48))
        }
        // replace(old, new) and replace(old, new, n): at most one replacement per occurrence of
        // `old`, or per character and at both ends for an empty `old`.
        _ => {
            let occurrences = len / text(1).max(1) + 1;
            len.saturating_add(occurrences.saturating_mul(text(2)))
        }
    }
}

/// A budget function of one evaluation: charges the size of its argument (by `measure`, given the
/// budget left) to a total of at most `max` and passes the value through unchanged.
pub(crate) fn size_budget(
    function: &'static str,
    max: usize,
    what: &'static str,
    option: &'static str,
    measure: fn(&dyn Val, usize) -> usize,
    counter: budget::Counter,
) -> BuiltinFunction {
    Box::new(move |ftx: &mut FunctionContext<'_, '_>| {
        let value = if function == PRECHECK_FUNCTION {
            let size = worst_case(&ftx.args);
            if ftx.args.is_empty() {
                return Err(ExecutionError::invalid_argument_count(1, 0));
            }
            (ftx.args.swap_remove(0), size)
        } else {
            let Some(value) = ftx.args.pop() else {
                return Err(ExecutionError::invalid_argument_count(1, 0));
            };
            let size = measure(value.as_ref(), budget::left(counter, max));
            (value, size)
        };
        let (value, size) = value;
        if !budget::charge(counter, size, max) {
            return Err(size_exceeded(function, max, what, option));
        }
        Ok(value)
    })
}

/// The error of the budget function `function` when an evaluation would go over `max` (the
/// direct path gives the same, D-125).
fn size_exceeded(function: &str, max: usize, what: &str, option: &str) -> ExecutionError {
    ExecutionError::function_error(
        function,
        format!(
            "the expression needs more than the limit of {max} {what} in one evaluation \
             (CelLimits::{option})"
        ),
    )
}

/// The error of [`COST_FUNCTION`] over `max` ([`CelLimits::max_cost`]).
pub(crate) fn cost_exceeded(max: usize) -> ExecutionError {
    size_exceeded(COST_FUNCTION, max, COST_WHAT, "max_cost")
}

/// The error of [`PRODUCED_FUNCTION`] over `max` ([`CelLimits::max_produced_bytes`]).
pub(crate) fn produced_exceeded(max: usize) -> ExecutionError {
    size_exceeded(PRODUCED_FUNCTION, max, PRODUCED_WHAT, "max_produced_bytes")
}

/// What the cost budget counts, in its error.
pub(crate) const COST_WHAT: &str = "cost";
/// What the produced-bytes budget counts, in its error.
pub(crate) const PRODUCED_WHAT: &str = "bytes of values produced";

/// The error of [`CHARGE_FUNCTION`] over `max` ([`CelLimits::max_iterations`]).
pub(crate) fn iterations_exceeded(max: usize) -> ExecutionError {
    ExecutionError::function_error(
        CHARGE_FUNCTION,
        format!(
            "the expression needs more than the limit of {max} comprehension iterations \
             (CelLimits::max_iterations)"
        ),
    )
}

/// The function wrapped around the range of every comprehension; `@` cannot start a CEL identifier,
/// so an expression can neither call nor shadow it.
pub(crate) const CHARGE_FUNCTION: &str = "@oatf_charge_iterations";

/// The weight of one iteration of a comprehension nested in `depth - 1` others (D-127): one for
/// binding the variable, and the nodes of its loop condition and step, where a nested
/// comprehension counts its node, its range and its initial value (its own loop is charged when
/// it starts), each node `depth` times (the interpreter looks names and functions up through one
/// scope per enclosing comprehension). Computed on the expression as parsed, before metering, so
/// that both paths charge the same.
fn iteration_weight(c: &ComprehensionExpr, depth: usize) -> usize {
    let mut nodes: usize = 0;
    let mut stack = vec![&c.loop_cond, &c.loop_step];
    while let Some(node) = stack.pop() {
        nodes += 1;
        match &node.expr {
            Expr::Call(call) => {
                stack.extend(call.target.as_deref());
                stack.extend(call.args.iter());
            }
            Expr::Comprehension(inner) => stack.extend([&inner.iter_range, &inner.accu_init]),
            Expr::List(list) => stack.extend(list.elements.iter()),
            Expr::Map(map) => stack.extend(map.entries.iter().flat_map(entry_children)),
            Expr::Struct(s) => stack.extend(s.entries.iter().flat_map(entry_children)),
            Expr::Select(select) => stack.push(&select.operand),
            Expr::Ident(_) | Expr::Literal(_) | Expr::Unspecified => {}
        }
    }
    nodes.saturating_mul(depth).saturating_add(1)
}

fn entry_children(entry: &cel::common::ast::IdedEntryExpr) -> Vec<&IdedExpr> {
    match &entry.expr {
        EntryExpr::StructField(field) => vec![&field.value],
        EntryExpr::MapEntry(e) => vec![&e.key, &e.value],
    }
}

/// The iteration weight of every comprehension of `expr` ([`iteration_weight`] at its nesting
/// depth), by the comprehension's id: the one table both paths charge from.
pub(crate) fn iteration_weights(expr: &IdedExpr) -> HashMap<u64, usize> {
    let mut weights = HashMap::new();
    // Each node with the number of comprehensions whose loop encloses it.
    let mut stack = vec![(expr, 0)];
    while let Some((node, depth)) = stack.pop() {
        match &node.expr {
            Expr::Call(call) => {
                stack.extend(call.target.as_deref().map(|t| (t, depth)));
                stack.extend(call.args.iter().map(|a| (a, depth)));
            }
            Expr::Comprehension(c) => {
                weights.insert(node.id, iteration_weight(c, depth + 1));
                stack.extend([(&c.iter_range, depth), (&c.accu_init, depth)]);
                stack.extend([
                    (&c.loop_cond, depth + 1),
                    (&c.loop_step, depth + 1),
                    (&c.result, depth + 1),
                ]);
            }
            Expr::List(list) => stack.extend(list.elements.iter().map(|e| (e, depth))),
            Expr::Map(map) => stack.extend(
                map.entries
                    .iter()
                    .flat_map(entry_children)
                    .map(|e| (e, depth)),
            ),
            Expr::Struct(s) => stack.extend(
                s.entries
                    .iter()
                    .flat_map(entry_children)
                    .map(|e| (e, depth)),
            ),
            Expr::Select(select) => stack.push((&select.operand, depth)),
            Expr::Ident(_) | Expr::Literal(_) | Expr::Unspecified => {}
        }
    }
    weights
}

/// Wraps the range of every comprehension of `expr` in [`CHARGE_FUNCTION`], with the
/// comprehension's weight from `weights` ([`iteration_weights`]) as a second argument. The loop
/// condition and step are left alone: the `cel` crate recognizes their shapes to run
/// `all`/`exists`/`map`/`filter` efficiently. The tree is at most [`CelLimits::max_ast_depth`]
/// deep, so recursion is bounded.
pub(crate) fn charge_comprehensions(expr: &mut IdedExpr, weights: &HashMap<u64, usize>) {
    let id = expr.id;
    match &mut expr.expr {
        Expr::Call(call) => {
            if let Some(target) = call.target.as_deref_mut() {
                charge_comprehensions(target, weights);
            }
            for arg in &mut call.args {
                charge_comprehensions(arg, weights);
            }
        }
        Expr::Comprehension(c) => {
            for child in [
                &mut c.iter_range,
                &mut c.accu_init,
                &mut c.loop_cond,
                &mut c.loop_step,
                &mut c.result,
            ] {
                charge_comprehensions(child, weights);
            }
            let range = std::mem::take(&mut c.iter_range);
            // Every comprehension of the metered tree is one of the parsed tree, with its id.
            let weight = weights.get(&id).copied().unwrap_or(1);
            let weight = IdedExpr {
                id: range.id,
                expr: Expr::Literal(LiteralValue::Int(
                    i64::try_from(weight).unwrap_or(i64::MAX).into(),
                )),
            };
            c.iter_range = IdedExpr {
                id: range.id,
                expr: Expr::Call(CallExpr {
                    func_name: CHARGE_FUNCTION.to_owned(),
                    target: None,
                    args: vec![range, weight],
                }),
            };
        }
        Expr::List(list) => {
            for element in &mut list.elements {
                charge_comprehensions(element, weights);
            }
        }
        Expr::Map(map) => charge_entries(&mut map.entries, weights),
        Expr::Struct(s) => charge_entries(&mut s.entries, weights),
        Expr::Select(select) => charge_comprehensions(&mut select.operand, weights),
        Expr::Ident(_) | Expr::Literal(_) | Expr::Unspecified => {}
    }
}

fn charge_entries(entries: &mut [cel::common::ast::IdedEntryExpr], weights: &HashMap<u64, usize>) {
    for entry in entries {
        match &mut entry.expr {
            EntryExpr::StructField(field) => charge_comprehensions(&mut field.value, weights),
            EntryExpr::MapEntry(e) => {
                charge_comprehensions(&mut e.key, weights);
                charge_comprehensions(&mut e.value, weights);
            }
        }
    }
}

/// The cost of running a comprehension's loop over `range` (D-127, D-330): binding each element
/// (a copy in the `cel` crate: a list element the cost of its [`Copied`]; a map key 1) and
/// evaluating the loop's condition and step, `weight` nodes, for each. The elements are walked only
/// until their cost is past `cap`, the budget left.
pub(crate) fn loop_cost(range: &dyn Val, len: usize, weight: usize, cap: usize) -> usize {
    let binding = match range.downcast_ref::<CelList<'_>>() {
        Some(list) => {
            let mut copied = Copied::default();
            let left = Left {
                cost: cap,
                produced: usize::MAX,
            };
            copied.add_all(list.inner().iter().map(|item| item.as_ref()), left);
            copied.cost()
        }
        None => len,
    };
    binding.saturating_add(len.saturating_mul(weight))
}

/// The [`CHARGE_FUNCTION`] of one evaluation: charges the size of each list or map a comprehension
/// is about to iterate to a budget of `max` iterations, then its [`loop_cost`] (with the weight,
/// its second argument) to the cost budget of `max_cost` (D-127), and passes the range through
/// unchanged.
pub(crate) fn iteration_budget(max: usize, max_cost: usize) -> BuiltinFunction {
    Box::new(move |ftx: &mut FunctionContext<'_, '_>| {
        let weight = ftx
            .args
            .pop()
            .and_then(|w| w.downcast_ref::<CelInt>().map(|w| *w.inner()))
            .and_then(|w| usize::try_from(w).ok());
        let (Some(range), Some(weight)) = (ftx.args.pop(), weight) else {
            return Err(ExecutionError::invalid_argument_count(2, 0));
        };
        if range.as_iterable().is_some() {
            let size = range.as_sizer().map_or(0, |s| {
                usize::try_from(*s.size().inner()).unwrap_or(usize::MAX)
            });
            if !budget::charge(budget::Counter::Iterations, size, max) {
                return Err(iterations_exceeded(max));
            }
            let cost = loop_cost(
                range.as_ref(),
                size,
                weight,
                budget::left(budget::Counter::Cost, max_cost),
            );
            if !budget::charge(budget::Counter::Cost, cost, max_cost) {
                return Err(cost_exceeded(max_cost));
            }
        }
        Ok(range)
    })
}

/// A function registered with raw access to its arguments (the `cel` crate's `Function`, which it
/// does not export by name).
pub(crate) type BuiltinFunction = Box<
    dyn for<'c, 'a> Fn(&mut FunctionContext<'c, 'a>) -> Result<CowVal<'c, 'a>, ExecutionError>
        + Send
        + Sync,
>;
