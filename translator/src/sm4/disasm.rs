//! The fxc-style disassembler (`Display` for [`Program`]).
//!
//! The listing follows the conventions of fxc's output (`sample_indexable(texture2d)(float,
//! float,float,float) r0.xyzw, v1.xyxx, t0.xyzw, s0`, `mov_sat r0.xy, -|v1.zwzz|`,
//! `dcl_constantbuffer CB0[0:0][4], immediateIndexed, space=0`, 2-space block indentation),
//! prints floats so that they parse back bit-exactly, and makes every encoding detail that
//! fxc's syntax cannot show visible as `{…}` annotations, so that an assembler can rebuild
//! the exact tokens. `docs/disassembly.md` is the reference for the syntax.

use std::fmt::{self, Write};

use super::decl::{CustomData, Declaration, NameToken, ReturnTypeToken, UavFlags};
use super::enums::*;
use super::instruction::{ExtOpcode, InstData, InstRef, OpControl, Program, Version};
use super::opcodes::{DataType, Layout, Opcode};
use super::operand::{Components, Index, Operand};

/// Formats a 32-bit float so that parsing it as `f32` gives the same bits: the shortest
/// round-trip decimal (always with a `.` or an exponent), or the raw bits in hex for NaN
/// and infinities.
pub fn format_f32(bits: u32) -> String {
    let v = f32::from_bits(bits);
    if v.is_finite() {
        format!("{v:?}")
    } else {
        format!("{bits:#010x}")
    }
}

/// Formats a 64-bit float like [`format_f32`] (hex bits for NaN and infinities).
pub fn format_f64(bits: u64) -> String {
    let v = f64::from_bits(bits);
    if v.is_finite() {
        format!("{v:?}")
    } else {
        format!("{bits:#018x}")
    }
}

/// Formats a 32-bit immediate for an operand of type `ty`.
fn format_imm32(v: u32, ty: DataType) -> String {
    const SMALL: u32 = 1 << 24;
    match ty {
        DataType::Float => format_f32(v),
        DataType::Int => {
            let i = v as i32;
            if i.unsigned_abs() < SMALL {
                i.to_string()
            } else {
                format!("{v:#x}")
            }
        }
        DataType::Uint => {
            if v < SMALL {
                v.to_string()
            } else {
                format!("{v:#x}")
            }
        }
        DataType::Double | DataType::Any => format_untyped(v),
    }
}

/// Untyped data (moves, immediate constant buffers): small integers as integers, floats of
/// ordinary magnitude as floats, anything else as hex bits.
fn format_untyped(v: u32) -> String {
    let i = v as i32;
    if i.unsigned_abs() <= 1 << 16 {
        return i.to_string();
    }
    let f = f32::from_bits(v);
    let a = f.abs();
    if f.is_normal() && (1e-6..=1e12).contains(&a) {
        format_f32(v)
    } else {
        format!("{v:#x}")
    }
}

/// How an operand is used, which decides what its component suffix means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    /// Destination of an executable instruction: suffix letters are a write mask.
    Dst,
    /// Declared register: suffix letters are a mask.
    Decl,
    /// Source (or relative index): 4 letters are a swizzle, 1 letter a select-1.
    Src,
}

/// Register files whose operands are scalars: no suffix means one component.
fn scalar_by_default(ty: OperandType, role: Role) -> bool {
    use OperandType as T;
    match role {
        Role::Decl => matches!(
            ty,
            T::OutputDepth
                | T::OutputDepthGreaterEqual
                | T::OutputDepthLessEqual
                | T::OutputStencilRef
        ),
        _ => matches!(
            ty,
            T::OutputDepth
                | T::OutputDepthGreaterEqual
                | T::OutputDepthLessEqual
                | T::OutputStencilRef
                | T::OutputCoverageMask
                | T::InputPrimitiveId
                | T::OutputControlPointId
                | T::InputCoverageMask
                | T::InnerCoverage
        ),
    }
}

/// What an operand without a component suffix has.
fn default_components(op: &Operand, role: Role) -> Components {
    if op.is_immediate() {
        // The value count tells 1 from 4 components.
        return if op.components == Components::One {
            Components::One
        } else {
            Components::Mask(0)
        };
    }
    if role == Role::Decl && op.ty == OperandType::ConstantBuffer {
        return Components::Swizzle([0, 1, 2, 3]);
    }
    if scalar_by_default(op.ty, role) {
        Components::One
    } else {
        Components::Zero
    }
}

/// Whether suffix letters are read as a swizzle (4 letters) or select-1 (1 letter), rather
/// than as a write mask.
fn swizzle_letters(op: &Operand, role: Role) -> bool {
    role == Role::Src || (role == Role::Decl && op.ty == OperandType::ConstantBuffer)
}

/// Whether the first index is written right after the register prefix (`r5`, `cb0[3]`)
/// rather than in brackets (`icb[5]`, `v[0][1]`, `vicp[2][0]`).
fn inline_first_index(op: &Operand) -> bool {
    use OperandType as T;
    let first_plain = op.index(0).is_some_and(|i| i.repr == IndexRepr::Imm32);
    first_plain
        && match op.ty {
            T::ImmediateConstantBuffer
            | T::InputControlPoint
            | T::OutputControlPoint
            | T::ThisPointer => false,
            T::Input | T::Output => op.index_dim() < 2,
            _ => true,
        }
}

const XYZW: [char; 4] = ['x', 'y', 'z', 'w'];

/// Printed (as `null`) in place of a declaration operand a hand-built program lacks; the
/// encoder rejects such programs.
const MISSING: Operand = Operand::EMPTY;

fn mask_letters(m: u8) -> String {
    (0..4)
        .filter(|i| m & (1 << i) != 0)
        .map(|i| XYZW[i])
        .collect()
}

/// Collects `{…}` annotations.
#[derive(Default)]
struct Notes(Vec<String>);

impl Notes {
    fn add(&mut self, s: impl Into<String>) {
        self.0.push(s.into());
    }

    fn write(&self, w: &mut dyn Write) -> fmt::Result {
        if !self.0.is_empty() {
            write!(w, " {{{}}}", self.0.join(", "))?;
        }
        Ok(())
    }
}

struct Printer<'a> {
    version: Version,
    /// The program's relative index operands.
    relative: &'a [Operand],
}

impl Printer<'_> {
    fn register_prefix(&self, ty: OperandType) -> String {
        if self.version.is_sm51() && ty.is_descriptor() {
            ty.name().to_uppercase()
        } else {
            ty.name().to_string()
        }
    }

    fn index(&self, w: &mut dyn Write, index: &Index) -> fmt::Result {
        // fxc writes a relative index without immediate part as `r0.x + 0`; an explicit
        // 32-bit zero is marked `0u32`, 64-bit immediate parts `u64`.
        let suffix = match index.repr {
            IndexRepr::Imm64 | IndexRepr::Imm64PlusRelative => "u64",
            IndexRepr::Imm32PlusRelative if index.value == 0 => "u32",
            _ => "",
        };
        match index.relative.and_then(|i| self.relative.get(i as usize)) {
            Some(rel) => {
                self.operand(w, rel, Role::Src, DataType::Any)?;
                write!(w, " + {}{suffix}", index.value)
            }
            None => write!(w, "{}{suffix}", index.value),
        }
    }

    fn operand(&self, w: &mut dyn Write, op: &Operand, role: Role, ty: DataType) -> fmt::Result {
        self.operand_with_index(w, op, role, ty, None)
    }

    /// An operand; `extra_index` is printed as one more bracketed index (`fcall`).
    fn operand_with_index(
        &self,
        w: &mut dyn Write,
        op: &Operand,
        role: Role,
        ty: DataType,
        extra_index: Option<u32>,
    ) -> fmt::Result {
        let mut notes = Notes::default();
        match op.modifier {
            Modifier::Neg => w.write_char('-')?,
            Modifier::Abs => w.write_char('|')?,
            Modifier::AbsNeg => w.write_str("-|")?,
            Modifier::None => {}
        }
        match op.ty {
            OperandType::Immediate32 => {
                w.write_str("l(")?;
                for (i, v) in op.immediates().iter().enumerate() {
                    if i > 0 {
                        w.write_str(", ")?;
                    }
                    w.write_str(&format_imm32(*v, ty))?;
                }
                w.write_char(')')?;
            }
            OperandType::Immediate64 => {
                w.write_str("d(")?;
                for (i, v) in op.immediates64().enumerate() {
                    if i > 0 {
                        w.write_str(", ")?;
                    }
                    w.write_str(&format_f64(v))?;
                }
                w.write_char(')')?;
            }
            _ if role == Role::Decl && self.is_range(op) => {
                let [id, lo, hi] = [0, 1, 2].map(|i| op.index(i).map_or(0, |x| x.value as u32));
                write!(w, "{}{id}[{lo}:", self.register_prefix(op.ty))?;
                if hi == u32::MAX {
                    w.write_char('*')?;
                } else {
                    write!(w, "{hi}")?;
                }
                w.write_char(']')?;
            }
            _ => {
                w.write_str(&self.register_prefix(op.ty))?;
                let inline = inline_first_index(op);
                for (i, index) in op.indices().enumerate() {
                    if i == 0 && inline {
                        write!(w, "{}", index.value)?;
                    } else {
                        w.write_char('[')?;
                        self.index(w, &index)?;
                        w.write_char(']')?;
                    }
                }
            }
        }
        if let Some(i) = extra_index {
            write!(w, "[{i}]")?;
        }
        self.components(w, op, role, &mut notes)?;
        if op.modifier.abs() {
            w.write_char('|')?;
        }
        if op.min_precision != MinPrecision::Default {
            notes.add(op.min_precision.name());
        }
        if op.non_uniform {
            notes.add("nonuniform");
        }
        if op.extended && !op.has_ext_content() {
            notes.add("ext");
        }
        if op.reserved != 0 {
            notes.add(format!("bits={:#x}", op.reserved));
        }
        if op.ext_reserved != 0 {
            notes.add(format!("extbits={:#x}", op.ext_reserved));
        }
        notes.write(w)
    }

    /// Whether a declared operand is an SM5.1 descriptor range (ID, lower, upper bound).
    fn is_range(&self, op: &Operand) -> bool {
        self.version.is_sm51()
            && op.ty.is_descriptor()
            && op.index_dim() == 3
            && op.indices().all(|i| i.repr == IndexRepr::Imm32)
    }

    fn components(
        &self,
        w: &mut dyn Write,
        op: &Operand,
        role: Role,
        notes: &mut Notes,
    ) -> fmt::Result {
        if op.components == default_components(op, role) {
            return Ok(());
        }
        let swizzle_mode = swizzle_letters(op, role);
        match op.components {
            Components::Zero => notes.add("c0"),
            Components::One => notes.add("c1"),
            Components::N => notes.add("cN"),
            Components::Mask(m) => {
                if m != 0 {
                    write!(w, ".{}", mask_letters(m))?;
                }
                if swizzle_mode || m == 0 {
                    notes.add("mask");
                }
            }
            Components::Swizzle(s) => {
                w.write_char('.')?;
                for c in s {
                    w.write_char(XYZW[c as usize & 3])?;
                }
                if !swizzle_mode {
                    notes.add("swz");
                }
            }
            Components::Select1(c) => {
                write!(w, ".{}", XYZW[c as usize & 3])?;
                if !swizzle_mode {
                    notes.add("sel");
                }
            }
        }
        Ok(())
    }

    /// A declared register: an SM5.1 descriptor range (`T0[0:*]`) when the operand has that
    /// shape, otherwise the operand as usual.
    fn decl_operand(&self, w: &mut dyn Write, op: &Operand) -> fmt::Result {
        self.operand(w, op, Role::Decl, DataType::Any)
    }

    fn instruction(&self, w: &mut dyn Write, inst: &InstRef<'_>, indent: &str) -> fmt::Result {
        let info = inst.info();
        let mut notes = Notes::default();
        if inst.reserved_control != 0 {
            notes.add(format!("control={:#x}", inst.reserved_control));
        }
        if inst.long_length {
            notes.add("longlen");
        }
        for p in &inst.padding {
            notes.add(format!("pad={p:#x}"));
        }
        match (&inst.data, info.layout) {
            (InstData::CustomData(c), _) => self.custom_data(w, c, indent),
            (InstData::Decl(d), _) => self.declaration(w, inst, d, notes),
            (_, Layout::InterfaceCall) => {
                self.mnemonic(w, inst, &mut notes)?;
                w.write_char(' ')?;
                // fxc appends the function index to the interface operand: `fp0[0][1]`.
                let index = match inst.data {
                    InstData::FunctionIndex(i) => i,
                    _ => 0,
                };
                self.operand_with_index(
                    w,
                    inst.operands.first().unwrap_or(&MISSING),
                    Role::Src,
                    DataType::Any,
                    Some(index),
                )
            }
            _ => {
                self.mnemonic(w, inst, &mut notes)?;
                let dsts = info.dsts();
                for (i, op) in inst.operands.iter().enumerate() {
                    w.write_str(if i == 0 { " " } else { ", " })?;
                    let role = if i < dsts { Role::Dst } else { Role::Src };
                    self.operand(w, op, role, info.operand_type(i))?;
                }
                Ok(())
            }
        }
    }

    /// Mnemonic with all suffixes, precise mask and instruction annotations.
    fn mnemonic(&self, w: &mut dyn Write, inst: &InstRef<'_>, notes: &mut Notes) -> fmt::Result {
        w.write_str(inst.info().name)?;
        match inst.control {
            OpControl::Sync(flags) => {
                for (bit, suffix) in sync_flags::NAMES {
                    if flags & bit != 0 {
                        w.write_str(suffix)?;
                    }
                }
            }
            OpControl::Test { nonzero } => w.write_str(if nonzero { "_nz" } else { "_z" })?,
            _ => {}
        }
        let mut order = String::new();
        let (mut aoff, mut dim, mut ret) = (None, None, None);
        for ext in inst.ext.iter() {
            match ext {
                ExtOpcode::SampleControls { offsets, reserved } => {
                    order.push('S');
                    aoff = Some(offsets);
                    if reserved != 0 {
                        notes.add(format!("aoffbits={reserved:#x}"));
                    }
                }
                ExtOpcode::ResourceDim {
                    dim: d,
                    stride,
                    reserved,
                } => {
                    order.push('D');
                    dim = Some((d, stride));
                    if reserved != 0 {
                        notes.add(format!("dimbits={reserved:#x}"));
                    }
                }
                ExtOpcode::ReturnType { types, reserved } => {
                    order.push('R');
                    ret = Some(types);
                    if reserved != 0 {
                        notes.add(format!("retbits={reserved:#x}"));
                    }
                }
            }
        }
        let mut canonical: Vec<char> = order.chars().collect();
        canonical.sort_by_key(|c| "SDR".find(*c));
        if order.chars().ne(canonical.iter().copied()) {
            notes.add(format!("extorder={order}"));
        }
        if aoff.is_some() {
            w.write_str("_aoffimmi")?;
        }
        if dim.is_some() {
            w.write_str("_indexable")?;
        }
        if let Some([u, v, t]) = aoff {
            write!(w, "({u},{v},{t})")?;
        }
        if let Some((d, stride)) = dim {
            write!(w, "({}", d.name())?;
            if d == ResourceDimension::StructuredBuffer || stride != 0 {
                write!(w, ", stride={stride}")?;
            }
            w.write_char(')')?;
        }
        if let Some(types) = ret {
            write_types(w, &types)?;
        }
        match inst.control {
            OpControl::ResInfo(t) => w.write_str(t.name())?,
            OpControl::SampleInfo { uint: true } => w.write_str("_uint")?,
            _ => {}
        }
        if inst.saturate {
            w.write_str("_sat")?;
        }
        if inst.precise != 0 {
            if inst.precise == 0xf {
                w.write_str(" [precise]")?;
            } else {
                write!(w, " [precise({})]", mask_letters(inst.precise))?;
            }
        }
        notes.write(w)
    }

    fn declaration(
        &self,
        w: &mut dyn Write,
        inst: &InstRef<'_>,
        decl: &Declaration,
        mut notes: Notes,
    ) -> fmt::Result {
        use Declaration as D;
        let name = inst.info().name;
        let op = inst.operands.first().unwrap_or(&MISSING);
        let name_note = |n: &NameToken, notes: &mut Notes| {
            if n.reserved != 0 {
                notes.add(format!("namebits={:#x}", n.reserved));
            }
        };
        let ret_note = |t: &ReturnTypeToken, notes: &mut Notes| {
            if t.reserved != 0 {
                notes.add(format!("retbits={:#x}", t.reserved));
            }
        };
        // Mnemonic (with suffixes) first, then annotations, then the rest of the line.
        let mut head = String::from(name);
        let mut rest = String::new();
        let r = &mut rest;
        match decl {
            D::Resource {
                dim,
                sample_count,
                return_type,
                space,
            } => {
                write!(head, "_{}", dim.name())?;
                if dim.is_multisampled() {
                    write!(head, "({sample_count})")?;
                }
                ret_note(return_type, &mut notes);
                r.write_char(' ')?;
                write_types(r, &return_type.types)?;
                r.write_char(' ')?;
                self.decl_operand(r, op)?;
                write_space(r, *space)?;
            }
            D::ConstantBuffer {
                dynamic_indexed,
                size,
                space,
            } => {
                r.write_char(' ')?;
                self.decl_operand(r, op)?;
                if let Some(size) = size {
                    write!(r, "[{size}]")?;
                }
                r.write_str(if *dynamic_indexed {
                    ", dynamicIndexed"
                } else {
                    ", immediateIndexed"
                })?;
                write_space(r, *space)?;
            }
            D::Sampler { mode, space } => {
                r.write_char(' ')?;
                self.decl_operand(r, op)?;
                write!(r, ", {}", mode.name())?;
                write_space(r, *space)?;
            }
            D::IndexRange { count } => {
                r.write_char(' ')?;
                self.operand(r, op, Role::Decl, DataType::Any)?;
                write!(r, " {count}")?;
            }
            D::GsOutputTopology(t) => write!(r, " {}", t.name())?,
            D::GsInputPrimitive(p) => write!(r, " {}", p.name())?,
            D::MaxOutputVertexCount(n)
            | D::Temps(n)
            | D::HsForkPhaseInstanceCount(n)
            | D::HsJoinPhaseInstanceCount(n)
            | D::GsInstanceCount(n) => write!(r, " {n}")?,
            D::Input | D::Output | D::Stream => {
                r.write_char(' ')?;
                self.operand(r, op, Role::Decl, DataType::Any)?;
            }
            D::InputSgv(n) | D::InputSiv(n) | D::OutputSgv(n) | D::OutputSiv(n) => {
                name_note(n, &mut notes);
                r.write_char(' ')?;
                self.operand(r, op, Role::Decl, DataType::Any)?;
                write!(r, ", {}", n.name.name())?;
            }
            D::InputPs(mode) | D::InputPsSgv(mode, _) | D::InputPsSiv(mode, _) => {
                if *mode != InterpolationMode::Undefined {
                    write!(r, " {}", mode.name())?;
                }
                r.write_char(' ')?;
                self.operand(r, op, Role::Decl, DataType::Any)?;
                if let D::InputPsSgv(_, n) | D::InputPsSiv(_, n) = decl {
                    name_note(n, &mut notes);
                    write!(r, ", {}", n.name.name())?;
                }
            }
            D::IndexableTemp {
                register,
                size,
                components,
            } => write!(r, " x{register}[{size}], {components}")?,
            D::GlobalFlags(flags) => {
                let names: Vec<&str> = global_flags::NAMES
                    .iter()
                    .filter(|(bit, _)| flags & bit != 0)
                    .map(|(_, n)| *n)
                    .collect();
                if !names.is_empty() {
                    write!(r, " {}", names.join(" | "))?;
                }
            }
            D::FunctionBody(id) => write!(r, " fb{id}")?,
            D::FunctionTable { id, bodies } => {
                let list: Vec<String> = bodies.iter().map(|b| format!("fb{b}")).collect();
                write!(r, " ft{id} = {{{}}}", list.join(", "))?;
            }
            D::Interface {
                id,
                dynamic_indexed,
                table_length,
                array_length,
                tables,
            } => {
                if *dynamic_indexed {
                    head.push_str("_dynamicindexed");
                }
                let list: Vec<String> = tables.iter().map(|t| format!("ft{t}")).collect();
                write!(
                    r,
                    " fp{id}[{array_length}][{table_length}] = {{{}}}",
                    list.join(", ")
                )?;
            }
            D::InputControlPointCount(n) | D::OutputControlPointCount(n) => write!(r, " {n}")?,
            D::TessDomain(v) => write!(r, " {}", v.name())?,
            D::TessPartitioning(v) => write!(r, " {}", v.name())?,
            D::TessOutputPrimitive(v) => write!(r, " {}", v.name())?,
            D::HsMaxTessFactor(v) => write!(r, " l({})", format_f32(v.to_bits()))?,
            D::ThreadGroup([x, y, z]) => write!(r, " {x}, {y}, {z}")?,
            D::UavTyped {
                dim,
                flags,
                return_type,
                space,
            } => {
                write!(head, "_{}", dim.name())?;
                uav_suffix(&mut head, flags);
                ret_note(return_type, &mut notes);
                r.write_char(' ')?;
                write_types(r, &return_type.types)?;
                r.write_char(' ')?;
                self.decl_operand(r, op)?;
                write_space(r, *space)?;
            }
            D::UavRaw { flags, space } => {
                uav_suffix(&mut head, flags);
                r.write_char(' ')?;
                self.decl_operand(r, op)?;
                write_space(r, *space)?;
            }
            D::UavStructured {
                flags,
                stride,
                space,
            } => {
                uav_suffix(&mut head, flags);
                r.write_char(' ')?;
                self.decl_operand(r, op)?;
                write!(r, ", {stride}")?;
                write_space(r, *space)?;
            }
            D::TgsmRaw { byte_count } => {
                r.write_char(' ')?;
                self.operand(r, op, Role::Decl, DataType::Any)?;
                write!(r, ", {byte_count}")?;
            }
            D::TgsmStructured { stride, count } => {
                r.write_char(' ')?;
                self.operand(r, op, Role::Decl, DataType::Any)?;
                write!(r, ", {stride}, {count}")?;
            }
            D::ResourceRaw { space } => {
                r.write_char(' ')?;
                self.decl_operand(r, op)?;
                write_space(r, *space)?;
            }
            D::ResourceStructured { stride, space } => {
                r.write_char(' ')?;
                self.decl_operand(r, op)?;
                write!(r, ", {stride}")?;
                write_space(r, *space)?;
            }
        }
        w.write_str(&head)?;
        notes.write(w)?;
        w.write_str(&rest)
    }

    fn custom_data(&self, w: &mut dyn Write, c: &CustomData, indent: &str) -> fmt::Result {
        if c.class == CustomDataClass::ImmediateConstantBuffer {
            w.write_str("dcl_immediateConstantBuffer {")?;
            for (i, row) in c.data.chunks(4).enumerate() {
                if i > 0 {
                    write!(w, ",\n{indent} ")?;
                }
                let values: Vec<String> = row.iter().map(|v| format_untyped(*v)).collect();
                write!(w, " {{ {} }}", values.join(", "))?;
            }
            return w.write_str(" }");
        }
        write!(w, "dcl_customdata {} {{", c.class.name())?;
        for (i, v) in c.data.iter().enumerate() {
            if i > 0 {
                w.write_char(',')?;
            }
            if i > 0 && i % 8 == 0 {
                write!(w, "\n{indent}  ")?;
            }
            write!(w, " {v:#010x}")?;
        }
        w.write_str(" }")
    }
}

fn write_types(w: &mut dyn Write, types: &[ReturnType; 4]) -> fmt::Result {
    write!(
        w,
        "({},{},{},{})",
        types[0].name(),
        types[1].name(),
        types[2].name(),
        types[3].name()
    )
}

fn write_space(w: &mut dyn Write, space: Option<u32>) -> fmt::Result {
    match space {
        Some(s) => write!(w, ", space={s}"),
        None => Ok(()),
    }
}

fn uav_suffix(head: &mut String, flags: &UavFlags) {
    if flags.globally_coherent {
        head.push_str("_glc");
    }
    if flags.rasterizer_ordered {
        head.push_str("_rov");
    }
    if flags.has_counter {
        head.push_str("_opc");
    }
}

/// Block structure: (dedent before, indent after).
fn nesting(op: Opcode) -> (bool, bool) {
    match op {
        Opcode::If | Opcode::Loop | Opcode::Switch => (false, true),
        Opcode::Else => (true, true),
        Opcode::EndIf | Opcode::EndLoop | Opcode::EndSwitch => (true, false),
        _ => (false, false),
    }
}

impl Program {
    /// One instruction in disassembly syntax (no indentation, no newline), e.g. for error
    /// messages.
    pub fn instruction_text(&self, i: usize) -> String {
        let mut s = String::new();
        if let Some(inst) = self.get(i) {
            let _ = Printer {
                version: self.version,
                relative: &self.relative,
            }
            .instruction(&mut s, &inst, "");
        }
        s
    }
}

impl fmt::Display for Program {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let v = self.version;
        write!(f, "{}_{}_{}", v.program_type.name(), v.major, v.minor)?;
        if v.reserved != 0 {
            write!(f, " {{bits={:#x}}}", v.reserved)?;
        }
        f.write_char('\n')?;
        let printer = Printer {
            version: v,
            relative: &self.relative,
        };
        let mut depth = 0usize;
        let mut line = String::new();
        for inst in self.iter() {
            let (dedent, indent) = nesting(inst.opcode);
            if dedent {
                depth = depth.saturating_sub(1);
            }
            let pad = "  ".repeat(depth);
            line.clear();
            printer.instruction(&mut line, &inst, &pad)?;
            writeln!(f, "{pad}{line}")?;
            if indent {
                depth += 1;
            }
        }
        if !self.trailing.is_empty() {
            let hex: String = self.trailing.iter().map(|b| format!("{b:02x}")).collect();
            writeln!(f, "{{trailing={hex}}}")?;
        }
        Ok(())
    }
}
