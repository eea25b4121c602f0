//! `aot-runtime-cuda`: the runtime's CUDA device, used by `aot-codegen`
//! under its cargo feature `cuda` and reached as `aot::runtime::cuda`. It
//! drives the process's GPU through the CUDA driver API and cuBLAS, both
//! loaded at run time (cudarc's dynamic loading), so a build with the
//! feature runs on a machine without a GPU or a CUDA installation and
//! [`gpu`] says why there is none.
//!
//! What it offers is what a compiled program needs: device memory from a
//! caching allocator ([`DeviceMem`]; freed blocks go back to a free list
//! per size class and are handed out again without a `cuMemAlloc`),
//! copies between host and device, PTX modules ([`Module`]) and kernel
//! launches, and strided batched GEMM through cuBLAS ([`Gpu::gemm`]).
//!
//! Invariants: every operation makes the device's primary context current
//! on the calling thread first, so any thread may call; all work goes to
//! one stream, the legacy default stream unless [`Gpu::use_stream`] named
//! another (PyTorch's current stream, for calls from `aot_torch`), so it
//! runs in the order it was issued, and a device-to-host copy returns once
//! everything issued before it is done. Blocks freed to the caching
//! allocator are reused in that stream's order; a switch of stream first
//! waits for the old one, so no block is handed out while a kernel of the
//! old stream may still use it. The cuBLAS handle is used under a lock (a
//! handle is not thread-safe).

use cudarc::cublas::{result as blas, sys as blas_sys};
use cudarc::driver::{result as cu, sys};
use std::ffi::{c_void, CString};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};

/// The GPU of this process (device 0), opened on first use.
pub struct Gpu {
    ctx: sys::CUcontext,
    /// The device's name, as the driver reports it.
    pub name: String,
    /// Compute capability (major, minor).
    pub capability: (i32, i32),
    /// Streaming multiprocessors: launches size their grids by them.
    pub multiprocessors: u32,
    blas: Mutex<Option<Blas>>,
    pool: Mutex<Pool>,
    /// The stream all work goes to (a `CUstream` handle; 0 is the legacy
    /// default stream).
    stream: AtomicU64,
}

struct Blas(blas_sys::cublasHandle_t);
// SAFETY: the handle is only used under `Gpu::blas`'s lock.
unsafe impl Send for Blas {}

// SAFETY: the driver API is thread-safe; the context is made current on
// each calling thread before use, and the cuBLAS handle and the free lists
// sit behind locks.
unsafe impl Send for Gpu {}
unsafe impl Sync for Gpu {}

static GPU: OnceLock<Result<Gpu, String>> = OnceLock::new();

/// The process's GPU, or why there is none (no driver library, no device,
/// a driver error). Tests that need a GPU skip with this message.
pub fn gpu() -> Result<&'static Gpu, String> {
    GPU.get_or_init(Gpu::open).as_ref().map_err(Clone::clone)
}

fn driver(what: &str, e: cu::DriverError) -> String {
    let name = e.error_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|_| format!("{:?}", e.0));
    format!("CUDA: {what} failed: {name}")
}

fn cublas(what: &str, e: blas::CublasError) -> String {
    format!("cuBLAS: {what} failed: {:?}", e.0)
}

impl Gpu {
    fn open() -> Result<Gpu, String> {
        // SAFETY: probing loads the library only to see that it exists.
        if !unsafe { sys::is_culib_present() } {
            return Err("no CUDA driver library (libcuda.so) on this machine".into());
        }
        cu::init().map_err(|e| driver("cuInit", e))?;
        let count = cu::device::get_count().map_err(|e| driver("cuDeviceGetCount", e))?;
        if count < 1 {
            return Err("the CUDA driver sees no device".into());
        }
        let dev = cu::device::get(0).map_err(|e| driver("cuDeviceGet", e))?;
        let name = cu::device::get_name(dev).map_err(|e| driver("cuDeviceGetName", e))?;
        let attr = |a| {
            // SAFETY: `dev` is a device the driver returned.
            unsafe { cu::device::get_attribute(dev, a) }.map_err(|e| driver("cuDeviceGetAttribute", e))
        };
        use sys::CUdevice_attribute as A;
        let capability = (
            attr(A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?,
            attr(A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?,
        );
        let multiprocessors = attr(A::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?.max(1) as u32;
        // SAFETY: the primary context is retained for the process's life.
        let ctx = unsafe { cu::primary_ctx::retain(dev) }.map_err(|e| driver("cuDevicePrimaryCtxRetain", e))?;
        Ok(Gpu {
            ctx,
            name,
            capability,
            multiprocessors,
            blas: Mutex::new(None),
            pool: Mutex::new(Pool::default()),
            stream: AtomicU64::new(0),
        })
    }

    fn stream(&self) -> sys::CUstream {
        self.stream.load(Ordering::Acquire) as sys::CUstream
    }

    /// Sends all later work to `stream` (a `CUstream` handle of this
    /// device's primary context, as `torch.cuda.current_stream().cuda_stream`
    /// gives it; 0 for the legacy default stream). Switching waits for the
    /// work issued to the old stream first (see the module invariant).
    ///
    /// # Safety
    /// `stream` is 0 or a live stream of the primary context, which stays
    /// live until another stream is named.
    pub unsafe fn use_stream(&self, stream: u64) -> Result<(), String> {
        let old = self.stream.load(Ordering::Acquire);
        if old == stream {
            return Ok(());
        }
        self.current()?;
        cu::stream::synchronize(old as sys::CUstream).map_err(|e| driver("cuStreamSynchronize", e))?;
        self.stream.store(stream, Ordering::Release);
        Ok(())
    }

    fn current(&self) -> Result<(), String> {
        // SAFETY: the context was retained in `open` and never released.
        unsafe { cu::ctx::set_current(self.ctx) }.map_err(|e| driver("cuCtxSetCurrent", e))
    }

    /// `bytes` of device memory (at least one byte's block), from the free
    /// lists when a block of its size class is there. Contents are
    /// unspecified.
    pub fn alloc(&'static self, bytes: usize) -> Result<DeviceMem, String> {
        let class = size_class(bytes).ok_or_else(|| format!("CUDA: {bytes} bytes of device memory is too large"))?;
        if let Some(ptr) = self.pool.lock().map_err(|_| "the device allocator's lock is poisoned")?.take(class) {
            return Ok(DeviceMem { gpu: self, ptr, class });
        }
        self.current()?;
        // SAFETY: a plain allocation in the current context.
        let ptr = match unsafe { cu::malloc_sync(class) } {
            Ok(p) => p,
            Err(_) => {
                // Out of memory with blocks cached: give them back, retry.
                self.release_cached()?;
                unsafe { cu::malloc_sync(class) }.map_err(|e| driver(&format!("allocating {class} bytes"), e))?
            }
        };
        let mut pool = self.pool.lock().map_err(|_| "the device allocator's lock is poisoned")?;
        pool.stats.mallocs += 1;
        pool.stats.reserved_bytes += class as u64;
        Ok(DeviceMem { gpu: self, ptr, class })
    }

    /// Frees every cached block (what `torch.cuda.empty_cache` does).
    pub fn release_cached(&self) -> Result<(), String> {
        self.current()?;
        let mut pool = self.pool.lock().map_err(|_| "the device allocator's lock is poisoned")?;
        let free = std::mem::take(&mut pool.free);
        for (class, ptrs) in free {
            for p in ptrs {
                // SAFETY: cached blocks belong to no `DeviceMem`.
                unsafe { cu::free_sync(p) }.map_err(|e| driver("cuMemFree", e))?;
                pool.stats.reserved_bytes -= class as u64;
            }
        }
        Ok(())
    }

    /// Counters of the caching allocator.
    pub fn allocator_stats(&self) -> AllocatorStats {
        self.pool.lock().map(|p| p.stats).unwrap_or_default()
    }

    /// Copies `src` to device address `dst` (which must have room).
    ///
    /// # Safety
    /// `dst..dst + src.len()` must lie inside one live device allocation.
    pub unsafe fn upload(&self, dst: u64, src: &[u8]) -> Result<(), String> {
        if src.is_empty() {
            return Ok(());
        }
        self.current()?;
        cu::memcpy_htod_async(dst, src, self.stream()).map_err(|e| driver("copying to the device", e))
    }

    /// Copies device address `src` to `dst`, after all work issued before.
    ///
    /// # Safety
    /// `src..src + dst.len()` must lie inside one live device allocation.
    pub unsafe fn download(&self, dst: &mut [u8], src: u64) -> Result<(), String> {
        if dst.is_empty() {
            return Ok(());
        }
        self.current()?;
        let stream = self.stream();
        cu::memcpy_dtoh_async(dst, src, stream).map_err(|e| driver("copying from the device", e))?;
        cu::stream::synchronize(stream).map_err(|e| driver("cuStreamSynchronize", e))
    }

    /// Copies `bytes` bytes from device address `src` to `dst` (stream
    /// order).
    ///
    /// # Safety
    /// Both ranges must lie inside live device allocations and not overlap.
    pub unsafe fn copy(&self, dst: u64, src: u64, bytes: usize) -> Result<(), String> {
        if bytes == 0 {
            return Ok(());
        }
        self.current()?;
        cu::memcpy_dtod_async(dst, src, bytes, self.stream()).map_err(|e| driver("cuMemcpyDtoD", e))
    }

    /// Waits for all work issued so far (a timing's end).
    pub fn synchronize(&self) -> Result<(), String> {
        self.current()?;
        cu::ctx::synchronize().map_err(|e| driver("cuCtxSynchronize", e))
    }

    /// Sets `bytes` bytes at device address `dst` to zero (stream order).
    ///
    /// # Safety
    /// The range must lie inside one live device allocation.
    pub unsafe fn zero(&self, dst: u64, bytes: usize) -> Result<(), String> {
        if bytes == 0 {
            return Ok(());
        }
        self.current()?;
        cu::memset_d8_async(dst, 0, bytes, self.stream()).map_err(|e| driver("cuMemsetD8", e))
    }

    /// Loads PTX text and looks up the entries `names`.
    pub fn load(&'static self, ptx: &str, names: &[String]) -> Result<Module, String> {
        self.current()?;
        let image = CString::new(ptx).map_err(|_| "PTX text with a NUL byte".to_string())?;
        // SAFETY: the image is NUL-terminated PTX text, read during the call.
        let module = unsafe { cu::module::load_data(image.as_ptr() as *const c_void) }
            .map_err(|e| driver("loading the PTX module (cuModuleLoadData)", e))?;
        let mut module = Module { gpu: self, module, functions: Vec::new() };
        for n in names {
            let c = CString::new(n.as_str()).map_err(|_| format!("kernel name {n:?} has a NUL byte"))?;
            // SAFETY: the module is loaded.
            let f = unsafe { cu::module::get_function(module.module, c) }
                .map_err(|e| driver(&format!("finding kernel {n}"), e))?;
            module.functions.push(f);
        }
        Ok(module)
    }

    /// Strided batched `C = A·B` (or `C += A·B` with `accumulate`) in
    /// cuBLAS's column-major terms, for `f32` (`double` with `f64`).
    ///
    /// # Safety
    /// Every matrix of every batch item must lie inside live device memory
    /// of the element type, and the items' results must not overlap.
    pub unsafe fn gemm(&self, g: &Gemm) -> Result<(), String> {
        self.current()?;
        let mut lock = self.blas.lock().map_err(|_| "the cuBLAS handle's lock is poisoned")?;
        if lock.is_none() {
            // SAFETY: probing loads the library only to see that it exists.
            if !unsafe { blas_sys::is_culib_present() } {
                return Err("cuBLAS (libcublas.so) is not on this machine".into());
            }
            let h = blas::create_handle().map_err(|e| cublas("cublasCreate", e))?;
            *lock = Some(Blas(h));
        }
        let h = lock.as_ref().map(|b| b.0).ok_or("no cuBLAS handle")?;
        blas::set_stream(h, self.stream() as _).map_err(|e| cublas("cublasSetStream", e))?;
        let op = |t: bool| {
            if t {
                blas_sys::cublasOperation_t::CUBLAS_OP_T
            } else {
                blas_sys::cublasOperation_t::CUBLAS_OP_N
            }
        };
        let int = |x: i64, what: &str| i32::try_from(x).map_err(|_| format!("cuBLAS: {what} {x} exceeds 32 bits"));
        let (m, n, k) = (int(g.m, "m")?, int(g.n, "n")?, int(g.k, "k")?);
        let (lda, ldb, ldc) = (int(g.lda, "lda")?, int(g.ldb, "ldb")?, int(g.ldc, "ldc")?);
        let batch = int(g.batch, "batch count")?;
        match g.elem {
            GemmElem::F32 => {
                let (alpha, beta) = (1.0f32, if g.accumulate { 1.0f32 } else { 0.0 });
                blas::sgemm_strided_batched(
                    h,
                    op(g.trans_a),
                    op(g.trans_b),
                    m,
                    n,
                    k,
                    &alpha,
                    g.a as *const f32,
                    lda,
                    g.stride_a,
                    g.b as *const f32,
                    ldb,
                    g.stride_b,
                    &beta,
                    g.c as *mut f32,
                    ldc,
                    g.stride_c,
                    batch,
                )
            }
            GemmElem::F64 => {
                let (alpha, beta) = (1.0f64, if g.accumulate { 1.0f64 } else { 0.0 });
                blas::dgemm_strided_batched(
                    h,
                    op(g.trans_a),
                    op(g.trans_b),
                    m,
                    n,
                    k,
                    &alpha,
                    g.a as *const f64,
                    lda,
                    g.stride_a,
                    g.b as *const f64,
                    ldb,
                    g.stride_b,
                    &beta,
                    g.c as *mut f64,
                    ldc,
                    g.stride_c,
                    batch,
                )
            }
        }
        .map_err(|e| cublas("gemm", e))
    }

    /// Launches entry `f` on `grid × block` threads with `params` (each a
    /// pointer to one argument's value).
    ///
    /// # Safety
    /// The parameters must match the entry's signature, and every device
    /// address they carry must be live for the kernel's accesses.
    pub unsafe fn launch(&self, f: Function, grid: u32, block: u32, params: &mut [*mut c_void]) -> Result<(), String> {
        self.current()?;
        cu::launch_kernel(f.0, (grid.max(1), 1, 1), (block.max(1), 1, 1), 0, self.stream(), params)
            .map_err(|e| driver("launching a kernel", e))
    }
}

/// The element type of a cuBLAS GEMM.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum GemmElem {
    F32,
    F64,
}

/// One strided batched GEMM, column-major, as cuBLAS takes it: device
/// addresses, transposes, leading dimensions and batch strides (elements).
#[derive(Clone, Debug)]
pub struct Gemm {
    pub elem: GemmElem,
    pub m: i64,
    pub n: i64,
    pub k: i64,
    pub a: u64,
    pub lda: i64,
    pub stride_a: i64,
    pub trans_a: bool,
    pub b: u64,
    pub ldb: i64,
    pub stride_b: i64,
    pub trans_b: bool,
    pub c: u64,
    pub ldc: i64,
    pub stride_c: i64,
    pub batch: i64,
    pub accumulate: bool,
}

/// A kernel entry of a loaded [`Module`].
#[derive(Copy, Clone, Debug)]
pub struct Function(sys::CUfunction);

// SAFETY: a function handle is a plain reference into its module, which the
// driver lets any thread use.
unsafe impl Send for Function {}
unsafe impl Sync for Function {}

/// A loaded PTX module; unloaded when dropped.
pub struct Module {
    gpu: &'static Gpu,
    module: sys::CUmodule,
    functions: Vec<sys::CUfunction>,
}

// SAFETY: as for `Function`.
unsafe impl Send for Module {}
unsafe impl Sync for Module {}

impl Module {
    /// Entry `i` of the names the module was loaded with.
    pub fn function(&self, i: usize) -> Option<Function> {
        self.functions.get(i).copied().map(Function)
    }
}

impl Drop for Module {
    fn drop(&mut self) {
        if self.gpu.current().is_ok() {
            // SAFETY: no function of the module is used after this.
            let _ = unsafe { cu::module::unload(self.module) };
        }
    }
}

/// A block of device memory from [`Gpu::alloc`]; back to the free lists
/// when dropped.
pub struct DeviceMem {
    gpu: &'static Gpu,
    ptr: sys::CUdeviceptr,
    class: usize,
}

impl DeviceMem {
    /// The device address of the first byte.
    pub fn ptr(&self) -> u64 {
        self.ptr
    }

    /// Bytes the block holds (its size class: at least what was asked).
    pub fn bytes(&self) -> usize {
        self.class
    }
}

impl Drop for DeviceMem {
    fn drop(&mut self) {
        if let Ok(mut pool) = self.gpu.pool.lock() {
            pool.free.entry(self.class).or_default().push(self.ptr);
        }
    }
}

/// Counters of the caching allocator.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct AllocatorStats {
    /// `cuMemAlloc` calls.
    pub mallocs: u64,
    /// Blocks handed out again from the free lists.
    pub reuses: u64,
    /// Bytes held from the driver (in use or cached).
    pub reserved_bytes: u64,
}

#[derive(Default)]
struct Pool {
    free: rustc_hash::FxHashMap<usize, Vec<sys::CUdeviceptr>>,
    stats: AllocatorStats,
}

impl Pool {
    fn take(&mut self, class: usize) -> Option<sys::CUdeviceptr> {
        let p = self.free.get_mut(&class)?.pop()?;
        self.stats.reuses += 1;
        Some(p)
    }
}

/// The size class of a request: 512-byte steps up to 1 MiB, 2 MiB steps
/// beyond (PyTorch's caching allocator rounds the same way), so blocks of
/// a repeated call's shapes come back exactly.
pub fn size_class(bytes: usize) -> Option<usize> {
    const SMALL: usize = 512;
    const LARGE: usize = 2 << 20;
    let step = if bytes <= 1 << 20 { SMALL } else { LARGE };
    bytes.max(1).checked_next_multiple_of(step)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn size_classes_round_like_pytorch() {
        assert_eq!(size_class(0), Some(512));
        assert_eq!(size_class(1), Some(512));
        assert_eq!(size_class(512), Some(512));
        assert_eq!(size_class(513), Some(1024));
        assert_eq!(size_class(1 << 20), Some(1 << 20));
        assert_eq!(size_class((1 << 20) + 1), Some(2 << 20));
        assert_eq!(size_class((4 << 20) + 1), Some(6 << 20));
        assert_eq!(size_class(usize::MAX), None);
    }

    /// On a machine without a GPU this reports why, and never panics.
    #[test]
    fn opening_the_gpu_reports_rather_than_panics() {
        match gpu() {
            Ok(g) => {
                let a = g.alloc(1000).expect("allocates");
                let ptr = a.ptr();
                // SAFETY: inside the block just allocated.
                unsafe { g.upload(ptr, &[7u8; 1000]) }.expect("uploads");
                let mut back = vec![0u8; 1000];
                unsafe { g.download(&mut back, ptr) }.expect("downloads");
                assert!(back.iter().all(|&b| b == 7));
                drop(a);
                let before = g.allocator_stats();
                let b = g.alloc(900).expect("allocates again");
                assert_eq!(b.ptr(), ptr, "the freed block of the same size class comes back");
                assert_eq!(g.allocator_stats().reuses, before.reuses + 1);
            }
            Err(why) => eprintln!("skipped: no GPU ({why})"),
        }
    }
}
