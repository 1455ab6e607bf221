//! The only code of the D3D12 executor that touches C: vkd3d's libraries loaded at run time
//! (`libvkd3d-utils.so.1`, which brings `libvkd3d.so.1` and `libvkd3d-shader.so.1`), COM
//! reference counting, and safe wrappers for the calls the executor makes. Nothing unsafe
//! leaves this module: callers pass Rust values and references, and every COM object a
//! recorded command list refers to is kept alive until the list has run. The process calls of
//! crash isolation are here too ([`process`]).
//!
//! Loading at run time means vk-runner builds and runs on machines without vkd3d; the
//! executor then reports itself unavailable.

mod device;
pub mod process;
mod record;
pub mod types;
pub mod vtbl;

pub use device::{
    CpuHandle, D3d12, DescriptorHeap, Features, GpuHandle, GraphicsPso, InputElement,
    PipelineState, Resource, RootParam, RootSignature, SoEntry,
};
pub use record::{ClearValue, CopyLocation, Recorder};

use std::ffi::c_void;
use std::ptr::NonNull;
use types::Guid;
use vtbl::{Object, UnknownVtbl, com_fn};

/// Interfaces whose vtables start with `IUnknown`'s three methods.
pub(crate) trait Interface {
    const IID: &'static Guid;
    fn unknown(&self) -> &UnknownVtbl;
}

macro_rules! interface {
    ($vtbl:ty, $iid:expr) => {
        impl Interface for $vtbl {
            const IID: &'static Guid = &$iid;
            fn unknown(&self) -> &UnknownVtbl {
                &self.unknown
            }
        }
    };
}
interface!(vtbl::DeviceVtbl, types::IID_ID3D12_DEVICE);
interface!(vtbl::CommandQueueVtbl, types::IID_ID3D12_COMMAND_QUEUE);
interface!(
    vtbl::CommandAllocatorVtbl,
    types::IID_ID3D12_COMMAND_ALLOCATOR
);
interface!(
    vtbl::GraphicsCommandListVtbl,
    types::IID_ID3D12_GRAPHICS_COMMAND_LIST
);
interface!(vtbl::FenceVtbl, types::IID_ID3D12_FENCE);
impl Interface for vtbl::Device2Vtbl {
    const IID: &'static Guid = &types::IID_ID3D12_DEVICE2;
    fn unknown(&self) -> &UnknownVtbl {
        &self.base.unknown
    }
}
impl Interface for vtbl::GraphicsCommandList1Vtbl {
    const IID: &'static Guid = &types::IID_ID3D12_GRAPHICS_COMMAND_LIST1;
    fn unknown(&self) -> &UnknownVtbl {
        &self.base.unknown
    }
}
interface!(vtbl::ResourceVtbl, types::IID_ID3D12_RESOURCE);
interface!(vtbl::DescriptorHeapVtbl, types::IID_ID3D12_DESCRIPTOR_HEAP);
interface!(vtbl::RootSignatureVtbl, types::IID_ID3D12_ROOT_SIGNATURE);
interface!(vtbl::PipelineStateVtbl, types::IID_ID3D12_PIPELINE_STATE);

/// An owned reference to a COM object: released on drop, `AddRef`ed on clone.
pub(crate) struct Com<V: Interface> {
    ptr: NonNull<Object<V>>,
}

impl<V: Interface> Com<V> {
    /// Takes ownership of a reference a creation method returned (null: `None`).
    ///
    /// # Safety
    /// `raw` is null or a live object whose vtable is `V`, and the caller owns one reference.
    pub(crate) unsafe fn from_raw(raw: *mut c_void) -> Option<Self> {
        NonNull::new(raw.cast::<Object<V>>()).map(|ptr| Com { ptr })
    }

    pub(crate) fn raw(&self) -> *mut c_void {
        self.ptr.as_ptr().cast()
    }

    pub(crate) fn vtbl(&self) -> &V {
        // SAFETY: a live COM object points to its vtable, which outlives it.
        unsafe { &*(*self.ptr.as_ptr()).vtbl }
    }
}

impl<V: Interface> Clone for Com<V> {
    fn clone(&self) -> Self {
        // SAFETY: the object is live; AddRef takes one more reference for the clone.
        unsafe { (self.vtbl().unknown().add_ref)(self.raw()) };
        Com { ptr: self.ptr }
    }
}

impl<V: Interface> Drop for Com<V> {
    fn drop(&mut self) {
        // SAFETY: we own one reference and give it back.
        unsafe { (self.vtbl().unknown().release)(self.raw()) };
    }
}

impl<V: Interface> Com<V> {
    /// `QueryInterface` for another interface of the object (`None`: not supported).
    pub(crate) fn cast<W: Interface>(&self) -> Option<Com<W>> {
        create::<W>("QueryInterface", |iid, out| {
            // SAFETY: a live object, an IID and an out pointer.
            unsafe { (self.vtbl().unknown().query_interface)(self.raw(), iid, out) }
        })
        .ok()
    }
}

/// A creation method's out-pointer call: `f(riid, &mut out)`, then ownership of `out`.
pub(crate) fn create<V: Interface>(
    what: &str,
    f: impl FnOnce(*const Guid, *mut *mut c_void) -> i32,
) -> Result<Com<V>, String> {
    let mut out: *mut c_void = std::ptr::null_mut();
    let hr = f(V::IID, &mut out);
    // SAFETY: on success the method stored an owned reference of interface V (by riid).
    let obj = unsafe { Com::<V>::from_raw(out) };
    match (hr, obj) {
        (types::S_OK, Some(o)) => Ok(o),
        (hr, _) => Err(format!("{what} failed ({})", hresult(hr))),
    }
}

/// An HRESULT as vkd3d's messages show it.
pub fn hresult(hr: i32) -> String {
    let name = match hr as u32 {
        0x8007_000e => " E_OUTOFMEMORY",
        0x8007_0057 => " E_INVALIDARG",
        0x8000_4001 => " E_NOTIMPL",
        0x8000_4005 => " E_FAIL",
        0x887a_0005 => " DXGI_ERROR_DEVICE_REMOVED",
        0x887a_0001 => " DXGI_ERROR_INVALID_CALL",
        0x887a_0004 => " DXGI_ERROR_UNSUPPORTED",
        _ => "",
    };
    format!("hr {:#010x}{name}", hr as u32)
}

type CreateDevice = com_fn!((*mut c_void, u32, *const Guid, *mut *mut c_void) -> i32);
type SerializeRootSignature = com_fn!((
    *const types::RootSignatureDesc,
    u32,
    *mut *mut c_void,
    *mut *mut c_void
) -> i32);
type CreateEvent = unsafe extern "C" fn() -> *mut c_void;
type WaitEvent = unsafe extern "C" fn(*mut c_void, u32) -> u32;
type DestroyEvent = unsafe extern "C" fn(*mut c_void);

/// libvkd3d-utils and the entry points the executor takes from it.
pub struct Library {
    create_device: CreateDevice,
    serialize_root_signature: SerializeRootSignature,
    create_event: CreateEvent,
    wait_event: WaitEvent,
    destroy_event: DestroyEvent,
    /// Where the library was found (for the banner).
    pub path: String,
    /// Never unloaded: vkd3d and the Vulkan driver it loads leave work for process exit
    /// (unloading them first made workers crash when they exited).
    _lib: std::mem::ManuallyDrop<libloading::Library>,
}

/// The library name the executor loads (its SONAME).
pub const UTILS_SONAME: &str = "libvkd3d-utils.so.1";
/// An environment variable naming another libvkd3d-utils to load (a path or a name).
pub const UTILS_VAR: &str = "VK_RUNNER_VKD3D_UTILS";

impl Library {
    /// Loads `libvkd3d-utils.so.1` from the dynamic loader's search path (or what
    /// `VK_RUNNER_VKD3D_UTILS` names).
    pub fn load() -> Result<Library, String> {
        let name = std::env::var(UTILS_VAR)
            .ok()
            .filter(|v| !v.is_empty())
            .unwrap_or_else(|| UTILS_SONAME.to_string());
        // SAFETY: loading a shared library runs its initialisers; vkd3d's are plain.
        let lib = unsafe { libloading::Library::new(&name) }
            .map_err(|e| format!("cannot load {name}: {e}"))?;
        fn sym<T: Copy>(lib: &libloading::Library, name: &str) -> Result<T, String> {
            // SAFETY: each symbol is looked up with the type vkd3d_utils.h declares for it.
            unsafe { lib.get::<T>(name.as_bytes()) }
                .map(|s| *s)
                .map_err(|e| format!("{UTILS_SONAME} has no {name}: {e}"))
        }
        let path = loaded_path(&lib).unwrap_or_else(|| UTILS_SONAME.to_string());
        Ok(Library {
            create_device: sym(&lib, "D3D12CreateDevice")?,
            serialize_root_signature: sym(&lib, "D3D12SerializeRootSignature")?,
            create_event: sym(&lib, "vkd3d_create_event")?,
            wait_event: sym(&lib, "vkd3d_wait_event")?,
            destroy_event: sym(&lib, "vkd3d_destroy_event")?,
            path,
            _lib: std::mem::ManuallyDrop::new(lib),
        })
    }
}

/// The file a loaded library came from, from the process's memory map.
fn loaded_path(_lib: &libloading::Library) -> Option<String> {
    let maps = std::fs::read_to_string("/proc/self/maps").ok()?;
    maps.lines()
        .filter_map(|l| l.split_whitespace().nth(5))
        .find(|p| p.contains("libvkd3d-utils.so"))
        .map(str::to_string)
}

/// A `vkd3d_create_event` event, destroyed on drop (before the library is unloaded: its
/// owner keeps the library last).
pub(crate) struct Event {
    wait: WaitEvent,
    destroy: DestroyEvent,
    handle: NonNull<c_void>,
}

impl Event {
    pub(crate) fn new(lib: &Library) -> Result<Self, String> {
        // SAFETY: vkd3d_create_event takes nothing and returns a new event or null.
        let h = unsafe { (lib.create_event)() };
        NonNull::new(h)
            .map(|handle| Event {
                wait: lib.wait_event,
                destroy: lib.destroy_event,
                handle,
            })
            .ok_or_else(|| "vkd3d_create_event failed".to_string())
    }

    pub(crate) fn raw(&self) -> *mut c_void {
        self.handle.as_ptr()
    }

    /// Waits up to `ms` milliseconds; whether the event was signalled.
    pub(crate) fn wait(&self, ms: u32) -> bool {
        // SAFETY: the handle is a live event of this library.
        unsafe { (self.wait)(self.raw(), ms) == types::WAIT_OBJECT_0 }
    }
}

impl Drop for Event {
    fn drop(&mut self) {
        // SAFETY: the handle is a live event, destroyed once.
        unsafe { (self.destroy)(self.raw()) };
    }
}

/// An `ID3DBlob`'s bytes, copied out, and the blob released.
fn blob_bytes(raw: *mut c_void) -> Option<Vec<u8>> {
    struct Blob(NonNull<Object<vtbl::BlobVtbl>>);
    impl Drop for Blob {
        fn drop(&mut self) {
            // SAFETY: we own the one reference the serializer returned.
            unsafe { ((*(*self.0.as_ptr()).vtbl).unknown.release)(self.0.as_ptr().cast()) };
        }
    }
    let blob = Blob(NonNull::new(raw.cast())?);
    // SAFETY: a live blob; its buffer is valid for its size until it is released (after the
    // copy).
    unsafe {
        let v = &*(*blob.0.as_ptr()).vtbl;
        let p = (v.get_buffer_pointer)(raw);
        let n = (v.get_buffer_size)(raw);
        if p.is_null() {
            return Some(Vec::new());
        }
        Some(std::slice::from_raw_parts(p.cast::<u8>(), n).to_vec())
    }
}
