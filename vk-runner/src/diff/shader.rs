//! What a shader file is and what it declares, read from its bytes alone (never from a
//! translator), so that both sides of a differential run get the same inputs: the kind (a DXBC
//! container or a Direct3D 9 token stream, recognised by content), the stage and model, the
//! signatures, and the resources, constant buffers and samplers the program declares, with the
//! type of every constant-buffer word (from RDEF where it has the variable, else from how the
//! program reads it).

use std::collections::HashMap;
use translator::container::signature::ComponentType as SigType;
use translator::container::{Container, Signature};
use translator::d3dbc;
use translator::reflect::{RegisterClass, ResourceDim, ShaderStage};
use translator::sm4::{self, Declaration, OperandType};

/// The bytecode family.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Dxbc,
    D3d9,
}

/// How a 32-bit word is read: as a float or as an integer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WordKind {
    Float,
    Int,
    /// Read as a boolean (RDEF `bool`): 0 or 1.
    Bool,
    /// A float in [-1, 1]: ps_1_x constants (the range its registers must hold).
    Signed,
}

/// A signature element (D3D9: a `dcl` of an input or output register).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SigElem {
    pub name: String,
    pub index: u32,
    pub register: u32,
    pub mask: u8,
    pub kind: ScalarKind,
    /// Whether the element is a system value the pipeline supplies (SV_VertexID, ...).
    pub system: bool,
}

/// The scalar type of a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ScalarKind {
    F32,
    U32,
    I32,
}

/// The element type a texture or typed buffer returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TexelKind {
    /// Floats in [0, 1] (unorm, or float data kept there).
    Unorm,
    /// Floats in [-1, 1].
    Snorm,
    Float,
    Uint,
    Sint,
}

/// What a register holds.
#[derive(Debug, Clone, PartialEq)]
pub enum ResKind {
    /// `cb#`: `vec4s` 16-byte rows; `words` says how each word is read.
    ConstantBuffer {
        vec4s: u32,
        words: Vec<WordKind>,
    },
    /// `t#` texture or typed buffer; `compared` when sampled with depth comparison.
    Texture {
        dim: ResourceDim,
        texel: TexelKind,
        samples: u32,
        compared: bool,
    },
    RawBuffer,
    StructuredBuffer {
        stride: u32,
    },
    /// `u#` typed; `r32` when atomics or typed loads need a single 32-bit channel.
    UavTyped {
        dim: ResourceDim,
        texel: TexelKind,
        r32: bool,
    },
    UavRaw,
    UavStructured {
        stride: u32,
    },
    Sampler {
        comparison: bool,
    },
}

/// One register of a declared range.
#[derive(Debug, Clone, PartialEq)]
pub struct Res {
    pub class: RegisterClass,
    pub space: u32,
    pub register: u32,
    pub kind: ResKind,
}

/// What a geometry shader declares about its primitives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GsInfo {
    pub input: sm4::Primitive,
    pub max_vertices: u32,
    pub instances: u32,
}

/// The decoded program.
pub enum Program {
    Sm4(sm4::Program),
    D3d9(d3dbc::Program),
}

/// Everything the generator and the tolerance analysis need about one shader.
pub struct Shader {
    pub bytes: Vec<u8>,
    pub kind: Kind,
    pub stage: ShaderStage,
    /// `ps_5_0`, `vs_2_0`, ...
    pub model: String,
    pub inputs: Vec<SigElem>,
    pub outputs: Vec<SigElem>,
    pub resources: Vec<Res>,
    /// Compute: the declared thread-group shape.
    pub workgroup: [u32; 3],
    /// `u#` registers (space 0 or the declared one) written through their hidden counter
    /// (`imm_atomic_alloc`): the order of their elements is not defined.
    pub appended: Vec<u32>,
    /// The program decrements a UAV counter (`imm_atomic_consume`).
    pub consumes: bool,
    /// Geometry shaders: input primitive, vertex count, instances.
    pub gs: Option<GsInfo>,
    /// A D3D8 vertex shader given the `dcl`s its vertex registers imply
    /// (`D3D8_VERTEX_REGISTERS`); `bytes` is that program.
    pub d3d8: bool,
    pub program: Program,
}

/// Whether `bytes` look like a shader this tool reads, and which kind.
pub fn recognise(bytes: &[u8]) -> Option<Kind> {
    if bytes.len() >= 4 && &bytes[..4] == b"DXBC" {
        Some(Kind::Dxbc)
    } else if d3dbc::is_d3dbc(bytes) {
        Some(Kind::D3d9)
    } else {
        None
    }
}

/// Decodes a shader file.
pub fn load(bytes: Vec<u8>) -> Result<Shader, String> {
    match recognise(&bytes) {
        Some(Kind::Dxbc) => load_dxbc(bytes),
        Some(Kind::D3d9) => load_d3d9(bytes),
        None => Err("neither a DXBC container nor Direct3D 9 bytecode".into()),
    }
}

fn sig_kind(t: SigType) -> ScalarKind {
    match t {
        SigType::UInt32 => ScalarKind::U32,
        SigType::SInt32 => ScalarKind::I32,
        _ => ScalarKind::F32,
    }
}

fn texel_kind(t: sm4::ReturnType) -> TexelKind {
    match t {
        sm4::ReturnType::Unorm => TexelKind::Unorm,
        sm4::ReturnType::Snorm => TexelKind::Snorm,
        sm4::ReturnType::Sint => TexelKind::Sint,
        sm4::ReturnType::Uint => TexelKind::Uint,
        _ => TexelKind::Float,
    }
}

fn dim_of(d: sm4::ResourceDimension) -> Option<ResourceDim> {
    use sm4::ResourceDimension as D;
    Some(match d {
        D::Buffer => ResourceDim::Buffer,
        D::Texture1D => ResourceDim::Texture1D,
        D::Texture1DArray => ResourceDim::Texture1DArray,
        D::Texture2D => ResourceDim::Texture2D,
        D::Texture2DArray => ResourceDim::Texture2DArray,
        D::Texture2DMS => ResourceDim::Texture2DMS,
        D::Texture2DMSArray => ResourceDim::Texture2DMSArray,
        D::Texture3D => ResourceDim::Texture3D,
        D::TextureCube => ResourceDim::TextureCube,
        D::TextureCubeArray => ResourceDim::TextureCubeArray,
        _ => return None,
    })
}

/// Most registers one declared range contributes (SM5.1 arrays; unbounded ones included).
pub(super) const MAX_RANGE: u32 = 8;

fn load_dxbc(bytes: Vec<u8>) -> Result<Shader, String> {
    let container = Container::parse(&bytes).map_err(|e| format!("DXBC container: {e}"))?;
    let chunk = container
        .shader_chunk()
        .ok_or("the container has no SHDR/SHEX chunk")?;
    let program = sm4::decode(chunk.data, chunk.offset).map_err(|e| format!("SM4 program: {e}"))?;
    let sig = |tags: &[&[u8; 4]]| -> Result<Vec<SigElem>, String> {
        let Some(c) = container.chunk_any(tags) else {
            return Ok(Vec::new());
        };
        let s = Signature::parse(c).map_err(|e| format!("signature: {e}"))?;
        Ok(s.elements
            .iter()
            .filter(|e| e.stream == 0)
            .map(|e| SigElem {
                name: e.semantic_name.to_ascii_uppercase(),
                index: e.semantic_index,
                register: e.register,
                mask: e.mask,
                kind: sig_kind(e.component_type),
                system: e.has_no_register()
                    || e.system_value_by_name()
                        != translator::container::signature::SystemValue::Undefined,
            })
            .collect())
    };
    let inputs = sig(&[b"ISGN", b"ISG1"])?;
    let outputs = sig(&[b"OSGN", b"OSG1", b"OSG5"])?;
    let stage = match program.version.program_type {
        sm4::ProgramType::Pixel => ShaderStage::Pixel,
        sm4::ProgramType::Vertex => ShaderStage::Vertex,
        sm4::ProgramType::Geometry => ShaderStage::Geometry,
        sm4::ProgramType::Hull => ShaderStage::Hull,
        sm4::ProgramType::Domain => ShaderStage::Domain,
        sm4::ProgramType::Compute => ShaderStage::Compute,
    };
    let model = format!(
        "{}_{}_{}",
        stage.prefix(),
        program.version.major,
        program.version.minor
    );
    let rdef_words = rdef_word_kinds(&container);
    let usage = Usage::of(&program);
    let sm51 = program.version.is_sm51();
    let mut resources = Vec::new();
    let mut workgroup = [1, 1, 1];
    let mut gs = (stage == ShaderStage::Geometry).then_some(GsInfo {
        input: sm4::Primitive::Undefined,
        max_vertices: 1,
        instances: 1,
    });
    for inst in program.declarations() {
        let Some(decl) = inst.decl() else { continue };
        match (decl, gs.as_mut()) {
            (Declaration::ThreadGroup(g), _) => {
                workgroup = *g;
                continue;
            }
            (Declaration::GsInputPrimitive(p), Some(g)) => g.input = *p,
            (Declaration::MaxOutputVertexCount(n), Some(g)) => g.max_vertices = *n,
            (Declaration::GsInstanceCount(n), Some(g)) => g.instances = (*n).max(1),
            _ => {}
        }
        let Some(op) = inst.operands.first() else {
            continue;
        };
        // (range id, lower, upper) in SM5.1; the register otherwise.
        let (id, lower, upper) = if sm51 {
            let i = |k| op.imm_index(k).unwrap_or(0) as u32;
            (i(0), i(1), i(2))
        } else {
            let r = op.imm_index(0).unwrap_or(0) as u32;
            (r, r, r)
        };
        let space = decl.space().unwrap_or(0);
        let upper = upper.min(lower.saturating_add(MAX_RANGE - 1));
        let (class, kind) = match (op.ty, decl) {
            (OperandType::ConstantBuffer, Declaration::ConstantBuffer { size, .. }) => {
                let vec4s = size.unwrap_or_else(|| op.imm_index(1).unwrap_or(0) as u32);
                let vec4s = vec4s.clamp(1, 4096);
                let mut words = vec![WordKind::Float; vec4s as usize * 4];
                // The program's reads decide first; RDEF, where it has a variable, wins.
                for ((cb, word), k) in &usage.cb_words {
                    if *cb == id && (*word as usize) < words.len() {
                        words[*word as usize] = *k;
                    }
                }
                if let Some(r) = rdef_words.get(&(space, lower)) {
                    for (w, k) in r.iter().enumerate().take(words.len()) {
                        if let Some(k) = k {
                            words[w] = *k;
                        }
                    }
                }
                (RegisterClass::B, ResKind::ConstantBuffer { vec4s, words })
            }
            (
                OperandType::Resource,
                Declaration::Resource {
                    dim,
                    sample_count,
                    return_type,
                    ..
                },
            ) => {
                let Some(d) = dim_of(*dim) else { continue };
                (
                    RegisterClass::T,
                    ResKind::Texture {
                        dim: d,
                        texel: texel_kind(return_type.types[0]),
                        samples: u32::from(*sample_count).max(1),
                        compared: usage.compared.contains(&id),
                    },
                )
            }
            (OperandType::Resource, Declaration::ResourceRaw { .. }) => {
                (RegisterClass::T, ResKind::RawBuffer)
            }
            (OperandType::Resource, Declaration::ResourceStructured { stride, .. }) => (
                RegisterClass::T,
                ResKind::StructuredBuffer { stride: *stride },
            ),
            (
                OperandType::UnorderedAccessView,
                Declaration::UavTyped {
                    dim, return_type, ..
                },
            ) => {
                let Some(d) = dim_of(*dim) else { continue };
                (
                    RegisterClass::U,
                    ResKind::UavTyped {
                        dim: d,
                        texel: texel_kind(return_type.types[0]),
                        r32: usage.r32_uavs.contains(&id),
                    },
                )
            }
            (OperandType::UnorderedAccessView, Declaration::UavRaw { .. }) => {
                (RegisterClass::U, ResKind::UavRaw)
            }
            (OperandType::UnorderedAccessView, Declaration::UavStructured { stride, .. }) => {
                (RegisterClass::U, ResKind::UavStructured { stride: *stride })
            }
            (OperandType::Sampler, Declaration::Sampler { mode, .. }) => (
                RegisterClass::S,
                ResKind::Sampler {
                    comparison: *mode == sm4::SamplerMode::Comparison,
                },
            ),
            _ => continue,
        };
        for register in lower..=upper {
            resources.push(Res {
                class,
                space,
                register,
                kind: kind.clone(),
            });
        }
    }
    // Range ids are registers before SM5.1; an SM5.1 range's first register stands for it.
    let appended = usage.appended.clone();
    Ok(Shader {
        bytes,
        kind: Kind::Dxbc,
        stage,
        model,
        inputs,
        outputs,
        resources,
        workgroup,
        appended,
        gs,
        d3d8: false,
        consumes: !usage.consumed.is_empty(),
        program: Program::Sm4(program),
    })
}

/// What the program's instructions say about its resources.
#[derive(Default)]
struct Usage {
    /// (cb range id, word) → how an immediate-indexed read uses the word.
    cb_words: HashMap<(u32, u32), WordKind>,
    /// `t#` range ids sampled with depth comparison.
    compared: Vec<u32>,
    /// `u#` range ids read with typed loads or atomics.
    r32_uavs: Vec<u32>,
    /// `u#` range ids whose hidden counter is incremented / decremented.
    appended: Vec<u32>,
    consumed: Vec<u32>,
}

impl Usage {
    fn of(p: &sm4::Program) -> Usage {
        use sm4::Opcode as O;
        let mut u = Usage::default();
        let mut float_reads: HashMap<(u32, u32), bool> = HashMap::new();
        for inst in p.iter() {
            if inst.opcode.is_declaration() {
                continue;
            }
            let info = inst.info();
            match inst.opcode {
                O::SampleC | O::SampleCLz | O::Gather4C | O::Gather4PoC | O::SampleCLzS => {
                    // The resource is the second-to-last-but-one source: find the `t` operand.
                    if let Some(t) = inst.operands.iter().find(|o| o.ty == OperandType::Resource) {
                        u.compared.push(t.imm_index(0).unwrap_or(0) as u32);
                    }
                }
                O::ImmAtomicAlloc | O::ImmAtomicConsume => {
                    if let Some(t) = inst
                        .operands
                        .iter()
                        .find(|o| o.ty == OperandType::UnorderedAccessView)
                    {
                        let id = t.imm_index(0).unwrap_or(0) as u32;
                        if inst.opcode == O::ImmAtomicAlloc {
                            u.appended.push(id);
                        } else {
                            u.consumed.push(id);
                        }
                    }
                }
                O::LdUavTyped
                | O::LdUavTypedS
                | O::AtomicAnd
                | O::AtomicOr
                | O::AtomicXor
                | O::AtomicCmpStore
                | O::AtomicIAdd
                | O::AtomicIMax
                | O::AtomicIMin
                | O::AtomicUMax
                | O::AtomicUMin
                | O::ImmAtomicIAdd
                | O::ImmAtomicAnd
                | O::ImmAtomicOr
                | O::ImmAtomicXor
                | O::ImmAtomicExch
                | O::ImmAtomicCmpExch
                | O::ImmAtomicIMax
                | O::ImmAtomicIMin
                | O::ImmAtomicUMax
                | O::ImmAtomicUMin => {
                    if let Some(t) = inst
                        .operands
                        .iter()
                        .find(|o| o.ty == OperandType::UnorderedAccessView)
                    {
                        u.r32_uavs.push(t.imm_index(0).unwrap_or(0) as u32);
                    }
                }
                _ => {}
            }
            // Constant-buffer words read directly, typed by the instruction's operand type.
            for (i, op) in inst.operands.iter().enumerate() {
                if op.ty != OperandType::ConstantBuffer || i < info.dsts() {
                    continue;
                }
                let (Some(id), Some(Some(row))) = (
                    op.imm_index(0),
                    op.index(op.index_dim().saturating_sub(1))
                        .map(|x| x.as_immediate()),
                ) else {
                    continue;
                };
                let float = match info.operand_type(i) {
                    sm4::DataType::Float | sm4::DataType::Double => true,
                    sm4::DataType::Int | sm4::DataType::Uint => false,
                    // Moves and loads: no evidence.
                    sm4::DataType::Any => continue,
                };
                for c in selected(op) {
                    let word = (row as u32) * 4 + u32::from(c);
                    let e = float_reads.entry((id as u32, word)).or_insert(float);
                    // A word read as a float anywhere stays a float.
                    *e |= float;
                }
            }
        }
        for (k, float) in float_reads {
            if !float {
                u.cb_words.insert(k, WordKind::Int);
            }
        }
        u
    }
}

/// The components a source operand reads.
fn selected(op: &sm4::Operand) -> Vec<u8> {
    match op.components {
        sm4::Components::Swizzle(s) => {
            let mut v = s.to_vec();
            v.sort_unstable();
            v.dedup();
            v
        }
        sm4::Components::Select1(c) => vec![c],
        sm4::Components::Mask(m) => (0..4).filter(|c| m & (1 << c) != 0).collect(),
        sm4::Components::One => vec![0],
        _ => Vec::new(),
    }
}

/// Word kinds RDEF gives each constant buffer's variables, by (space, register).
fn rdef_word_kinds(c: &Container<'_>) -> HashMap<(u32, u32), Vec<Option<WordKind>>> {
    use translator::container::rdef::{
        ResourceDefinitions, ShaderInputType, VariableClass, VariableType,
    };
    let mut out = HashMap::new();
    let Some(chunk) = c.chunk(b"RDEF") else {
        return out;
    };
    let Ok(rdef) = ResourceDefinitions::parse(chunk) else {
        return out;
    };
    for b in &rdef.bindings {
        if b.input_type != ShaderInputType::CBuffer {
            continue;
        }
        let Some(cb) = rdef.buffer_for(b) else {
            continue;
        };
        let mut words: Vec<Option<WordKind>> = vec![None; (cb.size / 4) as usize];
        // Walks a type at a byte offset, marking the words of its scalars.
        fn walk(
            rdef: &ResourceDefinitions<'_>,
            ty: usize,
            offset: u32,
            words: &mut [Option<WordKind>],
            depth: u32,
        ) {
            if depth > 16 {
                return;
            }
            let t = rdef.ty(ty);
            let kind = match t.base {
                VariableType::Int | VariableType::UInt | VariableType::UInt8 => Some(WordKind::Int),
                VariableType::Bool => Some(WordKind::Bool),
                VariableType::Float => Some(WordKind::Float),
                _ => None,
            };
            let elements = u32::from(t.elements).max(1);
            // Arrays of scalars/vectors/matrices start each element on a 16-byte row.
            let (rows, cols) = match t.class {
                VariableClass::MatrixColumns => (u32::from(t.columns), u32::from(t.rows)),
                _ => (u32::from(t.rows).max(1), u32::from(t.columns).max(1)),
            };
            let element_size = if t.class == VariableClass::Struct {
                0
            } else {
                rows * 16
            };
            for e in 0..elements.min(256) {
                let base = offset + e * element_size;
                if t.class == VariableClass::Struct {
                    let stride = struct_size(rdef, ty).next_multiple_of(16);
                    for m in &t.members {
                        walk(
                            rdef,
                            m.type_index,
                            offset + e * stride + m.offset,
                            words,
                            depth + 1,
                        );
                    }
                    continue;
                }
                let Some(k) = kind else { continue };
                for r in 0..rows {
                    for col in 0..cols {
                        let w = ((base + r * 16) / 4 + col) as usize;
                        if let Some(slot) = words.get_mut(w) {
                            *slot = Some(k);
                        }
                    }
                }
            }
        }
        fn struct_size(rdef: &ResourceDefinitions<'_>, ty: usize) -> u32 {
            let t = rdef.ty(ty);
            t.members
                .iter()
                .map(|m| {
                    let mt = rdef.ty(m.type_index);
                    m.offset + u32::from(mt.rows.max(1)) * 16 * u32::from(mt.elements.max(1))
                })
                .max()
                .unwrap_or(16)
        }
        for v in &cb.variables {
            walk(&rdef, v.type_index, v.offset, &mut words, 0);
        }
        out.insert((b.space, b.bind_point), words);
    }
    out
}

/// D3D8's vertex-register meanings (`D3DVSDE_*`): register → (usage, index).
const D3D8_VERTEX_REGISTERS: [(&str, u32); 17] = [
    ("position", 0),
    ("blendweight", 0),
    ("blendindices", 0),
    ("normal", 0),
    ("psize", 0),
    ("color", 0),
    ("color", 1),
    ("texcoord", 0),
    ("texcoord", 1),
    ("texcoord", 2),
    ("texcoord", 3),
    ("texcoord", 4),
    ("texcoord", 5),
    ("texcoord", 6),
    ("texcoord", 7),
    ("position", 1),
    ("normal", 1),
];

/// A vs_1_x program without `dcl`s (D3D8's, whose runtime gives each input register its
/// meaning through the vertex declaration, `D3DVSDE_*`: v0 position, v3 normal, v5 diffuse,
/// v7 texcoord0, ...) with the `dcl`s that mapping implies added, so that every translator
/// reads the same meaning into it. None when the program declares its inputs.
fn with_d3d8_declarations(program: &d3dbc::Program) -> Option<Vec<u8>> {
    let v = program.version;
    if !v.is_vertex() || v.major != 1 {
        return None;
    }
    if program
        .instructions()
        .any(|i| matches!(i.extra, d3dbc::Extra::Dcl(_)))
    {
        return None;
    }
    let mut used: Vec<u16> = program
        .instructions()
        .flat_map(|i| i.src.iter())
        .filter(|s| s.reg.ty == d3dbc::RegisterType::Input)
        .map(|s| s.reg.num)
        .collect();
    used.sort_unstable();
    used.dedup();
    if used.is_empty() {
        return None;
    }
    let text = program.to_string();
    let (version, rest) = text.split_once('\n')?;
    let mut out = format!("{version}\n");
    for r in used {
        let (usage, index) = D3D8_VERTEX_REGISTERS.get(usize::from(r))?;
        out.push_str(&format!("dcl_{usage}{index} v{r}\n"));
    }
    out.push_str(rest);
    d3dbc::asm::assemble(&out).ok()
}

fn load_d3d9(bytes: Vec<u8>) -> Result<Shader, String> {
    let mut program = d3dbc::decode(&bytes).map_err(|e| format!("D3D9 bytecode: {e}"))?;
    let mut bytes = bytes;
    let mut d3d8 = false;
    if let Some(b) = with_d3d8_declarations(&program) {
        program = d3dbc::decode(&b).map_err(|e| format!("D3D9 bytecode with D3D8 dcls: {e}"))?;
        bytes = b;
        d3d8 = true;
    }
    let v = program.version;
    let stage = if v.is_vertex() {
        ShaderStage::Vertex
    } else {
        ShaderStage::Pixel
    };
    let model = format!("{}_{}_{}", stage.prefix(), v.major, v.minor);
    let mut inputs = Vec::new();
    let mut outputs = Vec::new();
    let mut resources = Vec::new();
    let float_count = match (stage, v.major) {
        (ShaderStage::Vertex, _) => 256,
        (_, 3) => 224,
        (_, 2) => 32,
        _ => 8,
    };
    resources.push(Res {
        class: RegisterClass::B,
        space: 0,
        register: 0,
        kind: ResKind::ConstantBuffer {
            vec4s: float_count,
            words: vec![
                if v.major == 1 && stage == ShaderStage::Pixel {
                    WordKind::Signed
                } else {
                    WordKind::Float
                };
                float_count as usize * 4
            ],
        },
    });
    resources.push(Res {
        class: RegisterClass::B,
        space: 0,
        register: 1,
        kind: ResKind::ConstantBuffer {
            vec4s: 16,
            words: vec![WordKind::Int; 64],
        },
    });
    resources.push(Res {
        class: RegisterClass::B,
        space: 0,
        register: 2,
        kind: ResKind::ConstantBuffer {
            vec4s: 4,
            words: vec![WordKind::Bool; 16],
        },
    });
    let mut samplers: Vec<(u32, d3dbc::TextureType)> = Vec::new();
    for inst in program.instructions() {
        let d3dbc::Extra::Dcl(decl) = inst.extra else {
            // ps_1_x samples without `dcl`: the reflection's shape stands in (see exec).
            continue;
        };
        let Some(dst) = &inst.dst else { continue };
        match decl {
            d3dbc::Declaration::Sampler(t) => {
                samplers.push((u32::from(dst.reg.num), t));
            }
            d3dbc::Declaration::Semantic { usage, index } => {
                let e = SigElem {
                    name: usage.name().to_ascii_uppercase(),
                    index: u32::from(index),
                    register: u32::from(dst.reg.num),
                    mask: dst.mask,
                    kind: ScalarKind::F32,
                    system: false,
                };
                use d3dbc::RegisterType as R;
                match dst.reg.ty {
                    R::Input | R::AddrOrTexture | R::Misc => inputs.push(e),
                    _ => outputs.push(e),
                }
            }
        }
    }
    for (reg, t) in samplers {
        let dim = match t {
            d3dbc::TextureType::Cube => ResourceDim::TextureCube,
            d3dbc::TextureType::Volume => ResourceDim::Texture3D,
            _ => ResourceDim::Texture2D,
        };
        resources.push(Res {
            class: RegisterClass::T,
            space: 0,
            register: reg,
            kind: ResKind::Texture {
                dim,
                texel: TexelKind::Unorm,
                samples: 1,
                compared: false,
            },
        });
        resources.push(Res {
            class: RegisterClass::S,
            space: 0,
            register: reg,
            kind: ResKind::Sampler { comparison: false },
        });
    }
    Ok(Shader {
        bytes,
        kind: Kind::D3d9,
        stage,
        model,
        inputs,
        outputs,
        resources,
        workgroup: [1, 1, 1],
        appended: Vec::new(),
        consumes: false,
        d3d8,
        gs: None,
        program: Program::D3d9(program),
    })
}

impl Shader {
    /// Whether this is a ps_1_x program, whose results beyond [0, 1] D3D9 leaves to the
    /// implementation (its registers hold at least ±1, and whether the output is clamped is
    /// not specified): its outputs are compared saturated.
    pub fn saturated_outputs(&self) -> bool {
        self.kind == Kind::D3d9
            && self.stage == ShaderStage::Pixel
            && self.model.starts_with("ps_1")
    }

    /// For a D3D9 program, the outputs it writes, named as the runs name them (`POSITION`,
    /// `COLOR0`, `TEXCOORD3`, `FOG0`, `POINTSIZE`, `DEPTH`; vs_3_0 registers by their `dcl`).
    /// A translator may add outputs of its own for fixed-function state (fog coordinates, clip
    /// distances, point sizes); those are no shader output and are not compared. None for
    /// DXBC, whose signatures list exactly its outputs.
    /// With each name, the components the program writes (the others D3D9 leaves to the
    /// implementation: WINE `test_uninitialized_varyings` sees either 0 or 1 there).
    pub fn d3d9_outputs(&self) -> Option<HashMap<String, u32>> {
        use d3dbc::RegisterType as R;
        let Program::D3d9(p) = &self.program else {
            return None;
        };
        let v = p.version;
        let ps1 = !v.is_vertex() && v.major == 1;
        let mut out: HashMap<String, u32> = HashMap::new();
        for inst in p.instructions() {
            if matches!(inst.extra, d3dbc::Extra::Dcl(_)) {
                continue;
            }
            let Some(d) = &inst.dst else { continue };
            let n = u32::from(d.reg.num);
            let name = match d.reg.ty {
                R::RastOut => match n {
                    0 => "POSITION".to_string(),
                    1 => "FOG0".into(),
                    _ => "POINTSIZE".into(),
                },
                R::AttrOut => format!("COLOR{n}"),
                R::Output if v.major < 3 => format!("TEXCOORD{n}"),
                R::Output => match self.outputs.iter().find(|e| e.register == n) {
                    Some(e) if e.name == "POSITION" || e.name == "POSITIONT" => "POSITION".into(),
                    Some(e) if e.name == "PSIZE" => "POINTSIZE".into(),
                    Some(e) => format!("{}{}", e.name, e.index),
                    None => continue,
                },
                R::ColorOut => format!("COLOR{n}"),
                R::DepthOut => "DEPTH".into(),
                R::Temp if ps1 && n == 0 => "COLOR0".into(),
                _ => continue,
            };
            let mask = match name.as_str() {
                // Scalars: whichever component the program writes lands in the one there is.
                "FOG0" | "POINTSIZE" | "DEPTH" => 1,
                _ => u32::from(d.mask),
            };
            *out.entry(name).or_default() |= mask;
        }
        Some(out)
    }
}
