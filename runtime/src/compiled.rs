//! Compiled functions and their calling convention.
//!
//! A [`CompiledFunction`] runs a pure forward graph (through any backend
//! behind the [`Executable`] trait) inside a [`Plan`]: the straight-line
//! steps AOTAutograd's runtime wrappers would take, derived once from the
//! function's metadata when it is compiled. In order:
//!
//! 1. guards ([`Guards`]): the arguments still match the convention;
//! 2. prologue: the graph's arguments are *slots* — the user's arguments
//!    (duplicates removed by `dedupe` are simply not passed) and synthetic
//!    bases built over a member's storage — plus the generator's seed and
//!    offset when random ops were functionalized;
//! 3. the graph;
//! 4. epilogue: the generator moves to the offset the graph returns;
//!    inputs mutated outside the graph are written back (`set_`, resize,
//!    `as_strided_`, `copy_`, in that order; a synthetic base's copy writes
//!    the user's storage), members of a synthetic base whose metadata
//!    changed get their final layout (`as_strided_`); outputs that alias
//!    inputs or intermediates are regenerated as views; each output gets
//!    its `requires_grad`.
//!
//! Nothing is interpreted per call beyond walking these steps; every layout
//! is resolved at compile time against the calling convention the function
//! was specialised for, which the guards enforce.

pub use crate::guards::{ArgGuard, Guards};
use crate::philox::Generator;
use crate::tensor::{Tensor, TensorImpl};
use aot_ir::{ElemType, Shape};
use std::cell::RefCell;
use std::rc::Rc;

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
    /// The storage argument `i` held at the call (a resize_ grows it in
    /// place; a set_ of `i` itself does not move it).
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
    /// A view of argument `arg`'s storage: the one it had on entry, or
    /// with `after_call` the one it has after the write-back (`set_`).
    /// `values_from`: graph result whose values the view takes (elements a
    /// `resize_` added to the storage, which no argument's write-back covers).
    ViewOfArg { arg: usize, layout: Strided, after_call: bool, values_from: Option<usize> },
    /// A view of graph result `r`'s storage (an intermediate base).
    ViewOfResult { result: usize, layout: Strided },
    /// A view of user output `k`'s storage (its base is that output).
    /// `values_from`: graph result whose values the view takes (when `k`
    /// was restrided into a fresh storage holding its own elements only,
    /// the view reaches elements of the intermediate outside them).
    ViewOfOutput { output: usize, layout: Strided, values_from: Option<usize> },
    /// Graph result `r`'s values in a fresh storage laid out as `layout`
    /// (eager's layout for a non-aliased view of an intermediate), of at
    /// least `numel` elements (other outputs eager holds in the same
    /// storage view it too: [`OutputFrom::ViewOfOutput`]).
    Restrided { result: usize, layout: Strided, numel: i64 },
}

/// A synthetic base: a 1-D view over the whole storage of a user argument.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BaseFrom {
    /// A user argument in that storage.
    pub member: usize,
    pub numel: i64,
    /// Use the members' differentiable base (their autograd root) when it
    /// covers the storage, so gradients reach it.
    pub differentiable: bool,
}

/// The calling convention, straight-line. Indices named `arg` are *slots*:
/// `0..num_args` are the user's arguments, `num_args + b` synthetic base `b`.
#[derive(Clone, Debug, Default)]
pub struct Plan {
    pub num_args: usize,
    pub guards: Guards,
    pub bases: Vec<BaseFrom>,
    /// The graph's tensor arguments, as slots.
    pub graph_args: Vec<usize>,
    /// The forward returns (mutated inputs, user outputs, intermediate
    /// bases); then the advanced RNG offset when `rng`, then saved values.
    pub num_returns: usize,
    /// The graph takes (seed, offset) last and returns the advanced offset
    /// after its returns.
    pub rng: bool,
    /// How far one call moves the offset, where the graph says so
    /// (`offset + c`, `c` a constant or an expression of the function's
    /// symbols, evaluated per call): the generator is then advanced
    /// without reading the returned offset, which may live on a device.
    pub rng_advance: Option<i64>,
    pub write_back: Vec<WriteBack>,
    pub outputs: Vec<(OutputFrom, bool)>,
}

/// Why a call of a compiled function failed.
#[derive(Debug, thiserror::Error)]
pub enum CallError {
    /// The arguments break the convention the function was compiled for
    /// (a guard failed); nothing was run and no argument was changed.
    #[error("{0}")]
    Convention(String),
    /// The graph or the epilogue failed.
    #[error("{0}")]
    Execution(String),
}

/// A forward (or backward) graph compiled by some backend.
pub trait Executable {
    /// Runs the graph on the arguments (which it may write into, for
    /// mutations kept in the graph); returns the graph's results, which may
    /// share memory with the arguments and with each other. It owns
    /// the argument handles so that it can free each one after its last
    /// use (a backward releases saved values as it goes).
    fn run(&mut self, args: Vec<Tensor>) -> Result<Vec<Tensor>, String>;

    /// [`run`](Executable::run) for a backward graph whose tangent
    /// arguments `absent` (positions among `args`, from `first_tangent` on)
    /// no gradient reached: they hold zeros, and nothing computed from them
    /// alone may count, not even a product with a value that is not finite,
    /// as PyTorch's engine never runs such a derivative. An executable that
    /// cannot be specialised runs as is.
    fn run_absent(&mut self, args: Vec<Tensor>, first_tangent: usize, absent: &[usize]) -> Result<Vec<Tensor>, String> {
        let _ = (first_tangent, absent);
        self.run(args)
    }

    /// Per step, what it ran and cost since profiling began (see
    /// [`StepProfile`]); empty for an executable that does not profile.
    fn profile(&self) -> Vec<StepProfile> {
        Vec::new()
    }

    /// Starts the profile's counts again from zero.
    fn reset_profile(&mut self) {}
}

/// One step of a compiled program in a profile: its time and run count
/// while profiling was on, and its static cost.
#[derive(Clone, Debug, PartialEq)]
pub struct StepProfile {
    /// What the step is, e.g. `kernel #3 'add_mul' (split over 2 threads)`.
    pub what: String,
    /// `kernel`, `matmul`, `rebind` or `resize`.
    pub kind: &'static str,
    /// Runs counted.
    pub runs: u64,
    /// Total seconds over those runs.
    pub seconds: f64,
    /// Floating-point operations per run.
    pub flops: u64,
    /// Bytes moved per run (each operand element read or written once).
    pub bytes: u64,
}

/// The versions of a backward an executable specialised for sets of absent
/// tangents ([`Executable::run_absent`]), each built once; at most
/// [`Specialisations::MAX`] of them (a program whose outputs reach the loss
/// in ever new combinations runs unspecialised past them).
pub struct Specialisations<T> {
    built: rustc_hash::FxHashMap<Vec<usize>, Result<T, String>>,
}

impl<T> Default for Specialisations<T> {
    fn default() -> Self {
        Specialisations { built: Default::default() }
    }
}

impl<T> Specialisations<T> {
    pub const MAX: usize = 16;

    /// The version for `absent`, built by `build` on first use; None when
    /// `MAX` other versions exist already.
    pub fn get_or_build(
        &mut self,
        absent: &[usize],
        build: impl FnOnce() -> Result<T, String>,
    ) -> Option<&mut Result<T, String>> {
        if !self.built.contains_key(absent) {
            if self.built.len() >= Self::MAX {
                return None;
            }
            self.built.insert(absent.to_vec(), build());
        }
        self.built.get_mut(absent)
    }

    /// The versions built so far (in no particular order).
    pub fn built(&self) -> impl Iterator<Item = &T> {
        self.built.values().filter_map(|r| r.as_ref().ok())
    }

    /// The versions built so far, mutably.
    pub fn built_mut(&mut self) -> impl Iterator<Item = &mut T> {
        self.built.values_mut().filter_map(|r| r.as_mut().ok())
    }
}

/// A compiled function: a graph plus its calling convention, and the
/// backward when compiled for training.
pub struct CompiledFunction {
    pub plan: Plan,
    pub forward: Box<dyn Executable>,
    pub backward: Option<crate::backward::Backward>,
    /// The generator random ops draw from (shared with eager code).
    pub generator: Rc<RefCell<Generator>>,
    /// Per call slot (user argument): a saved value in its memory is
    /// copied, not kept as a view of it (see `Function::copy_saved_arguments`).
    pub copy_saved: Vec<bool>,
    /// Per user output: a saved value in the memory the output takes from
    /// the graph is copied (see `Function::copy_saved_outputs`).
    pub copy_saved_outputs: Vec<bool>,
    /// The generator's state as the last resident call left it on its
    /// device (see [`DeviceRng`]).
    device_rng: Option<DeviceRng>,
}

/// The (seed, offset) arguments of a resident call, kept on the device:
/// the next call passes them again when the generator still holds the
/// values they hold (nothing else drew meanwhile), so the state does not
/// cross the bus on every call, as PyTorch's CUDA generator state does
/// not (its kernels take it by value).
struct DeviceRng {
    memory: Rc<dyn crate::device::DeviceMemory>,
    seed: u64,
    offset: u64,
    tensors: [Tensor; 2],
}

/// What a forward call leaves for its backward. A clone shares the saved
/// values (handles, not copies): a backward only reads and releases them,
/// so one forward may be differentiated more than once (`retain_graph`, or
/// an autograd graph that holds the call as several nodes).
#[derive(Clone)]
pub struct ForwardState {
    /// The values the partition saved.
    pub saved: Vec<Tensor>,
    /// The call's slots (user arguments, then synthetic bases).
    pub slots: Vec<Tensor>,
    /// The values of the function's symbols in the call (none for static
    /// sizes): the backward's shapes are evaluated with them.
    pub syms: aot_ir::sym::Bindings,
}

fn err<T>(m: impl Into<String>) -> Result<T, String> {
    Err(m.into())
}

/// `src`'s values in a new storage, laid out as `l`.
fn restrided(src: &Tensor, l: &Strided, numel: i64) -> Result<Tensor, String> {
    let Some((_, end)) = aot_ir::size::checked_extent(&l.size, &l.stride, l.offset) else {
        return err(format!("the layout {:?}/{:?}+{} of a result overflows 64 bits", l.size, l.stride, l.offset));
    };
    let extent = end.max(l.offset).max(numel).max(0);
    aot_ir::size::check_alloc(extent as u64, src.physical().byte_size() as u64, "a restrided result")
        .map_err(|e| e.to_string())?;
    // (On the device a resident result lives on.)
    let storage = match src.storage().device_memory() {
        Some(mem) => crate::tensor::Storage::on_device(&mem, src.physical(), extent as usize)?,
        None => crate::tensor::Storage::new(crate::buffer::Buffer::zeros(src.physical(), extent as usize)),
    };
    let t = Tensor::from_parts(storage, src.dtype(), l.size.clone(), l.stride.clone(), l.offset)?;
    if t.sizes() != src.sizes() {
        return err(format!("restriding a {:?} result as {:?}", src.sizes().to_vec(), l.size.to_vec()));
    }
    t.copy_values_from(src);
    Ok(t)
}

/// Layout `l` for one call: its symbolic sizes (`aot_ir::sym`) evaluated
/// with the call's values.
fn bound<'a>(l: &'a Strided, syms: &aot_ir::sym::Bindings) -> Result<std::borrow::Cow<'a, Strided>, String> {
    if syms.is_empty() {
        return Ok(std::borrow::Cow::Borrowed(l));
    }
    let (size, stride, offset) = syms.eval_layout(&l.size, &l.stride, l.offset).map_err(|e| e.to_string())?;
    Ok(std::borrow::Cow::Owned(Strided { size, stride, offset }))
}

fn view_of(t: &Tensor, l: &Strided) -> Result<Tensor, String> {
    t.alias_with(l.size.clone(), l.stride.clone(), l.offset)
}

impl CompiledFunction {
    pub fn new(plan: Plan, forward: Box<dyn Executable>, generator: Rc<RefCell<Generator>>) -> Self {
        CompiledFunction {
            plan,
            forward,
            backward: None,
            generator,
            copy_saved: Vec::new(),
            copy_saved_outputs: Vec::new(),
            device_rng: None,
        }
    }

    /// Puts the generator's state in device memory `mem` now, for the
    /// resident calls to come (so that the first does not copy it there).
    pub fn place_generator_state(&mut self, mem: &Rc<dyn crate::device::DeviceMemory>) -> Result<(), String> {
        if self.plan.rng {
            self.rng_inputs(Some(mem.clone()))?;
        }
        Ok(())
    }

    /// The (seed, offset) arguments of a call whose arguments live in
    /// `memory` (on the host when `None`).
    fn rng_inputs(&mut self, memory: Option<Rc<dyn crate::device::DeviceMemory>>) -> Result<[Tensor; 2], String> {
        let g = *self.generator.borrow();
        let host = || {
            [
                Tensor::from_i64(ElemType::I64, &[], &[g.seed as i64], ElemType::I64),
                Tensor::from_i64(ElemType::I64, &[], &[g.offset as i64], ElemType::I64),
            ]
        };
        let Some(mem) = memory else { return Ok(host()) };
        if let Some(d) = &self.device_rng {
            if crate::device::same_memory(&d.memory, &mem) && (d.seed, d.offset) == (g.seed, g.offset) {
                return Ok(d.tensors.clone());
            }
        }
        // The generator moved on the host (or this is the first call): its
        // state goes to the device once.
        let [seed, offset] = host();
        let placed = [seed.to_device(&mem)?, offset.to_device(&mem)?];
        self.device_rng = Some(DeviceRng { memory: mem, seed: g.seed, offset: g.offset, tensors: placed.clone() });
        Ok(placed)
    }

    /// Synthetic base `b` for this call.
    fn base(&self, b: &BaseFrom, args: &[Tensor]) -> Result<Tensor, String> {
        let m = &args[b.member];
        if b.differentiable {
            if let Some(root) = m.view_base() {
                let covers = root.sizes()[..] == [b.numel] && root.strides()[..] == [1] && root.offset() == 0;
                if covers && root.shares_storage(m) {
                    return Ok(root);
                }
            }
        }
        Tensor::from_parts(m.storage(), m.dtype(), Shape::from_slice(&[b.numel]), Shape::from_slice(&[1]), 0)
    }

    /// Calls the function with PyTorch's semantics.
    pub fn call(&mut self, args: &[Tensor]) -> Result<Vec<Tensor>, CallError> {
        self.forward(args).map(|(outs, _)| outs)
    }

    /// Runs the backward of a forward call with the caller's tangents:
    /// `output_tangents[k]` for user output k, `mutated_tangents[i]` for the
    /// new value of user argument i (none: zero). It consumes the forward's
    /// state, freeing saved values as it goes (PyTorch's backward without
    /// `retain_graph`). `leave_unreached`: when no tangent at all is
    /// given, no argument gets a gradient (else zeros).
    pub fn backward(
        &mut self,
        state: ForwardState,
        output_tangents: &[Option<Tensor>],
        mutated_tangents: &[Option<Tensor>],
        leave_unreached: bool,
    ) -> Result<crate::backward::Gradients, CallError> {
        let b = self.backward.as_mut().ok_or_else(|| {
            CallError::Convention("the function was compiled without a backward (use the aot-train pipeline)".into())
        })?;
        b.run(state, output_tangents, mutated_tangents, leave_unreached)
    }

    /// Calls the function and keeps what its backward needs.
    pub fn forward(&mut self, args: &[Tensor]) -> Result<(Vec<Tensor>, ForwardState), CallError> {
        let syms = self.plan.guards.check(args).map_err(CallError::Convention)?;
        self.run(args, &syms).map_err(CallError::Execution)
    }

    fn run(&mut self, args: &[Tensor], syms: &aot_ir::sym::Bindings) -> Result<(Vec<Tensor>, ForwardState), String> {
        let bound = |l| bound(l, syms);
        let plan = &self.plan;
        let mut slots: Vec<Tensor> = args.to_vec();
        for b in &plan.bases {
            slots.push(self.base(b, args)?);
        }
        let mut inputs: Vec<Tensor> = plan.graph_args.iter().map(|&s| slots[s].clone()).collect();
        let resident = args.iter().find_map(|a| a.storage().device_memory());
        if plan.rng {
            inputs.extend(self.rng_inputs(resident.clone())?);
        }
        let plan = &self.plan;
        // Outputs aliasing an input view the storage the input had on entry
        // (a later `set_` write-back may move the input elsewhere).
        let entry_storages: Vec<_> = slots.iter().map(|a| a.storage()).collect();
        let mut results = self.forward.run(inputs)?;
        let tail = plan.num_returns + plan.rng as usize;
        if results.len() < tail {
            return err(format!("the graph returned {} values, expected at least {tail}", results.len()));
        }
        let mut saved = results.split_off(tail);
        if plan.rng {
            let offset = results.pop().ok_or("the graph returned no RNG offset")?;
            let v = match plan.rng_advance {
                Some(c) => {
                    // (A symbolic count: the call's value of it.)
                    let c = syms.eval(c).map_err(|e| e.to_string())?;
                    let before = self.generator.borrow().offset;
                    i64::try_from(before).ok().and_then(|b| b.checked_add(c)).ok_or("the RNG offset overflows")?
                }
                None => offset.read_i64().first().copied().ok_or("the RNG offset result is empty")?,
            };
            if v < 0 || v % 4 != 0 {
                return err(format!("the graph returned RNG offset {v}, not a non-negative multiple of 4"));
            }
            self.generator.borrow_mut().offset = v as u64;
            // A resident call's returned offset is the next call's argument.
            if let Some(d) = self.device_rng.as_mut().filter(|_| resident.is_some() && plan.rng_advance.is_some()) {
                d.offset = v as u64;
                d.tensors[1] = offset;
            }
        }
        let plan = &self.plan;
        let args = &slots;
        // A saved value in an argument's memory (a weight the backward
        // reads) stays a view of it, unless the caller asked for a copy: the
        // caller must not write the argument before the backward, as
        // autograd forbids writing a saved tensor. This call's own
        // write-back into an argument's data must not reach it: those are
        // copied too.
        let rewritten = |a: &Tensor| {
            plan.write_back.iter().any(|w| match w {
                WriteBack::CopyData { arg, .. } | WriteBack::Resize { arg, .. } => args[*arg].shares_storage(a),
                _ => false,
            })
        };
        let copied = |a: &Tensor| args.iter().zip(&self.copy_saved).any(|(arg, &copy)| copy && arg.shares_storage(a));
        // So is one in the memory of a graph result a user output takes
        // as it is or views, where the caller asked: the caller may write
        // that output before the backward (eager's autograd did not save
        // it), which must not reach the saved value (fuzz seed 50044: a
        // value saved as a view of an intermediate whose other views the
        // graph returns).
        let exposed: Vec<&Tensor> = plan
            .outputs
            .iter()
            .zip(&self.copy_saved_outputs)
            .filter(|(_, &copy)| copy)
            .filter_map(|((from, _), _)| match from {
                OutputFrom::Result(r) | OutputFrom::ViewOfResult { result: r, .. } => results.get(*r),
                _ => None,
            })
            .collect();
        for s in saved.iter_mut() {
            if rewritten(s) || copied(s) || exposed.iter().any(|r| r.shares_storage(s)) {
                *s = s.deep_clone();
            }
        }
        // A result that is (a view of) an argument's memory holds the value
        // it had when the graph returned: the write-back into arguments must
        // not change it under a later step (`copy_(b, a)` then a write to
        // `a` returns `a`'s old memory as `b`'s new value), and an output
        // regenerated from it (an intermediate base the interpreter
        // returned as the argument's own buffer) must not alias the
        // argument.
        for r in results.iter_mut() {
            if args.iter().any(|a| a.shares_storage(r)) {
                *r = r.deep_clone();
            }
        }
        // Layouts of views of an intermediate base are relative to a fresh
        // contiguous base; native code may return the base as a view into
        // a larger buffer.
        for (from, _) in &plan.outputs {
            if let OutputFrom::ViewOfResult { result: r, .. } | OutputFrom::Restrided { result: r, .. } = from {
                if let Some(t) = results.get_mut(*r) {
                    if !t.owns_contiguous_storage() {
                        *t = t.deep_clone();
                    }
                }
            }
        }
        let result = |r: usize| results.get(r).ok_or_else(|| format!("the graph returned no result {r}"));
        // An output view that takes graph result `r`'s values (`values_from`).
        let take_values = |t: &Tensor, r: Option<usize>, k: usize| -> Result<(), String> {
            let Some(r) = r else { return Ok(()) };
            let src = result(r)?;
            if src.sizes() != t.sizes() {
                return err(format!("output {k}: the graph returned shape {:?}", src.sizes().to_vec()));
            }
            t.copy_values_from(src);
            Ok(())
        };
        for step in &plan.write_back {
            match step {
                WriteBack::SetStorage { arg, from, layout } => {
                    let layout = bound(layout)?;
                    // The storage argument j held at the call: an earlier
                    // step may already have set_ j itself elsewhere.
                    let storage = match from {
                        StorageFrom::Arg(j) => entry_storages[*j].clone(),
                        StorageFrom::Result(r) => result(*r)?.storage(),
                    };
                    args[*arg].set_storage(storage, layout.size.clone(), layout.stride.clone(), layout.offset)?;
                }
                WriteBack::Resize { arg, numel } => {
                    let st = args[*arg].storage();
                    if (st.len() as i64) < *numel {
                        st.resize(*numel as usize)?;
                    }
                }
                WriteBack::AsStrided { arg, layout } => {
                    let layout = bound(layout)?;
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
                    // As autograd does: the view's root gains history too,
                    // so every other view of it requires grad.
                    for t in std::iter::once(args[*arg].clone()).chain(args[*arg].view_base()) {
                        let mut m: std::cell::RefMut<'_, TensorImpl> = t.borrow_mut();
                        m.requires_grad = true;
                        m.is_leaf = false;
                    }
                }
            }
        }
        // Outputs that view another output come after every other output.
        let mut outs: Vec<Option<Tensor>> = vec![None; plan.outputs.len()];
        for pass in 0..2 {
            for (k, (from, rg)) in plan.outputs.iter().enumerate() {
                let derived = matches!(from, OutputFrom::ViewOfOutput { .. });
                if derived != (pass == 1) {
                    continue;
                }
                let t = match from {
                    // A value graph may return an argument as is (e.g. a cast
                    // to the same type folded away), or a view of some buffer
                    // (a copy into a fresh tensor folded into the view it
                    // copied); the caller gets a fresh contiguous tensor.
                    // So do two outputs the graph gives one value (a tensor
                    // and another overwritten with its data).
                    OutputFrom::Result(r) => {
                        let t = result(*r)?;
                        let taken = plan.outputs[..k].iter().zip(&outs).any(|((f, _), o)| {
                            matches!(f, OutputFrom::Result(_)) && o.as_ref().is_some_and(|o| o.shares_storage(t))
                        });
                        if taken || !t.owns_contiguous_storage() || args.iter().any(|a| a.shares_storage(t)) {
                            t.deep_clone()
                        } else {
                            t.clone()
                        }
                    }
                    OutputFrom::Arg(i) => args[*i].clone(),
                    OutputFrom::ViewOfArg { arg, layout, after_call, values_from } => {
                        let layout = bound(layout)?;
                        let t = Tensor::from_parts(
                            if *after_call { args[*arg].storage() } else { entry_storages[*arg].clone() },
                            args[*arg].dtype(),
                            layout.size.clone(),
                            layout.stride.clone(),
                            layout.offset,
                        )?;
                        take_values(&t, *values_from, k)?;
                        t
                    }
                    OutputFrom::ViewOfResult { result: r, layout } => view_of(result(*r)?, &*bound(layout)?)?,
                    OutputFrom::ViewOfOutput { output, layout, values_from } => {
                        let layout = bound(layout)?;
                        let base = outs.get(*output).and_then(|o| o.as_ref()).ok_or_else(|| {
                            format!("output {k} views output {output}, which is itself a view of an output")
                        })?;
                        let t = view_of(base, &layout)?;
                        take_values(&t, *values_from, k)?;
                        t
                    }
                    OutputFrom::Restrided { result: r, layout, numel } => {
                        let n = syms.eval(*numel).map_err(|e| e.to_string())?;
                        restrided(result(*r)?, &*bound(layout)?, n)?
                    }
                };
                if !matches!(from, OutputFrom::Arg(_)) {
                    t.set_requires_grad(*rg);
                    t.set_leaf(!*rg);
                }
                outs[k] = Some(t);
            }
        }
        let outs: Vec<Tensor> = outs.into_iter().map(|o| o.expect("every output is computed")).collect();
        Ok((outs, ForwardState { saved, slots, syms: syms.clone() }))
    }
}
