//! Direct3D 9 render state that the translator compiles into a module ("state items"), and how
//! the caller delivers each one.
//!
//! D3D9 applies alpha test, fog, point size and sprites, user clip planes, flat shading and
//! per-sampler texture state outside the shader; Vulkan has no such fixed function, so the
//! translated module must compute them. Every such piece of state is one [`StateItem`] made of
//! a few 32-bit words, and the caller picks per item how its value reaches the module
//! ([`StateDelivery`]): a specialization constant (one module, one pipeline per state), a push
//! constant (one pipeline for every state) or a value baked at translation (one module per
//! state). The reflection lists every item the module reads with where it lives
//! (`Reflection::d3d9.state`). Meanings and defaults are documented in `docs/d3d9.md`.

use serde::{Deserialize, Serialize};

/// How many samplers (`s#`, texture stages) the per-sampler items cover.
pub const STATE_SAMPLERS: u8 = 16;

/// One piece of D3D9 render state the module may read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StateItem {
    /// D3DRS_ALPHAFUNC, as a `D3DCMPFUNC` (1 never … 8 always); u32, default 8.
    AlphaFunc,
    /// D3DRS_ALPHAREF / 255 (the reference as a float in [0, 1]); f32, default 0.
    AlphaRef,
    /// Fog: 0 off (D3DRS_FOGENABLE false), else 1 + D3DRS_FOGTABLEMODE: 1 vertex fog (the
    /// FOG varying is the factor), 2 exp, 3 exp2, 4 linear (table fog from depth); u32,
    /// default 0. Pixel shaders below 3.0 only.
    FogMode,
    /// The depth table fog uses: 0 the fragment's z, 1 its w; u32, default 0.
    FogSource,
    /// D3DRS_FOGCOLOR as (r, g, b, a) floats; 4 × f32, default (0, 0, 0, 0).
    FogColour,
    /// (D3DRS_FOGSTART, D3DRS_FOGEND, D3DRS_FOGDENSITY); 3 × f32, default (0, 1, 1).
    FogParams,
    /// (D3DRS_POINTSIZE, D3DRS_POINTSIZE_MIN, D3DRS_POINTSIZE_MAX); 3 × f32, default
    /// (1, 1, 64). Vertex shaders.
    PointSize,
    /// D3DRS_POINTSPRITEENABLE: texture coordinates become the point coordinate; u32 0/1,
    /// default 0. Pixel shaders.
    PointSprite,
    /// D3DRS_CLIPPLANEENABLE (bits 0–5); u32, default 0. Vertex shaders.
    ClipPlaneMask,
    /// The six clip planes (a, b, c, d) in clip space, plane 0 first; 24 × f32, default 0.
    ClipPlanes,
    /// D3DRS_SHADEMODE flat: colour inputs are not interpolated; u32 0/1, default 0. An
    /// interpolation decoration, so it can only be baked. Pixel shaders.
    FlatShading,
    /// The texture type bound to sampler n where the program does not declare it (ps_1_x,
    /// `dcl` without a type): 0 the translator's choice (2D, or what a ps_1_x instruction
    /// implies), 1 2D, 2 cube, 3 volume; u32, default 0. Decides the image type, so baked only.
    SamplerType(u8),
    /// Sampler n holds a depth texture, so its samples compare the coordinate's z (w for a
    /// cube) with the texel (D3D9 shadow sampling; the bound sampler must then be a
    /// less-or-equal comparison sampler); u32 0/1, default 0, baked by default.
    DepthCompare(u8),
    /// D3DTTFF_PROJECTED on stage n: ps_1_1–1_3 `tex`/`texbem` divide the coordinate by w;
    /// u32 0/1, default 0.
    Projected(u8),
    /// Nothing is bound to sampler n: sampling returns (0, 0, 0, 1); u32 0/1, default 0.
    Unbound(u8),
    /// The bump-environment state of texture stage n (0–7) that ps_1_x `texbem`, `texbeml`
    /// and `bem` read: (BUMPENVMAT00, 01, 10, 11, BUMPENVLSCALE, BUMPENVLOFFSET); 6 × f32,
    /// default 0. Delivered by default in the bump-environment buffer
    /// ([`StateDelivery::Buffer`]).
    BumpEnv(u8),
}

/// Texture stages of the bump-environment state.
pub const BUMP_ENV_STAGES: u8 = 8;

/// The type of one word of an item's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WordType {
    U32,
    F32,
}

impl StateItem {
    /// Every item (per-sampler ones for each of the 16 samplers).
    pub fn all() -> Vec<StateItem> {
        use StateItem::*;
        let mut v = vec![
            AlphaFunc,
            AlphaRef,
            FogMode,
            FogSource,
            FogColour,
            FogParams,
            PointSize,
            PointSprite,
            ClipPlaneMask,
            ClipPlanes,
            FlatShading,
        ];
        for n in 0..STATE_SAMPLERS {
            v.extend([SamplerType(n), DepthCompare(n), Projected(n), Unbound(n)]);
        }
        v.extend((0..BUMP_ENV_STAGES).map(BumpEnv));
        v
    }

    /// The type of its words.
    pub fn word_type(self) -> WordType {
        use StateItem::*;
        match self {
            AlphaRef | FogColour | FogParams | PointSize | ClipPlanes | BumpEnv(_) => WordType::F32,
            _ => WordType::U32,
        }
    }

    /// Its value in D3D9's initial state (raw words).
    pub fn default_words(self) -> &'static [u32] {
        use StateItem::*;
        const ONE: u32 = 1f32.to_bits();
        const SIXTY_FOUR: u32 = 64f32.to_bits();
        match self {
            AlphaFunc => &[8],
            FogColour => &[0; 4],
            FogParams => &[0, ONE, ONE],
            PointSize => &[ONE, ONE, SIXTY_FOUR],
            ClipPlanes => &[0; 24],
            BumpEnv(_) => &[0; 6],
            _ => &[0],
        }
    }

    /// How many 32-bit words its value has.
    pub fn words(self) -> u32 {
        self.default_words().len() as u32
    }

    /// How many distinct items there are ([`StateItem::all`]'s length).
    pub const COUNT: usize = 11 + 4 * STATE_SAMPLERS as usize + BUMP_ENV_STAGES as usize;

    /// The item's place in [`StateItem::all`] (below [`StateItem::COUNT`]); `None` for a
    /// per-sampler or per-stage item past the last sampler or stage.
    pub fn index(self) -> Option<usize> {
        use StateItem::*;
        let per = |n: u8, k: usize| (n < STATE_SAMPLERS).then(|| 11 + 4 * usize::from(n) + k);
        match self {
            AlphaFunc => Some(0),
            AlphaRef => Some(1),
            FogMode => Some(2),
            FogSource => Some(3),
            FogColour => Some(4),
            FogParams => Some(5),
            PointSize => Some(6),
            PointSprite => Some(7),
            ClipPlaneMask => Some(8),
            ClipPlanes => Some(9),
            FlatShading => Some(10),
            SamplerType(n) => per(n, 0),
            DepthCompare(n) => per(n, 1),
            Projected(n) => per(n, 2),
            Unbound(n) => per(n, 3),
            BumpEnv(n) => {
                (n < BUMP_ENV_STAGES).then(|| 11 + 4 * usize::from(STATE_SAMPLERS) + usize::from(n))
            }
        }
    }

    /// Its position in the fixed table of specialization constant IDs: word k of the item is
    /// `StateOptions::spec_id_base + spec_slot() + k` unless the caller names another ID.
    pub fn spec_slot(self) -> u32 {
        use StateItem::*;
        match self {
            AlphaFunc => 0,
            AlphaRef => 1,
            FogMode => 2,
            FogSource => 3,
            FogColour => 4,
            FogParams => 8,
            PointSize => 11,
            PointSprite => 14,
            ClipPlaneMask => 15,
            ClipPlanes => 16,
            FlatShading => 40,
            SamplerType(n) => 48 + 4 * u32::from(n),
            DepthCompare(n) => 49 + 4 * u32::from(n),
            Projected(n) => 50 + 4 * u32::from(n),
            Unbound(n) => 51 + 4 * u32::from(n),
            BumpEnv(n) => 112 + 6 * u32::from(n),
        }
    }

    /// Whether the item can only be baked: it decides a declaration that SPIR-V cannot make
    /// depend on a run-time value (the `Flat` decoration of colour inputs, the `Dim` of a
    /// sampler's image type).
    pub fn bake_only(self) -> bool {
        matches!(self, StateItem::FlatShading | StateItem::SamplerType(_))
    }

    /// The item's name as the CLI and state files spell it (`alpha-func`, `projected-3`).
    pub fn name(self) -> String {
        use StateItem::*;
        match self {
            AlphaFunc => "alpha-func".into(),
            AlphaRef => "alpha-ref".into(),
            FogMode => "fog-mode".into(),
            FogSource => "fog-source".into(),
            FogColour => "fog-colour".into(),
            FogParams => "fog-params".into(),
            PointSize => "point-size".into(),
            PointSprite => "point-sprite".into(),
            ClipPlaneMask => "clip-plane-mask".into(),
            ClipPlanes => "clip-planes".into(),
            FlatShading => "flat-shading".into(),
            SamplerType(n) => format!("sampler-type-{n}"),
            DepthCompare(n) => format!("depth-compare-{n}"),
            Projected(n) => format!("projected-{n}"),
            Unbound(n) => format!("unbound-{n}"),
            BumpEnv(n) => format!("bump-env-{n}"),
        }
    }
}

impl std::fmt::Display for StateItem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.name())
    }
}

impl std::str::FromStr for StateItem {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        StateItem::all()
            .into_iter()
            .find(|i| i.name() == s)
            .ok_or_else(|| format!("unknown D3D9 state item '{s}'"))
    }
}

/// How the value of one state item reaches the module.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StateDelivery {
    /// Specialization constants, one per word: IDs `first_id`, `first_id + 1`, … (`None`:
    /// from the fixed table, [`StateItem::spec_slot`]). Their defaults are D3D9's initial
    /// state.
    Spec { first_id: Option<u32> },
    /// Push constants: the words at bytes `offset`, `offset + 4`, … (`offset` a multiple of 4).
    Push { offset: u32 },
    /// Constants baked at translation: the raw words (as many as the item has).
    Baked { words: Vec<u32> },
    /// The bump-environment uniform buffer (`b3`, `docs/d3d9.md`): bump-environment items
    /// only, and their default.
    Buffer,
}

/// The caller's choices of delivery, per item.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct StateOptions {
    /// The delivery of the items listed; the others take [`default_delivery`].
    #[serde(default)]
    pub items: Vec<(StateItem, StateDelivery)>,
    /// Added to every table-derived specialization constant ID (default 0; the table uses
    /// IDs 0–159, so pick a base that keeps them clear of the caller's own IDs, such as
    /// `Options::rasterizer_sample_count_spec_id`).
    #[serde(default)]
    pub spec_id_base: u32,
}

/// The delivery of an item the caller does not list: specialization constants from the fixed
/// table for the items that are values, so that one translation serves every pipeline state
/// (the pipeline sets the values; a driver folds what the state turns off); D3D9's initial
/// state baked for the items that decide a declaration, and for depth compare (a run-time
/// choice doubles every sample of the sampler, so a caller asks for it).
pub fn default_delivery(item: StateItem) -> StateDelivery {
    if matches!(item, StateItem::BumpEnv(_)) {
        StateDelivery::Buffer
    } else if item.bake_only() || matches!(item, StateItem::DepthCompare(_)) {
        StateDelivery::Baked {
            words: item.default_words().to_vec(),
        }
    } else {
        StateDelivery::Spec { first_id: None }
    }
}

impl StateOptions {
    /// Every item baked to D3D9's initial state: the module compiles no fixed-function state
    /// in (no alpha test, fog, point size, clip planes, sprites, …). The bump-environment
    /// state, which the program itself reads, stays in its buffer.
    pub fn none() -> Self {
        StateOptions {
            items: StateItem::all()
                .into_iter()
                .filter(|i| !matches!(i, StateItem::BumpEnv(_)))
                .map(|i| {
                    (
                        i,
                        StateDelivery::Baked {
                            words: i.default_words().to_vec(),
                        },
                    )
                })
                .collect(),
            spec_id_base: 0,
        }
    }

    /// The delivery chosen for `item`.
    pub fn delivery(&self, item: StateItem) -> StateDelivery {
        self.items
            .iter()
            .rev()
            .find(|(i, _)| *i == item)
            .map_or_else(|| default_delivery(item), |(_, d)| d.clone())
    }

    /// Sets the delivery of `item` (replacing an earlier choice).
    pub fn set(&mut self, item: StateItem, delivery: StateDelivery) {
        self.items.retain(|(i, _)| *i != item);
        self.items.push((item, delivery));
    }

    /// Checks every choice: word counts, push alignment and overlaps, items that can only be
    /// baked. Returns the first problem.
    pub fn check(&self) -> Result<(), String> {
        let mut pushed: Vec<(u32, u32, StateItem)> = Vec::new();
        for (item, d) in &self.items {
            match d {
                StateDelivery::Baked { words } if words.len() as u32 != item.words() => {
                    return Err(format!(
                        "D3D9 state {item}: {} baked words, the item has {}",
                        words.len(),
                        item.words()
                    ));
                }
                StateDelivery::Baked { .. } => {}
                _ if item.bake_only() => {
                    return Err(format!(
                        "D3D9 state {item} can only be baked: it decides {} in the module, \
                         which SPIR-V cannot make depend on a run-time value",
                        if *item == StateItem::FlatShading {
                            "the Flat decoration of the colour inputs"
                        } else {
                            "the dimension of the sampler's image type"
                        }
                    ));
                }
                StateDelivery::Push { offset } => {
                    if offset % 4 != 0 {
                        return Err(format!(
                            "D3D9 state {item}: push offset {offset} is not a multiple of 4"
                        ));
                    }
                    let end = offset
                        .checked_add(4 * item.words())
                        .ok_or_else(|| format!("D3D9 state {item}: push offset too large"))?;
                    if let Some((_, _, other)) =
                        pushed.iter().find(|(o, e, _)| *offset < *e && *o < end)
                    {
                        return Err(format!(
                            "D3D9 state {item}: its push bytes overlap those of {other}"
                        ));
                    }
                    pushed.push((*offset, end, *item));
                }
                StateDelivery::Spec { .. } => {}
                StateDelivery::Buffer if matches!(item, StateItem::BumpEnv(_)) => {}
                StateDelivery::Buffer => {
                    return Err(format!(
                        "D3D9 state {item}: only the bump-environment state has a buffer"
                    ));
                }
            }
        }
        Ok(())
    }
}

/// How an item's value reaches the module, borrowed from the caller's options (what
/// [`StateOptions::delivery`] says, without copying baked words).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DeliveryRef<'o> {
    Spec { first_id: Option<u32> },
    Push { offset: u32 },
    Baked { words: &'o [u32] },
    Buffer,
}

impl DeliveryRef<'_> {
    /// The owned delivery (as the reflection lists it).
    pub fn to_owned(self) -> StateDelivery {
        match self {
            DeliveryRef::Spec { first_id } => StateDelivery::Spec { first_id },
            DeliveryRef::Push { offset } => StateDelivery::Push { offset },
            DeliveryRef::Baked { words } => StateDelivery::Baked {
                words: words.to_vec(),
            },
            DeliveryRef::Buffer => StateDelivery::Buffer,
        }
    }
}

/// The caller's choices resolved once per translation: one look-up per item instead of a
/// search of [`StateOptions::items`] (which lists every item when the state is off).
pub(crate) struct StateTable<'o> {
    opts: &'o StateOptions,
    chosen: [Option<&'o StateDelivery>; StateItem::COUNT],
}

impl<'o> StateTable<'o> {
    pub fn new(opts: &'o StateOptions) -> Self {
        let mut chosen = [None; StateItem::COUNT];
        // A later choice of the same item replaces an earlier one.
        for (item, d) in &opts.items {
            if let Some(i) = item.index() {
                chosen[i] = Some(d);
            }
        }
        StateTable { opts, chosen }
    }

    /// [`StateOptions::spec_id_base`].
    pub fn spec_id_base(&self) -> u32 {
        self.opts.spec_id_base
    }

    /// The delivery of `item` ([`StateOptions::delivery`]).
    pub fn delivery(&self, item: StateItem) -> DeliveryRef<'o> {
        let chosen = match item.index() {
            Some(i) => self.chosen[i],
            // Past the table (no such sampler or stage): only a search finds a choice.
            None => self
                .opts
                .items
                .iter()
                .rev()
                .find(|(i, _)| *i == item)
                .map(|(_, d)| d),
        };
        match chosen {
            Some(StateDelivery::Spec { first_id }) => DeliveryRef::Spec {
                first_id: *first_id,
            },
            Some(StateDelivery::Push { offset }) => DeliveryRef::Push { offset: *offset },
            Some(StateDelivery::Baked { words }) => DeliveryRef::Baked { words },
            Some(StateDelivery::Buffer) => DeliveryRef::Buffer,
            None => default_delivery_ref(item),
        }
    }
}

/// [`default_delivery`], borrowed.
fn default_delivery_ref(item: StateItem) -> DeliveryRef<'static> {
    if matches!(item, StateItem::BumpEnv(_)) {
        DeliveryRef::Buffer
    } else if item.bake_only() || matches!(item, StateItem::DepthCompare(_)) {
        DeliveryRef::Baked {
            words: item.default_words(),
        }
    } else {
        DeliveryRef::Spec { first_id: None }
    }
}

/// Parses `ITEM=spec[:ID]`, `ITEM=push:OFFSET`, `ITEM=buffer` (bump-environment items) or
/// `ITEM=baked:V[,V…]` (values as floats for
/// float items, integers otherwise), as `dxbc translate --d3d9-state` takes them.
pub fn parse_choice(s: &str) -> Result<(StateItem, StateDelivery), String> {
    let (item, how) = s
        .split_once('=')
        .ok_or_else(|| format!("'{s}': expected ITEM=spec[:ID]|push:OFFSET|baked:VALUES"))?;
    let item: StateItem = item.trim().parse()?;
    let (kind, arg) = how.split_once(':').unwrap_or((how, ""));
    let num = |a: &str| -> Result<u32, String> {
        a.trim()
            .parse::<u32>()
            .map_err(|_| format!("'{s}': '{a}' is not an unsigned integer"))
    };
    let d = match kind.trim() {
        "spec" if arg.is_empty() => StateDelivery::Spec { first_id: None },
        "spec" => StateDelivery::Spec {
            first_id: Some(num(arg)?),
        },
        "push" => StateDelivery::Push { offset: num(arg)? },
        "buffer" => StateDelivery::Buffer,
        "baked" => {
            let words = arg
                .split(',')
                .map(|v| match item.word_type() {
                    WordType::F32 => v
                        .trim()
                        .parse::<f32>()
                        .map(f32::to_bits)
                        .map_err(|_| format!("'{s}': '{v}' is not a number")),
                    WordType::U32 => num(v),
                })
                .collect::<Result<Vec<u32>, String>>()?;
            StateDelivery::Baked { words }
        }
        k => {
            return Err(format!(
                "'{s}': unknown delivery '{k}' (spec, push or baked)"
            ));
        }
    };
    Ok((item, d))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_slots_are_distinct() {
        let all = StateItem::all();
        let mut ids: Vec<(u32, u32)> = Vec::new();
        for i in &all {
            assert_eq!(i.name().parse::<StateItem>().unwrap(), *i);
            let s = i.spec_slot();
            for (a, b) in &ids {
                assert!(s + i.words() <= *a || *b <= s, "{i} overlaps");
            }
            ids.push((s, s + i.words()));
        }
        for (k, i) in all.iter().enumerate() {
            assert_eq!(i.index(), Some(k), "{i}");
        }
        assert_eq!(all.len(), StateItem::COUNT);
        assert_eq!(StateItem::Unbound(STATE_SAMPLERS).index(), None);
        assert_eq!(StateItem::BumpEnv(BUMP_ENV_STAGES).index(), None);
    }

    #[test]
    fn the_table_says_what_delivery_says() {
        let mut o = StateOptions::none();
        o.set(StateItem::AlphaRef, StateDelivery::Push { offset: 0 });
        o.items.push((
            StateItem::FogMode,
            StateDelivery::Spec { first_id: Some(7) },
        ));
        o.items
            .push((StateItem::FogMode, StateDelivery::Push { offset: 8 }));
        for opts in [StateOptions::default(), StateOptions::none(), o] {
            let t = StateTable::new(&opts);
            for i in StateItem::all() {
                assert_eq!(t.delivery(i).to_owned(), opts.delivery(i), "{i}");
            }
            // Past the table: the choice is still found.
            let past = StateItem::Unbound(STATE_SAMPLERS);
            assert_eq!(t.delivery(past).to_owned(), opts.delivery(past));
        }
    }

    #[test]
    fn choices_parse_and_check() {
        let (i, d) = parse_choice("fog-colour=baked:0.5,0,0,1").unwrap();
        assert_eq!(i, StateItem::FogColour);
        assert_eq!(
            d,
            StateDelivery::Baked {
                words: vec![0.5f32.to_bits(), 0, 0, 1f32.to_bits()]
            }
        );
        assert_eq!(
            parse_choice("projected-3=spec:9").unwrap(),
            (
                StateItem::Projected(3),
                StateDelivery::Spec { first_id: Some(9) }
            )
        );
        assert!(parse_choice("alpha-func=push:2").is_ok());
        assert!(parse_choice("nothing=spec").is_err());
        let mut o = StateOptions::default();
        o.set(StateItem::AlphaRef, StateDelivery::Push { offset: 0 });
        o.set(StateItem::FogParams, StateDelivery::Push { offset: 8 });
        assert!(o.check().is_ok());
        o.set(StateItem::FogColour, StateDelivery::Push { offset: 12 });
        assert!(o.check().unwrap_err().contains("overlap"));
        let mut o = StateOptions::default();
        o.set(
            StateItem::FlatShading,
            StateDelivery::Spec { first_id: None },
        );
        assert!(o.check().unwrap_err().contains("only be baked"));
        let mut o = StateOptions::default();
        o.set(
            StateItem::FogColour,
            StateDelivery::Baked { words: vec![0] },
        );
        assert!(o.check().is_err());
    }
}
