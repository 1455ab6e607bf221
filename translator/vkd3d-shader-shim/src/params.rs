//! vkd3d's shader parameters (`vkd3d_shader_parameter` in the SPIR-V target info and
//! `vkd3d_shader_parameter1` in `vkd3d_shader_parameter_info`) mapped to the translator's
//! options: the rasterizer sample count (an immediate or a specialization constant), and the
//! Direct3D 9 fixed-function state the translator compiles in (alpha test, flat shading, clip
//! planes, point size and sprites, bump environment, projected textures) as baked values or
//! specialization constants. A parameter given as a uniform buffer, or fog (vkd3d's model of
//! it differs from the translator's), is refused.

use translator::d3d9_state::{StateDelivery, StateItem, StateOptions};

use crate::abi;
use crate::report::Failure;

/// One parameter, whichever struct it came in.
#[derive(Debug, Clone, Copy)]
pub struct Param {
    pub name: u32,
    pub ty: u32,
    pub data_type: u32,
    /// The immediate's words (a `u32`/`f32` in word 0, a vec4 in all four) or, for a
    /// specialization constant, its ID in word 0.
    pub words: [u32; 4],
}

/// How the rasterizer sample count reaches the module.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SampleCount {
    /// Not given: vkd3d's default, 1.
    #[default]
    Default,
    Immediate(u32),
    Spec(u32),
}

/// What the parameters ask.
#[derive(Debug, Clone)]
pub struct Mapped {
    pub sample_count: SampleCount,
    /// The D3D9 state deliveries (every item baked at vkd3d's default unless a parameter
    /// says otherwise).
    pub state: StateOptions,
    /// Parameters that only Direct3D 9 shaders read, by name, that a caller gave with
    /// non-default values (a DXBC shader with them is refused).
    pub d3d9_only: Vec<String>,
}

fn name_of(name: u32) -> String {
    match name {
        abi::PARAMETER_NAME_RASTERIZER_SAMPLE_COUNT => "RASTERIZER_SAMPLE_COUNT".into(),
        abi::PARAMETER_NAME_ALPHA_TEST_FUNC => "ALPHA_TEST_FUNC".into(),
        abi::PARAMETER_NAME_ALPHA_TEST_REF => "ALPHA_TEST_REF".into(),
        abi::PARAMETER_NAME_FLAT_INTERPOLATION => "FLAT_INTERPOLATION".into(),
        abi::PARAMETER_NAME_CLIP_PLANE_MASK => "CLIP_PLANE_MASK".into(),
        n if (abi::PARAMETER_NAME_CLIP_PLANE_0..abi::PARAMETER_NAME_CLIP_PLANE_0 + 8)
            .contains(&n) =>
        {
            format!("CLIP_PLANE_{}", n - abi::PARAMETER_NAME_CLIP_PLANE_0)
        }
        abi::PARAMETER_NAME_POINT_SIZE => "POINT_SIZE".into(),
        abi::PARAMETER_NAME_POINT_SIZE_MIN => "POINT_SIZE_MIN".into(),
        abi::PARAMETER_NAME_POINT_SIZE_MAX => "POINT_SIZE_MAX".into(),
        abi::PARAMETER_NAME_POINT_SPRITE => "POINT_SPRITE".into(),
        abi::PARAMETER_NAME_FOG_FRAGMENT_MODE => "FOG_FRAGMENT_MODE".into(),
        abi::PARAMETER_NAME_FOG_COLOUR => "FOG_COLOUR".into(),
        abi::PARAMETER_NAME_FOG_END => "FOG_END".into(),
        abi::PARAMETER_NAME_FOG_SCALE => "FOG_SCALE".into(),
        abi::PARAMETER_NAME_FOG_SOURCE => "FOG_SOURCE".into(),
        n if (abi::PARAMETER_NAME_BUMP_MATRIX_0..abi::PARAMETER_NAME_BUMP_MATRIX_0 + 6)
            .contains(&n) =>
        {
            format!("BUMP_MATRIX_{}", n - abi::PARAMETER_NAME_BUMP_MATRIX_0)
        }
        n if (abi::PARAMETER_NAME_BUMP_LUMINANCE_SCALE_0
            ..abi::PARAMETER_NAME_BUMP_LUMINANCE_SCALE_0 + 6)
            .contains(&n) =>
        {
            format!(
                "BUMP_LUMINANCE_SCALE_{}",
                n - abi::PARAMETER_NAME_BUMP_LUMINANCE_SCALE_0
            )
        }
        n if (abi::PARAMETER_NAME_BUMP_LUMINANCE_OFFSET_0
            ..abi::PARAMETER_NAME_BUMP_LUMINANCE_OFFSET_0 + 6)
            .contains(&n) =>
        {
            format!(
                "BUMP_LUMINANCE_OFFSET_{}",
                n - abi::PARAMETER_NAME_BUMP_LUMINANCE_OFFSET_0
            )
        }
        abi::PARAMETER_NAME_PROJECTED_TEXTURE_MASK => "PROJECTED_TEXTURE_MASK".into(),
        n => format!("{n}"),
    }
}

/// The state words of every item as vkd3d's defaults leave them (D3D9's initial state, the
/// bump environment zero).
fn vkd3d_defaults() -> StateOptions {
    let mut s = StateOptions::none();
    for n in 0..translator::d3d9_state::BUMP_ENV_STAGES {
        let item = StateItem::BumpEnv(n);
        s.set(
            item,
            StateDelivery::Baked {
                words: item.default_words().to_vec(),
            },
        );
    }
    s
}

/// The baked words of `item` in `state` (its default when not baked).
fn baked(state: &StateOptions, item: StateItem) -> Vec<u32> {
    match state.delivery(item) {
        StateDelivery::Baked { words } => words,
        _ => item.default_words().to_vec(),
    }
}

/// Maps the parameters (later ones override earlier ones of the same name, as vkd3d reads the
/// parameter info after the target info's list).
pub fn map(params: &[Param]) -> Result<Mapped, Failure> {
    let mut m = Mapped {
        sample_count: SampleCount::Default,
        state: vkd3d_defaults(),
        d3d9_only: Vec::new(),
    };
    for p in params {
        let name = name_of(p.name);
        let bad = |why: &str| Failure::invalid_argument(format!("shader parameter {name}: {why}"));
        let want = |dt: u32| -> Result<(), Failure> {
            if p.data_type == dt {
                Ok(())
            } else {
                Err(bad(&format!(
                    "data type {} is not the one it takes",
                    p.data_type
                )))
            }
        };
        match p.ty {
            abi::PARAMETER_TYPE_IMMEDIATE_CONSTANT
            | abi::PARAMETER_TYPE_SPECIALIZATION_CONSTANT => {}
            abi::PARAMETER_TYPE_BUFFER => {
                return Err(Failure::not_expressible(format!(
                    "shader parameter {name} in a uniform buffer: the translator takes \
                     parameters as immediates or specialization constants"
                )));
            }
            t => return Err(bad(&format!("unknown parameter type {t}"))),
        }
        let spec = p.ty == abi::PARAMETER_TYPE_SPECIALIZATION_CONSTANT;
        // One 32-bit item word from the parameter, baked or as its spec constant.
        let single = |item: StateItem, dt: u32, m: &mut Mapped| -> Result<(), Failure> {
            want(dt)?;
            let d = if spec {
                if item.bake_only() {
                    return Err(Failure::not_expressible(format!(
                        "shader parameter {name} as a specialization constant: it decides a \
                         declaration of the module, so the translator bakes it"
                    )));
                }
                StateDelivery::Spec {
                    first_id: Some(p.words[0]),
                }
            } else {
                StateDelivery::Baked {
                    words: vec![p.words[0]],
                }
            };
            m.state.set(item, d);
            m.d3d9_only.push(name.clone());
            Ok(())
        };
        // Words of a multi-word item, which only an immediate can fill.
        let part = |item: StateItem, at: usize, words: &[u32], m: &mut Mapped| {
            if spec {
                return Err(Failure::not_expressible(format!(
                    "shader parameter {name} as a specialization constant: the translator's \
                     {item} state is one group of consecutive constants; give it as an \
                     immediate"
                )));
            }
            let mut w = baked(&m.state, item);
            w[at..at + words.len()].copy_from_slice(words);
            m.state.set(item, StateDelivery::Baked { words: w });
            m.d3d9_only.push(name.clone());
            Ok(())
        };
        match p.name {
            abi::PARAMETER_NAME_RASTERIZER_SAMPLE_COUNT => {
                want(abi::PARAMETER_DATA_TYPE_UINT32)?;
                m.sample_count = if spec {
                    SampleCount::Spec(p.words[0])
                } else {
                    SampleCount::Immediate(p.words[0])
                };
            }
            abi::PARAMETER_NAME_ALPHA_TEST_FUNC => {
                if !spec && !(1..=8).contains(&p.words[0]) {
                    return Err(bad("not a vkd3d_shader_comparison_func"));
                }
                single(
                    StateItem::AlphaFunc,
                    abi::PARAMETER_DATA_TYPE_UINT32,
                    &mut m,
                )?
            }
            abi::PARAMETER_NAME_ALPHA_TEST_REF => single(
                StateItem::AlphaRef,
                abi::PARAMETER_DATA_TYPE_FLOAT32,
                &mut m,
            )?,
            abi::PARAMETER_NAME_FLAT_INTERPOLATION => single(
                StateItem::FlatShading,
                abi::PARAMETER_DATA_TYPE_UINT32,
                &mut m,
            )?,
            abi::PARAMETER_NAME_POINT_SPRITE => single(
                StateItem::PointSprite,
                abi::PARAMETER_DATA_TYPE_UINT32,
                &mut m,
            )?,
            abi::PARAMETER_NAME_CLIP_PLANE_MASK => {
                want(abi::PARAMETER_DATA_TYPE_UINT32)?;
                if !spec && p.words[0] & !0x3f != 0 {
                    return Err(Failure::not_expressible(format!(
                        "shader parameter {name} {:#x} enables clip planes 6 and 7; the \
                         translator has D3D9's six",
                        p.words[0]
                    )));
                }
                single(
                    StateItem::ClipPlaneMask,
                    abi::PARAMETER_DATA_TYPE_UINT32,
                    &mut m,
                )?
            }
            n if (abi::PARAMETER_NAME_CLIP_PLANE_0..abi::PARAMETER_NAME_CLIP_PLANE_0 + 8)
                .contains(&n) =>
            {
                want(abi::PARAMETER_DATA_TYPE_FLOAT32_VEC4)?;
                let plane = (n - abi::PARAMETER_NAME_CLIP_PLANE_0) as usize;
                if plane >= 6 {
                    // Planes 6 and 7 are only read when the mask enables them, which is
                    // refused above; vkd3d defaults them to zero too.
                    if !spec && p.words != [0; 4] {
                        return Err(Failure::not_expressible(format!(
                            "shader parameter {name}: the translator has D3D9's six clip planes"
                        )));
                    }
                    continue;
                }
                part(StateItem::ClipPlanes, plane * 4, &p.words, &mut m)?
            }
            abi::PARAMETER_NAME_POINT_SIZE
            | abi::PARAMETER_NAME_POINT_SIZE_MIN
            | abi::PARAMETER_NAME_POINT_SIZE_MAX => {
                want(abi::PARAMETER_DATA_TYPE_FLOAT32)?;
                let at = (p.name - abi::PARAMETER_NAME_POINT_SIZE) as usize;
                part(StateItem::PointSize, at, &p.words[..1], &mut m)?
            }
            n if (abi::PARAMETER_NAME_BUMP_MATRIX_0..abi::PARAMETER_NAME_BUMP_MATRIX_0 + 6)
                .contains(&n) =>
            {
                want(abi::PARAMETER_DATA_TYPE_FLOAT32_VEC4)?;
                let stage = (n - abi::PARAMETER_NAME_BUMP_MATRIX_0) as u8;
                part(StateItem::BumpEnv(stage), 0, &p.words, &mut m)?
            }
            n if (abi::PARAMETER_NAME_BUMP_LUMINANCE_SCALE_0
                ..abi::PARAMETER_NAME_BUMP_LUMINANCE_SCALE_0 + 6)
                .contains(&n) =>
            {
                want(abi::PARAMETER_DATA_TYPE_FLOAT32)?;
                let stage = (n - abi::PARAMETER_NAME_BUMP_LUMINANCE_SCALE_0) as u8;
                part(StateItem::BumpEnv(stage), 4, &p.words[..1], &mut m)?
            }
            n if (abi::PARAMETER_NAME_BUMP_LUMINANCE_OFFSET_0
                ..abi::PARAMETER_NAME_BUMP_LUMINANCE_OFFSET_0 + 6)
                .contains(&n) =>
            {
                want(abi::PARAMETER_DATA_TYPE_FLOAT32)?;
                let stage = (n - abi::PARAMETER_NAME_BUMP_LUMINANCE_OFFSET_0) as u8;
                part(StateItem::BumpEnv(stage), 5, &p.words[..1], &mut m)?
            }
            abi::PARAMETER_NAME_PROJECTED_TEXTURE_MASK => {
                want(abi::PARAMETER_DATA_TYPE_UINT32)?;
                if spec {
                    return Err(Failure::not_expressible(format!(
                        "shader parameter {name} as a specialization constant: the translator \
                         takes one constant per stage; give it as an immediate"
                    )));
                }
                for stage in 0..translator::d3d9_state::STATE_SAMPLERS {
                    let on = u32::from(p.words[0] >> stage & 1 != 0);
                    m.state.set(
                        StateItem::Projected(stage),
                        StateDelivery::Baked { words: vec![on] },
                    );
                }
                m.d3d9_only.push(name.clone());
            }
            abi::PARAMETER_NAME_FOG_FRAGMENT_MODE
            | abi::PARAMETER_NAME_FOG_COLOUR
            | abi::PARAMETER_NAME_FOG_END
            | abi::PARAMETER_NAME_FOG_SCALE
            | abi::PARAMETER_NAME_FOG_SOURCE => {
                let default = match p.name {
                    abi::PARAMETER_NAME_FOG_FRAGMENT_MODE | abi::PARAMETER_NAME_FOG_SOURCE => {
                        p.words[0] == 0
                    }
                    _ => false,
                };
                if spec || !default {
                    return Err(Failure::not_expressible(format!(
                        "shader parameter {name}: vkd3d's fog parameters (factor from E and k, \
                         fog source chosen in the vertex shader) are not mapped onto the \
                         translator's D3D9 fog state yet"
                    )));
                }
            }
            _ => return Err(bad("unknown parameter name")),
        }
    }
    Ok(m)
}
