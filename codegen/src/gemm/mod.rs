//! `loop.matmul` at run time: batched strided GEMM. Our own kernels
//! ([`blis`]) take f32 on AVX-512 and AVX2 cores ([`avx512`], [`avx2`])
//! and bf16 operands on cores with AVX512-BF16; the `gemm` crate takes
//! everything else (f64, f32 on other CPUs), and bf16 operands where no
//! kernel of ours reads them, after a conversion of each matrix to f32.
//!
//! Threads come from the pool that runs split kernels ([`crate::threads`]),
//! so GEMM and kernels never compete with two pools for the cores: the
//! library splits a GEMM on rayon's pool, and on a host's team each thread
//! takes a block of the result.
//! Before any GEMM runs, the batch is simplified: size-1 batch dimensions go,
//! and a batch dimension that one operand broadcasts (stride 0) and that
//! continues the other operand's and the result's rows (or columns) is folded
//! into M (or N). `x @ w` with `x: [B, T, K]` and a shared `w` is then one
//! `(B·T) × K × N` GEMM instead of B small ones. The batches that remain run
//! one GEMM per thread when each is too small to split and their results are
//! disjoint; otherwise one after another, each split by the library.

#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "x86_64")]
mod avx512;
#[cfg(target_arch = "x86_64")]
mod blis;

use aot_dialects::r#loop;
use aot_ir::{ElemType, MemRefType};
use gemm_common::Parallelism;

/// Below this many multiply-adds a GEMM is not worth splitting, so a batch of
/// them is spread over threads instead.
const SMALL_GEMM: usize = 1 << 21;

/// A matrix operand: element strides of its batch dimensions, then of its
/// rows and columns, and the element offset of its first matrix.
#[derive(Clone, Debug, PartialEq)]
pub struct Strides {
    pub batch: Vec<i64>,
    pub rs: i64,
    pub cs: i64,
    pub offset: i64,
}

/// A batched GEMM's shape after simplification.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    pub m: usize,
    pub k: usize,
    pub n: usize,
    pub batch: Vec<i64>,
    pub a: Strides,
    pub b: Strides,
    pub c: Strides,
}

impl Plan {
    /// The plan of `c = a·b` over buffers of these types (the batch
    /// dimensions lead, the last two are the matrices').
    pub fn new(a: &MemRefType, b: &MemRefType, c: &MemRefType) -> Plan {
        let r = c.shape.len();
        let split = |x: &MemRefType| {
            let (s, offset) = r#loop::layout(x);
            Strides { batch: s[..r - 2].to_vec(), rs: s[r - 2], cs: s[r - 1], offset }
        };
        let plan = Plan {
            m: a.shape[r - 2] as usize,
            k: a.shape[r - 1] as usize,
            n: b.shape[r - 1] as usize,
            batch: c.shape[..r - 2].to_vec(),
            a: split(a),
            b: split(b),
            c: split(c),
        };
        plan.simplified()
    }

    /// Drops size-1 batch dimensions and folds broadcast batch dimensions
    /// into M or N, innermost first (only the innermost remaining dimension
    /// continues the rows or columns).
    fn simplified(mut self) -> Plan {
        let keep: Vec<usize> = (0..self.batch.len()).filter(|&d| self.batch[d] != 1).collect();
        let pick = |v: &[i64]| keep.iter().map(|&d| v[d]).collect::<Vec<_>>();
        self.batch = pick(&self.batch);
        self.a.batch = pick(&self.a.batch);
        self.b.batch = pick(&self.b.batch);
        self.c.batch = pick(&self.c.batch);
        while let Some(&extent) = self.batch.last() {
            let (sa, sb, sc) = (
                *self.a.batch.last().unwrap_or(&0),
                *self.b.batch.last().unwrap_or(&0),
                *self.c.batch.last().unwrap_or(&0),
            );
            // Rows: a and c step by m rows per batch index, b is shared. A
            // single row has no stride of its own, so it takes the batch's;
            // the result's must still move, or items would sum into one row.
            let read = |s: i64, step: i64, m: usize| m == 1 || s == (m as i64).saturating_mul(step);
            let write = |s: i64, step: i64, m: usize| s != 0 && read(s, step, m);
            if sb == 0 && read(sa, self.a.rs, self.m) && write(sc, self.c.rs, self.m) {
                if self.m == 1 {
                    (self.a.rs, self.c.rs) = (sa, sc);
                }
                self.m *= extent as usize;
            } else if sa == 0 && read(sb, self.b.cs, self.n) && write(sc, self.c.cs, self.n) {
                if self.n == 1 {
                    (self.b.cs, self.c.cs) = (sb, sc);
                }
                self.n *= extent as usize;
            } else {
                break;
            }
            self.batch.pop();
            self.a.batch.pop();
            self.b.batch.pop();
            self.c.batch.pop();
        }
        self
    }

    /// Whether the results of different batch indices never share an
    /// element, so batch items may run at the same time.
    /// The element offsets of `a`, `b` and `c` for batch item `item` (row-
    /// major) over the first `dims` batch dimensions.
    pub fn offsets(&self, item: i64, dims: usize) -> (i64, i64, i64) {
        let (mut ea, mut eb, mut ec) = (self.a.offset, self.b.offset, self.c.offset);
        let mut rest = item;
        for d in (0..dims).rev() {
            let i = rest % self.batch[d];
            rest /= self.batch[d];
            ea += i * self.a.batch[d];
            eb += i * self.b.batch[d];
            ec += i * self.c.batch[d];
        }
        (ea, eb, ec)
    }

    pub fn results_disjoint(&self) -> bool {
        let mut dims: Vec<(i64, i64)> = self.batch.iter().zip(&self.c.batch).map(|(&n, &s)| (n, s.abs())).collect();
        dims.push((self.m as i64, self.c.rs.abs()));
        dims.push((self.n as i64, self.c.cs.abs()));
        dims.retain(|&(n, _)| n > 1);
        dims.sort_by_key(|&(_, s)| s);
        let mut reach = 0i64;
        for (n, s) in dims {
            if s <= reach {
                return false;
            }
            reach = reach.saturating_add((n - 1).saturating_mul(s));
        }
        true
    }
}

/// The element types of a GEMM: of its operands `a` and `b` (one type),
/// and of its result `c`. Either all f32 or all f64, or bf16 operands
/// summed into f32 (what `loop.matmul` admits).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Types {
    pub operands: ElemType,
    pub result: ElemType,
}

impl Types {
    pub fn of(a: &MemRefType, c: &MemRefType) -> Types {
        Types { operands: a.elem, result: c.elem }
    }

    fn same(elem: ElemType) -> Types {
        Types { operands: elem, result: elem }
    }
}

/// `M×K×N`, the batch left after simplification, and the element types: how
/// the runtime will run this GEMM (for profiles).
pub fn describe(p: &Plan, types: Types) -> String {
    let batch: String = p.batch.iter().map(|n| format!("{n}x")).collect();
    let packed = if runs_native(types) {
        ", native"
    } else if types.operands != types.result {
        ", converted"
    } else if packs((p.m, p.k, p.n), (p.b.rs, p.b.cs)) {
        ", b packed"
    } else {
        ""
    };
    let elem = if types.operands == types.result {
        types.result.to_string()
    } else {
        format!("{} to {}", types.operands, types.result)
    };
    format!("{batch}{}x{}x{} {elem}{packed}", p.m, p.k, p.n)
}

/// `c = a·b` (or `c += a·b`) for every batch index of `plan`, on `types`
/// ([`Types`]); pointers are the roots of the three buffers, the plan's
/// strides and offsets address the elements there. `threads` bounds the
/// threads one call uses.
pub fn batched(plan: &Plan, types: Types, pa: *mut u8, pb: *mut u8, pc: *mut u8, accumulate: bool, threads: usize) {
    if types.operands != types.result && !runs_native(types) {
        widened(plan, types, pa, pb, pc, accumulate, threads);
        return;
    }
    let elem = types.operands;
    let count: i64 = plan.batch.iter().product();
    let ptrs = Roots(pa, pb, pc);
    let at = |item: i64| plan.offsets(item, plan.batch.len());
    // One GEMM, or the block of it with rows r0..r1 and columns c0..c1.
    let run = |item: i64, (r0, r1): (usize, usize), (c0, c1): (usize, usize), par: Parallelism| {
        let (ea, eb, ec) = at(item);
        let p = plan;
        let (r, c) = (r0 as i64, c0 as i64);
        let (ea, eb, ec) = (ea + r * p.a.rs, eb + c * p.b.cs, ec + r * p.c.rs + c * p.c.cs);
        let dims = (r1 - r0, plan.k, c1 - c0);
        let (pa, pb, pc) = ptrs.get();
        let ops = ((pa, ea, (p.a.rs, p.a.cs)), (pb, eb, (p.b.rs, p.b.cs)), (pc, ec, (p.c.rs, p.c.cs)));
        // SAFETY: the layouts were verified against the buffers' sizes when
        // the program was built; every address below (a block included) is
        // inside them.
        unsafe {
            match elem {
                ElemType::F32 => f32::gemm(dims, ops.0, ops.1, ops.2, accumulate, par),
                #[cfg(target_arch = "x86_64")]
                ElemType::BF16 => bf16_gemm(dims, ops.0, ops.1, ops.2, accumulate, par),
                _ => f64::gemm(dims, ops.0, ops.1, ops.2, accumulate, par),
            }
        }
    };
    let (all_rows, all_cols) = ((0, plan.m), (0, plan.n));
    let work = plan.m.saturating_mul(plan.k).saturating_mul(plan.n);
    let host = crate::threads::host_team().is_some();
    let native = runs_native(types);
    if threads > 1 && count >= 2 && work < SMALL_GEMM && plan.results_disjoint() {
        let items = count as usize;
        let chunks = threads.min(items);
        let per = items.div_ceil(chunks);
        crate::threads::for_each(chunks, &|ch| {
            for i in ch * per..((ch + 1) * per).min(items) {
                run(i as i64, all_rows, all_cols, Parallelism::None)
            }
        });
    } else if threads > 1 && work >= SPLIT_GEMM && splits_depth(plan) && elem != ElemType::BF16 {
        for item in 0..count {
            let (ea, eb, ec) = at(item);
            let (pa, pb, pc) = ptrs.get();
            let ops =
                ((pa, ea, (plan.a.rs, plan.a.cs)), (pb, eb, (plan.b.rs, plan.b.cs)), (pc, ec, (plan.c.rs, plan.c.cs)));
            let dims = (plan.m, plan.k, plan.n);
            // SAFETY: as for `run`: the three matrices are inside their buffers.
            unsafe {
                match elem {
                    ElemType::F32 => split_depth::<f32>(dims, ops.0, ops.1, ops.2, accumulate, threads),
                    _ => split_depth::<f64>(dims, ops.0, ops.1, ops.2, accumulate, threads),
                }
            }
        }
    } else if threads > 1 && host && !native && work >= SPLIT_GEMM {
        // The library splits only on rayon's pool: on the host's team each
        // thread takes a block of the result (columns when there are at
        // least as many as rows: a packed `b` is then packed once, in
        // parts), one after another for each batch item.
        let cols = plan.n >= plan.m;
        let len = if cols { plan.n } else { plan.m };
        let per = len.div_ceil(threads).next_multiple_of(BLOCK_ALIGN).min(len);
        let blocks = len.div_ceil(per);
        for item in 0..count {
            crate::threads::for_each(blocks, &|bk| {
                let span = (bk * per, ((bk + 1) * per).min(len));
                let (rows, cs) = if cols { (all_rows, span) } else { (span, all_cols) };
                run(item, rows, cs, Parallelism::None)
            });
        }
    } else {
        // Our kernels split one GEMM themselves, on the host's team or
        // rayon's pool (`threads::for_each`); the library only on rayon's.
        let par = if threads > 1 && (if native { work >= SPLIT_GEMM } else { !host }) {
            Parallelism::Rayon(threads)
        } else {
            Parallelism::None
        };
        for item in 0..count {
            run(item, all_rows, all_cols, par);
        }
    }
}

/// Fewest multiply-adds of a GEMM that is split across threads by us
/// (into blocks of the result on a host team, or along its depth).
const SPLIT_GEMM: usize = 1 << 17;
/// A GEMM at least this many times deeper than its result's rows and
/// columns together, with at most `SPLIT_DEPTH_RESULT` elements, is split
/// along its depth.
const SPLIT_DEPTH_RATIO: usize = 16;
const SPLIT_DEPTH_RESULT: usize = 1 << 14;

/// Whether threads should split the GEMM's depth: a weight gradient
/// (`dYᵀ·X` over every position of a batch) has a small result and a long
/// sum, so blocks of the result leave threads idle or give each a sliver
/// of rows (and a whole copy of a packed `b`), where halves of the sum
/// keep each product full-sized.
fn splits_depth(p: &Plan) -> bool {
    p.k >= SPLIT_DEPTH_RATIO.saturating_mul(p.m + p.n) && p.m.saturating_mul(p.n) <= SPLIT_DEPTH_RESULT
}

/// `c (+)= a·b` with the depth split across `threads`: each part's
/// product goes to its own scratch matrix, then the parts are added (in
/// order) into `c`.
///
/// # Safety
/// The three matrices are inside their buffers.
unsafe fn split_depth<T: Gemm + std::ops::Add<Output = T>>(
    (m, k, n): (usize, usize, usize),
    a: Operand,
    b: Operand,
    c: Operand,
    accumulate: bool,
    threads: usize,
) {
    let parts = threads.min(k).max(1);
    let per = k.div_ceil(parts);
    let size = m * n;
    let mut scratch: Vec<T> = vec![T::default(); parts * size];
    let roots = Roots(a.0, b.0, scratch.as_mut_ptr() as *mut u8);
    crate::threads::for_each(parts, &|t| {
        let (k0, k1) = (t * per, ((t + 1) * per).min(k));
        if k0 >= k1 {
            return;
        }
        let (pa, pb, ps) = roots.get();
        let d = k0 as i64;
        let part = (pa, a.1 + d * a.2 .1, a.2);
        let rows = (pb, b.1 + d * b.2 .0, b.2);
        let out = (ps, (t * size) as i64, (n as i64, 1));
        // SAFETY: rows k0..k1 of `b` and columns k0..k1 of `a` are inside
        // them; each part writes its own scratch matrix.
        unsafe { T::gemm((m, k1 - k0, n), part, rows, out, false, Parallelism::None) };
    });
    let cp = unsafe { (c.0 as *mut T).offset(c.1 as isize) };
    for i in 0..m {
        for j in 0..n {
            let mut s = scratch[i * n + j];
            for t in 1..parts {
                s = s + scratch[t * size + i * n + j];
            }
            // SAFETY: element (i, j) of `c` is inside its buffer.
            unsafe {
                let at = cp.offset((i as i64 * c.2 .0 + j as i64 * c.2 .1) as isize);
                *at = if accumulate { *at + s } else { s };
            }
        }
    }
}
/// Rows or columns per block: a multiple of the widest microkernel.
const BLOCK_ALIGN: usize = 16;

/// Raw pointers shared by the threads of one call: the three buffers'
/// roots for the batch items run at once, or a packing copy's source and
/// scratch.
#[derive(Clone, Copy)]
struct Roots(*mut u8, *mut u8, *mut u8);
// Batch items run at once only when their results are disjoint
// (`results_disjoint`), and packing threads write disjoint column blocks;
// everything else is only read.
unsafe impl Sync for Roots {}
unsafe impl Send for Roots {}

impl Roots {
    // A method, so closures capture the `Sync` wrapper, not its fields.
    fn get(&self) -> (*mut u8, *mut u8, *mut u8) {
        (self.0, self.1, self.2)
    }
}

/// Whether `b` (strides `rs`, `cs`) is packed before an `m×k×n` GEMM: when
/// it is column-major (unit row stride: a broadcast, stride 0, is left
/// alone, since its copy could be far larger than its storage) and `a` has
/// enough rows to reuse the copy.
fn packs((m, k, n): (usize, usize, usize), (rs, cs): (i64, i64)) -> bool {
    m >= PACK_ROWS && rs.abs() == 1 && cs.abs() > 1 && k >= 2 && n >= 2
}

/// Fewest rows of `a` for which packing a column-major `b` pays.
const PACK_ROWS: usize = 32;
/// Fewest elements of `b` whose packing is split across threads.
const PACK_SPLIT: usize = 1 << 16;
/// The packing copy's tiles: columns of `b` read together, and rows.
const TILE_COLS: usize = 8;
const TILE_ROWS: usize = 64;

thread_local! {
    /// Per thread, the scratch a column-major right operand is packed into,
    /// kept between calls (8-byte words, so aligned for f32 and f64).
    static PACKED: std::cell::Cell<Vec<u64>> = const { std::cell::Cell::new(Vec::new()) };
}

/// A matrix operand: root pointer, element offset, (row, column) strides.
type Operand = (*mut u8, i64, (i64, i64));

trait Gemm: Sized + Default + Copy + 'static {
    const ONE: Self;

    /// The library's kernel for this element type, picked for the CPU at
    /// its first call.
    fn library() -> Library<Self>;

    /// Runs `c (+)= a·b` in our own kernels when they serve this element
    /// type on this CPU; false when the library must.
    ///
    /// # Safety
    /// As for [`Gemm::gemm`].
    unsafe fn native(
        _dims: (usize, usize, usize),
        _a: Operand,
        _b: Operand,
        _c: Operand,
        _accumulate: bool,
        _par: Parallelism,
    ) -> bool {
        false
    }

    /// One `c (+)= a·b` on strided matrices.
    ///
    /// A column-major `b` is first copied to row-major scratch: the
    /// library's kernels read a column-major right operand about 35% slower
    /// (69 against 106 GFLOP/s at 256×1024×1024 on one Zen 4 core), while
    /// the copy costs one pass over `b`, which every one of `m` rows reuses.
    /// That operand is the weight of every `x @ w.T` (`nn.Linear`).
    unsafe fn gemm(
        (m, k, n): (usize, usize, usize),
        a: Operand,
        b: Operand,
        c: Operand,
        accumulate: bool,
        par: Parallelism,
    ) {
        // SAFETY: the caller's promise.
        if unsafe { Self::native((m, k, n), a, b, c, accumulate, par) } {
            return;
        }
        let (rs, cs) = b.2;
        if packs((m, k, n), (rs, cs)) {
            let packed = PACKED.with(|cell| {
                let mut scratch = cell.take();
                let words = (k * n * std::mem::size_of::<Self>()).div_ceil(8);
                if scratch.len() < words {
                    // Out of memory for the copy: multiply unpacked instead.
                    if scratch.try_reserve_exact(words - scratch.len()).is_err() {
                        cell.set(scratch);
                        return false;
                    }
                    scratch.resize(words, 0);
                }
                let dst = scratch.as_mut_ptr() as *mut Self;
                // SAFETY: `b` is inside its buffer (the caller's promise) and
                // the scratch holds k·n elements, aligned for f32 and f64.
                unsafe {
                    let src = Roots(
                        (b.0 as *const Self).offset(b.1 as isize) as *mut u8,
                        dst as *mut u8,
                        std::ptr::null_mut(),
                    );
                    let pack = |cols: std::ops::Range<usize>| {
                        let (src, dst, _) = src.get();
                        pack_rows(src as *const Self, (rs, cs), (k, n), cols, dst as *mut Self)
                    };
                    match par {
                        // Column blocks are disjoint in the scratch.
                        Parallelism::Rayon(t) if t > 1 && k * n >= PACK_SPLIT => {
                            use rayon::prelude::*;
                            let blocks = n.div_ceil(TILE_COLS);
                            let per = blocks.div_ceil(t) * TILE_COLS;
                            (0..n.div_ceil(per)).into_par_iter().for_each(|p| pack(p * per..((p + 1) * per).min(n)));
                        }
                        _ => pack(0..n),
                    }
                    Self::gemm((m, k, n), a, (dst as *mut u8, 0, (n as i64, 1)), c, accumulate, par);
                }
                cell.set(scratch);
                true
            });
            if packed {
                return;
            }
        }
        // SAFETY: the caller passes matrices inside their buffers.
        unsafe {
            let cp = (c.0 as *mut Self).offset(c.1 as isize);
            if k == 0 {
                if !accumulate {
                    zero(cp, m, n, c.2 .0, c.2 .1);
                }
            } else if m > 0 && n > 0 {
                // dst = alpha·dst + beta·lhs·rhs, dst read only to accumulate.
                Self::library()(
                    m,
                    n,
                    k,
                    cp,
                    c.2 .1 as isize,
                    c.2 .0 as isize,
                    accumulate,
                    (a.0 as *const Self).offset(a.1 as isize),
                    a.2 .1 as isize,
                    a.2 .0 as isize,
                    (b.0 as *const Self).offset(b.1 as isize),
                    b.2 .1 as isize,
                    b.2 .0 as isize,
                    Self::ONE,
                    Self::ONE,
                    false,
                    false,
                    false,
                    par,
                );
            }
        }
    }
}

/// The signature of the library's real GEMM kernels: `m, n, k`, then
/// `dst` with its column and row strides and whether to read it, `lhs` and
/// `rhs` likewise, `alpha` and `beta` (`dst = alpha·dst + beta·lhs·rhs`),
/// three conjugation flags and the parallelism.
type Library<T> = unsafe fn(
    usize,
    usize,
    usize,
    *mut T,
    isize,
    isize,
    bool,
    *const T,
    isize,
    isize,
    *const T,
    isize,
    isize,
    T,
    T,
    bool,
    bool,
    bool,
    Parallelism,
);

impl Gemm for f32 {
    const ONE: f32 = 1.0;

    fn library() -> Library<f32> {
        gemm_f32::gemm::f32::get_gemm_fn()
    }

    #[cfg(target_arch = "x86_64")]
    unsafe fn native(
        (m, k, n): (usize, usize, usize),
        a: Operand,
        b: Operand,
        c: Operand,
        accumulate: bool,
        par: Parallelism,
    ) -> bool {
        if !runs_native(Types::same(ElemType::F32)) {
            return false;
        }
        let threads = threads_of(par);
        // SAFETY: the CPU has the kernel's features (`runs_native`), and the
        // caller passes matrices inside their buffers, `c` apart from both.
        unsafe {
            if avx512::available() {
                avx512::gemm_f32(m, k, n, mat(a), mat(b), mat(c), accumulate, threads)
            } else {
                avx2::gemm(m, k, n, mat(a), mat(b), mat(c), accumulate, threads)
            }
        };
        true
    }
}

impl Gemm for f64 {
    const ONE: f64 = 1.0;

    fn library() -> Library<f64> {
        gemm_f64::gemm::f64::get_gemm_fn()
    }
}

/// Whether GEMMs of `types` run in our own kernels on this CPU.
fn runs_native(types: Types) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        match (types.operands, types.result) {
            (ElemType::F32, ElemType::F32) => avx512::available() || avx2::selected(),
            (ElemType::BF16, ElemType::F32) => avx512::bf16_available(),
            _ => false,
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = types;
        false
    }
}

/// `c (+)= a·b` of bf16 `a` and `b` into f32 `c` in our AVX512-BF16 kernel.
///
/// # Safety
/// The CPU runs it ([`runs_native`]); the matrices are inside their
/// buffers, `c` apart from both.
#[cfg(target_arch = "x86_64")]
unsafe fn bf16_gemm(
    (m, k, n): (usize, usize, usize),
    a: Operand,
    b: Operand,
    c: Operand,
    accumulate: bool,
    par: Parallelism,
) {
    // SAFETY: the caller's promises.
    unsafe { avx512::gemm(m, k, n, mat(a), mat(b), mat(c), accumulate, threads_of(par)) };
}

/// An operand as our kernels take it, its elements of type `T`.
#[cfg(target_arch = "x86_64")]
fn mat<T>((p, off, (rs, cs)): Operand) -> blis::Mat<T> {
    blis::Mat { ptr: (p as *mut T).wrapping_offset(off as isize), rs: rs as isize, cs: cs as isize }
}

/// The threads a library parallelism allows our kernels.
#[cfg(target_arch = "x86_64")]
fn threads_of(par: Parallelism) -> usize {
    match par {
        Parallelism::Rayon(t) => t,
        _ => 1,
    }
}

/// [`batched`] for bf16 operands no kernel of ours reads here: each matrix
/// of `a` and `b` the plan addresses is widened to an f32 copy (exact: a
/// bf16 value is the top half of an f32's bits), in the operand's own
/// orientation (a column-major weight stays column-major, so that both the
/// reads and the writes run along memory), and the f32 GEMM runs on the
/// copies. That is what the lowering once did with conversion kernels, at
/// the same cost.
fn widened(plan: &Plan, types: Types, pa: *mut u8, pb: *mut u8, pc: *mut u8, accumulate: bool, threads: usize) {
    debug_assert_eq!((types.operands, types.result), (ElemType::BF16, ElemType::F32));
    let count = plan.batch.iter().product::<i64>().max(0) as usize;
    let dims = plan.batch.len();
    // Each matrix `rows × cols` (batch items one after another), rows
    // contiguous unless the source's columns are; its strides in the copy.
    let widen = |root: *mut u8, s: &Strides, rows: usize, cols: usize, which: usize| {
        let by_columns = s.rs.abs() < s.cs.abs();
        let (inner, so, si) = if by_columns { (rows, s.cs, s.rs) } else { (cols, s.rs, s.cs) };
        let mut out = vec![0f32; count * rows * cols];
        for (item, matrix) in out.chunks_exact_mut((rows * cols).max(1)).enumerate() {
            let o = plan.offsets(item as i64, dims);
            let start = [o.0, o.1][which];
            for (i, line) in matrix.chunks_exact_mut(inner.max(1)).enumerate() {
                let first = start + i as i64 * so;
                if si == 1 {
                    // SAFETY: the line's `inner` elements are contiguous
                    // inside the operand's buffer (verified when the
                    // program was built).
                    let src = unsafe { std::slice::from_raw_parts((root as *const u16).offset(first as isize), inner) };
                    for (d, &bits) in line.iter_mut().zip(src) {
                        *d = f32::from_bits((bits as u32) << 16);
                    }
                    continue;
                }
                for (j, d) in line.iter_mut().enumerate() {
                    // SAFETY: element j of the line is inside the buffer.
                    let bits = unsafe { *(root as *const u16).offset((first + j as i64 * si) as isize) };
                    *d = f32::from_bits((bits as u32) << 16);
                }
            }
        }
        let mut batch = vec![0i64; dims];
        let mut step = (rows * cols) as i64;
        for d in (0..dims).rev() {
            batch[d] = step;
            step *= plan.batch[d];
        }
        let (rs, cs) = if by_columns { (1, rows as i64) } else { (cols as i64, 1) };
        (out, Strides { batch, rs, cs, offset: 0 })
    };
    let (m, k, n) = (plan.m, plan.k, plan.n);
    let (mut a, sa) = widen(pa, &plan.a, m, k, 0);
    let (mut b, sb) = widen(pb, &plan.b, k, n, 1);
    let p = Plan { a: sa, b: sb, ..plan.clone() };
    batched(&p, Types::same(ElemType::F32), a.as_mut_ptr().cast(), b.as_mut_ptr().cast(), pc, accumulate, threads);
}

/// Copies columns `cols` of the `k × n` matrix at `src` (strides `rs`,
/// `cs`) to row-major `dst`. Eight columns at a time, rows in runs: with
/// power-of-two strides, wider tiles map every column to the same cache
/// sets (a 32×32 tile ran 4× slower on 1024×1024).
unsafe fn pack_rows<T: Copy>(
    src: *const T,
    (rs, cs): (i64, i64),
    (k, n): (usize, usize),
    cols: std::ops::Range<usize>,
    dst: *mut T,
) {
    let end = cols.end;
    for jb in cols.step_by(TILE_COLS) {
        for ib in (0..k).step_by(TILE_ROWS) {
            for i in ib..(ib + TILE_ROWS).min(k) {
                // SAFETY: the caller passes a matrix inside its buffer and
                // room for k·n elements at `dst`.
                unsafe {
                    let row = src.offset(i as isize * rs as isize);
                    for j in jb..(jb + TILE_COLS).min(end) {
                        *dst.add(i * n + j) = *row.offset(j as isize * cs as isize);
                    }
                }
            }
        }
    }
}

/// Zeroes an `m × n` strided matrix.
unsafe fn zero<T: Default>(c: *mut T, m: usize, n: usize, rs: i64, cs: i64) {
    for i in 0..m as i64 {
        for j in 0..n as i64 {
            // SAFETY: the caller passes a matrix inside its buffer.
            unsafe { *c.offset((i * rs + j * cs) as isize) = T::default() };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(batch: &[i64], m: usize, n: usize, a: &[i64], b: &[i64], c: &[i64]) -> Plan {
        let s = |v: &[i64]| {
            let r = v.len();
            Strides { batch: v[..r - 2].to_vec(), rs: v[r - 2], cs: v[r - 1], offset: 0 }
        };
        Plan { m, k: 4, n, batch: batch.to_vec(), a: s(a), b: s(b), c: s(c) }.simplified()
    }

    #[test]
    fn a_shared_right_operand_folds_the_batch_into_rows() {
        // x: [8, 64, 4] @ w: [4, 32] expanded to [8, 4, 32].
        let p = plan(&[8], 64, 32, &[256, 4, 1], &[0, 32, 1], &[2048, 32, 1]);
        assert_eq!((p.m, p.n, p.batch.clone()), (512, 32, vec![]));
        // Two batch dimensions fold one after the other.
        let p = plan(&[2, 8], 64, 32, &[2048, 256, 4, 1], &[0, 0, 32, 1], &[16384, 2048, 32, 1]);
        assert_eq!((p.m, p.batch.clone()), (1024, vec![]));
    }

    #[test]
    fn a_shared_left_operand_folds_the_batch_into_columns() {
        // w: [16, 4] @ x: [8, 4, 32] with column-major x and c per batch.
        let p = plan(&[8], 16, 32, &[0, 4, 1], &[128, 1, 4], &[512, 1, 16]);
        assert_eq!((p.m, p.n, p.batch.clone()), (16, 256, vec![]));
    }

    #[test]
    fn batches_that_do_not_continue_the_rows_stay() {
        // Transposed a: its batch stride is not m rows.
        let p = plan(&[8], 64, 32, &[256, 1, 64], &[0, 32, 1], &[2048, 32, 1]);
        assert_eq!(p.batch, vec![8]);
        // Neither operand broadcast.
        let p = plan(&[8], 64, 32, &[256, 4, 1], &[128, 32, 1], &[2048, 32, 1]);
        assert_eq!(p.batch, vec![8]);
        // Size-1 batch dimensions disappear.
        let p = plan(&[1, 8, 1], 64, 32, &[0, 256, 0, 4, 1], &[0, 128, 0, 32, 1], &[0, 2048, 0, 32, 1]);
        assert_eq!(p.batch, vec![8]);
    }

    #[test]
    fn only_a_column_major_right_operand_is_packed() {
        // The weight of x @ w.T: unit row stride.
        assert!(packs((256, 1024, 512), (1, 1024)));
        // Row-major, or a broadcast row (stride 0: its copy would be k·n
        // elements of a one-row storage), or too few rows to pay.
        assert!(!packs((256, 1024, 512), (512, 1)));
        assert!(!packs((256, 1 << 20, 1 << 20), (0, 1)));
        assert!(!packs((8, 1024, 512), (1, 1024)));
    }

    /// bf16 operands into f32, through the native kernel where this CPU has
    /// one and through widened f32 copies (what every other CPU runs): a
    /// batch of 3 with a transposed `a` and a `b` shared by the batch,
    /// accumulating, against an f64 reference of the same inputs.
    #[test]
    fn bf16_operands_sum_into_f32_natively_and_widened() {
        let (m, k, n, count) = (20usize, 37usize, 45usize, 3usize);
        let bf16 = |x: f32| (x.to_bits() >> 16) as u16;
        let wide = |b: u16| f32::from_bits((b as u32) << 16) as f64;
        let av: Vec<u16> = (0..count * m * k).map(|i| bf16(((i * 7 % 23) as f32 - 11.0) / 8.0)).collect();
        let bv: Vec<u16> = (0..k * n).map(|i| bf16(((i * 5 % 19) as f32 - 9.0) / 4.0)).collect();
        let init: Vec<f32> = (0..count * m * n).map(|i| (i % 5) as f32).collect();
        // a: [3, 20, 37] stored as [3, 37, 20] (transposed matrices); b:
        // [37, 45] broadcast over the batch; c: [3, 20, 45] row-major.
        let s = |batch: i64, rs: i64, cs: i64| Strides { batch: vec![batch], rs, cs, offset: 0 };
        let plan = Plan {
            m,
            k,
            n,
            batch: vec![count as i64],
            a: s((m * k) as i64, 1, m as i64),
            b: s(0, n as i64, 1),
            c: s((m * n) as i64, n as i64, 1),
        };
        let types = Types { operands: ElemType::BF16, result: ElemType::F32 };
        let mut want = vec![0f64; count * m * n];
        for t in 0..count {
            for i in 0..m {
                for j in 0..n {
                    let dot: f64 = (0..k).map(|p| wide(av[t * m * k + p * m + i]) * wide(bv[p * n + j])).sum();
                    want[t * m * n + i * n + j] = init[t * m * n + i * n + j] as f64 + dot;
                }
            }
        }
        let ptr = |v: &[u16]| v.as_ptr().cast_mut().cast::<u8>();
        for threads in [1, 2] {
            let mut native = init.clone();
            batched(&plan, types, ptr(&av), ptr(&bv), native.as_mut_ptr().cast(), true, threads);
            let mut widen = init.clone();
            widened(&plan, types, ptr(&av), ptr(&bv), widen.as_mut_ptr().cast(), true, threads);
            for (i, w) in want.iter().enumerate() {
                assert!((native[i] as f64 - w).abs() <= 1e-4, "native: c[{i}] = {}, want {w}", native[i]);
                assert!((widen[i] as f64 - w).abs() <= 1e-4, "widened: c[{i}] = {}, want {w}", widen[i]);
            }
        }
        assert_eq!(describe(&plan, Types::same(ElemType::F64)), "3x20x37x45 f64");
        assert!(describe(&plan, types).starts_with("3x20x37x45 bf16 to f32, "));
    }

    #[test]
    fn results_summed_over_a_batch_are_not_run_at_once() {
        let p = plan(&[8], 64, 32, &[256, 4, 1], &[128, 32, 1], &[2048, 32, 1]);
        assert!(p.results_disjoint());
        let p = plan(&[8], 64, 32, &[256, 4, 1], &[128, 32, 1], &[0, 32, 1]);
        assert!(!p.results_disjoint());
        // One row per item, all into the same row: no fold, no parallel run.
        let p = plan(&[8], 1, 32, &[4, 4, 1], &[0, 32, 1], &[0, 32, 1]);
        assert_eq!(p.batch, vec![8]);
        assert!(!p.results_disjoint());
        // Overlapping windows of the result.
        let p = plan(&[8], 64, 32, &[256, 4, 1], &[128, 32, 1], &[32, 32, 1]);
        assert!(!p.results_disjoint());
    }
}
