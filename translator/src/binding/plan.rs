//! Checks on a whole program's placements that no single rule can make: ranges sharing a
//! Vulkan binding must agree on its descriptor type (a binding has exactly one), unless every
//! one of them is placed in a mutable binding (VK_EXT_mutable_descriptor_type).

use rustc_hash::FxHashMap as HashMap;

use super::{BindingError, Placement, RangeRequest};

/// Errors when two ranges land in the same binding with different descriptor types.
pub(super) fn check_consistent(
    ranges: &[RangeRequest],
    places: &[Placement],
) -> Result<(), BindingError> {
    let binding = |p: &Placement| match *p {
        Placement::Descriptor { set, binding, .. } => Some((set, binding)),
        Placement::PushConstant { .. } => None,
    };
    let mutable = |p: &Placement| matches!(p, Placement::Descriptor { mutable: true, .. });
    let conflict = |o: &RangeRequest, r: &RangeRequest, (set, binding): (u32, u32)| {
        BindingError::new(
            r,
            format!(
                "it would share set {set} binding {binding} with {} in space {}, but one is a {:?} and the other a {:?} descriptor (a binding holds several types only when every range placed there says it is mutable)",
                o.describe(),
                o.space,
                o.descriptor_type,
                r.descriptor_type
            ),
        )
    };
    // Programs declare a handful of ranges: compare pairs without allocating.
    if ranges.len() <= 32 {
        for (i, (r, p)) in ranges.iter().zip(places).enumerate() {
            let Some(at) = binding(p) else { continue };
            for (o, q) in ranges.iter().zip(places).take(i) {
                if binding(q) == Some(at)
                    && o.descriptor_type != r.descriptor_type
                    && !(mutable(p) && mutable(q))
                {
                    return Err(conflict(o, r, at));
                }
            }
        }
        return Ok(());
    }
    // Per binding: a range of each descriptor type placed there, and the first range that
    // is not mutable.
    type Seen<'r> = ([Option<&'r RangeRequest>; 8], Option<&'r RangeRequest>);
    let mut seen: HashMap<(u32, u32), Seen<'_>> = HashMap::default();
    seen.reserve(ranges.len());
    for (r, p) in ranges.iter().zip(places) {
        let Some(at) = binding(p) else { continue };
        let (by_type, fixed) = seen.entry(at).or_insert(([None; 8], None));
        let t = r.descriptor_type as usize;
        let other = if mutable(p) {
            // Only a fixed range constrains a mutable one.
            fixed.filter(|f| f.descriptor_type != r.descriptor_type)
        } else {
            by_type
                .iter()
                .enumerate()
                .find_map(|(u, o)| o.filter(|_| u != t))
        };
        if let Some(o) = other {
            return Err(conflict(o, r, at));
        }
        by_type[t].get_or_insert(r);
        if !mutable(p) {
            fixed.get_or_insert(r);
        }
    }
    Ok(())
}
