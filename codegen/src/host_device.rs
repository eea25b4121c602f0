//! The host-memory device: a [`Device`] whose memory is host allocations
//! behind the device interface ([`aot_runtime::device::HostMemory`]), and
//! whose launches run the host's kernels (Cranelift's), GEMM and fused
//! attention on that memory. It is how every machine runs the paths a GPU
//! takes: device-resident calls (arguments, results and the arena in device
//! memory, nothing copied), and mirroring calls (host arguments copied in
//! and back, each copy counted as a bus crossing).
//!
//! The `hostdev` target compiles as Cranelift does and runs here; all its
//! executables share one memory per thread ([`memory`]), which is where a
//! caller puts resident tensors (`Tensor::to_device`).
//!
//! Invariants: a kernel, GEMM or attention only ever receives addresses
//! inside the device's allocations (host pointers are translated into
//! their mirrors, resident addresses are checked); a host region is copied
//! in only when its contents are read (arguments, constants, and every
//! region when resuming), and back only when written.

use crate::executor::{run_attention, Device, HostRegion, RegionKind};
use crate::program::{AttentionPlan, KernelFn, Matmul, Step};
use aot_runtime::device::{DeviceBlock, DeviceMemory, HostMemory};
use std::rc::Rc;

thread_local! {
    static MEMORY: Rc<HostMemory> = HostMemory::new();
}

/// The host-memory device's memory on this thread: the `hostdev` target's
/// executables run in it, and resident tensors for them live in it.
pub fn memory() -> Rc<HostMemory> {
    MEMORY.with(Rc::clone)
}

/// [`memory`] as the runtime's interface.
pub fn device_memory() -> Rc<dyn DeviceMemory> {
    memory()
}

/// A host region and its device copy.
struct Mirror {
    host: *mut u8,
    bytes: usize,
    kind: RegionKind,
    /// The device address: the copy's, or the region's own when resident.
    dev: u64,
    /// The copy (none for a resident region or a held constant).
    block: Option<DeviceBlock>,
    dirty: bool,
}

/// Runs a compiled function's kernels on the host-memory device.
pub struct HostDevice {
    mem: Rc<HostMemory>,
    dyn_mem: Rc<dyn DeviceMemory>,
    kernels: Vec<KernelFn>,
    mirrors: Vec<Mirror>,
    /// Globals' device copies, by host address and size: uploaded once.
    constants: Vec<(usize, usize, DeviceBlock)>,
}

impl HostDevice {
    /// A device running `kernels` (one per kernel step) in [`memory`].
    pub fn new(kernels: Vec<KernelFn>) -> HostDevice {
        let mem = memory();
        HostDevice { dyn_mem: mem.clone(), mem, kernels, mirrors: Vec::new(), constants: Vec::new() }
    }

    /// The device address of host pointer or resident address `p`, and
    /// the mirror holding it. A pointer one past a region's end belongs to
    /// it when no region starts there (an empty view at the end).
    fn translate(&self, p: *mut u8) -> Result<(u64, usize), String> {
        let i = crate::executor::region_of(&self.mirrors, |m| (m.host as usize, m.bytes), p)
            .ok_or("host-memory device: an operand outside every region of the call")?;
        let m = &self.mirrors[i];
        Ok((m.dev + (p as usize - m.host as usize) as u64, i))
    }

    fn upload(&self, m: &Mirror) -> Result<(), String> {
        // SAFETY: the host region is live for the call and `bytes` long.
        let host = unsafe { std::slice::from_raw_parts(m.host, m.bytes) };
        self.mem.upload(m.dev, host)
    }

    fn back(&mut self, scratch: bool) -> Result<(), String> {
        for m in std::mem::take(&mut self.mirrors) {
            let copied = m.block.is_some() && m.dirty && (scratch || m.kind != RegionKind::Scratch);
            if copied {
                // SAFETY: as in `upload`.
                let host = unsafe { std::slice::from_raw_parts_mut(m.host, m.bytes) };
                self.mem.download(m.dev, host)?;
            }
        }
        Ok(())
    }

    fn constant(&mut self, r: &HostRegion) -> Result<u64, String> {
        let key = (r.ptr as usize, r.bytes);
        if let Some(c) = self.constants.iter().find(|c| (c.0, c.1) == key) {
            return Ok(c.2.addr());
        }
        let block = DeviceBlock::alloc(&self.dyn_mem, r.bytes)?;
        // SAFETY: a global's storage lives as long as the compiled function.
        let host = unsafe { std::slice::from_raw_parts(r.ptr, r.bytes) };
        self.mem.upload_constant(block.addr(), host)?;
        let addr = block.addr();
        self.constants.push((key.0, key.1, block));
        Ok(addr)
    }

    /// The device addresses of `ptrs`, marking the written ones' mirrors.
    fn operands(&mut self, ptrs: &[*mut u8], written: impl Fn(usize) -> bool) -> Result<Vec<*mut u8>, String> {
        let mut dev = Vec::with_capacity(ptrs.len());
        for (k, &p) in ptrs.iter().enumerate() {
            if p.is_null() {
                dev.push(p);
                continue;
            }
            let (d, i) = self.translate(p)?;
            self.mirrors[i].dirty |= written(k);
            self.mem.check(d, 0)?;
            dev.push(d as *mut u8);
        }
        Ok(dev)
    }
}

impl Device for HostDevice {
    fn begin(&mut self, regions: Vec<HostRegion>, resume: bool) -> Result<(), String> {
        self.mirrors.clear();
        for r in regions {
            // Arguments may share a storage: one mirror per region.
            if let Some(m) = self.mirrors.iter_mut().find(|m| m.host == r.ptr) {
                if m.bytes < r.bytes {
                    return Err("host-memory device: two sizes of one buffer".into());
                }
                if r.kind == RegionKind::Argument {
                    m.kind = RegionKind::Argument;
                }
                continue;
            }
            let mut m = Mirror { host: r.ptr, bytes: r.bytes, kind: r.kind, dev: 0, block: None, dirty: false };
            match r.kind {
                RegionKind::Resident => {
                    self.mem.check(r.ptr as u64, r.bytes)?;
                    m.dev = r.ptr as u64;
                }
                RegionKind::Constant => m.dev = self.constant(&r)?,
                _ => {
                    let block = DeviceBlock::alloc(&self.dyn_mem, r.bytes)?;
                    m.dev = block.addr();
                    m.block = Some(block);
                    if resume || r.kind == RegionKind::Argument {
                        self.upload(&m)?;
                    }
                }
            }
            self.mirrors.push(m);
        }
        Ok(())
    }

    fn kernel(&mut self, index: usize, step: &Step, ptrs: &[*mut u8]) -> Result<(), String> {
        let Step::Kernel { split, writes, name, .. } = step else { return Err("not a kernel step".into()) };
        let f = *self.kernels.get(index).ok_or("host-memory device: no such kernel")?;
        let dev = self.operands(ptrs, |k| writes.get(k).copied().unwrap_or(true))?;
        let (lo, hi) = split.map_or((0, 0), |s| (s.0, s.1));
        // SAFETY: the kernel was compiled for these operands, whose device
        // copies (or resident buffers) have the host buffers' sizes.
        match unsafe { f(dev.as_ptr(), lo, hi) } {
            0 => Ok(()),
            code => Err(format!("kernel '{name}' failed its check {code}")),
        }
    }

    fn matmul(&mut self, mm: &Matmul, pa: *mut u8, pb: *mut u8, pc: *mut u8) -> Result<(), String> {
        let dev = self.operands(&[pa, pb, pc], |k| k == 2)?;
        let plan = mm.plan.as_ref().ok_or("a symbolic program's GEMM runs only once evaluated for sizes")?;
        crate::gemm::batched(
            plan,
            crate::gemm::Types::of(&mm.a.ty, &mm.c.ty),
            dev[0],
            dev[1],
            dev[2],
            mm.accumulate,
            1,
        );
        Ok(())
    }

    fn to_host(&mut self) -> Result<(), String> {
        self.back(true)
    }

    fn finish(&mut self) -> Result<(), String> {
        self.back(false)
    }

    fn memory(&self) -> Option<Rc<dyn DeviceMemory>> {
        Some(self.dyn_mem.clone())
    }

    fn constants(&mut self, constants: &[HostRegion]) -> Result<Vec<u64>, String> {
        constants.iter().map(|r| self.constant(r)).collect()
    }

    fn attention(&mut self, plan: &AttentionPlan, ptrs: &[*mut u8; 10]) -> Result<(), String> {
        let writes = plan.written();
        let dev = self.operands(ptrs, |k| writes.contains(&k))?;
        let mut at = [std::ptr::null_mut(); 10];
        at.copy_from_slice(&dev);
        // SAFETY: the plan was made for the step's buffers, whose device
        // addresses these are.
        unsafe { run_attention(plan, &at, 1) };
        Ok(())
    }
}

/// Cranelift's code run on the host-memory device, as a target.
pub struct HostDev;

impl crate::target::Target for HostDev {
    fn name(&self) -> &'static str {
        "hostdev"
    }

    fn capabilities(&self) -> crate::target::Capabilities {
        crate::target::Capabilities { lowered_input: true, runs: true, device: true, gpu_arch: false }
    }

    fn vectorizes(&self, ctx: &aot_ir::Context, l: aot_ir::Op) -> bool {
        crate::cranelift::vectorizes(ctx, l)
    }

    fn device_memory(&self) -> Option<Rc<dyn DeviceMemory>> {
        Some(device_memory())
    }

    fn compile(
        &self,
        ctx: &mut aot_ir::Context,
        func: aot_ir::Op,
        options: &crate::target::Options,
        text: &mut String,
    ) -> Result<Box<dyn aot_runtime::compiled::Executable>, aot_ir::Diagnostic> {
        let opts = crate::cranelift::Options { vectorize: options.vectorize, ..Default::default() };
        let mut code = crate::cranelift::compile(ctx, func, opts, text)?;
        let kernels = std::mem::take(&mut code.kernels);
        if code.program.symbolic {
            let make: crate::sized::DeviceMaker =
                Box::new(move || Ok(Box::new(HostDevice::new(kernels.clone())) as Box<dyn Device>));
            let sized = crate::sized::Sized::on_device(ctx, func, code, make)
                .map_err(|m| aot_ir::Diagnostic::op_error(ctx, func, m))?;
            return Ok(Box::new(sized));
        }
        Ok(Box::new(crate::executor::Executable::on_device(code, Box::new(HostDevice::new(kernels)))))
    }

    fn line_comment(&self) -> &'static str {
        ";"
    }
}
