//! Metering of a program: the syntax tree is rewritten once at compile time so that every call is
//! charged to the budgets of an evaluation (cost, produced bytes, comprehension iterations). The
//! functions that charge them, and the measures of values they charge, are in [`functions`]
//! (their counters are per evaluation: [`crate::budget`]).

use std::collections::HashMap;

use cel::common::ast::{
    CallExpr, ComprehensionExpr, EntryExpr, Expr, IdedExpr, LiteralValue, operators,
};

mod functions;

#[cfg(doc)]
use crate::CelLimits;

pub(crate) use functions::*;

/// The function wrapped around the result of every function and operator call: charges its size to
/// the evaluation's [`CelLimits::max_produced_bytes`].
pub(crate) const PRODUCED_FUNCTION: &str = "@oatf_charge_produced";
/// The function wrapped around every argument of a function or operator call: charges its size to
/// the evaluation's [`CelLimits::max_cost`].
pub(crate) const COST_FUNCTION: &str = "@oatf_charge_cost";

/// The function wrapped around every operand of `==`, `!=` and `in`: charges its
/// [`compared_size`] to the evaluation's [`CelLimits::max_cost`] (D-353).
pub(crate) const COMPARE_FUNCTION: &str = "@oatf_charge_compared";

/// The cost units of each value of a list or map operand of `==`, `!=` or `in` (D-353): the `cel`
/// crate compares boxed values through dynamic calls, a list or map inside a list each time, about
/// 40 ns a value where measuring one takes about 12 (`hostile_cel`, "comparing"); a number or a
/// string alone is compared at once.
pub(crate) const COMPARE_WEIGHT: usize = 3;

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

/// The function wrapped around the operand of `a.?f` and `a[?k]`, with the key: charges the
/// [`Copied`] of the element the optional will hold, as [`COPY_FUNCTION`] does, and passes the
/// operand through unchanged.
pub(crate) const ELEMENT_FUNCTION: &str = "@oatf_charge_element";

/// Names that the `cel` crate's environment uses as function namespaces (`strings.quote`,
/// `optional.of`): the target of a call on such a name is the namespace, not a value, so it is
/// not metered (a metered target is no longer a name, and the call no longer finds the
/// function); a call on a variable of that name may be a call of the namespaced function, so
/// expressions binding such a name keep the interpreter (`crate::direct`).
pub(crate) const NAMESPACES: [&str; 2] = ["strings", "optional"];

/// Whether `call` calls a namespaced function (`optional.of(x)`): its target is one of the
/// [`NAMESPACES`].
fn namespaced(call: &CallExpr) -> bool {
    call.target.as_deref().is_some_and(
        |target| matches!(&target.expr, Expr::Ident(name) if NAMESPACES.contains(&name.as_str())),
    )
}

/// The function that charges each argument of `call` (`namespaced` says whether it calls a
/// namespaced function): a function that copies its arguments into its result (`optional.of(x)`
/// holds a copy of `x`) charges them as copies ([`COPY_FUNCTION`], D-351), `==`, `!=` and `in`
/// as compared ([`COMPARE_FUNCTION`], D-353), any other by their size ([`COST_FUNCTION`]).
fn argument_charge(call: &CallExpr, namespaced: bool) -> &'static str {
    match call.func_name.as_str() {
        "of" | "ofNonZeroValue" if namespaced => COPY_FUNCTION,
        operators::EQUALS | operators::NOT_EQUALS | operators::IN => COMPARE_FUNCTION,
        _ => COST_FUNCTION,
    }
}

/// Wraps every element of a list literal and every key and value of a map literal that is not a
/// literal itself in [`COPY_FUNCTION`]: the `cel` crate copies them into the new list or map, and
/// the copy is charged before it is made (D-351).
fn charge_copies<'e>(elements: impl Iterator<Item = &'e mut IdedExpr>) {
    for element in elements {
        meter(element);
        if !matches!(element.expr, Expr::Literal(_)) {
            wrap(COPY_FUNCTION, element);
        }
    }
}

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
            let namespaced = namespaced(call);
            if let Some(target) = call.target.as_deref_mut()
                && !namespaced
            {
                meter(target);
                if metered && !matches!(target.expr, Expr::Literal(_)) {
                    wrap(COST_FUNCTION, target);
                }
            }
            let charge = argument_charge(call, namespaced);
            for arg in &mut call.args {
                meter(arg);
                if metered && !matches!(arg.expr, Expr::Literal(_)) {
                    wrap(charge, arg);
                }
            }
            // `a.?f` and `a[?k]` copy the element they find into an optional: charged as a copy
            // before it is made (D-351). The key is evaluated a second time for the charge.
            if matches!(
                call.func_name.as_str(),
                operators::OPT_SELECT | operators::OPT_INDEX
            ) && call.target.is_none()
                && let [operand, key] = call.args.as_mut_slice()
            {
                let container = std::mem::take(operand);
                *operand = IdedExpr {
                    id: container.id,
                    expr: Expr::Call(CallExpr {
                        func_name: ELEMENT_FUNCTION.to_owned(),
                        target: None,
                        args: vec![container, key.clone()],
                    }),
                };
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
        Expr::List(list) => charge_copies(list.elements.iter_mut()),
        Expr::Map(map) => {
            for entry in &mut map.entries {
                match &mut entry.expr {
                    EntryExpr::MapEntry(e) => charge_copies([&mut e.key, &mut e.value].into_iter()),
                    EntryExpr::StructField(field) => meter(&mut field.value),
                }
            }
        }
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
