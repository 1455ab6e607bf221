//! The COM interfaces the executor calls, as C vtables in vkd3d's slot order (`vkd3d_d3d12.h`'s
//! `ID3D12*Vtbl` structs, `vkd3d_d3dcommon.h`'s `ID3D10BlobVtbl`). Every slot is declared, in
//! order; the ones the executor never calls are placeholders of pointer size (`Slot`), so
//! the offsets of the called ones are right. On x86-64 the methods use the Microsoft calling
//! convention (vkd3d's `STDMETHODCALLTYPE` is `__attribute__((ms_abi))` there); elsewhere the
//! C one. Methods returning a structure take a pointer to it, as vkd3d's C vtables declare.

use super::types::*;
use std::ffi::c_void;

/// A method pointer type with vkd3d's COM calling convention.
#[cfg(target_arch = "x86_64")]
macro_rules! com_fn {
    (($($arg:ty),*) $(-> $ret:ty)?) => { unsafe extern "win64" fn($($arg),*) $(-> $ret)? };
}
#[cfg(not(target_arch = "x86_64"))]
macro_rules! com_fn {
    (($($arg:ty),*) $(-> $ret:ty)?) => { unsafe extern "C" fn($($arg),*) $(-> $ret)? };
}
pub(crate) use com_fn;

/// A vtable slot the executor does not call.
pub type Slot = usize;

type This = *mut c_void;
type Riid = *const Guid;
type Out = *mut *mut c_void;

/// A COM object: a pointer to its vtable.
#[repr(C)]
pub struct Object<V> {
    pub vtbl: *const V,
}

/// `IUnknown` + `ID3D12Object` + `ID3D12DeviceChild` slots, the head of every interface here
/// but the device (which has no `GetDevice`) and blobs (which have only `IUnknown`).
#[repr(C)]
pub struct UnknownVtbl {
    pub query_interface: com_fn!((This, Riid, Out) -> i32),
    pub add_ref: com_fn!((This) -> u32),
    pub release: com_fn!((This) -> u32),
}

/// `ID3D12Object`'s slots after `IUnknown`'s: GetPrivateData, SetPrivateData,
/// SetPrivateDataInterface, SetName.
#[repr(C)]
pub struct ObjectSlots {
    pub get_private_data: Slot,
    pub set_private_data: Slot,
    pub set_private_data_interface: Slot,
    pub set_name: Slot,
}

/// `ID3D10BlobVtbl` (`ID3DBlob`).
#[repr(C)]
pub struct BlobVtbl {
    pub unknown: UnknownVtbl,
    pub get_buffer_pointer: com_fn!((This) -> *mut c_void),
    pub get_buffer_size: com_fn!((This) -> usize),
}

/// `ID3D12DeviceVtbl`.
#[repr(C)]
pub struct DeviceVtbl {
    pub unknown: UnknownVtbl,
    pub object: ObjectSlots,
    pub get_node_count: Slot,
    pub create_command_queue: com_fn!((This, *const CommandQueueDesc, Riid, Out) -> i32),
    pub create_command_allocator: com_fn!((This, u32, Riid, Out) -> i32),
    pub create_graphics_pipeline_state: com_fn!((This, *const GraphicsPipelineStateDesc, Riid, Out) -> i32),
    pub create_compute_pipeline_state: com_fn!((This, *const ComputePipelineStateDesc, Riid, Out) -> i32),
    pub create_command_list: com_fn!((This, u32, u32, *mut c_void, *mut c_void, Riid, Out) -> i32),
    pub check_feature_support: com_fn!((This, u32, *mut c_void, u32) -> i32),
    pub create_descriptor_heap: com_fn!((This, *const DescriptorHeapDesc, Riid, Out) -> i32),
    pub get_descriptor_handle_increment_size: com_fn!((This, u32) -> u32),
    pub create_root_signature: com_fn!((This, u32, *const c_void, usize, Riid, Out) -> i32),
    pub create_constant_buffer_view:
        com_fn!((This, *const ConstantBufferViewDesc, CpuDescriptorHandle)),
    pub create_shader_resource_view: com_fn!((
        This,
        *mut c_void,
        *const ShaderResourceViewDesc,
        CpuDescriptorHandle
    )),
    pub create_unordered_access_view: com_fn!((
        This,
        *mut c_void,
        *mut c_void,
        *const UnorderedAccessViewDesc,
        CpuDescriptorHandle
    )),
    pub create_render_target_view: com_fn!((This, *mut c_void, *const c_void, CpuDescriptorHandle)),
    pub create_depth_stencil_view: com_fn!((This, *mut c_void, *const c_void, CpuDescriptorHandle)),
    pub create_sampler: com_fn!((This, *const SamplerDesc, CpuDescriptorHandle)),
    pub copy_descriptors: Slot,
    pub copy_descriptors_simple: Slot,
    pub get_resource_allocation_info: Slot,
    pub get_custom_heap_properties: Slot,
    pub create_committed_resource: com_fn!((
        This,
        *const HeapProperties,
        u32,
        *const ResourceDesc,
        u32,
        *const c_void,
        Riid,
        Out
    ) -> i32),
    pub create_heap: Slot,
    pub create_placed_resource: Slot,
    pub create_reserved_resource: Slot,
    pub create_shared_handle: Slot,
    pub open_shared_handle: Slot,
    pub open_shared_handle_by_name: Slot,
    pub make_resident: Slot,
    pub evict: Slot,
    pub create_fence: com_fn!((This, u64, u32, Riid, Out) -> i32),
    pub get_device_removed_reason: com_fn!((This) -> i32),
    pub get_copyable_footprints: com_fn!((
        This,
        *const ResourceDesc,
        u32,
        u32,
        u64,
        *mut PlacedSubresourceFootprint,
        *mut u32,
        *mut u64,
        *mut u64
    )),
    pub create_query_heap: Slot,
    pub set_stable_power_state: Slot,
    pub create_command_signature: Slot,
    pub get_resource_tiling: Slot,
    pub get_adapter_luid: Slot,
}

/// `ID3D12CommandQueueVtbl`.
#[repr(C)]
pub struct CommandQueueVtbl {
    pub unknown: UnknownVtbl,
    pub object: ObjectSlots,
    pub get_device: Slot,
    pub update_tile_mappings: Slot,
    pub copy_tile_mappings: Slot,
    pub execute_command_lists: com_fn!((This, u32, *const *mut c_void)),
    pub set_marker: Slot,
    pub begin_event: Slot,
    pub end_event: Slot,
    pub signal: com_fn!((This, *mut c_void, u64) -> i32),
    pub wait: Slot,
    pub get_timestamp_frequency: Slot,
    pub get_clock_calibration: Slot,
    pub get_desc: Slot,
}

/// `ID3D12CommandAllocatorVtbl`.
#[repr(C)]
pub struct CommandAllocatorVtbl {
    pub unknown: UnknownVtbl,
    pub object: ObjectSlots,
    pub get_device: Slot,
    pub reset: com_fn!((This) -> i32),
}

/// `ID3D12FenceVtbl`.
#[repr(C)]
pub struct FenceVtbl {
    pub unknown: UnknownVtbl,
    pub object: ObjectSlots,
    pub get_device: Slot,
    pub get_completed_value: com_fn!((This) -> u64),
    pub set_event_on_completion: com_fn!((This, u64, *mut c_void) -> i32),
    pub signal: Slot,
}

/// `ID3D12ResourceVtbl`.
#[repr(C)]
pub struct ResourceVtbl {
    pub unknown: UnknownVtbl,
    pub object: ObjectSlots,
    pub get_device: Slot,
    pub map: com_fn!((This, u32, *const Range, *mut *mut c_void) -> i32),
    pub unmap: com_fn!((This, u32, *const Range)),
    pub get_desc: com_fn!((This, *mut ResourceDesc) -> *mut ResourceDesc),
    pub get_gpu_virtual_address: com_fn!((This) -> u64),
    pub write_to_subresource: Slot,
    pub read_from_subresource: Slot,
    pub get_heap_properties: Slot,
}

/// `ID3D12DescriptorHeapVtbl`.
#[repr(C)]
pub struct DescriptorHeapVtbl {
    pub unknown: UnknownVtbl,
    pub object: ObjectSlots,
    pub get_device: Slot,
    pub get_desc: Slot,
    pub get_cpu_descriptor_handle_for_heap_start: com_fn!((This, *mut CpuDescriptorHandle) -> *mut CpuDescriptorHandle),
    pub get_gpu_descriptor_handle_for_heap_start: com_fn!((This, *mut GpuDescriptorHandle) -> *mut GpuDescriptorHandle),
}

/// `ID3D12RootSignatureVtbl`.
#[repr(C)]
pub struct RootSignatureVtbl {
    pub unknown: UnknownVtbl,
    pub object: ObjectSlots,
    pub get_device: Slot,
}

/// `ID3D12PipelineStateVtbl`.
#[repr(C)]
pub struct PipelineStateVtbl {
    pub unknown: UnknownVtbl,
    pub object: ObjectSlots,
    pub get_device: Slot,
    pub get_cached_blob: Slot,
}

/// `ID3D12GraphicsCommandListVtbl`.
#[repr(C)]
pub struct GraphicsCommandListVtbl {
    pub unknown: UnknownVtbl,
    pub object: ObjectSlots,
    pub get_device: Slot,
    pub get_type: Slot,
    pub close: com_fn!((This) -> i32),
    pub reset: com_fn!((This, *mut c_void, *mut c_void) -> i32),
    pub clear_state: Slot,
    pub draw_instanced: com_fn!((This, u32, u32, u32, u32)),
    pub draw_indexed_instanced: Slot,
    pub dispatch: com_fn!((This, u32, u32, u32)),
    pub copy_buffer_region: com_fn!((This, *mut c_void, u64, *mut c_void, u64, u64)),
    pub copy_texture_region: com_fn!((
        This,
        *const TextureCopyLocation,
        u32,
        u32,
        u32,
        *const TextureCopyLocation,
        *const c_void
    )),
    pub copy_resource: com_fn!((This, *mut c_void, *mut c_void)),
    pub copy_tiles: Slot,
    pub resolve_subresource: com_fn!((This, *mut c_void, u32, *mut c_void, u32, u32)),
    pub ia_set_primitive_topology: com_fn!((This, u32)),
    pub rs_set_viewports: com_fn!((This, u32, *const Viewport)),
    pub rs_set_scissor_rects: com_fn!((This, u32, *const Rect)),
    pub om_set_blend_factor: Slot,
    pub om_set_stencil_ref: Slot,
    pub set_pipeline_state: com_fn!((This, *mut c_void)),
    pub resource_barrier: com_fn!((This, u32, *const ResourceBarrier)),
    pub execute_bundle: Slot,
    pub set_descriptor_heaps: com_fn!((This, u32, *const *mut c_void)),
    pub set_compute_root_signature: com_fn!((This, *mut c_void)),
    pub set_graphics_root_signature: com_fn!((This, *mut c_void)),
    pub set_compute_root_descriptor_table: com_fn!((This, u32, GpuDescriptorHandle)),
    pub set_graphics_root_descriptor_table: com_fn!((This, u32, GpuDescriptorHandle)),
    pub set_compute_root_32bit_constant: Slot,
    pub set_graphics_root_32bit_constant: Slot,
    pub set_compute_root_32bit_constants: com_fn!((This, u32, u32, *const c_void, u32)),
    pub set_graphics_root_32bit_constants: com_fn!((This, u32, u32, *const c_void, u32)),
    pub set_compute_root_constant_buffer_view: com_fn!((This, u32, u64)),
    pub set_graphics_root_constant_buffer_view: com_fn!((This, u32, u64)),
    pub set_compute_root_shader_resource_view: Slot,
    pub set_graphics_root_shader_resource_view: Slot,
    pub set_compute_root_unordered_access_view: Slot,
    pub set_graphics_root_unordered_access_view: Slot,
    pub ia_set_index_buffer: Slot,
    pub ia_set_vertex_buffers: com_fn!((This, u32, u32, *const VertexBufferView)),
    pub so_set_targets: com_fn!((This, u32, u32, *const StreamOutputBufferView)),
    pub om_set_render_targets: com_fn!((
        This,
        u32,
        *const CpuDescriptorHandle,
        i32,
        *const CpuDescriptorHandle
    )),
    pub clear_depth_stencil_view:
        com_fn!((This, CpuDescriptorHandle, u32, f32, u8, u32, *const Rect)),
    pub clear_render_target_view:
        com_fn!((This, CpuDescriptorHandle, *const f32, u32, *const Rect)),
    pub clear_unordered_access_view_uint: com_fn!((
        This,
        GpuDescriptorHandle,
        CpuDescriptorHandle,
        *mut c_void,
        *const u32,
        u32,
        *const Rect
    )),
    pub clear_unordered_access_view_float: com_fn!((
        This,
        GpuDescriptorHandle,
        CpuDescriptorHandle,
        *mut c_void,
        *const f32,
        u32,
        *const Rect
    )),
    pub discard_resource: Slot,
    pub begin_query: Slot,
    pub end_query: Slot,
    pub resolve_query_data: Slot,
    pub set_predication: Slot,
    pub set_marker: Slot,
    pub begin_event: Slot,
    pub end_event: Slot,
    pub execute_indirect: Slot,
}

/// `ID3D12GraphicsCommandList1Vtbl`: the list's slots, then six more.
#[repr(C)]
pub struct GraphicsCommandList1Vtbl {
    pub base: GraphicsCommandListVtbl,
    pub atomic_copy_buffer_uint: Slot,
    pub atomic_copy_buffer_uint64: Slot,
    pub om_set_depth_bounds: com_fn!((This, f32, f32)),
    pub set_sample_positions: Slot,
    pub resolve_subresource_region: Slot,
    pub set_view_instance_mask: Slot,
}

/// `ID3D12Device2Vtbl`: the device's slots, `ID3D12Device1`'s three, then
/// `CreatePipelineState`.
#[repr(C)]
pub struct Device2Vtbl {
    pub base: DeviceVtbl,
    pub create_pipeline_library: Slot,
    pub set_event_on_multiple_fence_completion: Slot,
    pub set_residency_priority: Slot,
    pub create_pipeline_state: com_fn!((This, *const PipelineStateStreamDesc, Riid, Out) -> i32),
}
