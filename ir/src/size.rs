//! Checked size arithmetic and the resource limits every layer enforces.
//!
//! Shapes, strides and offsets come from users (IR text, input files, an
//! embedder's tensors), so every element count, byte size, storage extent and
//! index computed from them goes through this module: the functions return
//! `None` (or an error) instead of wrapping, and callers turn that into a
//! located diagnostic. Invariants this module establishes for its callers:
//! a shape accepted by [`checked_numel`] has non-negative dims and an element
//! count that fits `i64`; a layout accepted by [`checked_extent`] addresses
//! only storage elements in `[lo, hi)` with `0 <= lo` and `hi` in `i64`; and
//! a size accepted by [`check_alloc`] is at most [`Limits::max_alloc_bytes`].
//!
//! [`Limits`] are process-wide (as LLVM's `cl::opt`s): read once from the
//! environment (`AOT_MAX_ALLOC_BYTES`, `AOT_MAX_NESTING`, `AOT_MAX_RANK`,
//! `AOT_MAX_INLINE_OPS`, `AOT_MAX_EXECUTED_OPS`) and overridable by tools
//! and embedders through [`Limits::set`]. `docs/limits.md` documents them.

use crate::types::{ElemType, DYNAMIC};
use smallvec::SmallVec;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

/// The element count of `shape`, or `None` when a dim is negative or the
/// product overflows `i64`.
pub fn checked_numel(shape: &[i64]) -> Option<i64> {
    let mut n: i64 = 1;
    for &d in shape {
        if d < 0 {
            return None;
        }
        n = n.checked_mul(d)?;
    }
    Some(n)
}

/// Bytes of a dense tensor of `shape` and `elem`, or `None` on overflow or a
/// negative dim.
pub fn checked_byte_size(shape: &[i64], elem: ElemType) -> Option<i64> {
    checked_numel(shape)?.checked_mul(elem.byte_size() as i64)
}

/// The half-open range of storage elements `[lo, hi)` that a strided view
/// addresses, or `None` when a size is negative, the strides and sizes have
/// different lengths, or any sum or product overflows `i64`. A view with a
/// zero-size dim addresses nothing and gives `Some((offset, offset))`.
/// Negative strides are allowed here (the range covers them); whether a
/// layer accepts them is its own rule.
pub fn checked_extent(size: &[i64], stride: &[i64], offset: i64) -> Option<(i64, i64)> {
    if size.len() != stride.len() || size.iter().any(|&s| s < 0) {
        return None;
    }
    if size.contains(&0) {
        return Some((offset, offset));
    }
    let (mut lo, mut hi) = (offset, offset);
    for (&n, &s) in size.iter().zip(stride) {
        let reach = (n - 1).checked_mul(s)?;
        if reach >= 0 {
            hi = hi.checked_add(reach)?;
        } else {
            lo = lo.checked_add(reach)?;
        }
    }
    Some((lo, hi.checked_add(1)?))
}

/// `Σ index[d] * stride[d] + offset`, checked.
pub fn checked_linear_index(index: &[i64], stride: &[i64], offset: i64) -> Option<i64> {
    let mut at = offset;
    for (&i, &s) in index.iter().zip(stride) {
        at = at.checked_add(i.checked_mul(s)?)?;
    }
    Some(at)
}

/// The contiguous row-major strides of `shape`, or `None` on overflow.
pub fn checked_contiguous_strides(shape: &[i64]) -> Option<Vec<i64>> {
    let mut strides = vec![0i64; shape.len()];
    let mut acc: i64 = 1;
    for (i, &d) in shape.iter().enumerate().rev() {
        if d < 0 {
            return None;
        }
        strides[i] = acc;
        acc = acc.checked_mul(d.max(1))?;
    }
    Some(strides)
}

/// Why a tensor or memref type is invalid.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ShapeError {
    #[error("rank {rank} is more than the limit of {limit} (raise it with AOT_MAX_RANK)")]
    RankTooLarge { rank: usize, limit: usize },
    #[error("dimension {index} has negative size {dim}")]
    NegativeDim { index: usize, dim: i64 },
    #[error("its element count overflows a 64-bit integer")]
    NumelOverflow,
    #[error("its size in bytes overflows a 64-bit integer")]
    ByteSizeOverflow,
    #[error("its strided layout addresses elements beyond the 64-bit range")]
    ExtentOverflow,
}

/// Checks the shape of a tensor or memref type: rank within
/// [`Limits::max_rank`], no negative dim, and an element count and byte size
/// that fit `i64`. Dynamic dims (`?`) and symbolic sizes
/// ([`crate::sym`]) are unknown sizes rather than negative ones and do not
/// enter the counts.
/// `layout` is a memref's explicit `(strides, offset)`; its extent must be
/// computable in `i64` too.
pub fn check_shape(shape: &[i64], elem: ElemType, layout: Option<(&[i64], i64)>) -> Result<(), ShapeError> {
    let limit = Limits::max_rank();
    if shape.len() > limit {
        return Err(ShapeError::RankTooLarge { rank: shape.len(), limit });
    }
    let unknown = |d: i64| d == DYNAMIC || crate::sym::is_symbolic(d);
    let known: SmallVec<[i64; 8]> = shape.iter().copied().filter(|&d| !unknown(d)).collect();
    if let Some((index, &dim)) = shape.iter().enumerate().find(|&(_, &d)| d < 0 && !unknown(d)) {
        return Err(ShapeError::NegativeDim { index, dim });
    }
    checked_numel(&known).ok_or(ShapeError::NumelOverflow)?;
    checked_byte_size(&known, elem).ok_or(ShapeError::ByteSizeOverflow)?;
    if let Some((strides, offset)) = layout {
        // (Symbolic strides or offset, a view into a buffer of a symbolic
        // size, have no value here: their encodings are not numbers. They
        // are evaluated, with checked arithmetic, for each call's sizes.)
        let symbolic_layout = unknown(offset) || strides.iter().any(|&st| unknown(st));
        if known.len() == shape.len() && !symbolic_layout {
            checked_extent(shape, strides, offset).ok_or(ShapeError::ExtentOverflow)?;
        }
    }
    Ok(())
}

/// Which limit a value exceeded; used in diagnostics.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Limit {
    AllocBytes,
    Nesting,
    Rank,
    InlineOps,
    ExecutedOps,
}

impl Limit {
    /// The environment variable that sets this limit.
    pub fn env_var(self) -> &'static str {
        match self {
            Limit::AllocBytes => "AOT_MAX_ALLOC_BYTES",
            Limit::Nesting => "AOT_MAX_NESTING",
            Limit::Rank => "AOT_MAX_RANK",
            Limit::InlineOps => "AOT_MAX_INLINE_OPS",
            Limit::ExecutedOps => "AOT_MAX_EXECUTED_OPS",
        }
    }

    fn index(self) -> usize {
        self as usize
    }

    fn default_value(self) -> u64 {
        match self {
            Limit::AllocBytes => default_alloc_limit(),
            Limit::Nesting => 256,
            Limit::Rank => 64,
            Limit::InlineOps => 1_000_000,
            Limit::ExecutedOps => 100_000_000,
        }
    }
}

const LIMIT_COUNT: usize = 5;
const ALL_LIMITS: [Limit; LIMIT_COUNT] =
    [Limit::AllocBytes, Limit::Nesting, Limit::Rank, Limit::InlineOps, Limit::ExecutedOps];

/// Process-wide resource limits. Reading a limit is one relaxed atomic load.
pub struct Limits {
    values: [AtomicU64; LIMIT_COUNT],
}

impl Limits {
    fn global() -> &'static Limits {
        static LIMITS: OnceLock<Limits> = OnceLock::new();
        LIMITS.get_or_init(|| {
            let values = ALL_LIMITS.map(|l| {
                let v =
                    std::env::var(l.env_var()).ok().and_then(|s| parse_size(&s)).unwrap_or_else(|| l.default_value());
                AtomicU64::new(v)
            });
            Limits { values }
        })
    }

    /// The current value of `limit`.
    pub fn get(limit: Limit) -> u64 {
        Self::global().values[limit.index()].load(Ordering::Relaxed)
    }

    /// Overrides `limit` for the whole process (tools' options, embedders).
    pub fn set(limit: Limit, value: u64) {
        Self::global().values[limit.index()].store(value, Ordering::Relaxed);
    }

    /// Largest single allocation (tensor, storage, arena, constant) in bytes.
    pub fn max_alloc_bytes() -> u64 {
        Self::get(Limit::AllocBytes)
    }

    /// Deepest nesting of regions, attribute lists, brackets and modules.
    pub fn max_nesting() -> usize {
        Self::get(Limit::Nesting) as usize
    }

    /// Largest tensor rank.
    pub fn max_rank() -> usize {
        Self::get(Limit::Rank) as usize
    }

    /// Most ops that inlining may produce in one function.
    pub fn max_inline_ops() -> u64 {
        Self::get(Limit::InlineOps)
    }

    /// Most ops one interpreted call may execute (counting callees per call).
    pub fn max_executed_ops() -> u64 {
        Self::get(Limit::ExecutedOps)
    }
}

/// Parses `123`, `4k`, `2M`, `3G`, `1T` (binary multiples) as a byte count.
pub fn parse_size(s: &str) -> Option<u64> {
    let s = s.trim();
    let (digits, mult) = match s.char_indices().last()? {
        (i, 'k' | 'K') => (&s[..i], 1u64 << 10),
        (i, 'm' | 'M') => (&s[..i], 1u64 << 20),
        (i, 'g' | 'G') => (&s[..i], 1u64 << 30),
        (i, 't' | 'T') => (&s[..i], 1u64 << 40),
        _ => (s, 1),
    };
    digits.trim().parse::<u64>().ok()?.checked_mul(mult)
}

/// Half of physical memory, or 4 GiB where it cannot be read: a program that
/// needs more than that in one tensor is far more likely hostile or a typo
/// than intended, and the user can raise the limit.
fn default_alloc_limit() -> u64 {
    physical_memory().map(|m| m / 2).unwrap_or(4 << 30)
}

fn physical_memory() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// Why an allocation was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AllocError {
    #[error("size of {what} overflows a 64-bit byte count")]
    Overflow { what: String },
    #[error(
        "{what} needs {bytes} bytes, more than the allocation limit of {limit} bytes \
         (raise it with AOT_MAX_ALLOC_BYTES or --max-alloc-bytes)"
    )]
    TooLarge { what: String, bytes: u64, limit: u64 },
}

/// Checks that `count` elements of `elem_bytes` each may be allocated: no
/// overflow, and within [`Limits::max_alloc_bytes`]. Returns the byte count.
pub fn check_alloc(count: u64, elem_bytes: u64, what: &str) -> Result<u64, AllocError> {
    let bytes = count.checked_mul(elem_bytes).ok_or_else(|| AllocError::Overflow { what: what.to_string() })?;
    let limit = Limits::max_alloc_bytes();
    if bytes > limit {
        return Err(AllocError::TooLarge { what: what.to_string(), bytes, limit });
    }
    Ok(bytes)
}

/// [`check_alloc`] for a dense tensor of `shape` and `elem`.
pub fn check_alloc_shape(shape: &[i64], elem: ElemType, what: &str) -> Result<u64, AllocError> {
    let n = checked_numel(shape).ok_or_else(|| AllocError::Overflow { what: what.to_string() })?;
    check_alloc(n as u64, elem.byte_size() as u64, what)
}

/// Checks every tensor and memref value under `root` (block arguments and
/// op results, views included) against [`Limits::max_alloc_bytes`]: a value
/// larger than the limit is refused before anything runs or is compiled,
/// located at the op that defines it (or owns the block argument). Views are
/// counted by their logical size, since kernels iterate over every element
/// a view shows (an `expand` to 2^40 elements followed by a `sum` would loop
/// 2^40 times). Types are static, so this bounds every allocation and every
/// loop trip count of a run: `full`, `arange`, random ops, `resize_`, and
/// the temporaries of compiled code.
pub fn check_value_sizes(ctx: &crate::Context, root: crate::Op) -> Result<(), crate::Diagnostic> {
    check_value_sizes_bound(ctx, root, &crate::sym::Bindings::none())
}

/// [`check_value_sizes`] for one call of a function with symbolic sizes:
/// each size evaluated with the call's symbol values `syms` (a size that
/// has none, or no value, is skipped: the static check above had nothing
/// to bound either).
pub fn check_value_sizes_bound(
    ctx: &crate::Context,
    root: crate::Op,
    syms: &crate::sym::Bindings,
) -> Result<(), crate::Diagnostic> {
    use crate::types::TypeData;
    let limit = Limits::max_alloc_bytes();
    let mut failure: Option<crate::Diagnostic> = None;
    let check = |ty: crate::Type| -> Option<String> {
        let (shape, elem) = match ctx.type_data(ty) {
            TypeData::Tensor(t) => (&t.shape, t.elem),
            TypeData::MemRef(m) => (&m.shape, m.elem),
            _ => return None,
        };
        if shape.contains(&crate::types::DYNAMIC) {
            return None;
        }
        let what = crate::printer::type_to_string(ctx, ty);
        let evaluated;
        let shape: &[i64] = if crate::sym::is_static(shape) {
            shape
        } else {
            match syms.eval_shape(shape) {
                Ok(s) if s.iter().all(|&d| d >= 0) => {
                    evaluated = s;
                    &evaluated
                }
                Ok(s) => return Some(format!("a value of type {what} has a negative size here ({s:?})")),
                Err(crate::sym::SymError::Unbound(_)) => return None,
                Err(e) => return Some(format!("a value of type {what}: {e}")),
            }
        };
        match checked_byte_size(shape, elem) {
            None => Some(format!("a value of type {what} has more bytes than a 64-bit count holds")),
            Some(b) if b as u64 > limit => Some(format!(
                "a value of type {what} needs {b} bytes, more than the allocation limit of {limit} bytes \
                 (raise it with AOT_MAX_ALLOC_BYTES or --max-alloc-bytes)"
            )),
            Some(_) => None,
        }
    };
    ctx.walk_pre(root, &mut |op| {
        if failure.is_some() {
            return;
        }
        for &r in ctx.regions(op) {
            for &b in ctx.region_blocks(r) {
                for &a in ctx.block_args(b) {
                    if let Some(m) = check(ctx.value_type(a)) {
                        failure = Some(crate::Diagnostic::op_error(ctx, op, format!("block argument: {m}")));
                        return;
                    }
                }
            }
        }
        for &v in ctx.results(op) {
            if let Some(m) = check(ctx.value_type(v)) {
                failure = Some(crate::Diagnostic::op_error(ctx, op, m));
                return;
            }
        }
    });
    failure.map_or(Ok(()), Err)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numel_overflow_and_negative() {
        assert_eq!(checked_numel(&[2, 3]), Some(6));
        assert_eq!(checked_numel(&[]), Some(1));
        assert_eq!(checked_numel(&[4611686018427387905, 4]), None);
        assert_eq!(checked_numel(&[-1, 2]), None);
        assert_eq!(checked_numel(&[0, i64::MAX]), Some(0));
        assert_eq!(checked_byte_size(&[1 << 61], ElemType::F32), None);
    }

    #[test]
    fn shape_checks() {
        assert_eq!(check_shape(&[2, 3], ElemType::F32, None), Ok(()));
        assert_eq!(check_shape(&[], ElemType::I1, None), Ok(()));
        assert_eq!(check_shape(&[4611686018427387905, 4], ElemType::F32, None), Err(ShapeError::NumelOverflow));
        assert_eq!(check_shape(&[1 << 62], ElemType::F32, None), Err(ShapeError::ByteSizeOverflow));
        assert_eq!(check_shape(&[1 << 62], ElemType::I8, None), Ok(()));
        assert_eq!(check_shape(&[3, -2], ElemType::F32, None), Err(ShapeError::NegativeDim { index: 1, dim: -2 }));
        assert_eq!(check_shape(&[DYNAMIC, 4], ElemType::F32, None), Ok(()));
        let deep = vec![1i64; Limits::max_rank() + 1];
        assert!(matches!(check_shape(&deep, ElemType::F32, None), Err(ShapeError::RankTooLarge { .. })));
        assert_eq!(check_shape(&deep[1..], ElemType::F32, None), Ok(()));
        assert_eq!(check_shape(&[4, 4], ElemType::F32, Some((&[1 << 62, 1], 0))), Err(ShapeError::ExtentOverflow));
        assert_eq!(check_shape(&[4, 4], ElemType::F32, Some((&[4, 1], 2))), Ok(()));
    }

    #[test]
    fn extent_checks() {
        assert_eq!(checked_extent(&[2, 3], &[3, 1], 0), Some((0, 6)));
        assert_eq!(checked_extent(&[4], &[1 << 62], 0), None);
        assert_eq!(checked_extent(&[0, 5], &[1 << 62, 1], 7), Some((7, 7)));
        assert_eq!(checked_extent(&[3], &[-2], 4), Some((0, 5)));
        assert_eq!(checked_extent(&[2, 2], &[1], 0), None);
        assert_eq!(checked_extent(&[2], &[1], i64::MAX), None);
    }

    #[test]
    fn sizes_parse() {
        assert_eq!(parse_size("4k"), Some(4096));
        assert_eq!(parse_size("2G"), Some(2 << 30));
        assert_eq!(parse_size("12"), Some(12));
        assert_eq!(parse_size("x"), None);
        assert_eq!(parse_size("99999999999T"), None);
    }

    #[test]
    fn alloc_limit_refuses_overflow() {
        assert!(matches!(check_alloc(u64::MAX, 4, "t"), Err(AllocError::Overflow { .. })));
        assert!(matches!(check_alloc_shape(&[1 << 40, 1 << 20], ElemType::F32, "t"), Err(AllocError::TooLarge { .. })));
        assert!(check_alloc_shape(&[4, 4], ElemType::F32, "t").is_ok());
    }
}
