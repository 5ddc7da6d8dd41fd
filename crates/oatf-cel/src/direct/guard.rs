//! The literal guard of an expression on the direct path (D-95): its needles and its residual.

use super::tree::{Arg, Node, strs_size};
use crate::limits::CelLimits;

/// The literal guard of an expression (D-95): its `needles`, the literals its `contains` and
/// `in` leaves look for in strings of the message, and its `residual`, the expression with those
/// leaves answering "absent". On a message none of whose strings (keys and values, at any depth)
/// contains a needle, the residual evaluates exactly as the expression: the same values, charges
/// and abstentions. Expressions that differ only in their needles have the same residual (equal
/// `key`), evaluated once per message for all of them.
#[derive(Debug)]
pub(crate) struct Guard {
    pub(crate) needles: Vec<String>,
    pub(crate) key: String,
    residual: Node,
}

impl Guard {
    /// The guard of the direct form `root` (with `slots` slots, `message` the first) of an
    /// expression without variables, when it has needles.
    pub(super) fn of(root: &Node, slots: usize, limits: &CelLimits) -> Option<Guard> {
        let mut from_message = vec![false; slots];
        if let Some(message) = from_message.first_mut() {
            *message = true;
        }
        let mut needles = Vec::new();
        let residual = residual(root, &mut from_message, &mut needles);
        (!needles.is_empty()).then(|| Guard {
            // The limits decide the residual's charges: programs of engines with other limits
            // do not share it.
            key: format!("{limits:?} {residual:?}"),
            needles,
            residual,
        })
    }

    /// The residual tree.
    pub(super) fn residual(&self) -> &Node {
        &self.residual
    }
}

/// The residual of `node` (D-95): its `contains` and `in` leaves on strings of the message
/// erased, their literals added to `needles`. `from_message` says, per slot, whether the slot
/// holds a part of the message (`message` itself, a comprehension variable over a part of it).
fn residual(node: &Node, from_message: &mut Vec<bool>, needles: &mut Vec<String>) -> Node {
    let boxed = |n: &Node, f: &mut Vec<bool>, l: &mut Vec<String>| Box::new(residual(n, f, l));
    let arg = |a: &Arg, f: &mut Vec<bool>, l: &mut Vec<String>| {
        Box::new(Arg {
            node: residual(&a.node, f, l),
            charged: a.charged,
        })
    };
    match node {
        Node::ContainsLiteral(target, finder)
            if of_message(&target.node, from_message)
                && !finder.needle().is_empty()
                && std::str::from_utf8(finder.needle()).is_ok() =>
        {
            needles.push(String::from_utf8_lossy(finder.needle()).into_owned());
            Node::ErasedContains(arg(target, from_message, needles))
        }
        Node::InStrs(a, items)
            if of_message(&a.node, from_message) && items.iter().all(|i| !i.is_empty()) =>
        {
            needles.extend(items.iter().map(|i| i.to_string()));
            // Charged its size rounded up to a power of two, so that expressions whose needles
            // differ a little in length share the residual; the residual answers no errors, so a
            // larger charge can only make it abstain (D-127).
            Node::ErasedIn(
                arg(a, from_message, needles),
                crate::metering::compared(usize::MAX, |_| strs_size(items)).next_power_of_two(),
            )
        }
        Node::Lit(l) => Node::Lit(l.clone()),
        Node::List(items) => Node::List(items.clone()),
        Node::Slot(s) => Node::Slot(*s),
        Node::Path(s, fields) => Node::Path(*s, fields.clone()),
        Node::Select(o, f) => Node::Select(boxed(o, from_message, needles), f.clone()),
        Node::Has(o, f) => Node::Has(boxed(o, from_message, needles), f.clone()),
        Node::Index(o, k) => Node::Index(boxed(o, from_message, needles), k.clone()),
        Node::And(a, b) => Node::And(
            boxed(a, from_message, needles),
            boxed(b, from_message, needles),
        ),
        Node::Or(a, b) => Node::Or(
            boxed(a, from_message, needles),
            boxed(b, from_message, needles),
        ),
        Node::Not(a) => Node::Not(boxed(a, from_message, needles)),
        Node::Cond(c, a, b) => Node::Cond(
            boxed(c, from_message, needles),
            boxed(a, from_message, needles),
            boxed(b, from_message, needles),
        ),
        Node::Eq(a, b, e) => Node::Eq(
            arg(a, from_message, needles),
            arg(b, from_message, needles),
            *e,
        ),
        Node::EqStr(a, l, e) => Node::EqStr(arg(a, from_message, needles), l.clone(), *e),
        Node::Compare(a, b, op) => Node::Compare(
            arg(a, from_message, needles),
            arg(b, from_message, needles),
            *op,
        ),
        Node::Arith(a, b, op) => Node::Arith(
            arg(a, from_message, needles),
            arg(b, from_message, needles),
            *op,
        ),
        Node::In(a, b) => Node::In(arg(a, from_message, needles), arg(b, from_message, needles)),
        Node::InStrs(a, items) => Node::InStrs(arg(a, from_message, needles), items.clone()),
        Node::Size(a) => Node::Size(arg(a, from_message, needles)),
        Node::Method(t, a, m) => Node::Method(
            arg(t, from_message, needles),
            arg(a, from_message, needles),
            *m,
        ),
        Node::ContainsLiteral(t, finder) => Node::ContainsLiteral(
            arg(t, from_message, needles),
            Box::new(finder.as_ref().clone().into_owned()),
        ),
        Node::ErasedContains(t) => Node::ErasedContains(arg(t, from_message, needles)),
        Node::ErasedIn(a, n) => Node::ErasedIn(arg(a, from_message, needles), *n),
        Node::Loop {
            range,
            slot,
            body,
            exists,
            weight,
        } => {
            let range_node = residual(range, from_message, needles);
            let inner = of_message(range, from_message);
            if from_message.len() <= *slot {
                from_message.resize(*slot + 1, false);
            }
            let before = from_message.get(*slot).copied().unwrap_or(false);
            if let Some(flag) = from_message.get_mut(*slot) {
                *flag = inner;
            }
            let body_node = residual(body, from_message, needles);
            if let Some(flag) = from_message.get_mut(*slot) {
                *flag = before;
            }
            Node::Loop {
                range: Box::new(range_node),
                slot: *slot,
                body: Box::new(body_node),
                exists: *exists,
                weight: *weight,
            }
        }
    }
}

/// Whether `node` evaluates to a part of the message (or to nothing): the message, a
/// comprehension variable over a part of it, or a field or element of one.
fn of_message(node: &Node, from_message: &[bool]) -> bool {
    match node {
        Node::Slot(s) | Node::Path(s, _) => from_message.get(*s).copied().unwrap_or(false),
        Node::Select(o, _) | Node::Index(o, _) => of_message(o, from_message),
        _ => false,
    }
}
