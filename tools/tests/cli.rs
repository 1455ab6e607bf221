//! End-to-end tests of the `dxbc` binary: output on the bundled examples, exit statuses, the
//! checksum policy, and a robustness sweep over mutated blobs (the corpus when `../shared` is
//! present, the bundled examples otherwise) in which every run must exit 0 or 1, never crash,
//! and report an error as exactly one `dxbc: error:` line.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

const DXBC: &str = env!("CARGO_BIN_EXE_dxbc");

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn example(name: &str) -> PathBuf {
    repo().join("shaders/examples").join(name)
}

fn run(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut child = Command::new(DXBC)
        .args(args)
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run dxbc");
    if let Some(data) = stdin {
        // The program may exit before reading everything; a broken pipe is fine.
        let _ = child.stdin.take().unwrap().write_all(data);
    }
    child.wait_with_output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Exit 0 (stderr: at most warnings) or 1 (stderr: exactly one error line); anything else,
/// including death by a signal, is a failure.
fn check_contract(out: &Output, what: &str) -> Result<i32, String> {
    let stderr = text(&out.stderr);
    match out.status.code() {
        Some(0) => {
            if let Some(bad) = stderr.lines().find(|l| !l.starts_with("dxbc: warning: ")) {
                return Err(format!(
                    "{what}: exit 0 with a non-warning stderr line {bad:?}"
                ));
            }
            if out.stdout.is_empty() {
                return Err(format!("{what}: exit 0 but no output"));
            }
            Ok(0)
        }
        Some(1) => {
            let lines: Vec<&str> = stderr.lines().collect();
            if lines.len() != 1 || !lines[0].starts_with("dxbc: error: ") || !stderr.ends_with('\n')
            {
                return Err(format!(
                    "{what}: exit 1 but stderr is not one error line: {stderr:?}"
                ));
            }
            Ok(1)
        }
        other => Err(format!(
            "{what}: exit status {other:?} ({}), stderr {stderr:?}",
            out.status
        )),
    }
}

#[test]
fn info_describes_the_example() {
    let path = example("ps_texture.dxbc");
    let out = run(&["info", path.to_str().unwrap()], None);
    assert_eq!(check_contract(&out, "info"), Ok(0));
    let stdout = text(&out.stdout);
    // Facts from ps_texture.hlsl: a ps_5_0 shader, texture t0, sampler s0, cbuffer b0.
    for needle in [
        "shader:    ps_5_0",
        "(valid)",
        "RDEF",
        "// cbuffer Material",
        "// diffuse                           texture  float4          2d             t0      1 ",
        "// linear_sampler                    sampler      NA          NA             s0      1 ",
        "// TEXCOORD                 0   xy          1     NONE   float   xy  ",
        "instruction_count",
    ] {
        assert!(stdout.contains(needle), "missing {needle:?} in:\n{stdout}");
    }
}

#[test]
fn info_json_is_structured() {
    let path = example("vs_transform.dxbc");
    let out = run(&["info", "--json", path.to_str().unwrap()], None);
    assert_eq!(check_contract(&out, "info --json"), Ok(0));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("valid JSON");
    assert_eq!(v["shader"]["profile"], "vs_4_0");
    assert_eq!(v["checksum"]["valid"], true);
    let chunks: Vec<&str> = v["chunks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["tag"].as_str().unwrap())
        .collect();
    assert!(
        chunks.contains(&"RDEF") && chunks.contains(&"SHDR"),
        "{chunks:?}"
    );
    // vs_transform.hlsl: cbuffer Transforms : register(b1) with world_view_proj, lights[2],
    // light_count; inputs POSITION and NORMAL.
    let cb = &v["resources"]["constant_buffers"][0];
    assert_eq!(cb["name"], "Transforms");
    let vars: Vec<&str> = cb["variables"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["name"].as_str().unwrap())
        .collect();
    assert_eq!(vars, ["world_view_proj", "lights", "light_count"]);
    assert_eq!(v["resources"]["bindings"][0]["bind_point"], 1);
    let inputs: Vec<&str> = v["input_signature"]["elements"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["semantic_name"].as_str().unwrap())
        .collect();
    assert_eq!(inputs, ["POSITION", "NORMAL"]);
}

#[test]
fn disasm_prints_header_and_listing() {
    let path = example("ps_texture.dxbc");
    let out = run(&["disasm", path.to_str().unwrap()], None);
    assert_eq!(
        check_contract(&out, "disasm"),
        Ok(0),
        "{}",
        text(&out.stderr)
    );
    let stdout = text(&out.stdout);
    assert!(stdout.starts_with("//\n// Generated by "), "{stdout}");
    assert!(stdout.contains("// Resource Bindings:"), "{stdout}");
    assert!(stdout.contains("ps_5_0"), "{stdout}");
    assert!(stdout.contains("sample"), "{stdout}");
    assert!(stdout.contains("// Approximately "), "{stdout}");
    // Same through stdin.
    let data = std::fs::read(&path).unwrap();
    let piped = run(&["disasm", "-"], Some(&data));
    assert_eq!(piped.stdout, out.stdout);
}

#[test]
fn checksum_policy() {
    let mut data = std::fs::read(example("ps_texture.dxbc")).unwrap();
    data[4] ^= 0xff;
    let lenient = run(&["info", "-"], Some(&data));
    assert_eq!(check_contract(&lenient, "lenient"), Ok(0));
    assert!(
        text(&lenient.stderr).contains("checksum mismatch"),
        "{}",
        text(&lenient.stderr)
    );
    let strict = run(&["info", "--strict", "-"], Some(&data));
    assert_eq!(check_contract(&strict, "strict"), Ok(1));
    assert!(text(&strict.stderr).contains("checksum mismatch"));
    let strict_ok = run(
        &[
            "info",
            "--strict",
            example("ps_texture.dxbc").to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(check_contract(&strict_ok, "strict valid"), Ok(0));
    assert!(strict_ok.stderr.is_empty());
}

#[test]
fn bad_input_is_one_error_line() {
    let missing = run(&["info", "/nonexistent/file.dxbc"], None);
    assert_eq!(check_contract(&missing, "missing file"), Ok(1));
    let empty = run(&["disasm", "-"], Some(b""));
    assert_eq!(check_contract(&empty, "empty"), Ok(1));
    let junk = run(
        &["info", "-"],
        Some(b"not a shader at all, just text that is long enough"),
    );
    assert_eq!(check_contract(&junk, "junk"), Ok(1));
    assert!(
        text(&junk.stderr).contains("DXBC"),
        "{}",
        text(&junk.stderr)
    );
}

#[test]
fn usage_errors_exit_2() {
    for args in [
        &[][..],
        &["bogus"],
        &["info"],
        &["disasm", "a", "b"],
        &["info", "--no-such-flag", "x"],
    ] {
        let out = run(args, None);
        assert_eq!(
            out.status.code(),
            Some(2),
            "dxbc {args:?}: {}",
            text(&out.stderr)
        );
    }
    assert_eq!(run(&["--help"], None).status.code(), Some(0));
    assert_eq!(run(&["info", "--help"], None).status.code(), Some(0));
}

/// xorshift64*, for reproducible mutations.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn mutate(rng: &mut Rng, seed: &[u8]) -> Vec<u8> {
    let mut d = seed.to_vec();
    match rng.below(4) {
        0 => {
            d.truncate(rng.below(d.len() + 1));
            if d.len() >= 28 {
                let n = d.len() as u32;
                d[24..28].copy_from_slice(&n.to_le_bytes());
            }
        }
        1 => {
            for _ in 0..1 + rng.below(6) {
                let bit = rng.below(d.len() * 8);
                d[bit / 8] ^= 1 << (bit % 8);
            }
        }
        2 => {
            // A 32-bit field anywhere after the header gets an extreme or random value.
            let at = 24 + 4 * rng.below((d.len().saturating_sub(28)) / 4 + 1);
            let v = [
                0,
                1,
                0xffff_ffff,
                0x8000_0000,
                d.len() as u32,
                rng.next() as u32,
            ][rng.below(6)];
            if at + 4 <= d.len() {
                d[at..at + 4].copy_from_slice(&v.to_le_bytes());
            }
        }
        _ => {
            let at = rng.below(d.len());
            let n = (1 + rng.below(32)).min(d.len() - at);
            for b in &mut d[at..at + n] {
                *b = rng.next() as u8;
            }
        }
    }
    d
}

fn seeds() -> Vec<Vec<u8>> {
    let mut files = vec![example("ps_texture.dxbc"), example("vs_transform.dxbc")];
    let corpus = repo().join("../shared/corpus/dxbc");
    if corpus.is_dir() {
        let mut stack = vec![corpus];
        while let Some(dir) = stack.pop() {
            for e in std::fs::read_dir(dir).unwrap().flatten() {
                let p = e.path();
                if p.is_dir() {
                    stack.push(p);
                } else if p.extension().is_some_and(|x| x == "dxbc") {
                    files.push(p);
                }
            }
        }
        files.sort();
    } else {
        integration_tests::skip::skip_part(
            integration_tests::skip::CORPUS,
            integration_tests::skip::NO_CORPUS,
            "ran over the bundled examples only",
        );
    }
    files.iter().map(|p| std::fs::read(p).unwrap()).collect()
}

#[test]
fn mutated_blobs_exit_0_or_1_with_one_line_errors() {
    let seeds = seeds();
    const BLOBS: usize = 500;
    let mut rng = Rng(0x5EED_D8BC);
    let mut failures = Vec::new();
    let mut codes = [0usize; 2];
    let dir = std::env::temp_dir().join(format!("dxbc-cli-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for i in 0..BLOBS {
        let blob = mutate(&mut rng, &seeds[i % seeds.len()]);
        // `info` reads a file, `disasm` reads stdin: both input paths get mutated data.
        let path = dir.join("case.dxbc");
        std::fs::write(&path, &blob).unwrap();
        let info = run(&["info", path.to_str().unwrap()], None);
        let disasm = run(&["disasm", "-"], Some(&blob));
        for (out, what) in [(info, "info"), (disasm, "disasm")] {
            match check_contract(&out, &format!("blob {i} {what}")) {
                Ok(code) => codes[code as usize] += 1,
                Err(e) => {
                    let saved = dir.join(format!("failing-{i}.dxbc"));
                    std::fs::write(&saved, &blob).unwrap();
                    failures.push(format!("{e} [saved to {}]", saved.display()));
                }
            }
        }
    }
    println!(
        "{BLOBS} mutated blobs: {} runs exited 0, {} exited 1",
        codes[0], codes[1]
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(
        codes[0] > 0 && codes[1] > 0,
        "mutations should produce both outcomes: {codes:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every corpus and bench blob disassembles under `--strict` (valid checksums, decodable).
#[test]
fn corpus_disassembles_strictly() {
    let shared = repo().join("../shared");
    if !shared.join("corpus/dxbc").is_dir() {
        integration_tests::skip::skip(
            integration_tests::skip::CORPUS,
            integration_tests::skip::NO_CORPUS,
        );
        return;
    }
    let mut files = Vec::new();
    let mut stack = vec![shared.join("corpus/dxbc"), shared.join("bench/dxbc")];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "dxbc") {
                files.push(p);
            }
        }
    }
    files.sort();
    assert!(files.len() >= 279);
    let mut failures = Vec::new();
    for f in &files {
        let out = run(&["disasm", "--strict", f.to_str().unwrap()], None);
        if out.status.code() != Some(0) {
            failures.push(format!("{}: {}", f.display(), text(&out.stderr).trim()));
        } else if !text(&out.stdout).contains("// Approximately ")
            && !text(&out.stdout).contains("ret")
        {
            failures.push(format!("{}: listing has no ret", f.display()));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} failed:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}

#[test]
fn translate_options_for_spec_ids_and_denormals() {
    let dir = std::env::temp_dir().join(format!("dxbc-cli-spec-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let asm = dir.join("rast.asm");
    std::fs::write(
        &asm,
        "ps_5_0\n.output SV_Target 0 o0 float\ndcl_output o0.xyzw\n\
         sampleinfo o0.xyzw, rasterizer.xxxx\nret\n",
    )
    .unwrap();
    let blob = dir.join("rast.dxbc");
    let out = run(
        &["asm", asm.to_str().unwrap(), "-o", blob.to_str().unwrap()],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let listing = dir.join("rast.txt");
    let out = run(
        &[
            "translate",
            "--text",
            "--sample-count-spec-id",
            "9",
            "--denorm-flush",
            blob.to_str().unwrap(),
            "-o",
            listing.to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let spv = std::fs::read_to_string(&listing).unwrap();
    assert!(spv.contains("SpecId 9"), "{spv}");
    assert!(spv.contains("DenormFlushToZero"), "{spv}");
    let out = run(
        &[
            "reflect",
            "--sample-count-spec-id",
            "9",
            blob.to_str().unwrap(),
        ],
        None,
    );
    let json = text(&out.stdout);
    assert!(
        json.contains("\"id\": 9") && json.contains("rasterizer-sample-count"),
        "{json}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// `bench --stages` in a build without the stage-times feature (every normal build) refuses
/// with one line saying how to build one that has it, rather than printing no stages.
#[test]
fn bench_stages_without_the_feature_says_how_to_get_it() {
    let file = std::fs::read_dir(repo().join("shaders/examples"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "dxbc"))
        .expect("a bundled example");
    let out = run(
        &[
            "bench",
            "--stages",
            "-t",
            "0",
            "-n",
            "1",
            file.to_str().unwrap(),
        ],
        None,
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    if translator::stage_times::AVAILABLE {
        assert!(out.status.success(), "{stderr}");
        assert!(String::from_utf8_lossy(&out.stdout).contains("lower-body"));
        return;
    }
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("--features stage-times"), "{stderr}");
}
