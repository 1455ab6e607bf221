//! Direct3D 9 render state in: how each state item the translator compiles into a D3D9
//! module (alpha test, fog, point size and sprites, clip planes, flat shading, per-sampler
//! texture type, depth compare, projection, unbound samplers) is delivered — a
//! specialization constant, a push constant or a value baked at translation — chained to the
//! translate info as `dxbc_spirv_d3d9_state_info`; and out: the reflection's entry per item
//! the module reads. Items not listed take the default (specialization constants from the
//! fixed table; declaration items and depth compare baked to D3D9's initial state). See
//! `docs/d3d9.md` for the items, their words and their meaning.

use std::ffi::c_void;

use translator::d3d9_state::{STATE_SAMPLERS, StateDelivery, StateItem, StateOptions};

use crate::chain::dxbc_spirv_structure_type;
use crate::status::{ApiError, ApiResult, in_slice};

/// Which state item a choice is about (`sampler` picks the sampler of per-sampler items).
pub type dxbc_spirv_d3d9_state_item = u32;
/// D3DRS_ALPHAFUNC (a D3DCMPFUNC), uint32.
pub const DXBC_SPIRV_D3D9_STATE_ALPHA_FUNC: dxbc_spirv_d3d9_state_item = 1;
/// D3DRS_ALPHAREF / 255, float32.
pub const DXBC_SPIRV_D3D9_STATE_ALPHA_REF: dxbc_spirv_d3d9_state_item = 2;
/// 0 off, else 1 + D3DRS_FOGTABLEMODE (1 vertex fog, 2 exp, 3 exp2, 4 linear), uint32.
pub const DXBC_SPIRV_D3D9_STATE_FOG_MODE: dxbc_spirv_d3d9_state_item = 3;
/// Table fog depth: 0 z, 1 w, uint32.
pub const DXBC_SPIRV_D3D9_STATE_FOG_SOURCE: dxbc_spirv_d3d9_state_item = 4;
/// D3DRS_FOGCOLOR as 4 float32 (r, g, b, a).
pub const DXBC_SPIRV_D3D9_STATE_FOG_COLOUR: dxbc_spirv_d3d9_state_item = 5;
/// (D3DRS_FOGSTART, D3DRS_FOGEND, D3DRS_FOGDENSITY), 3 float32.
pub const DXBC_SPIRV_D3D9_STATE_FOG_PARAMS: dxbc_spirv_d3d9_state_item = 6;
/// (D3DRS_POINTSIZE, _MIN, _MAX), 3 float32.
pub const DXBC_SPIRV_D3D9_STATE_POINT_SIZE: dxbc_spirv_d3d9_state_item = 7;
/// D3DRS_POINTSPRITEENABLE, uint32.
pub const DXBC_SPIRV_D3D9_STATE_POINT_SPRITE: dxbc_spirv_d3d9_state_item = 8;
/// D3DRS_CLIPPLANEENABLE, uint32.
pub const DXBC_SPIRV_D3D9_STATE_CLIP_PLANE_MASK: dxbc_spirv_d3d9_state_item = 9;
/// The six clip planes in clip space, 24 float32.
pub const DXBC_SPIRV_D3D9_STATE_CLIP_PLANES: dxbc_spirv_d3d9_state_item = 10;
/// D3DRS_SHADEMODE flat, uint32; baked only.
pub const DXBC_SPIRV_D3D9_STATE_FLAT_SHADING: dxbc_spirv_d3d9_state_item = 11;
/// Sampler `sampler`'s texture type where undeclared (0 default, 1 2D, 2 cube, 3 volume),
/// uint32; baked only.
pub const DXBC_SPIRV_D3D9_STATE_SAMPLER_TYPE: dxbc_spirv_d3d9_state_item = 16;
/// Sampler `sampler` holds a depth texture: its samples compare (shadow; bind a
/// less-or-equal comparison sampler), uint32; baked 0 by default.
pub const DXBC_SPIRV_D3D9_STATE_DEPTH_COMPARE: dxbc_spirv_d3d9_state_item = 17;
/// D3DTTFF_PROJECTED on stage `sampler` (ps_1_1–1_3 `tex`), uint32.
pub const DXBC_SPIRV_D3D9_STATE_PROJECTED: dxbc_spirv_d3d9_state_item = 18;
/// Nothing bound to sampler `sampler` (sampling returns (0, 0, 0, 1)), uint32.
pub const DXBC_SPIRV_D3D9_STATE_UNBOUND: dxbc_spirv_d3d9_state_item = 19;
/// Texture stage `sampler`'s (0–7) bump-environment state (BUMPENVMAT00, 01, 10, 11,
/// BUMPENVLSCALE, BUMPENVLOFFSET), 6 float32; by default in the bump-environment buffer.
pub const DXBC_SPIRV_D3D9_STATE_BUMP_ENV: dxbc_spirv_d3d9_state_item = 20;

/// How an item's value reaches the module.
pub type dxbc_spirv_d3d9_state_delivery = u32;
/// Specialization constants, one per word, from ID `location` on
/// (`DXBC_SPIRV_D3D9_STATE_TABLE_ID`: the fixed table plus `spec_id_base`).
pub const DXBC_SPIRV_D3D9_STATE_DELIVERY_SPEC_CONSTANT: dxbc_spirv_d3d9_state_delivery = 1;
/// Push constants: the words at byte `location` on (a multiple of 4).
pub const DXBC_SPIRV_D3D9_STATE_DELIVERY_PUSH_CONSTANT: dxbc_spirv_d3d9_state_delivery = 2;
/// Baked: the `word_count` words at `words`.
pub const DXBC_SPIRV_D3D9_STATE_DELIVERY_BAKED: dxbc_spirv_d3d9_state_delivery = 3;
/// The bump-environment uniform buffer (`b3`; `DXBC_SPIRV_D3D9_STATE_BUMP_ENV` only).
pub const DXBC_SPIRV_D3D9_STATE_DELIVERY_BUFFER: dxbc_spirv_d3d9_state_delivery = 4;

/// `location` of a specialization-constant choice: take the IDs from the fixed table.
pub const DXBC_SPIRV_D3D9_STATE_TABLE_ID: u32 = 0xffff_ffff;

/// One item the translated module reads, in the reflection (`dxbc_spirv_reflection.d3d9_state`):
/// the item and how its value reaches the module, resolved (table IDs as the IDs).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct dxbc_spirv_d3d9_state_entry {
    /// A `DXBC_SPIRV_D3D9_STATE_*` item.
    pub item: dxbc_spirv_d3d9_state_item,
    /// The sampler (texture stage) of a per-sampler item; 0 otherwise.
    pub sampler: u32,
    /// A `DXBC_SPIRV_D3D9_STATE_DELIVERY_*`.
    pub delivery: dxbc_spirv_d3d9_state_delivery,
    /// Specialization constants: the first ID (word k is ID `location + k`; an ID the code
    /// does not need may be absent from the module). Push constants: the byte offset. 0
    /// otherwise.
    pub location: u32,
    /// The item's word count.
    pub word_count: u32,
    /// Baked: the `word_count` words (float32 items as their bits); null otherwise.
    pub words: *const u32,
}

/// The C item and sampler of a state item.
pub(crate) fn item_code(item: StateItem) -> (dxbc_spirv_d3d9_state_item, u32) {
    match item {
        StateItem::AlphaFunc => (DXBC_SPIRV_D3D9_STATE_ALPHA_FUNC, 0),
        StateItem::AlphaRef => (DXBC_SPIRV_D3D9_STATE_ALPHA_REF, 0),
        StateItem::FogMode => (DXBC_SPIRV_D3D9_STATE_FOG_MODE, 0),
        StateItem::FogSource => (DXBC_SPIRV_D3D9_STATE_FOG_SOURCE, 0),
        StateItem::FogColour => (DXBC_SPIRV_D3D9_STATE_FOG_COLOUR, 0),
        StateItem::FogParams => (DXBC_SPIRV_D3D9_STATE_FOG_PARAMS, 0),
        StateItem::PointSize => (DXBC_SPIRV_D3D9_STATE_POINT_SIZE, 0),
        StateItem::PointSprite => (DXBC_SPIRV_D3D9_STATE_POINT_SPRITE, 0),
        StateItem::ClipPlaneMask => (DXBC_SPIRV_D3D9_STATE_CLIP_PLANE_MASK, 0),
        StateItem::ClipPlanes => (DXBC_SPIRV_D3D9_STATE_CLIP_PLANES, 0),
        StateItem::FlatShading => (DXBC_SPIRV_D3D9_STATE_FLAT_SHADING, 0),
        StateItem::SamplerType(n) => (DXBC_SPIRV_D3D9_STATE_SAMPLER_TYPE, n.into()),
        StateItem::DepthCompare(n) => (DXBC_SPIRV_D3D9_STATE_DEPTH_COMPARE, n.into()),
        StateItem::Projected(n) => (DXBC_SPIRV_D3D9_STATE_PROJECTED, n.into()),
        StateItem::Unbound(n) => (DXBC_SPIRV_D3D9_STATE_UNBOUND, n.into()),
        StateItem::BumpEnv(n) => (DXBC_SPIRV_D3D9_STATE_BUMP_ENV, n.into()),
    }
}

/// The reflection entry of `item` delivered by `d`; baked words point into `words` (kept alive
/// by the caller).
pub(crate) fn entry(
    item: StateItem,
    d: &StateDelivery,
    words: &[u32],
) -> dxbc_spirv_d3d9_state_entry {
    let (code, sampler) = item_code(item);
    let (delivery, location, words) = match d {
        StateDelivery::Spec { first_id } => (
            DXBC_SPIRV_D3D9_STATE_DELIVERY_SPEC_CONSTANT,
            first_id.unwrap_or(DXBC_SPIRV_D3D9_STATE_TABLE_ID),
            std::ptr::null(),
        ),
        StateDelivery::Push { offset } => (
            DXBC_SPIRV_D3D9_STATE_DELIVERY_PUSH_CONSTANT,
            *offset,
            std::ptr::null(),
        ),
        StateDelivery::Baked { .. } => (DXBC_SPIRV_D3D9_STATE_DELIVERY_BAKED, 0, words.as_ptr()),
        StateDelivery::Buffer => (DXBC_SPIRV_D3D9_STATE_DELIVERY_BUFFER, 0, std::ptr::null()),
    };
    dxbc_spirv_d3d9_state_entry {
        item: code,
        sampler,
        delivery,
        location,
        word_count: item.words(),
        words,
    }
}

/// One item's delivery.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct dxbc_spirv_d3d9_state_choice {
    /// A `DXBC_SPIRV_D3D9_STATE_*` item.
    pub item: dxbc_spirv_d3d9_state_item,
    /// The sampler (0–15) of a per-sampler item; 0 otherwise.
    pub sampler: u32,
    /// A `DXBC_SPIRV_D3D9_STATE_DELIVERY_*`.
    pub delivery: dxbc_spirv_d3d9_state_delivery,
    /// The first specialization constant ID, or the push-constant byte offset.
    pub location: u32,
    /// Baked: how many words `words` holds (the item's word count).
    pub word_count: u32,
    /// Baked: the raw words (float32 items as their bits).
    pub words: *const u32,
}

/// The D3D9 state deliveries (D3D9 shaders only; ignored for DXBC).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct dxbc_spirv_d3d9_state_info {
    /// `DXBC_SPIRV_STRUCTURE_TYPE_D3D9_STATE_INFO`.
    pub s_type: dxbc_spirv_structure_type,
    pub next: *const c_void,
    /// Added to the fixed table's specialization constant IDs.
    pub spec_id_base: u32,
    pub choice_count: u32,
    pub choices: *const dxbc_spirv_d3d9_state_choice,
}

fn item_of(c: &dxbc_spirv_d3d9_state_choice, what: &str) -> ApiResult<StateItem> {
    let per = |f: fn(u8) -> StateItem| -> ApiResult<StateItem> {
        match u8::try_from(c.sampler) {
            Ok(n) if n < STATE_SAMPLERS => Ok(f(n)),
            _ => Err(ApiError::invalid_argument(format!(
                "{what}: sampler {} is past the 16 samplers",
                c.sampler
            ))),
        }
    };
    Ok(match c.item {
        DXBC_SPIRV_D3D9_STATE_ALPHA_FUNC => StateItem::AlphaFunc,
        DXBC_SPIRV_D3D9_STATE_ALPHA_REF => StateItem::AlphaRef,
        DXBC_SPIRV_D3D9_STATE_FOG_MODE => StateItem::FogMode,
        DXBC_SPIRV_D3D9_STATE_FOG_SOURCE => StateItem::FogSource,
        DXBC_SPIRV_D3D9_STATE_FOG_COLOUR => StateItem::FogColour,
        DXBC_SPIRV_D3D9_STATE_FOG_PARAMS => StateItem::FogParams,
        DXBC_SPIRV_D3D9_STATE_POINT_SIZE => StateItem::PointSize,
        DXBC_SPIRV_D3D9_STATE_POINT_SPRITE => StateItem::PointSprite,
        DXBC_SPIRV_D3D9_STATE_CLIP_PLANE_MASK => StateItem::ClipPlaneMask,
        DXBC_SPIRV_D3D9_STATE_CLIP_PLANES => StateItem::ClipPlanes,
        DXBC_SPIRV_D3D9_STATE_FLAT_SHADING => StateItem::FlatShading,
        DXBC_SPIRV_D3D9_STATE_SAMPLER_TYPE => per(StateItem::SamplerType)?,
        DXBC_SPIRV_D3D9_STATE_DEPTH_COMPARE => per(StateItem::DepthCompare)?,
        DXBC_SPIRV_D3D9_STATE_PROJECTED => per(StateItem::Projected)?,
        DXBC_SPIRV_D3D9_STATE_UNBOUND => per(StateItem::Unbound)?,
        DXBC_SPIRV_D3D9_STATE_BUMP_ENV => match u8::try_from(c.sampler) {
            Ok(n) if n < translator::d3d9_state::BUMP_ENV_STAGES => StateItem::BumpEnv(n),
            _ => {
                return Err(ApiError::invalid_argument(format!(
                    "{what}: texture stage {} is past the 8 stages",
                    c.sampler
                )));
            }
        },
        i => {
            return Err(ApiError::invalid_argument(format!(
                "{what}: item {i} is not a DXBC_SPIRV_D3D9_STATE_*"
            )));
        }
    })
}

/// The translator's state options from the info.
pub(crate) fn read(info: &dxbc_spirv_d3d9_state_info) -> ApiResult<StateOptions> {
    // SAFETY: caller's promise.
    let choices = unsafe {
        in_slice(
            info.choices,
            info.choice_count as usize,
            "dxbc_spirv_d3d9_state_info.choices",
        )?
    };
    let mut st = StateOptions {
        spec_id_base: info.spec_id_base,
        ..Default::default()
    };
    for (i, c) in choices.iter().enumerate() {
        let what = format!("d3d9 state choices[{i}]");
        let item = item_of(c, &what)?;
        if st.items.iter().any(|(x, _)| *x == item) {
            return Err(ApiError::invalid_argument(format!(
                "{what}: {item} given twice"
            )));
        }
        let d = match c.delivery {
            DXBC_SPIRV_D3D9_STATE_DELIVERY_SPEC_CONSTANT => StateDelivery::Spec {
                first_id: (c.location != DXBC_SPIRV_D3D9_STATE_TABLE_ID).then_some(c.location),
            },
            DXBC_SPIRV_D3D9_STATE_DELIVERY_PUSH_CONSTANT => {
                StateDelivery::Push { offset: c.location }
            }
            DXBC_SPIRV_D3D9_STATE_DELIVERY_BUFFER => StateDelivery::Buffer,
            DXBC_SPIRV_D3D9_STATE_DELIVERY_BAKED => {
                if c.word_count > 64 {
                    return Err(ApiError::invalid_argument(format!(
                        "{what}: {} words for {item}, which has {}",
                        c.word_count,
                        item.words()
                    )));
                }
                // SAFETY: caller's promise.
                let words =
                    unsafe { in_slice(c.words, c.word_count as usize, "d3d9 state words")? };
                StateDelivery::Baked {
                    words: words.to_vec(),
                }
            }
            d => {
                return Err(ApiError::invalid_argument(format!(
                    "{what}: delivery {d} is not a DXBC_SPIRV_D3D9_STATE_DELIVERY_*"
                )));
            }
        };
        st.items.push((item, d));
    }
    st.check().map_err(ApiError::invalid_argument)?;
    Ok(st)
}
