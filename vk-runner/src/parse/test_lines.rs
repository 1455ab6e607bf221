//! Parser for `[test]` lines: `todo`/`bug`/`if(...)` prefixes, then one directive
//! (`dispatch`, `draw`, `probe`, `uniform`, `clear`, ...).
//!
//! Both the current vkd3d syntax (`probe (0, 0) f32(1, 2, 3, 4)`, `probe uav-0 (1) u32(5)`)
//! and the older one (`probe (0, 0) rgba (1, 2, 3, 4) 4`, `probe uav 0 (1) rui (5)`,
//! `probe all rgba (...)`) are accepted.

use super::cursor::Cursor;
use super::decls::parse_compare;
use super::qualifier::Qualifier;
use super::sections::*;

/// Parses one `[test]` line (comments already removed).
pub fn test_line(line_no: u32, line: &str) -> Result<TestLine, String> {
    let mut c = Cursor::new(line);
    let mut todo = None;
    let mut bug = None;
    let mut conditions = Vec::new();
    loop {
        if c.eat_word("todo") {
            todo = Some(Qualifier::parse_opt(&mut c)?);
        } else if c.eat_word("bug") {
            bug = Some(Qualifier::parse_opt(&mut c)?);
        } else if c.eat_word("winbug") {
            // Only skips on Windows D3D; never here. Keep parsing.
            Qualifier::parse_opt(&mut c)?;
        } else if c.eat_word("broken") {
            // `broken(warp)`: the line is known to crash or misbehave where the qualifier holds
            // (in vkd3d's files: Microsoft's WARP), and is not run there. It is evaluated like
            // an `if(!...)`.
            let q = Qualifier::parse_opt(&mut c)?;
            conditions.push(
                q.negated()
                    .ok_or("broken needs a qualifier, as in broken(warp)")?,
            );
        } else if c.eat_word("if") {
            conditions.push(Qualifier::parse_opt(&mut c)?);
        } else {
            break;
        }
    }
    let directive = directive(&mut c)?;
    Ok(TestLine {
        line: line_no,
        todo,
        bug,
        conditions,
        directive,
    })
}

/// `class instance SLOT table T [cb B] [offset O] [texture T] [sampler S]`: the class
/// instance bound to interface slot SLOT, written into the translator's class-instance
/// buffer (docs/class-linkage.md): the slot's 32-byte record at `b15` holds `this` (cb,
/// offset in vectors, first texture, first sampler) and the function table.
fn class_instance(c: &mut Cursor<'_>) -> Result<Directive, String> {
    use translator::reflect::{CLASS_INSTANCE_REGISTER, CLASS_MAX_SLOTS, CLASS_SLOT_STRIDE};
    let slot = c.u32()?;
    if slot >= CLASS_MAX_SLOTS {
        return Err(format!(
            "interface slot {slot} out of range (D3D11 has {CLASS_MAX_SLOTS})"
        ));
    }
    // this.x cb, this.y offset, this.z texture, this.w sampler, then the table.
    let mut record = [0u32; (CLASS_SLOT_STRIDE / 4) as usize];
    let mut table = None;
    while !c.is_empty() {
        let field = if c.eat_word("table") {
            4
        } else if c.eat_word("cb") {
            0
        } else if c.eat_word("offset") {
            1
        } else if c.eat_word("texture") {
            2
        } else if c.eat_word("sampler") {
            3
        } else {
            return Err(format!(
                "expected table, cb, offset, texture or sampler, found '{}'",
                c.rest()
            ));
        };
        record[field] = c.u32()?;
        if field == 4 {
            table = Some(record[4]);
        }
    }
    if table.is_none() {
        return Err("class instance needs its function table ('table N')".into());
    }
    Ok(Directive::Uniform {
        cbuffer: CLASS_INSTANCE_REGISTER,
        space: 0,
        offset: slot * CLASS_SLOT_STRIDE / 4,
        words: record.to_vec(),
    })
}

fn directive(c: &mut Cursor<'_>) -> Result<Directive, String> {
    if c.eat_word("dispatch") {
        let x = c.u32()?;
        let y = c.u32()?;
        let z = c.u32()?;
        return Ok(Directive::Dispatch([x, y, z]));
    }
    if c.eat_words("draw quad") {
        return Ok(Directive::DrawQuad);
    }
    if c.eat_word("draw") {
        return draw(c);
    }
    if c.eat_word("probe") {
        return probe(c).map(Directive::Probe);
    }
    if c.eat_word("uniform") {
        return uniform(c);
    }
    if c.eat_word("write") {
        let r = resource_ref(c)?.ok_or("write needs a resource")?;
        if r.0 != "cbv" {
            return Ok(Directive::Unsupported(format!("write to {}", r.0)));
        }
        let space = if c.eat_word("space") { c.u32()? } else { 0 };
        c.expect_char('(')?;
        let offset = c.u32()?;
        c.expect_char(')')?;
        let lit = literal(c)?;
        return Ok(Directive::Uniform {
            cbuffer: r.1,
            space,
            offset,
            words: literal_words(&lit),
        });
    }
    if c.eat_words("class instance") {
        return class_instance(c);
    }
    if c.eat_word("clear") {
        return clear(c);
    }
    if c.eat_word("depth-bounds") {
        let min = c.f32()?;
        let max = c.f32()?;
        end_of_line(c)?;
        return Ok(Directive::DepthBounds(min, max));
    }
    if c.eat_word("depth") {
        let f = parse_compare(c)?;
        return Ok(Directive::Depth(f));
    }
    if c.eat_words("sample mask") {
        let m = c.u32()?;
        if !c.is_empty() {
            return Err(format!("trailing text '{}'", c.rest()));
        }
        return Ok(Directive::SampleMask(m));
    }
    if c.eat_word("viewport") {
        let index = c.u32()?;
        if index >= 16 {
            return Err(format!("viewport index {index} out of range (D3D has 16)"));
        }
        c.expect_char('(')?;
        let mut rect = [0.0f32; 4];
        for (i, v) in rect.iter_mut().enumerate() {
            if i > 0 {
                c.expect_char(',')?;
            }
            *v = c.f32()?;
        }
        c.expect_char(')')?;
        end_of_line(c)?;
        return Ok(Directive::Viewport { index, rect });
    }
    if c.eat_word("copy") {
        let mut refs = [None, None];
        for r in refs.iter_mut() {
            let (word, slot) = resource_ref(c)?.ok_or("copy needs two resources")?;
            let kind = kind_of(word).ok_or_else(|| format!("cannot copy {word}"))?;
            *r = Some(ResourceRef { kind, slot });
        }
        end_of_line(c)?;
        let [Some(src), Some(dst)] = refs else {
            unreachable!("both set above")
        };
        return Ok(Directive::Copy { src, dst });
    }
    // Fixed-function state of D3D9 (and the DXIL compiler's denormal mode): read as vkd3d
    // reads it, but it means nothing for SM4-5 shaders.
    for (w, what) in [
        ("alpha test", "alpha test"),
        ("shade mode", "shade mode"),
        ("clip-plane", "user clip planes"),
        ("point-size", "point size"),
        ("point-sprite", "point sprites"),
        ("fog-colour", "fog colour"),
        ("fog", "fog"),
        ("bump", "bump mapping"),
        ("projected", "projected textures"),
        ("denorm", "the DXIL compiler's denorm mode"),
    ] {
        if c.eat_words(w) {
            let (default, change) = state_args(w, c)?;
            if w == "denorm" {
                return Ok(Directive::NoMeaning(what.to_string()));
            }
            return Ok(Directive::FixedFunction {
                what: w.to_string(),
                default,
                change,
            });
        }
    }
    Err(format!("unknown test directive '{}'", c.rest()))
}

/// Nothing (but a `#` comment) may follow a directive's arguments.
fn end_of_line(c: &mut Cursor<'_>) -> Result<(), String> {
    let rest = c.rest().trim();
    if rest.is_empty() || rest.starts_with('#') {
        *c = Cursor::new("");
        Ok(())
    } else {
        Err(format!("trailing text '{rest}'"))
    }
}

/// Reads the arguments of a D3D9 state directive the way vkd3d's runner reads them. Returns
/// whether the line sets the state D3D9 starts with (alpha test `always`, `shade mode
/// gouraud`, a clip plane disabled, `point-sprite off`, `fog disable`/`none`, `projected N
/// disable`, any fog colour) and the change it makes.
fn state_args(word: &str, c: &mut Cursor<'_>) -> Result<(bool, Option<StateChange>), String> {
    let mut default = false;
    let floats = |c: &mut Cursor<'_>, n: usize| -> Result<Vec<f32>, String> {
        (0..n).map(|_| c.f32()).collect()
    };
    let change = match word {
        "alpha test" => {
            default = c.rest().trim_start().starts_with("always");
            let f = parse_compare(c)?;
            // `alpha test always` / `never` need no reference (vkd3d's strtof reads 0).
            let reference = if c.rest().trim().is_empty() {
                0.0
            } else {
                c.f32()?
            };
            Some(StateChange::AlphaTest {
                func: f as u32 + 1,
                reference,
            })
        }
        "shade mode" | "point-sprite" => {
            let t = c.take_token(&[]);
            if word == "shade mode" {
                default = t != "flat";
                Some(StateChange::ShadeFlat(t == "flat"))
            } else {
                default = t == "off";
                Some(StateChange::PointSprite(t == "on"))
            }
        }
        "clip-plane" => {
            let n = c.u32()?;
            if n >= 8 {
                return Err(format!("clip plane {n} out of range"));
            }
            default = c.eat_word("disable");
            let plane = if default {
                None
            } else {
                let v = floats(c, 4)?;
                Some([v[0], v[1], v[2], v[3]])
            };
            Some(StateChange::ClipPlane { n, plane })
        }
        // `point-size SIZE [MIN [MAX]]`: a missing MIN/MAX leaves the size unclamped (1 and
        // FLT_MAX, as vkd3d's `ffp-point-size.shader_test` expects of `point-size 40.0`).
        "point-size" => {
            let mut v = [c.f32()?, 1.0, f32::MAX];
            for x in v.iter_mut().skip(1) {
                if c.rest().trim().is_empty() {
                    break;
                }
                *x = c.f32()?;
            }
            Some(StateChange::PointSize(v))
        }
        "fog-colour" => {
            let v = floats(c, 4)?;
            // The colour only matters while fog is on (and `fog` itself is judged).
            default = true;
            Some(StateChange::FogColour([v[0], v[1], v[2], v[3]]))
        }
        "fog" => {
            let mode = c.take_token(&[]).to_string();
            if !matches!(
                mode.as_str(),
                "disable" | "none" | "linear" | "exp" | "exp2"
            ) {
                return Err(format!("invalid fog mode '{mode}'"));
            }
            default = mode == "disable";
            let ortho = if c.eat_word("ortho") {
                true
            } else {
                let _ = c.eat_word("non-ortho");
                false
            };
            let params = match mode.as_str() {
                "linear" => floats(c, 2)?,
                "exp" | "exp2" => floats(c, 1)?,
                _ => Vec::new(),
            };
            Some(StateChange::Fog {
                mode,
                ortho,
                params,
            })
        }
        "bump" => {
            let stage = c.u32()?;
            if stage >= 6 {
                return Err(format!("bump stage {stage} out of range"));
            }
            let m = match literal(c)? {
                Expected::F32(v) if v.len() == 4 => [v[0], v[1], v[2], v[3]],
                _ => return Err("bump needs f32(m00, m01, m10, m11)".into()),
            };
            let l = floats(c, 2)?;
            Some(StateChange::Bump {
                stage,
                m,
                lscale: l[0],
                loffset: l[1],
            })
        }
        "projected" => {
            let stage = c.u32()?;
            if stage >= 6 {
                return Err(format!("projected texture {stage} out of range"));
            }
            default = matches!(c.take_token(&[]), "disable" | "off" | "false");
            Some(StateChange::Projected {
                stage,
                on: !default,
            })
        }
        "denorm" => {
            let mode = c.take_token(&[]);
            if !matches!(mode, "preserve" | "ftz" | "any") {
                return Err(format!("invalid denorm mode '{mode}'"));
            }
            None
        }
        _ => None,
    };
    end_of_line(c)?;
    Ok((default, change))
}

fn draw(c: &mut Cursor<'_>) -> Result<Directive, String> {
    let topology = if c.eat_words("triangle list") {
        Topology::TriangleList
    } else if c.eat_words("triangle strip") {
        Topology::TriangleStrip
    } else if c.eat_words("point list") {
        Topology::PointList
    } else if c.eat_words("line list") {
        Topology::LineList
    } else if c.eat_words("line strip") {
        Topology::LineStrip
    } else {
        let save = *c;
        let n = c.u32();
        match n {
            Ok(n) if c.eat_words("control point patch list") && (1..=32).contains(&n) => {
                Topology::PatchList(n)
            }
            _ => return Err(format!("unknown primitive topology '{}'", save.rest())),
        }
    };
    let vertices = c.u32()?;
    let instances = if c.is_empty() || c.peek().is_some_and(|ch| ch.is_ascii_alphabetic()) {
        1
    } else {
        c.u32()?
    };
    // Not in vkd3d's syntax: D3D's StartVertexLocation / StartInstanceLocation, which
    // SV_VertexID / SV_InstanceID must not include.
    let (mut start_vertex, mut start_instance) = (0, 0);
    while !c.is_empty() {
        if c.eat_words("start vertex") {
            start_vertex = c.u32()?;
        } else if c.eat_words("start instance") {
            start_instance = c.u32()?;
        } else {
            return Err(format!("unexpected '{}' after the draw counts", c.rest()));
        }
    }
    Ok(Directive::Draw {
        topology,
        vertices,
        instances,
        start_vertex,
        start_instance,
    })
}

/// `rtv 1`, `uav-0`, `dsv`, ... → (kind word, slot). `cbv-f32` and `cbv-i32` are vkd3d's names
/// for its D3D9 float and integer constant buffers, which are its buffers 0 and 1 (so `cbv-f32`
/// is what `uniform` writes).
fn resource_ref(c: &mut Cursor<'_>) -> Result<Option<(&'static str, u32)>, String> {
    for (word, slot) in [("cbv-f32", 0), ("cbv-i32", 1)] {
        if c.eat_word(word) {
            return Ok(Some(("cbv", slot)));
        }
    }
    for kind in ["rtv", "uav", "srv", "vb", "cbv", "so"] {
        let r = c.rest();
        if let Some(after) = r.strip_prefix(kind).and_then(|a| a.strip_prefix('-')) {
            let mut cc = Cursor::new(after);
            let slot = cc.u32()?;
            *c = cc;
            return Ok(Some((kind, slot)));
        }
        if c.eat_word(kind) {
            let slot = c.u32()?;
            return Ok(Some((kind, slot)));
        }
    }
    if c.eat_word("dsv") {
        return Ok(Some(("dsv", 0)));
    }
    if let Some(after) = c.rest().strip_prefix("dsv-") {
        let mut cc = Cursor::new(after);
        cc.u32()?;
        *c = cc;
        return Ok(Some(("dsv", 0)));
    }
    Ok(None)
}

fn kind_of(word: &str) -> Option<ResourceKind> {
    Some(match word {
        "rtv" => ResourceKind::Rtv,
        "uav" => ResourceKind::Uav,
        "srv" => ResourceKind::Srv,
        "vb" => ResourceKind::VertexBuffer,
        "so" => ResourceKind::StreamOutput,
        "dsv" => ResourceKind::Dsv,
        _ => return None,
    })
}

fn clear(c: &mut Cursor<'_>) -> Result<Directive, String> {
    let (word, slot) = resource_ref(c)?.ok_or("clear needs a resource")?;
    let kind = kind_of(word).ok_or_else(|| format!("cannot clear {word}"))?;
    let target = ResourceRef { kind, slot };
    let value = if c.peek().is_some_and(|ch| ch.is_ascii_alphabetic()) {
        match literal(c)? {
            Expected::F32(v) => {
                let mut out = [0.0; 4];
                for (o, x) in out.iter_mut().zip(v) {
                    *o = x;
                }
                out
            }
            _ => return Err("clear takes f32 values".into()),
        }
    } else {
        let mut out = [0.0f32; 4];
        let n = if kind == ResourceKind::Dsv { 1 } else { 4 };
        for o in out.iter_mut().take(n) {
            *o = c.f32()?;
        }
        out
    };
    Ok(Directive::Clear { target, value })
}

fn region_nums(c: &mut Cursor<'_>) -> Result<Vec<u32>, String> {
    c.expect_char('(')?;
    let mut n = vec![c.u32()?];
    while c.eat_char(',') {
        n.push(c.u32()?);
        if n.len() > 4 {
            return Err("a probe region has 1 to 4 numbers".into());
        }
    }
    c.expect_char(')')?;
    Ok(n)
}

fn region(c: &mut Cursor<'_>) -> Result<Region, String> {
    let n = region_nums(c)?;
    Ok(match n.as_slice() {
        [x] => Region::Point {
            x: *x,
            y: 0,
            layer: 0,
        },
        [x, y] => Region::Point {
            x: *x,
            y: *y,
            layer: 0,
        },
        [x, y, l] => Region::Point {
            x: *x,
            y: *y,
            layer: *l,
        },
        [l, t, r, b] => {
            if r < l || b < t {
                return Err(format!("empty probe rectangle ({l}, {t}, {r}, {b})"));
            }
            Region::Rect {
                left: *l,
                top: *t,
                right: *r,
                bottom: *b,
            }
        }
        _ => return Err("a probe region has 1 to 4 numbers".into()),
    })
}

fn probe(c: &mut Cursor<'_>) -> Result<Probe, String> {
    let mut target = ResourceRef {
        kind: ResourceKind::Rtv,
        slot: 0,
    };
    if let Some((word, slot)) = resource_ref(c)? {
        target = ResourceRef {
            kind: kind_of(word).ok_or_else(|| format!("cannot probe {word}"))?,
            slot,
        };
    }
    let region = if c.eat_word("all") {
        Region::All
    } else if c.eat_word("rect") {
        // Older syntax: `probe rect TYPE (x, y, w, h) (values)`.
        let kw = c.take_token(&['(']);
        let [x, y, w, h] = region_nums(c)?[..] else {
            return Err("probe rect needs (x, y, w, h)".into());
        };
        let rest = format!("{kw} {}", c.rest());
        let mut lc = Cursor::new(&rest);
        let expected = literal(&mut lc)?;
        let ulps = trailing_ulps(&mut lc)?;
        let region = Region::Rect {
            left: x,
            top: y,
            right: x.saturating_add(w),
            bottom: y.saturating_add(h),
        };
        return Ok(Probe {
            target,
            region,
            expected,
            ulps,
        });
    } else if c.peek() == Some('(') {
        region(c)?
    } else {
        // Older syntax: `probe TYPE (x, y) (values)`.
        let kw = c.take_token(&['(']);
        let r = region(c)?;
        let rest = format!("{kw} {}", c.rest());
        let mut lc = Cursor::new(&rest);
        let expected = literal(&mut lc)?;
        let ulps = trailing_ulps(&mut lc)?;
        return Ok(Probe {
            target,
            region: r,
            expected,
            ulps,
        });
    };
    let expected = literal(c)?;
    let ulps = trailing_ulps(c)?;
    if !c.is_empty() {
        return Err(format!("trailing text '{}'", c.rest()));
    }
    Ok(Probe {
        target,
        region,
        expected,
        ulps,
    })
}

/// The optional ULPS count after a probe's value; a stray `;` (which vkd3d's runner ignores
/// too) may follow the value or the count.
fn trailing_ulps(c: &mut Cursor<'_>) -> Result<u32, String> {
    let rest = c.rest();
    // A `#` starts a comment, as after `uniform` values.
    let rest = rest.split_once('#').map_or(rest, |(r, _)| r).trim();
    let rest = rest.strip_suffix(';').unwrap_or(rest).trim_end();
    let n = if rest.is_empty() {
        0
    } else {
        rest.parse::<u32>()
            .map_err(|_| format!("expected a ULPS count at '{rest}'"))?
    };
    *c = Cursor::new("");
    Ok(n)
}

/// A typed literal: `f32(1, 2)`, `rgba (1, 2, 3, 4)`, `rui(5)`, `u64(1)`, ...
fn literal(c: &mut Cursor<'_>) -> Result<Expected, String> {
    enum T {
        F32(Option<usize>),
        U32(Option<usize>),
        I32(Option<usize>),
        F64(Option<usize>),
        U64(Option<usize>),
        I64(Option<usize>),
    }
    let table: [(&str, T); 19] = [
        ("f32", T::F32(None)),
        ("u32", T::U32(None)),
        ("i32", T::I32(None)),
        ("f64", T::F64(None)),
        ("u64", T::U64(None)),
        ("i64", T::I64(None)),
        ("rgbaui", T::U32(Some(4))),
        ("rgbai", T::I32(Some(4))),
        ("rgba", T::F32(Some(4))),
        ("rgui64", T::U64(Some(2))),
        ("rgd", T::F64(Some(2))),
        ("rgb", T::F32(Some(3))),
        ("rg", T::F32(Some(2))),
        ("rui64", T::U64(Some(1))),
        ("ri64", T::I64(Some(1))),
        ("rui", T::U32(Some(1))),
        ("ri", T::I32(Some(1))),
        ("rd", T::F64(Some(1))),
        ("r", T::F32(Some(1))),
    ];
    let Some((_, ty)) = table.into_iter().find(|(w, _)| c.eat_word(w)) else {
        return Err(format!(
            "expected a typed value like f32(...) at '{}'",
            c.rest()
        ));
    };
    c.expect_char('(')?;
    let (count, exp) = match ty {
        T::F32(n) => (n, Expected::F32(list(c, |c| c.f32())?)),
        T::U32(n) => (n, Expected::U32(list(c, |c| c.u32())?)),
        T::I32(n) => (n, Expected::I32(list(c, |c| c.i32())?)),
        T::F64(n) => (n, Expected::F64(list(c, |c| c.f64())?)),
        T::U64(n) => (n, Expected::U64(list(c, |c| c.u64())?)),
        T::I64(n) => (n, Expected::I64(list(c, |c| c.u64().map(|v| v as i64))?)),
    };
    c.expect_char(')')?;
    if let Some(n) = count
        && exp.len() != n
    {
        return Err(format!("expected {n} values, got {}", exp.len()));
    }
    if exp.is_empty() || exp.len() > 4 {
        return Err(format!("a probe compares 1 to 4 values, got {}", exp.len()));
    }
    Ok(exp)
}

fn list<T>(
    c: &mut Cursor<'_>,
    mut f: impl FnMut(&mut Cursor<'_>) -> Result<T, String>,
) -> Result<Vec<T>, String> {
    let mut v = vec![f(c)?];
    while c.eat_char(',') {
        v.push(f(c)?);
        if v.len() > 4 {
            return Err("too many values".into());
        }
    }
    Ok(v)
}

fn literal_words(e: &Expected) -> Vec<u32> {
    let mut w = Vec::new();
    match e {
        Expected::F32(v) => w.extend(v.iter().map(|x| x.to_bits())),
        Expected::U32(v) => w.extend(v.iter().copied()),
        Expected::I32(v) => w.extend(v.iter().map(|x| *x as u32)),
        Expected::F64(v) => v.iter().for_each(|x| push64(&mut w, x.to_bits())),
        Expected::U64(v) => v.iter().for_each(|x| push64(&mut w, *x)),
        Expected::I64(v) => v.iter().for_each(|x| push64(&mut w, *x as u64)),
    }
    w
}

fn push64(w: &mut Vec<u32>, v: u64) {
    w.push(v as u32);
    w.push((v >> 32) as u32);
}

fn uniform(c: &mut Cursor<'_>) -> Result<Directive, String> {
    let offset = c.u32()?;
    if offset > 65536 {
        return Err(format!("uniform offset {offset} too large"));
    }
    let mut words = Vec::new();
    if c.eat_word("float4") {
        for _ in 0..4 {
            words.push(c.f32()?.to_bits());
        }
    } else if c.eat_word("float") {
        words.push(c.f32()?.to_bits());
    } else if c.eat_word("double2") {
        for _ in 0..2 {
            push64(&mut words, c.f64()?.to_bits());
        }
    } else if c.eat_word("int4") {
        for _ in 0..4 {
            words.push(c.i32()? as u32);
        }
    } else if c.eat_word("uint4") {
        for _ in 0..4 {
            words.push(c.u32()?);
        }
    } else if c.eat_word("int") {
        words.push(c.i32()? as u32);
    } else if c.eat_word("uint") {
        words.push(c.u32()?);
    } else if c.eat_word("int64_t2") || c.eat_word("uint64_t2") {
        for _ in 0..2 {
            push64(&mut words, c.u64()?);
        }
    } else {
        return Err(format!("unknown uniform type '{}'", c.rest()));
    }
    // More values than the type holds are ignored, as vkd3d's runner ignores them (it reads
    // the type's values with sscanf): only the type's values are written, and a later line is
    // read on its own. They must still be numbers.
    while !c.rest().trim().is_empty() && !c.rest().trim_start().starts_with('#') {
        c.f64()
            .map_err(|e| format!("after the uniform's values: {e}"))?;
    }
    // vkd3d's files note what a value stands for after a `#`.
    end_of_line(c)?;
    Ok(Directive::Uniform {
        cbuffer: 0,
        space: 0,
        offset,
        words,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::qualifier::{QualContext, ShaderModel};

    fn d(s: &str) -> Directive {
        test_line(1, s).unwrap().directive
    }

    #[test]
    fn probes_new_and_old() {
        let p = |s: &str| match d(s) {
            Directive::Probe(p) => p,
            other => panic!("{other:?}"),
        };
        // A stray `;` after the value or the count is ignored, as vkd3d's runner does.
        assert_eq!(p("probe all rgba (0.2, 0.1, 0.8, 0.5);").ulps, 0);
        assert_eq!(p("probe all rgba (0.2, 0.1, 0.8, 0.5) 4;").ulps, 4);
        assert!(test_line(1, "probe all rgba (0.2, 0.1, 0.8, 0.5) 4 x").is_err());
        let a = p("probe (0, 0) rgba (0.20, -0.10, 0.0075, -0.15) 1");
        assert_eq!(
            a.region,
            Region::Point {
                x: 0,
                y: 0,
                layer: 0
            }
        );
        assert_eq!(a.expected, Expected::F32(vec![0.2, -0.1, 0.0075, -0.15]));
        assert_eq!(a.ulps, 1);
        assert_eq!(
            a.target,
            ResourceRef {
                kind: ResourceKind::Rtv,
                slot: 0
            }
        );
        let b = p("probe uav 0 (1) rui(6)");
        assert_eq!(
            b.target,
            ResourceRef {
                kind: ResourceKind::Uav,
                slot: 0
            }
        );
        assert_eq!(b.expected, Expected::U32(vec![6]));
        let c = p("probe uav-2 (3, 4) u32(1, 2, 3, 4)");
        assert_eq!(c.target.slot, 2);
        assert_eq!(
            c.region,
            Region::Point {
                x: 3,
                y: 4,
                layer: 0
            }
        );
        let e = p("probe (  0, 0, 319, 480) rgba (0.9, 0.8, 0.7, 0.6)");
        assert_eq!(
            e.region,
            Region::Rect {
                left: 0,
                top: 0,
                right: 319,
                bottom: 480
            }
        );
        let f = p("probe all rgba (1.0, 2.0, 3.0, 4.0)");
        assert_eq!(f.region, Region::All);
        let g = p("probe rect rgba (0, 0, 320, 240) (1.0, 0.0, 0.0, 1.0) 2");
        assert_eq!(
            g.region,
            Region::Rect {
                left: 0,
                top: 0,
                right: 320,
                bottom: 240
            }
        );
        assert_eq!(g.ulps, 2);
        let h = p("probe (0, 0) rgbaui(0xffffffff, 0, 1, 2)");
        assert_eq!(h.expected, Expected::U32(vec![u32::MAX, 0, 1, 2]));
        let i = p("probe rtv 1 (1, 2) f32(1e99)");
        assert_eq!(i.expected, Expected::F32(vec![f32::INFINITY]));
        let j = p("probe (0, 0) ri (-3)");
        assert_eq!(j.expected, Expected::I32(vec![-3]));
        assert!(test_line(1, "probe (0, 0) rgba (1, 2, 3)").is_err());
        assert!(test_line(1, "probe (0, 0) zz(1)").is_err());
    }

    #[test]
    fn prefixes() {
        let t = test_line(7, "todo(sm<6) if(sm>=5) draw quad").unwrap();
        assert_eq!(t.line, 7);
        assert!(t.todo.is_some());
        assert_eq!(t.conditions.len(), 1);
        assert_eq!(t.directive, Directive::DrawQuad);
        struct C;
        impl QualContext for C {
            fn shader_model(&self) -> ShaderModel {
                ShaderModel::new(4, 0)
            }
            fn tag(&self, _: &str) -> Option<[u32; 3]> {
                None
            }
        }
        assert!(!t.conditions[0].holds(&C));
        assert!(t.todo.unwrap().holds(&C));
    }

    #[test]
    fn broken_lines_run_where_the_qualifier_does_not_hold() {
        struct Lavapipe;
        impl QualContext for Lavapipe {
            fn shader_model(&self) -> ShaderModel {
                ShaderModel::new(5, 0)
            }
            fn tag(&self, name: &str) -> Option<[u32; 3]> {
                (name == "llvmpipe").then_some([0; 3])
            }
        }
        struct Warp;
        impl QualContext for Warp {
            fn shader_model(&self) -> ShaderModel {
                ShaderModel::new(5, 0)
            }
            fn tag(&self, name: &str) -> Option<[u32; 3]> {
                (name == "warp").then_some([0; 3])
            }
        }
        let t = test_line(
            3,
            "bug(radv) broken(warp) probe uav 1 (0) rgbai (0, 0, 0, 0)",
        )
        .unwrap();
        assert_eq!(t.conditions.len(), 1);
        assert!(t.conditions[0].holds(&Lavapipe));
        assert!(!t.conditions[0].holds(&Warp));
        assert!(test_line(3, "broken draw quad").is_err());
    }

    #[test]
    fn other_directives() {
        assert_eq!(d("dispatch 1 2 3"), Directive::Dispatch([1, 2, 3]));
        assert_eq!(
            d("draw triangle strip 4"),
            Directive::Draw {
                topology: Topology::TriangleStrip,
                vertices: 4,
                instances: 1,
                start_vertex: 0,
                start_instance: 0,
            }
        );
        assert_eq!(
            d("draw triangle list 3 2 start vertex 6 start instance 3"),
            Directive::Draw {
                topology: Topology::TriangleList,
                vertices: 3,
                instances: 2,
                start_vertex: 6,
                start_instance: 3,
            }
        );
        assert_eq!(
            d("draw point list 4 start instance 1"),
            Directive::Draw {
                topology: Topology::PointList,
                vertices: 4,
                instances: 1,
                start_vertex: 0,
                start_instance: 1,
            }
        );
        assert!(test_line(1, "draw point list 4 start 1").is_err());
        assert_eq!(
            d("draw 3 control point patch list 3 2"),
            Directive::Draw {
                topology: Topology::PatchList(3),
                vertices: 3,
                instances: 2,
                start_vertex: 0,
                start_instance: 0,
            }
        );
        assert_eq!(
            d("uniform 4 float4 1.0 2.0 3.0 4.0"),
            Directive::Uniform {
                cbuffer: 0,
                space: 0,
                offset: 4,
                words: vec![
                    1f32.to_bits(),
                    2f32.to_bits(),
                    3f32.to_bits(),
                    4f32.to_bits()
                ]
            }
        );
        assert_eq!(
            d("uniform 1 uint 0x41804180"),
            Directive::Uniform {
                cbuffer: 0,
                space: 0,
                offset: 1,
                words: vec![0x4180_4180]
            }
        );
        assert_eq!(
            d("uniform 0 int -2"),
            Directive::Uniform {
                cbuffer: 0,
                space: 0,
                offset: 0,
                words: vec![(-2i32) as u32]
            }
        );
        match d("uniform 0 double2 1.0 2.0") {
            Directive::Uniform { words, .. } => assert_eq!(words.len(), 4),
            o => panic!("{o:?}"),
        }
        assert_eq!(
            d("clear rtv 0 1.0 0.5 0.0 1.0"),
            Directive::Clear {
                target: ResourceRef {
                    kind: ResourceKind::Rtv,
                    slot: 0
                },
                value: [1.0, 0.5, 0.0, 1.0]
            }
        );
        assert_eq!(
            d("write cbv-1 (4) f32(2.0)"),
            Directive::Uniform {
                cbuffer: 1,
                space: 0,
                offset: 4,
                words: vec![2f32.to_bits()]
            }
        );
        assert_eq!(
            d("write cbv-2 space 3 (0) u32(7)"),
            Directive::Uniform {
                cbuffer: 2,
                space: 3,
                offset: 0,
                words: vec![7]
            }
        );
        assert!(test_line(1, "write cbv-2 space (0) u32(7)").is_err());
        assert_eq!(
            d("write cbv-f32 (4) f32(2.0)"),
            Directive::Uniform {
                cbuffer: 0,
                space: 0,
                offset: 4,
                words: vec![2f32.to_bits()]
            }
        );
        assert!(matches!(
            d("write cbv-i32 (0) i32(1, 2, 3, 4)"),
            Directive::Uniform { cbuffer: 1, .. }
        ));
        assert!(matches!(d("sample mask 3"), Directive::SampleMask(3)));
        assert!(matches!(d("sample mask 0x09"), Directive::SampleMask(9)));
        assert!(test_line(1, "frobnicate").is_err());
        assert!(test_line(1, "dispatch 1 1").is_err());
        assert!(test_line(1, "uniform 0 float4 1 2 3").is_err());
        assert!(test_line(1, "uniform 0 int4 1 2 3 4 x").is_err());
    }

    #[test]
    fn class_instance_directive() {
        // Slot 2's record is words 16..24 of b15: this (cb, offset, texture, sampler), table.
        assert_eq!(
            d("class instance 2 table 5 cb 1 offset 3 texture 7 sampler 8"),
            Directive::Uniform {
                cbuffer: 15,
                space: 0,
                offset: 16,
                words: vec![1, 3, 7, 8, 5, 0, 0, 0]
            }
        );
        assert_eq!(
            d("class instance 0 offset 2 table 1"),
            Directive::Uniform {
                cbuffer: 15,
                space: 0,
                offset: 0,
                words: vec![0, 2, 0, 0, 1, 0, 0, 0]
            }
        );
        assert!(test_line(1, "class instance 0 cb 1").is_err());
        assert!(test_line(1, "class instance 253 table 0").is_err());
        assert!(test_line(1, "class instance 0 table 0 colour 3").is_err());
    }

    #[test]
    fn state_and_copy_directives() {
        assert_eq!(d("depth-bounds 0.3 0.6"), Directive::DepthBounds(0.3, 0.6));
        assert!(test_line(1, "depth-bounds 0.3").is_err());
        assert_eq!(
            d("viewport 2 (320.0, 0.0, 320.0, 240.0)"),
            Directive::Viewport {
                index: 2,
                rect: [320.0, 0.0, 320.0, 240.0]
            }
        );
        assert!(test_line(1, "viewport 16 (0, 0, 1, 1)").is_err());
        assert!(test_line(1, "viewport 0 (0, 0, 1)").is_err());
        let srv0 = ResourceRef {
            kind: ResourceKind::Srv,
            slot: 0,
        };
        let uav1 = ResourceRef {
            kind: ResourceKind::Uav,
            slot: 1,
        };
        let copy = Directive::Copy {
            src: srv0,
            dst: uav1,
        };
        assert_eq!(d("copy srv 0 uav 1"), copy);
        assert_eq!(d("copy srv-0 uav-1"), copy);
        assert!(d("copy rtv-0 dsv").is_check());
        assert!(test_line(1, "copy srv-0").is_err());
        // D3D9 state: parsed (malformed arguments are errors), no meaning here.
        for line in [
            "alpha test greater equal 0.5",
            "alpha test never",
            "shade mode flat",
            "clip-plane 3 disable",
            "clip-plane 0 1 0 0 -0.5",
            "point-size 2.0 1.0 64.0",
            "point-size 40.0",
            "point-sprite on",
            "fog linear ortho 0.1 0.9",
            "fog exp2 0.5",
            "fog disable",
            "fog-colour 0.1 0.2 0.3 0.4",
            "bump 1 f32(1, 0, 0, 1) 2.0 0.5",
            "projected 2 enable",
            "denorm any",
        ] {
            assert!(
                matches!(
                    d(line),
                    Directive::NoMeaning(_) | Directive::FixedFunction { .. }
                ),
                "{line}: {:?}",
                test_line(1, line)
            );
        }
        for line in [
            "fog sideways",
            "clip-plane 8 disable",
            "denorm sometimes",
            "point-size",
            "point-size 1 2 3 4",
        ] {
            assert!(test_line(1, line).is_err(), "{line}");
        }
    }

    #[test]
    fn uniform_comments_and_hex_floats() {
        let words = |s: &str| match d(s) {
            Directive::Uniform { words, .. } => words,
            o => panic!("{o:?}"),
        };
        assert_eq!(
            words("uniform 0 float4 1.0 2.0 3.0 4.0 # the colour"),
            [1.0f32, 2.0, 3.0, 4.0].map(f32::to_bits)
        );
        assert_eq!(words("uniform 0 uint 5 #five"), [5]);
        // strtof reads C99 hex floats as values.
        assert_eq!(words("uniform 0 float 0x1p-2"), [0.25f32.to_bits()]);
        assert_eq!(
            words("uniform 0 float 0x80000000"),
            [2147483648f32.to_bits()]
        );
        assert_eq!(words("uniform 0 float -0x1.8p1"), [(-3.0f32).to_bits()]);
        assert_eq!(words("uniform 0 float 0xf"), [15.0f32.to_bits()]);
        // Extra values are ignored, as vkd3d's runner does; only the type's are written.
        assert_eq!(words("uniform 0 float 1.0 2.0"), [1.0f32.to_bits()]);
        assert_eq!(
            words("uniform 0 float4 1 2 3 4 5 6 # a note"),
            [1.0f32, 2.0, 3.0, 4.0].map(f32::to_bits)
        );
        assert_eq!(words("uniform 0 uint 5 0x10 7"), [5]);
        assert!(test_line(1, "uniform 0 float 1.0 draw").is_err());
        assert!(test_line(1, "uniform 0 float 0xg").is_err());
        let p = match d("probe (0, 0) f32(1, 2, 3, 4) 2 # two ulps") {
            Directive::Probe(p) => p,
            o => panic!("{o:?}"),
        };
        assert_eq!(p.ulps, 2);
    }
}
