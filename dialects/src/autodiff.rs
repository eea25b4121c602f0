//! Reverse-mode derivative rules: the [`Vjp`] interface a differentiable op
//! carries, and [`VjpCtx`], the small IR-building vocabulary rules use.
//!
//! A rule receives the forward op (its operands, results and attributes),
//! the cotangent of each result (`None` where no gradient flows) and which
//! operands need one, and builds the vector-Jacobian product in value
//! semantics at the rewriter's insertion point. It returns one optional
//! gradient per operand, each with that operand's type; operands that do not
//! need a gradient may get `None`. Rules live next to their op (in each
//! dialect's `derivatives.rs`); the `joint` pass drives them.
//!
//! Conventions, as PyTorch's: gradients of broadcast operands are summed
//! back to the operand's shape ([`VjpCtx::sum_to`]); a tie in `maximum`,
//! `amax` and friends splits the gradient evenly; integer and boolean
//! operands get no gradient.

use aot_ir::*;
use smallvec::SmallVec;

/// One optional gradient per operand.
pub type Grads = SmallVec<[Option<Value>; 4]>;

/// The vector-Jacobian product of an op.
pub struct Vjp(pub fn(&mut VjpCtx<'_, '_>) -> Result<Grads, Diagnostic>);

/// How the min-cut partitioner may treat an op's results: recompute them
/// in the backward instead of saving them, and at what cost. Ops without a
/// [`Recompute`] interface are classified by their traits (elementwise →
/// `Pointwise`, view → `View`, random → `Random`, no operands → `Cheap`,
/// else `Other`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum OpClass {
    Pointwise,
    View,
    /// Reductions: recomputable, unless they shrink their input a lot.
    Reduction,
    /// Creation, copies, index/gather: recomputable.
    Cheap,
    /// Matmul-class: never recomputed; cost 2·m·n·k.
    Matmul,
    /// Never recomputed with fresh randomness.
    Random,
    /// Not in the recomputable allowlist.
    Other,
}

pub struct Recompute(pub OpClass);

/// The recompute class of `op`.
pub fn op_class(ctx: &Context, op: Op) -> OpClass {
    let Some(def) = ctx.op_def(op) else { return OpClass::Other };
    if let Some(r) = def.interface::<Recompute>() {
        return r.0;
    }
    if def.has(Traits::RANDOM) || def.name.starts_with("rng.") {
        OpClass::Random
    } else if def.has(Traits::ELEMENTWISE) {
        OpClass::Pointwise
    } else if def.has(Traits::VIEW) {
        OpClass::View
    } else if ctx.num_operands(op) == 0 {
        OpClass::Cheap
    } else {
        OpClass::Other
    }
}

/// The interface of an op with a derivative rule, if it has one.
pub fn vjp(ctx: &Context, op: Op) -> Option<&'static Vjp> {
    ctx.op_def(op).and_then(|d| d.interface::<Vjp>())
}

/// What a rule sees, and helpers to build its result.
pub struct VjpCtx<'a, 'c> {
    pub rw: &'a mut Rewriter<'c>,
    pub op: Op,
    pub inputs: SmallVec<[Value; 4]>,
    pub results: SmallVec<[Value; 2]>,
    /// Cotangent of each result (`None`: zero).
    pub grads: SmallVec<[Option<Value>; 2]>,
    /// Which operands need a gradient.
    pub needs: SmallVec<[bool; 4]>,
}

impl<'a, 'c> VjpCtx<'a, 'c> {
    pub fn new(rw: &'a mut Rewriter<'c>, op: Op, grads: &[Option<Value>], needs: &[bool]) -> Self {
        let inputs = rw.operands(op).collect();
        let results = rw.results(op).iter().copied().collect();
        VjpCtx {
            rw,
            op,
            inputs,
            results,
            grads: grads.iter().copied().collect(),
            needs: needs.iter().copied().collect(),
        }
    }

    pub fn err(&self, m: impl std::fmt::Display) -> Diagnostic {
        Diagnostic::op_error(self.rw, self.op, format!("derivative: {m}"))
    }

    /// The cotangent of result 0 (rules are only called when one flows).
    pub fn g(&self) -> Result<Value, Diagnostic> {
        self.grads.first().copied().flatten().ok_or_else(|| self.err("no cotangent for result 0"))
    }

    pub fn x(&self, i: usize) -> Value {
        self.inputs[i]
    }

    pub fn y(&self, i: usize) -> Value {
        self.results[i]
    }

    pub fn need(&self, i: usize) -> bool {
        self.needs.get(i).copied().unwrap_or(false)
    }

    pub fn attrs(&self) -> AttrView<'_> {
        AttrView::of_op(self.rw, self.op)
    }

    pub fn ty(&self, v: Value) -> Result<TensorType, Diagnostic> {
        self.rw.value_tensor(v).cloned().ok_or_else(|| self.err("expected a tensor"))
    }

    pub fn shape(&self, v: Value) -> Result<Vec<i64>, Diagnostic> {
        Ok(self.ty(v)?.shape.to_vec())
    }

    pub fn elem(&self, v: Value) -> Result<ElemType, Diagnostic> {
        Ok(self.ty(v)?.elem)
    }

    /// `name(operands) {attrs}` with an inferred result type.
    pub fn op1(&mut self, name: &str, operands: &[Value], attrs: &[(&str, Attribute)]) -> Result<Value, Diagnostic> {
        self.rw.build1(name, operands, attrs)
    }

    pub fn add(&mut self, a: Value, b: Value) -> Result<Value, Diagnostic> {
        self.op1("tensor.add", &[a, b], &[])
    }

    pub fn sub(&mut self, a: Value, b: Value) -> Result<Value, Diagnostic> {
        self.op1("tensor.sub", &[a, b], &[])
    }

    pub fn mul(&mut self, a: Value, b: Value) -> Result<Value, Diagnostic> {
        self.op1("tensor.mul", &[a, b], &[])
    }

    pub fn div(&mut self, a: Value, b: Value) -> Result<Value, Diagnostic> {
        self.op1("tensor.div", &[a, b], &[])
    }

    pub fn neg(&mut self, a: Value) -> Result<Value, Diagnostic> {
        self.op1("tensor.neg", &[a], &[])
    }

    pub fn unary(&mut self, name: &str, a: Value) -> Result<Value, Diagnostic> {
        self.op1(name, &[a], &[])
    }

    /// `where(c, a, b)`.
    pub fn select(&mut self, c: Value, a: Value, b: Value) -> Result<Value, Diagnostic> {
        self.op1("tensor.where", &[c, a, b], &[])
    }

    /// The value of `v` when it is a constant fill (`tensor.full`): rules
    /// whose eager formula takes a number (an exponent) use it as one.
    pub fn constant(&self, v: Value) -> Option<f64> {
        let op = self.rw.defining_op(v)?;
        if self.rw.op_name(op) != "tensor.full" {
            return None;
        }
        self.rw.attr_f64(op, "value")
    }

    /// A rank-0 constant of `elem`.
    pub fn scalar(&mut self, v: f64, elem: ElemType) -> Value {
        self.full(&[], elem, v)
    }

    /// A tensor of `shape` filled with `v`.
    pub fn full(&mut self, shape: &[i64], elem: ElemType, v: f64) -> Value {
        let t = self.rw.tensor_type(shape, elem);
        let a = self.rw.f64_attr(v);
        self.rw.build_typed1("tensor.full", &[], &[("value", a)], t)
    }

    /// Zeros with the type of `v`.
    pub fn zeros_like(&mut self, v: Value) -> Result<Value, Diagnostic> {
        let t = self.ty(v)?;
        Ok(self.full(&t.shape, t.elem, 0.0))
    }

    /// `v * c` for a constant `c` in `v`'s element type.
    pub fn scale(&mut self, v: Value, c: f64) -> Result<Value, Diagnostic> {
        let e = self.elem(v)?;
        let s = self.scalar(c, e);
        self.mul(v, s)
    }

    /// `v * (numerator / n)` for a size `n`: the constant when `n` is
    /// static, else `tensor.size_value`, which a call evaluates (the same
    /// f64 quotient rounded to `v`'s element type either way).
    pub fn scale_by_size(&mut self, v: Value, numerator: f64, n: i64) -> Result<Value, Diagnostic> {
        if !aot_ir::sym::is_symbolic(n) {
            return self.scale(v, numerator / n as f64);
        }
        let e = self.elem(v)?;
        let t = self.rw.tensor_type(&[], e);
        let size = self.rw.i64_list_attr(&[n]);
        let num = self.rw.f64_attr(numerator);
        let s = self.rw.build_typed1(crate::tensor::SizeValueOp::NAME, &[], &[("size", size), ("numerator", num)], t);
        self.mul(v, s)
    }

    /// Size `n` as a 0-d tensor of `elem` (`tensor.size_value` when
    /// symbolic).
    pub fn size_scalar(&mut self, n: i64, elem: ElemType) -> Value {
        if !aot_ir::sym::is_symbolic(n) {
            return self.scalar(n as f64, elem);
        }
        let t = self.rw.tensor_type(&[], elem);
        let size = self.rw.i64_list_attr(&[n]);
        self.rw.build_typed1(crate::tensor::SizeValueOp::NAME, &[], &[("size", size)], t)
    }

    /// `cast(v)` to `elem` (identity when equal).
    pub fn cast(&mut self, v: Value, elem: ElemType) -> Result<Value, Diagnostic> {
        let t = self.ty(v)?;
        if t.elem == elem {
            return Ok(v);
        }
        let ty = self.rw.tensor_type(&t.shape, elem);
        Ok(self.rw.build_typed1("tensor.cast", &[v], &[], ty))
    }

    pub fn reshape(&mut self, v: Value, shape: &[i64]) -> Result<Value, Diagnostic> {
        if self.shape(v)? == shape {
            return Ok(v);
        }
        let a = self.rw.i64_list_attr(shape);
        self.op1("view.reshape", &[v], &[("shape", a)])
    }

    /// `sum(v, dims, keepdim)`.
    pub fn sum(&mut self, v: Value, dims: &[i64], keepdim: bool) -> Result<Value, Diagnostic> {
        let d = self.rw.i64_list_attr(dims);
        if keepdim {
            let k = self.rw.unit_attr();
            self.op1("tensor.sum", &[v], &[("dims", d), ("keepdim", k)])
        } else {
            self.op1("tensor.sum", &[v], &[("dims", d)])
        }
    }

    /// Sums a gradient of a broadcast result back to an operand of `shape`.
    pub fn sum_to(&mut self, g: Value, shape: &[i64]) -> Result<Value, Diagnostic> {
        let gs = self.shape(g)?;
        if gs[..] == shape[..] {
            return Ok(g);
        }
        let lead = gs.len().saturating_sub(shape.len());
        let mut dims: Vec<i64> = (0..lead as i64).collect();
        for (i, &s) in shape.iter().enumerate() {
            if s == 1 && gs[lead + i] != 1 {
                dims.push((lead + i) as i64);
            }
        }
        let r = if dims.is_empty() { g } else { self.sum(g, &dims, true)? };
        self.reshape(r, shape)
    }

    /// Broadcasts `v` to `shape` (a reduced value back over its input).
    pub fn expand_to(&mut self, v: Value, shape: &[i64]) -> Result<Value, Diagnostic> {
        if self.shape(v)?[..] == shape[..] {
            return Ok(v);
        }
        let a = self.rw.i64_list_attr(shape);
        self.op1("view.expand", &[v], &[("shape", a)])
    }

    /// The dims a reduction with `dims` (empty: all) reduces, normalized.
    pub fn reduced_dims(&self, rank: usize) -> Result<Vec<usize>, Diagnostic> {
        let dims = self.attrs().list("dims").unwrap_or_default();
        if dims.is_empty() {
            return Ok((0..rank).collect());
        }
        let mut out = Vec::new();
        for d in dims {
            let n = crate::shape::norm_dim(d, rank, 0).map_err(|m| self.err(m))?;
            if !out.contains(&n) {
                out.push(n);
            }
        }
        out.sort_unstable();
        Ok(out)
    }

    /// The shape of `x` with `dims` kept as size 1.
    pub fn keep_shape(x: &[i64], dims: &[usize]) -> Vec<i64> {
        x.iter().enumerate().map(|(i, &s)| if dims.contains(&i) { 1 } else { s }).collect()
    }

    /// Runs `rule` with every half-precision (`f16`/`bf16`) operand,
    /// result and cotangent of the op seen in `f32`, and rounds each
    /// gradient it gives back to its operand's type once: the derivative of
    /// an op PyTorch differentiates with one fused kernel
    /// (`tanh_backward`, `_softmax_backward_data`,
    /// `native_layer_norm_backward`, ...), which computes in `float` and
    /// rounds once, where the rule's ops would each round. Other types run
    /// the rule as it is. The conversions the rule does not read are
    /// erased again, so they do not count as values the backward saves.
    pub fn in_compute_type(
        &mut self,
        rule: impl FnOnce(&mut Self) -> Result<Grads, Diagnostic>,
    ) -> Result<Grads, Diagnostic> {
        let half = |c: &Self, v: Value| matches!(c.elem(v), Ok(ElemType::F16 | ElemType::BF16));
        let any_half =
            self.inputs.iter().chain(&self.results).chain(self.grads.iter().flatten()).any(|&v| half(self, v));
        if !any_half {
            return rule(self);
        }
        let saved = (self.inputs.clone(), self.results.clone(), self.grads.clone());
        let mut casts: Vec<Value> = Vec::new();
        let mut widen = |c: &mut Self, v: Value| -> Result<Value, Diagnostic> {
            if !half(c, v) {
                return Ok(v);
            }
            let w = c.cast(v, ElemType::F32)?;
            casts.push(w);
            Ok(w)
        };
        for i in 0..self.inputs.len() {
            self.inputs[i] = widen(self, self.inputs[i])?;
        }
        for i in 0..self.results.len() {
            self.results[i] = widen(self, self.results[i])?;
        }
        for i in 0..self.grads.len() {
            if let Some(g) = self.grads[i] {
                self.grads[i] = Some(widen(self, g)?);
            }
        }
        let out = rule(self);
        (self.inputs, self.results, self.grads) = saved;
        for &w in casts.iter().rev() {
            if !self.rw.has_uses(w) {
                if let Some(op) = self.rw.defining_op(w) {
                    self.rw.erase_op(op);
                }
            }
        }
        let mut out = out?;
        for (i, g) in out.iter_mut().enumerate() {
            if let (Some(v), Some(&x)) = (*g, self.inputs.get(i)) {
                let e = self.elem(x)?;
                if self.elem(v)? != e {
                    *g = Some(self.cast(v, e)?);
                }
            }
        }
        Ok(out)
    }

    /// A gradient for each operand, for a rule that computed some.
    pub fn grads(&self, gs: impl IntoIterator<Item = Option<Value>>) -> Grads {
        let mut out: Grads = gs.into_iter().collect();
        out.resize(self.inputs.len(), None);
        out
    }
}

/// Which operands and which results of `op` its derivative rule reads when
/// the operands in `needs` take a gradient: the values autograd saves for
/// the op's backward (and so checks against in-place changes). The rule
/// runs once right after `op` on placeholder cotangents, and everything it
/// built is erased again. `None`: the op has no rule, or the rule failed.
pub fn saved_by_backward(rw: &mut Rewriter<'_>, op: Op, needs: &[bool]) -> Option<(Vec<bool>, Vec<bool>)> {
    let rule = vjp(rw, op)?;
    let (ip, loc) = (rw.insertion_point(), rw.current_loc());
    let block = rw.op_block(op)?;
    // The rule's scratch ops land between `op` and what follows it now
    // (collecting the whole block instead made a long program quadratic).
    let after = rw.next_op(op);
    rw.set_insertion_point(InsertPoint::After(op));
    let results: Vec<Value> = rw.results(op).to_vec();
    let mut grads: Vec<Option<Value>> = Vec::with_capacity(results.len());
    for &r in &results {
        let g = match rw.value_tensor(r).cloned() {
            Some(t) if t.elem.is_float() => {
                let zero = rw.f64_attr(0.0);
                let ty = rw.tensor_type(&t.shape, t.elem);
                Some(rw.build_typed1("tensor.full", &[], &[("value", zero)], ty))
            }
            _ => None,
        };
        grads.push(g);
    }
    let ran = {
        let mut vc = VjpCtx::new(rw, op, &grads, needs);
        (rule.0)(&mut vc).is_ok()
    };
    let mut scratch: Vec<Op> = Vec::new();
    let mut cur = rw.next_op(op);
    while let Some(o) = cur.filter(|&o| Some(o) != after) {
        scratch.push(o);
        cur = rw.next_op(o);
    }
    let set: rustc_hash::FxHashSet<Op> = scratch.iter().copied().collect();
    let read = |rw: &Rewriter<'_>, v: Value| rw.uses(v).any(|u| set.contains(&u.op) && !is_placeholder(rw, u.op));
    let operands: Vec<bool> = rw.operands(op).collect::<Vec<_>>().into_iter().map(|v| read(rw, v)).collect();
    let results_read: Vec<bool> = results.iter().map(|&v| read(rw, v)).collect();
    // Users before their definitions: erase from the end of the block.
    for &o in scratch.iter().rev() {
        rw.erase_op(o);
    }
    match ip {
        Some(p) => rw.set_insertion_point(p),
        None => rw.set_insertion_point(InsertPoint::End(block)),
    }
    rw.set_loc(loc);
    ran.then_some((operands, results_read))
}

/// The placeholder cotangents [`saved_by_backward`] builds read nothing.
fn is_placeholder(ctx: &Context, op: Op) -> bool {
    ctx.op_name(op) == "tensor.full" && ctx.num_operands(op) == 0
}
