//! The translation's reflection as C structs: everything `dxbc reflect` prints (interface
//! variables, descriptors with their D3D origin, push constants, workgroup size,
//! capabilities, extensions, Vulkan features, specialization constants, the stream-output
//! layout, the D3D9 render-state items the module reads).
//!
//! One allocation owns it all: `Holder` starts with the public struct, followed by the
//! vectors and strings its pointers point into, so `dxbc_spirv_free_reflection` frees
//! everything at once and the caller never frees an inner pointer.

use std::ffi::{CString, c_char};

use translator::reflect::{
    ComponentType, Descriptor, InterfacePlacement, InterfaceVar, Reflection, ResourceDim,
    ResourceShape, ReturnType, SpecConstantMeaning, XfbLayout,
};

use crate::enums::*;
use crate::status::c_string;

/// Scalar type of an interface variable.
pub type dxbc_spirv_component_type = u32;
pub const DXBC_SPIRV_COMPONENT_TYPE_FLOAT: dxbc_spirv_component_type = 0;
pub const DXBC_SPIRV_COMPONENT_TYPE_UINT: dxbc_spirv_component_type = 1;
pub const DXBC_SPIRV_COMPONENT_TYPE_SINT: dxbc_spirv_component_type = 2;
pub const DXBC_SPIRV_COMPONENT_TYPE_DOUBLE: dxbc_spirv_component_type = 3;

/// Where an interface variable lives in SPIR-V.
pub type dxbc_spirv_placement = u32;
/// `Location` `location`, first `Component` `component`.
pub const DXBC_SPIRV_PLACEMENT_LOCATION: dxbc_spirv_placement = 0;
/// The SPIR-V built-in named `builtin` (e.g. "Position").
pub const DXBC_SPIRV_PLACEMENT_BUILTIN: dxbc_spirv_placement = 1;
/// In the signature but unused by the program, so not in the module.
pub const DXBC_SPIRV_PLACEMENT_UNUSED: dxbc_spirv_placement = 2;

/// One stage input or output.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct dxbc_spirv_interface_var {
    pub semantic_name: *const c_char,
    pub semantic_index: u32,
    /// The D3D register (v#/o#), or `DXBC_SPIRV_UNBOUNDED` for non-register system values.
    pub register_index: u32,
    /// Components used (bit 0 = x).
    pub mask: u32,
    /// A `DXBC_SPIRV_COMPONENT_TYPE_*`.
    pub component_type: dxbc_spirv_component_type,
    /// A `DXBC_SPIRV_PLACEMENT_*`.
    pub placement: dxbc_spirv_placement,
    pub location: u32,
    pub component: u32,
    /// The built-in's name for `DXBC_SPIRV_PLACEMENT_BUILTIN`, else null.
    pub builtin: *const c_char,
}

/// What the resource behind a descriptor is.
pub type dxbc_spirv_shape = u32;
/// A constant buffer of `size_bytes`.
pub const DXBC_SPIRV_SHAPE_CONSTANT_BUFFER: dxbc_spirv_shape = 0;
/// A sampler (`comparison`).
pub const DXBC_SPIRV_SHAPE_SAMPLER: dxbc_spirv_shape = 1;
/// A texture or typed buffer (`dimension`, `return_type`, `multisampled`).
pub const DXBC_SPIRV_SHAPE_IMAGE: dxbc_spirv_shape = 2;
/// A raw (byte address) buffer.
pub const DXBC_SPIRV_SHAPE_RAW_BUFFER: dxbc_spirv_shape = 3;
/// A structured buffer of `stride`-byte elements.
pub const DXBC_SPIRV_SHAPE_STRUCTURED_BUFFER: dxbc_spirv_shape = 4;
/// A UAV counter (one uint32).
pub const DXBC_SPIRV_SHAPE_COUNTER: dxbc_spirv_shape = 5;

/// A D3D resource dimension, numbered as the SM4 token (`D3D10_SB_RESOURCE_DIMENSION`).
pub type dxbc_spirv_resource_dimension = u32;
pub const DXBC_SPIRV_RESOURCE_DIMENSION_UNKNOWN: dxbc_spirv_resource_dimension = 0;
pub const DXBC_SPIRV_RESOURCE_DIMENSION_BUFFER: dxbc_spirv_resource_dimension = 1;
pub const DXBC_SPIRV_RESOURCE_DIMENSION_TEXTURE1D: dxbc_spirv_resource_dimension = 2;
pub const DXBC_SPIRV_RESOURCE_DIMENSION_TEXTURE2D: dxbc_spirv_resource_dimension = 3;
pub const DXBC_SPIRV_RESOURCE_DIMENSION_TEXTURE2DMS: dxbc_spirv_resource_dimension = 4;
pub const DXBC_SPIRV_RESOURCE_DIMENSION_TEXTURE3D: dxbc_spirv_resource_dimension = 5;
pub const DXBC_SPIRV_RESOURCE_DIMENSION_TEXTURECUBE: dxbc_spirv_resource_dimension = 6;
pub const DXBC_SPIRV_RESOURCE_DIMENSION_TEXTURE1DARRAY: dxbc_spirv_resource_dimension = 7;
pub const DXBC_SPIRV_RESOURCE_DIMENSION_TEXTURE2DARRAY: dxbc_spirv_resource_dimension = 8;
pub const DXBC_SPIRV_RESOURCE_DIMENSION_TEXTURE2DMSARRAY: dxbc_spirv_resource_dimension = 9;
pub const DXBC_SPIRV_RESOURCE_DIMENSION_TEXTURECUBEARRAY: dxbc_spirv_resource_dimension = 10;
pub const DXBC_SPIRV_RESOURCE_DIMENSION_RAW_BUFFER: dxbc_spirv_resource_dimension = 11;
pub const DXBC_SPIRV_RESOURCE_DIMENSION_STRUCTURED_BUFFER: dxbc_spirv_resource_dimension = 12;

/// A resource's return type, numbered as the SM4 token (`D3D10_SB_RESOURCE_RETURN_TYPE`).
pub type dxbc_spirv_return_type = u32;
pub const DXBC_SPIRV_RETURN_TYPE_NONE: dxbc_spirv_return_type = 0;
pub const DXBC_SPIRV_RETURN_TYPE_UNORM: dxbc_spirv_return_type = 1;
pub const DXBC_SPIRV_RETURN_TYPE_SNORM: dxbc_spirv_return_type = 2;
pub const DXBC_SPIRV_RETURN_TYPE_SINT: dxbc_spirv_return_type = 3;
pub const DXBC_SPIRV_RETURN_TYPE_UINT: dxbc_spirv_return_type = 4;
pub const DXBC_SPIRV_RETURN_TYPE_FLOAT: dxbc_spirv_return_type = 5;
pub const DXBC_SPIRV_RETURN_TYPE_MIXED: dxbc_spirv_return_type = 6;
pub const DXBC_SPIRV_RETURN_TYPE_DOUBLE: dxbc_spirv_return_type = 7;

/// One descriptor the module uses, with its D3D origin.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct dxbc_spirv_descriptor {
    pub set: u32,
    pub binding: u32,
    /// A `DXBC_SPIRV_DESCRIPTOR_TYPE_*`.
    pub descriptor_type: dxbc_spirv_descriptor_type,
    /// SPIR-V array length (`array_offset` + registers), or `DXBC_SPIRV_UNBOUNDED` for a
    /// runtime array.
    pub count: u32,
    /// Array element holding the range's first register.
    pub array_offset: u32,
    /// A `DXBC_SPIRV_REGISTER_CLASS_*` (`UAV_COUNTER` for a UAV's counter).
    pub register_class: dxbc_spirv_register_class,
    pub register_space: u32,
    /// First and last register of the range (`DXBC_SPIRV_UNBOUNDED` last: unbounded).
    pub register_lower: u32,
    pub register_upper: u32,
    /// SM5.1 range ID (the first register for SM4.0–5.0).
    pub range_id: u32,
    /// A `DXBC_SPIRV_SHAPE_*`; the fields below it describe.
    pub shape: dxbc_spirv_shape,
    /// `CONSTANT_BUFFER`: declared size in bytes.
    pub size_bytes: u32,
    /// `STRUCTURED_BUFFER`: element size in bytes.
    pub stride: u32,
    /// `IMAGE`: a `DXBC_SPIRV_RESOURCE_DIMENSION_*`.
    pub dimension: dxbc_spirv_resource_dimension,
    /// `IMAGE`: a `DXBC_SPIRV_RETURN_TYPE_*`.
    pub return_type: dxbc_spirv_return_type,
    /// `IMAGE`: the module's image is multisampled (bind two or more samples).
    pub multisampled: crate::dxbc_spirv_bool,
    /// `SAMPLER`: a comparison sampler.
    pub comparison: crate::dxbc_spirv_bool,
    /// The module writes through it.
    pub writable: crate::dxbc_spirv_bool,
}

/// Root constants: bytes `0..size` of `b{register_index}` in `register_space` are bytes
/// `offset..offset + size` of the push constants.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct dxbc_spirv_push_constant_range {
    pub offset: u32,
    pub size: u32,
    pub register_space: u32,
    pub register_index: u32,
}

/// What a specialization constant stands for (a `DXBC_SPIRV_PARAMETER_NAME_*`).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct dxbc_spirv_spec_constant {
    pub id: u32,
    /// The parameter it delivers, e.g. `DXBC_SPIRV_PARAMETER_NAME_RASTERIZER_SAMPLE_COUNT`.
    pub parameter_name: u32,
    /// Its value when the pipeline does not set it.
    pub default_value: u32,
}

/// A transform-feedback buffer of the module.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct dxbc_spirv_xfb_buffer {
    /// The output slot (`XfbBuffer`).
    pub slot: u32,
    /// The stream whose vertices it receives.
    pub stream: u32,
    /// Bytes per vertex (`XfbStride`).
    pub stride: u32,
}

/// Where a stream-output entry (not a gap) is written and which variable holds it.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct dxbc_spirv_xfb_entry {
    /// Its index in the declaration (gaps counted).
    pub entry: u32,
    pub stream: u32,
    pub buffer: u32,
    /// Byte offset in the buffer's vertex (`Offset`).
    pub offset: u32,
    /// The output written: its register and the register components (bit 0 = x), its
    /// semantic, type and the decorated variable's placement (`location` past the stage's
    /// outputs when the entry has a variable of its own).
    pub output: dxbc_spirv_interface_var,
}

/// What a translated module expects from its pipeline. Free with `dxbc_spirv_free_reflection`;
/// every pointer inside lives exactly as long as it.
#[repr(C)]
#[derive(Debug)]
pub struct dxbc_spirv_reflection {
    /// A `DXBC_SPIRV_STAGE_*`.
    pub stage: dxbc_spirv_stage,
    pub entry_point: *const c_char,
    pub input_count: u32,
    pub inputs: *const dxbc_spirv_interface_var,
    pub output_count: u32,
    pub outputs: *const dxbc_spirv_interface_var,
    /// Hull shader outputs / domain shader inputs.
    pub patch_constant_count: u32,
    pub patch_constants: *const dxbc_spirv_interface_var,
    /// Sorted by (set, binding, array_offset).
    pub descriptor_count: u32,
    pub descriptors: *const dxbc_spirv_descriptor,
    /// Sorted by offset.
    pub push_constant_count: u32,
    pub push_constants: *const dxbc_spirv_push_constant_range,
    /// Compute shaders: the workgroup size; zeros otherwise.
    pub workgroup_size: [u32; 3],
    pub capability_count: u32,
    /// SPIR-V capability names ("Shader", "ImageQuery", ...).
    pub capabilities: *const *const c_char,
    pub extension_count: u32,
    pub extensions: *const *const c_char,
    pub vulkan_feature_count: u32,
    /// Members of Vulkan feature structs the module needs ("geometryShader", ...).
    pub vulkan_features: *const *const c_char,
    pub spec_constant_count: u32,
    pub spec_constants: *const dxbc_spirv_spec_constant,
    /// Class linkage (docs/class-linkage.md): the `b#` register (space 0) whose uniform
    /// buffer holds the bound class instances, the interface slots it has and the bytes per
    /// slot record; all 0 when the program declares no interface.
    pub class_instance_register: u32,
    pub class_slot_count: u32,
    pub class_slot_stride: u32,
    /// Stream output (a `dxbc_spirv_stream_output_info` was chained): the stream to
    /// rasterize, or `DXBC_SPIRV_NO_RASTERIZED_STREAM` (`rasterizerDiscardEnable`); 0 without
    /// stream output.
    pub xfb_rasterized_stream: u32,
    pub xfb_buffer_count: u32,
    pub xfb_buffers: *const dxbc_spirv_xfb_buffer,
    pub xfb_entry_count: u32,
    pub xfb_entries: *const dxbc_spirv_xfb_entry,
    /// D3D9 programs: every render-state item the module reads (docs/d3d9.md "Render state
    /// compiled in") with its resolved delivery, in the order first read; none for DXBC.
    pub d3d9_state_count: u32,
    pub d3d9_state: *const crate::d3d9_state::dxbc_spirv_d3d9_state_entry,
    /// Parallel to `descriptors` (`descriptor_count` entries): each one's dynamic offset and
    /// flags (a placement's, `docs/bindings.md`).
    pub descriptor_exts: *const dxbc_spirv_descriptor_ext,
    /// The push-constant byte offsets of the `u32` descriptor offsets the module reads
    /// (`descriptor_exts[i].dynamic_offset`, each once, sorted; 4 bytes each).
    pub dynamic_offset_count: u32,
    pub dynamic_offsets: *const u32,
}

/// What a descriptor's placement adds to it.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct dxbc_spirv_descriptor_ext {
    /// The push-constant byte offset of the `u32` the module adds to the array element, or
    /// `DXBC_SPIRV_NO_DYNAMIC_OFFSET`.
    pub dynamic_offset: u32,
    /// `DXBC_SPIRV_DESCRIPTOR_MUTABLE` when the placement said the binding is mutable.
    pub flags: u32,
}

/// The public struct followed by the storage it points into.
#[repr(C)]
struct Holder {
    public: dxbc_spirv_reflection,
    strings: Vec<CString>,
    vars: [Vec<dxbc_spirv_interface_var>; 3],
    descriptors: Vec<dxbc_spirv_descriptor>,
    push_constants: Vec<dxbc_spirv_push_constant_range>,
    names: [Vec<*const c_char>; 3],
    spec_constants: Vec<dxbc_spirv_spec_constant>,
    xfb_buffers: Vec<dxbc_spirv_xfb_buffer>,
    xfb_entries: Vec<dxbc_spirv_xfb_entry>,
    d3d9_state: Vec<crate::d3d9_state::dxbc_spirv_d3d9_state_entry>,
    /// The baked words the entries point into (each vector's heap buffer stays put).
    d3d9_words: Vec<Vec<u32>>,
    descriptor_exts: Vec<dxbc_spirv_descriptor_ext>,
    dynamic_offsets: Vec<u32>,
}

fn len32<T>(v: &[T]) -> u32 {
    u32::try_from(v.len()).unwrap_or(u32::MAX)
}

/// Keeps a string alive in `strings` and returns its pointer (stable: CString's heap buffer
/// does not move when the vector grows).
fn keep(strings: &mut Vec<CString>, s: &str) -> *const c_char {
    let c = c_string(s);
    let p = c.as_ptr();
    strings.push(c);
    p
}

fn var(strings: &mut Vec<CString>, v: &InterfaceVar) -> dxbc_spirv_interface_var {
    let (placement, location, component, builtin) = match &v.placement {
        InterfacePlacement::Location {
            location,
            component,
        } => (DXBC_SPIRV_PLACEMENT_LOCATION, *location, *component, None),
        InterfacePlacement::BuiltIn { builtin } => {
            (DXBC_SPIRV_PLACEMENT_BUILTIN, 0, 0, Some(builtin.as_ref()))
        }
        InterfacePlacement::Unused => (DXBC_SPIRV_PLACEMENT_UNUSED, 0, 0, None),
    };
    dxbc_spirv_interface_var {
        semantic_name: keep(strings, &v.semantic_name),
        semantic_index: v.semantic_index,
        register_index: v.register.unwrap_or(crate::DXBC_SPIRV_UNBOUNDED),
        mask: v.mask.into(),
        component_type: match v.component_type {
            ComponentType::Float => DXBC_SPIRV_COMPONENT_TYPE_FLOAT,
            ComponentType::Uint => DXBC_SPIRV_COMPONENT_TYPE_UINT,
            ComponentType::Sint => DXBC_SPIRV_COMPONENT_TYPE_SINT,
            ComponentType::Double => DXBC_SPIRV_COMPONENT_TYPE_DOUBLE,
        },
        placement,
        location,
        component,
        builtin: builtin.map_or(std::ptr::null(), |b| keep(strings, b)),
    }
}

fn dimension(d: ResourceDim) -> dxbc_spirv_resource_dimension {
    match d {
        ResourceDim::Buffer => DXBC_SPIRV_RESOURCE_DIMENSION_BUFFER,
        ResourceDim::Texture1D => DXBC_SPIRV_RESOURCE_DIMENSION_TEXTURE1D,
        ResourceDim::Texture1DArray => DXBC_SPIRV_RESOURCE_DIMENSION_TEXTURE1DARRAY,
        ResourceDim::Texture2D => DXBC_SPIRV_RESOURCE_DIMENSION_TEXTURE2D,
        ResourceDim::Texture2DArray => DXBC_SPIRV_RESOURCE_DIMENSION_TEXTURE2DARRAY,
        ResourceDim::Texture2DMS => DXBC_SPIRV_RESOURCE_DIMENSION_TEXTURE2DMS,
        ResourceDim::Texture2DMSArray => DXBC_SPIRV_RESOURCE_DIMENSION_TEXTURE2DMSARRAY,
        ResourceDim::Texture3D => DXBC_SPIRV_RESOURCE_DIMENSION_TEXTURE3D,
        ResourceDim::TextureCube => DXBC_SPIRV_RESOURCE_DIMENSION_TEXTURECUBE,
        ResourceDim::TextureCubeArray => DXBC_SPIRV_RESOURCE_DIMENSION_TEXTURECUBEARRAY,
    }
}

fn return_type(r: ReturnType) -> dxbc_spirv_return_type {
    match r {
        ReturnType::Float => DXBC_SPIRV_RETURN_TYPE_FLOAT,
        ReturnType::Unorm => DXBC_SPIRV_RETURN_TYPE_UNORM,
        ReturnType::Snorm => DXBC_SPIRV_RETURN_TYPE_SNORM,
        ReturnType::Uint => DXBC_SPIRV_RETURN_TYPE_UINT,
        ReturnType::Sint => DXBC_SPIRV_RETURN_TYPE_SINT,
        ReturnType::Double => DXBC_SPIRV_RETURN_TYPE_DOUBLE,
        ReturnType::Mixed => DXBC_SPIRV_RETURN_TYPE_MIXED,
    }
}

fn descriptor(d: &Descriptor) -> dxbc_spirv_descriptor {
    let mut out = dxbc_spirv_descriptor {
        set: d.set,
        binding: d.binding,
        descriptor_type: descriptor_type(d.descriptor_type),
        count: d.count.unwrap_or(crate::DXBC_SPIRV_UNBOUNDED),
        array_offset: d.array_offset,
        register_class: register_class(d.origin.class, d.origin.uav_counter),
        register_space: d.origin.space,
        register_lower: d.origin.lower,
        register_upper: d.origin.upper.unwrap_or(crate::DXBC_SPIRV_UNBOUNDED),
        range_id: d.origin.range_id,
        shape: 0,
        size_bytes: 0,
        stride: 0,
        dimension: DXBC_SPIRV_RESOURCE_DIMENSION_UNKNOWN,
        return_type: DXBC_SPIRV_RETURN_TYPE_NONE,
        multisampled: 0,
        comparison: 0,
        writable: d.writable.into(),
    };
    match &d.shape {
        ResourceShape::ConstantBuffer { size_bytes } => {
            out.shape = DXBC_SPIRV_SHAPE_CONSTANT_BUFFER;
            out.size_bytes = *size_bytes;
        }
        ResourceShape::Sampler { comparison } => {
            out.shape = DXBC_SPIRV_SHAPE_SAMPLER;
            out.comparison = (*comparison).into();
        }
        ResourceShape::Image {
            dim,
            return_type: r,
            multisampled,
        } => {
            out.shape = DXBC_SPIRV_SHAPE_IMAGE;
            out.dimension = dimension(*dim);
            out.return_type = return_type(*r);
            out.multisampled = (*multisampled).into();
        }
        ResourceShape::RawBuffer => out.shape = DXBC_SPIRV_SHAPE_RAW_BUFFER,
        ResourceShape::StructuredBuffer { stride } => {
            out.shape = DXBC_SPIRV_SHAPE_STRUCTURED_BUFFER;
            out.stride = *stride;
        }
        ResourceShape::Counter => out.shape = DXBC_SPIRV_SHAPE_COUNTER,
        // The C reflection does not carry the data yet: callers of the C API keep the default
        // private-array ICB.
        ResourceShape::ImmediateConstantBuffer { data } => {
            out.shape = DXBC_SPIRV_SHAPE_CONSTANT_BUFFER;
            out.size_bytes = (data.len() * 4) as u32;
        }
    }
    out
}

/// The C form of a transform-feedback layout: the rasterized stream, the buffers, the entries.
fn xfb(
    strings: &mut Vec<CString>,
    x: &XfbLayout,
) -> (u32, Vec<dxbc_spirv_xfb_buffer>, Vec<dxbc_spirv_xfb_entry>) {
    let buffers = x
        .buffers
        .iter()
        .map(|b| dxbc_spirv_xfb_buffer {
            slot: b.slot,
            stream: b.stream,
            stride: b.stride,
        })
        .collect();
    let entries = x
        .entries
        .iter()
        .map(|e| dxbc_spirv_xfb_entry {
            entry: e.entry,
            stream: e.stream,
            buffer: e.buffer,
            offset: e.offset,
            output: var(
                strings,
                &InterfaceVar {
                    semantic_name: e.semantic_name.clone().into(),
                    semantic_index: e.semantic_index,
                    register: Some(e.register),
                    mask: e.mask,
                    component_type: e.component_type,
                    placement: e.placement.clone(),
                },
            ),
        })
        .collect();
    let rasterized = x
        .rasterized_stream
        .unwrap_or(crate::stream_output::DXBC_SPIRV_NO_RASTERIZED_STREAM);
    (rasterized, buffers, entries)
}

/// Builds the C reflection of a translation; the caller owns the result.
pub(crate) fn build(r: &Reflection) -> *mut dxbc_spirv_reflection {
    let mut strings = Vec::new();
    let entry_point = keep(&mut strings, &r.entry_point);
    let vars = [&r.inputs, &r.outputs, &r.patch_constants].map(|list| {
        list.iter()
            .map(|v| var(&mut strings, v))
            .collect::<Vec<_>>()
    });
    let names = [&r.capabilities, &r.extensions, &r.vulkan_features].map(|list| {
        list.iter()
            .map(|s| keep(&mut strings, s))
            .collect::<Vec<_>>()
    });
    let descriptors: Vec<_> = r.descriptors.iter().map(descriptor).collect();
    let descriptor_exts: Vec<_> = r
        .descriptors
        .iter()
        .map(|d| dxbc_spirv_descriptor_ext {
            dynamic_offset: d
                .dynamic_offset
                .unwrap_or(crate::layer::DXBC_SPIRV_NO_DYNAMIC_OFFSET),
            flags: if d.mutable {
                crate::layer::DXBC_SPIRV_DESCRIPTOR_MUTABLE
            } else {
                0
            },
        })
        .collect();
    let dynamic_offsets = r.dynamic_offsets.clone();
    let push_constants: Vec<_> = r
        .push_constants
        .iter()
        .map(|p| dxbc_spirv_push_constant_range {
            offset: p.offset,
            size: p.size,
            register_space: p.space,
            register_index: p.register,
        })
        .collect();
    let spec_constants: Vec<_> = r
        .spec_constants
        .iter()
        .map(|s| dxbc_spirv_spec_constant {
            id: s.id,
            parameter_name: match s.meaning {
                SpecConstantMeaning::RasterizerSampleCount => {
                    crate::translate::DXBC_SPIRV_PARAMETER_NAME_RASTERIZER_SAMPLE_COUNT
                }
            },
            default_value: s.default,
        })
        .collect();
    // One match on the layout for all three xfb fields: a separate `match &r.xfb` for the
    // rasterized stream alone was compiled to a load and branch on the inner `Option`'s tag
    // before the outer one was tested, which reads the uninitialised payload of a `None`
    // (harmless, but valgrind reports it on every shader without stream output).
    let (xfb_rasterized_stream, xfb_buffers, xfb_entries) = match &r.xfb {
        None => (0, Vec::new(), Vec::new()),
        Some(x) => xfb(&mut strings, x),
    };
    let state = r.d3d9.as_ref().map_or(&[][..], |d| &d.state[..]);
    let d3d9_words: Vec<Vec<u32>> = state
        .iter()
        .map(|e| match &e.delivery {
            translator::d3d9_state::StateDelivery::Baked { words } => words.clone(),
            _ => Vec::new(),
        })
        .collect();
    let d3d9_state: Vec<_> = state
        .iter()
        .zip(&d3d9_words)
        .map(|(e, w)| crate::d3d9_state::entry(e.item, &e.delivery, w))
        .collect();
    let (class_instance_register, class_slot_count, class_slot_stride) = r
        .class_linkage
        .as_ref()
        .map_or((0, 0, 0), |c| (c.register, c.slot_count, c.slot_stride));
    let public = dxbc_spirv_reflection {
        stage: reflect_stage(r.stage),
        entry_point,
        input_count: len32(&vars[0]),
        inputs: vars[0].as_ptr(),
        output_count: len32(&vars[1]),
        outputs: vars[1].as_ptr(),
        patch_constant_count: len32(&vars[2]),
        patch_constants: vars[2].as_ptr(),
        descriptor_count: len32(&descriptors),
        descriptors: descriptors.as_ptr(),
        push_constant_count: len32(&push_constants),
        push_constants: push_constants.as_ptr(),
        workgroup_size: r.workgroup_size.unwrap_or([0; 3]),
        capability_count: len32(&names[0]),
        capabilities: names[0].as_ptr(),
        extension_count: len32(&names[1]),
        extensions: names[1].as_ptr(),
        vulkan_feature_count: len32(&names[2]),
        vulkan_features: names[2].as_ptr(),
        spec_constant_count: len32(&spec_constants),
        spec_constants: spec_constants.as_ptr(),
        class_instance_register,
        class_slot_count,
        class_slot_stride,
        xfb_rasterized_stream,
        xfb_buffer_count: len32(&xfb_buffers),
        xfb_buffers: xfb_buffers.as_ptr(),
        xfb_entry_count: len32(&xfb_entries),
        xfb_entries: xfb_entries.as_ptr(),
        d3d9_state_count: len32(&d3d9_state),
        d3d9_state: d3d9_state.as_ptr(),
        descriptor_exts: descriptor_exts.as_ptr(),
        dynamic_offset_count: len32(&dynamic_offsets),
        dynamic_offsets: dynamic_offsets.as_ptr(),
    };
    let holder = Box::new(Holder {
        public,
        strings,
        vars,
        descriptors,
        push_constants,
        names,
        spec_constants,
        xfb_buffers,
        xfb_entries,
        d3d9_state,
        d3d9_words,
        descriptor_exts,
        dynamic_offsets,
    });
    Box::into_raw(holder).cast()
}

/// Frees a reflection. Null is ignored.
///
/// # Safety
/// `reflection` is null or a reflection `dxbc_spirv_translate` returned, not yet freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dxbc_spirv_free_reflection(reflection: *mut dxbc_spirv_reflection) {
    if reflection.is_null() || !reflection.is_aligned() {
        return;
    }
    let _ = std::panic::catch_unwind(|| {
        // SAFETY: allocated as a `Holder` (whose first field it is) in `build`.
        drop(unsafe { Box::from_raw(reflection.cast::<Holder>()) });
    });
}
