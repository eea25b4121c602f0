//! Derives the backward's runtime plan (`aot_runtime::backward::TrainPlan`)
//! from a partitioned function: which tangent feeds each tangent argument of
//! the backward graph, where tangents of aliased outputs go, and which
//! slot each gradient belongs to. Every route between layouts is resolved
//! here into element pairs (matched by storage index), so the runtime only
//! adds numbers.

use crate::compile::TrainView;
use aot_codegen::absent::SavedNeed;
use aot_dialects::func::FuncView;
use aot_ir::*;
use aot_passes::joint::{GRAD, NO_COTANGENT, TANGENT};
use aot_passes::meta::ViewAndMutationMeta;
use aot_runtime::backward::{first_positions, identity_pairs, AliasTarget, Pairs, Route, TangentFrom, TrainPlan};
use aot_runtime::compiled::{OutputFrom, Plan, Strided};
use aot_runtime::overlap::may_reach_an_element_twice;
use aot_runtime::tensor::{contiguous_strides, strided_indices};
use rustc_hash::FxHashMap;
use std::collections::BTreeSet;

fn contiguous(size: &[i64]) -> Strided {
    Strided { size: size.into(), stride: contiguous_strides(size), offset: 0 }
}

/// Routes the elements of a value laid out at `fin` in a storage to the
/// values (`candidates`, in order of preference: where each goes and the
/// layout it has in the storage) that hold the same storage elements: per
/// candidate, (value index, candidate index) pairs. Also the first storage
/// element no candidate holds, if any.
fn route_by_storage(
    fin: &Strided,
    candidates: impl Iterator<Item = (AliasTarget, Strided)>,
) -> (Vec<(AliasTarget, Route)>, Option<usize>) {
    // (Arguments that share a storage keep static sizes: `build` refuses
    // them with symbolic ones.)
    debug_assert!(is_static(fin), "element routes by storage over a symbolic layout");
    let left = strided_indices(&fin.size, &fin.stride, fin.offset).into_iter().map(Some).collect();
    route_left(left, candidates)
}

/// [`route_by_storage`] for the value's elements still in `left` (value
/// index -> storage element; `None` for one already routed).
fn route_left(
    mut left: Vec<Option<usize>>,
    candidates: impl Iterator<Item = (AliasTarget, Strided)>,
) -> (Vec<(AliasTarget, Route)>, Option<usize>) {
    let mut out = Vec::new();
    for (target, layout) in candidates {
        if left.iter().all(Option::is_none) {
            break;
        }
        let q = take_held(&mut left, &layout);
        if !q.is_empty() {
            out.push((target, Route::Pairs(q)));
        }
    }
    (out, left.into_iter().flatten().next())
}

/// Pairs (value index, position in `l`) for the storage elements still in
/// `left` that `l` holds; those are taken out of `left`.
fn take_held(left: &mut [Option<usize>], l: &Strided) -> Pairs {
    let at = first_positions(l);
    let mut q: Pairs = Pairs::new();
    for (k, e) in left.iter_mut().enumerate() {
        if let Some(&pos) = e.and_then(|s| at.get(&s)) {
            q.push((k as u32, pos));
            *e = None;
        }
    }
    q
}

fn identity(numel: usize) -> Route {
    Route::Pairs(identity_pairs(numel))
}

/// The route between two layouts (resolved per call where symbolic).
fn pairs(from: &Strided, to: &Strided) -> Route {
    Route::between(from, to)
}

/// Whether a layout's sizes, strides and offset are all constants.
fn is_static(l: &Strided) -> bool {
    aot_ir::sym::layout_is_static(&l.size, &l.stride, l.offset)
}

/// Whether every storage element `src` reaches is one `held` holds, at
/// every size `facts` admit: `held` is dense (its elements are the range
/// from its offset on, as many as it has), and `src`'s elements (non-negative
/// strides) lie within that range.
fn held_whole(src: &Strided, held: &Strided, facts: &aot_ir::sym::Facts) -> bool {
    use aot_ir::sym::{add, layout_end, numel};
    let nonneg = src.size.iter().zip(&src.stride).all(|(&n, &st)| facts.known_le(1, n) && facts.known_le(0, st));
    if !aot_runtime::tensor::dense(&held.size, &held.stride) || src.size.len() != src.stride.len() || !nonneg {
        return false;
    }
    let ends = || {
        Some((layout_end(&src.size, &src.stride, src.offset).ok()?, add(held.offset, numel(&held.size).ok()?).ok()?))
    };
    ends()
        .is_some_and(|(src_end, held_end)| facts.known_le(held.offset, src.offset) && facts.known_le(src_end, held_end))
}

pub(crate) fn build(
    ctx: &Context,
    fwd: Op,
    bwd: Op,
    meta: &ViewAndMutationMeta,
    plan: &Plan,
    v: &TrainView<'_>,
) -> Result<TrainPlan, String> {
    let n = v.user.len();
    let bf = FuncView::new(ctx, bwd).ok_or("the backward is not a function")?;
    let (bw_inputs, _) = bf.function_type(ctx);
    let (_, fw_results) = FuncView { op: fwd }.function_type(ctx);
    let mutated = meta.mutated_inp_runtime_indices();
    let n_mut = mutated.len();
    let n_out = meta.output_info.len();
    let slot = |p: usize| v.sl.of_inner[p];
    // Each slot's layout after the call (a mutated input's new value).
    let final_layout = |p: usize| -> Strided {
        let s = slot(p);
        match &meta.input_info[p].final_layout {
            Some(l) if s < n => Strided {
                size: l.size.iter().copied().collect(),
                stride: l.stride.iter().copied().collect(),
                offset: l.offset,
            },
            _ => v.layouts[s].clone(),
        }
    };
    // The layout of the new data the graph returns for a mutated input.
    let returned_layout = |p: usize| -> Strided {
        let s = slot(p);
        if s < n && meta.input_info[p].data_in_initial_layout {
            v.layouts[s].clone()
        } else {
            final_layout(p)
        }
    };
    // Members' layouts after the call (a metadata change is a trailing output).
    let member_final = |m: usize| -> Strided {
        if let Some(e) = v.sl.metadata_mutated.iter().position(|&x| x == m) {
            if let Some(l) = meta.output_info.get(v.num_user_out + e).and_then(|o| o.layout.as_ref()) {
                return Strided {
                    size: l.size.iter().copied().collect(),
                    stride: l.stride.iter().copied().collect(),
                    offset: l.offset,
                };
            }
        }
        v.layouts[m].clone()
    };
    // A user argument's layout after the call.
    let user_final = |i: usize| -> Strided {
        match v.sl.of_inner.iter().position(|&x| x == i) {
            Some(p) => final_layout(p),
            None => member_final(i),
        }
    };
    let mut out = TrainPlan { num_args: n, ..TrainPlan::default() };
    if v.user.iter().any(|a| !aot_ir::sym::is_static(&a.shape)) {
        // Routes between two layouts are resolved per call; routes by
        // storage among arguments that share one are element lists of
        // static layouts (a flat parameter buffer's views beside a
        // symbolic batch): the shared storages' layouts, before and after
        // the call, must be static.
        let symbolic_shared =
            (0..n).filter(|&i| v.user[i].base_view || v.sl.members.iter().any(|m| m.contains(&i))).any(|i| {
                !is_static(&v.layouts[i])
                    || !is_static(&user_final(i))
                    || v.user[i].storage_numel.is_some_and(aot_ir::sym::is_symbolic)
            }) || v.sl.bases.iter().any(|b| aot_ir::sym::is_symbolic(b.numel));
        if symbolic_shared {
            return Err(
                "training with symbolic sizes where arguments that share a storage have symbolic layouts is not supported yet"
                    .into(),
            );
        }
        // An output that views an argument reaching an element twice is
        // routed by logical position through its view recipe, replayed
        // on static layouts.
        let twice = plan.outputs.iter().enumerate().any(|(k, (from, rg))| {
            let arg = match from {
                OutputFrom::Arg(s) | OutputFrom::ViewOfArg { arg: s, .. } => *s,
                _ => return false,
            };
            *rg && meta.output_info.get(k).is_some_and(|o| o.output_type.is_alias())
                && arg < n
                && may_reach_an_element_twice(&v.layouts[arg].size, &v.layouts[arg].stride)
        });
        if twice {
            return Err("training with symbolic sizes where an output views an argument that may reach an element twice is not supported yet".into());
        }
    }
    // Tangent arguments.
    let mut tangent_arg_of: FxHashMap<usize, usize> = FxHashMap::default();
    for (j, &ty) in bw_inputs.iter().enumerate() {
        let Some(t) = bf.arg_attr(ctx, j, TANGENT).and_then(|a| ctx.attr_as_i64(a)) else { continue };
        let t = t as usize;
        let tt = ctx.as_tensor(ty).ok_or("a tangent is not a tensor")?;
        let from = if t < n_mut {
            let p = mutated[t];
            let s = slot(p);
            if s < n {
                // The tangent is in the final layout, the graph's value in the
                // one it returns (the call's, for `data_in_initial_layout`:
                // elements the final layout left get none).
                TangentFrom::MutatedArgs(vec![(s, pairs(&final_layout(p), &returned_layout(p)))])
            } else {
                let base = contiguous(&[v.layouts[s].size[0]]);
                let members = v.sl.members[s - n].iter().map(|&m| (m, pairs(&member_final(m), &base))).collect();
                TangentFrom::MutatedArgs(members)
            }
        } else if t < n_mut + n_out {
            TangentFrom::Output(t - n_mut)
        } else {
            TangentFrom::Zeros
        };
        tangent_arg_of.insert(t, out.tangents.len());
        out.tangents.push((from, tt.elem, tt.shape.clone()));
    }
    // Which user arguments' new values take a tangent: those whose
    // mutation autograd saw (as eager: their history changed), and every
    // view of a differentiable base whose root such a mutation changed.
    let mut taken: std::collections::BTreeSet<usize> = std::collections::BTreeSet::new();
    // Inner input `p`'s new value has a tangent argument of its own, which
    // carries its term of the objective through the backward graph.
    let traced = |p: usize| mutated.iter().position(|&q| q == p).is_some_and(|t| tangent_arg_of.contains_key(&t));
    // The tangent argument carrying the new value of slot `s`, and its
    // inner input.
    let mutated_slot_tangent = |s: usize| -> Option<(usize, usize)> {
        let t = mutated.iter().position(|&p| slot(p) == s)?;
        tangent_arg_of.get(&t).map(|&j| (j, mutated[t]))
    };
    // Where the tangent of argument `j`'s storage elements after the call
    // goes, and their layout there: the argument's new value (its tangent
    // argument) when the graph returns one, else its entry value.
    let value_of = |j: usize| -> (AliasTarget, Strided) {
        match mutated_slot_tangent(j) {
            Some((a, q)) => (AliasTarget::Tangent(a), returned_layout(q)),
            None => (AliasTarget::Slot(j), v.layouts[j].clone()),
        }
    };
    let mut routes: Vec<(usize, AliasTarget, Route)> = Vec::new();
    for (p, info) in meta.input_info.iter().enumerate() {
        if !(info.requires_grad && info.autograd_mutation) {
            continue;
        }
        let s = slot(p);
        if s >= n {
            taken.extend(v.sl.member_requires_grad.iter().copied().filter(|m| v.sl.members[s - n].contains(m)));
            continue;
        }
        taken.insert(s);
        if !traced(p) {
            // The new value is a view of the old: its tangent is the old's gradient.
            routes.push((s, AliasTarget::Slot(s), pairs(&final_layout(p), &v.layouts[s])));
        }
    }
    // Elements of a value laid out at `src` in argument `s`'s storage that
    // `held` (the layout of the value its tangent goes to) does not hold: a
    // metadata change moved `s` onto its siblings' elements. Their tangents
    // go where those elements' values came from, the new value of the
    // argument that returns them (its tangent argument) or else the entry
    // value of one that holds them.
    let facts = aot_ir::sym::Facts::of_func(ctx, fwd).unwrap_or_default();
    let spill = |src: &Strided, held: &Strided, s: usize| -> Result<Vec<(AliasTarget, Route)>, String> {
        if !is_static(src) || !is_static(held) {
            // Symbolic layouts: a value held whole needs no spill; one
            // that may leave elements out is not routed by element lists.
            return match src == held || held_whole(src, held, &facts) {
                true => Ok(Vec::new()),
                false => Err(format!(
                    "training with symbolic sizes where argument {s}'s new value may hold elements its tangent's value does not is not supported yet"
                )),
            };
        }
        let held = first_positions(held);
        let left = strided_indices(&src.size, &src.stride, src.offset)
            .into_iter()
            .map(|e| (!held.contains_key(&e)).then_some(e))
            .collect();
        let class = v.user[s].storage_class;
        let siblings = (0..n).filter(|&j| j != s && v.user[j].storage_class == class && v.conv.original(j) == j);
        let (out, uncovered) = route_left(left, siblings.map(&value_of));
        match uncovered {
            Some(e) => Err(format!(
                "argument {s}'s final layout reaches storage element {e}, which no argument holds: its gradient has nowhere to go"
            )),
            None => Ok(out),
        }
    };
    // (The graph returns a traced argument's data in its entry layout for
    // `data_in_initial_layout`.)
    for (t, &p) in mutated.iter().enumerate() {
        let s = slot(p);
        if s < n && meta.input_info[p].data_in_initial_layout && tangent_arg_of.contains_key(&t) {
            routes.extend(spill(&final_layout(p), &returned_layout(p), s)?.into_iter().map(|(to, q)| (s, to, q)));
        }
    }
    let touched_roots: Vec<usize> =
        taken.iter().filter(|&&i| v.user[i].base_view).map(|&i| v.user[i].storage_class).collect();
    // Argument `i`, then the other views of its differentiable base.
    let base_siblings = |i: usize| {
        let class = v.user[i].storage_class;
        std::iter::once(i).chain((0..n).filter(move |&j| {
            j != i && v.user[j].base_view && v.user[j].storage_class == class && v.conv.original(j) == j
        }))
    };
    for (i, a) in v.user.iter().enumerate() {
        if a.base_view && touched_roots.contains(&a.storage_class) && v.conv.original(i) == i && taken.insert(i) {
            // (Data mutated under no_grad, metadata in grad mode: the graph
            // returns its value with a tangent.)
            if v.sl.of_inner.iter().position(|&x| x == i).is_some_and(traced) {
                continue;
            }
            let fin = user_final(i);
            if fin == v.layouts[i] {
                routes.push((i, AliasTarget::Slot(i), identity(a.shape.iter().product::<i64>() as usize)));
                continue;
            }
            // Its metadata changed (under no_grad): each element of its final
            // value reaches the base through an argument that holds that
            // storage element, its own first: the argument's new value where
            // the graph wrote it, else its entry value.
            let (to, uncovered) = route_by_storage(&fin, base_siblings(i).map(&value_of));
            routes.extend(to.into_iter().map(|(target, q)| (i, target, q)));
            if let Some(s) = uncovered {
                return Err(format!(
                    "argument {i}'s final layout reaches storage element {s}, which no argument covers: its gradient has nowhere to go"
                ));
            }
        }
    }
    out.mutated_args = taken.into_iter().filter(|&i| v.conv.original(i) == i).collect();
    out.mutated_routes = routes;
    // Aliased outputs.
    let result_layout = |r: usize| -> Result<Strided, String> {
        let t = fw_results.get(r).and_then(|&t| ctx.as_tensor(t)).ok_or_else(|| format!("no forward result {r}"))?;
        Ok(contiguous(&t.shape))
    };
    for (k, (from, rg)) in plan.outputs.iter().enumerate() {
        if !rg || !meta.output_info[k].output_type.is_alias() {
            continue;
        }
        let (src, target, to) = match from {
            OutputFrom::Arg(s) | OutputFrom::ViewOfArg { arg: s, .. } => {
                let src = match from {
                    OutputFrom::ViewOfArg { layout, .. } => layout.clone(),
                    _ => match v.sl.of_inner.iter().position(|&x| x == *s) {
                        Some(p) => final_layout(p),
                        None => v.layouts[*s].clone(),
                    },
                };
                match mutated_slot_tangent(*s) {
                    Some((j, p)) => {
                        let to = returned_layout(p);
                        if *s < n {
                            out.alias_routes.extend(spill(&src, &to, *s)?.into_iter().map(|(t, q)| (k, t, q)));
                        }
                        (src, AliasTarget::Tangent(j), to)
                    }
                    // A view of a differentiable base may hold elements of
                    // its siblings (a metadata change moved it).
                    None if *s < n && v.user[*s].base_view => {
                        let (to, uncovered) = route_by_storage(&src, base_siblings(*s).map(&value_of));
                        if let Some(e) = uncovered {
                            return Err(format!(
                                "output {k} holds storage element {e}, which no argument covers: its gradient has nowhere to go"
                            ));
                        }
                        out.alias_routes.extend(to.into_iter().map(|(target, q)| (k, target, q)));
                        continue;
                    }
                    // An argument that reaches an element twice: by logical
                    // position through the output's view recipe.
                    None if *s < n
                        && may_reach_an_element_twice(&v.layouts[*s].size, &v.layouts[*s].stride)
                        && meta.output_info[k].views.as_ref().is_some_and(|x| !x.is_empty()) =>
                    {
                        let steps = meta.output_info[k].views.as_deref().unwrap_or_default();
                        let logical = contiguous(&v.layouts[*s].size);
                        let at = crate::compile::replay(ctx, fwd, steps, &logical)?;
                        (at, AliasTarget::Slot(*s), logical)
                    }
                    None => (src, AliasTarget::Slot(*s), v.layouts[*s].clone()),
                }
            }
            OutputFrom::ViewOfResult { result, layout } => {
                let j = *tangent_arg_of.get(result).ok_or("an intermediate base without a tangent")?;
                (layout.clone(), AliasTarget::Tangent(j), result_layout(*result)?)
            }
            OutputFrom::ViewOfOutput { output, layout, .. } => {
                let t = n_mut + output;
                let Some(&j) = tangent_arg_of.get(&t) else { continue };
                let to = match &plan.outputs[*output].0 {
                    OutputFrom::Restrided { layout, .. } => layout.clone(),
                    _ => result_layout(t)?,
                };
                (layout.clone(), AliasTarget::Tangent(j), to)
            }
            OutputFrom::Result(_) | OutputFrom::Restrided { .. } => continue,
        };
        out.alias_routes.push((k, target, pairs(&src, &to)));
    }
    // Gradients.
    let (_, bw_results) = bf.function_type(ctx);
    for r in 0..bw_results.len() {
        let p =
            bf.res_attr(ctx, r, GRAD).and_then(|a| ctx.attr_as_i64(a)).ok_or("a backward result without 'aot.grad'")?;
        out.grad_slots.push(slot(p as usize));
    }
    for (i, a) in v.user.iter().enumerate() {
        out.slot_types.push((a.elem, a.shape.iter().copied().collect()));
        out.reports_grad.push(a.requires_grad && !a.base_view);
        if a.base_view {
            let root = contiguous(&[a.storage_numel.unwrap_or(0)]);
            out.to_base.push((i, i, pairs(&v.layouts[i], &root)));
        }
    }
    for (b, base) in v.sl.bases.iter().enumerate() {
        let e = v.user[base.member].elem;
        out.slot_types.push((e, Shape::from_slice(&[base.numel])));
        if base.differentiable {
            out.to_base.push((n + b, base.member, identity(base.numel as usize)));
        }
    }
    let mut groups: FxHashMap<usize, Vec<usize>> = FxHashMap::default();
    for i in 0..n {
        groups.entry(v.conv.original(i)).or_default().push(i);
    }
    let mut groups: Vec<Vec<usize>> = groups.into_values().filter(|g| g.len() > 1).collect();
    groups.sort();
    out.dup_groups = groups;
    // Which arguments a gradient can reach: through a backward result that
    // a cotangent reached, or an aliased output's route. Arguments whose
    // gradient is assembled (duplicates, synthetic-base members, views of
    // a differentiable base, mutated arguments) count as reached.
    let mut reached = vec![false; out.slot_types.len()];
    for (r, &s) in out.grad_slots.iter().enumerate() {
        if bf.res_attr(ctx, r, NO_COTANGENT).is_none() {
            if let Some(x) = reached.get_mut(s) {
                *x = true;
            }
        }
    }
    for (_, t, _) in out.alias_routes.iter().chain(&out.mutated_routes) {
        if let AliasTarget::Slot(s) = t {
            if let Some(x) = reached.get_mut(*s) {
                *x = true;
            }
        }
    }
    let assembled = |i: usize| {
        v.user[i].base_view
            || out.dup_groups.iter().any(|g| g.contains(&i))
            || v.sl.members.iter().any(|m| m.contains(&i))
            || out.mutated_args.contains(&i)
            || out.mutated_routes.iter().any(|(a, _, _)| *a == i)
    };
    out.grad_reaches = (0..n).map(|i| reached.get(i).copied().unwrap_or(true) || assembled(i)).collect();
    out.saved_needs = saved_needs(ctx, bwd, &bf, bw_inputs.len(), &out);
    Ok(out)
}

/// `TrainPlan::saved_needs`: per saved value, the tangent arguments whose
/// presence keeps a read of it (`aot_codegen::absent::saved_value_needs`),
/// named by the user outputs and arguments that reach them (directly, or
/// routed as an alias's or a mutated argument's tangent). Empty unless the
/// tangent arguments are the last ones, as the runtime passes them.
fn saved_needs(
    ctx: &Context,
    bwd: Op,
    bf: &FuncView,
    num_inputs: usize,
    plan: &TrainPlan,
) -> Vec<Option<(Vec<usize>, Vec<usize>)>> {
    let first_tangent = num_inputs - plan.tangents.len();
    if (first_tangent..num_inputs).any(|j| bf.arg_attr(ctx, j, TANGENT).is_none()) {
        return Vec::new();
    }
    let Ok(needs) = aot_codegen::absent::saved_value_needs(ctx, bwd, first_tangent) else { return Vec::new() };
    // Per tangent argument: the outputs and arguments whose tangent reaches it.
    let mut sources: Vec<(BTreeSet<usize>, BTreeSet<usize>)> = plan
        .tangents
        .iter()
        .map(|(from, _, _)| match from {
            TangentFrom::Output(k) => (BTreeSet::from([*k]), BTreeSet::new()),
            TangentFrom::MutatedArgs(members) => (BTreeSet::new(), members.iter().map(|(a, _)| *a).collect()),
            TangentFrom::Zeros => Default::default(),
        })
        .collect();
    for (k, t, _) in &plan.alias_routes {
        if let AliasTarget::Tangent(j) = t {
            if let Some(s) = sources.get_mut(*j) {
                s.0.insert(*k);
            }
        }
    }
    for (i, t, _) in &plan.mutated_routes {
        if let AliasTarget::Tangent(j) = t {
            if let Some(s) = sources.get_mut(*j) {
                s.1.insert(*i);
            }
        }
    }
    needs
        .into_iter()
        .map(|n| match n {
            SavedNeed::Always => None,
            SavedNeed::Tangents(ts) => {
                let (mut outs, mut args) = (BTreeSet::new(), BTreeSet::new());
                for j in ts {
                    if let Some((o, a)) = sources.get(j) {
                        outs.extend(o);
                        args.extend(a);
                    }
                }
                Some((outs.into_iter().collect(), args.into_iter().collect()))
            }
        })
        .collect()
}
