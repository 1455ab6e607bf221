//! Comparing the outputs of the two sides: integers exactly, floats within the tolerance the
//! analysis derives for each output ([`super::tolerance`]); NaN equals NaN (D3D keeps no NaN
//! payload), denormals equal zero (D3D flushes them in arithmetic, and a move may keep them:
//! either result is allowed), +0 equals -0.

use super::order::Order;
use super::outputs::Output;
use super::shader::ScalarKind;
use super::tolerance::{Analysis, Tol};
use serde::Serialize;

/// The first difference found.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Difference {
    pub output: String,
    /// Element index and its description ("pixel (3, 5)").
    pub element: usize,
    pub location: String,
    pub component: u32,
    pub ours: u32,
    pub theirs: u32,
    /// The value as text, by the component's type ("0.25 (0x3e800000)").
    pub ours_text: String,
    pub theirs_text: String,
    pub tolerance: String,
    /// Structural mismatch (an output on one side only, different sizes), or empty.
    pub note: String,
}

/// Why two floats differ beyond `tol`, or None when they agree.
pub fn float_differs(a: u32, b: u32, tol: Tol) -> bool {
    let (fa, fb) = (f32::from_bits(a), f32::from_bits(b));
    if fa.is_nan() || fb.is_nan() {
        return fa.is_nan() != fb.is_nan();
    }
    let flush = |f: f32| if f.is_subnormal() { 0.0 } else { f };
    let (fa, fb) = (flush(fa), flush(fb));
    if fa == fb {
        return false;
    }
    if tol.is_exact() || fa.is_infinite() || fb.is_infinite() {
        return true;
    }
    let (da, db) = (f64::from(fa), f64::from(fb));
    let scale = da.abs().max(db.abs()).max(1.0) as f32;
    (da - db).abs() > tol.ulps * f64::from(ulp(scale)) + tol.abs
}

/// The spacing of f32 values at `x` (finite, positive).
pub fn ulp(x: f32) -> f32 {
    let e = ((x.to_bits() >> 23) & 0xff) as i32;
    f32::from_bits(((e - 23).max(1) as u32) << 23).max(f32::from_bits(1))
}

fn text(kind: ScalarKind, v: u32) -> String {
    match kind {
        ScalarKind::F32 => format!("{:?} ({v:#010x})", f32::from_bits(v)),
        ScalarKind::U32 => format!("{v} ({v:#x})"),
        ScalarKind::I32 => format!("{} ({v:#x})", v as i32),
    }
}

fn describe(t: Tol) -> String {
    match (t.ulps, t.abs) {
        (u, a) if u == 0.0 && a == 0.0 => "exact".into(),
        (u, 0.0) => format!("{u} ulp"),
        (0.0, a) => format!("{a:e} absolute"),
        (u, a) => format!("{u} ulp + {a:e}"),
    }
}

fn structural(output: &str, note: String) -> Difference {
    Difference {
        output: output.to_string(),
        element: 0,
        location: String::new(),
        component: 0,
        ours: 0,
        theirs: 0,
        ours_text: String::new(),
        theirs_text: String::new(),
        tolerance: String::new(),
        note,
    }
}

/// The records of `data` (`words` each) in sorted order.
fn sorted_records(data: &[u32], words: u32) -> Vec<u32> {
    let mut recs: Vec<&[u32]> = data.chunks(words.max(1) as usize).collect();
    recs.sort_unstable();
    recs.concat()
}

/// What comparing one shader's outputs found.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Compared {
    /// The first difference, or None when every compared value agrees.
    pub difference: Option<Difference>,
    /// How many values were compared.
    pub values: usize,
    /// Outputs (with their components where only some are) not compared because their
    /// values depend on the order threads run in ([`super::order`]).
    pub not_compared: Vec<Excluded>,
}

/// An output left out of the comparison, and why.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Excluded {
    /// `u0`, `SV_TARGET0`, or `SV_TARGET0.x` where only some written components are.
    pub output: String,
    /// How many elements of a UAV, where not all are (the others are compared).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub elements: Option<usize>,
    pub why: String,
}

/// The outputs of `ours` that `order` leaves out.
fn not_compared(ours: &[Output], order: &Order) -> Vec<Excluded> {
    let mut v = Vec::new();
    for o in ours {
        let written = (0..o.comps.clamp(1, 32)).filter(|c| o.mask & (1 << c) != 0);
        let skipped: Vec<(u32, String)> = written
            .clone()
            .filter_map(|c| Some((c, order.why(&o.source, c)?)))
            .collect();
        let Some((_, why)) = skipped.first() else {
            continue;
        };
        let output = if skipped.len() == written.count() {
            o.name.clone()
        } else {
            let comps: String = skipped
                .iter()
                .map(|(c, _)| {
                    ['x', 'y', 'z', 'w']
                        .get(*c as usize)
                        .copied()
                        .unwrap_or('?')
                })
                .collect();
            format!("{}.{comps}", o.name)
        };
        let n = o.elements();
        let skipped_elements = (0..n).filter(|e| order.skips(o, *e, 0)).count();
        if skipped_elements == 0 {
            continue;
        }
        v.push(Excluded {
            output,
            elements: (skipped_elements < n).then_some(skipped_elements),
            why: why.clone(),
        });
    }
    v
}

/// Compares our outputs with theirs: every component except those `order` finds depend on
/// the order threads run in.
pub fn compare(ours: &[Output], theirs: &[Output], a: &Analysis, order: &Order) -> Compared {
    let (difference, values) = first_difference(ours, theirs, a, order);
    Compared {
        difference,
        values,
        not_compared: not_compared(ours, order),
    }
}

/// The first difference between our outputs and theirs, and how many values were compared.
fn first_difference(
    ours: &[Output],
    theirs: &[Output],
    a: &Analysis,
    order: &Order,
) -> (Option<Difference>, usize) {
    let mut compared = 0;
    for o in ours {
        let Some(t) = theirs.iter().find(|t| t.name == o.name) else {
            return (
                Some(structural(
                    &o.name,
                    format!("{} is an output of ours only", o.name),
                )),
                compared,
            );
        };
        if t.elements() != o.elements() {
            return (
                Some(structural(
                    &o.name,
                    format!(
                        "{}: ours has {} elements, theirs {}",
                        o.name,
                        o.elements(),
                        t.elements()
                    ),
                )),
                compared,
            );
        }
        let (od, td);
        let (o_data, t_data) = match o.unordered {
            Some(r) => {
                od = sorted_records(&o.data, r);
                td = sorted_records(&t.data, r);
                (&od, &td)
            }
            None => (&o.data, &t.data),
        };
        let (oc, tc) = (o.comps.max(1) as usize, t.comps.max(1) as usize);
        let comps = oc.max(tc);
        let tols: Vec<Tol> = (0..comps)
            .map(|c| a.tolerance(&o.source, c as u32))
            .collect();
        for e in 0..o.elements() {
            for c in 0..comps {
                if c >= 32 || o.mask & (1 << c) == 0 || order.skips(o, e, c as u32) {
                    continue;
                }
                let (Some(x), Some(y)) = (
                    (c < oc).then(|| o_data[e * oc + c]),
                    (c < tc).then(|| t_data[e * tc + c]),
                ) else {
                    return (
                        Some(structural(
                            &o.name,
                            format!(
                                "{}: component {c} is written but ours has {oc} components, theirs {tc}",
                                o.name
                            ),
                        )),
                        compared,
                    );
                };
                compared += 1;
                let kind = o.kinds.get(c).copied().unwrap_or(ScalarKind::U32);
                let tol = tols[c];
                let float = kind == ScalarKind::F32 || !tol.is_exact();
                let differs = x != y && (!float || float_differs(x, y, tol));
                if differs {
                    let shown = if float { ScalarKind::F32 } else { kind };
                    return (
                        Some(Difference {
                            output: o.name.clone(),
                            element: e,
                            location: o.location(e),
                            component: c as u32,
                            ours: x,
                            theirs: y,
                            ours_text: text(shown, x),
                            theirs_text: text(shown, y),
                            tolerance: describe(tol),
                            note: if o.unordered.is_some() {
                                "records compared in sorted order".into()
                            } else {
                                String::new()
                            },
                        }),
                        compared,
                    );
                }
            }
        }
    }
    if let Some(t) = theirs
        .iter()
        .find(|t| !ours.iter().any(|o| o.name == t.name))
    {
        return (
            Some(structural(
                &t.name,
                format!("{} is an output of theirs only", t.name),
            )),
            compared,
        );
    }
    (None, compared)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn next(f: f32, n: u32) -> u32 {
        f.to_bits() + n
    }

    #[test]
    fn an_add_two_ulps_off_is_caught() {
        // One add: 1 ULP allowed between two conforming implementations.
        let add = Tol::ulps(1.0);
        let x = 1.5f32;
        assert!(
            !float_differs(x.to_bits(), next(x, 1), add),
            "1 ulp is within"
        );
        assert!(
            float_differs(x.to_bits(), next(x, 2), add),
            "2 ulps are caught"
        );
        let big = 12345.678f32;
        assert!(float_differs(big.to_bits(), next(big, 2), add));
        assert!(!float_differs(big.to_bits(), next(big, 1), add));
        // Exact means bit-exact, except the allowances.
        assert!(float_differs(x.to_bits(), next(x, 1), Tol::EXACT));
        assert!(!float_differs(f32::NAN.to_bits(), 0x7fc0_0001, Tol::EXACT));
        assert!(float_differs(f32::NAN.to_bits(), 0, add));
        assert!(!float_differs(1, 0, Tol::EXACT), "a denormal equals zero");
        assert!(!float_differs((-0.0f32).to_bits(), 0, Tol::EXACT));
        assert!(float_differs(
            f32::INFINITY.to_bits(),
            f32::MAX.to_bits(),
            Tol::ulps(4.0)
        ));
    }

    /// The whole path: a pixel shader whose output is one add gets 1 ULP from the slice, so
    /// outputs 2 ULP apart differ and 1 ULP apart agree.
    #[test]
    fn an_add_in_a_shader_two_ulps_off_differs() {
        use super::super::outputs::{Source, Unit};
        let bytes = translator::asm::assemble(
            "ps_5_0\n.input TEXCOORD 0 v1.xyzw float\n.output SV_Target 0 o0.xyzw float\n\
             dcl_input_ps linear v1.xyzw\ndcl_output o0.xyzw\n\
             add o0.xyzw, v1.xyzw, v1.yxwz\nret\n",
        )
        .expect("assembles");
        let shader = super::super::shader::load(bytes).expect("loads");
        let analysis = Analysis::of(&shader);
        assert_eq!(analysis.tolerance(&Source::Register(0), 0), Tol::ulps(1.0));
        let out = |v: f32| Output {
            name: "SV_TARGET0".into(),
            source: Source::Register(0),
            unit: Unit::Pixel { width: 1 },
            comps: 4,
            kinds: vec![ScalarKind::F32; 4],
            mask: 0xf,
            data: vec![v.to_bits(), 0, 0, 0],
            unordered: None,
        };
        let x = 3.25f32;
        let two_off = f32::from_bits(x.to_bits() + 2);
        let one_off = f32::from_bits(x.to_bits() + 1);
        let none = Order::none();
        let d = compare(&[out(x)], &[out(two_off)], &analysis, &none).difference;
        let d = d.expect("2 ulp after one add is a difference");
        assert_eq!(
            (d.output.as_str(), d.component, d.tolerance.as_str()),
            ("SV_TARGET0", 0, "1 ulp")
        );
        assert_eq!(
            compare(&[out(x)], &[out(one_off)], &analysis, &none).difference,
            None
        );
    }

    #[test]
    fn ulps_are_counted_at_magnitude_one_at_least() {
        assert_eq!(ulp(1.0), f32::EPSILON);
        assert_eq!(ulp(1.5), f32::EPSILON);
        assert_eq!(ulp(2.0), 2.0 * f32::EPSILON);
        // Near zero (after a cancellation) the operands' scale counts.
        assert!(!float_differs(1e-7f32.to_bits(), 0, Tol::ulps(1.0)));
        assert!(float_differs(3e-7f32.to_bits(), 0, Tol::ulps(1.0)));
    }
}
