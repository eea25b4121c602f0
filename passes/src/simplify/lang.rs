//! The e-graph language of `simplify`: one e-node per pure op, with the
//! op's attributes as part of its identity, and the analysis that attaches
//! a type and a constant value to every e-class.
//!
//! An e-node ([`TNode`]) is a head and the e-classes of its operands:
//! - `Op(name)`: a registered pure op; its full attribute list is interned
//!   as an [`AttrSet`], so two ops are one e-node exactly when CSE would
//!   merge them (same name, operands, attributes);
//! - `Leaf(k)`: value `k` the e-graph cannot look into (a block argument,
//!   or a result of an op with effects); leaves are never equal to each
//!   other by construction;
//! - `Proj(i)`: result `i` of a multi-result op's e-class (`layer_norm`,
//!   `unbind`), whose e-class then stands for the tuple of its results.
//!
//! Invariants the rules rely on:
//! - every e-class of a value has exactly one tensor type, inferred by the
//!   op's registered type inference (a node whose inference fails is kept
//!   out of every union and costs infinity);
//! - `splat` is `Some(v)` only when every element of the class's value is
//!   `v` (already rounded to the element type), learnt from `tensor.full`,
//!   splat `tensor.constant`s, and views or clones of such values;
//! - an attribute set with a dialect-prefixed attribute (`aot.no_grad`,
//!   `aot.hidden_write`, `aot.virtual_base`, ...) is *marked*: such a node
//!   means more than its value (autograd or a later pass reads the mark),
//!   so no rule matches it and it contributes no constant.

use aot_ir::*;
use egg::{Analysis, DidMerge, Id, Language};
use rustc_hash::{FxHashMap, FxHashSet};
use smallvec::SmallVec;
use std::fmt;

/// An interned attribute list (sorted by name, as ops keep them).
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct AttrSet(pub u32);

/// What an e-node is.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Head {
    Op(OpName),
    Leaf(u32),
    Proj(u32),
}

/// An e-node: a head, its attributes and its operands' e-classes.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TNode {
    pub head: Head,
    pub attrs: AttrSet,
    /// The result type of an op that has no type inference (`full`,
    /// `cast`, `arange`: the written type is part of what the op means).
    pub ty: Option<Type>,
    pub children: SmallVec<[Id; 3]>,
}

impl Language for TNode {
    type Discriminant = Head;

    fn discriminant(&self) -> Head {
        self.head
    }

    fn matches(&self, other: &Self) -> bool {
        self.head == other.head
            && self.attrs == other.attrs
            && self.ty == other.ty
            && self.children.len() == other.children.len()
    }

    fn children(&self) -> &[Id] {
        &self.children
    }

    fn children_mut(&mut self) -> &mut [Id] {
        &mut self.children
    }
}

impl fmt::Display for TNode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.head {
            Head::Op(n) => write!(f, "op{}#{}", n.as_u32(), self.attrs.0),
            Head::Leaf(k) => write!(f, "leaf{k}"),
            Head::Proj(i) => write!(f, "proj{i}"),
        }
    }
}

/// What the analysis knows of an e-class.
#[derive(Clone, Debug, PartialEq)]
pub struct ClassData {
    /// The value's type, or each result's type for a multi-result op's
    /// class (`tuple`). Empty when inference failed.
    pub types: SmallVec<[Type; 1]>,
    pub tuple: bool,
    /// Every element equals this value (`f64` bits, rounded to the type).
    pub splat: Option<u64>,
}

impl ClassData {
    fn invalid() -> ClassData {
        ClassData { types: SmallVec::new(), tuple: false, splat: None }
    }

    /// The type of a (single) value class.
    pub fn ty(&self) -> Option<Type> {
        match (&self.types[..], self.tuple) {
            ([t], false) => Some(*t),
            _ => None,
        }
    }

    pub fn is_valid(&self) -> bool {
        !self.types.is_empty()
    }
}

/// The analysis: the context (for types, attributes and op definitions),
/// interned attribute sets, and the types of leaves.
pub struct Facts<'c> {
    pub ctx: &'c mut Context,
    sets: Vec<Box<[NamedAttr]>>,
    marked: Vec<bool>,
    set_ids: FxHashMap<Box<[NamedAttr]>, AttrSet>,
    pub leaf_types: Vec<Type>,
    /// Leaves a metadata mutation consumes: their classes are never merged.
    pub pinned: FxHashSet<u32>,
    /// The result types of the node being added, when its op is already in
    /// the IR (they need no inference).
    pub known: Option<SmallVec<[Type; 1]>>,
}

pub type Graph<'c> = egg::EGraph<TNode, Facts<'c>>;

impl<'c> Facts<'c> {
    pub fn new(ctx: &'c mut Context) -> Self {
        Facts {
            ctx,
            sets: Vec::new(),
            marked: Vec::new(),
            set_ids: FxHashMap::default(),
            leaf_types: Vec::new(),
            pinned: FxHashSet::default(),
            known: None,
        }
    }

    /// Interns an attribute list (sorted first).
    pub fn intern_attrs(&mut self, mut attrs: Vec<NamedAttr>) -> AttrSet {
        self.ctx.sort_named_attrs(&mut attrs);
        let key: Box<[NamedAttr]> = attrs.into();
        if let Some(&id) = self.set_ids.get(&key) {
            return id;
        }
        let id = AttrSet(self.sets.len() as u32);
        let marked = key.iter().any(|a| self.ctx.sym_str(a.name).contains('.'));
        self.sets.push(key.clone());
        self.marked.push(marked);
        self.set_ids.insert(key, id);
        id
    }

    /// Interns an attribute list already sorted by name (an op's own).
    pub fn intern_sorted(&mut self, attrs: &[NamedAttr]) -> AttrSet {
        match self.set_ids.get(attrs) {
            Some(&id) => id,
            None => self.intern_attrs(attrs.to_vec()),
        }
    }

    pub fn attrs(&self, s: AttrSet) -> &[NamedAttr] {
        &self.sets[s.0 as usize]
    }

    /// Whether the set holds a dialect-prefixed attribute (see the module
    /// comment).
    pub fn is_marked(&self, s: AttrSet) -> bool {
        self.marked[s.0 as usize]
    }

    /// Typed read access to an attribute set.
    pub fn view(&self, s: AttrSet) -> AttrView<'_> {
        AttrView::of_attrs(self.ctx, self.attrs(s))
    }

    /// The registered definition of a node's op.
    pub fn def(&self, n: &TNode) -> Option<&'static OpDef> {
        match n.head {
            Head::Op(name) => self.ctx.op_name_def(name),
            _ => None,
        }
    }

    /// The tensor type behind `t`.
    pub fn tensor(&self, t: Type) -> Option<&TensorType> {
        self.ctx.as_tensor(t)
    }
}

fn infer_types(g: &mut Graph<'_>, n: &TNode) -> ClassData {
    match n.head {
        Head::Leaf(k) => {
            let t = g.analysis.leaf_types[k as usize];
            ClassData { types: SmallVec::from_elem(t, 1), tuple: false, splat: None }
        }
        Head::Proj(i) => {
            let d = &g[n.children[0]].data;
            match d.types.get(i as usize) {
                Some(&t) if d.tuple => ClassData { types: SmallVec::from_elem(t, 1), tuple: false, splat: None },
                _ => ClassData::invalid(),
            }
        }
        Head::Op(name) => {
            let mut operand_types: SmallVec<[Type; 4]> = SmallVec::new();
            for &c in &n.children {
                match g[c].data.ty() {
                    Some(t) => operand_types.push(t),
                    None => return ClassData::invalid(),
                }
            }
            let facts = &mut g.analysis;
            let Some(def) = facts.ctx.op_name_def(name) else { return ClassData::invalid() };
            let Some(infer) = def.infer else {
                return match n.ty {
                    Some(t) if facts.ctx.as_tensor(t).is_some() => {
                        ClassData { types: SmallVec::from_elem(t, 1), tuple: false, splat: None }
                    }
                    _ => ClassData::invalid(),
                };
            };
            let inferred = {
                let ictx = InferCtx::new(facts.ctx, &operand_types, &facts.sets[n.attrs.0 as usize]);
                infer(&ictx)
            };
            let Ok(inferred) = inferred else { return ClassData::invalid() };
            let types: SmallVec<[Type; 1]> = inferred.into_iter().map(|t| facts.ctx.intern_type(t)).collect();
            if types.is_empty() || types.iter().any(|&t| facts.ctx.as_tensor(t).is_none()) {
                return ClassData::invalid();
            }
            let tuple = types.len() != 1;
            ClassData { types, tuple, splat: None }
        }
    }
}

/// The constant every element of `n`'s value equals, if the node shows one.
fn splat_of(g: &Graph<'_>, n: &TNode, data: &ClassData) -> Option<u64> {
    let facts = &g.analysis;
    let def = facts.def(n)?;
    if facts.is_marked(n.attrs) {
        return None;
    }
    let elem = facts.tensor(data.ty()?)?.elem;
    let round = |v: f64| aot_runtime::buffer::round_to(elem, v).to_bits();
    if aot_dialects::tensor::FullOp::NAME == def.name {
        return facts.view(n.attrs).f64("value").map(round);
    }
    if aot_dialects::tensor::ConstantOp::NAME == def.name {
        let a = facts.view(n.attrs).get("value")?;
        return match facts.ctx.attr_data(a) {
            AttrData::Dense { data, .. } if data.is_splat() => Some(round(data.get_f64(0))),
            _ => None,
        };
    }
    // Views and clones of a splat show the same value everywhere.
    let passes = is_view(def) || aot_dialects::tensor::CloneOp::NAME == def.name;
    if passes && n.children.len() == 1 && !data.tuple {
        let operand = &g[n.children[0]].data;
        let same_elem = operand.ty().and_then(|t| facts.tensor(t)).is_some_and(|t| t.elem == elem);
        return operand.splat.filter(|_| same_elem);
    }
    None
}

impl Analysis<TNode> for Facts<'_> {
    type Data = ClassData;

    fn make(g: &mut Graph<'_>, n: &TNode, _id: Id) -> ClassData {
        let mut data = match (g.analysis.known.take(), n.head) {
            (Some(types), Head::Op(_)) => ClassData { tuple: types.len() != 1, types, splat: None },
            _ => infer_types(g, n),
        };
        if data.is_valid() {
            data.splat = splat_of(g, n, &data);
        }
        data
    }

    fn merge(&mut self, a: &mut ClassData, b: ClassData) -> DidMerge {
        // Unions only join classes of one type (the rules check it), so the
        // types agree whenever both are known.
        let mut changed_a = false;
        if !a.is_valid() && b.is_valid() {
            a.types = b.types.clone();
            a.tuple = b.tuple;
            changed_a = true;
        }
        let changed_b = a.splat.is_some() && b.splat.is_none() || a.is_valid() && !b.is_valid();
        if a.splat.is_none() && b.splat.is_some() {
            a.splat = b.splat;
            changed_a = true;
        }
        DidMerge(changed_a, changed_b)
    }
}

/// The modelled cost of one node, given the data of its class and the
/// types of its operands: what it costs to materialize its result and to
/// compute it, in bytes (moving a byte counts as four flops, about the ratio
/// of FMA throughput to memory bandwidth of the CPUs this runs on), plus one
/// per op, so that among equal costs fewer ops win and no cycle of free
/// nodes can be extracted. Views cost only that one: codegen turns them
/// into index arithmetic. `None`: the node cannot be extracted (its type is
/// unknown).
pub fn node_cost(facts: &Facts<'_>, n: &TNode, data: &ClassData, operands: &[&TensorType]) -> Option<f64> {
    const OP: f64 = 1.0;
    const FLOPS_PER_BYTE: f64 = 4.0;
    if !data.is_valid() {
        return None;
    }
    let def = match n.head {
        Head::Leaf(_) => return Some(0.0),
        Head::Proj(_) => return Some(OP),
        Head::Op(_) => facts.def(n)?,
    };
    if is_view(def) {
        return Some(OP);
    }
    let mut bytes = 0.0;
    let mut out_numel = 0.0;
    for &t in &data.types {
        let tt = facts.tensor(t)?;
        let numel = tt.numel_at_hint() as f64;
        bytes += numel * tt.elem.byte_size() as f64;
        out_numel += numel;
    }
    let in_numel: f64 = operands.iter().map(|t| t.numel_at_hint() as f64).sum();
    let flops = if is_matrix_product(def) {
        // Two flops per multiply-add; every product here contracts the
        // left operand's last dimension.
        let k = operands.first().and_then(|t| t.shape.last()).copied().unwrap_or(1);
        let k = aot_ir::sym::at_hint(k).unwrap_or(aot_ir::sym::SIZE_HINT).max(0) as f64;
        2.0 * out_numel * k
    } else if def.has(Traits::ELEMENTWISE) {
        out_numel
    } else {
        // Reductions, normalizations, gathers and scatters: each element
        // read or written is touched about once.
        in_numel.max(out_numel)
    };
    Some(OP + bytes + flops / FLOPS_PER_BYTE)
}

/// A single-operand view op with a layout rule (not a scatter).
pub fn is_view(def: &OpDef) -> bool {
    def.has(Traits::VIEW) && aot_dialects::view::view_interface(def.name).is_some()
}

fn is_matrix_product(def: &OpDef) -> bool {
    use aot_dialects::tensor as t;
    [t::MmOp::NAME, t::BmmOp::NAME, t::MatmulOp::NAME, t::LinearOp::NAME].contains(&def.name)
}
