//! Typed records: the pass metadata stored on functions as dialect
//! attributes (`#aot.joint<...>`, `#aot.partition<...>`, ...), declared once
//! as Rust structs with [`record!`], which writes their `to_attr` and
//! `from_attr`.
//!
//! A record is a dialect attribute whose parameters are its fields, in
//! declaration order, keyed by field name. A field's type says how it is
//! stored ([`Field`]: integers, booleans, strings, index lists, nested
//! records, `Option` for parameters that may be absent); a field declared
//! `as flag` is a `bool` written only when true, `as or_default` a value
//! always written and read as its default when absent, `as nested` another
//! record, `as nested_opt` an optional one, `as nested_list` a list of them;
//! `=> "key"` stores a field under another key (`ty => "type"`). Reading
//! checks the kind of
//! every parameter and names the record and the key in its error; a record
//! may add a `check` of the whole value (indices in range, ...). Printing a
//! record and parsing it back gives the same record (tested per record).

use crate::meta::{Params, Reader};
use aot_ir::{AttrData, Attribute, Context};

/// A typed record stored as the dialect attribute `#KIND<...>`.
pub trait Record: Sized {
    /// The attribute's dialect name, `aot.joint`.
    const KIND: &'static str;
    fn to_attr(&self, ctx: &mut Context) -> Attribute;
    fn from_attr(ctx: &Context, a: Attribute) -> Result<Self, String>;
}

/// How a value is stored as one parameter of a record.
pub trait Field: Sized {
    fn put(&self, p: &mut Params<'_>, key: &str);
    fn take(r: &Reader<'_>, key: &str) -> Result<Self, String>;
}

impl Field for bool {
    fn put(&self, p: &mut Params<'_>, key: &str) {
        p.bool(key, *self);
    }
    fn take(r: &Reader<'_>, key: &str) -> Result<Self, String> {
        r.bool(key)
    }
}

impl Field for i64 {
    fn put(&self, p: &mut Params<'_>, key: &str) {
        p.int(key, *self);
    }
    fn take(r: &Reader<'_>, key: &str) -> Result<Self, String> {
        r.int(key)
    }
}

impl Field for usize {
    fn put(&self, p: &mut Params<'_>, key: &str) {
        p.int(key, *self as i64);
    }
    fn take(r: &Reader<'_>, key: &str) -> Result<Self, String> {
        r.opt_usize(key)?.ok_or_else(|| r.missing(key))
    }
}

impl Field for u64 {
    fn put(&self, p: &mut Params<'_>, key: &str) {
        p.int(key, *self as i64);
    }
    fn take(r: &Reader<'_>, key: &str) -> Result<Self, String> {
        Ok(r.opt_usize(key)?.ok_or_else(|| r.missing(key))? as u64)
    }
}

impl Field for String {
    fn put(&self, p: &mut Params<'_>, key: &str) {
        let a = p.ctx.str_attr(self);
        p.raw(key, a);
    }
    fn take(r: &Reader<'_>, key: &str) -> Result<Self, String> {
        Ok(r.str(key)?.to_string())
    }
}

impl Field for Vec<usize> {
    fn put(&self, p: &mut Params<'_>, key: &str) {
        p.list(key, self);
    }
    fn take(r: &Reader<'_>, key: &str) -> Result<Self, String> {
        r.usize_list(key)
    }
}

impl Field for Vec<i64> {
    fn put(&self, p: &mut Params<'_>, key: &str) {
        p.i64_list(key, self);
    }
    fn take(r: &Reader<'_>, key: &str) -> Result<Self, String> {
        r.i64_list(key)
    }
}

impl Field for Vec<bool> {
    fn put(&self, p: &mut Params<'_>, key: &str) {
        let items: Vec<Attribute> = self.iter().map(|&b| p.ctx.bool_attr(b)).collect();
        let a = p.ctx.array_attr(items);
        p.raw(key, a);
    }
    fn take(r: &Reader<'_>, key: &str) -> Result<Self, String> {
        r.array(key)?
            .iter()
            .map(|&x| match r.ctx().attr_data(x) {
                AttrData::Bool(b) => Ok(*b),
                _ => Err(format!("#{}: '{key}' must hold true/false", r.what())),
            })
            .collect()
    }
}

impl Field for aot_ir::Type {
    fn put(&self, p: &mut Params<'_>, key: &str) {
        let a = p.ctx.type_attr(*self);
        p.raw(key, a);
    }
    fn take(r: &Reader<'_>, key: &str) -> Result<Self, String> {
        match r.ctx().attr_data(r.get(key)?) {
            AttrData::Type(t) => Ok(*t),
            _ => Err(format!("#{}: '{key}' must be a type", r.what())),
        }
    }
}

/// An attribute field holds an op's attributes: a dictionary.
impl Field for Attribute {
    fn put(&self, p: &mut Params<'_>, key: &str) {
        p.raw(key, *self);
    }
    fn take(r: &Reader<'_>, key: &str) -> Result<Self, String> {
        let a = r.get(key)?;
        match r.ctx().attr_data(a) {
            AttrData::Dict(_) => Ok(a),
            _ => Err(format!("#{} '{key}' must be a dictionary", r.what())),
        }
    }
}

/// A list of records.
impl<R: Record> Field for Vec<R> {
    fn put(&self, p: &mut Params<'_>, key: &str) {
        Nested::put_list(self, p, key);
    }
    fn take(r: &Reader<'_>, key: &str) -> Result<Self, String> {
        Nested::take_list(r, key)
    }
}

impl<T: Field> Field for Option<T> {
    fn put(&self, p: &mut Params<'_>, key: &str) {
        if let Some(v) = self {
            v.put(p, key);
        }
    }
    fn take(r: &Reader<'_>, key: &str) -> Result<Self, String> {
        match r.opt(key) {
            None => Ok(None),
            Some(_) => T::take(r, key).map(Some),
        }
    }
}

/// A field holding another record (or a list of them), stored as its
/// attribute.
pub struct Nested;

impl Nested {
    pub fn put<R: Record>(v: &R, p: &mut Params<'_>, key: &str) {
        let a = v.to_attr(p.ctx);
        p.raw(key, a);
    }

    pub fn take<R: Record>(r: &Reader<'_>, key: &str) -> Result<R, String> {
        R::from_attr(r.ctx(), r.get(key)?)
    }

    pub fn put_opt<R: Record>(v: &Option<R>, p: &mut Params<'_>, key: &str) {
        if let Some(v) = v {
            Self::put(v, p, key);
        }
    }

    pub fn take_opt<R: Record>(r: &Reader<'_>, key: &str) -> Result<Option<R>, String> {
        r.opt(key).map(|a| R::from_attr(r.ctx(), a)).transpose()
    }

    pub fn put_list<R: Record>(v: &[R], p: &mut Params<'_>, key: &str) {
        let items: Vec<Attribute> = v.iter().map(|x| x.to_attr(p.ctx)).collect();
        let a = p.ctx.array_attr(items);
        p.raw(key, a);
    }

    pub fn take_list<R: Record>(r: &Reader<'_>, key: &str) -> Result<Vec<R>, String> {
        r.array(key)?.iter().map(|&x| R::from_attr(r.ctx(), x)).collect()
    }
}

/// [`Record`] for a type whose `to_attr`/`from_attr` are written by hand
/// (records with derived fields, enums or context-specific checks).
#[macro_export]
macro_rules! hand_written_record {
    ($T:ty = $kind:expr) => {
        impl $crate::record::Record for $T {
            const KIND: &'static str = $kind;
            fn to_attr(&self, ctx: &mut aot_ir::Context) -> aot_ir::Attribute {
                <$T>::to_attr(self, ctx)
            }
            fn from_attr(ctx: &aot_ir::Context, a: aot_ir::Attribute) -> Result<Self, String> {
                <$T>::from_attr(ctx, a)
            }
        }
    };
}

/// Declares a record: the struct and its [`Record`] implementation.
///
/// ```text
/// record! {
///     /// Doc.
///     pub struct JointInfo = "aot.joint" {
///         pub num_forward: usize,
///         pub no_tangents: bool as flag,      // written only when true
///         pub offset: i64 as or_default,      // 0 when absent
///         pub ty: Type => "type",             // stored under another key
///         pub layout: Strided as nested,      // another record
///         pub bases: Vec<BaseInfo> as nested_list,
///     }
///     check = |v: &JointInfo| -> Result<(), String> { ... };   // optional
/// }
/// ```
#[macro_export]
macro_rules! record {
    (
        $(#[$m:meta])*
        $vis:vis struct $T:ident = $kind:literal {
            $( $(#[$fm:meta])* $fvis:vis $f:ident : $ty:ty $(as $mode:ident)? $(=> $key:literal)? ),* $(,)?
        }
        $(check = $check:expr;)?
    ) => {
        $(#[$m])*
        $vis struct $T {
            $( $(#[$fm])* $fvis $f: $ty ),*
        }

        // Inherent forwarders, so that callers need not import the trait.
        #[allow(dead_code)]
        impl $T {
            /// This record as its dialect attribute.
            pub fn to_attr(&self, ctx: &mut aot_ir::Context) -> aot_ir::Attribute {
                <Self as $crate::record::Record>::to_attr(self, ctx)
            }

            /// Reads the record from its dialect attribute.
            pub fn from_attr(ctx: &aot_ir::Context, a: aot_ir::Attribute) -> Result<Self, String> {
                <Self as $crate::record::Record>::from_attr(ctx, a)
            }
        }

        impl $crate::record::Record for $T {
            const KIND: &'static str = $kind;

            fn to_attr(&self, ctx: &mut aot_ir::Context) -> aot_ir::Attribute {
                let mut p = $crate::meta::Params::new(ctx);
                $( $crate::record!(@put $($mode)? p, &self.$f, $crate::record!(@key $f $($key)?)); )*
                p.finish($kind)
            }

            fn from_attr(ctx: &aot_ir::Context, a: aot_ir::Attribute) -> Result<Self, String> {
                let r = $crate::meta::Reader::new(ctx, a, $kind)?;
                let v = $T { $( $f: $crate::record!(@take $($mode)? r, $crate::record!(@key $f $($key)?)) ),* };
                $( ($check)(&v).map_err(|m: String| format!("#{}: {m}", $kind))?; )?
                Ok(v)
            }
        }
    };
    (@key $f:ident) => { stringify!($f) };
    (@key $f:ident $key:literal) => { $key };
    (@put $p:ident, $v:expr, $key:expr) => { $crate::record::Field::put($v, &mut $p, $key) };
    (@put or_default $p:ident, $v:expr, $key:expr) => { $crate::record::Field::put($v, &mut $p, $key) };
    (@put nested_opt $p:ident, $v:expr, $key:expr) => { $crate::record::Nested::put_opt($v, &mut $p, $key) };
    (@put flag $p:ident, $v:expr, $key:expr) => { if *$v { $p.bool($key, true) } };
    (@put nested $p:ident, $v:expr, $key:expr) => { $crate::record::Nested::put($v, &mut $p, $key) };
    (@put nested_list $p:ident, $v:expr, $key:expr) => { $crate::record::Nested::put_list($v, &mut $p, $key) };
    (@take $r:ident, $key:expr) => { $crate::record::Field::take(&$r, $key)? };
    (@take or_default $r:ident, $key:expr) => {
        match $r.opt($key) {
            None => Default::default(),
            Some(_) => $crate::record::Field::take(&$r, $key)?,
        }
    };
    (@take nested_opt $r:ident, $key:expr) => { $crate::record::Nested::take_opt(&$r, $key)? };
    (@take flag $r:ident, $key:expr) => { $r.opt_bool($key)?.unwrap_or(false) };
    (@take nested $r:ident, $key:expr) => { $crate::record::Nested::take(&$r, $key)? };
    (@take nested_list $r:ident, $key:expr) => { $crate::record::Nested::take_list(&$r, $key)? };
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::fmt::Debug;

    /// Writes `v`, prints the module-level attribute, parses it back and
    /// reads it: the same record.
    pub fn round_trip<R: Record + PartialEq + Debug>(v: R) {
        let mut ctx = Context::new();
        let a = v.to_attr(&mut ctx);
        let text = aot_ir::printer::attr_to_string(&ctx, a);
        assert!(text.starts_with(&format!("#{}<", R::KIND)), "{text}");
        let mut ctx2 = Context::new();
        let b = aot_ir::parser::parse_attr_str(&mut ctx2, &text).expect("the printed record parses");
        assert_eq!(R::from_attr(&ctx2, b).expect("the parsed record reads"), v, "{text}");
    }

    crate::record! {
        #[derive(Clone, Debug, PartialEq)]
        struct Sample = "aot.sample" {
            n: usize,
            name: String,
            list: Vec<i64>,
            mask: Vec<bool>,
            maybe: Option<usize>,
            marked: bool as flag,
            layout: crate::meta::Strided as nested,
            bases: Vec<crate::synthetic_base::BaseInfo> as nested_list,
        }
        check = |v: &Sample| if v.n > 100 { Err("n too large".to_string()) } else { Ok(()) };
    }

    #[test]
    fn fields_round_trip() {
        let s = Sample {
            n: 3,
            name: "x".into(),
            list: vec![-1, 2],
            mask: vec![true, false],
            maybe: Some(4),
            marked: true,
            layout: strided(),
            bases: vec![BaseInfo { storage: 0, numel: 3, requires_grad: false }; 2],
        };
        round_trip(s.clone());
        round_trip(Sample { maybe: None, marked: false, ..s });
    }

    #[test]
    fn reading_reports_the_record_and_the_key() {
        let mut ctx = Context::new();
        let big = Sample {
            n: 101,
            name: String::new(),
            list: vec![],
            mask: vec![],
            maybe: None,
            marked: false,
            layout: strided(),
            bases: vec![],
        };
        let a = big.to_attr(&mut ctx);
        assert_eq!(Sample::from_attr(&ctx, a).unwrap_err(), "#aot.sample: n too large");
        let b = JustN { n: -1 }.to_attr(&mut ctx);
        let e = Sample::from_attr(&ctx, b).unwrap_err();
        assert!(e.contains("expected a #aot.sample"), "{e}");
    }

    crate::record! {
        #[derive(Debug, PartialEq)]
        struct JustN = "aot.other" { n: i64 }
    }

    use crate::convention::{ArgConvention, ArgLayout, Convention, StorageDecl};
    use crate::dedupe::DedupeInfo;
    use crate::functionalize::{BackwardError, Functionalized, OutputFacts, StorageWrites};
    use crate::joint::JointInfo;
    use crate::meta::{
        InputAliasInfo, MutationType, OutputAliasInfo, OutputType, SetSource, Strided, ViewAndMutationMeta, ViewStep,
    };
    use crate::partition::PartitionInfo;
    use crate::synthetic_base::{BaseInfo, InnerArg, SyntheticBaseInfo};

    fn strided() -> Strided {
        Strided { size: vec![2, 3], stride: vec![3, 1], offset: 4 }
    }

    /// The convention holds types, which belong to a context: it goes
    /// through text into a second context, and reads back with the same
    /// types (compared as text) and the same fields.
    #[test]
    fn the_convention_round_trips_through_text() {
        let mut ctx = Context::new();
        let t = aot_ir::parser::parse_type_str(&mut ctx, "tensor<4x2xf32>").expect("a type");
        let layout = ArgLayout { storage: 1, offset: 3, strides: vec![1, 4] };
        let c = Convention {
            args: vec![
                ArgConvention { ty: t, requires_grad: true, non_leaf: true, same_as: None, layout: Some(layout) },
                ArgConvention { ty: t, requires_grad: false, non_leaf: false, same_as: Some(0), layout: None },
            ],
            storages: vec![
                StorageDecl { id: 1, numel: Some(12), requires_grad: true },
                StorageDecl { id: 2, numel: None, requires_grad: false },
            ],
        };
        let a = c.to_attr(&mut ctx);
        let text = aot_ir::printer::attr_to_string(&ctx, a);
        assert!(text.contains("#aot.arg<type = tensor<4x2xf32>, requires_grad = true, non_leaf = true,"), "{text}");
        let mut ctx2 = Context::new();
        let a = aot_ir::parser::parse_attr_str(&mut ctx2, &text).expect("the printed convention parses");
        let back = Convention::from_attr(&ctx2, a).expect("and reads");
        let again = back.to_attr(&mut ctx2);
        assert_eq!(aot_ir::printer::attr_to_string(&ctx2, again), text);
        let t2 = aot_ir::parser::parse_type_str(&mut ctx2, "tensor<4x2xf32>").expect("a type");
        let same_types = back.args.iter().all(|a| a.ty == t2);
        let without_types = |c: &Convention| -> Vec<_> {
            c.args.iter().map(|a| (a.requires_grad, a.non_leaf, a.same_as, a.layout.clone())).collect()
        };
        assert!(same_types && without_types(&back) == without_types(&c) && back.storages == c.storages, "{back:?}");
        let bad = Convention { args: vec![ArgConvention { same_as: Some(0), ..c.args[1].clone() }], storages: vec![] };
        let a = bad.to_attr(&mut ctx);
        let e = Convention::from_attr(&ctx, a).unwrap_err();
        assert!(e.contains("'same_as' must name an earlier argument"), "{e}");
    }

    /// A view step holds its op's attribute dictionary, and nothing else.
    #[test]
    fn view_steps_hold_dictionaries() {
        use aot_ir::OpKind;
        let mut ctx = Context::new();
        let d = aot_ir::parser::parse_attr_str(&mut ctx, "{dim = 1 : i64}").expect("a dictionary");
        let step = ViewStep { op: aot_dialects::view::SelectOp::NAME.into(), attrs: d };
        let a = step.to_attr(&mut ctx);
        let text = aot_ir::printer::attr_to_string(&ctx, a);
        let mut ctx2 = Context::new();
        let b = aot_ir::parser::parse_attr_str(&mut ctx2, &text).expect("parses");
        let back = ViewStep::from_attr(&ctx2, b).expect("reads");
        assert_eq!(back.op, aot_dialects::view::SelectOp::NAME);
        assert_eq!(aot_ir::printer::attr_to_string(&ctx2, back.attrs), "{dim = 1}");
        let not_a_dict =
            ViewStep { op: aot_dialects::view::TOp::NAME.into(), attrs: ctx.i64_attr(3) }.to_attr(&mut ctx);
        let e = ViewStep::from_attr(&ctx, not_a_dict).unwrap_err();
        assert!(e.contains("'attrs' must be a dictionary"), "{e}");
    }

    #[test]
    fn pass_records_round_trip() {
        round_trip(JointInfo { num_forward: 2, tangents: vec![0, 1], grads: vec![1], no_tangents: true });
        round_trip(crate::joint::TracedBackward {
            function: "main_traced_backward".into(),
            tangents: vec![0, 2],
            grads: vec![0, 1, 3],
            unreached: vec![3],
        });
        round_trip(PartitionInfo {
            strategy: "min-cut".into(),
            num_forward: 3,
            num_saved: 4,
            saved_bytes: 1 << 40,
            peak_bytes: 7,
        });
        round_trip(DedupeInfo { keep_arg_mask: vec![true, false, true], add_dupe_map: vec![0, 0, 1] });
        round_trip(strided());
        round_trip(BaseInfo { storage: 1, numel: 12, requires_grad: true });
        round_trip(SyntheticBaseInfo {
            args: vec![
                InnerArg::Arg(0),
                InnerArg::Member { base: 0, layout: strided(), requires_grad: false },
                InnerArg::Member { base: 0, layout: strided(), requires_grad: true },
            ],
            bases: vec![BaseInfo { storage: 0, numel: 10, requires_grad: false }],
            metadata_mutated: vec![2],
        });
        round_trip(ViewAndMutationMeta::default());
        round_trip(ArgLayout { storage: 1, offset: 3, strides: vec![1, 4] });
        let input = InputAliasInfo {
            mutates_data: true,
            mutation_type: MutationType::MutatedOutGraph,
            final_layout: Some(strided()),
            set_source: Some(SetSource::Graph),
            resized_numel: Some(9),
            dupe_of: Some(1),
            autograd_mutation: true,
            ..InputAliasInfo::not_mutated(true, false, true)
        };
        round_trip(input.clone());
        round_trip(InputAliasInfo { set_source: Some(SetSource::Input(2)), ..input });
        round_trip(InputAliasInfo::not_mutated(false, true, false));
        round_trip(OutputAliasInfo {
            output_type: OutputType::AliasOfIntermediateBaseIsUserOutput,
            base_idx: Some(3),
            requires_grad: true,
            views: Some(vec![]),
            layout: Some(strided()),
            aliases_input: Some(0),
            aliases_final_storage: true,
            storage_group: Some(1),
        });
        round_trip(StorageDecl { id: 2, numel: None, requires_grad: false });
        round_trip(Functionalized { keep_input_mutations: true, num_user_outputs: 3 });
        round_trip(StorageWrites { storage: 4, layouts: vec![strided(), strided()] });
        round_trip(BackwardError {
            message: "no \"grad\"".into(),
            file: Some("a.mlir".into()),
            line: Some(3),
            col: Some(9),
        });
        round_trip(BackwardError { message: String::new(), file: None, line: None, col: None });
        round_trip(OutputFacts {
            requires_grad: true,
            storage: 1,
            kind: "intermediate",
            is_input: None,
            input: None,
            multi_output_view: true,
            own_history: false,
            after_set: false,
            base_requires_grad: true,
            base_is_output: Some(0),
            base_result: Some(2),
            views: None,
            layout: strided(),
        });
    }

    #[test]
    fn record_checks_reject_inconsistent_values() {
        let mut ctx = Context::new();
        let bad = DedupeInfo { keep_arg_mask: vec![true, false], add_dupe_map: vec![0, 1] }.to_attr(&mut ctx);
        assert_eq!(
            DedupeInfo::from_attr(&ctx, bad).unwrap_err(),
            "#aot.dedupe: 'add_dupe_map' must map every argument to a kept one"
        );
        let text = "#aot.joint<num_forward = -1, tangents = [], grads = [], no_tangents = false>";
        let a = aot_ir::parser::parse_attr_str(&mut ctx, text).expect("parses");
        let e = JointInfo::from_attr(&ctx, a).unwrap_err();
        assert!(e.contains("'num_forward' must be a non-negative index"), "{e}");
    }
}
