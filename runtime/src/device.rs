//! Device memory: storages whose elements live on a device, and the
//! interface a device's memory offers the runtime.
//!
//! A device-resident storage (`Storage::on_device`) holds a
//! [`DeviceBlock`]: an allocation of a [`DeviceMemory`], addressed by a
//! `u64` the host never dereferences. Compiled code runs on it in place (a
//! call whose arguments are resident launches on their device, and its
//! results stay there); the host sees its values only by copying them
//! across the bus, through [`DeviceMemory::download`] and
//! [`DeviceMemory::upload`], which every device counts ([`Crossings`]):
//! what a test checks to show that a resident call copied nothing.
//!
//! [`HostMemory`] is a device whose memory is host allocations behind this
//! interface: every machine runs the resident paths on it, and its counters
//! and address checks stand for the bus and the device's own checks.
//!
//! Invariants: a block's address range is `[addr, addr + bytes)` of its
//! memory, allocated until the block drops; copies check both ranges
//! against live allocations before touching a byte.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

/// Copies across the bus, counted by each device memory.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Crossings {
    /// Host to device: copies and bytes.
    pub uploads: u64,
    pub uploaded_bytes: u64,
    /// Device to host.
    pub downloads: u64,
    pub downloaded_bytes: u64,
    /// Uploads of a compiled function's constants, made once when its
    /// code is loaded (as a module's weights go to the GPU once), not by
    /// its calls: counted apart from [`Crossings::copies`].
    pub constant_uploads: u64,
}

impl Crossings {
    /// Copies in both directions.
    pub fn copies(&self) -> u64 {
        self.uploads + self.downloads
    }

    /// Both counts added.
    pub fn plus(&self, o: &Crossings) -> Crossings {
        Crossings {
            uploads: self.uploads + o.uploads,
            uploaded_bytes: self.uploaded_bytes + o.uploaded_bytes,
            downloads: self.downloads + o.downloads,
            downloaded_bytes: self.downloaded_bytes + o.downloaded_bytes,
            constant_uploads: self.constant_uploads + o.constant_uploads,
        }
    }

    /// What happened since `before` (an earlier reading).
    pub fn since(&self, before: &Crossings) -> Crossings {
        Crossings {
            uploads: self.uploads - before.uploads,
            uploaded_bytes: self.uploaded_bytes - before.uploaded_bytes,
            downloads: self.downloads - before.downloads,
            downloaded_bytes: self.downloaded_bytes - before.downloaded_bytes,
            constant_uploads: self.constant_uploads - before.constant_uploads,
        }
    }
}

/// A strided run of elements in a device allocation: `sizes` and `strides`
/// in elements of `elem_bytes` bytes each, from element `offset` of the
/// allocation at `addr`.
#[derive(Copy, Clone, Debug)]
pub struct Strided<'a> {
    pub addr: u64,
    pub elem_bytes: usize,
    pub sizes: &'a [i64],
    pub strides: &'a [i64],
    pub offset: i64,
}

/// The memory of a device, as the runtime uses it.
pub trait DeviceMemory {
    /// The device's name, for messages (`host-memory`, `cuda:0`).
    fn name(&self) -> String;
    /// A new allocation of `bytes` bytes (at least one), aligned for any
    /// element (and to 16 bytes), its contents undefined.
    fn alloc(&self, bytes: usize) -> Result<u64, String>;
    /// Frees allocation `addr`.
    ///
    /// # Safety
    /// `addr` came from [`DeviceMemory::alloc`] of this memory and is not
    /// used after this call.
    unsafe fn free(&self, addr: u64);
    /// Copies `src` from the host to `dst` on the device (a crossing).
    fn upload(&self, dst: u64, src: &[u8]) -> Result<(), String>;
    /// [`DeviceMemory::upload`] of a compiled function's constant, once
    /// when its code is loaded (counted as [`Crossings::constant_uploads`]).
    fn upload_constant(&self, dst: u64, src: &[u8]) -> Result<(), String> {
        self.upload(dst, src)
    }
    /// Copies `dst.len()` bytes at `src` on the device to the host (a
    /// crossing).
    fn download(&self, src: u64, dst: &mut [u8]) -> Result<(), String>;
    /// Copies `bytes` bytes within the device (not a crossing); the ranges
    /// do not overlap.
    fn copy(&self, dst: u64, src: u64, bytes: usize) -> Result<(), String>;
    /// Sets `bytes` bytes at `dst` to zero, on the device.
    fn fill_zero(&self, dst: u64, bytes: usize) -> Result<(), String>;
    /// Copies the elements `src` addresses into those `dst` addresses, in
    /// row-major order of their (equal) sizes, within the device.
    fn copy_strided(&self, dst: Strided<'_>, src: Strided<'_>) -> Result<(), String>;
    /// Bus crossings so far.
    fn crossings(&self) -> Crossings;
    /// For a memory object that is one thread's view of a device memory
    /// the whole process shares (a GPU's: each thread has its own
    /// reference-counted object, but an address in one is valid in every
    /// other): that device's number, equal for all its views. None for a
    /// memory that is only itself (the host-memory device).
    fn shared_device(&self) -> Option<u64> {
        None
    }
}

/// An allocation of a device memory, freed when dropped; or memory of the
/// device that another runtime owns (PyTorch's), which is never freed
/// here.
pub struct DeviceBlock {
    mem: Rc<dyn DeviceMemory>,
    addr: u64,
    bytes: usize,
    /// For memory owned elsewhere: what keeps it alive (dropped with the
    /// block instead of freeing it).
    owner: Option<Box<dyn std::any::Any>>,
}

impl DeviceBlock {
    /// A new allocation of `bytes` bytes of `mem`.
    pub fn alloc(mem: &Rc<dyn DeviceMemory>, bytes: usize) -> Result<DeviceBlock, String> {
        let addr = mem.alloc(bytes.max(1))?;
        Ok(DeviceBlock { mem: mem.clone(), addr, bytes, owner: None })
    }

    /// `bytes` bytes at `addr` of `mem` that another runtime allocated and
    /// frees: `owner` keeps them alive as long as the block.
    ///
    /// # Safety
    /// The range is device memory of `mem`, valid for reads and writes
    /// while `owner` lives, and nothing else writes it during a call that
    /// uses the block.
    pub unsafe fn foreign(
        mem: &Rc<dyn DeviceMemory>,
        addr: u64,
        bytes: usize,
        owner: Box<dyn std::any::Any>,
    ) -> DeviceBlock {
        DeviceBlock { mem: mem.clone(), addr, bytes, owner: Some(owner) }
    }

    pub fn addr(&self) -> u64 {
        self.addr
    }

    pub fn bytes(&self) -> usize {
        self.bytes
    }

    pub fn memory(&self) -> &Rc<dyn DeviceMemory> {
        &self.mem
    }

    /// Whether another runtime owns the memory ([`DeviceBlock::foreign`]).
    pub fn is_foreign(&self) -> bool {
        self.owner.is_some()
    }
}

impl std::fmt::Debug for DeviceBlock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "DeviceBlock({}, {:#x}, {} bytes)", self.mem.name(), self.addr, self.bytes)
    }
}

impl Drop for DeviceBlock {
    fn drop(&mut self) {
        if self.owner.is_some() {
            return;
        }
        // SAFETY: the block owns the allocation, which nothing uses after
        // the block is gone (storages hold blocks, calls hold storages).
        unsafe { self.mem.free(self.addr) };
    }
}

/// Whether two memories are the same device: the same object, or two
/// views of one process-wide memory ([`DeviceMemory::shared_device`]).
pub fn same_memory(a: &Rc<dyn DeviceMemory>, b: &Rc<dyn DeviceMemory>) -> bool {
    std::ptr::addr_eq(Rc::as_ptr(a), Rc::as_ptr(b)) || a.shared_device().is_some_and(|d| b.shared_device() == Some(d))
}

/// A device whose memory is host allocations behind the device interface
/// (see the module docs): every copy in or out is counted, and every
/// address checked against the live allocations.
pub struct HostMemory {
    /// Its number among the process's host-memory devices (for names).
    id: u64,
    /// Live allocations: address, and the words that hold them (16-byte
    /// aligned, a multiple of 16 bytes).
    blocks: RefCell<Vec<(u64, Box<[u128]>)>>,
    counts: Cell<Crossings>,
}

impl HostMemory {
    pub fn new() -> Rc<HostMemory> {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let id = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Rc::new(HostMemory { id, blocks: RefCell::default(), counts: Cell::default() })
    }

    /// Bytes of live allocations.
    pub fn live_bytes(&self) -> usize {
        self.blocks.borrow().iter().map(|(_, w)| w.len() * 16).sum()
    }

    /// Checks that `[addr, addr + bytes)` lies inside one live allocation.
    pub fn check(&self, addr: u64, bytes: usize) -> Result<(), String> {
        let end = addr.checked_add(bytes as u64).ok_or("a device range wraps around")?;
        let inside = self.blocks.borrow().iter().any(|(a, w)| *a <= addr && end <= a + (w.len() * 16) as u64);
        if inside {
            Ok(())
        } else {
            Err(format!("{}: {bytes} bytes at {addr:#x} are outside every allocation", self.name()))
        }
    }

    fn count(&self, f: impl FnOnce(&mut Crossings)) {
        let mut c = self.counts.get();
        f(&mut c);
        self.counts.set(c);
    }
}

impl DeviceMemory for HostMemory {
    fn name(&self) -> String {
        format!("host-memory:{}", self.id)
    }

    fn alloc(&self, bytes: usize) -> Result<u64, String> {
        let words = bytes.max(1).div_ceil(16);
        let bytes = words.checked_mul(16).ok_or("a device allocation overflows")?;
        aot_ir::size::check_alloc(bytes as u64, 1, "a host-memory device allocation").map_err(|e| e.to_string())?;
        // Fresh device memory is not cleared: a pattern in it shows a read
        // of what nothing wrote.
        let block = vec![u128::from_ne_bytes([0xA5; 16]); words].into_boxed_slice();
        let addr = block.as_ptr() as u64;
        self.blocks.borrow_mut().push((addr, block));
        Ok(addr)
    }

    unsafe fn free(&self, addr: u64) {
        let mut blocks = self.blocks.borrow_mut();
        if let Some(i) = blocks.iter().position(|(a, _)| *a == addr) {
            blocks.swap_remove(i);
        }
    }

    fn upload(&self, dst: u64, src: &[u8]) -> Result<(), String> {
        self.check(dst, src.len())?;
        // SAFETY: checked: the range lies in a live allocation, which a
        // host slice cannot overlap (the allocations are this device's).
        unsafe { std::ptr::copy_nonoverlapping(src.as_ptr(), dst as *mut u8, src.len()) };
        self.count(|c| {
            c.uploads += 1;
            c.uploaded_bytes += src.len() as u64;
        });
        Ok(())
    }

    fn upload_constant(&self, dst: u64, src: &[u8]) -> Result<(), String> {
        self.check(dst, src.len())?;
        // SAFETY: as in `upload`.
        unsafe { std::ptr::copy_nonoverlapping(src.as_ptr(), dst as *mut u8, src.len()) };
        self.count(|c| c.constant_uploads += 1);
        Ok(())
    }

    fn download(&self, src: u64, dst: &mut [u8]) -> Result<(), String> {
        self.check(src, dst.len())?;
        // SAFETY: as in `upload`.
        unsafe { std::ptr::copy_nonoverlapping(src as *const u8, dst.as_mut_ptr(), dst.len()) };
        self.count(|c| {
            c.downloads += 1;
            c.downloaded_bytes += dst.len() as u64;
        });
        Ok(())
    }

    fn copy(&self, dst: u64, src: u64, bytes: usize) -> Result<(), String> {
        self.check(dst, bytes)?;
        self.check(src, bytes)?;
        // SAFETY: both ranges are inside live allocations; `copy` allows
        // them to overlap.
        unsafe { std::ptr::copy(src as *const u8, dst as *mut u8, bytes) };
        Ok(())
    }

    fn fill_zero(&self, dst: u64, bytes: usize) -> Result<(), String> {
        if bytes == 0 {
            return Ok(());
        }
        self.check(dst, bytes)?;
        // SAFETY: the range lies inside a live allocation.
        unsafe { std::ptr::write_bytes(dst as *mut u8, 0, bytes) };
        Ok(())
    }

    fn copy_strided(&self, dst: Strided<'_>, src: Strided<'_>) -> Result<(), String> {
        if dst.sizes != src.sizes || dst.elem_bytes != src.elem_bytes {
            return Err("a strided device copy between different shapes or element sizes".into());
        }
        let span = |s: &Strided<'_>| -> Result<(u64, usize), String> {
            let n = s.elem_bytes as i64;
            let bad = || "a strided device copy's range overflows".to_string();
            if s.sizes.contains(&0) {
                return Ok((s.addr, 0));
            }
            let mut last = s.offset;
            for (&k, &st) in s.sizes.iter().zip(s.strides) {
                if k < 0 || st < 0 || s.offset < 0 {
                    return Err(bad());
                }
                last = last.checked_add((k - 1).checked_mul(st).ok_or_else(bad)?).ok_or_else(bad)?;
            }
            let first = s.addr.checked_add((s.offset as u64).checked_mul(n as u64).ok_or_else(bad)?).ok_or_else(bad)?;
            let bytes = (last - s.offset + 1).checked_mul(n).ok_or_else(bad)?;
            Ok((first, usize::try_from(bytes).map_err(|_| bad())?))
        };
        let (d0, db) = span(&dst)?;
        let (s0, sb) = span(&src)?;
        self.check(d0, db)?;
        self.check(s0, sb)?;
        let n = dst.elem_bytes;
        // Elements through a staging copy: `dst` may overlap `src` (a
        // write-back into the storage it was read from).
        let mut staged = Vec::with_capacity(sb.min(1 << 26));
        for i in crate::tensor::strided_iter(src.sizes, src.strides, src.offset) {
            let at = src.addr + (i * n) as u64;
            // SAFETY: every element lies inside the checked span.
            staged.extend_from_slice(unsafe { std::slice::from_raw_parts(at as *const u8, n) });
        }
        for (k, i) in crate::tensor::strided_iter(dst.sizes, dst.strides, dst.offset).enumerate() {
            let at = dst.addr + (i * n) as u64;
            // SAFETY: as above, and `staged` holds one element per index.
            unsafe { std::ptr::copy_nonoverlapping(staged[k * n..].as_ptr(), at as *mut u8, n) };
        }
        Ok(())
    }

    fn crossings(&self) -> Crossings {
        self.counts.get()
    }
}
