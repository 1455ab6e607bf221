//! Geometry shaders: input primitive, output topology, vertex count and instancing as
//! execution modes; `emit`/`cut` (and their stream forms) as vertex emission.
//!
//! D3D's `o#` registers are one register file; each stream declares which of them it outputs
//! (`dcl_stream m1` then that stream's `dcl_output`s). `emit_stream mN` stores the current
//! values of stream N's declared registers to its interface variables and emits the vertex.
//! After an emit D3D leaves every output undefined, so keeping the old values is correct;
//! `ret` emits nothing. A shader declaring streams other than 0 uses `GeometryStreams`
//! (`OpEmitStreamVertex`, `Stream` decorations; Vulkan rasterizes one stream, 0 unless a
//! stream-output declaration names another, whose outputs alone have built-ins; what the
//! other streams carry reaches only transform feedback); otherwise plain `OpEmitVertex`.

use spirv::{Capability, ExecutionMode, Op};

use super::io::IoFile;
use super::stage_io::primitive_vertices;
use super::{Lowerer, R};
use crate::reflect::ShaderStage;
use crate::sm4::{Declaration, InstRef, Opcode, Primitive, PrimitiveTopology};

impl<'p, 'm> Lowerer<'p, 'm> {
    /// Records a geometry shader declaration; false when `decl` is not one.
    pub(super) fn geometry_declaration(&mut self, decl: &Declaration) -> R<bool> {
        let gs = |l: &Self| -> R<()> {
            if l.stage == ShaderStage::Geometry {
                Ok(())
            } else {
                Err(l.invalid("geometry shader declaration in another stage"))
            }
        };
        match decl {
            Declaration::GsInputPrimitive(p) => {
                gs(self)?;
                if primitive_vertices(*p).is_none() {
                    return Err(self.unsupported(format!("geometry shader input primitive {p:?}")));
                }
                self.stage_info.gs_input = Some(*p);
            }
            Declaration::GsOutputTopology(t) => {
                gs(self)?;
                if !matches!(
                    t,
                    PrimitiveTopology::PointList
                        | PrimitiveTopology::LineStrip
                        | PrimitiveTopology::TriangleStrip
                ) {
                    return Err(self.invalid(format!("geometry shader output topology {t:?}")));
                }
                match self.stage_info.gs_output {
                    Some(prev) if prev != *t => {
                        return Err(self.invalid("streams with different output topologies"));
                    }
                    _ => self.stage_info.gs_output = Some(*t),
                }
            }
            Declaration::MaxOutputVertexCount(n) => {
                gs(self)?;
                if *n > 1024 {
                    return Err(self.invalid(format!("dcl_maxout {n} (at most 1024)")));
                }
                self.stage_info.gs_max_vertices = Some(*n);
            }
            Declaration::GsInstanceCount(n) => {
                gs(self)?;
                if *n == 0 || *n > 32 {
                    return Err(self.invalid(format!("dcl_gsinstances {n} (1 to 32)")));
                }
                self.stage_info.gs_instances = Some(*n);
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// The geometry shader's execution modes, capabilities and features.
    pub(super) fn geometry_modes(&mut self) -> R<()> {
        let info = &self.stage_info;
        let input = match info.gs_input {
            Some(Primitive::Point) => ExecutionMode::InputPoints,
            Some(Primitive::Line) => ExecutionMode::InputLines,
            Some(Primitive::Triangle) => ExecutionMode::Triangles,
            Some(Primitive::LineAdj) => ExecutionMode::InputLinesAdjacency,
            Some(Primitive::TriangleAdj) => ExecutionMode::InputTrianglesAdjacency,
            _ => return Err(self.unsupported("geometry shader input primitive")),
        };
        let output = match info.gs_output {
            Some(PrimitiveTopology::LineStrip) => ExecutionMode::OutputLineStrip,
            Some(PrimitiveTopology::TriangleStrip) => ExecutionMode::OutputTriangleStrip,
            // A shader that never emits may leave the topology out.
            _ => ExecutionMode::OutputPoints,
        };
        let vertices = info.gs_max_vertices.unwrap_or(1).max(1);
        let instances = info.gs_instances.unwrap_or(1);
        let m = &mut self.b.m;
        m.capability(Capability::Geometry);
        m.execution_mode(input, &[]);
        m.execution_mode(output, &[]);
        m.execution_mode(ExecutionMode::OutputVertices, &[vertices]);
        m.execution_mode(ExecutionMode::Invocations, &[instances]);
        self.need_feature("geometryShader");
        if self.io.multi_stream() {
            if output != ExecutionMode::OutputPoints {
                return Err(
                    self.invalid("a geometry shader with several streams must output points")
                );
            }
            self.b.m.capability(Capability::GeometryStreams);
            self.need_feature("geometryStreams");
        }
        Ok(())
    }

    /// Lowers `emit`, `cut` and their stream forms; false for other instructions.
    pub(super) fn geometry_op(&mut self, inst: InstRef<'p>) -> R<bool> {
        let (emit, cut) = match inst.opcode {
            Opcode::Emit | Opcode::EmitStream => (true, false),
            Opcode::Cut | Opcode::CutStream => (false, true),
            Opcode::EmitThenCut | Opcode::EmitThenCutStream => (true, true),
            _ => return Ok(false),
        };
        if self.stage != ShaderStage::Geometry {
            return Err(self.invalid(format!(
                "{} outside a geometry shader",
                inst.opcode.info().name
            )));
        }
        let stream = match inst.opcode {
            Opcode::EmitStream | Opcode::CutStream | Opcode::EmitThenCutStream => {
                match inst.operands.first().and_then(|o| o.register()) {
                    Some(s) if s < 4 => s as u8,
                    _ => return Err(self.invalid("stream operand other than m0..m3")),
                }
            }
            _ => 0,
        };
        let multi = self.io.multi_stream();
        if stream != 0 && !self.io.stream_declared(stream) {
            return Err(self.invalid(format!("emit or cut on undeclared stream m{stream}")));
        }
        let s = self.b.u32c(stream as u32);
        if emit {
            self.store_output_file(IoFile::Output, stream, None)?;
            self.store_point_size(stream);
            if multi {
                self.b.op_void(Op::EmitStreamVertex, &[s]);
            } else {
                self.b.op_void(Op::EmitVertex, &[]);
            }
        }
        if cut {
            if multi {
                self.b.op_void(Op::EndStreamPrimitive, &[s]);
            } else {
                self.b.op_void(Op::EndPrimitive, &[]);
            }
        }
        Ok(true)
    }
}
