//! Resource definitions (RDEF): constant buffers with their variables and types, bound
//! resources, the creator string and compile target.
//!
//! The translator uses the bindings (names, dimensions, SM5.1 spaces) for reflection; the
//! disassembler prints the `Buffer Definitions` and `Resource Bindings` tables from it. The
//! chunk is a header of counts and offsets into itself, an `RD11` sub-header for SM5 naming the
//! record sizes, then record tables and strings. Record sizes depend on the target:
//!
//! | record            | SM4 | SM5.0 | SM5.1 |
//! |-------------------|-----|-------|-------|
//! | constant buffer   | 24  | 24    | 24    |
//! | resource binding  | 32  | 32    | 40    |
//! | variable          | 24  | 40    | 40    |
//! | type              | 16  | 36    | 36    |
//! | struct member     | 12  | 12    | 12    |
//!
//! Types form a graph (struct members name other types by offset; several variables may share a
//! type). They are parsed once per offset into [`ResourceDefinitions::types`] and referred to by
//! index. Hostile input could make that graph cyclic, very deep, or exponentially large when
//! expanded, so the parser rejects cycles, depth above [`MAX_TYPE_DEPTH`], more type/member
//! records than the chunk size allows for, and expansions above [`MAX_EXPANDED_MEMBERS`].

use std::collections::HashMap;

use super::enums::raw_enum;
use super::reader::ChunkReader;
use super::{Chunk, ContainerError, ContainerErrorKind, ShaderVersion};

/// Deepest struct nesting accepted (HLSL sources nest a handful of levels).
pub const MAX_TYPE_DEPTH: usize = 64;
/// Most struct members all variables' types may expand to, in total.
pub const MAX_EXPANDED_MEMBERS: u64 = 1 << 16;

raw_enum! {
    /// `D3D_SHADER_VARIABLE_CLASS`.
    pub enum VariableClass {
        Scalar = 0 => "scalar",
        Vector = 1 => "vector",
        MatrixRows = 2 => "matrix_rows",
        MatrixColumns = 3 => "matrix_columns",
        Object = 4 => "object",
        Struct = 5 => "struct",
        InterfaceClass = 6 => "interface_class",
        InterfacePointer = 7 => "interface_pointer",
    }
}

raw_enum! {
    /// `D3D_SHADER_VARIABLE_TYPE`; the text is the HLSL spelling.
    pub enum VariableType {
        Void = 0 => "void",
        Bool = 1 => "bool",
        Int = 2 => "int",
        Float = 3 => "float",
        String = 4 => "string",
        Texture = 5 => "texture",
        Texture1D = 6 => "Texture1D",
        Texture2D = 7 => "Texture2D",
        Texture3D = 8 => "Texture3D",
        TextureCube = 9 => "TextureCube",
        Sampler = 10 => "SamplerState",
        Sampler1D = 11 => "sampler1D",
        Sampler2D = 12 => "sampler2D",
        Sampler3D = 13 => "sampler3D",
        SamplerCube = 14 => "samplerCUBE",
        PixelShader = 15 => "PixelShader",
        VertexShader = 16 => "VertexShader",
        PixelFragment = 17 => "pixelfragment",
        VertexFragment = 18 => "vertexfragment",
        UInt = 19 => "uint",
        UInt8 = 20 => "uint8",
        GeometryShader = 21 => "GeometryShader",
        Rasterizer = 22 => "RasterizerState",
        DepthStencil = 23 => "DepthStencilState",
        Blend = 24 => "BlendState",
        Buffer = 25 => "Buffer",
        CBuffer = 26 => "cbuffer",
        TBuffer = 27 => "tbuffer",
        Texture1DArray = 28 => "Texture1DArray",
        Texture2DArray = 29 => "Texture2DArray",
        RenderTargetView = 30 => "RenderTargetView",
        DepthStencilView = 31 => "DepthStencilView",
        Texture2DMS = 32 => "Texture2DMS",
        Texture2DMSArray = 33 => "Texture2DMSArray",
        TextureCubeArray = 34 => "TextureCubeArray",
        HullShader = 35 => "HullShader",
        DomainShader = 36 => "DomainShader",
        InterfacePointer = 37 => "interface",
        ComputeShader = 38 => "ComputeShader",
        Double = 39 => "double",
        RWTexture1D = 40 => "RWTexture1D",
        RWTexture1DArray = 41 => "RWTexture1DArray",
        RWTexture2D = 42 => "RWTexture2D",
        RWTexture2DArray = 43 => "RWTexture2DArray",
        RWTexture3D = 44 => "RWTexture3D",
        RWBuffer = 45 => "RWBuffer",
        ByteAddressBuffer = 46 => "ByteAddressBuffer",
        RWByteAddressBuffer = 47 => "RWByteAddressBuffer",
        StructuredBuffer = 48 => "StructuredBuffer",
        RWStructuredBuffer = 49 => "RWStructuredBuffer",
        AppendStructuredBuffer = 50 => "AppendStructuredBuffer",
        ConsumeStructuredBuffer = 51 => "ConsumeStructuredBuffer",
        Min8Float = 52 => "min8float",
        Min10Float = 53 => "min10float",
        Min16Float = 54 => "min16float",
        Min12Int = 55 => "min12int",
        Min16Int = 56 => "min16int",
        Min16UInt = 57 => "min16uint",
        Int16 = 58 => "int16_t",
        UInt16 = 59 => "uint16_t",
        Float16 = 60 => "float16_t",
        Int64 = 61 => "int64_t",
        UInt64 = 62 => "uint64_t",
    }
}

raw_enum! {
    /// `D3D_CBUFFER_TYPE`.
    pub enum CBufferType {
        CBuffer = 0 => "cbuffer",
        TBuffer = 1 => "tbuffer",
        InterfacePointers = 2 => "interfaces",
        ResourceBindInfo = 3 => "resource bind info",
    }
}

raw_enum! {
    /// `D3D_SHADER_INPUT_TYPE`: what a binding binds. The text is fxc's `Type` column.
    pub enum ShaderInputType {
        CBuffer = 0 => "cbuffer",
        TBuffer = 1 => "tbuffer",
        Texture = 2 => "texture",
        Sampler = 3 => "sampler",
        UavRwTyped = 4 => "UAV",
        Structured = 5 => "texture",
        UavRwStructured = 6 => "UAV",
        ByteAddress = 7 => "texture",
        UavRwByteAddress = 8 => "UAV",
        UavAppendStructured = 9 => "UAV",
        UavConsumeStructured = 10 => "UAV",
        UavRwStructuredWithCounter = 11 => "UAV",
        RtAccelerationStructure = 12 => "rtas",
        UavFeedbackTexture = 13 => "UAV",
    }
}

impl ShaderInputType {
    /// Whether the binding is an unordered access view (`u#` register).
    pub fn is_uav(self) -> bool {
        matches!(
            self,
            ShaderInputType::UavRwTyped
                | ShaderInputType::UavRwStructured
                | ShaderInputType::UavRwByteAddress
                | ShaderInputType::UavAppendStructured
                | ShaderInputType::UavConsumeStructured
                | ShaderInputType::UavRwStructuredWithCounter
                | ShaderInputType::UavFeedbackTexture
        )
    }

    /// The register prefix of the binding in HLSL (`cb`, `t`, `s`, `u`).
    pub fn register_prefix(self) -> &'static str {
        match self {
            ShaderInputType::CBuffer => "cb",
            ShaderInputType::Sampler => "s",
            t if t.is_uav() => "u",
            _ => "t",
        }
    }
}

raw_enum! {
    /// `D3D_RESOURCE_RETURN_TYPE`.
    pub enum ReturnType {
        None = 0 => "NA",
        UNorm = 1 => "unorm",
        SNorm = 2 => "snorm",
        SInt = 3 => "sint",
        UInt = 4 => "uint",
        Float = 5 => "float",
        Mixed = 6 => "mixed",
        Double = 7 => "double",
        Continued = 8 => "continued",
    }
}

raw_enum! {
    /// `D3D_SRV_DIMENSION`; the text is fxc's `Dim` column.
    pub enum Dimension {
        Unknown = 0 => "NA",
        Buffer = 1 => "buf",
        Texture1D = 2 => "1d",
        Texture1DArray = 3 => "1darray",
        Texture2D = 4 => "2d",
        Texture2DArray = 5 => "2darray",
        Texture2DMS = 6 => "2dMS",
        Texture2DMSArray = 7 => "2darrayMS",
        Texture3D = 8 => "3d",
        TextureCube = 9 => "cube",
        TextureCubeArray = 10 => "cubearray",
        BufferEx = 11 => "bufex",
    }
}

/// `D3D_SVF_USED`: the variable is referenced by the program.
pub const VARIABLE_USED: u32 = 0x2;
/// `D3D_SIF_COMPARISON_SAMPLER`.
pub const BINDING_COMPARISON_SAMPLER: u32 = 0x2;
/// `D3D_SIF_UNUSED`.
pub const BINDING_UNUSED: u32 = 0x10;

/// Record sizes and optional fields, fixed by the target version.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Rd11Header {
    /// `RD11` (SM5.0) or `0x25441313` (SM5.1).
    pub magic: u32,
    pub header_size: u32,
    pub constant_buffer_size: u32,
    pub binding_size: u32,
    pub variable_size: u32,
    pub type_size: u32,
    pub member_size: u32,
    pub unknown: u32,
}

/// The magic of the SM5.0 `RD11` sub-header.
pub const RD11_MAGIC: u32 = u32::from_le_bytes(*b"RD11");
/// The magic SM5.1 compilers write instead.
pub const RD11_MAGIC_5_1: u32 = 0x2544_1313;

/// A type in the constant-buffer type graph.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ShaderType<'a> {
    /// Offset of the type record in the chunk (its identity).
    pub chunk_offset: u32,
    pub class: VariableClass,
    pub base: VariableType,
    pub rows: u16,
    pub columns: u16,
    /// Array length; 0 for a non-array.
    pub elements: u16,
    pub members: Vec<Member<'a>>,
    /// The type's name (SM5 only; `None` when absent or empty).
    pub name: Option<&'a str>,
}

/// A struct member.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Member<'a> {
    pub name: &'a str,
    /// Index into [`ResourceDefinitions::types`].
    pub type_index: usize,
    /// Byte offset in the enclosing struct.
    pub offset: u32,
}

/// A constant-buffer variable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Variable<'a> {
    pub name: &'a str,
    /// Byte offset in the buffer.
    pub offset: u32,
    pub size: u32,
    /// `D3D_SVF_*` flags; [`VARIABLE_USED`] says the program reads it.
    pub flags: u32,
    /// Index into [`ResourceDefinitions::types`].
    pub type_index: usize,
    /// The default value's bytes (`size` of them), if the variable has one.
    #[serde(skip)]
    pub default_value: Option<&'a [u8]>,
    /// SM5: first texture slot, texture count, first sampler slot, sampler count
    /// (`0xFFFFFFFF` for "none"); zeros for SM4.
    pub start_texture: u32,
    pub texture_count: u32,
    pub start_sampler: u32,
    pub sampler_count: u32,
}

impl Variable<'_> {
    /// Whether the program references the variable.
    pub fn is_used(&self) -> bool {
        self.flags & VARIABLE_USED != 0
    }
}

/// A constant buffer (or tbuffer, interface table, structured-buffer layout).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ConstantBuffer<'a> {
    pub name: &'a str,
    pub variables: Vec<Variable<'a>>,
    /// Size in bytes.
    pub size: u32,
    pub flags: u32,
    pub kind: CBufferType,
}

/// A bound resource: what the program expects in a register.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct ResourceBinding<'a> {
    pub name: &'a str,
    pub input_type: ShaderInputType,
    pub return_type: ReturnType,
    pub dimension: Dimension,
    /// Sample count for multisampled textures, structure stride for structured buffers,
    /// `0xFFFFFFFF` or 0 otherwise.
    pub sample_count: u32,
    pub bind_point: u32,
    /// Registers bound; 0 means unbounded (SM5.1).
    pub bind_count: u32,
    /// `D3D_SIF_*` flags; bits 2–3 hold the component count minus one.
    pub flags: u32,
    /// Register space (SM5.1; 0 before).
    pub space: u32,
    /// Range ID the program uses for the binding (SM5.1; the bind point before).
    pub id: u32,
}

impl ResourceBinding<'_> {
    /// Components of the returned value (1–4), from the flags.
    pub fn component_count(&self) -> u32 {
        ((self.flags >> 2) & 3) + 1
    }
}

/// A parsed RDEF chunk.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ResourceDefinitions<'a> {
    /// The raw target field (version and program type).
    pub target: u32,
    /// The target decoded, when the program type is known.
    pub version: Option<ShaderVersion>,
    /// Compile flags (`D3DCOMPILE_*`).
    pub flags: u32,
    pub creator: &'a str,
    pub rd11: Option<Rd11Header>,
    pub constant_buffers: Vec<ConstantBuffer<'a>>,
    pub bindings: Vec<ResourceBinding<'a>>,
    /// Every type reachable from a variable, in the order first met.
    pub types: Vec<ShaderType<'a>>,
}

struct Sizes {
    binding: usize,
    variable: usize,
    type_: usize,
    sm5: bool,
    sm51: bool,
}

/// Builds the type graph: each type offset parsed once, members resolved iteratively.
struct TypeParser<'r, 'a> {
    r: &'r ChunkReader<'a>,
    sm5: bool,
    type_size: usize,
    types: Vec<ShaderType<'a>>,
    by_offset: HashMap<u32, usize>,
    /// (type index, member table offset, member count) still to read.
    pending: Vec<(usize, usize, usize)>,
    /// Type and member records left before the graph counts as hostile.
    budget: usize,
}

impl<'a> TypeParser<'_, 'a> {
    fn spend(&mut self, n: usize, at: usize) -> Result<(), ContainerError> {
        self.budget = self.budget.checked_sub(n).ok_or_else(|| {
            self.r.error(
                at,
                ContainerErrorKind::TooComplex,
                "more type and member records than the chunk can hold",
            )
        })?;
        Ok(())
    }

    /// The index of the type whose offset the field at `field` holds, parsing its record (not
    /// yet its members) if new.
    fn type_at(&mut self, field: usize) -> Result<usize, ContainerError> {
        let offset = self.r.u32(field, "type offset")?;
        if let Some(&i) = self.by_offset.get(&offset) {
            return Ok(i);
        }
        let at = offset as usize;
        self.spend(1, field)?;
        self.r.table(field, at, 1, self.type_size, "type record")?;
        let class_type = self.r.u32(at, "type class")?;
        let rows_columns = self.r.u32(at + 4, "type rows/columns")?;
        let elements_members = self.r.u32(at + 8, "type elements/members")?;
        let member_offset = self.r.u32(at + 12, "member table offset")? as usize;
        let member_count = (elements_members >> 16) as usize;
        if member_count > 0 {
            self.r
                .table(at + 8, member_offset, member_count, 12, "struct members")?;
        }
        let name = if self.sm5 {
            let name_offset = self.r.u32(at + 32, "type name offset")? as usize;
            if name_offset == 0 {
                None
            } else {
                Some(self.r.str_at(at + 32, name_offset, "type name")?).filter(|n| !n.is_empty())
            }
        } else {
            None
        };
        let index = self.types.len();
        self.types.push(ShaderType {
            chunk_offset: offset,
            class: VariableClass::from_raw(class_type & 0xffff),
            base: VariableType::from_raw(class_type >> 16),
            rows: rows_columns as u16,
            columns: (rows_columns >> 16) as u16,
            elements: elements_members as u16,
            members: Vec::new(),
            name,
        });
        self.by_offset.insert(offset, index);
        if member_count > 0 {
            self.pending.push((index, member_offset, member_count));
        }
        Ok(index)
    }

    fn resolve_members(&mut self) -> Result<(), ContainerError> {
        while let Some((index, table, count)) = self.pending.pop() {
            self.spend(count, table)?;
            let mut members = Vec::with_capacity(count);
            for m in 0..count {
                let at = table + m * 12;
                let name = self.r.str(at, "member name")?;
                let type_index = self.type_at(at + 4)?;
                members.push(Member {
                    name,
                    type_index,
                    offset: self.r.u32(at + 8, "member offset")?,
                });
            }
            self.types[index].members = members;
        }
        Ok(())
    }

    /// Rejects cycles and over-deep nesting; returns each type's expanded member count.
    fn check_shape(&self) -> Result<Vec<u64>, ContainerError> {
        const UNSEEN: u8 = 0;
        const OPEN: u8 = 1;
        const DONE: u8 = 2;
        let n = self.types.len();
        let mut state = vec![UNSEEN; n];
        let mut depth = vec![0usize; n];
        let mut expanded = vec![0u64; n];
        for root in 0..n {
            if state[root] != UNSEEN {
                continue;
            }
            // Iterative DFS: (type, next member to visit).
            let mut stack = vec![(root, 0usize)];
            state[root] = OPEN;
            while let Some(&mut (t, ref mut next)) = stack.last_mut() {
                if let Some(member) = self.types[t].members.get(*next) {
                    *next += 1;
                    let child = member.type_index;
                    match state[child] {
                        OPEN => {
                            return Err(self.r.error(
                                self.types[t].chunk_offset as usize,
                                ContainerErrorKind::Invalid,
                                format!(
                                    "type at {:#x} contains itself",
                                    self.types[child].chunk_offset
                                ),
                            ));
                        }
                        UNSEEN => {
                            if stack.len() >= MAX_TYPE_DEPTH {
                                return Err(self.r.error(
                                    self.types[child].chunk_offset as usize,
                                    ContainerErrorKind::TooComplex,
                                    format!("types nest deeper than {MAX_TYPE_DEPTH} levels"),
                                ));
                            }
                            state[child] = OPEN;
                            stack.push((child, 0));
                        }
                        _ => {}
                    }
                } else {
                    stack.pop();
                    state[t] = DONE;
                    let members = &self.types[t].members;
                    depth[t] = members
                        .iter()
                        .map(|m| depth[m.type_index] + 1)
                        .max()
                        .unwrap_or(0);
                    if depth[t] > MAX_TYPE_DEPTH {
                        return Err(self.r.error(
                            self.types[t].chunk_offset as usize,
                            ContainerErrorKind::TooComplex,
                            format!("types nest deeper than {MAX_TYPE_DEPTH} levels"),
                        ));
                    }
                    expanded[t] = members
                        .iter()
                        .fold(0u64, |acc, m| {
                            acc.saturating_add(1).saturating_add(expanded[m.type_index])
                        })
                        .min(MAX_EXPANDED_MEMBERS + 1);
                }
            }
        }
        Ok(expanded)
    }
}

impl<'a> ResourceDefinitions<'a> {
    /// Parses an RDEF chunk.
    pub fn parse(chunk: &Chunk<'a>) -> Result<Self, ContainerError> {
        let r = ChunkReader::new(chunk.data, chunk.offset, "RDEF");
        let cb_count = r.u32(0, "constant buffer count")? as usize;
        let cb_offset = r.u32(4, "constant buffer table offset")? as usize;
        let binding_count = r.u32(8, "resource binding count")? as usize;
        let binding_offset = r.u32(12, "resource binding table offset")? as usize;
        let target = r.u32(16, "target")?;
        let flags = r.u32(20, "flags")?;
        let creator = r.str(24, "creator string")?;

        let target_version = target & 0xffff;
        let sizes = Sizes {
            binding: if target_version >= 0x501 { 40 } else { 32 },
            variable: if target_version >= 0x500 { 40 } else { 24 },
            type_: if target_version >= 0x500 { 36 } else { 16 },
            sm5: target_version >= 0x500,
            sm51: target_version >= 0x501,
        };
        let rd11 = if sizes.sm5 {
            Some(Self::parse_rd11(&r, &sizes)?)
        } else {
            None
        };

        r.table(
            8,
            binding_offset,
            binding_count,
            sizes.binding,
            "resource bindings",
        )?;
        let mut bindings = Vec::with_capacity(binding_count);
        for i in 0..binding_count {
            let at = binding_offset + i * sizes.binding;
            let bind_point = r.u32(at + 20, "bind point")?;
            bindings.push(ResourceBinding {
                name: r.str(at, &format!("name of binding {i}"))?,
                input_type: ShaderInputType::from_raw(r.u32(at + 4, "binding type")?),
                return_type: ReturnType::from_raw(r.u32(at + 8, "return type")?),
                dimension: Dimension::from_raw(r.u32(at + 12, "dimension")?),
                sample_count: r.u32(at + 16, "sample count")?,
                bind_point,
                bind_count: r.u32(at + 24, "bind count")?,
                flags: r.u32(at + 28, "binding flags")?,
                space: if sizes.sm51 {
                    r.u32(at + 32, "register space")?
                } else {
                    0
                },
                id: if sizes.sm51 {
                    r.u32(at + 36, "range id")?
                } else {
                    bind_point
                },
            });
        }

        r.table(0, cb_offset, cb_count, 24, "constant buffers")?;
        let mut types = TypeParser {
            r: &r,
            sm5: sizes.sm5,
            type_size: sizes.type_,
            types: Vec::new(),
            by_offset: HashMap::new(),
            pending: Vec::new(),
            budget: r.len() / 4 + 16,
        };
        let mut constant_buffers = Vec::with_capacity(cb_count);
        for i in 0..cb_count {
            let at = cb_offset + i * 24;
            let name = r.str(at, &format!("name of constant buffer {i}"))?;
            let var_count = r.u32(at + 4, "variable count")? as usize;
            let var_offset = r.u32(at + 8, "variable table offset")? as usize;
            if var_count > 0 {
                r.table(at + 4, var_offset, var_count, sizes.variable, "variables")?;
            }
            let mut variables = Vec::with_capacity(var_count);
            for v in 0..var_count {
                let at = var_offset + v * sizes.variable;
                let size = r.u32(at + 8, "variable size")?;
                let default_offset = r.u32(at + 20, "default value offset")? as usize;
                let default_value = if default_offset != 0 {
                    Some(r.bytes(at + 20, default_offset, size as usize, "default value")?)
                } else {
                    None
                };
                let sm5_field = |off: usize, what: &str| {
                    if sizes.sm5 {
                        r.u32(at + off, what)
                    } else {
                        Ok(0)
                    }
                };
                variables.push(Variable {
                    name: r.str(at, "variable name")?,
                    offset: r.u32(at + 4, "variable offset")?,
                    size,
                    flags: r.u32(at + 12, "variable flags")?,
                    type_index: types.type_at(at + 16)?,
                    default_value,
                    start_texture: sm5_field(24, "start texture")?,
                    texture_count: sm5_field(28, "texture count")?,
                    start_sampler: sm5_field(32, "start sampler")?,
                    sampler_count: sm5_field(36, "sampler count")?,
                });
                types.resolve_members()?;
            }
            constant_buffers.push(ConstantBuffer {
                name,
                variables,
                size: r.u32(at + 12, "constant buffer size")?,
                flags: r.u32(at + 16, "constant buffer flags")?,
                kind: CBufferType::from_raw(r.u32(at + 20, "constant buffer type")?),
            });
        }
        let expanded = types.check_shape()?;
        let total = constant_buffers
            .iter()
            .flat_map(|cb| &cb.variables)
            .fold(0u64, |acc, v| acc.saturating_add(expanded[v.type_index]));
        if total > MAX_EXPANDED_MEMBERS {
            return Err(r.error(
                cb_offset,
                ContainerErrorKind::TooComplex,
                format!("variable types expand to more than {MAX_EXPANDED_MEMBERS} struct members"),
            ));
        }

        Ok(ResourceDefinitions {
            target,
            version: ShaderVersion::from_rdef_target(target),
            flags,
            creator,
            rd11,
            constant_buffers,
            bindings,
            types: types.types,
        })
    }

    fn parse_rd11(r: &ChunkReader<'a>, sizes: &Sizes) -> Result<Rd11Header, ContainerError> {
        let h = Rd11Header {
            magic: r.u32(28, "RD11 magic")?,
            header_size: r.u32(32, "RD11 header size")?,
            constant_buffer_size: r.u32(36, "RD11 constant buffer record size")?,
            binding_size: r.u32(40, "RD11 binding record size")?,
            variable_size: r.u32(44, "RD11 variable record size")?,
            type_size: r.u32(48, "RD11 type record size")?,
            member_size: r.u32(52, "RD11 member record size")?,
            unknown: r.u32(56, "RD11 reserved field")?,
        };
        let expected_magic = if sizes.sm51 {
            RD11_MAGIC_5_1
        } else {
            RD11_MAGIC
        };
        if h.magic != expected_magic {
            return Err(r.error(
                28,
                ContainerErrorKind::Invalid,
                format!(
                    "RD11 magic is {:#010x}, expected {expected_magic:#010x} for this target",
                    h.magic
                ),
            ));
        }
        for (at, what, got, want) in [
            (36, "constant buffer", h.constant_buffer_size, 24),
            (40, "binding", h.binding_size, sizes.binding as u32),
            (44, "variable", h.variable_size, sizes.variable as u32),
            (48, "type", h.type_size, sizes.type_ as u32),
            (52, "member", h.member_size, 12),
        ] {
            if got != want {
                return Err(r.error(
                    at,
                    ContainerErrorKind::Invalid,
                    format!("RD11 gives {what} records {got} bytes; this target's are {want}"),
                ));
            }
        }
        Ok(h)
    }

    /// The type of a variable or member.
    pub fn ty(&self, type_index: usize) -> &ShaderType<'a> {
        &self.types[type_index]
    }

    /// The constant buffer describing a binding's contents (by name and kind), if any.
    pub fn buffer_for(&self, binding: &ResourceBinding<'_>) -> Option<&ConstantBuffer<'a>> {
        self.constant_buffers
            .iter()
            .find(|cb| cb.name == binding.name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Builds an RDEF chunk word by word; offsets are chunk-relative.
    struct Builder(Vec<u8>);

    impl Builder {
        fn words(&mut self, w: &[u32]) -> u32 {
            let at = self.0.len() as u32;
            for x in w {
                self.0.extend_from_slice(&x.to_le_bytes());
            }
            at
        }
        fn str(&mut self, s: &str) -> u32 {
            let at = self.0.len() as u32;
            self.0.extend_from_slice(s.as_bytes());
            self.0.push(0);
            while !self.0.len().is_multiple_of(4) {
                self.0.push(0xab);
            }
            at
        }
        fn set(&mut self, at: u32, v: u32) {
            self.0[at as usize..at as usize + 4].copy_from_slice(&v.to_le_bytes());
        }
    }

    fn chunk(data: &[u8]) -> Chunk<'_> {
        Chunk {
            tag: *b"RDEF",
            offset: 0x100,
            data,
        }
    }

    /// SM4.0: one cbuffer { float4 a; struct { float x; } s; } and one texture binding.
    fn sm4_blob() -> Vec<u8> {
        let mut b = Builder(Vec::new());
        b.words(&[1, 0, 1, 0, 0xffff_0400, 0x100, 0]);
        let binding = b.words(&[0, 2, 5, 4, 0xffff_ffff, 3, 1, 0xc]);
        let cb = b.words(&[0, 2, 0, 32, 0, 0]);
        let vars = b.words(&[0, 0, 16, 2, 0, 0, 0, 16, 4, 0, 0, 0]);
        let t_float4 = b.words(&[1 | (3 << 16), 1 | (4 << 16), 0, 0]);
        let t_float = b.words(&[3 << 16, 1 | (1 << 16), 0, 0]);
        let members = b.words(&[0, t_float, 0]);
        let t_struct = b.words(&[5, 1 | (1 << 16), 1 << 16, members]);
        let names = [
            b.str("tex"),
            b.str("cb0"),
            b.str("a"),
            b.str("s"),
            b.str("x"),
            b.str("test compiler"),
        ];
        b.set(4, cb);
        b.set(12, binding);
        b.set(24, names[5]);
        b.set(binding, names[0]);
        b.set(cb, names[1]);
        b.set(cb + 8, vars);
        b.set(vars, names[2]);
        b.set(vars + 16, t_float4);
        b.set(vars + 24, names[3]);
        b.set(vars + 24 + 16, t_struct);
        b.set(members, names[4]);
        b.0
    }

    #[test]
    fn parses_sm4_layout() {
        let data = sm4_blob();
        let rdef = ResourceDefinitions::parse(&chunk(&data)).unwrap();
        assert_eq!(rdef.creator, "test compiler");
        assert_eq!(rdef.version.unwrap().to_string(), "ps_4_0");
        assert_eq!(rdef.flags, 0x100);
        let b = rdef.bindings[0];
        assert_eq!(
            (b.name, b.input_type, b.return_type, b.dimension),
            (
                "tex",
                ShaderInputType::Texture,
                ReturnType::Float,
                Dimension::Texture2D
            )
        );
        assert_eq!(
            (b.bind_point, b.bind_count, b.component_count(), b.id),
            (3, 1, 4, 3)
        );
        let cb = &rdef.constant_buffers[0];
        assert_eq!(
            (cb.name, cb.size, cb.kind),
            ("cb0", 32, CBufferType::CBuffer)
        );
        let a = cb.variables[0];
        assert_eq!((a.name, a.offset, a.size, a.is_used()), ("a", 0, 16, true));
        let ta = rdef.ty(a.type_index);
        assert_eq!(
            (ta.class, ta.base, ta.rows, ta.columns),
            (VariableClass::Vector, VariableType::Float, 1, 4)
        );
        let s = rdef.ty(cb.variables[1].type_index);
        assert_eq!(s.class, VariableClass::Struct);
        assert_eq!(s.members[0].name, "x");
        assert_eq!(rdef.ty(s.members[0].type_index).base, VariableType::Float);
    }

    #[test]
    fn rejects_cycles_and_bad_offsets() {
        let data = sm4_blob();
        // Point the struct's member type back at the struct itself.
        let rdef = ResourceDefinitions::parse(&chunk(&data)).unwrap();
        let s = rdef.ty(rdef.constant_buffers[0].variables[1].type_index);
        let member_table = u32::from_le_bytes(
            data[s.chunk_offset as usize + 12..][..4]
                .try_into()
                .unwrap(),
        );
        let mut cyclic = data.clone();
        cyclic[member_table as usize + 4..][..4].copy_from_slice(&s.chunk_offset.to_le_bytes());
        let e = ResourceDefinitions::parse(&chunk(&cyclic)).unwrap_err();
        assert!(e.what.contains("contains itself"), "{e}");

        let mut bad = data.clone();
        bad[8..12].copy_from_slice(&0x1000_0000u32.to_le_bytes());
        let e = ResourceDefinitions::parse(&chunk(&bad)).unwrap_err();
        // Reported at the count field.
        assert_eq!(
            (e.kind, e.offset),
            (ContainerErrorKind::OutOfBounds, 0x100 + 8)
        );

        // The creator string is last (then 2 padding bytes), so every shorter cut loses something.
        for cut in 0..data.len() - 2 {
            assert!(
                ResourceDefinitions::parse(&chunk(&data[..cut])).is_err(),
                "cut at {cut}"
            );
        }
    }

    #[test]
    fn bounds_exponential_type_graphs() {
        // A chain of structs where each has 2 members of the next type: the graph is small, the
        // expansion is 2^depth. 40 levels is within the depth limit but expands far too much.
        let mut b = Builder(Vec::new());
        b.words(&[1, 0, 0, 0, 0xffff_0400, 0, 0]);
        let creator = b.str("c");
        b.set(24, creator);
        let name = b.str("m");
        let leaf = b.words(&[3 << 16, 1 | (1 << 16), 0, 0]);
        let mut child = leaf;
        for _ in 0..40 {
            let members = b.words(&[name, child, 0, name, child, 4]);
            child = b.words(&[5, 1 | (1 << 16), 2 << 16, members]);
        }
        let cb = b.words(&[name, 1, 0, 16, 0, 0]);
        let var = b.words(&[name, 0, 16, 2, child, 0]);
        b.set(4, cb);
        b.set(cb + 8, var);
        let e = ResourceDefinitions::parse(&chunk(&b.0)).unwrap_err();
        assert_eq!(e.kind, ContainerErrorKind::TooComplex, "{e}");
    }
}
