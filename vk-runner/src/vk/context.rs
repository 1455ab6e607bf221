//! The Vulkan instance, device and queue, created once per run.
//!
//! The Vulkan loader is opened at run time (`ash::Entry::load`), so the binary needs only
//! `libvulkan.so.1` when it actually runs something. The device gets every feature from
//! [`features::WANTED`] that it supports; shaders needing others are skipped by name.
//! With `--validate`, the Khronos validation layer's messages are printed and counted.

use super::features::{self, FeatureSet};
use ash::vk;
use std::ffi::{CStr, c_void};
use std::sync::atomic::{AtomicU32, Ordering};

/// Validation message counts.
#[derive(Default, Debug)]
pub struct ValidationCounts {
    pub errors: AtomicU32,
    pub warnings: AtomicU32,
}

/// A device ready to run work.
pub struct Gpu {
    pub entry: ash::Entry,
    pub instance: ash::Instance,
    pub pdev: vk::PhysicalDevice,
    pub device: ash::Device,
    pub queue: vk::Queue,
    pub queue_family: u32,
    pub props: vk::PhysicalDeviceProperties,
    pub mem_props: vk::PhysicalDeviceMemoryProperties,
    pub driver_name: String,
    pub driver_info: String,
    pub driver_id: vk::DriverId,
    /// `shaderDenormFlushToZeroFloat32`: whether a module may ask for fp32 denormals to be
    /// flushed (D3D's rule), which `[require] denorm-flush-f32` checks.
    pub denorm_flush_f32: bool,
    pub enabled: FeatureSet,
    /// VK_EXT_transform_feedback's commands and limits, when the device has the extension
    /// and its `transformFeedback` feature (`[stream output]` draws).
    pub xfb: Option<(
        ash::ext::transform_feedback::Device,
        vk::PhysicalDeviceTransformFeedbackPropertiesEXT<'static>,
    )>,
    /// VK_EXT_conservative_rasterization is enabled and gives fragment shaders
    /// `FullyCoveredEXT` (D3D's `SV_InnerCoverage`).
    pub fully_covered: bool,
    pub command_pool: vk::CommandPool,
    debug: Option<(ash::ext::debug_utils::Instance, vk::DebugUtilsMessengerEXT)>,
    pub validation: Box<ValidationCounts>,
}

unsafe extern "system" fn debug_callback(
    severity: vk::DebugUtilsMessageSeverityFlagsEXT,
    types: vk::DebugUtilsMessageTypeFlagsEXT,
    data: *const vk::DebugUtilsMessengerCallbackDataEXT<'_>,
    user: *mut c_void,
) -> vk::Bool32 {
    if types.contains(vk::DebugUtilsMessageTypeFlagsEXT::PERFORMANCE) {
        return vk::FALSE;
    }
    // SAFETY: the layer passes the user pointer we registered (a live `ValidationCounts`) and a
    // valid callback data struct for the duration of the call.
    unsafe {
        let counts = &*(user as *const ValidationCounts);
        let msg = if data.is_null() || (*data).p_message.is_null() {
            "(no message)".into()
        } else {
            CStr::from_ptr((*data).p_message).to_string_lossy()
        };
        // Layout hints for GENERAL are by design here (see memory.rs): not worth a line each.
        if msg.starts_with("Validation Performance Warning") {
            return vk::FALSE;
        }
        if severity.contains(vk::DebugUtilsMessageSeverityFlagsEXT::ERROR) {
            counts.errors.fetch_add(1, Ordering::Relaxed);
            eprintln!("validation error: {msg}");
        } else if severity.contains(vk::DebugUtilsMessageSeverityFlagsEXT::WARNING) {
            counts.warnings.fetch_add(1, Ordering::Relaxed);
            eprintln!("validation warning: {msg}");
        }
    }
    vk::FALSE
}

fn vk_err(what: &str) -> impl Fn(vk::Result) -> String + '_ {
    move |e| format!("{what}: {e}")
}

fn load_entry() -> Result<ash::Entry, String> {
    // SAFETY: loading the Vulkan loader library; its initialisation has no preconditions.
    unsafe { ash::Entry::load() }
        .map_err(|e| format!("cannot load the Vulkan loader (libvulkan.so.1): {e}"))
}

fn create_instance(entry: &ash::Entry, validate: bool) -> Result<ash::Instance, String> {
    let app = vk::ApplicationInfo::default()
        .application_name(c"vk-runner")
        .api_version(vk::make_api_version(0, 1, 3, 0));
    let layer = c"VK_LAYER_KHRONOS_validation";
    let mut layers = Vec::new();
    let mut exts = Vec::new();
    if validate {
        // SAFETY: plain enumeration call.
        let have = unsafe { entry.enumerate_instance_layer_properties() }
            .map_err(vk_err("listing layers"))?;
        if !have
            .iter()
            .any(|l| l.layer_name_as_c_str().ok() == Some(layer))
        {
            return Err("--validate: VK_LAYER_KHRONOS_validation is not installed".into());
        }
        layers.push(layer.as_ptr());
        exts.push(ash::ext::debug_utils::NAME.as_ptr());
    }
    let info = vk::InstanceCreateInfo::default()
        .application_info(&app)
        .enabled_layer_names(&layers)
        .enabled_extension_names(&exts);
    // SAFETY: `info` and everything it points to outlive the call.
    unsafe { entry.create_instance(&info, None) }.map_err(vk_err("vkCreateInstance"))
}

/// One line per physical device: index, name, type, API version, driver.
pub fn list_devices() -> Result<Vec<String>, String> {
    let entry = load_entry()?;
    let instance = create_instance(&entry, false)?;
    // SAFETY: the instance is valid; it is destroyed before returning.
    unsafe {
        let devs = instance
            .enumerate_physical_devices()
            .map_err(vk_err("enumerating devices"));
        let out = devs.map(|devs| {
            devs.iter()
                .enumerate()
                .map(|(i, &d)| {
                    let (name, driver, info, _) = describe(&instance, d);
                    let p = instance.get_physical_device_properties(d);
                    format!(
                        "{i}: {name} ({:?}, Vulkan {}.{}.{}, driver {driver} {info})",
                        p.device_type,
                        vk::api_version_major(p.api_version),
                        vk::api_version_minor(p.api_version),
                        vk::api_version_patch(p.api_version)
                    )
                })
                .collect()
        });
        instance.destroy_instance(None);
        out
    }
}

/// (device name, driver name, driver info, driver id).
unsafe fn describe(
    instance: &ash::Instance,
    d: vk::PhysicalDevice,
) -> (String, String, String, vk::DriverId) {
    let mut driver = vk::PhysicalDeviceDriverProperties::default();
    let mut p2 = vk::PhysicalDeviceProperties2::default().push_next(&mut driver);
    // SAFETY: valid instance and physical device; the chained struct lives on this frame.
    unsafe { instance.get_physical_device_properties2(d, &mut p2) };
    let name = p2
        .properties
        .device_name_as_c_str()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let dn = driver
        .driver_name_as_c_str()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let di = driver
        .driver_info_as_c_str()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    (name, dn, di, driver.driver_id)
}

impl Gpu {
    /// Creates the instance and a device on physical device `index` (default: the first).
    ///
    /// `float_controls2`: enable VK_KHR_shader_float_controls2 when the device has it (only
    /// for runs that translate in that form: validation layers older than the extension
    /// report its feature struct as unknown).
    pub fn new(index: Option<usize>, validate: bool, float_controls2: bool) -> Result<Gpu, String> {
        let entry = load_entry()?;
        let instance = create_instance(&entry, validate)?;
        let validation = Box::new(ValidationCounts::default());
        // SAFETY: from here on every Vulkan call uses handles created above, destroyed in
        // `Drop` (or on the error paths below) in reverse order of creation.
        unsafe {
            let fail = |instance: &ash::Instance, e: String| {
                instance.destroy_instance(None);
                Err(e)
            };
            let mut debug = None;
            if validate {
                let du = ash::ext::debug_utils::Instance::new(&entry, &instance);
                let info = vk::DebugUtilsMessengerCreateInfoEXT::default()
                    .message_severity(
                        vk::DebugUtilsMessageSeverityFlagsEXT::ERROR
                            | vk::DebugUtilsMessageSeverityFlagsEXT::WARNING,
                    )
                    .message_type(
                        vk::DebugUtilsMessageTypeFlagsEXT::GENERAL
                            | vk::DebugUtilsMessageTypeFlagsEXT::VALIDATION,
                    )
                    .pfn_user_callback(Some(debug_callback))
                    .user_data(&*validation as *const ValidationCounts as *mut c_void);
                match du.create_debug_utils_messenger(&info, None) {
                    Ok(m) => debug = Some((du, m)),
                    Err(e) => return fail(&instance, format!("creating the debug messenger: {e}")),
                }
            }
            let destroy_all = |instance: &ash::Instance,
                               debug: &Option<(
                ash::ext::debug_utils::Instance,
                vk::DebugUtilsMessengerEXT,
            )>| {
                if let Some((du, m)) = debug {
                    du.destroy_debug_utils_messenger(*m, None);
                }
                instance.destroy_instance(None);
            };
            let devs = match instance.enumerate_physical_devices() {
                Ok(d) => d,
                Err(e) => {
                    destroy_all(&instance, &debug);
                    return Err(format!("enumerating devices: {e}"));
                }
            };
            if devs.is_empty() {
                destroy_all(&instance, &debug);
                return Err("no Vulkan device".into());
            }
            let i = index.unwrap_or(0);
            let Some(&pdev) = devs.get(i) else {
                destroy_all(&instance, &debug);
                return Err(format!("--device {i}: only {} device(s)", devs.len()));
            };
            let props = instance.get_physical_device_properties(pdev);
            if props.api_version < vk::make_api_version(0, 1, 3, 0) {
                destroy_all(&instance, &debug);
                return Err(
                    "the device does not support Vulkan 1.3 (dynamic rendering is needed)".into(),
                );
            }
            let (_, driver_name, driver_info, driver_id) = describe(&instance, pdev);
            let denorm_flush_f32 = {
                let mut fc = vk::PhysicalDeviceFloatControlsProperties::default();
                let mut p2 = vk::PhysicalDeviceProperties2::default().push_next(&mut fc);
                instance.get_physical_device_properties2(pdev, &mut p2);
                fc.shader_denorm_flush_to_zero_float32 == vk::TRUE
            };
            let families = instance.get_physical_device_queue_family_properties(pdev);
            let Some(queue_family) = families.iter().position(|f| {
                f.queue_flags
                    .contains(vk::QueueFlags::GRAPHICS | vk::QueueFlags::COMPUTE)
            }) else {
                destroy_all(&instance, &debug);
                return Err("no queue family with graphics and compute".into());
            };
            let queue_family = queue_family as u32;

            // Device extensions the runner enables when present.
            let xfb_ext = ash::ext::transform_feedback::NAME;
            let has_xfb = instance
                .enumerate_device_extension_properties(pdev)
                .unwrap_or_default()
                .iter()
                .any(|e| e.extension_name_as_c_str().ok() == Some(xfb_ext));
            // VK_EXT_fragment_shader_interlock: rasterizer-ordered views (`rov`).
            let interlock_ext = ash::ext::fragment_shader_interlock::NAME;
            let has_interlock = instance
                .enumerate_device_extension_properties(pdev)
                .unwrap_or_default()
                .iter()
                .any(|e| e.extension_name_as_c_str().ok() == Some(interlock_ext));
            // VK_EXT_conservative_rasterization: SV_InnerCoverage (`inner-coverage`).
            let conservative_ext = ash::ext::conservative_rasterization::NAME;
            let has_conservative = instance
                .enumerate_device_extension_properties(pdev)
                .unwrap_or_default()
                .iter()
                .any(|e| e.extension_name_as_c_str().ok() == Some(conservative_ext));
            // VK_EXT_mutable_descriptor_type: bindings holding several descriptor types.
            let mutable_ext = ash::ext::mutable_descriptor_type::NAME;
            let has_mutable = instance
                .enumerate_device_extension_properties(pdev)
                .unwrap_or_default()
                .iter()
                .any(|e| e.extension_name_as_c_str().ok() == Some(mutable_ext));
            // VK_KHR_shader_float_controls2: modules translated with `--float-controls2`.
            let fc2_ext = ash::khr::shader_float_controls2::NAME;
            let has_fc2 = float_controls2
                && instance
                    .enumerate_device_extension_properties(pdev)
                    .unwrap_or_default()
                    .iter()
                    .any(|e| e.extension_name_as_c_str().ok() == Some(fc2_ext));
            // What the device has, then what we enable.
            let mut have = FeatureSet::default();
            {
                let mut f2 = vk::PhysicalDeviceFeatures2::default()
                    .push_next(&mut have.f11)
                    .push_next(&mut have.f12)
                    .push_next(&mut have.f13);
                if has_xfb {
                    f2 = f2.push_next(&mut have.xfb);
                }
                if has_interlock {
                    f2 = f2.push_next(&mut have.interlock);
                }
                if has_mutable {
                    f2 = f2.push_next(&mut have.mutable);
                }
                if has_fc2 {
                    f2 = f2.push_next(&mut have.fc2);
                }
                instance.get_physical_device_features2(pdev, &mut f2);
                have.f10 = f2.features;
            }
            have.f11.p_next = std::ptr::null_mut();
            have.f12.p_next = std::ptr::null_mut();
            have.f13.p_next = std::ptr::null_mut();
            have.xfb.p_next = std::ptr::null_mut();
            have.interlock.p_next = std::ptr::null_mut();
            have.mutable.p_next = std::ptr::null_mut();
            have.fc2.p_next = std::ptr::null_mut();
            let mut enabled = FeatureSet::default();
            for name in features::WANTED {
                if have.get(name) == Some(true) {
                    enabled.set(name, true);
                }
            }
            let mut create = enabled;
            let prio = [1.0f32];
            let qinfo = [vk::DeviceQueueCreateInfo::default()
                .queue_family_index(queue_family)
                .queue_priorities(&prio)];
            let mut f2 = vk::PhysicalDeviceFeatures2::default()
                .features(create.f10)
                .push_next(&mut create.f11)
                .push_next(&mut create.f12)
                .push_next(&mut create.f13);
            let mut exts = Vec::new();
            if has_xfb {
                f2 = f2.push_next(&mut create.xfb);
                exts.push(xfb_ext.as_ptr());
            }
            if has_interlock {
                f2 = f2.push_next(&mut create.interlock);
                exts.push(interlock_ext.as_ptr());
            }
            if has_fc2 {
                f2 = f2.push_next(&mut create.fc2);
                exts.push(fc2_ext.as_ptr());
            }
            if has_conservative {
                exts.push(conservative_ext.as_ptr());
            }
            if has_mutable {
                f2 = f2.push_next(&mut create.mutable);
                exts.push(mutable_ext.as_ptr());
            }
            let dinfo = vk::DeviceCreateInfo::default()
                .queue_create_infos(&qinfo)
                .enabled_extension_names(&exts)
                .push_next(&mut f2);
            let device = match instance.create_device(pdev, &dinfo, None) {
                Ok(d) => d,
                Err(e) => {
                    destroy_all(&instance, &debug);
                    return Err(format!("vkCreateDevice: {e}"));
                }
            };
            let queue = device.get_device_queue(queue_family, 0);
            let pool_info = vk::CommandPoolCreateInfo::default()
                .queue_family_index(queue_family)
                .flags(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER);
            let command_pool = match device.create_command_pool(&pool_info, None) {
                Ok(p) => p,
                Err(e) => {
                    device.destroy_device(None);
                    destroy_all(&instance, &debug);
                    return Err(format!("vkCreateCommandPool: {e}"));
                }
            };
            let mem_props = instance.get_physical_device_memory_properties(pdev);
            let xfb = (has_xfb && enabled.xfb.transform_feedback != 0).then(|| {
                let mut p = vk::PhysicalDeviceTransformFeedbackPropertiesEXT::default();
                let mut p2 = vk::PhysicalDeviceProperties2::default().push_next(&mut p);
                instance.get_physical_device_properties2(pdev, &mut p2);
                p.p_next = std::ptr::null_mut();
                (
                    ash::ext::transform_feedback::Device::new(&instance, &device),
                    p,
                )
            });
            let fully_covered = has_conservative && {
                let mut p = vk::PhysicalDeviceConservativeRasterizationPropertiesEXT::default();
                let mut p2 = vk::PhysicalDeviceProperties2::default().push_next(&mut p);
                instance.get_physical_device_properties2(pdev, &mut p2);
                p.fully_covered_fragment_shader_input_variable != 0
            };
            Ok(Gpu {
                entry,
                instance,
                pdev,
                device,
                queue,
                queue_family,
                props,
                mem_props,
                driver_name,
                driver_info,
                driver_id,
                denorm_flush_f32,
                enabled,
                xfb,
                fully_covered,
                command_pool,
                debug,
                validation,
            })
        }
    }

    pub fn device_name(&self) -> String {
        self.props
            .device_name_as_c_str()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default()
    }

    /// `llvmpipe (...) — driver llvmpipe (Mesa 22.3.6), Vulkan 1.3.230`.
    pub fn describe(&self) -> String {
        let v = self.props.api_version;
        format!(
            "{} ({:?}), driver {} ({}), Vulkan {}.{}.{}",
            self.device_name(),
            self.props.device_type,
            self.driver_name,
            self.driver_info,
            vk::api_version_major(v),
            vk::api_version_minor(v),
            vk::api_version_patch(v)
        )
    }

    /// Tags for `if(...)`/`todo(...)` qualifiers: `vulkan`, and the driver (`llvmpipe`,
    /// `mesa` with its version, `radv`, `nvidia`, ...).
    pub fn tags(&self) -> Vec<(String, [u32; 3])> {
        device_tags(
            &self.device_name(),
            &self.driver_info,
            self.driver_id.as_raw() as u32,
            self.props.vendor_id,
        )
    }

    /// The SPIR-V version our translator should target on this device.
    pub fn target_env(&self) -> translator::TargetEnv {
        let v = self.props.api_version;
        if v >= vk::make_api_version(0, 1, 3, 0) {
            translator::TargetEnv::Vulkan1_3
        } else if v >= vk::make_api_version(0, 1, 2, 0) {
            translator::TargetEnv::Vulkan1_2
        } else {
            translator::TargetEnv::Vulkan1_1
        }
    }

    pub fn validation_errors(&self) -> u32 {
        self.validation.errors.load(Ordering::Relaxed)
    }

    pub fn validation_warnings(&self) -> u32 {
        self.validation.warnings.load(Ordering::Relaxed)
    }

    pub fn validating(&self) -> bool {
        self.debug.is_some()
    }

    /// A memory type index with `flags` among `type_bits`.
    pub fn memory_type(&self, type_bits: u32, flags: vk::MemoryPropertyFlags) -> Option<u32> {
        (0..self.mem_props.memory_type_count).find(|&i| {
            type_bits & (1 << i) != 0
                && self.mem_props.memory_types[i as usize]
                    .property_flags
                    .contains(flags)
        })
    }

    pub fn format_features(&self, format: vk::Format) -> vk::FormatProperties {
        // SAFETY: valid instance and physical device.
        unsafe {
            self.instance
                .get_physical_device_format_properties(self.pdev, format)
        }
    }
}

impl Drop for Gpu {
    fn drop(&mut self) {
        // SAFETY: all objects were created by this Gpu; waiting idle first makes destruction safe.
        unsafe {
            let _ = self.device.device_wait_idle();
            self.device.destroy_command_pool(self.command_pool, None);
            self.device.destroy_device(None);
            if let Some((du, m)) = self.debug.take() {
                du.destroy_debug_utils_messenger(m, None);
            }
            self.instance.destroy_instance(None);
        }
    }
}

/// Tags for `if(...)`/`todo(...)` qualifiers of a Vulkan device: `vulkan`, and the driver
/// (`llvmpipe`, `mesa` with its version, `radv`, `nvidia`, ...) from the device name, the
/// driver information string, the `VkDriverId` and the vendor ID.
pub fn device_tags(
    device_name: &str,
    driver_info: &str,
    driver_id: u32,
    vendor_id: u32,
) -> Vec<(String, [u32; 3])> {
    let mut t = vec![("vulkan".to_string(), [0; 3])];
    let name = device_name.to_ascii_lowercase();
    if name.contains("llvmpipe") {
        t.push(("llvmpipe".into(), [0; 3]));
    }
    if let Some(v) = driver_info.strip_prefix("Mesa ") {
        let mut ver = [0u32; 3];
        for (i, p) in v
            .split(|c: char| !c.is_ascii_digit())
            .filter(|p| !p.is_empty())
            .take(3)
            .enumerate()
        {
            ver[i] = p.parse().unwrap_or(0);
        }
        t.push(("mesa".into(), ver));
    }
    match vk::DriverId::from_raw(driver_id as i32) {
        vk::DriverId::MESA_RADV => t.push(("radv".into(), [0; 3])),
        vk::DriverId::NVIDIA_PROPRIETARY => t.push(("nvidia".into(), [0; 3])),
        _ => {}
    }
    match vendor_id {
        0x10de => t.push(("nvidia".into(), [0; 3])),
        0x1002 => t.push(("amd".into(), [0; 3])),
        0x8086 => t.push(("intel".into(), [0; 3])),
        _ => {}
    }
    t.dedup();
    t
}
