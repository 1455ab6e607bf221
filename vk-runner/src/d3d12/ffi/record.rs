//! Recording a graphics command list. The recorder keeps a reference to every object it is
//! given until the list has run (`D3d12::submit` drops it after waiting), so a recorded list
//! never refers to a released object.

use super::Com;
use super::device::{CpuHandle, DescriptorHeap, GpuHandle, PipelineState, Resource, RootSignature};
use super::types::*;
use super::vtbl::*;
use std::ffi::c_void;

/// An open command list.
pub struct Recorder {
    list: Com<GraphicsCommandListVtbl>,
    list1: Option<Com<GraphicsCommandList1Vtbl>>,
    resources: Vec<Com<ResourceVtbl>>,
    heaps: Vec<Com<DescriptorHeapVtbl>>,
    roots: Vec<Com<RootSignatureVtbl>>,
    psos: Vec<Com<PipelineStateVtbl>>,
    /// The heaps `set_descriptor_heaps` bound last.
    bound_heaps: Vec<*mut c_void>,
}

/// Where a texture copy reads or writes: a subresource of a texture, or a placed footprint
/// in a buffer.
pub enum CopyLocation<'a> {
    Subresource(&'a Resource, u32),
    Footprint(&'a Resource, PlacedSubresourceFootprint),
}

impl Recorder {
    pub(super) fn new(
        list: Com<GraphicsCommandListVtbl>,
        list1: Option<Com<GraphicsCommandList1Vtbl>>,
    ) -> Self {
        Recorder {
            list,
            list1,
            resources: Vec::new(),
            heaps: Vec::new(),
            roots: Vec::new(),
            psos: Vec::new(),
            bound_heaps: Vec::new(),
        }
    }

    fn v(&self) -> &GraphicsCommandListVtbl {
        self.list.vtbl()
    }

    fn keep(&mut self, r: &Resource) -> *mut c_void {
        self.resources.push(r.com.clone());
        r.com.raw()
    }

    fn bound(&self, h: &GpuHandle<'_>) -> Result<(), String> {
        if self.bound_heaps.contains(&h.heap) {
            Ok(())
        } else {
            Err("a descriptor table's heap is not bound".into())
        }
    }

    /// `ResourceBarrier` with one transition of all subresources (nothing when the states
    /// are equal).
    pub fn transition(&mut self, r: &Resource, before: u32, after: u32) {
        if before == after {
            return;
        }
        let raw = self.keep(r);
        let b = ResourceBarrier {
            type_: RESOURCE_BARRIER_TYPE_TRANSITION,
            flags: 0,
            u: BarrierUnion {
                transition: ResourceTransitionBarrier {
                    resource: raw,
                    subresource: RESOURCE_BARRIER_ALL_SUBRESOURCES,
                    state_before: before,
                    state_after: after,
                },
            },
        };
        // SAFETY: a recording list and a barrier on a kept resource.
        unsafe { (self.v().resource_barrier)(self.list.raw(), 1, &b) };
    }

    /// A UAV barrier on every UAV access (`pResource` null).
    pub fn uav_barrier(&mut self) {
        let b = ResourceBarrier {
            type_: RESOURCE_BARRIER_TYPE_UAV,
            flags: 0,
            u: BarrierUnion {
                uav: ResourceUavBarrier {
                    resource: std::ptr::null_mut(),
                },
            },
        };
        // SAFETY: a recording list.
        unsafe { (self.v().resource_barrier)(self.list.raw(), 1, &b) };
    }

    pub fn copy_buffer(
        &mut self,
        dst: &Resource,
        dst_offset: u64,
        src: &Resource,
        src_offset: u64,
        bytes: u64,
    ) {
        let (d, s) = (self.keep(dst), self.keep(src));
        // SAFETY: kept resources; vkd3d checks the ranges.
        unsafe {
            (self.v().copy_buffer_region)(self.list.raw(), d, dst_offset, s, src_offset, bytes)
        };
    }

    fn location(&mut self, l: &CopyLocation<'_>) -> TextureCopyLocation {
        match l {
            CopyLocation::Subresource(r, i) => TextureCopyLocation {
                resource: self.keep(r),
                type_: TEXTURE_COPY_TYPE_SUBRESOURCE_INDEX,
                u: CopyLocationUnion {
                    subresource_index: *i,
                },
            },
            CopyLocation::Footprint(r, f) => TextureCopyLocation {
                resource: self.keep(r),
                type_: TEXTURE_COPY_TYPE_PLACED_FOOTPRINT,
                u: CopyLocationUnion {
                    placed_footprint: *f,
                },
            },
        }
    }

    /// `CopyTextureRegion` of a whole subresource, to (0, 0, 0).
    pub fn copy_texture(&mut self, dst: CopyLocation<'_>, src: CopyLocation<'_>) {
        let (d, s) = (self.location(&dst), self.location(&src));
        // SAFETY: locations of kept resources, no source box.
        unsafe {
            (self.v().copy_texture_region)(self.list.raw(), &d, 0, 0, 0, &s, std::ptr::null())
        };
    }

    pub fn copy_resource(&mut self, dst: &Resource, src: &Resource) {
        let (d, s) = (self.keep(dst), self.keep(src));
        // SAFETY: kept resources.
        unsafe { (self.v().copy_resource)(self.list.raw(), d, s) };
    }

    pub fn resolve(&mut self, dst: &Resource, src: &Resource, format: u32) {
        let (d, s) = (self.keep(dst), self.keep(src));
        // SAFETY: kept resources, subresource 0 of each.
        unsafe { (self.v().resolve_subresource)(self.list.raw(), d, 0, s, 0, format) };
    }

    pub fn set_descriptor_heaps(&mut self, heaps: &[&DescriptorHeap]) {
        let raw: Vec<*mut c_void> = heaps.iter().map(|h| h.com.raw()).collect();
        self.heaps.extend(heaps.iter().map(|h| h.com.clone()));
        // SAFETY: kept heaps.
        unsafe { (self.v().set_descriptor_heaps)(self.list.raw(), raw.len() as u32, raw.as_ptr()) };
        self.bound_heaps = raw;
    }

    pub fn set_root_signature(&mut self, root: &RootSignature, compute: bool) {
        self.roots.push(root.com.clone());
        let f = if compute {
            self.v().set_compute_root_signature
        } else {
            self.v().set_graphics_root_signature
        };
        // SAFETY: a kept root signature.
        unsafe { f(self.list.raw(), root.com.raw()) };
    }

    pub fn set_table(
        &mut self,
        index: u32,
        at: GpuHandle<'_>,
        compute: bool,
    ) -> Result<(), String> {
        self.bound(&at)?;
        let f = if compute {
            self.v().set_compute_root_descriptor_table
        } else {
            self.v().set_graphics_root_descriptor_table
        };
        // SAFETY: a handle inside a bound, kept heap.
        unsafe { f(self.list.raw(), index, at.raw) };
        Ok(())
    }

    pub fn set_constants(&mut self, index: u32, words: &[u32], compute: bool) {
        let f = if compute {
            self.v().set_compute_root_32bit_constants
        } else {
            self.v().set_graphics_root_32bit_constants
        };
        // SAFETY: the words are copied into the list during the call.
        unsafe {
            f(
                self.list.raw(),
                index,
                words.len() as u32,
                words.as_ptr().cast(),
                0,
            )
        };
    }

    /// A root CBV at `offset` in `buffer`.
    pub fn set_cbv(&mut self, index: u32, buffer: &Resource, offset: u64, compute: bool) {
        self.keep(buffer);
        let f = if compute {
            self.v().set_compute_root_constant_buffer_view
        } else {
            self.v().set_graphics_root_constant_buffer_view
        };
        // SAFETY: an address inside a kept buffer.
        unsafe { f(self.list.raw(), index, buffer.gpu_va + offset) };
    }

    pub fn set_pipeline_state(&mut self, pso: &PipelineState) {
        self.psos.push(pso.com.clone());
        // SAFETY: a kept pipeline state.
        unsafe { (self.v().set_pipeline_state)(self.list.raw(), pso.com.raw()) };
    }

    pub fn dispatch(&mut self, x: u32, y: u32, z: u32) {
        // SAFETY: a recording list.
        unsafe { (self.v().dispatch)(self.list.raw(), x, y, z) };
    }

    /// `IASetVertexBuffers`: one view of a whole buffer per (slot, buffer, stride).
    pub fn set_vertex_buffers(&mut self, buffers: &[(u32, &Resource, u32)]) {
        for (slot, r, stride) in buffers {
            self.keep(r);
            let view = VertexBufferView {
                buffer_location: r.gpu_va,
                size_in_bytes: r.desc.width as u32,
                stride_in_bytes: *stride,
            };
            // SAFETY: a view of a kept buffer.
            unsafe { (self.v().ia_set_vertex_buffers)(self.list.raw(), *slot, 1, &view) };
        }
    }

    /// `SOSetTargets`: per (slot, buffer, filled-size counter buffer and its offset).
    pub fn set_so_targets(&mut self, targets: &[(u32, &Resource, &Resource, u64)]) {
        for (slot, r, counter, offset) in targets {
            self.keep(r);
            self.keep(counter);
            let view = StreamOutputBufferView {
                buffer_location: r.gpu_va,
                size_in_bytes: r.desc.width,
                buffer_filled_size_location: counter.gpu_va + offset,
            };
            // SAFETY: views of kept buffers.
            unsafe { (self.v().so_set_targets)(self.list.raw(), *slot, 1, &view) };
        }
    }

    pub fn set_render_targets(&mut self, rtvs: &[CpuHandle<'_>], dsv: Option<CpuHandle<'_>>) {
        let raw: Vec<CpuDescriptorHandle> = rtvs.iter().map(|h| h.raw).collect();
        let d = dsv.map(|h| h.raw);
        // SAFETY: handles of live heaps; D3D12 reads them during the call.
        unsafe {
            (self.v().om_set_render_targets)(
                self.list.raw(),
                raw.len() as u32,
                if raw.is_empty() {
                    std::ptr::null()
                } else {
                    raw.as_ptr()
                },
                0,
                d.as_ref().map_or(std::ptr::null(), |h| h as *const _),
            )
        };
    }

    pub fn set_viewports(&mut self, viewports: &[Viewport], scissors: &[Rect]) {
        // SAFETY: arrays of their lengths.
        unsafe {
            (self.v().rs_set_viewports)(
                self.list.raw(),
                viewports.len() as u32,
                viewports.as_ptr(),
            );
            (self.v().rs_set_scissor_rects)(
                self.list.raw(),
                scissors.len() as u32,
                scissors.as_ptr(),
            );
        }
    }

    /// `OMSetDepthBounds` (`ID3D12GraphicsCommandList1`).
    pub fn set_depth_bounds(&mut self, min: f32, max: f32) -> Result<(), String> {
        let l1 = self
            .list1
            .as_ref()
            .ok_or("the command list has no ID3D12GraphicsCommandList1 (OMSetDepthBounds)")?;
        // SAFETY: the same live list through its newer interface.
        unsafe { (l1.vtbl().om_set_depth_bounds)(l1.raw(), min, max) };
        Ok(())
    }

    pub fn set_topology(&mut self, topology: u32) {
        // SAFETY: a recording list.
        unsafe { (self.v().ia_set_primitive_topology)(self.list.raw(), topology) };
    }

    pub fn draw(&mut self, vertices: u32, instances: u32, start_vertex: u32, start_instance: u32) {
        // SAFETY: a recording list.
        unsafe {
            (self.v().draw_instanced)(
                self.list.raw(),
                vertices,
                instances,
                start_vertex,
                start_instance,
            )
        };
    }

    pub fn clear_rtv(&mut self, at: CpuHandle<'_>, value: [f32; 4]) {
        // SAFETY: a handle of a live heap.
        unsafe {
            (self.v().clear_render_target_view)(
                self.list.raw(),
                at.raw,
                value.as_ptr(),
                0,
                std::ptr::null(),
            )
        };
    }

    pub fn clear_dsv(&mut self, at: CpuHandle<'_>, depth: f32) {
        // SAFETY: a handle of a live heap.
        unsafe {
            (self.v().clear_depth_stencil_view)(
                self.list.raw(),
                at.raw,
                CLEAR_FLAG_DEPTH,
                depth,
                0,
                0,
                std::ptr::null(),
            )
        };
    }

    /// `ClearUnorderedAccessView{Uint,Float}`: `gpu` in the bound shader-visible heap and
    /// `cpu` in a CPU-only heap, both holding a UAV of `r`.
    pub fn clear_uav(
        &mut self,
        gpu: GpuHandle<'_>,
        cpu: CpuHandle<'_>,
        r: &Resource,
        value: ClearValue,
    ) -> Result<(), String> {
        self.bound(&gpu)?;
        let raw = self.keep(r);
        // SAFETY: handles of live heaps, a kept resource, four values.
        unsafe {
            match value {
                ClearValue::Uint(v) => (self.v().clear_unordered_access_view_uint)(
                    self.list.raw(),
                    gpu.raw,
                    cpu.raw,
                    raw,
                    v.as_ptr(),
                    0,
                    std::ptr::null(),
                ),
                ClearValue::Float(v) => (self.v().clear_unordered_access_view_float)(
                    self.list.raw(),
                    gpu.raw,
                    cpu.raw,
                    raw,
                    v.as_ptr(),
                    0,
                    std::ptr::null(),
                ),
            }
        };
        Ok(())
    }
}

/// The values of a UAV clear.
#[derive(Debug, Clone, Copy)]
pub enum ClearValue {
    Uint([u32; 4]),
    Float([f32; 4]),
}
