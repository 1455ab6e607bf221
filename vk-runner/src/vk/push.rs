//! Push constants from the stages' reflected ranges (D3D12 root constants).
//!
//! Vulkan allows each stage in at most one push-constant range of a pipeline layout, and
//! `vkCmdPushConstants` must name every stage of every range its bytes overlap. So the runner
//! makes one range covering every stage's ranges, for all those stages, and pushes it whole:
//! bytes `0..size` of constant buffer `b{register}` (space `space`) go to `offset..`, and
//! each dynamic descriptor offset's word gets [`dynamic_offset_value`].

use super::bind::{RunError, stage_flags};
use ash::vk;
use std::collections::HashMap;
use translator::reflect::Reflection;

/// The pipeline layout's push-constant range (none when no stage has one) and its bytes.
pub struct Push {
    pub range: Option<vk::PushConstantRange>,
    pub bytes: Vec<u8>,
    /// The value pushed at each dynamic descriptor offset's byte offset.
    pub dynamic: HashMap<u32, u32>,
}

/// The value the runner pushes at byte `offset` for a descriptor offset no constant buffer
/// covers: `offset / 4 + 1`, so that every table's elements start somewhere else.
pub fn dynamic_offset_value(offset: u32) -> u32 {
    offset / 4 + 1
}

/// Builds the range and fills it from the test's constant buffers.
pub fn push_constants(
    stages: &[&Reflection],
    cbuffers: &HashMap<(u32, u32), Vec<u32>>,
    d3d9_state: Option<&crate::run::d3d9_state::D3d9State>,
    limit: u32,
) -> Result<Push, RunError> {
    let mut flags = vk::ShaderStageFlags::empty();
    let (mut lo, mut hi) = (u32::MAX, 0u32);
    // D3D9 state items pushed: (offset, words).
    let mut state: Vec<(u32, Vec<u32>)> = Vec::new();
    for r in stages {
        for e in r.d3d9.iter().flat_map(|d| &d.state) {
            if let translator::d3d9_state::StateDelivery::Push { offset } = e.delivery {
                let words =
                    d3d9_state.map_or_else(|| e.item.default_words().to_vec(), |s| s.words(e.item));
                flags |= stage_flags(r.stage);
                lo = lo.min(offset);
                hi = hi.max(offset + 4 * words.len() as u32);
                state.push((offset, words));
            }
        }
    }
    for r in stages {
        for pc in &r.push_constants {
            flags |= stage_flags(r.stage);
            let end = pc.offset.checked_add(pc.size).ok_or_else(|| {
                RunError::Fail(format!("push constants b{} run past 2^32", pc.register))
            })?;
            lo = lo.min(pc.offset);
            hi = hi.max(end);
        }
        for &w in &r.dynamic_offsets {
            flags |= stage_flags(r.stage);
            lo = lo.min(w);
            hi = hi.max(w.saturating_add(4));
        }
    }
    if flags.is_empty() {
        return Ok(Push {
            range: None,
            bytes: Vec::new(),
            dynamic: HashMap::new(),
        });
    }
    if hi > limit {
        return Err(RunError::Skip(format!(
            "the push constants need {hi} bytes; the device's maxPushConstantsSize is {limit}"
        )));
    }
    let mut bytes = vec![0u8; (hi - lo) as usize];
    // Who wrote each byte, so that two stages disagreeing about a byte are caught.
    let mut owner: Vec<Option<(u32, u32)>> = vec![None; bytes.len()];
    for r in stages {
        for pc in &r.push_constants {
            let key = (pc.space, pc.register);
            let data = cbuffers.get(&key).ok_or_else(|| {
                RunError::Fail(format!(
                    "b{} (space {}) is in push constants but the test sets no constants for it",
                    pc.register, pc.space
                ))
            })?;
            let src: Vec<u8> = data.iter().flat_map(|w| w.to_le_bytes()).collect();
            for i in 0..pc.size as usize {
                let at = (pc.offset - lo) as usize + i;
                match owner[at] {
                    Some(k) if k != key => {
                        return Err(RunError::Fail(format!(
                            "push-constant byte {} holds b{} (space {}) for one stage and b{} (space {}) for another",
                            pc.offset as usize + i,
                            k.1,
                            k.0,
                            key.1,
                            key.0
                        )));
                    }
                    _ => owner[at] = Some(key),
                }
                bytes[at] = src.get(i).copied().unwrap_or(0);
            }
        }
    }
    for (offset, words) in state {
        for (k, w) in words.iter().enumerate() {
            let at = (offset - lo) as usize + 4 * k;
            bytes[at..at + 4].copy_from_slice(&w.to_ne_bytes());
        }
    }
    // Descriptor offsets: the runner's value, unless a constant buffer's bytes hold the word
    // (the module then reads those).
    let mut dynamic = HashMap::new();
    for r in stages {
        for &w in &r.dynamic_offsets {
            let at = (w - lo) as usize;
            if owner[at..at + 4].iter().all(|o| o.is_none()) {
                bytes[at..at + 4].copy_from_slice(&dynamic_offset_value(w).to_le_bytes());
            }
            let v = u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
            dynamic.insert(w, v);
        }
    }
    Ok(Push {
        range: Some(vk::PushConstantRange {
            stage_flags: flags,
            offset: lo,
            size: hi - lo,
        }),
        bytes,
        dynamic,
    })
}
