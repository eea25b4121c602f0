//! The CUDA backend (cargo feature `cuda`): a lowered function's kernels
//! compiled to one PTX module (`llvm::ptx`, for the GPU's architecture, with
//! libdevice linked in), loaded into the GPU, and run there by the host
//! program's runtime through [`crate::executor::Device`].
//!
//! [`CudaDevice`] mirrors the host regions a call addresses (argument
//! storages, result allocations, the arena, read-only globals) in device
//! memory from the runtime's caching allocator: arguments are copied in at
//! the start of a call, what the kernels and GEMMs wrote is copied back at
//! its end, and the arena and results are never copied in. Host pointers
//! the runtime computes are translated into the mirror of the region that
//! holds them, so the host program (views, `set_`, `resize_`, results)
//! stays the one all native backends share. Globals are uploaded once per
//! compiled function.
//!
//! Each kernel is a PTX entry `(buffers, lo, hi, status)`: `buffers` is a
//! device array of the operands' addresses, kept between calls and copied
//! again only when an address changed; `status` is the kernel's own word,
//! so the first failed check in program order is the one reported, as on
//! the host. Matmul steps go to cuBLAS when every operand has a unit
//! stride (any transpose, batch strides, broadcast batches); other layouts
//! and element types run on the host between copies.
//!
//! A function with symbolic sizes is compiled and loaded once: its
//! kernels read their sizes from a size table (`crate::sized`), and each
//! evaluated program runs on a [`CudaDevice`] of its own over the shared
//! module, whose operand tables count the table as one more operand.

use crate::executor::{Compiled, Device, HostRegion, RegionKind};
use crate::llvm::ptx::{self, Sm};
use crate::program::{self, Matmul, Step};
use aot_dialects::r#loop::analysis;
use aot_ir::{Context, Diagnostic, ElemType, Op};
use aot_runtime::device::{Crossings, DeviceMemory, Strided};
use aot_runtime_cuda::{DeviceMem, Gemm, GemmElem, Gpu, Module};
use std::ffi::c_void;
use std::path::PathBuf;
use std::rc::Rc;

/// Threads per block of a split kernel's launch (a multiple of the warp,
/// and the width of a block that shares one row).
const BLOCK: u32 = ptx::BLOCK_THREADS;
/// Resident blocks per multiprocessor a grid-stride launch aims at.
const BLOCKS_PER_SM: u32 = 16;

/// Where CUDA's libdevice is: `AOT_LIBDEVICE`, else under `CUDA_HOME`,
/// `CUDA_PATH`, `/usr/local/cuda` or Debian's toolkit.
pub fn find_libdevice() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("AOT_LIBDEVICE").filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(p));
    }
    let mut roots: Vec<PathBuf> = ["CUDA_HOME", "CUDA_PATH"]
        .iter()
        .filter_map(|v| std::env::var_os(v).filter(|p| !p.is_empty()).map(PathBuf::from))
        .collect();
    roots.push(PathBuf::from("/usr/local/cuda"));
    let mut candidates: Vec<PathBuf> = roots.iter().map(|r| r.join("nvvm/libdevice/libdevice.10.bc")).collect();
    candidates.push(PathBuf::from("/usr/lib/nvidia-cuda-toolkit/libdevice/libdevice.10.bc"));
    candidates.into_iter().find(|p| p.is_file())
}

/// The process's GPU as a [`crate::target::Target`].
pub struct Cuda;

impl crate::target::Target for Cuda {
    fn name(&self) -> &'static str {
        "cuda"
    }

    fn capabilities(&self) -> crate::target::Capabilities {
        crate::target::Capabilities { lowered_input: true, runs: true, device: true, gpu_arch: false }
    }

    /// As [`crate::llvm::ptx::Ptx`]: Cranelift's plan, until fusion across
    /// plans is measured on the GPU.
    fn vectorizes(&self, ctx: &Context, l: Op) -> bool {
        crate::cranelift::vectorizes(ctx, l)
    }

    fn runs_everything_here(&self) -> bool {
        aot_runtime_cuda::gpu().is_ok()
    }

    fn device_memory(&self) -> Option<Rc<dyn DeviceMemory>> {
        cuda_memory().ok().map(|m| m as Rc<dyn DeviceMemory>)
    }

    fn compile(
        &self,
        ctx: &mut Context,
        func: Op,
        _options: &crate::target::Options,
        text: &mut String,
    ) -> Result<Box<dyn aot_runtime::compiled::Executable>, Diagnostic> {
        let (code, device) = compile(ctx, func, text)?;
        if code.program.symbolic {
            // Kernels that read their sizes from the size table, compiled
            // and loaded once; each set of sizes gets a device of its own
            // over the one module (its size table is its own global).
            let sized = crate::sized::Sized::on_device(ctx, func, code, Box::new(move || Ok(device.fresh())))
                .map_err(|m| Diagnostic::op_error(ctx, func, m))?;
            return Ok(Box::new(sized));
        }
        Ok(Box::new(crate::executor::Executable::on_device(code, Box::new(device))))
    }

    fn line_comment(&self) -> &'static str {
        "//"
    }
}

/// Compiles the lowered function `func` for the process's GPU: the host
/// program, and the device that runs its kernels. With symbolic sizes the
/// kernels read them from a size table, and the program runs per set of
/// symbol values ([`crate::sized::Sized`]).
pub fn compile(ctx: &Context, func: Op, text: &mut String) -> Result<(Compiled, CudaDevice), Diagnostic> {
    let fail = |m: String| Diagnostic::op_error(ctx, func, m);
    let gpu = aot_runtime_cuda::gpu().map_err(|why| fail(format!("the CUDA backend has no GPU: {why}")))?;
    let sm = if gpu.capability.0 >= 9 { Sm::Sm90 } else { Sm::Sm80 };
    let libdevice = find_libdevice();
    let program = program::build_symbolic(ctx, func)?;
    let module = ptx::compile(ctx, func, &program, sm, libdevice.as_deref())?;
    if libdevice.is_none() && module.ptx.contains(".extern .func") {
        return Err(fail(
            "the kernels call CUDA's libdevice, which was not found: set AOT_LIBDEVICE to libdevice.10.bc (or CUDA_HOME)"
                .into(),
        ));
    }
    text.push_str(&module.ptx);
    let loaded = gpu.load(&module.ptx, &module.entries).map_err(fail)?;
    let globals = program::globals(ctx, &program).map_err(fail)?;
    let kernels: Vec<usize> = program
        .steps
        .iter()
        .filter_map(|s| match s {
            // An evaluated symbolic program passes its size table last.
            Step::Kernel { roots, .. } => Some(roots.len() + usize::from(program.symbolic)),
            _ => None,
        })
        .collect();
    let mut starts = Vec::with_capacity(kernels.len());
    let mut total = 0usize;
    for n in &kernels {
        starts.push(total);
        total += n;
    }
    let device = CudaDevice::over(
        gpu,
        Rc::new(loaded),
        module.threads.clone(),
        module.messages.clone(),
        starts,
        total,
        cuda_memory().map_err(fail)?,
    );
    let compiled = Compiled { program, kernels: Vec::new(), messages: module.messages, globals, owner: Box::new(()) };
    Ok((compiled, device))
}

/// A host region and its device mirror.
struct Mirror {
    host: *mut u8,
    bytes: usize,
    kind: RegionKind,
    /// The mirror's device address (`None` before it is made).
    dev: u64,
    /// The block, unless the mirror is a cached constant.
    mem: Option<DeviceMem>,
    /// Written on the device since it was copied in.
    dirty: bool,
}

/// Runs a compiled function's kernels and GEMMs on the GPU.
pub struct CudaDevice {
    gpu: &'static Gpu,
    /// Shared by the devices of one symbolic function's evaluated programs.
    module: Rc<Module>,
    /// Per kernel: threads per iteration of its split loop, or of its only
    /// block (`PtxModule::threads`).
    threads: Vec<u32>,
    messages: Vec<String>,
    mirrors: Vec<Mirror>,
    /// Globals' device copies, by host address (globals live as long as
    /// the compiled function and never change).
    constants: Vec<(usize, usize, DeviceMem)>,
    /// Every kernel's operand addresses as last copied to `params`
    /// (`u64::MAX`, no device address, before the first copy).
    params_host: Vec<u64>,
    param_starts: Vec<usize>,
    params: Option<DeviceMem>,
    /// One `i32` per kernel: its failed check's code.
    status: Option<DeviceMem>,
    /// Where resident calls' tensors live.
    memory: Rc<CudaMemory>,
}

impl CudaDevice {
    /// A device over the same loaded kernels with no memory of its own
    /// yet: what another evaluated program of a symbolic function runs on.
    fn fresh(&self) -> Box<dyn Device> {
        Box::new(CudaDevice::over(
            self.gpu,
            self.module.clone(),
            self.threads.clone(),
            self.messages.clone(),
            self.param_starts.clone(),
            self.params_host.len(),
            self.memory.clone(),
        ))
    }

    /// A device running `module`'s kernels (`param_starts`: each kernel's
    /// first slot among `params` operand addresses), with no call's memory
    /// yet.
    fn over(
        gpu: &'static Gpu,
        module: Rc<Module>,
        threads: Vec<u32>,
        messages: Vec<String>,
        param_starts: Vec<usize>,
        params: usize,
        memory: Rc<CudaMemory>,
    ) -> CudaDevice {
        CudaDevice {
            gpu,
            module,
            threads,
            messages,
            mirrors: Vec::new(),
            constants: Vec::new(),
            params_host: vec![u64::MAX; params],
            param_starts,
            params: None,
            status: None,
            memory,
        }
    }

    /// The device copy of the global at host address `host` (`bytes`
    /// long), uploaded on first use and kept as long as the device.
    fn constant(&mut self, host: *mut u8, bytes: usize) -> Result<u64, String> {
        let key = host as usize;
        if let Some(c) = self.constants.iter().find(|c| c.0 == key && c.1 == bytes) {
            return Ok(c.2.ptr());
        }
        let mem = self.gpu.alloc(bytes)?;
        // SAFETY: a global's storage lives as long as the compiled
        // function; the block has its size.
        let src = unsafe { std::slice::from_raw_parts(host as *const u8, bytes) };
        unsafe { self.gpu.upload(mem.ptr(), src) }?;
        let dev = mem.ptr();
        self.constants.push((key, bytes, mem));
        Ok(dev)
    }

    /// The device address of host address `p` (inside some mirrored region).
    fn translate(&self, p: *mut u8) -> Result<(u64, usize), String> {
        let i = crate::executor::region_of(&self.mirrors, |m| (m.host as usize, m.bytes), p)
            .ok_or("the CUDA backend found an operand outside every buffer of the call")?;
        let m = &self.mirrors[i];
        Ok((m.dev + (p as usize - m.host as usize) as u64, i))
    }

    fn upload(&self, m: &Mirror) -> Result<(), String> {
        // SAFETY: the host region is a live buffer of `bytes` bytes that the
        // runtime does not touch during the copy; the mirror has that room.
        let src = unsafe { std::slice::from_raw_parts(m.host as *const u8, m.bytes) };
        unsafe { self.gpu.upload(m.dev, src) }
    }

    fn download(&self, m: &Mirror) -> Result<(), String> {
        // SAFETY: as in `upload`, the other way.
        let dst = unsafe { std::slice::from_raw_parts_mut(m.host, m.bytes) };
        unsafe { self.gpu.download(dst, m.dev) }
    }

    /// Reads the kernels' status words: the message of the first failed
    /// check (in program order), if any.
    fn failed_check(&self) -> Result<Option<String>, String> {
        if self.messages.is_empty() {
            return Ok(None);
        }
        let Some(status) = &self.status else { return Ok(None) };
        let n = self.param_starts.len();
        let mut words = vec![0u8; n * 4];
        // SAFETY: the status block holds one word per kernel.
        unsafe { self.gpu.download(&mut words, status.ptr()) }?;
        for w in words.chunks_exact(4) {
            let code = i32::from_ne_bytes([w[0], w[1], w[2], w[3]]);
            if code != 0 {
                let m = usize::try_from(code - 1)
                    .ok()
                    .and_then(|k| self.messages.get(k).cloned())
                    .unwrap_or_else(|| format!("a GPU kernel failed with code {code}"));
                return Ok(Some(m));
            }
        }
        Ok(None)
    }

    /// Copies back every mirror written since it was copied in (the arena
    /// too with `scratch`).
    fn download_dirty(&mut self, scratch: bool) -> Result<(), String> {
        for m in &self.mirrors {
            let copied = m.mem.is_some() && m.kind != RegionKind::Resident;
            if copied && m.dirty && (scratch || m.kind != RegionKind::Scratch) {
                self.download(m)?;
            }
        }
        for m in &mut self.mirrors {
            m.dirty = false;
        }
        Ok(())
    }

    /// A cuBLAS call for `mm`, when its layouts allow one.
    fn cublas_plan(mm: &Matmul) -> Option<(&crate::gemm::Plan, Orientation)> {
        if !matches!(mm.c.ty.elem, ElemType::F32 | ElemType::F64) || mm.a.ty.elem != mm.c.ty.elem {
            return None;
        }
        let plan = mm.plan.as_ref()?;
        if !plan.results_disjoint() {
            return None;
        }
        let (m, k, n) = (plan.m as i64, plan.k as i64, plan.n as i64);
        let (a, b, c) = (&plan.a, &plan.b, &plan.c);
        // C column-major: C = op(A)·op(B).
        if let Some((false, ldc)) = col_major(m, n, c.rs, c.cs) {
            if let (Some((ta, lda)), Some((tb, ldb))) = (col_major(m, k, a.rs, a.cs), col_major(k, n, b.rs, b.cs)) {
                return Some((plan, Orientation { swap: false, ta, lda, tb, ldb, ldc }));
            }
        }
        // C row-major: Cᵀ = op(Bᵀ)·op(Aᵀ).
        if let Some((false, ldc)) = col_major(n, m, c.cs, c.rs) {
            if let (Some((ta, lda)), Some((tb, ldb))) = (col_major(n, k, b.cs, b.rs), col_major(k, m, a.cs, a.rs)) {
                return Some((plan, Orientation { swap: true, ta, lda, tb, ldb, ldc }));
            }
        }
        None
    }
}

/// How a GEMM maps onto cuBLAS's column-major one: with `swap` it
/// computes `Cᵀ = Bᵀ·Aᵀ`; `ta`/`lda` describe its first operand.
struct Orientation {
    swap: bool,
    ta: bool,
    lda: i64,
    tb: bool,
    ldb: i64,
    ldc: i64,
}

/// How cuBLAS reads a `rows × cols` matrix with element strides `(rs, cs)`
/// as `op(X)`: `(transposed, leading dimension)`, if it can.
fn col_major(rows: i64, cols: i64, rs: i64, cs: i64) -> Option<(bool, i64)> {
    if rs == 1 || rows <= 1 {
        let ld = if cols <= 1 { rows.max(1) } else { cs };
        if ld >= rows.max(1) {
            return Some((false, ld));
        }
    }
    if cs == 1 || cols <= 1 {
        let ld = if rows <= 1 { cols.max(1) } else { rs };
        if ld >= cols.max(1) {
            return Some((true, ld));
        }
    }
    None
}

impl Device for CudaDevice {
    fn begin(&mut self, regions: Vec<HostRegion>, resume: bool) -> Result<(), String> {
        self.mirrors.clear();
        let gpu = self.gpu;
        for r in regions {
            // Arguments may share a storage, and a `set_` makes one share a
            // result's: one mirror per distinct region.
            if let Some(m) = self.mirrors.iter_mut().find(|m| m.host == r.ptr) {
                if m.bytes < r.bytes {
                    return Err("the CUDA backend found two sizes of one buffer".into());
                }
                if r.kind == RegionKind::Argument {
                    m.kind = RegionKind::Argument;
                }
                continue;
            }
            self.mirrors.push(Mirror { host: r.ptr, bytes: r.bytes, kind: r.kind, dev: 0, mem: None, dirty: false });
        }
        for i in 0..self.mirrors.len() {
            let (host, bytes, kind) = (self.mirrors[i].host, self.mirrors[i].bytes, self.mirrors[i].kind);
            match kind {
                RegionKind::Constant => {
                    self.mirrors[i].dev = self.constant(host, bytes)?;
                    continue;
                }
                // Device memory already (a resident call's storages, the
                // arena, its constants): used in place.
                RegionKind::Resident => {
                    self.mirrors[i].dev = host as u64;
                    continue;
                }
                _ => {}
            }
            let mem = gpu.alloc(bytes)?;
            self.mirrors[i].dev = mem.ptr();
            self.mirrors[i].mem = Some(mem);
            if resume || kind == RegionKind::Argument {
                self.upload(&self.mirrors[i])?;
            }
        }
        let kernels = self.param_starts.len();
        if self.status.is_none() && kernels > 0 {
            self.status = Some(gpu.alloc(kernels * 4)?);
        }
        if let Some(s) = &self.status {
            // SAFETY: the status block holds one word per kernel.
            unsafe { gpu.zero(s.ptr(), kernels * 4) }?;
        }
        if self.params.is_none() && !self.params_host.is_empty() {
            self.params = Some(gpu.alloc(self.params_host.len() * 8)?);
        }
        Ok(())
    }

    fn kernel(&mut self, index: usize, step: &Step, ptrs: &[*mut u8]) -> Result<(), String> {
        let Step::Kernel { split, writes, .. } = step else { return Err("not a kernel step".into()) };
        let f = self.module.function(index).ok_or("the CUDA module lacks a kernel")?;
        let start = *self.param_starts.get(index).ok_or("the CUDA module lacks a kernel")?;
        let mut changed = false;
        for (k, &p) in ptrs.iter().enumerate() {
            let (dev, mirror) = self.translate(p)?;
            if writes.get(k).copied().unwrap_or(true) {
                self.mirrors[mirror].dirty = true;
            }
            if self.params_host[start + k] != dev {
                self.params_host[start + k] = dev;
                changed = true;
            }
        }
        let params = self.params.as_ref().map_or(0, |p| p.ptr()) + (start * 8) as u64;
        if changed && !ptrs.is_empty() {
            let words = &self.params_host[start..start + ptrs.len()];
            let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_ne_bytes()).collect();
            // SAFETY: the parameter block holds every kernel's addresses.
            unsafe { self.gpu.upload(params, &bytes) }?;
        }
        let status = self.status.as_ref().map_or(0, |s| s.ptr()) + (index * 4) as u64;
        let (mut lo, mut hi) = (0i64, 0i64);
        let per = self.threads.get(index).copied().unwrap_or(1).max(1);
        let (grid, block) = match split {
            Some((l, h, st)) => {
                (lo, hi) = (*l, *h);
                // A row-mapped kernel runs each iteration on a warp or on
                // a whole block (then one block per iteration).
                let per = i64::from(per);
                let threads = analysis::trips(*l, *h, *st).saturating_mul(per);
                let blocks = (threads / BLOCK as i64 + i64::from(threads % BLOCK as i64 != 0)).max(1);
                let cap = i64::from(self.gpu.multiprocessors * BLOCKS_PER_SM);
                (blocks.min(cap) as u32, BLOCK)
            }
            // No parallel loop: thread 0 does the work, or one block
            // shares it (a full reduction).
            None => (1, per),
        };
        let mut buffers = params;
        let mut status = status;
        let mut args: [*mut c_void; 4] = [
            &mut buffers as *mut u64 as *mut c_void,
            &mut lo as *mut i64 as *mut c_void,
            &mut hi as *mut i64 as *mut c_void,
            &mut status as *mut u64 as *mut c_void,
        ];
        // SAFETY: the entry takes (ptr, i64, i64, ptr); every address in
        // its operand array is inside a live mirror, laid out as the kernel
        // was compiled for (the host runtime's layouts, translated).
        unsafe { self.gpu.launch(f, grid, block, &mut args) }
    }

    fn matmul(&mut self, mm: &Matmul, pa: *mut u8, pb: *mut u8, pc: *mut u8) -> Result<(), String> {
        let (da, _) = self.translate(pa)?;
        let (db, _) = self.translate(pb)?;
        let (dc, ic) = self.translate(pc)?;
        let Some((plan, o)) = Self::cublas_plan(mm) else {
            return self.matmul_on_the_host(mm, [pa, pb, pc]);
        };
        self.mirrors[ic].dirty = true;
        let size = mm.c.ty.elem.byte_size() as u64;
        let elem = if mm.c.ty.elem == ElemType::F64 { GemmElem::F64 } else { GemmElem::F32 };
        let (m, k, n) = (plan.m as i64, plan.k as i64, plan.n as i64);
        if m == 0 || n == 0 {
            return Ok(());
        }
        // Batch dimensions: the innermost is cuBLAS's batch, the others a loop.
        let dims = plan.batch.len();
        let (count, inner) = match dims {
            0 => (1i64, 1i64),
            _ => (plan.batch[..dims - 1].iter().product(), plan.batch[dims - 1]),
        };
        let last = |s: &[i64]| s.last().copied().unwrap_or(0);
        for item in 0..count {
            let (ea, eb, ec) = plan.offsets(item, dims.saturating_sub(1));
            let at = |base: u64, e: i64| base.wrapping_add((e as u64).wrapping_mul(size));
            let (a, sa, b, sb) = (at(da, ea), last(&plan.a.batch), at(db, eb), last(&plan.b.batch));
            let (first, sf, second, ss) = if o.swap { (b, sb, a, sa) } else { (a, sa, b, sb) };
            let (gm, gn) = if o.swap { (n, m) } else { (m, n) };
            let g = Gemm {
                elem,
                m: gm,
                n: gn,
                k,
                a: first,
                lda: o.lda,
                stride_a: sf,
                trans_a: o.ta,
                b: second,
                ldb: o.ldb,
                stride_b: ss,
                trans_b: o.tb,
                c: at(dc, ec),
                ldc: o.ldc,
                stride_c: last(&plan.c.batch),
                batch: inner,
                accumulate: mm.accumulate,
            };
            // SAFETY: the layouts were checked against the buffers when the
            // program was built, the mirrors hold those buffers, and the
            // batch items' results are disjoint (`results_disjoint`).
            unsafe { self.gpu.gemm(&g) }?;
        }
        Ok(())
    }

    fn to_host(&mut self) -> Result<(), String> {
        self.end(true)
    }

    fn finish(&mut self) -> Result<(), String> {
        self.end(false)
    }

    fn memory(&self) -> Option<Rc<dyn DeviceMemory>> {
        Some(self.memory.clone())
    }

    fn constants(&mut self, constants: &[HostRegion]) -> Result<Vec<u64>, String> {
        constants.iter().map(|r| self.constant(r.ptr, r.bytes)).collect()
    }
}

/// The GPU's memory as the runtime's device memory: where CUDA tensors
/// live between calls (see `docs/devices.md`). Blocks come from the
/// caching allocator; copies across the bus are counted.
pub struct CudaMemory {
    gpu: &'static Gpu,
    /// Live blocks by address (freed blocks go back to the pool).
    blocks: std::cell::RefCell<rustc_hash::FxHashMap<u64, DeviceMem>>,
    counts: std::cell::Cell<Crossings>,
}

thread_local! {
    static MEMORY: std::cell::OnceCell<Rc<CudaMemory>> = const { std::cell::OnceCell::new() };
}

/// The GPU's memory on this thread (every CUDA executable of the thread
/// runs resident in it), or why there is no GPU.
pub fn cuda_memory() -> Result<Rc<CudaMemory>, String> {
    let gpu = aot_runtime_cuda::gpu()?;
    Ok(MEMORY.with(|m| {
        m.get_or_init(|| Rc::new(CudaMemory { gpu, blocks: Default::default(), counts: Default::default() })).clone()
    }))
}

impl CudaMemory {
    fn count(&self, f: impl FnOnce(&mut Crossings)) {
        let mut c = self.counts.get();
        f(&mut c);
        self.counts.set(c);
    }

    /// Whether `[addr, addr + bytes)` lies in one block this memory
    /// allocated (memory PyTorch owns is not known here: unchecked).
    fn own(&self, addr: u64, bytes: usize) -> bool {
        self.blocks.borrow().values().any(|b| b.ptr() <= addr && addr + bytes as u64 <= b.ptr() + b.bytes() as u64)
    }
}

impl DeviceMemory for CudaMemory {
    fn name(&self) -> String {
        format!("cuda:0 ({})", self.gpu.name)
    }

    fn alloc(&self, bytes: usize) -> Result<u64, String> {
        let block = self.gpu.alloc(bytes)?;
        let addr = block.ptr();
        self.blocks.borrow_mut().insert(addr, block);
        Ok(addr)
    }

    unsafe fn free(&self, addr: u64) {
        // (The block goes back to the caching allocator's free list.)
        self.blocks.borrow_mut().remove(&addr);
    }

    fn upload(&self, dst: u64, src: &[u8]) -> Result<(), String> {
        // SAFETY: the runtime passes ranges inside its storages' blocks.
        unsafe { self.gpu.upload(dst, src) }?;
        self.count(|c| {
            c.uploads += 1;
            c.uploaded_bytes += src.len() as u64;
        });
        Ok(())
    }

    fn upload_constant(&self, dst: u64, src: &[u8]) -> Result<(), String> {
        // SAFETY: as in `upload`.
        unsafe { self.gpu.upload(dst, src) }?;
        self.count(|c| c.constant_uploads += 1);
        Ok(())
    }

    fn download(&self, src: u64, dst: &mut [u8]) -> Result<(), String> {
        // SAFETY: as in `upload`.
        unsafe { self.gpu.download(dst, src) }?;
        self.count(|c| {
            c.downloads += 1;
            c.downloaded_bytes += dst.len() as u64;
        });
        Ok(())
    }

    fn copy(&self, dst: u64, src: u64, bytes: usize) -> Result<(), String> {
        // SAFETY: as in `upload`; the runtime copies between distinct blocks.
        unsafe { self.gpu.copy(dst, src, bytes) }
    }

    fn fill_zero(&self, dst: u64, bytes: usize) -> Result<(), String> {
        // SAFETY: as in `upload`.
        unsafe { self.gpu.zero(dst, bytes) }
    }

    /// Only a copy between equal dense row-major layouts runs here (one
    /// `cuMemcpyDtoD`); any other is refused, and the runtime copies
    /// through the host (counted).
    fn copy_strided(&self, dst: Strided<'_>, src: Strided<'_>) -> Result<(), String> {
        let dense = |s: &Strided<'_>| aot_runtime::tensor::contiguous_strides(s.sizes)[..] == s.strides[..];
        if dst.sizes != src.sizes || dst.elem_bytes != src.elem_bytes || !dense(&dst) || !dense(&src) {
            return Err("a strided copy on the GPU is not supported yet".into());
        }
        let n = aot_ir::size::checked_numel(dst.sizes).ok_or("a copy's size overflows")? as u64;
        let bytes = n.checked_mul(dst.elem_bytes as u64).ok_or("a copy's size overflows")?;
        let at = |s: &Strided<'_>| s.addr.checked_add((s.offset as u64).checked_mul(s.elem_bytes as u64)?);
        let (d, s) = (at(&dst).ok_or("a copy's offset overflows")?, at(&src).ok_or("a copy's offset overflows")?);
        if (d < s + bytes && s < d + bytes) || (self.own(d, 0) && !self.own(d, bytes as usize)) {
            return Err("a device copy over overlapping or out-of-block ranges".into());
        }
        self.copy(d, s, bytes as usize)
    }

    fn crossings(&self) -> Crossings {
        self.counts.get()
    }

    /// Device 0's memory: PyTorch's autograd runs a CUDA backward on a
    /// thread of its own, whose memory object is another view of the same
    /// GPU memory as the forward's.
    fn shared_device(&self) -> Option<u64> {
        Some(0)
    }
}

impl CudaDevice {
    /// A GEMM no cuBLAS call takes (mixed element types, operand layouts
    /// with no unit stride), on the host between copies: what the device
    /// wrote comes back, the host GEMM runs, its result goes out again. A
    /// resident operand has no host copy: the region that holds it is
    /// copied to a host buffer of its own (a crossing the device memory
    /// counts), and the result's region back.
    fn matmul_on_the_host(&mut self, mm: &Matmul, ptrs: [*mut u8; 3]) -> Result<(), String> {
        let plan = mm.plan.as_ref().ok_or("a symbolic program's GEMM runs only once evaluated for sizes")?;
        self.download_dirty(true)?;
        // Per resident mirror used: its host copy (16-byte words, aligned
        // for every element type).
        let mut staged: Vec<(usize, Vec<u128>)> = Vec::new();
        let mut host = [std::ptr::null_mut(); 3];
        let mut ic = 0;
        for (h, &p) in host.iter_mut().zip(&ptrs) {
            let (_, i) = self.translate(p)?;
            // (The last is the result's.)
            ic = i;
            let m = &self.mirrors[i];
            if m.kind != RegionKind::Resident {
                *h = p;
                continue;
            }
            let k = match staged.iter().position(|(j, _)| *j == i) {
                Some(k) => k,
                None => {
                    let mut words = vec![0u128; m.bytes.div_ceil(16)];
                    // SAFETY: the words hold at least `m.bytes` bytes.
                    let bytes = unsafe { std::slice::from_raw_parts_mut(words.as_mut_ptr() as *mut u8, m.bytes) };
                    self.memory.download(m.dev, bytes)?;
                    staged.push((i, words));
                    staged.len() - 1
                }
            };
            // (For a resident region the runtime's address is the device's.)
            *h = (staged[k].1.as_mut_ptr() as *mut u8).wrapping_add(p as usize - m.host as usize);
        }
        let [ha, hb, hc] = host;
        crate::gemm::batched(plan, crate::gemm::Types::of(&mm.a.ty, &mm.c.ty), ha, hb, hc, mm.accumulate, 1);
        match staged.iter().find(|(j, _)| *j == ic) {
            Some((_, words)) => {
                let m = &self.mirrors[ic];
                // SAFETY: as above.
                let bytes = unsafe { std::slice::from_raw_parts(words.as_ptr() as *const u8, m.bytes) };
                self.memory.upload(m.dev, bytes)
            }
            None => self.upload(&self.mirrors[ic]),
        }
    }

    /// Ends the mirrors: a failed check is the error (and nothing is
    /// copied back); else what the device wrote goes back to the host,
    /// the arena too with `scratch`.
    fn end(&mut self, scratch: bool) -> Result<(), String> {
        if let Some(m) = self.failed_check()? {
            self.mirrors.clear();
            return Err(m);
        }
        self.download_dirty(scratch)?;
        self.mirrors.clear();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::col_major;

    #[test]
    fn col_major_reads_unit_strides_either_way() {
        // A 3×4 row-major matrix is the transpose of a column-major 4×3.
        assert_eq!(col_major(3, 4, 4, 1), Some((true, 4)));
        // Column-major 3×4.
        assert_eq!(col_major(3, 4, 1, 3), Some((false, 3)));
        // Padded leading dimension.
        assert_eq!(col_major(3, 4, 1, 8), Some((false, 8)));
        // A single row or column takes any stride of its size-1 dimension.
        assert_eq!(col_major(1, 5, 99, 1), Some((false, 1)));
        assert_eq!(col_major(5, 1, 1, 99), Some((false, 5)));
        // Neither stride is 1, or rows overlap: no cuBLAS layout.
        assert_eq!(col_major(3, 4, 8, 2), None);
        assert_eq!(col_major(3, 4, 1, 2), None);
        assert_eq!(col_major(3, 4, 0, 1), None);
    }
}
