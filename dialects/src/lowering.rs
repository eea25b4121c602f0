//! Lowering to the `loop` dialect: the interfaces tensor-level ops implement
//! (next to each op, like their kernels and derivative rules) and the
//! builders they use. The `lower-to-loops` pass (codegen) drives them.
//!
//! - [`Pointwise`]: an elementwise op gives its scalar formula; the pass
//!   builds the kernel around it (broadcasting operands become stride-0
//!   views, one loop per result dimension, the outermost parallel; the
//!   result laid out, and the loops ordered, as its leading operand's
//!   memory when that is a dense permutation, see `pointwise_order`).
//! - [`Lower`]: any other op builds its own buffers, views and kernels with
//!   a [`LowerCtx`].
//!
//! Numerics follow the interpreter's kernels: floats compute in their own
//! type (`f16`/`bf16` in `f32`, rounded back after every op, as PyTorch does
//! on CPU), integers in `i64` and wrap to their type when stored.

use crate::r#loop::{self, Binary, MathFn, Predicate};
use aot_ir::*;
use smallvec::SmallVec;

/// The scalar formula of an elementwise op: operand scalars (storage
/// types, broadcast already resolved) to the result scalar (storage type).
pub struct Pointwise(pub fn(&mut Scalars<'_, '_>, Op, &[Value]) -> Result<Value, String>);

/// The lowering of a non-elementwise op.
pub struct Lower(pub fn(&mut LowerCtx<'_, '_>) -> Result<(), String>);

/// The lowering of a non-elementwise op that also takes symbolic sizes
/// (`aot_ir::sym`): it uses a size as a loop bound or a buffer's shape,
/// computes with it through `aot_ir::sym`, or reads its value in a kernel
/// ([`Scalars::size_index`], [`Scalars::size_as`]), never as a number. An
/// op with [`Lower`] instead is refused by `lower-to-loops` whenever it
/// has a symbolic size.
pub struct LowerSymbolic(pub fn(&mut LowerCtx<'_, '_>) -> Result<(), String>);

/// The type arithmetic happens in for storage type `e`.
pub fn compute_elem(e: ElemType) -> ElemType {
    match e {
        ElemType::F16 | ElemType::BF16 | ElemType::F32 => ElemType::F32,
        ElemType::F64 => ElemType::F64,
        _ => ElemType::I64,
    }
}

/// Row-major strides of `shape`. (Sizes are bounded by the verifier, but
/// an empty tensor's other sizes are not: their strides saturate, and
/// address nothing.) A symbolic size makes the strides before it
/// expressions (`[s1*8, 8, 1]` for `s0xs1x8`); symbols are at least 2, so
/// no clamp applies to them. An expression whose coefficients overflow
/// saturates like a static stride: a shape that large is refused by the
/// size checks before anything is allocated.
pub fn row_major(shape: &[i64]) -> Shape {
    aot_runtime::tensor::contiguous_strides(shape)
}

/// The memref type of `shape` with a layout (`None` when contiguous at 0;
/// the strides of size-1 dimensions, which address nothing, are
/// normalised so that equal layouts compare equal).
pub fn memref_type(ctx: &mut Context, shape: &[i64], elem: ElemType, strides: &[i64], offset: i64) -> Type {
    let layout = normal_layout(shape, strides, offset);
    ctx.intern_type(TypeData::MemRef(MemRefType { shape: shape.iter().copied().collect(), elem, layout }))
}

/// A memref layout in its one form: the strides of size-1 dimensions
/// (which address nothing) row-major, and `None` for row-major at 0.
pub fn normal_layout(shape: &[i64], strides: &[i64], offset: i64) -> Option<(Shape, i64)> {
    let rm = row_major(shape);
    let strides: Shape = strides.iter().zip(shape).zip(&rm).map(|((&s, &n), &r)| if n == 1 { r } else { s }).collect();
    (strides != rm || offset != 0).then_some((strides, offset))
}

/// Whether distinct indices of the layout address distinct elements: it
/// is row-major, or the dimensions of more than one element, ordered by
/// stride, each have a stride at least the span of the ones inside it.
/// Over symbolic sizes or strides each comparison must hold for every
/// value of the symbols in their ranges (a padded buffer's interior view,
/// strides `h + 2`, `(h + 2)^2`, ... over sizes `h`, is proven so); what
/// cannot be proven, or overflows, is taken to overlap (`false` is the
/// safe answer).
pub fn non_overlapping(shape: &[i64], strides: &[i64]) -> bool {
    non_overlapping_in(shape, strides, aot_ir::sym::Facts::defaults())
}

/// [`non_overlapping`] under a function's `facts` (its symbols' ranges
/// and guards): what the calls the function accepts make true.
pub fn non_overlapping_in(shape: &[i64], strides: &[i64], facts: &aot_ir::sym::Facts) -> bool {
    use aot_ir::sym;
    if is_row_major(shape, strides) {
        return true;
    }
    let mut dims: Vec<(i64, i64)> =
        shape.iter().zip(strides).filter(|&(&n, _)| n != 0 && n != 1).map(|(&n, &st)| (st, n)).collect();
    // An insertion sort on proven order: two strides not comparable for
    // every value leave the answer unknown.
    for k in 1..dims.len() {
        let mut j = k;
        while j > 0 && !facts.known_le(dims[j - 1].0, dims[j].0) {
            if !facts.known_le(dims[j].0, dims[j - 1].0) {
                return false;
            }
            dims.swap(j, j - 1);
            j -= 1;
        }
    }
    let mut span = 1;
    for (st, n) in dims {
        if !facts.known_le(span, st) {
            return false;
        }
        let Ok(next) = sym::sub(n, 1).and_then(|m| sym::mul(st, m)).and_then(|x| sym::add(span, x)) else {
            return false;
        };
        span = next;
    }
    true
}

/// Whether `strides` are `shape`'s row-major strides on every dimension
/// of more than one element (the strides of size-1 dimensions address
/// nothing). Exact for symbolic sizes: equal expressions are equal ids.
pub fn is_row_major(shape: &[i64], strides: &[i64]) -> bool {
    let rm = row_major(shape);
    shape.iter().zip(strides).zip(&rm).all(|((&n, &s), &r)| n == 1 || s == r)
}

/// The memref type of a value, if it is one (the loop dialect's analysis,
/// here for every lowering).
pub use crate::r#loop::analysis::memref;

/// A loop body: the induction variable and the carried values to the next
/// carried values.
pub type LoopBody<'a, 'c> = dyn FnMut(&mut Scalars<'_, 'c>, Value, &[Value]) -> Result<Vec<Value>, String> + 'a;

/// A loop-nest (or kernel) body: one value per induction variable (or buffer).
pub type NestBody<'a, 'c> = dyn FnMut(&mut Scalars<'_, 'c>, &[Value]) -> Result<(), String> + 'a;

/// Scalar and loop building inside a kernel body.
pub struct Scalars<'r, 'c> {
    pub rw: &'r mut Rewriter<'c>,
}

impl<'r, 'c> Scalars<'r, 'c> {
    pub fn ctx(&self) -> &Context {
        self.rw
    }

    pub fn elem_of(&self, v: Value) -> Result<ElemType, String> {
        match self.rw.type_data(self.rw.value_type(v)) {
            TypeData::Elem(e) => Ok(*e),
            _ => Err("expected a scalar of an element type".into()),
        }
    }

    fn build1(&mut self, name: &str, operands: &[Value], attrs: &[(&str, Attribute)]) -> Result<Value, String> {
        self.rw.build1(name, operands, attrs).map_err(|d| d.message)
    }

    pub fn const_f(&mut self, v: f64, e: ElemType) -> Value {
        let ty = self.rw.elem_type(e);
        let a = self.rw.attr(AttrData::Float { bits: v.to_bits(), ty });
        self.rw.build_typed1(r#loop::CONSTANT, &[], &[("value", a)], ty)
    }

    pub fn const_i(&mut self, v: i64, e: ElemType) -> Value {
        let ty = self.rw.elem_type(e);
        let a = self.rw.attr(AttrData::Int { value: v, ty });
        self.rw.build_typed1(r#loop::CONSTANT, &[], &[("value", a)], ty)
    }

    /// A constant of element type `e` (float or integer) holding `v`.
    pub fn constant(&mut self, v: f64, e: ElemType) -> Value {
        if e.is_float() {
            self.const_f(v, e)
        } else {
            self.const_i(v as i64, e)
        }
    }

    pub fn index(&mut self, v: i64) -> Value {
        let ty = self.rw.index_type();
        let a = self.rw.attr(AttrData::Int { value: v, ty });
        self.rw.build_typed1(r#loop::CONSTANT, &[], &[("value", a)], ty)
    }

    /// Size `d` as an index value: a constant, or a symbolic size's value
    /// (`loop.size`, read from the call's size table).
    pub fn size_index(&mut self, d: i64) -> Value {
        if !aot_ir::sym::is_symbolic(d) {
            return self.index(d);
        }
        let ty = self.rw.index_type();
        let a = self.rw.i64_attr(d);
        self.rw.build_typed1(r#loop::SIZE, &[], &[("size", a)], ty)
    }

    /// Size `d` as a scalar of type `e` (a count to divide by).
    pub fn size_as(&mut self, d: i64, e: ElemType) -> Value {
        if !aot_ir::sym::is_symbolic(d) {
            return self.constant(d as f64, e);
        }
        let v = self.size_index(d);
        self.cast_e(v, e)
    }

    /// `loop.<op> a, b`.
    pub fn bin(&mut self, op: r#loop::Binary, a: Value, b: Value) -> Result<Value, String> {
        self.build1(op.name(), &[a, b], &[])
    }

    /// `loop.<op> a`.
    pub fn un(&mut self, op: r#loop::Unary, a: Value) -> Result<Value, String> {
        self.build1(op.name(), &[a], &[])
    }

    /// A math function of the table, within its accuracy contract.
    pub fn math(&mut self, f: MathFn, args: &[Value]) -> Result<Value, String> {
        self.build1(f.fact().op, args, &[])
    }

    /// `loop.<f> a {exact}`: a math function computed exactly as `libm`
    /// does (for values that must be bit-identical on every backend).
    pub fn exact(&mut self, f: MathFn, a: Value) -> Result<Value, String> {
        let u = self.rw.unit_attr();
        self.build1(f.fact().op, &[a], &[("exact", u)])
    }

    pub fn cmp(&mut self, pred: Predicate, a: Value, b: Value) -> Result<Value, String> {
        let p = self.rw.str_attr(pred.name());
        self.build1(r#loop::CMP, &[a, b], &[("predicate", p)])
    }

    pub fn select(&mut self, c: Value, a: Value, b: Value) -> Result<Value, String> {
        self.build1(r#loop::SELECT, &[c, a, b], &[])
    }

    /// `loop.fma a, b, c`: a·b + c rounded once (floats).
    pub fn fma(&mut self, a: Value, b: Value, c: Value) -> Result<Value, String> {
        self.build1(r#loop::FMA, &[a, b, c], &[])
    }

    pub fn add(&mut self, a: Value, b: Value) -> Result<Value, String> {
        self.bin(Binary::Add, a, b)
    }

    pub fn sub(&mut self, a: Value, b: Value) -> Result<Value, String> {
        self.bin(Binary::Sub, a, b)
    }

    pub fn mul(&mut self, a: Value, b: Value) -> Result<Value, String> {
        self.bin(Binary::Mul, a, b)
    }

    pub fn div(&mut self, a: Value, b: Value) -> Result<Value, String> {
        self.bin(Binary::Div, a, b)
    }

    /// Converts to type `to` (nothing when it already is).
    pub fn cast(&mut self, v: Value, to: Type) -> Value {
        if self.rw.value_type(v) == to {
            return v;
        }
        self.rw.build_typed1(r#loop::CAST, &[v], &[], to)
    }

    pub fn cast_e(&mut self, v: Value, to: ElemType) -> Value {
        let t = self.rw.elem_type(to);
        self.cast(v, t)
    }

    /// The value in the type arithmetic uses for it.
    pub fn widen(&mut self, v: Value) -> Result<Value, String> {
        let e = self.elem_of(v)?;
        Ok(self.cast_e(v, compute_elem(e)))
    }

    pub fn load(&mut self, buf: Value, idx: &[Value]) -> Result<Value, String> {
        let m = memref(self.rw, buf).cloned().ok_or("load from a non-memref")?;
        let ty = self.rw.elem_type(m.elem);
        let mut ops = vec![buf];
        ops.extend_from_slice(idx);
        Ok(self.rw.build_typed1(r#loop::LOAD, &ops, &[], ty))
    }

    pub fn store(&mut self, v: Value, buf: Value, idx: &[Value]) {
        let mut ops = vec![v, buf];
        ops.extend_from_slice(idx);
        self.rw.build_typed(r#loop::STORE, &ops, &[], &[]);
    }

    /// Stores `v` converted to the buffer's element type.
    pub fn store_as(&mut self, v: Value, buf: Value, idx: &[Value]) -> Result<(), String> {
        let m = memref(self.rw, buf).cloned().ok_or("store to a non-memref")?;
        let v = self.cast_e(v, m.elem);
        self.store(v, buf, idx);
        Ok(())
    }

    pub fn assert(&mut self, cond: Value, msg: &str) {
        let m = self.rw.str_attr(msg);
        self.rw.build_typed(r#loop::ASSERT, &[cond], &[("msg", m)], &[]);
    }

    /// One Philox4x32-10 block: four words (zero-extended u32 in i64).
    pub fn philox(&mut self, seed: Value, counter: Value) -> [Value; 4] {
        let t = self.rw.elem_type(ElemType::I64);
        let op = self.rw.build_typed(r#loop::PHILOX, &[seed, counter], &[], &[t, t, t, t]);
        let r = self.rw.results(op);
        [r[0], r[1], r[2], r[3]]
    }

    /// `loop.for iv = lo to hi step st` carrying `inits`; `body` gets the
    /// induction variable and the carried values and returns the next ones.
    pub fn for_loop(
        &mut self,
        lo: i64,
        hi: i64,
        step: i64,
        parallel: bool,
        inits: &[Value],
        body: &mut LoopBody<'_, 'c>,
    ) -> Result<Vec<Value>, String> {
        let index = self.rw.index_type();
        let mut arg_types = vec![index];
        arg_types.extend(inits.iter().map(|&v| self.rw.value_type(v)));
        let region = self.rw.create_region();
        let block = self.rw.create_block(region, &arg_types);
        let args = self.rw.block_args(block).to_vec();
        let after = self.rw.insertion_point();
        self.rw.set_insertion_point(InsertPoint::End(block));
        let next = body(&mut Scalars { rw: &mut *self.rw }, args[0], &args[1..])?;
        if next.len() != inits.len() {
            return Err(format!("a loop body yielded {} values for {} iter_args", next.len(), inits.len()));
        }
        self.rw.build_typed(r#loop::YIELD, &next, &[], &[]);
        match after {
            Some(ip) => self.rw.set_insertion_point(ip),
            None => return Err("no insertion point for the loop".into()),
        }
        let name = self.rw.op_name_id(r#loop::FOR);
        let mut st = OperationState::new(name, self.rw.current_loc());
        st.operands = inits.iter().copied().collect();
        st.result_types = inits.iter().map(|&v| self.rw.value_type(v)).collect();
        for (k, v) in [("lower", lo), ("upper", hi), ("step", step)] {
            let s = self.rw.sym(k);
            let a = self.rw.i64_attr(v);
            st.add_attr(s, a);
        }
        if parallel {
            let s = self.rw.sym("parallel");
            let a = self.rw.unit_attr();
            st.add_attr(s, a);
        }
        st.regions.push(region);
        let op = self.rw.create(st);
        Ok(self.rw.results(op).to_vec())
    }

    /// A loop nest over `shape` (the outermost loop parallel when asked);
    /// `body` gets one induction variable per dimension.
    pub fn nest(&mut self, shape: &[i64], parallel: bool, body: &mut NestBody<'_, 'c>) -> Result<(), String> {
        self.nest_marked(shape, &|depth| parallel && depth == 0, body)
    }

    /// [`Scalars::nest`] whose every loop is marked `parallel` (its
    /// iterations independent), not only the outermost one the runtime
    /// splits: a loop with an inner loop vectorizes only so, four of its
    /// iterations in lanes (a column reduction sums four columns at once,
    /// each in its own order).
    pub fn nest_independent(&mut self, shape: &[i64], body: &mut NestBody<'_, 'c>) -> Result<(), String> {
        self.nest_marked(shape, &|_| true, body)
    }

    /// Loops over `shape`, the one at depth `d` marked `parallel` where
    /// `parallel(d)`.
    fn nest_marked(
        &mut self,
        shape: &[i64],
        parallel: &dyn Fn(usize) -> bool,
        body: &mut NestBody<'_, 'c>,
    ) -> Result<(), String> {
        fn go<'c>(
            s: &mut Scalars<'_, 'c>,
            shape: &[i64],
            parallel: &dyn Fn(usize) -> bool,
            ivs: &mut Vec<Value>,
            body: &mut NestBody<'_, 'c>,
        ) -> Result<(), String> {
            if ivs.len() == shape.len() {
                return body(s, ivs);
            }
            let n = shape[ivs.len()];
            s.for_loop(0, n, 1, parallel(ivs.len()), &[], &mut |s, iv, _| {
                ivs.push(iv);
                let r = go(s, shape, parallel, ivs, body);
                ivs.pop();
                r.map(|_| Vec::new())
            })?;
            Ok(())
        }
        go(self, shape, parallel, &mut Vec::new(), body)
    }

    /// One parallel loop over every position of `shape` (so the runtime
    /// splits the positions evenly, however the dimensions divide); `body`
    /// gets the position's multi-index.
    pub fn nest_flat(&mut self, shape: &[i64], body: &mut NestBody<'_, 'c>) -> Result<(), String> {
        let total = aot_ir::sym::numel(shape).map_err(|_| "the loop's trip count overflows")?;
        self.nest(&[total], true, &mut |s, iv| {
            let at = s.delinearize(iv[0], shape)?;
            body(s, &at)
        })
    }

    /// The multi-index of row-major position `flat` in `shape`.
    pub fn delinearize(&mut self, flat: Value, shape: &[i64]) -> Result<Vec<Value>, String> {
        let mut out = vec![flat; shape.len()];
        let mut rest = flat;
        for d in (0..shape.len()).rev() {
            if d == 0 {
                out[0] = rest;
                break;
            }
            // (A symbolic size is at least 2: no clamp.)
            let n = if aot_ir::sym::is_symbolic(shape[d]) {
                self.size_index(shape[d])
            } else {
                self.index(shape[d].max(1))
            };
            out[d] = self.bin(Binary::Rem, rest, n)?;
            rest = self.bin(Binary::Div, rest, n)?;
        }
        Ok(out)
    }

    /// The row-major position of multi-index `ivs` in `shape`.
    pub fn linearize(&mut self, ivs: &[Value], shape: &[i64]) -> Result<Value, String> {
        let mut acc = self.index(0);
        for (d, &iv) in ivs.iter().enumerate() {
            let n = self.size_index(shape[d]);
            let scaled = self.mul(acc, n)?;
            acc = self.add(scaled, iv)?;
        }
        Ok(acc)
    }
}

/// What a [`Lower`] implementation works with: the op, its operands as
/// memrefs, and host-level building (buffers, views, kernels, GEMMs).
pub struct LowerCtx<'r, 'c> {
    pub rw: &'r mut Rewriter<'c>,
    pub op: Op,
    /// One memref per operand.
    pub operands: Vec<Value>,
    /// Filled by the lowering: one memref per result.
    pub results: Vec<Option<Value>>,
    /// Counter for kernel names, shared by the whole function.
    pub kernels: &'r mut usize,
    /// Per operand: its buffer is a whole fresh allocation that nothing
    /// reads or returns after this op (through any value or view) and no
    /// other operand shares, so the lowering may write the result into it.
    pub reusable: Vec<bool>,
    /// Whether the target runs the host's library kernels
    /// (`loop.attention`); a device target does not.
    pub host_kernels: bool,
    /// What the function declares about its symbols (its ranges and
    /// guards, or the defaults): what layouts and emptiness are decided
    /// under. Read once per function.
    pub facts: &'r aot_ir::sym::Facts,
}

impl<'r, 'c> LowerCtx<'r, 'c> {
    pub fn ctx(&self) -> &Context {
        self.rw
    }

    pub fn operand(&self, i: usize) -> Result<Value, String> {
        self.operands.get(i).copied().ok_or_else(|| format!("missing operand {i}"))
    }

    /// Whether operand `i`'s buffer may be overwritten (see `reusable`).
    pub fn reusable(&self, i: usize) -> bool {
        self.reusable.get(i).copied().unwrap_or(false)
    }

    pub fn operand_type(&self, i: usize) -> Result<MemRefType, String> {
        memref(self.rw, self.operand(i)?).cloned().ok_or_else(|| format!("operand {i} is not a buffer"))
    }

    pub fn result_type(&self, i: usize) -> Result<TensorType, String> {
        let r = *self.rw.results(self.op).get(i).ok_or_else(|| format!("missing result {i}"))?;
        self.rw.value_tensor(r).cloned().ok_or_else(|| format!("result {i} is not a tensor"))
    }

    pub fn attrs(&self) -> AttrView<'_> {
        AttrView::of_op(self.rw, self.op)
    }

    /// Whether anything uses result `i`: a lowering may leave a result
    /// nothing uses unset, and skip computing it (max pooling's indices in
    /// inference).
    pub fn result_used(&self, i: usize) -> bool {
        i < self.rw.num_results(self.op) && self.rw.uses(self.rw.result(self.op, i)).next().is_some()
    }

    pub fn set_result(&mut self, i: usize, v: Value) {
        if self.results.len() <= i {
            self.results.resize(i + 1, None);
        }
        self.results[i] = Some(v);
    }

    /// A fresh contiguous buffer.
    pub fn alloc(&mut self, shape: &[i64], e: ElemType) -> Value {
        let t = memref_type(self.rw, shape, e, &row_major(shape), 0);
        self.rw.build_typed1(r#loop::ALLOC, &[], &[], t)
    }

    /// A buffer holding `dense` (read-only; shared by every call).
    pub fn global(&mut self, value: Attribute, shape: &[i64], e: ElemType) -> Value {
        let t = memref_type(self.rw, shape, e, &row_major(shape), 0);
        self.rw.build_typed1(r#loop::GLOBAL, &[], &[("value", value)], t)
    }

    /// `v` under another layout (absolute strides and offset).
    pub fn view(&mut self, v: Value, shape: &[i64], strides: &[i64], offset: i64) -> Result<Value, String> {
        let m = memref(self.rw, v).cloned().ok_or("view of a non-buffer")?;
        let t = memref_type(self.rw, shape, m.elem, strides, offset);
        if t == self.rw.value_type(v) {
            return Ok(v);
        }
        Ok(self.rw.build_typed1(r#loop::VIEW, &[v], &[], t))
    }

    /// `v` broadcast to `shape` (stride 0 along new and size-1 dimensions).
    pub fn expand(&mut self, v: Value, shape: &[i64]) -> Result<Value, String> {
        let m = memref(self.rw, v).cloned().ok_or("expand of a non-buffer")?;
        let (strides, offset) = r#loop::layout(&m);
        let r = shape.len();
        if m.shape.len() > r {
            return Err(format!("cannot broadcast a rank-{} buffer to rank {r}", m.shape.len()));
        }
        let lead = r - m.shape.len();
        let mut out = Shape::from_elem(0, r);
        for d in 0..r {
            if d >= lead {
                let (n, s) = (m.shape[d - lead], strides[d - lead]);
                if n == shape[d] {
                    out[d] = s;
                } else if n != 1 {
                    return Err(format!("cannot broadcast {:?} to {:?}", m.shape.to_vec(), shape));
                }
            }
        }
        self.view(v, shape, &out, offset)
    }

    /// A unique kernel name from `base`.
    pub fn kernel_name(&mut self, base: &str) -> String {
        let n = *self.kernels;
        *self.kernels += 1;
        format!("{base}_{n}")
    }

    /// Prefixes the message of every `loop.assert` in `region` with the op
    /// being lowered (`'tensor.gather' op index out of bounds ...`), so that
    /// a check failing in compiled code names its op as eager mode does.
    fn name_asserts(&mut self, region: Region) {
        let prefix = format!("'{}' op ", self.rw.op_name(self.op));
        let mut asserts = Vec::new();
        for &b in self.rw.region_blocks(region) {
            for op in self.rw.block_ops(b) {
                self.rw.walk_pre(op, &mut |o| {
                    if self.rw.op_name(o) == r#loop::ASSERT {
                        asserts.push(o);
                    }
                });
            }
        }
        for o in asserts {
            let msg = self.rw.attr_str(o, "msg").unwrap_or("a check failed").to_string();
            if !msg.starts_with(&prefix) {
                let m = self.rw.str_attr(&format!("{prefix}{msg}"));
                self.rw.set_attr(o, "msg", m);
            }
        }
    }

    /// A `loop.kernel` over `buffers`; `body` builds it from the kernel's
    /// block arguments (one per buffer, in order).
    pub fn kernel(&mut self, base: &str, buffers: &[Value], body: &mut NestBody<'_, 'c>) -> Result<(), String> {
        let name = self.kernel_name(base);
        let types: Vec<Type> = buffers.iter().map(|&b| self.rw.value_type(b)).collect();
        let region = self.rw.create_region();
        let block = self.rw.create_block(region, &types);
        let args = self.rw.block_args(block).to_vec();
        let after = self.rw.insertion_point().ok_or("no insertion point for the kernel")?;
        self.rw.set_insertion_point(InsertPoint::End(block));
        body(&mut Scalars { rw: &mut *self.rw }, &args)?;
        self.rw.build_typed(r#loop::YIELD, &[], &[], &[]);
        self.name_asserts(region);
        self.rw.set_insertion_point(after);
        let op_name = self.rw.op_name_id(r#loop::KERNEL);
        let mut st = OperationState::new(op_name, self.rw.current_loc());
        st.operands = buffers.iter().copied().collect();
        let k = self.rw.sym("name");
        let v = self.rw.str_attr(&name);
        st.add_attr(k, v);
        st.regions.push(region);
        self.rw.create(st);
        Ok(())
    }

    /// `c = a·b` (`c += a·b` when `accumulate`) on rank-≥2 buffers of equal
    /// rank and batch shape.
    pub fn matmul(&mut self, a: Value, b: Value, c: Value, accumulate: bool) {
        let attrs: SmallVec<[(&str, Attribute); 1]> =
            if accumulate { smallvec::smallvec![("accumulate", self.rw.unit_attr())] } else { SmallVec::new() };
        self.rw.build_typed(r#loop::MATMUL, &[a, b, c], &attrs, &[]);
    }

    /// `loop.attention` (`grad`: `loop.attention_grad`) over `operands` in
    /// the op's order, by the host's fused kernel (f32 buffers, the mask
    /// broadcast to the scores).
    pub fn attention(&mut self, grad: bool, operands: &[Value], scale: f64, causal: bool) {
        let mut attrs: SmallVec<[(&str, Attribute); 2]> = smallvec::smallvec![("scale", self.rw.f64_attr(scale))];
        if causal {
            attrs.push(("causal", self.rw.unit_attr()));
        }
        let name = if grad { r#loop::ATTENTION_GRAD } else { r#loop::ATTENTION };
        self.rw.build_typed(name, operands, &attrs, &[]);
    }

    /// Copies `src` (broadcast to `dst`'s shape, converted to its element
    /// type) into `dst`.
    pub fn copy_into(&mut self, src: Value, dst: Value) -> Result<(), String> {
        let d = memref(self.rw, dst).cloned().ok_or("copy into a non-buffer")?;
        let src = self.expand(src, &d.shape)?;
        // Dimensions of one element are left out of the nest, so that its
        // outermost loop, the one the runtime splits across threads, has
        // more than one iteration (a symbolic function's loops are not
        // collapsed afterwards: a copy of a `[1, 32, s0, ...]` view ran on
        // one thread).
        let keep: Vec<usize> = (0..d.shape.len()).filter(|&k| d.shape[k] != 1).collect();
        let (src, dst, d) = if keep.is_empty() || keep.len() == d.shape.len() {
            (src, dst, d)
        } else {
            let sm = memref(self.rw, src).cloned().ok_or("copy from a non-buffer")?;
            let (sst, soff) = r#loop::layout(&sm);
            let (dst_st, doff) = r#loop::layout(&d);
            let shape: Vec<i64> = keep.iter().map(|&k| d.shape[k]).collect();
            let src = self.view(src, &shape, &keep.iter().map(|&k| sst[k]).collect::<Vec<_>>(), soff)?;
            let dst = self.view(dst, &shape, &keep.iter().map(|&k| dst_st[k]).collect::<Vec<_>>(), doff)?;
            let d = memref(self.rw, dst).cloned().ok_or("copy into a non-buffer")?;
            (src, dst, d)
        };
        let shape = d.shape.to_vec();
        // A destination that addresses an element twice is written in
        // row-major order, the last write winning, as the interpreter does.
        let parallel = non_overlapping_in(&shape, &r#loop::layout(&d).0, self.facts);
        self.kernel("copy", &[src, dst], &mut |s, a| {
            s.nest(&shape, parallel, &mut |s, ivs| {
                let v = s.load(a[0], ivs)?;
                let v = convert(s, v, d.elem)?;
                s.store(v, a[1], ivs);
                Ok(())
            })
        })
    }

    /// `v` itself when its elements are of type `e`, else a copy converted
    /// to `e` (half-precision operands computed in f32, and back).
    pub fn as_elem(&mut self, v: Value, e: ElemType) -> Result<Value, String> {
        let m = memref(self.rw, v).cloned().ok_or("not a buffer")?;
        if m.elem == e {
            return Ok(v);
        }
        let out = self.alloc(&m.shape, e);
        self.copy_into(v, out)?;
        Ok(out)
    }

    /// `v` itself when its layout is contiguous, else a contiguous copy.
    pub fn contiguous(&mut self, v: Value) -> Result<Value, String> {
        let m = memref(self.rw, v).cloned().ok_or("not a buffer")?;
        if m.layout.is_none() {
            return Ok(v);
        }
        let out = self.alloc(&m.shape, m.elem);
        self.copy_into(v, out)?;
        Ok(out)
    }
}

/// Converts a scalar to storage type `to` with the interpreter's rules:
/// floats round, float to integer truncates (saturating), to `i1` tests
/// `!= 0`, integers wrap.
pub fn convert(s: &mut Scalars<'_, '_>, v: Value, to: ElemType) -> Result<Value, String> {
    let from = s.elem_of(v)?;
    if from == to {
        return Ok(v);
    }
    if to == ElemType::I1 {
        let w = s.widen(v)?;
        let z = s.constant(0.0, compute_elem(from));
        return s.cmp(Predicate::Ne, w, z);
    }
    if from.is_float() && to.is_int() {
        // Truncation toward zero, then the integer conversion saturates.
        let w = s.widen(v)?;
        return Ok(s.cast_e(w, to));
    }
    if from.is_float() && to.is_float() {
        let w = s.widen(v)?;
        return Ok(s.cast_e(w, to));
    }
    Ok(s.cast_e(v, to))
}

/// Lowers a [`Pointwise`] op: one kernel writing a fresh buffer of the
/// result shape.
pub fn lower_pointwise(lc: &mut LowerCtx<'_, '_>, f: &Pointwise) -> Result<(), String> {
    let rt = lc.result_type(0)?;
    let shape = rt.shape.to_vec();
    let mut bufs = Vec::new();
    for i in 0..lc.operands.len() {
        let o = lc.operand(i)?;
        bufs.push(lc.expand(o, &shape)?);
    }
    // The result is laid out, and its loops run, in the order of the
    // leading operand's memory: stores and that operand's loads stay
    // unit-stride, and a channels-last tensor stays channels-last.
    let order = match pointwise_order(lc.ctx(), &bufs, &shape, lc.facts) {
        Ok(order) => order,
        // Strides eager would order one way at some sizes and another at
        // others: the result's layout would have to follow eager's per
        // size. Unless nothing outside the function can see it.
        Err(_) if !layout_observable(lc.ctx(), lc.ctx().results(lc.op)[0], 0) => (0..shape.len()).collect(),
        Err(e) => return Err(e),
    };
    let loops: Vec<i64> = order.iter().map(|&d| shape[d]).collect();
    let out = lc.alloc(&loops, rt.elem);
    let result = if order.iter().enumerate().all(|(i, &d)| i == d) {
        out
    } else {
        let rm = row_major(&loops);
        let mut strides = vec![0; shape.len()];
        for (i, &d) in order.iter().enumerate() {
            strides[d] = rm[i];
        }
        lc.view(out, &shape, &strides, 0)?
    };
    bufs.push(out);
    let op = lc.op;
    let n = lc.operands.len();
    let name = lc.ctx().op_name(op).rsplit('.').next().unwrap_or("pointwise").to_string();
    lc.kernel(&name, &bufs, &mut |s, a| {
        s.nest(&loops, true, &mut |s, ivs| {
            let mut at = ivs.to_vec();
            for (i, &d) in order.iter().enumerate() {
                at[d] = ivs[i];
            }
            let mut vals = Vec::with_capacity(n);
            for &b in &a[..n] {
                vals.push(s.load(b, &at)?);
            }
            let r = (f.0)(s, op, &vals)?;
            s.store_as(r, a[n], ivs)
        })
    })?;
    lc.set_result(0, result);
    Ok(())
}

/// Whether the layout of `v`, the result of an elementwise op, can be seen
/// from outside the function: `v` is returned, or reaches a returned value
/// through views, or through elementwise ops (whose results may take the
/// layout of `v` as their leading operand's), or has a use that may keep
/// its memory (an in-place or metadata op, a view scatter, an op of another
/// dialect than the tensor and rng ones). Any other use reads `v`'s values into a
/// fresh result of its own layout, so the layout of an intermediate is the
/// compiler's to choose: what a symbolic function needs where eager's
/// order of the strides changes with the sizes (a slice of a permuted
/// gradient whose strides tie where a map is 1 wide).
fn layout_observable(ctx: &Context, v: Value, depth: u32) -> bool {
    if depth > 32 {
        return true;
    }
    ctx.uses(v).any(|u| {
        let Some(def) = ctx.op_def(u.op) else { return true };
        let through = |ctx: &Context| ctx.results(u.op).iter().any(|&r| layout_observable(ctx, r, depth + 1));
        if def.has(Traits::TERMINATOR) {
            // (A forward's saved value, `aot.saved`, is read only by its
            // backward, which takes any layout.)
            !saved_result(ctx, u.op, u.index as usize)
        } else if def.has(Traits::INPLACE) || def.has(Traits::METADATA_MUTATION) {
            true
        } else if def.has(Traits::VIEW) || def.interface::<Pointwise>().is_some() {
            through(ctx)
        } else {
            !matches!(def.dialect(), "tensor" | "rng")
        }
    })
}

/// Whether result `index` of the function `ret` returns from is a value
/// the partitioner saved for the backward (`aot.saved`).
fn saved_result(ctx: &Context, ret: Op, index: usize) -> bool {
    ctx.parent_op(ret)
        .is_some_and(|f| crate::func::FuncView { op: f }.res_attr(ctx, index, crate::func::SAVED).is_some())
}

/// The dimensions of a pointwise result of `shape`, outermost first, in
/// the memory order of its first operand that covers it without
/// broadcasting when that operand is a dense permutation of it
/// (channels-last, a transpose), as PyTorch lays out such results; else
/// row-major. Dimensions of one element go innermost, where they are unit
/// loops, not outermost, where the runtime splits the loop across threads.
/// With symbolic sizes or strides the order is row-major when that leading
/// operand is (or there is none); another order would have to be decided
/// by comparing expressions, which is refused rather than guessed.
fn pointwise_order(
    ctx: &Context,
    operands: &[Value],
    shape: &[i64],
    facts: &aot_ir::sym::Facts,
) -> Result<Vec<usize>, String> {
    let identity: Vec<usize> = (0..shape.len()).collect();
    let lead = operands.iter().find_map(|&v| {
        let m = memref(ctx, v)?;
        let (st, _) = r#loop::layout(m);
        let full = (0..shape.len()).all(|d| shape[d] == 1 || st[d] != 0);
        full.then(|| st.to_vec())
    });
    if !aot_ir::sym::is_static(shape) || lead.as_ref().is_some_and(|st| !aot_ir::sym::is_static(st)) {
        return match lead {
            Some(st) if !is_row_major(shape, &st) => symbolic_order(shape, &st, facts).ok_or_else(|| {
                format!(
                    "an elementwise op whose operand has the symbolic layout {:?} (strides not ordered by the \
symbols' ranges) is not supported yet",
                    st.iter().map(|&d| aot_ir::sym::display(d)).collect::<Vec<_>>()
                )
            }),
            _ => Ok(identity),
        };
    }
    let Some(st) = lead.filter(|st| aot_runtime::overlap::is_non_overlapping_and_dense(shape, st)) else {
        return Ok(identity);
    };
    let mut order: Vec<usize> = (0..shape.len()).filter(|&d| shape[d] > 1).collect();
    order.sort_by_key(|&d| std::cmp::Reverse(st[d]));
    if order.windows(2).all(|w| w[0] < w[1]) {
        return Ok(identity);
    }
    order.extend((0..shape.len()).filter(|&d| shape[d] == 1));
    Ok(order)
}

/// [`pointwise_order`] for a leading operand with symbolic sizes or
/// strides `st`: the same decision as over numbers. A dense permutation
/// gives its memory order ([`dense_order`], by equal expressions); any
/// other layout stays row-major, as over numbers, when its strides compare
/// under the function's `facts` (a stride is provably larger for every
/// call the function's ranges and guards accept: a slice of 2 rows of `n`
/// has strides `8·n` and 8, ordered where the ranges keep `n >= 2`).
/// `None` when two strides cannot be compared.
fn symbolic_order(shape: &[i64], st: &[i64], facts: &aot_ir::sym::Facts) -> Option<Vec<usize>> {
    let identity: Vec<usize> = (0..shape.len()).collect();
    if shape.contains(&0) {
        return Some(identity);
    }
    if let Some(order) = dense_order(shape, st) {
        return Some(order);
    }
    let greater = |a: i64, b: i64| aot_ir::sym::add(b, 1).is_ok_and(|b1| facts.known_le(b1, a));
    let mut order: Vec<usize> = (0..shape.len()).filter(|&d| shape[d] != 1).collect();
    // A stable sort, largest stride first.
    for k in 1..order.len() {
        let mut j = k;
        while j > 0 && greater(st[order[j]], st[order[j - 1]]) {
            order.swap(j, j - 1);
            j -= 1;
        }
    }
    // (Not dense, since `dense_order` found no order: row-major.)
    order.windows(2).all(|w| st[w[0]] == st[w[1]] || greater(st[w[0]], st[w[1]])).then_some(identity)
}

/// The memory order of a dense permutation (`sym::dense_permutation`:
/// from the innermost dimension out by equal expressions), with the
/// dimensions of one element innermost, or row-major. Exact where comparing
/// strides by the symbols' ranges is not: `[s0, 32, h, h]` over a
/// `[32, s0, h, h]` buffer, `h = s1 floordiv 2`, orders the same whether
/// or not `h` may be 1 (then its strides address nothing). `None` unless
/// every dimension of more than one element is found this way.
fn dense_order(shape: &[i64], st: &[i64]) -> Option<Vec<usize>> {
    let perm = aot_ir::sym::dense_permutation(shape, st)?;
    let mut order: Vec<usize> = perm.into_iter().filter(|&d| shape[d] != 1).collect();
    if order.windows(2).all(|w| w[0] < w[1]) {
        return Some((0..shape.len()).collect());
    }
    order.extend((0..shape.len()).filter(|&d| shape[d] == 1));
    Some(order)
}

#[cfg(test)]
mod tests {
    use super::*;
    use aot_ir::sym;

    #[test]
    fn row_major_strides_over_symbols_are_expressions() {
        let (s0, s1) = (sym::symbol(0), sym::symbol(1));
        let st = row_major(&[s0, s1, 8]);
        assert_eq!(st.to_vec(), vec![sym::mul(s1, 8).unwrap(), 8, 1]);
        assert_eq!(sym::display(st[0]), "(s1*8)");
        // A size-1 dimension keeps the clamp; a symbol needs none (it is at
        // least 2), and its stride is the inner dimensions' product.
        assert_eq!(row_major(&[s0, 1, s1]).to_vec(), vec![s1, s1, 1]);
        assert!(is_row_major(&[s0, 1, s1], &[s1, 7, 1]));
        assert!(!is_row_major(&[s0, s1], &[1, s0]));
    }

    #[test]
    fn symbolic_orders_compare_strides_by_the_symbols_ranges() {
        let (s0, s1) = (sym::symbol(0), sym::symbol(1));
        // A transpose of [4, s0, 8]: (s0*8) > 8 > 1 for every s0 >= 2.
        let s08 = sym::mul(s0, 8).unwrap();
        assert_eq!(symbolic_order(&[s0, 4, 8], &[8, s08, 1], sym::Facts::defaults()), Some(vec![1, 0, 2]));
        // A transpose of [s0, s1]: dense, the larger stride outermost.
        assert_eq!(symbolic_order(&[s1, s0], &[1, s1], sym::Facts::defaults()), Some(vec![1, 0]));
        // Row-major already, and a layout that is not dense: row-major.
        assert_eq!(symbolic_order(&[s0, 4], &[4, 1], sym::Facts::defaults()), Some(vec![0, 1]));
        assert_eq!(symbolic_order(&[s0, 4], &[1, s08], sym::Facts::defaults()), Some(vec![0, 1]));
        // s0 against s1: no order for every value.
        assert_eq!(symbolic_order(&[s0, s1], &[s1, s0], sym::Facts::defaults()), None);
        // A batch norm's images permuted back from channels first
        // ([s0, 8, s1, s1] over an [8, s0, s1, s1] buffer): s0*s1*s1 >
        // s1*s1 since the two share the factor s1*s1.
        let plane = sym::mul(s1, s1).unwrap();
        let st = [plane, sym::mul(s0, plane).unwrap(), s1, 1];
        assert_eq!(symbolic_order(&[s0, 8, s1, s1], &st, sym::Facts::defaults()), Some(vec![1, 0, 2, 3]));
        // The same over a pooled image size, `s1 floordiv 2`.
        let h = sym::floordiv(s1, 2).unwrap();
        let plane = sym::mul(h, h).unwrap();
        let st = [plane, sym::mul(s0, plane).unwrap(), h, 1];
        assert_eq!(symbolic_order(&[s0, 32, h, h], &st, sym::Facts::defaults()), Some(vec![1, 0, 2, 3]));
        // Two rows sliced from `n = s1 floordiv 2 - 1` (a `topk` of a
        // sliding window's count): strides `8·n` and 8 tie where n is 1,
        // which the default ranges allow and the function's `s1 >= 6`
        // does not.
        let n = sym::sub(h, 1).unwrap();
        let st = [sym::mul(n, 8).unwrap(), 8, 1];
        assert_eq!(symbolic_order(&[s0, 2, 8], &st, sym::Facts::defaults()), None);
        let mut facts = sym::Facts::default();
        facts.ranges.insert(1, (6, sym::MAX_SYMBOL_VALUE));
        assert_eq!(symbolic_order(&[s0, 2, 8], &st, &facts), Some(vec![0, 1, 2]));
    }

    #[test]
    fn symbolic_layouts_are_non_overlapping_when_proven_for_every_value() {
        let (s0, s1) = (sym::symbol(0), sym::symbol(1));
        assert!(non_overlapping(&[s0, s1], &[s1, 1]));
        // Transposed: each stride spans the one inside it. Broadcast along
        // a symbolic dimension: overlapping.
        assert!(non_overlapping(&[s1, s0], &[1, s1]));
        assert!(!non_overlapping(&[s0, s1], &[0, 1]));
        // A padded buffer's interior: rows of h + 2, planes of (h + 2)^2,
        // h = s1 floordiv 2 (the copy into a convolution's padded input).
        let h = sym::floordiv(s1, 2).unwrap();
        let row = sym::add(h, 2).unwrap();
        let plane = sym::mul(row, row).unwrap();
        let image = sym::mul(plane, 32).unwrap();
        assert!(non_overlapping(&[s0, 32, h, h], &[image, plane, row, 1]));
        // Rows one element too short overlap (for some h).
        let short = sym::sub(h, 1).unwrap();
        assert!(!non_overlapping(&[s0, h, h], &[sym::mul(h, h).unwrap(), short, 1]));
        // Two symbolic strides with no order for every value.
        assert!(!non_overlapping(&[4, 4], &[s0, s1]));
        // Static layouts are decided as before.
        assert!(non_overlapping(&[4, 8], &[1, 4]));
        assert!(!non_overlapping(&[4, 8], &[0, 1]));
        // Rows `s1 - 4` apart, of 4 elements: apart only where the
        // function's ranges keep s1 >= 8.
        let rows = sym::sub(s1, 4).unwrap();
        assert!(!non_overlapping(&[s0, 4], &[rows, 1]));
        let mut facts = sym::Facts::default();
        facts.ranges.insert(1, (8, sym::MAX_SYMBOL_VALUE));
        assert!(non_overlapping_in(&[s0, 4], &[rows, 1], &facts));
    }
}
