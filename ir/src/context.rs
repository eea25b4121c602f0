//! The context: owner of every IR entity and uniquing table.
//!
//! Operations, values, blocks and regions live in dense arenas indexed by the
//! ids of [`crate::entity`]; types, attributes, locations, strings and op names
//! are interned. Structure is kept as explicit links:
//!
//! - a block holds a doubly linked list of its operations (`first`/`last`,
//!   and `prev`/`next` in each op), so insertion and removal are O(1);
//! - every operand slot is a node of its value's intrusive use list
//!   (`first_use` in the value, `prev`/`next` in the operand), so
//!   replace-all-uses is O(uses) and dropping a use is O(1);
//! - parent links go op → block → region → op.
//!
//! Invariants: an operand slot is linked into exactly the use list of the
//! value it holds; an op is in at most one block; erased entities are never
//! reachable from live ones. The context exposes read-only accessors publicly;
//! all mutation goes through [`crate::Rewriter`], which keeps these
//! invariants.

use crate::attributes::{AttrData, DenseData, NamedAttr};
use crate::entity::*;
use crate::intern::{Interner, StringInterner};
use crate::location::LocData;
use crate::registry::{lookup_op, OpDef};
use crate::types::{ElemType, TensorType, TypeData};
use cranelift_entity::packed_option::PackedOption;
use cranelift_entity::PrimaryMap;
use smallvec::SmallVec;

/// Where a value comes from.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum ValueDef {
    Result { op: Op, index: u32 },
    BlockArg { block: Block, index: u32 },
}

/// One use of a value: operand `index` of `op`.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Hash)]
pub struct Use {
    pub op: Op,
    pub index: u32,
}

/// A `Use` packed with a reserved "none" value, for the intrusive lists.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) struct UseLink {
    op: u32,
    index: u32,
}

impl UseLink {
    pub(crate) const NONE: UseLink = UseLink { op: u32::MAX, index: 0 };
    fn some(u: Use) -> UseLink {
        UseLink { op: u.op.as_u32(), index: u.index }
    }
    fn get(self) -> Option<Use> {
        (self.op != u32::MAX).then(|| Use { op: Op::from_u32(self.op), index: self.index })
    }
}

#[derive(Clone, Debug)]
pub(crate) struct Operand {
    pub(crate) value: Value,
    prev: UseLink,
    next: UseLink,
}

pub(crate) struct OpData {
    pub(crate) name: OpName,
    pub(crate) operands: SmallVec<[Operand; 3]>,
    pub(crate) results: SmallVec<[Value; 1]>,
    /// Sorted by name (string order), names unique.
    pub(crate) attrs: SmallVec<[NamedAttr; 2]>,
    pub(crate) regions: SmallVec<[Region; 1]>,
    pub(crate) loc: Location,
    pub(crate) block: PackedOption<Block>,
    pub(crate) prev: PackedOption<Op>,
    pub(crate) next: PackedOption<Op>,
    pub(crate) erased: bool,
}

pub(crate) struct ValueData {
    pub(crate) ty: Type,
    pub(crate) def: ValueDef,
    first_use: UseLink,
}

pub(crate) struct BlockData {
    pub(crate) region: PackedOption<Region>,
    pub(crate) args: SmallVec<[Value; 4]>,
    pub(crate) first: PackedOption<Op>,
    pub(crate) last: PackedOption<Op>,
}

pub(crate) struct RegionData {
    pub(crate) op: PackedOption<Op>,
    pub(crate) blocks: SmallVec<[Block; 1]>,
}

struct OpNameInfo {
    name: Box<str>,
    def: Option<&'static OpDef>,
}

/// Types interned once per context so hot paths need no hashing.
struct CommonTypes {
    elems: [Type; 8],
    index: Type,
    none: Type,
}

/// Owner of all IR entities and uniquing tables.
pub struct Context {
    strings: StringInterner,
    types: Interner<Type, TypeData>,
    attrs: Interner<Attribute, AttrData>,
    /// File/line/column locations are unique per op, so they are stored
    /// without uniquing; other locations are interned.
    locs: PrimaryMap<Location, LocData>,
    loc_map: rustc_hash::FxHashMap<LocData, Location>,
    op_name_map: rustc_hash::FxHashMap<Box<str>, OpName>,
    op_names: PrimaryMap<OpName, OpNameInfo>,
    pub(crate) ops: PrimaryMap<Op, OpData>,
    pub(crate) values: PrimaryMap<Value, ValueData>,
    pub(crate) blocks: PrimaryMap<Block, BlockData>,
    pub(crate) regions: PrimaryMap<Region, RegionData>,
    common: CommonTypes,
    unknown_loc: Location,
    unit_attr: Attribute,
}

impl Default for Context {
    fn default() -> Self {
        Self::new()
    }
}

impl Context {
    pub fn new() -> Context {
        let mut types = Interner::default();
        let elems = ElemType::ALL.map(|e| types.intern(TypeData::Elem(e)));
        let index = types.intern(TypeData::Index);
        let none = types.intern(TypeData::None);
        let mut locs = PrimaryMap::new();
        let unknown_loc = locs.push(LocData::Unknown);
        let mut loc_map = rustc_hash::FxHashMap::default();
        loc_map.insert(LocData::Unknown, unknown_loc);
        let mut attrs = Interner::default();
        let unit_attr = attrs.intern(AttrData::Unit);
        Context {
            strings: StringInterner::default(),
            types,
            attrs,
            locs,
            loc_map,
            op_name_map: Default::default(),
            op_names: PrimaryMap::new(),
            ops: PrimaryMap::new(),
            values: PrimaryMap::new(),
            blocks: PrimaryMap::new(),
            regions: PrimaryMap::new(),
            common: CommonTypes { elems, index, none },
            unknown_loc,
            unit_attr,
        }
    }

    // ----- strings -----

    pub fn sym(&mut self, s: &str) -> Symbol {
        self.strings.intern(s)
    }

    pub fn lookup_sym(&self, s: &str) -> Option<Symbol> {
        self.strings.lookup(s)
    }

    pub fn sym_str(&self, s: Symbol) -> &str {
        self.strings.get(s)
    }

    // ----- op names -----

    /// Interns an op name and resolves it against the registry.
    pub fn op_name_id(&mut self, name: &str) -> OpName {
        if let Some(&id) = self.op_name_map.get(name) {
            return id;
        }
        let id = self.op_names.push(OpNameInfo { name: name.into(), def: lookup_op(name) });
        self.op_name_map.insert(name.into(), id);
        id
    }

    pub fn op_name_str(&self, name: OpName) -> &str {
        &self.op_names[name].name
    }

    pub fn op_name_def(&self, name: OpName) -> Option<&'static OpDef> {
        self.op_names[name].def
    }

    // ----- types -----

    pub fn intern_type(&mut self, data: TypeData) -> Type {
        self.types.intern(data)
    }

    pub fn type_data(&self, t: Type) -> &TypeData {
        self.types.get(t)
    }

    /// The id of `data` if some IR already uses that type.
    pub fn lookup_type(&self, data: &TypeData) -> Option<Type> {
        self.types.lookup(data)
    }

    pub fn elem_type(&self, e: ElemType) -> Type {
        self.common.elems[e as usize]
    }

    pub fn index_type(&self) -> Type {
        self.common.index
    }

    pub fn none_type(&self) -> Type {
        self.common.none
    }

    pub fn tensor_type(&mut self, shape: &[i64], elem: ElemType) -> Type {
        self.intern_type(TypeData::tensor(shape, elem))
    }

    /// The tensor type behind `t`, if it is one.
    pub fn as_tensor(&self, t: Type) -> Option<&TensorType> {
        self.type_data(t).as_tensor()
    }

    // ----- attributes -----

    pub fn attr(&mut self, data: AttrData) -> Attribute {
        self.attrs.intern(data)
    }

    pub fn attr_data(&self, a: Attribute) -> &AttrData {
        self.attrs.get(a)
    }

    pub fn unit_attr(&self) -> Attribute {
        self.unit_attr
    }

    pub fn i64_attr(&mut self, v: i64) -> Attribute {
        let ty = self.elem_type(ElemType::I64);
        self.attr(AttrData::Int { value: v, ty })
    }

    pub fn f64_attr(&mut self, v: f64) -> Attribute {
        let ty = self.elem_type(ElemType::F64);
        self.attr(AttrData::Float { bits: v.to_bits(), ty })
    }

    pub fn bool_attr(&mut self, v: bool) -> Attribute {
        self.attr(AttrData::Bool(v))
    }

    pub fn str_attr(&mut self, s: &str) -> Attribute {
        self.attr(AttrData::Str(s.into()))
    }

    pub fn type_attr(&mut self, t: Type) -> Attribute {
        self.attr(AttrData::Type(t))
    }

    pub fn i64_list_attr(&mut self, v: &[i64]) -> Attribute {
        self.attr(AttrData::I64Array(v.to_vec()))
    }

    pub fn array_attr(&mut self, v: Vec<Attribute>) -> Attribute {
        self.attr(AttrData::Array(v))
    }

    pub fn symbol_ref_attr(&mut self, name: &str) -> Attribute {
        let s = self.sym(name);
        self.attr(AttrData::SymbolRef(s))
    }

    /// A dictionary attribute; entries are sorted and deduplicated (last wins).
    pub fn dict_attr(&mut self, mut entries: Vec<NamedAttr>) -> Attribute {
        self.sort_named_attrs(&mut entries);
        self.attr(AttrData::Dict(entries))
    }

    pub fn dense_attr(&mut self, ty: Type, data: DenseData) -> Attribute {
        self.attr(AttrData::Dense { ty, data })
    }

    /// Sorts by name (string order) and removes duplicate names, keeping the last.
    pub fn sort_named_attrs(&self, entries: &mut Vec<NamedAttr>) {
        entries.reverse();
        entries.sort_by(|a, b| self.sym_str(a.name).cmp(self.sym_str(b.name)));
        entries.dedup_by_key(|a| a.name);
    }

    /// Integer value of an integer (or boolean) attribute.
    pub fn attr_as_i64(&self, a: Attribute) -> Option<i64> {
        match self.attr_data(a) {
            AttrData::Int { value, .. } => Some(*value),
            AttrData::Bool(b) => Some(*b as i64),
            _ => None,
        }
    }

    /// Float value of a float or integer attribute.
    pub fn attr_as_f64(&self, a: Attribute) -> Option<f64> {
        match self.attr_data(a) {
            AttrData::Float { bits, .. } => Some(f64::from_bits(*bits)),
            AttrData::Int { value, .. } => Some(*value as f64),
            _ => None,
        }
    }

    /// Integers of `[1, 2]` or `array<i64: 1, 2>`.
    pub fn attr_as_i64_list(&self, a: Attribute) -> Option<Vec<i64>> {
        match self.attr_data(a) {
            AttrData::I64Array(v) => Some(v.clone()),
            AttrData::Array(v) => v.iter().map(|&x| self.attr_as_i64(x)).collect(),
            _ => None,
        }
    }

    pub fn attr_as_str(&self, a: Attribute) -> Option<&str> {
        match self.attr_data(a) {
            AttrData::Str(s) => Some(s),
            _ => None,
        }
    }

    /// A unit attribute or `true`/`false`.
    pub fn attr_as_flag(&self, a: Attribute) -> Option<bool> {
        match self.attr_data(a) {
            AttrData::Unit => Some(true),
            AttrData::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// Looks up `key` in a dictionary or dialect attribute.
    pub fn attr_field(&self, a: Attribute, key: &str) -> Option<Attribute> {
        let key = self.lookup_sym(key)?;
        match self.attr_data(a) {
            AttrData::Dict(v) | AttrData::Dialect { params: v, .. } => {
                v.iter().find(|n| n.name == key).map(|n| n.value)
            }
            _ => None,
        }
    }

    // ----- locations -----

    pub fn loc(&mut self, data: LocData) -> Location {
        if matches!(data, LocData::FileLineCol { .. }) {
            return self.locs.push(data);
        }
        if let Some(&l) = self.loc_map.get(&data) {
            return l;
        }
        let l = self.locs.push(data.clone());
        self.loc_map.insert(data, l);
        l
    }

    pub fn loc_data(&self, l: Location) -> &LocData {
        &self.locs[l]
    }

    pub fn unknown_loc(&self) -> Location {
        self.unknown_loc
    }

    pub fn file_loc(&mut self, file: &str, line: u32, col: u32) -> Location {
        let file = self.sym(file);
        self.loc(LocData::FileLineCol { file, line, col })
    }

    /// The first file/line/column found in `l` (through names and fusions).
    pub fn loc_file_line_col(&self, l: Location) -> Option<(&str, u32, u32)> {
        match self.loc_data(l) {
            LocData::Unknown => None,
            LocData::FileLineCol { file, line, col } => Some((self.sym_str(*file), *line, *col)),
            LocData::Name { child, .. } => child.and_then(|c| self.loc_file_line_col(c)),
            LocData::Fused(v) => v.iter().find_map(|&c| self.loc_file_line_col(c)),
        }
    }

    // ----- operations -----

    pub fn op_name(&self, op: Op) -> &str {
        self.op_name_str(self.ops[op].name)
    }

    pub fn op_name_of(&self, op: Op) -> OpName {
        self.ops[op].name
    }

    /// The registered definition of `op` (None only for unregistered ops,
    /// which the parser rejects).
    pub fn op_def(&self, op: Op) -> Option<&'static OpDef> {
        self.op_name_def(self.ops[op].name)
    }

    pub fn is_erased(&self, op: Op) -> bool {
        self.ops[op].erased
    }

    pub fn num_operands(&self, op: Op) -> usize {
        self.ops[op].operands.len()
    }

    pub fn operand(&self, op: Op, i: usize) -> Value {
        self.ops[op].operands[i].value
    }

    pub fn operands(&self, op: Op) -> impl ExactSizeIterator<Item = Value> + '_ {
        self.ops[op].operands.iter().map(|o| o.value)
    }

    pub fn operand_vec(&self, op: Op) -> SmallVec<[Value; 4]> {
        self.operands(op).collect()
    }

    pub fn results(&self, op: Op) -> &[Value] {
        &self.ops[op].results
    }

    pub fn result(&self, op: Op, i: usize) -> Value {
        self.ops[op].results[i]
    }

    pub fn num_results(&self, op: Op) -> usize {
        self.ops[op].results.len()
    }

    pub fn attrs(&self, op: Op) -> &[NamedAttr] {
        &self.ops[op].attrs
    }

    pub fn get_attr(&self, op: Op, name: &str) -> Option<Attribute> {
        let sym = self.lookup_sym(name)?;
        self.get_attr_sym(op, sym)
    }

    pub fn get_attr_sym(&self, op: Op, name: Symbol) -> Option<Attribute> {
        self.ops[op].attrs.iter().find(|a| a.name == name).map(|a| a.value)
    }

    pub fn has_attr(&self, op: Op, name: &str) -> bool {
        self.get_attr(op, name).is_some()
    }

    pub fn attr_i64(&self, op: Op, name: &str) -> Option<i64> {
        self.get_attr(op, name).and_then(|a| self.attr_as_i64(a))
    }

    pub fn attr_f64(&self, op: Op, name: &str) -> Option<f64> {
        self.get_attr(op, name).and_then(|a| self.attr_as_f64(a))
    }

    pub fn attr_i64_list(&self, op: Op, name: &str) -> Option<Vec<i64>> {
        self.get_attr(op, name).and_then(|a| self.attr_as_i64_list(a))
    }

    pub fn attr_str(&self, op: Op, name: &str) -> Option<&str> {
        self.get_attr(op, name).and_then(|a| self.attr_as_str(a))
    }

    /// True when the flag attribute is present as a unit or as `true`.
    pub fn attr_flag(&self, op: Op, name: &str) -> bool {
        self.get_attr(op, name).and_then(|a| self.attr_as_flag(a)).unwrap_or(false)
    }

    pub fn regions(&self, op: Op) -> &[Region] {
        &self.ops[op].regions
    }

    pub fn op_loc(&self, op: Op) -> Location {
        self.ops[op].loc
    }

    pub fn op_block(&self, op: Op) -> Option<Block> {
        self.ops[op].block.expand()
    }

    /// The op whose region holds `op`.
    pub fn parent_op(&self, op: Op) -> Option<Op> {
        let block = self.op_block(op)?;
        let region = self.blocks[block].region.expand()?;
        self.regions[region].op.expand()
    }

    pub fn next_op(&self, op: Op) -> Option<Op> {
        self.ops[op].next.expand()
    }

    pub fn prev_op(&self, op: Op) -> Option<Op> {
        self.ops[op].prev.expand()
    }

    /// True if `ancestor` is `op` or (transitively) contains it.
    pub fn is_ancestor(&self, ancestor: Op, mut op: Op) -> bool {
        loop {
            if op == ancestor {
                return true;
            }
            match self.parent_op(op) {
                Some(p) => op = p,
                None => return false,
            }
        }
    }

    pub fn has_trait(&self, op: Op, t: crate::Traits) -> bool {
        self.op_def(op).is_some_and(|d| d.has(t))
    }

    /// The type of result `i` of `op`.
    pub fn result_type(&self, op: Op, i: usize) -> Type {
        self.value_type(self.result(op, i))
    }

    // ----- values -----

    pub fn value_type(&self, v: Value) -> Type {
        self.values[v].ty
    }

    /// The tensor type of `v`, if it is a tensor.
    pub fn value_tensor(&self, v: Value) -> Option<&TensorType> {
        self.as_tensor(self.value_type(v))
    }

    pub fn value_def(&self, v: Value) -> ValueDef {
        self.values[v].def
    }

    pub fn defining_op(&self, v: Value) -> Option<Op> {
        match self.values[v].def {
            ValueDef::Result { op, .. } => Some(op),
            ValueDef::BlockArg { .. } => None,
        }
    }

    /// The block in which `v` is defined.
    pub fn value_block(&self, v: Value) -> Option<Block> {
        match self.values[v].def {
            ValueDef::Result { op, .. } => self.op_block(op),
            ValueDef::BlockArg { block, .. } => Some(block),
        }
    }

    pub fn uses(&self, v: Value) -> UseIter<'_> {
        UseIter { ctx: self, next: self.values[v].first_use.get() }
    }

    pub fn has_uses(&self, v: Value) -> bool {
        self.values[v].first_use.get().is_some()
    }

    pub fn num_uses(&self, v: Value) -> usize {
        self.uses(v).count()
    }

    /// The distinct ops using `v`, in use-list order.
    pub fn users(&self, v: Value) -> SmallVec<[Op; 4]> {
        let mut out: SmallVec<[Op; 4]> = SmallVec::new();
        // A value with thousands of users (an operand of every op in a
        // long chain) must not cost a quadratic scan.
        let mut seen: Option<rustc_hash::FxHashSet<Op>> = None;
        for u in self.uses(v) {
            let new = match &mut seen {
                Some(s) => s.insert(u.op),
                None if out.len() < 16 => !out.contains(&u.op),
                None => {
                    let mut s: rustc_hash::FxHashSet<Op> = out.iter().copied().collect();
                    let new = s.insert(u.op);
                    seen = Some(s);
                    new
                }
            };
            if new {
                out.push(u.op);
            }
        }
        out
    }

    // ----- blocks and regions -----

    pub fn block_args(&self, b: Block) -> &[Value] {
        &self.blocks[b].args
    }

    pub fn block_region(&self, b: Block) -> Option<Region> {
        self.blocks[b].region.expand()
    }

    pub fn block_parent_op(&self, b: Block) -> Option<Op> {
        self.block_region(b).and_then(|r| self.regions[r].op.expand())
    }

    pub fn block_ops(&self, b: Block) -> OpIter<'_> {
        OpIter { ctx: self, next: self.blocks[b].first.expand() }
    }

    pub fn block_first_op(&self, b: Block) -> Option<Op> {
        self.blocks[b].first.expand()
    }

    pub fn block_last_op(&self, b: Block) -> Option<Op> {
        self.blocks[b].last.expand()
    }

    pub fn region_blocks(&self, r: Region) -> &[Block] {
        &self.regions[r].blocks
    }

    pub fn region_parent(&self, r: Region) -> Option<Op> {
        self.regions[r].op.expand()
    }

    /// The single block of region `i` of `op`, if that region has exactly one.
    pub fn single_block(&self, op: Op, region: usize) -> Option<Block> {
        let r = *self.ops[op].regions.get(region)?;
        match self.regions[r].blocks.as_slice() {
            [b] => Some(*b),
            _ => None,
        }
    }

    /// Every op nested under `root` (excluding `root`), in pre-order.
    pub fn nested_ops(&self, root: Op) -> Vec<Op> {
        let mut out = Vec::new();
        self.walk_pre(root, &mut |op| {
            if op != root {
                out.push(op);
            }
        });
        out
    }

    /// Visits `root` and every nested op in pre-order.
    pub fn walk_pre(&self, root: Op, f: &mut dyn FnMut(Op)) {
        // An explicit stack: the walk's depth is the IR's, which the user controls.
        let mut stack = vec![root];
        while let Some(op) = stack.pop() {
            f(op);
            let at = stack.len();
            self.push_children(op, &mut stack);
            stack[at..].reverse();
        }
    }

    /// Visits every nested op and then `root`, in post-order.
    pub fn walk_post(&self, root: Op, f: &mut dyn FnMut(Op)) {
        // (op, children already pushed): an op is visited when met the second time.
        let mut stack = vec![(root, false)];
        let mut children = Vec::new();
        while let Some((op, expanded)) = stack.pop() {
            if expanded {
                f(op);
                continue;
            }
            stack.push((op, true));
            children.clear();
            self.push_children(op, &mut children);
            stack.extend(children.iter().rev().map(|&c| (c, false)));
        }
    }

    /// Appends the ops directly inside `op`'s regions, in order.
    fn push_children(&self, op: Op, out: &mut Vec<Op>) {
        for &r in &self.ops[op].regions {
            for &b in &self.regions[r].blocks {
                let mut cur = self.blocks[b].first.expand();
                while let Some(child) = cur {
                    out.push(child);
                    cur = self.ops[child].next.expand();
                }
            }
        }
    }

    /// Number of live operations in the arena (including detached ones).
    pub fn num_live_ops(&self) -> usize {
        self.ops.values().filter(|o| !o.erased).count()
    }

    // ----- raw mutation, used by the rewriter and the parser -----

    pub(crate) fn create_op_raw(
        &mut self,
        name: OpName,
        operands: &[Value],
        result_types: &[Type],
        attrs: SmallVec<[NamedAttr; 2]>,
        regions: SmallVec<[Region; 1]>,
        loc: Location,
    ) -> Op {
        let op = self.ops.push(OpData {
            name,
            operands: operands
                .iter()
                .map(|&value| Operand { value, prev: UseLink::NONE, next: UseLink::NONE })
                .collect(),
            results: SmallVec::new(),
            attrs,
            regions,
            loc,
            block: None.into(),
            prev: None.into(),
            next: None.into(),
            erased: false,
        });
        for i in 0..operands.len() {
            self.link_use(op, i as u32);
        }
        let results: SmallVec<[Value; 1]> = result_types
            .iter()
            .enumerate()
            .map(|(i, &ty)| {
                self.values.push(ValueData {
                    ty,
                    def: ValueDef::Result { op, index: i as u32 },
                    first_use: UseLink::NONE,
                })
            })
            .collect();
        self.ops[op].results = results;
        for i in 0..self.ops[op].regions.len() {
            let r = self.ops[op].regions[i];
            self.regions[r].op = op.into();
        }
        op
    }

    fn operand_slot(&mut self, u: Use) -> &mut Operand {
        &mut self.ops[u.op].operands[u.index as usize]
    }

    fn link_use(&mut self, op: Op, index: u32) {
        let v = self.ops[op].operands[index as usize].value;
        let head = self.values[v].first_use;
        {
            let slot = &mut self.ops[op].operands[index as usize];
            slot.prev = UseLink::NONE;
            slot.next = head;
        }
        let me = UseLink::some(Use { op, index });
        if let Some(h) = head.get() {
            self.operand_slot(h).prev = me;
        }
        self.values[v].first_use = me;
    }

    fn unlink_use(&mut self, op: Op, index: u32) {
        let (v, prev, next) = {
            let s = &self.ops[op].operands[index as usize];
            (s.value, s.prev, s.next)
        };
        match prev.get() {
            Some(p) => self.operand_slot(p).next = next,
            None => self.values[v].first_use = next,
        }
        if let Some(n) = next.get() {
            self.operand_slot(n).prev = prev;
        }
        let s = &mut self.ops[op].operands[index as usize];
        s.prev = UseLink::NONE;
        s.next = UseLink::NONE;
    }

    pub(crate) fn set_operand_raw(&mut self, op: Op, index: usize, v: Value) {
        self.unlink_use(op, index as u32);
        self.ops[op].operands[index].value = v;
        self.link_use(op, index as u32);
    }

    pub(crate) fn set_operands_raw(&mut self, op: Op, vals: &[Value]) {
        for i in 0..self.ops[op].operands.len() {
            self.unlink_use(op, i as u32);
        }
        self.ops[op].operands =
            vals.iter().map(|&value| Operand { value, prev: UseLink::NONE, next: UseLink::NONE }).collect();
        for i in 0..vals.len() {
            self.link_use(op, i as u32);
        }
    }

    pub(crate) fn drop_all_operand_uses(&mut self, op: Op) {
        for i in 0..self.ops[op].operands.len() {
            self.unlink_use(op, i as u32);
        }
    }

    pub(crate) fn replace_all_uses_raw(&mut self, from: Value, to: Value) {
        if from == to {
            return;
        }
        while let Some(u) = self.values[from].first_use.get() {
            self.set_operand_raw(u.op, u.index as usize, to);
        }
    }

    pub(crate) fn set_value_type_raw(&mut self, v: Value, ty: Type) {
        self.values[v].ty = ty;
    }

    pub(crate) fn create_block_raw(&mut self, arg_types: &[Type]) -> Block {
        let b = self.blocks.push(BlockData {
            region: None.into(),
            args: SmallVec::new(),
            first: None.into(),
            last: None.into(),
        });
        for &ty in arg_types {
            self.add_block_arg_raw(b, ty);
        }
        b
    }

    pub(crate) fn add_block_arg_raw(&mut self, b: Block, ty: Type) -> Value {
        let index = self.blocks[b].args.len() as u32;
        let v =
            self.values.push(ValueData { ty, def: ValueDef::BlockArg { block: b, index }, first_use: UseLink::NONE });
        self.blocks[b].args.push(v);
        v
    }

    pub(crate) fn insert_block_arg_raw(&mut self, b: Block, at: usize, ty: Type) -> Value {
        let v = self.values.push(ValueData {
            ty,
            def: ValueDef::BlockArg { block: b, index: at as u32 },
            first_use: UseLink::NONE,
        });
        self.blocks[b].args.insert(at, v);
        self.renumber_block_args(b);
        v
    }

    pub(crate) fn erase_block_arg_raw(&mut self, b: Block, index: usize) {
        self.blocks[b].args.remove(index);
        self.renumber_block_args(b);
    }

    /// Keeps the arguments `i` of `b` with `keep[i]`, in one pass.
    pub(crate) fn retain_block_args_raw(&mut self, b: Block, keep: &[bool]) {
        let mut i = 0;
        self.blocks[b].args.retain(|_| {
            i += 1;
            keep.get(i - 1).copied().unwrap_or(true)
        });
        self.renumber_block_args(b);
    }

    fn renumber_block_args(&mut self, b: Block) {
        for i in 0..self.blocks[b].args.len() {
            let v = self.blocks[b].args[i];
            self.values[v].def = ValueDef::BlockArg { block: b, index: i as u32 };
        }
    }

    pub(crate) fn create_region_raw(&mut self) -> Region {
        self.regions.push(RegionData { op: None.into(), blocks: SmallVec::new() })
    }

    pub(crate) fn append_block_raw(&mut self, r: Region, b: Block) {
        self.blocks[b].region = r.into();
        self.regions[r].blocks.push(b);
    }

    /// Links a detached `op` into block `b` before `before` (or at the end).
    pub(crate) fn link_op(&mut self, op: Op, b: Block, before: Option<Op>) {
        debug_assert!(self.ops[op].block.is_none(), "op is already in a block");
        let prev = match before {
            Some(n) => self.ops[n].prev,
            None => self.blocks[b].last,
        };
        self.ops[op].block = b.into();
        self.ops[op].prev = prev;
        self.ops[op].next = before.into();
        match prev.expand() {
            Some(p) => self.ops[p].next = op.into(),
            None => self.blocks[b].first = op.into(),
        }
        match before {
            Some(n) => self.ops[n].prev = op.into(),
            None => self.blocks[b].last = op.into(),
        }
    }

    /// Removes `op` from its block (it stays alive, detached).
    pub(crate) fn unlink_op(&mut self, op: Op) {
        let Some(b) = self.ops[op].block.expand() else { return };
        let (prev, next) = (self.ops[op].prev, self.ops[op].next);
        match prev.expand() {
            Some(p) => self.ops[p].next = next,
            None => self.blocks[b].first = next,
        }
        match next.expand() {
            Some(n) => self.ops[n].prev = prev,
            None => self.blocks[b].last = prev,
        }
        let d = &mut self.ops[op];
        d.block = None.into();
        d.prev = None.into();
        d.next = None.into();
    }

    /// Erases `op` and everything nested in it. Its results must be unused
    /// outside the erased ops.
    pub(crate) fn erase_op_raw(&mut self, op: Op) {
        self.unlink_op(op);
        let mut all = Vec::new();
        self.walk_post(op, &mut |o| all.push(o));
        for &o in &all {
            self.drop_all_operand_uses(o);
        }
        for &o in &all {
            debug_assert!(
                self.ops[o].results.iter().all(|&r| !self.has_uses(r)),
                "erasing '{}' whose results still have uses",
                self.op_name(o)
            );
            self.ops[o].erased = true;
        }
    }

    pub(crate) fn set_attr_raw(&mut self, op: Op, name: Symbol, value: Attribute) {
        let key = self.strings.get::<Symbol>(name);
        let attrs = &self.ops[op].attrs;
        match attrs.binary_search_by(|a| self.strings.get::<Symbol>(a.name).cmp(key)) {
            Ok(i) => self.ops[op].attrs[i].value = value,
            Err(i) => self.ops[op].attrs.insert(i, NamedAttr { name, value }),
        }
    }

    pub(crate) fn remove_attr_raw(&mut self, op: Op, name: Symbol) -> Option<Attribute> {
        let i = self.ops[op].attrs.iter().position(|a| a.name == name)?;
        Some(self.ops[op].attrs.remove(i).value)
    }

    pub(crate) fn set_loc_raw(&mut self, op: Op, loc: Location) {
        self.ops[op].loc = loc;
    }
}

/// Iterator over the uses of a value.
pub struct UseIter<'a> {
    ctx: &'a Context,
    next: Option<Use>,
}

impl Iterator for UseIter<'_> {
    type Item = Use;
    fn next(&mut self) -> Option<Use> {
        let cur = self.next?;
        self.next = self.ctx.ops[cur.op].operands[cur.index as usize].next.get();
        Some(cur)
    }
}

/// Iterator over the operations of a block, in order.
pub struct OpIter<'a> {
    ctx: &'a Context,
    next: Option<Op>,
}

impl Iterator for OpIter<'_> {
    type Item = Op;
    fn next(&mut self) -> Option<Op> {
        let cur = self.next?;
        self.next = self.ctx.ops[cur].next.expand();
        Some(cur)
    }
}

/// Typed read access to an attribute list: an op's attributes, or those of an
/// op being built (type inference sees the latter).
#[derive(Copy, Clone)]
pub struct AttrView<'a> {
    pub ctx: &'a Context,
    pub attrs: &'a [NamedAttr],
    /// At run time, the call's symbol values: integer lists then read with
    /// their symbolic sizes evaluated (`crate::sym`).
    pub syms: Option<&'a crate::sym::Bindings>,
    /// At compile time, what the enclosing function declares about its
    /// symbols (for layout rules over symbolic sizes).
    pub facts: Option<&'a crate::sym::Facts>,
    /// The op the attributes belong to, when known: without `facts`, its
    /// enclosing function's are read when a rule asks for them.
    pub op: Option<Op>,
}

impl<'a> AttrView<'a> {
    pub fn of_op(ctx: &'a Context, op: Op) -> Self {
        AttrView { ctx, attrs: ctx.attrs(op), syms: None, facts: None, op: Some(op) }
    }

    pub fn of_attrs(ctx: &'a Context, attrs: &'a [NamedAttr]) -> Self {
        AttrView { ctx, attrs, syms: None, facts: None, op: None }
    }

    /// What rules may assume about the symbols: the given facts, else
    /// those of the op's enclosing function, else the defaults.
    pub fn facts(&self) -> std::borrow::Cow<'a, crate::sym::Facts> {
        use std::borrow::Cow;
        match (self.facts, self.op) {
            (Some(f), _) => Cow::Borrowed(f),
            (None, Some(op)) => match crate::sym::Facts::enclosing(self.ctx, op) {
                Some(f) => Cow::Owned(f),
                None => Cow::Borrowed(crate::sym::Facts::defaults()),
            },
            (None, None) => Cow::Borrowed(crate::sym::Facts::defaults()),
        }
    }

    /// The same view, reading sizes with `syms`' values.
    pub fn bound(self, syms: &'a crate::sym::Bindings) -> Self {
        AttrView { syms: Some(syms), ..self }
    }

    pub fn get(&self, name: &str) -> Option<Attribute> {
        let s = self.ctx.lookup_sym(name)?;
        self.attrs.iter().find(|a| a.name == s).map(|a| a.value)
    }

    /// An integer; with [`AttrView::bound`], a symbolic size is evaluated.
    pub fn i64(&self, name: &str) -> Option<i64> {
        let v = self.get(name).and_then(|a| self.ctx.attr_as_i64(a))?;
        match self.syms {
            Some(b) if crate::sym::is_symbolic(v) => b.eval(v).ok(),
            _ => Some(v),
        }
    }

    pub fn f64(&self, name: &str) -> Option<f64> {
        self.get(name).and_then(|a| self.ctx.attr_as_f64(a))
    }

    /// An integer list; with [`AttrView::bound`], symbolic sizes in it are
    /// evaluated (`None` when one cannot be).
    pub fn list(&self, name: &str) -> Option<Vec<i64>> {
        let v = self.get(name).and_then(|a| self.ctx.attr_as_i64_list(a))?;
        match self.syms {
            Some(b) if !crate::sym::is_static(&v) => b.eval_shape(&v).ok().map(|s| s.to_vec()),
            _ => Some(v),
        }
    }

    pub fn flag(&self, name: &str) -> bool {
        self.get(name).and_then(|a| self.ctx.attr_as_flag(a)).unwrap_or(false)
    }

    pub fn str(&self, name: &str) -> Option<&'a str> {
        self.get(name).and_then(|a| self.ctx.attr_as_str(a))
    }

    /// A required integer, or a message naming it.
    pub fn req_i64(&self, name: &str) -> Result<i64, String> {
        self.i64(name).ok_or_else(|| format!("requires integer attribute '{name}'"))
    }

    /// A required integer list, or a message naming it.
    pub fn req_list(&self, name: &str) -> Result<Vec<i64>, String> {
        self.list(name).ok_or_else(|| format!("requires integer list attribute '{name}'"))
    }
}
