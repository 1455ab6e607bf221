//! The C API called through its `extern "C"` functions, as a C caller would: bad input, binding
//! policies, tables and callbacks (one refusing a register), parameters (a specialization or
//! immediate constant; buffer delivery refused), a binding callback that translates from
//! inside a translation, scan results, the reflection against the Rust API's, parallel calls
//! from several threads on shared handles, and what D3D12 layers ask beyond that (`layer`:
//! texel buffers, dynamic descriptor offsets, mutable bindings, output swizzles, dual-source
//! blending, point size, device features, Vulkan 1.0).

use std::ffi::{CStr, c_char, c_void};
use std::ptr::{null, null_mut};

use dxbc_spirv::chain::*;
use dxbc_spirv::enums::*;
use dxbc_spirv::reflection::*;
use dxbc_spirv::scan::*;
use dxbc_spirv::shader::*;
use dxbc_spirv::translate::*;
use dxbc_spirv::*;

#[path = "c_abi/layer.rs"]
mod layer;

/// A status and the message that came with it (freed).
type Failure = (dxbc_spirv_status, String);

unsafe fn take_message(m: *mut c_char) -> String {
    if m.is_null() {
        return String::new();
    }
    let s = unsafe { CStr::from_ptr(m) }.to_string_lossy().into_owned();
    unsafe { dxbc_spirv_free_message(m) };
    s
}

fn create_info(bytes: &[u8]) -> dxbc_spirv_shader_create_info {
    dxbc_spirv_shader_create_info {
        s_type: DXBC_SPIRV_STRUCTURE_TYPE_SHADER_CREATE_INFO,
        next: null(),
        source_type: DXBC_SPIRV_SOURCE_TYPE_DXBC,
        code: bytes.as_ptr(),
        code_size: bytes.len(),
    }
}

fn create(bytes: &[u8]) -> Result<*mut dxbc_spirv_shader, Failure> {
    let mut shader = null_mut();
    let mut msg = null_mut();
    let s = unsafe { dxbc_spirv_shader_create(&create_info(bytes), &mut shader, &mut msg) };
    let m = unsafe { take_message(msg) };
    if s == DXBC_SPIRV_OK {
        assert!(!shader.is_null() && m.is_empty());
        Ok(shader)
    } else {
        assert!(shader.is_null(), "no handle on failure");
        assert!(!m.is_empty(), "a failure comes with a message");
        Err((s, m))
    }
}

fn translate_info(next: *const c_void) -> dxbc_spirv_translate_info {
    dxbc_spirv_translate_info {
        s_type: DXBC_SPIRV_STRUCTURE_TYPE_TRANSLATE_INFO,
        next,
        target_env: DXBC_SPIRV_TARGET_ENV_VULKAN_1_3,
        flags: 0,
    }
}

/// Translates; the reflection is returned as a raw pointer the caller frees.
fn translate(
    shader: *const dxbc_spirv_shader,
    info: Option<&dxbc_spirv_translate_info>,
) -> Result<(Vec<u32>, *mut dxbc_spirv_reflection), Failure> {
    let mut code = dxbc_spirv_code {
        words: null(),
        word_count: 0,
    };
    let mut refl = null_mut();
    let mut msg = null_mut();
    let info = info.map_or(null(), |i| i as *const _);
    let s = unsafe { dxbc_spirv_translate(shader, info, &mut code, &mut refl, &mut msg) };
    let m = unsafe { take_message(msg) };
    if s != DXBC_SPIRV_OK {
        assert!(code.words.is_null() && code.word_count == 0 && refl.is_null());
        assert!(!m.is_empty());
        return Err((s, m));
    }
    let words = unsafe { std::slice::from_raw_parts(code.words, code.word_count) }.to_vec();
    unsafe { dxbc_spirv_free_code(&mut code) };
    assert!(code.words.is_null(), "free_code empties the struct");
    Ok((words, refl))
}

fn translate_words(
    shader: *const dxbc_spirv_shader,
    info: Option<&dxbc_spirv_translate_info>,
) -> Result<Vec<u32>, Failure> {
    translate(shader, info).map(|(w, r)| {
        unsafe { dxbc_spirv_free_reflection(r) };
        w
    })
}

fn asm(text: &str) -> Vec<u8> {
    translator::asm::assemble(text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// cb0, s0, t0, t1 and a structured UAV u1 whose counter is used.
const PS_RESOURCES: &str = "ps_5_0
.output SV_Target 0 o0 float
dcl_constantbuffer cb0[1], immediateIndexed
dcl_sampler s0, mode_default
dcl_resource_texture2d (float,float,float,float) t0
dcl_resource_texture2d (float,float,float,float) t1
dcl_uav_structured u1, 4
dcl_output o0.xyzw
dcl_temps 2
sample r0.xyzw, cb0[0].xyxx, t0.xyzw, s0
sample r1.xyzw, cb0[0].xyxx, t1.xyzw, s0
add r0.xyzw, r0.xyzw, r1.xyzw
imm_atomic_alloc r1.x, u1
store_structured u1.x, r1.x, l(0), r0.x
utof r1.x, r1.x
add o0.xyzw, r0.xyzw, r1.xxxx
ret
";

const PS_SAMPLE_COUNT: &str = "ps_5_0
.output SV_Target 0 o0 uint
dcl_output o0.xyzw
sampleinfo_uint o0.xyzw, rasterizer.xxxx
ret
";

/// The bundled examples, and the bench's shaders where `../shared` is (else the caller's
/// narrower run is recorded as a partial skip).
fn bench_shaders() -> Vec<(String, Vec<u8>)> {
    let mut files =
        integration_tests::dxbc_files(&integration_tests::repo_root().join("shaders/examples"));
    if let Some(shared) = integration_tests::shared_dir_or_narrow("the bundled examples") {
        files.extend(integration_tests::dxbc_files(&shared.join("bench/dxbc")));
    }
    files
        .into_iter()
        .map(|p| (p.display().to_string(), std::fs::read(&p).unwrap()))
        .collect()
}

#[test]
fn bad_input_is_an_error_never_a_crash() {
    let good = asm(PS_RESOURCES);
    let mut shader = null_mut();
    let mut msg = null_mut();
    unsafe {
        // Null arguments.
        assert_eq!(
            dxbc_spirv_shader_create(null(), &mut shader, &mut msg),
            DXBC_SPIRV_ERROR_INVALID_ARGUMENT
        );
        assert_eq!(take_message(msg), "info is null");
        assert_eq!(
            dxbc_spirv_shader_create(&create_info(&good), null_mut(), null_mut()),
            DXBC_SPIRV_ERROR_INVALID_ARGUMENT
        );
        let mut info = create_info(&good);
        info.code = null();
        assert_eq!(
            dxbc_spirv_shader_create(&info, &mut shader, null_mut()),
            DXBC_SPIRV_ERROR_INVALID_ARGUMENT
        );
        // Wrong structure type, unknown chained struct, unknown source type, D3D9.
        let mut info = create_info(&good);
        info.s_type = 77;
        assert_eq!(create_with(&info).0, DXBC_SPIRV_ERROR_INVALID_ARGUMENT);
        let unknown = dxbc_spirv_chain_header {
            s_type: 1000,
            next: null(),
        };
        let mut info = create_info(&good);
        info.next = (&unknown as *const dxbc_spirv_chain_header).cast();
        let (s, m) = create_with(&info);
        assert_eq!(s, DXBC_SPIRV_ERROR_INVALID_ARGUMENT);
        assert!(m.contains("unknown structure type 1000"), "{m}");
        let mut info = create_info(&good);
        info.source_type = 9;
        assert_eq!(create_with(&info).0, DXBC_SPIRV_ERROR_INVALID_ARGUMENT);
        // A DXBC container is not a Direct3D 9 token stream.
        info.source_type = DXBC_SPIRV_SOURCE_TYPE_D3DBC;
        assert_eq!(create_with(&info).0, DXBC_SPIRV_ERROR_INVALID_SHADER);
        // A D3D9 stream translates; scanning it is refused.
        let d3d9 =
            translator::d3dbc::asm::assemble("vs_2_0\ndcl_position v0\nmov oPos, v0\n").unwrap();
        let mut info = create_info(&d3d9);
        info.source_type = DXBC_SPIRV_SOURCE_TYPE_D3DBC;
        let mut shader = null_mut();
        let mut msg = null_mut();
        let s = dxbc_spirv_shader_create(&info, &mut shader, &mut msg);
        assert_eq!(s, DXBC_SPIRV_OK, "{}", take_message(msg));
        let words = translate_words(shader, None).unwrap();
        assert_eq!(words[0], 0x0723_0203);
        let mut out = null_mut();
        let mut msg = null_mut();
        let s = dxbc_spirv_scan(shader, &mut out, &mut msg);
        assert_eq!(s, DXBC_SPIRV_ERROR_UNSUPPORTED);
        assert!(take_message(msg).contains("Direct3D 9"));
        dxbc_spirv_shader_destroy(shader);
        // c256 in vs_2_0: refused on a hardware vertex-processing device naming the rule;
        // translated with the software vertex-processing or relaxed-limits flag.
        let d3d9 = translator::d3dbc::asm::assemble("vs_2_0\nmov oPos, c256\n").unwrap();
        let mut info = create_info(&d3d9);
        info.source_type = DXBC_SPIRV_SOURCE_TYPE_D3DBC;
        let mut shader = null_mut();
        let s = dxbc_spirv_shader_create(&info, &mut shader, null_mut());
        assert_eq!(s, DXBC_SPIRV_OK);
        let (s, m) = translate_words(shader, None).unwrap_err();
        assert_eq!(s, DXBC_SPIRV_ERROR_INVALID_SHADER);
        assert!(m.contains("rule constant-register-range"), "{m}");
        for flag in [
            DXBC_SPIRV_TRANSLATE_D3D9_SOFTWARE_VERTEX_PROCESSING,
            DXBC_SPIRV_TRANSLATE_D3D9_RELAXED_LIMITS,
        ] {
            let mut t = translate_info(null());
            t.flags = flag;
            let words = translate_words(shader, Some(&t)).unwrap();
            assert_eq!(words[0], 0x0723_0203);
        }
        dxbc_spirv_shader_destroy(shader);

        // Null and garbage handles.
        let mut code = dxbc_spirv_code {
            words: null(),
            word_count: 0,
        };
        assert_eq!(
            dxbc_spirv_translate(null(), null(), &mut code, null_mut(), null_mut()),
            DXBC_SPIRV_ERROR_INVALID_ARGUMENT
        );
        let fake = [0u64; 8];
        let (s, m) = {
            let mut msg = null_mut();
            let s = dxbc_spirv_translate(
                fake.as_ptr().cast(),
                null(),
                &mut code,
                null_mut(),
                &mut msg,
            );
            (s, take_message(msg))
        };
        assert_eq!(s, DXBC_SPIRV_ERROR_INVALID_ARGUMENT);
        assert!(m.contains("not a handle"), "{m}");
        let mut scan = null_mut();
        assert_eq!(
            dxbc_spirv_scan(null(), &mut scan, null_mut()),
            DXBC_SPIRV_ERROR_INVALID_ARGUMENT
        );
        // Freeing null does nothing.
        dxbc_spirv_free_message(null_mut());
        dxbc_spirv_free_scan(null_mut());
        dxbc_spirv_free_reflection(null_mut());
        dxbc_spirv_free_code(null_mut());
        dxbc_spirv_shader_destroy(null_mut());
    }

    // Malformed bytecode: every truncation and a byte flipped at each offset.
    let (s, m) = create(&good[..20]).unwrap_err();
    assert_eq!(s, DXBC_SPIRV_ERROR_INVALID_SHADER);
    assert!(m.contains("byte offset"), "{m}");
    assert_eq!(
        create(b"not a shader at all, just text").unwrap_err().0,
        DXBC_SPIRV_ERROR_INVALID_SHADER
    );
    for cut in 0..good.len() {
        let _ = create(&good[..cut]).map(|s| unsafe { dxbc_spirv_shader_destroy(s) });
    }
    for at in (0..good.len()).step_by(3) {
        let mut bad = good.clone();
        bad[at] ^= 0x5a;
        if let Ok(shader) = create(&bad) {
            let mut scan = null_mut();
            let mut msg = null_mut();
            let st = unsafe { dxbc_spirv_scan(shader, &mut scan, &mut msg) };
            let m = unsafe { take_message(msg) };
            assert!(st == DXBC_SPIRV_OK || !m.is_empty());
            unsafe { dxbc_spirv_free_scan(scan) };
            if let Err((st, m)) = translate_words(shader, None) {
                assert!(
                    [
                        DXBC_SPIRV_ERROR_INVALID_SHADER,
                        DXBC_SPIRV_ERROR_UNSUPPORTED,
                        DXBC_SPIRV_ERROR_BINDING
                    ]
                    .contains(&st),
                    "flipping byte {at}: status {st}: {m}"
                );
            }
            unsafe { dxbc_spirv_shader_destroy(shader) };
        }
    }

    // Bad translate infos.
    let shader = create(&good).unwrap();
    let mut info = translate_info(null());
    info.target_env = 42;
    assert_eq!(
        translate_words(shader, Some(&info)).unwrap_err().0,
        DXBC_SPIRV_ERROR_INVALID_ARGUMENT
    );
    let mut info = translate_info(null());
    info.flags = 1 << 30;
    assert_eq!(
        translate_words(shader, Some(&info)).unwrap_err().0,
        DXBC_SPIRV_ERROR_INVALID_ARGUMENT
    );
    // A chain that loops on itself.
    let mut policy = dxbc_spirv_binding_policy_info {
        s_type: DXBC_SPIRV_STRUCTURE_TYPE_BINDING_POLICY_INFO,
        next: null(),
        policy: DXBC_SPIRV_BINDING_POLICY_PER_RANGE,
    };
    policy.next = (&policy as *const dxbc_spirv_binding_policy_info).cast();
    let (s, m) = translate_words(
        shader,
        Some(&translate_info(
            (&policy as *const dxbc_spirv_binding_policy_info).cast(),
        )),
    )
    .unwrap_err();
    assert_eq!(s, DXBC_SPIRV_ERROR_INVALID_ARGUMENT);
    assert!(m.contains("twice"), "{m}");
    unsafe { dxbc_spirv_shader_destroy(shader) };
}

fn create_with(info: &dxbc_spirv_shader_create_info) -> Failure {
    let mut shader = null_mut();
    let mut msg = null_mut();
    let s = unsafe { dxbc_spirv_shader_create(info, &mut shader, &mut msg) };
    assert!(shader.is_null());
    (s, unsafe { take_message(msg) })
}

/// Records the requests and places each at set 5, binding 100 + its index; refuses `t1`.
#[derive(Default)]
struct Recorder {
    requests: Vec<dxbc_spirv_binding_request>,
    refuse_t1: bool,
}

unsafe extern "C" fn record(
    user: *mut c_void,
    req: *const dxbc_spirv_binding_request,
    out: *mut dxbc_spirv_binding,
) -> dxbc_spirv_bool {
    let rec = unsafe { &mut *user.cast::<Recorder>() };
    let req = unsafe { *req };
    if rec.refuse_t1
        && req.register_class == DXBC_SPIRV_REGISTER_CLASS_SRV
        && req.register_index == 1
    {
        return 0;
    }
    let binding = 100 + rec.requests.len() as u32;
    rec.requests.push(req);
    unsafe {
        *out = dxbc_spirv_binding {
            kind: DXBC_SPIRV_BINDING_KIND_DESCRIPTOR,
            set: 5,
            binding,
            ..Default::default()
        }
    };
    1
}

fn reflection_descriptors(r: *const dxbc_spirv_reflection) -> Vec<dxbc_spirv_descriptor> {
    let r = unsafe { &*r };
    unsafe { std::slice::from_raw_parts(r.descriptors, r.descriptor_count as usize) }.to_vec()
}

#[test]
fn binding_callback_places_and_refuses() {
    let shader = create(&asm(PS_RESOURCES)).unwrap();
    let mut rec = Recorder::default();
    let cb = dxbc_spirv_binding_callback_info {
        s_type: DXBC_SPIRV_STRUCTURE_TYPE_BINDING_CALLBACK_INFO,
        next: null(),
        callback: Some(record),
        user_data: (&mut rec as *mut Recorder).cast(),
    };
    let info = translate_info((&cb as *const dxbc_spirv_binding_callback_info).cast());
    let (_, refl) = translate(shader, Some(&info)).unwrap();
    let got: Vec<_> = rec
        .requests
        .iter()
        .map(|r| {
            (
                r.stage,
                r.register_class,
                r.register_index,
                r.count,
                r.descriptor_type,
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (
                DXBC_SPIRV_STAGE_PIXEL,
                DXBC_SPIRV_REGISTER_CLASS_CBV,
                0,
                1,
                DXBC_SPIRV_DESCRIPTOR_TYPE_UNIFORM_BUFFER
            ),
            (
                DXBC_SPIRV_STAGE_PIXEL,
                DXBC_SPIRV_REGISTER_CLASS_SAMPLER,
                0,
                1,
                DXBC_SPIRV_DESCRIPTOR_TYPE_SAMPLER
            ),
            (
                DXBC_SPIRV_STAGE_PIXEL,
                DXBC_SPIRV_REGISTER_CLASS_SRV,
                0,
                1,
                DXBC_SPIRV_DESCRIPTOR_TYPE_SAMPLED_IMAGE
            ),
            (
                DXBC_SPIRV_STAGE_PIXEL,
                DXBC_SPIRV_REGISTER_CLASS_SRV,
                1,
                1,
                DXBC_SPIRV_DESCRIPTOR_TYPE_SAMPLED_IMAGE
            ),
            (
                DXBC_SPIRV_STAGE_PIXEL,
                DXBC_SPIRV_REGISTER_CLASS_UAV,
                1,
                1,
                DXBC_SPIRV_DESCRIPTOR_TYPE_STORAGE_BUFFER
            ),
            (
                DXBC_SPIRV_STAGE_PIXEL,
                DXBC_SPIRV_REGISTER_CLASS_UAV_COUNTER,
                1,
                1,
                DXBC_SPIRV_DESCRIPTOR_TYPE_STORAGE_BUFFER
            ),
        ]
    );
    // The reflection has the callback's placements, each beside its D3D origin.
    let mut placed: Vec<_> = reflection_descriptors(refl)
        .iter()
        .map(|d| (d.set, d.binding, d.register_class, d.register_lower))
        .collect();
    placed.sort();
    assert_eq!(
        placed,
        [
            (5, 100, DXBC_SPIRV_REGISTER_CLASS_CBV, 0),
            (5, 101, DXBC_SPIRV_REGISTER_CLASS_SAMPLER, 0),
            (5, 102, DXBC_SPIRV_REGISTER_CLASS_SRV, 0),
            (5, 103, DXBC_SPIRV_REGISTER_CLASS_SRV, 1),
            (5, 104, DXBC_SPIRV_REGISTER_CLASS_UAV, 1),
            (5, 105, DXBC_SPIRV_REGISTER_CLASS_UAV_COUNTER, 1),
        ]
    );
    unsafe { dxbc_spirv_free_reflection(refl) };

    let mut refusing = Recorder {
        refuse_t1: true,
        ..Default::default()
    };
    let cb = dxbc_spirv_binding_callback_info {
        user_data: (&mut refusing as *mut Recorder).cast(),
        ..cb
    };
    let info = translate_info((&cb as *const dxbc_spirv_binding_callback_info).cast());
    let (s, m) = translate_words(shader, Some(&info)).unwrap_err();
    assert_eq!(s, DXBC_SPIRV_ERROR_BINDING);
    assert!(
        m.contains("no binding for t1 in space 0: the binding callback refused it"),
        "{m}"
    );
    unsafe { dxbc_spirv_shader_destroy(shader) };
}

/// A binding callback that itself translates a shader (here: on every request), as a layer
/// might when a binding decision needs another shader's reflection. The thread's translator is
/// busy then; the inner translation must still succeed and equal a plain translation, and the
/// outer one must equal its translation with a callback that does not re-enter.
struct Reentrant {
    inner: *const dxbc_spirv_shader,
    inner_words: Vec<Vec<u32>>,
    rec: Recorder,
}

unsafe extern "C" fn translate_then_record(
    user: *mut c_void,
    req: *const dxbc_spirv_binding_request,
    out: *mut dxbc_spirv_binding,
) -> dxbc_spirv_bool {
    let me = unsafe { &mut *user.cast::<Reentrant>() };
    let words = translate_words(me.inner, None).expect("inner translation");
    me.inner_words.push(words);
    unsafe { record((&mut me.rec as *mut Recorder).cast(), req, out) }
}

#[test]
fn binding_callback_may_translate_from_inside_a_translation() {
    let outer = create(&asm(PS_RESOURCES)).unwrap();
    let inner = create(&asm(PS_SAMPLE_COUNT)).unwrap();
    let inner_alone = translate_words(inner, None).unwrap();

    let mut plain = Recorder::default();
    let cb = dxbc_spirv_binding_callback_info {
        s_type: DXBC_SPIRV_STRUCTURE_TYPE_BINDING_CALLBACK_INFO,
        next: null(),
        callback: Some(record),
        user_data: (&mut plain as *mut Recorder).cast(),
    };
    let info = translate_info((&cb as *const dxbc_spirv_binding_callback_info).cast());
    let outer_alone = translate_words(outer, Some(&info)).unwrap();

    let mut re = Reentrant {
        inner,
        inner_words: Vec::new(),
        rec: Recorder::default(),
    };
    let cb = dxbc_spirv_binding_callback_info {
        callback: Some(translate_then_record),
        user_data: (&mut re as *mut Reentrant).cast(),
        ..cb
    };
    let info = translate_info((&cb as *const dxbc_spirv_binding_callback_info).cast());
    let outer_reentered = translate_words(outer, Some(&info)).unwrap();
    assert_eq!(
        re.rec.requests.len(),
        6,
        "one request per resource of PS_RESOURCES"
    );
    assert_eq!(re.inner_words.len(), 6);
    for w in &re.inner_words {
        assert!(
            *w == inner_alone,
            "an inner translation differs from a plain one"
        );
    }
    assert!(
        outer_reentered == outer_alone,
        "re-entering changed the outer translation"
    );
    // The thread's translator is usable again afterwards.
    assert!(translate_words(inner, None).unwrap() == inner_alone);
    unsafe {
        dxbc_spirv_shader_destroy(outer);
        dxbc_spirv_shader_destroy(inner);
    }
}

#[test]
fn binding_table_and_policy() {
    let shader = create(&asm(PS_RESOURCES)).unwrap();
    let rule = |register_class, register_index, count, binding| dxbc_spirv_descriptor_rule {
        register_class,
        register_space: 0,
        register_index,
        count,
        set: 1,
        binding,
        array_offset: 0,
        descriptor_type_mask: 0,
    };
    let mut rules = vec![
        rule(DXBC_SPIRV_REGISTER_CLASS_SAMPLER, 0, 16, 0),
        rule(DXBC_SPIRV_REGISTER_CLASS_SRV, 0, DXBC_SPIRV_UNBOUNDED, 1),
        rule(DXBC_SPIRV_REGISTER_CLASS_UAV, 0, 8, 2),
        rule(DXBC_SPIRV_REGISTER_CLASS_UAV_COUNTER, 0, 8, 3),
    ];
    let push = [dxbc_spirv_push_constant_rule {
        register_space: 0,
        register_index: 0,
        offset: 0,
        size: 16,
    }];
    let table = |rules: &[dxbc_spirv_descriptor_rule]| dxbc_spirv_binding_table_info {
        s_type: DXBC_SPIRV_STRUCTURE_TYPE_BINDING_TABLE_INFO,
        next: null(),
        descriptor_rule_count: rules.len() as u32,
        descriptor_rules: rules.as_ptr(),
        push_constant_rule_count: 1,
        push_constant_rules: push.as_ptr(),
    };
    let t = table(&rules);
    let (_, refl) = translate(
        shader,
        Some(&translate_info(
            (&t as *const dxbc_spirv_binding_table_info).cast(),
        )),
    )
    .unwrap();
    let r = unsafe { &*refl };
    assert_eq!(r.push_constant_count, 1);
    let pc = unsafe { *r.push_constants };
    assert_eq!((pc.offset, pc.size, pc.register_index), (0, 16, 0));
    let placed: Vec<_> = reflection_descriptors(refl)
        .iter()
        .map(|d| (d.set, d.binding, d.array_offset, d.count))
        .collect();
    // t0 and t1 share binding 1 of the unbounded SRV table at elements 0 and 1.
    assert_eq!(
        placed,
        [
            (1, 0, 0, 1),
            (1, 1, 0, 1),
            (1, 1, 1, 2),
            (1, 2, 1, 2),
            (1, 3, 1, 2)
        ]
    );
    unsafe { dxbc_spirv_free_reflection(refl) };

    // A table that does not cover t1, and a malformed one.
    rules[1].count = 1;
    let t = table(&rules);
    let (s, m) = translate_words(
        shader,
        Some(&translate_info(
            (&t as *const dxbc_spirv_binding_table_info).cast(),
        )),
    )
    .unwrap_err();
    assert_eq!(s, DXBC_SPIRV_ERROR_BINDING);
    assert!(m.contains("no binding for t1 in space 0"), "{m}");
    rules[1].count = 0;
    let t = table(&rules);
    let (s, m) = translate_words(
        shader,
        Some(&translate_info(
            (&t as *const dxbc_spirv_binding_table_info).cast(),
        )),
    )
    .unwrap_err();
    assert_eq!(s, DXBC_SPIRV_ERROR_INVALID_ARGUMENT);
    assert!(m.contains("count must be at least 1"), "{m}");
    rules[1].count = 1;
    // Bit 8 names no descriptor type.
    rules[1].descriptor_type_mask = 1 << 8;
    let t = table(&rules);
    assert_eq!(
        translate_words(
            shader,
            Some(&translate_info(
                (&t as *const dxbc_spirv_binding_table_info).cast()
            ))
        )
        .unwrap_err()
        .0,
        DXBC_SPIRV_ERROR_INVALID_ARGUMENT
    );

    rules[1].descriptor_type_mask = 0;
    let t = table(&rules);
    // The vkd3d policy: set 0, bindings in declaration order.
    let policy = dxbc_spirv_binding_policy_info {
        s_type: DXBC_SPIRV_STRUCTURE_TYPE_BINDING_POLICY_INFO,
        next: null(),
        policy: DXBC_SPIRV_BINDING_POLICY_VKD3D,
    };
    let (_, refl) = translate(
        shader,
        Some(&translate_info(
            (&policy as *const dxbc_spirv_binding_policy_info).cast(),
        )),
    )
    .unwrap();
    let placed: Vec<_> = reflection_descriptors(refl)
        .iter()
        .map(|d| (d.set, d.binding))
        .collect();
    assert_eq!(placed, [(0, 0), (0, 1), (0, 2), (0, 3), (0, 4), (0, 5)]);
    unsafe { dxbc_spirv_free_reflection(refl) };
    // Two binding structs in one chain.
    let both = dxbc_spirv_binding_policy_info {
        next: (&t as *const dxbc_spirv_binding_table_info).cast(),
        ..policy
    };
    let (s, m) = translate_words(
        shader,
        Some(&translate_info(
            (&both as *const dxbc_spirv_binding_policy_info).cast(),
        )),
    )
    .unwrap_err();
    assert_eq!(s, DXBC_SPIRV_ERROR_INVALID_ARGUMENT);
    assert!(m.contains("more than one"), "{m}");
    unsafe { dxbc_spirv_shader_destroy(shader) };
}

fn parameter(name: u32, ty: u32, data_type: u32, value: u32) -> dxbc_spirv_parameter {
    dxbc_spirv_parameter {
        name,
        r#type: ty,
        data_type,
        u: dxbc_spirv_parameter_value {
            immediate_constant: value,
        },
    }
}

/// `OpDecorate %id SpecId N` operands (id, N) in a module.
fn spec_ids(words: &[u32]) -> Vec<u32> {
    let mut out = Vec::new();
    let mut i = 5;
    while i < words.len() {
        let n = (words[i] >> 16) as usize;
        // OpDecorate = 71, SpecId = 1.
        if words[i] & 0xffff == 71 && n == 4 && words[i + 2] == 1 {
            out.push(words[i + 3]);
        }
        i += n.max(1);
    }
    out
}

#[test]
fn sample_count_as_a_specialization_constant() {
    let shader = create(&asm(PS_SAMPLE_COUNT)).unwrap();
    let params = [parameter(
        DXBC_SPIRV_PARAMETER_NAME_RASTERIZER_SAMPLE_COUNT,
        DXBC_SPIRV_PARAMETER_TYPE_SPECIALIZATION_CONSTANT,
        DXBC_SPIRV_PARAMETER_DATA_TYPE_UINT32,
        9,
    )];
    let pinfo = |params: &[dxbc_spirv_parameter]| dxbc_spirv_parameter_info {
        s_type: DXBC_SPIRV_STRUCTURE_TYPE_PARAMETER_INFO,
        next: null(),
        parameter_count: params.len() as u32,
        parameters: params.as_ptr(),
    };
    let p = pinfo(&params);
    let info = translate_info((&p as *const dxbc_spirv_parameter_info).cast());
    let (words, refl) = translate(shader, Some(&info)).unwrap();
    assert_eq!(spec_ids(&words), [9]);
    let r = unsafe { &*refl };
    assert_eq!(r.spec_constant_count, 1);
    let sc = unsafe { *r.spec_constants };
    assert_eq!(
        (sc.id, sc.parameter_name, sc.default_value),
        (9, DXBC_SPIRV_PARAMETER_NAME_RASTERIZER_SAMPLE_COUNT, 1)
    );
    unsafe { dxbc_spirv_free_reflection(refl) };
    // Without parameters: specialization constant 0.
    assert_eq!(spec_ids(&translate_words(shader, None).unwrap()), [0]);

    // An immediate constant: no specialization constant; a count that is none is refused.
    let params = [parameter(
        DXBC_SPIRV_PARAMETER_NAME_RASTERIZER_SAMPLE_COUNT,
        DXBC_SPIRV_PARAMETER_TYPE_IMMEDIATE_CONSTANT,
        DXBC_SPIRV_PARAMETER_DATA_TYPE_UINT32,
        4,
    )];
    let p = pinfo(&params);
    let info = translate_info((&p as *const dxbc_spirv_parameter_info).cast());
    let (words, refl) = translate(shader, Some(&info)).unwrap();
    assert_eq!(spec_ids(&words), [0u32; 0]);
    assert_eq!(unsafe { (*refl).spec_constant_count }, 0);
    unsafe { dxbc_spirv_free_reflection(refl) };
    let rust = translator::translate(
        &asm(PS_SAMPLE_COUNT),
        &translator::Options {
            rasterizer_sample_count: Some(4),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(words, rust.spirv);
    for bad in [0, 3, 128] {
        let params = [parameter(
            DXBC_SPIRV_PARAMETER_NAME_RASTERIZER_SAMPLE_COUNT,
            DXBC_SPIRV_PARAMETER_TYPE_IMMEDIATE_CONSTANT,
            DXBC_SPIRV_PARAMETER_DATA_TYPE_UINT32,
            bad,
        )];
        let p = pinfo(&params);
        let (s, m) = translate_words(
            shader,
            Some(&translate_info(
                (&p as *const dxbc_spirv_parameter_info).cast(),
            )),
        )
        .unwrap_err();
        assert_eq!(s, DXBC_SPIRV_ERROR_INVALID_ARGUMENT, "{m}");
        assert!(m.contains(&format!("RASTERIZER_SAMPLE_COUNT {bad}")), "{m}");
    }

    // What the translator cannot deliver is refused, naming it.
    for (ty, status, needle) in [
        (
            DXBC_SPIRV_PARAMETER_TYPE_BUFFER,
            DXBC_SPIRV_ERROR_UNSUPPORTED,
            "as a buffer",
        ),
        (
            DXBC_SPIRV_PARAMETER_TYPE_PUSH_CONSTANT,
            DXBC_SPIRV_ERROR_UNSUPPORTED,
            "as a push constant",
        ),
        (77, DXBC_SPIRV_ERROR_INVALID_ARGUMENT, "type 77"),
    ] {
        let params = [parameter(
            DXBC_SPIRV_PARAMETER_NAME_RASTERIZER_SAMPLE_COUNT,
            ty,
            DXBC_SPIRV_PARAMETER_DATA_TYPE_UINT32,
            4,
        )];
        let p = pinfo(&params);
        let (s, m) = translate_words(
            shader,
            Some(&translate_info(
                (&p as *const dxbc_spirv_parameter_info).cast(),
            )),
        )
        .unwrap_err();
        assert_eq!(s, status, "{m}");
        assert!(m.contains(needle), "{m}");
    }
    let params = [parameter(
        DXBC_SPIRV_PARAMETER_NAME_TESS_FACTOR_LIMIT,
        DXBC_SPIRV_PARAMETER_TYPE_SPECIALIZATION_CONSTANT,
        DXBC_SPIRV_PARAMETER_DATA_TYPE_FLOAT32,
        3,
    )];
    let p = pinfo(&params);
    let (s, m) = translate_words(
        shader,
        Some(&translate_info(
            (&p as *const dxbc_spirv_parameter_info).cast(),
        )),
    )
    .unwrap_err();
    assert_eq!(s, DXBC_SPIRV_ERROR_UNSUPPORTED);
    assert!(m.contains("TESS_FACTOR_LIMIT"), "{m}");
    let params = [parameter(
        DXBC_SPIRV_PARAMETER_NAME_RASTERIZER_SAMPLE_COUNT,
        DXBC_SPIRV_PARAMETER_TYPE_SPECIALIZATION_CONSTANT,
        DXBC_SPIRV_PARAMETER_DATA_TYPE_FLOAT32,
        3,
    )];
    let p = pinfo(&params);
    assert_eq!(
        translate_words(
            shader,
            Some(&translate_info(
                (&p as *const dxbc_spirv_parameter_info).cast()
            ))
        )
        .unwrap_err()
        .0,
        DXBC_SPIRV_ERROR_INVALID_ARGUMENT
    );
    unsafe { dxbc_spirv_shader_destroy(shader) };
}

fn scan(shader: *const dxbc_spirv_shader) -> *mut dxbc_spirv_scan_info {
    let mut out = null_mut();
    let mut msg = null_mut();
    let s = unsafe { dxbc_spirv_scan(shader, &mut out, &mut msg) };
    assert_eq!(s, DXBC_SPIRV_OK, "{}", unsafe { take_message(msg) });
    out
}

#[test]
fn scan_reports_resources_signatures_and_features() {
    let shader = create(&asm(PS_RESOURCES)).unwrap();
    let info = scan(shader);
    let s = unsafe { &*info };
    assert_eq!(
        (s.stage, s.shader_model_major, s.shader_model_minor),
        (DXBC_SPIRV_STAGE_PIXEL, 5, 0)
    );
    assert_eq!(s.checksum_valid, 1);
    assert_eq!(s.features, DXBC_SPIRV_FEATURE_UAV_COUNTER);
    let res = unsafe { std::slice::from_raw_parts(s.resources, s.resource_count as usize) };
    let got: Vec<_> = res
        .iter()
        .map(|r| {
            (
                r.register_class,
                r.kind,
                r.register_lower,
                r.register_upper,
                r.flags,
            )
        })
        .collect();
    let uav_flags = DXBC_SPIRV_RESOURCE_UAV_COUNTER | DXBC_SPIRV_RESOURCE_UAV_WRITE;
    assert_eq!(
        got,
        [
            (
                DXBC_SPIRV_REGISTER_CLASS_CBV,
                DXBC_SPIRV_RESOURCE_KIND_CONSTANT_BUFFER,
                0,
                0,
                0
            ),
            (
                DXBC_SPIRV_REGISTER_CLASS_SAMPLER,
                DXBC_SPIRV_RESOURCE_KIND_SAMPLER,
                0,
                0,
                0
            ),
            (
                DXBC_SPIRV_REGISTER_CLASS_SRV,
                DXBC_SPIRV_RESOURCE_KIND_TYPED,
                0,
                0,
                0
            ),
            (
                DXBC_SPIRV_REGISTER_CLASS_SRV,
                DXBC_SPIRV_RESOURCE_KIND_TYPED,
                1,
                1,
                0
            ),
            (
                DXBC_SPIRV_REGISTER_CLASS_UAV,
                DXBC_SPIRV_RESOURCE_KIND_UAV_STRUCTURED,
                1,
                1,
                uav_flags
            ),
        ]
    );
    assert_eq!(res[0].size_bytes, 16);
    assert_eq!(
        (res[2].dimension, res[2].return_type),
        (
            DXBC_SPIRV_RESOURCE_DIMENSION_TEXTURE2D,
            DXBC_SPIRV_RETURN_TYPE_FLOAT
        )
    );
    assert_eq!(res[4].stride, 4);
    assert_eq!(s.output_count, 1);
    let out = unsafe { *s.outputs };
    assert_eq!(
        unsafe { CStr::from_ptr(out.semantic_name) }.to_str(),
        Ok("SV_Target")
    );
    assert_eq!(
        (out.system_value, out.component_type, out.register_index),
        (64, 3, 0)
    );
    unsafe { dxbc_spirv_free_scan(info) };
    unsafe { dxbc_spirv_shader_destroy(shader) };

    // Feature bits from the code.
    for (text, want) in [
        (
            "vs_5_0\n.output SV_Position 0 o0 float POS\n.output SV_RenderTargetArrayIndex 0 o1.x uint RTINDEX\n\
             dcl_output_siv o0.xyzw, position\ndcl_output_siv o1.x, rendertarget_array_index\n\
             mov o0.xyzw, l(0,0,0,1.0)\nmov o1.x, l(1)\nret\n",
            DXBC_SPIRV_FEATURE_LAYER_FROM_VERTEX_PIPELINE,
        ),
        (
            "ps_5_0\n.output SV_Target 0 o0 float\ndcl_output o0.xyzw\ndcl_temps 1\n\
             dadd r0.xy, d(1.0, 0), d(2.0, 0)\ndtof o0.x, r0.xy\nmov o0.yzw, l(0,0,0,0)\nret\n",
            DXBC_SPIRV_FEATURE_FLOAT64,
        ),
        (
            "cs_5_0\ndcl_uav_typed_texture2d (float,float,float,float) u0\ndcl_temps 1\n\
             dcl_thread_group 8, 8, 1\nld_uav_typed r0.xyzw, l(0,0,0,0), u0.xyzw\n\
             store_uav_typed u0.xyzw, l(1,1,0,0), r0.xyzw\nret\n",
            DXBC_SPIRV_FEATURE_TYPED_UAV_LOAD,
        ),
    ] {
        let shader = create(&asm(text)).unwrap();
        let info = scan(shader);
        let s = unsafe { &*info };
        assert_eq!(s.features, want, "{text}");
        if s.stage == DXBC_SPIRV_STAGE_COMPUTE {
            assert_eq!(s.workgroup_size, [8, 8, 1]);
            let r = unsafe { *s.resources };
            assert_eq!(
                r.flags,
                DXBC_SPIRV_RESOURCE_UAV_READ
                    | DXBC_SPIRV_RESOURCE_UAV_WRITE
                    | DXBC_SPIRV_RESOURCE_UAV_TYPED_LOAD
            );
        }
        unsafe { dxbc_spirv_free_scan(info) };
        unsafe { dxbc_spirv_shader_destroy(shader) };
    }
}

#[test]
fn reflection_matches_the_rust_api() {
    let shaders = bench_shaders();
    assert!(shaders.len() >= 2, "the bundled examples at least");
    for (name, bytes) in &shaders {
        let rust = translator::translate(bytes, &translator::Options::default()).unwrap();
        let shader = create(bytes).unwrap();
        let (words, refl) = translate(shader, None).unwrap();
        assert_eq!(words, rust.spirv, "{name}");
        let r = unsafe { &*refl };
        let rr = &rust.reflection;
        assert_eq!(
            unsafe { CStr::from_ptr(r.entry_point) }.to_str(),
            Ok(rr.entry_point.as_str())
        );
        assert_eq!(r.input_count as usize, rr.inputs.len(), "{name}");
        assert_eq!(r.output_count as usize, rr.outputs.len(), "{name}");
        let ds = reflection_descriptors(refl);
        assert_eq!(ds.len(), rr.descriptors.len(), "{name}");
        for (c, d) in ds.iter().zip(&rr.descriptors) {
            assert_eq!(
                (c.set, c.binding, c.array_offset),
                (d.set, d.binding, d.array_offset)
            );
            assert_eq!(c.count, d.count.unwrap_or(DXBC_SPIRV_UNBOUNDED));
            assert_eq!(c.register_lower, d.origin.lower);
            assert_eq!(c.writable != 0, d.writable);
        }
        let caps: Vec<String> =
            unsafe { std::slice::from_raw_parts(r.capabilities, r.capability_count as usize) }
                .iter()
                .map(|&p| unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned())
                .collect();
        assert_eq!(caps, rr.capabilities, "{name}");
        for (c, v) in unsafe { std::slice::from_raw_parts(r.inputs, r.input_count as usize) }
            .iter()
            .zip(&rr.inputs)
        {
            assert_eq!(
                unsafe { CStr::from_ptr(c.semantic_name) }.to_str(),
                Ok(v.semantic_name.as_ref())
            );
            assert_eq!(c.register_index, v.register.unwrap_or(DXBC_SPIRV_UNBOUNDED));
        }
        let info = scan(shader);
        assert_eq!(unsafe { (*info).stage }, r.stage, "{name}");
        unsafe { dxbc_spirv_free_scan(info) };
        unsafe { dxbc_spirv_free_reflection(refl) };
        unsafe { dxbc_spirv_shader_destroy(shader) };
    }
}

#[test]
fn reflection_states_the_class_instance_buffer() {
    let ps = "ps_5_0\n.output SV_Target 0 o0 float\ndcl_function_body fb0\n\
        dcl_function_table ft0 = {fb0}\ndcl_interface_dynamicindexed fp1[2][1] = {ft0}\n\
        dcl_output o0.xyzw\ndcl_temps 1\nmov r0.xyzw, l(0, 0, 0, 0)\nfcall fp1[0][0]\n\
        mov o0.xyzw, r0.xyzw\nret\nlabel fb0\nmov r0.x, l(1.0)\nret\n";
    let shader = create(&asm(ps)).unwrap();
    let (_, refl) = translate(shader, None).unwrap();
    let r = unsafe { &*refl };
    // Slots 0..3 (fp1 covers 1 and 2), 32 bytes each, at b15.
    assert_eq!(
        (
            r.class_instance_register,
            r.class_slot_count,
            r.class_slot_stride
        ),
        (15, 3, 32)
    );
    let ds = reflection_descriptors(refl);
    assert!(ds.iter().any(|d| d.register_lower == 15), "{ds:?}");
    unsafe { dxbc_spirv_free_reflection(refl) };
    unsafe { dxbc_spirv_shader_destroy(shader) };
    // Without interfaces: zeros.
    let plain = "ps_5_0\n.output SV_Target 0 o0 float\ndcl_output o0.xyzw\n\
        mov o0.xyzw, l(0, 0, 0, 0)\nret\n";
    let shader = create(&asm(plain)).unwrap();
    let (_, refl) = translate(shader, None).unwrap();
    let r = unsafe { &*refl };
    assert_eq!(
        (
            r.class_instance_register,
            r.class_slot_count,
            r.class_slot_stride
        ),
        (0, 0, 0)
    );
    unsafe { dxbc_spirv_free_reflection(refl) };
    unsafe { dxbc_spirv_shader_destroy(shader) };
}

/// A shader handle shared by threads (the API allows parallel calls on one handle).
#[derive(Clone, Copy)]
struct Shared(*mut dxbc_spirv_shader);
// SAFETY: a shader handle is immutable; the API documents calls on it as thread-safe.
unsafe impl Send for Shared {}
// SAFETY: as above.
unsafe impl Sync for Shared {}

#[test]
fn parallel_calls_from_several_threads() {
    let mut sources: Vec<Vec<u8>> = bench_shaders().into_iter().map(|s| s.1).collect();
    sources.push(asm(PS_RESOURCES));
    sources.push(asm(PS_SAMPLE_COUNT));
    let handles: Vec<Shared> = sources.iter().map(|b| Shared(create(b).unwrap())).collect();
    let expected: Vec<Vec<u32>> = handles
        .iter()
        .map(|h| translate_words(h.0, None).unwrap())
        .collect();
    std::thread::scope(|s| {
        for t in 0..6 {
            let (handles, expected, sources) = (&handles, &expected, &sources);
            s.spawn(move || {
                for round in 0..3 {
                    for (i, h) in handles.iter().enumerate().skip(t % 3) {
                        // Each thread also creates and destroys handles of its own.
                        let own = create(&sources[i]).unwrap();
                        let shared = translate_words(h.0, None).unwrap();
                        let mine = translate_words(own, None).unwrap();
                        assert_eq!(shared, expected[i], "thread {t} round {round} shader {i}");
                        assert_eq!(mine, expected[i]);
                        let info = scan(own);
                        unsafe { dxbc_spirv_free_scan(info) };
                        unsafe { dxbc_spirv_shader_destroy(own) };
                    }
                }
            });
        }
    });
    for h in handles {
        unsafe { dxbc_spirv_shader_destroy(h.0) };
    }
}

/// A vertex shader with a position, a float3 in register 1 and a float sharing it.
const VS_XFB: &str = "vs_5_0
.input POSITION 0 v0 float
.output SV_Position 0 o0 float POS
.output NORMAL 0 o1.xyz float
.output COLOR 1 o1.w float
dcl_input v0.xyzw
dcl_output_siv o0.xyzw, position
dcl_output o1.xyz
dcl_output o1.w
mov o0.xyzw, v0.xyzw
mov o1.xyzw, v0.wzyx
ret
";

#[test]
fn stream_output_declaration() {
    let shader = create(&asm(VS_XFB)).unwrap();
    let entry = |name: *const c_char, start, count, slot| {
        dxbc_spirv::stream_output::dxbc_spirv_stream_output_entry {
            stream: 0,
            semantic_name: name,
            semantic_index: 0,
            start_component: start,
            component_count: count,
            output_slot: slot,
        }
    };
    let pos = c"SV_Position".as_ptr();
    let normal = c"normal".as_ptr();
    let so_info =
        |entries: &[dxbc_spirv::stream_output::dxbc_spirv_stream_output_entry],
         strides: &[u32],
         raster| dxbc_spirv::stream_output::dxbc_spirv_stream_output_info {
            s_type: DXBC_SPIRV_STRUCTURE_TYPE_STREAM_OUTPUT_INFO,
            next: null(),
            entry_count: entries.len() as u32,
            entries: entries.as_ptr(),
            buffer_stride_count: strides.len() as u32,
            buffer_strides: strides.as_ptr(),
            rasterized_stream: raster,
        };
    // SV_Position whole to slot 0; a gap, then NORMAL.yz to slot 1 (stride 24).
    let entries = [
        entry(pos, 0, 4, 0),
        entry(null(), 0, 1, 1),
        entry(normal, 1, 2, 1),
    ];
    let so = so_info(
        &entries,
        &[0, 24],
        dxbc_spirv::stream_output::DXBC_SPIRV_NO_RASTERIZED_STREAM,
    );
    let info = translate_info(
        (&so as *const dxbc_spirv::stream_output::dxbc_spirv_stream_output_info).cast(),
    );
    let (words, refl) = translate(shader, Some(&info)).unwrap();
    // OpExecutionMode %main Xfb (opcode 16, mode 11).
    assert!(
        words
            .windows(3)
            .any(|w| w[0] == (3 << 16 | 16) && w[2] == 11)
    );
    let r = unsafe { &*refl };
    assert_eq!(
        r.xfb_rasterized_stream,
        dxbc_spirv::stream_output::DXBC_SPIRV_NO_RASTERIZED_STREAM
    );
    let buffers = unsafe { std::slice::from_raw_parts(r.xfb_buffers, r.xfb_buffer_count as usize) };
    let got: Vec<_> = buffers
        .iter()
        .map(|b| (b.slot, b.stream, b.stride))
        .collect();
    assert_eq!(got, [(0, 0, 16), (1, 0, 24)]);
    let entries = unsafe { std::slice::from_raw_parts(r.xfb_entries, r.xfb_entry_count as usize) };
    assert_eq!(entries.len(), 2);
    assert_eq!(
        (entries[0].entry, entries[0].buffer, entries[0].offset),
        (0, 0, 0)
    );
    assert_eq!(entries[0].output.placement, DXBC_SPIRV_PLACEMENT_BUILTIN);
    assert_eq!(
        (entries[1].entry, entries[1].buffer, entries[1].offset),
        (2, 1, 4)
    );
    assert_eq!(
        (entries[1].output.register_index, entries[1].output.mask),
        (1, 0b0110)
    );
    assert_eq!(entries[1].output.placement, DXBC_SPIRV_PLACEMENT_LOCATION);
    assert_eq!(
        unsafe { CStr::from_ptr(entries[1].output.semantic_name) },
        c"NORMAL"
    );
    unsafe { dxbc_spirv_free_reflection(refl) };

    // Declarations that do not fit: INVALID_ARGUMENT naming the entry or the stride.
    let unknown = c"TEXCOORD".as_ptr();
    let cases: [(Vec<_>, Vec<u32>, u32, &str); 5] = [
        (
            vec![entry(unknown, 0, 1, 0)],
            vec![],
            0,
            "entry 0: TEXCOORD0 (stream 0) is not an output",
        ),
        (
            vec![entry(pos, 0, 4, 0), entry(pos, 3, 1, 0)],
            vec![],
            0,
            "entry 1: SV_Position0: overlaps entry 0",
        ),
        (
            vec![entry(normal, 2, 2, 0)],
            vec![],
            0,
            "entry 0: normal0: components 2..4 of an output with 3",
        ),
        (
            vec![entry(pos, 0, 4, 0)],
            vec![12],
            0,
            "stride of output slot 0: 12 bytes, smaller than its entries (16 bytes)",
        ),
        (
            vec![entry(pos, 0, 4, 0)],
            vec![],
            1,
            "rasterized stream 1: a vs shader has stream 0 only",
        ),
    ];
    for (entries, strides, raster, needle) in cases {
        let so = so_info(&entries, &strides, raster);
        let info = translate_info(
            (&so as *const dxbc_spirv::stream_output::dxbc_spirv_stream_output_info).cast(),
        );
        let (s, m) = translate_words(shader, Some(&info)).unwrap_err();
        assert_eq!(s, DXBC_SPIRV_ERROR_INVALID_ARGUMENT, "{m}");
        assert!(m.contains(needle), "{m}");
    }
    // The arrays outlive the struct that points at them.
    let entries = [entry(pos, 0, 300, 0)];
    let so = so_info(&entries, &[], 0);
    let info = translate_info(
        (&so as *const dxbc_spirv::stream_output::dxbc_spirv_stream_output_info).cast(),
    );
    let (s, m) = translate_words(shader, Some(&info)).unwrap_err();
    assert_eq!(s, DXBC_SPIRV_ERROR_INVALID_ARGUMENT);
    assert!(m.contains("entries[0].component_count is 300"), "{m}");
    let strides = [0; 5];
    let so = so_info(&[], &strides, 0);
    let info = translate_info(
        (&so as *const dxbc_spirv::stream_output::dxbc_spirv_stream_output_info).cast(),
    );
    assert!(
        translate_words(shader, Some(&info))
            .unwrap_err()
            .1
            .contains("buffer_stride_count is 5")
    );
    unsafe { dxbc_spirv_shader_destroy(shader) };
}

#[test]
fn d3d9_state_deliveries() {
    use dxbc_spirv::d3d9_state::*;
    let bytes = translator::d3dbc::asm::assemble("ps_2_0\ndcl t0\nmov oC0, t0\n").unwrap();
    let mut ci = create_info(&bytes);
    ci.source_type = DXBC_SPIRV_SOURCE_TYPE_D3DBC;
    let mut shader = null_mut();
    let mut msg = null_mut();
    assert_eq!(
        unsafe { dxbc_spirv_shader_create(&ci, &mut shader, &mut msg) },
        DXBC_SPIRV_OK
    );
    let reference = [0.5f32.to_bits()];
    let choice = |item, delivery, location, words: &[u32]| dxbc_spirv_d3d9_state_choice {
        item,
        sampler: 0,
        delivery,
        location,
        word_count: words.len() as u32,
        words: words.as_ptr(),
    };
    // Translates; returns the words and the reflection's state list as
    // (item, sampler, delivery, location, word count, baked words).
    type Entry = (u32, u32, u32, u32, u32, Vec<u32>);
    let run_full = |choices: &[dxbc_spirv_d3d9_state_choice]| {
        let s = dxbc_spirv_d3d9_state_info {
            s_type: DXBC_SPIRV_STRUCTURE_TYPE_D3D9_STATE_INFO,
            next: null(),
            spec_id_base: 200,
            choice_count: choices.len() as u32,
            choices: choices.as_ptr(),
        };
        let info = translate_info((&s as *const dxbc_spirv_d3d9_state_info).cast());
        translate(shader, Some(&info)).map(|(w, r)| {
            let rr = unsafe { &*r };
            let entries: Vec<Entry> = (0..rr.d3d9_state_count as usize)
                .map(|i| {
                    let e = unsafe { *rr.d3d9_state.add(i) };
                    let words = if e.words.is_null() {
                        Vec::new()
                    } else {
                        unsafe { std::slice::from_raw_parts(e.words, e.word_count as usize) }
                            .to_vec()
                    };
                    (
                        e.item,
                        e.sampler,
                        e.delivery,
                        e.location,
                        e.word_count,
                        words,
                    )
                })
                .collect();
            unsafe { dxbc_spirv_free_reflection(r) };
            (w, entries)
        })
    };
    let run = |choices: &[dxbc_spirv_d3d9_state_choice]| run_full(choices).map(|(w, _)| w);
    // The alpha function from the table, the reference baked, and fog mode delivered as given.
    let alpha_and_fog = |fog_delivery, fog_location| {
        [
            choice(
                DXBC_SPIRV_D3D9_STATE_ALPHA_FUNC,
                DXBC_SPIRV_D3D9_STATE_DELIVERY_SPEC_CONSTANT,
                DXBC_SPIRV_D3D9_STATE_TABLE_ID,
                &[],
            ),
            choice(
                DXBC_SPIRV_D3D9_STATE_ALPHA_REF,
                DXBC_SPIRV_D3D9_STATE_DELIVERY_BAKED,
                0,
                &reference,
            ),
            choice(
                DXBC_SPIRV_D3D9_STATE_FOG_MODE,
                fog_delivery,
                fog_location,
                &[],
            ),
        ]
    };
    // Alpha function from the table (200 + 0), fog as spec constant 40: the alpha function's
    // and fog's IDs appear.
    let words = run(&alpha_and_fog(
        DXBC_SPIRV_D3D9_STATE_DELIVERY_SPEC_CONSTANT,
        40,
    ))
    .unwrap();
    let ids = spec_ids(&words);
    assert!(ids.contains(&200) && ids.contains(&40), "{ids:?}");
    assert!(!ids.contains(&201), "the reference is baked: {ids:?}");
    // The reflection lists each item read with its resolved delivery: the table's ID as the
    // ID, the baked words, and the items left to their default (fog colour and parameters from
    // the table).
    let (_, entries) = run_full(&alpha_and_fog(
        DXBC_SPIRV_D3D9_STATE_DELIVERY_PUSH_CONSTANT,
        8,
    ))
    .unwrap();
    let spec = DXBC_SPIRV_D3D9_STATE_DELIVERY_SPEC_CONSTANT;
    for want in [
        (DXBC_SPIRV_D3D9_STATE_ALPHA_FUNC, 0, spec, 200, 1, vec![]),
        (
            DXBC_SPIRV_D3D9_STATE_ALPHA_REF,
            0,
            DXBC_SPIRV_D3D9_STATE_DELIVERY_BAKED,
            0,
            1,
            reference.to_vec(),
        ),
        (
            DXBC_SPIRV_D3D9_STATE_FOG_MODE,
            0,
            DXBC_SPIRV_D3D9_STATE_DELIVERY_PUSH_CONSTANT,
            8,
            1,
            vec![],
        ),
        (DXBC_SPIRV_D3D9_STATE_FOG_COLOUR, 0, spec, 204, 4, vec![]),
        (DXBC_SPIRV_D3D9_STATE_FOG_PARAMS, 0, spec, 208, 3, vec![]),
    ] {
        assert!(entries.contains(&want), "{want:?} not in {entries:?}");
    }
    // Per-sampler items carry their sampler: depth compare of s1 as a push constant.
    let tex = translator::d3dbc::asm::assemble(
        "ps_2_0\ndcl t0\ndcl_2d s1\ntexld r0, t0, s1\nmov oC0, r0\n",
    )
    .unwrap();
    let mut ci = create_info(&tex);
    ci.source_type = DXBC_SPIRV_SOURCE_TYPE_D3DBC;
    let mut tex_shader = null_mut();
    assert_eq!(
        unsafe { dxbc_spirv_shader_create(&ci, &mut tex_shader, &mut msg) },
        DXBC_SPIRV_OK
    );
    let depth = [dxbc_spirv_d3d9_state_choice {
        sampler: 1,
        ..choice(
            DXBC_SPIRV_D3D9_STATE_DEPTH_COMPARE,
            DXBC_SPIRV_D3D9_STATE_DELIVERY_PUSH_CONSTANT,
            16,
            &[],
        )
    }];
    let s = dxbc_spirv_d3d9_state_info {
        s_type: DXBC_SPIRV_STRUCTURE_TYPE_D3D9_STATE_INFO,
        next: null(),
        spec_id_base: 0,
        choice_count: 1,
        choices: depth.as_ptr(),
    };
    let info = translate_info((&s as *const dxbc_spirv_d3d9_state_info).cast());
    let (_, r) = translate(tex_shader, Some(&info)).unwrap();
    let rr = unsafe { &*r };
    let entries =
        unsafe { std::slice::from_raw_parts(rr.d3d9_state, rr.d3d9_state_count as usize) };
    assert!(
        entries
            .iter()
            .any(|e| e.item == DXBC_SPIRV_D3D9_STATE_DEPTH_COMPARE
                && e.sampler == 1
                && e.delivery == DXBC_SPIRV_D3D9_STATE_DELIVERY_PUSH_CONSTANT
                && e.location == 16
                && e.words.is_null()),
        "{entries:?}"
    );
    unsafe {
        dxbc_spirv_free_reflection(r);
        dxbc_spirv_shader_destroy(tex_shader);
    }
    // Refused, naming the item: flat shading as a push constant, a bad item, a short bake.
    for (choices, needle) in [
        (
            vec![choice(
                DXBC_SPIRV_D3D9_STATE_FLAT_SHADING,
                DXBC_SPIRV_D3D9_STATE_DELIVERY_PUSH_CONSTANT,
                0,
                &[],
            )],
            "flat-shading",
        ),
        (
            vec![choice(99, DXBC_SPIRV_D3D9_STATE_DELIVERY_BAKED, 0, &[])],
            "item 99",
        ),
        (
            vec![choice(
                DXBC_SPIRV_D3D9_STATE_FOG_COLOUR,
                DXBC_SPIRV_D3D9_STATE_DELIVERY_BAKED,
                0,
                &reference,
            )],
            "fog-colour",
        ),
    ] {
        let (s, m) = run(&choices).unwrap_err();
        assert_eq!(s, DXBC_SPIRV_ERROR_INVALID_ARGUMENT, "{m}");
        assert!(m.contains(needle), "{m}");
    }
    unsafe { dxbc_spirv_shader_destroy(shader) };
}
