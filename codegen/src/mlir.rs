//! Export to upstream MLIR (cargo feature `mlir`): a pure function over
//! tensors (after `aot-inference`, or the forward and backward after
//! `partition`) as upstream `func` + `tensor` + `linalg` + `arith` + `math`
//! on ranked tensors, checked by MLIR 19's own parser and verifier in
//! process (through melior), so what `aot-opt --emit=mlir` prints is
//! accepted by `mlir-opt` and the tools built on it.
//!
//! Elementwise ops are not a table: each op's [`Pointwise`] formula (the
//! same one `lower-to-loops` builds kernels from) is built on scalar block
//! arguments and its `loop` scalar ops are translated to `arith`/`math`,
//! inside a `linalg.generic` whose indexing maps broadcast the operands.
//! So every elementwise op the native backends run is exported with the
//! same numerics (casts saturate, integer division floors, `max`/`min`
//! propagate NaN). Reductions, products, layout changes and constants map
//! to `linalg.reduce`, `linalg.matmul`/`batch_matmul`, `linalg.transpose`,
//! `tensor.reshape` and `arith.constant`. Anything else is a located
//! "not exportable" error naming the op.
//!
//! [`compile`] runs an exported function through MLIR's own pipeline
//! ([`LOWERING`]) to the LLVM dialect, translates it to LLVM IR, optimizes
//! it as MLIR's execution engine would, and links it in the process's ORC
//! JIT (`--backend mlir`, `aot::Backend::parse("mlir")`), under this runtime's
//! calling convention: an independent compiler the native backends are
//! checked against.
//!
//! Invariant: the exporter never changes the functions it reads; the
//! scalar formulas are built in detached regions of the context, which no
//! op refers to.

use crate::jit_cache::JitCache;
use crate::object_cache::{self, ObjectCache};
use crate::orc::{self, Loaded};
use aot_dialects::export::{Reduction, TensorExport};
use aot_dialects::func::{FuncView, ReturnOp};
use aot_dialects::lowering::{Pointwise, Scalars};
use aot_dialects::r#loop::{Binary, CastPlan, Conversion, LoopOp, MathFn, Predicate, ScalarOp, Unary};
use aot_dialects::r#mut::CopyOp;
use aot_dialects::rng::lowering::PhiloxDraws;
use aot_ir::*;
use rustc_hash::FxHashMap;
use std::fmt::Write;
use std::sync::Arc;

/// The MLIR export and MLIR's own compiler as a [`crate::target::Target`]:
/// it takes functions over tensors, not lowered ones.
pub struct Mlir;

impl crate::target::Target for Mlir {
    fn name(&self) -> &'static str {
        "mlir"
    }

    fn capabilities(&self) -> crate::target::Capabilities {
        crate::target::Capabilities { lowered_input: false, runs: true, device: false, gpu_arch: false }
    }

    /// MLIR's pipeline does not go through `fuse`.
    fn vectorizes(&self, _ctx: &Context, _l: Op) -> bool {
        false
    }

    /// Programs with ops that do not export fail to compile.
    fn runs_everything_here(&self) -> bool {
        false
    }

    fn compile(
        &self,
        ctx: &mut Context,
        func: Op,
        _options: &crate::target::Options,
        _text: &mut String,
    ) -> Result<Box<dyn aot_runtime::compiled::Executable>, Diagnostic> {
        Ok(Box::new(compile(ctx, func)?))
    }

    fn emit(
        &self,
        ctx: &mut Context,
        func: Op,
        _options: &crate::target::Options,
        out: &mut String,
    ) -> Result<(), Diagnostic> {
        out.push_str(&export_functions(ctx, func, &[func])?);
        Ok(())
    }

    /// One module of every public function, as `mlir-opt` reads it.
    fn emit_module(
        &self,
        ctx: &mut Context,
        module: Op,
        _options: &crate::target::Options,
        _pm: &mut aot_ir::pass::PassManager,
        _sink: &mut dyn std::io::Write,
    ) -> Result<String, Diagnostic> {
        export_module(ctx, module)
    }
}

/// The upstream MLIR text of every public function of `module` over
/// tensors, verified by MLIR.
pub fn export_module(ctx: &mut Context, module: Op) -> Result<String, Diagnostic> {
    let funcs: Vec<Op> = aot_dialects::func::funcs(ctx, module)
        .into_iter()
        .filter(|f| f.is_public_definition(ctx))
        .map(|f| f.op)
        .collect();
    export_functions(ctx, module, &funcs)
}

/// `funcs` as one upstream module, verified by MLIR (errors located at
/// `anchor`).
fn export_functions(ctx: &mut Context, anchor: Op, funcs: &[Op]) -> Result<String, Diagnostic> {
    // MLIR's `?` would lose the expressions (and their guards); a function
    // with symbolic sizes is refused rather than exported with wrong shapes.
    if let Some(&f) = funcs.iter().find(|&&f| {
        let mut symbolic = false;
        ctx.walk_pre(f, &mut |o| symbolic |= aot_ir::sym::first_symbolic_use(ctx, o).is_some());
        symbolic
    }) {
        return Err(Diagnostic::op_error(ctx, f, "has symbolic sizes, which the MLIR export does not take yet"));
    }
    let mut out = String::from("module {\n");
    let mut externs = Vec::new();
    for &f in funcs {
        export_function(ctx, f, &mut out, &mut externs, false)?;
    }
    externs.sort();
    externs.dedup();
    for e in externs {
        let _ = writeln!(out, "  {e}");
    }
    out.push_str("}\n");
    verify(&out).map_err(|m| Diagnostic::op_error(ctx, anchor, format!("MLIR rejected the exported module: {m}")))?;
    Ok(out)
}

/// Parses and verifies `text` with MLIR 19 (all upstream dialects loaded);
/// MLIR's diagnostics are the error.
pub fn verify(text: &str) -> Result<(), String> {
    use melior::dialect::DialectRegistry;
    use melior::ir::Module;
    use melior::utility::register_all_dialects;
    if text.contains('\0') {
        return Err("the text holds a NUL byte".into());
    }
    let registry = DialectRegistry::new();
    register_all_dialects(&registry);
    let context = melior::Context::new();
    context.append_dialect_registry(&registry);
    context.load_all_available_dialects();
    let messages = std::rc::Rc::new(std::cell::RefCell::new(Vec::<String>::new()));
    let sink = messages.clone();
    let id = context.attach_diagnostic_handler(move |d| {
        sink.borrow_mut().push(format!("{}: {d}", d.location()));
        true
    });
    let ok = match Module::parse(&context, text) {
        Some(m) => m.as_operation().verify(),
        None => false,
    };
    context.detach_diagnostic_handler(id);
    if ok {
        Ok(())
    } else {
        let m = messages.borrow().join("; ");
        Err(if m.is_empty() { "MLIR could not parse or verify it".into() } else { m })
    }
}

fn tensor_of(ctx: &Context, v: Value) -> Option<TensorType> {
    match ctx.type_data(ctx.value_type(v)) {
        TypeData::Tensor(t) => Some(t.clone()),
        _ => None,
    }
}

/// `tensor<2x3xf32>` (and `tensor<f32>`), as MLIR spells it.
pub fn ty(t: &TensorType) -> String {
    let mut s = String::from("tensor<");
    for d in t.shape.iter() {
        let _ = write!(s, "{d}x");
    }
    s.push_str(t.elem.name());
    s.push('>');
    s
}

/// A float constant of type `e` as MLIR's exact hexadecimal bit pattern.
fn float_bits(x: f64, e: ElemType) -> String {
    match e {
        ElemType::F64 => format!("0x{:016X}", x.to_bits()),
        ElemType::F16 => format!("0x{:04X}", aot_ir::types::f16_of(x).to_bits()),
        ElemType::BF16 => format!("0x{:04X}", aot_ir::types::bf16_of(x).to_bits()),
        _ => format!("0x{:08X}", (x as f32).to_bits()),
    }
}

/// An element of type `e` holding `x`, as a literal.
pub fn literal(x: f64, e: ElemType) -> String {
    if e.is_float() {
        float_bits(x, e)
    } else if e == ElemType::I1 {
        (x != 0.0).to_string()
    } else {
        format!("{}", x as i64)
    }
}

/// A `linalg.generic` body builder: the block's input scalars to its lines
/// and the yielded scalar.
type Body<'b, E> = dyn FnMut(&mut E, &[String]) -> Result<(Vec<String>, String), String> + 'b;

struct Exporter<'c> {
    ctx: &'c mut Context,
    /// Declarations of C library functions the bodies call.
    externs: Vec<String>,
    body: String,
    names: FxHashMap<Value, String>,
    next: usize,
}

fn not_exportable(name: &str, why: &str) -> String {
    format!("'{name}' is not exportable to upstream MLIR{why}")
}

fn export_function(
    ctx: &mut Context,
    func: Op,
    out: &mut String,
    externs: &mut Vec<String>,
    c_interface: bool,
) -> Result<Signature, Diagnostic> {
    let f = FuncView { op: func };
    let name = f.name(ctx).to_string();
    let entry = f.entry_block(ctx).ok_or_else(|| Diagnostic::op_error(ctx, func, "a declaration has no body"))?;
    let mut ex = Exporter { ctx, externs: Vec::new(), body: String::new(), names: FxHashMap::default(), next: 0 };
    let mut params = Vec::new();
    let mut arg_types = Vec::new();
    let args = ex.ctx.block_args(entry).to_vec();
    for (i, &a) in args.iter().enumerate() {
        let t = tensor_of(ex.ctx, a).ok_or_else(|| {
            Diagnostic::op_error(
                ex.ctx,
                func,
                format!("argument {i} is not a tensor: only functions over tensors export"),
            )
        })?;
        params.push(format!("%arg{i}: {}", ty(&t)));
        ex.names.insert(a, format!("%arg{i}"));
        arg_types.push(t);
    }
    let mut results = Vec::new();
    let mut result_types = Vec::new();
    let ops: Vec<Op> = ex.ctx.block_ops(entry).collect();
    // Input mutations kept in the graph (`mut.copy_` into an argument):
    // the new value of each mutated argument becomes a leading result
    // (a later mutation of the same argument replaces an earlier one).
    let mut mutated: Vec<(usize, String)> = Vec::new();
    for op in ops {
        if ex.ctx.isa::<CopyOp>(op) {
            let dst = ex.ctx.operand(op, 0);
            let err = |ex: &Exporter<'_>, m: &str| Diagnostic::op_error(ex.ctx, op, not_exportable(CopyOp::NAME, m));
            let Some(i) = args.iter().position(|&a| a == dst) else {
                return Err(err(&ex, " into a value that is not an argument"));
            };
            let v = ex.copy_into(op, &arg_types[i]).map_err(|m| Diagnostic::op_error(ex.ctx, op, m))?;
            mutated.retain(|(j, _)| *j != i);
            mutated.push((i, v));
            continue;
        }
        if ex.ctx.isa::<ReturnOp>(op) {
            let vals: Vec<Value> = ex.ctx.operands(op).collect();
            let mut names = Vec::new();
            for (i, v) in &mutated {
                names.push(v.clone());
                results.push(ty(&arg_types[*i]));
                result_types.push(arg_types[*i].clone());
            }
            for v in vals {
                let t = tensor_of(ex.ctx, v).ok_or_else(|| Diagnostic::op_error(ex.ctx, op, "returns a non-tensor"))?;
                names.push(ex.name(v).map_err(|m| Diagnostic::op_error(ex.ctx, op, m))?);
                results.push(ty(&t));
                result_types.push(t);
            }
            if names.is_empty() {
                ex.body.push_str("    return\n");
            } else {
                let _ = writeln!(ex.body, "    return {} : {}", names.join(", "), results.join(", "));
            }
            continue;
        }
        ex.op(op).map_err(|m| Diagnostic::op_error(ex.ctx, op, m))?;
    }
    let attrs = if c_interface { " attributes {llvm.emit_c_interface}" } else { "" };
    let _ = writeln!(out, "  func.func @{name}({}) -> ({}){attrs} {{", params.join(", "), results.join(", "));
    out.push_str(&ex.body);
    out.push_str("  }\n");
    externs.append(&mut ex.externs);
    Ok(Signature {
        name,
        args: arg_types,
        mutated: mutated.into_iter().map(|(i, _)| i).collect(),
        results: result_types,
    })
}

impl Exporter<'_> {
    fn fresh(&mut self) -> String {
        self.next += 1;
        format!("%{}", self.next)
    }

    fn name(&self, v: Value) -> Result<String, String> {
        self.names.get(&v).cloned().ok_or_else(|| "an operand was not exported".to_string())
    }

    fn line(&mut self, s: String) {
        self.body.push_str("    ");
        self.body.push_str(&s);
        self.body.push('\n');
    }

    fn operand(&self, op: Op, i: usize) -> Result<(String, TensorType), String> {
        let v = self.ctx.operand(op, i);
        let t = tensor_of(self.ctx, v).ok_or("an operand is not a tensor")?;
        Ok((self.name(v)?, t))
    }

    fn result_type(&self, op: Op) -> Result<TensorType, String> {
        if self.ctx.num_results(op) != 1 {
            return Err(not_exportable(self.ctx.op_name(op), " (several results)"));
        }
        tensor_of(self.ctx, self.ctx.result(op, 0)).ok_or_else(|| "the result is not a tensor".to_string())
    }

    fn bind(&mut self, op: Op, name: String) {
        let r = self.ctx.result(op, 0);
        self.names.insert(r, name);
    }

    /// `tensor.empty()` of `t`.
    fn empty(&mut self, t: &TensorType) -> String {
        let n = self.fresh();
        self.line(format!("{n} = tensor.empty() : {}", ty(t)));
        n
    }

    /// `t` filled with `x`.
    fn filled(&mut self, t: &TensorType, x: f64) -> String {
        let e = self.empty(t);
        let c = self.fresh();
        self.line(format!("{c} = arith.constant {} : {}", literal(x, t.elem), t.elem.name()));
        let n = self.fresh();
        self.line(format!("{n} = linalg.fill ins({c} : {}) outs({e} : {}) -> {}", t.elem.name(), ty(t), ty(t)));
        n
    }

    /// `x` (of type `from`) with the shape of `to` (same elements).
    fn reshape(&mut self, x: &str, from: &TensorType, to: &TensorType) -> String {
        if from.shape == to.shape {
            return x.to_string();
        }
        let dims: Vec<String> = to.shape.iter().map(|d| d.to_string()).collect();
        let s = self.fresh();
        self.line(format!("{s} = arith.constant dense<[{}]> : tensor<{}xi64>", dims.join(", "), to.rank()));
        let n = self.fresh();
        self.line(format!("{n} = tensor.reshape {x}({s}) : ({}, tensor<{}xi64>) -> {}", ty(from), to.rank(), ty(to)));
        n
    }

    /// A `linalg.generic` over `out`'s shape whose inputs broadcast to it
    /// (trailing-aligned; size-1 dimensions read index 0); `body` gets the
    /// scalar names of the inputs and returns its lines and the yielded
    /// scalar.
    fn generic(
        &mut self,
        inputs: &[(String, TensorType)],
        out: &TensorType,
        body: &mut Body<'_, Self>,
    ) -> Result<String, String> {
        let r = out.rank();
        let dims: Vec<String> = (0..r).map(|i| format!("d{i}")).collect();
        let mut maps = Vec::new();
        for (_, t) in inputs {
            let k = t.rank();
            if k > r {
                return Err("an operand has a higher rank than the result".into());
            }
            let exprs: Vec<String> = (0..k)
                .map(|j| {
                    let i = r - k + j;
                    if t.shape[j] == 1 && out.shape[i] != 1 {
                        "0".to_string()
                    } else {
                        format!("d{i}")
                    }
                })
                .collect();
            maps.push(format!("affine_map<({}) -> ({})>", dims.join(", "), exprs.join(", ")));
        }
        maps.push(format!("affine_map<({}) -> ({})>", dims.join(", "), dims.join(", ")));
        let init = self.empty(out);
        let args: Vec<String> = (0..inputs.len()).map(|i| format!("%in{}_{i}", self.next)).collect();
        let out_arg = format!("%out{}", self.next);
        let (lines, y) = body(self, &args)?;
        let n = self.fresh();
        let ins: Vec<&str> = inputs.iter().map(|(n, _)| n.as_str()).collect();
        let in_types: Vec<String> = inputs.iter().map(|(_, t)| ty(t)).collect();
        let iters = vec!["\"parallel\""; r].join(", ");
        let mut s =
            format!("{n} = linalg.generic {{indexing_maps = [{}], iterator_types = [{iters}]}}", maps.join(", "));
        if !ins.is_empty() {
            let _ = write!(s, " ins({} : {})", ins.join(", "), in_types.join(", "));
        }
        let mut block_args: Vec<String> =
            args.iter().zip(inputs).map(|(a, (_, t))| format!("{a}: {}", t.elem.name())).collect();
        block_args.push(format!("{out_arg}: {}", out.elem.name()));
        let _ = write!(s, " outs({init} : {}) {{\n    ^bb0({}):", ty(out), block_args.join(", "));
        for l in lines {
            let _ = write!(s, "\n      {l}");
        }
        let _ = write!(s, "\n      linalg.yield {y} : {}\n    }} -> {}", out.elem.name(), ty(out));
        self.line(s);
        Ok(n)
    }

    fn op(&mut self, op: Op) -> Result<(), String> {
        let name = self.ctx.op_name(op).to_string();
        let def = self.ctx.op_def(op).ok_or_else(|| format!("'{name}' is not registered"))?;
        if let Some(p) = def.interface::<Pointwise>() {
            return self.pointwise(op, p);
        }
        if let Some(d) = def.interface::<PhiloxDraws>() {
            return self.philox(op, d);
        }
        let export = *def.interface::<TensorExport>().ok_or_else(|| not_exportable(&name, ""))?;
        match export {
            TensorExport::Identity => {
                let (x, t) = self.operand(op, 0)?;
                if self.result_type(op)? != t {
                    return Err(not_exportable(&name, " (its result type differs from its operand's)"));
                }
                self.bind(op, x);
            }
            TensorExport::Splat => {
                let t = self.result_type(op)?;
                let v = self.ctx.attr_f64(op, "value").ok_or_else(|| format!("{name} needs a value"))?;
                let n = self.fresh();
                self.line(format!("{n} = arith.constant dense<{}> : {}", literal(v, t.elem), ty(&t)));
                self.bind(op, n);
            }
            TensorExport::Dense => {
                let t = self.result_type(op)?;
                let a = self.ctx.get_attr(op, "value").ok_or_else(|| format!("{name} needs a value"))?;
                let AttrData::Dense { data, .. } = self.ctx.attr_data(a) else {
                    return Err(format!("{name} needs a dense value"));
                };
                let value = match data {
                    DenseData::SplatInt(v) => literal(*v as f64, t.elem),
                    DenseData::SplatFloat(v) => literal(f64::from_bits(*v), t.elem),
                    DenseData::Ints(v) => nested(&t.shape, &mut v.iter().map(|&x| literal(x as f64, t.elem))),
                    DenseData::Floats(v) => {
                        nested(&t.shape, &mut v.iter().map(|&x| literal(f64::from_bits(x), t.elem)))
                    }
                };
                let n = self.fresh();
                self.line(format!("{n} = arith.constant dense<{value}> : {}", ty(&t)));
                self.bind(op, n);
            }
            TensorExport::Permute => {
                let (x, t) = self.operand(op, 0)?;
                let r = self.result_type(op)?;
                let perm = self.permutation(op, &t).map_err(|m| not_exportable(&name, &format!(" ({m})")))?;
                let n = self.transpose(&x, &t, &r, &perm);
                self.bind(op, n);
            }
            TensorExport::Reshape => {
                let (x, t) = self.operand(op, 0)?;
                let r = self.result_type(op)?;
                let n = self.reshape(&x, &t, &r);
                self.bind(op, n);
            }
            TensorExport::Broadcast => {
                let (x, t) = self.operand(op, 0)?;
                let r = self.result_type(op)?;
                let n = self.generic(&[(x, t)], &r, &mut |_, a| Ok((Vec::new(), a[0].clone())))?;
                self.bind(op, n);
            }
            TensorExport::Reduce(kind) => self.reduce(op, kind)?,
            TensorExport::Matmul => {
                let (a, ta) = self.operand(op, 0)?;
                let (b, tb) = self.operand(op, 1)?;
                let r = self.result_type(op)?;
                let n = self.matmul(&name, &a, &ta, &b, &tb, &r)?;
                self.bind(op, n);
            }
            TensorExport::Linear => self.linear(op)?,
            TensorExport::Softmax { log } => self.softmax(op, log)?,
            TensorExport::LayerNorm => self.layer_norm(op)?,
            TensorExport::ExtractSlice => {
                let (x, t) = self.operand(op, 0)?;
                let r = self.result_type(op)?;
                let (offsets, sizes, strides, piece) = self.slice_of(op, &t, &r)?;
                let n = self.fresh();
                self.line(format!(
                    "{n} = tensor.extract_slice {x}[{offsets}] [{sizes}] [{strides}] : {} to {}",
                    ty(&t),
                    ty(&piece)
                ));
                let out = self.reshape(&n, &piece, &r);
                self.bind(op, out);
            }
            TensorExport::InsertSlice => {
                let (x, t) = self.operand(op, 0)?;
                let (src, ts) = self.operand(op, 1)?;
                let r = self.result_type(op)?;
                let (offsets, sizes, strides, piece) = self.slice_of(op, &t, &ts)?;
                if ts.elem != t.elem {
                    return Err(not_exportable(&name, " with a source of another element type"));
                }
                let src = self.reshape(&src, &ts, &piece);
                let n = self.fresh();
                self.line(format!(
                    "{n} = tensor.insert_slice {src} into {x}[{offsets}] [{sizes}] [{strides}] : {} into {}",
                    ty(&piece),
                    ty(&r)
                ));
                self.bind(op, n);
            }
            TensorExport::AsStrided => self.as_strided(op)?,
            TensorExport::AsStridedScatter => self.as_strided_scatter(op)?,
            TensorExport::Concat => {
                let r = self.result_type(op)?;
                let dim = self.ctx.attr_i64(op, "dim").unwrap_or(0);
                let d = if dim < 0 { dim + r.rank() as i64 } else { dim };
                let pieces: Vec<(String, TensorType)> =
                    (0..self.ctx.num_operands(op)).map(|i| self.operand(op, i)).collect::<Result<_, _>>()?;
                if pieces.iter().any(|(_, t)| t.rank() != r.rank()) {
                    return Err(not_exportable(&name, " with operands of another rank (legacy empty tensors)"));
                }
                // `tensor.concat` does not bufferize in MLIR 19: the
                // pieces go into an empty tensor one slice at a time.
                let mut acc = self.empty(&r);
                let mut at = 0i64;
                let ones = vec!["1"; r.rank()].join(", ");
                for (x, t) in &pieces {
                    let offsets: Vec<String> =
                        (0..r.rank()).map(|k| if k as i64 == d { at.to_string() } else { "0".into() }).collect();
                    let sizes: Vec<String> = t.shape.iter().map(|n| n.to_string()).collect();
                    let n = self.fresh();
                    self.line(format!(
                        "{n} = tensor.insert_slice {x} into {acc}[{}] [{}] [{ones}] : {} into {}",
                        offsets.join(", "),
                        sizes.join(", "),
                        ty(t),
                        ty(&r)
                    ));
                    acc = n;
                    at += t.shape.get(d as usize).copied().unwrap_or(0);
                }
                self.bind(op, acc);
            }
        }
        Ok(())
    }

    /// The permutation view `op` applies to an operand of type `t`: its
    /// view layout run on distinct strides, each result dimension matched
    /// to the operand dimension whose stride it took.
    fn permutation(&self, op: Op, t: &TensorType) -> Result<Vec<i64>, String> {
        let rank = t.rank();
        let probe = aot_dialects::view::Layout {
            sizes: t.shape.iter().copied().collect(),
            strides: (1..=rank as i64).collect(),
            offset: 0,
        };
        let out = aot_dialects::view::view_layouts(self.ctx, op, &probe)?;
        let l = out.first().ok_or("the view has no result")?;
        let perm: Vec<i64> = l
            .strides
            .iter()
            .map(|s| probe.strides.iter().position(|p| p == s).map(|d| d as i64))
            .collect::<Option<_>>()
            .ok_or("its layout is not a permutation")?;
        let mut seen = perm.clone();
        seen.sort_unstable();
        if l.offset != 0 || seen != (0..rank as i64).collect::<Vec<_>>() {
            return Err("its layout is not a permutation".into());
        }
        Ok(perm)
    }

    /// `mut.copy_`'s source as a value of the destination's type
    /// (broadcast and converted as the op does).
    fn copy_into(&mut self, op: Op, dst: &TensorType) -> Result<String, String> {
        let (src, ts) = self.operand(op, 1)?;
        if ts == *dst {
            return Ok(src);
        }
        let (from, to) = (ts.elem, dst.elem);
        self.generic(&[(src, ts)], dst, &mut |ex, a| {
            let mut lines = Vec::new();
            let v = ex.cast(&a[0], from, to, &mut lines)?;
            Ok((lines, v))
        })
    }

    /// The static `extract_slice` of a `slice`/`select` (or its scatter)
    /// of `t`, whose piece has type `part` (`select` drops the dimension):
    /// offsets, sizes, strides, and the piece's type with the dimension.
    fn slice_of(
        &self,
        op: Op,
        t: &TensorType,
        part: &TensorType,
    ) -> Result<(String, String, String, TensorType), String> {
        let rank = t.rank() as i64;
        let dim = self.ctx.attr_i64(op, "dim").ok_or("a slice without a dim")?;
        let d = if dim < 0 { dim + rank } else { dim };
        if d < 0 || d >= rank {
            return Err("a slice dimension out of range".into());
        }
        let d = d as usize;
        let n = t.shape[d];
        let select = self.ctx.has_attr(op, "index");
        let (start, size, step) = if select {
            let i = self.ctx.attr_i64(op, "index").unwrap_or(0);
            (if i < 0 { i + n } else { i }, 1, 1)
        } else {
            let step = self.ctx.attr_i64(op, "step").unwrap_or(1);
            let start = self.ctx.attr_i64(op, "start").unwrap_or(0);
            let start = if start < 0 { start + n } else { start }.clamp(0, n);
            let size = if part.rank() == t.rank() { part.shape[d] } else { 1 };
            (start, size, step)
        };
        if start < 0 || step < 1 || (size > 0 && start + (size - 1) * step >= n) {
            return Err("a slice out of range".into());
        }
        let mut shape = t.shape.clone();
        shape[d] = size;
        let offsets: Vec<String> = (0..t.rank()).map(|i| if i == d { start.to_string() } else { "0".into() }).collect();
        let sizes: Vec<String> = shape.iter().map(|x| x.to_string()).collect();
        let strides: Vec<String> = (0..t.rank()).map(|i| if i == d { step.to_string() } else { "1".into() }).collect();
        Ok((offsets.join(", "), sizes.join(", "), strides.join(", "), TensorType::new(shape, t.elem)))
    }

    /// The operand of an `as_strided` op, flattened, when its storage is
    /// its own elements in row-major order (a fresh value or an argument
    /// without a layout of its own), with the element count.
    fn storage_of(&mut self, op: Op, name: &str) -> Result<(String, TensorType, i64), String> {
        let v = self.ctx.operand(op, 0);
        let own = match self.ctx.value_def(v) {
            ValueDef::BlockArg { block, index } => self.ctx.block_parent_op(block).is_some_and(|f| {
                let f = FuncView { op: f };
                let attr = |n| f.arg_attr(self.ctx, index as usize, n).is_some();
                !attr(aot_dialects::func::LAYOUT) && !attr(aot_dialects::func::SAME_AS)
            }),
            ValueDef::Result { op: def, .. } => !self.ctx.op_def(def).is_some_and(|d| d.traits.contains(Traits::VIEW)),
        };
        if !own {
            return Err(not_exportable(name, " of a value that shares another's storage"));
        }
        let (x, t) = self.operand(op, 0)?;
        let numel: i64 = t.shape.iter().product();
        let flat = TensorType::new(vec![numel], t.elem);
        Ok((self.reshape(&x, &t, &flat), flat, numel))
    }

    /// Index arithmetic `offset + Σ iₖ·strideₖ` over index values `ivs`.
    fn strided_index(&mut self, ivs: &[String], stride: &[i64], offset: i64, lines: &mut Vec<String>) -> String {
        let mut acc = self.fresh();
        lines.push(format!("{acc} = arith.constant {offset} : index"));
        for (iv, &st) in ivs.iter().zip(stride) {
            let c = self.fresh();
            lines.push(format!("{c} = arith.constant {st} : index"));
            let m = self.fresh();
            lines.push(format!("{m} = arith.muli {iv}, {c} : index"));
            let a = self.fresh();
            lines.push(format!("{a} = arith.addi {acc}, {m} : index"));
            acc = a;
        }
        acc
    }

    fn strided_layout(&self, op: Op, numel: i64) -> Result<(Vec<i64>, Vec<i64>, i64), String> {
        let size = self.ctx.attr_i64_list(op, "size").ok_or("as_strided needs a size")?;
        let stride = self.ctx.attr_i64_list(op, "stride").ok_or("as_strided needs a stride")?;
        let offset = self.ctx.attr_i64(op, "offset").unwrap_or(0);
        let empty = size.contains(&0);
        let (lo, hi) = size.iter().zip(&stride).fold((offset, offset), |(lo, hi), (&n, &s)| {
            let reach = (n - 1).saturating_mul(s);
            if s < 0 {
                (lo.saturating_add(reach), hi)
            } else {
                (lo, hi.saturating_add(reach))
            }
        });
        if !empty && (lo < 0 || hi >= numel) {
            return Err("an as_strided layout outside its operand's elements".into());
        }
        Ok((size, stride, offset))
    }

    fn as_strided(&mut self, op: Op) -> Result<(), String> {
        let name = self.ctx.op_name(op).to_string();
        let (flat, ft, numel) = self.storage_of(op, &name)?;
        let r = self.result_type(op)?;
        let (_, stride, offset) = self.strided_layout(op, numel)?;
        let n = self.generic(&[], &r, &mut |ex, _| {
            let mut lines = Vec::new();
            let mut ivs = Vec::new();
            for k in 0..r.rank() {
                let i = ex.fresh();
                lines.push(format!("{i} = linalg.index {k} : index"));
                ivs.push(i);
            }
            let idx = ex.strided_index(&ivs, &stride, offset, &mut lines);
            let v = ex.fresh();
            lines.push(format!("{v} = tensor.extract {flat}[{idx}] : {}", ty(&ft)));
            Ok((lines, v))
        })?;
        self.bind(op, n);
        Ok(())
    }

    /// `as_strided_scatter`: the source's elements stored, in row-major
    /// order, at the layout's positions of a copy of the base (a loop nest
    /// of `tensor.insert`, so overlapping positions keep the last write).
    fn as_strided_scatter(&mut self, op: Op) -> Result<(), String> {
        let name = self.ctx.op_name(op).to_string();
        let (flat, ft, numel) = self.storage_of(op, &name)?;
        let (src, ts) = self.operand(op, 1)?;
        let r = self.result_type(op)?;
        let (size, stride, offset) = self.strided_layout(op, numel)?;
        if ts.shape.as_slice() != size.as_slice() || ts.elem != ft.elem {
            return Err(not_exportable(self.ctx.op_name(op), " with a source of another type"));
        }
        let c0 = self.fresh();
        self.line(format!("{c0} = arith.constant 0 : index"));
        let c1 = self.fresh();
        self.line(format!("{c1} = arith.constant 1 : index"));
        let fty = ty(&ft);
        // Nest: one scf.for per dimension, the tensor carried.
        let mut text = String::new();
        let mut ivs = Vec::new();
        let mut accs = vec![flat.clone()];
        let result = self.fresh();
        let mut opens = Vec::new();
        for (k, &n) in size.iter().enumerate() {
            let ub = self.fresh();
            let iv = self.fresh();
            let acc = self.fresh();
            let res = if k == 0 { result.clone() } else { self.fresh() };
            let _ = writeln!(text, "{ub} = arith.constant {n} : index");
            let _ = writeln!(
                text,
                "{res} = scf.for {iv} = {c0} to {ub} step {c1} iter_args({acc} = {}) -> ({fty}) {{",
                accs.last().cloned().unwrap_or_default()
            );
            ivs.push(iv);
            accs.push(acc);
            opens.push(res);
        }
        let mut lines = Vec::new();
        let idx = self.strided_index(&ivs, &stride, offset, &mut lines);
        let v = self.fresh();
        let at: Vec<&str> = ivs.iter().map(String::as_str).collect();
        lines.push(format!("{v} = tensor.extract {src}[{}] : {}", at.join(", "), ty(&ts)));
        let inserted = self.fresh();
        lines.push(format!(
            "{inserted} = tensor.insert {v} into {}[{idx}] : {fty}",
            accs.last().cloned().unwrap_or_default()
        ));
        for l in lines {
            let _ = writeln!(text, "{l}");
        }
        let mut yielded = inserted;
        for k in (0..size.len()).rev() {
            let _ = writeln!(text, "scf.yield {yielded} : {fty}");
            let _ = writeln!(text, "}}");
            yielded = opens[k].clone();
        }
        for l in text.lines() {
            self.line(l.to_string());
        }
        let out = self.reshape(&yielded, &ft, &r);
        self.bind(op, out);
        Ok(())
    }

    /// A functional Philox op: per result, a `linalg.generic` whose body
    /// computes its element's Philox words (Philox4x32-10 in `arith`, keyed
    /// by the seed, block `offset / 4 + i / per_block`) and applies the op's
    /// element formula ([`PhiloxDraws`], the one the loop lowering uses), so
    /// a seed and offset draw the other backends' bits.
    fn philox(&mut self, op: Op, draws: &PhiloxDraws) -> Result<(), String> {
        let name = self.ctx.op_name(op).to_string();
        if !(draws.draws)(self.ctx, op) {
            return Err(not_exportable(&name, " when it does not draw (evaluation mode, or p >= 1)"));
        }
        let (seed_t, st) = self.operand(op, 0)?;
        let (off_t, ot) = self.operand(op, 1)?;
        let seed = self.fresh();
        self.line(format!("{seed} = tensor.extract {seed_t}[] : {}", ty(&st)));
        let off = self.fresh();
        self.line(format!("{off} = tensor.extract {off_t}[] : {}", ty(&ot)));
        // The offset check every backend makes.
        let (c0, c4) = (self.fresh(), self.fresh());
        self.line(format!("{c0} = arith.constant 0 : i64"));
        self.line(format!("{c4} = arith.constant 4 : i64"));
        let (r, aligned, nonneg, ok) = (self.fresh(), self.fresh(), self.fresh(), self.fresh());
        self.line(format!("{r} = arith.remsi {off}, {c4} : i64"));
        self.line(format!("{aligned} = arith.cmpi eq, {r}, {c0} : i64"));
        self.line(format!("{nonneg} = arith.cmpi sge, {off}, {c0} : i64"));
        self.line(format!("{ok} = arith.andi {aligned}, {nonneg} : i1"));
        self.line(format!("cf.assert {ok}, \"Philox offset must be a non-negative multiple of 4\""));
        let base = self.fresh();
        self.line(format!("{base} = arith.divsi {off}, {c4} : i64"));
        let input = draws.input.map(|i| self.operand(op, i)).transpose()?;
        let nwords = if draws.per_block == 2 { 2 } else { 1 };
        for (k, &formula) in draws.results.iter().enumerate() {
            let result = self.ctx.result(op, k);
            let rt = tensor_of(self.ctx, result).ok_or("a non-tensor result")?;
            let inputs: Vec<(String, TensorType)> = input.iter().cloned().collect();
            // The formula, on block arguments: the words, then the input.
            let mut types = vec![ElemType::I64; nwords];
            types.extend(input.iter().map(|(_, t)| t.elem));
            let (block, value) =
                self.formula(&types, |s, args| formula(s, op, &args[..nwords], args.get(nwords).copied(), rt.elem))?;
            let per_block = draws.per_block;
            let out = self.generic(&inputs, &rt, &mut |ex, a| {
                let mut lines = Vec::new();
                let mut emit = |ex: &mut Self, rhs: String| {
                    let n = ex.fresh();
                    // `mului_extended` has two results: `%n:2`, read as `%n#0`, `%n#1`.
                    let pair = if rhs.starts_with("arith.mului_extended") { ":2" } else { "" };
                    lines.push(format!("{n}{pair} = {rhs}"));
                    n
                };
                // The element's row-major index.
                let mut lin = emit(ex, "arith.constant 0 : index".into());
                let mut stride = 1i64;
                for d in (0..rt.rank()).rev() {
                    let iv = emit(ex, format!("linalg.index {d} : index"));
                    let c = emit(ex, format!("arith.constant {stride} : index"));
                    let m = emit(ex, format!("arith.muli {iv}, {c} : index"));
                    lin = emit(ex, format!("arith.addi {lin}, {m} : index"));
                    stride = stride.saturating_mul(rt.shape[d].max(1));
                }
                let i = emit(ex, format!("arith.index_cast {lin} : index to i64"));
                let pb = emit(ex, format!("arith.constant {per_block} : i64"));
                let blk = emit(ex, format!("arith.divsi {i}, {pb} : i64"));
                let lane = emit(ex, format!("arith.remsi {i}, {pb} : i64"));
                let ctr = emit(ex, format!("arith.addi {base}, {blk} : i64"));
                let w = philox_words(ex, &mut emit, &seed, &ctr);
                let is = |ex: &mut Self, emit: &mut dyn FnMut(&mut Self, String) -> String, l: i64| {
                    let c = emit(ex, format!("arith.constant {l} : i64"));
                    emit(ex, format!("arith.cmpi eq, {lane}, {c} : i64"))
                };
                let words: Vec<String> = if per_block == 2 {
                    let first = is(ex, &mut emit, 0);
                    vec![
                        emit(ex, format!("arith.select {first}, {}, {} : i64", w[0], w[2])),
                        emit(ex, format!("arith.select {first}, {}, {} : i64", w[1], w[3])),
                    ]
                } else {
                    let (l0, l1, l2) = (is(ex, &mut emit, 0), is(ex, &mut emit, 1), is(ex, &mut emit, 2));
                    let s2 = emit(ex, format!("arith.select {l2}, {}, {} : i64", w[2], w[3]));
                    let s1 = emit(ex, format!("arith.select {l1}, {}, {s2} : i64", w[1]));
                    vec![emit(ex, format!("arith.select {l0}, {}, {s1} : i64", w[0]))]
                };
                let mut names = words;
                names.extend(a.iter().cloned());
                let (body, y) = ex.translate(block, &names, value, &name)?;
                lines.extend(body);
                Ok((lines, y))
            })?;
            self.names.insert(result, out);
        }
        Ok(())
    }

    /// The ops of a formula `block` (its arguments named `args`) as
    /// `arith`/`math` lines, and the name of `result`.
    fn translate(
        &mut self,
        block: Block,
        args: &[String],
        result: Value,
        name: &str,
    ) -> Result<(Vec<String>, String), String> {
        let mut lines = Vec::new();
        let mut scalars: FxHashMap<Value, String> = FxHashMap::default();
        for (k, &v) in self.ctx.block_args(block).iter().enumerate() {
            scalars.insert(v, args.get(k).cloned().ok_or("a formula argument without a value")?);
        }
        let ops: Vec<Op> = self.ctx.block_ops(block).collect();
        for o in ops {
            let v = self.scalar(o, &scalars, &mut lines).map_err(|m| not_exportable(name, &format!(" ({m})")))?;
            scalars.insert(self.ctx.result(o, 0), v);
        }
        let y = scalars.get(&result).cloned().ok_or("the formula's result was not exported")?;
        Ok((lines, y))
    }

    fn transpose(&mut self, x: &str, t: &TensorType, r: &TensorType, perm: &[i64]) -> String {
        if perm.iter().enumerate().all(|(i, &p)| i as i64 == p) {
            return x.to_string();
        }
        let init = self.empty(r);
        let n = self.fresh();
        let p: Vec<String> = perm.iter().map(|d| d.to_string()).collect();
        self.line(format!(
            "{n} = linalg.transpose ins({x} : {}) outs({init} : {}) permutation = [{}]",
            ty(t),
            ty(r),
            p.join(", ")
        ));
        n
    }

    fn float_only(name: &str, t: &TensorType) -> Result<(), String> {
        if matches!(t.elem, ElemType::F32 | ElemType::F64) {
            Ok(())
        } else {
            Err(not_exportable(name, &format!(" on {} (f32 and f64 only: others accumulate in another type)", t.elem)))
        }
    }

    /// `x` reduced over `dims` with `combine` from `init`, with those
    /// dimensions kept at size 1 (and the type that has).
    fn reduce_keep(&mut self, x: &str, t: &TensorType, dims: &[i64], combine: &str, init: f64) -> (String, TensorType) {
        let (n, reduced) = self.reduce_to(x, t, dims, combine, init);
        let keep: Shape =
            (0..t.rank() as i64).map(|d| if dims.contains(&d) { 1 } else { t.shape[d as usize] }).collect();
        let keep = TensorType::new(keep, t.elem);
        (self.reshape(&n, &reduced, &keep), keep)
    }

    /// `x` reduced over `dims` (sorted, distinct) with `combine` from
    /// `init`: a `linalg.reduce`, and the type without those dimensions.
    fn reduce_to(&mut self, x: &str, t: &TensorType, dims: &[i64], combine: &str, init: f64) -> (String, TensorType) {
        let kept: Shape = (0..t.rank() as i64).filter(|d| !dims.contains(d)).map(|d| t.shape[d as usize]).collect();
        let reduced = TensorType::new(kept, t.elem);
        let acc = self.filled(&reduced, init);
        let n = self.fresh();
        let e = t.elem.name();
        let d: Vec<String> = dims.iter().map(|d| d.to_string()).collect();
        self.line(format!(
            "{n} = linalg.reduce ins({x} : {}) outs({acc} : {}) dimensions = [{}]\n      (%in: {e}, %init: {e}) {{\n        %r = {combine} %in, %init : {e}\n        linalg.yield %r : {e}\n      }}",
            ty(t),
            ty(&reduced),
            d.join(", ")
        ));
        (n, reduced)
    }

    /// `v` (of type `t`) divided by the constant `count`, elementwise.
    fn divided_by(&mut self, v: String, t: &TensorType, count: i64) -> Result<String, String> {
        let e = t.elem.name();
        let c = literal(count as f64, t.elem);
        self.generic(&[(v, t.clone())], t, &mut |ex, a| {
            let k = ex.fresh();
            let q = ex.fresh();
            Ok((vec![format!("{k} = arith.constant {c} : {e}"), format!("{q} = arith.divf {}, {k} : {e}", a[0])], q))
        })
    }

    /// `softmax` / `log_softmax` along `dim`, as the kernels compute them:
    /// the row's maximum subtracted before `exp`, sums in order.
    fn softmax(&mut self, op: Op, log: bool) -> Result<(), String> {
        let name = self.ctx.op_name(op);
        let (x, t) = self.operand(op, 0)?;
        let r = self.result_type(op)?;
        Self::float_only(name, &t)?;
        if t.rank() == 0 || r.elem != t.elem {
            return Err(not_exportable(name, " on a 0-d tensor or with a result type of its own"));
        }
        let rank = t.rank() as i64;
        let dim = self.ctx.attr_i64(op, "dim").ok_or("softmax needs a dim")?;
        let dim = if dim < 0 { dim + rank } else { dim };
        let e = t.elem.name().to_string();
        let (m, mt) = self.reduce_keep(&x, &t, &[dim], "arith.maximumf", f64::NEG_INFINITY);
        let ex = self.generic(&[(x.clone(), t.clone()), (m.clone(), mt.clone())], &t, &mut |ex, a| {
            let d = ex.fresh();
            let y = ex.fresh();
            Ok((vec![format!("{d} = arith.subf {}, {} : {e}", a[0], a[1]), format!("{y} = math.exp {d} : {e}")], y))
        })?;
        let (sum, st) = self.reduce_keep(&ex, &t, &[dim], "arith.addf", 0.0);
        let out = if log {
            self.generic(&[(x, t.clone()), (m, mt), (sum, st)], &r, &mut |ex, a| {
                let d = ex.fresh();
                let l = ex.fresh();
                let y = ex.fresh();
                Ok((
                    vec![
                        format!("{d} = arith.subf {}, {} : {e}", a[0], a[1]),
                        format!("{l} = math.log {} : {e}", a[2]),
                        format!("{y} = arith.subf {d}, {l} : {e}"),
                    ],
                    y,
                ))
            })?
        } else {
            self.generic(&[(ex, t.clone()), (sum, st)], &r, &mut |ex, a| {
                let y = ex.fresh();
                Ok((vec![format!("{y} = arith.divf {}, {} : {e}", a[0], a[1])], y))
            })?
        };
        self.bind(op, out);
        Ok(())
    }

    /// `layer_norm` over the last `normalized_ndim` dimensions: the output,
    /// and the mean and `1/sqrt(var + eps)` per row (kept dimensions), as
    /// the kernel computes them.
    fn layer_norm(&mut self, op: Op) -> Result<(), String> {
        let name = self.ctx.op_name(op);
        let (x, t) = self.operand(op, 0)?;
        Self::float_only(name, &t)?;
        let n = self.ctx.attr_i64(op, "normalized_ndim").ok_or("layer_norm needs normalized_ndim")?;
        let eps = self.ctx.attr_f64(op, "eps").unwrap_or(1e-5);
        let rank = t.rank() as i64;
        if n < 1 || n > rank || self.ctx.num_results(op) != 3 {
            return Err(not_exportable(name, " with this shape"));
        }
        let dims: Vec<i64> = (rank - n..rank).collect();
        let count: i64 = dims.iter().map(|&d| t.shape[d as usize]).product();
        if count == 0 {
            return Err(not_exportable(name, " over empty rows"));
        }
        let e = t.elem.name().to_string();
        let c = literal(count as f64, t.elem);
        let epsl = literal(eps, t.elem);
        let (s1, st) = self.reduce_keep(&x, &t, &dims, "arith.addf", 0.0);
        let mean = self.divided_by(s1, &st, count)?;
        let sq = self.generic(&[(x.clone(), t.clone()), (mean.clone(), st.clone())], &t, &mut |ex, a| {
            let d = ex.fresh();
            let y = ex.fresh();
            Ok((
                vec![format!("{d} = arith.subf {}, {} : {e}", a[0], a[1]), format!("{y} = arith.mulf {d}, {d} : {e}")],
                y,
            ))
        })?;
        let (ss, _) = self.reduce_keep(&sq, &t, &dims, "arith.addf", 0.0);
        // var = ss / count; rstd = 1 / sqrt(var + eps); mean out = m + 0·var.
        let stats = |ex: &mut Self, a: &[String], rstd: bool| -> (Vec<String>, String) {
            let k = ex.fresh();
            let v = ex.fresh();
            let mut lines =
                vec![format!("{k} = arith.constant {c} : {e}"), format!("{v} = arith.divf {}, {k} : {e}", a[0])];
            if rstd {
                let ep = ex.fresh();
                let s = ex.fresh();
                let q = ex.fresh();
                let one = ex.fresh();
                let r = ex.fresh();
                lines.extend([
                    format!("{ep} = arith.constant {epsl} : {e}"),
                    format!("{s} = arith.addf {v}, {ep} : {e}"),
                    format!("{q} = math.sqrt {s} : {e}"),
                    format!("{one} = arith.constant {} : {e}", literal(1.0, t.elem)),
                    format!("{r} = arith.divf {one}, {q} : {e}"),
                ]);
                (lines, r)
            } else {
                let z = ex.fresh();
                let p = ex.fresh();
                let m = ex.fresh();
                lines.extend([
                    format!("{z} = arith.constant {} : {e}", literal(0.0, t.elem)),
                    format!("{p} = arith.mulf {v}, {z} : {e}"),
                    format!("{m} = arith.addf {}, {p} : {e}", a[1]),
                ]);
                (lines, m)
            }
        };
        let rstd = self.generic(&[(ss.clone(), st.clone())], &st, &mut |ex, a| Ok(stats(ex, a, true)))?;
        let mean_out =
            self.generic(&[(ss, st.clone()), (mean.clone(), st.clone())], &st, &mut |ex, a| Ok(stats(ex, a, false)))?;
        let mut inputs = vec![(x, t.clone()), (mean, st.clone()), (rstd.clone(), st.clone())];
        let affine = self.ctx.num_operands(op) == 3;
        if affine {
            inputs.push(self.operand(op, 1)?);
            inputs.push(self.operand(op, 2)?);
        }
        let y = self.generic(&inputs, &t, &mut |ex, a| {
            let d = ex.fresh();
            let y = ex.fresh();
            let mut lines = vec![
                format!("{d} = arith.subf {}, {} : {e}", a[0], a[1]),
                format!("{y} = arith.mulf {d}, {} : {e}", a[2]),
            ];
            if affine {
                let w = ex.fresh();
                let b = ex.fresh();
                lines.push(format!("{w} = arith.mulf {y}, {} : {e}", a[3]));
                lines.push(format!("{b} = arith.addf {w}, {} : {e}", a[4]));
                return Ok((lines, b));
            }
            Ok((lines, y))
        })?;
        let results: Vec<Value> = (0..3).map(|i| self.ctx.result(op, i)).collect();
        for (v, name) in results.iter().zip([y, mean_out, rstd]) {
            let want = tensor_of(self.ctx, *v).ok_or("a non-tensor result")?;
            let have = if want == t { t.clone() } else { st.clone() };
            let name = self.reshape(&name, &have, &want);
            self.names.insert(*v, name);
        }
        Ok(())
    }

    fn reduce(&mut self, op: Op, kind: Reduction) -> Result<(), String> {
        let name = self.ctx.op_name(op);
        let (x, t) = self.operand(op, 0)?;
        let r = self.result_type(op)?;
        Self::float_only(name, &t)?;
        if r.elem != t.elem {
            return Err(not_exportable(name, " (with a result type of its own)"));
        }
        let rank = t.rank() as i64;
        let mut dims: Vec<i64> = self.ctx.attr_i64_list(op, "dims").unwrap_or_default();
        if dims.is_empty() {
            dims = (0..rank).collect();
        }
        dims.iter_mut().for_each(|d| {
            if *d < 0 {
                *d += rank
            }
        });
        dims.sort_unstable();
        dims.dedup();
        let (init, combine) = match kind {
            Reduction::Max => (f64::NEG_INFINITY, "arith.maximumf"),
            Reduction::Min => (f64::INFINITY, "arith.minimumf"),
            Reduction::Sum | Reduction::Mean => (0.0, "arith.addf"),
        };
        let (mut v, reduced) = self.reduce_to(&x, &t, &dims, combine, init);
        if kind == Reduction::Mean {
            let count: i64 = dims.iter().map(|&d| t.shape[d as usize]).product();
            v = self.divided_by(v, &reduced, count)?;
        }
        let out = self.reshape(&v, &reduced, &r);
        self.bind(op, out);
        Ok(())
    }

    fn matmul(
        &mut self,
        name: &str,
        a: &str,
        ta: &TensorType,
        b: &str,
        tb: &TensorType,
        r: &TensorType,
    ) -> Result<String, String> {
        Self::float_only(name, r)?;
        let init = self.filled(r, 0.0);
        let n = self.fresh();
        match (ta.rank(), tb.rank()) {
            (2, 2) => self.line(format!(
                "{n} = linalg.matmul ins({a}, {b} : {}, {}) outs({init} : {}) -> {}",
                ty(ta),
                ty(tb),
                ty(r),
                ty(r)
            )),
            (3, 3) if ta.shape[0] == tb.shape[0] => self.line(format!(
                "{n} = linalg.batch_matmul ins({a}, {b} : {}, {}) outs({init} : {}) -> {}",
                ty(ta),
                ty(tb),
                ty(r),
                ty(r)
            )),
            (k, j) if k == j && k > 3 && ta.shape[..k - 2] == tb.shape[..k - 2] => {
                // Equal batch dimensions fold into one.
                let batch: i64 = ta.shape[..k - 2].iter().product();
                let three = |t: &TensorType| TensorType::new(vec![batch, t.shape[k - 2], t.shape[k - 1]], t.elem);
                let (a3, b3, r3) = (three(ta), three(tb), three(r));
                let a2 = self.reshape(a, ta, &a3);
                let b2 = self.reshape(b, tb, &b3);
                let m = self.matmul(name, &a2, &a3, &b2, &b3, &r3)?;
                return Ok(self.reshape(&m, &r3, r));
            }
            (k, 2) if k > 2 => {
                // Batch dimensions of the left operand fold into its rows.
                let rows: i64 = ta.shape[..k - 1].iter().product();
                let flat = TensorType::new(vec![rows, ta.shape[k - 1]], ta.elem);
                let out2 = TensorType::new(vec![rows, tb.shape[1]], r.elem);
                let a2 = self.reshape(a, ta, &flat);
                let m = self.matmul(name, &a2, &flat, b, tb, &out2)?;
                return Ok(self.reshape(&m, &out2, r));
            }
            _ => return Err(not_exportable(name, &format!(" with operands of rank {} and {}", ta.rank(), tb.rank()))),
        }
        Ok(n)
    }

    /// `x·wᵀ (+ b)`.
    fn linear(&mut self, op: Op) -> Result<(), String> {
        let (x, tx) = self.operand(op, 0)?;
        let (w, tw) = self.operand(op, 1)?;
        let r = self.result_type(op)?;
        if tw.rank() != 2 || tx.rank() < 2 {
            return Err(not_exportable(self.ctx.op_name(op), " with a 1-D input or weight"));
        }
        let wt_t = TensorType::new(vec![tw.shape[1], tw.shape[0]], tw.elem);
        let wt = self.transpose(&w, &tw, &wt_t, &[1, 0]);
        let name = self.ctx.op_name(op).to_string();
        let mut y = self.matmul(&name, &x, &tx, &wt, &wt_t, &r)?;
        if self.ctx.num_operands(op) == 3 {
            let (b, tb) = self.operand(op, 2)?;
            let e = r.elem.name();
            y = self.generic(&[(y, r.clone()), (b, tb)], &r, &mut |ex, a| {
                let s = ex.fresh();
                Ok((vec![format!("{s} = arith.addf {}, {} : {e}", a[0], a[1])], s))
            })?;
        }
        self.bind(op, y);
        Ok(())
    }

    /// An elementwise op: its scalar formula, built on block arguments in
    /// a detached region, translated into a `linalg.generic` body.
    fn pointwise(&mut self, op: Op, p: &Pointwise) -> Result<(), String> {
        let r = self.result_type(op)?;
        let n = self.ctx.num_operands(op);
        let inputs: Vec<(String, TensorType)> = (0..n).map(|i| self.operand(op, i)).collect::<Result<_, _>>()?;
        let types: Vec<ElemType> = inputs.iter().map(|(_, t)| t.elem).collect();
        let (block, result) = self.formula(&types, |s, args| (p.0)(s, op, args))?;
        let name = self.ctx.op_name(op).to_string();
        let out = self.generic(&inputs, &r, &mut |ex, a| ex.translate(block, a, result, &name))?;
        self.bind(op, out);
        Ok(())
    }

    /// A scalar formula built by `build` on block arguments of `types`, in
    /// a detached region: its block and its result.
    fn formula(
        &mut self,
        types: &[ElemType],
        build: impl FnOnce(&mut Scalars<'_, '_>, &[Value]) -> Result<Value, String>,
    ) -> Result<(Block, Value), String> {
        let mut rw = Rewriter::new(self.ctx);
        let region = rw.create_region();
        let types: Vec<Type> = types.iter().map(|&e| rw.elem_type(e)).collect();
        let block = rw.create_block(region, &types);
        rw.set_insertion_point(InsertPoint::End(block));
        let args = rw.block_args(block).to_vec();
        let result = build(&mut Scalars { rw: &mut rw }, &args)?;
        Ok((block, result))
    }

    fn scalar_type(&self, v: Value) -> Result<ElemType, String> {
        match self.ctx.type_data(self.ctx.value_type(v)) {
            TypeData::Elem(e) => Ok(*e),
            _ => Err("a scalar of an index type".into()),
        }
    }

    /// One `loop` scalar op as `arith`/`math` lines; returns its value.
    fn scalar(&mut self, o: Op, vals: &FxHashMap<Value, String>, lines: &mut Vec<String>) -> Result<String, String> {
        let ctx = &*self.ctx;
        let kind = LoopOp::of(ctx, o).ok_or_else(|| format!("'{}' in its formula", ctx.op_name(o)))?;
        if ctx.num_results(o) != 1 {
            return Err(format!("'{}' in its formula", ctx.op_name(o)));
        }
        let arg = |i: usize| vals.get(&ctx.operand(o, i)).cloned().ok_or("an unknown scalar".to_string());
        let rt = self.scalar_type(ctx.result(o, 0))?;
        let t = rt.name();
        let emit = |ex: &mut Self, lines: &mut Vec<String>, rhs: String| {
            let n = ex.fresh();
            lines.push(format!("{n} = {rhs}"));
            n
        };
        match kind {
            LoopOp::Constant => {
                let a = ctx.get_attr(o, "value").ok_or("a constant without a value")?;
                let lit = match ctx.attr_data(a) {
                    AttrData::Float { bits, .. } => literal(f64::from_bits(*bits), rt),
                    AttrData::Int { value, .. } if rt == ElemType::I1 => (*value != 0).to_string(),
                    AttrData::Int { value, .. } => value.to_string(),
                    _ => return Err("a constant of another kind".into()),
                };
                Ok(emit(self, lines, format!("arith.constant {lit} : {t}")))
            }
            LoopOp::Scalar(ScalarOp::Binary(b)) => {
                let (x, y) = (arg(0)?, arg(1)?);
                let float = rt.is_float();
                let bool_ = rt == ElemType::I1;
                let op = match (b, float) {
                    (Binary::Add, true) => "arith.addf",
                    (Binary::Sub, true) => "arith.subf",
                    (Binary::Mul, true) => "arith.mulf",
                    (Binary::Div, true) => "arith.divf",
                    (Binary::Max, true) => "arith.maximumf",
                    (Binary::Min, true) => "arith.minimumf",
                    (Binary::Add, false) => "arith.addi",
                    (Binary::Sub, false) => "arith.subi",
                    (Binary::Mul, false) => "arith.muli",
                    (Binary::Div, false) => "arith.floordivsi",
                    (Binary::Max, false) if bool_ => "arith.maxui",
                    (Binary::Min, false) if bool_ => "arith.minui",
                    (Binary::Max, false) => "arith.maxsi",
                    (Binary::Min, false) => "arith.minsi",
                    (Binary::And, false) => "arith.andi",
                    (Binary::Or, false) => "arith.ori",
                    (Binary::Xor, false) => "arith.xori",
                    (Binary::Shr, false) => "arith.shrui",
                    (Binary::Rem, false) => {
                        // The divisor's sign (floor modulo): fix remsi's.
                        let r = emit(self, lines, format!("arith.remsi {x}, {y} : {t}"));
                        let z = emit(self, lines, format!("arith.constant 0 : {t}"));
                        let nz = emit(self, lines, format!("arith.cmpi ne, {r}, {z} : {t}"));
                        let rn = emit(self, lines, format!("arith.cmpi slt, {r}, {z} : {t}"));
                        let yn = emit(self, lines, format!("arith.cmpi slt, {y}, {z} : {t}"));
                        let differ = emit(self, lines, format!("arith.xori {rn}, {yn} : i1"));
                        let fix = emit(self, lines, format!("arith.andi {nz}, {differ} : i1"));
                        let add = emit(self, lines, format!("arith.select {fix}, {y}, {z} : {t}"));
                        return Ok(emit(self, lines, format!("arith.addi {r}, {add} : {t}")));
                    }
                    (other, _) => return Err(format!("{} on {t}", other.name())),
                };
                Ok(emit(self, lines, format!("{op} {x}, {y} : {t}")))
            }
            LoopOp::Scalar(ScalarOp::Unary(u)) => {
                let x = arg(0)?;
                let float = rt.is_float();
                let rhs = match (u, float) {
                    (Unary::Neg, true) => format!("arith.negf {x} : {t}"),
                    (Unary::Neg, false) => {
                        let z = emit(self, lines, format!("arith.constant 0 : {t}"));
                        format!("arith.subi {z}, {x} : {t}")
                    }
                    (Unary::Abs, true) => format!("math.absf {x} : {t}"),
                    // As arith (wrapping at the minimum, as the backends
                    // do): MLIR 19 lowers math.absi to LLVM only through
                    // extra passes.
                    (Unary::Abs, false) => {
                        let z = emit(self, lines, format!("arith.constant 0 : {t}"));
                        let n = emit(self, lines, format!("arith.subi {z}, {x} : {t}"));
                        let neg = emit(self, lines, format!("arith.cmpi slt, {x}, {z} : {t}"));
                        format!("arith.select {neg}, {n}, {x} : {t}")
                    }
                    (Unary::Sqrt, true) => format!("math.sqrt {x} : {t}"),
                    // `1 / sqrt(a)`, two correctly rounded steps, as the
                    // backends compute it (math.rsqrt may be approximate).
                    (Unary::Rsqrt, true) => {
                        let one = emit(self, lines, format!("arith.constant {} : {t}", literal(1.0, rt)));
                        let q = emit(self, lines, format!("math.sqrt {x} : {t}"));
                        format!("arith.divf {one}, {q} : {t}")
                    }
                    (Unary::Floor, true) => format!("math.floor {x} : {t}"),
                    (Unary::Ceil, true) => format!("math.ceil {x} : {t}"),
                    (Unary::Trunc, true) => format!("math.trunc {x} : {t}"),
                    (Unary::Round, true) => format!("math.roundeven {x} : {t}"),
                    (other, _) => return Err(format!("{} on {t}", other.name())),
                };
                Ok(emit(self, lines, rhs))
            }
            LoopOp::Scalar(ScalarOp::Math(m)) => {
                let args: Vec<String> = (0..ctx.num_operands(o)).map(arg).collect::<Result<_, _>>()?;
                let upstream = match m {
                    MathFn::Exp => Some("math.exp"),
                    MathFn::Log => Some("math.log"),
                    MathFn::Log1p => Some("math.log1p"),
                    MathFn::Sin => Some("math.sin"),
                    MathFn::Cos => Some("math.cos"),
                    MathFn::Tan => Some("math.tan"),
                    MathFn::Tanh => Some("math.tanh"),
                    MathFn::Erf => Some("math.erf"),
                    MathFn::Pow => Some("math.powf"),
                    // MLIR 19's math dialect has no erfc, and lowers
                    // expm1 as exp(a) - 1, which loses a small a.
                    // fmod through the C library, as the native backends.
                    MathFn::Erfc | MathFn::Expm1 | MathFn::Fmod => None,
                };
                // `exact` math (what the Philox formulas use), and what the
                // math dialect lacks: a call of the C library function of
                // the math table's row, declared in the module (under
                // --backend mlir, the very functions the native backends
                // call, so results match bit for bit).
                let f = match upstream {
                    Some(f) if !ctx.has_attr(o, "exact") => f,
                    _ => {
                        let wide = match rt {
                            ElemType::F32 => 0,
                            ElemType::F64 => 1,
                            other => return Err(format!("{} on {other}", m.fact().short)),
                        };
                        let f = m.fact().symbols[wide].trim_start_matches("aot_");
                        let types = vec![t; args.len()].join(", ");
                        self.externs.push(format!("func.func private @{f}({types}) -> {t}"));
                        let call = format!("func.call @{f}({}) : ({types}) -> {t}", args.join(", "));
                        return Ok(emit(self, lines, call));
                    }
                };
                Ok(emit(self, lines, format!("{f} {} : {t}", args.join(", "))))
            }
            LoopOp::Scalar(ScalarOp::Cmp) => {
                let (x, y) = (arg(0)?, arg(1)?);
                let ot = self.scalar_type(ctx.operand(o, 0))?;
                let p = Predicate::of(ctx, o).ok_or("a comparison without a predicate")?;
                let rhs = if ot.is_float() {
                    // Ordered, except `ne` (true on NaN), as the backends do.
                    let pred = match p {
                        Predicate::Eq => "oeq",
                        Predicate::Ne => "une",
                        Predicate::Lt => "olt",
                        Predicate::Le => "ole",
                        Predicate::Gt => "ogt",
                        Predicate::Ge => "oge",
                    };
                    format!("arith.cmpf {pred}, {x}, {y} : {}", ot.name())
                } else {
                    let unsigned = ot == ElemType::I1;
                    let pred = match (p, unsigned) {
                        (Predicate::Eq, _) => "eq",
                        (Predicate::Ne, _) => "ne",
                        (Predicate::Lt, false) => "slt",
                        (Predicate::Le, false) => "sle",
                        (Predicate::Gt, false) => "sgt",
                        (Predicate::Ge, false) => "sge",
                        (Predicate::Lt, true) => "ult",
                        (Predicate::Le, true) => "ule",
                        (Predicate::Gt, true) => "ugt",
                        (Predicate::Ge, true) => "uge",
                    };
                    format!("arith.cmpi {pred}, {x}, {y} : {}", ot.name())
                };
                Ok(emit(self, lines, rhs))
            }
            LoopOp::Scalar(ScalarOp::Select) => {
                let (c, x, y) = (arg(0)?, arg(1)?, arg(2)?);
                Ok(emit(self, lines, format!("arith.select {c}, {x}, {y} : {t}")))
            }
            LoopOp::Scalar(ScalarOp::Fma) => {
                let (x, y, z) = (arg(0)?, arg(1)?, arg(2)?);
                Ok(emit(self, lines, format!("math.fma {x}, {y}, {z} : {t}")))
            }
            LoopOp::Scalar(ScalarOp::Cast) => {
                let from = self.scalar_type(ctx.operand(o, 0))?;
                let x = arg(0)?;
                self.cast(&x, from, rt, lines)
            }
            _ => Err(format!("'{}' in its formula", ctx.op_name(o))),
        }
    }

    /// A `loop.cast` from `from` to `to`, with the backends' rules
    /// ([`CastPlan`]): halves through f32, saturating float-to-int with
    /// NaN to 0.
    fn cast(&mut self, x: &str, from: ElemType, to: ElemType, lines: &mut Vec<String>) -> Result<String, String> {
        let plan = CastPlan::of(from, to);
        let mut emit = |ex: &mut Self, rhs: String| {
            let n = ex.fresh();
            lines.push(format!("{n} = {rhs}"));
            n
        };
        let mut v = x.to_string();
        let mut cur = from;
        if let Some(h) = plan.from_half {
            v = emit(self, format!("arith.extf {v} : {} to f32", h.name()));
            cur = ElemType::F32;
        }
        let target = if plan.to_half.is_some() { ElemType::F32 } else { to };
        let bits = |e: ElemType| e.byte_size() * 8;
        let (c, tn) = (cur.name(), target.name());
        v = match plan.convert {
            Conversion::Same => v,
            Conversion::FloatResize if bits(cur) < bits(target) => emit(self, format!("arith.extf {v} : {c} to {tn}")),
            Conversion::FloatResize => emit(self, format!("arith.truncf {v} : {c} to {tn}")),
            Conversion::FloatToBool => {
                let z = emit(self, format!("arith.constant {} : {c}", literal(0.0, cur)));
                emit(self, format!("arith.cmpf une, {v}, {z} : {c}"))
            }
            Conversion::FloatToInt => {
                let w = bits(target) as i32;
                let top = 2f64.powi(w - 1);
                let (lo, hi) = (literal(-top, cur), literal(top, cur));
                let lo = emit(self, format!("arith.constant {lo} : {c}"));
                let hi = emit(self, format!("arith.constant {hi} : {c}"));
                let clamped = emit(self, format!("arith.maxnumf {v}, {lo} : {c}"));
                let clamped = emit(self, format!("arith.minnumf {clamped}, {hi} : {c}"));
                let t = emit(self, format!("arith.fptosi {clamped} : {c} to {tn}"));
                let max = emit(self, format!("arith.constant {} : {tn}", (top as i128 - 1)));
                let over = emit(self, format!("arith.cmpf oge, {v}, {hi} : {c}"));
                let t = emit(self, format!("arith.select {over}, {max}, {t} : {tn}"));
                let zero = emit(self, format!("arith.constant 0 : {tn}"));
                let nan = emit(self, format!("arith.cmpf uno, {v}, {v} : {c}"));
                emit(self, format!("arith.select {nan}, {zero}, {t} : {tn}"))
            }
            Conversion::IntToFloat { unsigned: true } => emit(self, format!("arith.uitofp {v} : {c} to {tn}")),
            Conversion::IntToFloat { unsigned: false } => emit(self, format!("arith.sitofp {v} : {c} to {tn}")),
            Conversion::IntToBool => {
                let z = emit(self, format!("arith.constant 0 : {c}"));
                emit(self, format!("arith.cmpi ne, {v}, {z} : {c}"))
            }
            Conversion::IntResize { unsigned } if bits(cur) < bits(target) => {
                let ext = if unsigned { "arith.extui" } else { "arith.extsi" };
                emit(self, format!("{ext} {v} : {c} to {tn}"))
            }
            Conversion::IntResize { .. } => emit(self, format!("arith.trunci {v} : {c} to {tn}")),
        };
        if let Some(h) = plan.to_half {
            v = emit(self, format!("arith.truncf {v} : f32 to {}", h.name()));
        }
        Ok(v)
    }
}

/// The signature of an exported function: what [`MlirFunction`] binds.
#[derive(Clone, Debug)]
pub struct Signature {
    pub name: String,
    pub args: Vec<TensorType>,
    /// Arguments the function mutates, in the order of their leading results.
    pub mutated: Vec<usize>,
    /// Every result: the mutated arguments' new values, then the outputs.
    pub results: Vec<TensorType>,
}

/// The passes that take an exported module to the LLVM dialect: one-shot
/// bufferization with results turned into caller-allocated out-parameters
/// (so the caller owns every result buffer), ownership-based deallocation
/// of the temporaries, linalg to loops, then every dialect to LLVM (math
/// functions without an LLVM intrinsic become C library calls).
pub const LOWERING: &str = "builtin.module(one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},buffer-results-to-out-params,buffer-deallocation-pipeline,convert-bufferization-to-memref,func.func(convert-linalg-to-loops),convert-scf-to-cf,expand-strided-metadata,lower-affine,finalize-memref-to-llvm,convert-math-to-libm,convert-math-to-llvm,arith-expand{include-bf16=true},convert-arith-to-llvm,convert-index-to-llvm,convert-func-to-llvm,convert-cf-to-llvm,reconcile-unrealized-casts)";

/// A function compiled by MLIR's own pipeline (`--backend mlir`): the
/// independent backend the native ones are checked against.
pub struct MlirFunction {
    code: Arc<Code>,
    signature: Signature,
}

/// The object that holds a compiled function, and the address of its
/// packed entry: `void entry(void **args)`, where `args[i]` points to the
/// pointer to the `i`-th argument's (then result's) memref descriptor, the
/// calling convention of MLIR's `_mlir_ciface_` interface.
struct Code {
    _object: Arc<Loaded>,
    entry: usize,
}

/// The symbols MLIR's lowering calls besides the C library's: its runtime
/// copy between strided memrefs.
pub(crate) fn runtime_symbols() -> Vec<(String, usize)> {
    vec![("memrefCopy".to_string(), memref_copy as *const () as usize)]
}

/// A thread's MLIR context, every upstream dialect loaded once: building
/// one per compile (registering every op of every dialect, then tearing it
/// down) was most of the time a small function took. Multithreading is
/// off: the modules are small, and the callers already compile on several
/// threads. Nothing it made outlives a compile: the code is LLVM's.
fn with_thread_context<R>(f: impl FnOnce(&melior::Context) -> R) -> R {
    use melior::dialect::DialectRegistry;
    use melior::utility::{register_all_dialects, register_all_llvm_translations, register_all_passes};
    thread_local! {
        static CONTEXT: melior::Context = {
            let registry = DialectRegistry::new();
            register_all_dialects(&registry);
            let context = melior::Context::new();
            context.append_dialect_registry(&registry);
            context.load_all_available_dialects();
            register_all_llvm_translations(&context);
            context.enable_multi_threading(false);
            context
        };
    }
    // The pass registry is MLIR's global table: filled once, not by every
    // thread (two threads filling it at once would race).
    static PASSES: std::sync::Once = std::sync::Once::new();
    PASSES.call_once(register_all_passes);
    CONTEXT.with(f)
}

/// Functions compiled in this process, by their exported text and
/// signature: a compile that exports the same module again (the same
/// program under another calling convention, a recompile, on any thread)
/// reuses the code. Behind it, the object cache on disk does the same
/// across processes.
static COMPILED: JitCache<String, Arc<Code>> = JitCache::new(256);

/// LLVM's pipeline and code generation level for MLIR's output: those of
/// MLIR's own execution engine at its level 2.
const LLVM_PIPELINE: &str = "default<O2>";

/// Exports `func` (a pure function over tensors after the pipeline) and
/// compiles it with MLIR: verified, lowered by [`LOWERING`], translated to
/// LLVM IR, optimized at LLVM's O2 and linked by the process's JIT.
pub fn compile(ctx: &mut Context, func: Op) -> Result<MlirFunction, Diagnostic> {
    let mut text = String::from("module {\n");
    let mut externs = Vec::new();
    let signature = export_function(ctx, func, &mut text, &mut externs, true)?;
    externs.sort();
    externs.dedup();
    for e in externs {
        let _ = writeln!(text, "  {e}");
    }
    text.push_str("}\n");
    let fail = |m: String| Diagnostic::op_error(ctx, func, m);
    let key = format!("{signature:?}\n{text}");
    if let Some(code) = COMPILED.get(&key) {
        return Ok(MlirFunction { code, signature });
    }
    let machine = orc::host_machine(inkwell::OptimizationLevel::Default).map_err(fail)?;
    let how = format!("{}\nmlir {LOWERING}", orc::machine_description(&machine, LLVM_PIPELINE));
    let disk_key = object_cache::key(&how, &key);
    let cache = ObjectCache::global();
    if let Some((object, entry)) = cache.and_then(|c| orc::link_from(c, &disk_key)) {
        let code = Arc::new(Code { _object: object, entry });
        COMPILED.insert(key, code.clone());
        return Ok(MlirFunction { code, signature });
    }
    let id = object_cache::hash_hex(&[how.as_bytes(), key.as_bytes()]);
    let prefix = orc::symbol_prefix(&id);
    let symbol = format!("{prefix}{PACKED_ENTRY}");
    let bytes = with_thread_context(|context| lower_to_object(context, &text, &signature.name, &machine, &prefix))
        .map_err(fail)?;
    let object = orc::load(&id, &bytes).map_err(fail)?;
    let entry = object.address(&symbol).map_err(fail)?;
    if let Some(c) = cache {
        if let Some(sum) = c.store_object(&id, &bytes) {
            c.store_entry(&disk_key, &id, &symbol, sum);
        }
    }
    let code = Arc::new(Code { _object: object, entry });
    COMPILED.insert(key, code.clone());
    Ok(MlirFunction { code, signature })
}

/// The name of the packed entry [`object_of`] adds (before the object's
/// symbol prefix): not a name an exported function can have, whose names
/// are the program's.
const PACKED_ENTRY: &str = "aot.packed";

/// Parses the exported `text`, lowers it with [`LOWERING`], translates it
/// to LLVM IR, adds the packed entry of function `name`, and returns the
/// object LLVM makes of it, its one global symbol `prefix` +
/// [`PACKED_ENTRY`].
fn lower_to_object(
    context: &melior::Context,
    text: &str,
    name: &str,
    machine: &inkwell::targets::TargetMachine,
    prefix: &str,
) -> Result<Vec<u8>, String> {
    use melior::ir::Module;
    use melior::utility::parse_pass_pipeline;
    let messages = std::rc::Rc::new(std::cell::RefCell::new(Vec::<String>::new()));
    let sink = messages.clone();
    let id = context.attach_diagnostic_handler(move |d| {
        sink.borrow_mut().push(format!("{}: {d}", d.location()));
        true
    });
    let said = |what: &str| format!("{what}: {}", messages.borrow().join("; "));
    let result = (|| {
        let mut module = Module::parse(context, text).ok_or_else(|| said("MLIR could not parse the export"))?;
        if !module.as_operation().verify() {
            return Err(said("MLIR rejected the export"));
        }
        let pm = melior::pass::PassManager::new(context);
        parse_pass_pipeline(pm.as_operation_pass_manager(), LOWERING)
            .map_err(|e| format!("the lowering pipeline: {e}"))?;
        pm.run(&mut module).map_err(|_| said("MLIR's lowering failed"))?;
        let ll = inkwell::context::Context::create();
        // SAFETY: the module is in the LLVM dialect; the translation makes
        // a new LLVM module in `ll` (MLIR and inkwell share libLLVM), owned
        // by the inkwell module from here on; null is a failure.
        let translated = unsafe {
            use inkwell::context::AsContextRef;
            let raw = mlir_sys::mlirTranslateModuleToLLVMIR(
                module.as_operation().to_raw(),
                (&ll).as_ctx_ref() as mlir_sys::LLVMContextRef,
            );
            if raw.is_null() {
                return Err(said("MLIR could not translate the lowered module to LLVM IR"));
            }
            inkwell::module::Module::new(raw as inkwell::llvm_sys::prelude::LLVMModuleRef)
        };
        object_of(&ll, &translated, name, machine, prefix)
    })();
    context.detach_diagnostic_handler(id);
    result
}

/// The object of MLIR's translated module: the packed entry calling
/// `_mlir_ciface_<name>` added under `prefix` + [`PACKED_ENTRY`], every
/// other definition made internal (so objects side by side define nothing
/// twice), optimized as MLIR's execution engine would.
fn object_of<'c>(
    ll: &'c inkwell::context::Context,
    module: &inkwell::module::Module<'c>,
    name: &str,
    machine: &inkwell::targets::TargetMachine,
    prefix: &str,
) -> Result<Vec<u8>, String> {
    module.set_triple(&machine.get_triple());
    module.set_data_layout(&machine.get_target_data().get_data_layout());
    let iface = format!("_mlir_ciface_{name}");
    let callee = module.get_function(&iface).ok_or_else(|| format!("MLIR's lowering made no {iface}"))?;
    let ptr = ll.ptr_type(inkwell::AddressSpace::default());
    let entry = module.add_function(PACKED_ENTRY, ll.void_type().fn_type(&[ptr.into()], false), None);
    let b = ll.create_builder();
    b.position_at_end(ll.append_basic_block(entry, "entry"));
    let args = entry.get_first_param().ok_or("no parameter")?.into_pointer_value();
    let err = |e: inkwell::builder::BuilderError| format!("LLVM: {e}");
    let slot = |b: &inkwell::builder::Builder<'c>, i: usize| -> Result<inkwell::values::PointerValue<'c>, String> {
        let index = ll.i64_type().const_int(i as u64, false);
        // SAFETY: `args` holds one pointer per parameter (and one for a
        // returned value), as the packed convention says.
        let at = unsafe { b.build_gep(ptr, args, &[index], "slot") }.map_err(err)?;
        Ok(b.build_load(ptr, at, "arg").map_err(err)?.into_pointer_value())
    };
    let params = callee.get_type().get_param_types();
    let mut values = Vec::with_capacity(params.len());
    for (i, t) in params.iter().enumerate() {
        let at = slot(&b, i)?;
        let t = inkwell::types::BasicTypeEnum::try_from(*t).map_err(|_| format!("{iface} takes a metadata operand"))?;
        values.push(b.build_load(t, at, "value").map_err(err)?.into());
    }
    let call = b.build_call(callee, &values, "").map_err(err)?;
    if let inkwell::values::ValueKind::Basic(v) = call.try_as_basic_value() {
        let at = slot(&b, params.len())?;
        b.build_store(at, v).map_err(err)?;
    }
    b.build_return(None).map_err(err)?;
    orc::seal(module, prefix, |n| n == PACKED_ENTRY);
    module.verify().map_err(|e| format!("LLVM rejected MLIR's translated module: {e}"))?;
    module
        .run_passes(LLVM_PIPELINE, machine, inkwell::passes::PassBuilderOptions::create())
        .map_err(|e| format!("LLVM's optimizer failed: {e}"))?;
    orc::emit_object(machine, module)
}

/// Philox4x32-10 of counter `(ctr_lo, ctr_hi, 0, 0)` keyed by the 64-bit
/// seed, in `arith` on `i32` (`mului_extended` gives the high and low
/// halves); the four words zero-extended to `i64`, as `loop.philox` gives
/// them. The rounds are the runtime's, emitted through [`ArithWords`].
fn philox_words<'c>(
    ex: &mut Exporter<'c>,
    emit: &mut dyn FnMut(&mut Exporter<'c>, String) -> String,
    seed: &str,
    ctr: &str,
) -> [String; 4] {
    let c32 = emit(ex, "arith.constant 32 : i64".into());
    let half = |ex: &mut Exporter<'c>, emit: &mut dyn FnMut(&mut Exporter<'c>, String) -> String, v: &str| {
        let lo = emit(ex, format!("arith.trunci {v} : i64 to i32"));
        let sh = emit(ex, format!("arith.shrui {v}, {c32} : i64"));
        let hi = emit(ex, format!("arith.trunci {sh} : i64 to i32"));
        (lo, hi)
    };
    let (k0, k1) = half(ex, emit, seed);
    let (a, b) = half(ex, emit, ctr);
    let zero = emit(ex, "arith.constant 0 : i32".into());
    // Every constant the rounds use, named once before them.
    let mut constants = Vec::new();
    for x in aot_runtime::philox::MULTIPLIERS.into_iter().chain(aot_runtime::philox::KEY_STEPS) {
        constants.push((x, emit(ex, format!("arith.constant {} : i32", x as i32))));
    }
    let mut words = ArithWords { ex, emit, constants };
    let c = match aot_runtime::philox::rounds(&mut words, [a, b, zero.clone(), zero], [k0, k1]) {
        Ok(c) => c,
        Err(never) => match never {},
    };
    c.map(|v| (words.emit)(words.ex, format!("arith.extui {v} : i32 to i64")))
}

/// Philox's word operations as `arith` on `i32`: a product is the pair
/// `mului_extended` names (`#0` low, `#1` high).
struct ArithWords<'e, 'c> {
    ex: &'e mut Exporter<'c>,
    emit: &'e mut dyn FnMut(&mut Exporter<'c>, String) -> String,
    /// The constants' names, by value.
    constants: Vec<(u32, String)>,
}

impl ArithWords<'_, '_> {
    /// The name of constant `x` (each is named once, before the rounds).
    fn constant(&mut self, x: u32) -> String {
        if let Some((_, n)) = self.constants.iter().find(|(v, _)| *v == x) {
            return n.clone();
        }
        let n = (self.emit)(self.ex, format!("arith.constant {} : i32", x as i32));
        self.constants.push((x, n.clone()));
        n
    }
}

impl aot_runtime::philox::Words for ArithWords<'_, '_> {
    type Word = String;
    type Error = std::convert::Infallible;
    type Product = String;

    fn mul(&mut self, m: u32, x: &String) -> Result<String, Self::Error> {
        let m = self.constant(m);
        Ok((self.emit)(self.ex, format!("arith.mului_extended {m}, {x} : i32")))
    }

    fn hi(&mut self, p: &String) -> Result<String, Self::Error> {
        Ok(format!("{p}#1"))
    }

    fn lo(&mut self, p: &String) -> Result<String, Self::Error> {
        Ok(format!("{p}#0"))
    }

    fn add(&mut self, k: &String, step: u32) -> Result<String, Self::Error> {
        let w = self.constant(step);
        Ok((self.emit)(self.ex, format!("arith.addi {k}, {w} : i32")))
    }

    fn xor(&mut self, a: &String, b: &String) -> Result<String, Self::Error> {
        Ok((self.emit)(self.ex, format!("arith.xori {a}, {b} : i32")))
    }
}

/// An unranked memref as MLIR's C interface passes it.
#[repr(C)]
struct UnrankedMemRef {
    rank: i64,
    descriptor: *const i64,
}

/// MLIR's runtime copy between strided memrefs, which `memref.copy` of a
/// non-contiguous layout lowers to (MLIR ships it in a runner library the
/// JIT would otherwise load from a path): element by element, in row-major
/// order of the source's sizes.
///
/// # Safety
/// Both descriptors are `{allocated, aligned, offset, sizes[rank],
/// strides[rank]}` of live memrefs of the same sizes, with `elem_size`-byte
/// elements (MLIR's contract for this call).
unsafe extern "C" fn memref_copy(elem_size: i64, src: *const UnrankedMemRef, dst: *const UnrankedMemRef) {
    let (s, d) = unsafe { (&*src, &*dst) };
    let rank = s.rank.max(0) as usize;
    let sw = unsafe { std::slice::from_raw_parts(s.descriptor, 3 + 2 * rank) };
    let dw = unsafe { std::slice::from_raw_parts(d.descriptor, 3 + 2 * rank) };
    let (sp, dp) = (sw[1] as *const u8, dw[1] as *mut u8);
    let sizes = &sw[3..3 + rank];
    let (ss, ds) = (&sw[3 + rank..], &dw[3 + rank..]);
    if sizes.iter().any(|&n| n <= 0) {
        return;
    }
    let e = elem_size.max(0) as usize;
    let src_at = aot_runtime::tensor::strided_iter(sizes, ss, sw[2]);
    let dst_at = aot_runtime::tensor::strided_iter(sizes, ds, dw[2]);
    for (so, doff) in src_at.zip(dst_at) {
        // SAFETY: the positions are elements of both memrefs.
        unsafe { std::ptr::copy(sp.add(so * e), dp.add(doff * e), e) };
    }
}

/// A memref descriptor of a contiguous buffer: `{allocated, aligned,
/// offset, sizes[r], strides[r]}`, as MLIR's C interface lays it out.
fn descriptor(ptr: *mut u8, shape: &[i64]) -> Vec<u64> {
    let mut d = vec![ptr as u64, ptr as u64, 0];
    d.extend(shape.iter().map(|&n| n as u64));
    let mut strides = vec![0u64; shape.len()];
    let mut s = 1i64;
    for i in (0..shape.len()).rev() {
        strides[i] = s as u64;
        s = s.saturating_mul(shape[i].max(1));
    }
    d.extend(strides);
    d
}

impl aot_runtime::compiled::Executable for MlirFunction {
    fn run(&mut self, args: Vec<aot_runtime::Tensor>) -> Result<Vec<aot_runtime::Tensor>, String> {
        use aot_runtime::Tensor;
        let sig = &self.signature;
        if args.len() != sig.args.len() {
            return Err(format!("the compiled function takes {} arguments, got {}", sig.args.len(), args.len()));
        }
        // Contiguous copies of the arguments, fresh results: the function
        // reads and writes nothing else.
        let mut bound = Vec::with_capacity(args.len());
        for (i, (t, ty)) in args.iter().zip(&sig.args).enumerate() {
            if t.dtype() != ty.elem || t.sizes()[..] != ty.shape[..] || t.physical() != t.dtype() {
                return Err(crate::program::argument_mismatch(i, t, ty.elem, &ty.shape));
            }
            let c = Tensor::zeros(t.dtype(), &t.sizes(), t.dtype());
            c.copy_values_from(t);
            bound.push(c);
        }
        let results: Vec<Tensor> = sig.results.iter().map(|t| Tensor::zeros(t.elem, &t.shape, t.elem)).collect();
        let mut descs: Vec<Vec<u64>> =
            bound.iter().chain(&results).map(|t| descriptor(t.storage().buf_mut().as_mut_ptr(), &t.sizes())).collect();
        let mut ptrs: Vec<*mut u64> = descs.iter_mut().map(|d| d.as_mut_ptr()).collect();
        let mut packed: Vec<*mut std::ffi::c_void> =
            ptrs.iter_mut().map(|p| p as *mut *mut u64 as *mut std::ffi::c_void).collect();
        // SAFETY: the entry has the packed signature (`Code`), and takes
        // one descriptor pointer per argument and result, each describing a
        // live contiguous buffer of the declared shape and element type,
        // which the call alone touches; its object stays linked in `code`.
        unsafe {
            let entry = std::mem::transmute::<usize, unsafe extern "C" fn(*mut *mut std::ffi::c_void)>(self.code.entry);
            entry(packed.as_mut_ptr());
        }
        // Mutated arguments take their new values, in order.
        let k = sig.mutated.len();
        for (r, &i) in results.iter().zip(&sig.mutated) {
            args[i].copy_values_from(r);
        }
        Ok(results.into_iter().skip(k).collect())
    }
}

/// Elements `items` nested by `shape`, as a dense literal's body (empty
/// for a tensor without elements: `dense<>`).
pub fn nested(shape: &[i64], items: &mut dyn Iterator<Item = String>) -> String {
    if shape.contains(&0) {
        return String::new();
    }
    match shape.split_first() {
        None => items.next().unwrap_or_default(),
        Some((&n, rest)) => {
            let parts: Vec<String> = (0..n.max(0)).map(|_| nested(rest, items)).collect();
            format!("[{}]", parts.join(", "))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn float_literals_are_exact_bit_patterns() {
        assert_eq!(literal(1.0, ElemType::F32), "0x3F800000");
        assert_eq!(literal(0.1, ElemType::F64), "0x3FB999999999999A");
        assert_eq!(literal(f64::NEG_INFINITY, ElemType::F32), "0xFF800000");
        assert_eq!(literal(1.0, ElemType::BF16), "0x3F80");
        assert_eq!(literal(-2.0, ElemType::I64), "-2");
        assert_eq!(literal(3.0, ElemType::I1), "true");
    }

    #[test]
    fn dense_bodies_nest_by_shape() {
        let mut it = (1..=6).map(|i| i.to_string());
        assert_eq!(nested(&[2, 3], &mut it), "[[1, 2, 3], [4, 5, 6]]");
        assert_eq!(nested(&[], &mut ["7".to_string()].into_iter()), "7");
        assert_eq!(nested(&[0, 2], &mut std::iter::empty()), "");
    }
}
