//! The verifier.
//!
//! Checks, for every op under a root: that it is registered; its operand,
//! result and region counts; its declared attributes (presence and kind) and
//! that undeclared attributes are dialect-prefixed; terminator placement;
//! SSA dominance (a value is visible in its block after its definition and in
//! regions nested there, and never across an `IsolatedFromAbove` boundary);
//! unique symbols in symbol tables; that result types equal the op's inferred
//! types; and finally the op's own verifier. Ops are numbered once in
//! pre-order so each dominance query is O(depth).
//!
//! Every failing op contributes one diagnostic (its first failure); the
//! verifier keeps going so a file with several broken ops reports them all.

use crate::attributes::AttrData;
use crate::context::{Context, ValueDef};
use crate::diagnostics::Diagnostic;
use crate::entity::*;
use crate::printer::types_to_string;
use crate::registry::{AttrKind, InferCtx, OpDef, Traits};
use crate::size::{check_shape, ShapeError};
use crate::types::TypeData;
use cranelift_entity::SecondaryMap;
use rustc_hash::FxHashMap;
use smallvec::SmallVec;

/// Verifies `root` and everything nested in it.
pub fn verify(ctx: &Context, root: Op) -> Result<(), Vec<Diagnostic>> {
    let mut v = Verifier { ctx, order: SecondaryMap::new(), errors: Vec::new() };
    let mut n = 0u32;
    ctx.walk_pre(root, &mut |op| {
        n += 1;
        v.order[op] = n;
    });
    v.verify_tree(root);
    if v.errors.is_empty() {
        Ok(())
    } else {
        Err(v.errors)
    }
}

struct Verifier<'a> {
    ctx: &'a Context,
    order: SecondaryMap<Op, u32>,
    errors: Vec<Diagnostic>,
}

/// Does attribute `a` have the shape `kind` asks for?
pub fn attr_matches_kind(ctx: &Context, a: Attribute, kind: AttrKind) -> bool {
    match (kind, ctx.attr_data(a)) {
        (AttrKind::Any, _) => true,
        (AttrKind::I64, AttrData::Int { .. }) => true,
        (AttrKind::F64, AttrData::Float { .. } | AttrData::Int { .. }) => true,
        (AttrKind::Bool, AttrData::Bool(_)) => true,
        (AttrKind::Str, AttrData::Str(_)) => true,
        (AttrKind::I64List, AttrData::I64Array(_)) => true,
        (AttrKind::I64List, AttrData::Array(v)) => v.iter().all(|&x| matches!(ctx.attr_data(x), AttrData::Int { .. })),
        (AttrKind::Flag, AttrData::Unit | AttrData::Bool(_)) => true,
        (AttrKind::Dense, AttrData::Dense { .. }) => true,
        (AttrKind::Type, AttrData::Type(_)) => true,
        (AttrKind::SymbolRef, AttrData::SymbolRef(_)) => true,
        _ => false,
    }
}

impl Verifier<'_> {
    fn verify_tree(&mut self, root: Op) {
        let ctx = self.ctx;
        ctx.walk_pre(root, &mut |op| {
            if let Err(d) = self.verify_op(op) {
                self.errors.push(d);
            }
        });
    }

    fn verify_op(&self, op: Op) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        let Some(def) = ctx.op_def(op) else {
            return Err(Diagnostic::error(ctx.op_loc(op), format!("unregistered operation '{}'", ctx.op_name(op))));
        };
        self.verify_structure(op, def)?;
        self.verify_value_types(op)?;
        if !def.has(Traits::SYMBOLIC_SHAPES) {
            if let Some(what) = crate::sym::first_symbolic_use(ctx, op) {
                return Err(Diagnostic::op_error(ctx, op, format!("does not support symbolic sizes yet: {what}")));
            }
        }
        self.verify_attrs(op, def)?;
        self.verify_dominance(op)?;
        if def.has(Traits::SYMBOL_TABLE) {
            self.verify_symbol_table(op)?;
        }
        if let Some(infer) = def.infer {
            self.verify_inferred(op, def, infer)?;
        } else if !def.has(Traits::SUBCLASS_RULES) {
            self.verify_dispatch(op, def)?;
        }
        if let Some(f) = def.verify {
            f(ctx, op)?;
        }
        Ok(())
    }

    fn verify_structure(&self, op: Op, def: &OpDef) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        let n = ctx.num_operands(op);
        if !def.operands.accepts(n) {
            return Err(Diagnostic::op_error(
                ctx,
                op,
                format!("expected {} operand{}, but found {n}", def.operands.describe(), plural_arity(def.operands)),
            ));
        }
        let n = ctx.num_results(op);
        if !def.results.accepts(n) {
            return Err(Diagnostic::op_error(
                ctx,
                op,
                format!("expected {} result{}, but found {n}", def.results.describe(), plural_arity(def.results)),
            ));
        }
        let n = ctx.regions(op).len();
        if n != def.regions as usize {
            return Err(Diagnostic::op_error(
                ctx,
                op,
                format!("requires {} region{}, but found {n}", def.regions, if def.regions == 1 { "" } else { "s" }),
            ));
        }
        if def.has(Traits::TERMINATOR) {
            let in_block = ctx.op_block(op);
            if in_block.is_some() && ctx.next_op(op).is_some() {
                return Err(Diagnostic::op_error(ctx, op, "must be the last operation in the parent block"));
            }
        }
        if !def.has(Traits::NO_TERMINATOR) {
            for &r in ctx.regions(op) {
                for &b in ctx.region_blocks(r) {
                    match ctx.block_last_op(b) {
                        None => {
                            return Err(Diagnostic::op_error(
                                ctx,
                                op,
                                "has an empty block; a block needs at least a terminator",
                            ))
                        }
                        Some(last) if !ctx.has_trait(last, Traits::TERMINATOR) => {
                            return Err(Diagnostic::error(
                                ctx.op_loc(last),
                                format!(
                                    "block in '{}' must end with a terminator, but ends with '{}'",
                                    ctx.op_name(op),
                                    ctx.op_name(last)
                                ),
                            ))
                        }
                        _ => {}
                    }
                }
            }
        }
        Ok(())
    }

    /// Every result and block argument has a sane type, before any inference
    /// or op verifier does arithmetic on its shape.
    fn verify_value_types(&self, op: Op) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        for (i, &v) in ctx.results(op).iter().enumerate() {
            check_value_type(ctx, ctx.value_type(v))
                .map_err(|m| Diagnostic::op_error(ctx, op, format!("result #{i}: {m}")))?;
        }
        for (ri, &r) in ctx.regions(op).iter().enumerate() {
            for (bi, &b) in ctx.region_blocks(r).iter().enumerate() {
                for (ai, &a) in ctx.block_args(b).iter().enumerate() {
                    check_value_type(ctx, ctx.value_type(a)).map_err(|m| {
                        Diagnostic::op_error(ctx, op, format!("argument #{ai} of block #{bi} in region #{ri}: {m}"))
                    })?;
                }
            }
        }
        Ok(())
    }

    fn verify_attrs(&self, op: Op, def: &OpDef) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        for spec in def.attrs {
            match ctx.get_attr(op, spec.name) {
                None if spec.required => {
                    return Err(Diagnostic::op_error(ctx, op, format!("requires attribute '{}'", spec.name)))
                }
                Some(a) if !attr_matches_kind(ctx, a, spec.kind) => {
                    return Err(Diagnostic::op_error(
                        ctx,
                        op,
                        format!("attribute '{}' expects {}", spec.name, spec.kind.describe()),
                    ));
                }
                _ => {}
            }
        }
        for a in ctx.attrs(op) {
            let name = ctx.sym_str(a.name);
            if !name.contains('.') && def.attr_spec(name).is_none() {
                return Err(Diagnostic::op_error(
                    ctx,
                    op,
                    format!("has unknown attribute '{name}' (undeclared attributes must be dialect-prefixed, like 'aot.no_grad')"),
                ));
            }
        }
        Ok(())
    }

    fn verify_dominance(&self, op: Op) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        for (i, v) in ctx.operands(op).enumerate() {
            let Some(def_block) = ctx.value_block(v) else {
                return Err(Diagnostic::op_error(ctx, op, format!("operand #{i} is defined by a detached operation")));
            };
            // Climb from `op` to the ancestor that sits in the defining block.
            let mut a = op;
            let found = loop {
                if ctx.op_block(a) == Some(def_block) {
                    break Some(a);
                }
                match ctx.parent_op(a) {
                    None => break None,
                    Some(p) => {
                        if ctx.has_trait(p, Traits::ISOLATED_FROM_ABOVE) && !self.block_inside(def_block, p) {
                            return Err(Diagnostic::op_error(ctx, op, "using value defined outside the region")
                                .with_note(ctx.op_loc(p), "required by region isolation constraints"));
                        }
                        a = p;
                    }
                }
            };
            let dominated = match (found, ctx.value_def(v)) {
                (None, _) => false,
                (Some(_), ValueDef::BlockArg { .. }) => true,
                (Some(a), ValueDef::Result { op: d, .. }) => self.order[d] < self.order[a],
            };
            if !dominated {
                let mut diag = Diagnostic::op_error(ctx, op, format!("operand #{i} does not dominate this use"));
                if let Some(d) = ctx.defining_op(v) {
                    diag = diag.with_note(ctx.op_loc(d), "operand defined here");
                }
                return Err(diag);
            }
        }
        Ok(())
    }

    fn block_inside(&self, b: Block, op: Op) -> bool {
        match self.ctx.block_parent_op(b) {
            Some(p) => self.ctx.is_ancestor(op, p),
            None => false,
        }
    }

    fn verify_symbol_table(&self, op: Op) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        let mut seen: FxHashMap<&str, Op> = FxHashMap::default();
        for &r in ctx.regions(op) {
            for &b in ctx.region_blocks(r) {
                for child in ctx.block_ops(b) {
                    if let Some(name) = ctx.attr_str(child, "sym_name") {
                        if let Some(&prev) = seen.get(name) {
                            return Err(Diagnostic::error(
                                ctx.op_loc(child),
                                format!("redefinition of symbol named '{name}'"),
                            )
                            .with_note(ctx.op_loc(prev), "see existing symbol definition here"));
                        }
                        seen.insert(name, child);
                    }
                }
            }
        }
        Ok(())
    }

    /// Subclass dispatch of an op without inference: tensor results are
    /// subclass values exactly when the op is dispatched.
    fn verify_dispatch(&self, op: Op, def: &OpDef) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        let operand_types: SmallVec<[Type; 4]> = ctx.operands(op).map(|v| ctx.value_type(v)).collect();
        let class = crate::registry::subclass_dispatch(ctx, def, &operand_types)
            .map_err(|m| Diagnostic::op_error(ctx, op, m))?;
        for (k, &r) in ctx.results(op).iter().enumerate() {
            let data = ctx.type_data(ctx.value_type(r));
            let ok = match (&class, data) {
                (Some(c), TypeData::Subclass(sc)) => sc.class == *c,
                (Some(_), TypeData::Tensor(_)) => false,
                (None, TypeData::Subclass(_)) => false,
                _ => true,
            };
            if !ok {
                let want = match &class {
                    Some(c) => format!("a @{c} value, as its operands"),
                    None => "a dense value: only aot.subclass_wrap makes subclass values from dense ones".into(),
                };
                return Err(Diagnostic::op_error(ctx, op, format!("result #{k} must be {want}")));
            }
        }
        Ok(())
    }

    fn verify_inferred(&self, op: Op, def: &OpDef, infer: crate::registry::InferFn) -> Result<(), Diagnostic> {
        let ctx = self.ctx;
        let operand_types: SmallVec<[Type; 4]> = ctx.operands(op).map(|v| ctx.value_type(v)).collect();
        // A rule over symbolic sizes may use the function's ranges and guards.
        let facts = crate::sym::first_symbolic_use(ctx, op).and_then(|_| crate::sym::Facts::enclosing(ctx, op));
        let ictx = InferCtx { facts: facts.as_ref(), ..InferCtx::new(ctx, &operand_types, ctx.attrs(op)) };
        let inferred =
            crate::registry::infer_result_types(def, infer, &ictx).map_err(|m| Diagnostic::op_error(ctx, op, m))?;
        let actual: SmallVec<[Type; 2]> = ctx.results(op).iter().map(|&v| ctx.value_type(v)).collect();
        let same = inferred.len() == actual.len() && inferred.iter().zip(&actual).all(|(i, &a)| ctx.type_data(a) == i);
        if !same {
            let mut shown = String::new();
            for (k, t) in inferred.iter().enumerate() {
                if k > 0 {
                    shown.push_str(", ");
                }
                shown.push_str(&type_data_to_string(t));
            }
            return Err(Diagnostic::op_error(
                ctx,
                op,
                format!(
                    "inferred type(s) '{shown}' are incompatible with return type(s) of operation '{}'",
                    types_to_string(ctx, &actual)
                ),
            ));
        }
        Ok(())
    }
}

/// Checks a tensor or memref type's shape with [`check_shape`]; other types
/// are always valid. The message names the type, except when its rank is
/// what is wrong (the type would be as long as the input that built it).
pub fn check_type(ctx: &Context, t: Type) -> Result<(), String> {
    let (kind, rank, checked) = match ctx.type_data(t) {
        TypeData::Tensor(tt) => ("tensor", tt.rank(), check_shape(&tt.shape, tt.elem, None)),
        TypeData::Subclass(sc) => ("tensor", sc.tensor.rank(), check_shape(&sc.tensor.shape, sc.tensor.elem, None)),
        TypeData::MemRef(m) => {
            let layout = m.layout.as_ref().map(|(strides, offset)| (&strides[..], *offset));
            ("memref", m.shape.len(), check_shape(&m.shape, m.elem, layout))
        }
        _ => return Ok(()),
    };
    match checked {
        Ok(()) => Ok(()),
        Err(e @ ShapeError::RankTooLarge { .. }) => Err(format!("invalid {kind} type of rank {rank}: {e}")),
        Err(e) => Err(format!("invalid type '{}': {e}", crate::printer::type_to_string(ctx, t))),
    }
}

/// [`check_type`] plus what values need beyond a well-formed type: static
/// dims. `?` parses (it is reserved for symbolic shapes) but no pass,
/// interpreter or backend handles it, so a value may not have one.
pub fn check_value_type(ctx: &Context, t: Type) -> Result<(), String> {
    check_type(ctx, t)?;
    let shape = match ctx.type_data(t) {
        TypeData::Tensor(tt) => &tt.shape,
        TypeData::Subclass(sc) => &sc.tensor.shape,
        TypeData::MemRef(m) => &m.shape,
        _ => return Ok(()),
    };
    if shape.contains(&crate::types::DYNAMIC) {
        return Err(format!(
            "invalid type '{}': dynamic dimensions are reserved for symbolic shapes and not supported",
            crate::printer::type_to_string(ctx, t)
        ));
    }
    Ok(())
}

fn plural_arity(a: crate::registry::Arity) -> &'static str {
    match a {
        crate::registry::Arity::Exact(1) => "",
        _ => "s",
    }
}

/// Prints uninterned type data (for messages about inferred types).
pub fn type_data_to_string(t: &TypeData) -> String {
    match t {
        TypeData::Elem(e) => e.name().to_string(),
        TypeData::Index => "index".into(),
        TypeData::None => "none".into(),
        TypeData::Tensor(tt) => tt.to_string(),
        TypeData::Subclass(sc) => sc.to_string(),
        TypeData::MemRef(m) => m.to_string(),
        TypeData::Function { .. } => "function".into(),
    }
}
