//! The errors PyTorch's autograd raises only when `backward` runs, found
//! statically while functionalize interprets the program.
//!
//! Functionalize mirrors the autograd graph the program would build: a node
//! per op autograd records (grad mode, an operand that requires grad), with
//! edges to the nodes that made its operands' histories, and a leaf node per
//! argument or differentiable base that requires grad. A call to `backward`
//! runs the nodes reachable from the objective (outputs that require grad,
//! arguments whose data mutation autograd saw); each raises, as PyTorch's
//! engine does:
//!
//! - a value its derivative reads was changed in place after the op saved
//!   it (the version counter check of `SavedVariable::unpack`). What a rule
//!   reads is found by running it ([`aot_dialects::autodiff::saved_by_backward`]);
//! - a gradient reaches a node in a shape its output no longer has, because
//!   a metadata mutation under no_grad changed it ("returned an invalid
//!   gradient"), unless the shape expands to the recorded one;
//! - the node has no derivative (`set_` that autograd records).
//!
//! The graph is only as precise as functionalize's view of histories: views
//! share their root's history (PyTorch's view nodes save no tensors, and a
//! view's shape change is checked against its root only when the view is
//! the root itself).

use aot_ir::*;

/// A value an op's backward may read, with the version counter of its
/// storage when the op saved it (`result`: result `index`, else operand).
#[derive(Clone, Copy, Debug)]
pub(super) struct SavedRef {
    pub result: bool,
    pub index: usize,
    /// The version counter it shares, and that counter's value.
    pub sto: usize,
    pub version: u64,
    /// The storage holding its data, and the number of writes to it.
    pub data_sto: usize,
    pub data_version: u32,
}

/// Where a gradient goes: the node of an operand's history, the shape the
/// gradient has (the operand's, when used), and the shape that node's
/// output had when recorded (only known when the operand holds the history).
#[derive(Clone, Debug)]
pub(super) struct Edge {
    pub node: usize,
    pub got: Vec<i64>,
    pub expected: Option<Vec<i64>>,
}

struct Node {
    next: Vec<usize>,
    /// The emitted functional op, whose rule the backward would run.
    op: Option<Op>,
    needs: Vec<bool>,
    saved: Vec<SavedRef>,
    error: Option<String>,
    loc: Location,
}

#[derive(Default)]
pub(super) struct AutogradGraph {
    nodes: Vec<Node>,
}

/// PyTorch's `is_expandable_to(shape, desired)`.
fn expandable(shape: &[i64], desired: &[i64]) -> bool {
    if shape.len() > desired.len() {
        return false;
    }
    shape.iter().rev().zip(desired.iter().rev()).all(|(&s, &d)| s == d || s == 1)
}

fn dims(s: &[i64]) -> String {
    s.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(", ")
}

/// The engine's check of a gradient a node (`consumer`) passes on.
fn invalid_gradient(consumer: &str, index: usize, e: &Edge) -> Option<String> {
    let expected = e.expected.as_ref()?;
    // The engine sums a gradient down to the recorded shape when that
    // shape expands to the gradient's.
    (!expandable(expected, &e.got)).then(|| {
        format!(
            "Function {consumer}Backward0 returned an invalid gradient at index {index} - got [{}] but expected shape compatible with [{}]",
            dims(&e.got),
            dims(expected)
        )
    })
}

/// PyTorch's name of the backward node of op `name`, without `Backward0`:
/// `tensor.mul` and `mut.mul_` are `Mul`.
pub(super) fn node_name(name: &str) -> String {
    let short = name.split_once('.').map_or(name, |(_, s)| s);
    aot_runtime::interp::autograd_node_name(short.trim_end_matches('_'))
}

impl AutogradGraph {
    /// Is node `n` a leaf (an argument or a differentiable base)?
    pub fn is_leaf(&self, n: usize) -> bool {
        self.nodes[n].op.is_none() && self.nodes[n].next.is_empty() && self.nodes[n].error.is_none()
    }

    /// Makes node `n` raise `message` when a backward runs it.
    pub fn set_error(&mut self, n: usize, message: &str, loc: Location) {
        let node = &mut self.nodes[n];
        node.error = Some(message.to_string());
        node.loc = loc;
    }

    pub fn has_error(&self, n: usize) -> bool {
        self.nodes[n].error.is_some()
    }

    pub fn leaf(&mut self, loc: Location) -> usize {
        self.nodes.push(Node { next: Vec::new(), op: None, needs: Vec::new(), saved: Vec::new(), error: None, loc });
        self.nodes.len() - 1
    }

    /// A node for an op autograd records. `edges[i]`: operand `i`'s history
    /// (None: it does not require grad). `name`: PyTorch's node name
    /// without `Backward0`.
    pub fn node(
        &mut self,
        name: &str,
        op: Option<Op>,
        edges: &[Option<Edge>],
        saved: Vec<SavedRef>,
        error: Option<String>,
        loc: Location,
    ) -> usize {
        let error =
            error.or_else(|| edges.iter().enumerate().find_map(|(i, e)| invalid_gradient(name, i, e.as_ref()?)));
        self.nodes.push(Node {
            next: edges.iter().flatten().map(|e| e.node).collect(),
            op,
            needs: edges.iter().map(Option::is_some).collect(),
            saved,
            error,
            loc,
        });
        self.nodes.len() - 1
    }

    /// The error `backward` from the objective `roots` raises, if any, with
    /// the location of the op whose node raises it. Nodes run newest first,
    /// as the engine runs them; `version(sto)` is a storage's version
    /// counter at the end of the call.
    pub fn first_error(
        &self,
        rw: &mut Rewriter<'_>,
        roots: &[Edge],
        version: impl Fn(usize) -> u64,
        data_version: impl Fn(usize) -> u32,
    ) -> Option<(String, Option<Location>)> {
        // The objective sums `output * tangent`: its node is a `Mul`.
        if let Some(m) = roots.iter().find_map(|e| invalid_gradient("Mul", 0, e)) {
            return Some((m, None));
        }
        let mut run = vec![false; self.nodes.len()];
        let mut stack: Vec<usize> = roots.iter().map(|e| e.node).collect();
        while let Some(n) = stack.pop() {
            if !std::mem::replace(&mut run[n], true) {
                stack.extend(&self.nodes[n].next);
            }
        }
        for (k, node) in self.nodes.iter().enumerate().rev() {
            if !run[k] {
                continue;
            }
            if let Some(e) = &node.error {
                return Some((e.clone(), Some(node.loc)));
            }
            // Stale: its counter moved. Silently changed: written through a
            // tensor set_ onto its storage, whose counter is another one;
            // PyTorch's backward then reads the new data unchecked.
            let stale = |s: &&SavedRef| version(s.sto) != s.version;
            let silent = |s: &&SavedRef| version(s.sto) == s.version && data_version(s.data_sto) != s.data_version;
            let changed: Vec<&SavedRef> = node.saved.iter().filter(|s| stale(s) || silent(s)).collect();
            let Some(op) = node.op.filter(|&op| !changed.is_empty() && !rw.is_erased(op)) else { continue };
            let Some((operands, results)) = aot_dialects::autodiff::saved_by_backward(rw, op, &node.needs) else {
                continue;
            };
            for s in changed {
                let (read, value) = if s.result {
                    (results.get(s.index).copied(), rw.results(op).get(s.index).copied())
                } else {
                    (operands.get(s.index).copied(), rw.operands(op).nth(s.index))
                };
                if let (Some(true), Some(v)) = (read, value) {
                    if stale(&s) {
                        return Some((stale_message(rw, v, s.version, version(s.sto)), Some(node.loc)));
                    }
                    return Some((
                        "unsupported operation: a value saved for the backward was changed in place through a tensor set_ onto its storage, which PyTorch's version check does not see: its gradient would use the changed value".to_string(),
                        Some(node.loc),
                    ));
                }
            }
        }
        None
    }
}

/// PyTorch's wording of the saved-value version check.
fn stale_message(ctx: &Context, v: Value, saved: u64, now: u64) -> String {
    let (name, shape) = match ctx.value_tensor(v) {
        Some(t) => {
            let name = match t.elem {
                ElemType::F32 => "Float",
                ElemType::F64 => "Double",
                ElemType::F16 => "Half",
                ElemType::BF16 => "BFloat16",
                ElemType::I64 => "Long",
                ElemType::I32 => "Int",
                ElemType::I8 => "Char",
                ElemType::I1 => "Bool",
            };
            (name, dims(&t.shape))
        }
        None => ("", String::new()),
    };
    format!(
        "one of the variables needed for gradient computation has been modified by an inplace operation: [torch.{name}Tensor [{shape}]] is at version {now}; expected version {saved} instead"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expandability_follows_pytorch() {
        assert!(expandable(&[3], &[1, 3]));
        assert!(expandable(&[1, 3], &[2, 3]));
        assert!(!expandable(&[1, 3], &[3]));
        assert!(!expandable(&[3, 2], &[2, 3]));
        // unsqueeze_ under no_grad: [3] recorded, [1, 3] arrives: reduced.
        let e = Edge { node: 0, got: vec![1, 3], expected: Some(vec![3]) };
        assert!(invalid_gradient("Mul", 0, &e).is_none());
        // squeeze_ under no_grad: [1, 3] recorded, [3] arrives: PyTorch's error.
        let e = Edge { node: 0, got: vec![3], expected: Some(vec![1, 3]) };
        assert_eq!(
            invalid_gradient("Mul", 0, &e).as_deref(),
            Some("Function MulBackward0 returned an invalid gradient at index 0 - got [3] but expected shape compatible with [1, 3]")
        );
    }
}
