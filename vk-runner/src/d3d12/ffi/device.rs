//! The device and the objects it creates, with safe methods: resources, descriptor heaps and
//! handles, views, samplers, root signatures, pipeline states, and `submit`, which records a
//! command list, runs it and waits for it.

use super::types::*;
use super::vtbl::*;
use super::{Com, Event, Library, Recorder, blob_bytes, create, hresult};
use std::cell::Cell;
use std::ffi::{CString, c_void};
use std::marker::PhantomData;

/// What the device supports, from `CheckFeatureSupport`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Features {
    pub options: FeatureDataOptions,
    pub options1: FeatureDataOptions1,
    /// `None` when the device does not answer for D3D12_OPTIONS2.
    pub options2: Option<FeatureDataOptions2>,
}

/// The Vulkan device vkd3d runs on.
#[derive(Debug, Clone, Default)]
pub struct VulkanInfo {
    pub name: String,
    pub driver_name: String,
    /// `VkPhysicalDeviceDriverProperties::driverInfo` (Mesa: `Mesa 25.0.7 ...`).
    pub driver_info: String,
    pub driver_id: u32,
    pub vendor_id: u32,
    pub api_version: u32,
    /// `shaderDenormFlushToZeroFloat32`: vkd3d can flush fp32 denormals as D3D requires.
    pub denorm_flush_f32: bool,
    /// `samplerFilterMinmax`.
    pub filter_minmax: bool,
    /// `VK_EXT_transform_feedback`'s `transformFeedbackRasterizationStreamSelect`: without it
    /// vkd3d rasterizes stream 0 whatever the pipeline's `RasterizedStream` says.
    pub rasterization_stream_select: bool,
}

/// A D3D12 device from libvkd3d-utils with one direct queue, command allocator and list, and
/// a fence to wait on.
pub struct D3d12 {
    pub features: Features,
    /// The Vulkan device under vkd3d, when vkd3d's API names it.
    pub vulkan: Option<VulkanInfo>,
    event: Event,
    fence_value: Cell<u64>,
    fence: Com<FenceVtbl>,
    list: Com<GraphicsCommandListVtbl>,
    /// The list's `ID3D12GraphicsCommandList1` (depth bounds), when the device has it.
    list1: Option<Com<GraphicsCommandList1Vtbl>>,
    allocator: Com<CommandAllocatorVtbl>,
    queue: Com<CommandQueueVtbl>,
    device: Com<DeviceVtbl>,
    /// The device's `ID3D12Device2` (pipeline state streams), when it has one.
    device2: Option<Com<Device2Vtbl>>,
    /// libvkd3d (for two entry points), never unloaded (see [`Library`]).
    vkd3d: Option<std::mem::ManuallyDrop<libloading::Library>>,
    /// Declared last: unloaded after every object above is released.
    pub lib: Library,
}

/// `INFINITE`: vkd3d's events implement no timed wait (a hung submission is the worker's
/// time limit's business).
const INFINITE: u32 = u32::MAX;

impl D3d12 {
    /// Creates the device (feature level 11.0) and its queue, allocator, list and fence.
    pub fn new(lib: Library) -> Result<D3d12, String> {
        let device: Com<DeviceVtbl> = create("D3D12CreateDevice", |iid, out| {
            // SAFETY: null adapter (the default), a feature level, an IID and an out pointer.
            unsafe { (lib.create_device)(std::ptr::null_mut(), FEATURE_LEVEL_11_0, iid, out) }
        })?;
        let v = device.vtbl();
        let queue_desc = CommandQueueDesc {
            type_: COMMAND_LIST_TYPE_DIRECT,
            ..Default::default()
        };
        let queue: Com<CommandQueueVtbl> = create("CreateCommandQueue", |iid, out| {
            // SAFETY: a valid description and out pointer.
            unsafe { (v.create_command_queue)(device.raw(), &queue_desc, iid, out) }
        })?;
        let allocator: Com<CommandAllocatorVtbl> = create("CreateCommandAllocator", |iid, out| {
            // SAFETY: as above.
            unsafe {
                (v.create_command_allocator)(device.raw(), COMMAND_LIST_TYPE_DIRECT, iid, out)
            }
        })?;
        let list: Com<GraphicsCommandListVtbl> = create("CreateCommandList", |iid, out| {
            // SAFETY: a live allocator, no initial pipeline state.
            unsafe {
                (v.create_command_list)(
                    device.raw(),
                    0,
                    COMMAND_LIST_TYPE_DIRECT,
                    allocator.raw(),
                    std::ptr::null_mut(),
                    iid,
                    out,
                )
            }
        })?;
        // Lists are created open; `submit` resets them.
        // SAFETY: closing an open list.
        unsafe { (list.vtbl().close)(list.raw()) };
        let fence: Com<FenceVtbl> = create("CreateFence", |iid, out| {
            // SAFETY: initial value 0, no flags.
            unsafe { (v.create_fence)(device.raw(), 0, 0, iid, out) }
        })?;
        let event = Event::new(&lib)?;
        let list1 = list.cast();
        let device2 = device.cast();
        let mut d = D3d12 {
            features: Features::default(),
            vulkan: None,
            event,
            fence_value: Cell::new(0),
            fence,
            list,
            list1,
            allocator,
            queue,
            device,
            device2,
            // SAFETY: libvkd3d is already loaded (libvkd3d-utils needs it); this takes one
            // more reference for the two entry points `vulkan_device` uses.
            vkd3d: unsafe { libloading::Library::new("libvkd3d.so.1") }
                .ok()
                .map(std::mem::ManuallyDrop::new),
            lib,
        };
        d.features.options = d.feature(FEATURE_D3D12_OPTIONS).unwrap_or_default();
        d.features.options1 = d.feature(FEATURE_D3D12_OPTIONS1).unwrap_or_default();
        d.features.options2 = d.feature(FEATURE_D3D12_OPTIONS2);
        d.vulkan = d.vulkan_device();
        Ok(d)
    }

    fn v(&self) -> &DeviceVtbl {
        self.device.vtbl()
    }

    /// `CheckFeatureSupport` for a plain-data feature structure.
    fn feature<T: Copy + Default>(&self, feature: u32) -> Option<T> {
        let mut data = T::default();
        // SAFETY: `data` is the structure the feature asks for, of its size.
        let hr = unsafe {
            (self.v().check_feature_support)(
                self.device.raw(),
                feature,
                (&mut data as *mut T).cast(),
                std::mem::size_of::<T>() as u32,
            )
        };
        (hr == S_OK).then_some(data)
    }

    /// `D3D12_FEATURE_FORMAT_SUPPORT` for a DXGI format: (Support1, Support2).
    pub fn format_support(&self, format: u32) -> (u32, u32) {
        let mut data = FeatureDataFormatSupport {
            format,
            ..Default::default()
        };
        // SAFETY: the structure the feature asks for, of its size.
        let hr = unsafe {
            (self.v().check_feature_support)(
                self.device.raw(),
                FEATURE_FORMAT_SUPPORT,
                (&mut data as *mut FeatureDataFormatSupport).cast(),
                std::mem::size_of::<FeatureDataFormatSupport>() as u32,
            )
        };
        if hr == S_OK {
            (data.support1, data.support2)
        } else {
            (0, 0)
        }
    }

    /// The Vulkan physical device vkd3d runs on, through vkd3d's own API and the Vulkan
    /// loader it uses.
    fn vulkan_device(&self) -> Option<VulkanInfo> {
        let lib = self.vkd3d.as_ref()?;
        type GetPhys = unsafe extern "C" fn(*mut c_void) -> ash::vk::PhysicalDevice;
        type FromDevice = unsafe extern "C" fn(*mut c_void) -> *mut c_void;
        type GetInstance = unsafe extern "C" fn(*mut c_void) -> ash::vk::Instance;
        // SAFETY: the symbols have the types vkd3d.h declares; the device is live, and the
        // Vulkan instance and physical device it returns live as long as it does. The
        // instance's functions are loaded from the loader vkd3d itself uses.
        unsafe {
            let get_phys: GetPhys = *lib.get(b"vkd3d_get_vk_physical_device").ok()?;
            let from_device: FromDevice = *lib.get(b"vkd3d_instance_from_device").ok()?;
            let get_instance: GetInstance = *lib.get(b"vkd3d_instance_get_vk_instance").ok()?;
            let phys = get_phys(self.device.raw());
            let instance = get_instance(from_device(self.device.raw()));
            let entry = ash::Entry::load().ok()?;
            let inst = ash::Instance::load(entry.static_fn(), instance);
            let mut driver = ash::vk::PhysicalDeviceDriverProperties::default();
            let mut floats = ash::vk::PhysicalDeviceFloatControlsProperties::default();
            let mut props = ash::vk::PhysicalDeviceProperties2::default()
                .push_next(&mut driver)
                .push_next(&mut floats);
            inst.get_physical_device_properties2(phys, &mut props);
            let p = props.properties;
            // The transform-feedback properties only where the device has the extension.
            let has_xfb = inst
                .enumerate_device_extension_properties(phys)
                .unwrap_or_default()
                .iter()
                .any(|e| e.extension_name_as_c_str() == Ok(ash::ext::transform_feedback::NAME));
            let mut xfb = ash::vk::PhysicalDeviceTransformFeedbackPropertiesEXT::default();
            if has_xfb {
                let mut props = ash::vk::PhysicalDeviceProperties2::default().push_next(&mut xfb);
                inst.get_physical_device_properties2(phys, &mut props);
            }
            let mut f12 = ash::vk::PhysicalDeviceVulkan12Features::default();
            let mut feats = ash::vk::PhysicalDeviceFeatures2::default().push_next(&mut f12);
            inst.get_physical_device_features2(phys, &mut feats);
            let text = |s: Result<&std::ffi::CStr, _>| {
                s.map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default()
            };
            Some(VulkanInfo {
                name: text(p.device_name_as_c_str()),
                driver_name: text(driver.driver_name_as_c_str()),
                driver_info: text(driver.driver_info_as_c_str()),
                driver_id: driver.driver_id.as_raw() as u32,
                vendor_id: p.vendor_id,
                api_version: p.api_version,
                denorm_flush_f32: floats.shader_denorm_flush_to_zero_float32 != 0,
                filter_minmax: f12.sampler_filter_minmax != 0,
                rasterization_stream_select: xfb.transform_feedback_rasterization_stream_select
                    != 0,
            })
        }
    }

    /// Records a command list with `f`, runs it and waits for it. Every object the list
    /// refers to is kept alive (by the recorder) until it has run.
    pub fn submit<T>(
        &self,
        f: impl FnOnce(&mut Recorder) -> Result<T, String>,
    ) -> Result<T, String> {
        let (a, l) = (self.allocator.vtbl(), self.list.vtbl());
        // SAFETY: the previous submission has completed (every submit waits), so the
        // allocator and list can be reset.
        let hr = unsafe { (a.reset)(self.allocator.raw()) };
        if hr != S_OK {
            return Err(format!(
                "ID3D12CommandAllocator::Reset failed ({})",
                hresult(hr)
            ));
        }
        // SAFETY: as above; no initial pipeline state.
        let hr = unsafe { (l.reset)(self.list.raw(), self.allocator.raw(), std::ptr::null_mut()) };
        if hr != S_OK {
            return Err(format!(
                "ID3D12GraphicsCommandList::Reset failed ({})",
                hresult(hr)
            ));
        }
        let mut rec = Recorder::new(self.list.clone(), self.list1.clone());
        let result = f(&mut rec);
        // SAFETY: closing the list that was opened above.
        let hr = unsafe { (l.close)(self.list.raw()) };
        let value = result?;
        if hr != S_OK {
            return Err(format!(
                "ID3D12GraphicsCommandList::Close failed ({})",
                hresult(hr)
            ));
        }
        let lists = [self.list.raw()];
        let next = self.fence_value.get() + 1;
        self.fence_value.set(next);
        // SAFETY: a closed list; the fence is live.
        let hr = unsafe {
            (self.queue.vtbl().execute_command_lists)(self.queue.raw(), 1, lists.as_ptr());
            (self.queue.vtbl().signal)(self.queue.raw(), self.fence.raw(), next)
        };
        if hr != S_OK {
            return Err(format!(
                "ID3D12CommandQueue::Signal failed ({})",
                hresult(hr)
            ));
        }
        self.wait_fence(next)?;
        drop(rec);
        Ok(value)
    }

    fn wait_fence(&self, value: u64) -> Result<(), String> {
        let f = self.fence.vtbl();
        // SAFETY: a live fence and event.
        unsafe {
            if (f.get_completed_value)(self.fence.raw()) >= value {
                return Ok(());
            }
            let hr = (f.set_event_on_completion)(self.fence.raw(), value, self.event.raw());
            if hr != S_OK {
                return Err(format!("SetEventOnCompletion failed ({})", hresult(hr)));
            }
        }
        if !self.event.wait(INFINITE) {
            // SAFETY: a live device.
            let reason = unsafe { (self.v().get_device_removed_reason)(self.device.raw()) };
            return Err(format!(
                "waiting for the GPU failed (device removed reason: {})",
                hresult(reason)
            ));
        }
        Ok(())
    }

    /// `CreateCommittedResource` in a heap of `heap_type`, with no optimized clear value.
    pub fn create_resource(
        &self,
        heap_type: u32,
        desc: &ResourceDesc,
        state: u32,
    ) -> Result<Resource, String> {
        let heap = HeapProperties {
            type_: heap_type,
            ..Default::default()
        };
        let com: Com<ResourceVtbl> = create("CreateCommittedResource", |iid, out| {
            // SAFETY: valid descriptions, no clear value.
            unsafe {
                (self.v().create_committed_resource)(
                    self.device.raw(),
                    &heap,
                    0,
                    desc,
                    state,
                    std::ptr::null(),
                    iid,
                    out,
                )
            }
        })?;
        // SAFETY: a live resource.
        let gpu_va = unsafe { (com.vtbl().get_gpu_virtual_address)(com.raw()) };
        Ok(Resource {
            com,
            desc: *desc,
            gpu_va,
            heap_type,
        })
    }

    /// A buffer of `size` bytes.
    pub fn create_buffer(
        &self,
        heap_type: u32,
        size: u64,
        flags: u32,
        state: u32,
    ) -> Result<Resource, String> {
        let desc = ResourceDesc {
            dimension: RESOURCE_DIMENSION_BUFFER,
            width: size.max(1),
            height: 1,
            depth_or_array_size: 1,
            mip_levels: 1,
            sample_desc: SampleDesc {
                count: 1,
                quality: 0,
            },
            layout: TEXTURE_LAYOUT_ROW_MAJOR,
            flags,
            ..Default::default()
        };
        self.create_resource(heap_type, &desc, state)
    }

    /// `GetCopyableFootprints` for `count` subresources from `first`: their placed
    /// footprints, row counts and the total size.
    pub fn copyable_footprints(
        &self,
        desc: &ResourceDesc,
        first: u32,
        count: u32,
    ) -> (Vec<PlacedSubresourceFootprint>, Vec<u32>, u64) {
        let n = count as usize;
        let mut layouts = vec![PlacedSubresourceFootprint::default(); n];
        let mut rows = vec![0u32; n];
        let mut row_sizes = vec![0u64; n];
        let mut total = 0u64;
        // SAFETY: every output array holds `count` elements.
        unsafe {
            (self.v().get_copyable_footprints)(
                self.device.raw(),
                desc,
                first,
                count,
                0,
                layouts.as_mut_ptr(),
                rows.as_mut_ptr(),
                row_sizes.as_mut_ptr(),
                &mut total,
            )
        };
        (layouts, rows, total)
    }

    /// A descriptor heap of `count` descriptors of `heap_type`.
    pub fn create_heap(
        &self,
        heap_type: u32,
        count: u32,
        shader_visible: bool,
    ) -> Result<DescriptorHeap, String> {
        let desc = DescriptorHeapDesc {
            type_: heap_type,
            num_descriptors: count,
            flags: if shader_visible {
                DESCRIPTOR_HEAP_FLAG_SHADER_VISIBLE
            } else {
                0
            },
            node_mask: 0,
        };
        let com: Com<DescriptorHeapVtbl> = create("CreateDescriptorHeap", |iid, out| {
            // SAFETY: a valid description.
            unsafe { (self.v().create_descriptor_heap)(self.device.raw(), &desc, iid, out) }
        })?;
        let hv = com.vtbl();
        let mut cpu = CpuDescriptorHandle::default();
        let mut gpu = GpuDescriptorHandle::default();
        // SAFETY: a live heap; the handles are written through the pointers given.
        let increment = unsafe {
            (hv.get_cpu_descriptor_handle_for_heap_start)(com.raw(), &mut cpu);
            if shader_visible {
                (hv.get_gpu_descriptor_handle_for_heap_start)(com.raw(), &mut gpu);
            }
            (self.v().get_descriptor_handle_increment_size)(self.device.raw(), heap_type)
        };
        Ok(DescriptorHeap {
            com,
            cpu,
            gpu: shader_visible.then_some(gpu),
            increment,
            count,
        })
    }

    /// `CreateShaderResourceView`; `None` writes a null descriptor of the view's dimension.
    pub fn create_srv(
        &self,
        resource: Option<&Resource>,
        desc: &ShaderResourceViewDesc,
        at: CpuHandle<'_>,
    ) {
        let r = resource.map_or(std::ptr::null_mut(), |r| r.com.raw());
        // SAFETY: a live resource (or null) and a handle inside a live heap.
        unsafe { (self.v().create_shader_resource_view)(self.device.raw(), r, desc, at.raw) };
    }

    /// `CreateUnorderedAccessView`, with an optional counter resource.
    pub fn create_uav(
        &self,
        resource: Option<&Resource>,
        counter: Option<&Resource>,
        desc: &UnorderedAccessViewDesc,
        at: CpuHandle<'_>,
    ) {
        let r = resource.map_or(std::ptr::null_mut(), |r| r.com.raw());
        let c = counter.map_or(std::ptr::null_mut(), |r| r.com.raw());
        // SAFETY: live resources (or null) and a handle inside a live heap.
        unsafe { (self.v().create_unordered_access_view)(self.device.raw(), r, c, desc, at.raw) };
    }

    /// `CreateConstantBufferView` of `size` bytes at `offset` in `buffer` (`None`: a null
    /// view).
    pub fn create_cbv(&self, buffer: Option<(&Resource, u64, u32)>, at: CpuHandle<'_>) {
        let desc = match buffer {
            Some((r, offset, size)) => ConstantBufferViewDesc {
                buffer_location: r.gpu_va + offset,
                size_in_bytes: size,
            },
            None => ConstantBufferViewDesc::default(),
        };
        // SAFETY: the address lies in a live buffer (or is null); a live heap's handle.
        unsafe { (self.v().create_constant_buffer_view)(self.device.raw(), &desc, at.raw) };
    }

    /// `CreateRenderTargetView` with the resource's default view.
    pub fn create_rtv(&self, resource: &Resource, at: CpuHandle<'_>) {
        // SAFETY: a live resource, a null (default) description, a live heap's handle.
        unsafe {
            (self.v().create_render_target_view)(
                self.device.raw(),
                resource.com.raw(),
                std::ptr::null(),
                at.raw,
            )
        };
    }

    /// `CreateDepthStencilView` with the resource's default view.
    pub fn create_dsv(&self, resource: &Resource, at: CpuHandle<'_>) {
        // SAFETY: as for render targets.
        unsafe {
            (self.v().create_depth_stencil_view)(
                self.device.raw(),
                resource.com.raw(),
                std::ptr::null(),
                at.raw,
            )
        };
    }

    /// `CreateSampler`.
    pub fn create_sampler(&self, desc: &SamplerDesc, at: CpuHandle<'_>) {
        // SAFETY: a plain description and a live heap's handle.
        unsafe { (self.v().create_sampler)(self.device.raw(), desc, at.raw) };
    }

    /// Serializes a version 1.0 root signature and creates it.
    pub fn create_root_signature(
        &self,
        params: &[RootParam],
        flags: u32,
    ) -> Result<RootSignature, String> {
        let c_params: Vec<RootParameter> = params
            .iter()
            .map(|p| match p {
                RootParam::Table(ranges) => RootParameter {
                    parameter_type: ROOT_PARAMETER_TYPE_DESCRIPTOR_TABLE,
                    u: RootParameterUnion {
                        descriptor_table: RootDescriptorTable {
                            num_descriptor_ranges: ranges.len() as u32,
                            descriptor_ranges: ranges.as_ptr(),
                        },
                    },
                    shader_visibility: SHADER_VISIBILITY_ALL,
                },
                RootParam::Constants {
                    register,
                    space,
                    count,
                } => RootParameter {
                    parameter_type: ROOT_PARAMETER_TYPE_32BIT_CONSTANTS,
                    u: RootParameterUnion {
                        constants: RootConstants {
                            shader_register: *register,
                            register_space: *space,
                            num_32bit_values: *count,
                        },
                    },
                    shader_visibility: SHADER_VISIBILITY_ALL,
                },
                RootParam::Cbv { register, space } => RootParameter {
                    parameter_type: ROOT_PARAMETER_TYPE_CBV,
                    u: RootParameterUnion {
                        descriptor: RootDescriptor {
                            shader_register: *register,
                            register_space: *space,
                        },
                    },
                    shader_visibility: SHADER_VISIBILITY_ALL,
                },
            })
            .collect();
        let desc = RootSignatureDesc {
            num_parameters: c_params.len() as u32,
            parameters: c_params.as_ptr(),
            num_static_samplers: 0,
            static_samplers: std::ptr::null(),
            flags,
        };
        let mut blob: *mut c_void = std::ptr::null_mut();
        let mut error: *mut c_void = std::ptr::null_mut();
        // SAFETY: the description and the range arrays it points to live across the call.
        let hr = unsafe {
            (self.lib.serialize_root_signature)(
                &desc,
                ROOT_SIGNATURE_VERSION_1_0,
                &mut blob,
                &mut error,
            )
        };
        let bytes = blob_bytes(blob);
        let message = blob_bytes(error).map(|b| {
            String::from_utf8_lossy(&b)
                .trim_end_matches('\0')
                .trim()
                .to_string()
        });
        let bytes = match (hr, bytes) {
            (S_OK, Some(b)) => b,
            (hr, _) => {
                return Err(format!(
                    "D3D12SerializeRootSignature failed ({}){}",
                    hresult(hr),
                    message.map(|m| format!(": {m}")).unwrap_or_default()
                ));
            }
        };
        let com = create("CreateRootSignature", |iid, out| {
            // SAFETY: the serialized bytes live across the call.
            unsafe {
                (self.v().create_root_signature)(
                    self.device.raw(),
                    0,
                    bytes.as_ptr().cast(),
                    bytes.len(),
                    iid,
                    out,
                )
            }
        })?;
        Ok(RootSignature { com })
    }

    /// `CreateComputePipelineState`.
    pub fn create_compute_pso(
        &self,
        root: &RootSignature,
        cs: &[u8],
    ) -> Result<PipelineState, String> {
        let desc = ComputePipelineStateDesc {
            root_signature: root.com.raw(),
            cs: bytecode(Some(cs)),
            node_mask: 0,
            cached_pso: CachedPipelineState {
                cached_blob: std::ptr::null(),
                cached_blob_size_in_bytes: 0,
            },
            flags: 0,
        };
        let com = create("CreateComputePipelineState", |iid, out| {
            // SAFETY: the description and the bytecode live across the call.
            unsafe { (self.v().create_compute_pipeline_state)(self.device.raw(), &desc, iid, out) }
        })?;
        Ok(PipelineState { com })
    }

    /// `CreateGraphicsPipelineState`.
    pub fn create_graphics_pso(&self, p: &GraphicsPso<'_>) -> Result<PipelineState, String> {
        let cstr = |s: &str| {
            CString::new(s).map_err(|_| format!("semantic name '{s}' holds a NUL character"))
        };
        let input_names = p
            .input
            .iter()
            .map(|e| cstr(&e.semantic))
            .collect::<Result<Vec<_>, _>>()?;
        let input: Vec<InputElementDesc> = p
            .input
            .iter()
            .zip(&input_names)
            .map(|(e, name)| InputElementDesc {
                semantic_name: name.as_ptr(),
                semantic_index: e.index,
                format: e.format,
                input_slot: e.slot,
                aligned_byte_offset: e.offset,
                input_slot_class: INPUT_CLASSIFICATION_PER_VERTEX_DATA,
                instance_data_step_rate: 0,
            })
            .collect();
        let so_names = p
            .stream_output
            .iter()
            .map(|e| e.semantic.as_deref().map(cstr).transpose())
            .collect::<Result<Vec<_>, _>>()?;
        let so: Vec<SoDeclarationEntry> = p
            .stream_output
            .iter()
            .zip(&so_names)
            .map(|(e, name)| SoDeclarationEntry {
                stream: e.stream,
                semantic_name: name.as_ref().map_or(std::ptr::null(), |n| n.as_ptr()),
                semantic_index: e.index,
                start_component: e.start_component,
                component_count: e.component_count,
                output_slot: e.slot,
            })
            .collect();
        if p.rtv_formats.len() > 8 {
            return Err(format!(
                "{} render targets (D3D12 has 8)",
                p.rtv_formats.len()
            ));
        }
        let mut rtv_formats = [FORMAT_UNKNOWN; 8];
        rtv_formats[..p.rtv_formats.len()].copy_from_slice(p.rtv_formats);
        let mut blend = BlendDesc::default();
        for rt in &mut blend.render_target {
            *rt = RenderTargetBlendDesc {
                src_blend: BLEND_ONE,
                dest_blend: BLEND_ZERO,
                blend_op: BLEND_OP_ADD,
                src_blend_alpha: BLEND_ONE,
                dest_blend_alpha: BLEND_ZERO,
                blend_op_alpha: BLEND_OP_ADD,
                logic_op: LOGIC_OP_NOOP,
                render_target_write_mask: COLOR_WRITE_ENABLE_ALL,
                ..Default::default()
            };
        }
        if p.dual_source_blending {
            let rt = &mut blend.render_target[0];
            rt.blend_enable = 1;
            rt.src_blend = BLEND_SRC1_COLOR;
            rt.src_blend_alpha = BLEND_SRC1_ALPHA;
        }
        let keep = DepthStencilOpDesc {
            stencil_fail_op: STENCIL_OP_KEEP,
            stencil_depth_fail_op: STENCIL_OP_KEEP,
            stencil_pass_op: STENCIL_OP_KEEP,
            stencil_func: COMPARISON_FUNC_ALWAYS,
        };
        let desc = GraphicsPipelineStateDesc {
            root_signature: p.root.com.raw(),
            vs: bytecode(Some(p.vs)),
            ps: bytecode(p.ps),
            ds: bytecode(p.ds),
            hs: bytecode(p.hs),
            gs: bytecode(p.gs),
            stream_output: StreamOutputDesc {
                so_declaration: if so.is_empty() {
                    std::ptr::null()
                } else {
                    so.as_ptr()
                },
                num_entries: so.len() as u32,
                buffer_strides: if p.so_strides.is_empty() {
                    std::ptr::null()
                } else {
                    p.so_strides.as_ptr()
                },
                num_strides: p.so_strides.len() as u32,
                rasterized_stream: p.rasterized_stream,
            },
            blend_state: blend,
            sample_mask: p.sample_mask,
            rasterizer_state: RasterizerDesc {
                fill_mode: FILL_MODE_SOLID,
                cull_mode: CULL_MODE_NONE,
                depth_clip_enable: 1,
                ..Default::default()
            },
            depth_stencil_state: DepthStencilDesc {
                depth_enable: i32::from(p.dsv_format != FORMAT_UNKNOWN),
                depth_write_mask: DEPTH_WRITE_MASK_ALL,
                depth_func: p.depth_func,
                stencil_enable: 0,
                stencil_read_mask: 0xff,
                stencil_write_mask: 0xff,
                front_face: keep,
                back_face: keep,
            },
            input_layout: InputLayoutDesc {
                input_element_descs: if input.is_empty() {
                    std::ptr::null()
                } else {
                    input.as_ptr()
                },
                num_elements: input.len() as u32,
            },
            ib_strip_cut_value: 0,
            primitive_topology_type: p.topology_type,
            num_render_targets: p.rtv_formats.len() as u32,
            rtv_formats,
            dsv_format: p.dsv_format,
            sample_desc: SampleDesc {
                count: p.sample_count,
                quality: 0,
            },
            node_mask: 0,
            cached_pso: CachedPipelineState {
                cached_blob: std::ptr::null(),
                cached_blob_size_in_bytes: 0,
            },
            flags: 0,
        };
        if p.depth_bounds {
            return self.create_pso_stream(&desc);
        }
        let com = create("CreateGraphicsPipelineState", |iid, out| {
            // SAFETY: the description and every array and string it points to live across
            // the call.
            unsafe { (self.v().create_graphics_pipeline_state)(self.device.raw(), &desc, iid, out) }
        })?;
        Ok(PipelineState { com })
    }

    /// The pipeline state of `desc` with the depth-bounds test on: a pipeline state stream
    /// (`ID3D12Device2::CreatePipelineState`) with `D3D12_DEPTH_STENCIL_DESC1`, the only way
    /// D3D12 turns that test on.
    fn create_pso_stream(&self, desc: &GraphicsPipelineStateDesc) -> Result<PipelineState, String> {
        let d2 = self
            .device2
            .as_ref()
            .ok_or("the device has no ID3D12Device2 (pipeline state streams)")?;
        let mut stream = Vec::<u8>::new();
        fn push<T: Copy>(stream: &mut Vec<u8>, type_: u32, inner: T) {
            let sub = Subobject { type_, inner };
            // SAFETY: a plain-data structure viewed as its bytes (padding included, which
            // the reader skips).
            let bytes = unsafe {
                std::slice::from_raw_parts(
                    (&sub as *const Subobject<T>).cast::<u8>(),
                    std::mem::size_of::<Subobject<T>>(),
                )
            };
            stream.extend_from_slice(bytes);
        }
        push(&mut stream, SUBOBJECT_ROOT_SIGNATURE, desc.root_signature);
        for (t, code) in [
            (SUBOBJECT_VS, desc.vs),
            (SUBOBJECT_PS, desc.ps),
            (SUBOBJECT_DS, desc.ds),
            (SUBOBJECT_HS, desc.hs),
            (SUBOBJECT_GS, desc.gs),
        ] {
            if !code.shader_bytecode.is_null() {
                push(&mut stream, t, code);
            }
        }
        push(&mut stream, SUBOBJECT_STREAM_OUTPUT, desc.stream_output);
        push(&mut stream, SUBOBJECT_BLEND, desc.blend_state);
        push(&mut stream, SUBOBJECT_SAMPLE_MASK, desc.sample_mask);
        push(&mut stream, SUBOBJECT_RASTERIZER, desc.rasterizer_state);
        push(
            &mut stream,
            SUBOBJECT_DEPTH_STENCIL1,
            DepthStencilDesc1 {
                desc: desc.depth_stencil_state,
                depth_bounds_test_enable: 1,
            },
        );
        push(&mut stream, SUBOBJECT_INPUT_LAYOUT, desc.input_layout);
        push(
            &mut stream,
            SUBOBJECT_PRIMITIVE_TOPOLOGY,
            desc.primitive_topology_type,
        );
        push(
            &mut stream,
            SUBOBJECT_RENDER_TARGET_FORMATS,
            RtFormatArray {
                rt_formats: desc.rtv_formats,
                num_render_targets: desc.num_render_targets,
            },
        );
        push(&mut stream, SUBOBJECT_DEPTH_STENCIL_FORMAT, desc.dsv_format);
        push(&mut stream, SUBOBJECT_SAMPLE_DESC, desc.sample_desc);
        let sd = PipelineStateStreamDesc {
            size_in_bytes: stream.len(),
            pipeline_state_subobject_stream: stream.as_mut_ptr().cast(),
        };
        let com = create("CreatePipelineState", |iid, out| {
            // SAFETY: the stream and everything its subobjects point to live across the call.
            unsafe { (d2.vtbl().create_pipeline_state)(d2.raw(), &sd, iid, out) }
        })?;
        Ok(PipelineState { com })
    }
}

fn bytecode(code: Option<&[u8]>) -> ShaderBytecode {
    match code {
        Some(c) if !c.is_empty() => ShaderBytecode {
            shader_bytecode: c.as_ptr().cast(),
            bytecode_length: c.len(),
        },
        _ => ShaderBytecode::NONE,
    }
}

/// A committed resource.
#[derive(Clone)]
pub struct Resource {
    pub(super) com: Com<ResourceVtbl>,
    pub desc: ResourceDesc,
    pub gpu_va: u64,
    pub heap_type: u32,
}

impl Resource {
    /// Copies `data` to `offset` of a buffer in an upload heap.
    pub fn write(&self, offset: u64, data: &[u8]) -> Result<(), String> {
        if self.heap_type != HEAP_TYPE_UPLOAD || self.desc.dimension != RESOURCE_DIMENSION_BUFFER {
            return Err("only upload-heap buffers are written by the CPU".into());
        }
        if offset + data.len() as u64 > self.desc.width {
            return Err("write past the end of the buffer".into());
        }
        if data.is_empty() {
            return Ok(());
        }
        let mut p: *mut c_void = std::ptr::null_mut();
        let none = Range::default();
        let v = self.com.vtbl();
        // SAFETY: mapping subresource 0 of a live upload buffer; the copy stays inside the
        // buffer (checked above).
        unsafe {
            let hr = (v.map)(self.com.raw(), 0, &none, &mut p);
            if hr != S_OK || p.is_null() {
                return Err(format!("ID3D12Resource::Map failed ({})", hresult(hr)));
            }
            std::ptr::copy_nonoverlapping(
                data.as_ptr(),
                p.cast::<u8>().add(offset as usize),
                data.len(),
            );
            (v.unmap)(self.com.raw(), 0, std::ptr::null());
        }
        Ok(())
    }

    /// Reads the whole of a buffer in a readback heap.
    pub fn read(&self) -> Result<Vec<u8>, String> {
        if self.heap_type != HEAP_TYPE_READBACK || self.desc.dimension != RESOURCE_DIMENSION_BUFFER
        {
            return Err("only readback-heap buffers are read by the CPU".into());
        }
        let size = self.desc.width as usize;
        let mut p: *mut c_void = std::ptr::null_mut();
        let whole = Range {
            begin: 0,
            end: size,
        };
        let none = Range::default();
        let v = self.com.vtbl();
        // SAFETY: mapping a live readback buffer of `size` bytes and copying them out.
        unsafe {
            let hr = (v.map)(self.com.raw(), 0, &whole, &mut p);
            if hr != S_OK || p.is_null() {
                return Err(format!("ID3D12Resource::Map failed ({})", hresult(hr)));
            }
            let out = std::slice::from_raw_parts(p.cast::<u8>(), size).to_vec();
            (v.unmap)(self.com.raw(), 0, &none);
            Ok(out)
        }
    }
}

/// A descriptor heap and where its descriptors start.
pub struct DescriptorHeap {
    pub(super) com: Com<DescriptorHeapVtbl>,
    cpu: CpuDescriptorHandle,
    gpu: Option<GpuDescriptorHandle>,
    increment: u32,
    pub count: u32,
}

/// A CPU handle of a descriptor inside a heap that outlives it.
#[derive(Clone, Copy)]
pub struct CpuHandle<'h> {
    pub(super) raw: CpuDescriptorHandle,
    _heap: PhantomData<&'h DescriptorHeap>,
}

/// A GPU handle of a descriptor in a shader-visible heap that outlives it.
#[derive(Clone, Copy)]
pub struct GpuHandle<'h> {
    pub(super) raw: GpuDescriptorHandle,
    /// The heap's object, which the recorder checks is bound.
    pub(super) heap: *mut c_void,
    _heap: PhantomData<&'h DescriptorHeap>,
}

impl DescriptorHeap {
    /// The CPU handle of descriptor `i`.
    pub fn cpu(&self, i: u32) -> Result<CpuHandle<'_>, String> {
        if i >= self.count {
            return Err(format!(
                "descriptor {i} is outside a heap of {}",
                self.count
            ));
        }
        Ok(CpuHandle {
            raw: CpuDescriptorHandle {
                ptr: self.cpu.ptr + i as usize * self.increment as usize,
            },
            _heap: PhantomData,
        })
    }

    /// The GPU handle of descriptor `i` (shader-visible heaps only).
    pub fn gpu(&self, i: u32) -> Result<GpuHandle<'_>, String> {
        let start = self
            .gpu
            .ok_or("a descriptor table needs a shader-visible heap")?;
        if i >= self.count {
            return Err(format!(
                "descriptor {i} is outside a heap of {}",
                self.count
            ));
        }
        Ok(GpuHandle {
            raw: GpuDescriptorHandle {
                ptr: start.ptr + u64::from(i) * u64::from(self.increment),
            },
            heap: self.com.raw(),
            _heap: PhantomData,
        })
    }
}

/// A root signature.
pub struct RootSignature {
    pub(super) com: Com<RootSignatureVtbl>,
}

/// A pipeline state object.
pub struct PipelineState {
    pub(super) com: Com<PipelineStateVtbl>,
}

/// One root parameter, visible to every stage.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RootParam {
    Table(Vec<DescriptorRange>),
    Constants {
        register: u32,
        space: u32,
        count: u32,
    },
    Cbv {
        register: u32,
        space: u32,
    },
}

/// One input-layout element (per-vertex data).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputElement {
    pub semantic: String,
    pub index: u32,
    pub format: u32,
    pub slot: u32,
    /// Byte offset in the slot's vertex (or `APPEND_ALIGNED_ELEMENT`).
    pub offset: u32,
}

/// One stream-output declaration entry; `semantic: None` is a gap.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SoEntry {
    pub stream: u32,
    pub semantic: Option<String>,
    pub index: u32,
    pub start_component: u8,
    pub component_count: u8,
    pub slot: u8,
}

/// What a graphics pipeline state is made from.
pub struct GraphicsPso<'a> {
    pub root: &'a RootSignature,
    pub vs: &'a [u8],
    pub hs: Option<&'a [u8]>,
    pub ds: Option<&'a [u8]>,
    pub gs: Option<&'a [u8]>,
    pub ps: Option<&'a [u8]>,
    pub input: &'a [InputElement],
    pub stream_output: &'a [SoEntry],
    pub so_strides: &'a [u32],
    /// `D3D12_SO_NO_RASTERIZED_STREAM` (`u32::MAX`) or a stream.
    pub rasterized_stream: u32,
    pub topology_type: u32,
    pub rtv_formats: &'a [u32],
    /// `FORMAT_UNKNOWN`: no depth buffer.
    pub dsv_format: u32,
    pub depth_func: u32,
    pub sample_count: u32,
    pub sample_mask: u32,
    /// The depth-bounds test on (through a pipeline state stream).
    pub depth_bounds: bool,
    /// Render target 0 blends as `src0 × src1` (colour and alpha): dual-source blending.
    pub dual_source_blending: bool,
}
