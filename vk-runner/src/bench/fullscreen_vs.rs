//! A vertex shader, generated as SPIR-V, that feeds a given pixel shader: three vertices (from
//! `VertexIndex`) of a triangle covering the viewport, and for every `Location` input of the
//! pixel shader an output of the same location, component and type. Float outputs carry the
//! screen position in 0..1 (u, v, u, v, ...), so texture coordinates vary over the target;
//! integer outputs are 1. The benchmark builds one per pixel-shader module, so each
//! translator's pixel shader gets exactly the interface it declares.

use crate::backend::spirv_info::IoVar;
use rspirv::dr::{Builder, Operand};
use spirv::{
    AddressingModel, BuiltIn, Capability, Decoration, ExecutionModel, FunctionControl, MemoryModel,
    StorageClass,
};
use translator::reflect::ComponentType;

/// SPIR-V words of the vertex shader (entry point `main`) for pixel-shader inputs `inputs`.
pub fn build(inputs: &[IoVar]) -> Result<Vec<u32>, String> {
    let mut b = Builder::new();
    b.set_version(1, 0);
    b.capability(Capability::Shader);
    b.memory_model(AddressingModel::Logical, MemoryModel::GLSL450);
    let void = b.type_void();
    let fn_ty = b.type_function(void, []);
    let int = b.type_int(32, 1);
    let uint = b.type_int(32, 0);
    let float = b.type_float(32, None);
    let vec4 = b.type_vector(float, 4);

    let int_in = b.type_pointer(None, StorageClass::Input, int);
    let vid = b.variable(int_in, None, StorageClass::Input, None);
    b.decorate(
        vid,
        Decoration::BuiltIn,
        [Operand::BuiltIn(BuiltIn::VertexIndex)],
    );
    let vec4_out = b.type_pointer(None, StorageClass::Output, vec4);
    let pos = b.variable(vec4_out, None, StorageClass::Output, None);
    b.decorate(
        pos,
        Decoration::BuiltIn,
        [Operand::BuiltIn(BuiltIn::Position)],
    );

    // One output per located input.
    let mut outs = Vec::new();
    for v in inputs {
        let Some(location) = v.location else { continue };
        let (scalar, kind) = match v.scalar {
            Some(k @ ComponentType::Float) => (float, k),
            Some(k @ ComponentType::Uint) => (uint, k),
            Some(k @ ComponentType::Sint) => (int, k),
            other => {
                return Err(format!(
                    "pixel shader input at location {location} has type {other:?}"
                ));
            }
        };
        if !(1..=4).contains(&v.vec_size) {
            return Err(format!(
                "pixel shader input at location {location} has {} components",
                v.vec_size
            ));
        }
        let ty = if v.vec_size == 1 {
            scalar
        } else {
            b.type_vector(scalar, v.vec_size)
        };
        let ptr = b.type_pointer(None, StorageClass::Output, ty);
        let var = b.variable(ptr, None, StorageClass::Output, None);
        b.decorate(var, Decoration::Location, [Operand::LiteralBit32(location)]);
        if v.component != 0 {
            b.decorate(
                var,
                Decoration::Component,
                [Operand::LiteralBit32(v.component)],
            );
        }
        outs.push((var, ty, kind, v.vec_size));
    }

    let one_i = b.constant_bit32(int, 1);
    let one_u = b.constant_bit32(uint, 1);
    let half_f = b.constant_bit32(float, 0.5f32.to_bits());
    let one_f = b.constant_bit32(float, 1f32.to_bits());
    let two_f = b.constant_bit32(float, 2f32.to_bits());
    let four_f = b.constant_bit32(float, 4f32.to_bits());

    let main = b
        .begin_function(void, None, FunctionControl::NONE, fn_ty)
        .map_err(|e| e.to_string())?;
    b.begin_block(None).map_err(|e| e.to_string())?;
    let e = |r: Result<u32, rspirv::dr::Error>| r.map_err(|e| e.to_string());
    // Vertex 0, 1, 2 -> (-1, -1), (3, -1), (-1, 3); (u, v) = 0..1 over the viewport.
    let i = e(b.load(int, None, vid, None, []))?;
    let bx = e(b.bitwise_and(int, None, i, one_i))?;
    let by = e(b.shift_right_arithmetic(int, None, i, one_i))?;
    let fx = e(b.convert_s_to_f(float, None, bx))?;
    let fy = e(b.convert_s_to_f(float, None, by))?;
    let x4 = e(b.f_mul(float, None, fx, four_f))?;
    let y4 = e(b.f_mul(float, None, fy, four_f))?;
    let x = e(b.f_sub(float, None, x4, one_f))?;
    let y = e(b.f_sub(float, None, y4, one_f))?;
    let u = e(b.f_mul(float, None, fx, two_f))?;
    let v = e(b.f_mul(float, None, fy, two_f))?;
    let p = e(b.composite_construct(vec4, None, [x, y, half_f, one_f]))?;
    e(b.store(pos, p, None, []).map(|_| 0))?;
    for &(var, ty, kind, n) in &outs {
        let comps: Vec<u32> = (0..n)
            .map(|c| match kind {
                ComponentType::Float if c % 2 == 0 => u,
                ComponentType::Float => v,
                ComponentType::Uint => one_u,
                _ => one_i,
            })
            .collect();
        let value = if n == 1 {
            comps[0]
        } else {
            e(b.composite_construct(ty, None, comps))?
        };
        e(b.store(var, value, None, []).map(|_| 0))?;
    }
    e(b.ret().map(|_| 0))?;
    e(b.end_function().map(|_| 0))?;
    let mut interface = vec![vid, pos];
    interface.extend(outs.iter().map(|o| o.0));
    b.entry_point(ExecutionModel::Vertex, main, "main", interface);
    Ok(rspirv::binary::Assemble::assemble(&b.module()))
}
