//! The built-in binding policies, for callers without a layout of their own. Each is a
//! pure function of the declared ranges, documented in `docs/bindings.md`.

use super::{BindingError, Placement, RangeRequest};
use crate::reflect::RegisterClass;

/// A built-in rule for placing D3D registers in Vulkan descriptor sets and bindings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum BindingPolicy {
    /// set = register space; binding = class base + first register of the range, with bases
    /// b: 0, s: 16, t: 32, u: 160, UAV counters: 224 (D3D11's per-stage limits are 14
    /// constant buffers, 16 samplers, 128 SRVs and 64 UAVs, so the blocks never overlap).
    /// A range starting past its class's block goes to the interleaved region above 256:
    /// binding = 256 + 5 × first register + class rank (b 0, s 1, t 2, u 3, counter 4), so
    /// SM5.1 ranges anywhere up to register 858 993 407 have a place of their own.
    /// A range is one binding (an array, a runtime array when unbounded).
    #[default]
    ClassOffsets,
    /// set = register space; one binding per declared range, numbered from 0 in each set in
    /// the order b, s, t, u (each UAV's counter right after it), by first register.
    /// Unbounded ranges become runtime arrays.
    PerRange,
    /// What vkd3d-shader does without an interface description: set 0, one binding per
    /// declaration in declaration order, each UAV counter right after its UAV, whatever
    /// the space.
    Vkd3d,
}

impl BindingPolicy {
    /// Every policy, for listings.
    pub const ALL: [BindingPolicy; 3] = [
        BindingPolicy::ClassOffsets,
        BindingPolicy::PerRange,
        BindingPolicy::Vkd3d,
    ];

    /// The name on the command line (`--binding-policy`).
    pub fn name(self) -> &'static str {
        match self {
            BindingPolicy::ClassOffsets => "class-offsets",
            BindingPolicy::PerRange => "per-range",
            BindingPolicy::Vkd3d => "vkd3d",
        }
    }

    /// The policy called `name`.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.name() == name)
    }

    /// Base binding and number of registers of a class (or of UAV counters) under
    /// `ClassOffsets`.
    pub fn class_base(class: RegisterClass, counter: bool) -> (u32, u32) {
        match (class, counter) {
            (_, true) => (224, 64),
            (RegisterClass::B, _) => (0, 16),
            (RegisterClass::S, _) => (16, 16),
            (RegisterClass::T, _) => (32, 128),
            (RegisterClass::U, _) => (160, 64),
        }
    }

    pub(super) fn place_all(self, ranges: &[RangeRequest]) -> Result<Vec<Placement>, BindingError> {
        match self {
            BindingPolicy::ClassOffsets => ranges.iter().map(class_offsets).collect(),
            BindingPolicy::PerRange => Ok(per_range(ranges)),
            BindingPolicy::Vkd3d => Ok((0u32..)
                .zip(ranges)
                .map(|(binding, _)| Placement::descriptor(0, binding, 0))
                .collect()),
        }
    }
}

/// First binding of the interleaved region for registers past their class's block.
pub(super) const HIGH_BASE: u32 = 256;

fn class_offsets(r: &RangeRequest) -> Result<Placement, BindingError> {
    let (base, count) = BindingPolicy::class_base(r.class, r.counter);
    // An array is one binding, so only the first register must fit the class's block: D3D
    // ranges of one class and space never overlap, so neither do their binding numbers.
    let binding = if r.lower < count {
        base + r.lower
    } else {
        // Past the block: every (class, first register) has its own binding, whatever else
        // the program declares. Five classes share 2^32 bindings, so the rule runs out at
        // register (2^32 - 261) / 5.
        let rank = if r.counter {
            4
        } else {
            class_rank(r.class) as u64
        };
        let b = HIGH_BASE as u64 + 5 * r.lower as u64 + rank;
        u32::try_from(b).map_err(|_| {
            BindingError::new(
                r,
                format!(
                    "the class-offsets policy places first registers up to {}; use the per-range policy or a binding layout",
                    HIGHEST_REGISTER
                ),
            )
        })?
    };
    Ok(Placement::descriptor(r.space, binding, 0))
}

/// The highest first register `class-offsets` places (any class, counters included).
pub const HIGHEST_REGISTER: u32 = (u32::MAX - HIGH_BASE - 4) / 5;

fn class_rank(c: RegisterClass) -> u8 {
    match c {
        RegisterClass::B => 0,
        RegisterClass::S => 1,
        RegisterClass::T => 2,
        RegisterClass::U => 3,
    }
}

fn per_range(ranges: &[RangeRequest]) -> Vec<Placement> {
    let mut order: Vec<usize> = (0..ranges.len()).collect();
    order.sort_by_key(|&i| {
        let r = &ranges[i];
        (r.space, class_rank(r.class), r.lower, r.counter, i)
    });
    let mut out = vec![Placement::descriptor(0, 0, 0); ranges.len()];
    let mut next = (u32::MAX, 0u32);
    for i in order {
        let space = ranges[i].space;
        if next.0 != space {
            next = (space, 0);
        }
        out[i] = Placement::descriptor(space, next.1, 0);
        next.1 += 1;
    }
    out
}
