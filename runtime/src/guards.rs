//! Guards: the checks a compiled function runs on its arguments at every
//! call, so that a call which breaks the convention the function was
//! compiled for fails with a clear error instead of computing a wrong
//! answer.
//!
//! What is checked, per the convention (all derived at compile time):
//! - each argument's dtype, sizes, strides (of the dimensions longer than
//!   one: the others address nothing else) and storage offset, whether it
//!   requires grad (both ways) and, if so, whether it is a leaf; the exact
//!   storage length where the function resizes the storage;
//! - duplicates removed by `dedupe`: the argument really is its original
//!   ("argument 2 would be a duplicate of argument 0");
//! - arguments compiled as views of one storage (a synthetic base, or any
//!   mutated shared storage) really share one storage, long enough;
//! - no unexpected aliasing: an argument the function mutates shares no
//!   memory with an argument it was compiled as independent of. This
//!   catches a call with duplicates or overlapping views of a function
//!   compiled for distinct arguments (pytorch issue 139789). Arguments are
//!   bucketed by storage and, within a storage, grouped by the address
//!   sweep of `overlap`, so thousands of views of one storage cost
//!   O(n log n), not all pairs.

use crate::overlap::{definitely_do_not_overlap, overlap_groups, View};
use crate::tensor::Tensor;
use aot_ir::{ElemType, Shape};
use rustc_hash::FxHashMap;

/// What one argument must look like.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ArgGuard {
    pub dtype: ElemType,
    pub size: Shape,
    pub stride: Shape,
    pub offset: i64,
    pub requires_grad: bool,
    /// Checked only when `requires_grad`.
    pub is_leaf: bool,
    /// The exact element count of the storage, where the function resizes it.
    pub storage_len: Option<usize>,
}

#[derive(Clone, Debug, Default)]
pub struct Guards {
    pub args: Vec<ArgGuard>,
    /// For a function with symbolic sizes (`aot_ir::sym`), what it
    /// declares about its symbols: a call binds them from the arguments
    /// (whose declared sizes are the [`ArgGuard`]s'), checks their ranges
    /// and the guards, then checks every [`ArgGuard`] evaluated.
    pub symbols: Option<aot_ir::sym::Facts>,
    /// `(i, j)`: argument `i` must be the same tensor as argument `j < i`.
    pub same_object: Vec<(usize, usize)>,
    /// Arguments that must share one storage of at least this many elements.
    pub shared_storage: Vec<(Vec<usize>, usize)>,
    /// Arguments with equal classes were compiled as views of one storage.
    pub storage_class: Vec<usize>,
    /// Arguments whose data or metadata the function changes.
    pub mutated: Vec<bool>,
}

/// Whether strides `a` and `b` address the same elements for `size`: a
/// dimension of size 1 is only ever indexed at 0, so its stride is
/// arbitrary (PyTorch's contiguity ignores it too: `x.t()` of a `1 x n`
/// tensor is contiguous, with strides `[1, n]`), and an empty tensor
/// addresses nothing.
fn same_addressing(size: &[i64], a: &[i64], b: &[i64]) -> bool {
    if a.len() != b.len() || a.len() != size.len() {
        return false;
    }
    size.contains(&0) || size.iter().zip(a.iter().zip(b)).all(|(&n, (x, y))| n == 1 || x == y)
}

/// The values of a function's symbols for a call with `args`: read from
/// the arguments' sizes against their declared `types` (`None`: not a
/// tensor argument) and from the 0-d arguments `symbol_args` names
/// (`(argument, symbol)`, [`aot_ir::sym::SYMBOL_ARG_ATTR`]), checked
/// against `facts` (ranges and guards). What the interpreter, the
/// convention's guards and per-size native code all bind a call with.
pub fn bind_symbols(
    types: &[Option<&aot_ir::TensorType>],
    symbol_args: &[(usize, u32)],
    facts: &aot_ir::sym::Facts,
    args: &[Tensor],
) -> Result<aot_ir::sym::Bindings, String> {
    let mut given = Vec::with_capacity(symbol_args.len());
    for &(i, k) in symbol_args {
        let v = args.get(i).and_then(|a| a.read_i64().first().copied());
        given.push((k, v.ok_or_else(|| format!("argument {i} holds no value for s{k}"))?));
    }
    let sizes: Vec<Shape> = args.iter().map(|a| a.sizes()).collect();
    let sizes: Vec<&[i64]> = sizes.iter().map(|s| &s[..]).collect();
    aot_ir::sym::Bindings::bind_with(&given, types, &sizes, facts)
}

fn view_of(t: &Tensor) -> View {
    View::new(&t.sizes(), &t.strides(), t.offset())
}

impl Guards {
    /// Checks the arguments of one call; the values of the function's
    /// symbols in it (none for a function with static sizes).
    pub fn check(&self, args: &[Tensor]) -> Result<aot_ir::sym::Bindings, String> {
        if args.len() != self.args.len() {
            return Err(format!("the function takes {} arguments, got {}", self.args.len(), args.len()));
        }
        let syms = match &self.symbols {
            Some(facts) => {
                let types: Vec<aot_ir::TensorType> =
                    self.args.iter().map(|g| aot_ir::TensorType::new(g.size.clone(), g.dtype)).collect();
                let types: Vec<Option<&aot_ir::TensorType>> = types.iter().map(Some).collect();
                bind_symbols(&types, &[], facts, args)?
            }
            None => aot_ir::sym::Bindings::none(),
        };
        for (i, (a, g)) in args.iter().zip(&self.args).enumerate() {
            let evaluated;
            let g = if self.symbols.is_some() {
                let (size, stride, offset) =
                    syms.eval_layout(&g.size, &g.stride, g.offset).map_err(|e| e.to_string())?;
                evaluated = ArgGuard { size, stride, offset, ..g.clone() };
                &evaluated
            } else {
                g
            };
            if a.dtype() != g.dtype || a.sizes() != g.size {
                return Err(format!(
                    "argument {i}: the function was compiled for a {} tensor of shape {:?}, but got a {} tensor of shape {:?}",
                    g.dtype,
                    g.size.to_vec(),
                    a.dtype(),
                    a.sizes().to_vec()
                ));
            }
            if !same_addressing(&a.sizes()[..], &a.strides()[..], &g.stride[..]) || a.offset() != g.offset {
                return Err(format!(
                    "argument {i}: the function was compiled for strides {:?} at storage offset {}, but got strides {:?} at offset {} (recompile for this layout)",
                    g.stride.to_vec(),
                    g.offset,
                    a.strides().to_vec(),
                    a.offset()
                ));
            }
            let rg = a.requires_grad();
            if rg != g.requires_grad {
                return Err(if rg {
                    format!("argument {i} requires grad, but the function was compiled for an argument that does not (recompile with requires_grad)")
                } else {
                    format!(
                        "argument {i} does not require grad, but the function was compiled for an argument that does"
                    )
                });
            }
            if rg && a.is_leaf() != g.is_leaf {
                let what = |leaf: bool| if leaf { "a leaf" } else { "a non-leaf" };
                return Err(format!(
                    "argument {i} is {}, but the function was compiled for {}",
                    what(a.is_leaf()),
                    what(g.is_leaf)
                ));
            }
            if let Some(n) = g.storage_len {
                let len = a.storage().len();
                if len != n {
                    return Err(format!(
                        "argument {i}: the function resizes its storage and was compiled for a storage of {n} elements, but got one of {len}"
                    ));
                }
            }
        }
        for &(i, j) in &self.same_object {
            if !args[i].same(&args[j]) {
                return Err(format!(
                    "argument {i} would be a duplicate of argument {j}: the function was compiled for the same tensor in both places, but got two distinct tensors"
                ));
            }
        }
        for (members, len) in &self.shared_storage {
            let first = members[0];
            for &m in &members[1..] {
                if !args[m].shares_storage(&args[first]) {
                    return Err(format!(
                        "arguments {first} and {m} were compiled as views of one storage, but got tensors with different storages"
                    ));
                }
            }
            let have = args[first].storage().len();
            if have < *len {
                return Err(format!(
                    "arguments {members:?} were compiled as views of a storage of {len} elements, but theirs has {have}"
                ));
            }
        }
        self.check_aliasing(args)?;
        Ok(syms)
    }

    fn check_aliasing(&self, args: &[Tensor]) -> Result<(), String> {
        if !self.mutated.iter().any(|&m| m) {
            return Ok(());
        }
        let mut buckets: FxHashMap<u64, Vec<usize>> = FxHashMap::default();
        for (i, a) in args.iter().enumerate() {
            buckets.entry(a.storage().id()).or_default().push(i);
        }
        let mut shared: Vec<&Vec<usize>> =
            buckets.values().filter(|b| b.len() > 1 && b.iter().any(|&i| self.mutated[i])).collect();
        shared.sort_by_key(|b| b[0]);
        for bucket in shared {
            // Only arguments in one overlap group can clash: the address
            // sweep finds the groups without testing all pairs.
            let views: Vec<View> = bucket.iter().map(|&i| view_of(&args[i])).collect();
            let (groups, _) = overlap_groups(&views);
            for group in groups.iter().filter(|g| g.len() > 1) {
                let members: Vec<usize> = group.iter().map(|&k| bucket[k]).collect();
                let first_class = self.storage_class[members[0]];
                if members.iter().all(|&i| self.storage_class[i] == first_class) {
                    continue;
                }
                for &m in members.iter().filter(|&&m| self.mutated[m]) {
                    for &j in &members {
                        if j == m || self.storage_class[j] == self.storage_class[m] {
                            continue;
                        }
                        let (lo, hi) = (m.min(j), m.max(j));
                        if args[j].same(&args[m]) {
                            return Err(format!(
                                "arguments {lo} and {hi} are the same tensor, and the function mutates argument {m}, but it was compiled for distinct tensors (recompile with the duplicate)"
                            ));
                        }
                        if !definitely_do_not_overlap(&view_of(&args[j]), &view_of(&args[m])) {
                            return Err(format!(
                                "arguments {lo} and {hi} may overlap in memory, and the function mutates argument {m}, but it was compiled for independent arguments (recompile with this aliasing)"
                            ));
                        }
                    }
                }
            }
        }
        Ok(())
    }
}
