//! The direct path: a subset of CEL evaluated straight on the `serde_json` values, without
//! converting them and without the `cel` crate's interpreter, exact or abstaining.
//!
//! When a program is compiled, its (unmetered) syntax tree is translated into [`Node`]s if every
//! part of it is in the subset: literals, `message`, the declared variables and comprehension
//! variables, field selection, `has()`, constant indexes, `&&`, `||`, `!`, `?:`, `==`, `!=`, `<`,
//! `<=`, `>`, `>=`, `in`, `size`, `contains`, `startsWith`, `endsWith`, `matches`, and the `exists`
//! and `all` macros. Anything else leaves the program without a direct path.
//!
//! An evaluation on the direct path returns `Some(result)` only when it is certain the
//! interpreter would return the same `Ok(result)`; in every other case (a missing key, a type the
//! subset does not decide, an error of any kind, a budget the charges would go over, a message
//! nested too deep) it returns `None` and the caller runs the interpreter, whose answer (result or
//! error, with its message) is the one reported. The argument, for each rule:
//! - No error: the direct path abstains on anything that would be an error (or that it cannot
//!   decide), so when it returns, the interpreter's evaluation of the same subexpressions raises
//!   none, and CEL without errors is plain boolean logic: `&&`, `||`, `?:`, `exists` and `all`
//!   short-circuit exactly where the interpreter does, so both evaluate the same subexpressions.
//! - Values: JSON integers are `int` (`uint` beyond `i64`), other numbers `double`, as in
//!   [`crate::convert`]; equality and ordering are decided only between values whose CEL semantics
//!   are spelled out below (same kinds, and unequal kinds of scalars, which the `cel` crate
//!   compares as unequal), anything else abstains.
//! - Budgets: the charges of the metered tree ([`crate::metering`]) are counted on the same
//!   values: every non-literal argument of a metered call its size, every comprehension the size of
//!   its range. The subset produces no value the produced-bytes budget charges. The direct path
//!   abstains as soon as its total would go over a limit, so its own work is bounded by the same
//!   limits; when it returns, its totals bound the interpreter's (the same charges, or, for a
//!   comprehension over a map, which the interpreter iterates in hash order, a subset of them:
//!   the direct path evaluates the body for every key), so the interpreter would not have gone
//!   over a budget either.
//! - Depth: a message or variable nested deeper than the interpreter converts makes it abstain.
//!
//! The randomized differential test `direct::tests::direct_path_agrees_with_the_interpreter`
//! compares both paths on generated expressions and messages.

use std::sync::atomic::AtomicUsize;

use cel::common::ast::{CallExpr, ComprehensionExpr, Expr, IdedExpr, LiteralValue, operators};
use oatf_primitives::field_of;
use serde_json::{Map, Value};

use crate::convert::nests_deeper;
use crate::limits::CelLimits;
use crate::regex_cache::RegexCache;

/// Names that the `cel` crate's environment uses as function namespaces (`strings.quote`,
/// `optional.of`): a call on a variable of that name may be a call of the namespaced function,
/// so expressions binding such a name keep the interpreter.
const NAMESPACES: [&str; 2] = ["strings", "optional"];

/// A literal of the subset.
#[derive(Debug, Clone)]
enum Lit {
    Bool(bool),
    Int(i64),
    UInt(u64),
    Double(f64),
    Str(String),
    Null,
}

/// A method of the subset on a string (or `size` on a string, list or map).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Method {
    Contains,
    StartsWith,
    EndsWith,
    Matches,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cmp {
    Lt,
    Le,
    Gt,
    Ge,
}

/// A metered argument: `charged` when the metered tree wraps it in the cost function (it is not a
/// literal).
#[derive(Debug)]
struct Arg {
    node: Node,
    charged: bool,
}

impl Arg {
    fn of(expr: &IdedExpr, scope: &mut Scope) -> Option<Arg> {
        Some(Arg {
            node: Node::of(expr, scope)?,
            charged: !matches!(expr.expr, Expr::Literal(_)),
        })
    }
}

/// A node of the direct path's tree.
#[derive(Debug)]
enum Node {
    Lit(Lit),
    /// A list literal of literals (as the right operand of `in`).
    List(Vec<Lit>),
    /// A variable slot: 0 is `message`, then the declared variables, then comprehension variables.
    Slot(usize),
    Select(Box<Node>, String),
    Has(Box<Node>, String),
    Index(Box<Node>, Lit),
    And(Box<Node>, Box<Node>),
    Or(Box<Node>, Box<Node>),
    Not(Box<Node>),
    Cond(Box<Node>, Box<Node>, Box<Node>),
    Eq(Box<Arg>, Box<Arg>, bool),
    Compare(Box<Arg>, Box<Arg>, Cmp),
    In(Box<Arg>, Box<Arg>),
    /// `size(x)` or `x.size()`.
    Size(Box<Arg>),
    Method(Box<Arg>, Box<Arg>, Method),
    /// `exists` (`any` true) or `all` (`any` false) over a range, binding a slot.
    Loop {
        range: Box<Node>,
        slot: usize,
        body: Box<Node>,
        exists: bool,
    },
}

/// The identifiers in scope while translating: slot names, innermost last.
struct Scope {
    names: Vec<String>,
    slots: usize,
}

impl Scope {
    fn lookup(&self, name: &str) -> Option<usize> {
        self.names.iter().rposition(|n| n == name)
    }
}

impl Node {
    fn of(expr: &IdedExpr, scope: &mut Scope) -> Option<Node> {
        Some(match &expr.expr {
            Expr::Literal(literal) => Node::Lit(lit(literal)?),
            Expr::Ident(name) => Node::Slot(scope.lookup(name)?),
            Expr::Select(select) => {
                let operand = Box::new(Node::of(&select.operand, scope)?);
                if select.test {
                    Node::Has(operand, select.field.clone())
                } else {
                    Node::Select(operand, select.field.clone())
                }
            }
            Expr::Call(call) => Node::call(call, scope)?,
            Expr::Comprehension(c) => Node::comprehension(c, scope)?,
            Expr::List(list) if list.optional_indices.is_empty() => Node::List(
                list.elements
                    .iter()
                    .map(|e| match &e.expr {
                        Expr::Literal(l) => lit(l),
                        _ => None,
                    })
                    .collect::<Option<_>>()?,
            ),
            _ => return None,
        })
    }

    fn call(call: &CallExpr, scope: &mut Scope) -> Option<Node> {
        let name = call.func_name.as_str();
        let boxed = |e: &IdedExpr, scope: &mut Scope| Node::of(e, scope).map(Box::new);
        let arg = |e: &IdedExpr, scope: &mut Scope| Arg::of(e, scope).map(Box::new);
        match (&call.target, call.args.as_slice()) {
            (None, [a, b]) => Some(match name {
                operators::LOGICAL_AND => Node::And(boxed(a, scope)?, boxed(b, scope)?),
                operators::LOGICAL_OR => Node::Or(boxed(a, scope)?, boxed(b, scope)?),
                operators::EQUALS => Node::Eq(arg(a, scope)?, arg(b, scope)?, true),
                operators::NOT_EQUALS => Node::Eq(arg(a, scope)?, arg(b, scope)?, false),
                operators::LESS => Node::Compare(arg(a, scope)?, arg(b, scope)?, Cmp::Lt),
                operators::LESS_EQUALS => Node::Compare(arg(a, scope)?, arg(b, scope)?, Cmp::Le),
                operators::GREATER => Node::Compare(arg(a, scope)?, arg(b, scope)?, Cmp::Gt),
                operators::GREATER_EQUALS => Node::Compare(arg(a, scope)?, arg(b, scope)?, Cmp::Ge),
                operators::IN => Node::In(arg(a, scope)?, arg(b, scope)?),
                operators::INDEX => match &b.expr {
                    Expr::Literal(l @ (LiteralValue::String(_) | LiteralValue::Int(_))) => {
                        Node::Index(boxed(a, scope)?, lit(l)?)
                    }
                    _ => return None,
                },
                _ => return None,
            }),
            (None, [a, b, c]) if name == operators::CONDITIONAL => Some(Node::Cond(
                boxed(a, scope)?,
                boxed(b, scope)?,
                boxed(c, scope)?,
            )),
            (None, [a]) => match name {
                operators::LOGICAL_NOT => Some(Node::Not(boxed(a, scope)?)),
                "size" => Some(Node::Size(arg(a, scope)?)),
                _ => None,
            },
            (Some(target), []) if name == "size" => Some(Node::Size(arg(target, scope)?)),
            (Some(target), [a]) => {
                let method = match name {
                    "contains" => Method::Contains,
                    "startsWith" => Method::StartsWith,
                    "endsWith" => Method::EndsWith,
                    "matches" => Method::Matches,
                    _ => return None,
                };
                Some(Node::Method(arg(target, scope)?, arg(a, scope)?, method))
            }
            _ => None,
        }
    }

    /// `exists` and `all` as the `cel` crate's macros expand them; any other comprehension is
    /// outside the subset.
    fn comprehension(c: &ComprehensionExpr, scope: &mut Scope) -> Option<Node> {
        if c.iter_var2.is_some()
            || c.iter_var == c.accu_var
            || NAMESPACES.contains(&c.iter_var.as_str())
        {
            return None;
        }
        let is_accu = |e: &IdedExpr| matches!(&e.expr, Expr::Ident(n) if *n == c.accu_var);
        let exists = match &c.accu_init.expr {
            Expr::Literal(LiteralValue::Boolean(b)) => !*b.inner(),
            _ => return None,
        };
        // The condition: `@not_strictly_false(!@result)` (exists) or `@not_strictly_false(@result)` (all).
        let Expr::Call(cond) = &c.loop_cond.expr else {
            return None;
        };
        let cond_ok = cond.func_name == operators::NOT_STRICTLY_FALSE
            && cond.target.is_none()
            && match cond.args.as_slice() {
                [inner] if !exists => is_accu(inner),
                [inner] => matches!(&inner.expr, Expr::Call(not)
                    if not.func_name == operators::LOGICAL_NOT
                        && not.target.is_none()
                        && matches!(not.args.as_slice(), [a] if is_accu(a))),
                _ => false,
            };
        // The step: `@result || body` (exists) or `@result && body` (all); the result: `@result`.
        let Expr::Call(step) = &c.loop_step.expr else {
            return None;
        };
        let connective = if exists {
            operators::LOGICAL_OR
        } else {
            operators::LOGICAL_AND
        };
        let body = match step.args.as_slice() {
            [accu, body]
                if step.func_name == connective && step.target.is_none() && is_accu(accu) =>
            {
                body
            }
            _ => return None,
        };
        if !cond_ok || !is_accu(&c.result) || mentions(body, &c.accu_var) {
            return None;
        }
        let range = Box::new(Node::of(&c.iter_range, scope)?);
        let slot = scope.names.len();
        scope.names.push(c.iter_var.clone());
        scope.slots = scope.slots.max(scope.names.len());
        let body = Node::of(body, scope);
        scope.names.pop();
        Some(Node::Loop {
            range,
            slot,
            body: Box::new(body?),
            exists,
        })
    }
}

/// Whether `expr` names the identifier `name` anywhere.
fn mentions(expr: &IdedExpr, name: &str) -> bool {
    let mut stack = vec![expr];
    while let Some(node) = stack.pop() {
        match &node.expr {
            Expr::Ident(n) if n == name => return true,
            Expr::Call(call) => {
                stack.extend(call.target.as_deref());
                stack.extend(call.args.iter());
            }
            Expr::Comprehension(c) => stack.extend([
                &c.iter_range,
                &c.accu_init,
                &c.loop_cond,
                &c.loop_step,
                &c.result,
            ]),
            Expr::List(list) => stack.extend(list.elements.iter()),
            Expr::Select(select) => stack.push(&select.operand),
            // Maps and structs are outside the subset anyway.
            Expr::Map(_) | Expr::Struct(_) => return true,
            Expr::Ident(_) | Expr::Literal(_) | Expr::Unspecified => {}
        }
    }
    false
}

fn lit(literal: &LiteralValue) -> Option<Lit> {
    Some(match literal {
        LiteralValue::Boolean(b) => Lit::Bool(*b.inner()),
        LiteralValue::Int(i) => Lit::Int(*i.inner()),
        LiteralValue::UInt(u) => Lit::UInt(*u.inner()),
        LiteralValue::Double(d) => Lit::Double(*d.inner()),
        LiteralValue::String(s) => Lit::Str(s.inner().to_owned()),
        LiteralValue::Null => Lit::Null,
        LiteralValue::Bytes(_) => return None,
    })
}

/// A compiled expression of the subset.
#[derive(Debug)]
pub(crate) struct Direct {
    root: Node,
    /// Slots: `message`, the declared variables, then the comprehension variables.
    slots: usize,
    variables: Vec<String>,
}

impl Direct {
    /// The direct form of `expr` with `message` and `variables` bound, if it is in the subset.
    pub(crate) fn of(expr: &IdedExpr, variables: &[&str]) -> Option<Direct> {
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
        };
        let root = Node::of(expr, &mut scope)?;
        Some(Direct {
            root,
            slots: scope.slots,
            variables: variables.iter().map(|v| (*v).to_owned()).collect(),
        })
    }

    /// Evaluates on the direct path: `Some(result)` when it is the interpreter's `Ok(result)`,
    /// `None` when the interpreter must decide.
    pub(crate) fn evaluate(
        &self,
        message: &Value,
        variables: &[(&str, &Value)],
        limits: &CelLimits,
        regexes: &RegexCache,
    ) -> Option<bool> {
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
        let mut run = Run {
            slots,
            cost: 0,
            iterations: 0,
            limits,
            regexes,
            compiles: AtomicUsize::new(0),
        };
        match run.eval(&self.root)? {
            V::Bool(b) => Some(b),
            _ => None,
        }
    }
}

/// Slots kept on the stack (more use a vector).
const INLINE_SLOTS: usize = 8;

/// A bound value, unless it nests deeper than the interpreter converts.
fn bound(value: &Value) -> Option<V<'_>> {
    (!nests_deeper(value, 0)).then(|| V::of(value))
}

/// A value on the direct path: scalars as CEL sees them, lists and maps borrowed from the JSON.
#[derive(Debug, Clone, Copy)]
enum V<'a> {
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
    fn of(value: &'a Value) -> V<'a> {
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

    /// The size the budgets charge (`metering::value_size` with one per element).
    fn charge(self) -> usize {
        match self {
            V::Str(s) => s.len(),
            V::Array(items) => items.len(),
            V::Object(map) => map.len(),
            V::Lits(items) => items.len(),
            _ => 1,
        }
    }
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
struct Run<'a, 'l> {
    slots: &'l mut [V<'a>],
    cost: usize,
    iterations: usize,
    limits: &'l CelLimits,
    regexes: &'l RegexCache,
    compiles: AtomicUsize,
}

impl<'a> Run<'a, '_> {
    /// Charges `amount` to the cost budget; `None` (abstain) beyond it.
    fn charge(&mut self, amount: usize) -> Option<()> {
        let total = self.cost.checked_add(amount)?;
        (total <= self.limits.max_cost).then(|| self.cost = total)
    }

    fn arg(&mut self, arg: &'a Arg) -> Option<V<'a>> {
        let value = self.eval(&arg.node)?;
        if arg.charged {
            self.charge(value.charge())?;
        }
        Some(value)
    }

    fn boolean(&mut self, node: &'a Node) -> Option<bool> {
        match self.eval(node)? {
            V::Bool(b) => Some(b),
            _ => None,
        }
    }

    fn eval(&mut self, node: &'a Node) -> Option<V<'a>> {
        Some(match node {
            Node::Lit(l) => V::lit(l),
            Node::List(items) => V::Lits(items),
            Node::Slot(slot) => *self.slots.get(*slot)?,
            Node::Select(operand, field) => match self.eval(operand)? {
                V::Object(map) => V::of(field_of(map, field)?),
                _ => return None,
            },
            Node::Has(operand, field) => match self.eval(operand)? {
                V::Object(map) => V::Bool(field_of(map, field).is_some()),
                _ => return None,
            },
            Node::Index(operand, key) => match (self.eval(operand)?, key) {
                (V::Object(map), Lit::Str(key)) => V::of(field_of(map, key)?),
                (V::Array(items), Lit::Int(i)) => V::of(items.get(usize::try_from(*i).ok()?)?),
                _ => return None,
            },
            Node::And(a, b) => V::Bool(self.boolean(a)? && self.boolean(b)?),
            Node::Or(a, b) => V::Bool(self.boolean(a)? || self.boolean(b)?),
            Node::Not(a) => V::Bool(!self.boolean(a)?),
            Node::Cond(c, a, b) => {
                if self.boolean(c)? {
                    self.eval(a)?
                } else {
                    self.eval(b)?
                }
            }
            Node::Eq(a, b, equals) => {
                let a = self.arg(a)?;
                let b = self.arg(b)?;
                V::Bool(equal(a, b)? == *equals)
            }
            Node::Compare(a, b, op) => {
                let a = self.arg(a)?;
                let b = self.arg(b)?;
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
            Node::In(a, b) => {
                let needle = self.arg(a)?;
                match self.arg(b)? {
                    V::Lits(items) => V::Bool(any(items.iter().map(V::lit), needle)?),
                    V::Array(items) => V::Bool(any(items.iter().map(V::of), needle)?),
                    V::Object(map) => match needle {
                        V::Str(key) => V::Bool(field_of(map, key).is_some()),
                        _ => return None,
                    },
                    _ => return None,
                }
            }
            Node::Size(a) => {
                let size = match self.arg(a)? {
                    V::Str(s) => s.chars().count(),
                    V::Array(items) => items.len(),
                    V::Object(map) => map.len(),
                    _ => return None,
                };
                V::Int(i64::try_from(size).ok()?)
            }
            Node::Method(target, a, method) => {
                // The interpreter evaluates the argument before the target; the charges add up
                // the same either way.
                let needle = self.arg(a)?;
                let (V::Str(text), V::Str(needle)) = (self.arg(target)?, needle) else {
                    return None;
                };
                V::Bool(match method {
                    Method::Contains => text.contains(needle),
                    Method::StartsWith => text.starts_with(needle),
                    Method::EndsWith => text.ends_with(needle),
                    Method::Matches => self
                        .regexes
                        .is_match(text, needle, &self.compiles, self.limits.max_regex_compiles)
                        .ok()?,
                })
            }
            Node::Loop {
                range,
                slot,
                body,
                exists,
            } => {
                let range = self.eval(range)?;
                let size = match range {
                    V::Array(items) => items.len(),
                    V::Object(map) => map.len(),
                    _ => return None,
                };
                let total = self.iterations.checked_add(size)?;
                if total > self.limits.max_iterations {
                    return None;
                }
                self.iterations = total;
                // `exists` stops at the first true body, `all` at the first false one.
                let decided = *exists;
                match range {
                    V::Array(items) => {
                        for item in items {
                            *self.slots.get_mut(*slot)? = V::of(item);
                            if self.boolean(body)? == decided {
                                return Some(V::Bool(decided));
                            }
                        }
                        V::Bool(!decided)
                    }
                    V::Object(map) => {
                        // The interpreter iterates a map in hash order: every key's body is
                        // evaluated (and charged) here, so that the result and the charges cover
                        // any order.
                        let mut found = false;
                        for key in map.keys() {
                            *self.slots.get_mut(*slot)? = V::Str(key);
                            found |= self.boolean(body)? == decided;
                        }
                        V::Bool(if found { decided } else { !decided })
                    }
                    _ => return None,
                }
            }
        })
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

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use crate::program::Binding;
    use crate::{CelEngine, CelLimits};

    /// A small deterministic generator (xorshift64*), so that the test needs no dependency and
    /// every run sees the same cases.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
        }

        fn below(&mut self, n: usize) -> usize {
            usize::try_from(self.next() % n as u64).unwrap_or(0)
        }

        fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
            &items[self.below(items.len())]
        }
    }

    const KEYS: [&str; 6] = ["a", "b", "name", "kind", "text", "items"];
    const STRINGS: [&str; 8] = ["", "x", "a", "api_key 1", "exec", "rm -rf /", "é€", "xa"];

    fn gen_message(rng: &mut Rng, depth: usize) -> Value {
        if depth < 2 && rng.below(3) > 0 {
            // Mostly objects holding most keys, so that expressions reach their operators.
            let mut map = serde_json::Map::new();
            for key in KEYS {
                if rng.below(5) > 0 {
                    map.insert(key.to_owned(), gen_message(rng, depth + 1));
                }
            }
            return Value::Object(map);
        }
        let choice = if depth >= 3 {
            rng.below(6)
        } else {
            rng.below(9)
        };
        match choice {
            0 => Value::Null,
            1 => json!(rng.below(2) == 0),
            2 => json!(i64::try_from(rng.below(5)).unwrap_or(0) - 2),
            3 => json!(*rng.pick(&[0.5, 1.0, -2.5, 1e300])),
            4 => json!(*rng.pick(&STRINGS)),
            5 => json!(*rng.pick(&[u64::MAX, 1u64 << 63])),
            6 => Value::Array(
                (0..rng.below(4))
                    .map(|_| gen_message(rng, depth + 1))
                    .collect(),
            ),
            _ => {
                let mut map = serde_json::Map::new();
                for _ in 0..rng.below(5) {
                    map.insert((*rng.pick(&KEYS)).to_owned(), gen_message(rng, depth + 1));
                }
                Value::Object(map)
            }
        }
    }

    /// A value expression; `vars` are the comprehension variables in scope.
    fn value(rng: &mut Rng, vars: &[&str], depth: usize) -> String {
        let key = *rng.pick(&KEYS);
        let root = if !vars.is_empty() && rng.below(2) == 0 {
            (*rng.pick(vars)).to_owned()
        } else {
            (*rng.pick(&["message", "message", "v", "w"])).to_owned()
        };
        match rng.below(if depth > 2 { 6 } else { 12 }) {
            0 => root,
            1 | 2 => format!("{root}.{key}"),
            3 => format!("{root}['{key}']"),
            4 => (*rng.pick(&[
                "'x'",
                "'a'",
                "''",
                "'é€'",
                "1",
                "0",
                "-2",
                "1u",
                "0.5",
                "1.0",
                "true",
                "null",
                "['a', 'x', 1]",
                "[]",
                "b'x'",
                "{'a': 1}",
            ]))
            .to_owned(),
            5 => format!("{root}.{key}.{}", rng.pick(&KEYS)),
            6 => format!("{root}.items[{}]", rng.below(3)),
            7 => format!("size({})", value(rng, vars, depth + 1)),
            8 => format!("{}.size()", value(rng, vars, depth + 1)),
            9 => format!(
                "({} ? {} : {})",
                boolean(rng, vars, depth + 1),
                value(rng, vars, depth + 1),
                value(rng, vars, depth + 1)
            ),
            10 => format!("{} + 1", value(rng, vars, depth + 1)),
            _ => format!(
                "{}[{}]",
                value(rng, vars, depth + 1),
                value(rng, vars, depth + 1)
            ),
        }
    }

    fn boolean(rng: &mut Rng, vars: &[&str], depth: usize) -> String {
        let leaf = depth > 3;
        let v = |rng: &mut Rng| value(rng, vars, depth + 1);
        match rng.below(if leaf { 9 } else { 18 }) {
            0 => format!("{} == {}", v(rng), v(rng)),
            1 => format!("{} != {}", v(rng), v(rng)),
            2 => format!(
                "{} {} {}",
                v(rng),
                rng.pick(&["<", "<=", ">", ">="]),
                v(rng)
            ),
            3 => format!("{} in {}", v(rng), v(rng)),
            4 => format!(
                "{}.{}({})",
                v(rng),
                rng.pick(&["contains", "startsWith", "endsWith"]),
                v(rng)
            ),
            5 => format!(
                "{}.matches({})",
                v(rng),
                rng.pick(&["'^a'", "'x$'", "'(a|é)'", "'['", "message.text"])
            ),
            6 => format!(
                "has({}.{})",
                rng.pick(&["message", "message.a", "v"]),
                rng.pick(&KEYS)
            ),
            7 => (*rng.pick(&["true", "false", "message", "v"])).to_owned(),
            8 => format!(
                "{} {} {}",
                v(rng),
                rng.pick(&["==", "!=", "<", ">="]),
                rng.pick(&["'x'", "1", "null", "true", "0.5", "'a'", "-2"])
            ),
            16 => format!(
                "size({}) {} {}",
                v(rng),
                rng.pick(&["==", ">", "<="]),
                rng.below(6)
            ),
            9 | 10 => format!(
                "({} {} {})",
                boolean(rng, vars, depth + 1),
                rng.pick(&["&&", "||"]),
                boolean(rng, vars, depth + 1)
            ),
            11 => format!("!({})", boolean(rng, vars, depth + 1)),
            12 => format!(
                "({} ? {} : {})",
                boolean(rng, vars, depth + 1),
                boolean(rng, vars, depth + 1),
                boolean(rng, vars, depth + 1)
            ),
            13..=15 => {
                let var = ["x", "y", "message"][vars.len().min(2)];
                let mut inner = vars.to_vec();
                inner.push(var);
                let range = rng.pick(&[
                    "message",
                    "message.items",
                    "message.a",
                    "v",
                    "message.items[0]",
                    "['a', 'x']",
                ]);
                let macro_name = rng.pick(&["exists", "all", "exists", "all", "exists_one"]);
                format!(
                    "{range}.{macro_name}({var}, {})",
                    boolean(rng, &inner, depth + 1)
                )
            }
            _ => format!("type({}) == string", v(rng)),
        }
    }

    thread_local! {
        static OK: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
    }

    /// Runs `expression` on both paths: whenever the direct path answers, the interpreter gives the
    /// same `Ok` result. Returns whether the direct path answered.
    fn agree(engine: &CelEngine, expression: &str, message: &Value, v: &Value, w: &Value) -> bool {
        let Ok(program) = engine.compile_program(expression, &["v", "w"]) else {
            return false;
        };
        let Some(direct) = &program.direct else {
            return false;
        };
        let bound = [("v", v), ("w", w)];
        let answer = direct.evaluate(message, &bound, engine.limits(), &engine.regexes);
        let interpreted = program
            .run_bound(message, &bound, Binding::Pruned)
            .map_err(|e| (e.kind(), e.message().to_owned()));
        if interpreted.is_ok() {
            OK.with(|c| c.set(c.get() + 1));
        }
        if let Some(result) = answer {
            assert_eq!(
                interpreted,
                Ok(result),
                "{expression} on {message} with v = {v}, w = {w}"
            );
            // The evaluation callers see takes the direct path and gives the same.
            assert_eq!(
                program.run(message, &bound).map_err(|e| e.kind()),
                Ok(result)
            );
        }
        answer.is_some()
    }

    #[test]
    fn direct_path_agrees_with_the_interpreter() {
        let mut rng = Rng(0x0a7f_2026_ce10_0001);
        let tight = CelLimits {
            max_cost: 12,
            max_iterations: 3,
            max_regex_compiles: 1,
            ..CelLimits::default()
        };
        let tighter = CelLimits {
            max_cost: 3,
            ..CelLimits::default()
        };
        let engines = [
            CelEngine::new(),
            CelEngine::with_limits(tight),
            CelEngine::with_limits(tighter),
        ];
        let (mut cases, mut answered) = (0, 0);
        for round in 0..2500 {
            let expression = boolean(&mut rng, &[], 0);
            let engine = &engines[[0, 0, 0, 1, 2][round % 5]];
            for _ in 0..4 {
                let message = gen_message(&mut rng, 0);
                let v = message_or(&mut rng, &message);
                let w = gen_message(&mut rng, 1);
                cases += 1;
                if agree(engine, &expression, &message, &v, &w) {
                    answered += 1;
                }
            }
        }
        let ok = OK.with(std::cell::Cell::get);
        // The test exercises the direct path, not only the fallback: it answers most of the cases
        // the interpreter evaluates without an error.
        assert!(
            answered >= 800 && answered * 20 >= ok * 13,
            "the direct path answered {answered} of {cases} cases, the interpreter {ok}"
        );
    }

    fn message_or(rng: &mut Rng, message: &Value) -> Value {
        if rng.below(3) == 0 {
            message.clone()
        } else {
            gen_message(rng, 0)
        }
    }

    #[test]
    fn edge_cases_agree_with_the_interpreter() {
        let engine = CelEngine::new();
        let message = json!({
            "i": 1, "d": 1.0, "h": 0.5, "u": u64::MAX, "s": "é€", "e": "", "t": true, "n": null,
            "l": [1, "a", null], "o": {"a": 1, "b": {"c": "x"}}, "items": [{"name": "x"}, {"name": "é€"}]
        });
        let expressions = [
            // Numbers of different kinds: equal by value in the `cel` crate.
            "message.i == 1.0",
            "message.d == 1",
            "message.d == 1u",
            "message.u == 18446744073709551615u",
            "message.i != 1.0",
            "message.h > 0",
            "message.i < 1.5",
            "message.u > 1",
            // Kinds that are never equal.
            "message.s == 1",
            "message.n == 0",
            "message.t == 1",
            "message.n == null",
            "message.i == null",
            "message.o == null",
            "message.l == null",
            "message.l == [1, 'a', null]",
            // Strings: sizes in code points, byte order.
            "size(message.s) == 2",
            "message.s.size() == 2",
            "size(message.e) == 0",
            "message.s > 'z'",
            "message.s.contains('€')",
            "message.s.startsWith('é')",
            "message.s.endsWith('')",
            "message.s.matches('^.€$')",
            "message.s.matches('[')",
            // Maps and lists.
            "size(message.o) == 2",
            "message.o.size() == 2",
            "size(message.l) == 3",
            "'a' in message.o",
            "1 in message.o",
            "'a' in message.l",
            "1u in message.l",
            "null in message.l",
            "1.0 in message.l",
            "has(message.o.a)",
            "has(message.o.z)",
            "has(message.s.a)",
            "message.o['b'].c == 'x'",
            "message.l[1] == 'a'",
            "message.l[3] == 'a'",
            "message.l[-1] == 1",
            "message.o.z == 1",
            // Logic with errors on the side that is not needed, or on the side that is.
            "true || message.z",
            "false && message.z",
            "message.z || true",
            "message.t ? true : message.z",
            "!message.t",
            "!message.i",
            "message.i && true",
            // Comprehensions, shadowing, maps iterated by key.
            "message.items.exists(x, size(x.name) > 1)",
            "message.items.all(x, has(x.name))",
            "message.o.exists(k, k == 'b')",
            "message.o.all(k, message.o[k] == 1)",
            "message.items.exists(message, message.name == 'x')",
            "message.items.exists(message, has(message.name))",
            "message.l.exists(x, x > 0)",
            "message.l.all(x, x == 1)",
            "message.s.exists(x, true)",
            "message.items.exists(x, message.items.exists(y, x.name == y.name))",
        ];
        let mut answered = 0;
        for expression in expressions {
            if agree(&engine, expression, &message, &Value::Null, &Value::Null) {
                answered += 1;
            }
        }
        assert!(
            answered >= 30,
            "the direct path answered {answered} edge cases"
        );
    }

    #[test]
    fn the_benchmark_shapes_take_the_direct_path() {
        let engine = CelEngine::new();
        for expression in [
            "message.arguments.items.exists(x, size(x.name) > 64)",
            "message.arguments.exists(k, k in ['password', 'api_key', 'secret_9'])",
            "message.message.parts.exists(p, p.kind == 'text' && p.text.contains('api_key 9'))",
            "message.tools.all(t, t.name.startsWith('safe_'))",
            "has(message.state.admin) && message.state.admin == true",
            "message.arguments.path.matches('^/etc/(passwd|shadow)$')",
        ] {
            let program = engine.compile_program(expression, &[]).expect("compiles");
            assert!(program.direct.is_some(), "{expression}");
        }
        for expression in [
            "message.count + 1 == 3",
            "message.tools.map(t, t.name).exists(n, n == 'exec')",
            "type(message) == map",
        ] {
            let program = engine.compile_program(expression, &[]).expect("compiles");
            assert!(program.direct.is_none(), "{expression}");
        }
        // A variable named like a function namespace keeps the interpreter.
        let program = engine
            .compile_program("strings.contains('x')", &["strings"])
            .expect("compiles");
        assert!(program.direct.is_none());
    }

    #[test]
    fn deep_messages_and_budgets_are_left_to_the_interpreter() {
        let engine = CelEngine::new();
        let mut deep = json!("leaf");
        for _ in 0..200 {
            deep = json!({ "d": deep });
        }
        let message = json!({"a": 1, "other": deep});
        let program = engine
            .compile_program("message.a == 1", &[])
            .expect("compiles");
        let direct = program.direct.as_ref().expect("in the subset");
        assert_eq!(
            direct.evaluate(&message, &[], engine.limits(), &engine.regexes),
            None
        );
        assert!(program.run(&message, &[]).is_err());

        let limits = CelLimits {
            max_iterations: 3,
            ..CelLimits::default()
        };
        let engine = CelEngine::with_limits(limits);
        let program = engine
            .compile_program("message.exists(x, x == 9)", &[])
            .expect("compiles");
        let message = json!([1, 2, 3, 4]);
        let direct = program.direct.as_ref().expect("in the subset");
        assert_eq!(
            direct.evaluate(&message, &[], engine.limits(), &engine.regexes),
            None
        );
        let error = program.run(&message, &[]).expect_err("over the budget");
        assert!(
            error.message().contains("max_iterations"),
            "{}",
            error.message()
        );
    }
}
