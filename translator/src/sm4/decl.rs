//! Typed declaration payloads and custom-data blocks.
//!
//! A declaration instruction keeps its register operand (if it has one) in the instruction's
//! operand list like any other instruction; what is specific to the declaration (resource
//! dimension and return types, interpolation mode, counts, SM5.1 register space, …) is
//! decoded into a [`Declaration`] so that a translator never has to look at raw bits.

use super::enums::*;

/// A system-value name token (`dcl_*_siv`/`_sgv`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NameToken {
    pub name: SystemName,
    /// Bits 16–31 of the token (reserved, normally 0).
    pub reserved: u16,
}

/// A resource return type token (`dcl_resource`, `dcl_uav_typed`): one type per component.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReturnTypeToken {
    pub types: [ReturnType; 4],
    /// Bits 16–31 of the token (reserved, normally 0).
    pub reserved: u16,
}

/// UAV declaration flags (`_glc`, `_rov`, `_opc`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct UavFlags {
    /// `globallycoherent` (opcode token bit 16).
    pub globally_coherent: bool,
    /// Rasterizer ordered view (bit 17).
    pub rasterizer_ordered: bool,
    /// Structured UAV with a hidden counter (bit 23; structured UAVs only).
    pub has_counter: bool,
}

/// The payload of a declaration. The declared register, when there is one, is the
/// instruction's first operand; for SM5.1 resources, samplers, constant buffers and UAVs that
/// operand has three indices: range ID, lower bound, upper bound (`0xffffffff` = unbounded).
#[derive(Debug, Clone, PartialEq)]
pub enum Declaration {
    /// `dcl_resource_<dim>[(samples)] (types) t#`.
    Resource {
        dim: ResourceDimension,
        /// Sample count for multisampled dimensions (bits 16–22; 0 for others).
        sample_count: u8,
        return_type: ReturnTypeToken,
        /// SM5.1 register space.
        space: Option<u32>,
    },
    /// `dcl_constantbuffer cb#[size], immediateIndexed|dynamicIndexed`.
    ConstantBuffer {
        dynamic_indexed: bool,
        /// SM5.1: size in 16-byte vectors (before SM5.1 the size is the operand's 2nd index).
        size: Option<u32>,
        space: Option<u32>,
    },
    /// `dcl_sampler s#, mode_*`.
    Sampler {
        mode: SamplerMode,
        space: Option<u32>,
    },
    /// `dcl_indexrange v#/o# count`.
    IndexRange {
        count: u32,
    },
    /// `dcl_outputtopology`.
    GsOutputTopology(PrimitiveTopology),
    /// `dcl_inputprimitive`.
    GsInputPrimitive(Primitive),
    /// `dcl_maxout n`.
    MaxOutputVertexCount(u32),
    /// `dcl_input v#`.
    Input,
    /// `dcl_input_sgv v#, name`.
    InputSgv(NameToken),
    /// `dcl_input_siv v#, name`.
    InputSiv(NameToken),
    /// `dcl_input_ps <interp> v#`.
    InputPs(InterpolationMode),
    /// `dcl_input_ps_sgv [<interp>] v#, name`.
    InputPsSgv(InterpolationMode, NameToken),
    /// `dcl_input_ps_siv <interp> v#, name`.
    InputPsSiv(InterpolationMode, NameToken),
    /// `dcl_output o#`.
    Output,
    /// `dcl_output_sgv o#, name`.
    OutputSgv(NameToken),
    /// `dcl_output_siv o#, name`.
    OutputSiv(NameToken),
    /// `dcl_temps n`.
    Temps(u32),
    /// `dcl_indexableTemp x#[size], components`.
    IndexableTemp {
        register: u32,
        size: u32,
        components: u32,
    },
    /// `dcl_globalFlags …` (flags shifted down by 11; see [`global_flags`]).
    GlobalFlags(u32),
    /// `dcl_stream m#`.
    Stream,
    /// `dcl_function_body fb#`.
    FunctionBody(u32),
    /// `dcl_function_table ft# = {fb#, …}`.
    FunctionTable {
        id: u32,
        bodies: Box<[u32]>,
    },
    /// `dcl_interface[_dynamicindexed] fp#[array length][table length] = {ft#, …}`.
    Interface {
        id: u32,
        dynamic_indexed: bool,
        /// Number of function bodies each function table of this interface has.
        table_length: u32,
        /// Number of interface pointers in the array.
        array_length: u16,
        /// Function tables (one per type implementing the interface).
        tables: Box<[u32]>,
    },
    /// `dcl_input_control_point_count n` (bits 11–16).
    InputControlPointCount(u8),
    /// `dcl_output_control_point_count n` (bits 11–16).
    OutputControlPointCount(u8),
    TessDomain(TessDomain),
    TessPartitioning(TessPartitioning),
    TessOutputPrimitive(TessOutputPrimitive),
    /// `dcl_hs_max_tessfactor l(f)`.
    HsMaxTessFactor(f32),
    HsForkPhaseInstanceCount(u32),
    HsJoinPhaseInstanceCount(u32),
    /// `dcl_thread_group x, y, z`.
    ThreadGroup([u32; 3]),
    /// `dcl_uav_typed_<dim>[_glc][_rov] (types) u#`.
    UavTyped {
        dim: ResourceDimension,
        flags: UavFlags,
        return_type: ReturnTypeToken,
        space: Option<u32>,
    },
    /// `dcl_uav_raw[_glc][_rov] u#`.
    UavRaw {
        flags: UavFlags,
        space: Option<u32>,
    },
    /// `dcl_uav_structured[_glc][_rov][_opc] u#, stride`.
    UavStructured {
        flags: UavFlags,
        stride: u32,
        space: Option<u32>,
    },
    /// `dcl_tgsm_raw g#, bytes`.
    TgsmRaw {
        byte_count: u32,
    },
    /// `dcl_tgsm_structured g#, stride, count`.
    TgsmStructured {
        stride: u32,
        count: u32,
    },
    /// `dcl_resource_raw t#`.
    ResourceRaw {
        space: Option<u32>,
    },
    /// `dcl_resource_structured t#, stride`.
    ResourceStructured {
        stride: u32,
        space: Option<u32>,
    },
    /// `dcl_gsinstances n`.
    GsInstanceCount(u32),
}

impl Declaration {
    /// The SM5.1 register space, for declarations that have one.
    pub fn space(&self) -> Option<u32> {
        match self {
            Self::Resource { space, .. }
            | Self::ConstantBuffer { space, .. }
            | Self::Sampler { space, .. }
            | Self::UavTyped { space, .. }
            | Self::UavRaw { space, .. }
            | Self::UavStructured { space, .. }
            | Self::ResourceRaw { space, .. }
            | Self::ResourceStructured { space, .. } => *space,
            _ => None,
        }
    }

    /// The system value name of `_siv`/`_sgv` declarations.
    pub fn system_name(&self) -> Option<SystemName> {
        match self {
            Self::InputSgv(n)
            | Self::InputSiv(n)
            | Self::InputPsSgv(_, n)
            | Self::InputPsSiv(_, n)
            | Self::OutputSgv(n)
            | Self::OutputSiv(n) => Some(n.name),
            _ => None,
        }
    }

    /// The interpolation mode of `dcl_input_ps*` declarations.
    pub fn interpolation(&self) -> Option<InterpolationMode> {
        match self {
            Self::InputPs(m) | Self::InputPsSgv(m, _) | Self::InputPsSiv(m, _) => Some(*m),
            _ => None,
        }
    }
}

/// A custom-data block (opcode `customdata`): immediate constant buffer, comment, debug
/// info, opaque data, shader message or DX9 clip plane mappings. The contents are kept as
/// raw dwords (the two header dwords excluded).
#[derive(Debug, Clone, PartialEq)]
pub struct CustomData {
    pub class: CustomDataClass,
    pub data: Box<[u32]>,
}

impl CustomData {
    /// The immediate constant buffer's vec4 rows (a trailing partial row is dropped).
    pub fn icb_rows(&self) -> impl Iterator<Item = [u32; 4]> + '_ {
        self.data.chunks_exact(4).map(|c| [c[0], c[1], c[2], c[3]])
    }
}
