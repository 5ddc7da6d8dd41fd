//! The functions a metered program calls to charge the budgets of an evaluation, and the measures
//! of the values they charge: a value's nested size, a copy, the worst case of a call.

use cel::common::types::{CelBytes, CelInt, CelList, CelMap, CelOptional, CelString, Kind};
use cel::common::value::{CowVal, Val};
use cel::{ExecutionError, FunctionContext};

use super::{
    CHARGE_FUNCTION, COMPARE_WEIGHT, COPY_WEIGHT, COST_FUNCTION, PRECHECK_FUNCTION,
    PRODUCED_FUNCTION,
};
#[cfg(doc)]
use super::{COPY_FUNCTION, ELEMENT_FUNCTION};
#[cfg(doc)]
use crate::CelLimits;
use crate::budget;

/// What a value is to the measures, found with one call for a scalar (its type's kind) and one more
/// for a string, bytes, a list, a map or an optional: trying each type in turn took up to six calls
/// a value, most of the time of measuring one (D-352).
#[derive(Clone, Copy)]
enum Shape<'b, 'v> {
    /// A string or bytes: its length in bytes.
    Text(usize),
    List(&'b CelList<'v>),
    Map(&'b CelMap<'v>),
    /// An optional: what it holds, if anything.
    Optional(Option<&'b (dyn Val + 'v)>),
    /// A number, a boolean, `null`, a type.
    Scalar,
    /// A value of that kind but another type than the `cel` crate's own (a list being built).
    Other,
}

fn shape<'b, 'v>(value: &'b (dyn Val + 'v)) -> Shape<'b, 'v> {
    let found = match value.get_type().kind() {
        Kind::String => value
            .downcast_ref::<CelString<'_>>()
            .map(|s| Shape::Text(s.inner().len())),
        Kind::Bytes => value
            .downcast_ref::<CelBytes<'_>>()
            .map(|b| Shape::Text(b.inner().len())),
        Kind::List => value.downcast_ref::<CelList<'_>>().map(Shape::List),
        Kind::Map => value.downcast_ref::<CelMap<'_>>().map(Shape::Map),
        Kind::Opaque => value
            .downcast_ref::<CelOptional<'_>>()
            .map(|o| Shape::Optional(o.option())),
        _ => Some(Shape::Scalar),
    };
    found.unwrap_or(Shape::Other)
}

/// The size of a value for the budgets: a string or bytes its length in bytes (not its code points:
/// counting them is linear), a list or map its element count times `per_element`, anything else 1.
fn value_size(value: &dyn Val, per_element: usize) -> usize {
    match shape(value) {
        Shape::Text(len) => len,
        Shape::Scalar | Shape::Optional(_) => 1,
        Shape::List(_) | Shape::Map(_) | Shape::Other => value.as_sizer().map_or(1, |sizer| {
            usize::try_from(*sizer.size().inner())
                .unwrap_or(usize::MAX)
                .saturating_mul(per_element)
        }),
    }
}

/// The size of a value for the cost budget (D-127): a string or bytes its length in bytes, a list
/// the sum of its elements' sizes and a map of its values' sizes, each at least 1, an optional
/// what it holds plus 1, anything else 1: what comparing, searching or copying the value may
/// touch, nested parts included. The recursion follows the value's nesting, at most the message's
/// 128 levels plus the expression's.
///
/// The walk stops once the size is past `cap` (the budget left) and answers a size past it: so
/// measuring a value costs at most what the budget allows, however large the value is.
pub(crate) fn deep_size(value: &dyn Val, cap: usize) -> usize {
    measure(value, shape(value), cap)
}

/// [`deep_size`] of `value`, whose shape is `shape`.
fn measure(value: &dyn Val, shape: Shape<'_, '_>, cap: usize) -> usize {
    match shape {
        Shape::Text(len) => len,
        Shape::List(list) => budget::sum_within(
            list.inner().iter().map(|item| item.as_ref()),
            cap,
            deep_size,
        ),
        Shape::Map(map) => budget::sum_within(
            map.inner().values().map(|item| item.as_ref()),
            cap,
            deep_size,
        ),
        Shape::Optional(Some(inner)) => deep_size(inner, cap.saturating_sub(1)).saturating_add(1),
        Shape::Optional(None) | Shape::Scalar => 1,
        Shape::Other => value_size(value, 1),
    }
}

/// The size of an operand of `==`, `!=` or `in` for the cost budget (D-353): a list's or a map's
/// [`deep_size`] times [`COMPARE_WEIGHT`], anything else its `deep_size`, walked until it is past
/// `cap` ([`compared`]).
pub(crate) fn compared_size(value: &dyn Val, cap: usize) -> usize {
    let shape = shape(value);
    match shape {
        Shape::List(_) | Shape::Map(_) | Shape::Other => {
            compared(cap, |cap| measure(value, shape, cap))
        }
        Shape::Text(_) | Shape::Optional(_) | Shape::Scalar => measure(value, shape, cap),
    }
}

/// The weighted size of a list or map compared (D-353), on both paths: `size` measured until it
/// is past `cap / COMPARE_WEIGHT`, times [`COMPARE_WEIGHT`], so exact when within `cap` and past it
/// otherwise.
pub(crate) fn compared(cap: usize, size: impl FnOnce(usize) -> usize) -> usize {
    size(cap / COMPARE_WEIGHT).saturating_mul(COMPARE_WEIGHT)
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
        match shape(value) {
            Shape::Text(len) => self.bytes = self.bytes.saturating_add(len),
            Shape::List(list) => self.add_all(list.inner().iter().map(|item| item.as_ref()), left),
            Shape::Map(map) => self.add_all(map.inner().values().map(|item| item.as_ref()), left),
            Shape::Optional(Some(inner)) => self.add_all(std::iter::once(inner), left),
            Shape::Optional(None) | Shape::Scalar | Shape::Other => {}
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

/// Charges the [`Copied`] of `value` to the cost budget of `max_cost` and to the produced-bytes
/// budget of `max_produced` (a copy is kept in the value made: memory as well as work).
fn charge_copy(
    value: &dyn Val,
    max_cost: usize,
    max_produced: usize,
) -> Result<(), ExecutionError> {
    let left = Left {
        cost: budget::left(budget::Counter::Cost, max_cost),
        produced: budget::left(budget::Counter::Produced, max_produced),
    };
    let mut copied = Copied::default();
    copied.add(value, left);
    if !budget::charge(budget::Counter::Cost, copied.cost(), max_cost) {
        return Err(cost_exceeded(max_cost));
    }
    if !budget::charge(budget::Counter::Produced, copied.produced(), max_produced) {
        return Err(produced_exceeded(max_produced));
    }
    Ok(())
}

/// The [`COPY_FUNCTION`] of one evaluation: charges the copy of its argument ([`charge_copy`])
/// and passes the value through unchanged.
pub(crate) fn copy_budget(max_cost: usize, max_produced: usize) -> BuiltinFunction {
    Box::new(move |ftx: &mut FunctionContext<'_, '_>| {
        let Some(value) = ftx.args.pop() else {
            return Err(ExecutionError::invalid_argument_count(1, 0));
        };
        charge_copy(value.as_ref(), max_cost, max_produced)?;
        Ok(value)
    })
}

/// The [`ELEMENT_FUNCTION`] of one evaluation: charges the copy ([`charge_copy`]) of the element
/// of its first argument (a container, or an optional holding one) at its second, when there is
/// one, and passes the container through unchanged.
pub(crate) fn element_budget(max_cost: usize, max_produced: usize) -> BuiltinFunction {
    Box::new(move |ftx: &mut FunctionContext<'_, '_>| {
        let (Some(key), Some(container)) = (ftx.args.pop(), ftx.args.pop()) else {
            return Err(ExecutionError::invalid_argument_count(2, 0));
        };
        let holder = match container.downcast_ref::<CelOptional<'_>>() {
            Some(optional) => optional.option(),
            None => Some(container.as_ref()),
        };
        if let Some(Ok(element)) = holder
            .and_then(|holder| holder.as_indexer())
            .map(|indexer| indexer.get(key.as_ref()))
        {
            charge_copy(element.as_ref(), max_cost, max_produced)?;
        }
        Ok(container)
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
