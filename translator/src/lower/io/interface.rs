//! Interface variables from declared registers and their signature elements, made once every
//! declaration is read: the user elements of a register share one `Location` variable per
//! component type (`Component` = first component, `Patch` for patch constants, `Stream` for
//! GS streams, interpolation decorations in pixel shaders), system values go to
//! [`super::builtins`], clip and cull distances over all registers are packed into one array
//! each. Every variable is recorded in the reflection.

use smallvec::SmallVec;
use spirv::{BuiltIn, Decoration, StorageClass};

use super::builtins::{builtin_for, interpreted_on, system_value_of};
use super::{IoFile, IoPart, PartKind};
use crate::container::signature::{ComponentType as SigType, SignatureElement, SystemValue};
use crate::ir::{DecorationTarget, GlobalId, Scalar, Type, TypeId, TypeTable};
use crate::lower::{Lowerer, R};
use crate::reflect::{ComponentType, InterfacePlacement, InterfaceVar, ShaderStage};
use crate::sm4::InterpolationMode;

pub(super) fn scalar_of(t: SigType) -> Scalar {
    match t {
        SigType::UInt32 => Scalar::U32,
        SigType::SInt32 => Scalar::I32,
        _ => Scalar::F32,
    }
}

pub(super) fn reflect_type(s: Scalar) -> ComponentType {
    match s {
        // Interface variables are never 16-bit (only `passes::min16` makes such types).
        Scalar::U32 | Scalar::U16 | Scalar::Bool => ComponentType::Uint,
        Scalar::I32 | Scalar::I16 => ComponentType::Sint,
        Scalar::F32 | Scalar::F16 => ComponentType::Float,
        Scalar::F64 => ComponentType::Double,
    }
}

impl<'p, 'm> Lowerer<'p, 'm> {
    /// The signature elements of register `reg` of `file` (GS outputs: of `stream`).
    fn signature_elements(
        &self,
        file: IoFile,
        reg: u32,
        stream: u8,
    ) -> SmallVec<[SignatureElement<'p>; 2]> {
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
        // What fails from here is a register or signature element, not the last declaration.
        self.opcode = None;
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
        let slot = self.io.file(file)[reg as usize].facts();
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
        let mut user: SmallVec<[&SignatureElement<'_>; 4]> = SmallVec::new();
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
            if !interpreted_on(sv, self.stage, file) {
                // Data D3D passes along unnamed (a position among patch constants, a layer
                // index read by a hull shader, ...): a plain location.
                sv = SystemValue::Undefined;
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
                    crate::lower::stage_io::tess_level_of(e, slot.sysval, synthesized)
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
        let mut location = match file {
            IoFile::PatchInput | IoFile::PatchOutput => reg + self.io.patch_location_base,
            IoFile::Output if self.stage == ShaderStage::Geometry => {
                reg + self.io.stream_location_base[stream as usize & 3]
            }
            _ => reg,
        };
        // Render targets: dual-source blending's locations and indices, output swizzles.
        let mut blend_index = None;
        if file == IoFile::Output && self.stage == ShaderStage::Pixel && !user.is_empty() {
            let Some((loc, index)) = self.opts.render_target_location(reg) else {
                // Dual-source blending writes o0 and o1 only; D3D leaves o2.. undefined.
                return Ok(parts);
            };
            (location, blend_index) = (loc, index);
            if self.opts.output_swizzle(reg).is_some() {
                // The swizzle may move any component anywhere: the variable is a whole vec4.
                if by_type.len() > 1 {
                    return Err(self.unsupported(format!(
                        "an output swizzle on o{reg}, whose components have different types"
                    )));
                }
                by_type[0].1 = 0xf;
            }
        }
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
            if let Some(index) = blend_index {
                self.b.m.decorate(t, Decoration::Index, &[index]);
                if index == 1 {
                    self.need_feature("dualSrcBlend");
                }
            }
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
                    semantic_name: e.semantic_name.to_string().into(),
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
                    .filter(|_| {
                        let file = if output {
                            IoFile::Output
                        } else {
                            IoFile::Input
                        };
                        interpreted_on(sv, self.stage, file)
                    })
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
                        semantic_name: e.semantic_name.to_string().into(),
                        semantic_index: e.semantic_index,
                        register: Some(e.register),
                        mask: e.mask,
                        component_type: ComponentType::Float,
                        placement: InterfacePlacement::BuiltIn {
                            builtin: crate::reflect::names::builtin(builtin),
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
}
