//! The stages a differential run generates around the shader under test, as SPIR-V:
//!
//! * [`feed_vs`]: a vertex shader for a pixel shader — one triangle covering the target, and
//!   for every `Location` input of the pixel shader an output of the same type, location and
//!   component whose scalars vary linearly over the target (`base + du·u + dv·v`, u and v
//!   0..1) or, for integers, are constant;
//! * [`capture_gs`]: a geometry shader for a vertex shader, drawn with points — it reads every
//!   output the vertex shader writes (located or built-in, before clipping) and stores each
//!   scalar's bits into a storage buffer at `primitive · stride + offset`, emitting nothing.
//!
//! Each is built from one translator's module, so each side gets exactly the interface its
//! own module declares.

use super::inputs::Varying;
use super::shader::ScalarKind;
use super::spirv_io::{Leaf, Place, Ty, Var};
use rspirv::dr::{Builder, Operand};
use spirv::{
    AddressingModel, BuiltIn, Capability, Decoration, ExecutionMode, ExecutionModel,
    FunctionControl, MemoryModel, StorageClass,
};

type R<T> = Result<T, String>;

fn e<T>(r: Result<T, rspirv::dr::Error>) -> R<T> {
    r.map_err(|e| format!("building SPIR-V: {e}"))
}

struct Types {
    float: u32,
    int: u32,
    uint: u32,
}

impl Types {
    fn new(b: &mut Builder) -> Types {
        Types {
            float: b.type_float(32, None),
            int: b.type_int(32, 1),
            uint: b.type_int(32, 0),
        }
    }

    fn scalar(&self, k: ScalarKind) -> u32 {
        match k {
            ScalarKind::F32 => self.float,
            ScalarKind::I32 => self.int,
            ScalarKind::U32 => self.uint,
        }
    }
}

/// The SPIR-V type of `ty`; blocks get `Block` and their members' built-ins.
fn make_type(b: &mut Builder, t: &Types, ty: &Ty) -> u32 {
    match ty {
        Ty::Scalar(k) => t.scalar(*k),
        Ty::Vector(k, n) => {
            let s = t.scalar(*k);
            b.type_vector(s, *n)
        }
        Ty::Array(elem, n) => {
            let el = make_type(b, t, elem);
            let len = b.constant_bit32(t.uint, *n);
            b.type_array(el, len)
        }
        Ty::Struct(members) => {
            let ids: Vec<u32> = members.iter().map(|(m, _)| make_type(b, t, m)).collect();
            let s = b.type_struct(ids);
            b.decorate(s, Decoration::Block, []);
            for (i, (_, bi)) in members.iter().enumerate() {
                if let Some(bi) = bi {
                    b.member_decorate(s, i as u32, Decoration::BuiltIn, [Operand::BuiltIn(*bi)]);
                }
            }
            s
        }
    }
}

/// The scalar type reached from `ty` along `path`.
fn decorate_io(b: &mut Builder, var: u32, v: &Var) {
    if let Some(bi) = v.builtin {
        b.decorate(var, Decoration::BuiltIn, [Operand::BuiltIn(bi)]);
    }
    if let Some(l) = v.location {
        b.decorate(var, Decoration::Location, [Operand::LiteralBit32(l)]);
        if v.component != 0 {
            b.decorate(
                var,
                Decoration::Component,
                [Operand::LiteralBit32(v.component)],
            );
        }
    }
}

/// A vertex shader feeding the pixel-shader `inputs`; `value` gives each located scalar's
/// varying.
pub fn feed_vs(inputs: &[Var], value: &dyn Fn(&Leaf) -> Varying) -> R<Vec<u32>> {
    let mut b = Builder::new();
    b.set_version(1, 0);
    b.capability(Capability::Shader);
    b.memory_model(AddressingModel::Logical, MemoryModel::GLSL450);
    let t = Types::new(&mut b);
    let void = b.type_void();
    let fn_ty = b.type_function(void, []);
    let vec4 = b.type_vector(t.float, 4);
    let int_in = b.type_pointer(None, StorageClass::Input, t.int);
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
    let mut outs = Vec::new();
    for v in inputs
        .iter()
        .filter(|v| v.builtin.is_none() && v.location.is_some())
    {
        if matches!(v.ty, Ty::Struct(_)) {
            return Err("a pixel-shader input is a block".into());
        }
        let ty = make_type(&mut b, &t, &v.ty);
        let ptr = b.type_pointer(None, StorageClass::Output, ty);
        let var = b.variable(ptr, None, StorageClass::Output, None);
        decorate_io(&mut b, var, v);
        outs.push((var, v));
    }
    let c = |b: &mut Builder, ty: u32, bits: u32| b.constant_bit32(ty, bits);
    let one_i = c(&mut b, t.int, 1);
    let half = c(&mut b, t.float, 0.5f32.to_bits());
    let one = c(&mut b, t.float, 1f32.to_bits());
    let two = c(&mut b, t.float, 2f32.to_bits());
    let four = c(&mut b, t.float, 4f32.to_bits());
    let main = e(b.begin_function(void, None, FunctionControl::NONE, fn_ty))?;
    e(b.begin_block(None))?;
    // Vertex 0, 1, 2 -> (-1, -1), (3, -1), (-1, 3); (u, v) = 0..1 over the viewport.
    let i = e(b.load(t.int, None, vid, None, []))?;
    let bx = e(b.bitwise_and(t.int, None, i, one_i))?;
    let by = e(b.shift_right_arithmetic(t.int, None, i, one_i))?;
    let fx = e(b.convert_s_to_f(t.float, None, bx))?;
    let fy = e(b.convert_s_to_f(t.float, None, by))?;
    let x4 = e(b.f_mul(t.float, None, fx, four))?;
    let y4 = e(b.f_mul(t.float, None, fy, four))?;
    let x = e(b.f_sub(t.float, None, x4, one))?;
    let y = e(b.f_sub(t.float, None, y4, one))?;
    let u = e(b.f_mul(t.float, None, fx, two))?;
    let v = e(b.f_mul(t.float, None, fy, two))?;
    let p = e(b.composite_construct(vec4, None, [x, y, half, one]))?;
    e(b.store(pos, p, None, []))?;
    for (var, iv) in &outs {
        for leaf in iv.leaves() {
            let sty = t.scalar(leaf.kind);
            let value = match value(&leaf) {
                Varying::Int(n) => c(&mut b, sty, n),
                Varying::Linear { base, du, dv } if leaf.kind == ScalarKind::F32 => {
                    let base = c(&mut b, t.float, base.to_bits());
                    let du = c(&mut b, t.float, du.to_bits());
                    let dv = c(&mut b, t.float, dv.to_bits());
                    let a = e(b.f_mul(t.float, None, du, u))?;
                    let bb = e(b.f_mul(t.float, None, dv, v))?;
                    let s = e(b.f_add(t.float, None, a, bb))?;
                    e(b.f_add(t.float, None, base, s))?
                }
                Varying::Linear { base, .. } => c(&mut b, sty, base as i32 as u32),
            };
            let ptr_ty = b.type_pointer(None, StorageClass::Output, sty);
            let ptr = if leaf.path.is_empty() {
                *var
            } else {
                let idx: Vec<u32> = leaf.path.iter().map(|k| c(&mut b, t.uint, *k)).collect();
                e(b.access_chain(ptr_ty, None, *var, idx))?
            };
            e(b.store(ptr, value, None, []))?;
        }
    }
    e(b.ret())?;
    e(b.end_function())?;
    let mut interface = vec![vid, pos];
    interface.extend(outs.iter().map(|o| o.0));
    b.entry_point(ExecutionModel::Vertex, main, "main", interface);
    Ok(rspirv::binary::Assemble::assemble(&b.module()))
}

/// Where `capture_gs` put each scalar: (leaf, word offset in the vertex's record).
pub struct Capture {
    pub spirv: Vec<u32>,
    pub leaves: Vec<(Leaf, u32)>,
    /// Words per vertex.
    pub stride: u32,
}

/// A geometry shader (points in, nothing out) that stores every scalar of the vertex-shader
/// `outputs` into the storage buffer at (`set`, 0).
pub fn capture_gs(outputs: &[Var], set: u32) -> R<Capture> {
    let mut b = Builder::new();
    b.set_version(1, 3);
    b.capability(Capability::Shader);
    b.capability(Capability::Geometry);
    for v in outputs {
        for l in v.leaves() {
            match l.at {
                Place::BuiltIn {
                    builtin: BuiltIn::ClipDistance,
                    ..
                } => b.capability(Capability::ClipDistance),
                Place::BuiltIn {
                    builtin: BuiltIn::CullDistance,
                    ..
                } => b.capability(Capability::CullDistance),
                Place::BuiltIn {
                    builtin: BuiltIn::Layer | BuiltIn::ViewportIndex,
                    ..
                } => b.capability(Capability::MultiViewport),
                _ => {}
            }
        }
    }
    b.memory_model(AddressingModel::Logical, MemoryModel::GLSL450);
    let t = Types::new(&mut b);
    let void = b.type_void();
    let fn_ty = b.type_function(void, []);
    let one = b.constant_bit32(t.uint, 1);
    let zero = b.constant_bit32(t.uint, 0);
    // The buffer: struct { uint data[]; }.
    let rt = b.type_runtime_array(t.uint);
    b.decorate(rt, Decoration::ArrayStride, [Operand::LiteralBit32(4)]);
    let block = b.type_struct([rt]);
    b.decorate(block, Decoration::Block, []);
    b.member_decorate(block, 0, Decoration::Offset, [Operand::LiteralBit32(0)]);
    let block_ptr = b.type_pointer(None, StorageClass::StorageBuffer, block);
    let buf = b.variable(block_ptr, None, StorageClass::StorageBuffer, None);
    b.decorate(buf, Decoration::DescriptorSet, [Operand::LiteralBit32(set)]);
    b.decorate(buf, Decoration::Binding, [Operand::LiteralBit32(0)]);
    let int_in = b.type_pointer(None, StorageClass::Input, t.int);
    let prim = b.variable(int_in, None, StorageClass::Input, None);
    b.decorate(
        prim,
        Decoration::BuiltIn,
        [Operand::BuiltIn(BuiltIn::PrimitiveId)],
    );
    let mut ins = Vec::new();
    let mut leaves = Vec::new();
    let mut offset = 0u32;
    for v in outputs {
        let inner = make_type(&mut b, &t, &v.ty);
        let arr = b.type_array(inner, one);
        let ptr = b.type_pointer(None, StorageClass::Input, arr);
        let var = b.variable(ptr, None, StorageClass::Input, None);
        decorate_io(&mut b, var, v);
        let ls = v.leaves();
        for l in &ls {
            leaves.push((l.clone(), offset));
            offset += 1;
        }
        let first = leaves.len() - ls.len();
        ins.push((var, ls, first));
    }
    let stride = offset.max(1);
    let main = e(b.begin_function(void, None, FunctionControl::NONE, fn_ty))?;
    e(b.begin_block(None))?;
    let p = e(b.load(t.int, None, prim, None, []))?;
    let pu = e(b.bitcast(t.uint, None, p))?;
    let stride_c = b.constant_bit32(t.uint, stride);
    let base = e(b.i_mul(t.uint, None, pu, stride_c))?;
    let uint_sb = b.type_pointer(None, StorageClass::StorageBuffer, t.uint);
    for (var, ls, first) in &ins {
        for (k, l) in ls.iter().enumerate() {
            let sty = t.scalar(l.kind);
            let ptr_ty = b.type_pointer(None, StorageClass::Input, sty);
            let mut idx = vec![zero];
            for p in &l.path {
                idx.push(b.constant_bit32(t.uint, *p));
            }
            let ptr = e(b.access_chain(ptr_ty, None, *var, idx))?;
            let val = e(b.load(sty, None, ptr, None, []))?;
            let bits = if l.kind == ScalarKind::U32 {
                val
            } else {
                e(b.bitcast(t.uint, None, val))?
            };
            let off = b.constant_bit32(t.uint, leaves[first + k].1);
            let at = e(b.i_add(t.uint, None, base, off))?;
            let dst = e(b.access_chain(uint_sb, None, buf, [zero, at]))?;
            e(b.store(dst, bits, None, []))?;
        }
    }
    e(b.ret())?;
    e(b.end_function())?;
    let mut interface = vec![prim];
    interface.extend(ins.iter().map(|i| i.0));
    b.entry_point(ExecutionModel::Geometry, main, "main", interface);
    b.execution_mode(main, ExecutionMode::InputPoints, []);
    b.execution_mode(main, ExecutionMode::OutputPoints, []);
    b.execution_mode(main, ExecutionMode::OutputVertices, [1]);
    b.execution_mode(main, ExecutionMode::Invocations, [1]);
    Ok(Capture {
        spirv: rspirv::binary::Assemble::assemble(&b.module()),
        leaves,
        stride,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs spirv-val on `words`; None (after saying so) when spirv-val is missing.
    fn validate(words: &[u32], name: &str) -> Option<Result<(), String>> {
        let dir = std::env::temp_dir().join(format!("vk-runner-stages-{}", std::process::id()));
        std::fs::create_dir_all(&dir).ok()?;
        let p = dir.join(format!("{name}.spv"));
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        std::fs::write(&p, bytes).ok()?;
        match std::process::Command::new("spirv-val")
            .args(["--target-env", "vulkan1.3"])
            .arg(&p)
            .output()
        {
            Err(_) => {
                eprintln!("**** SKIPPED: spirv-val is not installed; {name} not validated ****");
                None
            }
            Ok(o) if o.status.success() => Some(Ok(())),
            Ok(o) => Some(Err(String::from_utf8_lossy(&o.stderr).into_owned())),
        }
    }

    fn var(location: Option<u32>, component: u32, builtin: Option<BuiltIn>, ty: Ty) -> Var {
        Var {
            location,
            component,
            builtin,
            ty,
        }
    }

    #[test]
    fn generated_stages_are_valid_spirv() {
        let f = ScalarKind::F32;
        let vars = vec![
            var(Some(0), 0, None, Ty::Vector(f, 4)),
            var(Some(1), 2, None, Ty::Vector(f, 2)),
            var(Some(2), 0, None, Ty::Scalar(ScalarKind::U32)),
            var(
                Some(3),
                0,
                None,
                Ty::Array(Box::new(Ty::Vector(ScalarKind::I32, 4)), 2),
            ),
        ];
        let vs = feed_vs(&vars, &|l| match l.kind {
            ScalarKind::F32 => Varying::Linear {
                base: 0.5,
                du: 0.25,
                dv: -0.125,
            },
            _ => Varying::Int(3),
        })
        .expect("builds");
        if let Some(r) = validate(&vs, "feed_vs") {
            r.expect("the feeding vertex shader is valid");
        }
        let mut outs = vars.clone();
        outs.push(var(None, 0, Some(BuiltIn::Position), Ty::Vector(f, 4)));
        outs.push(var(
            None,
            0,
            Some(BuiltIn::ClipDistance),
            Ty::Array(Box::new(Ty::Scalar(f)), 2),
        ));
        let cap = capture_gs(&outs, 1).expect("builds");
        // 4 + 2 + 1 + 8 located scalars, 4 + 2 built-in ones.
        assert_eq!(cap.stride, 21);
        assert_eq!(cap.leaves.len(), 21);
        if let Some(r) = validate(&cap.spirv, "capture_gs") {
            r.expect("the capturing geometry shader is valid");
        }
    }
}
