//! Runtime tensors: objects with metadata over shared storage.
//!
//! A [`Storage`] is a reference-counted, mutable buffer. A [`Tensor`] is a
//! *tensor object* (PyTorch's `TensorImpl`): a storage plus dtype, sizes,
//! strides, storage offset and autograd flags. Views are new objects over the
//! same storage, so a write through any of them is seen by all. Object
//! identity matters (an op may return "the same object", metadata mutations
//! change an object in place), so a `Tensor` is a handle to a shared cell;
//! two handles are the same object iff [`Tensor::same`].
//!
//! Invariants: every element a tensor can address lies inside its storage
//! (checked whenever metadata is set); strides are non-negative. A tensor's
//! logical dtype may differ from its buffer's physical type only in the
//! interpreter's f64 mode (float tensors then live in f64 buffers).

use crate::buffer::Buffer;
use aot_ir::{ElemType, Shape};
use std::cell::{Ref, RefCell, RefMut};
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};

static NEXT_STORAGE: AtomicU64 = AtomicU64::new(1);

/// Bytes held by live storages, process-wide, and their high-water mark:
/// what the memory benchmarks measure. Counters are relaxed atomics shared
/// by every thread, so a measurement is only meaningful while one thread
/// runs tensors.
pub mod memory {
    use std::sync::atomic::{AtomicU64, Ordering};

    static LIVE: AtomicU64 = AtomicU64::new(0);
    static PEAK: AtomicU64 = AtomicU64::new(0);

    pub(super) fn grow(bytes: u64) {
        let now = LIVE.fetch_add(bytes, Ordering::Relaxed) + bytes;
        PEAK.fetch_max(now, Ordering::Relaxed);
    }

    pub(super) fn shrink(bytes: u64) {
        LIVE.fetch_sub(bytes, Ordering::Relaxed);
    }

    /// Bytes of all storages alive now.
    pub fn live_bytes() -> u64 {
        LIVE.load(Ordering::Relaxed)
    }

    /// The most bytes alive at once since the last [`reset_peak`].
    pub fn peak_bytes() -> u64 {
        PEAK.load(Ordering::Relaxed)
    }

    /// Starts a new high-water mark at the current live bytes.
    pub fn reset_peak() {
        PEAK.store(LIVE.load(Ordering::Relaxed), Ordering::Relaxed);
    }
}

/// Bytes this runtime allocated for a buffer: none for foreign memory.
fn buffer_bytes(b: &Buffer) -> u64 {
    if b.is_foreign() {
        return 0;
    }
    b.byte_len() as u64
}

/// A shared, resizable element buffer.
#[derive(Debug)]
pub struct Storage {
    id: u64,
    buf: RefCell<Buffer>,
    /// One of the strong references is a compiled function's cache of its
    /// last results (`Storage::set_cached`): it never reads or writes
    /// through it, and takes the buffer back only once it is the last
    /// reference ([`Storage::reclaim`]), so it does not make a tensor over
    /// the storage shared ([`Tensor::is_exclusive_dense`]).
    cached: std::cell::Cell<bool>,
    /// Where the elements are when they live on a device (then `buf` is
    /// empty, of the elements' type): see [`crate::device`].
    device: RefCell<Option<crate::device::DeviceBlock>>,
}

pub type StorageRef = Rc<Storage>;

impl Drop for Storage {
    fn drop(&mut self) {
        memory::shrink(buffer_bytes(self.buf.get_mut()));
    }
}

impl Storage {
    pub fn new(buf: Buffer) -> StorageRef {
        memory::grow(buffer_bytes(&buf));
        Rc::new(Storage {
            id: NEXT_STORAGE.fetch_add(1, Ordering::Relaxed),
            buf: RefCell::new(buf),
            cached: std::cell::Cell::new(false),
            device: RefCell::new(None),
        })
    }

    /// A storage of `n` elements of type `kind` in a new allocation of
    /// `mem`, zero-filled there.
    pub fn on_device(
        mem: &Rc<dyn crate::device::DeviceMemory>,
        kind: ElemType,
        n: usize,
    ) -> Result<StorageRef, String> {
        let s = Storage::on_device_uninit(mem, kind, n)?;
        mem.fill_zero(s.device_addr().ok_or("a device storage without an address")?, s.byte_len())?;
        Ok(s)
    }

    /// [`Storage::on_device`] without the zero fill: the elements hold
    /// whatever the allocation held, for a caller that writes every one
    /// before anything reads it (a compiled function's results).
    pub fn on_device_uninit(
        mem: &Rc<dyn crate::device::DeviceMemory>,
        kind: ElemType,
        n: usize,
    ) -> Result<StorageRef, String> {
        let bytes = aot_ir::size::check_alloc(n as u64, kind.byte_size() as u64, "a device storage")
            .map_err(|e| e.to_string())?;
        Ok(Storage::in_block(kind, crate::device::DeviceBlock::alloc(mem, bytes as usize)?))
    }

    /// A storage whose elements of type `kind` fill `block`.
    pub fn in_block(kind: ElemType, block: crate::device::DeviceBlock) -> StorageRef {
        Rc::new(Storage {
            id: NEXT_STORAGE.fetch_add(1, Ordering::Relaxed),
            buf: RefCell::new(Buffer::zeros(kind, 0)),
            cached: std::cell::Cell::new(false),
            device: RefCell::new(Some(block)),
        })
    }

    /// Whether the elements live on a device.
    pub fn is_on_device(&self) -> bool {
        self.device.borrow().is_some()
    }

    /// Whether the elements are memory another runtime owns and lent
    /// (bound, not allocated here): a foreign host buffer or device block.
    pub fn is_foreign(&self) -> bool {
        match &*self.device.borrow() {
            Some(b) => b.is_foreign(),
            None => self.buf.borrow().is_foreign(),
        }
    }

    /// The device address of the elements, when they live on a device.
    pub fn device_addr(&self) -> Option<u64> {
        self.device.borrow().as_ref().map(|b| b.addr())
    }

    /// The memory the elements live in, when on a device.
    pub fn device_memory(&self) -> Option<Rc<dyn crate::device::DeviceMemory>> {
        self.device.borrow().as_ref().map(|b| b.memory().clone())
    }

    /// Points a device storage bound over another runtime's memory at
    /// `block` instead (that runtime moved the memory: FSDP2 frees its
    /// unsharded parameters after the forward and gathers them again before
    /// the backward, elsewhere). Refused for a storage that owns its block
    /// or lives on the host, and for a block of another device or of fewer
    /// bytes.
    pub fn rebind_device(&self, block: crate::device::DeviceBlock) -> Result<(), String> {
        let mut dev = self.device.borrow_mut();
        let Some(old) = dev.as_ref() else { return Err("a host storage has no device block to rebind".into()) };
        if !old.is_foreign() || !block.is_foreign() {
            return Err("only a storage bound over another runtime's device memory is rebound".into());
        }
        if !crate::device::same_memory(old.memory(), block.memory()) || block.bytes() < old.bytes() {
            return Err("a device storage is rebound only to as many bytes of the same device".into());
        }
        *dev = Some(block);
        Ok(())
    }

    /// The elements' type.
    pub fn kind(&self) -> ElemType {
        self.buf.borrow().kind()
    }

    /// Bytes of the elements.
    pub fn byte_len(&self) -> usize {
        match &*self.device.borrow() {
            Some(b) => b.bytes(),
            None => self.buf.borrow().byte_len(),
        }
    }

    /// The elements as a host buffer: a device storage's copied across
    /// the bus (a crossing its device counts), a host storage's cloned.
    pub fn to_host_buffer(&self) -> Result<Buffer, String> {
        match &*self.device.borrow() {
            Some(b) => {
                let kind = self.kind();
                let mut host = Buffer::zeros(kind, b.bytes() / kind.byte_size());
                let bytes = host.byte_len();
                // SAFETY: the buffer owns `bytes` bytes at its pointer.
                let dst = unsafe { std::slice::from_raw_parts_mut(host.as_mut_ptr(), bytes) };
                b.memory().download(b.addr(), dst)?;
                Ok(host)
            }
            None => Ok(self.buf.borrow().clone()),
        }
    }

    /// Replaces a device storage's elements with `host`'s (same length),
    /// across the bus; a host storage's are replaced in place.
    pub fn write_host_buffer(&self, mut host: Buffer) -> Result<(), String> {
        match &*self.device.borrow() {
            Some(b) => {
                if host.byte_len() != b.bytes() || host.kind() != self.kind() {
                    return Err("a device storage written with a buffer of another size or type".into());
                }
                let bytes = host.byte_len();
                // SAFETY: the buffer owns `bytes` bytes at its pointer.
                let src = unsafe { std::slice::from_raw_parts(host.as_mut_ptr(), bytes) };
                b.memory().upload(b.addr(), src)
            }
            None => {
                let mut buf = self.buf.borrow_mut();
                if host.len() != buf.len() || host.kind() != buf.kind() {
                    return Err("a storage written with a buffer of another size or type".into());
                }
                *buf = host;
                Ok(())
            }
        }
    }

    /// Marks (or unmarks) one strong reference to this storage as a cache's
    /// (see the field): the holder must unmark it before it drops that
    /// reference while others may still hold the storage.
    pub fn set_cached(&self, on: bool) {
        self.cached.set(on);
    }

    /// Strong references to `s` other than a cache's.
    pub fn holders(s: &StorageRef) -> usize {
        Rc::strong_count(s) - s.cached.get() as usize
    }

    /// Grows or shrinks the buffer to `n` elements (new ones are zero). A
    /// device storage moves to a new allocation of its device (a copy on
    /// the device, not across the bus).
    pub fn resize(&self, n: usize) -> Result<(), String> {
        if let Some(old) = &mut *self.device.borrow_mut() {
            let elem = self.buf.borrow().kind().byte_size();
            let bytes = aot_ir::size::check_alloc(n as u64, elem as u64, "a device storage")
                .map_err(|e| e.to_string())? as usize;
            let mem = old.memory().clone();
            let new = crate::device::DeviceBlock::alloc(&mem, bytes)?;
            let kept = bytes.min(old.bytes());
            mem.copy(new.addr(), old.addr(), kept)?;
            mem.fill_zero(new.addr() + kept as u64, bytes - kept)?;
            *old = new;
            return Ok(());
        }
        let mut b = self.buf.borrow_mut();
        let before = buffer_bytes(&b);
        b.resize(n);
        let after = buffer_bytes(&b);
        if after > before {
            memory::grow(after - before);
        } else {
            memory::shrink(before - after);
        }
        Ok(())
    }

    /// The buffer of a storage nothing else references (no other strong or
    /// weak reference: no tensor can see it any more), for reuse under a
    /// new storage; the storage itself goes away.
    pub fn reclaim(storage: StorageRef) -> Option<Buffer> {
        if storage.is_on_device() {
            return None;
        }
        let mut s = Rc::try_unwrap(storage).ok()?;
        s.cached.set(false);
        let kind = s.buf.get_mut().kind();
        let buf = std::mem::replace(s.buf.get_mut(), Buffer::zeros(kind, 0));
        // `s` drops with an empty buffer: account for the one taken here.
        memory::shrink(buffer_bytes(&buf));
        Some(buf)
    }

    /// A process-unique id (stable for the storage's lifetime).
    pub fn id(&self) -> u64 {
        self.id
    }

    pub fn len(&self) -> usize {
        match &*self.device.borrow() {
            Some(b) => b.bytes() / self.buf.borrow().kind().byte_size(),
            None => self.buf.borrow().len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The host buffer of the elements: empty for a device storage (whose
    /// elements the host reaches through [`Storage::to_host_buffer`]).
    pub fn buf(&self) -> Ref<'_, Buffer> {
        self.buf.borrow()
    }

    /// The device block of a device storage, taken from a storage nothing
    /// else references (see [`Storage::reclaim`]).
    pub fn reclaim_block(storage: StorageRef) -> Option<crate::device::DeviceBlock> {
        let mut s = Rc::try_unwrap(storage).ok()?;
        s.device.get_mut().take()
    }

    pub fn buf_mut(&self) -> RefMut<'_, Buffer> {
        self.buf.borrow_mut()
    }
}

/// The metadata of a tensor object.
#[derive(Debug, Clone)]
pub struct TensorImpl {
    pub storage: StorageRef,
    pub dtype: ElemType,
    pub sizes: Shape,
    pub strides: Shape,
    pub offset: i64,
    /// PyTorch's version counter: shared by an object, its views and its
    /// detached aliases (every object [`Tensor::alias_with`] makes), bumped
    /// by each in-place op on any of them. Not by a tensor that `set_`
    /// moved onto the same storage: it keeps its own.
    pub version: Rc<std::cell::Cell<u64>>,
    /// The object's own requires-grad flag (see [`Tensor::requires_grad`]).
    pub requires_grad: bool,
    pub is_leaf: bool,
    /// For a view (not a detached alias): the root object it views, whose
    /// autograd state it shares.
    pub view_base: Option<Tensor>,
    /// Bumped on every autograd-visible in-place change of data (PyTorch
    /// would give the object a new `grad_fn`; metadata-only mutations do
    /// too, but they do not count here).
    pub autograd_version: u64,
    /// How a view was created (PyTorch's `CreationMeta`): some views may not
    /// be modified in place while autograd records.
    pub creation: CreationMeta,
    /// A view made in grad mode of a tensor that did not require grad has no
    /// `grad_fn` until autograd takes one (an op it records uses the view):
    /// once its base requires grad, an in-place write to it meanwhile is
    /// refused as on a leaf, as PyTorch does.
    pub stale_grad_fn: bool,
}

/// How a view was created.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum CreationMeta {
    #[default]
    Default,
    /// Output `index` of an op returning several views (`unbind`, `split`),
    /// made when its version counter was at `version`.
    MultiOutput { op: &'static str, index: usize, version: u64 },
    /// Created under no_grad from a tensor that requires grad, or a view of
    /// such a view. `view_of_view`: for a view made in grad mode (so with a
    /// `grad_fn`), its op and output index, which PyTorch's error names;
    /// `version`: its version counter when the view was made.
    NoGradMode { view_of_view: Option<(&'static str, usize)>, version: u64 },
}

/// A handle to a tensor object.
#[derive(Clone, Debug)]
pub struct Tensor(Rc<RefCell<TensorImpl>>);

/// Row-major contiguous strides of `shape`.
pub fn contiguous_strides(shape: &[i64]) -> Shape {
    let mut s = Shape::from_elem(1, shape.len());
    let mut acc = 1i64;
    for i in (0..shape.len()).rev() {
        s[i] = acc;
        acc = if aot_ir::sym::is_symbolic(shape[i]) || aot_ir::sym::is_symbolic(acc) {
            // A symbolic size is at least 2, so no `max(1)`; strides become
            // expressions (`s1*4`). Only compile-time layouts have them.
            let d = if aot_ir::sym::is_symbolic(shape[i]) { shape[i] } else { shape[i].max(1) };
            aot_ir::sym::mul(acc, d).unwrap_or(i64::MAX)
        } else {
            acc.saturating_mul(shape[i].max(1))
        };
    }
    s
}

/// Contiguous from element 0 over exactly the storage's elements.
fn covers(t: &TensorImpl) -> bool {
    t.offset == 0 && t.storage.len() as i64 == numel(&t.sizes) && dense(&t.sizes, &t.strides)
}

/// Whether `strides` are row-major contiguous strides for `sizes` (size-1
/// dimensions may have any stride; a tensor without elements is contiguous
/// whatever its strides, as in PyTorch). Symbolic sizes compare by their
/// forms, as [`contiguous_strides`] computes them.
pub fn dense(sizes: &[i64], strides: &[i64]) -> bool {
    if sizes.len() != strides.len() {
        return false;
    }
    if sizes.contains(&0) {
        return true;
    }
    let mut expected = 1i64;
    for i in (0..sizes.len()).rev() {
        if sizes[i] != 1 && strides[i] != expected {
            return false;
        }
        expected = if aot_ir::sym::is_symbolic(sizes[i]) || aot_ir::sym::is_symbolic(expected) {
            aot_ir::sym::mul(expected, sizes[i]).unwrap_or(i64::MAX)
        } else {
            expected.saturating_mul(sizes[i])
        };
    }
    true
}

/// Element count of `shape`. Shapes reaching the runtime were checked (by
/// the verifier, the input readers and [`check_in_bounds`]), so this
/// saturates rather than wraps for the rare unchecked caller.
pub fn numel(shape: &[i64]) -> i64 {
    aot_ir::size::checked_numel(shape).unwrap_or(i64::MAX)
}

/// Checks that a view with this metadata stays inside a storage of `len`
/// elements. All arithmetic is checked: a layout whose extent overflows is
/// rejected, never wrapped into range.
pub fn check_in_bounds(sizes: &[i64], strides: &[i64], offset: i64, len: usize) -> Result<(), String> {
    if sizes.len() != strides.len() {
        return Err(format!("{} sizes but {} strides", sizes.len(), strides.len()));
    }
    if !aot_ir::sym::layout_is_static(sizes, strides, offset) {
        // Sizes are evaluated per call before any tensor is made: one that
        // arrives unevaluated is a bug of the caller, named as such.
        return Err(format!(
            "a tensor with the symbolic layout {} / {} was made without evaluating it for the call",
            crate::kernel_util::fmt_shape(sizes),
            crate::kernel_util::fmt_shape(strides)
        ));
    }
    if sizes.iter().any(|&s| s < 0) {
        return Err(format!("negative size in {sizes:?}"));
    }
    if strides.iter().any(|&s| s < 0) {
        return Err(format!("negative stride in {strides:?}"));
    }
    if offset < 0 {
        return Err(format!("negative storage offset {offset}"));
    }
    if aot_ir::size::checked_numel(sizes).is_none() {
        return Err(format!("a view with size {sizes:?} has more elements than a 64-bit count holds"));
    }
    let Some((_, end)) = aot_ir::size::checked_extent(sizes, strides, offset) else {
        return Err(format!(
            "a view with size {sizes:?}, stride {strides:?} and offset {offset} addresses elements beyond the 64-bit range"
        ));
    };
    if end > offset && end > len as i64 {
        return Err(format!(
            "a view with size {sizes:?}, stride {strides:?} and offset {offset} reaches element {}, outside its storage of {len} elements",
            end - 1
        ));
    }
    Ok(())
}

/// Storage index of every element of a strided view, in row-major order.
pub fn strided_indices(sizes: &[i64], strides: &[i64], offset: i64) -> Vec<usize> {
    strided_iter(sizes, strides, offset).collect()
}

/// [`strided_indices`] without materializing them: passes that walk the
/// elements of a layout (coverage, overlap) need no memory per element.
/// The layout must have been checked ([`check_in_bounds`]).
pub fn strided_iter<'a>(sizes: &'a [i64], strides: &'a [i64], offset: i64) -> StridedIter<'a> {
    let n = numel(sizes).max(0) as u64;
    StridedIter { sizes, strides, idx: vec![0; sizes.len()], pos: offset, left: n }
}

/// The iterator of [`strided_iter`]: an odometer over the dims.
pub struct StridedIter<'a> {
    sizes: &'a [i64],
    strides: &'a [i64],
    idx: Vec<i64>,
    pos: i64,
    left: u64,
}

impl Iterator for StridedIter<'_> {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let at = self.pos as usize;
        // The position may step one stride past the last element before the
        // odometer carries back: wrapping arithmetic is exact for every
        // position actually returned, which lie inside the checked extent.
        for d in (0..self.sizes.len()).rev() {
            self.idx[d] += 1;
            self.pos = self.pos.wrapping_add(self.strides[d]);
            if self.idx[d] < self.sizes[d] {
                break;
            }
            self.pos = self.pos.wrapping_sub(self.strides[d].wrapping_mul(self.sizes[d]));
            self.idx[d] = 0;
        }
        Some(at)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = usize::try_from(self.left).unwrap_or(usize::MAX);
        (n, Some(n))
    }
}

impl Tensor {
    fn wrap(t: TensorImpl) -> Tensor {
        Tensor(Rc::new(RefCell::new(t)))
    }

    /// A new object over `storage`; the metadata must fit in the storage.
    pub fn from_parts(
        storage: StorageRef,
        dtype: ElemType,
        sizes: Shape,
        strides: Shape,
        offset: i64,
    ) -> Result<Tensor, String> {
        check_in_bounds(&sizes, &strides, offset, storage.len())?;
        Ok(Tensor::wrap(TensorImpl {
            storage,
            dtype,
            sizes,
            strides,
            offset,
            version: Rc::default(),
            requires_grad: false,
            is_leaf: true,
            view_base: None,
            autograd_version: 0,
            creation: CreationMeta::Default,
            stale_grad_fn: false,
        }))
    }

    /// A contiguous tensor with fresh storage whose buffer holds elements of
    /// type `physical`: `dtype` itself, except in the interpreter's f64 mode,
    /// where float tensors live in `f64` buffers.
    ///
    /// # Panics
    /// If `physical` is neither `dtype` nor, for a float dtype, `f64` (the
    /// fallible form is [`Tensor::try_zeros`]).
    pub fn zeros(dtype: ElemType, shape: &[i64], physical: ElemType) -> Tensor {
        assert!(
            physical == dtype || (dtype.is_float() && physical == ElemType::F64),
            "a {dtype} tensor cannot be stored in a {physical} buffer"
        );
        let n = numel(shape).max(0) as usize;
        let storage = Storage::new(Buffer::zeros(physical, n));
        Tensor::wrap(TensorImpl {
            storage,
            dtype,
            sizes: shape.into(),
            strides: contiguous_strides(shape),
            offset: 0,
            version: Rc::default(),
            requires_grad: false,
            is_leaf: true,
            view_base: None,
            autograd_version: 0,
            creation: CreationMeta::Default,
            stale_grad_fn: false,
        })
    }

    /// A contiguous tensor holding `data` (row-major), each value rounded to
    /// the buffer type `physical` (see [`Tensor::zeros`]). Embedders use the
    /// typed, fallible [`Tensor::from_slice`].
    ///
    /// # Panics
    /// If `data` does not hold exactly one value per element, or `physical`
    /// does not fit `dtype` ([`Tensor::try_from_f64`] returns these as errors).
    pub fn from_f64(dtype: ElemType, shape: &[i64], data: &[f64], physical: ElemType) -> Tensor {
        assert!(
            aot_ir::size::checked_numel(shape) == Some(data.len() as i64),
            "Tensor::from_f64: {} values for shape {shape:?}",
            data.len()
        );
        let t = Tensor::zeros(dtype, shape, physical);
        {
            let st = t.storage();
            let mut b = st.buf_mut();
            for (i, &x) in data.iter().enumerate() {
                b.set_f64(i, x);
            }
        }
        t
    }

    /// A contiguous tensor holding integer `data` (row-major).
    ///
    /// # Panics
    /// As [`Tensor::from_f64`] ([`Tensor::try_from_i64`] is the fallible form).
    pub fn from_i64(dtype: ElemType, shape: &[i64], data: &[i64], physical: ElemType) -> Tensor {
        assert!(
            aot_ir::size::checked_numel(shape) == Some(data.len() as i64),
            "Tensor::from_i64: {} values for shape {shape:?}",
            data.len()
        );
        let t = Tensor::zeros(dtype, shape, physical);
        {
            let st = t.storage();
            let mut b = st.buf_mut();
            for (i, &x) in data.iter().enumerate() {
                b.set_i64(i, x);
            }
        }
        t
    }

    pub fn borrow(&self) -> Ref<'_, TensorImpl> {
        self.0.borrow()
    }

    pub fn borrow_mut(&self) -> RefMut<'_, TensorImpl> {
        self.0.borrow_mut()
    }

    /// Are `self` and `other` the same object?
    pub fn same(&self, other: &Tensor) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }

    pub fn dtype(&self) -> ElemType {
        self.0.borrow().dtype
    }

    pub fn sizes(&self) -> Shape {
        self.0.borrow().sizes.clone()
    }

    pub fn strides(&self) -> Shape {
        self.0.borrow().strides.clone()
    }

    pub fn offset(&self) -> i64 {
        self.0.borrow().offset
    }

    pub fn rank(&self) -> usize {
        self.0.borrow().sizes.len()
    }

    pub fn numel(&self) -> i64 {
        numel(&self.0.borrow().sizes)
    }

    pub fn storage(&self) -> StorageRef {
        self.0.borrow().storage.clone()
    }

    pub fn shares_storage(&self, other: &Tensor) -> bool {
        Rc::ptr_eq(&self.0.borrow().storage, &other.0.borrow().storage)
    }

    /// The physical element type of the buffer.
    pub fn physical(&self) -> ElemType {
        self.0.borrow().storage.buf().kind()
    }

    /// A plain dense tensor nobody else can see: this handle is the only
    /// one to its object, the object the only one over its storage, which
    /// it covers exactly (contiguous, offset 0, logical = physical type, no
    /// autograd state). Such a tensor can be handed over instead of copied.
    pub fn is_exclusive_dense(&self) -> bool {
        Rc::strong_count(&self.0) == 1
            && Storage::holders(&self.0.borrow().storage) == 1
            && !self.0.borrow().requires_grad
            && self.is_dense_root()
    }

    /// An autograd root over its own storage: not a view of another
    /// tensor, covering its storage exactly (contiguous, offset 0, logical =
    /// physical type). Others may hold it or its storage (an embedder binds
    /// foreign memory so); its autograd state is its own.
    pub fn is_dense_root(&self) -> bool {
        let t = self.0.borrow();
        t.view_base.is_none() && t.storage.buf().kind() == t.dtype && covers(&t)
    }

    /// All of its storage, in order from element 0 (the layout of a fresh
    /// tensor), whatever else it is.
    pub fn covers_storage(&self) -> bool {
        covers(&self.0.borrow())
    }

    pub fn is_contiguous(&self) -> bool {
        let t = self.0.borrow();
        dense(&t.sizes, &t.strides)
    }

    /// Does this object require grad (its own flag, or its view base's)?
    pub fn requires_grad(&self) -> bool {
        let t = self.0.borrow();
        t.requires_grad || t.view_base.as_ref().is_some_and(|b| b.requires_grad())
    }

    pub fn set_requires_grad(&self, v: bool) {
        self.0.borrow_mut().requires_grad = v;
    }

    pub fn is_leaf(&self) -> bool {
        let t = self.0.borrow();
        t.is_leaf && t.view_base.is_none()
    }

    pub fn set_leaf(&self, v: bool) {
        self.0.borrow_mut().is_leaf = v;
    }

    pub fn view_base(&self) -> Option<Tensor> {
        self.0.borrow().view_base.clone()
    }

    /// The autograd-visible data mutation count of this object's root: it
    /// changes when an in-place op autograd records (not a metadata-only
    /// one: `t_`, `as_strided_`, `resize_`, ...) changes the object's data.
    pub fn history_version(&self) -> u64 {
        self.autograd_root().borrow().autograd_version
    }

    /// The root object this tensor is a (non-detached) view of, or itself.
    pub fn autograd_root(&self) -> Tensor {
        self.view_base().unwrap_or_else(|| self.clone())
    }

    /// Does a write through this tensor hit one memory location twice
    /// (a dimension of size > 1 with stride 0)?
    pub fn has_internal_overlap(&self) -> bool {
        let t = self.0.borrow();
        crate::overlap::has_internal_overlap(&t.sizes, &t.strides)
    }

    pub fn creation(&self) -> CreationMeta {
        self.0.borrow().creation
    }

    /// Storage index of each element, row-major.
    pub fn storage_indices(&self) -> Vec<usize> {
        let t = self.0.borrow();
        strided_indices(&t.sizes, &t.strides, t.offset)
    }

    /// The values seen through this tensor, row-major, as `f64`.
    /// The values seen through this tensor, row-major, as `f64`. A device
    /// tensor's storage is copied to the host for it (a counted crossing);
    /// a failed copy reads as NaN.
    pub fn read_f64(&self) -> Vec<f64> {
        self.read_each(Buffer::get_f64, f64::NAN)
    }

    /// The values seen through this tensor, row-major, as `i64` (a device
    /// tensor's as in [`Tensor::read_f64`]; a failed copy reads as 0).
    pub fn read_i64(&self) -> Vec<i64> {
        self.read_each(Buffer::get_i64, 0)
    }

    /// `get(buffer, storage index)` for each element, row-major; `failed`
    /// for each when a device storage's copy to the host fails.
    fn read_each<T: Copy>(&self, get: fn(&Buffer, usize) -> T, failed: T) -> Vec<T> {
        let idx = self.storage_indices();
        let st = self.storage();
        if st.is_on_device() {
            return match st.to_host_buffer() {
                Ok(b) => idx.iter().map(|&i| get(&b, i)).collect(),
                Err(_) => vec![failed; idx.len()],
            };
        }
        let b = st.buf();
        idx.iter().map(|&i| get(&b, i)).collect()
    }

    /// Writes row-major `data` through this tensor's strides (a device
    /// tensor's storage goes to the host and back).
    pub fn write_f64(&self, data: &[f64]) {
        self.write_each(data, Buffer::set_f64);
    }

    pub fn write_i64(&self, data: &[i64]) {
        self.write_each(data, Buffer::set_i64);
    }

    /// `set(buffer, storage index, value)` for each element, row-major.
    fn write_each<T: Copy>(&self, data: &[T], set: fn(&mut Buffer, usize, T)) {
        let idx = self.storage_indices();
        debug_assert_eq!(idx.len(), data.len());
        let st = self.storage();
        if st.is_on_device() {
            if let Ok(mut b) = st.to_host_buffer() {
                idx.iter().zip(data).for_each(|(&i, &x)| set(&mut b, i, x));
                let _ = st.write_host_buffer(b);
            }
            return;
        }
        let mut b = st.buf_mut();
        idx.iter().zip(data).for_each(|(&i, &x)| set(&mut b, i, x));
    }

    /// Whether the elements live on a device.
    pub fn is_on_device(&self) -> bool {
        self.storage().is_on_device()
    }

    /// A contiguous copy of this tensor's values in a new storage of `mem`
    /// (one upload), with no autograd history.
    pub fn to_device(&self, mem: &Rc<dyn crate::device::DeviceMemory>) -> Result<Tensor, String> {
        let dense = self.to_host()?;
        let st = dense.storage();
        let out = Storage::on_device_uninit(mem, st.kind(), st.len())?;
        out.write_host_buffer(st.buf().clone())?;
        let sizes = dense.sizes();
        Tensor::from_parts(out, dense.dtype(), sizes.clone(), contiguous_strides(&sizes), 0)
    }

    /// A contiguous host copy of this tensor's values (one download for a
    /// device tensor; a host tensor's values are copied), with no autograd
    /// history.
    pub fn to_host(&self) -> Result<Tensor, String> {
        let out = Tensor::zeros(self.dtype(), &self.sizes(), self.physical());
        let st = self.storage();
        let host = if st.is_on_device() { Storage::new(st.to_host_buffer()?) } else { st };
        let t = self.0.borrow();
        let view = Tensor::from_parts(host, t.dtype, t.sizes.clone(), t.strides.clone(), t.offset)?;
        out.copy_values_from(&view);
        Ok(out)
    }

    /// Copies `src`'s values into this tensor (same numel), converting types;
    /// integers are copied exactly.
    pub fn copy_values_from(&self, src: &Tensor) {
        if self.copy_typed(src) {
            return;
        }
        // Through the values (on the host: a device storage's cross the
        // bus, counted).
        if src.dtype().is_float() || self.dtype().is_float() {
            let v = src.read_f64();
            self.write_f64(&v);
        } else {
            let v = src.read_i64();
            self.write_i64(&v);
        }
    }

    /// [`Tensor::copy_values_from`] as a strided copy of elements of one
    /// type, where it applies: between different host storages of the
    /// same logical type (no round trip through f64), or within one
    /// device memory with the same logical and physical types. Returns
    /// whether it copied.
    fn copy_typed(&self, src: &Tensor) -> bool {
        let (dst_st, src_st) = (self.storage(), src.storage());
        if self.dtype() != src.dtype() || self.sizes() != src.sizes() {
            return false;
        }
        let (d, s) = (self.0.borrow(), src.0.borrow());
        match (dst_st.device_memory(), src_st.device_memory()) {
            (None, None) if dst_st.id() != src_st.id() => {
                let dw = crate::buffer::Walk { sizes: &d.sizes, strides: &d.strides, offset: d.offset };
                let sw = crate::buffer::Walk { sizes: &s.sizes, strides: &s.strides, offset: s.offset };
                crate::buffer::copy_strided(&mut dst_st.buf_mut(), dw, &src_st.buf(), sw)
            }
            (Some(dm), Some(sm)) if crate::device::same_memory(&dm, &sm) && self.physical() == src.physical() => {
                fn on(t: &TensorImpl) -> crate::device::Strided<'_> {
                    crate::device::Strided {
                        addr: t.storage.device_addr().unwrap_or(0),
                        elem_bytes: t.storage.kind().byte_size(),
                        sizes: &t.sizes,
                        strides: &t.strides,
                        offset: t.offset,
                    }
                }
                dm.copy_strided(on(&d), on(&s)).is_ok()
            }
            _ => false,
        }
    }

    /// A new object viewing the same storage (autograd flags not set).
    pub fn alias_with(&self, sizes: Shape, strides: Shape, offset: i64) -> Result<Tensor, String> {
        let t = self.0.borrow();
        let out = Tensor::from_parts(t.storage.clone(), t.dtype, sizes, strides, offset)?;
        out.0.borrow_mut().version = t.version.clone();
        Ok(out)
    }

    /// The version counter this object shares with its views (see
    /// [`TensorImpl::version`]).
    pub fn version(&self) -> u64 {
        self.0.borrow().version.get()
    }

    /// Records an in-place op on this object (or a view sharing its counter).
    pub fn bump_version(&self) {
        let t = self.0.borrow();
        t.version.set(t.version.get() + 1);
    }

    /// Changes this object's metadata in place (metadata mutations).
    pub fn set_metadata(&self, sizes: Shape, strides: Shape, offset: i64) -> Result<(), String> {
        let len = self.storage().len();
        check_in_bounds(&sizes, &strides, offset, len)?;
        let mut t = self.0.borrow_mut();
        t.sizes = sizes;
        t.strides = strides;
        t.offset = offset;
        Ok(())
    }

    /// Points this object at another storage (`set_`).
    pub fn set_storage(&self, storage: StorageRef, sizes: Shape, strides: Shape, offset: i64) -> Result<(), String> {
        check_in_bounds(&sizes, &strides, offset, storage.len())?;
        let mut t = self.0.borrow_mut();
        t.storage = storage;
        t.sizes = sizes;
        t.strides = strides;
        t.offset = offset;
        // set_ is an in-place change of this object: PyTorch bumps the
        // version counter the object keeps across the move (it does not
        // take the new storage's owners'), so a view that may not be
        // rebased is stale from now on.
        match &mut t.creation {
            CreationMeta::MultiOutput { version, .. } | CreationMeta::NoGradMode { version, .. } => *version = u64::MAX,
            CreationMeta::Default => {}
        }
        Ok(())
    }

    /// Is this tensor its whole storage, contiguous from offset 0 (as a
    /// fresh result is)?
    pub fn owns_contiguous_storage(&self) -> bool {
        self.offset() == 0 && self.is_contiguous() && self.storage().len() as i64 == self.numel()
    }

    /// A contiguous copy with fresh storage (same dtype and physical type).
    pub fn deep_clone(&self) -> Tensor {
        let out = self
            .storage()
            .device_memory()
            .and_then(|mem| Tensor::zeros_on(&mem, self.dtype(), &self.sizes(), self.physical()).ok())
            .unwrap_or_else(|| Tensor::zeros(self.dtype(), &self.sizes(), self.physical()));
        out.copy_values_from(self);
        out
    }

    /// Moves the storages of `tensors` (and of the roots they view) into
    /// device memory `mem`, one upload per distinct host storage; every
    /// object keeps its metadata, autograd state and identity, and objects
    /// that shared a storage share its device copy. What a caller does to
    /// place a call's arguments on a device before calling (the crossings
    /// happen here, not in the call).
    pub fn make_resident(tensors: &[Tensor], mem: &Rc<dyn crate::device::DeviceMemory>) -> Result<(), String> {
        let mut moved: Vec<(u64, StorageRef)> = Vec::new();
        let mut objects: Vec<Tensor> = Vec::new();
        for t in tensors {
            let mut cur = Some(t.clone());
            while let Some(o) = cur {
                cur = o.0.borrow().view_base.clone();
                if !objects.iter().any(|x| x.same(&o)) {
                    objects.push(o);
                }
            }
        }
        for o in &objects {
            let st = o.storage();
            if st.is_on_device() {
                continue;
            }
            let dev = match moved.iter().find(|(id, _)| *id == st.id()) {
                Some((_, d)) => d.clone(),
                None => {
                    let d = Storage::on_device_uninit(mem, st.kind(), st.len())?;
                    d.write_host_buffer(st.buf().clone())?;
                    moved.push((st.id(), d.clone()));
                    d
                }
            };
            o.0.borrow_mut().storage = dev;
        }
        Ok(())
    }

    /// [`Tensor::zeros`] in a new storage of device memory `mem`.
    pub fn zeros_on(
        mem: &Rc<dyn crate::device::DeviceMemory>,
        dtype: ElemType,
        shape: &[i64],
        physical: ElemType,
    ) -> Result<Tensor, String> {
        let n = usize::try_from(numel(shape).max(0)).map_err(|_| "a device tensor too large")?;
        let storage = Storage::on_device(mem, physical, n)?;
        Tensor::from_parts(storage, dtype, shape.into(), contiguous_strides(shape), 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A storage bound over another runtime's device memory follows that
    /// memory where it moved (as large, on the same device); one it owns,
    /// a smaller block and another device's are refused, leaving it as it
    /// was.
    #[test]
    fn a_foreign_device_storage_is_rebound_where_its_memory_moved() {
        use crate::device::{DeviceBlock, DeviceMemory, HostMemory};
        let mem: Rc<dyn DeviceMemory> = HostMemory::new();
        let other: Rc<dyn DeviceMemory> = HostMemory::new();
        // (Foreign blocks are addresses the test never reads.)
        let lent = |m: &Rc<dyn DeviceMemory>, addr: u64, bytes: usize| unsafe {
            DeviceBlock::foreign(m, addr, bytes, Box::new(()))
        };
        let s = Storage::in_block(ElemType::F32, lent(&mem, 0x1000, 64));
        s.rebind_device(lent(&mem, 0x9000, 64)).unwrap();
        assert_eq!(s.device_addr(), Some(0x9000));
        assert!(s.rebind_device(lent(&mem, 0xa000, 32)).unwrap_err().contains("as many bytes"));
        assert!(s.rebind_device(lent(&other, 0xb000, 64)).unwrap_err().contains("same device"));
        assert_eq!((s.device_addr(), s.byte_len()), (Some(0x9000), 64));
        let owned = Storage::on_device(&mem, ElemType::F32, 16).unwrap();
        assert!(owned.rebind_device(lent(&mem, 0xc000, 64)).unwrap_err().contains("another runtime"));
        let host = Storage::new(Buffer::zeros(ElemType::F32, 4));
        assert!(host.rebind_device(lent(&mem, 0xd000, 64)).is_err());
    }

    #[test]
    fn an_unevaluated_symbolic_layout_is_named_not_read_as_negative() {
        let s0 = aot_ir::sym::symbol(0);
        let strides = contiguous_strides(&[s0, 4]);
        assert_eq!(strides.to_vec(), vec![4, 1]);
        let e = check_in_bounds(&[s0, 4], &strides, 0, 64).unwrap_err();
        assert_eq!(e, "a tensor with the symbolic layout [s0, 4] / [4, 1] was made without evaluating it for the call");
        let t = contiguous_strides(&[4, s0]);
        assert_eq!(aot_ir::sym::display(t[0]), "s0");
    }

    #[test]
    fn views_share_storage_and_see_writes() {
        let t = Tensor::from_f64(ElemType::F32, &[2, 3], &[0., 1., 2., 3., 4., 5.], ElemType::F32);
        let tt = t.alias_with(Shape::from_slice(&[3, 2]), Shape::from_slice(&[1, 3]), 0).unwrap();
        assert_eq!(tt.read_f64(), vec![0., 3., 1., 4., 2., 5.]);
        tt.write_f64(&[10., 13., 11., 14., 12., 15.]);
        assert_eq!(t.read_f64(), vec![10., 11., 12., 13., 14., 15.]);
        assert!(t.shares_storage(&tt) && !t.same(&tt));
        assert!(!tt.is_contiguous() && t.is_contiguous());
    }

    #[test]
    #[should_panic(expected = "Tensor::from_f64: 2 values for shape [3]")]
    fn short_data_is_not_padded() {
        Tensor::from_f64(ElemType::F32, &[3], &[1.0, 2.0], ElemType::F32);
    }

    #[test]
    #[should_panic(expected = "a f64 tensor cannot be stored in a f32 buffer")]
    fn a_narrower_physical_type_is_refused() {
        Tensor::from_f64(ElemType::F64, &[1], &[1.0], ElemType::F32);
    }

    #[test]
    fn out_of_bounds_views_are_rejected() {
        let t = Tensor::zeros(ElemType::F32, &[4], ElemType::F32);
        assert!(t.alias_with(Shape::from_slice(&[3]), Shape::from_slice(&[2]), 0).is_err());
        assert!(t.alias_with(Shape::from_slice(&[2]), Shape::from_slice(&[2]), 1).is_ok());
        assert!(t.alias_with(Shape::from_slice(&[0]), Shape::from_slice(&[5]), 9).is_ok());
    }
}
