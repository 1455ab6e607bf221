//! Filling `vkd3d_shader_scan_signature_info`, the output a vertex-shader compile gives
//! libvkd3d (which takes each vertex attribute's location from the input signature's register
//! index). Allocated as vkd3d-shader allocates it (`calloc`ed elements, `strdup`ed semantic
//! names), so that `vkd3d_shader_free_scan_signature_info` of either library frees it.
//!
//! DXBC shaders: the container's signature chunks, as vkd3d reports them (system values of
//! pixel-shader outputs resolved from their names, used masks of outputs as the components
//! written). Direct3D 9 shaders: the translator's reflection of the declared inputs and
//! outputs (semantic usage as name, `v#`/`o#` register); the translator puts every varying at
//! the location vkd3d's register index names.

use translator::container::Container;
use translator::container::signature::{Signature as DxbcSignature, SystemValue};
use translator::reflect::Reflection;

use crate::abi;
use crate::report::Failure;

/// One element before it is copied out.
struct Elem {
    name: String,
    index: u32,
    stream: u32,
    sysval: u32,
    component_type: u32,
    register: u32,
    mask: u32,
    used: u32,
    min_precision: u32,
}

fn alloc(elems: &[Elem]) -> Result<abi::Signature, Failure> {
    if elems.is_empty() {
        return Ok(abi::Signature {
            elements: std::ptr::null_mut(),
            element_count: 0,
        });
    }
    let oom = || Failure {
        result: abi::VKD3D_ERROR_OUT_OF_MEMORY,
        code: crate::report::E_INTERNAL,
        text: "out of memory for the signature".into(),
    };
    // SAFETY: calloc of `len` elements; each is written below before use.
    let p = unsafe { libc::calloc(elems.len(), std::mem::size_of::<abi::SignatureElement>()) }
        .cast::<abi::SignatureElement>();
    if p.is_null() {
        return Err(oom());
    }
    for (k, e) in elems.iter().enumerate() {
        let name = crate::report::malloc_string(&e.name);
        if name.is_null() {
            // SAFETY: frees what was allocated so far, as vkd3d's free would.
            unsafe { free(p, k as u32) };
            return Err(oom());
        }
        // SAFETY: `k < len`, inside the calloc'ed array.
        unsafe {
            p.add(k).write(abi::SignatureElement {
                semantic_name: name.cast_const(),
                semantic_index: e.index,
                stream_index: e.stream,
                sysval_semantic: e.sysval,
                component_type: e.component_type,
                register_index: e.register,
                mask: e.mask,
                used_mask: e.used,
                min_precision: e.min_precision,
            })
        };
    }
    Ok(abi::Signature {
        elements: p,
        element_count: elems.len() as u32,
    })
}

/// Frees `count` elements' names and the array.
///
/// # Safety
/// `p` must come from this module's allocator (or vkd3d-shader) with at least `count` elements.
pub unsafe fn free(p: *mut abi::SignatureElement, count: u32) {
    if p.is_null() {
        return;
    }
    for k in 0..count as usize {
        // SAFETY: inside the array; names are malloc'ed or null.
        unsafe { libc::free((*p.add(k)).semantic_name.cast_mut().cast::<libc::c_void>()) };
    }
    // SAFETY: the array is calloc'ed.
    unsafe { libc::free(p.cast()) };
}

fn from_dxbc(sig: Option<&DxbcSignature<'_>>, output: bool) -> Vec<Elem> {
    let Some(sig) = sig else {
        return Vec::new();
    };
    sig.elements
        .iter()
        .map(|e| Elem {
            name: e.semantic_name.to_string(),
            index: e.semantic_index,
            stream: e.stream,
            sysval: match e.system_value_by_name() {
                SystemValue::Undefined => 0,
                v => v.raw(),
            },
            component_type: e.component_type.raw(),
            register: e.register,
            mask: e.mask.into(),
            used: if output {
                u32::from(e.mask & !e.rw_mask)
            } else {
                e.rw_mask.into()
            },
            min_precision: e.min_precision.raw(),
        })
        .collect()
}

fn from_reflection(vars: &[translator::reflect::InterfaceVar]) -> Vec<Elem> {
    use translator::reflect::ComponentType;
    vars.iter()
        .map(|v| Elem {
            name: v.semantic_name.to_string(),
            index: v.semantic_index,
            stream: 0,
            sysval: 0,
            component_type: match v.component_type {
                ComponentType::Uint => 1,
                ComponentType::Sint => 2,
                ComponentType::Float => 3,
                ComponentType::Double => 5,
            },
            register: v.register.unwrap_or(u32::MAX),
            mask: v.mask.into(),
            used: v.mask.into(),
            min_precision: 0,
        })
        .collect()
}

/// Fills `out` for the shader `bytes`: DXBC from its container, Direct3D 9 (`d3d9`: the
/// translator's reflection of it) from the reflection.
///
/// # Safety
/// `out` must point to a writable `vkd3d_shader_scan_signature_info`.
pub unsafe fn fill(
    out: *mut abi::ScanSignatureInfo,
    bytes: &[u8],
    d3d9: Option<&Reflection>,
) -> Result<(), Failure> {
    let (input, output, patch) = if let Some(reflection) = d3d9 {
        (
            from_reflection(&reflection.inputs),
            from_reflection(&reflection.outputs),
            Vec::new(),
        )
    } else {
        let c = Container::parse(bytes).map_err(|e| Failure::invalid_shader(e.to_string()))?;
        let sig = |tags: &[&[u8; 4]]| -> Result<Option<DxbcSignature<'_>>, Failure> {
            match c.chunk_any(tags) {
                Some(ch) => DxbcSignature::parse(ch)
                    .map(Some)
                    .map_err(|e| Failure::invalid_shader(e.to_string())),
                None => Ok(None),
            }
        };
        (
            from_dxbc(sig(&[b"ISG1", b"ISGN"])?.as_ref(), false),
            from_dxbc(sig(&[b"OSG1", b"OSG5", b"OSGN"])?.as_ref(), true),
            from_dxbc(sig(&[b"PSG1", b"PCSG"])?.as_ref(), true),
        )
    };
    let i = alloc(&input)?;
    let o = match alloc(&output) {
        Ok(o) => o,
        Err(e) => {
            // SAFETY: `i` was just allocated.
            unsafe { free(i.elements, i.element_count) };
            return Err(e);
        }
    };
    let p = match alloc(&patch) {
        Ok(p) => p,
        Err(e) => {
            // SAFETY: both were just allocated.
            unsafe {
                free(i.elements, i.element_count);
                free(o.elements, o.element_count);
            }
            return Err(e);
        }
    };
    // SAFETY: the caller vouches for `out`.
    unsafe {
        (*out).input = i;
        (*out).output = o;
        (*out).patch_constant = p;
    }
    Ok(())
}
