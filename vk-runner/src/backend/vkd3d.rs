//! The `vkd3d` backend: DXBC → SPIR-V with `vkd3d-compiler -x dxbc-tpf -b spirv-binary`, and a
//! [`Reflection`] derived from that SPIR-V plus the DXBC's signatures and vkd3d's disassembly.
//!
//! vkd3d-compiler, run without an interface description, puts every descriptor in set 0 at
//! bindings numbered in declaration order (cb, s, t, u mixed), names each variable after its
//! register ID (`cb0_0`, `t3`), and makes structured/raw buffers `R32ui` texel buffers. The
//! D3D origin of each binding is recovered from the variable name and the `dcl_*` lines.

use super::spirv_info::{self, IoVar, SpirvInfo};
use super::vkd3d_asm::{self, DeclKind};
use super::vkd3d_reflect::{self, Located};
use crate::cache::{Cache, hash_parts, resolve_executable, run_tool, tool_identity, tool_version};
use crate::hlsl::first_lines;
use std::path::PathBuf;
use translator::Translation;
use translator::container::signature::{ComponentType as SigType, SystemValue};
use translator::container::{Container, Signature, SignatureElement as SigElement};
use translator::reflect::*;

/// vkd3d-compiler as a translator.
pub struct Vkd3dBackend {
    exe: PathBuf,
    identity: String,
    cache: Cache,
}

impl Vkd3dBackend {
    pub fn new(cmd: &str, cache: Cache) -> Result<Self, String> {
        let exe =
            resolve_executable(cmd).ok_or_else(|| format!("vkd3d-compiler '{cmd}' not found"))?;
        let identity = format!("{}|{}", tool_identity(&exe), tool_version(&exe)?);
        Ok(Vkd3dBackend {
            exe,
            identity,
            cache,
        })
    }

    fn run_cached(&self, dxbc: &[u8], target: &str, ext: &str) -> Result<Vec<u8>, String> {
        // D3D9 bytecode (SM1–3) is vkd3d's `d3dbc` source type.
        let source = if translator::d3dbc::is_d3dbc(dxbc) {
            "d3dbc"
        } else {
            "dxbc-tpf"
        };
        let key = hash_parts(&[
            b"vkd3d-v1",
            self.identity.as_bytes(),
            source.as_bytes(),
            target.as_bytes(),
            dxbc,
        ]);
        if let Some(v) = self.cache.get(key, ext) {
            return Ok(v);
        }
        let out = run_tool(
            &self.exe,
            &["-x", source, "-b", target, "-o", "-", "-"],
            dxbc,
        )?;
        if !out.success || out.stdout.is_empty() {
            return Err(format!(
                "vkd3d-compiler -b {target} failed: {}",
                first_lines(&out.stderr, 3)
            ));
        }
        self.cache.put(key, ext, &out.stdout);
        Ok(out.stdout)
    }

    pub fn translate(&self, dxbc: &[u8]) -> Result<Translation, String> {
        let spv = self.run_cached(dxbc, "spirv-binary", "spv")?;
        if spv.len() % 4 != 0 {
            return Err("vkd3d-compiler produced SPIR-V whose size is not a multiple of 4".into());
        }
        let words: Vec<u32> = spv
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().expect("4")))
            .collect();
        let asm = String::from_utf8_lossy(&self.run_cached(dxbc, "d3d-asm", "asm")?).into_owned();
        let info = spirv_info::read(&words)?;
        let reflection = if translator::d3dbc::is_d3dbc(dxbc) {
            super::vkd3d_d3dbc::reflect(&info, &asm)?
        } else {
            reflect(&info, dxbc, &asm)?
        };
        Ok(Translation {
            spirv: words,
            reflection,
        })
    }
}

/// Builds a reflection for vkd3d's output.
fn reflect(info: &SpirvInfo, dxbc: &[u8], asm: &str) -> Result<Reflection, String> {
    let container = Container::parse(dxbc).map_err(|e| format!("DXBC container: {e}"))?;
    let sig = |tags: &[&[u8; 4]]| -> Result<Vec<SigElement<'_>>, String> {
        match container.chunk_any(tags) {
            Some(c) => Signature::parse(c)
                .map(|s| s.elements)
                .map_err(|e| format!("signature: {e}")),
            None => Ok(Vec::new()),
        }
    };
    let in_sig = sig(&[b"ISGN", b"ISG1"])?;
    let out_sig = sig(&[b"OSGN", b"OSG1", b"OSG5"])?;
    let pc_sig = sig(&[b"PCSG", b"PSG1"])?;
    let inputs = interface(&in_sig, &info.inputs, info.stage);
    let outputs = interface(&out_sig, &info.outputs, info.stage);
    let patch_constants = interface(&pc_sig, &[], info.stage);

    let decls = vkd3d_asm::parse_decls(asm);
    let descriptors = vkd3d_reflect::descriptors(info, |name, class, id| {
        let decl = decls
            .iter()
            .find(|x| x.class == class && x.id == id)
            .ok_or_else(|| format!("no declaration for {name} in the disassembly"))?;
        Ok(Located {
            space: decl.space,
            lower: decl.lower,
            upper: decl.upper,
            buffer: match decl.kind {
                DeclKind::Structured { stride } => Some(ResourceShape::StructuredBuffer { stride }),
                DeclKind::Raw => Some(ResourceShape::RawBuffer),
                _ => None,
            },
        })
    })?;
    Ok(Reflection {
        inputs,
        outputs,
        patch_constants,
        push_constants: info
            .push_constant_size
            .map(|size| {
                vec![PushConstantRange {
                    offset: 0,
                    size,
                    space: 0,
                    register: 0,
                }]
            })
            .unwrap_or_default(),
        workgroup_size: info.workgroup_size,
        ..vkd3d_reflect::module_reflection(info, descriptors)
    })
}

/// The SPIR-V built-in a D3D system value becomes (by signature sysval, or by name for the
/// values signatures leave undefined).
fn builtin_for(e: &SigElement<'_>, stage: ShaderStage) -> Option<&'static str> {
    Some(match e.system_value_by_name() {
        SystemValue::Position if stage == ShaderStage::Pixel => "FragCoord",
        SystemValue::Position => "Position",
        SystemValue::ClipDistance => "ClipDistance",
        SystemValue::CullDistance => "CullDistance",
        SystemValue::RenderTargetArrayIndex => "Layer",
        SystemValue::ViewportArrayIndex => "ViewportIndex",
        SystemValue::VertexId => "VertexIndex",
        SystemValue::PrimitiveId => "PrimitiveId",
        SystemValue::InstanceId => "InstanceIndex",
        SystemValue::IsFrontFace => "FrontFacing",
        SystemValue::SampleIndex => "SampleId",
        SystemValue::Depth | SystemValue::DepthGreaterEqual | SystemValue::DepthLessEqual => {
            "FragDepth"
        }
        SystemValue::Coverage => "SampleMask",
        SystemValue::StencilRef => "FragStencilRefEXT",
        _ => return None,
    })
}

fn interface(sig: &[SigElement<'_>], vars: &[IoVar], stage: ShaderStage) -> Vec<InterfaceVar> {
    sig.iter()
        .map(|e| {
            let register = (e.register != u32::MAX).then_some(e.register);
            let by_builtin = builtin_for(e, stage)
                .filter(|b| vars.iter().any(|v| v.builtin.as_deref() == Some(*b)))
                .map(|b| InterfacePlacement::BuiltIn {
                    builtin: b.to_string().into(),
                });
            let by_location = || {
                register.and_then(|r| {
                    vars.iter()
                        .find(|v| v.location == Some(r) && v.builtin.is_none())
                        .map(|v| InterfacePlacement::Location {
                            location: r,
                            component: v.component,
                        })
                })
            };
            let placement = by_builtin
                .or_else(by_location)
                .unwrap_or(InterfacePlacement::Unused);
            InterfaceVar {
                semantic_name: e.semantic_name.to_string().into(),
                semantic_index: e.semantic_index,
                register,
                mask: e.mask,
                component_type: match e.component_type {
                    SigType::UInt32 => ComponentType::Uint,
                    SigType::SInt32 => ComponentType::Sint,
                    _ => ComponentType::Float,
                },
                placement,
            }
        })
        .collect()
}
