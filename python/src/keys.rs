//! The keys the Python backend caches its work under, read in one pass over
//! a call's arguments: [`graph_key`] (what a Dynamo graph's ATen trace is
//! specialised to) and [`convention_key`] (what a compiled variant of a
//! region is specialised to).
//!
//! Both run on every call, over every parameter and buffer of a model (a
//! MobileNet's region takes some 300 tensors), so they read each tensor's
//! metadata through interned attribute names, without building a Python
//! tuple per tensor. A key is a pair `(bytes, values)`: the bytes encode
//! every tensor fact, each argument prefixed by a tag and each list by its
//! length, so that two different calls never encode alike; `values` holds
//! the arguments that are not tensors as `(type, value)` pairs (Python
//! equality takes `1 == 1.0 == True`, their types do not). Dictionary
//! lookups compare keys whole: no fact is hashed away.
//!
//! [`convention_key`] also keeps what it read of each tensor as a
//! [`CallInfo`], which the call it selects binds from instead of reading
//! every attribute again. A `CallInfo` holds its tensors (so an address
//! names one object for its whole life) and is taken by the first call it
//! is given to: nothing read before one call is trusted in another.

use aot_ir::ElemType;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyTuple};

use crate::addr::AddrMap;
use crate::GilOnly;

/// What the key read of one tensor, as the binder needs it.
pub(crate) struct Record {
    pub elem: ElemType,
    pub sizes: aot_ir::Shape,
    pub strides: aot_ir::Shape,
    pub offset: i64,
    pub data_ptr: usize,
    pub requires_grad: bool,
    /// None where PyTorch refused to say (the binder asks again, and
    /// reports PyTorch's error).
    pub is_leaf: Option<bool>,
}

/// Records by object address, with the objects.
pub(crate) type Records = AddrMap<(Py<PyAny>, Record)>;

/// The records of one call's strided CPU tensors of a dtype aot binds, by
/// object address, with the objects.
#[pyclass(name = "CallInfo", module = "aot_torch._native")]
pub struct CallInfo {
    pub(crate) records: GilOnly<Option<Records>>,
}

impl CallInfo {
    /// The records, once.
    pub(crate) fn take(&mut self) -> Option<Records> {
        self.records.0.take()
    }
}

/// Encodes the facts of one call.
#[derive(Default)]
pub(crate) struct Key {
    pub(crate) bytes: Vec<u8>,
}

impl Key {
    fn tag(&mut self, t: u8) {
        self.bytes.push(t);
    }

    fn int(&mut self, v: i64) {
        self.bytes.extend_from_slice(&v.to_le_bytes());
    }

    fn list(&mut self, vs: &[i64]) {
        self.int(vs.len() as i64);
        for &v in vs {
            self.int(v);
        }
    }

    fn str(&mut self, s: &str) {
        self.int(s.len() as i64);
        self.bytes.extend_from_slice(s.as_bytes());
    }
}

/// The key and the non-tensor values, as the Python side stores them.
fn finish<'py>(py: Python<'py>, key: Key, values: Vec<Bound<'py, PyAny>>) -> PyResult<Bound<'py, PyTuple>> {
    let bytes = PyBytes::new(py, &key.bytes).into_any();
    let values = PyTuple::new(py, values)?.into_any();
    PyTuple::new(py, [bytes, values])
}

/// `(type(a), a)` for an argument that is not a tensor.
fn value<'py>(a: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    Ok(PyTuple::new(a.py(), [a.get_type().into_any(), a.clone()])?.into_any())
}

/// The identity of a dtype (torch's dtypes are singletons).
fn dtype_id(t: &Bound<'_, PyAny>) -> PyResult<i64> {
    Ok(t.getattr(intern!(t.py(), "dtype"))?.as_ptr() as i64)
}

fn sizes(t: &Bound<'_, PyAny>) -> PyResult<aot_ir::Shape> {
    ints(&t.getattr(intern!(t.py(), "shape"))?)
}

/// The integers of a tuple (`torch.Size` is one), read item by item into
/// an inline list; any other sequence through pyo3's general conversion.
pub(crate) fn ints(v: &Bound<'_, PyAny>) -> PyResult<aot_ir::Shape> {
    match v.cast::<PyTuple>() {
        Ok(t) => t.iter().map(|n| n.extract::<i64>()).collect(),
        Err(_) => Ok(v.extract::<Vec<i64>>()?.into()),
    }
}

/// Per argument, which of its dimensions are symbolic in a graph compiled
/// with symbolic sizes (for a number that is a size: one entry); a key
/// leaves their values out, keeping only whether each is 0 or 1, the sizes
/// that are never symbolic. Arguments past its end have none.
pub(crate) type Dynamic = Option<Vec<Vec<bool>>>;

fn dims_of(dynamic: &Dynamic, i: usize) -> Option<&[bool]> {
    dynamic.as_ref().and_then(|d| d.get(i)).map(|v| &v[..]).filter(|v| v.iter().any(|&b| b))
}

/// A size that is symbolic in the key: 0 and 1 as themselves, the rest
/// alike.
fn masked(size: i64) -> i64 {
    if (0..=1).contains(&size) {
        size
    } else {
        -1
    }
}

/// `sizes` as a key writes them, symbolic dimensions masked.
fn key_sizes(sizes: &[i64], dims: Option<&[bool]>) -> Vec<i64> {
    match dims {
        Some(d) => {
            sizes.iter().enumerate().map(|(k, &n)| if d.get(k) == Some(&true) { masked(n) } else { n }).collect()
        }
        None => sizes.to_vec(),
    }
}

/// Keys a number argument that is a symbolic size (`dims_of` has an entry
/// for it) by whether it is 0 or 1; false for any other argument.
fn symbolic_number(key: &mut Key, dynamic: &Dynamic, i: usize, a: &Bound<'_, PyAny>) -> bool {
    match (dims_of(dynamic, i), a.extract::<i64>()) {
        (Some(_), Ok(n)) => {
            key.tag(b'Y');
            key.int(masked(n));
            true
        }
        _ => false,
    }
}

/// What a Dynamo graph is traced per: each tensor's dtype and sizes (its
/// symbolic dimensions masked, see [`Dynamic`]) and, without symbolic
/// dimensions, its strides; the value of anything
/// else (of a number that is a symbolic size, only whether it is 0 or 1).
#[pyfunction]
#[pyo3(signature = (args, dynamic=None))]
pub fn graph_key<'py>(py: Python<'py>, args: &Bound<'py, PyAny>, dynamic: Dynamic) -> PyResult<Bound<'py, PyTuple>> {
    let api = crate::torch(py)?;
    let tensor = api.tensor_type.bind(py);
    let mut key = Key::default();
    let mut values = Vec::new();
    for (i, a) in args.try_iter()?.enumerate() {
        let a = a?;
        if a.is_instance(tensor)? {
            key.tag(b'T');
            key.int(dtype_id(&a)?);
            let dims = dims_of(&dynamic, i);
            key.list(&key_sizes(&sizes(&a)?, dims));
            // The trace records eager's layouts of the results, which
            // follow the arguments' strides (an elementwise op keeps a
            // transposed layout): a trace serves one layout. (With symbolic
            // dimensions the variants decide, per convention key.)
            if dims.is_none() {
                // (A tensor without strides is traced as it is.)
                if let Ok(strides) = a.call_method0(intern!(py, "stride")) {
                    key.list(&ints(&strides)?);
                }
            }
        } else if !symbolic_number(&mut key, &dynamic, i, &a) {
            key.tag(b'V');
            values.push(value(&a)?);
        }
    }
    finish(py, key, values)
}

/// What a region's compiled variant is specialised to, per argument: a
/// repeated object, or a tensor's dtype, sizes, strides and offset, which
/// earlier argument's storage it shares and which one's `_base` it views,
/// `requires_grad`, `is_leaf`, its device, and whether autograd may
/// rebuild it as a view after a write to its base; else its value.
/// Returns `(key, info)`: `info` is the [`CallInfo`] for this call's
/// binding.
///
/// With `dynamic` ([`Dynamic`]), a tensor with symbolic dimensions is keyed
/// by its sizes with those masked and, where its layout is row-major from
/// offset 0, by that fact instead of its strides and offset: one key for
/// every size of a symbolic graph's plain arguments.
#[pyfunction]
#[pyo3(signature = (args, dynamic=None))]
pub fn convention_key<'py>(
    py: Python<'py>,
    args: &Bound<'py, PyAny>,
    dynamic: Dynamic,
) -> PyResult<(Bound<'py, PyTuple>, CallInfo)> {
    let args: Vec<Bound<'py, PyAny>> = args.try_iter()?.collect::<PyResult<_>>()?;
    let mut key = Key::default();
    let mut others = Vec::new();
    let records = read_convention(py, &args, &dynamic, &mut key, &mut others)?;
    let values = others.iter().map(value).collect::<PyResult<Vec<_>>>()?;
    Ok((finish(py, key, values)?, CallInfo { records: GilOnly(Some(records)) }))
}

/// The facts [`convention_key`] keys a call by, written into `key`; the
/// arguments that are not tensors (nor symbolic sizes) pushed onto
/// `others`, in order, for the caller to key by type and value. Returns
/// the records of the tensors binding can take.
pub(crate) fn read_convention<'py>(
    py: Python<'py>,
    args: &[Bound<'py, PyAny>],
    dynamic: &Dynamic,
    key: &mut Key,
    others: &mut Vec<Bound<'py, PyAny>>,
) -> PyResult<Records> {
    let api = crate::torch(py)?;
    let tensor = api.tensor_type.bind(py);
    // (About what a 2-D tensor's facts take: grown once or never.)
    key.bytes.reserve(args.len() * 128);
    // (By address: these run on every call.)
    let mut objects: AddrMap<usize> = AddrMap::default();
    let mut storages: AddrMap<usize> = AddrMap::default();
    let mut roots: AddrMap<usize> = AddrMap::default();
    let mut records = Records::default();
    for (i, a) in args.iter().enumerate() {
        if !a.is_instance(tensor)? {
            if symbolic_number(key, dynamic, i, a) {
                continue;
            }
            key.tag(b'V');
            others.push(a.clone());
            continue;
        }
        let id = a.as_ptr() as usize;
        if let Some(&j) = objects.get(id) {
            key.tag(b'S');
            key.int(j as i64);
            continue;
        }
        objects.insert_new(id, i);
        key.tag(b'T');
        let dtype = a.getattr(intern!(py, "dtype"))?;
        key.int(dtype.as_ptr() as i64);
        let shape = sizes(a)?;
        let strides = ints(&a.call_method0(intern!(py, "stride"))?)?;
        let offset: i64 = a.call_method0(intern!(py, "storage_offset"))?.extract()?;
        // Dense in another order of its dimensions (a channels-last
        // batch): a symbolic compile takes that order at every size.
        let dims = dims_of(dynamic, i).filter(|_| offset == 0);
        let row_major = dims.is_some() && aot_runtime::tensor::dense(&shape, &strides);
        let order = dims.filter(|_| !row_major).and_then(|_| aot_ir::sym::dense_permutation(&shape, &strides));
        match (dims, order) {
            (Some(dims), _) if row_major => {
                key.tag(b'R');
                key.list(&key_sizes(&shape, Some(dims)));
            }
            (Some(dims), Some(order)) => {
                key.tag(b'P');
                key.list(&order.iter().map(|&d| d as i64).collect::<Vec<_>>());
                key.list(&key_sizes(&shape, Some(dims)));
            }
            _ => {
                key.tag(b'L');
                key.list(&shape);
                key.list(&strides);
                key.int(offset);
            }
        }
        // The storage's address: from the data pointer for the dtypes aot
        // binds (one call instead of making a storage object).
        let elem = api.dtypes.iter().find(|(d, _)| dtype.is(d.bind(py))).map(|(_, e)| *e);
        let mut data_ptr = None;
        let st: usize = match elem {
            Some(elem) => {
                let ptr: usize = a.call_method0(intern!(py, "data_ptr"))?.extract()?;
                data_ptr = Some(ptr);
                let off = usize::try_from(offset).ok().and_then(|o| o.checked_mul(elem.byte_size()));
                off.and_then(|o| ptr.checked_sub(o)).unwrap_or(ptr)
            }
            None => a.call_method0(intern!(py, "untyped_storage"))?.call_method0(intern!(py, "data_ptr"))?.extract()?,
        };
        // (A storage without memory shares nothing.)
        let shared = if st == 0 { i } else { *storages.get_or_insert(st, i) };
        key.int(shared as i64);
        // Which arguments view one `_base` (a view whose `_base` PyTorch
        // refuses to give is its own root, as `backend._root` takes it).
        let (root, view) = match a.getattr(intern!(py, "_base")) {
            Ok(b) if !b.is_none() => (b.as_ptr() as usize, Some(true)),
            Ok(_) => (id, Some(false)),
            Err(_) => (id, None),
        };
        key.int(*roots.get_or_insert(root, i) as i64);
        let requires_grad: bool = a.getattr(intern!(py, "requires_grad"))?.extract()?;
        key.int(requires_grad as i64);
        // (A tensor that does not require grad is a leaf, and says so
        // without raising.)
        let leaf = if !requires_grad {
            1
        } else {
            match a.getattr(intern!(py, "is_leaf")) {
                Ok(l) => l.extract::<bool>()? as i64,
                Err(_) => 2,
            }
        };
        key.int(leaf);
        let cpu: bool = a.getattr(intern!(py, "is_cpu"))?.extract()?;
        if cpu {
            key.str("cpu");
        } else {
            let device: String = a.getattr(intern!(py, "device"))?.getattr(intern!(py, "type"))?.extract()?;
            key.str(&device);
        }
        let view = match view {
            Some(v) => v,
            None => a.call_method0(intern!(py, "_is_view"))?.extract::<bool>()?,
        };
        let regenerable =
            !requires_grad || !view || api.creation_meta.bind(py).call1((a,))?.eq(api.default_creation.bind(py))?;
        key.int(regenerable as i64);
        if let (true, Some(elem), Some(data_ptr)) = (cpu, elem, data_ptr) {
            if a.getattr(intern!(py, "layout"))?.is(api.strided.bind(py)) {
                let is_leaf = if leaf == 2 { None } else { Some(leaf == 1) };
                let record = Record { elem, sizes: shape, strides, offset, data_ptr, requires_grad, is_leaf };
                records.insert_new(id, (a.clone().unbind(), record));
            }
        }
    }
    Ok(records)
}
