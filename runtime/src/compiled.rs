//! Compiled functions and their calling convention.
//!
//! A [`CompiledFunction`] runs a pure forward graph (through any backend
//! behind the [`Executable`] trait) and then applies a [`Plan`]: the
//! straight-line steps AOTAutograd's runtime wrappers would take, derived
//! once from the function's metadata when it is compiled — write-back of
//! inputs mutated outside the graph (`set_`, resize, `as_strided_`, `copy_`,
//! in that order), regeneration of outputs that alias inputs or
//! intermediates, and each output's `requires_grad`. Nothing is interpreted
//! per call beyond walking these steps; every layout is resolved at compile
//! time against the calling convention the function was specialised for.

use crate::tensor::{Tensor, TensorImpl};
use aot_ir::Shape;

/// A layout in a storage.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Strided {
    pub size: Shape,
    pub stride: Shape,
    pub offset: i64,
}

/// Where a storage-mutated input gets its new storage.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StorageFrom {
    /// The storage of argument `i` (after its own write-back).
    Arg(usize),
    /// The storage of graph result `r`.
    Result(usize),
}

/// One write-back step for an input mutated outside the graph.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WriteBack {
    /// `arg.set_(storage)` then place it with `layout`.
    SetStorage { arg: usize, from: StorageFrom, layout: Strided },
    /// Grow the argument's storage to `numel` elements if smaller.
    Resize { arg: usize, numel: i64 },
    /// `arg.as_strided_(layout)`.
    AsStrided { arg: usize, layout: Strided },
    /// `arg.copy_(result)`.
    CopyData { arg: usize, result: usize },
    /// The argument now requires grad (a mutation gave it history).
    RequiresGrad { arg: usize },
}

/// How to produce one user output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OutputFrom {
    /// Graph result `r`, as is.
    Result(usize),
    /// The argument object itself.
    Arg(usize),
    /// A view of argument `arg`'s storage.
    ViewOfArg { arg: usize, layout: Strided },
    /// A view of graph result `r`'s storage (an intermediate base).
    ViewOfResult { result: usize, layout: Strided },
    /// A view of user output `k`'s storage (its base is that output).
    ViewOfOutput { output: usize, layout: Strided },
    /// Graph result `r`'s values in a fresh storage laid out as `layout`
    /// (eager's layout for a non-aliased view of an intermediate).
    Restrided { result: usize, layout: Strided },
}

/// The calling convention, straight-line.
#[derive(Clone, Debug, Default)]
pub struct Plan {
    pub num_args: usize,
    pub write_back: Vec<WriteBack>,
    pub outputs: Vec<(OutputFrom, bool)>,
}

/// A forward (or backward) graph compiled by some backend.
pub trait Executable {
    /// Runs the graph on the arguments (which it may write into, for
    /// mutations kept in the graph); returns the graph's results.
    fn run(&mut self, args: &[Tensor]) -> Result<Vec<Tensor>, String>;
}

/// A compiled function: a graph plus its calling convention.
pub struct CompiledFunction {
    pub plan: Plan,
    pub forward: Box<dyn Executable>,
}

fn err<T>(m: impl Into<String>) -> Result<T, String> {
    Err(m.into())
}

/// `src`'s values in a new storage, laid out as `l`.
fn restrided(src: &Tensor, l: &Strided) -> Result<Tensor, String> {
    let n: i64 = l.size.iter().product();
    let extent = if n == 0 {
        l.offset.max(0)
    } else {
        l.offset + l.size.iter().zip(&l.stride).map(|(&s, &st)| (s - 1) * st).sum::<i64>() + 1
    };
    let storage = crate::tensor::Storage::new(crate::buffer::Buffer::zeros(src.physical(), extent.max(0) as usize));
    let t = Tensor::from_parts(storage, src.dtype(), l.size.clone(), l.stride.clone(), l.offset)?;
    if t.sizes() != src.sizes() {
        return err(format!("restriding a {:?} result as {:?}", src.sizes().to_vec(), l.size.to_vec()));
    }
    t.copy_values_from(src);
    Ok(t)
}

fn view_of(t: &Tensor, l: &Strided) -> Result<Tensor, String> {
    t.alias_with(l.size.clone(), l.stride.clone(), l.offset)
}

impl CompiledFunction {
    pub fn new(plan: Plan, forward: Box<dyn Executable>) -> Self {
        CompiledFunction { plan, forward }
    }

    /// Calls the function with PyTorch's semantics.
    pub fn call(&mut self, args: &[Tensor]) -> Result<Vec<Tensor>, String> {
        if args.len() != self.plan.num_args {
            return err(format!("the function takes {} arguments, got {}", self.plan.num_args, args.len()));
        }
        // Outputs aliasing an input view the storage the input had on entry
        // (a later `set_` write-back may move the input elsewhere).
        let entry_storages: Vec<_> = args.iter().map(|a| a.storage()).collect();
        let results = self.forward.run(args)?;
        let result = |r: usize| results.get(r).ok_or_else(|| format!("the graph returned no result {r}"));
        for step in &self.plan.write_back {
            match step {
                WriteBack::SetStorage { arg, from, layout } => {
                    let storage = match from {
                        StorageFrom::Arg(j) => args[*j].storage(),
                        StorageFrom::Result(r) => result(*r)?.storage(),
                    };
                    args[*arg].set_storage(storage, layout.size.clone(), layout.stride.clone(), layout.offset)?;
                }
                WriteBack::Resize { arg, numel } => {
                    let st = args[*arg].storage();
                    if (st.len() as i64) < *numel {
                        st.buf_mut().resize(*numel as usize);
                    }
                }
                WriteBack::AsStrided { arg, layout } => {
                    args[*arg].set_metadata(layout.size.clone(), layout.stride.clone(), layout.offset)?;
                }
                WriteBack::CopyData { arg, result: r } => {
                    let src = result(*r)?;
                    if src.sizes() != args[*arg].sizes() {
                        return err(format!(
                            "write-back of argument {arg}: the graph returned shape {:?}",
                            src.sizes().to_vec()
                        ));
                    }
                    args[*arg].copy_values_from(src);
                }
                WriteBack::RequiresGrad { arg } => {
                    let mut m: std::cell::RefMut<'_, TensorImpl> = args[*arg].borrow_mut();
                    m.requires_grad = true;
                    m.is_leaf = false;
                }
            }
        }
        // Outputs that view another output come after every other output.
        let mut outs: Vec<Option<Tensor>> = vec![None; self.plan.outputs.len()];
        for pass in 0..2 {
            for (k, (from, rg)) in self.plan.outputs.iter().enumerate() {
                let derived = matches!(from, OutputFrom::ViewOfOutput { .. });
                if derived != (pass == 1) {
                    continue;
                }
                let t = match from {
                    // A value graph may return an argument as is (e.g. a cast
                    // to the same type folded away); the caller gets a fresh tensor.
                    OutputFrom::Result(r) => {
                        let t = result(*r)?;
                        if args.iter().any(|a| a.shares_storage(t)) {
                            t.deep_clone()
                        } else {
                            t.clone()
                        }
                    }
                    OutputFrom::Arg(i) => args[*i].clone(),
                    OutputFrom::ViewOfArg { arg, layout } => Tensor::from_parts(
                        entry_storages[*arg].clone(),
                        args[*arg].dtype(),
                        layout.size.clone(),
                        layout.stride.clone(),
                        layout.offset,
                    )?,
                    OutputFrom::ViewOfResult { result: r, layout } => view_of(result(*r)?, layout)?,
                    OutputFrom::ViewOfOutput { output, layout } => {
                        let base = outs.get(*output).and_then(|o| o.as_ref()).ok_or_else(|| {
                            format!("output {k} views output {output}, which is itself a view of an output")
                        })?;
                        view_of(base, layout)?
                    }
                    OutputFrom::Restrided { result: r, layout } => restrided(result(*r)?, layout)?,
                };
                if !matches!(from, OutputFrom::Arg(_)) {
                    t.set_requires_grad(*rg);
                    t.set_leaf(!*rg);
                }
                outs[k] = Some(t);
            }
        }
        let outs: Vec<Tensor> = outs.into_iter().map(|o| o.expect("every output is computed")).collect();
        Ok(outs)
    }
}
