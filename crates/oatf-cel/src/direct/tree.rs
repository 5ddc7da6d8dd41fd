//! The direct path's tree: the translation of a CEL syntax tree into [`Node`]s, when every part
//! of it is in the subset, and the charges of its literals.

use std::collections::HashMap;

use cel::common::ast::{CallExpr, ComprehensionExpr, Expr, IdedExpr, LiteralValue, operators};
use memchr::memmem::Finder;

use crate::metering::NAMESPACES;

/// A literal of the subset.
#[derive(Debug, Clone)]
pub(super) enum Lit {
    Bool(bool),
    Int(i64),
    UInt(u64),
    Double(f64),
    Str(String),
    Null,
}

/// A method of the subset on a string (or `size` on a string, list or map).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Method {
    Contains,
    StartsWith,
    EndsWith,
    Matches,
}

/// An arithmetic operator of the subset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Op {
    Add,
    Sub,
    Mul,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Cmp {
    Lt,
    Le,
    Gt,
    Ge,
}

/// A metered argument: `charged` when the metered tree wraps it in the cost function (it is not a
/// literal).
#[derive(Debug)]
pub(super) struct Arg {
    pub(super) node: Node,
    pub(super) charged: bool,
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
pub(super) enum Node {
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
        /// The comprehension's iteration weight ([`crate::metering::iteration_weights`], D-127).
        weight: usize,
    },
}

/// The identifiers in scope while translating: slot names, innermost last.
pub(super) struct Scope<'w> {
    pub(super) names: Vec<String>,
    pub(super) slots: usize,
    /// The iteration weight of each comprehension, by id ([`crate::metering::iteration_weights`]).
    pub(super) weights: &'w HashMap<u64, usize>,
}

impl Scope<'_> {
    fn lookup(&self, name: &str) -> Option<usize> {
        self.names.iter().rposition(|n| n == name)
    }
}

impl Node {
    pub(super) fn of(expr: &IdedExpr, scope: &mut Scope<'_>) -> Option<Node> {
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

/// [`crate::metering::deep_size`] of a list literal of literals.
pub(super) fn lits_size(items: &[Lit]) -> usize {
    items
        .iter()
        .map(|item| match item {
            Lit::Str(s) => s.len().max(1),
            _ => 1,
        })
        .fold(0, usize::saturating_add)
}

/// [`crate::metering::deep_size`] of a list literal of strings.
pub(super) fn strs_size(items: &[Box<str>]) -> usize {
    items
        .iter()
        .map(|item| item.len().max(1))
        .fold(0, usize::saturating_add)
}
