//! Every derivative rule against finite differences, in f64: each op with a
//! rule (the `Vjp` interface) is built into a one-op function over several
//! shapes (broadcasting, several dims, keepdim, optional operands),
//! compiled for training (`aot-train`, default and min-cut partitions), and
//! its gradients with random tangents compared with central differences of
//! the eager interpreter. A rule nobody tests fails the coverage check.

use aot::compile::{Backend, CompileOptions};
use aot::ir::*;
use aot_run::compare::{compare, CompareOptions};
use aot_run::json::{ArgSpec, InputSpec, TangentSpec};
use aot_run::{fd, outputs_json, run_compiled, run_eager, Calls};
use serde_json::Value as Json;
use std::collections::BTreeSet;
use std::sync::Arc;

/// An operand: a float tensor that requires grad (values in `lo..hi`), an
/// integer index tensor (values in `0..n`, or a permutation when `unique`),
/// or a boolean mask.
#[derive(Clone)]
enum Arg {
    F(&'static [i64]),
    Pos(&'static [i64]),
    /// Values in 0.1..0.9 (`logit`'s domain).
    Unit(&'static [i64]),
    I(&'static [i64], i64),
    Unique(&'static [i64], i64),
    B(&'static [i64]),
    F32(&'static [i64]),
}

struct Case {
    op: &'static str,
    args: Vec<Arg>,
    attrs: &'static str,
    /// Result element type when the op does not infer it (cast).
    result: Option<(&'static [i64], ElemType)>,
}

fn c(op: &'static str, args: Vec<Arg>, attrs: &'static str) -> Case {
    Case { op, args, attrs, result: None }
}

use Arg::*;

fn cases() -> Vec<Case> {
    let mut v = Vec::new();
    for op in ["tensor.add", "tensor.sub", "tensor.mul", "tensor.maximum", "tensor.minimum"] {
        v.push(c(op, vec![F(&[2, 3]), F(&[2, 3])], ""));
        v.push(c(op, vec![F(&[2, 3]), F(&[3])], ""));
        v.push(c(op, vec![F(&[4, 1, 3]), F(&[2, 1])], ""));
    }
    v.push(c("tensor.div", vec![F(&[2, 3]), Pos(&[2, 3])], ""));
    v.push(c("tensor.div", vec![F(&[3, 1]), Pos(&[4])], ""));
    v.push(c("tensor.pow", vec![Pos(&[2, 3]), F(&[2, 3])], ""));
    v.push(c("tensor.pow", vec![Pos(&[4]), F(&[])], ""));
    // The special exponents, one without, and 1 (whose derivative takes x⁰).
    for k in [
        "{exponent = 3.0}",
        "{exponent = 2.0}",
        "{exponent = 0.5}",
        "{exponent = -0.5}",
        "{exponent = -1.0}",
        "{exponent = -2.0}",
        "{exponent = 2.5}",
        "{exponent = 1.0}",
    ] {
        v.push(c("tensor.pow_scalar", vec![Pos(&[2, 3])], k));
    }
    v.push(c("tensor.pow_scalar", vec![F(&[4])], "{exponent = 3.0}"));
    // ELU, SELU's constants, CELU's (alpha 2: input scale 1/2).
    v.push(c("tensor.elu", vec![F(&[2, 5])], ""));
    v.push(c("tensor.elu", vec![F(&[2, 5])], "{alpha = 1.6732632423543772, scale = 1.0507009873554805}"));
    v.push(c("tensor.elu", vec![F(&[7])], "{alpha = 2.0, input_scale = 0.5}"));
    v.push(c("tensor.softplus", vec![F(&[2, 5])], ""));
    v.push(c("tensor.softplus", vec![F(&[7])], "{beta = 2.0}"));
    v.push(c("tensor.log_sigmoid", vec![F(&[2, 5])], ""));
    v.push(c("tensor.where", vec![B(&[2, 3]), F(&[2, 3]), F(&[2, 3])], ""));
    v.push(c("tensor.where", vec![B(&[3]), F(&[2, 3]), F(&[1, 3])], ""));
    // Random operands: every order of x, lo and hi occurs, crossed bounds too.
    v.push(c("tensor.clamp_tensor", vec![F(&[2, 3]), F(&[2, 3]), F(&[2, 3])], ""));
    v.push(c("tensor.clamp_tensor", vec![F(&[2, 3]), F(&[3]), F(&[])], ""));
    v.push(c("tensor.fma", vec![F(&[2, 3]), F(&[2, 3]), F(&[2, 3])], ""));
    v.push(c("tensor.fma", vec![F(&[2, 3]), F(&[]), F(&[3])], ""));
    v.push(c("tensor.lerp", vec![F(&[2, 3]), F(&[2, 3]), F(&[2, 3])], ""));
    v.push(c("tensor.lerp", vec![F(&[2, 3]), F(&[3]), F(&[2, 1])], ""));
    v.push(c("tensor.lerp", vec![F(&[2, 3]), F(&[3])], "{weight = 0.3}"));
    v.push(c("tensor.lerp", vec![F(&[4]), F(&[4])], "{weight = 0.7}"));
    for op in [
        "tensor.neg",
        "tensor.abs",
        "tensor.exp",
        "tensor.expm1",
        "tensor.sin",
        "tensor.cos",
        "tensor.tan",
        "tensor.tanh",
        "tensor.sigmoid",
        "tensor.silu",
        "tensor.hardswish",
        "tensor.hardsigmoid",
        "tensor.mish",
        "tensor.relu",
        "tensor.erf",
        "tensor.sign",
        "tensor.floor",
        "tensor.ceil",
        "tensor.trunc",
        "tensor.round",
        "tensor.clone",
    ] {
        v.push(c(op, vec![F(&[5])], ""));
        v.push(c(op, vec![F(&[2, 3])], ""));
    }
    for op in ["tensor.log", "tensor.log1p", "tensor.sqrt", "tensor.rsqrt", "tensor.reciprocal"] {
        v.push(c(op, vec![Pos(&[5])], ""));
        v.push(c(op, vec![Pos(&[2, 3])], ""));
    }
    v.push(c("tensor.logit", vec![Unit(&[2, 3])], ""));
    // (0.1..0.9 against [0.3, 0.7]: some inputs clamped, derivative 0.)
    v.push(c("tensor.logit", vec![Unit(&[4, 5])], "{eps = 0.3}"));
    v.push(c("tensor.glu", vec![F(&[2, 3]), F(&[2, 3])], ""));
    v.push(c("tensor.bce_logits", vec![F(&[2, 3]), Unit(&[2, 3])], ""));
    v.push(c("tensor.bce_logits", vec![F(&[2, 3]), Unit(&[3])], ""));
    v.push(c("tensor.glu", vec![F(&[2, 3]), F(&[3])], ""));
    v.push(c("tensor.gelu", vec![F(&[2, 3])], ""));
    v.push(c("tensor.gelu", vec![F(&[2, 3])], "{approximate = \"tanh\"}"));
    v.push(c("tensor.clamp", vec![F(&[2, 3])], "{min = -0.3, max = 0.4}"));
    v.push(c("tensor.clamp", vec![F(&[6])], "{min = 0.1}"));
    v.push(c("tensor.fill", vec![F(&[2, 3])], "{value = 1.5}"));
    v.push(c("tensor.fill", vec![F(&[])], "{value = 0.0}"));
    v.push(c("tensor.overwrite", vec![F(&[2, 3]), F(&[2, 3])], ""));
    v.push(Case { op: "tensor.cast", args: vec![F32(&[2, 3])], attrs: "", result: Some((&[2, 3], ElemType::F64)) });
    for op in ["tensor.sum", "tensor.mean", "tensor.amax", "tensor.amin", "tensor.var"] {
        v.push(c(op, vec![F(&[2, 3, 4])], ""));
        v.push(c(op, vec![F(&[2, 3, 4])], "{dims = [1]}"));
        v.push(c(op, vec![F(&[2, 3, 4])], "{dims = [0, -1], keepdim}"));
    }
    v.push(c("tensor.var", vec![F(&[3, 4])], "{dims = [1], correction = 0}"));
    v.push(c("tensor.amax", vec![F(&[2, 3, 4])], "{nan_selects}"));
    v.push(c("tensor.amin", vec![F(&[2, 3, 4])], "{dims = [1], nan_selects}"));
    v.push(c("tensor.prod", vec![F(&[2, 3, 4])], "{dims = [1]}"));
    v.push(c("tensor.prod", vec![F(&[2, 3])], "{dims = [0, -1], keepdim}"));
    for op in ["tensor.fmod", "tensor.remainder"] {
        v.push(c(op, vec![F(&[2, 3]), Pos(&[2, 3])], ""));
        v.push(c(op, vec![F(&[2, 3]), F(&[3])], ""));
    }
    v.push(c("tensor.cumsum", vec![F(&[2, 5])], "{dim = 1}"));
    v.push(c("tensor.cumsum", vec![F(&[3, 2, 4])], "{dim = -3, reverse}"));
    v.push(c("tensor.cumsum", vec![F(&[])], "{dim = 0}"));
    for op in ["tensor.softmax", "tensor.log_softmax"] {
        v.push(c(op, vec![F(&[2, 5])], "{dim = 1}"));
        v.push(c(op, vec![F(&[3, 2, 4])], "{dim = 0}"));
    }
    v.push(c("tensor.layer_norm", vec![F(&[3, 4])], "{normalized_ndim = 1}"));
    v.push(c("tensor.layer_norm", vec![F(&[2, 3, 4]), F(&[3, 4]), F(&[3, 4])], "{normalized_ndim = 2}"));
    v.push(c("tensor.layer_norm", vec![F(&[2, 5]), F(&[5]), F(&[5])], "{normalized_ndim = 1, eps = 0.001}"));
    v.push(c("tensor.mm", vec![F(&[2, 3]), F(&[3, 4])], ""));
    v.push(c("tensor.bmm", vec![F(&[2, 2, 3]), F(&[2, 3, 2])], ""));
    v.push(c("tensor.matmul", vec![F(&[3]), F(&[3])], ""));
    v.push(c("tensor.matmul", vec![F(&[2, 3]), F(&[3])], ""));
    v.push(c("tensor.matmul", vec![F(&[3]), F(&[3, 2])], ""));
    v.push(c("tensor.matmul", vec![F(&[2, 1, 2, 3]), F(&[3, 3, 2])], ""));
    v.push(c("tensor.linear", vec![F(&[2, 3]), F(&[4, 3])], ""));
    v.push(c("tensor.linear", vec![F(&[2, 2, 3]), F(&[4, 3]), F(&[4])], ""));
    v.push(c("tensor.linear", vec![F(&[3]), F(&[2, 3]), F(&[2])], ""));
    // Convolutions: depthwise with a bias, dense grouped with stride and
    // dilation, and the derivative ops themselves (double backward).
    v.push(c("tensor.conv", vec![F(&[2, 3, 5, 6]), F(&[3, 1, 3, 3]), F(&[3])], "{padding = [1, 1], groups = 3}"));
    v.push(c(
        "tensor.conv",
        vec![F(&[1, 4, 7]), F(&[6, 2, 3])],
        "{stride = [2], padding = [2], dilation = [2], groups = 2}",
    ));
    v.push(c(
        "tensor.conv_input_grad",
        vec![F(&[1, 2, 3, 3]), F(&[2, 1, 3, 3])],
        "{stride = [2, 2], padding = [1, 1], groups = 2, input_shape = [1, 2, 5, 6]}",
    ));
    v.push(c(
        "tensor.conv_weight_grad",
        vec![F(&[2, 4, 4]), F(&[2, 2, 7])],
        "{stride = [2], padding = [1], dilation = [2], kernel_size = [2]}",
    ));
    // Pooling: max with padding, with dilation in ceil mode; average with
    // clipped divisors and with an override; both gradient ops (double
    // backward).
    v.push(c("tensor.max_pool", vec![F(&[2, 3, 5, 6])], "{kernel_size = [3, 3], stride = [2, 2], padding = [1, 1]}"));
    v.push(c("tensor.max_pool", vec![F(&[1, 2, 9])], "{kernel_size = [3], stride = [2], dilation = [2], ceil_mode}"));
    v.push(c("tensor.max_pool_grad", vec![F(&[1, 2, 2, 3]), I(&[1, 2, 2, 3], 20)], "{input_shape = [1, 2, 4, 5]}"));
    v.push(c(
        "tensor.avg_pool",
        vec![F(&[2, 2, 5, 6])],
        "{kernel_size = [3, 2], stride = [2, 2], padding = [1, 1], ceil_mode, count_include_pad = false}",
    ));
    v.push(c("tensor.avg_pool", vec![F(&[1, 2, 7])], "{kernel_size = [3], divisor_override = 2}"));
    v.push(c(
        "tensor.avg_pool_grad",
        vec![F(&[1, 2, 3, 3])],
        "{kernel_size = [3, 3], stride = [2, 2], padding = [1, 1], input_shape = [1, 2, 5, 6]}",
    ));
    // Attention: plain, and causal with a boolean mask and a scale.
    v.push(c("tensor.attention", vec![F(&[2, 3, 4]), F(&[2, 5, 4]), F(&[2, 5, 3])], ""));
    v.push(c(
        "tensor.attention",
        vec![F(&[1, 2, 4, 3]), F(&[1, 2, 4, 3]), F(&[1, 2, 4, 2]), B(&[2, 1, 4])],
        "{scale = 0.7, causal}",
    ));
    v.push(c("tensor.embedding", vec![F(&[5, 3]), I(&[4], 5)], ""));
    v.push(c("tensor.embedding", vec![F(&[4, 2]), I(&[2, 3], 4)], ""));
    v.push(c("tensor.gather", vec![F(&[3, 4]), I(&[3, 2], 4)], "{dim = 1}"));
    v.push(c("tensor.gather", vec![F(&[3, 4]), I(&[2, 4], 3)], "{dim = 0}"));
    v.push(c("tensor.index_select", vec![F(&[4, 3]), I(&[5], 4)], "{dim = 0}"));
    v.push(c("tensor.index_select", vec![F(&[2, 4]), I(&[3], 4)], "{dim = 1}"));
    v.push(c("tensor.scatter_add", vec![F(&[3, 4]), I(&[3, 2], 4), F(&[3, 2])], "{dim = 1}"));
    v.push(c("tensor.index_put", vec![F(&[5, 2]), I(&[4], 5), F(&[4, 2])], "{accumulate}"));
    v.push(c("tensor.index_put", vec![F(&[5, 2]), Unique(&[3], 5), F(&[3, 2])], ""));
    v.push(c("tensor.cat", vec![F(&[2, 3]), F(&[1, 3])], "{dim = 0}"));
    v.push(c("tensor.cat", vec![F(&[2, 1]), F(&[2, 3]), F(&[2, 2])], "{dim = -1}"));
    // Views (value semantics: pure functions of their operand).
    v.push(c("view.view", vec![F(&[2, 3])], "{shape = [3, 2]}"));
    v.push(c("view.reshape", vec![F(&[2, 3, 2])], "{shape = [-1, 4]}"));
    v.push(c("view.permute", vec![F(&[2, 3, 4])], "{dims = [2, 0, 1]}"));
    v.push(c("view.transpose", vec![F(&[2, 3, 4])], "{dim0 = 0, dim1 = 2}"));
    v.push(c("view.t", vec![F(&[2, 3])], ""));
    v.push(c("view.expand", vec![F(&[3, 1])], "{shape = [2, 3, 4]}"));
    v.push(c("view.slice", vec![F(&[5, 3])], "{dim = 0, start = 1, end = 5, step = 2}"));
    v.push(c("view.select", vec![F(&[3, 4])], "{dim = 1, index = 2}"));
    v.push(c("view.squeeze", vec![F(&[2, 1, 3])], "{dim = 1}"));
    v.push(c("view.unsqueeze", vec![F(&[2, 3])], "{dim = -1}"));
    v.push(c("view.diagonal", vec![F(&[3, 4])], "{offset = 1}"));
    v.push(c("view.as_strided", vec![F(&[3, 4])], "{size = [2, 2], stride = [4, 1], offset = 5}"));
    v.push(c("view.as_strided", vec![F(&[6])], "{size = [3, 3], stride = [1, 1], offset = 0}"));
    v.push(c("view.unbind", vec![F(&[3, 2])], "{dim = 0}"));
    v.push(c("view.split", vec![F(&[5, 2])], "{dim = 0, sizes = [2, 3]}"));
    v.push(c("view.alias", vec![F(&[2, 2])], ""));
    v.push(c("view.slice_scatter", vec![F(&[4, 3]), F(&[2, 3])], "{dim = 0, start = 1, end = 3}"));
    v.push(c("view.select_scatter", vec![F(&[3, 4]), F(&[3])], "{dim = 1, index = 0}"));
    v.push(c("view.diagonal_scatter", vec![F(&[3, 3]), F(&[3])], ""));
    v.push(c("view.as_strided_scatter", vec![F(&[3, 3]), F(&[2, 2])], "{size = [2, 2], stride = [3, 1], offset = 1}"));
    // Random: the gradient goes through the mask drawn in the forward.
    v.push(c("rng.dropout", vec![F(&[4, 5])], "{p = 0.4}"));
    v.push(c("rng.dropout", vec![F(&[6])], "{p = 0.3, train = false}"));
    v
}

/// Deterministic values: xorshift.
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// The one-op function of `case` as text.
fn build(case: &Case) -> Result<String, String> {
    let mut ctx = Context::new();
    let module = parse_module(&mut ctx, "module {}", &ParseOptions { file: "case".into(), first_line: 1 })
        .map_err(|d| d.message)?;
    let types: Vec<Type> = case
        .args
        .iter()
        .map(|a| match a {
            F(s) | Pos(s) | Unit(s) => ctx.tensor_type(s, ElemType::F64),
            F32(s) => ctx.tensor_type(s, ElemType::F32),
            I(s, _) | Unique(s, _) => ctx.tensor_type(s, ElemType::I64),
            B(s) => ctx.tensor_type(s, ElemType::I1),
        })
        .collect();
    let attrs: Vec<NamedAttr> = if case.attrs.is_empty() {
        Vec::new()
    } else {
        let a = aot::ir::parser::parse_attr_str(&mut ctx, case.attrs).map_err(|d| d.message)?;
        match ctx.attr_data(a) {
            AttrData::Dict(v) => v.clone(),
            _ => return Err("attributes must be a dictionary".into()),
        }
    };
    let body = ctx.single_block(module, 0).ok_or("module body")?;
    let mut rw = Rewriter::new(&mut ctx);
    let region = rw.create_region();
    let block = rw.create_block(region, &types);
    let args = rw.block_args(block).to_vec();
    let fty = rw.intern_type(TypeData::Function { inputs: types.clone(), results: vec![] });
    let mut st = OperationState::new(rw.op_name_id("func.func"), rw.unknown_loc());
    let name = rw.str_attr("main");
    let ft = rw.type_attr(fty);
    st.attrs.push(NamedAttr { name: rw.sym("sym_name"), value: name });
    st.attrs.push(NamedAttr { name: rw.sym("function_type"), value: ft });
    st.regions.push(region);
    rw.set_insertion_point(InsertPoint::End(body));
    let func = rw.create(st);
    rw.set_insertion_point(InsertPoint::End(block));
    let results: Vec<Value> = match case.result {
        Some((shape, e)) => {
            let t = rw.tensor_type(shape, e);
            let op = rw.build_typed(case.op, &args, &[], &[t]);
            rw.results(op).to_vec()
        }
        None => {
            let op = rw.build_named(case.op, &args, &attrs).map_err(|d| d.message)?;
            rw.results(op).to_vec()
        }
    };
    rw.build_typed("func.return", &results, &[], &[]);
    aot::dialects::func::FuncView { op: func }.sync_function_type(&mut rw);
    verify(&ctx, module).map_err(|d| d[0].message.clone())?;
    Ok(print_op(&ctx, module, PrintOptions::default()))
}

fn inputs(case: &Case, seed: u64) -> InputSpec {
    let mut g = Gen(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let mut spec = InputSpec::default();
    for a in &case.args {
        let (shape, e, rg): (&[i64], ElemType, bool) = match a {
            F(s) | Pos(s) | Unit(s) => (s, ElemType::F64, true),
            F32(s) => (s, ElemType::F32, true),
            I(s, _) | Unique(s, _) => (s, ElemType::I64, false),
            B(s) => (s, ElemType::I1, false),
        };
        let n: i64 = shape.iter().product();
        let data: Vec<f64> = match a {
            F(_) => (0..n).map(|_| g.next() * 2.0 - 1.0).collect(),
            F32(_) => (0..n).map(|_| ((g.next() * 2.0 - 1.0) * 64.0).round() / 64.0).collect(),
            Pos(_) => (0..n).map(|_| 0.5 + g.next()).collect(),
            Unit(_) => (0..n).map(|_| 0.1 + 0.8 * g.next()).collect(),
            I(_, k) => (0..n).map(|_| (g.next() * *k as f64).floor()).collect(),
            Unique(_, k) => {
                let mut perm: Vec<f64> = (0..*k).map(|x| x as f64).collect();
                for i in (1..perm.len()).rev() {
                    perm.swap(i, (g.next() * (i + 1) as f64) as usize);
                }
                perm.truncate(n as usize);
                perm
            }
            B(_) => (0..n).map(|_| (g.next() < 0.5) as i64 as f64).collect(),
        };
        spec.args.push(ArgSpec::Own {
            dtype: e,
            shape: shape.to_vec(),
            data: data.into(),
            requires_grad: rg,
            non_leaf: false,
        });
    }
    spec
}

fn check(case: &Case, pipeline: &str) -> Result<Vec<String>, String> {
    let text = build(case)?;
    let spec = inputs(case, case.op.len() as u64 * 31 + case.args.len() as u64);
    let mut sources = SourceMgr::new();
    sources.add("case", Arc::from(text.as_str()));
    let parse = |ctx: &mut Context| -> Result<(Op, Op), String> {
        let m =
            parse_module(ctx, &text, &ParseOptions { file: "case".into(), first_line: 1 }).map_err(|d| d.message)?;
        let f = aot::dialects::func::entry_func(ctx, m, None)?.op;
        Ok((m, f))
    };
    // Random tangents for the float outputs.
    let mut g = Gen(7);
    let mut ctx = Context::new();
    let (_, f) = parse(&mut ctx)?;
    let eager = run_eager(&ctx, &sources, f, &spec, 3, false).map_err(|e| e.to_string())?;
    let tangents = TangentSpec {
        outputs: eager
            .outputs
            .iter()
            .map(|o| o.dtype().is_float().then(|| (0..o.numel()).map(|_| g.next() * 2.0 - 1.0).collect()))
            .collect(),
        mutated_args: Vec::new(),
        ..Default::default()
    };
    let grads = fd::finite_differences(&ctx, &sources, f, &spec, &tangents, &eager, 3).map_err(|e| e.to_string())?;
    let mut expected = eager.to_json();
    expected["grads"] = Json::Array(grads.grads);
    let mut ctx2 = Context::new();
    let (m2, f2) = parse(&mut ctx2)?;
    let opts = CompileOptions { pipeline: pipeline.into(), backend: Backend::Interp, keep_ir: false, progress: false };
    let r = run_compiled(ctx2, &sources, m2, f2, &spec, &opts, Calls { seed: 3, count: 1, grad: Some(&tangents) })
        .map_err(|e| e.to_string())?;
    let mut got = outputs_json(&r.outputs, &r.args);
    got["grads"] = r.grads.map(|g| g.0).unwrap_or(Json::Null);
    Ok(compare(
        &got,
        &expected,
        CompareOptions { grads: true, slack: 1.0, all_layouts: false, hidden_output_aliasing: true },
    ))
}

#[test]
fn every_rule_matches_finite_differences() {
    aot::init();
    let mut failures = Vec::new();
    let mut covered = BTreeSet::new();
    for case in cases() {
        covered.insert(case.op);
        for pipeline in [
            "aot-train",
            "builtin.module(func.func(functionalize,collect-metadata,dedupe,synthetic-base{training=true},rng-functionalize,joint),partition{strategy=min-cut})",
        ] {
            match check(&case, pipeline) {
                Ok(d) if d.is_empty() => {}
                Ok(d) => failures.push(format!("{} {}: {}", case.op, case.attrs, d.join("; "))),
                Err(e) => failures.push(format!("{} {}: {e}", case.op, case.attrs)),
            }
        }
    }
    // Every op with a derivative rule is exercised.
    let untested: Vec<&str> = aot::ir::registry::registered_ops()
        .values()
        .filter(|d| d.interface::<aot::dialects::autodiff::Vjp>().is_some() && !covered.contains(d.name))
        .map(|d| d.name)
        // (The collectives need a process group: tests/suite/dist.rs checks
        // their gradients against the chain rule over every rank.)
        .filter(|n| !["rng.philox_dropout"].contains(n) && !n.starts_with("dist."))
        .collect();
    assert!(untested.is_empty(), "derivative rules without a gradient check: {untested:?}");
    assert!(failures.is_empty(), "{} gradient checks failed:\n{}", failures.len(), failures.join("\n"));
}

/// Every differentiable op has a derivative rule.
#[test]
fn differentiable_ops_have_rules() {
    aot::init();
    let missing: Vec<&str> = aot::ir::registry::registered_ops()
        .values()
        .filter(|d| d.has(Traits::DIFFERENTIABLE) && d.interface::<aot::dialects::autodiff::Vjp>().is_none())
        .map(|d| d.name)
        .collect();
    assert!(missing.is_empty(), "differentiable ops without a derivative rule: {missing:?}");
    // A rule on an op autograd never differentiates would be dead code.
    let dead: Vec<&str> = aot::ir::registry::registered_ops()
        .values()
        .filter(|d| !d.has(Traits::DIFFERENTIABLE) && d.interface::<aot::dialects::autodiff::Vjp>().is_some())
        .map(|d| d.name)
        .collect();
    assert!(dead.is_empty(), "derivative rules on non-differentiable ops: {dead:?}");
}
