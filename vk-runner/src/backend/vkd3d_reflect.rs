//! What the DXBC and the D3D9 reflections of vkd3d-compiler's SPIR-V have in common: its
//! descriptor variables (named after their registers: `cb0_0`, `t3`, `s0`) as reflection
//! descriptors, the module-wide fields of a [`Reflection`], and the Vulkan features a module
//! needs. The interfaces differ (DXBC signatures, D3D9 `dcl_*` lines) and stay in
//! `vkd3d.rs` and `vkd3d_d3dbc.rs`.

use super::spirv_info::SpirvInfo;
use super::vkd3d_asm;
use translator::reflect::*;

/// Where a descriptor variable's register lies, as the program declares it.
pub struct Located {
    pub space: u32,
    pub lower: u32,
    pub upper: Option<u32>,
    /// The shape the declaration gives a buffer view (structured or raw), if it does.
    pub buffer: Option<ResourceShape>,
}

/// vkd3d's descriptor variables as reflection descriptors. `locate` gives, for a variable's
/// name, register class and ID, the register range it covers and its buffer shape.
pub fn descriptors(
    info: &SpirvInfo,
    mut locate: impl FnMut(&str, RegisterClass, u32) -> Result<Located, String>,
) -> Result<Vec<Descriptor>, String> {
    let mut descriptors: Vec<Descriptor> = Vec::new();
    for d in &info.descriptors {
        let name = d
            .name
            .as_deref()
            .ok_or("vkd3d descriptor variable without a name")?;
        let (class, id) = vkd3d_asm::parse_var_name(name)
            .ok_or_else(|| format!("unrecognised vkd3d descriptor variable '{name}'"))?;
        let at = locate(name, class, id)?;
        // A UAV with a hidden counter is two variables of the same name: the UAV, then its
        // counter (an R32ui texel buffer) at the next binding.
        let counter = class == RegisterClass::U
            && descriptors.iter().any(|x| {
                x.origin.class == class && x.origin.range_id == id && !x.origin.uav_counter
            });
        let shape = match (class, at.buffer) {
            _ if counter => ResourceShape::Counter,
            (RegisterClass::B, _) => ResourceShape::ConstantBuffer {
                size_bytes: d.block_size.unwrap_or(0),
            },
            (RegisterClass::S, _) => ResourceShape::Sampler { comparison: false },
            (_, Some(buffer)) => buffer,
            (_, None) => {
                let img = d.image.ok_or_else(|| format!("{name} is not an image"))?;
                ResourceShape::Image {
                    dim: img.dim,
                    return_type: img.sampled_type,
                    multisampled: img.multisampled,
                }
            }
        };
        descriptors.push(Descriptor {
            set: d.set,
            binding: d.binding,
            descriptor_type: d.descriptor_type,
            count: d.count,
            array_offset: 0,
            origin: D3dOrigin {
                class,
                space: at.space,
                lower: at.lower,
                upper: at.upper,
                range_id: id,
                uav_counter: counter,
            },
            shape,
            writable: class == RegisterClass::U,
            dynamic_offset: None,
            mutable: false,
        });
    }
    Ok(descriptors)
}

/// A reflection with the module-wide fields read from the SPIR-V (stage, entry point,
/// capabilities, extensions, the features they need) and `descriptors`; interfaces, push
/// constants, workgroup size and the D3D9 details are left empty for the caller to fill.
pub fn module_reflection(info: &SpirvInfo, descriptors: Vec<Descriptor>) -> Reflection {
    Reflection {
        stage: info.stage,
        entry_point: info.entry_point.clone(),
        inputs: Vec::new(),
        outputs: Vec::new(),
        patch_constants: Vec::new(),
        vulkan_features: features_for(info, &descriptors),
        descriptors,
        push_constants: Vec::new(),
        dynamic_offsets: Vec::new(),
        workgroup_size: None,
        capabilities: info.capabilities.iter().cloned().map(Name::Owned).collect(),
        extensions: info.extensions.iter().cloned().map(Name::Owned).collect(),
        spec_constants: Vec::new(),
        class_linkage: None,
        xfb: None,
        d3d9: None,
    }
}

/// Vulkan features a module needs, by the capabilities it declares and what it writes.
pub fn features_for(info: &SpirvInfo, descriptors: &[Descriptor]) -> Vec<Name> {
    let mut f: Vec<&'static str> = Vec::new();
    for cap in &info.capabilities {
        f.extend(match cap.as_str() {
            "StorageImageReadWithoutFormat" => &["shaderStorageImageReadWithoutFormat"][..],
            "StorageImageWriteWithoutFormat" => &["shaderStorageImageWriteWithoutFormat"],
            "Float64" => &["shaderFloat64"],
            "Int64" => &["shaderInt64"],
            "Int16" => &["shaderInt16"],
            "Geometry" => &["geometryShader"],
            "Tessellation" => &["tessellationShader"],
            "SampleRateShading" => &["sampleRateShading"],
            "DemoteToHelperInvocation" | "DemoteToHelperInvocationEXT" => {
                &["shaderDemoteToHelperInvocation"]
            }
            "ImageCubeArray" | "SampledCubeArray" => &["imageCubeArray"],
            "ClipDistance" => &["shaderClipDistance"],
            "CullDistance" => &["shaderCullDistance"],
            "ImageGatherExtended" => &["shaderImageGatherExtended"],
            "StorageImageExtendedFormats" => &["shaderStorageImageExtendedFormats"],
            "MinLod" => &["shaderResourceMinLod"],
            "SparseResidency" => &["shaderResourceResidency"],
            "StorageImageMultisample" => &["shaderStorageImageMultisample"],
            "RuntimeDescriptorArray" => &["runtimeDescriptorArray"],
            "FragmentShaderPixelInterlockEXT" => &["fragmentShaderPixelInterlock"],
            _ => &[],
        });
    }
    if descriptors.iter().any(|d| d.writable) {
        match info.stage {
            ShaderStage::Pixel => f.push("fragmentStoresAndAtomics"),
            ShaderStage::Compute => {}
            _ => f.push("vertexPipelineStoresAndAtomics"),
        }
    }
    let mut v: Vec<Name> = f.into_iter().map(Name::Borrowed).collect();
    v.sort();
    v.dedup();
    v
}
