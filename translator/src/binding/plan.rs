//! Checks on a whole program's placements that no single rule can make: ranges sharing a
//! Vulkan binding must agree on its descriptor type (a binding has exactly one).

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
    let conflict = |o: &RangeRequest, r: &RangeRequest, (set, binding): (u32, u32)| {
        BindingError::new(
            r,
            format!(
                "it would share set {set} binding {binding} with {} in space {}, but one is a {:?} and the other a {:?} descriptor",
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
                if binding(q) == Some(at) && o.descriptor_type != r.descriptor_type {
                    return Err(conflict(o, r, at));
                }
            }
        }
        return Ok(());
    }
    let mut seen: HashMap<(u32, u32), &RangeRequest> = HashMap::default();
    seen.reserve(ranges.len());
    for (r, p) in ranges.iter().zip(places) {
        let Some(at) = binding(p) else { continue };
        match seen.get(&at) {
            Some(o) if o.descriptor_type != r.descriptor_type => return Err(conflict(o, r, at)),
            Some(_) => {}
            None => {
                seen.insert(at, r);
            }
        }
    }
    Ok(())
}
