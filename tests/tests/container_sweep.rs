//! Corpus sweep of the container layer: every real DXBC blob parses, every chunk we know
//! parses, checksums verify, and what we read agrees with independent sources — the corpus
//! manifest (stage, model, chunk list), vkd3d-compiler's signature listing, and the HLSL the
//! reflection test blobs were compiled from.
//!
//! Skips (recording why: `integration_tests::skip`) when `../shared/corpus` is absent.

use std::path::{Path, PathBuf};
use std::process::Command;

use integration_tests::{dxbc_files, shared_dir_or_skip, skip, vkd3d_compiler_or_skip};
use translator::container::rdef::{
    CBufferType, Dimension, ReturnType, ShaderInputType, VariableClass, VariableType,
};
use translator::container::signature::SystemValue;
use translator::container::{Container, ParsedContainer, SignatureKind, header};

struct Corpus {
    root: PathBuf,
    manifest: Vec<serde_json::Value>,
}

fn corpus() -> Option<Corpus> {
    let root = shared_dir_or_skip()?.join("corpus");
    let Ok(text) = std::fs::read_to_string(root.join("manifest.jsonl")) else {
        skip::skip(skip::CORPUS, "../shared/corpus/manifest.jsonl absent");
        return None;
    };
    let manifest = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("manifest line is JSON"))
        .collect();
    Some(Corpus { root, manifest })
}

fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every corpus and bench blob: the container, every known chunk and the checksum.
#[test]
fn every_blob_parses_and_checksums_verify() {
    let Some(corpus) = corpus() else { return };
    let mut files = dxbc_files(&corpus.root.join("dxbc"));
    assert_eq!(
        files.len(),
        279,
        "the corpus README promises 279 DXBC containers"
    );
    files.extend(dxbc_files(&corpus.root.join("../bench/dxbc")));
    let mut failures = Vec::new();
    let mut chunk_count = 0;
    for path in &files {
        let data = read(path);
        match ParsedContainer::parse(&data) {
            Ok(p) => {
                chunk_count += p.container.chunks.len();
                if !p.checksum_matches() {
                    failures.push(format!("{}: checksum mismatch", path.display()));
                }
                if p.program.is_none() || p.version.is_none() {
                    failures.push(format!("{}: no program chunk", path.display()));
                }
                if p.input_signature.is_none() {
                    failures.push(format!("{}: no input signature", path.display()));
                }
                // The header printer runs on everything we parse.
                let text = header::CommentHeader(&p).to_string();
                assert!(
                    text.lines().all(|l| l.starts_with("//")),
                    "{}",
                    path.display()
                );
            }
            Err(e) => failures.push(format!("{}: {e}", path.display())),
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    // Cost of the full typed view (all chunks, no checksum), for the record.
    let blobs: Vec<Vec<u8>> = files.iter().map(|p| read(p)).collect();
    let start = std::time::Instant::now();
    for _ in 0..10 {
        for b in &blobs {
            std::hint::black_box(ParsedContainer::parse(b).unwrap());
        }
    }
    let per_blob = start.elapsed().as_secs_f64() * 1e6 / (10 * blobs.len()) as f64;
    println!(
        "{} blobs, {chunk_count} chunks parsed; typed view {per_blob:.2} µs/blob",
        files.len()
    );
}

/// Stage, model and chunk list agree with the manifest, which was written independently.
#[test]
fn manifest_agrees() {
    let Some(corpus) = corpus() else { return };
    let mut checked = 0;
    for entry in &corpus.manifest {
        if entry["kind"] != "dxbc-shader" {
            continue;
        }
        let file = entry["file"].as_str().unwrap();
        let data = read(&corpus.root.join(file));
        let p = ParsedContainer::parse(&data).unwrap();
        let version = p.version.unwrap();
        assert_eq!(
            version.stage.prefix(),
            entry["stage"].as_str().unwrap(),
            "{file}"
        );
        assert_eq!(
            format!("{}.{}", version.major, version.minor),
            entry["model"].as_str().unwrap(),
            "{file}"
        );
        let tags: Vec<String> = p.container.chunks.iter().map(|c| c.tag_str()).collect();
        let expected: Vec<String> = entry["chunks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t.as_str().unwrap().to_string())
            .collect();
        assert_eq!(tags, expected, "{file}");
        assert_eq!(entry["checksum"], "match", "{file}");
        assert_eq!(data.len() as u64, entry["size"].as_u64().unwrap(), "{file}");
        if let Some(rdef) = &p.resources {
            assert_eq!(
                rdef.version,
                Some(version),
                "{file}: RDEF target and program token disagree"
            );
        }
        checked += 1;
    }
    assert_eq!(checked, 279);
}

/// Signatures agree with vkd3d-compiler's own listing of them (`--formatting=+signatures`).
#[test]
fn signatures_agree_with_vkd3d() {
    let Some(corpus) = corpus() else { return };
    let Some((compiler, _)) = vkd3d_compiler_or_skip() else {
        return;
    };
    let mut compared = 0;
    for path in dxbc_files(&corpus.root.join("dxbc")) {
        let data = read(&path);
        let p = ParsedContainer::parse(&data).unwrap();
        let out = Command::new(&compiler)
            .args([
                "-x",
                "dxbc-tpf",
                "-b",
                "d3d-asm",
                "--formatting=+signatures",
            ])
            .arg(&path)
            .output()
            .expect("run vkd3d-compiler");
        if !out.status.success() {
            continue; // vkd3d cannot read every blob; that is not ours to check.
        }
        let text = String::from_utf8_lossy(&out.stdout);
        let mut kind = None;
        let mut params: Vec<(SignatureKind, String)> = Vec::new();
        for line in text.lines() {
            match line.trim() {
                ".input" => kind = Some(SignatureKind::Input),
                ".output" => kind = Some(SignatureKind::Output),
                ".patch_constant" => kind = Some(SignatureKind::PatchConstant),
                ".text" => break,
                l if l.starts_with(".param ") => params.push((kind.unwrap(), l[7..].to_string())),
                _ => {}
            }
        }
        for kind in [
            SignatureKind::Input,
            SignatureKind::Output,
            SignatureKind::PatchConstant,
        ] {
            let ours: Vec<_> = p
                .signature(kind)
                .map(|s| s.elements.clone())
                .unwrap_or_default();
            let theirs: Vec<&String> = params
                .iter()
                .filter(|(k, _)| *k == kind)
                .map(|(_, s)| s)
                .collect();
            assert_eq!(
                ours.len(),
                theirs.len(),
                "{}: {kind:?} element count",
                path.display()
            );
            for (e, line) in ours.iter().zip(theirs) {
                if e.has_no_register() {
                    continue;
                }
                // NAME[index].mask, <v|o><reg>[.used], type[, SYSVAL]
                let fields: Vec<&str> = line.split(", ").collect();
                let (semantic, mask) = fields[0].rsplit_once('.').unwrap();
                let expected_semantic = if e.semantic_index == 0 {
                    e.semantic_name.to_string()
                } else {
                    format!("{}{}", e.semantic_name, e.semantic_index)
                };
                assert_eq!(semantic, expected_semantic, "{}: {line}", path.display());
                let mask_bits = mask
                    .chars()
                    .map(|c| 1u8 << "xyzw".find(c).unwrap())
                    .fold(0, |a, b| a | b);
                assert_eq!(mask_bits, e.mask, "{}: {line}", path.display());
                // v0, o1, vpc2, ...: the first run of digits.
                let reg: String = fields[1]
                    .chars()
                    .skip_while(|c| !c.is_ascii_digit())
                    .take_while(|c| c.is_ascii_digit())
                    .collect();
                assert_eq!(
                    reg.parse::<u32>().ok(),
                    Some(e.register),
                    "{}: {line}",
                    path.display()
                );
                assert_eq!(
                    fields[2],
                    e.component_type.to_string(),
                    "{}: {line}",
                    path.display()
                );
                if let Some(sv) = fields.get(3) {
                    let ours = if kind == SignatureKind::Input {
                        e.system_value
                    } else {
                        e.system_value_by_name()
                    };
                    assert_eq!(*sv, ours.to_string(), "{}: {line}", path.display());
                }
                compared += 1;
            }
        }
    }
    println!("{compared} signature elements compared with vkd3d-compiler");
    assert!(compared > 500, "only {compared} elements compared");
}

fn blob(corpus: &Corpus, name: &str) -> Vec<u8> {
    read(&corpus.root.join("dxbc").join(name))
}

/// `test_reflection_constant_buffer_blob` was compiled (fxc, ps_5_0) from:
/// `cbuffer c1 { float a; float b[2]; int i; struct s { float a; float b; } t; };`, an
/// interface `iTest`, a class `cTest : iTest { bool m_on; ... }` and `iTest g_Test;`.
#[test]
fn reflection_constant_buffer_matches_its_hlsl() {
    let Some(corpus) = corpus() else { return };
    let data = blob(
        &corpus,
        "wine-d3dcompiler_43-reflection/test_reflection_constant_buffer_blob.dxbc",
    );
    let p = ParsedContainer::parse(&data).unwrap();
    let rdef = p.resources.as_ref().unwrap();
    let rd11 = rdef.rd11.unwrap();
    assert_eq!(
        (rd11.binding_size, rd11.variable_size, rd11.type_size),
        (32, 40, 36)
    );
    let c1 = rdef
        .constant_buffers
        .iter()
        .find(|cb| cb.name == "c1")
        .expect("cbuffer c1");
    assert_eq!(c1.kind, CBufferType::CBuffer);
    let names: Vec<&str> = c1.variables.iter().map(|v| v.name).collect();
    assert_eq!(names, ["a", "b", "i", "t"]);
    // HLSL packing: a at 0, b[2] starts a new register (16) and takes 2 registers (last one
    // 4 bytes) = 20 bytes, i after it at 36, the struct starts a new register at 48.
    let offsets: Vec<(u32, u32)> = c1.variables.iter().map(|v| (v.offset, v.size)).collect();
    assert_eq!(offsets, [(0, 4), (16, 20), (36, 4), (48, 8)]);
    let b = rdef.ty(c1.variables[1].type_index);
    assert_eq!(
        (b.class, b.base, b.elements),
        (VariableClass::Scalar, VariableType::Float, 2)
    );
    assert_eq!(rdef.ty(c1.variables[2].type_index).base, VariableType::Int);
    let t = rdef.ty(c1.variables[3].type_index);
    assert_eq!(t.class, VariableClass::Struct);
    let members: Vec<(&str, u32)> = t.members.iter().map(|m| (m.name, m.offset)).collect();
    assert_eq!(members, [("a", 0), ("b", 4)]);
    assert_eq!(t.name, Some("s"));
    // Only t.a is read by PS.
    let used: Vec<bool> = c1.variables.iter().map(|v| v.is_used()).collect();
    assert_eq!(used, [false, false, false, true]);
    // The class cTest implements the interface; one slot.
    let ifce = p.interfaces.as_ref().unwrap();
    assert_eq!(ifce.slot_count, 1);
    assert_eq!(ifce.class_types.len(), 1);
    assert_eq!(ifce.class_types[0].name, "cTest");
    assert_eq!(ifce.slots.len(), 1);
    assert_eq!(ifce.slots[0].entries.len(), 1);
    // The interface pointer buffer holds g_Test.
    let iface = rdef
        .constant_buffers
        .iter()
        .find(|cb| cb.kind == CBufferType::InterfacePointers)
        .unwrap();
    assert_eq!(iface.variables[0].name, "g_Test");
    // The header prints the buffer as fxc would.
    let text = header::CommentHeader(&p).to_string();
    assert!(text.contains("// cbuffer c1\n"), "{text}");
    assert!(
        text.contains(
            "//   float b[2];                        // Offset:   16 Size:    20 [unused]\n"
        ),
        "{text}"
    );
}

/// `test_reflection_bound_resources_sm51_blob` (ps_5_1): `Texture2D tex1 : register(t1, space1)`,
/// a sampler `sam`, `cbuffer c1 : register(b0, space0)` and `cbuffer c2 : register(b0, space1)`.
#[test]
fn sm51_bindings_have_spaces() {
    let Some(corpus) = corpus() else { return };
    let data = blob(
        &corpus,
        "wine-d3dcompiler_43-reflection/test_reflection_bound_resources_sm51_blob.dxbc",
    );
    let p = ParsedContainer::parse(&data).unwrap();
    let rdef = p.resources.as_ref().unwrap();
    assert_eq!(
        rdef.rd11.unwrap().magic,
        translator::container::rdef::RD11_MAGIC_5_1
    );
    assert_eq!(rdef.rd11.unwrap().binding_size, 40);
    let sam = rdef.bindings.iter().find(|b| b.name == "sam").unwrap();
    assert_eq!(
        (sam.input_type, sam.bind_point, sam.space),
        (ShaderInputType::Sampler, 0, 0)
    );
    let tex1 = rdef.bindings.iter().find(|b| b.name == "tex1").unwrap();
    assert_eq!(
        (tex1.input_type, tex1.return_type, tex1.dimension),
        (
            ShaderInputType::Texture,
            ReturnType::Float,
            Dimension::Texture2D
        )
    );
    assert_eq!(
        (tex1.bind_point, tex1.space, tex1.component_count()),
        (1, 1, 4)
    );
    let c1 = rdef.bindings.iter().find(|b| b.name == "c1").unwrap();
    let c2 = rdef.bindings.iter().find(|b| b.name == "c2").unwrap();
    assert_eq!(
        (c1.input_type, c1.bind_point, c1.space),
        (ShaderInputType::CBuffer, 0, 0)
    );
    assert_eq!(
        (c2.input_type, c2.bind_point, c2.space),
        (ShaderInputType::CBuffer, 0, 1)
    );
    assert_ne!(c1.id, c2.id, "each range gets its own ID");
    let text = header::CommentHeader(&p).to_string();
    assert!(text.contains("      ID      HLSL Bind  Count"), "{text}");
    assert!(text.contains("t1,space1"), "{text}");
}

/// Pixel-shader outputs: SM4/5 store SV_Target with no system value; the typed view resolves it.
#[test]
fn target_outputs_resolve_by_name() {
    let Some(corpus) = corpus() else { return };
    let data = blob(&corpus, "wine-d2d1-d2d1/test_ps.dxbc");
    let c = Container::parse(&data).unwrap();
    let sig = translator::container::Signature::parse(c.chunk(b"OSGN").unwrap()).unwrap();
    let e = sig.elements[0];
    assert_eq!(e.semantic_name, "SV_Target");
    assert_eq!(e.system_value, SystemValue::Undefined);
    assert_eq!(e.system_value_by_name(), SystemValue::Target);
}
