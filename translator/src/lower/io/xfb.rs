//! Stream output (transform feedback): D3D's stream-output declaration
//! ([`crate::options::StreamOutput`]) as SPIR-V's `Xfb` execution mode and
//! `XfbBuffer`/`XfbStride`/`Offset` decorations on a vertex, domain or geometry shader's
//! outputs.
//!
//! D3D names each entry by semantic and packs a slot's entries in declaration order; Vulkan
//! decorates output variables. The declaration is checked and resolved against the output
//! signature before the interface variables exist ([`Lowerer::prepare_xfb`]: offsets, strides,
//! registers the shader declares no output for), and applied after ([`Lowerer::apply_xfb`]):
//! an entry that covers an output variable exactly (a whole `float4` in its register, all of
//! `SV_Position`) decorates that variable; any other entry (part of an output, an output that
//! shares its variable with another element, a clip distance, a second capture of the same
//! output) gets a variable of its own at a fresh `Location` past every output location (the
//! next stage, which reads only the registers of its signature, ignores it), stored at every
//! exit or emit like the others. Every variable has 32-bit components, so every `Offset` is
//! 4-byte aligned, and offsets come from the packing, so variables in a buffer never overlap.

use spirv::{Capability, Decoration, ExecutionMode, StorageClass};

use super::interface::{reflect_type, scalar_of};
use super::{IoPart, IoReg, PartKind};
use crate::ir::{DecorationTarget, GlobalId, Scalar, TypeTable};
use crate::lower::{LowerError, Lowerer, R};
use crate::options::StreamOutput;
use crate::reflect::{InterfacePlacement, ShaderStage, XfbBuffer, XfbEntry, XfbLayout};

/// D3D11's largest stream-output stride (`D3D11_SO_BUFFER_MAX_STRIDE_IN_BYTES`).
const MAX_STRIDE: u32 = 2048;
/// More entries than D3D allows (`D3D11_SO_STREAM_COUNT` × `D3D11_SO_OUTPUT_COMPONENT_COUNT`).
const MAX_ENTRIES: usize = 512;

/// One resolved entry (not a gap).
#[derive(Debug, Clone)]
pub(crate) struct PlannedEntry {
    index: usize,
    stream: u8,
    slot: u32,
    offset: u32,
    register: u32,
    /// The register components written: `first..first + count`.
    first: u8,
    count: u8,
    scalar: Scalar,
    semantic_name: String,
    semantic_index: u32,
}

/// The declaration, checked and resolved against the output signature.
#[derive(Debug, Clone)]
pub(crate) struct XfbPlan {
    entries: Vec<PlannedEntry>,
    /// Per slot: (stream, stride) of the slots that have entries.
    slots: [Option<(u8, u32)>; 4],
    rasterized_stream: Option<u32>,
}

fn err(entry: Option<usize>, what: impl Into<String>) -> LowerError {
    LowerError::StreamOutput {
        entry,
        what: what.into(),
    }
}

/// Refuses a stream-output declaration for a stage that has no stream output.
pub(crate) fn check_stage(stage: ShaderStage, so: Option<&StreamOutput>) -> R<()> {
    if so.is_some()
        && !matches!(
            stage,
            ShaderStage::Vertex | ShaderStage::Domain | ShaderStage::Geometry
        )
    {
        return Err(err(
            None,
            format!(
                "a {} shader has no stream output (only vertex, domain and geometry shaders)",
                stage.prefix()
            ),
        ));
    }
    Ok(())
}

impl<'p, 'm> Lowerer<'p, 'm> {
    /// The stream whose outputs are rasterized, which therefore carries the built-ins
    /// (`Position`, ...): the declaration's rasterized stream, else 0.
    pub(in crate::lower) fn rasterized_stream(&self) -> u8 {
        self.opts
            .stream_output
            .as_ref()
            .and_then(|s| s.rasterized_stream)
            .filter(|&s| s < 4)
            .unwrap_or(0) as u8
    }

    /// Checks the stream-output declaration against the output signature, places each entry
    /// in its buffer and makes sure every register an entry reads is an output (before the
    /// interface variables are created).
    pub(in crate::lower) fn prepare_xfb(&mut self) -> R<Option<XfbPlan>> {
        let Some(so) = self.opts.stream_output.as_ref() else {
            return Ok(None);
        };
        let gs = self.stage == ShaderStage::Geometry;
        if so.entries.len() > MAX_ENTRIES {
            return Err(err(
                None,
                format!("{} entries (at most {MAX_ENTRIES})", so.entries.len()),
            ));
        }
        match so.rasterized_stream {
            Some(s) if s > 3 => {
                return Err(err(
                    None,
                    format!("rasterized stream {s} (streams are 0-3)"),
                ));
            }
            Some(s) if s != 0 && !gs => {
                return Err(err(
                    None,
                    format!(
                        "rasterized stream {s}: a {} shader has stream 0 only",
                        self.stage.prefix()
                    ),
                ));
            }
            _ => {}
        }
        let declared_streams = if self.io.declared_streams == 0 {
            1
        } else {
            self.io.declared_streams
        };
        let mut slots: [Option<(u8, u32)>; 4] = [None; 4];
        // Per slot: the bytes packed so far.
        let mut ends = [0u32; 4];
        // (register, slot, first component, count, entry) of each entry so far, to refuse
        // overlaps.
        let mut written: Vec<(u32, u32, u8, u8, usize)> = Vec::new();
        let mut entries = Vec::new();
        for (i, e) in so.entries.iter().enumerate() {
            let at = Some(i);
            if e.stream > 3 {
                return Err(err(at, format!("stream {} (streams are 0-3)", e.stream)));
            }
            if e.stream != 0 && !gs {
                return Err(err(
                    at,
                    format!(
                        "stream {}: a {} shader has stream 0 only",
                        e.stream,
                        self.stage.prefix()
                    ),
                ));
            }
            if e.output_slot > 3 {
                return Err(err(
                    at,
                    format!("output slot {} (slots are 0-3)", e.output_slot),
                ));
            }
            if !(1..=4).contains(&e.component_count) {
                return Err(err(at, format!("{} components (1-4)", e.component_count)));
            }
            let slot = e.output_slot as usize;
            let stream = e.stream as u8;
            match slots[slot] {
                Some((s, _)) if s != stream => {
                    return Err(err(
                        at,
                        format!(
                            "output slot {slot} already receives stream {s}, not stream {stream}"
                        ),
                    ));
                }
                _ => slots[slot] = Some((stream, 0)),
            }
            let offset = ends[slot];
            ends[slot] += 4 * e.component_count as u32;
            if e.is_gap() {
                continue;
            }
            let name = e.semantic_name.as_deref().unwrap_or_default();
            let what = format!("{name}{}", e.semantic_index);
            if gs && declared_streams & (1 << stream) == 0 {
                return Err(err(
                    at,
                    format!("{what}: stream {stream} is not declared by the shader (dcl_stream)"),
                ));
            }
            let element = self.sigs.output.and_then(|sig| {
                sig.elements.iter().find(|el| {
                    el.semantic_name.eq_ignore_ascii_case(name)
                        && el.semantic_index == e.semantic_index
                        && el.stream == e.stream
                        && !el.has_no_register()
                })
            });
            let Some(el) = element else {
                return Err(err(
                    at,
                    format!(
                        "{what} (stream {stream}) is not an output of the shader (not in its output signature)"
                    ),
                ));
            };
            let mask = if el.mask == 0 { 0xf } else { el.mask & 0xf };
            let comps: Vec<u8> = (0..4u8).filter(|c| mask & (1 << c) != 0).collect();
            let start = e.start_component as usize;
            let count = e.component_count as usize;
            if start + count > comps.len() {
                return Err(err(
                    at,
                    format!(
                        "{what}: components {start}..{} of an output with {} components",
                        start + count,
                        comps.len()
                    ),
                ));
            }
            let first = comps[start];
            if comps[start + count - 1] != first + count as u8 - 1 {
                return Err(err(
                    at,
                    format!("{what}: its components in the register are not consecutive"),
                ));
            }
            let register = el.register;
            // A slot receives one stream, so a register there is one stream's.
            if let Some(&(.., j)) = written.iter().find(|&&(r, s, f, n, _)| {
                r == register && s == e.output_slot && f < first + count as u8 && first < f + n
            }) {
                return Err(err(
                    at,
                    format!(
                        "{what}: overlaps entry {j} (the same components in output slot {slot})"
                    ),
                ));
            }
            written.push((register, e.output_slot, first, count as u8, i));
            entries.push(PlannedEntry {
                index: i,
                stream,
                slot: e.output_slot,
                offset,
                register,
                first,
                count: count as u8,
                scalar: scalar_of(el.component_type),
                semantic_name: el.semantic_name.to_string(),
                semantic_index: el.semantic_index,
            });
        }
        for (slot, s) in slots.iter_mut().enumerate() {
            let Some((_, stride)) = s else { continue };
            let given = so.strides[slot];
            *stride = if given == 0 { ends[slot] } else { given };
            if given != 0 && (given % 4 != 0 || given > MAX_STRIDE) {
                return Err(err(
                    None,
                    format!(
                        "stride of output slot {slot}: {given} bytes (a multiple of 4, at most {MAX_STRIDE})"
                    ),
                ));
            }
            if *stride < ends[slot] {
                return Err(err(
                    None,
                    format!(
                        "stride of output slot {slot}: {given} bytes, smaller than its entries ({} bytes)",
                        ends[slot]
                    ),
                ));
            }
            if *stride > MAX_STRIDE {
                return Err(err(
                    None,
                    format!(
                        "output slot {slot}: its entries take {} bytes (at most {MAX_STRIDE})",
                        ends[slot]
                    ),
                ));
            }
        }
        // A register an entry reads must be an output even when the shader declares none
        // there (it then writes zeros, as for components it never writes).
        for e in &entries {
            let reg = e.register as usize;
            if self.io.outputs.len() <= reg {
                self.io.outputs.resize(reg + 1, IoReg::default());
            }
            let slot = &mut self.io.outputs[reg];
            slot.declared = true;
            slot.mask |= ((1u8 << e.count) - 1) << e.first;
            if gs {
                slot.streams |= 1 << e.stream;
            }
        }
        Ok(Some(XfbPlan {
            entries,
            slots,
            rasterized_stream: so.rasterized_stream,
        }))
    }

    /// Decorates (or creates) the output variable of each entry once the interface variables
    /// exist, and records the layout in the reflection.
    pub(in crate::lower) fn apply_xfb(&mut self, plan: XfbPlan) -> R<()> {
        if !plan.entries.is_empty() || plan.slots.iter().any(Option::is_some) {
            self.b.m.capability(Capability::TransformFeedback);
            self.b.m.execution_mode(ExecutionMode::Xfb, &[]);
            self.need_feature("transformFeedback");
        }
        let mut next_location = self.first_free_output_location();
        let mut claimed: Vec<GlobalId> = Vec::new();
        let mut reflected = Vec::with_capacity(plan.entries.len());
        for e in &plan.entries {
            let (_, stride) = plan.slots[e.slot as usize].expect("slot of an entry");
            let parts = self.xfb_parts(e.register, e.stream);
            let exact = parts.iter().find(|p| {
                p.first == e.first
                    && p.count == e.count
                    && p.array_len == 0
                    && matches!(p.kind, PartKind::Location | PartKind::BuiltIn)
                    && !claimed.contains(&p.global)
            });
            let (global, placement) = match exact {
                Some(p) => {
                    let placement =
                        self.output_placement(p.global)
                            .ok_or_else(|| LowerError::Internal {
                                what: format!("stream output: no reflection for o{}", e.register),
                            })?;
                    (p.global, placement)
                }
                None => {
                    let g = self.xfb_variable(e, next_location);
                    let placement = InterfacePlacement::Location {
                        location: next_location,
                        component: 0,
                    };
                    next_location += 1;
                    (g, placement)
                }
            };
            claimed.push(global);
            let t = DecorationTarget::Global(global);
            self.b.m.decorate(t, Decoration::XfbBuffer, &[e.slot]);
            self.b.m.decorate(t, Decoration::XfbStride, &[stride]);
            self.b.m.decorate(t, Decoration::Offset, &[e.offset]);
            reflected.push(XfbEntry {
                entry: e.index as u32,
                stream: e.stream as u32,
                buffer: e.slot,
                offset: e.offset,
                semantic_name: e.semantic_name.clone(),
                semantic_index: e.semantic_index,
                register: e.register,
                mask: ((1u8 << e.count) - 1) << e.first,
                component_type: reflect_type(e.scalar),
                placement,
            });
        }
        let buffers = plan
            .slots
            .iter()
            .enumerate()
            .filter_map(|(slot, s)| {
                s.map(|(stream, stride)| XfbBuffer {
                    slot: slot as u32,
                    stream: stream as u32,
                    stride,
                })
            })
            .collect();
        self.refl.xfb = Some(XfbLayout {
            rasterized_stream: plan.rasterized_stream,
            buffers,
            entries: reflected,
        });
        Ok(())
    }

    /// The parts of output register `reg` in `stream`.
    fn xfb_parts(&self, reg: u32, stream: u8) -> Vec<IoPart> {
        let Some(slot) = self.io.outputs.get(reg as usize) else {
            return Vec::new();
        };
        if stream == 0 {
            slot.parts.to_vec()
        } else {
            slot.stream_parts
                .iter()
                .find(|p| p.0 == stream)
                .map(|p| p.1.to_vec())
                .unwrap_or_default()
        }
    }

    /// Where the reflection places the output variable `g`.
    fn output_placement(&self, g: GlobalId) -> Option<InterfacePlacement> {
        let i = self.refl_globals.outputs.iter().position(|&o| o == g)?;
        Some(self.refl.outputs[i].placement.clone())
    }

    /// One past the highest output `Location` the module or the output signature uses, so
    /// that a variable there is read by no later stage.
    fn first_free_output_location(&self) -> u32 {
        let declared = self
            .refl
            .outputs
            .iter()
            .filter_map(|v| match v.placement {
                InterfacePlacement::Location { location, .. } => Some(location + 1),
                _ => None,
            })
            .max()
            .unwrap_or(0);
        let signature = self
            .sigs
            .output
            .map(|sig| {
                sig.elements
                    .iter()
                    .filter(|e| !e.has_no_register())
                    .map(|e| e.register + self.io.stream_location_base[e.stream as usize & 3] + 1)
                    .max()
                    .unwrap_or(0)
            })
            .unwrap_or(0);
        declared.max(signature)
    }

    /// An output variable of its own for entry `e`, at `location`, stored with the register's
    /// other parts.
    fn xfb_variable(&mut self, e: &PlannedEntry, location: u32) -> GlobalId {
        let pointee = TypeTable::vec(e.scalar, e.count);
        let g = self.b.m.add_global(pointee, StorageClass::Output, None);
        let t = DecorationTarget::Global(g);
        self.b.m.decorate(t, Decoration::Location, &[location]);
        if self.io.multi_stream() {
            self.b.m.decorate(t, Decoration::Stream, &[e.stream as u32]);
        }
        self.b.m.name(t, format_args!("xfb{}", e.index));
        let part = IoPart {
            first: e.first,
            count: e.count,
            scalar: e.scalar,
            global: g,
            kind: PartKind::Location,
            loaded: None,
            array_len: 0,
        };
        let slot = &mut self.io.outputs[e.register as usize];
        if e.stream == 0 {
            slot.parts.push(part);
        } else if let Some(p) = slot.stream_parts.iter_mut().find(|p| p.0 == e.stream) {
            p.1.push(part);
        } else {
            slot.stream_parts
                .push((e.stream, smallvec::smallvec![part]));
        }
        g
    }
}
