//! Runs a host program (`crate::program`) with the kernels a backend
//! compiled: the `Executable` of every native backend.
//!
//! [`Runtime::run`] binds arguments (copying non-contiguous ones in, and
//! back out when written), allocates buffers (own storage for results,
//! reusing the last call's once the caller dropped them; the arena for
//! planned temporaries), calls kernels (splitting a parallel outermost loop
//! across threads when the work is large), calls the GEMM, applies the
//! trailing argument metadata mutations, and wraps results as tensors. A
//! [`Device`] may run the kernels and GEMMs instead (the CUDA backend).
//!
//! Invariants: a kernel is called only with the buffers it was compiled
//! for (types and layouts are checked on entry); chunks of a split loop
//! cover disjoint iterations of a parallel loop; results never alias the
//! read-only globals (those are copied), but may alias the arguments and
//! each other.

use crate::program::{argument_mismatch, AttentionPlan, HostProgram, KernelFn, Matmul, Root, Step};
use aot_dialects::r#loop::{self, analysis::trips};
use aot_runtime::buffer::Buffer;
use aot_runtime::tensor::{Storage, StorageRef, Tensor};
use smallvec::SmallVec;
use std::rc::Rc;

/// Per-call lists of a call's arguments, buffers or a kernel's operands:
/// inline up to this many, so that a small graph's call allocates none.
type Few<T> = SmallVec<[T; 8]>;

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
    /// Already in the device's memory (a device-resident storage, the
    /// device's arena, or a constant it holds): `ptr` is a device address,
    /// which the device uses as it is. Nothing is copied.
    Resident,
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
    /// The memory that device-resident storages of this device live in;
    /// `None` for a device that only mirrors host memory per call. A call
    /// with an argument in it runs resident: its results are allocated
    /// there, and nothing resident is copied.
    fn memory(&self) -> Option<std::rc::Rc<dyn aot_runtime::device::DeviceMemory>> {
        None
    }
    /// The device addresses of the read-only globals `constants` (host
    /// regions), copied to the device on the first request and kept there
    /// as long as the device: what a resident call addresses instead.
    fn constants(&mut self, constants: &[HostRegion]) -> Result<Vec<u64>, String> {
        let _ = constants;
        Err("this device holds no constants".into())
    }
    /// Runs a fused attention step (a host kernel's plan) on operands at
    /// `ptrs`, in a resident call (a mirroring call runs it on the host).
    fn attention(&mut self, plan: &AttentionPlan, ptrs: &[*mut u8; 10]) -> Result<(), String> {
        let _ = (plan, ptrs);
        Err("this device does not run the fused attention kernel on resident tensors".into())
    }
}

/// Which of `regions` holds address `p` (`span` gives a region's start and
/// bytes): the one it lies inside, else one it ends (an empty view at a
/// buffer's end) when no region starts there. How a mirroring device
/// translates the host addresses the runtime computes.
pub fn region_of<T>(regions: &[T], span: impl Fn(&T) -> (usize, usize), p: *mut u8) -> Option<usize> {
    let a = p as usize;
    let inside = |r: &T, closed: bool| {
        let (lo, bytes) = span(r);
        a >= lo && (a < lo + bytes || (closed && a == lo + bytes))
    };
    regions.iter().position(|r| inside(r, false)).or_else(|| regions.iter().position(|r| inside(r, true)))
}

/// Whether every collective completes before the next step runs
/// (`AOT_SYNC_COLLECTIVES=1`: what overlapping them with independent steps
/// is measured against).
fn sync_collectives() -> bool {
    static SYNC: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *SYNC.get_or_init(|| std::env::var("AOT_SYNC_COLLECTIVES").is_ok_and(|v| v == "1"))
}

/// Kernels above this many element operations are split across threads.
const PARALLEL_WORK: u64 = 1 << 15;

/// The memory a runtime keeps between calls, which the programs of one
/// symbolic function evaluated at different sizes share
/// ([`Runtime::sharing`]): a new size then reuses the pages an earlier
/// one touched instead of faulting in fresh ones.
#[derive(Default)]
pub struct Memory {
    /// Planned temporaries (grown to the largest arena that ran).
    arena: Vec<u64>,
    /// Per `loop.alloc`: the storage of the result the last call returned in
    /// it. When the caller has dropped every tensor of it by the next call,
    /// its buffer (already touched, so free of page faults) holds the new
    /// result, resized to it: a caching allocator for results, one set
    /// deep. Kernels write every element of an allocation before reading
    /// it (the arena's temporaries are never cleared either), so old
    /// contents never show.
    returned: Vec<Option<StorageRef>>,
    /// The arena of resident calls, in the device's memory.
    device_arena: Option<aot_runtime::device::DeviceBlock>,
}

/// Runs a compiled host program (the `Executable` of native backends).
pub struct Runtime {
    pub code: Rc<Compiled>,
    /// The arena and the results' buffers, kept between calls.
    memory: Rc<std::cell::RefCell<Memory>>,
    threads: usize,
    /// Whether some step may run on several threads (a GEMM, or a kernel
    /// big enough to split): only then does a call go to the thread pool.
    parallel: bool,
    /// Per step, its total time and number of runs, when `AOT_PROFILE` is
    /// set: printed to stderr when the runtime is dropped.
    profile: Option<Vec<(std::time::Duration, u64)>>,
    /// The call's own work around the steps, when profiling: binding the
    /// arguments and allocating results, then handing results over.
    overhead: [(std::time::Duration, u64); 2],
    /// The device that runs the kernels and GEMMs, when not the host.
    device: Option<Box<dyn Device>>,
}

struct SendPtrs(Few<*mut u8>);
// The pointers address buffers this call owns or borrows exclusively; the
// kernels each chunk runs write disjoint elements (parallel loops only).
unsafe impl Sync for SendPtrs {}
unsafe impl Send for SendPtrs {}

impl Runtime {
    /// A runtime using `AOT_NUM_THREADS` threads, else the host team's
    /// count, else every core.
    pub fn new(code: Rc<Compiled>) -> Runtime {
        let words = code.program.arena_bytes.div_ceil(8) as usize;
        let returned = vec![None; code.program.allocs.len()];
        let memory = Rc::new(std::cell::RefCell::new(Memory { arena: vec![0; words], returned, device_arena: None }));
        Runtime::sharing(code, memory)
    }

    /// A runtime that keeps its arena and results' buffers in `memory`,
    /// shared with runtimes of the same program evaluated at other sizes
    /// (their allocations correspond one to one; calls never overlap). A
    /// call grows the memory to its program's needs.
    pub fn sharing(code: Rc<Compiled>, memory: Rc<std::cell::RefCell<Memory>>) -> Runtime {
        let threads = crate::threads::default_threads();
        let parallel = code.program.steps.iter().any(|s| match s {
            Step::Kernel { split, work, .. } => split.is_some() && *work >= PARALLEL_WORK,
            Step::Matmul(_) | Step::Attention(_) => true,
            Step::Rebind { .. } | Step::Resize { .. } | Step::Collective(_) => false,
        });
        let profile = profiling().then(|| vec![Default::default(); code.program.steps.len()]);
        Runtime { code, memory, threads, parallel, profile, overhead: Default::default(), device: None }
    }

    /// A runtime whose kernels and GEMMs run on `device`.
    pub fn on_device(code: Rc<Compiled>, device: Box<dyn Device>) -> Runtime {
        let mut r = Runtime::new(code);
        r.set_device(device);
        r
    }

    /// Runs kernels and GEMMs on `device` from now on. A device with
    /// memory of its own gets the globals now, so that no call copies them.
    fn set_device(&mut self, mut device: Box<dyn Device>) {
        if device.memory().is_some() {
            let regions: Vec<HostRegion> = self
                .code
                .globals
                .iter()
                .map(|s| HostRegion { ptr: Self::buffer_ptr(s), bytes: s.byte_len(), kind: RegionKind::Constant })
                .collect();
            // (A failure here comes back from the first resident call,
            // which asks again.)
            let _ = device.constants(&regions);
        }
        self.device = Some(device);
        self.parallel = false;
        self.threads = 1;
    }

    /// Overrides the number of threads kernels are split over (1: none).
    pub fn set_threads(&mut self, n: usize) {
        self.threads = n.max(1);
    }

    /// Where a storage's elements are: a host pointer, or the device
    /// address of a device-resident storage (which only a device uses).
    fn buffer_ptr(storage: &StorageRef) -> *mut u8 {
        match storage.device_addr() {
            Some(a) => a as *mut u8,
            None => storage.buf_mut().as_mut_ptr(),
        }
    }

    /// The device memory a call with `args` runs resident in: that of the
    /// runtime's device when some argument lives there (every resident
    /// argument must), or when there is no argument to say where (the
    /// results of a device's code are then the device's). `None` for a
    /// host call.
    fn resident_memory(
        &self,
        args: &[Tensor],
    ) -> Result<Option<std::rc::Rc<dyn aot_runtime::device::DeviceMemory>>, String> {
        let ours = self.device.as_ref().and_then(|d| d.memory());
        if args.is_empty() {
            return Ok(ours);
        }
        let mut found = None;
        for (i, t) in args.iter().enumerate() {
            let Some(mem) = t.storage().device_memory() else { continue };
            match &ours {
                Some(m) if aot_runtime::device::same_memory(m, &mem) => found = Some(m.clone()),
                _ => {
                    return Err(format!(
                        "argument {i} lives on device {}; this function runs on {}",
                        mem.name(),
                        ours.as_ref().map_or("the host".to_string(), |m| m.name())
                    ))
                }
            }
        }
        Ok(found)
    }

    pub fn run(&mut self, args: Vec<Tensor>) -> Result<Vec<Tensor>, String> {
        let code = self.code.clone();
        let p = &code.program;
        let entered = profiling().then(std::time::Instant::now);
        if args.len() != p.args.len() {
            return Err(format!("the compiled function takes {} arguments, got {}", p.args.len(), args.len()));
        }
        let resident = self.resident_memory(&args)?;
        // 1. Arguments. A buffer compiled with a layout is the argument's
        // storage (the layout says where the elements are); a contiguous one
        // starts at the argument's first element, and a non-contiguous
        // argument is copied in (and back out if written).
        let mut bound: Few<Tensor> = SmallVec::with_capacity(args.len());
        let mut copied: Few<bool> = smallvec::smallvec![false; args.len()];
        let mut base_off: Few<i64> = smallvec::smallvec![0i64; args.len()];
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
                // (A resident argument's copy is made on its device.)
                let c = match t.storage().device_memory() {
                    Some(mem) => Tensor::zeros_on(&mem, t.dtype(), &t.sizes(), t.dtype())?,
                    None => Tensor::zeros(t.dtype(), &t.sizes(), t.dtype()),
                };
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
        let mut arg_ptrs: Few<*mut u8> = bound.iter().zip(&base_off).map(|(t, &o)| arg_ptr(t, o)).collect();
        // 2. Allocations: own storage, or a slice of the arena.
        let memory = self.memory.clone();
        let mut memory = memory.borrow_mut();
        let words = p.arena_bytes.div_ceil(8) as usize;
        if memory.arena.len() < words {
            memory.arena.resize(words, 0);
        }
        if memory.returned.len() < p.allocs.len() {
            memory.returned.resize(p.allocs.len(), None);
        }
        let arena_base = match &resident {
            Some(mem) => {
                let want = p.arena_bytes as usize;
                if memory.device_arena.as_ref().is_none_or(|b| b.bytes() < want) {
                    memory.device_arena = None;
                    memory.device_arena = Some(aot_runtime::device::DeviceBlock::alloc(mem, want)?);
                }
                memory.device_arena.as_ref().map_or(0, |b| b.addr()) as *mut u8
            }
            None => memory.arena.as_mut_ptr() as *mut u8,
        };
        let mut alloc_storage: Few<Option<StorageRef>> = SmallVec::with_capacity(p.allocs.len());
        let mut alloc_ptrs: Few<*mut u8> = SmallVec::with_capacity(p.allocs.len());
        for (k, (m, off)) in p.allocs.iter().enumerate() {
            match off {
                // SAFETY: plan-memory placed the buffer inside the arena,
                // which `new` sized to `arena_bytes`.
                Some(o) => {
                    alloc_storage.push(None);
                    alloc_ptrs.push(unsafe { arena_base.add(*o as usize) });
                }
                None if resident.is_some() => {
                    let mem = resident.as_ref().ok_or("no device memory")?;
                    let n = m.shape.iter().product::<i64>().max(0) as usize;
                    let bytes = n * m.elem.byte_size();
                    // The last call's block, once its caller let go of it.
                    let old = memory.returned.get_mut(k).and_then(Option::take).and_then(|s| {
                        s.set_cached(false);
                        Storage::reclaim_block(s)
                    });
                    let s = match old {
                        Some(b) if b.bytes() == bytes && aot_runtime::device::same_memory(b.memory(), mem) => {
                            Storage::in_block(m.elem, b)
                        }
                        // (Kernels write every element of a result first.)
                        _ => Storage::on_device_uninit(mem, m.elem, n)?,
                    };
                    alloc_ptrs.push(Self::buffer_ptr(&s));
                    alloc_storage.push(Some(s));
                }
                None => {
                    let n = m.shape.iter().product::<i64>().max(0) as usize;
                    let old = memory.returned.get_mut(k).and_then(Option::take).and_then(|s| {
                        s.set_cached(false);
                        Storage::reclaim(s)
                    });
                    let buf = match old {
                        Some(b) if b.kind() == m.elem && b.len() == n => b,
                        // (A shared memory's buffer of another size.)
                        Some(mut b) if b.kind() == m.elem && !b.is_foreign() => {
                            b.resize(n);
                            b
                        }
                        _ => Buffer::zeros(m.elem, n),
                    };
                    let s = Storage::new(buf);
                    alloc_ptrs.push(Self::buffer_ptr(&s));
                    alloc_storage.push(Some(s));
                }
            }
        }
        let host_globals: Few<*mut u8> = code.globals.iter().map(Self::buffer_ptr).collect();
        let of = |s: &StorageRef, ptr: *mut u8, kind| HostRegion { ptr, bytes: s.byte_len(), kind };
        // A resident call addresses the device's copies of the globals.
        let global_ptrs: Few<*mut u8> = match (&resident, self.device.as_deref_mut()) {
            (Some(_), Some(d)) => {
                let host: Vec<HostRegion> =
                    code.globals.iter().zip(&host_globals).map(|(s, &ptr)| of(s, ptr, RegionKind::Constant)).collect();
                d.constants(&host)?.into_iter().map(|a| a as *mut u8).collect()
            }
            _ => host_globals,
        };
        let arena_bytes = p.arena_bytes as usize;
        let is_resident = resident.is_some();
        // What a device mirrors: every buffer a step may address (or, when
        // resident, uses in place).
        let regions = |bound: &[Tensor]| -> Vec<HostRegion> {
            let kind_of = |s: &StorageRef, k| if s.is_on_device() { RegionKind::Resident } else { k };
            let mut r: Vec<HostRegion> = bound
                .iter()
                .map(|t| t.storage())
                .map(|s| of(&s, Self::buffer_ptr(&s), kind_of(&s, RegionKind::Argument)))
                .collect();
            for (s, &ptr) in alloc_storage.iter().zip(&alloc_ptrs) {
                if let Some(s) = s {
                    r.push(of(s, ptr, kind_of(s, RegionKind::Result)));
                }
            }
            let (arena_kind, global_kind) = if is_resident {
                (RegionKind::Resident, RegionKind::Resident)
            } else {
                (RegionKind::Scratch, RegionKind::Constant)
            };
            r.push(HostRegion { ptr: arena_base, bytes: arena_bytes, kind: arena_kind });
            r.extend(code.globals.iter().zip(&global_ptrs).map(|(s, &ptr)| HostRegion {
                ptr,
                bytes: s.byte_len(),
                kind: global_kind,
            }));
            r
        };
        // 3. Steps.
        if let Some(t) = entered {
            self.overhead[0].0 += t.elapsed();
            self.overhead[0].1 += 1;
        }
        let mut device = self.device.take();
        let mut steps = || -> Result<(), String> {
            // Whether the device must (re)start its mirrors before its next
            // step: at the start, and after the host ran a step itself.
            let (mut begin, mut resume) = (true, false);
            let mut kernel = 0;
            let threads = self.threads;
            if profiling() && self.profile.is_none() {
                self.profile = Some(vec![Default::default(); p.steps.len()]);
            }
            let recording = if profiling() { self.profile.as_deref_mut() } else { None };
            let mut profile = recording.map(|p| (p, std::time::Instant::now()));
            // Collectives in flight, with the step each must complete
            // before (`Collective::wait_before`). Dropped on an error, a
            // pending collective is waited for: its buffers stay alive
            // until then.
            let mut in_flight: SmallVec<[(usize, Box<dyn aot_runtime::dist::Pending>); 2]> = SmallVec::new();
            for (i, step) in p.steps.iter().enumerate() {
                if in_flight.iter().any(|(w, _)| *w <= i) {
                    let (due, rest): (SmallVec<[_; 2]>, SmallVec<[_; 2]>) =
                        std::mem::take(&mut in_flight).into_iter().partition(|(w, _)| *w <= i);
                    in_flight = rest;
                    for (_, pending) in due {
                        pending.wait()?;
                    }
                }
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
                        // A resident call's attention runs on the device.
                        Step::Attention(at) if is_resident => {
                            if begin {
                                d.begin(regions(&bound), resume)?;
                                begin = false;
                            }
                            let (plan, ptrs) = attention_operands(at, &|r| root_ptr(r, &arg_ptrs))?;
                            d.attention(plan, &ptrs)?;
                            continue;
                        }
                        Step::Collective(_) if is_resident => {
                            return Err("a collective over device-resident tensors is not supported yet: \
                                        the process group's transport reads host memory"
                                .into());
                        }
                        // The host runs attention and collectives on its own
                        // buffers; what they write must reach the device's
                        // next step.
                        Step::Attention(_) | Step::Collective(_) => {
                            if !begin {
                                d.to_host()?;
                            }
                            (begin, resume) = (true, true);
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
                        let Matmul { a, b, c, accumulate, plan } = &**mm;
                        let Some(plan) = plan else {
                            return Err("a symbolic program's GEMM runs only once evaluated for sizes".into());
                        };
                        let (pa, pb, pc) =
                            (root_ptr(a.root, &arg_ptrs), root_ptr(b.root, &arg_ptrs), root_ptr(c.root, &arg_ptrs));
                        crate::gemm::batched(
                            plan,
                            crate::gemm::Types::of(&a.ty, &c.ty),
                            pa,
                            pb,
                            pc,
                            *accumulate,
                            threads,
                        );
                    }
                    Step::Attention(at) => {
                        let (plan, ptrs) = attention_operands(at, &|r| root_ptr(r, &arg_ptrs))?;
                        // SAFETY: the plan was made for these buffers' types,
                        // which binding checked; the results are fresh
                        // allocations the inputs cannot overlap.
                        unsafe { run_attention(plan, &ptrs, threads) };
                    }
                    Step::Collective(c) => {
                        let bytes = |b: &crate::program::BufRef| crate::plan_memory::bytes(&b.ty) as usize;
                        let (pi, po) = (root_ptr(c.input.root, &arg_ptrs), root_ptr(c.output.root, &arg_ptrs));
                        if pi == po {
                            return Err("a collective's output shares its input's buffer".into());
                        }
                        // SAFETY: both buffers are contiguous (the op's
                        // verifier), alive for the call and at least as large
                        // as their types (binding and allocation checked);
                        // they are distinct allocations (checked above and
                        // when the program was built). No step before
                        // `wait_before` touches the output or writes the
                        // input (`schedule_waits`), and the collective is
                        // waited for before the call returns.
                        let (input, output) = unsafe {
                            (
                                std::slice::from_raw_parts(pi as *const u8, bytes(&c.input)),
                                std::slice::from_raw_parts_mut(po, bytes(&c.output)),
                            )
                        };
                        let pending = aot_runtime::dist::start(
                            &c.group,
                            c.size,
                            &c.op,
                            aot_runtime::dist::Data { elem: c.input.ty.elem, shape: &c.input.ty.shape, bytes: input },
                            aot_runtime::dist::DataMut {
                                elem: c.output.ty.elem,
                                shape: &c.output.ty.shape,
                                bytes: output,
                            },
                        )?;
                        // (A device mirrors the host's buffers when its
                        // next step begins, which must see the output.)
                        if sync_collectives() || device.is_some() {
                            pending.wait()?;
                        } else {
                            in_flight.push((c.wait_before, pending));
                        }
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
                            t.storage().resize(needed)?;
                        }
                        let (strides, off) = r#loop::layout(ty);
                        t.set_metadata(ty.shape.clone(), strides, base_off[*arg] + off)?;
                        bound[*arg] = t.clone();
                        arg_ptrs[*arg] = arg_ptr(&bound[*arg], base_off[*arg]);
                    }
                }
            }
            for (_, pending) in in_flight {
                pending.wait()?;
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
        let handing = entered.map(|_| std::time::Instant::now());
        // 4. Results, as the buffers hold them: a result may be (a view of)
        // an argument's memory, and several may share one allocation (a
        // value returned twice is one object). Copying them was a third of
        // a CNN's training forward (the weights its backward keeps); the
        // callers copy where values must stay apart (`CompiledFunction`:
        // outputs and saved values that a write-back changes; `Backward`:
        // gradients somebody else holds).
        let mut outs: Vec<Tensor> = Vec::with_capacity(p.outputs.len());
        for (k, r) in p.outputs.iter().enumerate() {
            if let Some(j) = p.outputs[..k].iter().position(|o| o == r) {
                outs.push(outs[j].clone());
                continue;
            }
            let (strides, off) = r#loop::layout(&r.ty);
            let t = match r.root {
                Root::Alloc(k) => match &alloc_storage[k] {
                    Some(s) => Tensor::from_parts(s.clone(), r.ty.elem, r.ty.shape.clone(), strides, off)?,
                    None => return Err("a result lives in the arena (plan-memory must leave results alone)".into()),
                },
                Root::Arg(i) => {
                    Tensor::from_parts(bound[i].storage(), r.ty.elem, r.ty.shape.clone(), strides, base_off[i] + off)?
                }
                Root::Global(g) => match &resident {
                    // The device's copy of the constant, copied on the device.
                    Some(mem) => {
                        let s = Storage::on_device_uninit(mem, r.ty.elem, code.globals[g].len())?;
                        mem.copy(
                            s.device_addr().ok_or("no device address")?,
                            global_ptrs[g] as u64,
                            code.globals[g].byte_len(),
                        )?;
                        Tensor::from_parts(s, r.ty.elem, r.ty.shape.clone(), strides, off)?
                    }
                    None => Tensor::from_parts(code.globals[g].clone(), r.ty.elem, r.ty.shape.clone(), strides, off)?
                        .deep_clone(),
                },
            };
            outs.push(t);
        }
        // The storages this call allocated, for the next call to reuse once
        // the caller lets go of them (see `returned`).
        for (slot, s) in memory.returned.iter_mut().zip(alloc_storage) {
            if let Some(s) = &s {
                s.set_cached(true);
            }
            *slot = s;
        }
        // 5. Written arguments that were copied in go back.
        for i in 0..args.len() {
            if copied[i] && p.written_args[i] {
                args[i].copy_values_from(&bound[i]);
            }
        }
        if let Some(t) = handing {
            self.overhead[1].0 += t.elapsed();
            self.overhead[1].1 += 1;
        }
        Ok(outs)
    }
}

/// An attention step's plan and its operands' addresses (`root` gives a
/// buffer's): at most ten, an absent mask null.
fn attention_operands<'a>(
    at: &'a crate::program::Attention,
    root: &dyn Fn(Root) -> *mut u8,
) -> Result<(&'a AttentionPlan, [*mut u8; 10]), String> {
    let mut ptrs = [std::ptr::null_mut(); 10];
    for (p, b) in ptrs.iter_mut().zip(&at.bufs) {
        *p = root(b.root);
    }
    let plan = at.plan.as_ref().ok_or("a symbolic program's attention runs only once evaluated for sizes")?;
    Ok((plan, ptrs))
}

/// Runs a fused attention step with the operands at `ptrs` (the step's
/// buffers in order, then null for an absent mask) on `threads` threads.
///
/// # Safety
/// The plan was made for these buffers' types and layouts; every pointer
/// addresses a live buffer that large; the results do not overlap the
/// inputs.
pub unsafe fn run_attention(plan: &AttentionPlan, ptrs: &[*mut u8; 10], threads: usize) {
    match plan {
        AttentionPlan::Forward(plan) => {
            let ops = crate::attention::Operands {
                q: ptrs[0],
                k: ptrs[1],
                v: ptrs[2],
                out: ptrs[3],
                lse: ptrs[4],
                mask: ptrs[r#loop::ATTENTION_RESULTS.end],
            };
            // SAFETY: forwarded to the caller.
            unsafe { crate::attention::forward(plan, ops, threads) };
        }
        AttentionPlan::Backward(plan) => {
            let ops = crate::attention::GradOperands {
                g: ptrs[0],
                q: ptrs[1],
                k: ptrs[2],
                v: ptrs[3],
                out: ptrs[4],
                lse: ptrs[5],
                dq: ptrs[6],
                dk: ptrs[7],
                dv: ptrs[8],
                mask: ptrs[r#loop::ATTENTION_GRAD_RESULTS.end],
            };
            // SAFETY: as above.
            unsafe { crate::attention::backward(plan, ops, threads) };
        }
    }
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

/// Whether runtimes time their steps: `AOT_PROFILE` set in the
/// environment (the runtime then prints its profile to stderr when
/// dropped), or [`set_profiling`].
static PROFILING: std::sync::atomic::AtomicU8 = std::sync::atomic::AtomicU8::new(UNKNOWN);
const UNKNOWN: u8 = 2;

fn env_profiling() -> bool {
    std::env::var("AOT_PROFILE").is_ok_and(|v| !v.is_empty() && v != "0")
}

/// Whether steps are being timed (see [`set_profiling`]).
pub fn profiling() -> bool {
    use std::sync::atomic::Ordering::Relaxed;
    match PROFILING.load(Relaxed) {
        UNKNOWN => {
            let on = env_profiling();
            PROFILING.store(on as u8, Relaxed);
            on
        }
        v => v == 1,
    }
}

/// Turns the timing of every runtime's steps on or off, from their next
/// call on. The counts stay until [`Runtime::reset_profile`]; a timed step
/// costs two clock reads.
pub fn set_profiling(on: bool) {
    PROFILING.store(on as u8, std::sync::atomic::Ordering::Relaxed);
}

impl Runtime {
    /// Zeroes the profile's counts.
    pub fn reset_profile(&mut self) {
        if let Some(p) = &mut self.profile {
            p.iter_mut().for_each(|e| *e = Default::default());
        }
        self.overhead = Default::default();
    }

    /// Per step of the host program: what it is, how often it ran, its total
    /// time and its cost. Empty unless profiling was on (`AOT_PROFILE`, or
    /// [`set_profiling`]) for some call.
    pub fn profile(&self) -> Vec<aot_runtime::compiled::StepProfile> {
        let Some(times) = &self.profile else { return Vec::new() };
        let mut kernel = 0;
        let mut rows = Vec::new();
        for (step, &(total, runs)) in self.code.program.steps.iter().zip(times) {
            let kind = match step {
                Step::Kernel { .. } => "kernel",
                Step::Matmul(_) => "matmul",
                Step::Attention(_) => "attention",
                Step::Collective(_) => "collective",
                Step::Rebind { .. } => "rebind",
                Step::Resize { .. } => "resize",
            };
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
                Step::Matmul(m) => {
                    let types = crate::gemm::Types::of(&m.a.ty, &m.c.ty);
                    format!(
                        "matmul {}",
                        m.plan.as_ref().map_or("(planned per size)".into(), |p| crate::gemm::describe(p, types))
                    )
                }
                Step::Attention(a) => format!(
                    "attention{} {:?} (fused, {} threads)",
                    if a.grad { " gradient" } else { "" },
                    a.bufs[0].ty.shape.to_vec(),
                    self.threads
                ),
                Step::Collective(c) => format!("{:?} over process group '{}' of {}", c.op, c.group, c.size),
                Step::Rebind { arg, .. } => format!("set_ of argument {arg}"),
                Step::Resize { arg, .. } => format!("resize_ of argument {arg}"),
            };
            let cost = step.cost();
            rows.push(aot_runtime::compiled::StepProfile {
                what,
                kind,
                runs,
                seconds: total.as_secs_f64(),
                flops: cost.flops,
                bytes: cost.bytes,
            });
        }
        let around = [
            "binding arguments (copies of non-contiguous ones) and allocating results",
            "handing results over (wrapping buffers, copying constants and written copies back)",
        ];
        for (what, &(total, runs)) in around.iter().zip(&self.overhead) {
            rows.push(aot_runtime::compiled::StepProfile {
                what: what.to_string(),
                kind: "runtime",
                runs,
                seconds: total.as_secs_f64(),
                flops: 0,
                bytes: 0,
            });
        }
        rows
    }
}

impl Drop for Runtime {
    fn drop(&mut self) {
        // Results the caller still holds are theirs alone from now on
        // (once no runtime sharing the memory is left).
        if Rc::strong_count(&self.memory) == 1 {
            for s in self.memory.borrow().returned.iter().flatten() {
                s.set_cached(false);
            }
        }
        if !env_profiling() {
            return;
        }
        let mut rows = self.profile();
        let calls = rows.iter().map(|r| r.runs).max().unwrap_or(0);
        if calls == 0 {
            return;
        }
        let total: f64 = rows.iter().map(|r| r.seconds).sum();
        rows.sort_by(|a, b| b.seconds.total_cmp(&a.seconds));
        let per_call = |d: f64| d * 1e6 / calls as f64;
        let mut out = format!(
            "aot profile: {} steps, {calls} call{}, {:.1} us per call on {} thread{}\n  share   us/call  step\n",
            rows.iter().filter(|r| r.kind != "runtime").count(),
            if calls == 1 { "" } else { "s" },
            per_call(total),
            self.threads,
            if self.threads == 1 { "" } else { "s" },
        );
        for r in rows {
            let share = 100.0 * r.seconds / total.max(f64::MIN_POSITIVE);
            out += &format!("  {share:5.1}% {:9.1}  {}\n", per_call(r.seconds), r.what);
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

    /// An executable sharing `memory` with others ([`Runtime::sharing`]).
    pub fn sharing(code: Compiled, memory: Rc<std::cell::RefCell<Memory>>) -> Executable {
        Executable { runtime: Runtime::sharing(Rc::new(code), memory) }
    }

    /// An executable whose kernels and GEMMs run on `device`.
    pub fn on_device(code: Compiled, device: Box<dyn Device>) -> Executable {
        Executable { runtime: Runtime::on_device(Rc::new(code), device) }
    }

    /// [`Executable::sharing`] with kernels and GEMMs on `device`.
    pub fn sharing_on_device(
        code: Compiled,
        memory: Rc<std::cell::RefCell<Memory>>,
        device: Box<dyn Device>,
    ) -> Executable {
        let mut runtime = Runtime::sharing(Rc::new(code), memory);
        runtime.set_device(device);
        Executable { runtime }
    }
}

impl aot_runtime::compiled::Executable for Executable {
    fn run(&mut self, args: Vec<aot_runtime::Tensor>) -> Result<Vec<aot_runtime::Tensor>, String> {
        self.runtime.run(args)
    }

    fn profile(&self) -> Vec<aot_runtime::compiled::StepProfile> {
        self.runtime.profile()
    }

    fn reset_profile(&mut self) {
        self.runtime.reset_profile()
    }
}
