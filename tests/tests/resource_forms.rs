//! Resource-instruction forms no HLSL compiler at hand emits: the sparse-feedback `*_s`
//! opcodes with `check_access_fully_mapped`, the `_cl` LOD clamps and `resinfo_rcpFloat`.
//!
//! Each case compiles a small HLSL shader with `tools/vkd3d-compiler.sh`, rewrites its
//! program through the public `sm4` API (opcode, control bits, an inserted status operand,
//! an added instruction), rebuilds the container and checks that the translation passes
//! `spirv-val` for Vulkan 1.3 and 1.1 and uses the SPIR-V forms the D3D rule needs (sparse
//! image instructions and `OpImageSparseTexelsResident`, `MinLod`, the reciprocal and its
//! infinity). Skips (recording why: `integration_tests::skip`) when the compiler or `spirv-val`
//! is missing.

use std::path::PathBuf;

use integration_tests::{spirv_val, spirv_val_or_skip, vkd3d_compiler, vkd3d_compiler_or_skip};
use translator::container::Container;
use translator::sm4::{
    self, Components, Index, Instruction, OpControl, Opcode, Operand, OperandType, Program,
    ResInfoReturnType,
};
use translator::{Options, TargetEnv};

fn compiler() -> PathBuf {
    vkd3d_compiler().expect("ready() checked it").0
}

/// Compiles HLSL to DXBC with vkd3d-compiler.
fn compile(hlsl: &str, profile: &str) -> Vec<u8> {
    let dir = std::env::temp_dir().join(format!("resource-forms-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let src = dir.join(format!("{profile}-{:x}.hlsl", hash(hlsl)));
    let out = src.with_extension("dxbc");
    std::fs::write(&src, hlsl).unwrap();
    let st = std::process::Command::new(compiler())
        .args(["-x", "hlsl", "-p", profile, "-b", "dxbc-tpf", "-o"])
        .arg(&out)
        .arg(&src)
        .status()
        .unwrap();
    assert!(st.success(), "vkd3d-compiler failed on:\n{hlsl}");
    std::fs::read(&out).unwrap()
}

fn hash(s: &str) -> u64 {
    s.bytes().fold(0xcbf29ce484222325u64, |h, b| {
        (h ^ b as u64).wrapping_mul(0x100000001b3)
    })
}

/// The container's program, decoded.
fn program(dxbc: &[u8]) -> Program {
    let c = Container::parse(dxbc).unwrap();
    let chunk = c.shader_chunk().unwrap();
    sm4::decode(chunk.data, chunk.offset).unwrap()
}

/// `dxbc` with its shader chunk replaced by `p` (checksum recomputed).
fn rebuild(dxbc: &[u8], p: &Program) -> Vec<u8> {
    let c = Container::parse(dxbc).unwrap();
    let shader = c.shader_chunk().unwrap().tag;
    let code = sm4::encode_chunk(p).unwrap();
    let chunks: Vec<([u8; 4], &[u8])> = c
        .chunks
        .iter()
        .map(|ch| (ch.tag, if ch.tag == shader { &code[..] } else { ch.data }))
        .collect();
    let head = 32 + 4 * chunks.len();
    let mut out = Vec::new();
    out.extend_from_slice(b"DXBC");
    out.extend_from_slice(&[0; 16]);
    out.extend_from_slice(&1u32.to_le_bytes());
    out.extend_from_slice(&0u32.to_le_bytes());
    out.extend_from_slice(&(chunks.len() as u32).to_le_bytes());
    let mut off = head;
    for (_, data) in &chunks {
        out.extend_from_slice(&(off as u32).to_le_bytes());
        off += 8 + data.len();
    }
    for (tag, data) in &chunks {
        out.extend_from_slice(tag);
        out.extend_from_slice(&(data.len() as u32).to_le_bytes());
        out.extend_from_slice(data);
    }
    let total = out.len() as u32;
    out[24..28].copy_from_slice(&total.to_le_bytes());
    let sum = translator::container::checksum::container_checksum(&out);
    out[4..20].copy_from_slice(&sum);
    out
}

/// Index of the `n`-th instruction with opcode `op`.
fn find(p: &Program, op: Opcode, n: usize) -> usize {
    p.instructions
        .iter()
        .enumerate()
        .filter(|(_, i)| i.opcode == op)
        .nth(n)
        .unwrap_or_else(|| panic!("no {op:?} #{n} in\n{p}"))
        .0
}

/// Inserts `op` as operand `pos` of instruction `i`.
fn insert_operand(p: &mut Program, i: usize, pos: usize, op: Operand) {
    let at = p.instructions[i].operand_range.start as usize + pos;
    p.operands.insert(at, op);
    for (k, inst) in p.instructions.iter_mut().enumerate() {
        let r = &mut inst.operand_range;
        if k == i {
            r.end += 1;
        } else if r.start as usize >= at {
            r.start += 1;
            r.end += 1;
        }
    }
}

/// Inserts instruction `inst` with `ops` before instruction `i`.
fn insert_instruction(p: &mut Program, i: usize, mut inst: Instruction, ops: &[Operand]) {
    let at = p.instructions[i].operand_range.start;
    for o in ops.iter().rev() {
        p.operands.insert(at as usize, *o);
    }
    let n = ops.len() as u32;
    for inst in p.instructions.iter_mut().skip(i) {
        inst.operand_range.start += n;
        inst.operand_range.end += n;
    }
    inst.operand_range = at..at + n;
    p.instructions.insert(i, inst);
}

fn temp(reg: u32, comps: Components) -> Operand {
    let mut o = Operand::new(OperandType::Temp, comps);
    o.push_index(Index::imm(reg));
    o
}

fn imm_f32(v: f32) -> Operand {
    let mut o = Operand::new(OperandType::Immediate32, Components::One);
    o.set_immediates(&[v.to_bits()]);
    o
}

/// The register a destination operand names.
fn dst_register(p: &Program, i: usize) -> u32 {
    let r = p.instructions[i].operand_range.start as usize;
    p.operands[r].register().unwrap()
}

/// Turns instruction `i` into `to`, a sparse-feedback form whose status goes to `r{reg}.w`
/// (the value keeps `.xyz`), then appends `check_access_fully_mapped r{reg}.w, r{reg}.w`.
fn with_feedback(p: &mut Program, i: usize, to: Opcode) {
    let reg = dst_register(p, i);
    p.instructions[i].opcode = to;
    let first = p.instructions[i].operand_range.start as usize;
    if p.operands[first].components == Components::Mask(0xf) {
        p.operands[first].components = Components::Mask(0x7);
    }
    insert_operand(p, i, 1, temp(reg, Components::Mask(0x8)));
    insert_instruction(
        p,
        i + 1,
        Instruction::new(Opcode::CheckAccessFullyMapped, 0),
        &[
            temp(reg, Components::Mask(0x8)),
            temp(reg, Components::Select1(3)),
        ],
    );
}

/// Translates for both target environments, validates, and returns the disassembly.
fn translate_and_validate(dxbc: &[u8], name: &str) -> Option<String> {
    let dir = std::env::temp_dir().join(format!("resource-forms-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut text = String::new();
    for env in [TargetEnv::Vulkan1_3, TargetEnv::Vulkan1_1] {
        let opts = Options {
            target_env: env,
            ..Default::default()
        };
        let t = translator::translate(dxbc, &opts)
            .unwrap_or_else(|e| panic!("{name}: translate failed: {e}"));
        let spv = dir.join(format!("{name}-{}.spv", env.spirv_val_name()));
        let bytes: Vec<u8> = t.spirv.iter().flat_map(|w| w.to_le_bytes()).collect();
        std::fs::write(&spv, bytes).unwrap();
        if let Err(e) = spirv_val(&spv, env.spirv_val_name()) {
            panic!("{name} ({}): spirv-val: {e}", env.spirv_val_name());
        }
        if text.is_empty() {
            let out = std::process::Command::new("spirv-dis")
                .arg(&spv)
                .output()
                .ok()?;
            text = String::from_utf8_lossy(&out.stdout).to_string();
        }
    }
    Some(text)
}

fn ready() -> bool {
    vkd3d_compiler_or_skip().is_some() && spirv_val_or_skip()
}

#[test]
fn sparse_feedback_forms_validate() {
    if !ready() {
        return;
    }
    let hlsl = r"
Texture2D t : register(t0);
Texture2D<float> d : register(t1);
SamplerState s : register(s0);
SamplerComparisonState c : register(s1);
RWTexture2D<float4> rb : register(u1);
RWStructuredBuffer<float4> o : register(u0);
    [numthreads(1, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    float2 uv = id.xy * 0.25;
    o[0] = t.SampleLevel(s, uv, 0.0);
    o[1] = t.Load(int3(id));
    o[2] = t.GatherRed(s, uv);
    o[3] = d.SampleCmpLevelZero(c, uv, 0.5).xxxx;
    o[4] = rb[id.xy];
}
";
    let dxbc = compile(hlsl, "cs_5_0");
    let mut p = program(&dxbc);
    let i = find(&p, Opcode::SampleL, 0);
    with_feedback(&mut p, i, Opcode::SampleLS);
    let i = find(&p, Opcode::Ld, 0);
    with_feedback(&mut p, i, Opcode::LdS);
    let i = find(&p, Opcode::Gather4, 0);
    with_feedback(&mut p, i, Opcode::Gather4S);
    let i = find(&p, Opcode::SampleCLz, 0);
    with_feedback(&mut p, i, Opcode::SampleCLzS);
    let i = find(&p, Opcode::LdUavTyped, 0);
    with_feedback(&mut p, i, Opcode::LdUavTypedS);
    let listing = p.to_string();
    for op in [
        "sample_l_s",
        "ld_s",
        "gather4_s",
        "sample_c_lz_s",
        "ld_uav_typed_s",
        "check_access_fully_mapped",
    ] {
        assert!(listing.contains(op), "{op} missing in\n{listing}");
    }
    let Some(spv) = translate_and_validate(&rebuild(&dxbc, &p), "sparse") else {
        return;
    };
    for op in [
        "OpImageSparseSampleExplicitLod",
        "OpImageSparseFetch",
        "OpImageSparseGather",
        "OpImageSparseSampleDrefExplicitLod",
        "OpImageSparseRead",
        "OpImageSparseTexelsResident",
        "OpCapability SparseResidency",
    ] {
        assert!(spv.contains(op), "{op} missing in\n{spv}");
    }
}

#[test]
fn lod_clamp_forms_validate() {
    if !ready() {
        return;
    }
    let hlsl = r"
Texture2D t : register(t0);
Texture2D<float> d : register(t1);
SamplerState s : register(s0);
SamplerComparisonState c : register(s1);
float4 main(float4 pos : SV_Position) : SV_Target
{
    float2 uv = pos.xy * 0.25;
    return t.Sample(s, uv) + t.SampleBias(s, uv, 0.5) + t.SampleGrad(s, uv, float2(1.0, 0.0), float2(0.0, 1.0))
            + d.SampleCmp(c, uv, 0.5);
}
";
    let dxbc = compile(hlsl, "ps_5_0");
    let mut p = program(&dxbc);
    let null = Operand::new(OperandType::Null, Components::Zero);
    // Sample and SampleCmp get a clamp of 1.5 and no status; SampleBias a status too.
    for (from, to) in [
        (Opcode::Sample, Opcode::SampleClampS),
        (Opcode::SampleD, Opcode::SampleDClampS),
        (Opcode::SampleC, Opcode::SampleCClampS),
    ] {
        let i = find(&p, from, 0);
        p.instructions[i].opcode = to;
        insert_operand(&mut p, i, 1, null);
        let n = p.instructions[i].operand_range.len();
        insert_operand(&mut p, i, n, imm_f32(1.5));
    }
    let i = find(&p, Opcode::SampleB, 0);
    with_feedback(&mut p, i, Opcode::SampleBClampS);
    let n = p.instructions[i].operand_range.len();
    insert_operand(&mut p, i, n, imm_f32(1.5));
    let listing = p.to_string();
    for op in [
        "sample_cl_s",
        "sample_b_cl_s",
        "sample_d_cl_s",
        "sample_c_cl_s",
    ] {
        assert!(listing.contains(op), "{op} missing in\n{listing}");
    }
    let Some(spv) = translate_and_validate(&rebuild(&dxbc, &p), "minlod") else {
        return;
    };
    assert!(spv.contains("OpCapability MinLod"), "{spv}");
    assert_eq!(spv.matches("MinLod %").count(), 4, "{spv}");
    assert!(spv.contains("OpImageSparseSampleImplicitLod"), "{spv}");
}

#[test]
fn resinfo_rcp_float_validates() {
    if !ready() {
        return;
    }
    let hlsl = r"
Texture2DArray t : register(t0);
uint mip;
float4 main() : SV_Target
{
    float w, h, e, l;
    t.GetDimensions(mip, w, h, e, l);
    return float4(w, h, e, l);
}
";
    let dxbc = compile(hlsl, "ps_5_0");
    let mut p = program(&dxbc);
    let i = find(&p, Opcode::ResInfo, 0);
    p.instructions[i].control = OpControl::ResInfo(ResInfoReturnType::RcpFloat);
    assert!(p.to_string().contains("resinfo_rcpFloat"), "{p}");
    let Some(spv) = translate_and_validate(&rebuild(&dxbc, &p), "rcp") else {
        return;
    };
    // 1/x for width and height, the array size kept, infinity for a bad mip.
    assert!(spv.contains("OpFDiv"), "{spv}");
    assert!(spv.contains("OpVectorShuffle"), "{spv}");
    assert!(spv.contains("0x1p+128"), "{spv}");
}
