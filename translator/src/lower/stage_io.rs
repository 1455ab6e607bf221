//! Stage I/O of the geometry and tessellation stages: per-vertex register arrays, patch
//! constants and the system values only these stages have.
//!
//! A geometry shader reads `v[vertex][register]`, a hull shader `v`/`vicp[vertex][register]`
//! (input control points) and `vocp[vertex][register]` (its own output control points), a
//! domain shader `vicp[vertex][register]` and `vpc[register]` (patch constants). Per-vertex
//! registers become `Input`/`Output` variables that are arrays over the vertices (of the part's
//! vector type; `Position` and clip/cull distances as arrayed built-ins), read with an access
//! chain: immediate vertices once in the entry block, computed ones where they are used, clamped
//! to the array. Patch constants are `Patch` variables; tessellation factors are elements of
//! the `TessLevelOuter`/`TessLevelInner` built-ins (see [`tess`](super::tess)).
//!
//! Linkage rule (also in `docs/bindings.md`): per-vertex elements live at `Location` =
//! register, like every other stage; patch constants at `Location` = register + (highest
//! control-point register of the signature + 1) — computed from the hull shader's output
//! signature and the domain shader's input signature, which describe the same control points —
//! because Vulkan gives per-vertex and per-patch variables one location space while D3D numbers
//! both from 0. Geometry shader outputs of stream `s > 0` (never rasterized) follow those of the
//! streams before them.

use smallvec::SmallVec;
use spirv::{BuiltIn, Decoration, GlslStd450Op as Glsl, Op, StorageClass};

use super::io::{IoFile, IoPart, IoReg, PartKind};
use super::regs::Idx;
use super::{Lowerer, R};
use crate::container::signature::{SignatureElement, SystemValue};
use crate::ir::{DecorationTarget, GlobalId, Operand, Scalar, Type, TypeId, TypeTable, VarId};
use crate::reflect::{ComponentType, InterfacePlacement, InterfaceVar, ShaderStage};
use crate::sm4::{
    Index, Operand as Sm4Operand, OperandType, Primitive, PrimitiveTopology, SystemName,
    TessDomain, TessOutputPrimitive, TessPartitioning,
};

/// What the stage declarations of a geometry, hull or domain shader said, and the state of
/// the hull shader's phase being lowered.
#[derive(Debug, Default)]
pub(crate) struct StageInfo {
    /// `dcl_inputprimitive`.
    pub gs_input: Option<Primitive>,
    /// `dcl_outputtopology` (the first one: every stream of a multi-stream GS emits points).
    pub gs_output: Option<PrimitiveTopology>,
    /// `dcl_maxout`.
    pub gs_max_vertices: Option<u32>,
    /// `dcl_gsinstances`.
    pub gs_instances: Option<u32>,
    /// `dcl_input_control_point_count`.
    pub input_control_points: Option<u32>,
    /// `dcl_output_control_point_count`.
    pub output_control_points: Option<u32>,
    pub domain: Option<TessDomain>,
    pub partitioning: Option<TessPartitioning>,
    pub output_primitive: Option<TessOutputPrimitive>,
    /// `dcl_hs_max_tessfactor`.
    pub max_tess_factor: Option<f32>,
    /// The hull shader has a control-point phase (else its control points pass through).
    pub has_control_point_phase: bool,
    /// The fork/join phase instance being lowered: `vForkInstanceID`/`vJoinInstanceID` (u32).
    pub instance_id: Option<Operand>,
    /// Join phases: the fork phases' outputs (`vpc`), per register and component.
    pub vpc: Vec<[Option<VarId>; 4]>,
    /// A join phase is being lowered (else a fork phase, when `instance_id` is set).
    pub join_phase: bool,
}

/// Vertices per input primitive of a geometry shader.
pub(crate) fn primitive_vertices(p: Primitive) -> Option<u32> {
    Some(match p {
        Primitive::Point => 1,
        Primitive::Line => 2,
        Primitive::Triangle => 3,
        Primitive::LineAdj => 4,
        Primitive::TriangleAdj => 6,
        Primitive::Undefined | Primitive::Patch(_) => return None,
    })
}

/// The tessellation factor a patch-constant element is: (`TessLevelOuter` or not, index).
/// The element's system value says whether it is one (other elements of the register may be
/// plain patch constants); the declaration's name (`finalQuadUeq0EdgeTessFactor`, …) says which
/// factor exactly, else the semantic index does. Without a signature (`synthesized`) the
/// declaration decides alone. Isolines: density is `TessLevelOuter[0]`, detail
/// `TessLevelOuter[1]` (Vulkan's order), whatever the registers.
pub(crate) fn tess_level_of(
    e: &SignatureElement<'_>,
    decl: Option<SystemName>,
    synthesized: bool,
) -> Option<(bool, u8)> {
    use SystemName as N;
    let sv = e.system_value;
    let is_factor = matches!(
        sv,
        SystemValue::FinalQuadEdgeTessFactor
            | SystemValue::FinalQuadInsideTessFactor
            | SystemValue::FinalTriEdgeTessFactor
            | SystemValue::FinalTriInsideTessFactor
            | SystemValue::FinalLineDensityTessFactor
            | SystemValue::FinalLineDetailTessFactor
    );
    if !is_factor && !synthesized {
        return None;
    }
    let by_name = decl.and_then(|n| {
        Some(match n {
            N::FinalQuadUEq0EdgeTessFactor | N::FinalTriUEq0EdgeTessFactor => (true, 0),
            N::FinalQuadVEq0EdgeTessFactor | N::FinalTriVEq0EdgeTessFactor => (true, 1),
            N::FinalQuadUEq1EdgeTessFactor | N::FinalTriWEq0EdgeTessFactor => (true, 2),
            N::FinalQuadVEq1EdgeTessFactor => (true, 3),
            N::FinalQuadUInsideTessFactor | N::FinalTriInsideTessFactor => (false, 0),
            N::FinalQuadVInsideTessFactor => (false, 1),
            N::FinalLineDensityTessFactor => (true, 0),
            N::FinalLineDetailTessFactor => (true, 1),
            _ => return None,
        })
    });
    if by_name.is_some() {
        return by_name;
    }
    let i = e.semantic_index.min(3) as u8;
    Some(match sv {
        SystemValue::FinalQuadEdgeTessFactor | SystemValue::FinalTriEdgeTessFactor => (true, i),
        SystemValue::FinalQuadInsideTessFactor => (false, i.min(1)),
        SystemValue::FinalTriInsideTessFactor => (false, 0),
        SystemValue::FinalLineDensityTessFactor => (true, 0),
        SystemValue::FinalLineDetailTessFactor => (true, 1),
        _ => return None,
    })
}

/// The highest register of a signature's (stream 0) elements, if any.
fn highest_register(sig: Option<&crate::container::signature::Signature<'_>>) -> Option<u32> {
    sig?.elements
        .iter()
        .filter(|e| e.stream == 0 && !e.has_no_register())
        .map(|e| e.register)
        .max()
}

fn highest_declared(regs: &[IoReg]) -> Option<u32> {
    regs.iter().rposition(|r| r.declared).map(|i| i as u32)
}

impl<'p, 'm> Lowerer<'p, 'm> {
    /// Fixes what the declarations of a geometry, hull or domain shader imply before its
    /// interface variables are created: array lengths, pass-through control points, location
    /// bases, execution modes.
    pub(super) fn prepare_stage_io(&mut self) -> R<()> {
        match self.stage {
            ShaderStage::Geometry => {
                let Some(n) = self.stage_info.gs_input.and_then(primitive_vertices) else {
                    return Err(self.unsupported(
                        "geometry shader without a point, line or triangle input primitive",
                    ));
                };
                for r in self
                    .io
                    .file_mut(IoFile::Input)
                    .iter_mut()
                    .filter(|r| r.declared)
                {
                    r.array_len = n;
                }
                if self.io.multi_stream() {
                    let mut base = 0;
                    for s in 0..4u8 {
                        self.io.set_stream_location_base(s, base);
                        let last = self
                            .io
                            .file(IoFile::Output)
                            .iter()
                            .rposition(|r| r.declared && r.streams & (1 << s) != 0);
                        if let Some(last) = last {
                            base += last as u32 + 1;
                        }
                    }
                }
                self.geometry_modes()?;
            }
            ShaderStage::Hull => {
                let inputs = self.stage_info.input_control_points.unwrap_or(0);
                let outputs = self.stage_info.output_control_points.unwrap_or(0);
                if !self.stage_info.has_control_point_phase && outputs > 0 {
                    self.declare_pass_through()?;
                }
                for r in self
                    .io
                    .file_mut(IoFile::Input)
                    .iter_mut()
                    .filter(|r| r.declared)
                {
                    r.array_len = r.array_len.max(inputs).max(1);
                }
                for r in self
                    .io
                    .file_mut(IoFile::Output)
                    .iter_mut()
                    .filter(|r| r.declared)
                {
                    r.array_len = outputs.max(1);
                }
                let base = highest_register(self.sigs.output)
                    .or_else(|| highest_declared(self.io.file(IoFile::Output)))
                    .map_or(0, |r| r + 1);
                self.io.set_patch_location_base(base);
                self.tess_modes()?;
            }
            ShaderStage::Domain => {
                let inputs = self.stage_info.input_control_points.unwrap_or(0);
                for r in self
                    .io
                    .file_mut(IoFile::Input)
                    .iter_mut()
                    .filter(|r| r.declared)
                {
                    r.array_len = r.array_len.max(inputs).max(1);
                }
                let base = highest_register(self.sigs.input)
                    .or_else(|| highest_declared(self.io.file(IoFile::Input)))
                    .map_or(0, |r| r + 1);
                self.io.set_patch_location_base(base);
                self.tess_modes()?;
            }
            _ => {}
        }
        Ok(())
    }

    /// A hull shader without a control-point phase passes its input control points through:
    /// every register of the output signature is declared as an output and read from the
    /// input register with the same number.
    fn declare_pass_through(&mut self) -> R<()> {
        let Some(sig) = self.sigs.output else {
            return Ok(());
        };
        let elements: Vec<(u32, u8)> = sig
            .elements
            .iter()
            .filter(|e| e.stream == 0 && !e.has_no_register())
            .map(|e| (e.register, e.mask))
            .collect();
        for (reg, mask) in elements {
            if reg >= 32 {
                return Err(self.invalid(format!("control point register {reg} (at most 31)")));
            }
            let input_mask: u8 = self.sigs.input.map_or(0, |s| {
                s.elements
                    .iter()
                    .filter(|e| e.register == reg && e.stream == 0)
                    .fold(0, |m, e| m | e.mask)
            });
            for (file, mask) in [(IoFile::Output, mask), (IoFile::Input, input_mask)] {
                if mask == 0 {
                    continue;
                }
                let regs = self.io.file_mut(file);
                if regs.len() <= reg as usize {
                    regs.resize(reg as usize + 1, IoReg::default());
                }
                regs[reg as usize].declared = true;
                regs[reg as usize].mask |= mask;
            }
        }
        Ok(())
    }

    /// Records an interface variable of `file` in the reflection.
    pub(super) fn reflect_file(&mut self, file: IoFile, var: InterfaceVar, g: GlobalId) {
        match file {
            IoFile::Input => self.reflect_io(false, var, g),
            IoFile::Output => self.reflect_io(true, var, g),
            IoFile::PatchInput | IoFile::PatchOutput => {
                self.refl.patch_constants.push(var);
                self.refl_globals.patch_constants.push(g);
            }
        }
    }

    /// The part of a tessellation factor element: one element of `TessLevelOuter` (`float[4]`)
    /// or `TessLevelInner` (`float[2]`), written by the hull shader, read by the domain shader.
    pub(super) fn declare_tess_level_part(
        &mut self,
        e: &SignatureElement<'_>,
        file: IoFile,
        outer: bool,
        index: u8,
    ) -> R<IoPart> {
        let (key, builtin, len, storage): (&'static str, BuiltIn, u32, StorageClass) =
            match (outer, file) {
                (true, IoFile::PatchOutput) => (
                    "TessLevelOuter",
                    BuiltIn::TessLevelOuter,
                    4,
                    StorageClass::Output,
                ),
                (true, _) => (
                    "TessLevelOuterIn",
                    BuiltIn::TessLevelOuter,
                    4,
                    StorageClass::Input,
                ),
                (false, IoFile::PatchOutput) => (
                    "TessLevelInner",
                    BuiltIn::TessLevelInner,
                    2,
                    StorageClass::Output,
                ),
                (false, _) => (
                    "TessLevelInnerIn",
                    BuiltIn::TessLevelInner,
                    2,
                    StorageClass::Input,
                ),
            };
        let fresh = !self.io.has_builtin(key);
        let n = self.b.m.consts.u32(len);
        let arr = self.b.m.types.intern(Type::Array {
            elem: TypeId::F32,
            len: n,
            stride: None,
        });
        let g = self.builtin_global(key, builtin, arr, storage);
        if fresh {
            self.b
                .m
                .decorate(DecorationTarget::Global(g), Decoration::Patch, &[]);
        }
        let mask = if e.mask == 0 { 1 } else { e.mask };
        let var = InterfaceVar {
            semantic_name: e.semantic_name.to_string().into(),
            semantic_index: e.semantic_index,
            register: Some(e.register),
            mask: e.mask,
            component_type: ComponentType::Float,
            placement: InterfacePlacement::BuiltIn {
                builtin: crate::reflect::names::builtin(builtin),
            },
        };
        self.reflect_file(file, var, g);
        Ok(IoPart {
            first: mask.trailing_zeros() as u8,
            count: 1,
            scalar: Scalar::F32,
            global: g,
            kind: PartKind::TessLevel { outer, index },
            loaded: None,
            array_len: 0,
        })
    }

    /// An index of a register operand: its immediate part and, when relative, the whole
    /// index computed at run time (`u32`). A computed index that folded to a constant counts
    /// as immediate.
    fn split_index(&mut self, idx: &Index) -> R<(u32, Idx)> {
        let base = idx.imm32();
        match self.index_value(idx)? {
            Idx::Imm(v) => Ok((base, Idx::Imm(v))),
            Idx::Dyn(Operand::Const(k)) => match self.b.m.consts.scalar_bits(k) {
                Some(bits) => Ok((base, Idx::Imm(bits as u32))),
                None => Ok((base, Idx::Dyn(Operand::Const(k)))),
            },
            Idx::Dyn(o) => Ok((base, Idx::Dyn(o))),
        }
    }

    /// Reads the operands only geometry and tessellation stages have.
    pub(super) fn fetch_stage_operand(
        &mut self,
        op: &Sm4Operand,
        comps: &[u8],
        s: Scalar,
    ) -> R<SmallVec<[Operand; 4]>> {
        let sty = TypeTable::vec(s, 1);
        let mut out: SmallVec<[Operand; 4]> = SmallVec::new();
        match op.ty {
            OperandType::Input
            | OperandType::InputControlPoint
            | OperandType::OutputControlPoint => {
                if op.index_dim() != 2 {
                    return Err(self.invalid(format!(
                        "{} operand without a vertex and a register index",
                        op.ty.name()
                    )));
                }
                let file = if op.ty == OperandType::OutputControlPoint {
                    if self.stage != ShaderStage::Hull || !self.io.patch_phase() {
                        return Err(self.invalid("vocp outside a fork or join phase"));
                    }
                    IoFile::Output
                } else {
                    IoFile::Input
                };
                let (_, vertex) = self.split_index(&op.index(0).expect("two indices"))?;
                let (base, reg) = self.split_index(&op.index(1).expect("two indices"))?;
                for &c in comps {
                    let v = self.vertex_component(file, vertex, base, reg, c)?;
                    out.push(self.b.bitcast(sty, v));
                }
            }
            OperandType::InputPatchConstant => {
                if op.index_dim() != 1 {
                    return Err(self.invalid("vpc operand without a register index"));
                }
                let (base, reg) = self.split_index(&op.index(0).expect("one index"))?;
                for &c in comps {
                    let v = self.patch_constant_component(base, reg, c)?;
                    out.push(self.b.bitcast(sty, v));
                }
            }
            OperandType::InputForkInstanceId | OperandType::InputJoinInstanceId => {
                let join = op.ty == OperandType::InputJoinInstanceId;
                let id = self
                    .stage_info
                    .instance_id
                    .filter(|_| self.stage_info.join_phase == join);
                let Some(id) = id else {
                    return Err(self.invalid(format!(
                        "{} outside a {} phase",
                        op.ty.name(),
                        if join { "join" } else { "fork" }
                    )));
                };
                for _ in comps {
                    out.push(self.b.bitcast(sty, id));
                }
            }
            OperandType::InputDomainPoint
            | OperandType::InputGsInstanceId
            | OperandType::OutputControlPointId => {
                let allowed = match op.ty {
                    OperandType::InputDomainPoint => self.stage == ShaderStage::Domain,
                    OperandType::InputGsInstanceId => self.stage == ShaderStage::Geometry,
                    _ => self.stage == ShaderStage::Hull && !self.io.patch_phase(),
                };
                if !allowed {
                    return Err(self.invalid(format!(
                        "{} in a {} shader",
                        op.ty.name(),
                        self.stage.prefix()
                    )));
                }
                for &c in comps {
                    let (v, _) = self.read_special(op.ty, c)?;
                    out.push(self.b.bitcast(sty, v));
                }
            }
            other => return Err(self.unsupported(format!("reading {} operands", other.name()))),
        }
        Ok(out)
    }

    /// Component `c` (raw `u32` bits) of per-vertex register `reg` (`base` is its immediate
    /// part) of vertex `vertex`. Computed registers choose among the registers of the
    /// `dcl_indexrange` holding `base`; vertices beyond the array read the last one.
    fn vertex_component(
        &mut self,
        file: IoFile,
        vertex: Idx,
        base: u32,
        reg: Idx,
        c: u8,
    ) -> R<Operand> {
        match reg {
            Idx::Imm(r) => self.vertex_register_component(file, vertex, r, c),
            Idx::Dyn(index) => {
                let ranges = if file == IoFile::Input {
                    self.io.ranges(IoFile::Input)
                } else {
                    self.io.ranges(IoFile::Output)
                };
                let Some(range) = ranges
                    .iter()
                    .find(|r| base >= r.first && base < r.first + r.count)
                else {
                    return Err(self.invalid(format!(
                        "register [... + {base}] is not inside a dcl_indexrange"
                    )));
                };
                let (first, count) = (range.first, range.count);
                let mut acc = self.b.u32c(0);
                for k in first..first + count {
                    let v = self.vertex_register_component(file, vertex, k, c)?;
                    let kc = self.b.u32c(k);
                    let hit = self.b.op(Op::IEqual, TypeId::BOOL, &[index, kc]);
                    acc = self.b.op(Op::Select, TypeId::U32, &[hit, v, acc]);
                }
                Ok(acc)
            }
        }
    }

    /// Component `c` (raw `u32`) of per-vertex register `reg` of vertex `vertex`; zero for
    /// components no element covers.
    pub(super) fn vertex_register_component(
        &mut self,
        file: IoFile,
        vertex: Idx,
        reg: u32,
        c: u8,
    ) -> R<Operand> {
        let slot = self.io.file(file).get(reg as usize);
        let Some(pi) = slot.filter(|s| s.declared).and_then(|s| {
            s.parts
                .iter()
                .position(|p| c >= p.first && c < p.first + p.count)
        }) else {
            return Ok(self.b.u32c(0));
        };
        let part = self.io.file(file)[reg as usize].parts[pi].clone();
        if part.array_len == 0 {
            return Err(self.invalid(format!("register {reg} is not a per-vertex register")));
        }
        let storage = if file == IoFile::Input {
            StorageClass::Input
        } else {
            StorageClass::Output
        };
        let value = match vertex {
            Idx::Imm(v) if v >= part.array_len => return Ok(self.b.u32c(0)),
            Idx::Imm(v) if file == IoFile::Input => {
                let key = (file, reg, pi as u8, v);
                match self.io.vertex_load(key) {
                    Some(x) => x,
                    None => {
                        let idx = self.b.u32c(v);
                        let x = self.load_vertex_part(&part, idx, storage, true);
                        self.io.record_vertex_load(key, x);
                        x
                    }
                }
            }
            Idx::Imm(v) => {
                let idx = self.b.u32c(v);
                self.load_vertex_part(&part, idx, storage, false)
            }
            Idx::Dyn(i) => {
                let last = self.b.u32c(part.array_len - 1);
                let idx = self.b.glsl(Glsl::UMin, TypeId::U32, &[i, last]);
                self.load_vertex_part(&part, idx, storage, false)
            }
        };
        let x = self.b.extract(value, c - part.first);
        Ok(self.b.bitcast(TypeId::U32, x))
    }

    /// Loads element `vertex` of a per-vertex part, in the entry block or here.
    fn load_vertex_part(
        &mut self,
        part: &IoPart,
        vertex: Operand,
        storage: StorageClass,
        entry: bool,
    ) -> Operand {
        let emit = |l: &mut Self, op: Op, ty: TypeId, args: &[Operand]| {
            if entry {
                l.entry_op(op, ty, args)
            } else {
                l.b.op(op, ty, args)
            }
        };
        match part.kind {
            PartKind::ClipCull { offset } => {
                let ptr = self.b.m.types.pointer(storage, TypeId::F32);
                let mut comps: SmallVec<[Operand; 4]> = SmallVec::new();
                for i in 0..part.count as u32 {
                    let k = self.b.u32c(offset + i);
                    let p = emit(
                        self,
                        Op::AccessChain,
                        ptr,
                        &[Operand::Global(part.global), vertex, k],
                    );
                    comps.push(emit(self, Op::Load, TypeId::F32, &[p]));
                }
                if comps.len() == 1 {
                    comps[0]
                } else {
                    let ty = TypeTable::vec(Scalar::F32, part.count);
                    emit(self, Op::CompositeConstruct, ty, &comps)
                }
            }
            _ => {
                let ty = TypeTable::vec(part.scalar, part.count);
                let ptr = self.b.m.types.pointer(storage, ty);
                let p = emit(
                    self,
                    Op::AccessChain,
                    ptr,
                    &[Operand::Global(part.global), vertex],
                );
                emit(self, Op::Load, ty, &[p])
            }
        }
    }

    /// Component `c` (raw `u32`) of patch constant `reg`: in a domain shader the patch
    /// inputs, in a hull shader's join phase what the fork phases wrote.
    fn patch_constant_component(&mut self, base: u32, reg: Idx, c: u8) -> R<Operand> {
        match reg {
            Idx::Imm(r) => self.patch_register_component(r, c),
            Idx::Dyn(index) => {
                let Some(range) = self
                    .io
                    .ranges(IoFile::PatchInput)
                    .iter()
                    .find(|r| base >= r.first && base < r.first + r.count)
                else {
                    return Err(
                        self.invalid(format!("vpc[... + {base}] is not inside a dcl_indexrange"))
                    );
                };
                let (first, count) = (range.first, range.count);
                let mut acc = self.b.u32c(0);
                for k in first..first + count {
                    let v = self.patch_register_component(k, c)?;
                    let kc = self.b.u32c(k);
                    let hit = self.b.op(Op::IEqual, TypeId::BOOL, &[index, kc]);
                    acc = self.b.op(Op::Select, TypeId::U32, &[hit, v, acc]);
                }
                Ok(acc)
            }
        }
    }

    fn patch_register_component(&mut self, reg: u32, c: u8) -> R<Operand> {
        if self.stage == ShaderStage::Hull {
            if !self.stage_info.join_phase {
                return Err(self.invalid("vpc outside a join phase"));
            }
            // Registers hold any 32-bit type; callers want the bits.
            let v = match self
                .stage_info
                .vpc
                .get(reg as usize)
                .and_then(|r| r[c as usize])
            {
                Some(v) => self.b.load_var(v),
                None => self.b.u32c(0),
            };
            return Ok(self.b.bitcast(TypeId::U32, v));
        }
        let Some(slot) = self
            .io
            .file(IoFile::PatchInput)
            .get(reg as usize)
            .filter(|s| s.declared)
        else {
            return Ok(self.b.u32c(0));
        };
        let Some(pi) = slot
            .parts
            .iter()
            .position(|p| c >= p.first && c < p.first + p.count)
        else {
            return Ok(self.b.u32c(0));
        };
        let part = slot.parts[pi].clone();
        let value = match part.loaded {
            Some(v) => v,
            None => {
                let v = self.load_part(&part);
                self.io.file_mut(IoFile::PatchInput)[reg as usize].parts[pi].loaded = Some(v);
                v
            }
        };
        let x = self.b.extract(value, c - part.first);
        Ok(self.b.bitcast(TypeId::U32, x))
    }

    /// Writes component `c` of `o[r + base]`: the register of the `dcl_indexrange` holding
    /// `base` that the index names gets `raw`, the others keep their value (an index outside
    /// the range writes nothing).
    pub(super) fn write_output_dynamic(&mut self, index: &Index, c: u8, raw: Operand) -> R<()> {
        let (base, idx) = self.split_index(index)?;
        let ranges = self.io.ranges(self.io.output_file());
        let Some(range) = ranges
            .iter()
            .find(|r| base >= r.first && base < r.first + r.count)
        else {
            return Err(self.invalid(format!("o[... + {base}] is not inside a dcl_indexrange")));
        };
        let (first, count) = (range.first, range.count);
        match idx {
            Idx::Imm(r) => {
                if r >= first && r < first + count {
                    let var = self.output_var(r, c)?;
                    self.b.store_var(var, raw);
                }
            }
            Idx::Dyn(i) => {
                // Registers hold any 32-bit type: select between raw bits.
                let raw = self.b.bitcast(TypeId::U32, raw);
                for k in first..first + count {
                    let declared = self
                        .io
                        .file(self.io.output_file())
                        .get(k as usize)
                        .is_some_and(|r| r.declared);
                    if !declared {
                        continue;
                    }
                    let var = self.output_var(k, c)?;
                    let old = self.b.load_var(var);
                    let old = self.b.bitcast(TypeId::U32, old);
                    let kc = self.b.u32c(k);
                    let hit = self.b.op(Op::IEqual, TypeId::BOOL, &[i, kc]);
                    let v = self.b.op(Op::Select, TypeId::U32, &[hit, raw, old]);
                    self.b.store_var(var, v);
                }
            }
        }
        Ok(())
    }
}
