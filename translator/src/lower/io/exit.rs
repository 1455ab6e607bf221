//! Exit stores: at every exit of the program (and at each GS `emit`, each HS control point),
//! the output variables are stored to the interface, one whole vector per part, with
//! components never written stored as zero (render targets through their output swizzle,
//! `Options::output_swizzles`); depth is clamped to [0, 1] as D3D's output merger does.

use smallvec::SmallVec;
use spirv::{Op, StorageClass};

use super::{IoFile, IoPart, PartKind};
use crate::ir::{Operand, TypeId, TypeTable};
use crate::lower::{Lowerer, R};
use crate::reflect::ShaderStage;
use crate::sm4::OperandType;

impl<'p, 'm> Lowerer<'p, 'm> {
    /// Stores every output variable to the interface (at each exit of the program).
    pub fn store_outputs(&mut self) -> R<()> {
        self.store_output_file(IoFile::Output, 0, None)?;
        self.store_point_size(0);
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
            // A render target's swizzle: component c is the program's component swizzle[c].
            let swizzle = (file == IoFile::Output && self.stage == ShaderStage::Pixel)
                .then(|| self.opts.output_swizzle(reg as u32))
                .flatten();
            for part in &parts {
                let mut comps: SmallVec<[Operand; 4]> = SmallVec::new();
                for c in part.first..part.first + part.count {
                    let from = match swizzle {
                        Some(s) if part.kind == PartKind::Location => s[c as usize & 3].index(),
                        _ => c as usize,
                    };
                    let raw = match vars[from] {
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

    /// Writes `PointSize` = 1.0 (Direct3D 10+ points are one pixel wide) when
    /// `Options::point_size` names this stage; for a geometry shader, when emitting on the
    /// stream the rasterizer draws.
    pub fn store_point_size(&mut self, stream: u8) {
        use crate::options::PointSize;
        let (cap, multi) = match (self.opts.point_size, self.stage) {
            (PointSize::Vertex | PointSize::AllStages, ShaderStage::Vertex) => (None, false),
            (PointSize::AllStages, ShaderStage::Domain) => {
                (Some(spirv::Capability::TessellationPointSize), false)
            }
            (PointSize::AllStages, ShaderStage::Geometry) => (
                Some(spirv::Capability::GeometryPointSize),
                self.io.multi_stream(),
            ),
            _ => return,
        };
        let rasterized = self
            .opts
            .stream_output
            .as_ref()
            .is_none_or(|s| s.rasterized_stream.is_some());
        if !rasterized || stream != self.rasterized_stream() {
            return;
        }
        if let Some(cap) = cap {
            self.b.m.capability(cap);
            self.need_feature("shaderTessellationAndGeometryPointSize");
        }
        let fresh = !self.io.builtins.contains_key("PointSizeOut");
        let g = self.builtin_global(
            "PointSizeOut",
            spirv::BuiltIn::PointSize,
            TypeId::F32,
            StorageClass::Output,
        );
        if fresh && multi && stream != 0 {
            self.b.m.decorate(
                crate::ir::DecorationTarget::Global(g),
                spirv::Decoration::Stream,
                &[stream as u32],
            );
        }
        let one = self.b.f32c(1.0);
        self.b.op_void(Op::Store, &[Operand::Global(g), one]);
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
