//! `aot_torch._native`: the embedding API ([`aot::Module`],
//! [`aot::Function`]) for `torch.Tensor`s, without copies.
//!
//! Arguments are bound, not copied: each distinct torch storage becomes one
//! runtime storage over the same memory ([`aot_runtime::elems`]'s foreign
//! vectors), so two arguments that share a torch storage share one here
//! (the calling convention sees the aliasing), an argument passed twice is
//! one object, and in-place mutations land in the caller's tensors.
//! Results come back without copies too: a result whose storage is a bound
//! tensor's is a torch view of that tensor (`as_strided`), and a new one is
//! handed over through DLPack, the capsule keeping the runtime storage
//! alive. After a call, an argument whose metadata or storage the function
//! changed (`as_strided_`, `t_`, `set_`, a `resize_` that grew it) is given
//! the same change in torch, and one whose data it wrote gets its version
//! counter bumped, as an in-place torch op would.
//!
//! Invariant: every runtime object here (reference-counted, single-threaded
//! by design) is touched only while the Python thread state is attached
//! (the GIL), which serializes all access: methods never detach, and the
//! DLPack deleter, which torch may call from any thread, attaches before it
//! drops what it holds. [`GilOnly`] is the marker for that rule.

mod addr;
mod cuda;
mod dispatch;
mod dist;
mod keys;

/// A call's few arguments, results or storages: inline up to eight, so
/// that a small graph's call allocates no list for them.
pub(crate) type Few<T> = smallvec::SmallVec<[T; 8]>;

use aot::{Backend, Error, Function, Module, Options, Tensor};
use aot_ir::ElemType;
use aot_runtime::{Buffer, Storage, StorageRef};
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyList, PyTuple};
use pyo3::{create_exception, ffi, intern};
use std::collections::{BTreeSet, HashMap};
use std::ffi::c_void;
use std::rc::Rc;

// A `RuntimeError`, as PyTorch's own failures are: code that catches
// those catches aot's.
create_exception!(_native, AotError, PyRuntimeError, "An error of the aot compiler or runtime.");
create_exception!(_native, ParseError, AotError, "The IR does not parse or verify.");
create_exception!(_native, SignatureError, AotError, "The example arguments do not fit the function.");
create_exception!(_native, CompileError, AotError, "A pass or the backend rejected the function.");
create_exception!(
    _native,
    ConventionError,
    AotError,
    "A call breaks the calling convention the function was compiled for (nothing ran)."
);
create_exception!(_native, ExecutionError, AotError, "The compiled code failed while running.");

fn py_err(e: Error) -> PyErr {
    let m = e.to_string();
    match e {
        Error::Parse(_) => ParseError::new_err(m),
        Error::Signature(_) => SignatureError::new_err(m),
        Error::Compile(_) => CompileError::new_err(m),
        Error::Convention(_) => ConventionError::new_err(m),
        Error::Execution(_) => ExecutionError::new_err(m),
        Error::Tensor(_) => PyValueError::new_err(m),
    }
}

/// A value touched only with the GIL held (see the module invariant), so
/// it may sit in a Python object and move between Python threads.
struct GilOnly<T>(T);
// SAFETY: the module invariant: every access happens with the GIL held,
// which serializes them; nothing here is ever used without it.
unsafe impl<T> Send for GilOnly<T> {}
// SAFETY: as above.
unsafe impl<T> Sync for GilOnly<T> {}

/// The torch objects a call needs, looked up once.
struct TorchApi {
    tensor_type: Py<PyAny>,
    strided: Py<PyAny>,
    /// `torch._C.is_grad_enabled`.
    is_grad_enabled: Py<PyAny>,
    from_dlpack: Py<PyAny>,
    set_version: Py<PyAny>,
    /// `torch._C._autograd._get_creation_meta` and `CreationMeta.DEFAULT`.
    creation_meta: Py<PyAny>,
    default_creation: Py<PyAny>,
    dtypes: Vec<(Py<PyAny>, ElemType)>,
}

static TORCH: PyOnceLock<TorchApi> = PyOnceLock::new();

/// The generator every compiled function draws from, in turn (PyTorch's
/// default generator for aot code): seed 0 until [`manual_seed`].
static GENERATOR: PyOnceLock<GilOnly<aot::SharedGenerator>> = PyOnceLock::new();

fn generator(py: Python<'_>) -> &'static aot::SharedGenerator {
    &GENERATOR.get_or_init(py, || GilOnly(aot::SharedGenerator::default())).0
}

/// Reseeds the generator all aot-compiled functions draw from (dropout
/// masks, random ops): the same seed replays the same draws.
#[pyfunction]
fn manual_seed(py: Python<'_>, seed: u64) {
    *generator(py).borrow_mut() = aot::Generator::new(seed);
}

/// Runs the parallel steps of every compiled function (split kernels,
/// GEMMs) on the team of the OpenMP runtime at `path`: PyTorch's, already
/// loaded, so that aot's threads and PyTorch's do not compete for the cores.
/// Once per process; returns whether this call installed it.
#[pyfunction]
fn use_openmp(path: &str) -> PyResult<bool> {
    let team = aot::codegen::threads::OpenMp::load(path).map_err(AotError::new_err)?;
    Ok(aot::codegen::threads::set_host_team(Box::new(team)).is_ok())
}

/// Turns the timing of compiled steps on or off for every compiled
/// function, from its next call on (`Function.profile` reads the counts);
/// returns whether it was on.
#[pyfunction]
fn set_profiling(on: bool) -> bool {
    let was = aot::codegen::executor::profiling();
    aot::codegen::executor::set_profiling(on);
    was
}

/// How many times this process specialised a symbolic graph for one set
/// of sizes to generate its native code per size (where code reading its
/// sizes at run time was refused, or `AOT_RUNTIME_SIZES=0`).
#[pyfunction]
fn versions_per_size() -> u64 {
    aot::codegen::by_size::versions_specialised()
}

/// Why this process's symbolic functions got native code per size, per
/// distinct reason (the first 32, oldest first): each a located message of
/// the code generator that refused to read the sizes at run time.
#[pyfunction]
fn runtime_sizes_refusals() -> Vec<String> {
    aot::codegen::by_size::runtime_sizes_refusals()
}

/// How two views `(sizes, strides, offset)` of one storage, in elements
/// of one size, overlap as PyTorch's in-place kernels decide
/// (`assert_no_partial_overlap`): "no", "full", "partial" (PyTorch raises
/// `PARTIAL_OVERLAP_ERROR`) or "too_hard" (not both dense: PyTorch does not
/// check).
#[pyfunction]
fn mem_overlap(a: (Vec<i64>, Vec<i64>, i64), b: (Vec<i64>, Vec<i64>, i64)) -> PyResult<&'static str> {
    use aot::runtime::overlap::{self, MemOverlap, View};
    if a.0.len() != a.1.len() || b.0.len() != b.1.len() {
        return Err(AotError::new_err("mem_overlap: sizes and strides of different lengths"));
    }
    Ok(match overlap::mem_overlap(&View::new(&a.0, &a.1, a.2), &View::new(&b.0, &b.1, b.2)) {
        MemOverlap::No => "no",
        MemOverlap::Full => "full",
        MemOverlap::Partial => "partial",
        MemOverlap::TooHard => "too_hard",
    })
}

/// The name of every op the registry knows (`tensor.add`, `view.select`,
/// ...), sorted: what IR written from Python may name.
#[pyfunction]
fn op_names() -> Vec<&'static str> {
    aot::init();
    aot_ir::registry::all_ops().iter().map(|d| d.name).collect()
}

/// The team that runs parallel steps: its name, or None for aot's own pool.
#[pyfunction]
fn thread_team() -> Option<String> {
    aot::codegen::threads::host_team().map(|t| t.name())
}

fn torch(py: Python<'_>) -> PyResult<&'static TorchApi> {
    TORCH.get_or_try_init(py, || {
        let t = py.import("torch")?;
        let dtype = |name: &str, e: ElemType| -> PyResult<(Py<PyAny>, ElemType)> { Ok((t.getattr(name)?.unbind(), e)) };
        Ok(TorchApi {
            tensor_type: t.getattr("Tensor")?.unbind(),
            strided: t.getattr("strided")?.unbind(),
            is_grad_enabled: t.getattr("_C")?.getattr("is_grad_enabled")?.unbind(),
            // For a capsule `torch.utils.dlpack.from_dlpack` calls the C
            // function after some Python (about a microsecond a result);
            // the public function where a release lacks it.
            from_dlpack: match t.getattr("_C")?.getattr("_from_dlpack") {
                Ok(f) => f.unbind(),
                Err(_) => py.import("torch.utils.dlpack")?.getattr("from_dlpack")?.unbind(),
            },
            set_version: t.getattr("_C")?.getattr("_autograd")?.getattr("_unsafe_set_version_counter")?.unbind(),
            creation_meta: t.getattr("_C")?.getattr("_autograd")?.getattr("_get_creation_meta")?.unbind(),
            default_creation: t
                .getattr("_C")?
                .getattr("_autograd")?
                .getattr("CreationMeta")?
                .getattr("DEFAULT")?
                .unbind(),
            dtypes: vec![
                dtype("float32", ElemType::F32)?,
                dtype("float64", ElemType::F64)?,
                dtype("float16", ElemType::F16)?,
                dtype("bfloat16", ElemType::BF16)?,
                dtype("int64", ElemType::I64)?,
                dtype("int32", ElemType::I32)?,
                dtype("int8", ElemType::I8)?,
                dtype("bool", ElemType::I1)?,
            ],
        })
    })
}

/// The tensors of one call, bound to runtime tensors: each distinct torch
/// storage once, each distinct torch object once.
#[derive(Default)]
struct Binder {
    /// Per torch object (by address): the object and its runtime tensor.
    /// (Maps: a model's call binds hundreds of parameters.)
    objects: addr::AddrMap<(Py<PyAny>, Tensor)>,
    /// (storage base address, runtime storage, the first torch tensor bound
    /// to it): the tensor a result aliasing the storage is a view of.
    storages: Few<(usize, StorageRef, Py<PyAny>)>,
    /// Per storage base address, its position in `storages`.
    storage_at: addr::AddrMap<usize>,
    /// What the call's key read of its tensors (`keys::CallInfo`), by
    /// object address.
    known: keys::Records,
    /// A call under no_grad: no gradient is recorded, so every argument is
    /// bound as a leaf that does not require grad, whatever its flags (a
    /// written view of an activation beside other views of it is then one
    /// more aliased argument, not a question of where its gradient goes).
    no_grad: bool,
}

impl Binder {
    fn new(no_grad: bool) -> Binder {
        Binder { no_grad, ..Binder::default() }
    }

    fn bind(&mut self, py: Python<'_>, api: &TorchApi, t: &Bound<'_, PyAny>, what: &str, i: usize) -> PyResult<Tensor> {
        if let Some((_, bound)) = self.objects.get(t.as_ptr() as usize) {
            return Ok(bound.clone());
        }
        // Per call and argument: the names are interned (no string made
        // and hashed per lookup), the message is formatted only for an
        // error, and what the call's key read is not read again.
        let name = || format!("{what} {i}");
        // (Each object is bound once: its record is taken, not copied.)
        // (The key records CPU tensors only.)
        let (record, on_gpu) = match self.known.remove(t.as_ptr() as usize) {
            Some((_, r)) => (r, false),
            None => Self::read(py, api, t, &name)?,
        };
        let keys::Record { elem, sizes, strides, offset, data_ptr, requires_grad, is_leaf } = record;
        let item = elem.byte_size();
        let base = usize::try_from(offset)
            .ok()
            .and_then(|o| o.checked_mul(item))
            .and_then(|b| data_ptr.checked_sub(b))
            .ok_or_else(|| {
                PyValueError::new_err(format!("{}: its storage offset does not fit its data pointer", name()))
            })?;
        let known = if base == 0 { None } else { self.storage_at.get(base).map(|&k| &self.storages[k]) };
        let storage = match known {
            Some((_, s, _)) => {
                let kind = s.buf().kind();
                if kind != elem {
                    return Err(PyValueError::new_err(format!(
                        "{} views a storage another argument views as {kind}, as {elem}: aot binds one dtype per storage",
                        name()
                    )));
                }
                s.clone()
            }
            None => {
                let nbytes: usize =
                    t.call_method0(intern!(py, "untyped_storage"))?.call_method0(intern!(py, "nbytes"))?.extract()?;
                if base % item != 0 {
                    return Err(PyValueError::new_err(format!("{}: its storage is not aligned for {elem}", name())));
                }
                let owner: Box<dyn std::any::Any> = Box::new(GilOnly(t.clone().unbind()));
                let s = if on_gpu {
                    // SAFETY: torch's CUDA storage (device 0, checked by
                    // `read`) holds `nbytes` bytes from `base`, aligned as
                    // checked above, and `owner` keeps it alive.
                    unsafe { cuda::bind_storage(elem, base, nbytes / item * item, owner) }
                        .map_err(|m| PyValueError::new_err(format!("{}: {m}", name())))?
                } else {
                    // SAFETY: torch's storage holds `nbytes` bytes from
                    // `base` (checked aligned above), and `owner` (the
                    // tensor) keeps that storage alive for as long as the
                    // buffer lives. The GIL is held whenever runtime code
                    // touches it. A `resize_` of the storage between calls
                    // can move its memory: the buffers a backward reads are
                    // checked, and bound again, first
                    // (`ForwardState.saved_memory`).
                    Storage::new(unsafe { Buffer::foreign(elem, base as *mut u8, nbytes / item, owner) })
                };
                if base != 0 {
                    self.storage_at.insert_new(base, self.storages.len());
                }
                self.storages.push((base, s.clone(), t.clone().unbind()));
                s
            }
        };
        let r = Tensor::from_parts(storage, elem, sizes, strides, offset)
            .map_err(|m| PyValueError::new_err(format!("{}: {m}", name())))?;
        if !self.no_grad {
            r.set_requires_grad(requires_grad);
            let leaf = match is_leaf {
                Some(l) => l,
                None => t.getattr(intern!(py, "is_leaf"))?.extract()?,
            };
            r.set_leaf(leaf);
        }
        self.objects.insert_new(t.as_ptr() as usize, (t.clone().unbind(), r.clone()));
        Ok(r)
    }

    /// What binding needs of a torch tensor no [`keys::CallInfo`] record
    /// gives: each attribute read once, through interned names. Also
    /// whether the tensor is on the GPU.
    fn read(
        py: Python<'_>,
        api: &TorchApi,
        t: &Bound<'_, PyAny>,
        name: &dyn Fn() -> String,
    ) -> PyResult<(keys::Record, bool)> {
        if !t.is_instance(api.tensor_type.bind(py))? {
            return Err(PyTypeError::new_err(format!("{} is a {}, not a torch.Tensor", name(), t.get_type().name()?)));
        }
        let on_gpu = !t.getattr(intern!(py, "is_cpu"))?.extract::<bool>()?;
        if on_gpu {
            cuda::check_device(py, t, name)?;
        }
        if !t.getattr(intern!(py, "layout"))?.is(api.strided.bind(py)) {
            return Err(PyValueError::new_err(format!("{} is not a strided (dense) tensor", name())));
        }
        let dtype = t.getattr(intern!(py, "dtype"))?;
        let Some(&(_, elem)) = api.dtypes.iter().find(|(d, _)| dtype.is(d.bind(py))) else {
            return Err(PyValueError::new_err(format!("{} has dtype {dtype}, which aot does not support", name())));
        };
        let sizes = keys::ints(&t.getattr(intern!(py, "shape"))?)?;
        let strides = keys::ints(&t.call_method0(intern!(py, "stride"))?)?;
        let offset: i64 = t.call_method0(intern!(py, "storage_offset"))?.extract()?;
        let data_ptr: usize = t.call_method0(intern!(py, "data_ptr"))?.extract()?;
        let requires_grad: bool = t.getattr(intern!(py, "requires_grad"))?.extract()?;
        // (None where PyTorch refuses to say: the binder asks again for its
        // error, where it needs the answer.)
        let is_leaf = match requires_grad {
            false => Some(true),
            true => t.getattr(intern!(py, "is_leaf")).ok().map(|l| l.extract()).transpose()?,
        };
        Ok((keys::Record { elem, sizes, strides, offset, data_ptr, requires_grad, is_leaf }, on_gpu))
    }

    fn bind_all(
        &mut self,
        py: Python<'_>,
        api: &TorchApi,
        ts: &[Bound<'_, PyAny>],
        what: &str,
    ) -> PyResult<Few<Tensor>> {
        ts.iter().enumerate().map(|(i, t)| self.bind(py, api, t, what, i)).collect()
    }

    /// Binds `bases`: per entry, a torch tensor over a whole storage
    /// (1-D, stride 1, offset 0) that requires grad, and the positions of
    /// the arguments in `bound` that are views of it. Those become views of
    /// a differentiable base: the compiled code reports one gradient for
    /// the storage, the base's, instead of one per member (their gradients
    /// meet in the storage, where writes through one reach the others).
    /// Returns the bound bases, in order.
    fn bind_bases(
        &mut self,
        py: Python<'_>,
        api: &TorchApi,
        bound: &[Tensor],
        bases: &[(Bound<'_, PyAny>, Vec<usize>)],
    ) -> PyResult<Vec<Tensor>> {
        let mut out = Vec::with_capacity(bases.len());
        for (k, (base, members)) in bases.iter().enumerate() {
            let b = self.bind(py, api, base, "differentiable base", k)?;
            let covers = b.strides()[..] == [1] && b.offset() == 0 && b.covers_storage();
            if !covers || !b.requires_grad() || b.is_leaf() {
                return Err(PyValueError::new_err(format!(
                    "differentiable base {k}: must be a non-leaf 1-D view over its whole storage (stride 1, offset 0) that requires grad"
                )));
            }
            for &m in members {
                let t = bound.get(m).ok_or_else(|| {
                    PyValueError::new_err(format!("differentiable base {k}: member {m} is not an argument"))
                })?;
                if !t.shares_storage(&b) {
                    return Err(PyValueError::new_err(format!(
                        "differentiable base {k}: argument {m} does not view its storage"
                    )));
                }
                t.borrow_mut().view_base = Some(b.clone());
            }
            out.push(b);
        }
        Ok(out)
    }

    /// The torch tensor bound to `s`, if it is a storage of this call.
    fn owner_of(&self, s: &StorageRef) -> Option<&Py<PyAny>> {
        self.storages.iter().find(|(_, b, _)| Rc::ptr_eq(b, s) && b.is_foreign()).map(|(_, _, t)| t)
    }
}

/// Runtime tensors handed to torch: views of bound tensors, or new tensors
/// through DLPack, each storage exported once.
struct Exporter<'a> {
    binder: &'a Binder,
    /// Storages exported in this call, with the torch tensor over all of it.
    exported: Few<(StorageRef, Py<PyAny>)>,
    /// Hand over a result that is the only one of its storage as a plain
    /// tensor even when it is part of the storage (gradients: eager's are
    /// plain tensors).
    plain_parts: bool,
}

impl<'a> Exporter<'a> {
    fn new(binder: &'a Binder) -> Exporter<'a> {
        Exporter { binder, exported: Few::new(), plain_parts: false }
    }

    /// Torch tensors for `ts`, laid out as eager lays them out. A result
    /// that is its whole storage, contiguous from element 0 (what a fresh
    /// eager tensor is), is handed over as a plain tensor; the other results
    /// of that storage are views of it (`y, y[1:]`: the second's `_base` is
    /// the first). A result that is only part of its storage (a view of an
    /// intermediate, `sin(x)[2:]`) is a view of a 1-D tensor over the whole
    /// storage, so it keeps eager's storage offset and is a view.
    /// `views[k]`: result k is a view in eager (a whole-storage result is
    /// then a view too, never the plain base of the others).
    fn tensors(
        &mut self,
        py: Python<'_>,
        api: &TorchApi,
        ts: &[Option<Tensor>],
        views: &[bool],
    ) -> PyResult<Vec<Option<Py<PyAny>>>> {
        let mut out: Vec<Option<Py<PyAny>>> = Vec::with_capacity(ts.len());
        let uses = |s: &StorageRef| ts.iter().flatten().filter(|t| Rc::ptr_eq(&t.storage(), s)).count();
        for (k, t) in ts.iter().enumerate() {
            let Some(t) = t else {
                out.push(None);
                continue;
            };
            let s = t.storage();
            let view = views.get(k).copied().unwrap_or(false);
            let whole = t.covers_storage() || permutes_storage(t);
            if self.binder.owner_of(&s).is_none()
                && self.exported_as(&s).is_none()
                && ((whole && !view) || (self.plain_parts && uses(&s) == 1))
            {
                let e = dlpack(py, api, &s, &t.sizes(), &t.strides(), t.offset())?.unbind();
                if whole {
                    self.exported.push((s.clone(), e.clone_ref(py)));
                }
                out.push(Some(e));
                continue;
            }
            out.push(None);
        }
        for (t, o) in ts.iter().zip(out.iter_mut()) {
            let Some(t) = t else { continue };
            if o.is_none() {
                let base = self.storage(py, api, &t.storage())?;
                *o = Some(as_strided(base.bind(py), t)?.unbind());
            }
        }
        Ok(out)
    }

    /// The 1-D torch tensor `s` was exported as in this call, if it was.
    fn exported_as(&self, s: &StorageRef) -> Option<&Py<PyAny>> {
        self.exported.iter().find(|(e, _)| Rc::ptr_eq(e, s)).map(|(_, t)| t)
    }

    /// A torch tensor over all of `s` (the bound tensor for a storage of
    /// this call; else a result that is the whole storage, or a 1-D tensor
    /// exported once).
    fn storage(&mut self, py: Python<'_>, api: &TorchApi, s: &StorageRef) -> PyResult<Py<PyAny>> {
        if let Some(owner) = self.binder.owner_of(s) {
            return Ok(owner.clone_ref(py));
        }
        if let Some(e) = self.exported_as(s) {
            return Ok(e.clone_ref(py));
        }
        let n = s.len() as i64;
        let e = dlpack(py, api, s, &[n], &[1], 0)?.unbind();
        self.exported.push((s.clone(), e.clone_ref(py)));
        Ok(e)
    }
}

/// Whether `t` is every element of its storage once, from element 0, in
/// some order of its dimensions: a fresh tensor as eager may lay one out
/// (an elementwise result of a transposed input, `t_()` of a fresh
/// tensor), which is handed over plain, not as a view.
fn permutes_storage(t: &Tensor) -> bool {
    t.offset() == 0
        && t.numel() == t.storage().len() as i64
        && aot::runtime::overlap::is_non_overlapping_and_dense(&t.sizes(), &t.strides())
}

fn as_strided<'py>(base: &Bound<'py, PyAny>, t: &Tensor) -> PyResult<Bound<'py, PyAny>> {
    base.call_method1("as_strided", (t.sizes().to_vec(), t.strides().to_vec(), t.offset()))
}

// DLPack (the "dltensor" capsule protocol, v0.8 ABI).
#[repr(C)]
struct DLDevice {
    device_type: i32,
    device_id: i32,
}

#[repr(C)]
struct DLDataType {
    code: u8,
    bits: u8,
    lanes: u16,
}

#[repr(C)]
struct DLTensor {
    data: *mut c_void,
    device: DLDevice,
    ndim: i32,
    dtype: DLDataType,
    shape: *mut i64,
    strides: *mut i64,
    byte_offset: u64,
}

#[repr(C)]
struct DLManagedTensor {
    dl_tensor: DLTensor,
    manager_ctx: *mut c_void,
    deleter: Option<unsafe extern "C" fn(*mut DLManagedTensor)>,
}

/// What a capsule owns, in one allocation: the DLPack tensor, the
/// geometry arrays it points to, and the storage. (`#[repr(C)]` with the
/// tensor first: the capsule's pointer is this block's.)
#[repr(C)]
struct Managed {
    tensor: DLManagedTensor,
    shape: smallvec::SmallVec<[i64; 6]>,
    strides: smallvec::SmallVec<[i64; 6]>,
    _storage: GilOnly<StorageRef>,
}

const DLTENSOR: &std::ffi::CStr = c"dltensor";

unsafe extern "C" fn dl_deleter(m: *mut DLManagedTensor) {
    // SAFETY: `m` is the first field of a `Managed` leaked from a box by
    // `dlpack`, and torch calls the deleter exactly once.
    let managed = unsafe { Box::from_raw(m as *mut Managed) };
    // The storage is reference-counted without atomics: drop it with the
    // GIL held (module invariant). At interpreter shutdown it is leaked.
    if Python::try_attach(|_| drop(managed)).is_none() {
        // Nothing may touch the runtime now: leak rather than race.
    }
}

unsafe extern "C" fn capsule_destructor(cap: *mut ffi::PyObject) {
    // SAFETY: called by Python with the capsule; a consumer renames a
    // capsule it took ownership of, so a still-valid "dltensor" capsule is
    // ours to free.
    unsafe {
        if ffi::PyCapsule_IsValid(cap, DLTENSOR.as_ptr()) == 1 {
            let m = ffi::PyCapsule_GetPointer(cap, DLTENSOR.as_ptr()) as *mut DLManagedTensor;
            if let Some(d) = (*m).deleter {
                d(m);
            }
        }
    }
}

/// A torch tensor over `s` with the given geometry (in elements), through
/// a DLPack capsule that keeps `s` alive.
fn dlpack<'py>(
    py: Python<'py>,
    api: &TorchApi,
    s: &StorageRef,
    sizes: &[i64],
    strides: &[i64],
    offset: i64,
) -> PyResult<Bound<'py, PyAny>> {
    let kind = s.buf().kind();
    let (code, bits) = match kind {
        ElemType::F32 => (2, 32),
        ElemType::F64 => (2, 64),
        ElemType::F16 => (2, 16),
        ElemType::BF16 => (4, 16),
        ElemType::I64 => (0, 64),
        ElemType::I32 => (0, 32),
        ElemType::I8 => (0, 8),
        ElemType::I1 => (6, 8),
    };
    // DLPack's kDLCPU, or kDLCUDA on device 0 for a storage in the GPU's
    // memory (the only device memory a call's results live in here).
    let (base, device_type) = match s.device_addr() {
        Some(addr) => (addr as usize as *mut u8, 2),
        None => (s.buf_mut().as_mut_ptr(), 1),
    };
    // The runtime checked the geometry against the storage when the tensor
    // was made: the offset addresses an element of the buffer (or the
    // tensor is empty).
    let off = usize::try_from(offset).unwrap_or(0).min(s.len()) * kind.byte_size();
    let mut managed = Box::new(Managed {
        tensor: DLManagedTensor {
            dl_tensor: DLTensor {
                // (`off` is within the buffer, clamped to its length; a
                // device address is never dereferenced here.)
                data: base.wrapping_add(off) as *mut c_void,
                device: DLDevice { device_type, device_id: 0 },
                ndim: sizes.len() as i32,
                dtype: DLDataType { code, bits, lanes: 1 },
                shape: std::ptr::null_mut(),
                strides: std::ptr::null_mut(),
                byte_offset: 0,
            },
            manager_ctx: std::ptr::null_mut(),
            deleter: Some(dl_deleter),
        },
        shape: sizes.into(),
        strides: strides.into(),
        _storage: GilOnly(s.clone()),
    });
    // (The arrays live in the box, which never moves: inline ones too.)
    managed.tensor.dl_tensor.shape = managed.shape.as_mut_ptr();
    managed.tensor.dl_tensor.strides = managed.strides.as_mut_ptr();
    let raw = Box::into_raw(managed) as *mut DLManagedTensor;
    // SAFETY: a valid pointer and a static name; on failure the capsule
    // does not exist, so the deleter is called here.
    let cap = unsafe { ffi::PyCapsule_New(raw as *mut c_void, DLTENSOR.as_ptr(), Some(capsule_destructor)) };
    if cap.is_null() {
        // SAFETY: the capsule was not made: nobody else owns `raw`.
        unsafe { dl_deleter(raw) };
        return Err(PyErr::fetch(py));
    }
    // SAFETY: a new reference returned by PyCapsule_New.
    let cap = unsafe { Bound::from_owned_ptr(py, cap) };
    api.from_dlpack.bind(py).call1((cap,))
}

fn tensors_of<'py>(seq: &Bound<'py, PyAny>) -> PyResult<Vec<Bound<'py, PyAny>>> {
    seq.try_iter()?.collect()
}

fn optional_tensors_of<'py>(seq: Option<&Bound<'py, PyAny>>) -> PyResult<Vec<Option<Bound<'py, PyAny>>>> {
    let Some(seq) = seq else { return Ok(Vec::new()) };
    seq.try_iter()?.map(|t| t.map(|t| (!t.is_none()).then_some(t))).collect()
}

/// A parsed, verified module.
#[pyclass(name = "Module", module = "aot_torch._native")]
struct PyAotModule {
    inner: GilOnly<Module>,
}

#[pymethods]
impl PyAotModule {
    /// Parses and verifies IR text; `filename` names it in diagnostics.
    #[new]
    #[pyo3(signature = (text, filename = "<string>"))]
    fn new(text: String, filename: &str) -> PyResult<Self> {
        Ok(PyAotModule { inner: GilOnly(Module::parse(text, filename).map_err(py_err)?) })
    }

    /// The names of the module's public functions.
    fn functions(&self) -> Vec<String> {
        self.inner.0.functions()
    }

    /// Runs a pass pipeline on the module and returns the printed result
    /// (what `aot-opt --pass-pipeline=...` prints).
    fn run_pipeline(&self, pipeline: &str) -> PyResult<String> {
        self.inner.0.run_pipeline(pipeline).map_err(py_err)
    }

    /// Compiles function `name` (default: the only public one, else
    /// `main`) for the calling convention of `example_args`: `pipeline` is
    /// `aot-train` (forward and backward), `aot-inference`, or any pipeline
    /// text; `backend` one of `cranelift`, `interp` (and `llvm` when built
    /// with it).
    /// `bases`: `(base, member positions)` pairs, arguments that are views
    /// of a differentiable base (see `Function.forward`).
    /// `no_grad`: the calls run under no_grad (see `Function.__call__`).
    /// `report`: keep the module after the pipeline and its Graphviz
    /// picture for `Function.report()`. `progress`: a line on stderr as
    /// each pass and the code generation start.
    #[pyo3(signature = (example_args, name = None, pipeline = "aot-train", backend = "cranelift", bases = None, no_grad = false, report = false, progress = false))]
    #[allow(clippy::too_many_arguments)]
    fn compile(
        &self,
        py: Python<'_>,
        example_args: &Bound<'_, PyAny>,
        name: Option<&str>,
        pipeline: &str,
        backend: &str,
        bases: Option<Vec<(Bound<'_, PyAny>, Vec<usize>)>>,
        no_grad: bool,
        report: bool,
        progress: bool,
    ) -> PyResult<PyAotFunction> {
        let api = torch(py)?;
        let backend = Backend::parse(backend).map_err(PyValueError::new_err)?;
        let mut binder = Binder::new(no_grad);
        let args = binder.bind_all(py, api, &tensors_of(example_args)?, "example argument")?;
        binder.bind_bases(py, api, &args, bases.as_deref().unwrap_or_default())?;
        if args.iter().any(Tensor::is_on_device) {
            cuda::use_current_stream(py)?;
        }
        let opts = Options { pipeline: pipeline.to_string(), backend, report, progress };
        let mut f = self.inner.0.compile(name, &args, &opts).map_err(py_err)?;
        f.share_generator(generator(py).clone());
        Ok(PyAotFunction { inner: GilOnly(f) })
    }
}

/// The data pointer and byte size of tensor `t`'s storage.
fn storage_extent(py: Python<'_>, t: &Bound<'_, PyAny>) -> PyResult<(usize, usize)> {
    let s = t.call_method0(intern!(py, "untyped_storage"))?;
    Ok((s.call_method0(intern!(py, "data_ptr"))?.extract()?, s.call_method0(intern!(py, "nbytes"))?.extract()?))
}

/// A saved argument's tensor and the runtime storage bound over its
/// storage's memory (whose address and size the buffer holds).
struct SavedMemory {
    tensor: Py<PyAny>,
    storage: StorageRef,
}

/// The saved values of one forward call, consumed by one backward.
#[pyclass(name = "ForwardState", module = "aot_torch._native")]
struct PyForwardState {
    inner: GilOnly<Option<aot::ForwardState>>,
    /// The arguments (positions) whose memory a saved value holds: the
    /// backward may read them, so writing one before it changes the
    /// gradients `saved_arg_needs` names.
    saved_args: Vec<usize>,
    /// Per saved argument (as `saved_args`): the outputs and arguments
    /// whose tangent makes the backward read its memory; None: any backward
    /// reads it.
    saved_arg_needs: Vec<Option<(Vec<usize>, Vec<usize>)>>,
    /// The differentiable bases of the call, whose gradients the backward
    /// returns after the arguments'.
    bases: GilOnly<Vec<Tensor>>,
    /// Per saved argument (as `saved_args`): the tensor and the storage
    /// bound over its memory. The backward reads that memory, and a
    /// `resize_` of the storage in between (FSDP2 frees its unsharded
    /// parameters after the forward) would have freed it.
    saved_memory: GilOnly<Vec<SavedMemory>>,
}

#[pymethods]
impl PyForwardState {
    /// Positions of the arguments whose memory the backward reads.
    #[getter]
    fn saved_args(&self) -> Vec<usize> {
        self.saved_args.clone()
    }

    /// Per saved argument (as `saved_args`): `(outputs, arguments)` whose
    /// tangent (an output's, an argument's new value's) makes the backward
    /// read its memory, or None where every backward reads it. Writing
    /// such an argument after the forward changes only the backwards some
    /// of those tangents reach.
    #[getter]
    fn saved_arg_needs(&self) -> Vec<Option<(Vec<usize>, Vec<usize>)>> {
        self.saved_arg_needs.clone()
    }
}

/// A compiled function.
#[pyclass(name = "Function", module = "aot_torch._native")]
struct PyAotFunction {
    inner: GilOnly<Function>,
}

/// How one call binds its arguments and hands its results back (see
/// `Function.__call__` and `Function.forward`).
struct CallSpec<'a, 'py> {
    /// Per result: whether it is a view in eager.
    views: &'a [bool],
    /// Arguments the program writes through some alias.
    written: &'a [usize],
    /// Differentiable bases and their members.
    bases: &'a [(Bound<'py, PyAny>, Vec<usize>)],
    /// A call under no_grad.
    no_grad: bool,
}

/// The records of a [`keys::CallInfo`] given to a call: taken, so that no
/// other call reads them.
fn records_of(info: Option<PyRefMut<'_, keys::CallInfo>>) -> keys::Records {
    info.and_then(|mut i| i.take()).unwrap_or_default()
}

impl PyAotFunction {
    /// Runs `run` on the bound arguments (and the bound differentiable
    /// bases), then hands results back and replays the call's effects on
    /// the arguments in torch.
    fn invoke<R>(
        &mut self,
        py: Python<'_>,
        objs: &[Bound<'_, PyAny>],
        spec: &CallSpec<'_, '_>,
        known: keys::Records,
        run: impl FnOnce(&mut Function, &[Tensor], Vec<Tensor>) -> Result<(Vec<Tensor>, R), Error>,
    ) -> PyResult<(Vec<Py<PyAny>>, R)> {
        let CallSpec { views, written, bases, no_grad } = *spec;
        let api = torch(py)?;
        let mut binder = Binder { known, ..Binder::new(no_grad) };
        let bound = binder.bind_all(py, api, objs, "argument")?;
        let bound_bases = binder.bind_bases(py, api, &bound, bases)?;
        let entry: Few<(StorageRef, aot_ir::Shape, aot_ir::Shape, i64)> =
            bound.iter().map(|t| (t.storage(), t.sizes(), t.strides(), t.offset())).collect();
        if bound.iter().any(Tensor::is_on_device) {
            cuda::use_current_stream(py)?;
        }
        let (outs, extra) = run(&mut self.inner.0, &bound, bound_bases).map_err(py_err)?;
        let mut exporter = Exporter::new(&binder);
        // Effects on the arguments, once per object, before the results
        // exist: a result that views an argument is made after the
        // argument's version changed, as in eager (a view made under no_grad
        // before a change of its base's version cannot be used later).
        let effects = self.inner.0.arg_effects();
        // (Once per object: one object is one bound tensor.)
        let mut seen: addr::AddrMap<()> = addr::AddrMap::default();
        let mut to_bump = Vec::new();
        for (i, (t, obj)) in bound.iter().zip(objs).enumerate() {
            if seen.get(obj.as_ptr() as usize).is_some() {
                continue;
            }
            seen.insert_new(obj.as_ptr() as usize, ());
            let (st, sizes, strides, offset) = &entry[i];
            let now = t.storage();
            let storage_changed = !Rc::ptr_eq(st, &now) || !now.is_foreign();
            if storage_changed {
                let src = exporter.storage(py, api, &now)?;
                let src_storage = src.bind(py).call_method0("untyped_storage")?;
                obj.call_method1("set_", (src_storage, t.offset(), t.sizes().to_vec(), t.strides().to_vec()))?;
            } else if t.sizes() != *sizes || t.strides() != *strides || t.offset() != *offset {
                obj.call_method1("as_strided_", (t.sizes().to_vec(), t.strides().to_vec(), t.offset()))?;
            }
            // Inference tensors have no version counter to bump. `written`:
            // arguments the caller knows the program writes through some
            // alias (a metadata change of a view of one bumps it too).
            let wrote = effects.get(i).is_some_and(|e| e.mutates_data)
                || written.iter().any(|&j| bound.get(j).is_some_and(|u| u.same(t)));
            if wrote && !obj.call_method0(intern!(py, "is_inference"))?.extract::<bool>()? {
                to_bump.push(obj);
            }
        }
        // One bump per version counter, as one in-place op of eager's
        // bumps the counter its view shares with its base and the base's
        // other views (and detaches): two written arguments that are views
        // of one base move it once, not twice. Objects of one counter show
        // the first bump in their readings.
        let mut before = Vec::with_capacity(to_bump.len());
        for obj in &to_bump {
            before.push(obj.getattr(intern!(py, "_version"))?.extract::<i64>()?);
        }
        for (obj, v) in to_bump.iter().zip(before) {
            if obj.getattr(intern!(py, "_version"))?.extract::<i64>()? == v {
                api.set_version.bind(py).call1((PyTuple::new(py, [*obj])?, PyTuple::new(py, [v + 1])?))?;
            }
        }
        let outs: Few<Option<Tensor>> = outs.into_iter().map(Some).collect();
        let results = exporter.tensors(py, api, &outs, views)?.into_iter().flatten().collect();
        Ok((results, extra))
    }
}

#[pymethods]
impl PyAotFunction {
    /// Calls the function (forward only): returns its outputs. With
    /// `result_views`, the outputs that are views in eager (per output) are
    /// handed back as views even where they cover their whole storage.
    /// `written`: arguments the program writes through some alias, whose
    /// version counters the call bumps too. `no_grad`: a call under
    /// no_grad, for a function compiled with `no_grad=True`: the
    /// arguments' `requires_grad` and `is_leaf` do not count. `info`: what
    /// `convention_key` read of this call's tensors, which binding then
    /// does not read again (taken: one call only).
    #[pyo3(signature = (args, result_views = None, written = None, no_grad = false, info = None))]
    fn __call__(
        &mut self,
        py: Python<'_>,
        args: &Bound<'_, PyAny>,
        result_views: Option<Vec<bool>>,
        written: Option<Vec<usize>>,
        no_grad: bool,
        info: Option<PyRefMut<'_, keys::CallInfo>>,
    ) -> PyResult<Vec<Py<PyAny>>> {
        let views = result_views.unwrap_or_default();
        let written = written.unwrap_or_default();
        let spec = CallSpec { views: &views, written: &written, bases: &[], no_grad };
        Ok(self.invoke(py, &tensors_of(args)?, &spec, records_of(info), |f, a, _| Ok((f.call(a)?, ())))?.0)
    }

    /// Calls the forward and keeps what the backward needs: returns
    /// `(outputs, state)`; `result_views` as for calls. `bases`:
    /// `(base, member positions)` pairs, as the function was compiled with:
    /// each base a non-leaf 1-D torch view, stride 1 from offset 0, over the
    /// whole storage of its members, that requires grad. The members are
    /// views of it for the compiled code: the backward returns the storage's
    /// gradient as the base's (after the arguments'), and none for them.
    /// `info` as for calls.
    #[pyo3(signature = (args, result_views = None, written = None, bases = None, info = None))]
    fn forward(
        &mut self,
        py: Python<'_>,
        args: &Bound<'_, PyAny>,
        result_views: Option<Vec<bool>>,
        written: Option<Vec<usize>>,
        bases: Option<Vec<(Bound<'_, PyAny>, Vec<usize>)>>,
        info: Option<PyRefMut<'_, keys::CallInfo>>,
    ) -> PyResult<(Vec<Py<PyAny>>, PyForwardState)> {
        let views = result_views.unwrap_or_default();
        let written = written.unwrap_or_default();
        let bases = bases.unwrap_or_default();
        let (outs, (state, saved_args, saved_arg_needs, bound_bases, saved_storages)) = self.invoke(
            py,
            &tensors_of(args)?,
            &CallSpec { views: &views, written: &written, bases: &bases, no_grad: false },
            records_of(info),
            |f, a, b| {
                let (outs, state) = f.forward(a)?;
                let needs = f.saved_needs();
                let mut saved_args = Vec::new();
                let mut saved_arg_needs = Vec::new();
                let mut saved_storages = Vec::new();
                // The saved values per storage (a model saves hundreds).
                let mut by_storage: HashMap<*const (), Vec<usize>> = HashMap::new();
                for (k, s) in state.saved.iter().enumerate() {
                    by_storage.entry(Rc::as_ptr(&s.storage()) as *const ()).or_default().push(k);
                }
                for (i, arg) in a.iter().enumerate() {
                    // (A saved value no need is known for is read by every backward.)
                    let (mut found, mut always) = (false, false);
                    let (mut outs_in, mut args_in) = (BTreeSet::new(), BTreeSet::new());
                    let on = by_storage.get(&(Rc::as_ptr(&arg.storage()) as *const ())).map_or(&[][..], |v| &v[..]);
                    for &k in on {
                        found = true;
                        match needs.get(k) {
                            Some(Some((o, m))) => {
                                outs_in.extend(o);
                                args_in.extend(m);
                            }
                            _ => always = true,
                        }
                    }
                    if found {
                        saved_storages.push(arg.storage());
                        saved_args.push(i);
                        saved_arg_needs
                            .push((!always).then(|| (outs_in.into_iter().collect(), args_in.into_iter().collect())));
                    }
                }
                Ok((outs, (state, saved_args, saved_arg_needs, b, saved_storages)))
            },
        )?;
        let given = tensors_of(args)?;
        let mut saved_memory = Vec::with_capacity(saved_args.len());
        for (&i, storage) in saved_args.iter().zip(saved_storages) {
            let Some(t) = given.get(i) else { continue };
            saved_memory.push(SavedMemory { tensor: t.clone().unbind(), storage });
        }
        Ok((
            outs,
            PyForwardState {
                inner: GilOnly(Some(state)),
                saved_args,
                saved_arg_needs,
                bases: GilOnly(bound_bases),
                saved_memory: GilOnly(saved_memory),
            },
        ))
    }

    /// The backward of one forward: `tangents[k]` flows into output k
    /// (None: ones for a scalar float output, zeros otherwise; with
    /// `unreached=True`, None is an output no gradient reached, as an
    /// autograd node that does not materialize gradients receives it),
    /// `mutated_tangents[i]` into the new value of mutated argument i.
    /// Returns one gradient (or None) per argument: with `unreached=True`,
    /// None for every argument when no tangent is given at all; then one
    /// per differentiable base of the forward (None where none reached it).
    /// With `keep=True` the state stays usable for another backward (the
    /// backend's autograd nodes of one call, each differentiating its own
    /// outputs); without, this backward releases it.
    #[pyo3(signature = (state, tangents, mutated_tangents = None, unreached = false, keep = false))]
    fn backward(
        &mut self,
        py: Python<'_>,
        state: &mut PyForwardState,
        tangents: &Bound<'_, PyAny>,
        mutated_tangents: Option<&Bound<'_, PyAny>>,
        unreached: bool,
        keep: bool,
    ) -> PyResult<Vec<Option<Py<PyAny>>>> {
        let api = torch(py)?;
        // A saved argument's storage reallocated since the forward (FSDP2
        // frees its unsharded parameters after the forward and gathers them
        // again before the backward): the backward reads it where it is
        // now, as eager's saved tensor, which holds the storage, does. One
        // freed, or smaller, is refused: its memory is gone.
        for (k, SavedMemory { tensor: t, storage }) in state.saved_memory.0.iter().enumerate() {
            let (now, now_bytes) = storage_extent(py, t.bind(py))?;
            let (bound, len, kind) = match storage.device_addr() {
                Some(addr) => (addr as usize, storage.byte_len(), storage.kind()),
                None => {
                    let mut b = storage.buf_mut();
                    (b.as_mut_ptr() as usize, b.byte_len(), b.kind())
                }
            };
            if now == bound && now_bytes >= len {
                continue;
            }
            let item = kind.byte_size();
            if !storage.is_foreign() || now_bytes < len || now == 0 || now % item != 0 {
                return Err(ExecutionError::new_err(format!(
                    "argument {}: its storage was freed or shrunk between the forward and the backward (a resize_ \
                     or set_ of it), and the compiled backward reads the memory the forward saved there",
                    state.saved_args[k]
                )));
            }
            let owner: Box<dyn std::any::Any> = Box::new(GilOnly(t.clone_ref(py)));
            match storage.device_memory() {
                // SAFETY: torch's CUDA storage holds `now_bytes >= len`
                // bytes from `now` (aligned, checked above) on the device
                // `mem` is, and `owner` keeps it alive.
                Some(mem) => storage
                    .rebind_device(unsafe { aot_runtime::device::DeviceBlock::foreign(&mem, now as u64, len, owner) })
                    .map_err(ExecutionError::new_err)?,
                // SAFETY: torch's storage holds `now_bytes` bytes from `now`
                // (checked aligned above, and at least the bytes bound
                // before), and `owner` keeps the storage alive while the
                // buffer lives; the GIL is held whenever runtime code
                // touches it.
                None => *storage.buf_mut() = unsafe { Buffer::foreign(kind, now as *mut u8, len / item, owner) },
            }
        }
        let saved = if keep { state.inner.0.clone() } else { state.inner.0.take() }
            .ok_or_else(|| ConventionError::new_err("this forward state was already used by a backward"))?;
        let mut binder = Binder::new(false);
        let bind_opt =
            |binder: &mut Binder, ts: Vec<Option<Bound<'_, PyAny>>>, what: &str| -> PyResult<Vec<Option<Tensor>>> {
                ts.iter()
                    .enumerate()
                    .map(|(i, t)| t.as_ref().map(|t| binder.bind(py, api, t, what, i)).transpose())
                    .collect()
            };
        let tangents = bind_opt(&mut binder, optional_tensors_of(Some(tangents))?, "tangent")?;
        let mutated = bind_opt(&mut binder, optional_tensors_of(mutated_tangents)?, "mutated tangent")?;
        let grads = if unreached {
            self.inner.0.backward_given(saved, &tangents, &mutated)
        } else {
            self.inner.0.backward_with_mutations(saved, &tangents, &mutated)
        }
        .map_err(py_err)?;
        let mut all = grads.args;
        for b in state.bases.0.iter() {
            all.push(grads.bases.iter().find(|(root, _)| root.same(b)).map(|(_, g)| g.clone()));
        }
        let mut exporter = Exporter::new(&binder);
        exporter.plain_parts = true;
        exporter.tensors(py, api, &all, &[])
    }

    /// Reseeds the generator the function draws from (the one all compiled
    /// functions share, see the module function `manual_seed`).
    fn manual_seed(&mut self, seed: u64) {
        self.inner.0.manual_seed(seed);
    }

    /// Per step of the forward and backward programs: a dict with
    /// `program` (`"forward"` or `"backward"`), `what` (the step, e.g. a
    /// kernel and how it ran), `kind` (`kernel`, `matmul`, `rebind`,
    /// `resize`), `runs` and `seconds` while profiling was on (see the
    /// module's `set_profiling`), and `flops` and `bytes` per run.
    fn profile<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let rows = PyList::empty(py);
        for (program, r) in self.inner.0.profile() {
            let d = PyDict::new(py);
            d.set_item("program", program)?;
            d.set_item("what", r.what)?;
            d.set_item("kind", r.kind)?;
            d.set_item("runs", r.runs)?;
            d.set_item("seconds", r.seconds)?;
            d.set_item("flops", r.flops)?;
            d.set_item("bytes", r.bytes)?;
            rows.append(d)?;
        }
        Ok(rows)
    }

    /// Starts the profile's counts again from zero.
    fn reset_profile(&mut self) {
        self.inner.0.reset_profile();
    }

    /// Per argument: whether a forward's saved value in its memory is
    /// copied rather than kept as a view of it (none by default; then the
    /// caller must not write such an argument before the backward).
    fn copy_saved_arguments(&mut self, copy: Vec<bool>) {
        self.inner.0.copy_saved_arguments(copy);
    }

    /// Per user output: whether a forward's saved value in the memory the
    /// output takes from the graph is copied (none by default; then the
    /// caller must not write such an output before the backward).
    fn copy_saved_outputs(&mut self, copy: Vec<bool>) {
        self.inner.0.copy_saved_outputs(copy);
    }

    /// What the compile did: `passes`, `(name, seconds)` per pass of the
    /// pipeline in order; `codegen_seconds`; and, when compiled with
    /// `report=True`, `ir` (the module after the pipeline), `dot` (its
    /// Graphviz picture), `dot_partition` (the partition alone: saved
    /// values and the cut; None without a partition) and `partition`
    /// (`strategy`, `num_saved`, `saved_bytes`, `peak_bytes`, and `saved`:
    /// `(index, type, bytes)` per saved value; None without one), else
    /// None.
    fn report<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let r = self.inner.0.report();
        let d = PyDict::new(py);
        d.set_item("passes", r.pass_times.clone())?;
        d.set_item("codegen_seconds", r.codegen_seconds)?;
        d.set_item("ir", r.ir.clone())?;
        d.set_item("dot", r.dot.clone())?;
        d.set_item("dot_partition", r.dot_partition.clone())?;
        let partition = match &r.partition {
            None => None,
            Some(p) => {
                let e = PyDict::new(py);
                e.set_item("strategy", &p.strategy)?;
                e.set_item("num_saved", p.num_saved)?;
                e.set_item("saved_bytes", p.saved_bytes)?;
                e.set_item("peak_bytes", p.peak_bytes)?;
                e.set_item("saved", p.saved.clone())?;
                Some(e)
            }
        };
        d.set_item("partition", partition)?;
        Ok(d)
    }

    /// Whether the function has a backward (compiled with `aot-train`).
    #[getter]
    fn has_backward(&self) -> bool {
        self.inner.0.has_backward()
    }

    /// Per argument: whether the function writes its data (and whether
    /// only under no_grad), changes its metadata, requires grad, whether a
    /// gradient can reach it and whether its new value takes a tangent; per
    /// output: the argument it views (`aliases_input`, a call position),
    /// whether it is that argument object (`is_input`), whether it requires
    /// grad, and AOTAutograd's output type.
    fn info<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let meta = self.inner.0.meta();
        let d = PyDict::new(py);
        let inputs = PyList::empty(py);
        for m in self.inner.0.arg_effects() {
            let e = PyDict::new(py);
            e.set_item("mutates_data", m.mutates_data)?;
            e.set_item("mutates_metadata", m.mutates_metadata)?;
            e.set_item("requires_grad", m.requires_grad)?;
            e.set_item("mutation_hidden_from_autograd", m.data_mutations_hidden_from_autograd)?;
            e.set_item("grad_reaches", m.grad_reaches)?;
            e.set_item("mutation_takes_tangent", m.mutation_takes_tangent)?;
            inputs.append(e)?;
        }
        let outputs = PyList::empty(py);
        let args = self.inner.0.output_args();
        for (k, o) in meta.output_info.iter().enumerate() {
            let e = PyDict::new(py);
            // The caller's argument position (the metadata's indices count
            // the graph's inputs, which deduplication and synthetic bases
            // renumber).
            let arg = args.get(k).copied().flatten();
            e.set_item("aliases_input", arg.map(|a| a.0))?;
            e.set_item("is_input", arg.is_some_and(|a| a.1))?;
            e.set_item("requires_grad", o.requires_grad)?;
            e.set_item("output_type", o.output_type.name())?;
            outputs.append(e)?;
        }
        d.set_item("inputs", inputs)?;
        d.set_item("outputs", outputs)?;
        d.set_item("has_backward", self.inner.0.has_backward())?;
        Ok(d)
    }
}

#[pymodule]
fn _native(m: &Bound<'_, pyo3::types::PyModule>) -> PyResult<()> {
    aot::init();
    let py = m.py();
    m.add_class::<PyAotModule>()?;
    m.add_class::<PyAotFunction>()?;
    m.add_class::<PyForwardState>()?;
    m.add_class::<keys::CallInfo>()?;
    m.add_class::<dispatch::FastTable>()?;
    m.add_class::<dispatch::Dispatch>()?;
    m.add_function(wrap_pyfunction!(manual_seed, m)?)?;
    m.add_function(wrap_pyfunction!(cuda::cuda_unavailable, m)?)?;
    m.add_function(wrap_pyfunction!(cuda::cuda_crossings, m)?)?;
    m.add_function(wrap_pyfunction!(use_openmp, m)?)?;
    m.add_function(wrap_pyfunction!(thread_team, m)?)?;
    m.add_function(wrap_pyfunction!(mem_overlap, m)?)?;
    m.add_function(wrap_pyfunction!(versions_per_size, m)?)?;
    m.add_function(wrap_pyfunction!(runtime_sizes_refusals, m)?)?;
    m.add_function(wrap_pyfunction!(dist::register_process_group, m)?)?;
    m.add("PARTIAL_OVERLAP_ERROR", aot::runtime::overlap::PARTIAL_OVERLAP_ERROR)?;
    m.add_function(wrap_pyfunction!(op_names, m)?)?;
    m.add_function(wrap_pyfunction!(keys::graph_key, m)?)?;
    m.add_function(wrap_pyfunction!(keys::convention_key, m)?)?;
    m.add_function(wrap_pyfunction!(set_profiling, m)?)?;
    m.add("AotError", py.get_type::<AotError>())?;
    m.add("ParseError", py.get_type::<ParseError>())?;
    m.add("SignatureError", py.get_type::<SignatureError>())?;
    m.add("CompileError", py.get_type::<CompileError>())?;
    m.add("ConventionError", py.get_type::<ConventionError>())?;
    m.add("ExecutionError", py.get_type::<ExecutionError>())?;
    m.add("VERSION", aot::VERSION)?;
    Ok(())
}
