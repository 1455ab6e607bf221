//! Stream output (transform feedback) from the Rust API: vertex, domain and geometry shaders
//! translated with D3D stream-output declarations validate (`spirv-val`, Vulkan 1.1 and 1.3)
//! and carry `Xfb`, `TransformFeedback` and `XfbBuffer`/`XfbStride`/`Offset` on exactly the
//! variables the reflection names, at the offsets D3D's packing gives; declarations that do not
//! fit the shader fail with `ErrorKind::StreamOutput` naming the entry. The values captured are
//! checked on a device by `shaders/runtime/stages/stream-output.shader_test`. Skips validation,
//! and the corpus sweep, recording why (`integration_tests::skip`), when spirv-val or
//! `../shared` is absent.

use std::collections::HashMap;

use integration_tests::{repo_root, spirv_val};
use rspirv::dr::Operand;
use rspirv::spirv::{Decoration, ExecutionMode, Op};
use translator::reflect::{InterfacePlacement, XfbLayout};
use translator::{ErrorKind, Options, StreamOutput, StreamOutputEntry, TargetEnv, Translation};

const VS: &str = "vs_5_0
.input POSITION 0 v0 float
.output SV_Position 0 o0 float POS
.output TEXCOORD 0 o1.xy float
.output TEXCOORD 1 o1.zw float
.output ID 0 o2.x uint
dcl_input v0.xyzw
dcl_output_siv o0.xyzw, position
dcl_output o1.xy
dcl_output o1.zw
dcl_output o2.x
mov o0.xyzw, v0.xyzw
mov o1.xyzw, v0.wzyx
mov o2.x, l(7)
ret
";

const DS: &str = "ds_5_0
.input SV_Position 0 v0 float POS
.patch SV_TessFactor 0 vpc0.x float TRIEDGE
.patch SV_TessFactor 1 vpc1.x float TRIEDGE
.patch SV_TessFactor 2 vpc2.x float TRIEDGE
.patch SV_InsideTessFactor 0 vpc3.x float TRIINT
.output SV_Position 0 o0 float POS
.output COLOR 0 o1.xyz float
dcl_input_control_point_count 3
dcl_tessellator_domain domain_tri
dcl_input vDomain.xyz
dcl_input vicp[3][0].xyzw
dcl_output_siv o0.xyzw, position
dcl_output o1.xyz
dcl_temps 1
mul r0.xyzw, vDomain.xxxx, vicp[0][0].xyzw
mad r0.xyzw, vDomain.yyyy, vicp[1][0].xyzw, r0.xyzw
mad o0.xyzw, vDomain.zzzz, vicp[2][0].xyzw, r0.xyzw
mov o1.xyz, vDomain.xyzx
ret
";

/// Two streams; stream 1's o0 is a position too (so it can be the rasterized one).
const GS: &str = "gs_5_0
.input SV_Position 0 v0 float POS
.output SV_Position 0 o0 float POS
.output COLOR 0 o1 float
.output SV_Position 0 o0 float POS stream=1
.output TEXCOORD 0 o1.xy float stream=1
dcl_input_siv v[1][0].xyzw, position
dcl_inputprimitive point
dcl_stream m0
dcl_outputtopology pointlist
dcl_output_siv o0.xyzw, position
dcl_output o1.xyzw
dcl_stream m1
dcl_outputtopology pointlist
dcl_output_siv o0.xyzw, position
dcl_output o1.xy
dcl_maxout 2
mov o0.xyzw, v[0][0].xyzw
mov o1.xyzw, l(0.0, 1.0, 0.0, 1.0)
emit_stream m0
mov o1.xy, v[0][0].yxyy
emit_stream m1
ret
";

fn entry(s: &str) -> StreamOutputEntry {
    s.parse().unwrap()
}

fn so(entries: &[&str], strides: [u32; 4], rasterized_stream: Option<u32>) -> StreamOutput {
    StreamOutput {
        entries: entries.iter().map(|e| entry(e)).collect(),
        strides,
        rasterized_stream,
    }
}

fn translate(
    asm: &str,
    env: TargetEnv,
    so: StreamOutput,
) -> Result<Translation, translator::Error> {
    let bytes = translator::asm::assemble(asm).unwrap();
    translator::translate(
        &bytes,
        &Options {
            target_env: env,
            stream_output: Some(so),
            ..Default::default()
        },
    )
}

/// Per variable id: its decorations (name → operands).
type Decorations = HashMap<u32, Vec<(Decoration, Vec<u32>)>>;

fn decorations(m: &rspirv::dr::Module) -> Decorations {
    let mut out: Decorations = HashMap::new();
    for i in &m.annotations {
        if i.class.opcode != Op::Decorate {
            continue;
        }
        let (Some(Operand::IdRef(id)), Some(Operand::Decoration(d))) =
            (i.operands.first(), i.operands.get(1))
        else {
            continue;
        };
        let args = i.operands[2..]
            .iter()
            .filter_map(|o| match o {
                Operand::LiteralBit32(v) => Some(*v),
                Operand::BuiltIn(b) => Some(*b as u32),
                _ => None,
            })
            .collect();
        out.entry(*id).or_default().push((*d, args));
    }
    out
}

fn arg(ds: &[(Decoration, Vec<u32>)], d: Decoration) -> Option<u32> {
    ds.iter()
        .find(|(x, _)| *x == d)
        .map(|(_, a)| a.first().copied().unwrap_or(0))
}

/// Checks the module against its reflection: `Xfb`, the capability, and for every reflected
/// entry one output variable at its placement with its buffer, stride and offset; no other
/// variable has xfb decorations. Validates with spirv-val when it is installed.
fn check(t: &Translation, env: TargetEnv, name: &str) -> XfbLayout {
    let m = rspirv::dr::load_words(&t.spirv).unwrap();
    assert!(
        m.capabilities.iter().any(|c| matches!(
            c.operands[0],
            Operand::Capability(rspirv::spirv::Capability::TransformFeedback)
        )),
        "{name}: TransformFeedback capability"
    );
    assert!(
        m.execution_modes
            .iter()
            .any(|e| matches!(e.operands[1], Operand::ExecutionMode(ExecutionMode::Xfb))),
        "{name}: Xfb execution mode"
    );
    let x = t
        .reflection
        .xfb
        .clone()
        .expect("xfb layout in the reflection");
    let decos = decorations(&m);
    let xfb_vars: Vec<u32> = decos
        .iter()
        .filter(|(_, ds)| arg(ds, Decoration::XfbBuffer).is_some())
        .map(|(id, _)| *id)
        .collect();
    assert_eq!(
        xfb_vars.len(),
        x.entries.len(),
        "{name}: one variable per entry"
    );
    for e in &x.entries {
        let stride = x
            .buffers
            .iter()
            .find(|b| b.slot == e.buffer)
            .unwrap()
            .stride;
        let found = xfb_vars.iter().any(|id| {
            let ds = &decos[id];
            let placed = match &e.placement {
                InterfacePlacement::Location { location, .. } => {
                    arg(ds, Decoration::Location) == Some(*location)
                }
                InterfacePlacement::BuiltIn { .. } => arg(ds, Decoration::BuiltIn).is_some(),
                InterfacePlacement::Unused => false,
            };
            placed
                && arg(ds, Decoration::XfbBuffer) == Some(e.buffer)
                && arg(ds, Decoration::XfbStride) == Some(stride)
                && arg(ds, Decoration::Offset) == Some(e.offset)
        });
        assert!(found, "{name}: no variable for {e:?}");
        assert_eq!(e.offset % 4, 0);
    }
    let dir = repo_root().join("target/xfb-spv");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(format!("{name}-{}.spv", env.spirv_val_name()));
    let bytes: Vec<u8> = t.spirv.iter().flat_map(|w| w.to_le_bytes()).collect();
    std::fs::write(&file, bytes).unwrap();
    match spirv_val(&file, env.spirv_val_name()) {
        Ok(()) => {}
        Err(e) if e.starts_with("spirv-val not found") => integration_tests::skip::skip_part(
            "spirv-val",
            integration_tests::NO_SPIRV_VAL,
            "modules not validated",
        ),
        Err(e) => panic!("{name} ({}): spirv-val: {e}", env.spirv_val_name()),
    }
    x
}

const ENVS: [TargetEnv; 2] = [TargetEnv::Vulkan1_1, TargetEnv::Vulkan1_3];

#[test]
fn vertex_shader_entries_place_and_validate() {
    for env in ENVS {
        // Whole outputs decorate their own variables; parts of o1 and the gap do not.
        let d = so(
            &[
                "SV_Position.xyzw",
                "TEXCOORD1.y",
                "$SKIP.x",
                "ID.x",
                "TEXCOORD0.xy@1",
            ],
            [32, 0, 0, 0],
            None,
        );
        let t = translate(VS, env, d).unwrap();
        let x = check(&t, env, "vs");
        assert_eq!(x.rasterized_stream, None);
        let got: Vec<_> = x
            .buffers
            .iter()
            .map(|b| (b.slot, b.stream, b.stride))
            .collect();
        assert_eq!(got, [(0, 0, 32), (1, 0, 8)]);
        let got: Vec<_> = x
            .entries
            .iter()
            .map(|e| (e.entry, e.buffer, e.offset, e.register, e.mask))
            .collect();
        assert_eq!(
            got,
            [
                (0, 0, 0, 0, 0xf),
                (1, 0, 16, 1, 0b1000),
                (3, 0, 24, 2, 1),
                (4, 1, 0, 1, 0b0011)
            ]
        );
        assert!(matches!(
            x.entries[0].placement,
            InterfacePlacement::BuiltIn { .. }
        ));
        // o1.xy and o1.zw are one float4 variable: TEXCOORD0 has one of its own past the
        // outputs; ID (o2.x, a whole uint variable) is decorated where it is.
        let loc = |i: usize| match x.entries[i].placement {
            InterfacePlacement::Location { location, .. } => location,
            _ => panic!("{:?}", x.entries[i]),
        };
        assert_eq!(loc(2), 2);
        assert!(loc(1) >= 3 && loc(3) >= 3 && loc(1) != loc(3));
        assert!(
            t.reflection
                .vulkan_features
                .iter()
                .any(|f| f == "transformFeedback")
        );
        // The same component twice in different buffers: a second variable.
        let d = so(&["SV_Position.xyzw", "SV_Position.xyzw@1"], [0; 4], Some(0));
        check(&translate(VS, env, d).unwrap(), env, "vs-twice");
    }
}

#[test]
fn domain_shader_entries_validate() {
    for env in ENVS {
        let d = so(
            &["COLOR.yz", "SV_Position.w@2", "COLOR.xyz@3"],
            [0; 4],
            Some(0),
        );
        let x = check(&translate(DS, env, d).unwrap(), env, "ds");
        let got: Vec<_> = x.buffers.iter().map(|b| (b.slot, b.stride)).collect();
        assert_eq!(got, [(0, 8), (2, 4), (3, 12)]);
    }
}

#[test]
fn geometry_shader_streams_validate() {
    for env in ENVS {
        for raster in [Some(0), Some(1), None] {
            let d = so(
                &[
                    "0:COLOR.yz@0",
                    "1:SV_Position.xyzw@1",
                    "1:TEXCOORD.y@2",
                    "0:SV_Position.xy@3",
                ],
                [0; 4],
                raster,
            );
            let t = translate(GS, env, d).unwrap();
            let x = check(&t, env, &format!("gs-{raster:?}"));
            let got: Vec<_> = x.buffers.iter().map(|b| (b.slot, b.stream)).collect();
            assert_eq!(got, [(0, 0), (1, 1), (2, 1), (3, 0)]);
            // The rasterized stream's SV_Position is the Position built-in; the other's is a
            // location (stream 0 when nothing is rasterized).
            let builtin = raster.unwrap_or(0);
            for e in x
                .entries
                .iter()
                .filter(|e| e.semantic_name == "SV_Position")
            {
                let is_builtin = matches!(e.placement, InterfacePlacement::BuiltIn { .. });
                assert_eq!(
                    is_builtin,
                    e.stream == builtin && e.mask == 0xf,
                    "{raster:?} {e:?}"
                );
            }
        }
    }
}

/// The error of a declaration that does not fit, with its kind checked.
fn refused(asm: &str, d: StreamOutput) -> String {
    let e = translate(asm, TargetEnv::Vulkan1_3, d).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::StreamOutput, "{e}");
    e.to_string()
}

#[test]
fn declarations_that_do_not_fit_name_the_entry() {
    let z = [0; 4];
    for (asm, d, needle) in [
        (
            VS,
            so(&["SV_Position.xyzw", "NORMAL.x"], z, Some(0)),
            "entry 1: NORMAL0 (stream 0) is not an output",
        ),
        (
            VS,
            so(&["TEXCOORD1.xyz"], z, Some(0)),
            "entry 0: TEXCOORD1: components 0..3 of an output with 2",
        ),
        (
            VS,
            so(&["SV_Position.xy", "SV_Position.yz"], z, Some(0)),
            "entry 1: SV_Position0: overlaps entry 0",
        ),
        (
            VS,
            so(&["SV_Position.xyzw", "ID.x"], [16, 0, 0, 0], Some(0)),
            "stride of output slot 0: 16 bytes, smaller than its entries (20 bytes)",
        ),
        (
            VS,
            so(&["SV_Position.xyzw"], [18, 0, 0, 0], Some(0)),
            "stride of output slot 0: 18 bytes (a multiple of 4",
        ),
        (
            VS,
            so(&["SV_Position.xyzw@4"], z, Some(0)),
            "entry 0: output slot 4",
        ),
        (
            VS,
            so(&["1:SV_Position.xyzw"], z, Some(0)),
            "entry 0: stream 1: a vs shader has stream 0 only",
        ),
        (
            VS,
            so(&["SV_Position.xyzw"], z, Some(2)),
            "rasterized stream 2: a vs shader has stream 0 only",
        ),
        (
            GS,
            so(&["0:COLOR.x", "1:TEXCOORD.x"], z, Some(0)),
            "entry 1: output slot 0 already receives stream 0, not stream 1",
        ),
        (
            GS,
            so(&["2:COLOR.x"], z, Some(0)),
            "entry 0: COLOR0: stream 2 is not declared by the shader",
        ),
        (
            GS,
            so(&["COLOR.x"], z, Some(4)),
            "rasterized stream 4 (streams are 0-3)",
        ),
    ] {
        let m = refused(asm, d);
        assert!(m.contains(needle), "{m}\nexpected: {needle}");
    }
    let mut d = so(&["SV_Position.xyzw"], z, Some(0));
    d.entries[0].component_count = 0;
    assert!(refused(VS, d).contains("entry 0: 0 components (1-4)"));
    let ps =
        "ps_5_0\n.output SV_Target 0 o0 float\ndcl_output o0.xyzw\nmov o0.xyzw, l(0,0,0,0)\nret\n";
    let m = refused(ps, so(&["SV_Target.x"], z, Some(0)));
    assert!(m.contains("a ps shader has no stream output"), "{m}");
}

/// A declaration capturing every output of every stream (stream s to slot s): whole outputs,
/// or (`partial`) each output from its second component on.
fn capture_all(
    sig: &translator::container::signature::Signature<'_>,
    partial: bool,
) -> StreamOutput {
    let mut entries = Vec::new();
    for e in sig
        .elements
        .iter()
        .filter(|e| !e.has_no_register() && e.mask != 0)
    {
        let n = (e.mask & 0xf).count_ones() as u8;
        let start = u8::from(partial && n > 1);
        entries.push(StreamOutputEntry {
            stream: e.stream,
            semantic_name: Some(e.semantic_name.to_string()),
            semantic_index: e.semantic_index,
            start_component: start,
            component_count: n - start,
            output_slot: e.stream,
        });
    }
    StreamOutput {
        entries,
        ..Default::default()
    }
}

#[test]
fn corpus_vs_ds_gs_capturing_every_output_validate() {
    let Some(shared) = integration_tests::shared_dir_or_skip() else {
        return;
    };
    if !integration_tests::spirv_val_or_skip() {
        return;
    }
    let mut files = integration_tests::dxbc_files(&shared.join("corpus/dxbc"));
    files.extend(integration_tests::dxbc_files(&shared.join("bench/dxbc")));
    let (mut done, mut failures) = (0, Vec::new());
    for f in &files {
        let bytes = std::fs::read(f).unwrap();
        if !matches!(
            integration_tests::stage_of(&bytes),
            Some("vs" | "ds" | "gs")
        ) {
            continue;
        }
        let Ok(parsed) = translator::container::ParsedContainer::parse(&bytes) else {
            continue;
        };
        let Some(sig) = parsed.output_signature.as_ref() else {
            continue;
        };
        // Shaders the translator refuses anyway are the corpus sweeps' business.
        if translator::translate(&bytes, &Options::default()).is_err() {
            continue;
        }
        for partial in [false, true] {
            let d = capture_all(sig, partial);
            if d.entries.is_empty() {
                continue;
            }
            for env in ENVS {
                let opts = Options {
                    target_env: env,
                    stream_output: Some(d.clone()),
                    ..Default::default()
                };
                let name = format!(
                    "corpus-{}-{partial}",
                    f.file_stem().unwrap().to_string_lossy()
                );
                match translator::translate(&bytes, &opts) {
                    Err(e) => failures.push(format!("{}: {e}", f.display())),
                    Ok(t) => {
                        let r = std::panic::catch_unwind(|| check(&t, env, &name));
                        match r {
                            Ok(x) => assert_eq!(x.entries.len(), d.entries.len()),
                            Err(_) => {
                                failures.push(format!("{} ({partial}, {env:?})", f.display()))
                            }
                        }
                    }
                }
                done += 1;
            }
        }
    }
    println!(
        "{done} translations with stream output, {} failed",
        failures.len()
    );
    assert!(failures.is_empty(), "{failures:#?}");
    assert!(done >= 40, "only {done} translations");
}
