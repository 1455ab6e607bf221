//! The hand-written assembly in `shaders/asm/`: each file assembles, and disassembling the
//! result gives the file back (`disasm(asm(text)) == text`, comment lines aside; for files
//! with signature directives the directives printed from the container are part of the
//! text). Each file also translates to SPIR-V that `spirv-val` accepts (where the tool is
//! installed), the DirectX docs' example with its unbounded range included.
//!
//! The DirectX docs' SM5.1 example (`docs_ps51.asm`) is also assembled in the docs' own
//! spelling (lower-case `t0`/`s0`) and must give the same program.

use std::path::PathBuf;

use integration_tests::{have_spirv_val, repo_root, spirv_val, spirv_val_or_narrow};
use translator::asm;
use translator::container::ParsedContainer;

fn asm_files() -> Vec<PathBuf> {
    let dir = repo_root().join("shaders/asm");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "asm"))
        .collect();
    files.sort();
    files
}

/// The text without full-line comments.
fn without_comments(text: &str) -> String {
    text.lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .map(|l| format!("{}\n", l.trim_end()))
        .collect()
}

#[test]
fn every_file_round_trips() {
    let files = asm_files();
    assert!(
        files.len() >= 7,
        "expected the hand-written files, found {}",
        files.len()
    );
    let mut failures = Vec::new();
    for path in &files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(path).unwrap();
        let assembly = match asm::parse(&text) {
            Ok(a) => a,
            Err(e) => {
                failures.push(format!("{name}:{}:{}: {}", e.line, e.column, e.message));
                continue;
            }
        };
        let blob = assembly.to_container().unwrap();
        let parsed = ParsedContainer::parse(&blob).unwrap();
        assert!(parsed.checksum_matches(), "{name}: checksum");
        let listing = assembly.program.to_string();
        let has_directives = text.lines().any(|l| l.starts_with('.'));
        let actual = if has_directives {
            let (first, rest) = listing.split_once('\n').unwrap();
            format!("{first}\n{}{rest}", asm::directives(&parsed))
        } else {
            listing
        };
        let expected = without_comments(&text);
        if actual != expected {
            let diff: Vec<String> = expected
                .lines()
                .zip(actual.lines())
                .enumerate()
                .filter(|(_, (a, b))| a != b)
                .take(5)
                .map(|(i, (a, b))| format!("  line {}: file {a:?}\n          disasm {b:?}", i + 1))
                .collect();
            failures.push(format!(
                "{name}: disassembly differs ({} vs {} lines)\n{}",
                expected.lines().count(),
                actual.lines().count(),
                diff.join("\n")
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The docs' listing as printed there (lower-case SM5.1 register files).
const DOCS_LISTING: &str = "\
ps_5_1
dcl_globalFlags refactoringAllowed
dcl_sampler s0[5:5], mode_default, space=0
dcl_resource_texture2d (float,float,float,float) t0[5:5], space=0
dcl_resource_texture2d (float,float,float,float) t1[10:*], space=0
dcl_resource_texture2d (float,float,float,float) t2[0:7], space=1
dcl_input_ps linear v0.xyzw
dcl_output o0.xyzw
dcl_temps 2
sample r0.xyzw, v0.xyxx, t0[0].xyzw, s0[5]
add r0.xyzw, r0.xyzw, v0.xyzw
ftou r1.x, r0.x
sample r1.xyzw, r0.xyxx, t2[r1.x + 0].xyzw, s0[5]
add r0.xyzw, r0.xyzw, r1.xyzw
ftou r1.xyz, r0.zyxz
imul null, r1.yz, r1.zzyz, l(0, 15, 3, 0)
iadd r1.y, r1.z, r1.y
iadd r1.x, r1.x, r1.y
sample r1.xyzw, r0.xyxx, t1[r1.x + 10].xyzw, s0[5]
add o0.xyzw, r0.xyzw, r1.xyzw
ret
// Approximately 12 instruction slots are used.
";

#[test]
fn docs_sm51_example_in_the_docs_spelling() {
    let ours = std::fs::read_to_string(repo_root().join("shaders/asm/docs_ps51.asm")).unwrap();
    let a = asm::parse(&ours).unwrap();
    let b = asm::parse(DOCS_LISTING).unwrap();
    assert_eq!(a.chunk, b.chunk);
    // The header's tables gave the signatures: COORD in v0, SV_TARGET in o0.
    let blob = a.to_container().unwrap();
    let parsed = ParsedContainer::parse(&blob).unwrap();
    let input = &parsed.input_signature.as_ref().unwrap().elements;
    let output = &parsed.output_signature.as_ref().unwrap().elements;
    assert_eq!(
        (input[0].semantic_name, input[0].register, input[0].mask),
        ("COORD", 0, 0xf)
    );
    assert_eq!(
        (output[0].semantic_name, output[0].register),
        ("SV_TARGET", 0)
    );
}

/// Files the translator does not take today, and the error that says why (none at the
/// moment; the SM5.1 unbounded ranges, GS/HS stages and case fall-through with code were
/// once listed). A file listed here must fail with that error or translate; any other
/// failure fails the test.
const KNOWN: &[(&str, &str)] = &[];

/// Translates a container and runs spirv-val on the result.
fn translate_and_validate(
    blob: &[u8],
    name: &str,
    tmp: &std::path::Path,
) -> Result<String, String> {
    let t = translator::translate(blob, &translator::Options::default())
        .map_err(|e| format!("translate: {e}"))?;
    let spv = tmp.join(format!("{name}.spv"));
    let bytes: Vec<u8> = t.spirv.iter().flat_map(|w| w.to_le_bytes()).collect();
    std::fs::write(&spv, bytes).unwrap();
    if !have_spirv_val() {
        return Ok("translated (spirv-val not installed)".into());
    }
    match spirv_val(&spv, "vulkan1.3") {
        Ok(()) => Ok("translated, spirv-val ok".into()),
        Err(e) => Err(format!("spirv-val: {}", e.lines().next().unwrap_or(""))),
    }
}

#[test]
fn files_translate() {
    let mut report = Vec::new();
    let mut failures = Vec::new();
    spirv_val_or_narrow();
    let tmp = std::env::temp_dir().join(format!("asm-files-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    for path in asm_files() {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(&path).unwrap();
        let blob = asm::assemble(&text).unwrap();
        let known = KNOWN.iter().find(|(n, _)| *n == name).map(|(_, why)| *why);
        match (translate_and_validate(&blob, &name, &tmp), known) {
            (Ok(ok), None) => report.push(format!("{name}: {ok}")),
            (Ok(ok), Some(_)) => report.push(format!("{name}: {ok} (listed as known; remove it)")),
            (Err(e), Some(why)) if e.contains(why) => report.push(format!("{name}: known: {e}")),
            (Err(e), _) => failures.push(format!("{name}: {e}")),
        }
    }
    eprintln!("{}", report.join("\n"));
    let _ = std::fs::remove_dir_all(&tmp);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `MinPrecisionMode::Native16` on the minimum-precision programs (the hand-written file and
/// the runtime case's shader): 16-bit arithmetic that `spirv-val` accepts for every target,
/// with the capabilities and features the reflection names.
#[test]
fn native16_min_precision_validates_for_every_target() {
    let root = repo_root();
    let runtime =
        std::fs::read_to_string(root.join("shaders/runtime/alu/min-precision.shader_test"))
            .unwrap();
    // The first `[pixel shader asm]` section, up to the blank line ending it.
    let body: String = runtime
        .split("[pixel shader asm]\n")
        .nth(1)
        .expect("an asm section")
        .split("\n\n")
        .next()
        .unwrap()
        .to_string();
    let programs = [
        (
            "min_precision.asm",
            std::fs::read_to_string(root.join("shaders/asm/min_precision.asm")).unwrap(),
        ),
        ("min-precision.shader_test", body),
    ];
    let tmp = std::env::temp_dir().join(format!("asm-native16-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let validate = spirv_val_or_narrow();
    for (name, text) in &programs {
        let blob = asm::assemble(text).unwrap_or_else(|e| panic!("{name}: {e:?}"));
        for env in [
            translator::TargetEnv::Vulkan1_1,
            translator::TargetEnv::Vulkan1_2,
            translator::TargetEnv::Vulkan1_3,
        ] {
            let opts = translator::Options {
                target_env: env,
                min_precision: translator::MinPrecisionMode::Native16,
                ..Default::default()
            };
            let t = translator::translate(&blob, &opts).unwrap();
            let r = &t.reflection;
            for (cap, feature) in [("Float16", "shaderFloat16"), ("Int16", "shaderInt16")] {
                assert!(r.capabilities.iter().any(|c| c == cap), "{name}: {cap}");
                assert!(
                    r.vulkan_features.iter().any(|f| f == feature),
                    "{name}: {feature}"
                );
            }
            if !validate {
                continue;
            }
            let spv = tmp.join(format!("{name}-{}.spv", env.spirv_val_name()));
            let bytes: Vec<u8> = t.spirv.iter().flat_map(|w| w.to_le_bytes()).collect();
            std::fs::write(&spv, bytes).unwrap();
            spirv_val(&spv, env.spirv_val_name())
                .unwrap_or_else(|e| panic!("{name} {}: {e}", env.spirv_val_name()));
        }
    }
    let _ = std::fs::remove_dir_all(&tmp);
}
