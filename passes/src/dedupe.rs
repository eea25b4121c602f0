//! `dedupe`: duplicated arguments (`aot.same_as`, as in `f(x, x)`).
//!
//! `functionalize` has already decided how each duplicate was traced: a
//! duplicate of an object the function touches (data, metadata or a write
//! through an alias) is the same object as its original and the graph
//! ignores it (`#aot.input<dupe_of = k>`); any other duplicate was traced as
//! an independent input declared like its original. This pass turns that
//! into the calling convention, as AOTAutograd's dedupe wrapper does:
//!
//! - strategy 1 (duplicate not touched): the graph works for any
//!   duplication pattern, so the duplicate keeps its argument, takes its
//!   original's declaration (`aot.requires_grad`, `aot.layout`, ...) and
//!   loses `aot.same_as`; gradients are not double counted because each
//!   position is its own input;
//! - strategy 2: the argument is removed (`keep_arg_mask`, `add_dupe_map`,
//!   e.g. args `(a, b, a, c)` → mask `[T, T, F, T]`, map `[0, 1, 0, 2]`),
//!   and the metadata is updated as `remove_dupe_metadata` does: the input
//!   infos of removed duplicates are dropped, outputs that refer to an
//!   input are renumbered through `add_dupe_map`, tangents are recomputed
//!   (removed duplicates carried none). Unlike upstream, outputs that refer
//!   to intermediate bases keep their index.
//!
//! The user-facing convention is recorded first (`aot.convention`), and the
//! strategy-2 maps as `aot.dedupe = #aot.dedupe<keep_arg_mask = [..],
//! add_dupe_map = [..]>`: the runtime drops the duplicates before the call
//! and checks that each removed argument really is its original.

use crate::convention::Convention;
use crate::meta::{SetSource, ViewAndMutationMeta, META_ATTR};
use aot_dialects::func::{FuncOp, FuncView, LAYOUT, NON_LEAF, REQUIRES_GRAD, SAME_AS};
use aot_ir::pass::{Pass, PassInfo, PassOptions, PassState, StatisticSpec};
use aot_ir::*;

pub const DEDUPE_ATTR: &str = "aot.dedupe";

crate::record! {
    /// The strategy-2 maps, over the arguments before the pass.
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct DedupeInfo = "aot.dedupe" {
        pub keep_arg_mask: Vec<bool>,
        /// For every argument, its index after the pass (a removed duplicate
        /// maps to its original's).
        pub add_dupe_map: Vec<usize>,
    }
    check = |v: &DedupeInfo| {
        let kept = v.kept().len();
        if v.add_dupe_map.len() != v.keep_arg_mask.len() || v.add_dupe_map.iter().any(|&j| j >= kept) {
            return Err("'add_dupe_map' must map every argument to a kept one".to_string());
        }
        Ok(())
    };
}

impl DedupeInfo {
    /// The kept arguments, in order: the graph's arguments.
    pub fn kept(&self) -> Vec<usize> {
        (0..self.keep_arg_mask.len()).filter(|&i| self.keep_arg_mask[i]).collect()
    }
}

/// AOTAutograd's `remove_dupe_metadata`.
pub fn remove_dupe_metadata(m: &ViewAndMutationMeta, d: &DedupeInfo) -> ViewAndMutationMeta {
    let map = |i: usize| d.add_dupe_map[i];
    let mut out = m.clone();
    out.input_info = m
        .input_info
        .iter()
        .zip(&d.keep_arg_mask)
        .filter(|(_, &k)| k)
        .map(|(info, _)| {
            let mut info = info.clone();
            if let Some(SetSource::Input(j)) = info.set_source {
                info.set_source = Some(SetSource::Input(map(j)));
            }
            info
        })
        .collect();
    for o in out.output_info.iter_mut() {
        o.remap_inputs(map);
    }
    out.traced_tangents = out.compute_traced_tangents();
    out
}

struct Dedupe;

impl Pass for Dedupe {
    fn run(&mut self, ctx: &mut Context, func: Op, st: &mut PassState) -> Result<(), Diagnostic> {
        let Some(f) = FuncView::new(ctx, func) else { return Ok(()) };
        if !f.is_public_definition(ctx) {
            return Ok(());
        }
        let n = f.num_args(ctx);
        let dupes: Vec<usize> = (0..n).filter(|&i| f.arg_attr(ctx, i, SAME_AS).is_some()).collect();
        if dupes.is_empty() {
            return Ok(());
        }
        let err = |ctx: &Context, m: String| Diagnostic::op_error(ctx, func, m);
        let meta = ViewAndMutationMeta::required(ctx, func, "dedupe", "has duplicated arguments")?;
        let mut rw = Rewriter::new(ctx);
        let conv = Convention::record(&mut rw, func).map_err(|m| err(&rw, m))?;
        let mut attrs = f.all_arg_attrs(&rw);
        let declaration = [REQUIRES_GRAD, NON_LEAF, LAYOUT];
        let (mut independent, mut removed) = (0u64, 0u64);
        let mut keep = vec![true; n];
        for &i in &dupes {
            if let Some(k) = meta.input_info[i].dupe_of {
                if k >= i || meta.input_info[k].dupe_of.is_some() {
                    return Err(err(&rw, format!("input {i}: 'dupe_of = {k}' must name an earlier, kept input")));
                }
                keep[i] = false;
                removed += 1;
            } else {
                // Strategy 1: an independent input declared like its original.
                let o = conv.original(i);
                let from: Vec<NamedAttr> =
                    attrs[o].iter().copied().filter(|a| declaration.contains(&rw.sym_str(a.name))).collect();
                attrs[i].retain(|a| rw.sym_str(a.name) != SAME_AS);
                attrs[i].extend(from);
                rw.sort_named_attrs(&mut attrs[i]);
                independent += 1;
            }
        }
        f.set_all_arg_attrs(&mut rw, attrs);
        if removed > 0 {
            let mut add_dupe_map = Vec::with_capacity(n);
            let mut next = 0;
            for (i, &kept) in keep.iter().enumerate() {
                if kept {
                    add_dupe_map.push(next);
                    next += 1;
                } else {
                    let k = meta.input_info[i].dupe_of.expect("removed duplicates have an original");
                    add_dupe_map.push(add_dupe_map[k]);
                }
            }
            let info = DedupeInfo { keep_arg_mask: keep, add_dupe_map };
            f.erase_args(&mut rw, &info.keep_arg_mask)
                .map_err(|m| err(&rw, format!("cannot remove a duplicate the graph uses: {m}")))?;
            let new_meta = remove_dupe_metadata(&meta, &info);
            let a = new_meta.to_attr(&mut rw);
            rw.set_attr(func, META_ATTR, a);
            let a = info.to_attr(&mut rw);
            rw.set_attr(func, DEDUPE_ATTR, a);
        }
        st.add_stat("num-independent-dupes", independent);
        st.add_stat("num-removed-dupes", removed);
        Ok(())
    }
}

inventory::submit! {
    PassInfo {
        argument: "dedupe",
        name: "Dedupe",
        summary: "Turn duplicated arguments (aot.same_as) into AOTAutograd's dedupe calling convention",
        description: "A duplicate that functionalize traced as an independent input (its object is never touched) \
keeps its argument and its original's declaration (strategy 1: the graph works for any duplication pattern). A \
duplicate of a mutated object is removed from the signature (strategy 2): aot.dedupe records keep_arg_mask and \
add_dupe_map for the runtime, and aot.meta is updated as remove_dupe_metadata does. The user-facing convention is \
recorded as aot.convention. Requires collect-metadata to have run.",
        anchor: Some(FuncOp::NAME),
        options: &[],
        statistics: &[
            StatisticSpec { name: "num-independent-dupes", description: "Duplicates kept as independent inputs (strategy 1)" },
            StatisticSpec { name: "num-removed-dupes", description: "Duplicates removed from the signature (strategy 2)" },
        ],
        create: |_: &PassOptions| Ok(Box::new(Dedupe)),
    }
}
