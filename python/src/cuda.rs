//! CUDA tensors in calls: a torch CUDA tensor's storage is bound as a
//! device-resident runtime storage over the same memory (a foreign block
//! of the GPU's [`DeviceMemory`], which the runtime never frees), so a
//! function compiled for the `cuda` backend runs on it in place and its
//! results stay on the GPU, handed to torch through DLPack as CUDA
//! tensors. Work goes to PyTorch's current stream of the calling thread
//! (read before each call), so it is ordered with the eager ops around it.
//!
//! Built only with the cargo feature `cuda`; without it every entry says
//! so, and a CUDA tensor is refused with that reason. Invariant: only
//! device 0 is bound (the runtime opens that one GPU); a tensor on another
//! device is refused before anything runs.

use aot_ir::ElemType;
use aot_runtime::device::DeviceMemory;
use aot_runtime::{Storage, StorageRef};
use pyo3::intern;
use pyo3::prelude::*;
use std::rc::Rc;

/// Why this build cannot bind CUDA tensors, if it cannot: no `cuda`
/// feature, or no GPU (the driver's reason).
pub(crate) fn unavailable() -> Option<String> {
    #[cfg(feature = "cuda")]
    {
        aot::runtime::cuda::gpu().err()
    }
    #[cfg(not(feature = "cuda"))]
    {
        Some("aot_torch was built without CUDA (the cargo feature `cuda` of the Python package)".into())
    }
}

/// The GPU's memory, as the runtime's device memory.
fn memory() -> Result<Rc<dyn DeviceMemory>, String> {
    #[cfg(feature = "cuda")]
    {
        aot::codegen::cuda::cuda_memory().map(|m| m as Rc<dyn DeviceMemory>)
    }
    #[cfg(not(feature = "cuda"))]
    {
        Err(unavailable().unwrap_or_default())
    }
}

/// Checks that `t` (a torch tensor on a device other than the CPU) can be
/// bound: a CUDA tensor on device 0 of a build that has the GPU.
pub(crate) fn check_device(py: Python<'_>, t: &Bound<'_, PyAny>, name: &dyn Fn() -> String) -> PyResult<()> {
    let device = t.getattr(intern!(py, "device"))?;
    let kind: String = device.getattr(intern!(py, "type"))?.extract()?;
    if kind != "cuda" {
        return Err(pyo3::exceptions::PyValueError::new_err(format!(
            "{} is on device '{kind}': aot_torch binds CPU and CUDA tensors",
            name()
        )));
    }
    let index: Option<i64> = device.getattr(intern!(py, "index"))?.extract()?;
    if index.unwrap_or(0) != 0 {
        return Err(pyo3::exceptions::PyValueError::new_err(format!(
            "{} is on cuda:{}: aot_torch runs on cuda:0 only",
            name(),
            index.unwrap_or(0)
        )));
    }
    if let Some(why) = unavailable() {
        return Err(pyo3::exceptions::PyValueError::new_err(format!("{} is a CUDA tensor, but {why}", name())));
    }
    Ok(())
}

/// A runtime storage over the `nbytes` bytes of device memory at `base`,
/// which `owner` (the torch tensor) keeps alive.
///
/// # Safety
/// `base..base + nbytes` is a CUDA allocation of device 0 that `owner`
/// keeps alive, aligned for `elem`.
pub(crate) unsafe fn bind_storage(
    elem: ElemType,
    base: usize,
    nbytes: usize,
    owner: Box<dyn std::any::Any>,
) -> Result<StorageRef, String> {
    let mem = memory()?;
    // SAFETY: as the caller promised; the block never frees torch's memory.
    let block = unsafe { aot_runtime::device::DeviceBlock::foreign(&mem, base as u64, nbytes, owner) };
    Ok(Storage::in_block(elem, block))
}

/// Sends this call's GPU work to PyTorch's current stream of the calling
/// thread.
pub(crate) fn use_current_stream(py: Python<'_>) -> PyResult<()> {
    #[cfg(feature = "cuda")]
    {
        let stream: u64 = py
            .import(intern!(py, "torch.cuda"))?
            .call_method0(intern!(py, "current_stream"))?
            .getattr(intern!(py, "cuda_stream"))?
            .extract()?;
        let gpu = aot::runtime::cuda::gpu().map_err(crate::AotError::new_err)?;
        // SAFETY: PyTorch's stream of device 0's primary context (the one
        // PyTorch's runtime API uses), live while it is current.
        unsafe { gpu.use_stream(stream) }.map_err(crate::ExecutionError::new_err)
    }
    #[cfg(not(feature = "cuda"))]
    {
        let _ = py;
        Ok(())
    }
}

/// Why CUDA tensors cannot be bound here, or None when they can.
#[pyfunction]
pub(crate) fn cuda_unavailable() -> Option<String> {
    unavailable()
}

/// The GPU memory's bus crossings so far: (uploads, uploaded bytes,
/// downloads, downloaded bytes). A resident call adds none.
#[pyfunction]
pub(crate) fn cuda_crossings() -> PyResult<(u64, u64, u64, u64)> {
    let c = memory().map_err(crate::AotError::new_err)?.crossings();
    Ok((c.uploads, c.uploaded_bytes, c.downloads, c.downloaded_bytes))
}
