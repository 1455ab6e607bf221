//! Geometry shaders in a differential run: a generated pass-through vertex stage feeds every
//! per-vertex input of the module from vertex buffers (values keyed by semantic and vertex),
//! and the geometry shader's stream-0 outputs are captured with transform feedback, which this
//! module adds to the translated module (`Xfb` mode, `XfbBuffer`/`XfbStride`/`Offset` on each
//! output variable; the computation is untouched, and both sides get the same edit). Points,
//! lines and triangles are drawn as lists of 16 primitives; adjacency is not run.

use super::exec::{bare_reflection, semantic_at, target};
use super::inputs::{self, Inputs, Sizes};
use super::outputs::SideResult;
use super::shader::{ScalarKind, Shader};
use super::spirv_io::{self, Ty, Var};
use super::stages::Capture;
use crate::parse::format::Format;
use crate::parse::{Dimensions, InputElement, ResourceDecl, ResourceKind, Topology};
use crate::vk::bind::{self, RunError};
use crate::vk::context::Gpu;
use crate::vk::pipeline::{self, XfbDraw};
use crate::vk::resource::{GpuObject, TestResource};
use rspirv::binary::Assemble;
use rspirv::dr::{Builder, Instruction, Operand};
use spirv::{
    AddressingModel, BuiltIn, Capability, Decoration, ExecutionMode, ExecutionModel,
    FunctionControl, MemoryModel, Op, StorageClass,
};
use translator::Translation;
use translator::reflect::{InterfacePlacement, InterfaceVar, ShaderStage};
use translator::sm4::Primitive;

/// Input primitives drawn.
const PRIMITIVES: u32 = 16;

type R<T> = Result<T, String>;

fn e<T>(r: Result<T, rspirv::dr::Error>) -> R<T> {
    r.map_err(|e| format!("building SPIR-V: {e}"))
}

/// The module with its stream-0 outputs captured into transform-feedback buffer 0, each
/// scalar's place in the vertex record (words), and the record's size in words.
pub fn add_xfb(words: &[u32]) -> R<Capture> {
    let mut m = rspirv::dr::load_words(words).map_err(|e| format!("SPIR-V: {e}"))?;
    let outs = spirv_io::variables(&m, StorageClass::Output)?;
    let main = match m.entry_points.first().and_then(|ep| ep.operands.get(1)) {
        Some(Operand::IdRef(id)) => *id,
        _ => return Err("no entry point".into()),
    };
    let mut leaves = Vec::new();
    let mut placed = Vec::new();
    let mut offset = 0u32;
    for d in outs.iter().filter(|d| d.stream == 0) {
        if matches!(d.var.ty, Ty::Struct(_)) {
            return Err("an output block (not captured)".into());
        }
        let ls = d.var.leaves();
        placed.push((d.id, offset));
        for l in ls {
            leaves.push((l, offset));
            offset += 1;
        }
    }
    if leaves.is_empty() {
        return Err("no stream-0 output to capture".into());
    }
    let stride = offset;
    let dec = |target: u32, d: Decoration, v: Option<u32>| {
        let mut ops = vec![Operand::IdRef(target), Operand::Decoration(d)];
        ops.extend(v.map(Operand::LiteralBit32));
        Instruction::new(Op::Decorate, None, None, ops)
    };
    for (id, off) in placed {
        m.annotations.push(dec(id, Decoration::XfbBuffer, Some(0)));
        m.annotations
            .push(dec(id, Decoration::XfbStride, Some(stride * 4)));
        m.annotations
            .push(dec(id, Decoration::Offset, Some(off * 4)));
    }
    m.capabilities.push(Instruction::new(
        Op::Capability,
        None,
        None,
        vec![Operand::Capability(Capability::TransformFeedback)],
    ));
    m.execution_modes.push(Instruction::new(
        Op::ExecutionMode,
        None,
        None,
        vec![
            Operand::IdRef(main),
            Operand::ExecutionMode(ExecutionMode::Xfb),
        ],
    ));
    Ok(Capture {
        spirv: m.assemble(),
        leaves,
        stride,
    })
}

/// A vertex shader copying one vertex attribute per located geometry-shader input (the
/// per-vertex element type, at the same location and component) and one more, at location
/// `position_at`, into `Position`.
fn passthrough_vs(inputs: &[Var], position_at: u32) -> R<Vec<u32>> {
    let mut b = Builder::new();
    b.set_version(1, 0);
    b.capability(Capability::Shader);
    b.memory_model(AddressingModel::Logical, MemoryModel::GLSL450);
    let void = b.type_void();
    let fn_ty = b.type_function(void, []);
    let float = b.type_float(32, None);
    let int = b.type_int(32, 1);
    let uint = b.type_int(32, 0);
    let scalar = |k: ScalarKind| match k {
        ScalarKind::F32 => float,
        ScalarKind::I32 => int,
        ScalarKind::U32 => uint,
    };
    let vec4 = b.type_vector(float, 4);
    let mut copies = Vec::new();
    let mut interface = Vec::new();
    for v in inputs {
        let Some(location) = v.location else { continue };
        let ty = match v.ty {
            Ty::Scalar(k) => scalar(k),
            Ty::Vector(k, n) => {
                let s = scalar(k);
                b.type_vector(s, n)
            }
            _ => return Err("a geometry-shader input that is not a scalar or vector".into()),
        };
        let pin = b.type_pointer(None, StorageClass::Input, ty);
        let pout = b.type_pointer(None, StorageClass::Output, ty);
        let i = b.variable(pin, None, StorageClass::Input, None);
        let o = b.variable(pout, None, StorageClass::Output, None);
        for var in [i, o] {
            b.decorate(var, Decoration::Location, [Operand::LiteralBit32(location)]);
            if v.component != 0 {
                b.decorate(
                    var,
                    Decoration::Component,
                    [Operand::LiteralBit32(v.component)],
                );
            }
        }
        interface.extend([i, o]);
        copies.push((i, o, ty));
    }
    let pin = b.type_pointer(None, StorageClass::Input, vec4);
    let pout = b.type_pointer(None, StorageClass::Output, vec4);
    let pi = b.variable(pin, None, StorageClass::Input, None);
    b.decorate(
        pi,
        Decoration::Location,
        [Operand::LiteralBit32(position_at)],
    );
    let po = b.variable(pout, None, StorageClass::Output, None);
    b.decorate(
        po,
        Decoration::BuiltIn,
        [Operand::BuiltIn(BuiltIn::Position)],
    );
    interface.extend([pi, po]);
    copies.push((pi, po, vec4));
    let main = e(b.begin_function(void, None, FunctionControl::NONE, fn_ty))?;
    e(b.begin_block(None))?;
    for (i, o, ty) in copies {
        let v = e(b.load(ty, None, i, None, []))?;
        e(b.store(o, v, None, []))?;
    }
    e(b.ret())?;
    e(b.end_function())?;
    b.entry_point(ExecutionModel::Vertex, main, "main", interface);
    Ok(b.module().assemble())
}

/// Runs a geometry shader.
pub fn run(gpu: &Gpu, shader: &Shader, t: &Translation, seed: u64) -> Result<SideResult, RunError> {
    let gs = shader
        .gs
        .ok_or_else(|| RunError::Fail("a geometry shader without its declarations".into()))?;
    let (topology, per_prim) = match gs.input {
        Primitive::Point => (Topology::PointList, 1),
        Primitive::Line => (Topology::LineList, 2),
        Primitive::Triangle => (Topology::TriangleList, 3),
        p => {
            return Err(RunError::Skip(format!(
                "geometry shaders with {p:?} input are not run (no adjacency topology here)"
            )));
        }
    };
    if gpu.xfb.is_none() {
        return Err(RunError::Skip(
            "the device lacks transformFeedback (VK_EXT_transform_feedback)".into(),
        ));
    }
    let cap = add_xfb(&t.spirv).map_err(RunError::Skip)?;
    let gs_t = Translation {
        spirv: cap.spirv.clone(),
        reflection: t.reflection.clone(),
    };
    // Per-vertex inputs: the module's arrays, one element per vertex.
    let ins: Vec<Var> = spirv_io::interface(&t.spirv, StorageClass::Input)?
        .into_iter()
        .filter(|v| v.builtin.is_none() || v.builtin == Some(BuiltIn::Position))
        .filter_map(|v| match v.ty {
            Ty::Array(elem, _) => Some(Var { ty: *elem, ..v }),
            _ => None,
        })
        .collect();
    let located: Vec<Var> = ins
        .iter()
        .filter(|v| v.location.is_some())
        .cloned()
        .collect();
    let position_at = located
        .iter()
        .filter_map(|v| v.location)
        .max()
        .map_or(0, |l| l + 1);
    let mut vs_refl = bare_reflection(ShaderStage::Vertex);
    let vertices = PRIMITIVES * per_prim;
    let mut layout = Vec::new();
    let mut vbs = Vec::new();
    let mut slot = 0u32;
    let mut attribute = |location: u32,
                         kind: ScalarKind,
                         value: &dyn Fn(u32, u32) -> u32|
     -> Result<(), RunError> {
        let name = format!("ATTRIBUTE{location}");
        let f = match kind {
            ScalarKind::U32 => "r32g32b32a32-uint",
            ScalarKind::I32 => "r32g32b32a32-sint",
            ScalarKind::F32 => "r32g32b32a32-float",
        };
        let format = Format::by_name(f).expect("a format vk-runner knows");
        vs_refl.inputs.push(InterfaceVar {
            semantic_name: name.clone().into(),
            semantic_index: 0,
            register: Some(location),
            mask: 0xf,
            component_type: match kind {
                ScalarKind::F32 => translator::reflect::ComponentType::Float,
                ScalarKind::U32 => translator::reflect::ComponentType::Uint,
                ScalarKind::I32 => translator::reflect::ComponentType::Sint,
            },
            placement: InterfacePlacement::Location {
                location,
                component: 0,
            },
        });
        layout.push(InputElement {
            slot,
            format,
            semantic: name,
            index: 0,
        });
        let data = (0..vertices)
            .flat_map(|v| (0..4).map(move |c| (v, c)))
            .map(|(v, c)| value(v, c))
            .collect();
        vbs.push(TestResource::create(
            gpu,
            &ResourceDecl {
                kind: ResourceKind::VertexBuffer,
                slot,
                space: 0,
                format,
                explicit_format: true,
                stride: None,
                dims: Dimensions::Unspecified,
                levels: 1,
                data,
            },
        )?);
        slot += 1;
        Ok(())
    };
    for v in &located {
        let location = v.location.unwrap_or(0);
        let kind = match v.ty {
            Ty::Scalar(k) | Ty::Vector(k, _) => k,
            _ => ScalarKind::F32,
        };
        let value = |vertex: u32, c: u32| {
            let (name, index, comp, k) = semantic_at(
                &t.reflection.inputs,
                &shader.inputs,
                shader.kind,
                location,
                v.component + c,
            );
            inputs::vertex_value(seed, &name, index, k.unwrap_or(kind), vertex, comp)
        };
        attribute(location, kind, &value)?;
    }
    attribute(position_at, ScalarKind::F32, &|vertex, c| {
        if c == 3 {
            1f32.to_bits()
        } else {
            inputs::vertex_value(seed, "SV_POSITION", 0, ScalarKind::F32, vertex, c)
        }
    })?;
    let vs = Translation {
        spirv: passthrough_vs(&located, position_at)?,
        reflection: vs_refl,
    };
    let sizes = Sizes {
        invocations: PRIMITIVES * gs.instances,
        grid: [16, 16, 1],
        bool_stride: 1,
    };
    let mut inp = Inputs::new(
        gpu,
        shader,
        &t.reflection.descriptors.iter().collect::<Vec<_>>(),
        seed,
        sizes,
    )?;
    // Strips come out as lists: up to three vertices per emitted one.
    let records = PRIMITIVES * gs.instances * gs.max_vertices.max(1) * 3;
    let words = records * cap.stride;
    let so = TestResource::create(
        gpu,
        &ResourceDecl {
            kind: ResourceKind::StreamOutput,
            slot: 0,
            space: 0,
            format: Format::RAW,
            explicit_format: false,
            stride: None,
            dims: Dimensions::RawBuffer { bytes: words * 4 },
            levels: 1,
            data: vec![0xdead_beef; words as usize],
        },
    )?;
    let mut rt = target(gpu, 0, "r32g32b32a32-float", 1, ResourceKind::Rtv)?;
    let bound = bind::bind(
        gpu,
        &[&vs.reflection, &gs_t.reflection],
        &mut super::exec::sources(&mut inp),
    )?;
    {
        let GpuObject::Buffer(so_buf) = &so.obj else {
            return Err(RunError::Fail(
                "the stream-output buffer is an image".into(),
            ));
        };
        let bufs = vbs
            .iter()
            .enumerate()
            .filter_map(|(k, r)| match &r.obj {
                GpuObject::Buffer(b) => Some((k as u32, b)),
                GpuObject::Image(_) => None,
            })
            .collect();
        let mut st = super::exec::draw_state(
            topology,
            vertices,
            &layout,
            bufs,
            vec![Some(super::exec::attachment(&mut rt)?)],
            None,
            false,
        );
        st.xfb = Some(XfbDraw {
            buffers: vec![(0, so_buf)],
            rasterized_stream: None,
        });
        pipeline::draw(gpu, &[&vs, &gs_t], &bound, &mut st)?;
    }
    let captured = match &so.obj {
        GpuObject::Buffer(b) => super::exec::bytes_to_words(&gpu.read_buffer(b)?),
        GpuObject::Image(_) => Vec::new(),
    };
    let mut outputs = super::exec::record_outputs(shader, t, &cap, records, &captured);
    super::exec::read_uavs(gpu, &inp, &mut outputs)?;
    Ok(SideResult::Ran {
        outputs,
        inputs: inp.described.clone(),
    })
}
