//! Buffers, images and one-shot command submission.
//!
//! Every resource owns its memory (tests declare a handful of small resources, so a real
//! allocator would be wasted). Images live in `GENERAL` layout for their whole life, and every
//! submission ends with a full barrier, which keeps synchronisation trivially correct.

use super::context::Gpu;
use ash::vk;

/// A buffer and its memory.
pub struct Buffer {
    device: ash::Device,
    pub buffer: vk::Buffer,
    pub memory: vk::DeviceMemory,
    pub size: u64,
    pub host_visible: bool,
    pub views: Vec<(vk::Format, vk::BufferView)>,
}

impl Drop for Buffer {
    fn drop(&mut self) {
        // SAFETY: created by this device; callers wait for the queue before dropping resources.
        unsafe {
            for (_, v) in self.views.drain(..) {
                self.device.destroy_buffer_view(v, None);
            }
            self.device.destroy_buffer(self.buffer, None);
            self.device.free_memory(self.memory, None);
        }
    }
}

/// An image and its memory.
pub struct Image {
    device: ash::Device,
    pub image: vk::Image,
    pub memory: vk::DeviceMemory,
    pub format: vk::Format,
    pub extent: vk::Extent3D,
    pub levels: u32,
    pub layers: u32,
    pub samples: vk::SampleCountFlags,
    pub aspect: vk::ImageAspectFlags,
    pub usage: vk::ImageUsageFlags,
    pub views: Vec<((vk::ImageViewType, vk::Format, u32), vk::ImageView)>,
}

impl Drop for Image {
    fn drop(&mut self) {
        // SAFETY: as for Buffer.
        unsafe {
            for (_, v) in self.views.drain(..) {
                self.device.destroy_image_view(v, None);
            }
            self.device.destroy_image(self.image, None);
            self.device.free_memory(self.memory, None);
        }
    }
}

fn err(what: &'static str) -> impl Fn(vk::Result) -> String {
    move |e| format!("{what}: {e}")
}

impl Gpu {
    fn allocate(
        &self,
        req: vk::MemoryRequirements,
        host: bool,
    ) -> Result<(vk::DeviceMemory, bool), String> {
        let (idx, host_visible) = if host {
            let f = vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
            (
                self.memory_type(req.memory_type_bits, f)
                    .ok_or("no host-visible memory type")?,
                true,
            )
        } else {
            match self.memory_type(req.memory_type_bits, vk::MemoryPropertyFlags::DEVICE_LOCAL) {
                Some(i) => (i, false),
                None => (
                    self.memory_type(req.memory_type_bits, vk::MemoryPropertyFlags::empty())
                        .ok_or("no memory type")?,
                    false,
                ),
            }
        };
        let info = vk::MemoryAllocateInfo::default()
            .allocation_size(req.size)
            .memory_type_index(idx);
        // SAFETY: valid device and allocation info.
        let mem =
            unsafe { self.device.allocate_memory(&info, None) }.map_err(err("vkAllocateMemory"))?;
        Ok((mem, host_visible))
    }

    /// Creates a buffer; `host` makes it mappable (staging, readback).
    pub fn create_buffer(
        &self,
        size: u64,
        usage: vk::BufferUsageFlags,
        host: bool,
    ) -> Result<Buffer, String> {
        let size = size.max(4);
        let info = vk::BufferCreateInfo::default()
            .size(size)
            .usage(usage | vk::BufferUsageFlags::TRANSFER_SRC | vk::BufferUsageFlags::TRANSFER_DST);
        // SAFETY: valid device; the buffer is destroyed on error paths and in Drop.
        unsafe {
            let buffer = self
                .device
                .create_buffer(&info, None)
                .map_err(err("vkCreateBuffer"))?;
            let req = self.device.get_buffer_memory_requirements(buffer);
            let (memory, host_visible) = match self.allocate(req, host) {
                Ok(m) => m,
                Err(e) => {
                    self.device.destroy_buffer(buffer, None);
                    return Err(e);
                }
            };
            if let Err(e) = self.device.bind_buffer_memory(buffer, memory, 0) {
                self.device.destroy_buffer(buffer, None);
                self.device.free_memory(memory, None);
                return Err(format!("vkBindBufferMemory: {e}"));
            }
            Ok(Buffer {
                device: self.device.clone(),
                buffer,
                memory,
                size,
                host_visible,
                views: Vec::new(),
            })
        }
    }

    /// Writes `data` at the start of a host-visible buffer.
    pub fn write_host(&self, buf: &Buffer, data: &[u8]) -> Result<(), String> {
        assert!(buf.host_visible, "write_host on device memory");
        let n = data.len().min(buf.size as usize);
        // SAFETY: the memory is host visible and coherent, at least `n` bytes long and not in
        // use by the device (callers synchronise with the queue).
        unsafe {
            let p = self
                .device
                .map_memory(buf.memory, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
                .map_err(err("vkMapMemory"))?;
            std::ptr::copy_nonoverlapping(data.as_ptr(), p as *mut u8, n);
            self.device.unmap_memory(buf.memory);
        }
        Ok(())
    }

    /// Reads a host-visible buffer.
    pub fn read_host(&self, buf: &Buffer) -> Result<Vec<u8>, String> {
        assert!(buf.host_visible, "read_host on device memory");
        let mut out = vec![0u8; buf.size as usize];
        // SAFETY: as in write_host.
        unsafe {
            let p = self
                .device
                .map_memory(buf.memory, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
                .map_err(err("vkMapMemory"))?;
            std::ptr::copy_nonoverlapping(p as *const u8, out.as_mut_ptr(), out.len());
            self.device.unmap_memory(buf.memory);
        }
        Ok(out)
    }

    /// Records with `record`, submits, waits.
    pub fn submit(&self, record: impl FnOnce(vk::CommandBuffer)) -> Result<(), String> {
        let info = vk::CommandBufferAllocateInfo::default()
            .command_pool(self.command_pool)
            .level(vk::CommandBufferLevel::PRIMARY)
            .command_buffer_count(1);
        // SAFETY: the command buffer is allocated, recorded, submitted and waited for here,
        // then freed; nothing else uses the pool concurrently.
        unsafe {
            let cb = self
                .device
                .allocate_command_buffers(&info)
                .map_err(err("vkAllocateCommandBuffers"))?[0];
            let result = (|| {
                let begin = vk::CommandBufferBeginInfo::default()
                    .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
                self.device
                    .begin_command_buffer(cb, &begin)
                    .map_err(err("vkBeginCommandBuffer"))?;
                record(cb);
                full_barrier(&self.device, cb);
                self.device
                    .end_command_buffer(cb)
                    .map_err(err("vkEndCommandBuffer"))?;
                let cbs = [cb];
                let submit = [vk::SubmitInfo::default().command_buffers(&cbs)];
                let fence = self
                    .device
                    .create_fence(&vk::FenceCreateInfo::default(), None)
                    .map_err(err("vkCreateFence"))?;
                let r = self
                    .device
                    .queue_submit(self.queue, &submit, fence)
                    .map_err(err("vkQueueSubmit"))
                    .and_then(|_| {
                        self.device
                            .wait_for_fences(&[fence], true, 60_000_000_000)
                            .map_err(err("vkWaitForFences"))
                    });
                self.device.destroy_fence(fence, None);
                r
            })();
            self.device.free_command_buffers(self.command_pool, &[cb]);
            result
        }
    }

    /// A device-local buffer filled with `data` (zero-padded to `size`).
    pub fn buffer_with_data(
        &self,
        size: u64,
        usage: vk::BufferUsageFlags,
        data: &[u8],
    ) -> Result<Buffer, String> {
        let dst = self.create_buffer(size, usage, false)?;
        let mut bytes = data.to_vec();
        bytes.resize(dst.size as usize, 0);
        let staging = self.create_buffer(dst.size, vk::BufferUsageFlags::empty(), true)?;
        self.write_host(&staging, &bytes)?;
        let region = [vk::BufferCopy::default().size(dst.size)];
        // SAFETY: both buffers are valid and large enough.
        self.submit(|cb| unsafe {
            self.device
                .cmd_copy_buffer(cb, staging.buffer, dst.buffer, &region)
        })?;
        Ok(dst)
    }

    /// Copies a buffer's contents back to the host.
    pub fn read_buffer(&self, src: &Buffer) -> Result<Vec<u8>, String> {
        let staging = self.create_buffer(src.size, vk::BufferUsageFlags::empty(), true)?;
        let region = [vk::BufferCopy::default().size(src.size)];
        // SAFETY: both buffers are valid and the same size.
        self.submit(|cb| unsafe {
            self.device
                .cmd_copy_buffer(cb, src.buffer, staging.buffer, &region)
        })?;
        self.read_host(&staging)
    }

    /// Creates an image in `GENERAL` layout, zero-filled.
    #[allow(clippy::too_many_arguments)]
    pub fn create_image(
        &self,
        image_type: vk::ImageType,
        format: vk::Format,
        extent: vk::Extent3D,
        levels: u32,
        layers: u32,
        samples: u32,
        cube: bool,
        usage: vk::ImageUsageFlags,
    ) -> Result<Image, String> {
        let aspect = if format == vk::Format::D32_SFLOAT {
            vk::ImageAspectFlags::DEPTH
        } else {
            vk::ImageAspectFlags::COLOR
        };
        let samples = vk::SampleCountFlags::from_raw(samples.max(1));
        let info = vk::ImageCreateInfo::default()
            .image_type(image_type)
            .format(format)
            .extent(extent)
            .mip_levels(levels)
            .array_layers(layers)
            .samples(samples)
            .tiling(vk::ImageTiling::OPTIMAL)
            .usage(usage | vk::ImageUsageFlags::TRANSFER_SRC | vk::ImageUsageFlags::TRANSFER_DST)
            .flags(if cube {
                vk::ImageCreateFlags::CUBE_COMPATIBLE
            } else {
                vk::ImageCreateFlags::empty()
            })
            .initial_layout(vk::ImageLayout::UNDEFINED);
        // SAFETY: valid device; the image is destroyed on error paths and in Drop.
        let img = unsafe {
            let image = self
                .device
                .create_image(&info, None)
                .map_err(|e| format!("vkCreateImage ({format:?}): {e}"))?;
            let req = self.device.get_image_memory_requirements(image);
            let memory = match self.allocate(req, false) {
                Ok((m, _)) => m,
                Err(e) => {
                    self.device.destroy_image(image, None);
                    return Err(e);
                }
            };
            if let Err(e) = self.device.bind_image_memory(image, memory, 0) {
                self.device.destroy_image(image, None);
                self.device.free_memory(memory, None);
                return Err(format!("vkBindImageMemory: {e}"));
            }
            Image {
                device: self.device.clone(),
                image,
                memory,
                format,
                extent,
                levels,
                layers,
                samples,
                aspect,
                usage: info.usage,
                views: Vec::new(),
            }
        };
        let range = img.full_range();
        // SAFETY: the image is valid; the barrier and clear cover its whole range.
        self.submit(|cb| unsafe {
            let barrier = [vk::ImageMemoryBarrier::default()
                .image(img.image)
                .old_layout(vk::ImageLayout::UNDEFINED)
                .new_layout(vk::ImageLayout::GENERAL)
                .src_access_mask(vk::AccessFlags::empty())
                .dst_access_mask(vk::AccessFlags::MEMORY_WRITE | vk::AccessFlags::MEMORY_READ)
                .subresource_range(range)];
            self.device.cmd_pipeline_barrier(
                cb,
                vk::PipelineStageFlags::TOP_OF_PIPE,
                vk::PipelineStageFlags::ALL_COMMANDS,
                vk::DependencyFlags::empty(),
                &[],
                &[],
                &barrier,
            );
            if aspect == vk::ImageAspectFlags::DEPTH {
                let v = vk::ClearDepthStencilValue {
                    depth: 0.0,
                    stencil: 0,
                };
                self.device.cmd_clear_depth_stencil_image(
                    cb,
                    img.image,
                    vk::ImageLayout::GENERAL,
                    &v,
                    &[range],
                );
            } else {
                let v = vk::ClearColorValue { uint32: [0; 4] };
                self.device.cmd_clear_color_image(
                    cb,
                    img.image,
                    vk::ImageLayout::GENERAL,
                    &v,
                    &[range],
                );
            }
        })?;
        Ok(img)
    }

    /// Copies `data` into `(level, layer)` subresources in the order given by `regions`:
    /// each entry is (level, layer, byte offset in `data`).
    pub fn upload_image(
        &self,
        img: &Image,
        data: &[u8],
        regions: &[(u32, u32, u64)],
    ) -> Result<(), String> {
        if regions.is_empty() || data.is_empty() {
            return Ok(());
        }
        let staging = self.create_buffer(data.len() as u64, vk::BufferUsageFlags::empty(), true)?;
        self.write_host(&staging, data)?;
        let copies: Vec<vk::BufferImageCopy> = regions
            .iter()
            .map(|&(level, layer, offset)| {
                let e = img.level_extent(level);
                vk::BufferImageCopy::default()
                    .buffer_offset(offset)
                    .image_subresource(vk::ImageSubresourceLayers {
                        aspect_mask: img.aspect,
                        mip_level: level,
                        base_array_layer: layer,
                        layer_count: 1,
                    })
                    .image_extent(e)
            })
            .collect();
        // SAFETY: the regions were computed to fit both the staging buffer and the image.
        self.submit(|cb| unsafe {
            self.device.cmd_copy_buffer_to_image(
                cb,
                staging.buffer,
                img.image,
                vk::ImageLayout::GENERAL,
                &copies,
            )
        })
    }

    /// Reads one subresource back, tightly packed (`texel_size` bytes per texel).
    pub fn read_image(
        &self,
        img: &Image,
        level: u32,
        layer: u32,
        texel_size: u32,
    ) -> Result<Vec<u8>, String> {
        let e = img.level_extent(level);
        let size =
            u64::from(e.width) * u64::from(e.height) * u64::from(e.depth) * u64::from(texel_size);
        let staging = self.create_buffer(size, vk::BufferUsageFlags::empty(), true)?;
        let copy = [vk::BufferImageCopy::default()
            .image_subresource(vk::ImageSubresourceLayers {
                aspect_mask: img.aspect,
                mip_level: level,
                base_array_layer: layer,
                layer_count: 1,
            })
            .image_extent(e)];
        // SAFETY: the staging buffer holds exactly one subresource.
        self.submit(|cb| unsafe {
            self.device.cmd_copy_image_to_buffer(
                cb,
                img.image,
                vk::ImageLayout::GENERAL,
                staging.buffer,
                &copy,
            )
        })?;
        let mut v = self.read_host(&staging)?;
        v.truncate(size as usize);
        Ok(v)
    }

    /// A single-sample copy of a multisampled image (level 0, every layer), resolved by
    /// averaging.
    pub fn resolve_image(&self, img: &Image) -> Result<Image, String> {
        let dst = self.create_image(
            vk::ImageType::TYPE_2D,
            img.format,
            img.extent,
            1,
            img.layers,
            1,
            false,
            vk::ImageUsageFlags::empty(),
        )?;
        let layers = vk::ImageSubresourceLayers {
            aspect_mask: img.aspect,
            mip_level: 0,
            base_array_layer: 0,
            layer_count: img.layers,
        };
        let region = [vk::ImageResolve::default()
            .src_subresource(layers)
            .dst_subresource(layers)
            .extent(img.extent)];
        // SAFETY: both images are valid, in GENERAL layout, and of the same format and size.
        self.submit(|cb| unsafe {
            self.device.cmd_resolve_image(
                cb,
                img.image,
                vk::ImageLayout::GENERAL,
                dst.image,
                vk::ImageLayout::GENERAL,
                &region,
            )
        })?;
        Ok(dst)
    }

    /// A view of `img`, created once and cached on the image.
    pub fn image_view(
        &self,
        img: &mut Image,
        view_type: vk::ImageViewType,
        format: vk::Format,
        level: Option<u32>,
    ) -> Result<vk::ImageView, String> {
        let key = (view_type, format, level.map_or(u32::MAX, |l| l));
        if let Some((_, v)) = img.views.iter().find(|(k, _)| *k == key) {
            return Ok(*v);
        }
        let mut range = img.full_range();
        if let Some(l) = level {
            range.base_mip_level = l;
            range.level_count = 1;
        }
        let info = vk::ImageViewCreateInfo::default()
            .image(img.image)
            .view_type(view_type)
            .format(format)
            .subresource_range(range);
        // SAFETY: valid image; the view is destroyed with it.
        let v = unsafe { self.device.create_image_view(&info, None) }
            .map_err(|e| format!("vkCreateImageView ({view_type:?}, {format:?}): {e}"))?;
        img.views.push((key, v));
        Ok(v)
    }
}

impl Gpu {
    /// A texel-buffer view of `buf` in `format`, created once and cached on the buffer.
    pub fn buffer_view(
        &self,
        buf: &mut Buffer,
        format: vk::Format,
    ) -> Result<vk::BufferView, String> {
        if let Some((_, v)) = buf.views.iter().find(|(f, _)| *f == format) {
            return Ok(*v);
        }
        let info = vk::BufferViewCreateInfo::default()
            .buffer(buf.buffer)
            .format(format)
            .range(vk::WHOLE_SIZE);
        // SAFETY: valid buffer; the view is destroyed with it.
        let v = unsafe { self.device.create_buffer_view(&info, None) }
            .map_err(|e| format!("vkCreateBufferView ({format:?}): {e}"))?;
        buf.views.push((format, v));
        Ok(v)
    }
}

impl Image {
    pub fn full_range(&self) -> vk::ImageSubresourceRange {
        vk::ImageSubresourceRange {
            aspect_mask: self.aspect,
            base_mip_level: 0,
            level_count: self.levels,
            base_array_layer: 0,
            layer_count: self.layers,
        }
    }

    pub fn level_extent(&self, level: u32) -> vk::Extent3D {
        vk::Extent3D {
            width: (self.extent.width >> level).max(1),
            height: (self.extent.height >> level).max(1),
            depth: (self.extent.depth >> level).max(1),
        }
    }
}

/// A barrier that orders everything before it against everything after it.
pub fn full_barrier(device: &ash::Device, cb: vk::CommandBuffer) {
    let b = [vk::MemoryBarrier::default()
        .src_access_mask(vk::AccessFlags::MEMORY_WRITE | vk::AccessFlags::MEMORY_READ)
        .dst_access_mask(vk::AccessFlags::MEMORY_WRITE | vk::AccessFlags::MEMORY_READ)];
    // SAFETY: cb is in the recording state (callers guarantee it).
    unsafe {
        device.cmd_pipeline_barrier(
            cb,
            vk::PipelineStageFlags::ALL_COMMANDS,
            vk::PipelineStageFlags::ALL_COMMANDS,
            vk::DependencyFlags::empty(),
            &b,
            &[],
            &[],
        )
    }
}
