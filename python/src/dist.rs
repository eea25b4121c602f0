//! The communicators of `torch.distributed` process groups: a collective of
//! compiled code (`dist` dialect, `aot_runtime::dist`) over group `name`
//! calls the Python object `aot_torch.distributed` registered for it,
//! which runs the group's own collective (gloo, NCCL, ...). aot has no
//! transport of its own.
//!
//! The object's `run(kind, reduce, src, input, output, dtype, in_shape,
//! out_shape)` receives the input and output buffers as writable
//! memoryviews over compiled code's memory (no copy): it must read the
//! input, write the whole output, and keep no reference to either once it
//! returns. The views are released after the call; a view that cannot be
//! released (the object kept a reference) fails the call, since the memory
//! goes away.

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

impl Communicator for PyCommunicator {
    fn size(&self) -> usize {
        self.size
    }

    fn rank(&self) -> usize {
        self.rank
    }

    fn run(&self, op: &Collective, input: Data<'_>, output: DataMut<'_>) -> Result<(), String> {
        let dtype = dtype_name(input.elem)?;
        let (kind, reduce, src) = match op {
            Collective::AllReduce(r) => ("all_reduce", Some(r.name()), None),
            Collective::AllGather => ("all_gather", None, None),
            Collective::ReduceScatter(r) => ("reduce_scatter", Some(r.name()), None),
            Collective::AllToAll => ("all_to_all", None, None),
            Collective::Broadcast { src } => ("broadcast", None, Some(*src)),
        };
        Python::attach(|py| -> PyResult<()> {
            // SAFETY: both buffers outlive this closure and are released
            // below before it returns; the input is only read.
            let i = unsafe { view(py, input.bytes.as_ptr() as *mut u8, input.bytes.len())? };
            let o = unsafe { view(py, output.bytes.as_mut_ptr(), output.bytes.len())? };
            let r = self
                .obj
                .bind(py)
                .call_method1("run", (kind, reduce, src, &i, &o, dtype, input.shape.to_vec(), output.shape.to_vec()));
            let released = (i.call_method0("release"), o.call_method0("release"));
            r?;
            released.0?;
            released.1?;
            Ok(())
        })
        .map_err(|e| format!("collective {kind} over a torch.distributed process group failed: {e}"))
    }
}

/// Registers `communicator` (an object with the `run` method above) for
/// process group `name` of `size` ranks, this process being `rank`.
#[pyfunction]
pub fn register_process_group(name: &str, communicator: Py<PyAny>, size: usize, rank: usize) -> PyResult<()> {
    if rank >= size {
        return Err(pyo3::exceptions::PyValueError::new_err(format!("rank {rank} of a group of {size}")));
    }
    aot_runtime::dist::register(name, Arc::new(PyCommunicator { obj: communicator, size, rank }));
    Ok(())
}
