//! The backward half of a compiled function: from the caller's tangents to
//! gradients of the caller's arguments, around the compiled backward graph.
//!
//! Straight-line like the forward plan, every index map resolved at
//! compile time:
//!
//! 1. tangents of the backward graph, one per traced tangent: a user
//!    output's tangent; an input's new value's tangent (for a synthetic
//!    base, its members' tangents scattered into it); an intermediate base's
//!    tangent (zeros). Then the tangents of outputs the runtime regenerated
//!    as views (aliases) are routed as autograd would: into the tangent of
//!    the value they view (a mutated input's new value, an intermediate
//!    base, another output), or straight into the gradient of the input
//!    they view when it was not mutated — so `return x.view(-1), x * 2`
//!    with tangents of ones gives 3 per element of x;
//! 2. the backward graph, on the saved values and these tangents;
//! 3. its gradients, one per primal that requires grad, go to their slot;
//!    slots become the caller's gradients: a view of a differentiable base
//!    storage contributes to that base's gradient (its own is none, as a
//!    non-leaf's); a synthetic base's gradient is its storage's; duplicates
//!    of one tensor all get the sum over their positions.
//!
//! Routes are lists of `(from, to)` element pairs computed from the layouts
//! (storage index to storage index), so views that overlap or skip
//! elements accumulate exactly.

use crate::compiled::{CallError, Executable, ForwardState, Strided};
use crate::tensor::Tensor;
use aot_ir::{ElemType, Shape};
use std::rc::Rc;

/// Element pairs `(from, to)`: `to[j] += from[i]`.
pub type Pairs = Vec<(u32, u32)>;

/// A route between two layouts of one storage: its element pairs, or,
/// where the layouts have symbolic sizes, the layouts themselves, resolved
/// into pairs for each call's sizes ([`TrainPlan::bound`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Route {
    Pairs(Pairs),
    /// [`layout_pairs`] of `from` and `to`, once their sizes are known.
    Layouts {
        from: Strided,
        to: Strided,
    },
}

impl Route {
    /// The route between two layouts: pairs now where both are static.
    pub fn between(from: &Strided, to: &Strided) -> Route {
        let stat = |l: &Strided| aot_ir::sym::layout_is_static(&l.size, &l.stride, l.offset);
        match stat(from) && stat(to) {
            true => Route::Pairs(layout_pairs(from, to)),
            false => Route::Layouts { from: from.clone(), to: to.clone() },
        }
    }

    /// The pairs, on a plan bound to its call's sizes.
    fn pairs(&self) -> Result<&Pairs, String> {
        match self {
            Route::Pairs(p) => Ok(p),
            Route::Layouts { .. } => {
                Err("a gradient route of symbolic layouts was not bound to the call's sizes".into())
            }
        }
    }

    /// This route with the call's sizes: layouts resolved into pairs.
    fn bound(&self, syms: &aot_ir::sym::Bindings) -> Result<Route, String> {
        match self {
            Route::Pairs(p) => Ok(Route::Pairs(p.clone())),
            Route::Layouts { from, to } => {
                let eval = |l: &Strided| -> Result<Strided, String> {
                    let (size, stride, offset) =
                        syms.eval_layout(&l.size, &l.stride, l.offset).map_err(|e| e.to_string())?;
                    Ok(Strided { size, stride, offset })
                };
                let (from, to) = (eval(from)?, eval(to)?);
                for l in [&from, &to] {
                    aot_ir::size::checked_extent(&l.size, &l.stride, l.offset)
                        .filter(|_| aot_ir::size::checked_numel(&l.size).is_some_and(|n| n <= u32::MAX as i64))
                        .ok_or_else(|| format!("a gradient route over {:?} does not fit 32-bit positions", l.size))?;
                }
                Ok(Route::Pairs(layout_pairs(&from, &to)))
            }
        }
    }
}

/// `(i, j)` for each element i of `from` and element j of `to` at the same
/// storage index (static layouts).
pub fn layout_pairs(from: &Strided, to: &Strided) -> Pairs {
    if from == to {
        // Element for element, also where a self-overlapping layout has
        // several elements at one storage index (PyTorch's gradient of such
        // a tensor is per element).
        return identity_pairs(from.size.iter().product::<i64>().max(0) as usize);
    }
    let at = first_positions(to);
    crate::tensor::strided_indices(&from.size, &from.stride, from.offset)
        .into_iter()
        .enumerate()
        .filter_map(|(i, s)| at.get(&s).map(|&j| (i as u32, j)))
        .collect()
}

/// For each storage index `l` reaches, the first element of `l` there.
pub fn first_positions(l: &Strided) -> rustc_hash::FxHashMap<usize, u32> {
    let mut at: rustc_hash::FxHashMap<usize, u32> = rustc_hash::FxHashMap::default();
    for (k, s) in crate::tensor::strided_indices(&l.size, &l.stride, l.offset).into_iter().enumerate() {
        at.entry(s).or_insert(k as u32);
    }
    at
}

/// Element i to element i, for `numel` elements.
pub fn identity_pairs(numel: usize) -> Pairs {
    (0..numel as u32).map(|i| (i, i)).collect()
}

/// Where one traced tangent comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TangentFrom {
    /// User output `k`'s tangent.
    Output(usize),
    /// The new value of user arguments: each `(arg, pairs)` scatters that
    /// argument's tangent (zero when not given).
    MutatedArgs(Vec<(usize, Route)>),
    /// Zeros (an intermediate base: aliases add theirs).
    Zeros,
}

/// Where an aliased output's tangent goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AliasTarget {
    /// Into backward tangent argument `j`.
    Tangent(usize),
    /// Into the gradient of slot `s`.
    Slot(usize),
}

impl TrainPlan {
    /// The plan with its shapes evaluated for one call's symbols, and its
    /// routes between symbolic layouts resolved into element pairs.
    pub fn bound(&self, syms: &aot_ir::sym::Bindings) -> Result<TrainPlan, String> {
        let e = |e: aot_ir::sym::SymError| e.to_string();
        let mut p = self.clone();
        for (from, _, shape) in p.tangents.iter_mut() {
            *shape = syms.eval_shape(shape).map_err(e)?;
            if let TangentFrom::MutatedArgs(members) = from {
                for (_, r) in members.iter_mut() {
                    *r = r.bound(syms)?;
                }
            }
        }
        for (_, shape) in p.slot_types.iter_mut() {
            *shape = syms.eval_shape(shape).map_err(e)?;
        }
        for (_, _, r) in p.alias_routes.iter_mut().chain(p.mutated_routes.iter_mut()) {
            *r = r.bound(syms)?;
        }
        for (_, _, r) in p.to_base.iter_mut() {
            *r = r.bound(syms)?;
        }
        Ok(p)
    }
}

/// The backward's static plan.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TrainPlan {
    pub num_args: usize,
    /// Per backward tangent argument: its source, dtype and shape.
    pub tangents: Vec<(TangentFrom, ElemType, Shape)>,
    /// Aliased user outputs: `(output k, target, pairs)`.
    pub alias_routes: Vec<(usize, AliasTarget, Route)>,
    /// User arguments whose new value takes a tangent that no backward
    /// tangent argument carries (a metadata-only mutation; a view of a
    /// differentiable base whose root another view's mutation changed):
    /// `(argument, target, pairs)`.
    pub mutated_routes: Vec<(usize, AliasTarget, Route)>,
    /// Per backward result: the slot it is the gradient of.
    pub grad_slots: Vec<usize>,
    /// Per slot: its gradient's dtype and shape.
    pub slot_types: Vec<(ElemType, Shape)>,
    /// Per user argument that reports a gradient: whether one can reach
    /// it. False only where provably none does (no cotangent reached the
    /// primal and no aliased output routes into it): the gradient is zeros
    /// by construction, and eager autograd would leave `.grad` None.
    pub grad_reaches: Vec<bool>,
    /// Per user argument: whether it reports a gradient.
    pub reports_grad: Vec<bool>,
    /// Slots whose gradient belongs to a differentiable base storage:
    /// `(slot, member user argument whose view base is that storage's
    /// root, pairs into the root)`.
    pub to_base: Vec<(usize, usize, Route)>,
    /// Duplicate groups of user arguments (each position's gradient summed).
    pub dup_groups: Vec<Vec<usize>>,
    /// User arguments whose new value takes a tangent (autograd saw their
    /// mutation), in order: the contract's `tangents.mutated_args`.
    pub mutated_args: Vec<usize>,
    /// Per saved value (the backward graph's arguments before its
    /// tangents): the user outputs and user arguments (new values) whose
    /// tangent makes the backward read it; None where it is read whatever
    /// the tangents. Empty where not known (every saved value is read).
    pub saved_needs: Vec<Option<(Vec<usize>, Vec<usize>)>>,
}

/// The backward graph and its plan.
pub struct Backward {
    pub exe: Box<dyn Executable>,
    pub plan: TrainPlan,
    /// The plan bound to the sizes of recent calls ([`TrainPlan::bound`]:
    /// routes between symbolic layouts resolved per set of sizes, which a
    /// training loop repeats), the latest last.
    bound: Vec<(aot_ir::sym::Bindings, Rc<TrainPlan>)>,
}

/// How many bound plans a backward keeps.
const BOUND_PLANS: usize = 8;

impl Backward {
    pub fn new(exe: Box<dyn Executable>, plan: TrainPlan) -> Backward {
        Backward { exe, plan, bound: Vec::new() }
    }

    /// The plan for a call with symbols `syms`.
    fn plan_for(&mut self, syms: &aot_ir::sym::Bindings) -> Result<Rc<TrainPlan>, String> {
        if let Some(i) = self.bound.iter().position(|(b, _)| b == syms) {
            let hit = self.bound.remove(i);
            let p = hit.1.clone();
            self.bound.push(hit);
            return Ok(p);
        }
        let p = Rc::new(self.plan.bound(syms)?);
        if self.bound.len() == BOUND_PLANS {
            self.bound.remove(0);
        }
        self.bound.push((syms.clone(), p.clone()));
        Ok(p)
    }
}

/// Gradients for the caller.
pub struct Gradients {
    /// Per user argument; none where it does not report one.
    pub args: Vec<Option<Tensor>>,
    /// `(root, gradient)` per differentiable base storage the call reached.
    pub bases: Vec<(Tensor, Tensor)>,
    /// Whether some tangent or gradient was assembled from values on the
    /// host: routed through element pairs (mutated arguments, aliased
    /// outputs, differentiable bases), summed over duplicate arguments, or
    /// converted between types. On a device, those values crossed the bus;
    /// everything else stays on the device.
    pub routed_on_host: bool,
}

type Mem = Rc<dyn crate::device::DeviceMemory>;

fn values(t: &Tensor) -> Vec<f64> {
    t.read_f64()
}

/// A tangent or gradient being assembled: a tensor handed over as is while
/// nothing has to be added to it, else values accumulated in f64.
enum Acc {
    Tensor(Tensor),
    Values(Vec<f64>),
}

impl Acc {
    fn values(&mut self) -> &mut Vec<f64> {
        if let Acc::Tensor(t) = self {
            *self = Acc::Values(values(t));
        }
        match self {
            Acc::Values(v) => v,
            Acc::Tensor(_) => unreachable!("converted above"),
        }
    }

    fn add(&mut self, from: &[f64]) {
        self.values().iter_mut().zip(from).for_each(|(a, b)| *a += b);
    }

    /// The tensor, in device memory `mem` when given (values assembled on
    /// the host go there: one upload).
    fn into_tensor(self, e: ElemType, shape: &[i64], mem: Option<&Mem>) -> Result<Tensor, String> {
        match (self, mem) {
            (Acc::Tensor(t), _) => Ok(t),
            (Acc::Values(v), None) => Ok(Tensor::from_f64(e, shape, &v, e)),
            (Acc::Values(v), Some(m)) => Tensor::from_f64(e, shape, &v, e).to_device(m),
        }
    }

    /// Zeros of a type and shape, as a tensor (a fresh zeroed buffer, in
    /// device memory `mem` when given).
    fn zeros(e: ElemType, shape: &[i64], mem: Option<&Mem>) -> Result<Acc, String> {
        Ok(Acc::Tensor(match mem {
            Some(m) => Tensor::zeros_on(m, e, shape, e)?,
            None => Tensor::zeros(e, shape, e),
        }))
    }

    /// Whether `t` has the type (logical and physical) and shape the
    /// backward graph takes: then a dense typed copy of it serves, with no
    /// round trip through f64.
    fn same_type(t: &Tensor, e: ElemType, shape: &[i64]) -> bool {
        t.dtype() == e && t.physical() == e && t.sizes()[..] == shape[..]
    }

    /// A tensor of the given type the backward graph may take as is.
    fn takes(t: &Tensor, e: ElemType, shape: &[i64]) -> bool {
        Acc::same_type(t, e, shape) && t.is_contiguous() && t.offset() == 0
    }
}

/// `to[j] += from[i]` for each pair. The pairs were computed for the
/// compiled shapes; a tangent or gradient of another size (a caller's
/// tangent for an argument whose shape a metadata mutation changed, say) is
/// an error naming what was routed, never an out-of-bounds access.
fn add_pairs(to: &mut [f64], from: &[f64], route: &Route, what: &str) -> Result<(), String> {
    for &(i, j) in route.pairs()? {
        match (Some(j as usize).filter(|&j| j < to.len()), from.get(i as usize)) {
            (Some(j), Some(&x)) => to[j] += x,
            _ => {
                return Err(format!(
                    "{what} has {} values, but the compiled gradient routing expects at least {}",
                    from.len(),
                    u64::from(i) + 1
                ))
            }
        }
    }
    Ok(())
}

fn numel(shape: &[i64]) -> usize {
    shape.iter().product::<i64>().max(0) as usize
}

impl Backward {
    /// Runs the backward of one forward call, consuming its state (saved
    /// values are freed as the backward graph finishes with them).
    /// `output_tangents[k]` is user output k's tangent, `mutated_tangents[i]`
    /// the tangent of user argument i's new value (none: zero).
    pub fn run(
        &mut self,
        state: ForwardState,
        output_tangents: &[Option<Tensor>],
        mutated_tangents: &[Option<Tensor>],
        leave_unreached: bool,
    ) -> Result<Gradients, CallError> {
        let exec = |m: String| CallError::Execution(m);
        let conv = |m: String| CallError::Convention(m);
        let ForwardState { saved, slots, syms } = state;
        // Shapes with symbolic sizes take the forward call's values.
        let evaluated;
        let p = if syms.is_empty() {
            &self.plan
        } else {
            evaluated = self.plan_for(&syms).map_err(exec)?;
            &*evaluated
        };
        // A backward of a resident call runs resident: tangents and
        // gradients it makes live in the device memory of the call's
        // arguments. Routing values between tangents and gradients
        // (mutated arguments, aliases, duplicates, bases) adds on the host.
        let mem: Option<Mem> = slots.iter().chain(&saved).find_map(|t| t.storage().device_memory());
        let mem = mem.as_ref();
        // 1. The tangents.
        let mut tangents: Vec<Acc> = Vec::with_capacity(p.tangents.len());
        for (from, e, shape) in &p.tangents {
            let n = numel(shape);
            let acc = match from {
                TangentFrom::Output(k) => match output_tangents.get(*k) {
                    Some(Some(t)) if t.numel() as usize != n => {
                        return Err(conv(format!("the tangent of output {k} has {} values, expected {n}", t.numel())))
                    }
                    Some(Some(t)) if Acc::takes(t, *e, shape) => Acc::Tensor(t.clone()),
                    // A strided tangent of the right type (the expanded
                    // gradient of a `sum()` after the compiled region): a
                    // dense typed copy, not a round trip through f64 one
                    // element at a time (3 ms for a million elements).
                    Some(Some(t)) if Acc::same_type(t, *e, shape) => Acc::Tensor(t.deep_clone()),
                    Some(Some(t)) => Acc::Values(values(t)),
                    _ => Acc::zeros(*e, shape, mem).map_err(exec)?,
                },
                TangentFrom::MutatedArgs(members) => {
                    let mut buf = vec![0.0; n];
                    for (arg, pairs) in members {
                        if let Some(Some(t)) = mutated_tangents.get(*arg) {
                            add_pairs(&mut buf, &values(t), pairs, &format!("the tangent of mutated argument {arg}"))
                                .map_err(conv)?;
                        }
                    }
                    Acc::Values(buf)
                }
                TangentFrom::Zeros => Acc::zeros(*e, shape, mem).map_err(exec)?,
            };
            tangents.push(acc);
        }
        // Which tangent arguments some gradient reached (the others are
        // absent: see `Executable::run_absent`).
        let mut reached: Vec<bool> = p
            .tangents
            .iter()
            .map(|(from, _, _)| match from {
                TangentFrom::Output(k) => matches!(output_tangents.get(*k), Some(Some(_))),
                TangentFrom::MutatedArgs(members) => {
                    members.iter().any(|(arg, _)| matches!(mutated_tangents.get(*arg), Some(Some(_))))
                }
                TangentFrom::Zeros => false,
            })
            .collect();
        let mut slot_grads: Vec<Option<Acc>> = (0..p.slot_types.len()).map(|_| None).collect();
        // Tangents of regenerated aliases, then of mutated arguments no
        // tangent argument carries, go where autograd would send them.
        let routes = p.alias_routes.iter().map(|(k, t, q)| (output_tangents.get(*k), t, q));
        let routes = routes.chain(p.mutated_routes.iter().map(|(i, t, q)| (mutated_tangents.get(*i), t, q)));
        for (tangent, target, pairs) in routes {
            let Some(Some(t)) = tangent else { continue };
            let what = "a tangent routed to an alias or a mutated argument";
            let t = values(t);
            let to = match target {
                AliasTarget::Tangent(j) => {
                    reached[*j] = true;
                    tangents[*j].values()
                }
                AliasTarget::Slot(s) => {
                    slot_grads[*s].get_or_insert_with(|| Acc::Values(vec![0.0; numel(&p.slot_types[*s].1)])).values()
                }
            };
            add_pairs(to, &t, pairs, what).map_err(conv)?;
        }
        // With `leave_unreached`, a call whose outputs and new values no
        // gradient reached gives no gradient to any argument: an autograd
        // engine's node that gets only undefined gradients passes undefined
        // ones on, so eager's `.grad` stays None there. (Where any tangent is
        // given, every argument gets its gradient, zeros included: eager's
        // graph has an edge wherever an op was recorded, even one whose
        // gradient is zeros, such as `fill_`'s.)
        let nothing_reached = leave_unreached
            && output_tangents.iter().all(Option::is_none)
            && mutated_tangents.iter().all(Option::is_none);
        // 2. The graph. It owns the saved values and tangents from here.
        let mut inputs: Vec<Tensor> = saved;
        let first_tangent = inputs.len();
        // Whether some tangent or gradient was assembled from values on the
        // host (every routed value ends as `Acc::Values`, or in a base's or
        // a duplicate group's sum).
        let mut routed_on_host = !p.dup_groups.is_empty();
        for ((_, e, shape), acc) in p.tangents.iter().zip(tangents) {
            routed_on_host |= matches!(acc, Acc::Values(_));
            inputs.push(acc.into_tensor(*e, shape, mem).map_err(exec)?);
        }
        let absent: Vec<usize> =
            reached.iter().enumerate().filter(|(_, r)| !**r).map(|(j, _)| first_tangent + j).collect();
        let grads = if absent.is_empty() || nothing_reached {
            self.exe.run(inputs)
        } else {
            self.exe.run_absent(inputs, first_tangent, &absent)
        }
        .map_err(exec)?;
        if grads.len() != p.grad_slots.len() {
            return Err(exec(format!(
                "the backward returned {} gradients, expected {}",
                grads.len(),
                p.grad_slots.len()
            )));
        }
        // 3. To the caller. A gradient nobody else holds is handed over.
        for (g, &s) in grads.into_iter().zip(&p.grad_slots) {
            let (e, shape) = &p.slot_types[s];
            match &mut slot_grads[s] {
                Some(acc) => acc.add(&values(&g)),
                none if g.is_exclusive_dense() && Acc::takes(&g, *e, shape) => *none = Some(Acc::Tensor(g)),
                // A strided or shared gradient of the right type: a dense
                // typed copy (no round trip through f64).
                none if Acc::same_type(&g, *e, shape) => *none = Some(Acc::Tensor(g.deep_clone())),
                none => *none = Some(Acc::Values(values(&g))),
            }
        }
        let mut bases: Vec<(Tensor, Vec<f64>, ElemType)> = Vec::new();
        for (s, member, pairs) in &p.to_base {
            let g = slot_grads[*s].take();
            let m = &slots[*member];
            let root = m.view_base().unwrap_or_else(|| m.clone());
            let pos = match bases.iter().position(|(r, _, _)| r.same(&root)) {
                Some(i) => i,
                None => {
                    bases.push((root.clone(), vec![0.0; root.numel() as usize], root.dtype()));
                    bases.len() - 1
                }
            };
            if let Some(mut g) = g {
                add_pairs(&mut bases[pos].1, g.values(), pairs, "a gradient routed to a differentiable base")
                    .map_err(exec)?;
            }
        }
        let mut args: Vec<Option<Acc>> = Vec::with_capacity(p.num_args);
        for (i, g) in slot_grads.iter_mut().enumerate().take(p.num_args) {
            args.push(if p.reports_grad[i] && !nothing_reached {
                match g.take() {
                    Some(g) => Some(g),
                    None => {
                        let (e, shape) = &p.slot_types[i];
                        Some(Acc::zeros(*e, shape, mem).map_err(exec)?)
                    }
                }
            } else {
                None
            });
        }
        for group in &p.dup_groups {
            let mut sum: Option<Vec<f64>> = None;
            for &i in group {
                if let Some(g) = &mut args[i] {
                    let g = g.values();
                    match &mut sum {
                        Some(acc) => acc.iter_mut().zip(g.iter()).for_each(|(a, b)| *a += b),
                        none => *none = Some(g.clone()),
                    }
                }
            }
            for &i in group {
                if args[i].is_some() {
                    args[i] = sum.clone().map(Acc::Values);
                }
            }
        }
        routed_on_host |= !bases.is_empty() || args.iter().any(|a| matches!(a, Some(Acc::Values(_))));
        let args = args
            .into_iter()
            .enumerate()
            .map(|(i, g)| g.map(|g| g.into_tensor(p.slot_types[i].0, &p.slot_types[i].1, mem)).transpose())
            .collect::<Result<_, _>>()
            .map_err(exec)?;
        let bases: Vec<(Tensor, Tensor)> = bases
            .into_iter()
            .map(|(r, g, e)| {
                let n = g.len() as i64;
                Ok((r.clone(), Acc::Values(g).into_tensor(e, &[n], mem)?))
            })
            .collect::<Result<_, String>>()
            .map_err(exec)?;
        Ok(Gradients { args, bases, routed_on_host })
    }
}
