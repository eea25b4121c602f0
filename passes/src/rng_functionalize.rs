//! `rng-functionalize`: stateful random ops become pure functions of an
//! explicit Philox state.
//!
//! Every stateful op (`rng.uniform`, `normal`, `bernoulli`, `dropout`) of a
//! value-semantics function becomes its `rng.philox_*` twin (the `rng`
//! dialect's `RandomInterface`) reading the state from two new trailing
//! arguments, `seed` and `offset` (`tensor<i64>`, marked `aot.rng_seed` and
//! `aot.rng_offset`). Each op's offset is the base offset plus the words
//! the ops before it draw (each op's draw rounded up to a multiple of 4, as
//! the generator advances): `offset + c` with `c` a constant, or with
//! symbolic sizes an expression of the symbols (`tensor.size_value`),
//! which each call evaluates. The function returns the advanced offset as its last result
//! (`aot.rng_offset`), after the forward returns, and
//! `is_rng_op_functionalized` is set in `aot.meta`; the runtime passes the
//! generator's state in and moves the generator to the returned offset.
//!
//! The ops run in program order, which `functionalize` preserved, so a
//! compiled function draws exactly the numbers eager execution draws, on
//! every backend. Functions without random ops are left unchanged.

use crate::meta::{ViewAndMutationMeta, META_ATTR};
use aot_dialects::func::{FuncOp, FuncView};
use aot_dialects::rng::RandomInterface;
use aot_dialects::tensor::{AddOp, ConstantOp, SizeValueOp};
use aot_ir::pass::{Pass, PassInfo, PassOptions, PassState, StatisticSpec};
use aot_ir::*;

/// Argument attribute of the seed argument.
pub const RNG_SEED: &str = "aot.rng_seed";
/// Argument attribute of the base offset argument, and result attribute of
/// the advanced offset.
pub const RNG_OFFSET: &str = "aot.rng_offset";

struct RngFunctionalize;

fn i64_scalar(rw: &mut Rewriter<'_>, v: i64) -> Value {
    let ty = rw.tensor_type(&[], ElemType::I64);
    let a = rw.dense_attr(ty, DenseData::SplatInt(v));
    ConstantOp::build_typed1(rw, &[], &[("value", a)], ty)
}

/// A word count as a 0-d i64 value: a constant, or the call's value of a
/// symbolic count.
fn words_value(rw: &mut Rewriter<'_>, words: i64) -> Value {
    if !aot_ir::sym::is_symbolic(words) {
        return i64_scalar(rw, words);
    }
    let ty = rw.tensor_type(&[], ElemType::I64);
    let size = rw.i64_list_attr(&[words]);
    SizeValueOp::build_typed1(rw, &[], &[("size", size)], ty)
}

impl Pass for RngFunctionalize {
    fn run(&mut self, ctx: &mut Context, func: Op, st: &mut PassState) -> Result<(), Diagnostic> {
        let Some(f) = FuncView::new(ctx, func) else { return Ok(()) };
        if !f.is_public_definition(ctx) {
            return Ok(());
        }
        let entry = f.entry_block(ctx).expect("has a body");
        let random: Vec<(Op, &'static RandomInterface)> = ctx
            .block_ops(entry)
            .filter_map(|op| ctx.op_def(op).and_then(|d| d.interface::<RandomInterface>()).map(|i| (op, i)))
            .collect();
        if random.is_empty() {
            return Ok(());
        }
        let err = |ctx: &Context, m: String| Diagnostic::op_error(ctx, func, m);
        let mut meta = ViewAndMutationMeta::required(ctx, func, "rng-functionalize", "has random ops")?;
        if meta.is_rng_op_functionalized {
            return Err(err(ctx, "has stateful random ops but aot.meta says RNG is functionalized".into()));
        }
        let mut rw = Rewriter::new(ctx);
        crate::convention::Convention::record(&mut rw, func).map_err(|m| err(&rw, m))?;
        let n = f.num_args(&rw);
        let state_ty = rw.tensor_type(&[], ElemType::I64);
        let unit = rw.unit_attr();
        let seed_attr = vec![NamedAttr { name: rw.sym(RNG_SEED), value: unit }];
        let offset_attr = vec![NamedAttr { name: rw.sym(RNG_OFFSET), value: unit }];
        let seed = f.insert_arg(&mut rw, n, state_ty, seed_attr).expect("has a body");
        let offset = f.insert_arg(&mut rw, n + 1, state_ty, offset_attr).expect("has a body");
        // Words drawn so far: a constant, or with symbolic sizes an
        // expression, which the call computes (`tensor.size_value`).
        let mut consumed: i64 = 0;
        for (op, iface) in &random {
            let op = *op;
            rw.set_insertion_point(InsertPoint::Before(op));
            rw.set_loc(rw.op_loc(op));
            let at = if consumed == 0 {
                offset
            } else {
                let c = words_value(&mut rw, consumed);
                AddOp::build1(&mut rw, &[offset, c], &[])?
            };
            let t = rw.value_tensor(rw.result(op, 0)).cloned();
            let overflow = |rw: &Rewriter<'_>| {
                Diagnostic::op_error(rw, op, "draws more random numbers than an i64 offset can count")
            };
            let numel = match &t {
                Some(t) => aot_ir::sym::numel(&t.shape).map_err(|_| overflow(&rw))?,
                None => 0,
            };
            let words = (iface.words)(&AttrView::of_op(&rw, op), numel).map_err(|_| overflow(&rw))?;
            // (Rounded up to a multiple of 4, as the generator advances.)
            let rounded = aot_ir::sym::add(words, 3)
                .and_then(|w| aot_ir::sym::floordiv(w, 4))
                .and_then(|w| aot_ir::sym::mul(w, 4))
                .map_err(|_| overflow(&rw))?;
            consumed = aot_ir::sym::add(consumed, rounded).map_err(|_| overflow(&rw))?;
            if !aot_ir::sym::is_symbolic(consumed) && consumed < 0 {
                return Err(overflow(&rw));
            }
            let mut operands = vec![seed, at];
            operands.extend(rw.operands(op));
            let attrs = rw.attrs(op).to_vec();
            let types: Vec<Type> = rw.results(op).iter().map(|&r| rw.value_type(r)).collect();
            let name = rw.op_name_id(iface.functional.name());
            let mut state = OperationState::new(name, rw.op_loc(op));
            state.operands.extend(operands);
            state.attrs = attrs;
            state.result_types.extend(types);
            let new = rw.create(state);
            let results = rw.results(new).to_vec();
            rw.replace_op(op, &results);
        }
        let ret = f.return_op(&rw).ok_or_else(|| err(&rw, "has no return".into()))?;
        rw.set_insertion_point(InsertPoint::Before(ret));
        rw.set_loc(rw.op_loc(ret));
        let total = words_value(&mut rw, consumed);
        let advanced = AddOp::build1(&mut rw, &[offset, total], &[])?;
        let mut results: Vec<Value> = rw.operands(ret).collect();
        results.push(advanced);
        rw.set_operands(ret, &results);
        let mut res_attrs = f.all_res_attrs(&rw);
        res_attrs.resize(results.len(), Vec::new());
        res_attrs.last_mut().expect("one result at least").push(NamedAttr { name: rw.sym(RNG_OFFSET), value: unit });
        f.set_all_res_attrs(&mut rw, res_attrs);
        f.sync_function_type(&mut rw);
        meta.is_rng_op_functionalized = true;
        let a = meta.to_attr(&mut rw);
        rw.set_attr(func, META_ATTR, a);
        st.add_stat("num-rng-ops", random.len() as u64);
        st.add_stat("num-words", consumed as u64);
        Ok(())
    }
}

/// How far a call of `func` (this pass's output, after any later pass)
/// moves the generator's offset, read off the graph: the result marked
/// [`RNG_OFFSET`] is the offset argument, or this pass's `offset + c` with
/// `c` a constant or a symbolic size's value (`tensor.size_value`: the
/// count is then that expression, which the caller evaluates with the
/// call's symbols). `None` when it is anything else (the runtime then
/// reads the returned offset).
pub fn advance(ctx: &Context, func: Op) -> Option<i64> {
    let f = FuncView { op: func };
    let args = f.args(ctx);
    let offset = (0..args.len()).find(|&i| f.arg_attr(ctx, i, RNG_OFFSET).is_some()).map(|i| args[i])?;
    let ret = f.return_op(ctx)?;
    let k = (0..ctx.num_operands(ret)).find(|&i| f.res_attr(ctx, i, RNG_OFFSET).is_some())?;
    let v = ctx.operand(ret, k);
    if v == offset {
        return Some(0);
    }
    let add = ctx.defining_op(v).filter(|&o| ctx.op_name(o) == AddOp::NAME && ctx.num_operands(o) == 2)?;
    let other = match (ctx.operand(add, 0), ctx.operand(add, 1)) {
        (a, c) if a == offset => c,
        (c, a) if a == offset => c,
        _ => return None,
    };
    let c = ctx.defining_op(other)?;
    if ctx.op_name(c) == SizeValueOp::NAME && ctx.get_attr(c, "numerator").is_none() {
        return match ctx.attr_i64_list(c, "size")?[..] {
            [words] => Some(words),
            _ => None,
        };
    }
    if ctx.op_name(c) != ConstantOp::NAME {
        return None;
    }
    match ctx.attr_data(ctx.get_attr(c, "value")?) {
        AttrData::Dense { data, .. } if data.is_splat() => Some(data.get_i64(0)),
        _ => None,
    }
}

inventory::submit! {
    PassInfo {
        argument: "rng-functionalize",
        name: "RngFunctionalize",
        summary: "Turn stateful random ops into rng.philox_* ops of an explicit (seed, offset) state",
        description: "Appends seed and offset arguments (tensor<i64>, aot.rng_seed / aot.rng_offset), rewrites each \
stateful random op in program order to its philox twin at offset + (words drawn before it, each op's draw rounded up \
to a multiple of 4), returns the advanced offset as the last result and sets is_rng_op_functionalized in aot.meta. \
The runtime passes the generator state in and advances the generator to the returned offset, so compiled results \
equal eager results bit for bit on every backend. Requires collect-metadata to have run.",
        anchor: Some(FuncOp::NAME),
        options: &[],
        statistics: &[
            StatisticSpec { name: "num-rng-ops", description: "Stateful random ops rewritten" },
            StatisticSpec { name: "num-words", description: "32-bit random words one call draws (offset advance)" },
        ],
        create: |_: &PassOptions| Ok(Box::new(RngFunctionalize)),
    }
}
