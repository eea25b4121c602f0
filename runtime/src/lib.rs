//! `aot-runtime`: the runtime of aot.
//!
//! - [`tensor`]: tensor objects (sizes, strides, offset, dtype, autograd
//!   flags) over shared, mutable storage ([`buffer`] holds the elements,
//!   owned or bound from another runtime's memory: [`elems`]);
//! - [`philox`]: the counter-based random generator every backend shares;
//! - [`device`]: device memory (storages resident on a device, the bus
//!   crossings each device counts, a host-memory device);
//! - [`dist`]: collectives, run by the communicator registered for their
//!   process group;
//! - [`interp`]: the reference interpreter, driven by the kernels ops supply;
//! - [`kernel_util`]: index arithmetic for those kernels;
//! - [`typed`]: typed tensor construction and reading for embedders
//!   (`Tensor::from_slice::<f32>`, `to_vec::<f32>`), checked at construction.

pub mod backward;
pub mod buffer;
pub mod compiled;
pub mod device;
pub mod dist;
pub mod elems;
pub mod guards;
pub mod interp;
pub mod kernel_util;
pub mod overlap;
pub mod philox;
pub mod tensor;
pub mod typed;

pub use buffer::Buffer;
pub use interp::{ExecOptions, Interpreter, Kernel, KernelCtx, KernelResult};
pub use philox::Generator;
pub use tensor::{Storage, StorageRef, Tensor};
pub use typed::{bf16, f16, Dims, Element, TensorError};
