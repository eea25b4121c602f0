//! How an op maps onto upstream MLIR's tensor-level dialects (`func`,
//! `tensor`, `linalg`, `arith`), registered with the op as an interface
//! ([`TensorExport`]) so that the MLIR export reads op facts, as the loop
//! lowering reads `Pointwise` and `Lower`, and holds no op names.
//!
//! Elementwise ops need none: their `Pointwise` formula is exported. A
//! variant names the construction; the exporter reads everything else
//! (dims, the permutation a view applies, slice bounds) from the op's own
//! attributes and interfaces (a permutation from the op's view layout).
//!
//! Invariant: an op carries at most one `TensorExport`; an op without one
//! (and without `Pointwise` or Philox draws) is reported as not exportable.

/// The MLIR construction an op exports as.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TensorExport {
    /// Its operand, unchanged (a copy or an alias: tensors are values).
    Identity,
    /// `arith.constant` splat of its `value` attribute.
    Splat,
    /// `arith.constant` of its dense `value` attribute.
    Dense,
    /// `linalg.transpose` by the permutation its view layout applies.
    Permute,
    /// `tensor.reshape` to its result type (the same elements in order).
    Reshape,
    /// A broadcast to its result type (`linalg.generic`).
    Broadcast,
    /// `linalg.reduce` over its `dims`.
    Reduce(Reduction),
    /// `linalg.matmul` / `batch_matmul`, batch dimensions broadcast.
    Matmul,
    /// `x @ w.T + b` from the matmul and a broadcast add.
    Linear,
    /// Softmax (or log-softmax) along `dim`, from reductions.
    Softmax { log: bool },
    /// Layer normalization with its mean and rstd, from reductions.
    LayerNorm,
    /// `tensor.extract_slice` of a `slice` or `select`.
    ExtractSlice,
    /// `tensor.insert_slice` (the scatter of a `slice` or `select`).
    InsertSlice,
    /// A strided view of its operand's storage.
    AsStrided,
    /// The scatter of `AsStrided`.
    AsStridedScatter,
    /// Concatenation along `dim` (slices inserted into an empty tensor).
    Concat,
}

/// The combiners of [`TensorExport::Reduce`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Reduction {
    Sum,
    /// The sum divided by the count.
    Mean,
    Max,
    Min,
}
