//! Class linkage (SM5.0 HLSL interfaces): `dcl_function_body`, `dcl_function_table`,
//! `dcl_interface`, `fcall` and the `this` registers.
//!
//! D3D11 binds one class instance per interface slot. The module reads the bound instances
//! from the *class-instance buffer*, a uniform buffer at the reserved register `b15` that the
//! binding policy places like any constant buffer; per slot it holds a 32-byte record
//! (docs/class-linkage.md): `uvec4 this` (the instance's constant buffer, its offset in
//! vectors, its first texture and sampler: what `this[slot]` reads) and `uint table` (the
//! function table the instance's class type gives that slot). `fcall fp#[i][site]` reads the
//! table of slot `# + i` and switches over the tables the interface declares; each case
//! inlines the table's body for that call site (bodies share the caller's registers, so
//! inlining keeps them promotable, as for `call`). A table the interface does not list runs
//! nothing. `cb[r#][…]` (a class instance's constant buffer, chosen at run time) reads every
//! declared buffer and selects the one named; an instruction on `t[r#]` or `s[r#]` (a class
//! instance's texture or sampler) is lowered once per declared register in a switch.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};
use spirv::{Op, StorageClass};

use super::regs::Idx;
use super::resources::Range;
use super::{Lowerer, R};
use crate::binding::Placement;
use crate::ir::{DecorationTarget, GlobalId, Operand, Scalar, Terminator, TypeId, TypeTable};
use crate::reflect::{
    CLASS_INSTANCE_REGISTER, CLASS_SLOT_STRIDE, ClassLinkage, DescriptorType, FunctionTable,
    InterfaceDecl, RegisterClass, ResourceShape,
};
use crate::sm4::{Declaration, Index, InstData, InstRef, Operand as Sm4Operand, OperandType};

use crate::reflect::CLASS_MAX_SLOTS as MAX_SLOTS;

/// Vectors per slot record.
const ROWS_PER_SLOT: u32 = CLASS_SLOT_STRIDE / 16;

#[derive(Debug, Default)]
pub(crate) struct ClassState {
    /// Declared function bodies.
    bodies: HashSet<u32>,
    /// Function tables by ID (bodies by call site), in declaration order.
    tables: Vec<FunctionTable>,
    interfaces: Vec<InterfaceDecl>,
    /// One past the last slot an interface covers.
    slot_count: u32,
    /// The class-instance buffer and its range, once declared.
    buffer: Option<(GlobalId, Range)>,
    /// Table ID → index in `tables`.
    table_index: HashMap<u32, usize>,
    /// Some `cb` operand names its buffer by a register value (`cb[r#][…]`): every
    /// constant buffer is then declared at D3D's maximum size, as dynamically indexed
    /// ones are, since the instance's data may lie past the declared size.
    pub cb_by_register: bool,
    /// While an instruction is lowered once per candidate register of an operand chosen by
    /// a register value (`t[r#]`, `s[r#]`): the register this lowering reads, by file.
    pub register_override: Vec<(OperandType, u32)>,
}

impl ClassState {
    /// The reflection's class linkage (IFCE data is added by the caller, which has the
    /// container); `None` without interfaces.
    pub fn reflection(&self) -> Option<ClassLinkage> {
        if self.interfaces.is_empty() {
            return None;
        }
        Some(ClassLinkage {
            register: CLASS_INSTANCE_REGISTER,
            slot_count: self.slot_count,
            slot_stride: CLASS_SLOT_STRIDE,
            interfaces: self.interfaces.clone(),
            function_tables: self.tables.clone(),
            class_types: Vec::new(),
            class_instances: Vec::new(),
            slot_tables: Vec::new(),
        })
    }
}

impl<'p, 'm> Lowerer<'p, 'm> {
    /// `dcl_function_body`, `dcl_function_table`, `dcl_interface`: recorded and checked
    /// against each other (fxc declares bodies, then tables, then interfaces).
    pub(super) fn class_declaration(&mut self, inst: InstRef<'p>) -> R<bool> {
        let Some(decl) = inst.decl() else {
            return Ok(false);
        };
        if self.prog.version.is_sm51() {
            return Err(self.unsupported(format!(
                "{} in an SM5.1 program (Direct3D 12 has no class linkage)",
                inst.opcode.info().name
            )));
        }
        match decl {
            Declaration::FunctionBody(id) => {
                if !self.classes.bodies.insert(*id) {
                    return Err(self.invalid(format!("fb{id} is declared twice")));
                }
            }
            Declaration::FunctionTable { id, bodies } => {
                if let Some(b) = bodies.iter().find(|b| !self.classes.bodies.contains(b)) {
                    return Err(self.invalid(format!("ft{id} names fb{b}, which is not declared")));
                }
                if self.classes.table_index.contains_key(id) {
                    return Err(self.invalid(format!("ft{id} is declared twice")));
                }
                let c = &mut self.classes;
                c.table_index.insert(*id, c.tables.len());
                c.tables.push(FunctionTable {
                    id: *id,
                    bodies: bodies.to_vec(),
                });
            }
            Declaration::Interface {
                id,
                dynamic_indexed,
                table_length,
                array_length,
                tables,
            } => {
                for t in tables.iter() {
                    let Some(&i) = self.classes.table_index.get(t) else {
                        return Err(
                            self.invalid(format!("fp{id} names ft{t}, which is not declared"))
                        );
                    };
                    let n = self.classes.tables[i].bodies.len();
                    if n != *table_length as usize {
                        return Err(self.invalid(format!(
                            "fp{id} has {table_length} call sites but ft{t} has {n} bodies"
                        )));
                    }
                }
                let array_length = u32::from(*array_length);
                if array_length == 0 {
                    return Err(self.invalid(format!("fp{id} is an array of no interfaces")));
                }
                let end = id.saturating_add(array_length);
                if end > MAX_SLOTS {
                    return Err(self.invalid(format!(
                        "fp{id}[{array_length}] reaches past the {MAX_SLOTS} interface slots"
                    )));
                }
                if let Some(o) = self
                    .classes
                    .interfaces
                    .iter()
                    .find(|o| *id < o.id + o.array_length && o.id < end)
                {
                    return Err(self.invalid(format!("fp{id} overlaps the slots of fp{}", o.id)));
                }
                self.classes.slot_count = self.classes.slot_count.max(end);
                self.classes.interfaces.push(InterfaceDecl {
                    id: *id,
                    array_length,
                    call_sites: *table_length,
                    tables: tables.to_vec(),
                    dynamic_indexed: *dynamic_indexed,
                });
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// Before lowering starts: notes `cb[r#][…]` operands, and refuses SM5.0 `u#` operands
    /// whose register is a register value (which would otherwise read register 0).
    pub(super) fn check_class_operands(&mut self) -> R<()> {
        if self.prog.version.is_sm51() {
            return Ok(());
        }
        let prog = self.prog;
        for inst in prog.iter() {
            if inst.opcode.is_declaration() {
                continue;
            }
            for op in inst.operands {
                if op.ty == OperandType::ConstantBuffer
                    && op.index(0).is_some_and(|i| i.relative.is_some())
                {
                    self.classes.cb_by_register = true;
                }
                if op.ty == OperandType::UnorderedAccessView
                    && op.index(0).is_some_and(|i| i.relative.is_some())
                {
                    self.offset = inst.offset;
                    return Err(self.unsupported(
                        "u# register chosen by a register value (class instances have no UAVs)",
                    ));
                }
            }
        }
        Ok(())
    }

    /// The class-instance buffer, declared on first use.
    fn class_buffer(&mut self) -> R<(GlobalId, Range)> {
        if let Some(b) = self.classes.buffer {
            return Ok(b);
        }
        if self.classes.interfaces.is_empty() {
            return Err(self.invalid("this register or fcall without dcl_interface"));
        }
        let reg = CLASS_INSTANCE_REGISTER;
        if self.res.cbs.contains_key(&reg) {
            return Err(self.unsupported(format!(
                "cb{reg} is declared, and b{reg} holds the class instances (docs/class-linkage.md)"
            )));
        }
        match self.placement(RegisterClass::B, reg, false)? {
            Placement::PushConstant { .. } => {
                return Err(self.unsupported(format!(
                    "the class-instance buffer (b{reg}) placed in push constants"
                )));
            }
            Placement::Descriptor {
                dynamic_offset: Some(_),
                ..
            } => {
                return Err(self.unsupported(format!(
                    "the class-instance buffer (b{reg}) placed with a dynamic descriptor offset"
                )));
            }
            Placement::Descriptor { .. } => {}
        }
        let rows = self.classes.slot_count * ROWS_PER_SLOT;
        let st = self.b.m.row_block(TypeId::UVEC4, rows);
        let mut range = Range {
            space: 0,
            lower: reg,
            upper: Some(reg),
            base: 0,
            array: false,
            descriptor_type: DescriptorType::UniformBuffer,
            dynamic: None,
        };
        let g = self.declare_descriptor(
            RegisterClass::B,
            &mut range,
            reg,
            st,
            StorageClass::Uniform,
            DescriptorType::UniformBuffer,
            ResourceShape::ConstantBuffer {
                size_bytes: rows * 16,
            },
            false,
            false,
        )?;
        self.b
            .m
            .name(DecorationTarget::Global(g), format_args!("class_instances"));
        self.classes.buffer = Some((g, range));
        Ok((g, range))
    }

    /// Row `row` (a `uvec4`) of the class-instance buffer; a dynamic row is clamped into the
    /// buffer.
    fn load_class_row(&mut self, row: Idx) -> R<Operand> {
        let (g, range) = self.class_buffer()?;
        let rows = self.classes.slot_count * ROWS_PER_SLOT;
        let row = match row {
            Idx::Imm(k) => self.b.u32c(k.min(rows - 1)),
            Idx::Dyn(v) => {
                let last = self.b.u32c(rows - 1);
                self.b
                    .glsl(spirv::GlslStd450Op::UMin, TypeId::U32, &[v, last])
            }
        };
        let zero = self.b.u32c(0);
        let ptr = self.b.m.types.pointer(StorageClass::Uniform, TypeId::UVEC4);
        let chain: smallvec::SmallVec<[Operand; 4]> = if range.is_array() {
            let el = self.b.u32c(range.base);
            smallvec::smallvec![Operand::Global(g), el, zero, row]
        } else {
            smallvec::smallvec![Operand::Global(g), zero, row]
        };
        let p = self.b.op(Op::AccessChain, ptr, &chain);
        Ok(self.b.op(Op::Load, TypeId::UVEC4, &[p]))
    }

    /// Slot `base + index` and whether it is below `base + count` (always, for an
    /// immediate index within the count).
    fn slot_of(&mut self, base: u32, count: u32, index: Idx) -> (Idx, Option<Operand>) {
        match index {
            Idx::Imm(k) => (Idx::Imm(base.saturating_add(k)), None),
            Idx::Dyn(v) => {
                let n = self.b.u32c(count);
                let inb = self.b.op(Op::ULessThan, TypeId::BOOL, &[v, n]);
                let slot = if base == 0 {
                    v
                } else {
                    let b = self.b.u32c(base);
                    self.b.op(Op::IAdd, TypeId::U32, &[v, b])
                };
                (Idx::Dyn(slot), Some(inb))
            }
        }
    }

    /// First row of slot `slot`'s record, plus `extra`.
    fn record_row(&mut self, slot: Idx, extra: u32) -> Idx {
        match slot {
            Idx::Imm(s) => Idx::Imm(s.saturating_mul(ROWS_PER_SLOT).saturating_add(extra)),
            Idx::Dyn(v) => {
                let k = self.b.u32c(ROWS_PER_SLOT);
                let r = self.b.op(Op::IMul, TypeId::U32, &[v, k]);
                if extra == 0 {
                    Idx::Dyn(r)
                } else {
                    let e = self.b.u32c(extra);
                    Idx::Dyn(self.b.op(Op::IAdd, TypeId::U32, &[r, e]))
                }
            }
        }
    }

    /// `this[slot]`: the bound instance's constant buffer, its offset, first texture and
    /// first sampler (zero past the declared slots).
    pub(super) fn load_this_row(&mut self, op: &Sm4Operand) -> R<Operand> {
        let index = op
            .index(0)
            .ok_or_else(|| self.invalid("this operand without a slot"))?;
        let i = self.index_value(&index)?;
        let slots = self.classes.slot_count;
        let (slot, inb) = self.slot_of(0, slots, i);
        if let Idx::Imm(s) = slot
            && s >= slots
        {
            self.class_buffer()?;
            return Ok(self.b.splat(Scalar::U32, 4, 0));
        }
        let row = self.record_row(slot, 0);
        let v = self.load_class_row(row)?;
        Ok(match inb {
            None => v,
            Some(inb) => {
                let zero = self.b.splat(Scalar::U32, 4, 0);
                let bv = TypeTable::vec(Scalar::Bool, 4);
                let cond = self.b.op(Op::CompositeConstruct, bv, &[inb, inb, inb, inb]);
                self.b.op(Op::Select, TypeId::UVEC4, &[cond, v, zero])
            }
        })
    }

    /// `fcall fp#[i][site]`: a switch on the function table bound to slot `# + i` whose
    /// cases inline each declared table's body for `site`.
    pub(super) fn fcall(&mut self, inst: &InstRef<'p>) -> R<()> {
        let InstData::FunctionIndex(site) = inst.data else {
            return Err(self.invalid("fcall without a call site"));
        };
        let op = inst
            .operands
            .first()
            .filter(|o| o.ty == OperandType::Interface)
            .ok_or_else(|| self.invalid("fcall without an fp# operand"))?;
        let id = self.imm_register(op)?;
        let iface = self
            .classes
            .interfaces
            .iter()
            .find(|i| i.id == id)
            .cloned()
            .ok_or_else(|| self.invalid(format!("fp{id} is not declared")))?;
        if site >= iface.call_sites {
            return Err(self.invalid(format!(
                "fcall of call site {site} of fp{id}, which has {}",
                iface.call_sites
            )));
        }
        let index = match op.index(1) {
            Some(i) => {
                if i.relative.is_some() && !iface.dynamic_indexed {
                    return Err(self.invalid(format!(
                        "fp{id} indexed by a register but not declared dynamicindexed"
                    )));
                }
                self.index_value(&i)?
            }
            None => Idx::Imm(0),
        };
        if let Idx::Imm(k) = index
            && k >= iface.array_length
        {
            return Err(self.invalid(format!(
                "fp{id}[{k}] is past its {} interfaces",
                iface.array_length
            )));
        }
        let (slot, inb) = self.slot_of(id, iface.array_length, index);
        let row = self.record_row(slot, 1);
        let record = self.load_class_row(row)?;
        let mut table = self.b.extract(record, 0);
        if let Some(inb) = inb {
            // Past the array: no table (no case runs).
            let none = self.b.u32c(u32::MAX);
            table = self.b.op(Op::Select, TypeId::U32, &[inb, table, none]);
        }
        // The cases: each declared table once, with its body for this call site.
        let mut cases: Vec<(u32, u32)> = Vec::new();
        for &t in &iface.tables {
            if cases.iter().any(|c| c.0 == t) {
                continue;
            }
            let ti = self.classes.table_index[&t];
            cases.push((t, self.classes.tables[ti].bodies[site as usize]));
        }
        if cases.is_empty() {
            return Ok(());
        }
        let mut bodies = Vec::with_capacity(cases.len());
        for &(_, fb) in &cases {
            let key = (OperandType::FunctionBody, fb);
            self.check_call(key)?;
            let range = self
                .flow
                .labels
                .iter()
                .find(|l| l.0 == key)
                .map(|l| l.1.clone())
                .ok_or_else(|| self.invalid(format!("fb{fb} has no label")))?;
            bodies.push((key, range));
        }
        let block = self.b.current();
        let exit = self.b.new_block();
        let targets: Vec<(u32, crate::ir::BlockId)> = cases
            .iter()
            .map(|&(t, _)| (t, self.b.new_block()))
            .collect();
        self.b.terminate(Terminator::Switch {
            selector: table,
            default: exit,
            cases: targets.clone(),
        });
        self.b.f.block_mut(block).join = Some(exit);
        for ((_, target), (key, range)) in targets.into_iter().zip(bodies) {
            self.b.begin(target);
            self.lower_inlined(key, range, "function body")?;
            self.b.terminate(Terminator::Branch(exit));
        }
        self.b.begin(exit);
        Ok(())
    }

    /// `cb[r#][offset]` in SM5.0: the row of whichever declared constant buffer the register
    /// names (zero when it names none, or the row is past the buffer's array).
    pub(super) fn load_row_any_cb(&mut self, reg: &Index, offset: &Index) -> R<Operand> {
        let id = self.index_value(reg)?;
        let id = self.idx_operand(id);
        let off = self.index_value(offset)?;
        let mut ids: Vec<u32> = self.res.cbs.keys().copied().collect();
        ids.sort_unstable();
        let mut acc = self.b.splat(Scalar::F32, 4, 0);
        let bv = TypeTable::vec(Scalar::Bool, 4);
        for k in ids {
            let info = self.res.cbs[&k].clone();
            let kc = self.b.u32c(k);
            let mut cond = self.b.op(Op::IEqual, TypeId::BOOL, &[id, kc]);
            let row = if let Some(m) = info.push {
                self.load_push_row(info.global, m, off)
            } else {
                let rows = info.rows.max(1);
                let clamped = match off {
                    Idx::Imm(r) => self.b.u32c(r.min(rows - 1)),
                    Idx::Dyn(v) => {
                        let last = self.b.u32c(rows - 1);
                        let n = self.b.u32c(rows);
                        let inb = self.b.op(Op::ULessThan, TypeId::BOOL, &[v, n]);
                        cond = self.b.op(Op::LogicalAnd, TypeId::BOOL, &[cond, inb]);
                        self.b
                            .glsl(spirv::GlslStd450Op::UMin, TypeId::U32, &[v, last])
                    }
                };
                if let Idx::Imm(r) = off
                    && r >= rows
                {
                    continue;
                }
                let zero = self.b.u32c(0);
                let ptr = self.b.m.types.pointer(StorageClass::Uniform, TypeId::VEC4);
                let chain: smallvec::SmallVec<[Operand; 4]> = if info.range.is_array() {
                    // Its first element (plus its dynamic offset, when placed with one).
                    let el = self.descriptor_index(&info.range, None)?;
                    smallvec::smallvec![Operand::Global(info.global), el, zero, clamped]
                } else {
                    smallvec::smallvec![Operand::Global(info.global), zero, clamped]
                };
                let p = self.b.op(Op::AccessChain, ptr, &chain);
                self.b.op(Op::Load, TypeId::VEC4, &[p])
            };
            let cv = self
                .b
                .op(Op::CompositeConstruct, bv, &[cond, cond, cond, cond]);
            acc = self.b.op(Op::Select, TypeId::VEC4, &[cv, row, acc]);
        }
        Ok(acc)
    }

    /// The position of an SM5.0 `t[r#]` or `s[r#]` operand of `inst` not yet given a
    /// register by [`Lowerer::lower_by_register`].
    pub(super) fn register_chosen_operand(&self, inst: &InstRef<'p>) -> Option<usize> {
        if self.prog.version.is_sm51() || inst.opcode.is_declaration() {
            return None;
        }
        inst.operands.iter().position(|o| {
            matches!(o.ty, OperandType::Resource | OperandType::Sampler)
                && o.index(0).is_some_and(|i| i.relative.is_some())
                && !self.classes.register_override.iter().any(|r| r.0 == o.ty)
        })
    }

    /// The register a `t#`/`s#` operand names: its own, or for `t[r#]`/`s[r#]` the one the
    /// current case of [`Lowerer::lower_by_register`] stands for.
    pub fn register_of(&self, op: &Sm4Operand) -> Option<u32> {
        let i = op.index(0)?;
        if i.relative.is_some()
            && let Some(r) = self.classes.register_override.iter().find(|r| r.0 == op.ty)
        {
            return Some(r.1);
        }
        Some(i.imm32())
    }

    /// An instruction whose texture or sampler is chosen by a register value (a class
    /// instance's `this.z`/`this.w` plus an offset): a switch on the value with one case per
    /// declared register of that file that fits the instruction (its extended resource
    /// dimension, when it has one), each lowering the instruction with that register. A value
    /// naming no such register runs no case (the destination keeps its value).
    pub(super) fn lower_by_register(&mut self, inst: InstRef<'p>, pos: usize) -> R<()> {
        let op = &inst.operands[pos];
        let index = op.index(0).expect("a register-chosen operand has an index");
        let sel = self.index_value(&index)?;
        let sel = self.idx_operand(sel);
        let dim = inst.resource_dim().map(|d| d.0);
        let mut candidates: Vec<u32> = match op.ty {
            OperandType::Sampler => self.res.samplers.keys().copied().collect(),
            _ => self
                .res
                .srvs
                .iter()
                .filter(|(_, v)| match (dim, v.kind) {
                    (None, _) => true,
                    (Some(d), super::resources::ViewKind::Typed { dim, .. }) => d == dim,
                    (Some(d), super::resources::ViewKind::Raw) => {
                        d == crate::sm4::ResourceDimension::RawBuffer
                    }
                    (Some(d), super::resources::ViewKind::Structured { .. }) => {
                        d == crate::sm4::ResourceDimension::StructuredBuffer
                    }
                    (Some(d), super::resources::ViewKind::TexelBuffer { stride, .. }) => {
                        d == if stride == 0 {
                            crate::sm4::ResourceDimension::RawBuffer
                        } else {
                            crate::sm4::ResourceDimension::StructuredBuffer
                        }
                    }
                })
                .map(|(k, _)| *k)
                .collect(),
        };
        candidates.sort_unstable();
        if candidates.is_empty() {
            return Err(self.invalid(format!(
                "{}[…] chosen by a register value, but no such {} is declared",
                op.ty.name(),
                op.ty.name()
            )));
        }
        let block = self.b.current();
        let exit = self.b.new_block();
        let targets: Vec<(u32, crate::ir::BlockId)> = candidates
            .iter()
            .map(|&k| (k, self.b.new_block()))
            .collect();
        self.b.terminate(Terminator::Switch {
            selector: sel,
            default: exit,
            cases: targets.clone(),
        });
        self.b.f.block_mut(block).join = Some(exit);
        for (k, target) in targets {
            self.b.begin(target);
            self.classes.register_override.push((op.ty, k));
            let r = self.lower_instruction(inst);
            self.classes.register_override.pop();
            r?;
            self.b.terminate(Terminator::Branch(exit));
        }
        self.b.begin(exit);
        Ok(())
    }
}
