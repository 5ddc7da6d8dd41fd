//! One evaluation on the direct path: the values it works on ([`V`]), CEL equality where the
//! subset decides it, the charges of the metered tree, and the walk of the tree ([`Run`]).

use std::cell::RefCell;

use cel::ExecutionError;
use oatf_internal::json::field_of;
use serde_json::{Map, Value};

use super::tree::{Arg, Cmp, Lit, Method, Node, Op, lits_size, strs_size};
use crate::budget;
use crate::convert::nests_deeper;
use crate::limits::CelLimits;
use crate::metering;
use crate::regex_cache::RegexCache;

/// A bound value, unless it nests deeper than the interpreter converts.
pub(super) fn bound(value: &Value) -> Option<V<'_>> {
    (!nests_deeper(value, 0)).then(|| V::of(value))
}

/// A value on the direct path: scalars as CEL sees them, lists and maps borrowed from the JSON.
#[derive(Debug, Clone, Copy)]
pub(super) enum V<'a> {
    Bool(bool),
    Int(i64),
    UInt(u64),
    Double(f64),
    Str(&'a str),
    Null,
    Array(&'a [Value]),
    Object(&'a Map<String, Value>),
    Lits(&'a [Lit]),
}

impl<'a> V<'a> {
    pub(super) fn of(value: &'a Value) -> V<'a> {
        match value {
            Value::Null => V::Null,
            Value::Bool(b) => V::Bool(*b),
            Value::Number(n) => match (n.as_i64(), n.as_u64()) {
                (Some(i), _) => V::Int(i),
                (None, Some(u)) => V::UInt(u),
                (None, None) => V::Double(n.as_f64().unwrap_or(f64::NAN)),
            },
            Value::String(s) => V::Str(s),
            Value::Array(items) => V::Array(items),
            Value::Object(map) => V::Object(map),
        }
    }

    fn lit(literal: &'a Lit) -> V<'a> {
        match literal {
            Lit::Bool(b) => V::Bool(*b),
            Lit::Int(i) => V::Int(*i),
            Lit::UInt(u) => V::UInt(*u),
            Lit::Double(d) => V::Double(*d),
            Lit::Str(s) => V::Str(s),
            Lit::Null => V::Null,
        }
    }

    /// The size the cost budget charges ([`metering::deep_size`] of the value the interpreter
    /// binds, which for a whole JSON value is [`json_size`]), walked only until it is past `cap`
    /// (the budget left), as `deep_size` is.
    fn charge(self, cap: usize) -> usize {
        match self {
            V::Str(s) => s.len(),
            V::Array(items) => budget::sum_within(items.iter(), cap, json_size),
            V::Object(map) => budget::sum_within(map.values(), cap, json_size),
            V::Lits(items) => lits_size(items),
            _ => 1,
        }
    }
}

/// [`metering::deep_size`] of the CEL value of `value`, walked until it is past `cap`: a string its
/// length, a list or map the sum of its elements' (values') sizes, each at least 1, anything else
/// 1. Bound values nest at most 128 levels (see [`bound`]), so the recursion is bounded.
fn json_size(value: &Value, cap: usize) -> usize {
    match value {
        Value::String(s) => s.len(),
        Value::Array(items) => budget::sum_within(items.iter(), cap, json_size),
        Value::Object(map) => budget::sum_within(map.values(), cap, json_size),
        _ => 1,
    }
}

/// The cost of a [`metering::Copied`] of the CEL value of `value`: [`metering::COPY_WEIGHT`] for the
/// value and each of its nested elements (values), plus the bytes of its strings, walked until it
/// is past `cap` as `Copied` is. Bound values nest at most 128 levels (see [`bound`]), so the
/// recursion is bounded.
fn json_copy_size(value: &Value, cap: usize) -> usize {
    let own = metering::COPY_WEIGHT;
    match value {
        Value::String(s) => own.saturating_add(s.len()),
        Value::Array(items) => copies_within(items.iter(), own, cap),
        Value::Object(map) => copies_within(map.values(), own, cap),
        _ => own,
    }
}

/// `total` plus the [`json_copy_size`]s of `items`, walked until it is past `cap`.
fn copies_within<'v>(
    items: impl Iterator<Item = &'v Value>,
    mut total: usize,
    cap: usize,
) -> usize {
    for item in items {
        if total > cap {
            break;
        }
        total = total.saturating_add(json_copy_size(item, cap - total));
    }
    total
}

/// CEL equality where the subset decides it: `Some(equal)`, or `None` to abstain.
fn equal(a: V<'_>, b: V<'_>) -> Option<bool> {
    Some(match (a, b) {
        (V::Str(x), V::Str(y)) => x == y,
        (V::Bool(x), V::Bool(y)) => x == y,
        (V::Null, V::Null) => true,
        (V::Int(x), V::Int(y)) => x == y,
        (V::UInt(x), V::UInt(y)) => x == y,
        // `partial_cmp` is `None` for NaN, which the `cel` crate's equality reports as unequal.
        (V::Double(x), V::Double(y)) => x.partial_cmp(&y) == Some(std::cmp::Ordering::Equal),
        // Numbers of different kinds compare by value in the `cel` crate: not decided here.
        (V::Int(_) | V::UInt(_) | V::Double(_), V::Int(_) | V::UInt(_) | V::Double(_)) => {
            return None;
        }
        // Scalars of different kinds are unequal.
        (
            V::Str(_) | V::Bool(_) | V::Null | V::Int(_) | V::UInt(_) | V::Double(_),
            V::Str(_) | V::Bool(_) | V::Null | V::Int(_) | V::UInt(_) | V::Double(_),
        ) => false,
        _ => return None,
    })
}

/// One evaluation on the direct path.
pub(super) struct Run<'a, 'l> {
    slots: &'l mut [V<'a>],
    cost: usize,
    produced: usize,
    iterations: usize,
    limits: &'l CelLimits,
    regexes: &'l RegexCache,
    /// The distinct `matches` patterns of the evaluation (D-96).
    patterns: RefCell<Vec<Box<str>>>,
    /// Set once a loop over a map ran: the interpreter iterates a map in hash order and may stop
    /// early, so from then on the charges bound the interpreter's without equalling them, and an
    /// error is left to the interpreter (D-125).
    inexact: bool,
    /// Whether errors are answered (D-125); without, the run abstains at the first one, as the
    /// residual of the literal guard does, whose charges may be larger than the expression's.
    answer_errors: bool,
}

/// What evaluating a node gives: `None` to abstain, or the interpreter's outcome at that node: a
/// value, or one of the errors the direct path reproduces (D-125): a budget of
/// [`crate::metering`] going over its limit, or a `matches` error.
type Out<'a> = Option<Result<V<'a>, Fail>>;

/// An error of the direct path, boxed: the evaluation passes its outcomes up by value.
type Fail = Box<ExecutionError>;

/// The value of an [`Out`]: abstains on `None`, returns the error on an error.
macro_rules! tri {
    ($out:expr) => {
        match $out? {
            Ok(value) => value,
            Err(error) => return Some(Err(error)),
        }
    };
}

impl<'a, 'l> Run<'a, 'l> {
    /// A run with `slots` bound and nothing charged yet; `answer_errors` says whether it answers
    /// the errors it reproduces or abstains at the first one.
    pub(super) fn new(
        slots: &'l mut [V<'a>],
        limits: &'l CelLimits,
        regexes: &'l RegexCache,
        answer_errors: bool,
    ) -> Self {
        Run {
            slots,
            cost: 0,
            produced: 0,
            iterations: 0,
            limits,
            regexes,
            patterns: RefCell::new(Vec::new()),
            inexact: false,
            answer_errors,
        }
    }

    /// `outcome` as an [`Out`]: an error only when the run answers errors.
    fn check<T>(&self, outcome: Result<T, Fail>) -> Option<Result<T, Fail>> {
        match outcome {
            Ok(value) => Some(Ok(value)),
            Err(error) => self.answer_errors.then_some(Err(error)),
        }
    }

    /// Charges `amount` to the cost budget by the rule of [`budget::spend`], as
    /// [`metering::size_budget`] does: the cost function's error when it is refused.
    fn charge(&mut self, amount: usize) -> Option<Result<(), Fail>> {
        let within;
        (self.cost, within) = budget::spend(self.cost, amount, self.limits.max_cost);
        if !within {
            return self.check(Err(Box::new(metering::cost_exceeded(self.limits.max_cost))));
        }
        Some(Ok(()))
    }

    /// The cost budget left: what measuring a value for [`Run::charge`] walks at most.
    fn cost_left(&self) -> usize {
        self.limits.max_cost.saturating_sub(self.cost)
    }

    /// Charges `amount` to the produced-bytes budget (the result of an arithmetic operator).
    fn produce(&mut self, amount: usize) -> Option<Result<(), Fail>> {
        let within;
        (self.produced, within) =
            budget::spend(self.produced, amount, self.limits.max_produced_bytes);
        if !within {
            return self.check(Err(Box::new(metering::produced_exceeded(
                self.limits.max_produced_bytes,
            ))));
        }
        Some(Ok(()))
    }

    fn arg(&mut self, arg: &'a Arg) -> Out<'a> {
        let value = tri!(self.eval(&arg.node));
        if arg.charged {
            tri!(self.charge(value.charge(self.cost_left())));
        }
        Some(Ok(value))
    }

    /// An operand of `==`, `!=` or `in`, charged as the metered tree's compare function charges
    /// it ([`metering::compared_size`], D-353): a list or map its weighted size.
    fn compared(&mut self, arg: &'a Arg) -> Out<'a> {
        let value = tri!(self.eval(&arg.node));
        if arg.charged {
            let cap = self.cost_left();
            let size = match value {
                V::Array(_) | V::Object(_) | V::Lits(_) => {
                    metering::compared(cap, |cap| value.charge(cap))
                }
                _ => value.charge(cap),
            };
            tri!(self.charge(size));
        }
        Some(Ok(value))
    }

    /// A boolean, or an error; `None` for any other value (the interpreter's error would not be one
    /// the direct path reproduces).
    fn boolean(&mut self, node: &'a Node) -> Option<Result<bool, Fail>> {
        match self.eval(node)? {
            Ok(V::Bool(b)) => Some(Ok(b)),
            Ok(_) => None,
            Err(error) => Some(Err(error)),
        }
    }

    /// The outcome of the whole evaluation: an error only where the charges were exact.
    pub(super) fn finish(&mut self, root: &'a Node) -> Option<Result<bool, ExecutionError>> {
        match self.boolean(root)? {
            Err(_) if self.inexact => None,
            outcome => Some(outcome.map_err(|error| *error)),
        }
    }

    fn eval(&mut self, node: &'a Node) -> Out<'a> {
        Some(Ok(match node {
            Node::Lit(l) => V::lit(l),
            Node::List(items) => V::Lits(items),
            Node::Slot(slot) => *self.slots.get(*slot)?,
            Node::Select(operand, field) => match tri!(self.eval(operand)) {
                V::Object(map) => V::of(field_of(map, field)?),
                _ => return None,
            },
            Node::Path(slot, fields) => {
                let mut value = *self.slots.get(*slot)?;
                for field in fields {
                    value = match value {
                        V::Object(map) => V::of(field_of(map, field)?),
                        _ => return None,
                    };
                }
                value
            }
            Node::Has(operand, field) => match tri!(self.eval(operand)) {
                V::Object(map) => V::Bool(field_of(map, field).is_some()),
                _ => return None,
            },
            Node::Index(operand, key) => match (tri!(self.eval(operand)), key) {
                (V::Object(map), Lit::Str(key)) => V::of(field_of(map, key)?),
                (V::Array(items), Lit::Int(i)) => V::of(items.get(usize::try_from(*i).ok()?)?),
                _ => return None,
            },
            // `&&` and `||` as the interpreter evaluates them: the right operand is evaluated
            // unless the left one decides, and its error wins; an error on the left is absorbed
            // by a deciding right operand (`error && false` is `false`) and kept otherwise.
            Node::And(a, b) => {
                let left = self.boolean(a)?;
                if matches!(left, Ok(false)) {
                    return Some(Ok(V::Bool(false)));
                }
                match (left, tri!(self.eval(b))) {
                    (Ok(_), V::Bool(right)) => V::Bool(right),
                    (Ok(_), _) => return None,
                    (Err(_), V::Bool(false)) => V::Bool(false),
                    (Err(error), _) => return Some(Err(error)),
                }
            }
            Node::Or(a, b) => {
                let left = self.boolean(a)?;
                if matches!(left, Ok(true)) {
                    return Some(Ok(V::Bool(true)));
                }
                match (left, tri!(self.eval(b))) {
                    (Ok(_), V::Bool(right)) => V::Bool(right),
                    (Ok(_), _) => return None,
                    (Err(_), V::Bool(true)) => V::Bool(true),
                    (Err(error), _) => return Some(Err(error)),
                }
            }
            Node::Not(a) => V::Bool(!tri!(self.boolean(a))),
            Node::Cond(c, a, b) => {
                if tri!(self.boolean(c)) {
                    tri!(self.eval(a))
                } else {
                    tri!(self.eval(b))
                }
            }
            Node::Eq(a, b, equals) => {
                let a = tri!(self.compared(a));
                let b = tri!(self.compared(b));
                V::Bool(equal(a, b)? == *equals)
            }
            Node::EqStr(a, literal, equals) => {
                let a = tri!(self.compared(a));
                V::Bool(equal(a, V::Str(literal))? == *equals)
            }
            Node::Compare(a, b, op) => {
                let a = tri!(self.arg(a));
                let b = tri!(self.arg(b));
                let ordering = match (a, b) {
                    (V::Int(x), V::Int(y)) => x.cmp(&y),
                    (V::UInt(x), V::UInt(y)) => x.cmp(&y),
                    (V::Double(x), V::Double(y)) => x.partial_cmp(&y)?,
                    (V::Str(x), V::Str(y)) => x.cmp(y),
                    _ => return None,
                };
                V::Bool(match op {
                    Cmp::Lt => ordering.is_lt(),
                    Cmp::Le => ordering.is_le(),
                    Cmp::Gt => ordering.is_gt(),
                    Cmp::Ge => ordering.is_ge(),
                })
            }
            Node::Arith(a, b, op) => {
                let a = tri!(self.arg(a));
                let b = tri!(self.arg(b));
                // Numbers of one kind, as the `cel` crate computes them; an integer overflow (its
                // error) or mixed kinds abstain.
                let result = match (a, b, op) {
                    (V::Int(x), V::Int(y), Op::Add) => V::Int(x.checked_add(y)?),
                    (V::Int(x), V::Int(y), Op::Sub) => V::Int(x.checked_sub(y)?),
                    (V::Int(x), V::Int(y), Op::Mul) => V::Int(x.checked_mul(y)?),
                    (V::UInt(x), V::UInt(y), Op::Add) => V::UInt(x.checked_add(y)?),
                    (V::UInt(x), V::UInt(y), Op::Sub) => V::UInt(x.checked_sub(y)?),
                    (V::UInt(x), V::UInt(y), Op::Mul) => V::UInt(x.checked_mul(y)?),
                    (V::Double(x), V::Double(y), Op::Add) => V::Double(x + y),
                    (V::Double(x), V::Double(y), Op::Sub) => V::Double(x - y),
                    (V::Double(x), V::Double(y), Op::Mul) => V::Double(x * y),
                    _ => return None,
                };
                // The metered tree charges the result its size: one for a number.
                tri!(self.produce(1));
                result
            }
            Node::In(a, b) => {
                let needle = tri!(self.compared(a));
                match tri!(self.compared(b)) {
                    V::Lits(items) => V::Bool(any(items.iter().map(V::lit), needle)?),
                    V::Array(items) => V::Bool(any(items.iter().map(V::of), needle)?),
                    V::Object(map) => match needle {
                        V::Str(key) => V::Bool(field_of(map, key).is_some()),
                        _ => return None,
                    },
                    _ => return None,
                }
            }
            Node::ErasedContains(target) => match tri!(self.arg(target)) {
                V::Str(_) => V::Bool(false),
                _ => return None,
            },
            Node::ErasedIn(a, size) => {
                let needle = tri!(self.compared(a));
                tri!(self.charge(*size));
                match needle {
                    V::Str(_) | V::Bool(_) | V::Null | V::Int(_) | V::UInt(_) | V::Double(_) => {
                        V::Bool(false)
                    }
                    V::Array(_) | V::Object(_) | V::Lits(_) => return None,
                }
            }
            Node::InStrs(a, items) => {
                let needle = tri!(self.compared(a));
                // The list literal is charged its size, as `In` charges it.
                let size = metering::compared(self.cost_left(), |_| strs_size(items));
                tri!(self.charge(size));
                match needle {
                    V::Str(needle) => V::Bool(items.iter().any(|item| **item == *needle)),
                    // Another scalar equals no string; a list or map is not decided here.
                    V::Bool(_) | V::Null | V::Int(_) | V::UInt(_) | V::Double(_) => V::Bool(false),
                    V::Array(_) | V::Object(_) | V::Lits(_) => return None,
                }
            }
            Node::Size(a) => {
                let size = match tri!(self.arg(a)) {
                    V::Str(s) => s.chars().count(),
                    V::Array(items) => items.len(),
                    V::Object(map) => map.len(),
                    _ => return None,
                };
                V::Int(i64::try_from(size).ok()?)
            }
            Node::ContainsLiteral(target, finder) => match tri!(self.arg(target)) {
                // A literal is not charged (it is part of the expression); a byte match of valid
                // UTF-8 in valid UTF-8 is a match of `str::contains`.
                V::Str(text) => V::Bool(finder.find(text.as_bytes()).is_some()),
                _ => return None,
            },
            Node::Method(target, a, method) => {
                // The interpreter evaluates the argument before the target.
                let needle = tri!(self.arg(a));
                let (V::Str(text), V::Str(needle)) = (tri!(self.arg(target)), needle) else {
                    return None;
                };
                V::Bool(match method {
                    Method::Contains => text.contains(needle),
                    Method::StartsWith => text.starts_with(needle),
                    Method::EndsWith => text.ends_with(needle),
                    Method::Matches => tri!(
                        self.check(
                            self.regexes
                                .is_match(
                                    text,
                                    needle,
                                    &self.patterns,
                                    self.limits.max_regex_compiles
                                )
                                .map_err(Box::new)
                        )
                    ),
                })
            }
            Node::Loop {
                range,
                slot,
                body,
                exists,
                weight,
            } => {
                let range = tri!(self.eval(range));
                let size = match range {
                    V::Array(items) => items.len(),
                    V::Object(map) => map.len(),
                    _ => return None,
                };
                // The range is charged before the loop runs.
                let within;
                (self.iterations, within) =
                    budget::spend(self.iterations, size, self.limits.max_iterations);
                if !within {
                    return self
                        .check(Err(Box::new(metering::iterations_exceeded(
                            self.limits.max_iterations,
                        ))))
                        .map(|outcome| outcome.map(|()| V::Null));
                }
                // Then the loop's cost, as `metering::loop_cost` charges it (D-127, D-330),
                // walked until it is past the budget left.
                let binding = match range {
                    V::Array(items) => copies_within(items.iter(), 0, self.cost_left()),
                    _ => size,
                };
                tri!(self.charge(binding.saturating_add(size.saturating_mul(*weight))));
                // `exists` stops at the first true body, `all` at the first false one.
                let decided = *exists;
                match range {
                    V::Array(items) => {
                        // As the interpreter's loop: a body's error is kept while the loop goes
                        // on (the last one wins), a deciding body drops it, and the loop ends
                        // with the error still kept.
                        let mut kept = None;
                        for item in items {
                            *self.slots.get_mut(*slot)? = V::of(item);
                            match self.boolean(body)? {
                                Ok(b) if b == decided => return Some(Ok(V::Bool(decided))),
                                Ok(_) => {}
                                Err(error) => kept = Some(error),
                            }
                        }
                        match kept {
                            Some(error) => return Some(Err(error)),
                            None => V::Bool(!decided),
                        }
                    }
                    V::Object(map) => {
                        // The interpreter iterates a map in hash order: every key's body is
                        // evaluated (and charged) here, so that the result and the charges cover
                        // any order; an error in a body is left to the interpreter.
                        self.inexact = true;
                        let mut found = false;
                        for key in map.keys() {
                            *self.slots.get_mut(*slot)? = V::Str(key);
                            found |= self.boolean(body)?.ok()? == decided;
                        }
                        V::Bool(if found { decided } else { !decided })
                    }
                    _ => return None,
                }
            }
        }))
    }
}

/// Whether `needle` equals one of `items` (`in` on a list), `None` when one comparison is
/// undecided.
fn any<'v>(items: impl Iterator<Item = V<'v>>, needle: V<'_>) -> Option<bool> {
    for item in items {
        if equal(item, needle)? {
            return Some(true);
        }
    }
    Some(false)
}
