//! The D3D12 executor declares vkd3d's C structures, vtables, constants and interface IDs in
//! Rust (`vk-runner/src/d3d12/ffi`). This test compiles a C program against vkd3d's own
//! headers that prints the sizes, offsets and values the Rust side assumes, and compares.
//!
//! It needs a C compiler and vkd3d's headers: `VKD3D_INCLUDE_DIR` (the directory holding
//! `vkd3d_d3d12.h`), else the Debian root `tools/debian-root.sh` makes for the executor's
//! run (`LAVAPIPE_SUITE=sid` with vkd3d's packages). Without either it says so and skips.

use std::mem::{offset_of, size_of};
use std::path::{Path, PathBuf};
use std::process::Command;
use vk_runner::d3d12::ffi::types::*;
use vk_runner::d3d12::ffi::vtbl::*;

/// The packages `tools/lavapipe.sh` is run with for the D3D12 executor (one root for both).
const PACKAGES: &[&str] = &[
    "mesa-vulkan-drivers",
    "libvulkan1",
    "vulkan-tools",
    "vulkan-validationlayers",
    "libvkd3d1",
    "libvkd3d-utils1",
    "libvkd3d-shader1",
    "libvkd3d-dev",
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("workspace root")
        .to_path_buf()
}

/// Where vkd3d's headers are, or why there are none.
fn include_dir() -> Result<PathBuf, String> {
    if let Some(d) = std::env::var_os("VKD3D_INCLUDE_DIR").filter(|d| !d.is_empty()) {
        let d = PathBuf::from(d);
        return if d.join("vkd3d_d3d12.h").is_file() {
            Ok(d)
        } else {
            Err(format!(
                "VKD3D_INCLUDE_DIR={} holds no vkd3d_d3d12.h",
                d.display()
            ))
        };
    }
    let out = Command::new(root().join("tools/debian-root.sh"))
        .arg("sid")
        .args(PACKAGES)
        .output()
        .map_err(|e| format!("tools/debian-root.sh: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "tools/debian-root.sh could not make the vkd3d root: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    let dir =
        PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()).join("root/usr/include/vkd3d");
    if dir.join("vkd3d_d3d12.h").is_file() {
        Ok(dir)
    } else {
        Err(format!("{} holds no vkd3d_d3d12.h", dir.display()))
    }
}

/// (C expression, value on the Rust side).
type Entry = (String, u64);

macro_rules! size {
    ($t:ty, $c:literal) => {
        (format!("sizeof({})", $c), size_of::<$t>() as u64)
    };
}
macro_rules! off {
    ($t:ty, $c:literal, $($f:ident).+ => $cf:literal) => {
        (format!("offsetof({}, {})", $c, $cf), offset_of!($t, $($f).+) as u64)
    };
}
macro_rules! konst {
    ($v:expr, $c:literal) => {
        (format!("(unsigned long long)({})", $c), $v as u64)
    };
}

fn iid(g: &Guid, c: &str) -> Vec<Entry> {
    let d4 = u64::from_be_bytes(g.data4);
    vec![
        (format!("{c}.Data1"), u64::from(g.data1)),
        (format!("{c}.Data2"), u64::from(g.data2)),
        (format!("{c}.Data3"), u64::from(g.data3)),
        (
            format!(
                "((unsigned long long){c}.Data4[0] << 56 | (unsigned long long){c}.Data4[1] << 48 | \
                 (unsigned long long){c}.Data4[2] << 40 | (unsigned long long){c}.Data4[3] << 32 | \
                 (unsigned long long){c}.Data4[4] << 24 | (unsigned long long){c}.Data4[5] << 16 | \
                 (unsigned long long){c}.Data4[6] << 8 | (unsigned long long){c}.Data4[7])"
            ),
            d4,
        ),
    ]
}

fn entries() -> Vec<Entry> {
    let mut e = vec![
        size!(Guid, "GUID"),
        size!(CommandQueueDesc, "D3D12_COMMAND_QUEUE_DESC"),
        size!(DescriptorHeapDesc, "D3D12_DESCRIPTOR_HEAP_DESC"),
        size!(CpuDescriptorHandle, "D3D12_CPU_DESCRIPTOR_HANDLE"),
        size!(GpuDescriptorHandle, "D3D12_GPU_DESCRIPTOR_HANDLE"),
        size!(HeapProperties, "D3D12_HEAP_PROPERTIES"),
        size!(ResourceDesc, "D3D12_RESOURCE_DESC"),
        off!(ResourceDesc, "D3D12_RESOURCE_DESC", alignment => "Alignment"),
        off!(ResourceDesc, "D3D12_RESOURCE_DESC", width => "Width"),
        off!(ResourceDesc, "D3D12_RESOURCE_DESC", height => "Height"),
        off!(ResourceDesc, "D3D12_RESOURCE_DESC", depth_or_array_size => "DepthOrArraySize"),
        off!(ResourceDesc, "D3D12_RESOURCE_DESC", mip_levels => "MipLevels"),
        off!(ResourceDesc, "D3D12_RESOURCE_DESC", format => "Format"),
        off!(ResourceDesc, "D3D12_RESOURCE_DESC", sample_desc => "SampleDesc"),
        off!(ResourceDesc, "D3D12_RESOURCE_DESC", layout => "Layout"),
        off!(ResourceDesc, "D3D12_RESOURCE_DESC", flags => "Flags"),
        size!(Range, "D3D12_RANGE"),
        size!(ResourceBarrier, "D3D12_RESOURCE_BARRIER"),
        off!(ResourceBarrier, "D3D12_RESOURCE_BARRIER", u.transition => "Transition"),
        off!(ResourceBarrier, "D3D12_RESOURCE_BARRIER", u.transition.subresource => "Transition.Subresource"),
        off!(ResourceBarrier, "D3D12_RESOURCE_BARRIER", u.transition.state_after => "Transition.StateAfter"),
        off!(ResourceBarrier, "D3D12_RESOURCE_BARRIER", u.uav.resource => "UAV.pResource"),
        size!(ShaderResourceViewDesc, "D3D12_SHADER_RESOURCE_VIEW_DESC"),
        off!(ShaderResourceViewDesc, "D3D12_SHADER_RESOURCE_VIEW_DESC", shader_4_component_mapping => "Shader4ComponentMapping"),
        off!(ShaderResourceViewDesc, "D3D12_SHADER_RESOURCE_VIEW_DESC", u.buffer.num_elements => "Buffer.NumElements"),
        off!(ShaderResourceViewDesc, "D3D12_SHADER_RESOURCE_VIEW_DESC", u.buffer.structure_byte_stride => "Buffer.StructureByteStride"),
        off!(ShaderResourceViewDesc, "D3D12_SHADER_RESOURCE_VIEW_DESC", u.buffer.flags => "Buffer.Flags"),
        off!(ShaderResourceViewDesc, "D3D12_SHADER_RESOURCE_VIEW_DESC", u.tex2d_array.array_size => "Texture2DArray.ArraySize"),
        off!(ShaderResourceViewDesc, "D3D12_SHADER_RESOURCE_VIEW_DESC", u.tex2d_array.resource_min_lod_clamp => "Texture2DArray.ResourceMinLODClamp"),
        // The texture members written as words: each field's word index.
        off!(ShaderResourceViewDesc, "D3D12_SHADER_RESOURCE_VIEW_DESC", u.words => "Texture2D.MostDetailedMip"),
        konst!(
            offset_of!(ShaderResourceViewDesc, u.words) + 4,
            "offsetof(D3D12_SHADER_RESOURCE_VIEW_DESC, Texture2D.MipLevels)"
        ),
        konst!(
            offset_of!(ShaderResourceViewDesc, u.words) + 4,
            "offsetof(D3D12_SHADER_RESOURCE_VIEW_DESC, Texture3D.MipLevels)"
        ),
        konst!(
            offset_of!(ShaderResourceViewDesc, u.words) + 4,
            "offsetof(D3D12_SHADER_RESOURCE_VIEW_DESC, TextureCube.MipLevels)"
        ),
        konst!(
            offset_of!(ShaderResourceViewDesc, u.words) + 12,
            "offsetof(D3D12_SHADER_RESOURCE_VIEW_DESC, TextureCubeArray.NumCubes)"
        ),
        konst!(
            offset_of!(ShaderResourceViewDesc, u.words) + 12,
            "offsetof(D3D12_SHADER_RESOURCE_VIEW_DESC, Texture1DArray.ArraySize)"
        ),
        konst!(
            offset_of!(ShaderResourceViewDesc, u.words) + 4,
            "offsetof(D3D12_SHADER_RESOURCE_VIEW_DESC, Texture2DMSArray.ArraySize)"
        ),
        size!(UnorderedAccessViewDesc, "D3D12_UNORDERED_ACCESS_VIEW_DESC"),
        off!(UnorderedAccessViewDesc, "D3D12_UNORDERED_ACCESS_VIEW_DESC", u.buffer.structure_byte_stride => "Buffer.StructureByteStride"),
        off!(UnorderedAccessViewDesc, "D3D12_UNORDERED_ACCESS_VIEW_DESC", u.buffer.counter_offset_in_bytes => "Buffer.CounterOffsetInBytes"),
        off!(UnorderedAccessViewDesc, "D3D12_UNORDERED_ACCESS_VIEW_DESC", u.buffer.flags => "Buffer.Flags"),
        konst!(
            offset_of!(UnorderedAccessViewDesc, u.words) + 8,
            "offsetof(D3D12_UNORDERED_ACCESS_VIEW_DESC, Texture2DArray.ArraySize)"
        ),
        konst!(
            offset_of!(UnorderedAccessViewDesc, u.words) + 8,
            "offsetof(D3D12_UNORDERED_ACCESS_VIEW_DESC, Texture3D.WSize)"
        ),
        konst!(
            offset_of!(UnorderedAccessViewDesc, u.words) + 8,
            "offsetof(D3D12_UNORDERED_ACCESS_VIEW_DESC, Texture1DArray.ArraySize)"
        ),
        size!(ConstantBufferViewDesc, "D3D12_CONSTANT_BUFFER_VIEW_DESC"),
        size!(SamplerDesc, "D3D12_SAMPLER_DESC"),
        off!(SamplerDesc, "D3D12_SAMPLER_DESC", border_color => "BorderColor"),
        off!(SamplerDesc, "D3D12_SAMPLER_DESC", max_lod => "MaxLOD"),
        size!(DescriptorRange, "D3D12_DESCRIPTOR_RANGE"),
        size!(RootParameter, "D3D12_ROOT_PARAMETER"),
        off!(RootParameter, "D3D12_ROOT_PARAMETER", u.descriptor_table.descriptor_ranges => "DescriptorTable.pDescriptorRanges"),
        off!(RootParameter, "D3D12_ROOT_PARAMETER", u.constants.num_32bit_values => "Constants.Num32BitValues"),
        off!(RootParameter, "D3D12_ROOT_PARAMETER", shader_visibility => "ShaderVisibility"),
        size!(RootSignatureDesc, "D3D12_ROOT_SIGNATURE_DESC"),
        off!(RootSignatureDesc, "D3D12_ROOT_SIGNATURE_DESC", flags => "Flags"),
        size!(ShaderBytecode, "D3D12_SHADER_BYTECODE"),
        size!(SoDeclarationEntry, "D3D12_SO_DECLARATION_ENTRY"),
        off!(SoDeclarationEntry, "D3D12_SO_DECLARATION_ENTRY", output_slot => "OutputSlot"),
        size!(StreamOutputDesc, "D3D12_STREAM_OUTPUT_DESC"),
        size!(BlendDesc, "D3D12_BLEND_DESC"),
        size!(RenderTargetBlendDesc, "D3D12_RENDER_TARGET_BLEND_DESC"),
        size!(RasterizerDesc, "D3D12_RASTERIZER_DESC"),
        size!(DepthStencilDesc, "D3D12_DEPTH_STENCIL_DESC"),
        off!(DepthStencilDesc, "D3D12_DEPTH_STENCIL_DESC", front_face => "FrontFace"),
        size!(InputElementDesc, "D3D12_INPUT_ELEMENT_DESC"),
        size!(InputLayoutDesc, "D3D12_INPUT_LAYOUT_DESC"),
        size!(
            GraphicsPipelineStateDesc,
            "D3D12_GRAPHICS_PIPELINE_STATE_DESC"
        ),
        off!(GraphicsPipelineStateDesc, "D3D12_GRAPHICS_PIPELINE_STATE_DESC", stream_output => "StreamOutput"),
        off!(GraphicsPipelineStateDesc, "D3D12_GRAPHICS_PIPELINE_STATE_DESC", blend_state => "BlendState"),
        off!(GraphicsPipelineStateDesc, "D3D12_GRAPHICS_PIPELINE_STATE_DESC", sample_mask => "SampleMask"),
        off!(GraphicsPipelineStateDesc, "D3D12_GRAPHICS_PIPELINE_STATE_DESC", rasterizer_state => "RasterizerState"),
        off!(GraphicsPipelineStateDesc, "D3D12_GRAPHICS_PIPELINE_STATE_DESC", depth_stencil_state => "DepthStencilState"),
        off!(GraphicsPipelineStateDesc, "D3D12_GRAPHICS_PIPELINE_STATE_DESC", input_layout => "InputLayout"),
        off!(GraphicsPipelineStateDesc, "D3D12_GRAPHICS_PIPELINE_STATE_DESC", primitive_topology_type => "PrimitiveTopologyType"),
        off!(GraphicsPipelineStateDesc, "D3D12_GRAPHICS_PIPELINE_STATE_DESC", rtv_formats => "RTVFormats"),
        off!(GraphicsPipelineStateDesc, "D3D12_GRAPHICS_PIPELINE_STATE_DESC", dsv_format => "DSVFormat"),
        off!(GraphicsPipelineStateDesc, "D3D12_GRAPHICS_PIPELINE_STATE_DESC", sample_desc => "SampleDesc"),
        off!(GraphicsPipelineStateDesc, "D3D12_GRAPHICS_PIPELINE_STATE_DESC", cached_pso => "CachedPSO"),
        off!(GraphicsPipelineStateDesc, "D3D12_GRAPHICS_PIPELINE_STATE_DESC", flags => "Flags"),
        size!(
            ComputePipelineStateDesc,
            "D3D12_COMPUTE_PIPELINE_STATE_DESC"
        ),
        off!(ComputePipelineStateDesc, "D3D12_COMPUTE_PIPELINE_STATE_DESC", cached_pso => "CachedPSO"),
        size!(Viewport, "D3D12_VIEWPORT"),
        size!(Rect, "D3D12_RECT"),
        size!(VertexBufferView, "D3D12_VERTEX_BUFFER_VIEW"),
        size!(StreamOutputBufferView, "D3D12_STREAM_OUTPUT_BUFFER_VIEW"),
        size!(
            PlacedSubresourceFootprint,
            "D3D12_PLACED_SUBRESOURCE_FOOTPRINT"
        ),
        size!(TextureCopyLocation, "D3D12_TEXTURE_COPY_LOCATION"),
        off!(TextureCopyLocation, "D3D12_TEXTURE_COPY_LOCATION", u.placed_footprint => "PlacedFootprint"),
        off!(TextureCopyLocation, "D3D12_TEXTURE_COPY_LOCATION", u.subresource_index => "SubresourceIndex"),
        size!(FeatureDataOptions, "D3D12_FEATURE_DATA_D3D12_OPTIONS"),
        off!(FeatureDataOptions, "D3D12_FEATURE_DATA_D3D12_OPTIONS", rovs_supported => "ROVsSupported"),
        off!(FeatureDataOptions, "D3D12_FEATURE_DATA_D3D12_OPTIONS", conservative_rasterization_tier => "ConservativeRasterizationTier"),
        off!(FeatureDataOptions, "D3D12_FEATURE_DATA_D3D12_OPTIONS", vp_and_rt_array_index_from_any_shader_feeding_rasterizer_supported_without_gs_emulation => "VPAndRTArrayIndexFromAnyShaderFeedingRasterizerSupportedWithoutGSEmulation"),
        size!(FeatureDataOptions1, "D3D12_FEATURE_DATA_D3D12_OPTIONS1"),
        off!(FeatureDataOptions1, "D3D12_FEATURE_DATA_D3D12_OPTIONS1", int64_shader_ops => "Int64ShaderOps"),
        size!(FeatureDataOptions2, "D3D12_FEATURE_DATA_D3D12_OPTIONS2"),
        size!(
            FeatureDataFormatSupport,
            "D3D12_FEATURE_DATA_FORMAT_SUPPORT"
        ),
        // Vtables: their sizes (every slot declared) and the slot of each method called.
        size!(BlobVtbl, "ID3D10BlobVtbl"),
        off!(BlobVtbl, "ID3D10BlobVtbl", get_buffer_size => "GetBufferSize"),
        size!(DeviceVtbl, "ID3D12DeviceVtbl"),
        off!(DeviceVtbl, "ID3D12DeviceVtbl", unknown.query_interface => "QueryInterface"),
        off!(DeviceVtbl, "ID3D12DeviceVtbl", unknown.release => "Release"),
        off!(DeviceVtbl, "ID3D12DeviceVtbl", create_command_queue => "CreateCommandQueue"),
        off!(DeviceVtbl, "ID3D12DeviceVtbl", create_command_allocator => "CreateCommandAllocator"),
        off!(DeviceVtbl, "ID3D12DeviceVtbl", create_graphics_pipeline_state => "CreateGraphicsPipelineState"),
        off!(DeviceVtbl, "ID3D12DeviceVtbl", create_compute_pipeline_state => "CreateComputePipelineState"),
        off!(DeviceVtbl, "ID3D12DeviceVtbl", create_command_list => "CreateCommandList"),
        off!(DeviceVtbl, "ID3D12DeviceVtbl", check_feature_support => "CheckFeatureSupport"),
        off!(DeviceVtbl, "ID3D12DeviceVtbl", create_descriptor_heap => "CreateDescriptorHeap"),
        off!(DeviceVtbl, "ID3D12DeviceVtbl", get_descriptor_handle_increment_size => "GetDescriptorHandleIncrementSize"),
        off!(DeviceVtbl, "ID3D12DeviceVtbl", create_root_signature => "CreateRootSignature"),
        off!(DeviceVtbl, "ID3D12DeviceVtbl", create_constant_buffer_view => "CreateConstantBufferView"),
        off!(DeviceVtbl, "ID3D12DeviceVtbl", create_shader_resource_view => "CreateShaderResourceView"),
        off!(DeviceVtbl, "ID3D12DeviceVtbl", create_unordered_access_view => "CreateUnorderedAccessView"),
        off!(DeviceVtbl, "ID3D12DeviceVtbl", create_render_target_view => "CreateRenderTargetView"),
        off!(DeviceVtbl, "ID3D12DeviceVtbl", create_depth_stencil_view => "CreateDepthStencilView"),
        off!(DeviceVtbl, "ID3D12DeviceVtbl", create_sampler => "CreateSampler"),
        off!(DeviceVtbl, "ID3D12DeviceVtbl", create_committed_resource => "CreateCommittedResource"),
        off!(DeviceVtbl, "ID3D12DeviceVtbl", create_fence => "CreateFence"),
        off!(DeviceVtbl, "ID3D12DeviceVtbl", get_device_removed_reason => "GetDeviceRemovedReason"),
        off!(DeviceVtbl, "ID3D12DeviceVtbl", get_copyable_footprints => "GetCopyableFootprints"),
        size!(CommandQueueVtbl, "ID3D12CommandQueueVtbl"),
        off!(CommandQueueVtbl, "ID3D12CommandQueueVtbl", execute_command_lists => "ExecuteCommandLists"),
        off!(CommandQueueVtbl, "ID3D12CommandQueueVtbl", signal => "Signal"),
        size!(CommandAllocatorVtbl, "ID3D12CommandAllocatorVtbl"),
        off!(CommandAllocatorVtbl, "ID3D12CommandAllocatorVtbl", reset => "Reset"),
        size!(FenceVtbl, "ID3D12FenceVtbl"),
        off!(FenceVtbl, "ID3D12FenceVtbl", get_completed_value => "GetCompletedValue"),
        off!(FenceVtbl, "ID3D12FenceVtbl", set_event_on_completion => "SetEventOnCompletion"),
        size!(ResourceVtbl, "ID3D12ResourceVtbl"),
        off!(ResourceVtbl, "ID3D12ResourceVtbl", map => "Map"),
        off!(ResourceVtbl, "ID3D12ResourceVtbl", unmap => "Unmap"),
        off!(ResourceVtbl, "ID3D12ResourceVtbl", get_desc => "GetDesc"),
        off!(ResourceVtbl, "ID3D12ResourceVtbl", get_gpu_virtual_address => "GetGPUVirtualAddress"),
        size!(DescriptorHeapVtbl, "ID3D12DescriptorHeapVtbl"),
        off!(DescriptorHeapVtbl, "ID3D12DescriptorHeapVtbl", get_cpu_descriptor_handle_for_heap_start => "GetCPUDescriptorHandleForHeapStart"),
        off!(DescriptorHeapVtbl, "ID3D12DescriptorHeapVtbl", get_gpu_descriptor_handle_for_heap_start => "GetGPUDescriptorHandleForHeapStart"),
        size!(RootSignatureVtbl, "ID3D12RootSignatureVtbl"),
        size!(PipelineStateVtbl, "ID3D12PipelineStateVtbl"),
        size!(GraphicsCommandListVtbl, "ID3D12GraphicsCommandListVtbl"),
        off!(GraphicsCommandListVtbl, "ID3D12GraphicsCommandListVtbl", close => "Close"),
        off!(GraphicsCommandListVtbl, "ID3D12GraphicsCommandListVtbl", reset => "Reset"),
        off!(GraphicsCommandListVtbl, "ID3D12GraphicsCommandListVtbl", draw_instanced => "DrawInstanced"),
        off!(GraphicsCommandListVtbl, "ID3D12GraphicsCommandListVtbl", dispatch => "Dispatch"),
        off!(GraphicsCommandListVtbl, "ID3D12GraphicsCommandListVtbl", copy_buffer_region => "CopyBufferRegion"),
        off!(GraphicsCommandListVtbl, "ID3D12GraphicsCommandListVtbl", copy_texture_region => "CopyTextureRegion"),
        off!(GraphicsCommandListVtbl, "ID3D12GraphicsCommandListVtbl", copy_resource => "CopyResource"),
        off!(GraphicsCommandListVtbl, "ID3D12GraphicsCommandListVtbl", resolve_subresource => "ResolveSubresource"),
        off!(GraphicsCommandListVtbl, "ID3D12GraphicsCommandListVtbl", ia_set_primitive_topology => "IASetPrimitiveTopology"),
        off!(GraphicsCommandListVtbl, "ID3D12GraphicsCommandListVtbl", rs_set_viewports => "RSSetViewports"),
        off!(GraphicsCommandListVtbl, "ID3D12GraphicsCommandListVtbl", rs_set_scissor_rects => "RSSetScissorRects"),
        off!(GraphicsCommandListVtbl, "ID3D12GraphicsCommandListVtbl", set_pipeline_state => "SetPipelineState"),
        off!(GraphicsCommandListVtbl, "ID3D12GraphicsCommandListVtbl", resource_barrier => "ResourceBarrier"),
        off!(GraphicsCommandListVtbl, "ID3D12GraphicsCommandListVtbl", set_descriptor_heaps => "SetDescriptorHeaps"),
        off!(GraphicsCommandListVtbl, "ID3D12GraphicsCommandListVtbl", set_compute_root_signature => "SetComputeRootSignature"),
        off!(GraphicsCommandListVtbl, "ID3D12GraphicsCommandListVtbl", set_graphics_root_signature => "SetGraphicsRootSignature"),
        off!(GraphicsCommandListVtbl, "ID3D12GraphicsCommandListVtbl", set_compute_root_descriptor_table => "SetComputeRootDescriptorTable"),
        off!(GraphicsCommandListVtbl, "ID3D12GraphicsCommandListVtbl", set_graphics_root_descriptor_table => "SetGraphicsRootDescriptorTable"),
        off!(GraphicsCommandListVtbl, "ID3D12GraphicsCommandListVtbl", set_compute_root_32bit_constants => "SetComputeRoot32BitConstants"),
        off!(GraphicsCommandListVtbl, "ID3D12GraphicsCommandListVtbl", set_graphics_root_32bit_constants => "SetGraphicsRoot32BitConstants"),
        off!(GraphicsCommandListVtbl, "ID3D12GraphicsCommandListVtbl", set_compute_root_constant_buffer_view => "SetComputeRootConstantBufferView"),
        off!(GraphicsCommandListVtbl, "ID3D12GraphicsCommandListVtbl", set_graphics_root_constant_buffer_view => "SetGraphicsRootConstantBufferView"),
        off!(GraphicsCommandListVtbl, "ID3D12GraphicsCommandListVtbl", ia_set_vertex_buffers => "IASetVertexBuffers"),
        off!(GraphicsCommandListVtbl, "ID3D12GraphicsCommandListVtbl", so_set_targets => "SOSetTargets"),
        off!(GraphicsCommandListVtbl, "ID3D12GraphicsCommandListVtbl", om_set_render_targets => "OMSetRenderTargets"),
        off!(GraphicsCommandListVtbl, "ID3D12GraphicsCommandListVtbl", clear_depth_stencil_view => "ClearDepthStencilView"),
        off!(GraphicsCommandListVtbl, "ID3D12GraphicsCommandListVtbl", clear_render_target_view => "ClearRenderTargetView"),
        off!(GraphicsCommandListVtbl, "ID3D12GraphicsCommandListVtbl", clear_unordered_access_view_uint => "ClearUnorderedAccessViewUint"),
        off!(GraphicsCommandListVtbl, "ID3D12GraphicsCommandListVtbl", clear_unordered_access_view_float => "ClearUnorderedAccessViewFloat"),
        size!(Device2Vtbl, "ID3D12Device2Vtbl"),
        off!(Device2Vtbl, "ID3D12Device2Vtbl", create_pipeline_state => "CreatePipelineState"),
        size!(DepthStencilDesc1, "D3D12_DEPTH_STENCIL_DESC1"),
        off!(DepthStencilDesc1, "D3D12_DEPTH_STENCIL_DESC1", depth_bounds_test_enable => "DepthBoundsTestEnable"),
        size!(RtFormatArray, "struct D3D12_RT_FORMAT_ARRAY"),
        size!(PipelineStateStreamDesc, "D3D12_PIPELINE_STATE_STREAM_DESC"),
        size!(GraphicsCommandList1Vtbl, "ID3D12GraphicsCommandList1Vtbl"),
        off!(GraphicsCommandList1Vtbl, "ID3D12GraphicsCommandList1Vtbl", base.close => "Close"),
        off!(GraphicsCommandList1Vtbl, "ID3D12GraphicsCommandList1Vtbl", om_set_depth_bounds => "OMSetDepthBounds"),
    ];
    // Constants.
    e.extend([
        konst!(FEATURE_LEVEL_11_0, "D3D_FEATURE_LEVEL_11_0"),
        konst!(ROOT_SIGNATURE_VERSION_1_0, "D3D_ROOT_SIGNATURE_VERSION_1_0"),
        konst!(COMMAND_LIST_TYPE_DIRECT, "D3D12_COMMAND_LIST_TYPE_DIRECT"),
        konst!(HEAP_TYPE_DEFAULT, "D3D12_HEAP_TYPE_DEFAULT"),
        konst!(HEAP_TYPE_UPLOAD, "D3D12_HEAP_TYPE_UPLOAD"),
        konst!(HEAP_TYPE_READBACK, "D3D12_HEAP_TYPE_READBACK"),
        konst!(RESOURCE_DIMENSION_BUFFER, "D3D12_RESOURCE_DIMENSION_BUFFER"),
        konst!(
            RESOURCE_DIMENSION_TEXTURE1D,
            "D3D12_RESOURCE_DIMENSION_TEXTURE1D"
        ),
        konst!(
            RESOURCE_DIMENSION_TEXTURE2D,
            "D3D12_RESOURCE_DIMENSION_TEXTURE2D"
        ),
        konst!(
            RESOURCE_DIMENSION_TEXTURE3D,
            "D3D12_RESOURCE_DIMENSION_TEXTURE3D"
        ),
        konst!(TEXTURE_LAYOUT_UNKNOWN, "D3D12_TEXTURE_LAYOUT_UNKNOWN"),
        konst!(TEXTURE_LAYOUT_ROW_MAJOR, "D3D12_TEXTURE_LAYOUT_ROW_MAJOR"),
        konst!(
            RESOURCE_FLAG_ALLOW_RENDER_TARGET,
            "D3D12_RESOURCE_FLAG_ALLOW_RENDER_TARGET"
        ),
        konst!(
            RESOURCE_FLAG_ALLOW_DEPTH_STENCIL,
            "D3D12_RESOURCE_FLAG_ALLOW_DEPTH_STENCIL"
        ),
        konst!(
            RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS,
            "D3D12_RESOURCE_FLAG_ALLOW_UNORDERED_ACCESS"
        ),
        konst!(
            RESOURCE_STATE_RENDER_TARGET,
            "D3D12_RESOURCE_STATE_RENDER_TARGET"
        ),
        konst!(
            RESOURCE_STATE_UNORDERED_ACCESS,
            "D3D12_RESOURCE_STATE_UNORDERED_ACCESS"
        ),
        konst!(
            RESOURCE_STATE_DEPTH_WRITE,
            "D3D12_RESOURCE_STATE_DEPTH_WRITE"
        ),
        konst!(
            RESOURCE_STATE_NON_PIXEL_SHADER_RESOURCE,
            "D3D12_RESOURCE_STATE_NON_PIXEL_SHADER_RESOURCE"
        ),
        konst!(
            RESOURCE_STATE_PIXEL_SHADER_RESOURCE,
            "D3D12_RESOURCE_STATE_PIXEL_SHADER_RESOURCE"
        ),
        konst!(RESOURCE_STATE_STREAM_OUT, "D3D12_RESOURCE_STATE_STREAM_OUT"),
        konst!(RESOURCE_STATE_COPY_DEST, "D3D12_RESOURCE_STATE_COPY_DEST"),
        konst!(
            RESOURCE_STATE_COPY_SOURCE,
            "D3D12_RESOURCE_STATE_COPY_SOURCE"
        ),
        konst!(
            RESOURCE_STATE_RESOLVE_DEST,
            "D3D12_RESOURCE_STATE_RESOLVE_DEST"
        ),
        konst!(
            RESOURCE_STATE_RESOLVE_SOURCE,
            "D3D12_RESOURCE_STATE_RESOLVE_SOURCE"
        ),
        konst!(
            RESOURCE_STATE_GENERIC_READ,
            "D3D12_RESOURCE_STATE_GENERIC_READ"
        ),
        konst!(
            RESOURCE_BARRIER_TYPE_TRANSITION,
            "D3D12_RESOURCE_BARRIER_TYPE_TRANSITION"
        ),
        konst!(RESOURCE_BARRIER_TYPE_UAV, "D3D12_RESOURCE_BARRIER_TYPE_UAV"),
        konst!(
            RESOURCE_BARRIER_ALL_SUBRESOURCES,
            "D3D12_RESOURCE_BARRIER_ALL_SUBRESOURCES"
        ),
        konst!(
            DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV,
            "D3D12_DESCRIPTOR_HEAP_TYPE_CBV_SRV_UAV"
        ),
        konst!(
            DESCRIPTOR_HEAP_TYPE_SAMPLER,
            "D3D12_DESCRIPTOR_HEAP_TYPE_SAMPLER"
        ),
        konst!(DESCRIPTOR_HEAP_TYPE_RTV, "D3D12_DESCRIPTOR_HEAP_TYPE_RTV"),
        konst!(DESCRIPTOR_HEAP_TYPE_DSV, "D3D12_DESCRIPTOR_HEAP_TYPE_DSV"),
        konst!(
            DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE,
            "D3D12_DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE"
        ),
        konst!(SRV_DIMENSION_BUFFER, "D3D12_SRV_DIMENSION_BUFFER"),
        konst!(SRV_DIMENSION_TEXTURE1D, "D3D12_SRV_DIMENSION_TEXTURE1D"),
        konst!(
            SRV_DIMENSION_TEXTURE1DARRAY,
            "D3D12_SRV_DIMENSION_TEXTURE1DARRAY"
        ),
        konst!(SRV_DIMENSION_TEXTURE2D, "D3D12_SRV_DIMENSION_TEXTURE2D"),
        konst!(
            SRV_DIMENSION_TEXTURE2DARRAY,
            "D3D12_SRV_DIMENSION_TEXTURE2DARRAY"
        ),
        konst!(SRV_DIMENSION_TEXTURE2DMS, "D3D12_SRV_DIMENSION_TEXTURE2DMS"),
        konst!(
            SRV_DIMENSION_TEXTURE2DMSARRAY,
            "D3D12_SRV_DIMENSION_TEXTURE2DMSARRAY"
        ),
        konst!(SRV_DIMENSION_TEXTURE3D, "D3D12_SRV_DIMENSION_TEXTURE3D"),
        konst!(SRV_DIMENSION_TEXTURECUBE, "D3D12_SRV_DIMENSION_TEXTURECUBE"),
        konst!(
            SRV_DIMENSION_TEXTURECUBEARRAY,
            "D3D12_SRV_DIMENSION_TEXTURECUBEARRAY"
        ),
        konst!(UAV_DIMENSION_BUFFER, "D3D12_UAV_DIMENSION_BUFFER"),
        konst!(UAV_DIMENSION_TEXTURE1D, "D3D12_UAV_DIMENSION_TEXTURE1D"),
        konst!(
            UAV_DIMENSION_TEXTURE1DARRAY,
            "D3D12_UAV_DIMENSION_TEXTURE1DARRAY"
        ),
        konst!(UAV_DIMENSION_TEXTURE2D, "D3D12_UAV_DIMENSION_TEXTURE2D"),
        konst!(
            UAV_DIMENSION_TEXTURE2DARRAY,
            "D3D12_UAV_DIMENSION_TEXTURE2DARRAY"
        ),
        konst!(UAV_DIMENSION_TEXTURE3D, "D3D12_UAV_DIMENSION_TEXTURE3D"),
        konst!(BUFFER_FLAG_RAW, "D3D12_BUFFER_SRV_FLAG_RAW"),
        konst!(BUFFER_FLAG_RAW, "D3D12_BUFFER_UAV_FLAG_RAW"),
        konst!(
            DEFAULT_SHADER_4_COMPONENT_MAPPING,
            "D3D12_DEFAULT_SHADER_4_COMPONENT_MAPPING"
        ),
        konst!(DESCRIPTOR_RANGE_TYPE_SRV, "D3D12_DESCRIPTOR_RANGE_TYPE_SRV"),
        konst!(DESCRIPTOR_RANGE_TYPE_UAV, "D3D12_DESCRIPTOR_RANGE_TYPE_UAV"),
        konst!(DESCRIPTOR_RANGE_TYPE_CBV, "D3D12_DESCRIPTOR_RANGE_TYPE_CBV"),
        konst!(
            DESCRIPTOR_RANGE_TYPE_SAMPLER,
            "D3D12_DESCRIPTOR_RANGE_TYPE_SAMPLER"
        ),
        konst!(
            ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE,
            "D3D12_ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE"
        ),
        konst!(
            ROOT_PARAMETER_TYPE_32BIT_CONSTANTS,
            "D3D12_ROOT_PARAMETER_TYPE_32BIT_CONSTANTS"
        ),
        konst!(ROOT_PARAMETER_TYPE_CBV, "D3D12_ROOT_PARAMETER_TYPE_CBV"),
        konst!(SHADER_VISIBILITY_ALL, "D3D12_SHADER_VISIBILITY_ALL"),
        konst!(
            ROOT_SIGNATURE_FLAG_ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT,
            "D3D12_ROOT_SIGNATURE_FLAG_ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT"
        ),
        konst!(
            ROOT_SIGNATURE_FLAG_ALLOW_STREAM_OUTPUT,
            "D3D12_ROOT_SIGNATURE_FLAG_ALLOW_STREAM_OUTPUT"
        ),
        konst!(
            FILTER_REDUCTION_TYPE_COMPARISON,
            "D3D12_FILTER_REDUCTION_TYPE_COMPARISON"
        ),
        konst!(
            FILTER_REDUCTION_TYPE_MINIMUM,
            "D3D12_FILTER_REDUCTION_TYPE_MINIMUM"
        ),
        konst!(
            FILTER_REDUCTION_TYPE_MAXIMUM,
            "D3D12_FILTER_REDUCTION_TYPE_MAXIMUM"
        ),
        konst!(FILTER_MIN_MAG_MIP_LINEAR, "D3D12_FILTER_MIN_MAG_MIP_LINEAR"),
        konst!(0x95, "D3D12_FILTER_COMPARISON_MIN_MAG_MIP_LINEAR"),
        konst!(0x184, "D3D12_FILTER_MAXIMUM_MIN_POINT_MAG_LINEAR_MIP_POINT"),
        konst!(TEXTURE_ADDRESS_MODE_WRAP, "D3D12_TEXTURE_ADDRESS_MODE_WRAP"),
        konst!(
            TEXTURE_ADDRESS_MODE_MIRROR,
            "D3D12_TEXTURE_ADDRESS_MODE_MIRROR"
        ),
        konst!(
            TEXTURE_ADDRESS_MODE_CLAMP,
            "D3D12_TEXTURE_ADDRESS_MODE_CLAMP"
        ),
        konst!(
            TEXTURE_ADDRESS_MODE_BORDER,
            "D3D12_TEXTURE_ADDRESS_MODE_BORDER"
        ),
        konst!(
            TEXTURE_ADDRESS_MODE_MIRROR_ONCE,
            "D3D12_TEXTURE_ADDRESS_MODE_MIRROR_ONCE"
        ),
        konst!(COMPARISON_FUNC_NEVER, "D3D12_COMPARISON_FUNC_NEVER"),
        konst!(COMPARISON_FUNC_ALWAYS, "D3D12_COMPARISON_FUNC_ALWAYS"),
        konst!(
            TEXTURE_COPY_TYPE_SUBRESOURCE_INDEX,
            "D3D12_TEXTURE_COPY_TYPE_SUBRESOURCE_INDEX"
        ),
        konst!(
            TEXTURE_COPY_TYPE_PLACED_FOOTPRINT,
            "D3D12_TEXTURE_COPY_TYPE_PLACED_FOOTPRINT"
        ),
        konst!(FILL_MODE_SOLID, "D3D12_FILL_MODE_SOLID"),
        konst!(CULL_MODE_NONE, "D3D12_CULL_MODE_NONE"),
        konst!(DEPTH_WRITE_MASK_ALL, "D3D12_DEPTH_WRITE_MASK_ALL"),
        konst!(COLOR_WRITE_ENABLE_ALL, "D3D12_COLOR_WRITE_ENABLE_ALL"),
        konst!(BLEND_ZERO, "D3D12_BLEND_ZERO"),
        konst!(BLEND_ONE, "D3D12_BLEND_ONE"),
        konst!(BLEND_SRC1_COLOR, "D3D12_BLEND_SRC1_COLOR"),
        konst!(BLEND_SRC1_ALPHA, "D3D12_BLEND_SRC1_ALPHA"),
        konst!(BLEND_OP_ADD, "D3D12_BLEND_OP_ADD"),
        konst!(LOGIC_OP_NOOP, "D3D12_LOGIC_OP_NOOP"),
        konst!(STENCIL_OP_KEEP, "D3D12_STENCIL_OP_KEEP"),
        konst!(
            INPUT_CLASSIFICATION_PER_VERTEX_DATA,
            "D3D12_INPUT_CLASSIFICATION_PER_VERTEX_DATA"
        ),
        konst!(APPEND_ALIGNED_ELEMENT, "D3D12_APPEND_ALIGNED_ELEMENT"),
        konst!(
            PRIMITIVE_TOPOLOGY_TYPE_POINT,
            "D3D12_PRIMITIVE_TOPOLOGY_TYPE_POINT"
        ),
        konst!(
            PRIMITIVE_TOPOLOGY_TYPE_LINE,
            "D3D12_PRIMITIVE_TOPOLOGY_TYPE_LINE"
        ),
        konst!(
            PRIMITIVE_TOPOLOGY_TYPE_TRIANGLE,
            "D3D12_PRIMITIVE_TOPOLOGY_TYPE_TRIANGLE"
        ),
        konst!(
            PRIMITIVE_TOPOLOGY_TYPE_PATCH,
            "D3D12_PRIMITIVE_TOPOLOGY_TYPE_PATCH"
        ),
        konst!(
            PRIMITIVE_TOPOLOGY_POINTLIST,
            "D3D_PRIMITIVE_TOPOLOGY_POINTLIST"
        ),
        konst!(
            PRIMITIVE_TOPOLOGY_LINELIST,
            "D3D_PRIMITIVE_TOPOLOGY_LINELIST"
        ),
        konst!(
            PRIMITIVE_TOPOLOGY_LINESTRIP,
            "D3D_PRIMITIVE_TOPOLOGY_LINESTRIP"
        ),
        konst!(
            PRIMITIVE_TOPOLOGY_TRIANGLELIST,
            "D3D_PRIMITIVE_TOPOLOGY_TRIANGLELIST"
        ),
        konst!(
            PRIMITIVE_TOPOLOGY_TRIANGLESTRIP,
            "D3D_PRIMITIVE_TOPOLOGY_TRIANGLESTRIP"
        ),
        konst!(
            PRIMITIVE_TOPOLOGY_1_CONTROL_POINT_PATCHLIST,
            "D3D_PRIMITIVE_TOPOLOGY_1_CONTROL_POINT_PATCHLIST"
        ),
        konst!(
            PRIMITIVE_TOPOLOGY_1_CONTROL_POINT_PATCHLIST + 31,
            "D3D_PRIMITIVE_TOPOLOGY_32_CONTROL_POINT_PATCHLIST"
        ),
        konst!(CLEAR_FLAG_DEPTH, "D3D12_CLEAR_FLAG_DEPTH"),
        konst!(
            SUBOBJECT_ROOT_SIGNATURE,
            "D3D12_PIPELINE_STATE_SUBOBJECT_TYPE_ROOT_SIGNATURE"
        ),
        konst!(SUBOBJECT_VS, "D3D12_PIPELINE_STATE_SUBOBJECT_TYPE_VS"),
        konst!(SUBOBJECT_PS, "D3D12_PIPELINE_STATE_SUBOBJECT_TYPE_PS"),
        konst!(SUBOBJECT_DS, "D3D12_PIPELINE_STATE_SUBOBJECT_TYPE_DS"),
        konst!(SUBOBJECT_HS, "D3D12_PIPELINE_STATE_SUBOBJECT_TYPE_HS"),
        konst!(SUBOBJECT_GS, "D3D12_PIPELINE_STATE_SUBOBJECT_TYPE_GS"),
        konst!(
            SUBOBJECT_STREAM_OUTPUT,
            "D3D12_PIPELINE_STATE_SUBOBJECT_TYPE_STREAM_OUTPUT"
        ),
        konst!(SUBOBJECT_BLEND, "D3D12_PIPELINE_STATE_SUBOBJECT_TYPE_BLEND"),
        konst!(
            SUBOBJECT_SAMPLE_MASK,
            "D3D12_PIPELINE_STATE_SUBOBJECT_TYPE_SAMPLE_MASK"
        ),
        konst!(
            SUBOBJECT_RASTERIZER,
            "D3D12_PIPELINE_STATE_SUBOBJECT_TYPE_RASTERIZER"
        ),
        konst!(
            SUBOBJECT_INPUT_LAYOUT,
            "D3D12_PIPELINE_STATE_SUBOBJECT_TYPE_INPUT_LAYOUT"
        ),
        konst!(
            SUBOBJECT_PRIMITIVE_TOPOLOGY,
            "D3D12_PIPELINE_STATE_SUBOBJECT_TYPE_PRIMITIVE_TOPOLOGY"
        ),
        konst!(
            SUBOBJECT_RENDER_TARGET_FORMATS,
            "D3D12_PIPELINE_STATE_SUBOBJECT_TYPE_RENDER_TARGET_FORMATS"
        ),
        konst!(
            SUBOBJECT_DEPTH_STENCIL_FORMAT,
            "D3D12_PIPELINE_STATE_SUBOBJECT_TYPE_DEPTH_STENCIL_FORMAT"
        ),
        konst!(
            SUBOBJECT_SAMPLE_DESC,
            "D3D12_PIPELINE_STATE_SUBOBJECT_TYPE_SAMPLE_DESC"
        ),
        konst!(
            SUBOBJECT_DEPTH_STENCIL1,
            "D3D12_PIPELINE_STATE_SUBOBJECT_TYPE_DEPTH_STENCIL1"
        ),
        konst!(FEATURE_D3D12_OPTIONS, "D3D12_FEATURE_D3D12_OPTIONS"),
        konst!(FEATURE_FORMAT_SUPPORT, "D3D12_FEATURE_FORMAT_SUPPORT"),
        konst!(FEATURE_D3D12_OPTIONS1, "D3D12_FEATURE_D3D12_OPTIONS1"),
        konst!(FEATURE_D3D12_OPTIONS2, "D3D12_FEATURE_D3D12_OPTIONS2"),
        konst!(
            FORMAT_SUPPORT1_TYPED_UNORDERED_ACCESS_VIEW,
            "D3D12_FORMAT_SUPPORT1_TYPED_UNORDERED_ACCESS_VIEW"
        ),
        konst!(
            FORMAT_SUPPORT2_UAV_TYPED_LOAD,
            "D3D12_FORMAT_SUPPORT2_UAV_TYPED_LOAD"
        ),
        konst!(FORMAT_UNKNOWN, "DXGI_FORMAT_UNKNOWN"),
        konst!(FORMAT_R32G32B32A32_FLOAT, "DXGI_FORMAT_R32G32B32A32_FLOAT"),
        konst!(FORMAT_R32G32B32A32_UINT, "DXGI_FORMAT_R32G32B32A32_UINT"),
        konst!(FORMAT_R32G32B32A32_SINT, "DXGI_FORMAT_R32G32B32A32_SINT"),
        konst!(FORMAT_R32G32B32_FLOAT, "DXGI_FORMAT_R32G32B32_FLOAT"),
        konst!(FORMAT_R32G32B32_UINT, "DXGI_FORMAT_R32G32B32_UINT"),
        konst!(FORMAT_R32G32B32_SINT, "DXGI_FORMAT_R32G32B32_SINT"),
        konst!(FORMAT_R16G16B16A16_FLOAT, "DXGI_FORMAT_R16G16B16A16_FLOAT"),
        konst!(FORMAT_R16G16B16A16_UNORM, "DXGI_FORMAT_R16G16B16A16_UNORM"),
        konst!(FORMAT_R16G16B16A16_UINT, "DXGI_FORMAT_R16G16B16A16_UINT"),
        konst!(FORMAT_R16G16B16A16_SINT, "DXGI_FORMAT_R16G16B16A16_SINT"),
        konst!(FORMAT_R32G32_FLOAT, "DXGI_FORMAT_R32G32_FLOAT"),
        konst!(FORMAT_R32G32_UINT, "DXGI_FORMAT_R32G32_UINT"),
        konst!(FORMAT_R32G32_SINT, "DXGI_FORMAT_R32G32_SINT"),
        konst!(FORMAT_R8G8B8A8_UNORM, "DXGI_FORMAT_R8G8B8A8_UNORM"),
        konst!(FORMAT_R8G8B8A8_UINT, "DXGI_FORMAT_R8G8B8A8_UINT"),
        konst!(FORMAT_R8G8B8A8_SNORM, "DXGI_FORMAT_R8G8B8A8_SNORM"),
        konst!(FORMAT_R8G8B8A8_SINT, "DXGI_FORMAT_R8G8B8A8_SINT"),
        konst!(FORMAT_R16G16_FLOAT, "DXGI_FORMAT_R16G16_FLOAT"),
        konst!(FORMAT_R32_TYPELESS, "DXGI_FORMAT_R32_TYPELESS"),
        konst!(FORMAT_D32_FLOAT, "DXGI_FORMAT_D32_FLOAT"),
        konst!(FORMAT_R32_FLOAT, "DXGI_FORMAT_R32_FLOAT"),
        konst!(FORMAT_R32_UINT, "DXGI_FORMAT_R32_UINT"),
        konst!(FORMAT_R32_SINT, "DXGI_FORMAT_R32_SINT"),
        konst!(FORMAT_R16_FLOAT, "DXGI_FORMAT_R16_FLOAT"),
        konst!(FORMAT_R16_UINT, "DXGI_FORMAT_R16_UINT"),
        konst!(FORMAT_R8_UNORM, "DXGI_FORMAT_R8_UNORM"),
        konst!(S_OK as u32, "S_OK"),
    ]);
    for (g, c) in [
        (&IID_ID3D12_DEVICE, "IID_ID3D12Device"),
        (&IID_ID3D12_DEVICE2, "IID_ID3D12Device2"),
        (&IID_ID3D12_COMMAND_QUEUE, "IID_ID3D12CommandQueue"),
        (&IID_ID3D12_COMMAND_ALLOCATOR, "IID_ID3D12CommandAllocator"),
        (
            &IID_ID3D12_GRAPHICS_COMMAND_LIST,
            "IID_ID3D12GraphicsCommandList",
        ),
        (
            &IID_ID3D12_GRAPHICS_COMMAND_LIST1,
            "IID_ID3D12GraphicsCommandList1",
        ),
        (&IID_ID3D12_FENCE, "IID_ID3D12Fence"),
        (&IID_ID3D12_RESOURCE, "IID_ID3D12Resource"),
        (&IID_ID3D12_DESCRIPTOR_HEAP, "IID_ID3D12DescriptorHeap"),
        (&IID_ID3D12_ROOT_SIGNATURE, "IID_ID3D12RootSignature"),
        (&IID_ID3D12_PIPELINE_STATE, "IID_ID3D12PipelineState"),
    ] {
        e.extend(iid(g, c));
    }
    e
}

#[test]
fn rust_declarations_match_vkd3d_headers() {
    let entries = entries();
    let inc = match include_dir() {
        Ok(d) => d,
        Err(why) => {
            integration_tests::skip::skip(
                "vkd3d",
                &format!("no vkd3d headers to check the D3D12 FFI layout against: {why}"),
            );
            return;
        }
    };
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("d3d12-layout");
    std::fs::create_dir_all(&dir).expect("temp dir");
    let mut src = String::from(
        "#define INITGUID\n#include <stddef.h>\n#include <stdio.h>\n#include <vkd3d_windows.h>\n#include <vkd3d_d3d12.h>\n\
         int main(void)\n{\n",
    );
    for (c, _) in &entries {
        src.push_str(&format!(
            "    printf(\"%llu\\n\", (unsigned long long)({c}));\n"
        ));
    }
    src.push_str("    return 0;\n}\n");
    let c_file = dir.join("layout.c");
    let exe = dir.join("layout");
    std::fs::write(&c_file, &src).expect("write C");
    let out = match Command::new(&cc)
        .arg("-I")
        .arg(&inc)
        .arg(&c_file)
        .arg("-o")
        .arg(&exe)
        .output()
    {
        Ok(o) => o,
        Err(e) => {
            integration_tests::skip::skip(
                "C toolchain",
                &format!("no C compiler '{cc}' to check the D3D12 FFI layout: {e}"),
            );
            return;
        }
    };
    assert!(
        out.status.success(),
        "the layout program does not compile against {}:\n{}",
        inc.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let out = Command::new(&exe).output().expect("run the layout program");
    assert!(out.status.success());
    let values: Vec<u64> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| l.trim().parse().expect("a number"))
        .collect();
    assert_eq!(values.len(), entries.len());
    let wrong: Vec<String> = entries
        .iter()
        .zip(&values)
        .filter(|((_, rust), c)| rust != *c)
        .map(|((expr, rust), c)| format!("{expr}: C {c}, Rust {rust}"))
        .collect();
    assert!(
        wrong.is_empty(),
        "layouts differ from vkd3d's headers:\n{}",
        wrong.join("\n")
    );
    eprintln!(
        "{} sizes, offsets, constants and IID parts match vkd3d's headers",
        entries.len()
    );
}
