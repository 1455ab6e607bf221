//! Stage inputs and outputs: D3D's `v#`/`o#` registers and system values as SPIR-V
//! interface variables.
//!
//! Every declared register becomes one or more variables, built from the signature elements
//! living in it: elements of one component type share a variable (`Location` = register,
//! `Component` = first component), system values become built-ins. Inputs are loaded once, in
//! the entry block, on first use; outputs are written through promotable per-component
//! variables and stored to the interface at every exit (`ret`), so each output is one store of
//! a whole vector however the program wrote it. Components never written are stored as zero
//! (D3D leaves them undefined; applications read them anyway).
//!
//! Linkage rule (also in `docs/bindings.md`): a register's elements live at
//! `Location = register index`, so stages compiled against matching signatures link.

use smallvec::SmallVec;
use spirv::{BuiltIn, Decoration, ExecutionMode, Op, StorageClass};

use super::{LowerError, Lowerer, R};
use crate::container::signature::{ComponentType as SigType, SignatureElement, SystemValue};
use crate::ir::{DecorationTarget, GlobalId, Operand, Scalar, Type, TypeId, TypeTable, VarId};
use crate::reflect::{ComponentType, InterfacePlacement, InterfaceVar, ShaderStage};
use crate::sm4::{Declaration, InstRef, InterpolationMode, OperandType, SystemName};

/// What a part of a register maps to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PartKind {
    /// A user variable with a `Location`.
    Location,
    /// A built-in read or written as is.
    BuiltIn,
    /// `FragCoord`: `.w` must be turned into clip-space w (1 / FragCoord.w).
    FragCoord,
    /// `FrontFacing` (a bool) as D3D's 0xffffffff / 0.
    FrontFacing,
    /// `FullyCoveredEXT` (a bool) as D3D's `SV_InnerCoverage` uint, 1 / 0.
    FullyCovered,
    /// `VertexIndex − BaseVertex`, `InstanceIndex − BaseInstance`.
    VertexId,
    InstanceId,
    /// A `SampleMask` array element 0.
    SampleMask,
    /// Components `first..` of a clip/cull distance array, starting at array element `offset`.
    ClipCull {
        offset: u32,
    },
    /// One tessellation factor: element `index` of `TessLevelOuter` (`outer`) or
    /// `TessLevelInner`, a `float` array.
    TessLevel {
        outer: bool,
        index: u8,
    },
}

/// Consecutive components of a register held by one interface variable.
#[derive(Debug, Clone)]
pub(crate) struct IoPart {
    pub first: u8,
    pub count: u8,
    pub scalar: Scalar,
    pub global: GlobalId,
    pub kind: PartKind,
    /// The value loaded in the entry block (inputs).
    pub loaded: Option<Operand>,
    /// Per-vertex arrays (GS/HS/DS inputs, HS control-point outputs): the vertex count; 0 for
    /// plain variables.
    pub array_len: u32,
}

/// One declared input or output register.
#[derive(Debug, Clone, Default)]
pub(crate) struct IoReg {
    pub declared: bool,
    pub mask: u8,
    pub sysval: Option<SystemName>,
    /// Components the `_siv`/`_sgv` declaration of `sysval` covers (other elements of the
    /// register are not that system value).
    pub sysval_mask: u8,
    /// GS outputs: the stream whose declaration named `sysval` (the register of another
    /// stream is another output).
    pub sysval_stream: u8,
    pub interp: Option<InterpolationMode>,
    pub parts: SmallVec<[IoPart; 2]>,
    /// Output components as promotable variables.
    pub vars: [Option<VarId>; 4],
    /// Per-vertex registers (`v[n][r]`, `vicp[n][r]`): the largest declared vertex count.
    pub array_len: u32,
    /// GS outputs: the streams (bit per stream) whose declarations name this register.
    pub streams: u8,
    /// GS outputs of streams other than 0: the parts of each stream.
    pub stream_parts: SmallVec<[(u8, SmallVec<[IoPart; 2]>); 1]>,
}

/// Which register file a declared register belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum IoFile {
    /// `v#`, `v[n][#]` (GS, HS control points), `vicp[n][#]` (HS, DS).
    Input,
    /// `o#`; in a hull shader, the control-point phase's outputs.
    Output,
    /// Domain shader `vpc#`.
    PatchInput,
    /// Hull shader fork/join phase `o#`.
    PatchOutput,
}

impl IoFile {
    pub fn is_output(self) -> bool {
        matches!(self, IoFile::Output | IoFile::PatchOutput)
    }
    pub fn is_patch(self) -> bool {
        matches!(self, IoFile::PatchInput | IoFile::PatchOutput)
    }
}

/// A non-register system value operand (`vThreadID`, `oDepth`, …).
#[derive(Debug, Clone)]
pub(crate) struct SpecialIo {
    pub ty: OperandType,
    pub global: GlobalId,
    pub scalar: Scalar,
    pub width: u8,
    pub kind: PartKind,
    pub loaded: Option<Operand>,
    pub var: Option<VarId>,
}

/// A `dcl_indexrange`: registers `first..first + count` may be indexed dynamically.
#[derive(Debug, Clone)]
pub(crate) struct IndexRange {
    pub first: u32,
    pub count: u32,
    /// Function-local copy of the input registers (inputs), made on first dynamic read.
    pub array: Option<GlobalId>,
}

#[derive(Debug, Default)]
pub(crate) struct IoState {
    pub input_ranges: Vec<IndexRange>,
    pub output_ranges: Vec<IndexRange>,
    pub inputs: Vec<IoReg>,
    pub outputs: Vec<IoReg>,
    /// Domain shader patch-constant inputs (`vpc#`).
    pub patch_inputs: Vec<IoReg>,
    /// Hull shader patch-constant outputs (fork/join phase `o#`).
    pub patch_outputs: Vec<IoReg>,
    pub patch_input_ranges: Vec<IndexRange>,
    pub patch_output_ranges: Vec<IndexRange>,
    /// GS: the stream that later output declarations belong to (`dcl_stream`).
    pub current_stream: u8,
    /// GS: the streams `dcl_stream` declared (bit per stream).
    pub declared_streams: u8,
    /// HS: declarations and code belong to a fork or join phase (`o#` are patch constants).
    pub patch_phase: bool,
    /// Location of patch-constant register 0 (one past the last control-point register).
    pub patch_location_base: u32,
    /// GS: Location of output register 0 of each stream.
    pub stream_location_base: [u32; 4],
    /// Per-vertex input reads with an immediate vertex, loaded in the entry block:
    /// (file, register, part, vertex) → value.
    pub vertex_loads: rustc_hash::FxHashMap<(IoFile, u32, u8, u32), Operand>,
    pub special: Vec<SpecialIo>,
    /// Declared special operands, created in `finish_io_declarations`.
    special_decls: Vec<OperandType>,
    /// Clip/cull distance arrays (output): global and size.
    clip_out: Option<(GlobalId, u32)>,
    cull_out: Option<(GlobalId, u32)>,
    clip_in: Option<(GlobalId, u32)>,
    cull_in: Option<(GlobalId, u32)>,
}

fn reg_slot(regs: &mut Vec<IoReg>, reg: u32) -> Option<&mut IoReg> {
    if reg >= 4096 {
        return None;
    }
    if regs.len() <= reg as usize {
        regs.resize(reg as usize + 1, IoReg::default());
    }
    Some(&mut regs[reg as usize])
}

/// The register an I/O operand names and, for per-vertex operands (`v[3][1]`, `vicp[4][0]`),
/// the vertex count: (register, vertex count or 0). Both must be immediate.
fn io_register(op: &crate::sm4::Operand) -> Option<(u32, u32)> {
    let imm = |i: usize| -> Option<u32> {
        op.index(i)?
            .as_immediate()
            .and_then(|v| u32::try_from(v).ok())
    };
    match op.index_dim() {
        1 => Some((imm(0)?, 0)),
        2 => Some((imm(1)?, imm(0)?)),
        _ => None,
    }
}

impl IoState {
    /// The registers of one file.
    pub fn file(&self, f: IoFile) -> &Vec<IoReg> {
        match f {
            IoFile::Input => &self.inputs,
            IoFile::Output => &self.outputs,
            IoFile::PatchInput => &self.patch_inputs,
            IoFile::PatchOutput => &self.patch_outputs,
        }
    }

    pub fn file_mut(&mut self, f: IoFile) -> &mut Vec<IoReg> {
        match f {
            IoFile::Input => &mut self.inputs,
            IoFile::Output => &mut self.outputs,
            IoFile::PatchInput => &mut self.patch_inputs,
            IoFile::PatchOutput => &mut self.patch_outputs,
        }
    }

    /// The file `o#` names now: patch constants in a hull shader's fork and join phases.
    pub fn output_file(&self) -> IoFile {
        if self.patch_phase {
            IoFile::PatchOutput
        } else {
            IoFile::Output
        }
    }

    /// Records an I/O declaration; false when `inst` is not one.
    pub fn declaration(&mut self, inst: InstRef<'_>, stage: ShaderStage) -> R<bool> {
        let Some(decl) = inst.decl() else {
            return Ok(false);
        };
        if let Declaration::Stream = decl {
            let stream = inst.operands.first().and_then(|o| o.register());
            match stream {
                Some(s) if s < 4 && stage == ShaderStage::Geometry => {
                    self.current_stream = s as u8;
                    self.declared_streams |= 1 << s;
                }
                _ => {
                    return Err(LowerError::invalid(
                        inst.offset,
                        "dcl_stream of a stream other than m0..m3",
                    ));
                }
            }
            return Ok(true);
        }
        if let Declaration::IndexRange { count } = decl {
            let Some(op) = inst.operands.first() else {
                return Err(LowerError::invalid(
                    inst.offset,
                    "dcl_indexrange without a register",
                ));
            };
            let Some((reg, _)) = io_register(op) else {
                return Err(LowerError::unsupported(
                    inst.offset,
                    "dcl_indexrange of a relatively addressed register",
                ));
            };
            if *count == 0 || *count > 32 {
                return Err(LowerError::invalid(
                    inst.offset,
                    format!("index range of {count} registers"),
                ));
            }
            let range = IndexRange {
                first: reg,
                count: *count,
                array: None,
            };
            match op.ty {
                OperandType::Input | OperandType::InputControlPoint => {
                    self.input_ranges.push(range)
                }
                OperandType::Output if self.patch_phase => self.patch_output_ranges.push(range),
                // Output control points are read per register through the output arrays.
                OperandType::Output | OperandType::OutputControlPoint => {
                    self.output_ranges.push(range)
                }
                OperandType::InputPatchConstant => self.patch_input_ranges.push(range),
                _ => {
                    return Err(LowerError::unsupported(
                        inst.offset,
                        "dcl_indexrange of this register file",
                    ));
                }
            }
            return Ok(true);
        }
        let is_input = matches!(
            decl,
            Declaration::Input
                | Declaration::InputSgv(_)
                | Declaration::InputSiv(_)
                | Declaration::InputPs(_)
                | Declaration::InputPsSgv(..)
                | Declaration::InputPsSiv(..)
        );
        let is_output = matches!(
            decl,
            Declaration::Output | Declaration::OutputSgv(_) | Declaration::OutputSiv(_)
        );
        if !is_input && !is_output {
            return Ok(false);
        }
        let Some(op) = inst.operands.first() else {
            return Err(LowerError::invalid(
                inst.offset,
                "I/O declaration without a register",
            ));
        };
        let file = match op.ty {
            OperandType::Input | OperandType::InputControlPoint => IoFile::Input,
            OperandType::Output => self.output_file(),
            // A hull shader's join phase reads the fork phases' outputs (no variables).
            OperandType::InputPatchConstant if stage == ShaderStage::Hull => return Ok(true),
            OperandType::InputPatchConstant => IoFile::PatchInput,
            // Read through the control-point output arrays; fork/join instance IDs are
            // provided by the phase loop.
            OperandType::OutputControlPoint
            | OperandType::InputForkInstanceId
            | OperandType::InputJoinInstanceId => return Ok(true),
            other => {
                if !self.special_decls.contains(&other) {
                    self.special_decls.push(other);
                }
                return Ok(true);
            }
        };
        let Some((reg, vertices)) = io_register(op) else {
            return Err(LowerError::unsupported(
                inst.offset,
                "I/O declaration of a relatively addressed register",
            ));
        };
        if vertices > 32 {
            return Err(LowerError::invalid(
                inst.offset,
                format!("per-vertex register array of {vertices} vertices (at most 32)"),
            ));
        }
        let stream = self.current_stream;
        let Some(slot) = reg_slot(self.file_mut(file), reg) else {
            return Err(LowerError::invalid(
                inst.offset,
                format!("register {reg} out of range"),
            ));
        };
        slot.declared = true;
        slot.mask |= op.mask();
        slot.array_len = slot.array_len.max(vertices);
        if file == IoFile::Output && stage == ShaderStage::Geometry {
            slot.streams |= 1 << stream;
        }
        if let Some(n) = decl.system_name() {
            slot.sysval = Some(n);
            slot.sysval_mask |= op.mask();
            slot.sysval_stream = stream;
        }
        if let Some(m) = decl.interpolation() {
            slot.interp = Some(m);
        }
        Ok(true)
    }
}

fn scalar_of(t: SigType) -> Scalar {
    match t {
        SigType::UInt32 => Scalar::U32,
        SigType::SInt32 => Scalar::I32,
        _ => Scalar::F32,
    }
}

fn reflect_type(s: Scalar) -> ComponentType {
    match s {
        Scalar::U32 | Scalar::Bool => ComponentType::Uint,
        Scalar::I32 => ComponentType::Sint,
        Scalar::F32 => ComponentType::Float,
        Scalar::F64 => ComponentType::Double,
    }
}

/// The built-in a system value maps to for a stage's input or output, if any.
fn builtin_for(sv: SystemValue, stage: ShaderStage, output: bool) -> Option<(BuiltIn, PartKind)> {
    use ShaderStage::*;
    Some(match (sv, stage, output) {
        (SystemValue::Position, Pixel, false) => (BuiltIn::FragCoord, PartKind::FragCoord),
        (SystemValue::Position, _, _) => (BuiltIn::Position, PartKind::BuiltIn),
        (SystemValue::VertexId, Vertex, false) => (BuiltIn::VertexIndex, PartKind::VertexId),
        (SystemValue::InstanceId, Vertex, false) => (BuiltIn::InstanceIndex, PartKind::InstanceId),
        (SystemValue::IsFrontFace, Pixel, false) => (BuiltIn::FrontFacing, PartKind::FrontFacing),
        (SystemValue::SampleIndex, Pixel, false) => (BuiltIn::SampleId, PartKind::BuiltIn),
        (SystemValue::PrimitiveId, Pixel, false) => (BuiltIn::PrimitiveId, PartKind::BuiltIn),
        (SystemValue::PrimitiveId, Geometry, true) => (BuiltIn::PrimitiveId, PartKind::BuiltIn),
        (SystemValue::RenderTargetArrayIndex, _, _) => (BuiltIn::Layer, PartKind::BuiltIn),
        (SystemValue::ViewportArrayIndex, _, _) => (BuiltIn::ViewportIndex, PartKind::BuiltIn),
        (SystemValue::Coverage, Pixel, true) => (BuiltIn::SampleMask, PartKind::SampleMask),
        (SystemValue::Depth, Pixel, true)
        | (SystemValue::DepthGreaterEqual, Pixel, true)
        | (SystemValue::DepthLessEqual, Pixel, true) => (BuiltIn::FragDepth, PartKind::BuiltIn),
        (SystemValue::StencilRef, Pixel, true) => (BuiltIn::FragStencilRefEXT, PartKind::BuiltIn),
        _ => return None,
    })
}

fn system_value_of(n: SystemName) -> SystemValue {
    match n {
        SystemName::Position => SystemValue::Position,
        SystemName::ClipDistance => SystemValue::ClipDistance,
        SystemName::CullDistance => SystemValue::CullDistance,
        SystemName::RenderTargetArrayIndex => SystemValue::RenderTargetArrayIndex,
        SystemName::ViewportArrayIndex => SystemValue::ViewportArrayIndex,
        SystemName::VertexId => SystemValue::VertexId,
        SystemName::PrimitiveId => SystemValue::PrimitiveId,
        SystemName::InstanceId => SystemValue::InstanceId,
        SystemName::IsFrontFace => SystemValue::IsFrontFace,
        SystemName::SampleIndex => SystemValue::SampleIndex,
        _ => SystemValue::Undefined,
    }
}

impl<'p, 'm> Lowerer<'p, 'm> {
    /// A built-in interface variable, created once per key.
    pub fn builtin_global(
        &mut self,
        key: &'static str,
        builtin: BuiltIn,
        pointee: TypeId,
        storage: StorageClass,
    ) -> GlobalId {
        if let Some(&g) = self.builtins.get(key) {
            return g;
        }
        let g = self.b.m.add_global(pointee, storage, None);
        self.b.m.decorate(
            DecorationTarget::Global(g),
            Decoration::BuiltIn,
            &[builtin as u32],
        );
        if self.stage == ShaderStage::Pixel && storage == StorageClass::Input {
            let integer = self
                .b
                .m
                .types
                .scalar(pointee)
                .is_some_and(|s| matches!(s, Scalar::I32 | Scalar::U32));
            if integer {
                self.b
                    .m
                    .decorate(DecorationTarget::Global(g), Decoration::Flat, &[]);
            }
        }
        self.b
            .m
            .name(DecorationTarget::Global(g), format_args!("{key}"));
        self.builtins.insert(key, g);
        g
    }

    /// The signature elements of register `reg` of `file` (GS outputs: of `stream`).
    fn signature_elements(&self, file: IoFile, reg: u32, stream: u8) -> Vec<SignatureElement<'p>> {
        let sig = match file {
            IoFile::Input => self.sigs.input,
            IoFile::Output => self.sigs.output,
            IoFile::PatchInput | IoFile::PatchOutput => self.sigs.patch,
        };
        sig.map(|s| {
            s.elements
                .iter()
                .filter(|e| e.register == reg && e.stream == stream as u32 && !e.has_no_register())
                .cloned()
                .collect()
        })
        .unwrap_or_default()
    }

    /// Creates the interface variables of every declared register.
    pub fn finish_io_declarations(&mut self) -> R<()> {
        self.prepare_stage_io()?;
        for file in [
            IoFile::Input,
            IoFile::Output,
            IoFile::PatchInput,
            IoFile::PatchOutput,
        ] {
            let n = self.io.file(file).len();
            for reg in 0..n as u32 {
                let slot = &self.io.file(file)[reg as usize];
                if !slot.declared {
                    continue;
                }
                let streams = slot.streams;
                if file == IoFile::Output && self.stage == ShaderStage::Geometry {
                    for stream in (0..4u8).filter(|s| streams & (1 << s) != 0) {
                        let parts = self.declare_register(file, reg, stream)?;
                        let slot = &mut self.io.outputs[reg as usize];
                        if stream == 0 {
                            slot.parts = parts;
                        } else {
                            slot.stream_parts.push((stream, parts));
                        }
                    }
                } else {
                    let parts = self.declare_register(file, reg, 0)?;
                    self.io.file_mut(file)[reg as usize].parts = parts;
                }
            }
        }
        let specials = std::mem::take(&mut self.io.special_decls);
        for ty in specials {
            self.declare_special(ty)?;
        }
        self.declare_clip_cull()?;
        Ok(())
    }

    /// The parts (interface variables) of register `reg` of `file`; GS outputs of `stream`.
    fn declare_register(&mut self, file: IoFile, reg: u32, stream: u8) -> R<SmallVec<[IoPart; 2]>> {
        let output = file.is_output();
        let slot = self.io.file(file)[reg as usize].clone();
        let array_len = slot.array_len;
        let mut elements = self.signature_elements(file, reg, stream);
        let synthesized = elements.is_empty();
        if synthesized {
            // No signature: one float element covering the declared mask.
            let sv = slot
                .sysval
                .map(system_value_of)
                .unwrap_or(SystemValue::Undefined);
            elements.push(SignatureElement {
                stream: stream as u32,
                semantic_name: if output { "SV_Target" } else { "TEXCOORD" },
                semantic_index: reg,
                system_value: sv,
                component_type: SigType::Float32,
                register: reg,
                mask: slot.mask,
                rw_mask: slot.mask,
                min_precision: crate::container::signature::MinPrecision::Default,
            });
        }
        // Pixel shader outputs: SV_Target's "system value" is a location.
        let mut parts: SmallVec<[IoPart; 2]> = SmallVec::new();
        let mut user: Vec<&SignatureElement<'_>> = Vec::new();
        for e in &elements {
            let mut sv = e.system_value;
            if sv == SystemValue::Undefined
                && let Some(n) = slot.sysval
                && slot.sysval_stream == stream
                && (e.mask & slot.sysval_mask != 0 || e.mask == 0)
            {
                sv = system_value_of(n);
            }
            if sv == SystemValue::Undefined
                && !file.is_patch()
                && matches!(
                    self.stage,
                    ShaderStage::Geometry | ShaderStage::Hull | ShaderStage::Domain
                )
                && e.semantic_name.eq_ignore_ascii_case("SV_Position")
            {
                // Control points and GS vertices named SV_Position travel in the Position
                // built-in whatever the signature says: compilers mark the hull shader's
                // output and the domain shader's input POS or not as they please, and both
                // sides must agree.
                sv = SystemValue::Position;
            }
            if output && stream != self.rasterized_stream() {
                // Only the rasterized stream (0 unless a stream-output declaration says
                // otherwise) has built-ins: system values of the others travel as plain
                // locations (one built-in variable cannot serve two streams).
                user.push(e);
                continue;
            }
            if file.is_patch()
                && let Some((outer, index)) =
                    super::stage_io::tess_level_of(e, slot.sysval, synthesized)
            {
                // The tessellator gets the processed factor (hull shader output); the domain
                // shader reads the factor the hull shader wrote, as D3D passes it, from a
                // patch location like any other patch constant.
                if file == IoFile::PatchOutput {
                    parts.push(self.declare_tess_level_part(e, file, outer, index)?);
                }
                user.push(e);
                continue;
            }
            if matches!(sv, SystemValue::ClipDistance | SystemValue::CullDistance)
                && !file.is_patch()
            {
                // Gathered into arrays by `declare_clip_cull`.
                continue;
            }
            if let Some((builtin, kind)) = builtin_for(sv, self.stage, output) {
                let part = self.declare_builtin_part(e, builtin, kind, output, array_len)?;
                if output && stream != 0 && self.io.multi_stream() {
                    let t = DecorationTarget::Global(part.global);
                    self.b.m.decorate(t, Decoration::Stream, &[stream as u32]);
                }
                parts.push(part);
                continue;
            }
            if sv == SystemValue::Undefined || sv == SystemValue::Target {
                user.push(e);
                continue;
            }
            return Err(self.unsupported(format!(
                "system value {} ({}) as {} of a {} shader",
                e.semantic_name,
                sv,
                if output { "output" } else { "input" },
                self.stage.prefix()
            )));
        }
        // User elements: one variable per component type, covering their components.
        let mut by_type: SmallVec<[(Scalar, u8); 2]> = SmallVec::new();
        for e in &user {
            let s = scalar_of(e.component_type);
            match by_type.iter_mut().find(|t| t.0 == s) {
                Some(t) => t.1 |= e.mask,
                None => by_type.push((s, e.mask)),
            }
        }
        // One variable per type spans its components from first to last: a component of
        // another type inside that span would share a location and component with it.
        let span = |m: u8| {
            let m = if m == 0 { 0xf } else { m };
            (0xffu8 << m.trailing_zeros()) & (0xff >> m.leading_zeros())
        };
        if by_type.iter().enumerate().any(|(i, a)| {
            by_type[i + 1..]
                .iter()
                .any(|b| span(a.1) & b.1 != 0 || span(b.1) & a.1 != 0)
        }) {
            return Err(self.unsupported(format!(
                "register {reg} with components of different types interleaved"
            )));
        }
        let location = match file {
            IoFile::PatchInput | IoFile::PatchOutput => reg + self.io.patch_location_base,
            IoFile::Output if self.stage == ShaderStage::Geometry => {
                reg + self.io.stream_location_base[stream as usize & 3]
            }
            _ => reg,
        };
        for (s, mask) in by_type {
            let mask = if mask == 0 { 0xf } else { mask };
            let first = mask.trailing_zeros() as u8;
            let last = 7 - mask.leading_zeros() as u8;
            let count = last - first + 1;
            let mut pointee = TypeTable::vec(s, count);
            if array_len > 0 {
                let len = self.b.m.consts.u32(array_len);
                pointee = self.b.m.types.intern(Type::Array {
                    elem: pointee,
                    len,
                    stride: None,
                });
            }
            let storage = if output {
                StorageClass::Output
            } else {
                StorageClass::Input
            };
            let g = self.b.m.add_global(pointee, storage, None);
            let t = DecorationTarget::Global(g);
            self.b.m.decorate(t, Decoration::Location, &[location]);
            if first != 0 {
                self.b.m.decorate(t, Decoration::Component, &[first as u32]);
            }
            if file.is_patch() {
                self.b.m.decorate(t, Decoration::Patch, &[]);
            }
            if output && self.io.multi_stream() {
                self.b.m.decorate(t, Decoration::Stream, &[stream as u32]);
            }
            if !output && self.stage == ShaderStage::Pixel {
                self.decorate_interpolation(g, slot.interp, s);
            }
            let prefix = match file {
                IoFile::Input => "v",
                IoFile::Output => "o",
                IoFile::PatchInput => "vpc",
                IoFile::PatchOutput => "opc",
            };
            self.b.m.name(t, format_args!("{prefix}{reg}"));
            parts.push(IoPart {
                first,
                count,
                scalar: s,
                global: g,
                kind: PartKind::Location,
                loaded: None,
                array_len,
            });
            for e in user.iter().filter(|e| scalar_of(e.component_type) == s) {
                let var = InterfaceVar {
                    semantic_name: e.semantic_name.to_string(),
                    semantic_index: e.semantic_index,
                    register: Some(reg),
                    mask: e.mask,
                    component_type: reflect_type(s),
                    placement: InterfacePlacement::Location {
                        location,
                        component: first as u32,
                    },
                };
                self.reflect_file(file, var, g);
            }
        }
        Ok(parts)
    }

    fn decorate_interpolation(
        &mut self,
        g: GlobalId,
        interp: Option<InterpolationMode>,
        s: Scalar,
    ) {
        let t = DecorationTarget::Global(g);
        if s != Scalar::F32 {
            self.b.m.decorate(t, Decoration::Flat, &[]);
            return;
        }
        use InterpolationMode as I;
        match interp.unwrap_or(I::Linear) {
            I::Constant => self.b.m.decorate(t, Decoration::Flat, &[]),
            I::LinearCentroid => self.b.m.decorate(t, Decoration::Centroid, &[]),
            I::LinearNoPerspective => self.b.m.decorate(t, Decoration::NoPerspective, &[]),
            I::LinearNoPerspectiveCentroid => {
                self.b.m.decorate(t, Decoration::NoPerspective, &[]);
                self.b.m.decorate(t, Decoration::Centroid, &[]);
            }
            I::LinearSample => {
                self.b.m.decorate(t, Decoration::Sample, &[]);
                self.b.m.capability(spirv::Capability::SampleRateShading);
                self.need_feature("sampleRateShading");
            }
            I::LinearNoPerspectiveSample => {
                self.b.m.decorate(t, Decoration::NoPerspective, &[]);
                self.b.m.decorate(t, Decoration::Sample, &[]);
                self.b.m.capability(spirv::Capability::SampleRateShading);
                self.need_feature("sampleRateShading");
            }
            I::Linear | I::Undefined => {}
        }
    }

    fn declare_builtin_part(
        &mut self,
        e: &SignatureElement<'_>,
        builtin: BuiltIn,
        kind: PartKind,
        output: bool,
        array_len: u32,
    ) -> R<IoPart> {
        let storage = if output {
            StorageClass::Output
        } else {
            StorageClass::Input
        };
        let mask = if e.mask == 0 { 1 } else { e.mask };
        let first = mask.trailing_zeros() as u8;
        let (scalar, count, pointee) = match builtin {
            BuiltIn::Position | BuiltIn::FragCoord => (Scalar::F32, 4, TypeId::VEC4),
            BuiltIn::FragDepth => (Scalar::F32, 1, TypeId::F32),
            BuiltIn::FrontFacing => (Scalar::U32, 1, TypeId::BOOL),
            BuiltIn::SampleMask => {
                let len = self.b.m.consts.u32(1);
                let arr = self.b.m.types.intern(Type::Array {
                    elem: TypeId::U32,
                    len,
                    stride: None,
                });
                (Scalar::U32, 1, arr)
            }
            BuiltIn::VertexIndex
            | BuiltIn::InstanceIndex
            | BuiltIn::SampleId
            | BuiltIn::PrimitiveId
            | BuiltIn::Layer
            | BuiltIn::ViewportIndex
            | BuiltIn::FragStencilRefEXT => (Scalar::I32, 1, TypeId::I32),
            _ => (Scalar::F32, 4, TypeId::VEC4),
        };
        let key: &'static str = match (builtin, output) {
            (BuiltIn::Position, true) => "Position",
            (BuiltIn::Position, false) => "PositionIn",
            (BuiltIn::FragCoord, _) => "FragCoord",
            (BuiltIn::FragDepth, _) => "FragDepth",
            (BuiltIn::FrontFacing, _) => "FrontFacing",
            (BuiltIn::SampleMask, true) => "SampleMaskOut",
            (BuiltIn::SampleMask, false) => "SampleMaskIn",
            (BuiltIn::VertexIndex, _) => "VertexIndex",
            (BuiltIn::InstanceIndex, _) => "InstanceIndex",
            (BuiltIn::SampleId, _) => "SampleId",
            (BuiltIn::PrimitiveId, true) => "PrimitiveIdOut",
            (BuiltIn::PrimitiveId, false) => "PrimitiveId",
            (BuiltIn::Layer, true) => "LayerOut",
            (BuiltIn::Layer, false) => "Layer",
            (BuiltIn::ViewportIndex, true) => "ViewportIndexOut",
            (BuiltIn::ViewportIndex, false) => "ViewportIndex",
            (BuiltIn::FragStencilRefEXT, _) => "FragStencilRef",
            _ => "BuiltIn",
        };
        let pointee = if array_len > 0 {
            let len = self.b.m.consts.u32(array_len);
            self.b.m.types.intern(Type::Array {
                elem: pointee,
                len,
                stride: None,
            })
        } else {
            pointee
        };
        let g = self.builtin_global(key, builtin, pointee, storage);
        match builtin {
            BuiltIn::SampleId => {
                self.b.m.capability(spirv::Capability::SampleRateShading);
                self.need_feature("sampleRateShading");
            }
            BuiltIn::PrimitiveId if self.stage == ShaderStage::Pixel => {
                self.b.m.capability(spirv::Capability::Geometry);
                self.need_feature("geometryShader");
            }
            BuiltIn::Layer | BuiltIn::ViewportIndex if self.stage == ShaderStage::Pixel => {
                self.b.m.capability(spirv::Capability::Geometry);
                if builtin == BuiltIn::ViewportIndex {
                    self.b.m.capability(spirv::Capability::MultiViewport);
                    self.need_feature("multiViewport");
                }
            }
            BuiltIn::Layer if self.stage == ShaderStage::Geometry => {}
            BuiltIn::ViewportIndex if self.stage == ShaderStage::Geometry => {
                self.b.m.capability(spirv::Capability::MultiViewport);
                self.need_feature("multiViewport");
            }
            // From a vertex or domain shader: SPIR-V 1.5 (Vulkan 1.2) has a capability per
            // built-in, each with its Vulkan 1.2 feature; before, only the extension's
            // capability exists (and Vulkan asks for VK_EXT_shader_viewport_index_layer).
            BuiltIn::Layer | BuiltIn::ViewportIndex
                if self.opts.target_env.spirv_version() >= (1, 5) =>
            {
                if builtin == BuiltIn::Layer {
                    self.b.m.capability(spirv::Capability::ShaderLayer);
                    self.need_feature("shaderOutputLayer");
                } else {
                    self.b.m.capability(spirv::Capability::ShaderViewportIndex);
                    self.need_feature("shaderOutputViewportIndex");
                    self.need_feature("multiViewport");
                }
            }
            BuiltIn::Layer | BuiltIn::ViewportIndex => {
                self.b
                    .m
                    .capability(spirv::Capability::ShaderViewportIndexLayerEXT);
                self.b.m.extension("SPV_EXT_shader_viewport_index_layer");
                self.need_feature(if builtin == BuiltIn::Layer {
                    "shaderOutputLayer"
                } else {
                    "shaderOutputViewportIndex"
                });
            }
            BuiltIn::FragDepth => {
                self.b.m.execution_mode(ExecutionMode::DepthReplacing, &[]);
                match e.system_value {
                    SystemValue::DepthGreaterEqual => {
                        self.b.m.execution_mode(ExecutionMode::DepthGreater, &[])
                    }
                    SystemValue::DepthLessEqual => {
                        self.b.m.execution_mode(ExecutionMode::DepthLess, &[])
                    }
                    _ => {}
                }
            }
            BuiltIn::FragStencilRefEXT => {
                self.b.m.capability(spirv::Capability::StencilExportEXT);
                self.b.m.extension("SPV_EXT_shader_stencil_export");
            }
            BuiltIn::VertexIndex | BuiltIn::InstanceIndex => {
                self.b.m.capability(spirv::Capability::DrawParameters);
                if self.opts.target_env == crate::options::TargetEnv::Vulkan1_1 {
                    self.b.m.extension("SPV_KHR_shader_draw_parameters");
                }
                self.need_feature("shaderDrawParameters");
            }
            BuiltIn::Position if output && array_len == 0 => {
                // Same position math in every shader that computes it (depth pre-passes).
                self.b
                    .m
                    .decorate(DecorationTarget::Global(g), Decoration::Invariant, &[]);
            }
            _ => {}
        }
        let var = InterfaceVar {
            semantic_name: e.semantic_name.to_string(),
            semantic_index: e.semantic_index,
            register: Some(e.register),
            mask: e.mask,
            component_type: reflect_type(scalar),
            placement: InterfacePlacement::BuiltIn {
                builtin: format!("{builtin:?}"),
            },
        };
        self.reflect_io(output, var, g);
        Ok(IoPart {
            first: if count == 4 { 0 } else { first },
            count,
            scalar,
            global: g,
            kind,
            loaded: None,
            array_len,
        })
    }

    /// Clip and cull distances: every element with the system value, over all registers,
    /// packed in signature order into one array per kind.
    fn declare_clip_cull(&mut self) -> R<()> {
        for output in [false, true] {
            let sig = if output {
                self.sigs.output
            } else {
                self.sigs.input
            };
            let Some(sig) = sig else { continue };
            for (sv, builtin) in [
                (SystemValue::ClipDistance, BuiltIn::ClipDistance),
                (SystemValue::CullDistance, BuiltIn::CullDistance),
            ] {
                let elems: Vec<SignatureElement<'_>> = sig
                    .elements
                    .iter()
                    .filter(|e| e.system_value == sv && e.stream == 0)
                    .cloned()
                    .collect();
                // Only registers the program declares.
                let regs = if output {
                    &self.io.outputs
                } else {
                    &self.io.inputs
                };
                let elems: Vec<_> = elems
                    .into_iter()
                    .filter(|e| regs.get(e.register as usize).is_some_and(|r| r.declared))
                    .collect();
                if elems.is_empty() {
                    continue;
                }
                let total: u32 = elems.iter().map(|e| e.mask.count_ones()).sum();
                if total == 0 || total > 8 {
                    return Err(self.invalid("clip/cull distances must have 1 to 8 components"));
                }
                if self.stage == ShaderStage::Pixel && output {
                    continue;
                }
                let len = self.b.m.consts.u32(total);
                let mut arr = self.b.m.types.intern(Type::Array {
                    elem: TypeId::F32,
                    len,
                    stride: None,
                });
                // Per-vertex registers (GS/HS/DS): one array per vertex.
                let array_len = elems
                    .iter()
                    .map(|e| regs[e.register as usize].array_len)
                    .max()
                    .unwrap_or(0);
                if array_len > 0 {
                    let len = self.b.m.consts.u32(array_len);
                    arr = self.b.m.types.intern(Type::Array {
                        elem: arr,
                        len,
                        stride: None,
                    });
                }
                let storage = if output {
                    StorageClass::Output
                } else {
                    StorageClass::Input
                };
                let key: &'static str = match (sv, output) {
                    (SystemValue::ClipDistance, true) => "ClipDistanceOut",
                    (SystemValue::ClipDistance, false) => "ClipDistanceIn",
                    (_, true) => "CullDistanceOut",
                    (_, false) => "CullDistanceIn",
                };
                let g = self.builtin_global(key, builtin, arr, storage);
                let cap = if sv == SystemValue::ClipDistance {
                    self.need_feature("shaderClipDistance");
                    spirv::Capability::ClipDistance
                } else {
                    self.need_feature("shaderCullDistance");
                    spirv::Capability::CullDistance
                };
                self.b.m.capability(cap);
                let mut offset = 0;
                for e in &elems {
                    let first = e.mask.trailing_zeros() as u8;
                    let count = e.mask.count_ones() as u8;
                    let part = IoPart {
                        first,
                        count,
                        scalar: Scalar::F32,
                        global: g,
                        kind: PartKind::ClipCull { offset },
                        loaded: None,
                        array_len,
                    };
                    let regs = if output {
                        &mut self.io.outputs
                    } else {
                        &mut self.io.inputs
                    };
                    regs[e.register as usize].parts.push(part);
                    let var = InterfaceVar {
                        semantic_name: e.semantic_name.to_string(),
                        semantic_index: e.semantic_index,
                        register: Some(e.register),
                        mask: e.mask,
                        component_type: ComponentType::Float,
                        placement: InterfacePlacement::BuiltIn {
                            builtin: format!("{builtin:?}"),
                        },
                    };
                    self.reflect_io(output, var, g);
                    offset += count as u32;
                }
                let slot = match (sv, output) {
                    (SystemValue::ClipDistance, true) => &mut self.io.clip_out,
                    (SystemValue::ClipDistance, false) => &mut self.io.clip_in,
                    (_, true) => &mut self.io.cull_out,
                    (_, false) => &mut self.io.cull_in,
                };
                *slot = Some((g, total));
            }
        }
        Ok(())
    }

    fn declare_special(&mut self, ty: OperandType) -> R<()> {
        use OperandType as O;
        use ShaderStage as S;
        let allowed = match ty {
            O::OutputDepth
            | O::OutputDepthGreaterEqual
            | O::OutputDepthLessEqual
            | O::OutputCoverageMask
            | O::OutputStencilRef
            | O::InputCoverageMask
            | O::InnerCoverage => self.stage == S::Pixel,
            O::InputThreadId
            | O::InputThreadGroupId
            | O::InputThreadIdInGroup
            | O::InputThreadIdInGroupFlattened => self.stage == S::Compute,
            O::InputGsInstanceId => self.stage == S::Geometry,
            O::OutputControlPointId => self.stage == S::Hull,
            O::InputDomainPoint => self.stage == S::Domain,
            O::InputPrimitiveId => !matches!(self.stage, S::Vertex | S::Compute),
            _ => true,
        };
        if !allowed {
            return Err(self.invalid(format!("{} in a {} shader", ty.name(), self.stage.prefix())));
        }
        let (key, builtin, pointee, scalar, width, output): (
            &'static str,
            BuiltIn,
            TypeId,
            Scalar,
            u8,
            bool,
        ) = match ty {
            O::InputThreadId => (
                "GlobalInvocationId",
                BuiltIn::GlobalInvocationId,
                TypeId::UVEC3,
                Scalar::U32,
                3,
                false,
            ),
            O::InputThreadGroupId => (
                "WorkgroupId",
                BuiltIn::WorkgroupId,
                TypeId::UVEC3,
                Scalar::U32,
                3,
                false,
            ),
            O::InputThreadIdInGroup => (
                "LocalInvocationId",
                BuiltIn::LocalInvocationId,
                TypeId::UVEC3,
                Scalar::U32,
                3,
                false,
            ),
            O::InputThreadIdInGroupFlattened => (
                "LocalInvocationIndex",
                BuiltIn::LocalInvocationIndex,
                TypeId::U32,
                Scalar::U32,
                1,
                false,
            ),
            O::InputPrimitiveId => (
                "PrimitiveId",
                BuiltIn::PrimitiveId,
                TypeId::I32,
                Scalar::I32,
                1,
                false,
            ),
            O::InputCoverageMask => (
                "SampleMaskIn",
                BuiltIn::SampleMask,
                TypeId::VOID,
                Scalar::U32,
                1,
                false,
            ),
            O::InnerCoverage => (
                "FullyCoveredEXT",
                BuiltIn::FullyCoveredEXT,
                TypeId::BOOL,
                Scalar::U32,
                1,
                false,
            ),
            O::OutputDepth | O::OutputDepthGreaterEqual | O::OutputDepthLessEqual => (
                "FragDepth",
                BuiltIn::FragDepth,
                TypeId::F32,
                Scalar::F32,
                1,
                true,
            ),
            O::OutputCoverageMask => (
                "SampleMaskOut",
                BuiltIn::SampleMask,
                TypeId::VOID,
                Scalar::U32,
                1,
                true,
            ),
            O::InputGsInstanceId | O::OutputControlPointId => (
                "InvocationId",
                BuiltIn::InvocationId,
                TypeId::I32,
                Scalar::I32,
                1,
                false,
            ),
            O::InputDomainPoint => (
                "TessCoord",
                BuiltIn::TessCoord,
                TypeId::VEC3,
                Scalar::F32,
                3,
                false,
            ),
            O::OutputStencilRef => (
                "FragStencilRef",
                BuiltIn::FragStencilRefEXT,
                TypeId::I32,
                Scalar::I32,
                1,
                true,
            ),
            other => return Err(self.unsupported(format!("declaration of {}", other.name()))),
        };
        let storage = if output {
            StorageClass::Output
        } else {
            StorageClass::Input
        };
        let (pointee, kind) = if builtin == BuiltIn::SampleMask {
            let len = self.b.m.consts.u32(1);
            (
                self.b.m.types.intern(Type::Array {
                    elem: TypeId::U32,
                    len,
                    stride: None,
                }),
                PartKind::SampleMask,
            )
        } else if builtin == BuiltIn::FullyCoveredEXT {
            (pointee, PartKind::FullyCovered)
        } else {
            (pointee, PartKind::BuiltIn)
        };
        let g = self.builtin_global(key, builtin, pointee, storage);
        match ty {
            O::OutputDepth | O::OutputDepthGreaterEqual | O::OutputDepthLessEqual => {
                self.b.m.execution_mode(ExecutionMode::DepthReplacing, &[]);
                if ty == O::OutputDepthGreaterEqual {
                    self.b.m.execution_mode(ExecutionMode::DepthGreater, &[]);
                } else if ty == O::OutputDepthLessEqual {
                    self.b.m.execution_mode(ExecutionMode::DepthLess, &[]);
                }
            }
            O::OutputStencilRef => {
                self.b.m.capability(spirv::Capability::StencilExportEXT);
                self.b.m.extension("SPV_EXT_shader_stencil_export");
            }
            O::InputPrimitiveId if self.stage == ShaderStage::Pixel => {
                self.b.m.capability(spirv::Capability::Geometry);
                self.need_feature("geometryShader");
            }
            O::InputCoverageMask => {
                self.b.m.capability(spirv::Capability::SampleRateShading);
            }
            O::InnerCoverage => {
                // Conservative rasterization's "the pixel is fully covered" (D3D11.3
                // SV_InnerCoverage); the pipeline enables conservative rasterization.
                self.b
                    .m
                    .capability(spirv::Capability::FragmentFullyCoveredEXT);
                self.b.m.extension("SPV_EXT_fragment_fully_covered");
            }
            _ => {}
        }
        self.io.special.push(SpecialIo {
            ty,
            global: g,
            scalar,
            width,
            kind,
            loaded: None,
            var: None,
        });
        Ok(())
    }

    /// Loads a value in the entry block (so it dominates every use).
    pub(super) fn load_in_entry(&mut self, g: GlobalId, pointee: TypeId) -> Operand {
        let entry = self.b.f.entry();
        let v = self.b.f.add_inst(crate::ir::Inst::new(
            Op::Load,
            pointee,
            smallvec::smallvec![Operand::Global(g)],
        ));
        self.b.f.block_mut(entry).insts.push(v);
        Operand::Value(v)
    }

    pub(super) fn entry_op(&mut self, op: Op, ty: TypeId, args: &[Operand]) -> Operand {
        let entry = self.b.f.entry();
        let v = self.b.f.add_inst(crate::ir::Inst::new(
            op,
            ty,
            crate::ir::Args::from_slice(args),
        ));
        self.b.f.block_mut(entry).insts.push(v);
        Operand::Value(v)
    }

    /// The loaded value of an input part (loaded on first use), in the part's own type.
    pub(super) fn load_part(&mut self, part: &IoPart) -> Operand {
        let pointee = TypeTable::vec(part.scalar, part.count);
        match part.kind {
            PartKind::Location | PartKind::BuiltIn => self.load_in_entry(part.global, pointee),
            PartKind::FragCoord => {
                // D3D's SV_Position.w is clip-space w; FragCoord.w is 1/w.
                let v = self.load_in_entry(part.global, TypeId::VEC4);
                let w = self.entry_op(Op::CompositeExtract, TypeId::F32, &[v, Operand::Lit(3)]);
                let one = self.b.f32c(1.0);
                let rw = self.entry_op(Op::FDiv, TypeId::F32, &[one, w]);
                self.entry_op(Op::CompositeInsert, TypeId::VEC4, &[rw, v, Operand::Lit(3)])
            }
            PartKind::FrontFacing => {
                let v = self.load_in_entry(part.global, TypeId::BOOL);
                let t = self.b.u32c(!0);
                let f = self.b.u32c(0);
                self.entry_op(Op::Select, TypeId::U32, &[v, t, f])
            }
            PartKind::FullyCovered => {
                let v = self.load_in_entry(part.global, TypeId::BOOL);
                let t = self.b.u32c(1);
                let f = self.b.u32c(0);
                self.entry_op(Op::Select, TypeId::U32, &[v, t, f])
            }
            PartKind::VertexId | PartKind::InstanceId => {
                let (key, bi) = if part.kind == PartKind::VertexId {
                    ("BaseVertex", BuiltIn::BaseVertex)
                } else {
                    ("BaseInstance", BuiltIn::BaseInstance)
                };
                let base = self.builtin_global(key, bi, TypeId::I32, StorageClass::Input);
                let v = self.load_in_entry(part.global, TypeId::I32);
                let b = self.load_in_entry(base, TypeId::I32);
                self.entry_op(Op::ISub, TypeId::I32, &[v, b])
            }
            PartKind::SampleMask => {
                let zero = self.b.u32c(0);
                let ptr = self.b.m.types.pointer(StorageClass::Input, TypeId::U32);
                let p = self.entry_op(Op::AccessChain, ptr, &[Operand::Global(part.global), zero]);
                self.entry_op(Op::Load, TypeId::U32, &[p])
            }
            PartKind::TessLevel { index, .. } => {
                let ptr = self.b.m.types.pointer(StorageClass::Input, TypeId::F32);
                let idx = self.b.u32c(index as u32);
                let p = self.entry_op(Op::AccessChain, ptr, &[Operand::Global(part.global), idx]);
                self.entry_op(Op::Load, TypeId::F32, &[p])
            }
            PartKind::ClipCull { offset } => {
                let ptr = self.b.m.types.pointer(StorageClass::Input, TypeId::F32);
                let mut comps: SmallVec<[Operand; 4]> = SmallVec::new();
                for i in 0..part.count as u32 {
                    let idx = self.b.u32c(offset + i);
                    let p =
                        self.entry_op(Op::AccessChain, ptr, &[Operand::Global(part.global), idx]);
                    comps.push(self.entry_op(Op::Load, TypeId::F32, &[p]));
                }
                if comps.len() == 1 {
                    comps[0]
                } else {
                    let ty = TypeTable::vec(Scalar::F32, part.count);
                    self.entry_op(Op::CompositeConstruct, ty, &comps)
                }
            }
        }
    }

    /// Component `c` of input register `reg`, with its scalar kind; zero for components no
    /// part covers.
    pub fn read_input(&mut self, reg: u32, c: u8) -> R<(Operand, Scalar)> {
        let Some(slot) = self.io.inputs.get(reg as usize) else {
            return Err(self.invalid(format!("input register v{reg} is not declared")));
        };
        let Some(pi) = slot
            .parts
            .iter()
            .position(|p| c >= p.first && c < p.first + p.count)
        else {
            return Ok((self.b.u32c(0), Scalar::U32));
        };
        let part = slot.parts[pi].clone();
        let value = match part.loaded {
            Some(v) => v,
            None => {
                let v = self.load_part(&part);
                self.io.inputs[reg as usize].parts[pi].loaded = Some(v);
                v
            }
        };
        let scalar = if part.kind == PartKind::FrontFacing {
            Scalar::U32
        } else {
            part.scalar
        };
        let x = self.b.extract(value, c - part.first);
        Ok((x, scalar))
    }

    /// Components `comps` of input register `reg` as one vector (its own component type), when
    /// they all come from one part of the register: a swizzle of the loaded part, without
    /// per-component extracts. `None` when the components span parts or are not declared.
    pub fn read_input_vector(&mut self, reg: u32, comps: &[u8]) -> Option<Operand> {
        let slot = self.io.inputs.get(reg as usize)?;
        let c0 = comps[0];
        let pi = slot
            .parts
            .iter()
            .position(|p| c0 >= p.first && c0 < p.first + p.count)?;
        let part = &slot.parts[pi];
        if part.kind == PartKind::FrontFacing
            || part.array_len != 0
            || !comps
                .iter()
                .all(|&c| c >= part.first && c < part.first + part.count)
        {
            return None;
        }
        let first = part.first;
        let value = match part.loaded {
            Some(v) => v,
            None => {
                let part = part.clone();
                let v = self.load_part(&part);
                self.io.inputs[reg as usize].parts[pi].loaded = Some(v);
                v
            }
        };
        let sel: SmallVec<[u8; 4]> = comps.iter().map(|&c| c - first).collect();
        if self.b.width_of(value) == 1 {
            let parts: SmallVec<[Operand; 4]> = comps.iter().map(|_| value).collect();
            return Some(self.b.construct(&parts));
        }
        Some(self.b.swizzle(value, &sel))
    }

    /// Component `c` of input register `base + index` (index dynamic), read through a
    /// function-local copy of the `dcl_indexrange` holding `base`; out-of-range indices read 0.
    pub fn read_input_dynamic(&mut self, base: u32, index: Operand, c: u8) -> R<Operand> {
        let Some(ri) = self
            .io
            .input_ranges
            .iter()
            .position(|r| base >= r.first && base < r.first + r.count)
        else {
            return Err(self.invalid(format!("v[... + {base}] is not inside a dcl_indexrange")));
        };
        let range = self.io.input_ranges[ri].clone();
        let arr = match range.array {
            Some(a) => a,
            None => {
                let len = self.b.m.consts.u32(range.count);
                let aty = self.b.m.types.intern(Type::Array {
                    elem: TypeId::UVEC4,
                    len,
                    stride: None,
                });
                let g = self.b.m.add_global(aty, StorageClass::Function, None);
                let ptr = self
                    .b
                    .m
                    .types
                    .pointer(StorageClass::Function, TypeId::UVEC4);
                for i in 0..range.count {
                    let mut comps: SmallVec<[Operand; 4]> = SmallVec::new();
                    for comp in 0..4u8 {
                        let v = self.input_component_in_entry(range.first + i, comp)?;
                        comps.push(self.entry_bitcast_u32(v));
                    }
                    let row = self.entry_op(Op::CompositeConstruct, TypeId::UVEC4, &comps);
                    let idx = self.b.u32c(i);
                    let p = self.entry_op(Op::AccessChain, ptr, &[Operand::Global(g), idx]);
                    let entry = self.b.f.entry();
                    let st = self.b.f.add_inst(crate::ir::Inst::new(
                        Op::Store,
                        TypeId::VOID,
                        smallvec::smallvec![p, row],
                    ));
                    self.b.f.block_mut(entry).insts.push(st);
                }
                self.io.input_ranges[ri].array = Some(g);
                g
            }
        };
        let offset = base - range.first;
        let idx = if offset == 0 {
            index
        } else {
            let k = self.b.u32c(offset);
            self.b.op(Op::IAdd, TypeId::U32, &[index, k])
        };
        let last = self.b.u32c(range.count - 1);
        let clamped = self
            .b
            .glsl(spirv::GlslStd450Op::UMin, TypeId::U32, &[idx, last]);
        let ptr = self.b.m.types.pointer(StorageClass::Function, TypeId::U32);
        let comp = self.b.u32c(c as u32);
        let p = self
            .b
            .op(Op::AccessChain, ptr, &[Operand::Global(arr), clamped, comp]);
        let v = self.b.op(Op::Load, TypeId::U32, &[p]);
        let n = self.b.u32c(range.count);
        let inb = self.b.op(Op::ULessThan, TypeId::BOOL, &[idx, n]);
        let zero = self.b.u32c(0);
        Ok(self.b.op(Op::Select, TypeId::U32, &[inb, v, zero]))
    }

    /// Component `c` of input register `reg`, computed in the entry block (zero when no part
    /// covers it).
    fn input_component_in_entry(&mut self, reg: u32, c: u8) -> R<Operand> {
        let Some(slot) = self.io.inputs.get(reg as usize) else {
            return Err(self.invalid(format!("input register v{reg} is not declared")));
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
                self.io.inputs[reg as usize].parts[pi].loaded = Some(v);
                v
            }
        };
        if part.count == 1 {
            return Ok(value);
        }
        let sty = TypeTable::vec(
            if part.kind == PartKind::FrontFacing {
                Scalar::U32
            } else {
                part.scalar
            },
            1,
        );
        Ok(self.entry_op(
            Op::CompositeExtract,
            sty,
            &[value, Operand::Lit((c - part.first) as u32)],
        ))
    }

    /// `v` as `u32`, computed in the entry block.
    pub(super) fn entry_bitcast_u32(&mut self, v: Operand) -> Operand {
        let ty = self.b.type_of(v);
        if ty == TypeId::U32 {
            return v;
        }
        if let Operand::Const(c) = v
            && let Some(k) = crate::ir::builder::recast_const(
                &mut self.b.m.consts,
                &self.b.m.types,
                c,
                TypeId::U32,
            )
        {
            return Operand::Const(k);
        }
        self.entry_op(Op::Bitcast, TypeId::U32, &[v])
    }

    /// The variable holding component `c` of output register `reg`.
    pub fn output_var(&mut self, reg: u32, c: u8) -> R<VarId> {
        let file = self.io.output_file();
        let Some(slot) = self.io.file(file).get(reg as usize) else {
            return Err(self.invalid(format!("output register o{reg} is not declared")));
        };
        if !slot.declared {
            return Err(self.invalid(format!("output register o{reg} is not declared")));
        }
        if let Some(v) = slot.vars[c as usize] {
            return Ok(v);
        }
        let v = self.b.f.new_var(TypeId::U32);
        self.io.file_mut(file)[reg as usize].vars[c as usize] = Some(v);
        Ok(v)
    }

    /// The special I/O record for a non-register operand type.
    pub fn special(&mut self, ty: OperandType) -> R<usize> {
        if let Some(i) = self.io.special.iter().position(|s| s.ty == ty) {
            return Ok(i);
        }
        // Some system values are used without a declaration; declare on demand.
        self.declare_special(ty)?;
        Ok(self.io.special.len() - 1)
    }

    /// Component `c` of a special input operand.
    pub fn read_special(&mut self, ty: OperandType, c: u8) -> R<(Operand, Scalar)> {
        let i = self.special(ty)?;
        let s = self.io.special[i].clone();
        let value = match s.loaded {
            Some(v) => v,
            None => {
                let part = IoPart {
                    first: 0,
                    count: s.width,
                    scalar: s.scalar,
                    global: s.global,
                    kind: s.kind,
                    loaded: None,
                    array_len: 0,
                };
                let v = self.load_part(&part);
                self.io.special[i].loaded = Some(v);
                v
            }
        };
        let c = c.min(s.width - 1);
        Ok((self.b.extract(value, c), s.scalar))
    }

    /// The variable for a special output operand (`oDepth`, `oMask`, `oStencilRef`).
    pub fn special_output_var(&mut self, ty: OperandType) -> R<VarId> {
        let i = self.special(ty)?;
        if let Some(v) = self.io.special[i].var {
            return Ok(v);
        }
        let v = self.b.f.new_var(TypeId::U32);
        self.io.special[i].var = Some(v);
        Ok(v)
    }

    /// Stores every output variable to the interface (at each exit of the program).
    pub fn store_outputs(&mut self) -> R<()> {
        self.store_output_file(IoFile::Output, 0, None)?;
        for i in 0..self.io.special.len() {
            let s = self.io.special[i].clone();
            let Some(var) = s.var else { continue };
            let raw = self.b.load_var(var);
            let sty = TypeTable::vec(s.scalar, 1);
            let mut v = self.b.bitcast(sty, raw);
            if matches!(
                s.ty,
                OperandType::OutputDepth
                    | OperandType::OutputDepthGreaterEqual
                    | OperandType::OutputDepthLessEqual
            ) {
                // The output merger clamps depth to the viewport's range with D3D's min/max, so
                // NaN becomes the lower bound (§17.10; trap 20). Vulkan without depth clamp
                // does not clamp at all: do it here, against [0, 1].
                let zero = self.b.f32c(0.0);
                let one = self.b.f32c(1.0);
                v = self
                    .b
                    .glsl(spirv::GlslStd450Op::NClamp, TypeId::F32, &[v, zero, one]);
            }
            let part = IoPart {
                first: 0,
                count: 1,
                scalar: s.scalar,
                global: s.global,
                kind: s.kind,
                loaded: None,
                array_len: 0,
            };
            self.store_part(&part, &[v], None);
        }
        Ok(())
    }

    /// Stores the output variables of `file` to its interface variables: for GS outputs, the
    /// parts of `stream`; for per-vertex outputs, element `vertex` of the arrays.
    /// Components never written are stored as zero.
    pub fn store_output_file(
        &mut self,
        file: IoFile,
        stream: u8,
        vertex: Option<Operand>,
    ) -> R<()> {
        let zero = self.b.u32c(0);
        for reg in 0..self.io.file(file).len() {
            let slot = &self.io.file(file)[reg];
            if !slot.declared {
                continue;
            }
            let parts = if stream == 0 {
                slot.parts.clone()
            } else {
                match slot.stream_parts.iter().find(|p| p.0 == stream) {
                    Some(p) => p.1.clone(),
                    None => continue,
                }
            };
            let vars = slot.vars;
            for part in &parts {
                let mut comps: SmallVec<[Operand; 4]> = SmallVec::new();
                for c in part.first..part.first + part.count {
                    let raw = match vars[c as usize] {
                        Some(v) => self.b.load_var(v),
                        None => zero,
                    };
                    let sty = TypeTable::vec(part.scalar, 1);
                    comps.push(self.b.bitcast(sty, raw));
                }
                if let PartKind::TessLevel { outer, .. } = part.kind {
                    comps[0] = self.tess_factor_value(outer, comps[0]);
                }
                let index = if part.array_len > 0 { vertex } else { None };
                self.store_part(part, &comps, index);
            }
        }
        Ok(())
    }

    /// Stores one part; `vertex` selects the element of a per-vertex array.
    pub(super) fn store_part(&mut self, part: &IoPart, comps: &[Operand], vertex: Option<Operand>) {
        let base: SmallVec<[Operand; 2]> = match vertex {
            Some(v) => smallvec::smallvec![Operand::Global(part.global), v],
            None => smallvec::smallvec![Operand::Global(part.global)],
        };
        match part.kind {
            PartKind::SampleMask => {
                let zero = self.b.u32c(0);
                let ptr = self.b.m.types.pointer(StorageClass::Output, TypeId::U32);
                let p = self
                    .b
                    .op(Op::AccessChain, ptr, &[Operand::Global(part.global), zero]);
                self.b.op_void(Op::Store, &[p, comps[0]]);
            }
            PartKind::ClipCull { offset } => {
                let ptr = self.b.m.types.pointer(StorageClass::Output, TypeId::F32);
                for (i, &c) in comps.iter().enumerate() {
                    let idx = self.b.u32c(offset + i as u32);
                    let mut args = base.clone();
                    args.push(idx);
                    let p = self.b.op(Op::AccessChain, ptr, &args);
                    self.b.op_void(Op::Store, &[p, c]);
                }
            }
            PartKind::TessLevel { index, .. } => {
                let ptr = self.b.m.types.pointer(StorageClass::Output, TypeId::F32);
                let idx = self.b.u32c(index as u32);
                let p = self
                    .b
                    .op(Op::AccessChain, ptr, &[Operand::Global(part.global), idx]);
                self.b.op_void(Op::Store, &[p, comps[0]]);
            }
            _ => {
                let v = self.b.construct(comps);
                if vertex.is_some() {
                    let ty = self.b.type_of(v);
                    let ptr = self.b.m.types.pointer(StorageClass::Output, ty);
                    let p = self.b.op(Op::AccessChain, ptr, &base);
                    self.b.op_void(Op::Store, &[p, v]);
                } else {
                    self.b
                        .op_void(Op::Store, &[Operand::Global(part.global), v]);
                }
            }
        }
    }
}
