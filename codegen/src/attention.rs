//! `loop.attention` at run time: scaled dot-product attention in one pass
//! over the keys, the scores never written to memory (the flash-attention
//! scheme, with an online softmax).
//!
//! Per batch item and block of [`BR`] query rows, the keys are visited in
//! blocks of [`BC`]: the block's scores (a `BR × BC` tile in cache), their
//! scaling and masking, each row's running maximum `m` and sum `l` of
//! exponentials, and the running output `acc = Σ exp(s - m)·v` rescaled by
//! `exp(m_old - m_new)` when the maximum grows. At the end a row's output
//! is `acc · (1/l)` and its log-sum-exp `m + ln l`; a row whose scores are
//! all `-inf` gives zeros and `-inf`, as the tensor op defines. Under a
//! causal mask, key blocks wholly above a query block's last row are
//! skipped (half the work of a square causal attention).
//!
//! Invariants: f32 operands; any strides (the operands are packed into
//! contiguous tiles first: K transposed per key block, V per key block, Q
//! per unit of work, so arbitrary layouts cost only the packing); a unit of
//! work is one batch item's run of query blocks, and units write disjoint
//! rows of `out` and `lse`, so they run on threads without locks. The
//! results are computed in a fixed order whatever the thread count (each
//! row's blocks in key order), so they are the same bits on every call.
//!
//! The gradient ([`backward`], `loop.attention_grad`) is one unit per batch
//! item: per key block, the probabilities of every query block recomputed
//! from the saved log-sum-exp, `dS = P ∘ (g·vᵀ − rowsum(g ∘ out))·scale`,
//! and the block's `dv += Pᵀg`, `dk += dSᵀq` summed in tiles, `dq += dS·k`
//! in a tile of the whole item: each output element written once.

use aot_dialects::r#loop;
use aot_ir::MemRefType;

/// Query rows per block.
const BR: usize = 32;
/// Keys per block (a multiple of [`LANES`]).
const BC: usize = 128;
/// Sixteen f32 lanes of AVX-512: the reductions' accumulators, the
/// columns of the portable products' register tile (four rows of it), and
/// what rows of the packed tiles are padded to.
const LANES: usize = 16;

/// An operand's element strides (batch dimensions, then its own) and the
/// element offset of its first element.
#[derive(Clone, Debug, PartialEq)]
struct Layout {
    strides: Vec<isize>,
    offset: isize,
}

impl Layout {
    fn of(t: &MemRefType) -> Layout {
        let (s, o) = r#loop::layout(t);
        Layout { strides: s.iter().map(|&x| x as isize).collect(), offset: o as isize }
    }

    /// The element offset of batch item `idx` (its index per batch dim).
    fn item(&self, idx: &[usize]) -> isize {
        self.offset + idx.iter().zip(&self.strides).map(|(&i, &s)| i as isize * s).sum::<isize>()
    }
}

/// One attention's shapes, layouts and options, made once when the host
/// program is built.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    batch: Vec<usize>,
    l: usize,
    s: usize,
    e: usize,
    ev: usize,
    q: Layout,
    k: Layout,
    v: Layout,
    out: Layout,
    lse: Layout,
    /// The mask's layout (broadcast to the scores' shape) and whether it
    /// is boolean (one byte per element, nonzero keeps) or additive (f32).
    mask: Option<(Layout, bool)>,
    scale: f32,
    causal: bool,
}

impl Plan {
    /// The plan over buffers of these types: `q [*B, L, E]`, `k [*B, S, E]`,
    /// `v [*B, S, Ev]`, `out [*B, L, Ev]`, `lse [*B, L]`, the mask
    /// `[*B, L, S]` (any strides, 0 for broadcast dimensions). The types
    /// were checked by the op's verifier.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        q: &MemRefType,
        k: &MemRefType,
        v: &MemRefType,
        out: &MemRefType,
        lse: &MemRefType,
        mask: Option<&MemRefType>,
        scale: f64,
        causal: bool,
    ) -> Plan {
        let r = q.shape.len();
        let dim = |t: &MemRefType, i: usize| t.shape[i].max(0) as usize;
        Plan {
            batch: q.shape[..r - 2].iter().map(|&n| n.max(0) as usize).collect(),
            l: dim(q, r - 2),
            s: dim(k, r - 2),
            e: dim(q, r - 1),
            ev: dim(v, r - 1),
            q: Layout::of(q),
            k: Layout::of(k),
            v: Layout::of(v),
            out: Layout::of(out),
            lse: Layout::of(lse),
            mask: mask.map(|m| (Layout::of(m), m.elem == aot_ir::ElemType::I1)),
            scale: scale as f32,
            causal,
        }
    }

    /// Multiply-adds of the two products (what a profile counts as flops /
    /// 2), the causal half included.
    pub fn multiply_adds(&self) -> u64 {
        self.scores().saturating_mul((self.e + self.ev) as u64)
    }

    /// Query-key pairs over the batch.
    fn scores(&self) -> u64 {
        let items: u64 = self.batch.iter().map(|&n| n as u64).product();
        items.saturating_mul(self.l as u64).saturating_mul(self.s as u64)
    }

    fn items(&self) -> usize {
        self.batch.iter().product()
    }

    /// Batch item `flat`'s index per batch dimension.
    fn item_index(&self, mut flat: usize) -> Vec<usize> {
        let mut idx = vec![0; self.batch.len()];
        for j in (0..self.batch.len()).rev() {
            idx[j] = flat % self.batch[j];
            flat /= self.batch[j];
        }
        idx
    }
}

/// The operands' addresses: the element at offset 0 of each buffer's
/// layout.
#[derive(Copy, Clone)]
pub struct Operands {
    pub q: *const u8,
    pub k: *const u8,
    pub v: *const u8,
    pub out: *mut u8,
    pub lse: *mut u8,
    pub mask: *const u8,
}

struct SendOps(Operands);
// Units read the inputs and write disjoint rows of `out` and `lse`.
unsafe impl Sync for SendOps {}

/// Runs the attention of `plan` on `threads` threads.
///
/// # Safety
/// The buffers must be alive, of the types the plan was made for, and
/// `out`/`lse` must not overlap the inputs.
pub unsafe fn forward(plan: &Plan, ops: Operands, threads: usize) {
    let items = plan.items();
    if items == 0 || plan.l == 0 {
        return;
    }
    let blocks = plan.l.div_ceil(BR);
    // Enough units to keep every thread busy (about four each), each a
    // run of whole query blocks of one item.
    let wanted = (4 * threads.max(1)).div_ceil(items).clamp(1, blocks);
    let per_unit = blocks.div_ceil(wanted);
    let units_per_item = blocks.div_ceil(per_unit);
    let ops = SendOps(ops);
    let job = |u: usize| {
        let ops = &ops;
        let (item, part) = (u / units_per_item, u % units_per_item);
        let first = part * per_unit * BR;
        let rows = (per_unit * BR).min(plan.l - first);
        // SAFETY: the caller's contract; the unit writes rows first..first+rows
        // of its item only.
        unsafe { unit(plan, &ops.0, item, first, rows) };
    };
    run_units(items * units_per_item, threads, &job);
}

/// Runs `job(u)` for every unit `u < n` on at most `threads` threads, each
/// taking the next unit left (a team is asked for threads, not units: an
/// OpenMP team of one thread per unit would oversubscribe the cores).
fn run_units(n: usize, threads: usize, job: &(dyn Fn(usize) + Sync)) {
    let workers = threads.min(n);
    if workers <= 1 {
        (0..n).for_each(job);
        return;
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    crate::threads::for_each(workers, &|_| loop {
        let u = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        if u >= n {
            break;
        }
        job(u);
    });
}

/// `out[r][..w] += Σ_{c < n} coef[r][c] · b[c][..w]` for `rows` rows, four
/// rows by [`LANES`] columns in registers at a time. `w` is a multiple of
/// [`LANES`]; `coef` has `rows.next_multiple_of(4)` readable rows (those
/// past `rows` are read, never used).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn acc_rows(coef: &[f32], cs: usize, rows: usize, n: usize, b: &[f32], w: usize, out: &mut [f32], os: usize) {
    #[cfg(target_arch = "x86_64")]
    if wide() {
        let live = rows.next_multiple_of(4);
        assert!(coef.len() >= (live - 1) * cs + n && b.len() >= n * w && out.len() >= (rows - 1) * os + w);
        // SAFETY: the bounds were checked above; AVX-512 is present.
        return unsafe { x86::acc_rows(coef.as_ptr(), cs, rows, n, b.as_ptr(), w, out.as_mut_ptr(), os) };
    }
    acc_rows_portable(coef, cs, rows, n, b, w, out, os)
}

#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn acc_rows_portable(coef: &[f32], cs: usize, rows: usize, n: usize, b: &[f32], w: usize, out: &mut [f32], os: usize) {
    let mut r = 0;
    while r < rows {
        let live = 4.min(rows - r);
        let mut x0 = 0;
        while x0 < w {
            let mut acc = [[0f32; LANES]; 4];
            for (a, row) in acc.iter_mut().enumerate().take(live) {
                row.copy_from_slice(&out[(r + a) * os + x0..(r + a) * os + x0 + LANES]);
            }
            for c in 0..n {
                let bv = &b[c * w + x0..c * w + x0 + LANES];
                for (a, row) in acc.iter_mut().enumerate() {
                    let k = coef[(r + a) * cs + c];
                    for (y, by) in row.iter_mut().zip(bv) {
                        *y = k.mul_add(*by, *y);
                    }
                }
            }
            for (a, row) in acc.iter().enumerate().take(live) {
                out[(r + a) * os + x0..(r + a) * os + x0 + LANES].copy_from_slice(row);
            }
            x0 += LANES;
        }
        r += 4;
    }
}

/// `out[r][c] = Σ_{x < k} a[r][x] · bt[x][c]` for `rows` rows (`a` has
/// row stride `as_` and `rows.next_multiple_of(4)` readable rows) and
/// `cols` columns (a multiple of [`LANES`]; `bt` and `out` have row
/// stride [`BC`]), four rows by [`LANES`] columns at a time.
#[inline(always)]
fn abt(a: &[f32], as_: usize, rows: usize, k: usize, bt: &[f32], cols: usize, out: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    if wide() {
        let live = rows.next_multiple_of(4);
        assert!(
            a.len() >= (live - 1) * as_ + k
                && bt.len() >= k.saturating_sub(1) * BC + cols
                && out.len() >= (rows - 1) * BC + cols
        );
        // SAFETY: the bounds were checked above; AVX-512 is present.
        return unsafe { x86::abt(a.as_ptr(), as_, rows, k, bt.as_ptr(), cols, out.as_mut_ptr()) };
    }
    abt_portable(a, as_, rows, k, bt, cols, out)
}

#[inline(always)]
fn abt_portable(a: &[f32], as_: usize, rows: usize, k: usize, bt: &[f32], cols: usize, out: &mut [f32]) {
    let mut r = 0;
    while r < rows {
        let mut c0 = 0;
        while c0 < cols {
            let mut acc = [[0f32; LANES]; 4];
            for x in 0..k {
                let bv = &bt[x * BC + c0..x * BC + c0 + LANES];
                for (i, row) in acc.iter_mut().enumerate() {
                    let av = a[(r + i) * as_ + x];
                    for (y, by) in row.iter_mut().zip(bv) {
                        *y = av.mul_add(*by, *y);
                    }
                }
            }
            for (i, row) in acc.iter().enumerate() {
                if r + i < rows {
                    out[(r + i) * BC + c0..(r + i) * BC + c0 + LANES].copy_from_slice(row);
                }
            }
            c0 += LANES;
        }
        r += 4;
    }
}

/// Whether the products run on the AVX-512 micro-kernels ([`x86`]): the
/// same multiply-adds in the same order as the portable ones, so the same
/// bits, with eight accumulators in registers instead of what the
/// compiler keeps of four.
#[cfg(target_arch = "x86_64")]
fn wide() -> bool {
    static WIDE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *WIDE.get_or_init(|| std::arch::is_x86_feature_detected!("avx512f"))
}

/// The products' micro-kernels on AVX-512: four rows by two vectors.
#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::BC;
    use std::arch::x86_64::*;

    /// [`super::abt`] (bounds checked by the caller; `cols` a multiple of 16).
    #[target_feature(enable = "avx512f")]
    pub unsafe fn abt(a: *const f32, as_: usize, rows: usize, k: usize, bt: *const f32, cols: usize, out: *mut f32) {
        let mut r = 0;
        while r < rows {
            let mut c0 = 0;
            while c0 + 32 <= cols {
                let mut acc = [_mm512_setzero_ps(); 8];
                for x in 0..k {
                    let b0 = _mm512_loadu_ps(bt.add(x * BC + c0));
                    let b1 = _mm512_loadu_ps(bt.add(x * BC + c0 + 16));
                    for i in 0..4 {
                        let av = _mm512_set1_ps(*a.add((r + i) * as_ + x));
                        acc[2 * i] = _mm512_fmadd_ps(av, b0, acc[2 * i]);
                        acc[2 * i + 1] = _mm512_fmadd_ps(av, b1, acc[2 * i + 1]);
                    }
                }
                for i in 0..4.min(rows - r) {
                    _mm512_storeu_ps(out.add((r + i) * BC + c0), acc[2 * i]);
                    _mm512_storeu_ps(out.add((r + i) * BC + c0 + 16), acc[2 * i + 1]);
                }
                c0 += 32;
            }
            if c0 < cols {
                let mut acc = [_mm512_setzero_ps(); 4];
                for x in 0..k {
                    let b0 = _mm512_loadu_ps(bt.add(x * BC + c0));
                    for (i, a_i) in acc.iter_mut().enumerate() {
                        *a_i = _mm512_fmadd_ps(_mm512_set1_ps(*a.add((r + i) * as_ + x)), b0, *a_i);
                    }
                }
                for (i, a_i) in acc.iter().enumerate().take(4.min(rows - r)) {
                    _mm512_storeu_ps(out.add((r + i) * BC + c0), *a_i);
                }
            }
            r += 4;
        }
    }

    /// [`super::acc_rows`] (bounds checked by the caller; `w` a multiple
    /// of 16).
    #[target_feature(enable = "avx512f")]
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn acc_rows(
        coef: *const f32,
        cs: usize,
        rows: usize,
        n: usize,
        b: *const f32,
        w: usize,
        out: *mut f32,
        os: usize,
    ) {
        let mut r = 0;
        while r < rows {
            let live = 4.min(rows - r);
            let mut x0 = 0;
            while x0 < w {
                let two = x0 + 32 <= w;
                let mut acc = [_mm512_setzero_ps(); 8];
                for i in 0..live {
                    acc[2 * i] = _mm512_loadu_ps(out.add((r + i) * os + x0));
                    if two {
                        acc[2 * i + 1] = _mm512_loadu_ps(out.add((r + i) * os + x0 + 16));
                    }
                }
                if two {
                    for c in 0..n {
                        let b0 = _mm512_loadu_ps(b.add(c * w + x0));
                        let b1 = _mm512_loadu_ps(b.add(c * w + x0 + 16));
                        for i in 0..4 {
                            let k = _mm512_set1_ps(*coef.add((r + i) * cs + c));
                            acc[2 * i] = _mm512_fmadd_ps(k, b0, acc[2 * i]);
                            acc[2 * i + 1] = _mm512_fmadd_ps(k, b1, acc[2 * i + 1]);
                        }
                    }
                } else {
                    for c in 0..n {
                        let b0 = _mm512_loadu_ps(b.add(c * w + x0));
                        for i in 0..4 {
                            let k = _mm512_set1_ps(*coef.add((r + i) * cs + c));
                            acc[2 * i] = _mm512_fmadd_ps(k, b0, acc[2 * i]);
                        }
                    }
                }
                for i in 0..live {
                    _mm512_storeu_ps(out.add((r + i) * os + x0), acc[2 * i]);
                    if two {
                        _mm512_storeu_ps(out.add((r + i) * os + x0 + 16), acc[2 * i + 1]);
                    }
                }
                x0 += if two { 32 } else { 16 };
            }
            r += 4;
        }
    }
}

/// The tiles of a unit of work, carved from one buffer per thread that is
/// kept between units and calls (the OpenMP and rayon threads live as long
/// as the process): a fresh allocation per unit cost page faults and
/// zeroing in the same order of time as the unit's products. What a unit
/// reads of a tile it has written first, or zeroed (`fill`).
struct Scratch {
    buf: Vec<f32>,
}

thread_local! {
    static SCRATCH: std::cell::Cell<Vec<f32>> = const { std::cell::Cell::new(Vec::new()) };
}

impl Scratch {
    fn take() -> Scratch {
        Scratch { buf: SCRATCH.with(|c| c.take()) }
    }

    /// Consecutive tiles of these lengths.
    fn carve<const N: usize>(&mut self, lens: [usize; N]) -> [&mut [f32]; N] {
        let total: usize = lens.iter().sum();
        if self.buf.len() < total {
            self.buf.resize(total, 0.0);
        }
        let mut rest: &mut [f32] = &mut self.buf;
        lens.map(|n| {
            let (head, tail) = std::mem::take(&mut rest).split_at_mut(n);
            rest = tail;
            head
        })
    }
}

/// Floats of scratch a thread keeps after a unit (16 MB): a longer
/// sequence's tiles are freed, not held by every thread for the life of
/// the process.
const KEEP: usize = 1 << 22;

impl Drop for Scratch {
    fn drop(&mut self) {
        let buf = std::mem::take(&mut self.buf);
        if buf.capacity() <= KEEP {
            SCRATCH.with(|c| c.set(buf));
        }
    }
}

/// A batch item's operand tiles, packed contiguous and zero-padded.
struct Item<'p> {
    p: &'p Plan,
    idx: Vec<usize>,
}

impl Item<'_> {
    /// Rows `first..first + rows` of `[L|S, n]` operand `lay` at `ptr`, into
    /// `dst` with row stride `ds` (padding left as it is).
    #[allow(clippy::too_many_arguments)]
    unsafe fn rows(
        &self,
        ptr: *const u8,
        lay: &Layout,
        first: usize,
        rows: usize,
        n: usize,
        dst: &mut [f32],
        ds: usize,
    ) {
        let base = lay.item(&self.idx);
        let r = lay.strides.len();
        let (rs, cs) = (lay.strides[r - 2], lay.strides[r - 1]);
        let src = ptr as *const f32;
        for i in 0..rows {
            let at = base + (first + i) as isize * rs;
            for x in 0..n {
                dst[i * ds + x] = *src.offset(at + x as isize * cs);
            }
        }
    }

    /// Columns `0..n` of rows `first..first + rows` of operand `lay`,
    /// transposed into `dst` (`n × BC`), zeros from `rows` to the next
    /// multiple of [`LANES`] (what the products read).
    unsafe fn transposed(&self, ptr: *const u8, lay: &Layout, first: usize, rows: usize, n: usize, dst: &mut [f32]) {
        let base = lay.item(&self.idx);
        let r = lay.strides.len();
        let (rs, cs) = (lay.strides[r - 2], lay.strides[r - 1]);
        let src = ptr as *const f32;
        // Row by row: each source row is read along its columns.
        for c in 0..rows {
            let at = base + (first + c) as isize * rs;
            for x in 0..n {
                dst[x * BC + c] = *src.offset(at + x as isize * cs);
            }
        }
        for x in 0..n {
            dst[x * BC + rows..x * BC + rows.next_multiple_of(LANES).min(BC)].fill(0.0);
        }
    }

    /// Scales the scores of query row `row` (keys `j0..j0 + bc`, then
    /// `-inf` to the end of `s`) and applies the mask and the causal
    /// triangle.
    #[inline(always)]
    unsafe fn mask(&self, s: &mut [f32], row: usize, j0: usize, bc: usize, mask_ptr: *const u8) {
        let p = self.p;
        let ninf = f32::NEG_INFINITY;
        for y in s.iter_mut() {
            *y *= p.scale;
        }
        if let Some((lay, boolean)) = &p.mask {
            let r = lay.strides.len();
            let at = lay.item(&self.idx) + row as isize * lay.strides[r - 2];
            let cs = lay.strides[r - 1];
            if *boolean {
                for (c, y) in s[..bc].iter_mut().enumerate() {
                    if *mask_ptr.offset(at + (j0 + c) as isize * cs) == 0 {
                        *y = ninf;
                    }
                }
            } else {
                let mp = mask_ptr as *const f32;
                for (c, y) in s[..bc].iter_mut().enumerate() {
                    *y += *mp.offset(at + (j0 + c) as isize * cs);
                }
            }
        }
        if p.causal {
            for (c, y) in s.iter_mut().enumerate() {
                if j0 + c > row {
                    *y = ninf;
                }
            }
        }
        for y in &mut s[bc..] {
            *y = ninf;
        }
    }
}

/// Query rows `first..first + rows` of batch item `item`.
#[inline(always)]
unsafe fn unit_body(p: &Plan, o: &Operands, item: usize, first: usize, rows: usize) {
    let it = Item { p, idx: p.item_index(item) };
    let (ep, evp) = (pad(p.e), pad(p.ev));
    let rows_pad = rows.next_multiple_of(4);
    let mut scratch = Scratch::take();
    let [q, kt, v, s, m, l, acc] =
        scratch.carve([rows_pad * ep, p.e * BC, BC * evp, BR.next_multiple_of(4) * BC, rows, rows, rows_pad * evp]);
    m.fill(f32::NEG_INFINITY);
    l.fill(0.0);
    acc.fill(0.0);
    it.rows(o.q, &p.q, first, rows, p.e, q, ep);
    let ninf = f32::NEG_INFINITY;
    // Keys a causal mask leaves to the unit's last row.
    let keys = if p.causal { p.s.min(first + rows) } else { p.s };
    let mut j0 = 0;
    while j0 < keys {
        let bc = BC.min(keys - j0);
        it.transposed(o.k, &p.k, j0, bc, p.e, kt);
        it.rows(o.v, &p.v, j0, bc, p.ev, v, evp);
        let mut r0 = 0;
        while r0 < rows {
            let br = BR.min(rows - r0);
            // A causal block whose first key is after its last row is empty.
            if p.causal && j0 > first + r0 + br - 1 {
                r0 += br;
                continue;
            }
            let cols = bc.next_multiple_of(LANES);
            abt(&q[r0 * ep..], ep, br, p.e, kt, cols, s);
            for i in 0..br {
                let sr = &mut s[i * BC..i * BC + cols];
                it.mask(sr, first + r0 + i, j0, bc, o.mask);
                // (`y > a`, not `f32::max`: one vector max per lane group,
                // and a NaN score is skipped as `max` skips it.)
                let mut mx = [ninf; LANES];
                for chunk in sr.chunks_exact(LANES) {
                    for (a, &y) in mx.iter_mut().zip(chunk) {
                        *a = if y > *a { y } else { *a };
                    }
                }
                let m_old = m[r0 + i];
                let m_new = mx.iter().fold(m_old, |a, &b| if b > a { b } else { a });
                if m_new == ninf {
                    // Nothing of the row is unmasked yet.
                    sr.fill(0.0);
                    continue;
                }
                let mut sum = [0f32; LANES];
                for chunk in sr.chunks_exact_mut(LANES) {
                    for (a, y) in sum.iter_mut().zip(chunk.iter_mut()) {
                        *y = exp(*y - m_new);
                        *a += *y;
                    }
                }
                let alpha = exp(m_old - m_new);
                m[r0 + i] = m_new;
                l[r0 + i] = l[r0 + i] * alpha + sum.iter().sum::<f32>();
                if alpha != 1.0 {
                    for a in &mut acc[(r0 + i) * evp..(r0 + i + 1) * evp] {
                        *a *= alpha;
                    }
                }
            }
            acc_rows(s, BC, br, bc, v, evp, &mut acc[r0 * evp..], evp);
            r0 += br;
        }
        j0 += bc;
    }
    let (out, lse) = (o.out as *mut f32, o.lse as *mut f32);
    let (ob, lb) = (p.out.item(&it.idx), p.lse.item(&it.idx));
    let (ro, rl) = (p.out.strides.len(), p.lse.strides.len());
    for i in 0..rows {
        let empty = m[i] == ninf || l[i] == 0.0;
        let inv = if empty { 0.0 } else { 1.0 / l[i] };
        for x in 0..p.ev {
            let at = ob + (first + i) as isize * p.out.strides[ro - 2] + x as isize * p.out.strides[ro - 1];
            *out.offset(at) = acc[i * evp + x] * inv;
        }
        *lse.offset(lb + (first + i) as isize * p.lse.strides[rl - 1]) = if empty { ninf } else { m[i] + l[i].ln() };
    }
}

/// `n` rounded up to whole vectors (at least one).
fn pad(n: usize) -> usize {
    n.next_multiple_of(LANES).max(LANES)
}

/// The gradients' extra operands: the output gradient and the saved
/// output (`[*B, L, Ev]`), and the three results.
#[derive(Clone, Debug, PartialEq)]
pub struct GradPlan {
    fwd: Plan,
    g: Layout,
    dq: Layout,
    dk: Layout,
    dv: Layout,
}

impl GradPlan {
    /// The plan over buffers of these types: `g`, `q`, `k`, `v`, `out`,
    /// `lse` as the forward's, then `dq`, `dk`, `dv` shaped as `q`, `k`,
    /// `v`, and the mask.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        g: &MemRefType,
        q: &MemRefType,
        k: &MemRefType,
        v: &MemRefType,
        out: &MemRefType,
        lse: &MemRefType,
        grads: [&MemRefType; 3],
        mask: Option<&MemRefType>,
        scale: f64,
        causal: bool,
    ) -> GradPlan {
        GradPlan {
            fwd: Plan::new(q, k, v, out, lse, mask, scale, causal),
            g: Layout::of(g),
            dq: Layout::of(grads[0]),
            dk: Layout::of(grads[1]),
            dv: Layout::of(grads[2]),
        }
    }

    /// Multiply-adds of the backward's five products.
    pub fn multiply_adds(&self) -> u64 {
        let f = &self.fwd;
        f.scores().saturating_mul((3 * f.e + 2 * f.ev) as u64)
    }
}

/// The backward's addresses (offset 0 of each buffer's layout).
#[derive(Copy, Clone)]
pub struct GradOperands {
    pub g: *const u8,
    pub q: *const u8,
    pub k: *const u8,
    pub v: *const u8,
    pub out: *const u8,
    pub lse: *const u8,
    pub dq: *mut u8,
    pub dk: *mut u8,
    pub dv: *mut u8,
    pub mask: *const u8,
}

struct SendGrad(GradOperands);
// Units (batch items) write disjoint parts of dq, dk and dv.
unsafe impl Sync for SendGrad {}

/// The gradients of the attention of `plan.fwd` on `threads` threads, one
/// batch item per unit: each key block's `dk` and `dv` are summed over the
/// query blocks in registers and tiles, `dq` over the key blocks in a tile
/// of the item, the probabilities recomputed from the saved log-sum-exp.
///
/// # Safety
/// As [`forward`]; `dq`, `dk`, `dv` must not overlap the inputs.
pub unsafe fn backward(plan: &GradPlan, ops: GradOperands, threads: usize) {
    let items = plan.fwd.items();
    let ops = SendGrad(ops);
    let job = |u: usize| {
        let ops = &ops;
        // SAFETY: the caller's contract; the unit writes its item only.
        unsafe { grad_unit(plan, &ops.0, u) };
    };
    run_units(items, threads, &job);
}

#[inline(always)]
unsafe fn grad_body(gp: &GradPlan, o: &GradOperands, item: usize) {
    let p = &gp.fwd;
    let it = Item { p, idx: p.item_index(item) };
    let (l, e, ev) = (p.l, p.e, p.ev);
    let (ep, evp) = (pad(e), pad(ev));
    let lp = l.next_multiple_of(4).max(4);
    let brp = BR.next_multiple_of(4);
    let mut scratch = Scratch::take();
    let [q, g, outp, dq, kt, kr, vt, dk, dv, s, dp, pt, dst] = scratch.carve([
        lp * ep,
        lp * evp,
        lp * evp,
        lp * ep,
        e * BC,
        BC * ep,
        ev * BC,
        BC * ep,
        BC * evp,
        brp * BC,
        brp * BC,
        BC * brp,
        BC * brp,
    ]);
    dq.fill(0.0);
    it.rows(o.q, &p.q, 0, l, e, q, ep);
    it.rows(o.g, &gp.g, 0, l, ev, g, evp);
    it.rows(o.out, &p.out, 0, l, ev, outp, evp);
    // Per row: its log-sum-exp, and D = Σ g ∘ out.
    let lb = p.lse.item(&it.idx);
    let ls = p.lse.strides[p.lse.strides.len() - 1];
    let lse: Vec<f32> = (0..l).map(|i| *(o.lse as *const f32).offset(lb + i as isize * ls)).collect();
    // (Loops, not closures: a closure is compiled without the caller's
    // target features, and its `mul_add` would be a libm call.)
    let mut d = vec![0f32; l];
    for (i, di) in d.iter_mut().enumerate() {
        let mut a = 0f32;
        for x in 0..ev {
            a = g[i * evp + x].mul_add(outp[i * evp + x], a);
        }
        *di = a;
    }
    let ninf = f32::NEG_INFINITY;
    let mut j0 = 0;
    while j0 < p.s {
        let bc = BC.min(p.s - j0);
        it.transposed(o.k, &p.k, j0, bc, e, kt);
        it.rows(o.k, &p.k, j0, bc, e, kr, ep);
        it.transposed(o.v, &p.v, j0, bc, ev, vt);
        dk.fill(0.0);
        dv.fill(0.0);
        // Under a causal mask, rows before the block's first key see none of it.
        let mut r0 = if p.causal { j0 - j0 % BR } else { 0 };
        while r0 < l {
            let br = BR.min(l - r0);
            let cols = bc.next_multiple_of(LANES);
            abt(&q[r0 * ep..], ep, br, e, kt, cols, s);
            abt(&g[r0 * evp..], evp, br, ev, vt, cols, dp);
            for i in 0..br {
                let row = r0 + i;
                let sr = &mut s[i * BC..i * BC + cols];
                it.mask(sr, row, j0, bc, o.mask);
                let shift = lse[row];
                let dpr = &mut dp[i * BC..i * BC + cols];
                if shift == ninf {
                    sr.fill(0.0);
                    dpr.fill(0.0);
                    continue;
                }
                let di = d[row];
                for (y, z) in sr.iter_mut().zip(dpr.iter_mut()) {
                    *y = exp(*y - shift);
                    *z = *y * (*z - di) * p.scale;
                }
            }
            for y in &mut s[br * BC..] {
                *y = 0.0;
            }
            for y in &mut dp[br * BC..] {
                *y = 0.0;
            }
            for c in 0..bc {
                for i in 0..brp {
                    pt[c * brp + i] = s[i * BC + c];
                    dst[c * brp + i] = dp[i * BC + c];
                }
            }
            acc_rows(pt, brp, bc, br, &g[r0 * evp..], evp, dv, evp);
            acc_rows(dst, brp, bc, br, &q[r0 * ep..], ep, dk, ep);
            acc_rows(dp, BC, br, bc, kr, ep, &mut dq[r0 * ep..], ep);
            r0 += br;
        }
        write_rows(&it, o.dk, &gp.dk, j0, bc, e, dk, ep);
        write_rows(&it, o.dv, &gp.dv, j0, bc, ev, dv, evp);
        j0 += bc;
    }
    write_rows(&it, o.dq, &gp.dq, 0, l, e, dq, ep);
}

/// Rows `0..rows` of tile `src` (row stride `ss`, `n` columns) into rows
/// `first..first + rows` of operand `lay` at `ptr`.
#[allow(clippy::too_many_arguments)]
unsafe fn write_rows(
    it: &Item<'_>,
    ptr: *mut u8,
    lay: &Layout,
    first: usize,
    rows: usize,
    n: usize,
    src: &[f32],
    ss: usize,
) {
    let base = lay.item(&it.idx);
    let r = lay.strides.len();
    let (rs, cs) = (lay.strides[r - 2], lay.strides[r - 1]);
    let dst = ptr as *mut f32;
    for i in 0..rows {
        for x in 0..n {
            *dst.offset(base + (first + i) as isize * rs + x as isize * cs) = src[i * ss + x];
        }
    }
}

/// The widest vector code the CPU has for a unit of work (the same
/// arithmetic, so the same bits, on each).
macro_rules! dispatch {
    ($name:ident, $body:ident, ($($arg:ident: $ty:ty),*)) => {
        unsafe fn $name($($arg: $ty),*) {
            #[cfg(target_arch = "x86_64")]
            {
                #[target_feature(enable = "avx512f,avx2,fma")]
                unsafe fn wide($($arg: $ty),*) {
                    $body($($arg),*)
                }
                #[target_feature(enable = "avx2,fma")]
                unsafe fn narrow($($arg: $ty),*) {
                    $body($($arg),*)
                }
                if std::arch::is_x86_feature_detected!("avx512f") && std::arch::is_x86_feature_detected!("fma") {
                    return wide($($arg),*);
                }
                if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma") {
                    return narrow($($arg),*);
                }
            }
            $body($($arg),*)
        }
    };
}

dispatch!(unit, unit_body, (p: &Plan, o: &Operands, item: usize, first: usize, rows: usize));
dispatch!(grad_unit, grad_body, (gp: &GradPlan, o: &GradOperands, item: usize));

/// `e^x` for the arguments softmax gives it (`x ≤ 0`, `-inf`, NaN), in
/// arithmetic the compiler keeps in vector lanes: `2^n · e^r` with
/// `n = round(x·log₂e)` and Cephes' polynomial for `e^r` on
/// `|r| ≤ ln2/2` (within 2 ulp); below -87 (where `e^x` is subnormal) the
/// result is 0.
#[inline(always)]
fn exp(x: f32) -> f32 {
    const MAGIC: f32 = 12_582_912.0; // 1.5 · 2^23: adding it rounds to an integer
    let xc = x.clamp(-87.0, 88.0);
    let t = xc.mul_add(std::f32::consts::LOG2_E, MAGIC);
    let n = t - MAGIC;
    let bits = t.to_bits().wrapping_sub(MAGIC.to_bits());
    let r = n.mul_add(-0.693_359_4, xc);
    let r = n.mul_add(2.121_944_4e-4, r);
    let mut q = 1.987_569_1e-4f32;
    q = q.mul_add(r, 1.398_199_9e-3);
    q = q.mul_add(r, 8.333_452e-3);
    q = q.mul_add(r, 4.166_579_6e-2);
    q = q.mul_add(r, 1.666_666_5e-1);
    q = q.mul_add(r, 5e-1);
    let er = q.mul_add(r * r, r) + 1.0;
    let scale = f32::from_bits(bits.wrapping_add(127) << 23);
    if x < -87.0 {
        0.0
    } else {
        er * scale
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use aot_ir::ElemType;

    fn ty(shape: &[i64], elem: ElemType, layout: Option<(&[i64], i64)>) -> MemRefType {
        MemRefType { shape: shape.into(), elem, layout: layout.map(|(s, o)| (s.into(), o)) }
    }

    /// A deterministic value in [-2, 2).
    fn val(i: usize, salt: u64) -> f32 {
        let h =
            (i as u64 ^ salt).wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(23).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        ((h >> 40) as f32 / (1u64 << 24) as f32) * 4.0 - 2.0
    }

    enum Mask {
        None,
        /// Keeps key j of row i unless (i + 2j) % 7 == 0; row 5 keeps nothing.
        Bool,
        /// Adds a value per (row, key), -inf for every key of row 3.
        Additive,
    }

    /// The attention of `[B=2, L, E]`/`[2, S, E]`/`[2, S, Ev]` against a
    /// reference in f64, with K stored transposed (`[2, E, S]` in memory),
    /// on 1 and 3 threads (the same bits).
    fn check(l: usize, s: usize, e: usize, ev: usize, causal: bool, mask: Mask) {
        let b = 2;
        let q: Vec<f32> = (0..b * l * e).map(|i| val(i, 1)).collect();
        let kmem: Vec<f32> = (0..b * e * s).map(|i| val(i, 2)).collect(); // [b, e, s]
        let v: Vec<f32> = (0..b * s * ev).map(|i| val(i, 3)).collect();
        let keep = |i: usize, j: usize| i != 5 && !(i + 2 * j).is_multiple_of(7);
        let bias = |i: usize, j: usize| if i == 3 { f32::NEG_INFINITY } else { val(i * s + j, 4) };
        let mbool: Vec<u8> = (0..l * s).map(|x| keep(x / s, x % s) as u8).collect();
        let madd: Vec<f32> = (0..l * s).map(|x| bias(x / s, x % s)).collect();
        let (li, si, ei, evi) = (l as i64, s as i64, e as i64, ev as i64);
        let tq = ty(&[2, li, ei], ElemType::F32, None);
        let tk = ty(&[2, si, ei], ElemType::F32, Some((&[ei * si, 1, si], 0)));
        let tv = ty(&[2, si, evi], ElemType::F32, None);
        let to = ty(&[2, li, evi], ElemType::F32, None);
        let tl = ty(&[2, li], ElemType::F32, None);
        let (tm, mptr): (Option<MemRefType>, *const u8) = match mask {
            Mask::None => (None, std::ptr::null()),
            Mask::Bool => (Some(ty(&[2, li, si], ElemType::I1, Some((&[0, si, 1], 0)))), mbool.as_ptr()),
            Mask::Additive => {
                (Some(ty(&[2, li, si], ElemType::F32, Some((&[0, si, 1], 0)))), madd.as_ptr() as *const u8)
            }
        };
        let scale = 1.0 / (e as f64).sqrt();
        let plan = Plan::new(&tq, &tk, &tv, &to, &tl, tm.as_ref(), scale, causal);
        let run = |threads: usize| {
            let mut out = vec![f32::NAN; b * l * ev];
            let mut lse = vec![f32::NAN; b * l];
            let ops = Operands {
                q: q.as_ptr() as *const u8,
                k: kmem.as_ptr() as *const u8,
                v: v.as_ptr() as *const u8,
                out: out.as_mut_ptr() as *mut u8,
                lse: lse.as_mut_ptr() as *mut u8,
                mask: mptr,
            };
            // SAFETY: the buffers match the plan's types.
            unsafe { forward(&plan, ops, threads) };
            (out, lse)
        };
        let (out, lse) = run(1);
        let (out3, lse3) = run(3);
        assert!(out.iter().zip(&out3).all(|(a, b)| a.to_bits() == b.to_bits()), "threads changed the output");
        assert!(lse.iter().zip(&lse3).all(|(a, b)| a.to_bits() == b.to_bits()), "threads changed the lse");
        // The backward, on the forward's out and lse, with K's transposed
        // layout and dk written transposed too.
        let g: Vec<f32> = (0..b * l * ev).map(|i| val(i, 5)).collect();
        let gplan = GradPlan::new(&to, &tq, &tk, &tv, &to, &tl, [&tq, &tk, &tv], tm.as_ref(), scale, causal);
        let grads = |threads: usize| {
            let (mut dq, mut dk, mut dv) =
                (vec![f32::NAN; q.len()], vec![f32::NAN; kmem.len()], vec![f32::NAN; v.len()]);
            let ops = GradOperands {
                g: g.as_ptr() as *const u8,
                q: q.as_ptr() as *const u8,
                k: kmem.as_ptr() as *const u8,
                v: v.as_ptr() as *const u8,
                out: out.as_ptr() as *const u8,
                lse: lse.as_ptr() as *const u8,
                dq: dq.as_mut_ptr() as *mut u8,
                dk: dk.as_mut_ptr() as *mut u8,
                dv: dv.as_mut_ptr() as *mut u8,
                mask: mptr,
            };
            // SAFETY: the buffers match the plan's types.
            unsafe { backward(&gplan, ops, threads) };
            (dq, dk, dv)
        };
        let (dq, dk, dv) = grads(1);
        let (dq3, dk3, dv3) = grads(3);
        let same = |a: &[f32], b: &[f32]| a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits());
        assert!(same(&dq, &dq3) && same(&dk, &dk3) && same(&dv, &dv3), "threads changed the gradients");
        let (mut rdq, mut rdk, mut rdv) = (vec![0f64; q.len()], vec![0f64; kmem.len()], vec![0f64; v.len()]);
        for bi in 0..b {
            for i in 0..l {
                let mut sc: Vec<f64> = (0..s)
                    .map(|j| {
                        let dot: f64 =
                            (0..e).map(|x| q[(bi * l + i) * e + x] as f64 * kmem[bi * e * s + x * s + j] as f64).sum();
                        let t = dot * (scale as f32) as f64;
                        let t = match mask {
                            Mask::None => t,
                            Mask::Bool => {
                                if keep(i, j) {
                                    t
                                } else {
                                    f64::NEG_INFINITY
                                }
                            }
                            Mask::Additive => t + bias(i, j) as f64,
                        };
                        if causal && j > i {
                            f64::NEG_INFINITY
                        } else {
                            t
                        }
                    })
                    .collect();
                let m = sc.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                let row_lse = lse[bi * l + i];
                if m == f64::NEG_INFINITY {
                    assert_eq!(row_lse, f32::NEG_INFINITY, "row {i}");
                    assert!((0..ev).all(|x| out[(bi * l + i) * ev + x] == 0.0), "empty row {i}");
                    continue;
                }
                let mut sum = 0.0;
                for y in sc.iter_mut() {
                    *y = (*y - m).exp();
                    sum += *y;
                }
                assert!(((m + sum.ln()) - row_lse as f64).abs() < 1e-5 * (1.0 + m.abs()), "lse of row {i}");
                let mut o = vec![0f64; ev];
                for (x, ox) in o.iter_mut().enumerate() {
                    let want: f64 = (0..s).map(|j| sc[j] * v[(bi * s + j) * ev + x] as f64).sum::<f64>() / sum;
                    let got = out[(bi * l + i) * ev + x] as f64;
                    assert!((want - got).abs() < 2e-5, "out[{bi}, {i}, {x}]: {got} against {want}");
                    *ox = want;
                }
                // Gradients of this row: P = sc / sum.
                let gi = |x: usize| g[(bi * l + i) * ev + x] as f64;
                let dd: f64 = (0..ev).map(|x| gi(x) * o[x]).sum();
                for j in 0..s {
                    let pj = sc[j] / sum;
                    for x in 0..ev {
                        rdv[(bi * s + j) * ev + x] += pj * gi(x);
                    }
                    let dpj: f64 = (0..ev).map(|x| gi(x) * v[(bi * s + j) * ev + x] as f64).sum();
                    let ds = pj * (dpj - dd) * (scale as f32) as f64;
                    for x in 0..e {
                        rdq[(bi * l + i) * e + x] += ds * kmem[bi * e * s + x * s + j] as f64;
                        rdk[bi * e * s + x * s + j] += ds * q[(bi * l + i) * e + x] as f64;
                    }
                }
            }
        }
        for (name, got, want) in [("dq", &dq, &rdq), ("dk", &dk, &rdk), ("dv", &dv, &rdv)] {
            for (n, (&a, &w)) in got.iter().zip(want.iter()).enumerate() {
                assert!((a as f64 - w).abs() < 5e-5 * (1.0 + w.abs()), "{name}[{n}]: {a} against {w}");
            }
        }
    }

    #[test]
    fn matches_a_reference_over_several_blocks() {
        // Several query blocks (BR = 32), key blocks (BC = 128) with a
        // partial last one, head sizes that are not multiples of 16.
        check(70, 300, 24, 20, false, Mask::None);
        check(70, 300, 24, 20, true, Mask::None);
        check(40, 130, 8, 33, false, Mask::Bool);
        check(40, 130, 8, 33, true, Mask::Additive);
        check(3, 1, 5, 2, false, Mask::None);
        check(33, 17, 16, 16, true, Mask::Bool);
    }

    #[test]
    fn exp_is_within_two_ulp_on_the_softmax_range() {
        let mut worst = 0u32;
        let mut x = -87.0f32;
        while x <= 0.0 {
            let (a, b) = (exp(x), x.exp());
            worst = worst.max(a.to_bits().abs_diff(b.to_bits()));
            x += 0.000_731;
        }
        assert!(worst <= 2, "{worst} ulp");
        assert_eq!(exp(f32::NEG_INFINITY), 0.0);
        assert_eq!(exp(-100.0), 0.0);
        assert!(exp(f32::NAN).is_nan());
        assert_eq!(exp(0.0), 1.0);
    }
}
