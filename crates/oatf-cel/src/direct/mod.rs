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
//! The randomized differential tests `direct::tests::direct_path_agrees_with_the_interpreter` and
//! `direct::tests::errors` compare both paths, results and errors, on generated expressions and
//! messages.

use std::cell::RefCell;
use std::collections::HashMap;

use cel::ExecutionError;
use cel::common::ast::{CallExpr, ComprehensionExpr, Expr, IdedExpr, LiteralValue, operators};
use memchr::memmem::Finder;
use oatf_internal::json::field_of;
use serde_json::{Map, Value};

use crate::convert::nests_deeper;
use crate::limits::CelLimits;
use crate::metering;
use crate::regex_cache::RegexCache;
pub(crate) use guard::Guard;

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

/// An arithmetic operator of the subset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Add,
    Sub,
    Mul,
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
    fn of(expr: &IdedExpr, scope: &mut Scope<'_>) -> Option<Arg> {
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
    /// A chain of field selections from a slot (`message.a.b`): the selections in one node.
    Path(usize, Box<[String]>),
    Has(Box<Node>, String),
    Index(Box<Node>, Lit),
    And(Box<Node>, Box<Node>),
    Or(Box<Node>, Box<Node>),
    Not(Box<Node>),
    Cond(Box<Node>, Box<Node>, Box<Node>),
    Eq(Box<Arg>, Box<Arg>, bool),
    /// `x == 'literal'` (or `!=`, either side): the literal, uncharged, compared directly.
    EqStr(Box<Arg>, Box<str>, bool),
    Compare(Box<Arg>, Box<Arg>, Cmp),
    /// `+`, `-` or `*` on numbers of one kind (D-125).
    Arith(Box<Arg>, Box<Arg>, Op),
    In(Box<Arg>, Box<Arg>),
    /// `x in ['a', 'b']`, a list of string literals: compared directly; the list is charged its
    /// length, as the metered tree charges a list literal.
    InStrs(Box<Arg>, Box<[Box<str>]>),
    /// `size(x)` or `x.size()`.
    Size(Box<Arg>),
    Method(Box<Arg>, Box<Arg>, Method),
    /// `x.contains('literal')`, searched with a finder built once.
    ContainsLiteral(Box<Arg>, Box<Finder<'static>>),
    /// A `ContainsLiteral` of the residual (D-95): the needle occurs in no string of the message,
    /// so a string target does not contain it.
    ErasedContains(Box<Arg>),
    /// An `InStrs` of the residual (D-95) with its list's charge ([`lits_size`]): no string of
    /// the message equals one of the list's strings.
    ErasedIn(Box<Arg>, usize),
    /// `exists` (`any` true) or `all` (`any` false) over a range, binding a slot.
    Loop {
        range: Box<Node>,
        slot: usize,
        body: Box<Node>,
        exists: bool,
        /// The comprehension's iteration weight ([`metering::iteration_weights`], D-127).
        weight: usize,
    },
}

/// The identifiers in scope while translating: slot names, innermost last.
struct Scope<'w> {
    names: Vec<String>,
    slots: usize,
    /// The iteration weight of each comprehension, by id ([`metering::iteration_weights`]).
    weights: &'w HashMap<u64, usize>,
}

impl Scope<'_> {
    fn lookup(&self, name: &str) -> Option<usize> {
        self.names.iter().rposition(|n| n == name)
    }
}

impl Node {
    fn of(expr: &IdedExpr, scope: &mut Scope<'_>) -> Option<Node> {
        Some(match &expr.expr {
            Expr::Literal(literal) => Node::Lit(lit(literal)?),
            Expr::Ident(name) => Node::Slot(scope.lookup(name)?),
            Expr::Select(select) => {
                let operand = Box::new(Node::of(&select.operand, scope)?);
                if select.test {
                    Node::Has(operand, select.field.clone())
                } else {
                    match *operand {
                        Node::Slot(slot) => Node::Path(slot, Box::new([select.field.clone()])),
                        Node::Path(slot, fields) => {
                            let mut fields = fields.into_vec();
                            fields.push(select.field.clone());
                            Node::Path(slot, fields.into_boxed_slice())
                        }
                        operand => Node::Select(Box::new(operand), select.field.clone()),
                    }
                }
            }
            Expr::Call(call) => Node::call(call, scope)?,
            Expr::Comprehension(c) => Node::comprehension(expr.id, c, scope)?,
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

    fn call(call: &CallExpr, scope: &mut Scope<'_>) -> Option<Node> {
        let name = call.func_name.as_str();
        let boxed = |e: &IdedExpr, scope: &mut Scope<'_>| Node::of(e, scope).map(Box::new);
        let arg = |e: &IdedExpr, scope: &mut Scope<'_>| Arg::of(e, scope).map(Box::new);
        match (&call.target, call.args.as_slice()) {
            (None, [a, b]) => Some(match name {
                operators::LOGICAL_AND => Node::And(boxed(a, scope)?, boxed(b, scope)?),
                operators::LOGICAL_OR => Node::Or(boxed(a, scope)?, boxed(b, scope)?),
                operators::EQUALS => Node::equality(Arg::of(a, scope)?, Arg::of(b, scope)?, true),
                operators::NOT_EQUALS => {
                    Node::equality(Arg::of(a, scope)?, Arg::of(b, scope)?, false)
                }
                operators::LESS => Node::Compare(arg(a, scope)?, arg(b, scope)?, Cmp::Lt),
                operators::LESS_EQUALS => Node::Compare(arg(a, scope)?, arg(b, scope)?, Cmp::Le),
                operators::GREATER => Node::Compare(arg(a, scope)?, arg(b, scope)?, Cmp::Gt),
                operators::GREATER_EQUALS => Node::Compare(arg(a, scope)?, arg(b, scope)?, Cmp::Ge),
                operators::ADD => Node::Arith(arg(a, scope)?, arg(b, scope)?, Op::Add),
                operators::SUBSTRACT => Node::Arith(arg(a, scope)?, arg(b, scope)?, Op::Sub),
                operators::MULTIPLY => Node::Arith(arg(a, scope)?, arg(b, scope)?, Op::Mul),
                operators::IN => Node::membership(arg(a, scope)?, arg(b, scope)?),
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
                if let (Method::Contains, Expr::Literal(LiteralValue::String(needle))) =
                    (method, &a.expr)
                {
                    let finder = Finder::new(needle.inner().as_bytes()).into_owned();
                    return Some(Node::ContainsLiteral(arg(target, scope)?, Box::new(finder)));
                }
                Some(Node::Method(arg(target, scope)?, arg(a, scope)?, method))
            }
            _ => None,
        }
    }

    /// `a == b` (`equals`) or `a != b`, comparing directly with a string literal on either side.
    fn equality(a: Arg, b: Arg, equals: bool) -> Node {
        match (a.node, b.node) {
            (node, Node::Lit(Lit::Str(literal))) => Node::EqStr(
                Box::new(Arg {
                    node,
                    charged: a.charged,
                }),
                literal.into(),
                equals,
            ),
            (Node::Lit(Lit::Str(literal)), node) => Node::EqStr(
                Box::new(Arg {
                    node,
                    charged: b.charged,
                }),
                literal.into(),
                equals,
            ),
            (x, y) => Node::Eq(
                Box::new(Arg {
                    node: x,
                    charged: a.charged,
                }),
                Box::new(Arg {
                    node: y,
                    charged: b.charged,
                }),
                equals,
            ),
        }
    }

    /// `a in b`, comparing directly with a list of string literals.
    fn membership(a: Box<Arg>, b: Box<Arg>) -> Node {
        if let Node::List(items) = &b.node
            && b.charged
            && let Some(strings) = items
                .iter()
                .map(|item| match item {
                    Lit::Str(s) => Some(Box::<str>::from(s.as_str())),
                    _ => None,
                })
                .collect::<Option<Box<[Box<str>]>>>()
        {
            return Node::InStrs(a, strings);
        }
        Node::In(a, b)
    }

    /// `exists` and `all` as the `cel` crate's macros expand them; any other comprehension is
    /// outside the subset.
    fn comprehension(id: u64, c: &ComprehensionExpr, scope: &mut Scope<'_>) -> Option<Node> {
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
            weight: *scope.weights.get(&id)?,
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
            // A nested comprehension with the same accumulator (`@result`, which CEL source
            // cannot name) binds its own in its loop and result: only its range and initial
            // value are in the outer scope.
            Expr::Comprehension(c) if c.accu_var == name => {
                stack.extend([&c.iter_range, &c.accu_init]);
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
        let mut run = Run {
            slots,
            cost: 0,
            produced: 0,
            iterations: 0,
            limits,
            regexes,
            patterns: RefCell::new(Vec::new()),
            inexact: false,
            answer_errors,
        };
        run.finish(root)
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

    /// The size the cost budget charges ([`metering::deep_size`] of the value the interpreter
    /// binds, which for a whole JSON value is [`json_size`]).
    fn charge(self) -> usize {
        match self {
            V::Str(s) => s.len(),
            V::Array(items) => items
                .iter()
                .map(|item| json_size(item).max(1))
                .fold(0, usize::saturating_add),
            V::Object(map) => map
                .values()
                .map(|item| json_size(item).max(1))
                .fold(0, usize::saturating_add),
            V::Lits(items) => lits_size(items),
            _ => 1,
        }
    }
}

/// [`metering::deep_size`] of the CEL value of `value`: a string its length, a list or map the sum
/// of its elements' (values') sizes, each at least 1, anything else 1. Bound values nest at most
/// 128 levels (see [`bound`]), so the recursion is bounded.
fn json_size(value: &Value) -> usize {
    match value {
        Value::String(s) => s.len(),
        Value::Array(items) => items
            .iter()
            .map(|item| json_size(item).max(1))
            .fold(0, usize::saturating_add),
        Value::Object(map) => map
            .values()
            .map(|item| json_size(item).max(1))
            .fold(0, usize::saturating_add),
        _ => 1,
    }
}

/// [`metering::deep_size`] of a list literal of literals.
fn lits_size(items: &[Lit]) -> usize {
    items
        .iter()
        .map(|item| match item {
            Lit::Str(s) => s.len().max(1),
            _ => 1,
        })
        .fold(0, usize::saturating_add)
}

/// [`metering::deep_size`] of a list literal of strings.
pub(crate) fn strs_size(items: &[Box<str>]) -> usize {
    items
        .iter()
        .map(|item| item.len().max(1))
        .fold(0, usize::saturating_add)
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

impl<'a> Run<'a, '_> {
    /// `outcome` as an [`Out`]: an error only when the run answers errors.
    fn check<T>(&self, outcome: Result<T, Fail>) -> Option<Result<T, Fail>> {
        match outcome {
            Ok(value) => Some(Ok(value)),
            Err(error) => self.answer_errors.then_some(Err(error)),
        }
    }

    /// Charges `amount` to the cost budget, or gives the cost function's error, charging nothing,
    /// as [`metering::size_budget`] does.
    fn charge(&mut self, amount: usize) -> Option<Result<(), Fail>> {
        let total = self.cost.saturating_add(amount);
        if total > self.limits.max_cost {
            return self.check(Err(Box::new(metering::cost_exceeded(self.limits.max_cost))));
        }
        self.cost = total;
        Some(Ok(()))
    }

    /// Charges `amount` to the produced-bytes budget (the result of an arithmetic operator).
    fn produce(&mut self, amount: usize) -> Option<Result<(), Fail>> {
        let total = self.produced.saturating_add(amount);
        if total > self.limits.max_produced_bytes {
            return self.check(Err(Box::new(metering::produced_exceeded(
                self.limits.max_produced_bytes,
            ))));
        }
        self.produced = total;
        Some(Ok(()))
    }

    fn arg(&mut self, arg: &'a Arg) -> Out<'a> {
        let value = tri!(self.eval(&arg.node));
        if arg.charged {
            tri!(self.charge(value.charge()));
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
    fn finish(&mut self, root: &'a Node) -> Option<Result<bool, ExecutionError>> {
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
                let a = tri!(self.arg(a));
                let b = tri!(self.arg(b));
                V::Bool(equal(a, b)? == *equals)
            }
            Node::EqStr(a, literal, equals) => {
                let a = tri!(self.arg(a));
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
                let needle = tri!(self.arg(a));
                match tri!(self.arg(b)) {
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
                let needle = tri!(self.arg(a));
                tri!(self.charge(*size));
                match needle {
                    V::Str(_) | V::Bool(_) | V::Null | V::Int(_) | V::UInt(_) | V::Double(_) => {
                        V::Bool(false)
                    }
                    V::Array(_) | V::Object(_) | V::Lits(_) => return None,
                }
            }
            Node::InStrs(a, items) => {
                let needle = tri!(self.arg(a));
                // The list literal is charged its size, as `In` charges it.
                tri!(self.charge(strs_size(items)));
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
                // The range is charged before the loop runs, nothing when it would go over.
                let total = self.iterations.saturating_add(size);
                if total > self.limits.max_iterations {
                    return self
                        .check(Err(Box::new(metering::iterations_exceeded(
                            self.limits.max_iterations,
                        ))))
                        .map(|outcome| outcome.map(|()| V::Null));
                }
                self.iterations = total;
                // Then the loop's cost, as `metering::loop_cost` charges it (D-127).
                let binding = match range {
                    V::Array(items) => items
                        .iter()
                        .map(|item| json_size(item).max(1))
                        .fold(0, usize::saturating_add),
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

mod guard;
#[cfg(test)]
mod tests;
