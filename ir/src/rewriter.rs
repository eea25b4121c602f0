//! Building and rewriting IR.
//!
//! [`Rewriter`] is the one way to change IR: create operations at an
//! insertion point, replace uses, erase, move, edit attributes and block
//! arguments. It borrows the [`Context`] mutably and dereferences to it for
//! reads, so passes read and write through one handle. Every edit keeps the
//! context's structural invariants (use lists, block order, parent links).
//!
//! Creating an op through [`Rewriter::build`] infers its result types from its
//! registered definition, so a pass cannot create an op whose result types
//! disagree with the op's own shape rules.

use crate::attributes::NamedAttr;
use crate::context::{Context, Use};
use crate::diagnostics::Diagnostic;
use crate::entity::*;
use crate::registry::InferCtx;
use crate::types::TypeData;
use rustc_hash::FxHashMap;
use smallvec::SmallVec;
use std::ops::{Deref, DerefMut};

/// Everything needed to create an operation.
#[derive(Clone, Debug)]
pub struct OperationState {
    pub name: OpName,
    pub operands: SmallVec<[Value; 4]>,
    pub result_types: SmallVec<[Type; 2]>,
    pub attrs: Vec<NamedAttr>,
    pub regions: SmallVec<[Region; 1]>,
    pub loc: Location,
}

impl OperationState {
    pub fn new(name: OpName, loc: Location) -> Self {
        OperationState {
            name,
            operands: SmallVec::new(),
            result_types: SmallVec::new(),
            attrs: Vec::new(),
            regions: SmallVec::new(),
            loc,
        }
    }

    pub fn add_attr(&mut self, name: Symbol, value: Attribute) {
        self.attrs.push(NamedAttr { name, value });
    }

    /// Creates the op, detached (attributes sorted by name, as every op
    /// keeps them).
    pub fn create_in(self, ctx: &mut Context) -> Op {
        let mut attrs = self.attrs;
        ctx.sort_named_attrs(&mut attrs);
        ctx.create_op_raw(
            self.name,
            &self.operands,
            &self.result_types,
            attrs.into_iter().collect(),
            self.regions,
            self.loc,
        )
    }
}

/// Where new operations go.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum InsertPoint {
    /// At the end of the block.
    End(Block),
    /// At the start of the block.
    Start(Block),
    /// Just before the op.
    Before(Op),
    /// Just after the op.
    After(Op),
}

/// The mutation API over a [`Context`].
pub struct Rewriter<'c> {
    ctx: &'c mut Context,
    ip: Option<InsertPoint>,
    loc: Location,
    changed: bool,
}

impl Deref for Rewriter<'_> {
    type Target = Context;
    fn deref(&self) -> &Context {
        self.ctx
    }
}

impl DerefMut for Rewriter<'_> {
    fn deref_mut(&mut self) -> &mut Context {
        self.ctx
    }
}

impl<'c> Rewriter<'c> {
    pub fn new(ctx: &'c mut Context) -> Self {
        let loc = ctx.unknown_loc();
        Rewriter { ctx, ip: None, loc, changed: false }
    }

    pub fn ctx(&self) -> &Context {
        self.ctx
    }

    /// True once any edit was made through this rewriter.
    pub fn changed(&self) -> bool {
        self.changed
    }

    pub fn set_insertion_point(&mut self, ip: InsertPoint) {
        self.ip = Some(ip);
    }

    pub fn insertion_point(&self) -> Option<InsertPoint> {
        self.ip
    }

    /// The op whose block the insertion point is in (for the facts of the
    /// enclosing function).
    fn enclosing_op(&self) -> Option<Op> {
        match self.ip? {
            InsertPoint::End(b) | InsertPoint::Start(b) => self.ctx.block_parent_op(b),
            InsertPoint::Before(o) | InsertPoint::After(o) => self.ctx.parent_op(o),
        }
    }

    pub fn clear_insertion_point(&mut self) {
        self.ip = None;
    }

    /// Location given to ops created by [`Rewriter::build`].
    pub fn set_loc(&mut self, loc: Location) {
        self.loc = loc;
    }

    pub fn current_loc(&self) -> Location {
        self.loc
    }

    /// Links a detached op at the insertion point; later inserts go after it.
    pub fn insert(&mut self, op: Op) {
        let Some(ip) = self.ip else { return };
        self.changed = true;
        match ip {
            InsertPoint::End(b) => self.ctx.link_op(op, b, None),
            InsertPoint::Before(x) => {
                let b = self.ctx.op_block(x).expect("insertion point op is detached");
                self.ctx.link_op(op, b, Some(x));
            }
            InsertPoint::Start(b) => {
                let first = self.ctx.block_first_op(b);
                self.ctx.link_op(op, b, first);
                self.ip = Some(InsertPoint::After(op));
            }
            InsertPoint::After(x) => {
                let b = self.ctx.op_block(x).expect("insertion point op is detached");
                let next = self.ctx.next_op(x);
                self.ctx.link_op(op, b, next);
                self.ip = Some(InsertPoint::After(op));
            }
        }
    }

    /// Creates an op from a state with explicit result types and inserts it.
    pub fn create(&mut self, state: OperationState) -> Op {
        let op = state.create_in(self.ctx);
        self.changed = true;
        self.insert(op);
        op
    }

    /// Creates `name(operands) {attrs}` with inferred result types at the
    /// insertion point and the current location.
    pub fn build(&mut self, name: &str, operands: &[Value], attrs: &[(&str, Attribute)]) -> Result<Op, Diagnostic> {
        let named: Vec<NamedAttr> =
            attrs.iter().map(|&(n, value)| NamedAttr { name: self.ctx.sym(n), value }).collect();
        self.build_named(name, operands, &named)
    }

    /// [`Rewriter::build`] with attributes given as interned pairs.
    pub fn build_named(&mut self, name: &str, operands: &[Value], attrs: &[NamedAttr]) -> Result<Op, Diagnostic> {
        let name_id = self.ctx.op_name_id(name);
        let mut named = attrs.to_vec();
        self.ctx.sort_named_attrs(&mut named);
        let types = self.infer(name_id, operands, &named)?;
        let mut state = OperationState::new(name_id, self.loc);
        state.operands = operands.iter().copied().collect();
        state.result_types = types;
        state.attrs = named;
        Ok(self.create(state))
    }

    /// [`Rewriter::build_named`] for one result.
    pub fn build_named1(&mut self, name: &str, operands: &[Value], attrs: &[NamedAttr]) -> Result<Value, Diagnostic> {
        let op = self.build_named(name, operands, attrs)?;
        match self.ctx.results(op) {
            [v] => Ok(*v),
            r => Err(Diagnostic::error(
                self.loc,
                format!("'{name}' was expected to have one result, it has {}", r.len()),
            )),
        }
    }

    /// [`Rewriter::build`] for an op with one result; returns that result.
    pub fn build1(&mut self, name: &str, operands: &[Value], attrs: &[(&str, Attribute)]) -> Result<Value, Diagnostic> {
        let op = self.build(name, operands, attrs)?;
        match self.ctx.results(op) {
            [v] => Ok(*v),
            r => Err(Diagnostic::error(
                self.loc,
                format!("'{name}' was expected to have one result, it has {}", r.len()),
            )),
        }
    }

    /// Builds an op whose result types are given (for ops without inference).
    pub fn build_typed(
        &mut self,
        name: &str,
        operands: &[Value],
        attrs: &[(&str, Attribute)],
        result_types: &[Type],
    ) -> Op {
        let name_id = self.ctx.op_name_id(name);
        let mut state = OperationState::new(name_id, self.loc);
        state.operands = operands.iter().copied().collect();
        state.result_types = result_types.iter().copied().collect();
        for &(n, v) in attrs {
            let s = self.ctx.sym(n);
            state.add_attr(s, v);
        }
        self.create(state)
    }

    /// [`Rewriter::build_typed`] for one result; returns it.
    pub fn build_typed1(
        &mut self,
        name: &str,
        operands: &[Value],
        attrs: &[(&str, Attribute)],
        result_type: Type,
    ) -> Value {
        let op = self.build_typed(name, operands, attrs, &[result_type]);
        self.ctx.result(op, 0)
    }

    /// Creates a copy of `op` (attributes, result types, location; no
    /// regions) with new operands, at the insertion point.
    pub fn clone_op(&mut self, op: Op, operands: &[Value]) -> Op {
        let mut state = OperationState::new(self.ctx.op_name_of(op), self.ctx.op_loc(op));
        state.operands = operands.iter().copied().collect();
        state.result_types = self.ctx.results(op).iter().map(|&r| self.ctx.value_type(r)).collect();
        state.attrs = self.ctx.attrs(op).to_vec();
        self.create(state)
    }

    /// Clones `op` with its regions at the insertion point (MLIR's
    /// `clone(IRMapping)`): operands found in `map` are replaced, every
    /// value the clone defines (results, block arguments, nested results)
    /// is recorded in `map` against the original.
    pub fn clone_deep(&mut self, op: Op, map: &mut FxHashMap<Value, Value>) -> Op {
        let operands: SmallVec<[Value; 4]> = self.ctx.operands(op).map(|v| map.get(&v).copied().unwrap_or(v)).collect();
        let mut regions: SmallVec<[Region; 1]> = SmallVec::new();
        let saved = self.insertion_point();
        for r in self.ctx.regions(op).to_vec() {
            let nr = self.ctx.create_region_raw();
            for b in self.ctx.region_blocks(r).to_vec() {
                let types: SmallVec<[Type; 4]> =
                    self.ctx.block_args(b).iter().map(|&a| self.ctx.value_type(a)).collect();
                let nb = self.ctx.create_block_raw(&types);
                self.ctx.append_block_raw(nr, nb);
                for (&a, &na) in self.ctx.block_args(b).to_vec().iter().zip(self.ctx.block_args(nb).to_vec().iter()) {
                    map.insert(a, na);
                }
                self.set_insertion_point(InsertPoint::End(nb));
                for inner in self.ctx.block_ops(b).collect::<Vec<_>>() {
                    self.clone_deep(inner, map);
                }
            }
            regions.push(nr);
        }
        match saved {
            Some(ip) => self.set_insertion_point(ip),
            None => self.clear_insertion_point(),
        }
        let mut state = OperationState::new(self.ctx.op_name_of(op), self.ctx.op_loc(op));
        state.operands = operands;
        state.result_types = self.ctx.results(op).iter().map(|&r| self.ctx.value_type(r)).collect();
        state.attrs = self.ctx.attrs(op).to_vec();
        state.regions = regions;
        let new = self.create(state);
        for (&r, &nr) in self.ctx.results(op).to_vec().iter().zip(self.ctx.results(new).to_vec().iter()) {
            map.insert(r, nr);
        }
        new
    }

    /// Result types of `name` applied to `operands` and `attrs` (sorted).
    pub fn infer(
        &mut self,
        name: OpName,
        operands: &[Value],
        attrs: &[NamedAttr],
    ) -> Result<SmallVec<[Type; 2]>, Diagnostic> {
        let opname = self.ctx.op_name_str(name).to_string();
        let def = self
            .ctx
            .op_name_def(name)
            .ok_or_else(|| Diagnostic::error(self.loc, format!("cannot build unregistered op '{opname}'")))?;
        let infer = def
            .infer
            .ok_or_else(|| Diagnostic::error(self.loc, format!("op '{opname}' has no result type inference")))?;
        let operand_types: SmallVec<[Type; 4]> = operands.iter().map(|&v| self.ctx.value_type(v)).collect();
        let inferred: SmallVec<[TypeData; 1]> = {
            let symbolic = operand_types.iter().any(|&t| crate::sym::type_is_symbolic(self.ctx, t))
                || attrs.iter().any(|a| crate::sym::attr_is_symbolic(self.ctx, a.value));
            let facts = if symbolic {
                self.enclosing_op().and_then(|o| crate::sym::Facts::enclosing(self.ctx, o))
            } else {
                None
            };
            let ictx = InferCtx { facts: facts.as_ref(), ..InferCtx::new(self.ctx, &operand_types, attrs) };
            crate::registry::infer_result_types(def, infer, &ictx)
                .map_err(|m| Diagnostic::error(self.loc, format!("'{opname}' op {m}")))?
        };
        Ok(inferred.into_iter().map(|t| self.ctx.intern_type(t)).collect())
    }

    /// Replaces every use of `from` with `to`.
    pub fn replace_all_uses(&mut self, from: Value, to: Value) {
        if from != to && self.ctx.has_uses(from) {
            self.changed = true;
            self.ctx.replace_all_uses_raw(from, to);
        }
    }

    /// Replaces the uses of `from` for which `pred` holds.
    pub fn replace_uses_if(&mut self, from: Value, to: Value, pred: impl Fn(&Context, Use) -> bool) {
        let uses: Vec<_> = self.ctx.uses(from).filter(|&u| pred(self.ctx, u)).collect();
        for u in uses {
            self.set_operand(u.op, u.index as usize, to);
        }
    }

    /// Replaces the results of `op` by `values` and erases `op`.
    pub fn replace_op(&mut self, op: Op, values: &[Value]) {
        let results: SmallVec<[Value; 2]> = self.ctx.results(op).iter().copied().collect();
        assert_eq!(results.len(), values.len(), "replace_op: result count mismatch");
        for (r, &v) in results.into_iter().zip(values) {
            self.replace_all_uses(r, v);
        }
        self.erase_op(op);
    }

    /// Erases `op` and its regions; its results must have no uses left.
    pub fn erase_op(&mut self, op: Op) {
        if let Some(InsertPoint::Before(x) | InsertPoint::After(x)) = self.ip {
            if x == op {
                // Keep the insertion point valid across the erase.
                self.ip = match (self.ctx.prev_op(op), self.ctx.next_op(op), self.ctx.op_block(op)) {
                    (Some(p), _, _) => Some(InsertPoint::After(p)),
                    (None, Some(n), _) => Some(InsertPoint::Before(n)),
                    (None, None, Some(b)) => Some(InsertPoint::End(b)),
                    _ => None,
                };
            }
        }
        self.changed = true;
        self.ctx.erase_op_raw(op);
    }

    pub fn set_operand(&mut self, op: Op, index: usize, v: Value) {
        if self.ctx.operand(op, index) != v {
            self.changed = true;
            self.ctx.set_operand_raw(op, index, v);
        }
    }

    pub fn set_operands(&mut self, op: Op, vals: &[Value]) {
        self.changed = true;
        self.ctx.set_operands_raw(op, vals);
    }

    /// Moves `op` (from wherever it is) to just before `target`.
    pub fn move_before(&mut self, op: Op, target: Op) {
        if op == target {
            return;
        }
        self.changed = true;
        self.ctx.unlink_op(op);
        let b = self.ctx.op_block(target).expect("move target is detached");
        self.ctx.link_op(op, b, Some(target));
    }

    /// Moves `op` to just after `target`.
    pub fn move_after(&mut self, op: Op, target: Op) {
        if op == target {
            return;
        }
        self.changed = true;
        self.ctx.unlink_op(op);
        let b = self.ctx.op_block(target).expect("move target is detached");
        let next = self.ctx.next_op(target);
        self.ctx.link_op(op, b, next);
    }

    /// Moves `op` to the end of `block`.
    pub fn move_to_end(&mut self, op: Op, block: Block) {
        self.changed = true;
        self.ctx.unlink_op(op);
        self.ctx.link_op(op, block, None);
    }

    /// Detaches `op` from its block without erasing it.
    pub fn detach(&mut self, op: Op) {
        self.changed = true;
        self.ctx.unlink_op(op);
    }

    pub fn set_attr(&mut self, op: Op, name: &str, value: Attribute) {
        let s = self.ctx.sym(name);
        if self.ctx.get_attr_sym(op, s) != Some(value) {
            self.changed = true;
            self.ctx.set_attr_raw(op, s, value);
        }
    }

    pub fn remove_attr(&mut self, op: Op, name: &str) -> Option<Attribute> {
        let s = self.ctx.lookup_sym(name)?;
        let r = self.ctx.remove_attr_raw(op, s);
        self.changed |= r.is_some();
        r
    }

    pub fn set_op_loc(&mut self, op: Op, loc: Location) {
        self.ctx.set_loc_raw(op, loc);
    }

    /// Changes the type of a value in place (the caller keeps users valid).
    pub fn set_value_type(&mut self, v: Value, ty: Type) {
        if self.ctx.value_type(v) != ty {
            self.changed = true;
            self.ctx.set_value_type_raw(v, ty);
        }
    }

    pub fn create_region(&mut self) -> Region {
        self.ctx.create_region_raw()
    }

    /// Creates a block with arguments of the given types at the end of `region`.
    pub fn create_block(&mut self, region: Region, arg_types: &[Type]) -> Block {
        self.changed = true;
        let b = self.ctx.create_block_raw(arg_types);
        self.ctx.append_block_raw(region, b);
        b
    }

    pub fn add_block_arg(&mut self, b: Block, ty: Type) -> Value {
        self.changed = true;
        self.ctx.add_block_arg_raw(b, ty)
    }

    pub fn insert_block_arg(&mut self, b: Block, at: usize, ty: Type) -> Value {
        self.changed = true;
        self.ctx.insert_block_arg_raw(b, at, ty)
    }

    /// Removes every argument `i` of `b` with `keep[i] == false` (linear
    /// time); they must have no uses.
    pub fn retain_block_args(&mut self, b: Block, keep: &[bool]) {
        for (i, &v) in self.ctx.block_args(b).iter().enumerate() {
            assert!(
                keep.get(i).copied().unwrap_or(true) || !self.ctx.has_uses(v),
                "erasing a block argument that still has uses"
            );
        }
        self.changed = true;
        self.ctx.retain_block_args_raw(b, keep);
    }

    /// Removes argument `index` of `b`; it must have no uses.
    pub fn erase_block_arg(&mut self, b: Block, index: usize) {
        let v = self.ctx.block_args(b)[index];
        assert!(!self.ctx.has_uses(v), "erasing a block argument that still has uses");
        self.changed = true;
        self.ctx.erase_block_arg_raw(b, index);
    }
}
