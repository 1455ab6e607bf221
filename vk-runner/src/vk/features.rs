//! Vulkan device features by name (the member names of the Vulkan feature structs), so that
//! a reflection's `vulkan_features` and the runner's wish list can be checked and enabled
//! without a match per feature.

use ash::vk;

/// The Vulkan 1.0–1.3 feature structs together.
#[derive(Default, Clone, Copy)]
pub struct FeatureSet {
    pub f10: vk::PhysicalDeviceFeatures,
    pub f11: vk::PhysicalDeviceVulkan11Features<'static>,
    pub f12: vk::PhysicalDeviceVulkan12Features<'static>,
    pub f13: vk::PhysicalDeviceVulkan13Features<'static>,
    /// VK_EXT_transform_feedback (`geometryStreams`: geometry shaders with several streams).
    pub xfb: vk::PhysicalDeviceTransformFeedbackFeaturesEXT<'static>,
    /// VK_EXT_fragment_shader_interlock (rasterizer-ordered views).
    pub interlock: vk::PhysicalDeviceFragmentShaderInterlockFeaturesEXT<'static>,
    /// VK_EXT_mutable_descriptor_type (bindings holding several descriptor types).
    pub mutable: vk::PhysicalDeviceMutableDescriptorTypeFeaturesEXT<'static>,
    /// VK_KHR_shader_float_controls2 (our `--float-controls2` modules).
    pub fc2: vk::PhysicalDeviceShaderFloatControls2FeaturesKHR<'static>,
}

type Accessor = fn(&mut FeatureSet) -> &mut vk::Bool32;

macro_rules! features {
    ($($s:ident . $f:ident),* $(,)?) => {
        /// Every feature the runner knows by name.
        pub const FEATURES: &[(&str, Accessor)] = &[
            $((stringify!($f), |fs: &mut FeatureSet| &mut fs.$s.$f)),*
        ];
    };
}

features! {
    f10.robust_buffer_access,
    f10.full_draw_index_uint32,
    f10.image_cube_array,
    f10.independent_blend,
    f10.geometry_shader,
    f10.tessellation_shader,
    f10.multi_viewport,
    f10.sample_rate_shading,
    f10.dual_src_blend,
    f10.logic_op,
    f10.multi_draw_indirect,
    f10.depth_clamp,
    f10.depth_bias_clamp,
    f10.fill_mode_non_solid,
    f10.depth_bounds,
    f10.sampler_anisotropy,
    f10.occlusion_query_precise,
    f10.vertex_pipeline_stores_and_atomics,
    f10.fragment_stores_and_atomics,
    f10.shader_tessellation_and_geometry_point_size,
    f10.shader_image_gather_extended,
    f10.shader_storage_image_extended_formats,
    f10.shader_storage_image_multisample,
    f10.shader_storage_image_read_without_format,
    f10.shader_storage_image_write_without_format,
    f10.shader_uniform_buffer_array_dynamic_indexing,
    f10.shader_sampled_image_array_dynamic_indexing,
    f10.shader_storage_buffer_array_dynamic_indexing,
    f10.shader_storage_image_array_dynamic_indexing,
    f10.shader_clip_distance,
    f10.shader_cull_distance,
    f10.shader_float64,
    f10.shader_int64,
    f10.shader_int16,
    f10.shader_resource_residency,
    f10.shader_resource_min_lod,
    f11.storage_buffer16_bit_access,
    f11.uniform_and_storage_buffer16_bit_access,
    f11.shader_draw_parameters,
    f12.sampler_mirror_clamp_to_edge,
    f12.draw_indirect_count,
    f12.shader_float16,
    f12.shader_int8,
    f12.descriptor_indexing,
    f12.shader_input_attachment_array_dynamic_indexing,
    f12.shader_uniform_texel_buffer_array_dynamic_indexing,
    f12.shader_storage_texel_buffer_array_dynamic_indexing,
    f12.shader_uniform_buffer_array_non_uniform_indexing,
    f12.shader_sampled_image_array_non_uniform_indexing,
    f12.shader_storage_buffer_array_non_uniform_indexing,
    f12.shader_storage_image_array_non_uniform_indexing,
    f12.shader_uniform_texel_buffer_array_non_uniform_indexing,
    f12.shader_storage_texel_buffer_array_non_uniform_indexing,
    f12.descriptor_binding_partially_bound,
    f12.descriptor_binding_variable_descriptor_count,
    f12.runtime_descriptor_array,
    f12.sampler_filter_minmax,
    f12.scalar_block_layout,
    f12.uniform_buffer_standard_layout,
    f12.shader_subgroup_extended_types,
    f12.host_query_reset,
    f12.timeline_semaphore,
    f12.buffer_device_address,
    f12.vulkan_memory_model,
    f12.vulkan_memory_model_device_scope,
    f12.shader_output_viewport_index,
    f12.shader_output_layer,
    f13.robust_image_access,
    f13.shader_demote_to_helper_invocation,
    f13.shader_terminate_invocation,
    f13.subgroup_size_control,
    f13.compute_full_subgroups,
    f13.synchronization2,
    f13.shader_zero_initialize_workgroup_memory,
    f13.dynamic_rendering,
    f13.shader_integer_dot_product,
    f13.maintenance4,
    xfb.transform_feedback,
    xfb.geometry_streams,
    interlock.fragment_shader_sample_interlock,
    interlock.fragment_shader_pixel_interlock,
    interlock.fragment_shader_shading_rate_interlock,
    mutable.mutable_descriptor_type,
    fc2.shader_float_controls2,
}

/// Converts a Vulkan feature name (`shaderFloat64`) to the ash field spelling
/// (`shader_float64`) used in [`FEATURES`].
pub fn snake_case(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 8);
    let mut prev_digit = false;
    for c in name.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else if c.is_ascii_digit() && !prev_digit {
            // `storageBuffer16BitAccess` → `storage_buffer16_bit_access`: digits stay attached.
            out.push(c);
        } else {
            out.push(c);
        }
        prev_digit = c.is_ascii_digit();
    }
    out
}

impl FeatureSet {
    /// Looks a feature up by its Vulkan name (camelCase) or ash name (snake_case).
    pub fn get(&self, name: &str) -> Option<bool> {
        let snake = snake_case(name);
        let mut copy = *self;
        FEATURES
            .iter()
            .find(|(n, _)| *n == snake || *n == name)
            .map(|(_, acc)| *acc(&mut copy) != 0)
    }

    pub fn set(&mut self, name: &str, on: bool) -> bool {
        let snake = snake_case(name);
        match FEATURES.iter().find(|(n, _)| *n == snake || *n == name) {
            Some((_, acc)) => {
                *acc(self) = on.into();
                true
            }
            None => false,
        }
    }

    /// Names (camelCase) of the features that are on.
    pub fn enabled_names(&self) -> Vec<String> {
        let mut copy = *self;
        FEATURES
            .iter()
            .filter(|(_, acc)| *acc(&mut copy) != 0)
            .map(|(n, _)| camel_case(n))
            .collect()
    }
}

/// `shader_float64` → `shaderFloat64`.
pub fn camel_case(snake: &str) -> String {
    let mut out = String::new();
    let mut up = false;
    for c in snake.chars() {
        if c == '_' {
            up = true;
        } else if up {
            out.push(c.to_ascii_uppercase());
            up = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// Features the runner enables whenever the device has them (the test suite needs them).
pub const WANTED: &[&str] = &[
    "robust_buffer_access",
    "image_cube_array",
    "independent_blend",
    "geometry_shader",
    "tessellation_shader",
    "sample_rate_shading",
    "dual_src_blend",
    "depth_clamp",
    "depth_bounds",
    "multi_viewport",
    "sampler_anisotropy",
    "vertex_pipeline_stores_and_atomics",
    "fragment_stores_and_atomics",
    "shader_image_gather_extended",
    "shader_storage_image_extended_formats",
    "shader_storage_image_multisample",
    "shader_storage_image_read_without_format",
    "shader_storage_image_write_without_format",
    "shader_uniform_buffer_array_dynamic_indexing",
    "shader_sampled_image_array_dynamic_indexing",
    "shader_storage_buffer_array_dynamic_indexing",
    "shader_storage_image_array_dynamic_indexing",
    "shader_clip_distance",
    "shader_cull_distance",
    "shader_float64",
    "shader_int64",
    "shader_int16",
    "shader_resource_min_lod",
    "shader_resource_residency",
    "shader_draw_parameters",
    "sampler_mirror_clamp_to_edge",
    "shader_float16",
    "shader_int8",
    "descriptor_indexing",
    "shader_uniform_texel_buffer_array_dynamic_indexing",
    "shader_storage_texel_buffer_array_dynamic_indexing",
    "shader_uniform_buffer_array_non_uniform_indexing",
    "shader_sampled_image_array_non_uniform_indexing",
    "shader_storage_buffer_array_non_uniform_indexing",
    "shader_storage_image_array_non_uniform_indexing",
    "shader_uniform_texel_buffer_array_non_uniform_indexing",
    "shader_storage_texel_buffer_array_non_uniform_indexing",
    "descriptor_binding_partially_bound",
    "descriptor_binding_variable_descriptor_count",
    "runtime_descriptor_array",
    "sampler_filter_minmax",
    "scalar_block_layout",
    "uniform_buffer_standard_layout",
    "vulkan_memory_model",
    "vulkan_memory_model_device_scope",
    "shader_output_viewport_index",
    "shader_output_layer",
    "robust_image_access",
    "shader_demote_to_helper_invocation",
    "shader_terminate_invocation",
    "synchronization2",
    "shader_zero_initialize_workgroup_memory",
    "dynamic_rendering",
    "maintenance4",
    "transform_feedback",
    "geometry_streams",
    "fragment_shader_sample_interlock",
    "fragment_shader_pixel_interlock",
    "shader_tessellation_and_geometry_point_size",
    "mutable_descriptor_type",
    "shader_float_controls2",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        assert_eq!(snake_case("shaderFloat64"), "shader_float64");
        assert_eq!(
            snake_case("shaderStorageImageReadWithoutFormat"),
            "shader_storage_image_read_without_format"
        );
        assert_eq!(
            camel_case("fragment_stores_and_atomics"),
            "fragmentStoresAndAtomics"
        );
        let mut fs = FeatureSet::default();
        assert_eq!(fs.get("shaderFloat64"), Some(false));
        assert!(fs.set("shaderFloat64", true));
        assert_eq!(fs.get("shader_float64"), Some(true));
        assert_eq!(fs.get("noSuchFeature"), None);
        assert!(fs.set("shaderDemoteToHelperInvocation", true));
        assert_eq!(
            fs.enabled_names(),
            vec![
                "shaderFloat64".to_string(),
                "shaderDemoteToHelperInvocation".to_string()
            ]
        );
        for w in WANTED {
            assert!(FEATURES.iter().any(|(n, _)| n == w), "{w}");
        }
    }
}
