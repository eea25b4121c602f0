//! The host program of a lowered function: what runs around the kernels.
//!
//! Backend-independent: a backend compiles each `loop.kernel` to a
//! function pointer ([`KernelFn`]) and [`Runtime`] runs the steps — it
//! binds arguments (copying non-contiguous ones in, and back out when
//! written), allocates buffers (own storage for results, the arena for
//! planned temporaries), calls kernels (splitting a parallel outermost loop
//! across threads when the work is large), calls the GEMM, applies the
//! trailing argument metadata mutations, and wraps results as tensors.
//!
//! Every memref value of the function is a [`BufRef`]: the allocation it
//! lives in (an argument, an allocation, a global) and its absolute layout
//! in that allocation. Views cost nothing at run time.

use aot_dialects::func::{FuncView, ReturnOp};
use aot_dialects::r#loop::{self, LoopOp};
use aot_ir::*;
use aot_runtime::buffer::Buffer;
use aot_runtime::tensor::{Storage, StorageRef, Tensor};
use rustc_hash::FxHashMap;
use std::rc::Rc;

/// Where a buffer lives.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Root {
    Arg(usize),
    Alloc(usize),
    Global(usize),
}

/// A memref value: its allocation and its layout there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BufRef {
    pub root: Root,
    pub ty: MemRefType,
}

/// A compiled kernel: `(base pointers, lo, hi) -> 0 | 1 + failed check`.
/// `lo..hi` is the range of the outermost parallel loop's induction
/// variable this call runs (ignored by kernels that cannot be split).
pub type KernelFn = unsafe extern "C" fn(*const *mut u8, i64, i64) -> i32;

#[derive(Clone, Debug)]
pub enum Step {
    Kernel {
        op: Op,
        name: String,
        /// The root of each kernel operand (the kernel applies the layouts).
        roots: Vec<Root>,
        /// `(lower, upper, step)` of the outermost loop when the kernel may
        /// be split across threads.
        split: Option<(i64, i64, i64)>,
        /// Rough count of element operations, for the threading decision.
        work: u64,
        /// Per operand: whether the kernel stores to it.
        writes: Vec<bool>,
    },
    Matmul(Box<Matmul>),
    Rebind {
        arg: usize,
        src: BufRef,
        /// The argument's exact strides, where they differ from the memref
        /// type's on size-1 dimensions.
        stride: Option<Vec<i64>>,
    },
    Resize {
        arg: usize,
        numel: i64,
        ty: MemRefType,
    },
}

/// `c = a·b` (`c += a·b`).
#[derive(Clone, Debug)]
pub struct Matmul {
    pub a: BufRef,
    pub b: BufRef,
    pub c: BufRef,
    pub accumulate: bool,
}

/// A lowered function as the runtime executes it.
#[derive(Clone, Debug)]
pub struct HostProgram {
    pub args: Vec<MemRefType>,
    /// Per `loop.alloc`: its type and arena byte offset (planned temporaries).
    pub allocs: Vec<(MemRefType, Option<u64>)>,
    /// Bytes of the arena `plan-memory` laid the temporaries out in.
    pub arena_bytes: u64,
    pub globals: Vec<(MemRefType, Attribute)>,
    pub steps: Vec<Step>,
    pub outputs: Vec<BufRef>,
    /// Arguments some step writes (kernels storing to them, resizes).
    pub written_args: Vec<bool>,
}

pub fn memref(ctx: &Context, v: Value) -> Option<MemRefType> {
    match ctx.type_data(ctx.value_type(v)) {
        TypeData::MemRef(m) => Some(m.clone()),
        _ => None,
    }
}

/// The error for argument `i` of a compiled call that is not the
/// `elem` tensor of `shape` the function was compiled for.
pub(crate) fn argument_mismatch(i: usize, t: &Tensor, elem: ElemType, shape: &[i64]) -> String {
    format!(
        "argument {i}: expected a {elem} tensor of shape {:?}, got {} {:?}",
        shape.to_vec(),
        t.dtype(),
        t.sizes().to_vec()
    )
}

/// Work estimate of a kernel: element operations executed.
fn kernel_work(ctx: &Context, op: Op) -> u64 {
    fn region_work(ctx: &Context, r: Region) -> u64 {
        let mut w = 0u64;
        for &b in ctx.region_blocks(r) {
            for o in ctx.block_ops(b) {
                w = w.saturating_add(op_work(ctx, o));
            }
        }
        w
    }
    fn op_work(ctx: &Context, o: Op) -> u64 {
        if LoopOp::of(ctx, o) == Some(LoopOp::For) {
            let (lo, hi, st) = (
                ctx.attr_i64(o, "lower").unwrap_or(0),
                ctx.attr_i64(o, "upper").unwrap_or(0),
                ctx.attr_i64(o, "step").unwrap_or(1).max(1),
            );
            let trips = trips(lo, hi, st) as u64;
            let inner = ctx.regions(o).iter().fold(0u64, |w, &r| w.saturating_add(region_work(ctx, r)));
            trips.saturating_mul(inner.max(1))
        } else {
            1
        }
    }
    ctx.regions(op).iter().fold(0u64, |w, &r| w.saturating_add(region_work(ctx, r)))
}

/// The outermost loop a kernel may be split along: the body is one parallel
/// `loop.for` after a scalar prologue that each chunk runs again: constants,
/// arithmetic, checks, and loads of buffers the kernel never writes (so a
/// chunk cannot see another's stores). The Philox seed and offset loads and
/// their check are such a prologue.
pub fn split_loop(ctx: &Context, kernel: Op) -> Option<Op> {
    let body = ctx.single_block(kernel, 0)?;
    let mut found = None;
    let mut loads = Vec::new();
    for o in ctx.block_ops(body) {
        match LoopOp::of(ctx, o) {
            Some(LoopOp::For) if ctx.has_attr(o, "parallel") && ctx.num_results(o) == 0 && found.is_none() => {
                found = Some(o)
            }
            Some(LoopOp::Yield | LoopOp::Constant) => {}
            Some(LoopOp::Scalar(_) | LoopOp::Assert) if found.is_none() => {}
            Some(LoopOp::Load) if found.is_none() => loads.push(o),
            _ => return None,
        }
    }
    if !loads.is_empty() {
        // Buffers are compared by what a write may clobber
        // (`fuse::alias_class`: arguments declared in one storage are one).
        let class = |buf: Value| {
            let i = ctx.block_args(body).iter().position(|&b| b == buf)?;
            Some(crate::fuse::alias_class(ctx, crate::fuse::root_of(ctx, ctx.operand(kernel, i))))
        };
        let mut written = Vec::new();
        let mut unknown = false;
        ctx.walk_pre(kernel, &mut |o| {
            if LoopOp::of(ctx, o) == Some(LoopOp::Store) {
                match class(ctx.operand(o, 1)) {
                    Some(c) => written.push(c),
                    None => unknown = true,
                }
            }
        });
        if unknown || loads.iter().any(|&l| class(ctx.operand(l, 0)).is_none_or(|c| written.contains(&c))) {
            return None;
        }
    }
    found
}

/// The outermost parallel loop of a kernel when nothing but constants
/// precedes it (what loop fusion may merge).
pub fn outer_parallel_loop(ctx: &Context, kernel: Op) -> Option<Op> {
    let body = ctx.single_block(kernel, 0)?;
    let first = ctx.block_ops(body).find(|&o| LoopOp::of(ctx, o) != Some(LoopOp::Constant));
    split_loop(ctx, kernel).filter(|&l| first == Some(l))
}

/// Builds the host program of a lowered function.
pub fn build(ctx: &Context, func: Op) -> Result<HostProgram, Diagnostic> {
    let f = FuncView { op: func };
    let entry = f.entry_block(ctx).ok_or_else(|| Diagnostic::op_error(ctx, func, "a declaration has no body"))?;
    let err = |op: Op, m: String| Diagnostic::op_error(ctx, op, m);
    let mut refs: FxHashMap<Value, BufRef> = FxHashMap::default();
    let mut args = Vec::new();
    for (i, &a) in ctx.block_args(entry).iter().enumerate() {
        let m = memref(ctx, a).ok_or_else(|| {
            err(func, format!("argument {i} is not a buffer: run lower-to-loops before compiling to native code"))
        })?;
        refs.insert(a, BufRef { root: Root::Arg(i), ty: m.clone() });
        args.push(m);
    }
    let mut p = HostProgram {
        written_args: vec![false; args.len()],
        args,
        allocs: Vec::new(),
        arena_bytes: 0,
        globals: Vec::new(),
        steps: Vec::new(),
        outputs: Vec::new(),
    };
    let get = |refs: &FxHashMap<Value, BufRef>, op: Op, v: Value| -> Result<BufRef, Diagnostic> {
        refs.get(&v).cloned().ok_or_else(|| err(op, "operand is not a buffer of this function".into()))
    };
    for op in ctx.block_ops(entry) {
        match LoopOp::of(ctx, op) {
            Some(LoopOp::Alloc) => {
                let m = memref(ctx, ctx.result(op, 0)).expect("verified");
                let off = ctx.attr_i64(op, "offset").map(|o| o as u64);
                refs.insert(ctx.result(op, 0), BufRef { root: Root::Alloc(p.allocs.len()), ty: m.clone() });
                p.allocs.push((m, off));
            }
            Some(LoopOp::Global) => {
                let m = memref(ctx, ctx.result(op, 0)).expect("verified");
                let a = ctx.get_attr(op, "value").expect("verified");
                refs.insert(ctx.result(op, 0), BufRef { root: Root::Global(p.globals.len()), ty: m.clone() });
                p.globals.push((m, a));
            }
            Some(LoopOp::View) => {
                let src = get(&refs, op, ctx.operand(op, 0))?;
                let m = memref(ctx, ctx.result(op, 0)).expect("verified");
                refs.insert(ctx.result(op, 0), BufRef { root: src.root, ty: m });
            }
            Some(LoopOp::Kernel) => {
                let mut roots = Vec::new();
                for v in ctx.operands(op) {
                    roots.push(get(&refs, op, v)?.root);
                }
                let body = ctx.single_block(op, 0).expect("verified");
                // Which operands the kernel stores to.
                let args_of_body = ctx.block_args(body).to_vec();
                let mut writes = vec![false; roots.len()];
                ctx.walk_pre(op, &mut |o| {
                    if LoopOp::of(ctx, o) == Some(LoopOp::Store) {
                        if let Some(k) = args_of_body.iter().position(|&a| a == ctx.operand(o, 1)) {
                            if let Some(w) = writes.get_mut(k) {
                                *w = true;
                            }
                            if let Root::Arg(i) = roots[k] {
                                p.written_args[i] = true;
                            }
                        }
                    }
                });
                if roots.iter().any(|r| matches!(r, Root::Global(_))) {
                    let writes_global = {
                        let mut w = false;
                        ctx.walk_pre(op, &mut |o| {
                            if LoopOp::of(ctx, o) == Some(LoopOp::Store) {
                                if let Some(k) = args_of_body.iter().position(|&a| a == ctx.operand(o, 1)) {
                                    w |= matches!(roots[k], Root::Global(_));
                                }
                            }
                        });
                        w
                    };
                    if writes_global {
                        return Err(err(op, "a kernel writes a read-only global buffer".into()));
                    }
                }
                let split = split_loop(ctx, op).map(|l| {
                    (
                        ctx.attr_i64(l, "lower").unwrap_or(0),
                        ctx.attr_i64(l, "upper").unwrap_or(0),
                        ctx.attr_i64(l, "step").unwrap_or(1),
                    )
                });
                p.steps.push(Step::Kernel {
                    op,
                    name: ctx.attr_str(op, "name").unwrap_or("kernel").to_string(),
                    roots,
                    split,
                    work: kernel_work(ctx, op),
                    writes,
                });
            }
            Some(LoopOp::Matmul) => {
                let (a, b, c) = (
                    get(&refs, op, ctx.operand(op, 0))?,
                    get(&refs, op, ctx.operand(op, 1))?,
                    get(&refs, op, ctx.operand(op, 2))?,
                );
                if matches!(c.root, Root::Global(_)) {
                    return Err(err(op, "a matmul writes a read-only global buffer".into()));
                }
                if let Root::Arg(i) = c.root {
                    p.written_args[i] = true;
                }
                p.steps.push(Step::Matmul(Box::new(Matmul { a, b, c, accumulate: ctx.has_attr(op, "accumulate") })));
            }
            Some(LoopOp::Rebind) => {
                let arg = match get(&refs, op, ctx.operand(op, 0))?.root {
                    Root::Arg(i) => i,
                    _ => return Err(err(op, "rebinds something that is not an argument".into())),
                };
                let src = get(&refs, op, ctx.operand(op, 1))?;
                let m = memref(ctx, ctx.result(op, 0)).expect("verified");
                let r = BufRef { root: src.root, ty: m };
                if matches!(r.root, Root::Global(_)) {
                    return Err(err(op, "an argument cannot be rebound to a read-only global buffer".into()));
                }
                refs.insert(ctx.result(op, 0), r.clone());
                let stride = ctx.attr_i64_list(op, "stride").filter(|s| s.len() == r.ty.shape.len());
                p.steps.push(Step::Rebind { arg, src: r, stride });
            }
            Some(LoopOp::Resize) => {
                let arg = match get(&refs, op, ctx.operand(op, 0))?.root {
                    Root::Arg(i) => i,
                    _ => return Err(err(op, "resizes something that is not an argument".into())),
                };
                let m = memref(ctx, ctx.result(op, 0)).expect("verified");
                let numel = ctx.attr_i64(op, "numel").unwrap_or(0);
                refs.insert(ctx.result(op, 0), BufRef { root: Root::Arg(arg), ty: m.clone() });
                p.written_args[arg] = true;
                p.steps.push(Step::Resize { arg, numel, ty: m });
            }
            None if ctx.isa::<ReturnOp>(op) => {
                for v in ctx.operands(op) {
                    p.outputs.push(get(&refs, op, v)?);
                }
            }
            _ => {
                return Err(err(
                    op,
                    format!(
                        "'{}' is not a host-level op of a lowered function (run lower-to-loops first)",
                        ctx.op_name(op)
                    ),
                ))
            }
        }
    }
    p.arena_bytes = p
        .allocs
        .iter()
        .filter_map(|(m, off)| {
            off.map(|o| (r#loop::extent(m).max(0) as u64).saturating_mul(m.elem.byte_size() as u64).saturating_add(o))
        })
        .max()
        .unwrap_or(0);
    // Each temporary was checked against the allocation limit; the arena
    // holds several at once, so it is checked as one allocation too.
    aot_ir::size::check_alloc(p.arena_bytes, 1, "the arena of the compiled temporaries")
        .map_err(|e| err(func, e.to_string()))?;
    Ok(p)
}

/// `value` (a dense attribute) as a buffer of `e`.
pub fn dense_buffer(ctx: &Context, value: Attribute, e: ElemType, n: usize) -> Result<Buffer, String> {
    let AttrData::Dense { data, .. } = ctx.attr_data(value) else {
        return Err("a global needs a dense value".into());
    };
    let count_ok = match data {
        DenseData::SplatInt(_) | DenseData::SplatFloat(_) => true,
        DenseData::Ints(v) => v.len() == n,
        DenseData::Floats(v) => v.len() == n,
    };
    if !count_ok {
        return Err(format!("a dense constant does not have the {n} elements of its type"));
    }
    let mut b = Buffer::zeros(e, n);
    for i in 0..n {
        match data {
            DenseData::SplatInt(v) => b.set_i64(i, *v),
            DenseData::Ints(v) => b.set_i64(i, v[i]),
            DenseData::SplatFloat(_) | DenseData::Floats(_) => b.set_f64(i, data.get_f64(i)),
        }
    }
    Ok(b)
}

/// The message of `loop.assert` `op` as a located error (`FILE:LINE:COL:
/// error: MSG`), the form eager mode prints, where the op has a file
/// location; every native backend reports a failed check with it.
pub fn assert_message(ctx: &Context, op: Op) -> String {
    let msg = ctx.attr_str(op, "msg").unwrap_or("a check failed");
    match ctx.loc_file_line_col(ctx.op_loc(op)) {
        Some((file, line, col)) => format!("{file}:{line}:{col}: error: {msg}"),
        None => msg.to_string(),
    }
}

/// The storages of the program's read-only globals, in order.
pub fn globals(ctx: &Context, program: &HostProgram) -> Result<Vec<StorageRef>, String> {
    let mut globals = Vec::new();
    for (m, value) in &program.globals {
        let n: i64 = m.shape.iter().product();
        let b = dense_buffer(ctx, *value, m.elem, n.max(0) as usize)?;
        globals.push(aot_runtime::tensor::Storage::new(b));
    }
    Ok(globals)
}

/// What the runtime needs besides the host program.
pub struct Compiled {
    pub program: HostProgram,
    /// One per `Step::Kernel`, in order.
    pub kernels: Vec<KernelFn>,
    /// Messages of the failed-check codes (code k is `messages[k - 1]`).
    pub messages: Vec<String>,
    /// Read-only data, one storage per global.
    pub globals: Vec<StorageRef>,
    /// Keeps the code alive (a JIT module, a loaded library).
    pub owner: Box<dyn std::any::Any>,
}

/// What a host region of a call is to a [`Device`] that mirrors it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RegionKind {
    /// An argument's storage: read, so copied in; copied back when written.
    Argument,
    /// A result's own allocation: written before it is read (the kernels'
    /// contract), so only copied back.
    Result,
    /// The arena of planned temporaries: copied only when the host runs a
    /// step itself in the middle of a call.
    Scratch,
    /// Read-only data (a global): the same bytes on every call.
    Constant,
}

/// A host buffer a call's steps address: what a device mirrors.
#[derive(Copy, Clone, Debug)]
pub struct HostRegion {
    pub ptr: *mut u8,
    pub bytes: usize,
    pub kind: RegionKind,
}

/// A device with memory of its own that runs the kernels and GEMMs of a
/// host program (the CUDA backend). The runtime keeps running the host
/// program (binding, `set_`, `resize_`, results) on host buffers; the
/// device mirrors the regions the steps address and translates the host
/// pointers the runtime computes into its own. So copies happen only at
/// the edges of a call, and in the middle of one only where the host runs
/// a step itself.
pub trait Device {
    /// Starts a call over `regions` or, with `resume`, goes on with one
    /// after [`Device::to_host`] (every region's host bytes are then
    /// current, whatever its kind).
    fn begin(&mut self, regions: Vec<HostRegion>, resume: bool) -> Result<(), String>;
    /// Runs kernel step `step` (the `index`th kernel) on operands whose host
    /// addresses are `ptrs`.
    fn kernel(&mut self, index: usize, step: &Step, ptrs: &[*mut u8]) -> Result<(), String>;
    /// Runs a matmul step on operands at host addresses `pa`, `pb`, `pc`.
    fn matmul(&mut self, mm: &Matmul, pa: *mut u8, pb: *mut u8, pc: *mut u8) -> Result<(), String>;
    /// Makes the host regions hold everything the device wrote and drops
    /// the mirrors, before a step the host runs itself. A failed check of
    /// a kernel run so far is the error.
    fn to_host(&mut self) -> Result<(), String>;
    /// Ends the call: like [`Device::to_host`], except that the arena is
    /// not copied back and nothing is copied when a check failed.
    fn finish(&mut self) -> Result<(), String>;
}

/// Kernels above this many element operations are split across threads.
const PARALLEL_WORK: u64 = 1 << 15;

/// Runs a compiled host program (the `Executable` of native backends).
pub struct Runtime {
    pub code: Rc<Compiled>,
    /// Planned temporaries, kept between calls.
    arena: Vec<u64>,
    threads: usize,
    /// Per `loop.alloc`: the storage of the result the last call returned in
    /// it. When the caller has dropped every tensor of it by the next call,
    /// its buffer (already touched, so free of page faults) holds the new
    /// result: a caching allocator for results, one set deep. Kernels write
    /// every element of an allocation before reading it (the arena's
    /// temporaries are never cleared either), so old contents never show.
    returned: Vec<Option<StorageRef>>,
    /// Whether some step may run on several threads (a GEMM, or a kernel
    /// big enough to split): only then does a call go to the thread pool.
    parallel: bool,
    /// Per step, its total time and number of runs, when `AOT_PROFILE` is
    /// set: printed to stderr when the runtime is dropped.
    profile: Option<Vec<(std::time::Duration, u64)>>,
    /// The device that runs the kernels and GEMMs, when not the host.
    device: Option<Box<dyn Device>>,
}

struct SendPtrs(Vec<*mut u8>);
// The pointers address buffers this call owns or borrows exclusively; the
// kernels each chunk runs write disjoint elements (parallel loops only).
unsafe impl Sync for SendPtrs {}
unsafe impl Send for SendPtrs {}

impl Runtime {
    /// A runtime using `AOT_NUM_THREADS` threads, else the host team's
    /// count, else every core.
    pub fn new(code: Rc<Compiled>) -> Runtime {
        let threads = crate::threads::default_threads();
        let words = code.program.arena_bytes.div_ceil(8) as usize;
        let returned = vec![None; code.program.allocs.len()];
        let parallel = code.program.steps.iter().any(|s| match s {
            Step::Kernel { split, work, .. } => split.is_some() && *work >= PARALLEL_WORK,
            Step::Matmul(_) => true,
            Step::Rebind { .. } | Step::Resize { .. } => false,
        });
        let profile = std::env::var("AOT_PROFILE")
            .is_ok_and(|v| !v.is_empty() && v != "0")
            .then(|| vec![Default::default(); code.program.steps.len()]);
        Runtime { code, arena: vec![0; words], threads, returned, parallel, profile, device: None }
    }

    /// A runtime whose kernels and GEMMs run on `device`.
    pub fn on_device(code: Rc<Compiled>, device: Box<dyn Device>) -> Runtime {
        let mut r = Runtime::new(code);
        r.device = Some(device);
        r.parallel = false;
        r.threads = 1;
        r
    }

    /// Overrides the number of threads kernels are split over (1: none).
    pub fn set_threads(&mut self, n: usize) {
        self.threads = n.max(1);
    }

    fn buffer_ptr(storage: &StorageRef) -> *mut u8 {
        storage.buf_mut().as_mut_ptr()
    }

    pub fn run(&mut self, args: Vec<Tensor>) -> Result<Vec<Tensor>, String> {
        let code = self.code.clone();
        let p = &code.program;
        if args.len() != p.args.len() {
            return Err(format!("the compiled function takes {} arguments, got {}", p.args.len(), args.len()));
        }
        // 1. Arguments. A buffer compiled with a layout is the argument's
        // storage (the layout says where the elements are); a contiguous one
        // starts at the argument's first element, and a non-contiguous
        // argument is copied in (and back out if written).
        let mut bound: Vec<Tensor> = Vec::with_capacity(args.len());
        let mut copied = vec![false; args.len()];
        let mut base_off = vec![0i64; args.len()];
        for (i, (t, m)) in args.iter().zip(&p.args).enumerate() {
            if t.dtype() != m.elem || t.sizes()[..] != m.shape[..] {
                return Err(argument_mismatch(i, t, m.elem, &m.shape));
            }
            if t.physical() != t.dtype() {
                return Err(format!("argument {i}: the compiled code needs {} storage", t.dtype()));
            }
            if let Some((strides, offset)) = &m.layout {
                let same = t.offset() == *offset
                    && t.sizes()
                        .iter()
                        .zip(t.strides().iter())
                        .zip(strides.iter())
                        .all(|((&n, &a), &b)| n <= 1 || a == b);
                if !same {
                    return Err(format!(
                        "argument {i}: compiled for strides {:?} at offset {offset}, got {:?} at {}",
                        strides.to_vec(),
                        t.strides().to_vec(),
                        t.offset()
                    ));
                }
                bound.push(t.clone());
            } else if t.is_contiguous() {
                base_off[i] = t.offset();
                bound.push(t.clone());
            } else {
                let c = Tensor::zeros(t.dtype(), &t.sizes(), t.dtype());
                c.copy_values_from(t);
                copied[i] = true;
                bound.push(c);
            }
        }
        let arg_ptr = |t: &Tensor, off: i64| -> *mut u8 {
            let base = Self::buffer_ptr(&t.storage());
            // SAFETY: the offset addresses an element of the storage (a
            // tensor invariant), so the pointer stays inside its buffer.
            unsafe { base.add(off as usize * t.dtype().byte_size()) }
        };
        let mut arg_ptrs: Vec<*mut u8> = bound.iter().zip(&base_off).map(|(t, &o)| arg_ptr(t, o)).collect();
        // 2. Allocations: own storage, or a slice of the arena.
        let arena_base = self.arena.as_mut_ptr() as *mut u8;
        let mut alloc_storage: Vec<Option<StorageRef>> = Vec::with_capacity(p.allocs.len());
        let mut alloc_ptrs: Vec<*mut u8> = Vec::with_capacity(p.allocs.len());
        for (k, (m, off)) in p.allocs.iter().enumerate() {
            match off {
                // SAFETY: plan-memory placed the buffer inside the arena,
                // which `new` sized to `arena_bytes`.
                Some(o) => {
                    alloc_storage.push(None);
                    alloc_ptrs.push(unsafe { arena_base.add(*o as usize) });
                }
                None => {
                    let n = m.shape.iter().product::<i64>().max(0) as usize;
                    let old = self.returned.get_mut(k).and_then(Option::take).and_then(Storage::reclaim);
                    let buf = match old {
                        Some(b) if b.kind() == m.elem && b.len() == n => b,
                        _ => Buffer::zeros(m.elem, n),
                    };
                    let s = Storage::new(buf);
                    alloc_ptrs.push(Self::buffer_ptr(&s));
                    alloc_storage.push(Some(s));
                }
            }
        }
        let global_ptrs: Vec<*mut u8> = code.globals.iter().map(Self::buffer_ptr).collect();
        let arena_bytes = p.arena_bytes as usize;
        // What a device mirrors: every buffer a step may address.
        let regions = |bound: &[Tensor]| -> Vec<HostRegion> {
            let of = |s: &StorageRef, ptr: *mut u8, kind| HostRegion { ptr, bytes: s.buf().byte_len(), kind };
            let mut r: Vec<HostRegion> =
                bound.iter().map(|t| t.storage()).map(|s| of(&s, Self::buffer_ptr(&s), RegionKind::Argument)).collect();
            for (s, &ptr) in alloc_storage.iter().zip(&alloc_ptrs) {
                if let Some(s) = s {
                    r.push(of(s, ptr, RegionKind::Result));
                }
            }
            r.push(HostRegion { ptr: arena_base, bytes: arena_bytes, kind: RegionKind::Scratch });
            r.extend(code.globals.iter().zip(&global_ptrs).map(|(s, &ptr)| of(s, ptr, RegionKind::Constant)));
            r
        };
        // 3. Steps.
        let mut device = self.device.take();
        let mut steps = || -> Result<(), String> {
            // Whether the device must (re)start its mirrors before its next
            // step: at the start, and after the host ran a step itself.
            let (mut begin, mut resume) = (true, false);
            let mut kernel = 0;
            let threads = self.threads;
            let mut profile = self.profile.as_deref_mut().map(|p| (p, std::time::Instant::now()));
            for (i, step) in p.steps.iter().enumerate() {
                if let Some((times, start)) = &mut profile {
                    let now = std::time::Instant::now();
                    if i > 0 {
                        times[i - 1].0 += now - *start;
                        times[i - 1].1 += 1;
                    }
                    *start = now;
                }
                let root_ptr = |r: Root, arg_ptrs: &[*mut u8]| match r {
                    Root::Arg(i) => arg_ptrs[i],
                    Root::Alloc(k) => alloc_ptrs[k],
                    Root::Global(g) => global_ptrs[g],
                };
                if let Some(d) = device.as_deref_mut() {
                    if begin && matches!(step, Step::Kernel { .. } | Step::Matmul(_)) {
                        d.begin(regions(&bound), resume)?;
                        begin = false;
                    }
                    match step {
                        Step::Kernel { roots, .. } => {
                            let ptrs: Vec<*mut u8> = roots.iter().map(|&r| root_ptr(r, &arg_ptrs)).collect();
                            d.kernel(kernel, step, &ptrs)?;
                            kernel += 1;
                            continue;
                        }
                        Step::Matmul(mm) => {
                            let Matmul { a, b, c, .. } = &**mm;
                            let (pa, pb, pc) =
                                (root_ptr(a.root, &arg_ptrs), root_ptr(b.root, &arg_ptrs), root_ptr(c.root, &arg_ptrs));
                            d.matmul(mm, pa, pb, pc)?;
                            continue;
                        }
                        // The host runs these on its own buffers.
                        Step::Rebind { .. } | Step::Resize { .. } => {
                            if !begin {
                                d.to_host()?;
                                (begin, resume) = (true, true);
                            }
                        }
                    }
                }
                match step {
                    Step::Kernel { roots, split, work, name, .. } => {
                        let f = code.kernels[kernel];
                        kernel += 1;
                        let ptrs = SendPtrs(roots.iter().map(|&r| root_ptr(r, &arg_ptrs)).collect());
                        let code_ret = match split {
                            Some((lo, hi, st))
                                if threads > 1 && *work >= PARALLEL_WORK && trips(*lo, *hi, *st) >= 2 =>
                            {
                                run_split(f, &ptrs, *lo, *hi, *st, threads)
                            }
                            // SAFETY: the kernel was compiled for exactly these
                            // operands, whose buffers are alive and large enough
                            // for the layouts it was compiled with.
                            _ => unsafe { f(ptrs.0.as_ptr(), split.map_or(0, |s| s.0), split.map_or(0, |s| s.1)) },
                        };
                        if code_ret != 0 {
                            let m = usize::try_from(code_ret - 1)
                                .ok()
                                .and_then(|k| code.messages.get(k).cloned())
                                .unwrap_or_else(|| format!("kernel '{name}' failed"));
                            return Err(m);
                        }
                    }
                    Step::Matmul(mm) => {
                        let Matmul { a, b, c, accumulate } = &**mm;
                        let (pa, pb, pc) =
                            (root_ptr(a.root, &arg_ptrs), root_ptr(b.root, &arg_ptrs), root_ptr(c.root, &arg_ptrs));
                        crate::gemm::batched(a, b, c, pa, pb, pc, *accumulate, threads);
                    }
                    Step::Rebind { arg, src, stride } => {
                        if copied[*arg] {
                            return Err(format!(
                                "argument {arg}: set_ on a non-contiguous argument is not supported by native code"
                            ));
                        }
                        if let Root::Arg(j) = src.root {
                            if copied[j] {
                                // The kernels saw a contiguous copy of argument j;
                                // the argument itself has its own layout.
                                if src.ty.layout.is_some() || src.ty.shape != p.args[j].shape {
                                    return Err(format!(
                                    "argument {arg}: set_ onto a view of non-contiguous argument {j} is not supported by native code"
                                ));
                                }
                                let t = &args[j];
                                args[*arg].set_storage(t.storage(), t.sizes(), t.strides(), t.offset())?;
                                base_off[*arg] = 0;
                                bound[*arg] = args[*arg].clone();
                                continue;
                            }
                        }
                        let (storage, src_off) = match src.root {
                            Root::Arg(j) => (bound[j].storage(), base_off[j]),
                            Root::Alloc(k) => match &alloc_storage[k] {
                                Some(s) => (s.clone(), 0),
                                None => return Err("an argument cannot be rebound to a planned temporary".into()),
                            },
                            Root::Global(_) => return Err("an argument cannot be rebound to read-only data".into()),
                        };
                        let (mut strides, off) = r#loop::layout(&src.ty);
                        if let Some(exact) = stride {
                            // Only size-1 dimensions may differ: their stride is never used.
                            for ((s, &e), &n) in strides.iter_mut().zip(exact).zip(&src.ty.shape) {
                                if n == 1 {
                                    *s = e;
                                }
                            }
                        }
                        args[*arg].set_storage(storage, src.ty.shape.clone(), strides, src_off + off)?;
                        bound[*arg] = args[*arg].clone();
                        base_off[*arg] = 0;
                        arg_ptrs[*arg] = arg_ptr(&bound[*arg], 0);
                    }
                    Step::Resize { arg, numel, ty } => {
                        if copied[*arg] {
                            return Err(format!(
                                "argument {arg}: resize_ on a non-contiguous argument is not supported by native code"
                            ));
                        }
                        let t = &args[*arg];
                        let needed = (base_off[*arg] + numel) as usize;
                        if t.storage().len() < needed {
                            t.storage().resize(needed);
                        }
                        let (strides, off) = r#loop::layout(ty);
                        t.set_metadata(ty.shape.clone(), strides, base_off[*arg] + off)?;
                        bound[*arg] = t.clone();
                        arg_ptrs[*arg] = arg_ptr(&bound[*arg], base_off[*arg]);
                    }
                }
            }
            if let Some(d) = device.as_deref_mut() {
                if !begin {
                    d.finish()?;
                }
            }
            if let Some((times, start)) = profile {
                if let Some(last) = times.last_mut() {
                    last.0 += start.elapsed();
                    last.1 += 1;
                }
            }
            Ok(())
        };
        // On a host team the caller is already one of the team's threads.
        let pooled = self.threads > 1 && self.parallel && crate::threads::host_team().is_none();
        let ran = if pooled { on_pool(steps) } else { steps() };
        self.device = device;
        ran?;
        // 4. Results. Value semantics: results never alias the arguments or
        // each other (a value returned twice is one object), as the
        // interpreter's results never do.
        let mut outs: Vec<Tensor> = Vec::with_capacity(p.outputs.len());
        for (k, r) in p.outputs.iter().enumerate() {
            if let Some(j) = p.outputs[..k].iter().position(|o| o == r) {
                outs.push(outs[j].clone());
                continue;
            }
            let shared = p.outputs[..k].iter().any(|o| o.root == r.root);
            let (strides, off) = r#loop::layout(&r.ty);
            let t = match r.root {
                Root::Alloc(k) => match &alloc_storage[k] {
                    Some(s) => {
                        let t = Tensor::from_parts(s.clone(), r.ty.elem, r.ty.shape.clone(), strides, off)?;
                        if shared {
                            t.deep_clone()
                        } else {
                            t
                        }
                    }
                    None => return Err("a result lives in the arena (plan-memory must leave results alone)".into()),
                },
                Root::Arg(i) => {
                    Tensor::from_parts(bound[i].storage(), r.ty.elem, r.ty.shape.clone(), strides, base_off[i] + off)?
                        .deep_clone()
                }
                Root::Global(g) => {
                    Tensor::from_parts(code.globals[g].clone(), r.ty.elem, r.ty.shape.clone(), strides, off)?
                        .deep_clone()
                }
            };
            outs.push(t);
        }
        // The storages this call allocated, for the next call to reuse once
        // the caller lets go of them (see `returned`).
        for (slot, s) in self.returned.iter_mut().zip(alloc_storage) {
            *slot = s;
        }
        // 5. Written arguments that were copied in go back.
        for i in 0..args.len() {
            if copied[i] && p.written_args[i] {
                args[i].copy_values_from(&bound[i]);
            }
        }
        Ok(outs)
    }
}

/// Iterations of `for lo to hi step st` (saturating: bounds may span the
/// whole i64 range).
pub fn trips(lo: i64, hi: i64, st: i64) -> i64 {
    let st = st.max(1) as i128;
    let t = ((hi as i128 - lo as i128).max(0) + st - 1) / st;
    i64::try_from(t).unwrap_or(i64::MAX)
}

fn run_split(f: KernelFn, ptrs: &SendPtrs, lo: i64, hi: i64, st: i64, threads: usize) -> i32 {
    let trips = trips(lo, hi, st);
    let chunks = (threads as i64).min(trips).max(1);
    let per = trips.saturating_add(chunks - 1) / chunks;
    let code = std::sync::atomic::AtomicI32::new(0);
    let at = |c: i64| lo.saturating_add(c.saturating_mul(per).saturating_mul(st)).min(hi);
    crate::threads::for_each(chunks as usize, &|c| {
        let c = c as i64;
        let (a, b) = (at(c), at(c + 1));
        // SAFETY: chunks cover disjoint iterations of a parallel loop.
        let r = unsafe { f(ptrs.0.as_ptr(), a, b) };
        if r != 0 {
            code.store(r, std::sync::atomic::Ordering::Relaxed);
        }
    });
    code.into_inner()
}

impl Runtime {
    /// Per step of the host program: what it is, how often it ran and its
    /// total time. Empty unless `AOT_PROFILE` was set when the runtime was
    /// made.
    pub fn profile(&self) -> Vec<(String, u64, std::time::Duration)> {
        let Some(times) = &self.profile else { return Vec::new() };
        let mut kernel = 0;
        let mut rows = Vec::new();
        for (step, &(total, runs)) in self.code.program.steps.iter().zip(times) {
            let what = match step {
                Step::Kernel { name, split, work, .. } => {
                    kernel += 1;
                    let how = if self.threads > 1 && split.is_some() && *work >= PARALLEL_WORK {
                        format!("split over {} threads", self.threads)
                    } else {
                        "one thread".to_string()
                    };
                    format!("kernel #{} '{name}' ({how})", kernel - 1)
                }
                Step::Matmul(m) => format!("matmul {}", crate::gemm::describe(&m.a, &m.b, &m.c)),
                Step::Rebind { arg, .. } => format!("set_ of argument {arg}"),
                Step::Resize { arg, .. } => format!("resize_ of argument {arg}"),
            };
            rows.push((what, runs, total));
        }
        rows
    }
}

impl Drop for Runtime {
    fn drop(&mut self) {
        let mut rows = self.profile();
        let calls = rows.iter().map(|r| r.1).max().unwrap_or(0);
        if calls == 0 {
            return;
        }
        let total: std::time::Duration = rows.iter().map(|r| r.2).sum();
        rows.sort_by_key(|r| std::cmp::Reverse(r.2));
        let per_call = |d: std::time::Duration| d.as_secs_f64() * 1e6 / calls as f64;
        let mut out = format!(
            "aot profile: {} steps, {calls} call{}, {:.1} us per call on {} thread{}\n  share   us/call  step\n",
            rows.len(),
            if calls == 1 { "" } else { "s" },
            per_call(total),
            self.threads,
            if self.threads == 1 { "" } else { "s" },
        );
        for (what, _, t) in rows {
            let share = 100.0 * t.as_secs_f64() / total.as_secs_f64().max(f64::MIN_POSITIVE);
            out += &format!("  {share:5.1}% {:9.1}  {what}\n", per_call(t));
        }
        eprint!("{out}");
    }
}

/// Runs `f` on a worker thread of the rayon pool and waits for it.
///
/// A call's steps run there so that the thread which runs them also takes
/// its share of every split kernel and GEMM: called from outside the pool,
/// each parallel step would wake two workers and put the caller to sleep,
/// and on two cores that hand-off cost more than the split gained (a 60 µs
/// kernel took 120 µs on two threads).
fn on_pool<R>(f: impl FnOnce() -> R) -> R {
    struct Handed<T>(T);
    // SAFETY: the caller blocks until the worker has finished with `f` and
    // the result slot (`rayon::scope` returns only then, with the memory
    // ordering of its latch), so what `f` captures, reference-counted
    // storages included, is never touched by two threads at once.
    unsafe impl<T> Send for Handed<T> {}
    let mut out = None;
    let (job, slot) = (Handed(f), Handed(&mut out));
    rayon::scope(move |_| {
        let (job, slot) = (job, slot);
        *slot.0 = Some((job.0)());
    });
    out.expect("rayon::scope returns after its body ran")
}

/// A compiled function (of any native backend) as a runtime `Executable`.
pub struct Executable {
    pub runtime: Runtime,
}

impl Executable {
    pub fn new(code: Compiled) -> Executable {
        Executable { runtime: Runtime::new(Rc::new(code)) }
    }

    /// An executable whose kernels and GEMMs run on `device`.
    pub fn on_device(code: Compiled, device: Box<dyn Device>) -> Executable {
        Executable { runtime: Runtime::on_device(Rc::new(code), device) }
    }
}

impl aot_runtime::compiled::Executable for Executable {
    fn run(&mut self, args: Vec<aot_runtime::Tensor>) -> Result<Vec<aot_runtime::Tensor>, String> {
        self.runtime.run(args)
    }
}
