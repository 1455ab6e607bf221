//! `dxbc_spirv_scan`: what a layer checks before it creates a shader, without translating.
//!
//! DXVK's `CreateShaderModule` and vkd3d's `vkd3d_shader_scan` read the stage and model, the
//! signatures (input layouts are validated against the input signature), the declared
//! resources (binding masks, root-signature checks) and the device features the program needs
//! (doubles, sparse residency, ROVs, stencil export, viewport/layer index from vertex
//! processing, ...). Everything here is read from the container's chunks and one walk over the
//! decoded program; the SFI0 bits the compiler recorded are passed on as they are beside the
//! feature bits derived from the code, which hold also for containers without SFI0.

use std::ffi::{CString, c_char};

use translator::container::{ParsedContainer, Signature};
use translator::sm4::{self, Declaration, Opcode, OperandType, SamplerMode, SystemName};

use crate::enums::*;
use crate::shader::dxbc_spirv_shader;
use crate::status::*;

/// Uses 64-bit floats (any double-precision instruction): `shaderFloat64`.
pub const DXBC_SPIRV_FEATURE_FLOAT64: u64 = 1 << 0;
/// Uses the D3D11.1 double extensions (`ddiv`, `dfma`, `drcp`, double/int conversions).
pub const DXBC_SPIRV_FEATURE_FLOAT64_EXTENSIONS: u64 = 1 << 1;
/// Uses sparse residency feedback (`*_s` instructions, `check_access_fully_mapped`):
/// `shaderResourceResidency` (D3D tiled resources tier 2).
pub const DXBC_SPIRV_FEATURE_SPARSE_RESIDENCY: u64 = 1 << 2;
/// Declares a rasterizer-ordered UAV: `fragmentShaderPixelInterlock`.
pub const DXBC_SPIRV_FEATURE_RASTERIZER_ORDERED_VIEWS: u64 = 1 << 3;
/// Writes `oStencilRef`: `VK_EXT_shader_stencil_export`.
pub const DXBC_SPIRV_FEATURE_STENCIL_EXPORT: u64 = 1 << 4;
/// A vertex, hull or domain shader writes `SV_RenderTargetArrayIndex`: `shaderOutputLayer`.
pub const DXBC_SPIRV_FEATURE_LAYER_FROM_VERTEX_PIPELINE: u64 = 1 << 5;
/// A vertex, hull or domain shader writes `SV_ViewportArrayIndex`: `shaderOutputViewportIndex`.
pub const DXBC_SPIRV_FEATURE_VIEWPORT_FROM_VERTEX_PIPELINE: u64 = 1 << 6;
/// Reads `SV_InnerCoverage`: `VK_EXT_conservative_rasterization` (D3D conservative raster
/// tier 3).
pub const DXBC_SPIRV_FEATURE_INNER_COVERAGE: u64 = 1 << 7;
/// Reads a typed UAV (`ld_uav_typed`): `shaderStorageImageReadWithoutFormat` unless the
/// format is one of the always-loadable ones.
pub const DXBC_SPIRV_FEATURE_TYPED_UAV_LOAD: u64 = 1 << 8;
/// Declares UAVs in a vertex, hull, domain or geometry shader:
/// `vertexPipelineStoresAndAtomics`.
pub const DXBC_SPIRV_FEATURE_UAV_IN_VERTEX_PIPELINE: u64 = 1 << 9;
/// Runs per sample (a `sample`-interpolated input or `SV_SampleIndex`): `sampleRateShading`.
pub const DXBC_SPIRV_FEATURE_SAMPLE_RATE_SHADING: u64 = 1 << 10;
/// Writes depth (`oDepth`, `oDepthGE`, `oDepthLE`).
pub const DXBC_SPIRV_FEATURE_DEPTH_EXPORT: u64 = 1 << 11;
/// Writes the coverage mask (`oMask`).
pub const DXBC_SPIRV_FEATURE_COVERAGE_EXPORT: u64 = 1 << 12;
/// Declares `forceEarlyDepthStencil`.
pub const DXBC_SPIRV_FEATURE_EARLY_DEPTH_STENCIL: u64 = 1 << 13;
/// Uses class linkage (`dcl_interface`, `fcall`): the layer must supply the class-instance
/// data, in the buffer and layout docs/class-linkage.md describes (the reflection's
/// `class_instance_register`, `class_slot_count`, `class_slot_stride`).
pub const DXBC_SPIRV_FEATURE_CLASS_LINKAGE: u64 = 1 << 14;
/// Uses `discard`.
pub const DXBC_SPIRV_FEATURE_DISCARD: u64 = 1 << 15;
/// Uses the UAV counter of a UAV (`imm_atomic_alloc`/`consume`).
pub const DXBC_SPIRV_FEATURE_UAV_COUNTER: u64 = 1 << 16;
/// Geometry shader writes more than one stream (`dcl_stream` beyond 0): `geometryStreams`.
pub const DXBC_SPIRV_FEATURE_MULTIPLE_STREAMS: u64 = 1 << 17;

/// Constant buffer declared dynamically indexed.
pub const DXBC_SPIRV_RESOURCE_CBV_DYNAMIC_INDEXED: u32 = 1 << 0;
/// Sampler declared `mode_comparison`.
pub const DXBC_SPIRV_RESOURCE_SAMPLER_COMPARISON: u32 = 1 << 1;
/// UAV declared `globallycoherent`.
pub const DXBC_SPIRV_RESOURCE_UAV_GLOBALLY_COHERENT: u32 = 1 << 2;
/// UAV declared rasterizer-ordered.
pub const DXBC_SPIRV_RESOURCE_UAV_RASTERIZER_ORDERED: u32 = 1 << 3;
/// UAV with a hidden counter (declared so, or the program uses it).
pub const DXBC_SPIRV_RESOURCE_UAV_COUNTER: u32 = 1 << 4;
/// The program reads the UAV (typed, raw or structured loads, atomics with a result).
pub const DXBC_SPIRV_RESOURCE_UAV_READ: u32 = 1 << 5;
/// The program writes the UAV (stores, atomics).
pub const DXBC_SPIRV_RESOURCE_UAV_WRITE: u32 = 1 << 6;
/// The program runs atomics on the UAV.
pub const DXBC_SPIRV_RESOURCE_UAV_ATOMICS: u32 = 1 << 7;
/// The program reads the typed UAV with `ld_uav_typed`.
pub const DXBC_SPIRV_RESOURCE_UAV_TYPED_LOAD: u32 = 1 << 8;

/// What a resource declaration declares.
pub type dxbc_spirv_resource_kind = u32;
pub const DXBC_SPIRV_RESOURCE_KIND_CONSTANT_BUFFER: dxbc_spirv_resource_kind = 0;
pub const DXBC_SPIRV_RESOURCE_KIND_SAMPLER: dxbc_spirv_resource_kind = 1;
/// A texture or typed buffer SRV (`dimension`, `return_type`, `sample_count`).
pub const DXBC_SPIRV_RESOURCE_KIND_TYPED: dxbc_spirv_resource_kind = 2;
pub const DXBC_SPIRV_RESOURCE_KIND_RAW: dxbc_spirv_resource_kind = 3;
/// A structured buffer (`stride`).
pub const DXBC_SPIRV_RESOURCE_KIND_STRUCTURED: dxbc_spirv_resource_kind = 4;
/// A typed UAV (`dimension`, `return_type`).
pub const DXBC_SPIRV_RESOURCE_KIND_UAV_TYPED: dxbc_spirv_resource_kind = 5;
pub const DXBC_SPIRV_RESOURCE_KIND_UAV_RAW: dxbc_spirv_resource_kind = 6;
/// A structured UAV (`stride`).
pub const DXBC_SPIRV_RESOURCE_KIND_UAV_STRUCTURED: dxbc_spirv_resource_kind = 7;

/// One declared register range.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct dxbc_spirv_resource {
    /// A `DXBC_SPIRV_REGISTER_CLASS_*` (never `UAV_COUNTER`: see the flags).
    pub register_class: dxbc_spirv_register_class,
    /// A `DXBC_SPIRV_RESOURCE_KIND_*`.
    pub kind: dxbc_spirv_resource_kind,
    pub register_space: u32,
    /// First and last register (`DXBC_SPIRV_UNBOUNDED` last: unbounded).
    pub register_lower: u32,
    pub register_upper: u32,
    /// SM5.1 range ID (the register for SM4.0–5.0).
    pub range_id: u32,
    /// A `DXBC_SPIRV_RESOURCE_DIMENSION_*` (typed SRVs and UAVs; 0 otherwise).
    pub dimension: u32,
    /// The return type of component x, a `DXBC_SPIRV_RETURN_TYPE_*` (typed kinds; 0 otherwise).
    pub return_type: u32,
    /// Samples of a multisampled texture (0 when the declaration leaves it open).
    pub sample_count: u32,
    /// Structured kinds: bytes per element.
    pub stride: u32,
    /// Constant buffers: declared size in bytes.
    pub size_bytes: u32,
    /// `DXBC_SPIRV_RESOURCE_*` bits.
    pub flags: u32,
    /// The name in the RDEF chunk (the HLSL variable), or null when the container has none.
    pub name: *const c_char,
}

/// One signature element, as the container stores it.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct dxbc_spirv_signature_element {
    pub semantic_name: *const c_char,
    pub semantic_index: u32,
    /// `D3D_NAME` (0 none, 1 position, ... 64 target, 65 depth, ...), resolved from the
    /// name for pixel shader outputs that SM4/5 store as 0.
    pub system_value: u32,
    /// `D3D_REGISTER_COMPONENT_TYPE` (1 uint, 2 sint, 3 float).
    pub component_type: u32,
    /// Register, or `DXBC_SPIRV_UNBOUNDED` for values without one.
    pub register_index: u32,
    /// Components occupied (bit 0 = x).
    pub mask: u32,
    /// Inputs: components read; outputs: components never written.
    pub used_mask: u32,
    /// Geometry shader output stream.
    pub stream: u32,
    /// `D3D_MIN_PRECISION` (0 default).
    pub min_precision: u32,
}

/// What `dxbc_spirv_scan` found. Free with `dxbc_spirv_free_scan`; every pointer inside lives
/// exactly as long as it.
#[repr(C)]
#[derive(Debug)]
pub struct dxbc_spirv_scan_info {
    /// A `DXBC_SPIRV_STAGE_*`.
    pub stage: dxbc_spirv_stage,
    pub shader_model_major: u32,
    pub shader_model_minor: u32,
    /// The container's checksum matches its contents.
    pub checksum_valid: crate::dxbc_spirv_bool,
    /// `DXBC_SPIRV_FEATURE_*` bits, derived from the program.
    pub features: u64,
    /// The SFI0 chunk as stored (`D3D_SHADER_REQUIRES_*`), 0 without one.
    pub sfi0_flags: u64,
    /// `dcl_globalFlags` bits (D3D10_SB_GLOBAL_FLAG_* >> 11).
    pub global_flags: u32,
    pub input_count: u32,
    pub inputs: *const dxbc_spirv_signature_element,
    pub output_count: u32,
    pub outputs: *const dxbc_spirv_signature_element,
    pub patch_constant_count: u32,
    pub patch_constants: *const dxbc_spirv_signature_element,
    /// In declaration order.
    pub resource_count: u32,
    pub resources: *const dxbc_spirv_resource,
    /// Compute: `dcl_thread_group`; zeros otherwise.
    pub workgroup_size: [u32; 3],
    /// Hull/domain: control points in and out (0 when not declared).
    pub input_control_points: u32,
    pub output_control_points: u32,
    /// Geometry: `dcl_maxout` and `dcl_gsinstances` (0 when not declared).
    pub max_output_vertices: u32,
    pub gs_instance_count: u32,
    /// The immediate constant buffer's dwords (`dcl_immediateConstantBuffer`), or none.
    pub immediate_constant_buffer_dword_count: u32,
    pub immediate_constant_buffer: *const u32,
}

#[repr(C)]
struct Holder {
    public: dxbc_spirv_scan_info,
    strings: Vec<CString>,
    signatures: [Vec<dxbc_spirv_signature_element>; 3],
    resources: Vec<dxbc_spirv_resource>,
    icb: Vec<u32>,
}

fn keep(strings: &mut Vec<CString>, s: &str) -> *const c_char {
    let c = c_string(s);
    let p = c.as_ptr();
    strings.push(c);
    p
}

fn len32<T>(v: &[T]) -> u32 {
    u32::try_from(v.len()).unwrap_or(u32::MAX)
}

fn elements(
    strings: &mut Vec<CString>,
    sig: Option<&Signature<'_>>,
) -> Vec<dxbc_spirv_signature_element> {
    sig.map(|s| s.elements.as_slice())
        .unwrap_or_default()
        .iter()
        .map(|e| dxbc_spirv_signature_element {
            semantic_name: keep(strings, e.semantic_name),
            semantic_index: e.semantic_index,
            system_value: e.system_value_by_name().raw(),
            component_type: e.component_type.raw(),
            register_index: e.register,
            mask: e.mask.into(),
            used_mask: e.rw_mask.into(),
            stream: e.stream,
            min_precision: e.min_precision.raw(),
        })
        .collect()
}

/// Kind, class and per-kind details of a resource declaration.
fn resource_of(decl: &Declaration) -> Option<dxbc_spirv_resource> {
    let blank = |class, kind| dxbc_spirv_resource {
        register_class: class,
        kind,
        register_space: decl.space().unwrap_or(0),
        register_lower: 0,
        register_upper: 0,
        range_id: 0,
        dimension: 0,
        return_type: 0,
        sample_count: 0,
        stride: 0,
        size_bytes: 0,
        flags: 0,
        name: std::ptr::null(),
    };
    let uav_flags = |f: &sm4::UavFlags| {
        let mut bits = 0;
        if f.globally_coherent {
            bits |= DXBC_SPIRV_RESOURCE_UAV_GLOBALLY_COHERENT;
        }
        if f.rasterizer_ordered {
            bits |= DXBC_SPIRV_RESOURCE_UAV_RASTERIZER_ORDERED;
        }
        if f.has_counter {
            bits |= DXBC_SPIRV_RESOURCE_UAV_COUNTER;
        }
        bits
    };
    Some(match decl {
        Declaration::ConstantBuffer {
            dynamic_indexed,
            size,
            ..
        } => {
            let mut r = blank(
                DXBC_SPIRV_REGISTER_CLASS_CBV,
                DXBC_SPIRV_RESOURCE_KIND_CONSTANT_BUFFER,
            );
            r.size_bytes = size.unwrap_or(0).saturating_mul(16);
            if *dynamic_indexed {
                r.flags |= DXBC_SPIRV_RESOURCE_CBV_DYNAMIC_INDEXED;
            }
            r
        }
        Declaration::Sampler { mode, .. } => {
            let mut r = blank(
                DXBC_SPIRV_REGISTER_CLASS_SAMPLER,
                DXBC_SPIRV_RESOURCE_KIND_SAMPLER,
            );
            if *mode == SamplerMode::Comparison {
                r.flags |= DXBC_SPIRV_RESOURCE_SAMPLER_COMPARISON;
            }
            r
        }
        Declaration::Resource {
            dim,
            sample_count,
            return_type,
            ..
        } => {
            let mut r = blank(
                DXBC_SPIRV_REGISTER_CLASS_SRV,
                DXBC_SPIRV_RESOURCE_KIND_TYPED,
            );
            r.dimension = dim.to_u32();
            r.return_type = return_type.types[0].to_u32();
            r.sample_count = (*sample_count).into();
            r
        }
        Declaration::ResourceRaw { .. } => {
            blank(DXBC_SPIRV_REGISTER_CLASS_SRV, DXBC_SPIRV_RESOURCE_KIND_RAW)
        }
        Declaration::ResourceStructured { stride, .. } => {
            let mut r = blank(
                DXBC_SPIRV_REGISTER_CLASS_SRV,
                DXBC_SPIRV_RESOURCE_KIND_STRUCTURED,
            );
            r.stride = *stride;
            r
        }
        Declaration::UavTyped {
            dim,
            flags,
            return_type,
            ..
        } => {
            let mut r = blank(
                DXBC_SPIRV_REGISTER_CLASS_UAV,
                DXBC_SPIRV_RESOURCE_KIND_UAV_TYPED,
            );
            r.dimension = dim.to_u32();
            r.return_type = return_type.types[0].to_u32();
            r.flags = uav_flags(flags);
            r
        }
        Declaration::UavRaw { flags, .. } => {
            let mut r = blank(
                DXBC_SPIRV_REGISTER_CLASS_UAV,
                DXBC_SPIRV_RESOURCE_KIND_UAV_RAW,
            );
            r.flags = uav_flags(flags);
            r
        }
        Declaration::UavStructured { flags, stride, .. } => {
            let mut r = blank(
                DXBC_SPIRV_REGISTER_CLASS_UAV,
                DXBC_SPIRV_RESOURCE_KIND_UAV_STRUCTURED,
            );
            r.flags = uav_flags(flags);
            r.stride = *stride;
            r
        }
        _ => return None,
    })
}

/// `DXBC_SPIRV_RESOURCE_UAV_*` usage bits an instruction gives the UAVs it names.
fn uav_usage(op: Opcode) -> u32 {
    use Opcode as O;
    match op {
        O::ImmAtomicAlloc | O::ImmAtomicConsume => DXBC_SPIRV_RESOURCE_UAV_COUNTER,
        O::LdUavTyped | O::LdUavTypedS => {
            DXBC_SPIRV_RESOURCE_UAV_READ | DXBC_SPIRV_RESOURCE_UAV_TYPED_LOAD
        }
        O::LdRaw | O::LdRawS | O::LdStructured | O::LdStructuredS => DXBC_SPIRV_RESOURCE_UAV_READ,
        O::StoreUavTyped | O::StoreRaw | O::StoreStructured => DXBC_SPIRV_RESOURCE_UAV_WRITE,
        op if op.is_atomic() => {
            let read = if op.name().starts_with("imm_") {
                DXBC_SPIRV_RESOURCE_UAV_READ
            } else {
                0
            };
            DXBC_SPIRV_RESOURCE_UAV_WRITE | DXBC_SPIRV_RESOURCE_UAV_ATOMICS | read
        }
        _ => 0,
    }
}

fn is_sparse(op: Opcode) -> bool {
    (0xdb..=0xea).contains(&op.to_u32())
}

fn is_double_extension(op: Opcode) -> bool {
    use Opcode as O;
    matches!(
        op,
        O::DDiv | O::DFma | O::DRcp | O::DtoI | O::DtoU | O::ItoD | O::UtoD
    )
}

fn scan(shader: &dxbc_spirv_shader) -> ApiResult<Box<Holder>> {
    use translator::container::ShaderStage as S;
    if shader.d3d9 {
        return Err(ApiError::unsupported(
            "scanning Direct3D 9 bytecode (translate it and read the reflection)",
        ));
    }
    let parsed = ParsedContainer::parse(&shader.bytes)
        .map_err(|e| ApiError::invalid_shader(format!("container: {e}")))?;
    let chunk = parsed
        .program
        .ok_or_else(|| ApiError::invalid_shader("the container has no SHDR or SHEX chunk"))?;
    let program = sm4::decode(chunk.data, chunk.offset)
        .map_err(|e| ApiError::invalid_shader(format!("decode: {e}")))?;
    let stage = shader.version.stage;
    let vertex_pipeline = matches!(stage, S::Vertex | S::Hull | S::Domain);

    let mut strings = Vec::new();
    let signatures = [
        parsed.input_signature.as_ref(),
        parsed.output_signature.as_ref(),
        parsed.patch_constant_signature.as_ref(),
    ]
    .map(|s| elements(&mut strings, s));

    let mut features = 0u64;
    let mut global_flags = 0;
    let mut resources: Vec<dxbc_spirv_resource> = Vec::new();
    let mut workgroup_size = [0; 3];
    let (mut icp, mut ocp, mut maxout, mut instances) = (0, 0, 0, 0);
    let mut icb: Vec<u32> = Vec::new();
    // (range ID, usage bits) of the UAVs instructions name.
    let mut uav_use: Vec<(u32, u32)> = Vec::new();
    let is_sm51 = program.version.is_sm51();
    for inst in program.iter() {
        let op = inst.opcode;
        if inst.info().types.contains('d') {
            features |= DXBC_SPIRV_FEATURE_FLOAT64;
        }
        if is_double_extension(op) {
            features |= DXBC_SPIRV_FEATURE_FLOAT64_EXTENSIONS;
        }
        if is_sparse(op) {
            features |= DXBC_SPIRV_FEATURE_SPARSE_RESIDENCY;
        }
        match op {
            Opcode::Discard => features |= DXBC_SPIRV_FEATURE_DISCARD,
            Opcode::InterfaceCall => features |= DXBC_SPIRV_FEATURE_CLASS_LINKAGE,
            Opcode::LdUavTyped | Opcode::LdUavTypedS => {
                features |= DXBC_SPIRV_FEATURE_TYPED_UAV_LOAD
            }
            Opcode::ImmAtomicAlloc | Opcode::ImmAtomicConsume => {
                features |= DXBC_SPIRV_FEATURE_UAV_COUNTER
            }
            _ => {}
        }
        for o in inst.operands {
            match o.ty {
                OperandType::OutputStencilRef => features |= DXBC_SPIRV_FEATURE_STENCIL_EXPORT,
                OperandType::InnerCoverage => features |= DXBC_SPIRV_FEATURE_INNER_COVERAGE,
                OperandType::OutputDepth
                | OperandType::OutputDepthGreaterEqual
                | OperandType::OutputDepthLessEqual => features |= DXBC_SPIRV_FEATURE_DEPTH_EXPORT,
                OperandType::OutputCoverageMask => features |= DXBC_SPIRV_FEATURE_COVERAGE_EXPORT,
                _ => {}
            }
        }
        let usage = uav_usage(op);
        if usage != 0 {
            for o in inst.operands {
                if o.ty == OperandType::UnorderedAccessView
                    && let Some(i) = o.index(0)
                {
                    uav_use.push((i.imm32(), usage));
                }
            }
        }
        if let Some(c) = inst.custom_data()
            && c.class == sm4::CustomDataClass::ImmediateConstantBuffer
            && icb.is_empty()
        {
            icb.extend_from_slice(&c.data);
        }
        let Some(decl) = inst.decl() else { continue };
        match decl {
            Declaration::GlobalFlags(f) => {
                global_flags = *f;
                if f & sm4::global_flags::FORCE_EARLY_DEPTH_STENCIL != 0 {
                    features |= DXBC_SPIRV_FEATURE_EARLY_DEPTH_STENCIL;
                }
            }
            Declaration::ThreadGroup(size) => workgroup_size = *size,
            Declaration::InputControlPointCount(n) => icp = (*n).into(),
            Declaration::OutputControlPointCount(n) => ocp = (*n).into(),
            Declaration::MaxOutputVertexCount(n) => maxout = *n,
            Declaration::GsInstanceCount(n) => instances = *n,
            Declaration::Interface { .. } | Declaration::FunctionTable { .. } => {
                features |= DXBC_SPIRV_FEATURE_CLASS_LINKAGE
            }
            Declaration::Stream
                if inst
                    .operands
                    .first()
                    .and_then(|o| o.register())
                    .unwrap_or(0)
                    > 0 =>
            {
                features |= DXBC_SPIRV_FEATURE_MULTIPLE_STREAMS
            }
            _ => {}
        }
        if let Some(name) = decl.system_name() {
            match name {
                SystemName::RenderTargetArrayIndex
                    if vertex_pipeline && matches!(decl, Declaration::OutputSiv(_)) =>
                {
                    features |= DXBC_SPIRV_FEATURE_LAYER_FROM_VERTEX_PIPELINE
                }
                SystemName::ViewportArrayIndex
                    if vertex_pipeline && matches!(decl, Declaration::OutputSiv(_)) =>
                {
                    features |= DXBC_SPIRV_FEATURE_VIEWPORT_FROM_VERTEX_PIPELINE
                }
                SystemName::SampleIndex if stage == S::Pixel => {
                    features |= DXBC_SPIRV_FEATURE_SAMPLE_RATE_SHADING
                }
                _ => {}
            }
        }
        if let Some(m) = decl.interpolation()
            && matches!(
                m,
                sm4::InterpolationMode::LinearSample
                    | sm4::InterpolationMode::LinearNoPerspectiveSample
            )
        {
            features |= DXBC_SPIRV_FEATURE_SAMPLE_RATE_SHADING;
        }
        let Some(mut r) = resource_of(decl) else {
            continue;
        };
        let Some(operand) = inst.operands.first() else {
            continue;
        };
        let idx: Vec<_> = operand.indices().map(|i| i.imm32()).collect();
        if is_sm51 {
            let [id, lower, upper, ..] = idx[..] else {
                return Err(ApiError::invalid_shader(format!(
                    "at byte offset {:#x}: SM5.1 resource declaration without range bounds",
                    inst.offset
                )));
            };
            (r.range_id, r.register_lower, r.register_upper) = (id, lower, upper);
        } else {
            let Some(&reg) = idx.first() else {
                return Err(ApiError::invalid_shader(format!(
                    "at byte offset {:#x}: resource declaration without a register",
                    inst.offset
                )));
            };
            (r.range_id, r.register_lower, r.register_upper) = (reg, reg, reg);
            if r.kind == DXBC_SPIRV_RESOURCE_KIND_CONSTANT_BUFFER {
                r.size_bytes = idx.get(1).copied().unwrap_or(0).saturating_mul(16);
            }
        }
        if r.register_class == DXBC_SPIRV_REGISTER_CLASS_UAV {
            if r.flags & DXBC_SPIRV_RESOURCE_UAV_RASTERIZER_ORDERED != 0 {
                features |= DXBC_SPIRV_FEATURE_RASTERIZER_ORDERED_VIEWS;
            }
            if stage != S::Pixel && stage != S::Compute {
                features |= DXBC_SPIRV_FEATURE_UAV_IN_VERTEX_PIPELINE;
            }
        }
        resources.push(r);
    }
    for (id, bits) in uav_use {
        if let Some(r) = resources
            .iter_mut()
            .find(|r| r.register_class == DXBC_SPIRV_REGISTER_CLASS_UAV && r.range_id == id)
        {
            r.flags |= bits;
        }
    }
    // A signature element can say what a declaration does not (fxc declares both; a hand-made
    // program may not).
    if vertex_pipeline && let Some(out) = &parsed.output_signature {
        use translator::container::signature::SystemValue as V;
        for e in &out.elements {
            match e.system_value {
                V::RenderTargetArrayIndex => {
                    features |= DXBC_SPIRV_FEATURE_LAYER_FROM_VERTEX_PIPELINE
                }
                V::ViewportArrayIndex => {
                    features |= DXBC_SPIRV_FEATURE_VIEWPORT_FROM_VERTEX_PIPELINE
                }
                _ => {}
            }
        }
    }
    if let Some(rdef) = &parsed.resources {
        for r in &mut resources {
            let prefix = match r.register_class {
                DXBC_SPIRV_REGISTER_CLASS_CBV => "cb",
                DXBC_SPIRV_REGISTER_CLASS_SAMPLER => "s",
                DXBC_SPIRV_REGISTER_CLASS_UAV => "u",
                _ => "t",
            };
            if let Some(b) = rdef.bindings.iter().find(|b| {
                b.input_type.register_prefix() == prefix
                    && b.space == r.register_space
                    && if is_sm51 {
                        b.id == r.range_id
                    } else {
                        b.bind_point == r.register_lower
                    }
            }) {
                r.name = keep(&mut strings, b.name);
            }
        }
    }
    let public = dxbc_spirv_scan_info {
        stage: crate::enums::stage(stage),
        shader_model_major: shader.version.major.into(),
        shader_model_minor: shader.version.minor.into(),
        checksum_valid: parsed.checksum_matches().into(),
        features,
        sfi0_flags: parsed.features.map_or(0, |f| f.bits),
        global_flags,
        input_count: len32(&signatures[0]),
        inputs: signatures[0].as_ptr(),
        output_count: len32(&signatures[1]),
        outputs: signatures[1].as_ptr(),
        patch_constant_count: len32(&signatures[2]),
        patch_constants: signatures[2].as_ptr(),
        resource_count: len32(&resources),
        resources: resources.as_ptr(),
        workgroup_size,
        input_control_points: icp,
        output_control_points: ocp,
        max_output_vertices: maxout,
        gs_instance_count: instances,
        immediate_constant_buffer_dword_count: len32(&icb),
        immediate_constant_buffer: if icb.is_empty() {
            std::ptr::null()
        } else {
            icb.as_ptr()
        },
    };
    Ok(Box::new(Holder {
        public,
        strings,
        signatures,
        resources,
        icb,
    }))
}

/// Scans a shader: stage, model, signatures, declared resources, needed features. On success
/// `*scan_info` is owned by the caller (free with `dxbc_spirv_free_scan`); on failure null.
///
/// # Safety
/// Pointers are null or valid for the access their documentation states.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxbc_spirv_scan(
    shader: *const dxbc_spirv_shader,
    scan_info: *mut *mut dxbc_spirv_scan_info,
    error_message: *mut *mut c_char,
) -> dxbc_spirv_status {
    guard(error_message, || {
        let out = out_ptr(scan_info, "scan_info")?;
        // SAFETY: checked writable pointer.
        unsafe { out.write(std::ptr::null_mut()) };
        // SAFETY: caller's promise.
        let shader = unsafe { dxbc_spirv_shader::from_ptr(shader)? };
        let holder = scan(shader)?;
        // SAFETY: checked writable pointer; `Holder` starts with the public struct.
        unsafe { out.write(Box::into_raw(holder).cast()) };
        Ok(())
    })
}

/// Frees a scan result. Null is ignored.
///
/// # Safety
/// `scan_info` is null or a result `dxbc_spirv_scan` returned, not yet freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxbc_spirv_free_scan(scan_info: *mut dxbc_spirv_scan_info) {
    if scan_info.is_null() || !scan_info.is_aligned() {
        return;
    }
    let _ = std::panic::catch_unwind(|| {
        // SAFETY: allocated as a `Holder` (whose first field it is) in `scan`.
        drop(unsafe { Box::from_raw(scan_info.cast::<Holder>()) });
    });
}
