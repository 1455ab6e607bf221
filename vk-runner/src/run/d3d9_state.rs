//! D3D9 fixed-function state of the SM1–3 pass: the values the `alpha test`, `fog`,
//! `clip-plane`, … directives set, and how the runner has the translator deliver each item
//! (`translator::d3d9_state`).
//!
//! The runner picks deliveries so that changing state between draws never needs a new
//! translation, except for flat shading (an interpolation decoration, baked): values that
//! change often in D3D9 (alpha reference, fog colour and parameters, point size) are push
//! constants, switches and clip planes are specialization constants. So both run-time
//! deliveries are exercised by every file that sets state, and baking by `shade mode flat`.
//! Depth compare has no directive: as in D3D9, a depth texture bound to a sampler (`[srv N]`
//! of format `d32-float` or `r32-float-shadow`) makes its samples compare; that sampler's item
//! is then a specialization constant (and the translation is cached per set of such
//! samplers).

use std::collections::BTreeMap;

use translator::d3d9_state::{StateDelivery, StateItem, StateOptions};

use crate::parse::StateChange;

/// Push-constant offsets of the pushed items (56 bytes, within Vulkan's minimum 128).
const PUSHED: [(StateItem, u32); 4] = [
    (StateItem::AlphaRef, 0),
    (StateItem::FogColour, 16),
    (StateItem::FogParams, 32),
    (StateItem::PointSize, 44),
];

/// The current state: the items' words (absent: D3D9's initial state), and the bump
/// matrices (the bump-environment buffer's rows).
#[derive(Debug, Clone, Default)]
pub struct D3d9State {
    words: BTreeMap<StateItem, Vec<u32>>,
    /// Per stage 0–7: (M00, M01, M10, M11) and (LSCALE, LOFFSET, 0, 0).
    pub bump: [[f32; 8]; 8],
}

fn bits(v: &[f32]) -> Vec<u32> {
    v.iter().map(|x| x.to_bits()).collect()
}

impl D3d9State {
    /// The words of `item` now.
    pub fn words(&self, item: StateItem) -> Vec<u32> {
        self.words
            .get(&item)
            .cloned()
            .unwrap_or_else(|| item.default_words().to_vec())
    }

    fn set(&mut self, item: StateItem, w: Vec<u32>) {
        self.words.insert(item, w);
    }

    /// Whether `shade mode flat` is on (the one baked item).
    pub fn flat(&self) -> bool {
        self.words(StateItem::FlatShading)[0] != 0
    }

    /// Applies a directive's change.
    pub fn apply(&mut self, c: &StateChange) {
        match c {
            StateChange::AlphaTest { func, reference } => {
                self.set(StateItem::AlphaFunc, vec![*func]);
                self.set(StateItem::AlphaRef, bits(&[*reference]));
            }
            StateChange::ShadeFlat(f) => self.set(StateItem::FlatShading, vec![u32::from(*f)]),
            StateChange::ClipPlane { n, plane } => {
                let n = *n as usize;
                let mut mask = self.words(StateItem::ClipPlaneMask)[0];
                let bit = 1u32 << n;
                match plane {
                    Some(p) if n < 6 => {
                        mask |= bit;
                        let mut planes = self.words(StateItem::ClipPlanes);
                        planes[4 * n..4 * n + 4].copy_from_slice(&bits(p));
                        self.set(StateItem::ClipPlanes, planes);
                    }
                    _ => mask &= !bit,
                }
                self.set(StateItem::ClipPlaneMask, vec![mask]);
            }
            StateChange::PointSize(v) => self.set(StateItem::PointSize, bits(v)),
            StateChange::PointSprite(on) => {
                self.set(StateItem::PointSprite, vec![u32::from(*on)]);
            }
            StateChange::Fog {
                mode,
                ortho,
                params,
            } => {
                let m = match mode.as_str() {
                    "none" => 1,
                    "exp" => 2,
                    "exp2" => 3,
                    "linear" => 4,
                    _ => 0,
                };
                self.set(StateItem::FogMode, vec![m]);
                self.set(StateItem::FogSource, vec![u32::from(!*ortho)]);
                let mut p = self.words(StateItem::FogParams);
                match (m, params.as_slice()) {
                    (4, [s, e]) => {
                        p[0] = s.to_bits();
                        p[1] = e.to_bits();
                    }
                    (2 | 3, [d]) => p[2] = d.to_bits(),
                    _ => {}
                }
                self.set(StateItem::FogParams, p);
            }
            StateChange::FogColour(c) => self.set(StateItem::FogColour, bits(c)),
            StateChange::Bump {
                stage,
                m,
                lscale,
                loffset,
            } => {
                if let Some(row) = self.bump.get_mut(*stage as usize) {
                    *row = [m[0], m[1], m[2], m[3], *lscale, *loffset, 0.0, 0.0];
                }
            }
            StateChange::Projected { stage, on } => {
                if let Ok(s) = u8::try_from(*stage) {
                    self.set(StateItem::Projected(s), vec![u32::from(*on)]);
                }
            }
        }
    }

    /// Sets depth compare of samplers 0–15 from the textures bound: bit N of `depth` set
    /// when `[srv N]` is a depth format (D3D9 compares the samples of a depth texture).
    pub fn set_depth_textures(&mut self, depth: u16) {
        for n in 0..translator::d3d9_state::STATE_SAMPLERS {
            let on = depth & (1 << n) != 0;
            let item = StateItem::DepthCompare(n);
            if on || self.words.contains_key(&item) {
                self.set(item, vec![u32::from(on)]);
            }
        }
    }

    /// The translator's delivery choices for the current state (the baked flat shading and
    /// which samplers compare depth depend on it).
    pub fn options(&self) -> StateOptions {
        let mut o = StateOptions::default();
        for (item, offset) in PUSHED {
            o.set(item, StateDelivery::Push { offset });
        }
        // Depth compare of a sampler with a depth texture bound: a specialization constant
        // (set to 1), so the translator's run-time choice is what runs; the others stay baked
        // 0 (a module whose comparison arm could run on a colour texture draws the validation
        // layer's VUID-vkCmdDraw-None-06479, which cannot see that the constant turns it off).
        for n in 0..translator::d3d9_state::STATE_SAMPLERS {
            let item = StateItem::DepthCompare(n);
            if self.words(item)[0] != 0 {
                o.set(item, StateDelivery::Spec { first_id: None });
            }
        }
        o.set(
            StateItem::FlatShading,
            StateDelivery::Baked {
                words: vec![u32::from(self.flat())],
            },
        );
        o
    }

    /// Whether every item is in D3D9's initial state (so another backend can run the draw).
    pub fn is_initial(&self) -> bool {
        self.words.iter().all(|(i, w)| *w == i.default_words())
            && self.bump.iter().all(|r| r.iter().all(|&x| x == 0.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directives_set_the_items() {
        let mut s = D3d9State::default();
        assert!(s.is_initial());
        s.apply(&StateChange::ClipPlane {
            n: 2,
            plane: Some([1.0, 0.0, 0.0, -0.5]),
        });
        assert_eq!(s.words(StateItem::ClipPlaneMask), vec![4]);
        assert_eq!(s.words(StateItem::ClipPlanes)[8], 1f32.to_bits());
        s.apply(&StateChange::ClipPlane { n: 2, plane: None });
        assert_eq!(s.words(StateItem::ClipPlaneMask), vec![0]);
        s.apply(&StateChange::Fog {
            mode: "linear".into(),
            ortho: true,
            params: vec![0.25, 0.75],
        });
        assert_eq!(s.words(StateItem::FogMode), vec![4]);
        assert_eq!(s.words(StateItem::FogSource), vec![0]);
        assert_eq!(s.words(StateItem::FogParams)[1], 0.75f32.to_bits());
        s.apply(&StateChange::AlphaTest {
            func: 2,
            reference: 0.5,
        });
        assert_eq!(s.words(StateItem::AlphaFunc), vec![2]);
        assert!(!s.flat());
        s.apply(&StateChange::ShadeFlat(true));
        assert!(s.options().check().is_ok());
        s.set_depth_textures(0b10);
        assert_eq!(s.words(StateItem::DepthCompare(1)), vec![1]);
        assert_eq!(s.words(StateItem::DepthCompare(0)), vec![0]);
        assert_eq!(
            s.options().delivery(StateItem::DepthCompare(1)),
            StateDelivery::Spec { first_id: None }
        );
        assert!(matches!(
            s.options().delivery(StateItem::DepthCompare(0)),
            StateDelivery::Baked { .. }
        ));
        s.set_depth_textures(0);
        assert_eq!(s.words(StateItem::DepthCompare(1)), vec![0]);
        assert_eq!(
            s.options().delivery(StateItem::FlatShading),
            StateDelivery::Baked { words: vec![1] }
        );
    }
}
