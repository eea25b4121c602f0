//! The communicators of `torch.distributed` process groups: a collective of
//! compiled code (`dist` dialect, `aot_runtime::dist`) over group `name`
//! calls the Python object `aot_torch.distributed` registered for it,
//! which runs the group's own collective (gloo, NCCL, ...). aot has no
//! transport of its own.
//!
//! The object's `start(kind, reduce, src, input, output, dtype, in_shape,
//! out_shape)` receives the input and output buffers as writable
//! memoryviews over compiled code's memory (no copy), starts the
//! collective and returns a handle whose `wait()` completes it: the
//! collective reads the input and writes the whole output, and the
//! buffers stay untouched until then. No reference to either may remain
//! once `wait()` returned: the views are released then, and a view that
//! cannot be released (a reference was kept) fails the call, since the
//! memory goes away.

use aot_ir::ElemType;
use aot_runtime::dist::{Collective, Communicator, Data, DataMut};
use pyo3::ffi;
use pyo3::prelude::*;
use std::sync::Arc;

/// A process group's communicator, in Python.
struct PyCommunicator {
    obj: Py<PyAny>,
    size: usize,
    rank: usize,
}

/// The name `torch` gives `e`.
fn dtype_name(e: ElemType) -> Result<&'static str, String> {
    Ok(match e {
        ElemType::F32 => "float32",
        ElemType::F64 => "float64",
        ElemType::F16 => "float16",
        ElemType::BF16 => "bfloat16",
        ElemType::I64 => "int64",
        ElemType::I32 => "int32",
        ElemType::I8 => "int8",
        other => return Err(format!("collectives of {other} tensors are not supported")),
    })
}

/// A writable memoryview over `len` bytes at `ptr`.
///
/// SAFETY: the memory must stay valid, and not be used otherwise, until
/// the view is released.
unsafe fn view<'py>(py: Python<'py>, ptr: *mut u8, len: usize) -> PyResult<Bound<'py, PyAny>> {
    let len = isize::try_from(len).map_err(|_| pyo3::exceptions::PyOverflowError::new_err("buffer too large"))?;
    // (A zero-length view still needs a non-null pointer.)
    let mut empty = 0u8;
    let p = if len == 0 { &mut empty as *mut u8 } else { ptr };
    let v = unsafe { ffi::PyMemoryView_FromMemory(p as *mut std::os::raw::c_char, len, ffi::PyBUF_WRITE) };
    unsafe { Bound::from_owned_ptr_or_err(py, v) }
}

/// A collective the Python communicator started: its handle (`wait()`)
/// and the views over the buffers, released once it completed.
struct PyPending {
    handle: Option<Py<PyAny>>,
    views: [Py<PyAny>; 2],
    kind: &'static str,
}

impl PyPending {
    fn finish(&mut self) -> Result<(), String> {
        let Some(h) = self.handle.take() else { return Ok(()) };
        Python::attach(|py| -> PyResult<()> {
            let r = h.bind(py).call_method0("wait");
            let released =
                (self.views[0].bind(py).call_method0("release"), self.views[1].bind(py).call_method0("release"));
            r?;
            released.0?;
            released.1?;
            Ok(())
        })
        .map_err(|e| format!("collective {} over a torch.distributed process group failed: {e}", self.kind))
    }
}

impl aot_runtime::dist::Pending for PyPending {
    fn wait(mut self: Box<Self>) -> Result<(), String> {
        self.finish()
    }
}

impl Drop for PyPending {
    /// A collective dropped in flight (the call failed) is waited for: the
    /// buffers it reads and writes go away after this.
    fn drop(&mut self) {
        let _ = self.finish();
    }
}

/// What `run` and `start` pass the Python object for `op`.
fn describe(op: &Collective) -> (&'static str, Option<&'static str>, Option<usize>) {
    match op {
        Collective::AllReduce(r) => ("all_reduce", Some(r.name()), None),
        Collective::AllGather => ("all_gather", None, None),
        Collective::ReduceScatter(r) => ("reduce_scatter", Some(r.name()), None),
        Collective::AllToAll => ("all_to_all", None, None),
        Collective::Broadcast { src } => ("broadcast", None, Some(*src)),
    }
}

impl Communicator for PyCommunicator {
    fn size(&self) -> usize {
        self.size
    }

    fn rank(&self) -> usize {
        self.rank
    }

    /// The collective started, then waited for.
    fn run(&self, op: &Collective, input: Data<'_>, output: DataMut<'_>) -> Result<(), String> {
        self.start(op, input, output)?.wait()
    }

    /// `start` of the Python object: the group's collective with
    /// `async_op=True`; the buffers' views live until it completed.
    fn start<'a>(
        &self,
        op: &Collective,
        input: Data<'a>,
        output: DataMut<'a>,
    ) -> Result<Box<dyn aot_runtime::dist::Pending + 'a>, String> {
        let dtype = dtype_name(input.elem)?;
        let (kind, reduce, src) = describe(op);
        Python::attach(|py| -> PyResult<PyPending> {
            // SAFETY: the caller keeps both buffers alive and untouched
            // until the pending collective is waited for (or dropped, which
            // waits); the views are released then. The input is only read.
            let i = unsafe { view(py, input.bytes.as_ptr() as *mut u8, input.bytes.len())? };
            let o = unsafe { view(py, output.bytes.as_mut_ptr(), output.bytes.len())? };
            let started = self
                .obj
                .bind(py)
                .call_method1("start", (kind, reduce, src, &i, &o, dtype, input.shape.to_vec(), output.shape.to_vec()));
            match started {
                Ok(h) => Ok(PyPending { handle: Some(h.unbind()), views: [i.unbind(), o.unbind()], kind }),
                Err(e) => {
                    let _ = (i.call_method0("release"), o.call_method0("release"));
                    Err(e)
                }
            }
        })
        .map(|p| Box::new(p) as Box<dyn aot_runtime::dist::Pending + 'a>)
        .map_err(|e| format!("collective {kind} over a torch.distributed process group failed: {e}"))
    }
}

/// Registers `communicator` (an object with the `start` method above) for
/// process group `name` of `size` ranks, this process being `rank`.
#[pyfunction]
pub fn register_process_group(name: &str, communicator: Py<PyAny>, size: usize, rank: usize) -> PyResult<()> {
    if rank >= size {
        return Err(pyo3::exceptions::PyValueError::new_err(format!("rank {rank} of a group of {size}")));
    }
    aot_runtime::dist::register(name, Arc::new(PyCommunicator { obj: communicator, size, rank }));
    Ok(())
}
