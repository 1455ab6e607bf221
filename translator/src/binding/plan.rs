//! Checks on a whole program's placements that no single rule can make: ranges sharing a
//! Vulkan binding must agree on its descriptor type (a binding has exactly one).

use std::collections::HashMap;

use super::{BindingError, Placement, RangeRequest};

/// Errors when two ranges land in the same binding with different descriptor types.
pub(super) fn check_consistent(
    ranges: &[RangeRequest],
    places: &[Placement],
) -> Result<(), BindingError> {
    let mut seen: HashMap<(u32, u32), &RangeRequest> = HashMap::with_capacity(ranges.len());
    for (r, p) in ranges.iter().zip(places) {
        let Placement::Descriptor { set, binding, .. } = *p else {
            continue;
        };
        match seen.get(&(set, binding)) {
            Some(o) if o.descriptor_type != r.descriptor_type => {
                return Err(BindingError::new(
                    r,
                    format!(
                        "it would share set {set} binding {binding} with {} in space {}, but one is a {:?} and the other a {:?} descriptor",
                        o.describe(),
                        o.space,
                        o.descriptor_type,
                        r.descriptor_type
                    ),
                ));
            }
            Some(_) => {}
            None => {
                seen.insert((set, binding), r);
            }
        }
    }
    Ok(())
}
