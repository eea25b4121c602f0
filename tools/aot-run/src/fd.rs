//! Gradients by central finite differences of the eager forward, computed
//! in f64: the independent oracle for every derivative rule.
//!
//! The objective is the contract's: ⟨outputs, tangents⟩ over outputs that
//! require grad plus ⟨final value, tangent⟩ over arguments whose data
//! mutation autograd sees. Each element of each argument that requires grad
//! is perturbed by ±h in the input file, the program is re-run from scratch
//! (same random seed), and the objective is differenced. Views of a
//! differentiable base are differentiated through the base storage
//! (`storage_grads`). This is the plain derivative: programs that use
//! `aot.no_grad` or `view.detach` have PyTorch gradients that deliberately
//! differ from it.

use crate::json::{grad_json, ArgSpec, InputSpec, TangentSpec, TangentTarget, Values};
use crate::{run_eager, EagerRun, RunError};
use aot_ir::{Context, Op, SourceMgr};
use aot_runtime::tensor::strided_indices;
use serde_json::Value as Json;

/// Gradients for the output file.
pub struct Gradients {
    /// One per argument: null, or `{dtype, shape, data}`.
    pub grads: Vec<Json>,
    /// One per listed storage: the gradient w.r.t. a differentiable base, else null.
    pub storage_grads: Vec<Json>,
}

struct Objective<'a> {
    ctx: &'a Context,
    sources: &'a SourceMgr,
    func: Op,
    seed: u64,
    outputs: Vec<(usize, Vec<f64>)>,
    mutated: Vec<(usize, Vec<f64>)>,
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

impl<'a> Objective<'a> {
    /// The contract's objective for `func` at the eager run `base`.
    fn new(
        ctx: &'a Context,
        sources: &'a SourceMgr,
        func: Op,
        tangents: &TangentSpec,
        base: &EagerRun,
        seed: u64,
    ) -> Result<Self, RunError> {
        let mutated_args = base.autograd_mutated_args();
        tangents.check_counts(base.outputs.len(), mutated_args.len())?;
        let mut outputs = Vec::new();
        for (k, o) in base.outputs.iter().enumerate() {
            let shape = o.sizes();
            let differentiable = o.requires_grad() && o.dtype().is_float();
            let target = TangentTarget { dtype: o.dtype(), shape: &shape, differentiable };
            if let Some(t) = tangents.output(k, target)? {
                outputs.push((k, t));
            }
        }
        let mut mutated = Vec::new();
        for (j, &i) in mutated_args.iter().enumerate() {
            let shape = base.args[i].sizes();
            let target = TangentTarget { dtype: base.args[i].dtype(), shape: &shape, differentiable: true };
            if let Some(t) = tangents.mutated(j, target)? {
                mutated.push((i, t));
            }
        }
        Ok(Objective { ctx, sources, func, seed, outputs, mutated })
    }
}

impl Objective<'_> {
    fn eval(&self, spec: &InputSpec) -> Result<f64, RunError> {
        let r = run_eager(self.ctx, self.sources, self.func, spec, self.seed, true)?;
        let mut l = 0.0;
        for (k, t) in &self.outputs {
            l += dot(&r.outputs[*k].read_f64(), t);
        }
        for (i, t) in &self.mutated {
            l += dot(&r.args[*i].read_f64(), t);
        }
        Ok(l)
    }

    /// d objective / d x at each of the positions `set` perturbs. The
    /// positions are independent re-runs of the program, so they are split
    /// over the cores in contiguous runs (each thread perturbs its own copy
    /// of the inputs); the result is the same, element for element, as one
    /// thread's, and the first error in position order is the one reported.
    fn differentiate(
        &self,
        spec: &InputSpec,
        n: usize,
        value: impl Fn(&InputSpec, usize) -> f64 + Sync,
        set: impl Fn(&mut InputSpec, usize, f64) + Sync,
    ) -> Result<Vec<f64>, RunError> {
        let positions = |range: std::ops::Range<usize>| -> Result<Vec<f64>, RunError> {
            let mut g = Vec::with_capacity(range.len());
            let mut work = spec.clone();
            for j in range {
                let x = value(spec, j);
                let h = 1e-6 * x.abs().max(1.0);
                set(&mut work, j, x + h);
                let lp = self.eval(&work)?;
                set(&mut work, j, x - h);
                let lm = self.eval(&work)?;
                set(&mut work, j, x);
                g.push((lp - lm) / (2.0 * h));
            }
            Ok(g)
        };
        let threads = std::thread::available_parallelism().map_or(1, |t| t.get()).min(n / PER_THREAD).max(1);
        if threads == 1 {
            return positions(0..n);
        }
        let chunk = n.div_ceil(threads);
        let parts: Vec<Result<Vec<f64>, RunError>> = std::thread::scope(|s| {
            let workers: Vec<_> =
                (0..n).step_by(chunk).map(|lo| s.spawn(move || positions(lo..(lo + chunk).min(n)))).collect();
            workers.into_iter().map(|w| w.join().unwrap_or_else(|p| std::panic::resume_unwind(p))).collect()
        });
        let mut g = Vec::with_capacity(n);
        for part in parts {
            g.extend(part?);
        }
        Ok(g)
    }
}

/// Positions a thread takes at least before the work is split: a re-run of
/// a small program costs microseconds, less than a thread start.
const PER_THREAD: usize = 8;

/// Finite-difference gradients of `func` at `spec`; `base` is the eager run
/// at `spec` (it decides which outputs and mutated arguments count).
pub fn finite_differences(
    ctx: &Context,
    sources: &SourceMgr,
    func: Op,
    spec: &InputSpec,
    tangents: &TangentSpec,
    base: &EagerRun,
    seed: u64,
) -> Result<Gradients, RunError> {
    let obj = Objective::new(ctx, sources, func, tangents, base, seed)?;

    let mut grads = vec![Json::Null; spec.args.len()];
    for (i, a) in spec.args.iter().enumerate() {
        match a {
            ArgSpec::Own { dtype, shape, data, requires_grad: true, .. } => {
                let g = obj.differentiate(
                    spec,
                    data.len(),
                    |s, j| match &s.args[i] {
                        ArgSpec::Own { data, .. } => data.get_f64(j),
                        _ => unreachable!(),
                    },
                    |s, j, x| {
                        if let ArgSpec::Own { data, .. } = &mut s.args[i] {
                            data.set_f64(j, x);
                        }
                    },
                )?;
                grads[i] = grad_json(*dtype, shape, &g);
            }
            ArgSpec::View { storage, size, stride, offset, requires_grad: true, .. } => {
                let s = *storage;
                let idx = strided_indices(size, stride, *offset);
                // A self-overlapping leaf counts too: PyTorch's gradient is
                // per element, a perturbation of its storage hits several.
                let overlaps = aot_runtime::overlap::reaches_an_element_twice(size, stride, *offset)
                    || spec.args.iter().enumerate().any(|(k, other)| match other {
                        ArgSpec::View { storage: s2, size: z2, stride: t2, offset: o2, .. } if k != i && *s2 == s => {
                            strided_indices(z2, t2, *o2).iter().any(|x| idx.contains(x))
                        }
                        _ => false,
                    });
                let g = if !overlaps {
                    obj.differentiate(
                        spec,
                        idx.len(),
                        |sp, j| sp.storages[s].data.get_f64(idx[j]),
                        |sp, j, x| sp.storages[s].data.set_f64(idx[j], x),
                    )?
                } else {
                    // This leaf shares elements with other arguments. When the
                    // program never writes the storage, the sharing is
                    // unobservable and the leaf may own a private copy; a
                    // write would be an untracked mutation of the leaf, whose
                    // PyTorch gradient is no derivative of the inputs.
                    let written = base.roots[s].storage().len() != spec.storages[s].data.len()
                        || base.roots[s].storage().buf().len() != spec.storages[s].data.len()
                        || (0..spec.storages[s].data.len()).any(|j| {
                            let now = base.roots[s].storage().buf().get_f64(j);
                            // The storage holds the input rounded to its dtype.
                            let was =
                                aot_runtime::buffer::round_to(spec.storages[s].dtype, spec.storages[s].data.get_f64(j));
                            !(now == was || (now.is_nan() && was.is_nan()))
                        });
                    if written {
                        return Err(RunError::input(format!(
                            "finite differences cannot separate argument {i} from the arguments it overlaps: the program writes their shared storage {s}"
                        )));
                    }
                    // The copy does not require grad: laid out afresh, it
                    // can be viewed where the argument was copied (a reshape
                    // of an expanded argument), and autograd's checks on
                    // those views (an in-place write to a view of a leaf)
                    // are not the program's: its run at `spec` made them.
                    let mut private = spec.clone();
                    let values: Vec<f64> = idx.iter().map(|&j| spec.storages[s].data.get_f64(j)).collect();
                    let dtype = spec.storages[s].dtype;
                    private.args[i] = ArgSpec::Own {
                        dtype,
                        shape: size.clone(),
                        data: Values::Float(values),
                        requires_grad: false,
                        non_leaf: false,
                    };
                    obj.differentiate(
                        &private,
                        idx.len(),
                        |sp, j| match &sp.args[i] {
                            ArgSpec::Own { data, .. } => data.get_f64(j),
                            _ => unreachable!(),
                        },
                        |sp, j, x| {
                            if let ArgSpec::Own { data, .. } = &mut sp.args[i] {
                                data.set_f64(j, x);
                            }
                        },
                    )
                    // (A program that reaches the storage around the
                    // argument, through `as_strided`, needs it in place.)
                    .map_err(|e| {
                        RunError::input(format!(
                            "finite differences cannot separate argument {i} from the arguments it overlaps: on a private copy of its elements the program fails: {e}"
                        ))
                    })?
                };
                grads[i] = grad_json(spec.storages[s].dtype, size, &g);
            }
            _ => {}
        }
    }
    for (i, a) in spec.args.iter().enumerate() {
        if let ArgSpec::SameAs(k) = a {
            grads[i] = grads[*k].clone();
        }
    }
    let mut storage_grads = vec![Json::Null; spec.storages.len()];
    for (s, st) in spec.storages.iter().enumerate() {
        if st.base {
            let g = obj.differentiate(
                spec,
                st.data.len(),
                |sp, j| sp.storages[s].data.get_f64(j),
                |sp, j, x| sp.storages[s].data.set_f64(j, x),
            )?;
            storage_grads[s] = grad_json(st.dtype, &[st.data.len() as i64], &g);
        }
    }
    Ok(Gradients { grads, storage_grads })
}

/// Derivatives of the objective along given directions, by one central
/// difference each: two runs of the program where `finite_differences`
/// takes two per element, so a whole gradient `g` is checked in constant
/// time by comparing ⟨g, direction⟩ with [`Directional::along`].
pub struct Directional<'a> {
    obj: Objective<'a>,
    spec: &'a InputSpec,
}

/// The objective of `func` at `spec` (`base` is the eager run there), ready
/// to be differentiated along directions.
pub fn directional<'a>(
    ctx: &'a Context,
    sources: &'a SourceMgr,
    func: Op,
    spec: &'a InputSpec,
    tangents: &TangentSpec,
    base: &EagerRun,
    seed: u64,
) -> Result<Directional<'a>, RunError> {
    Ok(Directional { obj: Objective::new(ctx, sources, func, tangents, base, seed)?, spec })
}

impl Directional<'_> {
    /// The derivative along `direction`: one entry per argument, the
    /// direction's components (as many as the argument's elements) for an
    /// argument of its own that requires grad, `None` for every other.
    pub fn along(&self, direction: &[Option<Vec<f64>>]) -> Result<f64, RunError> {
        let spec = self.spec;
        if direction.len() != spec.args.len() {
            return Err(RunError::input(format!(
                "a direction has one entry per argument: {} for {} arguments",
                direction.len(),
                spec.args.len()
            )));
        }
        let mut scale = 1.0f64;
        for (i, d) in direction.iter().enumerate() {
            let Some(d) = d else { continue };
            match &spec.args[i] {
                ArgSpec::Own { data, requires_grad: true, .. } if data.len() == d.len() => {
                    for j in 0..d.len() {
                        scale = scale.max(data.get_f64(j).abs());
                    }
                }
                _ => {
                    return Err(RunError::input(format!(
                    "a direction for argument {i} needs an argument of its own that requires grad, with {} elements",
                    d.len()
                )))
                }
            }
        }
        let h = 1e-6 * scale;
        let moved = |sign: f64| -> Result<f64, RunError> {
            let mut work = spec.clone();
            for (i, d) in direction.iter().enumerate() {
                if let (Some(d), ArgSpec::Own { data, .. }) = (d, &mut work.args[i]) {
                    for (j, v) in d.iter().enumerate() {
                        let x = data.get_f64(j);
                        data.set_f64(j, x + sign * h * v);
                    }
                }
            }
            self.obj.eval(&work)
        };
        Ok((moved(1.0)? - moved(-1.0)?) / (2.0 * h))
    }
}
