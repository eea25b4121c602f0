//! Tensor subclasses in the embedding API: compile a function that takes or
//! makes subclass values (`!aot.subclass<@C, T>`) for example arguments,
//! then call it with PyTorch's subclass semantics.
//!
//! ```
//! use aot::subclass::{compile, Value};
//! use aot::{Module, Options, Tensor};
//!
//! let module = Module::parse(
//!     r#"aot.subclass @TwoTensor {inner = ["a", "b"]}
//!        func.func @f(%x: !aot.subclass<@TwoTensor, tensor<2xf32>>) -> !aot.subclass<@TwoTensor, tensor<2xf32>> {
//!          %y = tensor.mul %x, %x : !aot.subclass<@TwoTensor, tensor<2xf32>>
//!          return %y : !aot.subclass<@TwoTensor, tensor<2xf32>>
//!        }"#,
//!     "two.mlir",
//! )?;
//! let a = Tensor::from_slice::<f32>(&[1.0, 2.0], &[2])?;
//! let b = Tensor::from_slice::<f32>(&[3.0, 4.0], &[2])?;
//! a.set_requires_grad(true);
//! b.set_requires_grad(true);
//! let x = Value::subclass("TwoTensor", vec![Value::Tensor(a), Value::Tensor(b)]);
//! let mut f = compile(&module, None, &[x.clone()], &Options::training())?;
//! let (outs, saved) = f.forward(&[x])?;
//! assert_eq!(outs[0].inner()[1].tensor().unwrap().to_vec::<f32>()?, vec![9.0, 16.0]);
//! // A dense tangent for a subclass output is used for every component.
//! let ones = Tensor::from_slice::<f32>(&[1.0, 1.0], &[2])?;
//! let grads = f.backward(saved, &[Some(Value::Tensor(ones))])?;
//! let g = grads[0].as_ref().unwrap();
//! assert_eq!(g.inner()[0].tensor().unwrap().to_vec::<f32>()?, vec![2.0, 4.0]);
//! # Ok::<(), aot::Error>(())
//! ```
//!
//! The function is flattened (`flatten-subclasses`) and its dense function
//! compiled for the inner tensors' convention, so guards check every inner
//! tensor's layout, aliasing and `requires_grad`; this wrapper checks the
//! class and the number of inner tensors of every argument. Inner tensors
//! are bound zero-copy: in-place mutations of a subclass argument land in
//! its inner tensors, and outputs that alias arguments are views of their
//! inner tensors. A subclass value requires grad when its inner tensors do
//! (they must agree).

use crate::function::{compile_entry, Error, Function, Module, Options};
use aot_passes::flatten_subclasses::{SubclassCreation, SubclassPlan};
use aot_runtime::compiled::ForwardState;
use aot_runtime::Tensor;

/// An argument, result or gradient: a dense tensor or a subclass value.
#[derive(Clone, Debug)]
pub enum Value {
    Tensor(Tensor),
    Subclass { class: String, inner: Vec<Value> },
}

impl Value {
    pub fn subclass(class: &str, inner: Vec<Value>) -> Value {
        Value::Subclass { class: class.to_string(), inner }
    }

    /// The tensor, if this is a dense one.
    pub fn tensor(&self) -> Option<&Tensor> {
        match self {
            Value::Tensor(t) => Some(t),
            Value::Subclass { .. } => None,
        }
    }

    /// The inner values of a subclass value (empty for a dense tensor).
    pub fn inner(&self) -> &[Value] {
        match self {
            Value::Tensor(_) => &[],
            Value::Subclass { inner, .. } => inner,
        }
    }

    /// The class of a subclass value.
    pub fn class(&self) -> Option<&str> {
        match self {
            Value::Tensor(_) => None,
            Value::Subclass { class, .. } => Some(class),
        }
    }

    /// The dense tensors it flattens to, in order.
    pub fn leaves(&self) -> Vec<Tensor> {
        match self {
            Value::Tensor(t) => vec![t.clone()],
            Value::Subclass { inner, .. } => inner.iter().flat_map(Value::leaves).collect(),
        }
    }
}

/// A compiled function over subclass values.
pub struct SubclassFunction {
    inner: Function,
    plan: SubclassPlan,
}

/// Flattens the module if `func` has subclass values (`flatten-subclasses`)
/// and returns the plan that says where each user argument and result lives
/// among the dense ones; none when `func` has no subclass values. Errors
/// are rendered against `sources`.
pub fn flatten_entry(
    ctx: &mut aot_ir::Context,
    sources: &aot_ir::SourceMgr,
    module: aot_ir::Op,
    func: aot_ir::Op,
) -> Result<Option<SubclassPlan>, String> {
    if !aot_passes::flatten_subclasses::has_subclass_values(ctx, func) {
        return Ok(None);
    }
    let mut pm =
        aot_ir::pass::PassManager::parse("builtin.module(func.func(flatten-subclasses))").map_err(|e| e.to_string())?;
    pm.run(ctx, module, &mut std::io::sink())
        .map_err(|f| f.diagnostics.iter().map(|d| d.render(ctx, sources)).collect::<String>())?;
    SubclassPlan::of(ctx, func)
}

/// Compiles function `name` of `module` (none: its entry) for the
/// convention of `example_args`.
pub fn compile(
    module: &Module,
    name: Option<&str>,
    example_args: &[Value],
    opts: &Options,
) -> Result<SubclassFunction, Error> {
    let (mut ctx, m, sources) = module.parsed()?;
    let name = name.map(|n| n.strip_prefix('@').unwrap_or(n));
    let func = aot_dialects::func::entry_func(&ctx, m, name).map_err(Error::Signature)?.op;
    let plan = flatten_entry(&mut ctx, &sources, m, func).map_err(Error::Compile)?.ok_or_else(|| {
        Error::Signature("the function has no subclass values: compile it with Module::compile".into())
    })?;
    let dense = flatten_args(&plan, example_args)?;
    plan.check_shared(&crate::function::convention_of(&mut ctx, &dense)?).map_err(Error::Signature)?;
    let inner = compile_entry(ctx, m, func, &sources, &dense, opts)?;
    Ok(SubclassFunction { inner, plan })
}

/// The dense arguments of `args`, checked against the plan.
fn flatten_args(plan: &SubclassPlan, args: &[Value]) -> Result<Vec<Tensor>, Error> {
    if args.len() != plan.inputs.len() {
        return Err(Error::Signature(format!(
            "the function takes {} arguments, got {}",
            plan.inputs.len(),
            args.len()
        )));
    }
    fn check(e: &SubclassCreation, v: &Value, what: &str) -> Result<(), Error> {
        match (e.is_dense(), v) {
            (true, Value::Tensor(_)) => Ok(()),
            (true, Value::Subclass { class, .. }) => {
                Err(Error::Signature(format!("{what}: the function takes a dense tensor, got a @{class} value")))
            }
            (false, Value::Tensor(_)) => {
                Err(Error::Signature(format!("{what}: the function takes a @{} value, got a dense tensor", e.class)))
            }
            (false, Value::Subclass { class, inner }) => {
                if *class != e.class {
                    return Err(Error::Signature(format!(
                        "{what}: the function takes a @{} value, got a @{class} value",
                        e.class
                    )));
                }
                if inner.len() != e.inner.len() {
                    return Err(Error::Signature(format!(
                        "{what}: @{class} has {} inner tensors, got {}",
                        e.inner.len(),
                        inner.len()
                    )));
                }
                for (j, (ie, iv)) in e.inner.iter().zip(inner).enumerate() {
                    check(ie, iv, &format!("{what} inner tensor {j}"))?;
                }
                let leaves = v.leaves();
                if leaves.iter().any(|t| t.requires_grad() != leaves[0].requires_grad()) {
                    return Err(Error::Signature(format!(
                        "{what}: the inner tensors of a @{class} value must all require grad or none"
                    )));
                }
                Ok(())
            }
        }
    }
    let mut out = Vec::new();
    for (i, (e, v)) in plan.inputs.iter().zip(args).enumerate() {
        check(e, v, &format!("argument {i}"))?;
        out.extend(v.leaves());
    }
    // Replicas of dense arguments read by components, one per component:
    // for an argument that requires grad, fresh leaves with its values
    // (only read), so each component's gradient is its own; otherwise the
    // tensor itself (zero-copy, a duplicate the graph only reads).
    for r in &plan.replicas {
        let t = out[plan.inputs[r.arg].start].clone();
        for _ in 0..r.creation.count {
            if t.requires_grad() {
                let c = t.deep_clone();
                c.set_requires_grad(true);
                c.set_leaf(true);
                out.push(c);
            } else {
                out.push(t.clone());
            }
        }
    }
    Ok(out)
}

/// Regroups dense values into the values `entries` describe.
fn group(entries: &[SubclassCreation], dense: &[Tensor]) -> Vec<Value> {
    fn one(e: &SubclassCreation, dense: &[Tensor]) -> Value {
        if e.is_dense() {
            return Value::Tensor(dense[e.start].clone());
        }
        Value::Subclass { class: e.class.clone(), inner: e.inner.iter().map(|i| one(i, dense)).collect() }
    }
    entries.iter().map(|e| one(e, dense)).collect()
}

impl SubclassFunction {
    /// Calls the function: mutations land in the arguments' inner tensors,
    /// aliased outputs are views of them.
    pub fn call(&mut self, args: &[Value]) -> Result<Vec<Value>, Error> {
        let dense = flatten_args(&self.plan, args)?;
        let outs = self.inner.call(&dense)?;
        Ok(group(&self.plan.outputs, &outs))
    }

    /// Calls the function and keeps what its backward needs.
    pub fn forward(&mut self, args: &[Value]) -> Result<(Vec<Value>, ForwardState), Error> {
        let dense = flatten_args(&self.plan, args)?;
        let (outs, state) = self.inner.forward(&dense)?;
        Ok((group(&self.plan.outputs, &outs), state))
    }

    /// The backward of one forward call. The tangent of a subclass output
    /// is a subclass value of its class, or a dense tensor that is used for
    /// every component (PyTorch's coercion); none: the default of
    /// [`Function::backward`] per inner tensor. Returns one gradient per
    /// argument (a subclass value for a subclass argument).
    pub fn backward(&mut self, state: ForwardState, tangents: &[Option<Value>]) -> Result<Vec<Option<Value>>, Error> {
        let n = self.plan.outputs.last().map_or(0, |e| e.start + e.count);
        let mut dense: Vec<Option<Tensor>> = vec![None; n];
        for (k, (e, t)) in self.plan.outputs.iter().zip(tangents).enumerate() {
            let Some(t) = t else { continue };
            fill(e, t, k, &mut dense)?;
        }
        let g = self.inner.backward(state, &dense)?;
        let grads = g.args;
        fn one(e: &SubclassCreation, grads: &[Option<Tensor>]) -> Option<Value> {
            if e.is_dense() {
                return grads.get(e.start).cloned().flatten().map(Value::Tensor);
            }
            if grads.get(e.range()).is_none_or(|g| g.iter().all(Option::is_none)) {
                return None;
            }
            let inner: Option<Vec<Value>> = e.inner.iter().map(|i| one(i, grads)).collect();
            Some(Value::Subclass { class: e.class.clone(), inner: inner? })
        }
        let mut out: Vec<Option<Value>> = self.plan.inputs.iter().map(|e| one(e, &grads)).collect();
        // A replicated dense argument: component k is its dense gradient
        // plus replica k's.
        for r in &self.plan.replicas {
            let dense = grads.get(self.plan.inputs[r.arg].start).cloned().flatten();
            let leaves = grads.get(r.creation.range()).unwrap_or(&[]);
            if dense.is_none() && leaves.iter().all(Option::is_none) {
                out[r.arg] = None;
                continue;
            }
            let summed: Vec<Option<Tensor>> = (0..grads.len())
                .map(|d| {
                    if !r.creation.range().contains(&d) {
                        return None;
                    }
                    let like = grads[d].as_ref().or(dense.as_ref())?;
                    let mut v =
                        grads[d].as_ref().map(|g| g.read_f64()).unwrap_or_else(|| vec![0.0; like.numel() as usize]);
                    if let Some(g0) = &dense {
                        for (x, b) in v.iter_mut().zip(g0.read_f64()) {
                            *x += b;
                        }
                    }
                    Some(Tensor::from_f64(like.dtype(), &like.sizes(), &v, like.dtype()))
                })
                .collect();
            out[r.arg] = one(&r.creation, &summed);
        }
        Ok(out)
    }

    /// Whether the function was compiled with a backward.
    pub fn has_backward(&self) -> bool {
        self.inner.has_backward()
    }

    /// The wrapping plan (`aot.subclass_plan`).
    pub fn plan(&self) -> &SubclassPlan {
        &self.plan
    }

    /// Reseeds the generator the function's random ops draw from.
    pub fn manual_seed(&mut self, seed: u64) {
        self.inner.manual_seed(seed);
    }
}

fn fill(e: &SubclassCreation, t: &Value, k: usize, dense: &mut [Option<Tensor>]) -> Result<(), Error> {
    match (e.is_dense(), t) {
        (true, Value::Tensor(t)) => {
            dense[e.start] = Some(t.clone());
            Ok(())
        }
        (true, Value::Subclass { class, .. }) => Err(Error::Convention(format!(
            "tangent of output {k}: the output is a dense tensor, but the tangent is a @{class} value"
        ))),
        // Coercion: a dense tangent is every component's.
        (false, Value::Tensor(t)) => {
            for d in e.range() {
                dense[d] = Some(t.clone());
            }
            Ok(())
        }
        (false, Value::Subclass { class, inner }) => {
            if *class != e.class || inner.len() != e.inner.len() {
                return Err(Error::Convention(format!(
                    "tangent of output {k}: the output is a @{} value with {} inner tensors, but the tangent is a @{class} value with {}",
                    e.class,
                    e.inner.len(),
                    inner.len()
                )));
            }
            for (ie, iv) in e.inner.iter().zip(inner) {
                fill(ie, iv, k, dense)?;
            }
            Ok(())
        }
    }
}
