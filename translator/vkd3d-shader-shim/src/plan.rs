//! From a `vkd3d_shader_compile` call to the translator's [`Options`] and the checks its
//! result must pass: the compile options (typed-UAV read format, buffer UAVs, feature flags,
//! denormal modes, point size, ...), the SPIR-V target info (environment, extensions,
//! parameters, dual-source blending, output swizzles), the interface info and descriptor
//! offsets (the binding resolver), transform feedback, and the Direct3D 9 source info. Every
//! field is honoured, refused naming it, or has no meaning for bytecode to SPIR-V (listed in
//! `docs/vkd3d.md`).

use translator::binding::{Binding, BindingPolicy};
use translator::d3d9_state::{StateDelivery, StateItem};
use translator::reflect::ShaderStage;
use translator::{
    DeviceFeatures, Options, PointSize, StreamOutput, StreamOutputEntry, SwizzleComponent,
    TargetEnv, TexelBuffers, TypedUavRead,
};

use crate::abi;
use crate::chain::{Chain, c_str, slice};
use crate::params::{self, Param, SampleCount};
use crate::report::Failure;
use crate::resolver::{self, Interface, NO_OFFSET};

/// What the module must satisfy after translation (checked against its reflection).
#[derive(Debug, Clone, Default)]
pub struct Checks {
    /// `VKD3D_SHADER_COMPILE_OPTION_FEATURE` flags.
    pub features: u32,
    /// The SPIR-V extensions the target info allows (vkd3d's enumeration).
    pub extensions: Vec<u32>,
    /// D3D9-only parameters a DXBC shader was given with non-default values.
    pub d3d9_only_params: Vec<String>,
}

/// A compile, planned.
pub struct Plan {
    pub options: Options,
    pub checks: Checks,
    /// Notes for the caller's messages (warnings in vkd3d's convention).
    pub notes: Vec<String>,
}

/// Facts about the source the plan needs.
pub struct Source {
    pub stage: ShaderStage,
    pub d3d9: bool,
    /// Shader model major version (1–3 for D3D9).
    pub major: u8,
}

/// Reads the compile options.
fn compile_options(
    opts: &[abi::CompileOption],
    options: &mut Options,
    checks: &mut Checks,
    notes: &mut Vec<String>,
) -> Result<(), Failure> {
    // vkd3d's defaults: debug information kept; every buffer SRV a uniform texel buffer and
    // buffer UAVs and UAV counters storage texel buffers; typed UAV reads with an R32
    // format; the point size written from vertex, domain and geometry shaders; no optional
    // features.
    options.debug_names = true;
    options.texel_buffers = TexelBuffers::ALL;
    options.typed_uav_read = TypedUavRead::R32;
    options.point_size = PointSize::AllStages;
    options.device_features = Some(DeviceFeatures::default());
    for o in opts {
        let bad = |what: &str| {
            Failure::invalid_argument(format!(
                "compile option {}: value {} is not {what}",
                o.name, o.value
            ))
        };
        match o.name {
            abi::OPTION_STRIP_DEBUG => options.debug_names = o.value == 0,
            abi::OPTION_BUFFER_UAV => {
                let texel = match o.value {
                    abi::BUFFER_UAV_STORAGE_TEXEL_BUFFER => true,
                    abi::BUFFER_UAV_STORAGE_BUFFER => false,
                    _ => return Err(bad("a vkd3d_shader_compile_option_buffer_uav")),
                };
                options.texel_buffers.raw_uav = texel;
                options.texel_buffers.uav_counter = texel;
            }
            abi::OPTION_TYPED_UAV => {
                options.typed_uav_read = match o.value {
                    abi::TYPED_UAV_READ_FORMAT_R32 => TypedUavRead::R32,
                    abi::TYPED_UAV_READ_FORMAT_UNKNOWN => TypedUavRead::WithoutFormat,
                    _ => return Err(bad("a vkd3d_shader_compile_option_typed_uav")),
                }
            }
            abi::OPTION_FEATURE => {
                let known = abi::FEATURE_INT64
                    | abi::FEATURE_FLOAT64
                    | abi::FEATURE_WAVE_OPS
                    | abi::FEATURE_ZERO_INITIALIZE_WORKGROUP_MEMORY;
                if o.value & !known != 0 {
                    return Err(bad("a set of known feature flags"));
                }
                checks.features = o.value;
                options.device_features = Some(DeviceFeatures {
                    float64: o.value & abi::FEATURE_FLOAT64 != 0,
                    int64: o.value & abi::FEATURE_INT64 != 0,
                    wave_ops: o.value & abi::FEATURE_WAVE_OPS != 0,
                    zero_initialize_workgroup_memory: o.value
                        & abi::FEATURE_ZERO_INITIALIZE_WORKGROUP_MEMORY
                        != 0,
                });
            }
            abi::OPTION_FRAGMENT_COORDINATE_ORIGIN => {
                if o.value != 0 {
                    return Err(Failure::not_expressible(
                        "a lower-left fragment coordinate origin (OpenGL's); Vulkan's is \
                         upper-left",
                    ));
                }
            }
            abi::OPTION_DENORMAL_MODE_F32 => match o.value {
                abi::DENORMAL_MODE_ANY => options.denorm_flush_f32 = false,
                abi::DENORMAL_MODE_FLUSH_TO_ZERO => options.denorm_flush_f32 = true,
                _ => {
                    return Err(Failure::not_expressible(format!(
                        "denormal mode {} for f32: the translator flushes or leaves the \
                         driver's default",
                        o.value
                    )));
                }
            },
            abi::OPTION_DENORMAL_MODE_F16 | abi::OPTION_DENORMAL_MODE_F64 => {
                if o.value != abi::DENORMAL_MODE_ANY {
                    return Err(Failure::not_expressible(format!(
                        "a denormal mode ({}) for {}: the translator sets only f32's",
                        o.value,
                        if o.name == abi::OPTION_DENORMAL_MODE_F16 {
                            "f16"
                        } else {
                            "f64"
                        }
                    )));
                }
            }
            // vkd3d-shader writes the point size (1.0) from vertex shaders always, and from
            // domain and geometry shaders unless this is 0 (devices without
            // shaderTessellationAndGeometryPointSize).
            abi::OPTION_WRITE_TESS_GEOM_POINT_SIZE => {
                options.point_size = if o.value == 0 {
                    PointSize::Vertex
                } else {
                    PointSize::AllStages
                };
            }
            // Which vkd3d API the caller was written for: the stand-in implements 2.1's.
            abi::OPTION_API_VERSION => {}
            // Text formatting, HLSL and effects options: no meaning for bytecode to SPIR-V.
            abi::OPTION_FORMATTING
            | abi::OPTION_PACK_MATRIX_ORDER
            | abi::OPTION_BACKWARD_COMPATIBILITY
            | abi::OPTION_CHILD_EFFECT
            | abi::OPTION_WARN_IMPLICIT_TRUNCATION
            | abi::OPTION_INCLUDE_EMPTY_BUFFERS_IN_EFFECTS => {
                notes.push(format!(
                    "compile option {} has no meaning for bytecode to SPIR-V",
                    o.name
                ));
            }
            n => {
                return Err(Failure::invalid_argument(format!(
                    "unknown compile option {n}"
                )));
            }
        }
    }
    Ok(())
}

/// `slice`, with a null pointer meaning "not given" whatever the count.
///
/// # Safety
/// As [`slice`]'s.
unsafe fn optional_slice<'a, T>(
    p: *const T,
    count: u32,
    what: &str,
) -> Result<Option<&'a [T]>, Failure> {
    if p.is_null() {
        return Ok(None);
    }
    // SAFETY: as this function's.
    unsafe { slice(p, count, what) }.map(Some)
}

/// Render target `rt`'s swizzle from vkd3d's packing (component `c` of the output in bits
/// `8c..8c + 7`: the index of the written component it takes).
fn output_swizzle(rt: usize, packed: u32) -> Result<[SwizzleComponent; 4], Failure> {
    let mut out = SwizzleComponent::IDENTITY;
    for (c, o) in out.iter_mut().enumerate() {
        let i = packed >> (8 * c) & 0xff;
        *o = SwizzleComponent::from_index(i).ok_or_else(|| {
            Failure::invalid_argument(format!(
                "output_swizzles[{rt}] {packed:#010x}: component {c} selects {i}, not x, y, z \
                 or w"
            ))
        })?;
    }
    Ok(out)
}

/// Plans a compile.
///
/// # Safety
/// The chain's structures and the arrays they point to must be valid where the checks of
/// [`crate::chain`] pass.
pub unsafe fn plan(info: &abi::CompileInfo, chain: &Chain, src: &Source) -> Result<Plan, Failure> {
    let mut options = Options::default();
    let mut checks = Checks::default();
    let mut notes = Vec::new();
    let mut interface = Interface {
        visibility: resolver::visibility(src.stage),
        ..Interface::default()
    };
    // SAFETY: checked by `slice`; the caller vouches for the elements.
    let opts = unsafe { slice(info.options, info.option_count, "compile_info.options") }?;
    compile_options(opts, &mut options, &mut checks, &mut notes)?;

    if chain.varying_map {
        return Err(Failure::not_expressible(
            "varying_map_info: the translator places varyings by its own linkage rule \
             (docs/bindings.md) and cannot remap them to another stage's registers",
        ));
    }
    if chain.domain.is_some() {
        return Err(Failure::not_expressible(
            "spirv_domain_shader_target_info: the translator declares tessellation modes \
             from the hull shader's declarations",
        ));
    }
    for ty in &chain.hlsl_only {
        notes.push(format!(
            "{} has no meaning for bytecode",
            crate::chain::structure_name(*ty)
        ));
    }

    // SPIR-V target info: vkd3d's defaults are Vulkan 1.0, "main", no extensions.
    let mut env = abi::SPIRV_ENVIRONMENT_VULKAN_1_0;
    let mut params_list: Vec<Param> = Vec::new();
    if let Some(t) = chain.target {
        // SAFETY: checked by the chain walk.
        let t = unsafe { &*t };
        // SAFETY: a NUL-terminated string when non-null, as the header requires.
        if let Some(name) = unsafe { c_str(t.entry_point) }
            && name != "main"
        {
            return Err(Failure::not_expressible(format!(
                "entry point \"{name}\": the translator names its entry point \"main\""
            )));
        }
        env = t.environment;
        // SAFETY: checked by `slice`.
        checks.extensions =
            unsafe { slice(t.extensions, t.extension_count, "extensions") }?.to_vec();
        // SAFETY: checked by `slice`.
        for p in unsafe { slice(t.parameters, t.parameter_count, "parameters") }? {
            // SAFETY: both union members are one plain 32-bit word.
            let w = unsafe { p.u.u32_ };
            params_list.push(Param {
                name: p.name,
                ty: p.ty,
                data_type: p.data_type,
                words: [w, 0, 0, 0],
            });
        }
        options.dual_source_blending = t.dual_source_blending != 0;
        // SAFETY: checked by `slice`.
        let swizzles =
            unsafe { slice(t.output_swizzles, t.output_swizzle_count, "output_swizzles") }?;
        options.output_swizzles = swizzles
            .iter()
            .enumerate()
            .map(|(rt, &s)| output_swizzle(rt, s))
            .collect::<Result<_, _>>()?;
    }
    options.target_env = match env {
        abi::SPIRV_ENVIRONMENT_VULKAN_1_1 => TargetEnv::Vulkan1_1,
        abi::SPIRV_ENVIRONMENT_VULKAN_1_0 | abi::SPIRV_ENVIRONMENT_NONE => TargetEnv::Vulkan1_0,
        abi::SPIRV_ENVIRONMENT_OPENGL_4_5 => {
            return Err(Failure::not_expressible(
                "the OpenGL 4.5 environment: the translator targets Vulkan",
            ));
        }
        e => {
            return Err(Failure::invalid_argument(format!(
                "unknown SPIR-V environment {e}"
            )));
        }
    };
    if let Some(pi) = chain.parameters {
        // SAFETY: checked by the chain walk.
        let pi = unsafe { &*pi };
        // SAFETY: checked by `slice`.
        for p in unsafe {
            slice(
                pi.parameters,
                pi.parameter_count,
                "parameter_info.parameters",
            )
        }? {
            // SAFETY: the union's words are plain data whatever member was written.
            let words = unsafe { p.u.words };
            params_list.push(Param {
                name: p.name,
                ty: p.ty,
                data_type: p.data_type,
                words,
            });
        }
    }
    let mapped = params::map(&params_list)?;
    match mapped.sample_count {
        SampleCount::Default => {}
        SampleCount::Spec(id) => options.rasterizer_sample_count_spec_id = id,
        SampleCount::Immediate(n) => options.rasterizer_sample_count = Some(n),
    }
    let mut state = mapped.state;

    // Interface info and descriptor offsets.
    let mut have_interface = false;
    if let Some(i) = chain.interface {
        have_interface = true;
        // SAFETY: checked by the chain walk.
        let i = unsafe { &*i };
        // SAFETY: all arrays checked by `slice`.
        let bindings = unsafe { slice(i.bindings, i.binding_count, "interface bindings") }?;
        let push = unsafe {
            slice(
                i.push_constant_buffers,
                i.push_constant_buffer_count,
                "push_constant_buffers",
            )
        }?;
        let combined = unsafe {
            slice(
                i.combined_samplers,
                i.combined_sampler_count,
                "combined_samplers",
            )
        }?;
        let counters = unsafe { slice(i.uav_counters, i.uav_counter_count, "uav_counters") }?;
        let (binding_offsets, counter_offsets) = match chain.offsets {
            Some(o) => {
                // SAFETY: checked by the chain walk.
                let o = unsafe { &*o };
                interface.descriptor_table_offset = o.descriptor_table_offset;
                interface.descriptor_table_count = o.descriptor_table_count;
                // Either array may be null: its offsets are then 0 (vkd3d_shader.h).
                // SAFETY: vkd3d documents both arrays as parallel to the interface's.
                unsafe {
                    (
                        optional_slice(o.binding_offsets, i.binding_count, "binding_offsets")?,
                        optional_slice(
                            o.uav_counter_offsets,
                            i.uav_counter_count,
                            "uav_counter_offsets",
                        )?,
                    )
                }
            }
            None => (None, None),
        };
        interface.bindings = bindings
            .iter()
            .enumerate()
            .map(|(k, b)| (*b, binding_offsets.map_or(NO_OFFSET, |o| o[k])))
            .collect();
        interface.counters = counters
            .iter()
            .enumerate()
            .map(|(k, c)| (*c, counter_offsets.map_or(NO_OFFSET, |o| o[k])))
            .collect();
        interface.push_constants = push.to_vec();
        interface.combined = combined.to_vec();
        if !combined.is_empty() {
            if src.d3d9 {
                options.d3d9.combined_samplers = true;
            } else {
                return Err(Failure::not_expressible(
                    "combined resource-sampler bindings for a Shader Model 4/5 shader: the \
                     translator keeps its textures and samplers apart",
                ));
            }
        }
    } else if chain.offsets.is_some() {
        return Err(Failure::invalid_argument(
            "descriptor_offset_info without interface_info",
        ));
    }
    options.binding = if have_interface {
        Binding::from(interface)
    } else {
        // vkd3d's mapping without an interface description.
        Binding::Policy(BindingPolicy::Vkd3d)
    };

    // Transform feedback.
    if let Some(x) = chain.xfb {
        // SAFETY: checked by the chain walk.
        let x = unsafe { &*x };
        // SAFETY: checked by `slice`.
        let elems = unsafe { slice(x.elements, x.element_count, "transform feedback elements") }?;
        // SAFETY: checked by `slice`.
        let strides = unsafe { slice(x.buffer_strides, x.buffer_stride_count, "buffer_strides") }?;
        if strides.len() > 4 {
            return Err(Failure::invalid_argument(format!(
                "{} transform feedback buffer strides; D3D has 4 buffers",
                strides.len()
            )));
        }
        let mut so = StreamOutput::default();
        so.strides[..strides.len()].copy_from_slice(strides);
        for e in elems {
            so.entries.push(StreamOutputEntry {
                stream: e.stream_index,
                // SAFETY: a NUL-terminated string when non-null.
                semantic_name: unsafe { c_str(e.semantic_name) }.map(str::to_string),
                semantic_index: e.semantic_index,
                start_component: e.component_index,
                component_count: e.component_count,
                output_slot: e.output_slot.into(),
            });
        }
        options.stream_output = Some(so);
    }

    // Direct3D 9.
    if src.d3d9 {
        // vkd3d-shader does not enforce the D3D9 runtime's register limits (the runtime
        // does), and lays each boolean constant in its own 16-byte row.
        options.d3d9.relaxed_limits = true;
        options.d3d9.bool_constant_rows = true;
        if let Some(d) = chain.d3dbc {
            // SAFETY: checked by the chain walk.
            let d = unsafe { &*d };
            if src.major == 1 {
                for (n, &dim) in d.texture_dimensions.iter().enumerate() {
                    let v = match dim {
                        abi::RESOURCE_NONE => 0,
                        abi::RESOURCE_TEXTURE_2D | abi::RESOURCE_TEXTURE_1D => 1,
                        abi::RESOURCE_TEXTURE_CUBE => 2,
                        abi::RESOURCE_TEXTURE_3D => 3,
                        other => {
                            return Err(Failure::invalid_argument(format!(
                                "d3dbc_source_info.texture_dimensions[{n}] is resource type \
                                 {other}, not a D3D9 texture type"
                            )));
                        }
                    };
                    state.set(
                        StateItem::SamplerType(n as u8),
                        StateDelivery::Baked { words: vec![v] },
                    );
                }
            }
            if d.shadow_samplers >> translator::d3d9_state::STATE_SAMPLERS != 0 {
                return Err(Failure::invalid_argument(format!(
                    "d3dbc_source_info.shadow_samplers {:#x} names samplers past s15",
                    d.shadow_samplers
                )));
            }
            for n in 0..translator::d3d9_state::STATE_SAMPLERS {
                let on = u32::from(d.shadow_samplers >> n & 1 != 0);
                state.set(
                    StateItem::DepthCompare(n),
                    StateDelivery::Baked { words: vec![on] },
                );
            }
        }
        options.d3d9.state = state;
    } else {
        if chain.d3dbc.is_some() {
            notes.push("d3dbc_source_info has no meaning for a DXBC shader".into());
        }
        if !mapped.d3d9_only.is_empty() && state != params::map(&[])?.state {
            checks.d3d9_only_params = mapped.d3d9_only;
        }
    }
    Ok(Plan {
        options,
        checks,
        notes,
    })
}
