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

use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyTuple};
use std::collections::HashMap;

/// Encodes the facts of one call.
#[derive(Default)]
struct Key {
    bytes: Vec<u8>,
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

fn sizes(t: &Bound<'_, PyAny>) -> PyResult<Vec<i64>> {
    t.getattr(intern!(t.py(), "shape"))?.extract()
}

/// What a Dynamo graph is traced per: each tensor's dtype and sizes, the
/// value of anything else.
#[pyfunction]
pub fn graph_key<'py>(py: Python<'py>, args: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyTuple>> {
    let api = crate::torch(py)?;
    let tensor = api.tensor_type.bind(py);
    let mut key = Key::default();
    let mut values = Vec::new();
    for a in args.try_iter()? {
        let a = a?;
        if a.is_instance(tensor)? {
            key.tag(b'T');
            key.int(dtype_id(&a)?);
            key.list(&sizes(&a)?);
        } else {
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
#[pyfunction]
pub fn convention_key<'py>(py: Python<'py>, args: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyTuple>> {
    let api = crate::torch(py)?;
    let tensor = api.tensor_type.bind(py);
    let mut key = Key::default();
    let mut values = Vec::new();
    let mut objects: HashMap<usize, usize> = HashMap::new();
    let mut storages: HashMap<usize, usize> = HashMap::new();
    let mut roots: HashMap<usize, usize> = HashMap::new();
    for (i, a) in args.try_iter()?.enumerate() {
        let a = a?;
        if !a.is_instance(tensor)? {
            key.tag(b'V');
            values.push(value(&a)?);
            continue;
        }
        let id = a.as_ptr() as usize;
        if let Some(&j) = objects.get(&id) {
            key.tag(b'S');
            key.int(j as i64);
            continue;
        }
        objects.insert(id, i);
        key.tag(b'T');
        let dtype = a.getattr(intern!(py, "dtype"))?;
        key.int(dtype.as_ptr() as i64);
        key.list(&sizes(&a)?);
        let strides: Vec<i64> = a.call_method0(intern!(py, "stride"))?.extract()?;
        key.list(&strides);
        let offset: i64 = a.call_method0(intern!(py, "storage_offset"))?.extract()?;
        key.int(offset);
        // The storage's address: from the data pointer for the dtypes aot
        // binds (one call instead of making a storage object).
        let item = api.dtypes.iter().find(|(d, _)| dtype.is(d.bind(py))).map(|(_, e)| e.byte_size());
        let st: usize = match item {
            Some(item) => {
                let ptr: usize = a.call_method0(intern!(py, "data_ptr"))?.extract()?;
                let off = usize::try_from(offset).ok().and_then(|o| o.checked_mul(item));
                off.and_then(|o| ptr.checked_sub(o)).unwrap_or(ptr)
            }
            None => a.call_method0(intern!(py, "untyped_storage"))?.call_method0(intern!(py, "data_ptr"))?.extract()?,
        };
        // (A storage without memory shares nothing.)
        let shared = if st == 0 { i } else { *storages.entry(st).or_insert(i) };
        key.int(shared as i64);
        // Which arguments view one `_base` (a view whose `_base` PyTorch
        // refuses to give is its own root, as `backend._root` takes it).
        let root = match a.getattr(intern!(py, "_base")) {
            Ok(b) if !b.is_none() => b.as_ptr() as usize,
            _ => id,
        };
        key.int(*roots.entry(root).or_insert(i) as i64);
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
        if a.getattr(intern!(py, "is_cpu"))?.extract()? {
            key.str("cpu");
        } else {
            let device: String = a.getattr(intern!(py, "device"))?.getattr(intern!(py, "type"))?.extract()?;
            key.str(&device);
        }
        let regenerable = !requires_grad
            || !a.call_method0(intern!(py, "_is_view"))?.extract::<bool>()?
            || api.creation_meta.bind(py).call1((&a,))?.eq(api.default_creation.bind(py))?;
        key.int(regenerable as i64);
    }
    finish(py, key, values)
}
