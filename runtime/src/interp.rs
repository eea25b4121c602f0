//! The reference interpreter: the project's eager oracle.
//!
//! Executes a function op by op with PyTorch eager semantics (see
//! `docs/reference/semantics.md`): every SSA value is bound to a tensor
//! object; `view.*` results share
//! their operand's storage; data mutations write through strides; metadata
//! mutations change the object and bind the result to the same object;
//! `aot.no_grad` ops run without recording autograd state; an in-place op on
//! a leaf that requires grad fails as in PyTorch. In a function marked
//! `aot.value_semantics` (after `functionalize`) view results are
//! materialized, so outputs never alias.
//!
//! The interpreter knows no op. Each op supplies a [`Kernel`] through its
//! definition's interfaces; the driver here only binds values, checks the
//! in-place rules and keeps the autograd flags (`requires_grad`, leafness,
//! view bases) the way PyTorch's autograd would.

mod call_cost;

pub use call_cost::{find_callee, show_count, CallCosts, ExpansionError};

use crate::philox::Generator;
use crate::tensor::{CreationMeta, Tensor};
use aot_ir::size::{Limit, Limits};
use aot_ir::{AttrData, Context, Diagnostic, ElemType, Op, TensorType, Traits, Value};
use rustc_hash::FxHashMap;
use smallvec::SmallVec;

/// Results of a kernel, or a message the driver locates at the op.
pub type KernelResult = Result<SmallVec<[Tensor; 2]>, String>;

/// The interpreter implementation of an op (an op interface).
pub struct Kernel(pub fn(&mut KernelCtx<'_>) -> KernelResult);

/// Marks `view.detach`: its result is an alias that leaves autograd.
pub struct Detaches;

/// Marks a call (`func.call`): the interpreter runs the function its
/// `callee` symbol names in the enclosing module. Terminators return, and
/// functions are the symbols with a body; so the runtime, which sits below
/// the dialects, knows the `func` dialect only through these facts.
pub struct CallOpInterface;

/// Marks a metadata mutation that gives its operand other data (`set_`).
/// Autograd counts it as a data mutation; the others (`t_`, `as_strided_`,
/// `resize_`, ...) only change how the object reads its storage, and an
/// argument changed only by them is not in the gradient objective.
pub struct ReplacesData;

/// Marks an in-place op that PyTorch lets write a destination whose elements
/// share memory (an `expand`ed tensor): `fill_` and `zero_` give every
/// element one value, so the order of the writes does not matter.
pub struct AllowsInternalOverlap;

/// Marks an op PyTorch refuses on a tensor that requires grad, in any mode
/// (`resize_`). The compiled graph's own epilogue (value semantics) resizes
/// arguments whatever their flags: the runtime, not autograd, does it.
pub struct RefusesRequiresGrad(pub &'static str);

/// Marks an in-place op that, like PyTorch's `index_put_`, checks its
/// inputs with `assert_no_overlap`: an input that overlaps the destination
/// at all, even exactly (the destination itself), is an error. Other
/// in-place ops (`assert_no_partial_overlap`) only reject a partial overlap.
pub struct AssertNoOverlap;

/// Whether an in-place op must reject an input whose memory relates to its
/// destination's as `status`; `strict` for ops marked [`AssertNoOverlap`].
pub fn overlap_forbidden(status: crate::overlap::MemOverlap, strict: bool) -> bool {
    use crate::overlap::MemOverlap;
    status == MemOverlap::Partial || (strict && status == MemOverlap::Full)
}

/// Results (by index) that never require grad, e.g. the mean and rstd of
/// `layer_norm` (PyTorch marks them non-differentiable).
pub struct NonDifferentiableResults(pub &'static [usize]);

/// The function attribute that marks value semantics.
pub const VALUE_SEMANTICS: &str = "aot.value_semantics";
/// The op attribute that runs an op under no_grad.
pub const NO_GRAD: &str = "aot.no_grad";

/// What a kernel sees.
pub struct KernelCtx<'a> {
    pub ctx: &'a Context,
    pub op: Op,
    pub inputs: &'a [Tensor],
    pub gen: &'a mut Generator,
    /// Float results live in f64 buffers (finite differences).
    pub promote_f64: bool,
    /// The values of the function's symbols in this call: declared
    /// result types and size attributes read through this context are
    /// evaluated with them.
    pub syms: &'a aot_ir::sym::Bindings,
}

impl<'a> KernelCtx<'a> {
    pub fn input(&self, i: usize) -> &Tensor {
        &self.inputs[i]
    }

    /// The physical buffer type for a result of logical type `dtype`.
    pub fn physical(&self, dtype: ElemType) -> ElemType {
        if self.promote_f64 && dtype.is_float() {
            ElemType::F64
        } else {
            dtype
        }
    }

    pub fn new_f64(&self, dtype: ElemType, shape: &[i64], data: &[f64]) -> Tensor {
        Tensor::from_f64(dtype, shape, data, self.physical(dtype))
    }

    pub fn new_i64(&self, dtype: ElemType, shape: &[i64], data: &[i64]) -> Tensor {
        Tensor::from_i64(dtype, shape, data, self.physical(dtype))
    }

    /// A result of type `dtype` from values computed in f64 (integer types
    /// take the integer path so large values stay exact).
    pub fn new_typed(&self, dtype: ElemType, shape: &[i64], f: &[f64]) -> Tensor {
        self.new_f64(dtype, shape, f)
    }

    /// The declared type of result `i`.
    pub fn result_type(&self, i: usize) -> Result<TensorType, String> {
        let v = self.ctx.result(self.op, i);
        let t = self.ctx.value_tensor(v).cloned().ok_or_else(|| format!("result #{i} is not a tensor"))?;
        if t.is_symbolic() {
            let shape = self.syms.eval_shape(&t.shape).map_err(|e| format!("result #{i}: {e}"))?;
            return Ok(TensorType::new(shape, t.elem));
        }
        Ok(t)
    }

    pub fn attr_i64(&self, name: &str) -> Result<i64, String> {
        self.ctx.attr_i64(self.op, name).ok_or_else(|| format!("missing integer attribute '{name}'"))
    }

    pub fn attr_i64_or(&self, name: &str, default: i64) -> i64 {
        self.ctx.attr_i64(self.op, name).unwrap_or(default)
    }

    pub fn attr_f64_or(&self, name: &str, default: f64) -> f64 {
        self.ctx.attr_f64(self.op, name).unwrap_or(default)
    }

    pub fn attr_f64_opt(&self, name: &str) -> Option<f64> {
        self.ctx.attr_f64(self.op, name)
    }

    /// The op's attributes, sizes read with this call's symbol values.
    pub fn attrs(&self) -> aot_ir::AttrView<'a> {
        aot_ir::AttrView::of_op(self.ctx, self.op).bound(self.syms)
    }

    /// An integer list attribute, its symbolic sizes evaluated.
    pub fn attr_list(&self, name: &str) -> Result<Vec<i64>, String> {
        self.attrs().list(name).ok_or_else(|| format!("missing integer list attribute '{name}'"))
    }

    pub fn attr_list_or_empty(&self, name: &str) -> Vec<i64> {
        self.attrs().list(name).unwrap_or_default()
    }

    pub fn attr_flag(&self, name: &str) -> bool {
        self.ctx.attr_flag(self.op, name)
    }

    pub fn attr_str_or<'b>(&'b self, name: &str, default: &'b str) -> &'b str {
        self.ctx.attr_str(self.op, name).unwrap_or(default)
    }

    /// How many elements a dense attribute of type `ty` holds: a splat of a
    /// symbolic shape (only a splat can have one) as many as the shape has
    /// at this call's symbol values.
    fn dense_len(&self, ty: aot_ir::Type) -> Result<usize, String> {
        let t = self.ctx.as_tensor(ty).ok_or("a dense attribute of a non-tensor type")?;
        let shape = self.syms.eval_shape(&t.shape).map_err(|e| e.to_string())?;
        let n = aot_ir::size::checked_numel(&shape).ok_or("a dense attribute's element count overflows")?;
        usize::try_from(n).map_err(|_| "a dense attribute's element count overflows".to_string())
    }

    /// The dense contents of attribute `name` as f64 values (row-major).
    pub fn attr_dense_f64(&self, name: &str) -> Result<Vec<f64>, String> {
        let a = self.ctx.get_attr(self.op, name).ok_or_else(|| format!("missing attribute '{name}'"))?;
        match self.ctx.attr_data(a) {
            AttrData::Dense { ty, data } => {
                let n = self.dense_len(*ty)?;
                Ok((0..n).map(|i| data.get_f64(if data.is_splat() { 0 } else { i })).collect())
            }
            _ => Err(format!("attribute '{name}' is not a dense elements attribute")),
        }
    }

    pub fn attr_dense_i64(&self, name: &str) -> Result<Vec<i64>, String> {
        let a = self.ctx.get_attr(self.op, name).ok_or_else(|| format!("missing attribute '{name}'"))?;
        match self.ctx.attr_data(a) {
            AttrData::Dense { ty, data } => {
                let n = self.dense_len(*ty)?;
                Ok((0..n).map(|i| data.get_i64(if data.is_splat() { 0 } else { i })).collect())
            }
            _ => Err(format!("attribute '{name}' is not a dense elements attribute")),
        }
    }
}

/// Execution options.
#[derive(Clone, Debug, Default)]
pub struct ExecOptions {
    /// Keep float values in f64 everywhere (finite differences).
    pub promote_f64: bool,
}

/// Runs functions of one module.
pub struct Interpreter<'a> {
    ctx: &'a Context,
    pub generator: Generator,
    pub options: ExecOptions,
    depth: usize,
    /// The symbols' values in the function running now.
    syms: aot_ir::sym::Bindings,
    /// Expanded sizes of the functions called so far (the module is
    /// borrowed immutably, so they stay valid).
    costs: CallCosts,
}

const MAX_CALL_DEPTH: usize = 256;

impl<'a> Interpreter<'a> {
    pub fn new(ctx: &'a Context) -> Self {
        Interpreter {
            ctx,
            generator: Generator::default(),
            options: ExecOptions::default(),
            depth: 0,
            syms: aot_ir::sym::Bindings::none(),
            costs: CallCosts::new(),
        }
    }

    fn err(&self, op: Op, msg: impl std::fmt::Display) -> Diagnostic {
        Diagnostic::op_error(self.ctx, op, msg)
    }

    /// Calls the function `func` (a `func.func` op) on tensor objects.
    pub fn call(&mut self, func: Op, args: &[Tensor]) -> Result<Vec<Tensor>, Diagnostic> {
        self.call_owned(func, args.to_vec())
    }

    /// [`Interpreter::call`] that owns the argument handles, so that each is
    /// dropped after its last use.
    pub fn call_owned(&mut self, func: Op, args: Vec<Tensor>) -> Result<Vec<Tensor>, Diagnostic> {
        let ctx = self.ctx;
        let region = ctx.regions(func)[0];
        let Some(&entry) = ctx.region_blocks(region).first() else {
            return Err(self.err(func, "cannot execute a function declaration"));
        };
        // Types are static: bounding every value's size here bounds every
        // allocation and loop of the call before anything runs.
        aot_ir::size::check_value_sizes(ctx, func)?;
        let params = ctx.block_args(entry);
        if params.len() != args.len() {
            return Err(self.err(func, format!("expects {} arguments, got {}", params.len(), args.len())));
        }
        // The interpreter computes on host memory: a device tensor's
        // elements are not there (copy it with `Tensor::to_host`).
        if let Some((i, m)) = args.iter().enumerate().find_map(|(i, a)| a.storage().device_memory().map(|m| (i, m))) {
            return Err(self.err(
                func,
                format!("argument {i} lives on device {}; the interpreter runs on host tensors", m.name()),
            ));
        }
        // A function with symbolic sizes binds them from its arguments and
        // checks its guards; then every value's size is known, and bounded
        // as a static function's are above.
        let symbol_args = aot_ir::sym::symbol_args(ctx, func);
        let symbolic =
            !symbol_args.is_empty() || params.iter().any(|&p| ctx.value_tensor(p).is_some_and(|t| t.is_symbolic()));
        let syms = if symbolic {
            let facts = aot_ir::sym::Facts::of_func(ctx, func).map_err(|m| self.err(func, m))?;
            let types: Vec<Option<&TensorType>> = params.iter().map(|&p| ctx.value_tensor(p)).collect();
            let b = crate::guards::bind_symbols(&types, &symbol_args, &facts, &args).map_err(|m| self.err(func, m))?;
            aot_ir::size::check_value_sizes_bound(ctx, func, &b)?;
            b
        } else {
            aot_ir::sym::Bindings::none()
        };
        for (i, (&p, a)) in params.iter().zip(&args).enumerate() {
            if let Some(t) = ctx.value_tensor(p) {
                let want = syms.eval_shape(&t.shape).map_err(|e| self.err(func, e))?;
                if want[..] != a.sizes()[..] || t.elem != a.dtype() {
                    return Err(self.err(
                        func,
                        format!(
                            "argument {i} is a {} tensor of shape {:?}, but the function expects {}",
                            a.dtype(),
                            a.sizes().to_vec(),
                            t
                        ),
                    ));
                }
            }
        }
        if self.depth == 0 {
            self.check_executed_ops(func)?;
        }
        self.depth += 1;
        if self.depth > MAX_CALL_DEPTH {
            self.depth -= 1;
            return Err(self.err(func, "call depth exceeds 256 (unbounded recursion?)"));
        }
        let value_semantics = ctx.has_attr(func, VALUE_SEMANTICS);
        let caller_syms = std::mem::replace(&mut self.syms, syms);
        let r = self.run_block(entry, args, value_semantics);
        self.syms = caller_syms;
        self.depth -= 1;
        r
    }

    /// Refuses, before running anything, a call that would execute more
    /// than [`Limits::max_executed_ops`] ops counting callees per call site
    /// (a chain of functions each calling the next twice doubles per link),
    /// and a recursive one (bodies are straight-line: it never returns).
    fn check_executed_ops(&mut self, func: Op) -> Result<(), Diagnostic> {
        let limit = Limits::max_executed_ops();
        match self.costs.check(self.ctx, func, limit) {
            Ok(_) => Ok(()),
            Err(ExpansionError::Recursive { call, callee }) => Err(self.err(
                call,
                format!("calls @{callee} recursively: functions have no control flow, so the call never returns"),
            )),
            Err(ExpansionError::TooLarge { at, callee, own, total, limit }) => {
                let fname = self.ctx.attr_str(func, "sym_name").unwrap_or("?");
                let part = callee.map(|c| format!(" ({} in this call to @{c})", show_count(own))).unwrap_or_default();
                Err(self.err(
                    at,
                    format!(
                        "executing @{fname} would run {} ops{part}, more than the limit of {limit} (raise it with {})",
                        show_count(total),
                        Limit::ExecutedOps.env_var()
                    ),
                ))
            }
        }
    }

    fn run_block(
        &mut self,
        block: aot_ir::Block,
        args: Vec<Tensor>,
        value_semantics: bool,
    ) -> Result<Vec<Tensor>, Diagnostic> {
        let ctx = self.ctx;
        let mut env: FxHashMap<Value, Tensor> = FxHashMap::default();
        for (&p, a) in ctx.block_args(block).iter().zip(args) {
            env.insert(p, a);
        }
        // Each value's handle is dropped after its last use, so storage is
        // freed as a compiled program would free it (the memory benchmarks
        // measure this); views and other handles keep a storage alive.
        let mut last_use: FxHashMap<Value, usize> = FxHashMap::default();
        for (i, op) in ctx.block_ops(block).enumerate() {
            for v in ctx.operands(op) {
                last_use.insert(v, i);
            }
        }
        let mut dying: Vec<Vec<Value>> = vec![Vec::new(); ctx.block_ops(block).count()];
        for (&v, &i) in &last_use {
            dying[i].push(v);
        }
        for (i, op) in ctx.block_ops(block).enumerate() {
            let inputs: Vec<Tensor> = ctx
                .operands(op)
                .map(|v| env.get(&v).cloned().ok_or_else(|| self.err(op, "operand has no value (not a tensor?)")))
                .collect::<Result<_, _>>()?;
            let def = ctx.op_def(op);
            if def.is_some_and(|d| d.has(aot_ir::Traits::TERMINATOR)) {
                return Ok(inputs);
            }
            let results = if def.is_some_and(|d| d.interface::<CallOpInterface>().is_some()) {
                let callee = find_callee(ctx, op).ok_or_else(|| self.err(op, "callee not found"))?;
                self.call(callee, &inputs)?
            } else {
                self.run_op(op, &inputs, value_semantics)?.into_vec()
            };
            if results.len() != ctx.num_results(op) {
                return Err(self
                    .err(op, format!("kernel produced {} results, expected {}", results.len(), ctx.num_results(op))));
            }
            for (&r, t) in ctx.results(op).iter().zip(results) {
                if let Some(tt) = ctx.value_tensor(r) {
                    let want = self.syms.eval_shape(&tt.shape).map_err(|e| self.err(op, e))?;
                    if want[..] != t.sizes()[..] || tt.elem != t.dtype() {
                        return Err(self.err(
                            op,
                            format!(
                                "kernel produced a {} tensor of shape {:?} for a result of type {tt}",
                                t.dtype(),
                                t.sizes().to_vec()
                            ),
                        ));
                    }
                }
                if last_use.contains_key(&r) {
                    env.insert(r, t);
                }
            }
            drop(inputs);
            for v in &dying[i] {
                env.remove(v);
            }
        }
        Err(Diagnostic::error(ctx.unknown_loc(), "block ended without a terminator"))
    }

    fn run_op(
        &mut self,
        op: Op,
        inputs: &[Tensor],
        value_semantics: bool,
    ) -> Result<SmallVec<[Tensor; 2]>, Diagnostic> {
        let ctx = self.ctx;
        let def = ctx.op_def(op).ok_or_else(|| self.err(op, "is not registered"))?;
        let kernel = def.interface::<Kernel>().ok_or_else(|| self.err(op, "has no interpreter kernel"))?;
        let grad_mode = !ctx.has_attr(op, NO_GRAD);
        let inplace = def.has(Traits::INPLACE) || def.has(Traits::METADATA_MUTATION);
        if let Some(r) = def.interface::<RefusesRequiresGrad>() {
            if !value_semantics && inputs.first().is_some_and(|t| t.requires_grad()) {
                return Err(self.err(op, r.0));
            }
        }
        if inplace && grad_mode {
            // PyTorch's `check_inplace` order: the view's creation first.
            if inputs.iter().any(|t| t.requires_grad()) {
                check_view_rebase_allowed(&inputs[0]).map_err(|m| self.err(op, m))?;
            }
            check_inplace_allowed(&inputs[0]).map_err(|m| self.err(op, m))?;
        }
        if grad_mode && (def.has(Traits::DIFFERENTIABLE) || inplace) && def.interface::<Detaches>().is_none() {
            // Autograd takes the grad_fn of every operand but an in-place
            // op's destination (checked above).
            let skip = usize::from(inplace);
            let records = inputs.iter().any(|t| t.requires_grad());
            for t in &inputs[skip..] {
                check_view_use_allowed(t).map_err(|m| self.err(op, m))?;
                // (A view whose base does not require grad yet has no
                // grad_fn to take: it stays stale.)
                if records && t.requires_grad() {
                    t.borrow_mut().stale_grad_fn = false;
                }
            }
        }
        if inplace {
            inputs[0].bump_version();
        }
        // (After functionalize, in-place ops are the write-backs into
        // arguments, whose values agree at positions sharing an element:
        // functionalize raised PyTorch's error for the program's own ops.)
        if def.has(Traits::INPLACE)
            && !value_semantics
            && inputs[0].has_internal_overlap()
            && def.interface::<AllowsInternalOverlap>().is_none()
        {
            return Err(self.err(op, crate::overlap::INTERNAL_OVERLAP_ERROR));
        }
        if def.has(Traits::INPLACE) {
            let strict = def.interface::<AssertNoOverlap>().is_some();
            let out = crate::overlap::View::new(&inputs[0].sizes(), &inputs[0].strides(), inputs[0].offset());
            for t in &inputs[1..] {
                let status = if t.same(&inputs[0]) {
                    crate::overlap::MemOverlap::Full
                } else if t.shares_storage(&inputs[0]) {
                    let v = crate::overlap::View::new(&t.sizes(), &t.strides(), t.offset());
                    crate::overlap::mem_overlap(&out, &v)
                } else {
                    continue;
                };
                if overlap_forbidden(status, strict) {
                    return Err(self.err(op, crate::overlap::PARTIAL_OVERLAP_ERROR));
                }
            }
        }
        let promote = self.options.promote_f64;
        let mut kctx = KernelCtx { ctx, op, inputs, gen: &mut self.generator, promote_f64: promote, syms: &self.syms };
        let mut results = (kernel.0)(&mut kctx).map_err(|m| self.err(op, m))?;

        let any_input_rg = || inputs.iter().any(|t| t.requires_grad());
        if def.has(Traits::VIEW) && !inplace {
            let version = inputs[0].version();
            let detaches = def.interface::<Detaches>().is_some();
            let multi = results.len() > 1 || def.results != aot_ir::Arity::Exact(1);
            for (index, r) in results.iter_mut().enumerate() {
                if !r.shares_storage(&inputs[0]) || value_semantics {
                    // A copy (reshape of a non-viewable layout, or value semantics).
                    if value_semantics {
                        *r = r.deep_clone();
                    }
                    let rg = grad_mode && !detaches && r.dtype().is_float() && any_input_rg();
                    r.set_requires_grad(rg);
                    r.set_leaf(!rg);
                } else if detaches {
                    let mut t = r.borrow_mut();
                    t.requires_grad = false;
                    t.is_leaf = true;
                    t.view_base = None;
                } else if !grad_mode {
                    // A view made under no_grad of a tensor that requires
                    // grad still reports requires_grad (it has no grad_fn,
                    // so it is a leaf): gradient never flows through it.
                    // Of one that does not (yet): it stays a view of its
                    // root, so it requires grad once the root does.
                    let rg = inputs[0].requires_grad();
                    let later = !rg && r.dtype().is_float();
                    let root = later.then(|| inputs[0].autograd_root());
                    let mut t = r.borrow_mut();
                    t.requires_grad = rg;
                    t.is_leaf = true;
                    t.view_base = root;
                    if rg || later {
                        t.creation = CreationMeta::NoGradMode { view_of_view: None, version };
                    }
                } else {
                    let root = inputs[0].autograd_root();
                    let inherited = inputs[0].creation();
                    let rg = inputs[0].requires_grad();
                    // Viewing a tensor takes its grad_fn (when it has one
                    // to take: its base requires grad).
                    if rg {
                        inputs[0].borrow_mut().stale_grad_fn = false;
                    }
                    let mut t = r.borrow_mut();
                    t.requires_grad = false;
                    t.is_leaf = false;
                    t.stale_grad_fn = !rg;
                    t.view_base = Some(root);
                    t.creation = match inherited {
                        CreationMeta::Default if multi => CreationMeta::MultiOutput { op: def.name, index, version },
                        CreationMeta::NoGradMode { .. } if rg => {
                            CreationMeta::NoGradMode { view_of_view: Some((def.name, index)), version }
                        }
                        other => other,
                    };
                }
            }
        } else if def.has(Traits::INPLACE) || def.has(Traits::METADATA_MUTATION) {
            // The object gets a new history when autograd records the change:
            // some operand requires grad (the new data, or the object itself).
            let others_rg = inputs[1..].iter().any(|t| t.requires_grad());
            if grad_mode && (others_rg || inputs[0].requires_grad()) {
                // The recorded op gives the destination its grad_fn.
                inputs[0].borrow_mut().stale_grad_fn = false;
                let data = def.has(Traits::INPLACE) || def.interface::<ReplacesData>().is_some();
                mark_autograd_mutation(&inputs[0], others_rg, data);
            }
        } else {
            let rg = grad_mode && def.has(Traits::DIFFERENTIABLE) && any_input_rg();
            let nondiff = def.interface::<NonDifferentiableResults>().map_or(&[][..], |n| n.0);
            for (i, r) in results.iter().enumerate() {
                let this_rg = rg && r.dtype().is_float() && !nondiff.contains(&i);
                r.set_requires_grad(this_rg);
                r.set_leaf(!this_rg);
            }
        }
        Ok(results)
    }
}

/// PyTorch's rule: a leaf that requires grad (or a view of one) cannot be
/// modified in place while grad mode is on.
fn check_inplace_allowed(t: &Tensor) -> Result<(), String> {
    if t.borrow().stale_grad_fn && t.requires_grad() {
        return Err(LEAF_INPLACE_ERROR.into());
    }
    match t.view_base() {
        Some(root) if root.is_leaf() && root.requires_grad() => Err(VIEW_OF_LEAF_INPLACE_ERROR.into()),
        None if t.is_leaf() && t.requires_grad() => Err(LEAF_INPLACE_ERROR.into()),
        _ => Ok(()),
    }
}

/// PyTorch's message for an in-place write, in grad mode, to a leaf that
/// requires grad.
pub const LEAF_INPLACE_ERROR: &str = "a leaf Variable that requires grad is being used in an in-place operation.";
/// ... and to a view of such a leaf.
pub const VIEW_OF_LEAF_INPLACE_ERROR: &str =
    "a view of a leaf Variable that requires grad is being used in an in-place operation.";

/// PyTorch's `handle_view_on_rebase`: some views cannot be modified in
/// place while autograd records the change.
fn check_view_rebase_allowed(t: &Tensor) -> Result<(), String> {
    match t.creation() {
        CreationMeta::Default => Ok(()),
        CreationMeta::MultiOutput { op, index, .. } => Err(multi_output_view_error(op, index, false)),
        CreationMeta::NoGradMode { view_of_view, .. } => Err(no_grad_view_error(view_of_view, false)),
    }
}

/// PyTorch's check when autograd takes the `grad_fn` of an operand that
/// requires grad: a view that may not be rebased (made under no_grad, or an
/// output of a multi-output view op) fails once its storage was modified in
/// place after the view was made (in any mode, through any alias).
fn check_view_use_allowed(t: &Tensor) -> Result<(), String> {
    if !t.requires_grad() {
        return Ok(());
    }
    let now = t.version();
    match t.creation() {
        CreationMeta::MultiOutput { op, index, version } if version != now => {
            Err(multi_output_view_error(op, index, true))
        }
        CreationMeta::NoGradMode { view_of_view, version } if version != now => {
            Err(no_grad_view_error(view_of_view, true))
        }
        _ => Ok(()),
    }
}

/// The name PyTorch's autograd gives the backward node of view op `op`
/// (`grad_fn.name()` without its `Backward<N>` suffix), as its errors show it.
pub fn autograd_node_name(op: &str) -> String {
    let short = op.strip_prefix("view.").unwrap_or(op);
    match short {
        "view" | "reshape" => "View".into(),
        "split" => "SplitWithSizes".into(),
        _ => short
            .split('_')
            .map(|w| {
                let mut c = w.chars();
                c.next().map(|f| f.to_ascii_uppercase().to_string() + c.as_str()).unwrap_or_default()
            })
            .collect(),
    }
}

/// What PyTorch's view errors say happened: the view itself is written in
/// place, or (`indirect`) it is used after its base or another view of its
/// base was.
fn modified(indirect: bool) -> &'static str {
    if indirect {
        "its base or another view of its base has been modified inplace"
    } else {
        "is being modified inplace"
    }
}

/// PyTorch's error for an in-place write to output `index` of multi-output
/// view op `op` while autograd records (`indirect`: for a use of it after
/// its storage was modified in place).
pub fn multi_output_view_error(op: &str, index: usize, indirect: bool) -> String {
    format!(
        "Output {index} of {} is a view and {}. This view is the output of a function that returns multiple views. Such functions do not allow the output views to be modified inplace. You should replace the inplace operation by an out-of-place one.",
        autograd_node_name(op),
        modified(indirect)
    )
}

/// PyTorch's error for an in-place write in grad mode to a view made under
/// no_grad, or (`view_of_view`: the op and output index of the grad-mode
/// view) to a view of one.
pub fn no_grad_view_error(view_of_view: Option<(&str, usize)>, indirect: bool) -> String {
    let subject = match view_of_view {
        None => "A view was".to_string(),
        Some((op, index)) => format!("Output {index} of {} is a view of a view which was", autograd_node_name(op)),
    };
    format!(
        "{subject} created in no_grad mode and {} with grad mode enabled. Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify your code by moving both the view and the inplace either both inside the no_grad block (if you don't want the inplace to be tracked) or both outside (if you want the inplace to be tracked).",
        modified(indirect)
    )
}

/// Records an autograd-visible in-place change of `t`: it (and the root it
/// views) now has history, and requires grad if the new data does. Only a
/// change of data (`data`) puts the object's final value in the gradient
/// objective.
fn mark_autograd_mutation(t: &Tensor, makes_rg: bool, data: bool) {
    let root = t.autograd_root();
    for x in [t, &root] {
        let mut m = x.borrow_mut();
        if makes_rg {
            m.requires_grad = true;
        }
        if m.requires_grad {
            m.is_leaf = false;
        }
        m.autograd_version += u64::from(data);
    }
}
