//! The calling convention a function is specialised for: per argument its
//! type, whether it requires grad (and is a leaf), whether it duplicates an
//! earlier argument (`aot.same_as`), and where it lies in a storage shared
//! with other arguments (`aot.layout`, described by the function attribute
//! `aot.storages`).
//!
//! The convention is what AOTAutograd learns from example inputs and what
//! the runtime's guards check at every call. It starts as argument
//! attributes; the first pass that changes the signature (`dedupe`,
//! `synthetic-base`) records it as `aot.convention` so that the user-facing
//! convention survives the rewrite:
//!
//! ```text
//! aot.convention = #aot.convention<args = [#aot.arg<type = tensor<4xf32>, requires_grad = true>,
//!                                          #aot.arg<type = tensor<4xf32>, same_as = 0>],
//!                                  storages = [#aot.storage<id = 0, numel = 8, requires_grad = false>]>
//! ```
//!
//! Invariants: `same_as` names an earlier argument of the same type;
//! layouts are in bounds of their declared storage.

use crate::meta::Strided;
use aot_dialects::func::{FuncView, LAYOUT, NON_LEAF, REQUIRES_GRAD, SAME_AS, STORAGES};
use aot_ir::*;

pub const CONVENTION_ATTR: &str = "aot.convention";

crate::record! {
    /// Where an argument lies in a storage shared with other arguments
    /// (`#aot.layout`, an argument attribute).
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct ArgLayout = "aot.layout" {
        pub storage: i64,
        pub offset: i64 as or_default,
        pub strides: Vec<i64>,
    }
}

crate::record! {
    /// One argument of the convention (`#aot.arg`).
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct ArgConvention = "aot.arg" {
        pub ty: Type => "type",
        pub requires_grad: bool as flag,
        pub non_leaf: bool as flag,
        pub same_as: Option<usize>,
        pub layout: Option<ArgLayout> as nested_opt,
    }
}

crate::record! {
    /// A storage shared by arguments (`#aot.storage`, in the function
    /// attribute `aot.storages`).
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct StorageDecl = "aot.storage" {
        pub id: i64,
        pub numel: Option<i64>,
        /// A differentiable base: its views (the arguments) require grad and are not leaves.
        pub requires_grad: bool as or_default,
    }
    check = |s: &StorageDecl| -> Result<(), String> {
        match s.numel {
            Some(n) if n < 0 && !aot_ir::sym::is_symbolic(n) => Err("'numel' must be a non-negative integer".into()),
            _ => Ok(()),
        }
    };
}

crate::record! {
    /// The user-facing convention, recorded as `aot.convention` by the first
    /// pass that changes the signature.
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct Convention = "aot.convention" {
        pub args: Vec<ArgConvention> as nested_list,
        pub storages: Vec<StorageDecl> as nested_list,
    }
    check = |c: &Convention| -> Result<(), String> {
        match c.args.iter().enumerate().find(|(i, a)| a.same_as.is_some_and(|k| k >= *i)) {
            Some((i, _)) => Err(format!("argument {i}: 'same_as' must name an earlier argument")),
            None => Ok(()),
        }
    };
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResolvedArg {
    pub shape: Vec<i64>,
    pub elem: ElemType,
    pub layout: Strided,
    pub requires_grad: bool,
    /// Meaningful only when `requires_grad`.
    pub is_leaf: bool,
    /// Arguments with equal classes are declared in one storage.
    pub storage_class: usize,
    /// The storage's element count, when declared.
    pub storage_numel: Option<i64>,
    /// A view of a differentiable base storage (its gradient is the base's).
    pub base_view: bool,
}

impl Convention {
    /// The convention written as argument attributes of `func`.
    pub fn from_arg_attrs(ctx: &Context, func: Op) -> Result<Convention, String> {
        let f = FuncView::new(ctx, func).ok_or("not a function")?;
        let (inputs, _) = f.function_type(ctx);
        let mut args = Vec::new();
        for (i, &ty) in inputs.iter().enumerate() {
            let same_as = match f.arg_attr(ctx, i, SAME_AS) {
                None => None,
                Some(a) => match ctx.attr_as_i64(a) {
                    Some(k) if k >= 0 && (k as usize) < i => Some(k as usize),
                    _ => return Err(format!("argument {i}: 'aot.same_as' must name an earlier argument")),
                },
            };
            let layout = f
                .arg_attr(ctx, i, LAYOUT)
                .map(|a| ArgLayout::from_attr(ctx, a))
                .transpose()
                .map_err(|m| format!("argument {i}: {m}"))?;
            args.push(ArgConvention {
                ty,
                requires_grad: f.arg_has(ctx, i, REQUIRES_GRAD),
                non_leaf: f.arg_has(ctx, i, NON_LEAF),
                same_as,
                layout,
            });
        }
        let storages = match ctx.get_attr(func, STORAGES).map(|a| ctx.attr_data(a)) {
            None => Vec::new(),
            Some(AttrData::Array(items)) => {
                items.iter().map(|&a| StorageDecl::from_attr(ctx, a)).collect::<Result<Vec<_>, _>>()?
            }
            Some(_) => return Err("'aot.storages' must be a list of #aot.storage".into()),
        };
        Ok(Convention { args, storages })
    }

    /// The function's user-facing convention: `aot.convention` when a pass
    /// recorded it, else its argument attributes.
    pub fn of_func(ctx: &Context, func: Op) -> Result<Convention, String> {
        match ctx.get_attr(func, CONVENTION_ATTR) {
            Some(a) => Self::from_attr(ctx, a),
            None => Self::from_arg_attrs(ctx, func),
        }
    }

    /// Records the convention as `aot.convention` unless already recorded;
    /// called by every pass that changes the signature.
    pub fn record(rw: &mut Rewriter<'_>, func: Op) -> Result<Convention, String> {
        if let Some(a) = rw.get_attr(func, CONVENTION_ATTR) {
            return Self::from_attr(rw, a);
        }
        let c = Self::from_arg_attrs(rw, func)?;
        let a = c.to_attr(rw);
        rw.set_attr(func, CONVENTION_ATTR, a);
        Ok(c)
    }

    /// The layouts of arguments whose types have symbolic sizes, made
    /// symbolic: an argument alone over a storage of its own, laid out
    /// densely in some order of its dimensions in the example (`sizes[i]`,
    /// a channels-last batch), takes the strides that order gives its
    /// symbolic sizes, and its storage as many elements as it has (the
    /// form the verifier takes with symbolic sizes). Other layouts stay as
    /// the example gave them, which the verifier refuses with symbolic
    /// sizes.
    pub fn generalize_layouts(&mut self, ctx: &Context, sizes: &[Vec<i64>]) {
        for i in 0..self.args.len() {
            let Some(t) = ctx.as_tensor(self.args[i].ty) else { continue };
            let (Some(l), Some(example)) = (&self.args[i].layout, sizes.get(i)) else { continue };
            if !t.is_symbolic() || l.offset != 0 || example.len() != t.rank() {
                continue;
            }
            let sid = l.storage;
            let alone =
                self.args.iter().enumerate().all(|(j, a)| j == i || a.layout.as_ref().is_none_or(|m| m.storage != sid));
            let Some(decl) = self.storages.iter().position(|d| d.id == sid) else { continue };
            let numel = aot_ir::size::checked_numel(example);
            if !alone || self.storages[decl].numel != numel {
                continue;
            }
            let Some(order) = aot_ir::sym::dense_permutation(example, &l.strides) else { continue };
            let (Ok(strides), Ok(n)) = (aot_ir::sym::strides_in_order(&t.shape, &order), aot_ir::sym::numel(&t.shape))
            else {
                continue;
            };
            if let Some(l) = self.args[i].layout.as_mut() {
                l.strides = strides;
            }
            self.storages[decl].numel = Some(n);
        }
    }

    /// Writes the convention onto `func` as argument attributes
    /// (`aot.requires_grad`, `aot.non_leaf`, `aot.same_as`, `aot.layout`)
    /// and the function attribute `aot.storages`, replacing any convention
    /// written before: what [`Convention::from_arg_attrs`] reads back.
    /// Every argument's type must be the function's.
    pub fn apply(&self, rw: &mut Rewriter<'_>, func: Op) -> Result<(), String> {
        let f = FuncView::new(rw, func).ok_or("the entry is not a function")?;
        let (inputs, _) = f.function_type(rw);
        if self.args.len() != inputs.len() {
            return Err(format!(
                "the function takes {} arguments but the convention gives {}",
                inputs.len(),
                self.args.len()
            ));
        }
        if let Some(i) = (0..inputs.len()).find(|&i| inputs[i] != self.args[i].ty) {
            return Err(format!("argument {i}: the convention's type is not the function's"));
        }
        if let Some(i) = (0..self.args.len()).find(|&i| self.args[i].same_as.is_some_and(|k| k >= i)) {
            return Err(format!("argument {i}: 'same_as' must name an earlier argument"));
        }
        let mut all = f.all_arg_attrs(rw);
        let unit = rw.unit_attr();
        let written = [REQUIRES_GRAD, NON_LEAF, SAME_AS, LAYOUT];
        for (i, a) in self.args.iter().enumerate() {
            all[i].retain(|x| !written.contains(&rw.sym_str(x.name)));
            let mut add = |rw: &mut Rewriter<'_>, name: &str, value: Attribute| {
                let s = rw.sym(name);
                all[i].push(NamedAttr { name: s, value });
            };
            if let Some(k) = a.same_as {
                let v = rw.i64_attr(k as i64);
                add(rw, SAME_AS, v);
                continue;
            }
            if let Some(l) = &a.layout {
                let v = l.to_attr(rw);
                add(rw, LAYOUT, v);
            }
            if a.requires_grad {
                add(rw, REQUIRES_GRAD, unit);
            }
            if a.non_leaf {
                add(rw, NON_LEAF, unit);
            }
        }
        f.set_all_arg_attrs(rw, all);
        if self.storages.is_empty() {
            rw.remove_attr(func, STORAGES);
        } else {
            let entries: Vec<Attribute> = self.storages.iter().map(|s| s.to_attr(rw)).collect();
            let a = rw.array_attr(entries);
            rw.set_attr(func, STORAGES, a);
        }
        Ok(())
    }

    /// Per argument, whether it requires grad: its own flag, a duplicate's
    /// original's, or a view of a differentiable base storage.
    pub fn requires_grad(&self) -> Vec<bool> {
        (0..self.args.len())
            .map(|i| {
                let a = &self.args[self.original(i)];
                a.requires_grad
                    || a.layout.as_ref().is_some_and(|l| self.storage(l.storage).is_some_and(|s| s.requires_grad))
            })
            .collect()
    }

    /// The argument whose declaration argument `i` shares (itself unless a duplicate).
    pub fn original(&self, mut i: usize) -> usize {
        // (Only an earlier argument counts: a convention built by hand may
        // name itself or a later one, which would never end.)
        while let Some(k) = self.args[i].same_as.filter(|&k| k < i) {
            i = k;
        }
        i
    }

    fn storage(&self, id: i64) -> Option<&StorageDecl> {
        self.storages.iter().find(|s| s.id == id)
    }

    /// Every argument with duplicates resolved to their originals.
    pub fn resolve(&self, ctx: &Context) -> Result<Vec<ResolvedArg>, String> {
        let mut classes: Vec<i64> = Vec::new();
        let mut out = Vec::new();
        for i in 0..self.args.len() {
            let o = self.original(i);
            let a = &self.args[o];
            let t = ctx.as_tensor(a.ty).ok_or_else(|| format!("argument {i} is not a tensor"))?;
            let shape = t.shape.to_vec();
            let (layout, class_key, numel, base_rg) = match &a.layout {
                Some(l) => {
                    if l.strides.len() != shape.len() {
                        return Err(format!("argument {o}: 'aot.layout' strides do not match its rank"));
                    }
                    let decl = self.storage(l.storage);
                    (
                        Strided { size: shape.clone(), stride: l.strides.clone(), offset: l.offset },
                        l.storage,
                        decl.and_then(|d| d.numel),
                        decl.is_some_and(|d| d.requires_grad),
                    )
                }
                // Own storages get classes that no declared id can take.
                None => (
                    Strided {
                        size: shape.clone(),
                        stride: aot_dialects::view::contiguous_strides(&shape).to_vec(),
                        offset: 0,
                    },
                    i64::MIN + o as i64,
                    // An expression for symbolic sizes (`aot_ir::sym`).
                    aot_ir::sym::numel(&shape).ok(),
                    false,
                ),
            };
            let storage_class = match classes.iter().position(|&c| c == class_key) {
                Some(c) => c,
                None => {
                    classes.push(class_key);
                    classes.len() - 1
                }
            };
            let requires_grad = a.requires_grad || base_rg;
            let is_leaf = if base_rg { false } else { !a.non_leaf };
            out.push(ResolvedArg {
                shape,
                elem: t.elem,
                layout,
                requires_grad,
                is_leaf,
                storage_class,
                storage_numel: numel,
                base_view: base_rg,
            });
        }
        Ok(out)
    }
}
