//! Each D3D9 rule (`rules::d3d9::D3d9Rule`, `docs/rules.md`): a program that breaks it is
//! refused naming the rule, and the nearest legal program — the edge the rule must not cross —
//! translates, so that no rule is stricter than the runtime.

use crate::d3dbc;
use crate::rules::d3d9::D3d9Rule;

fn translate(src: &str) -> Result<crate::Translation, crate::Error> {
    let bytes = d3dbc::asm::assemble(src).unwrap_or_else(|e| panic!("{e}\n{src}"));
    let mut o = crate::Options::default();
    o.d3d9.state = crate::d3d9_state::StateOptions::none();
    crate::translate(&bytes, &o)
}

/// `bad` is refused naming `rule`, `good` translates.
fn pair(rule: D3d9Rule, bad: &str, good: &str) {
    match translate(bad) {
        Err(e) => assert_eq!(e.rule(), Some(rule.name()), "{e}\n{bad}"),
        Ok(_) => panic!("accepted, expected rule {}:\n{bad}", rule.name()),
    }
    if let Err(e) = translate(good) {
        panic!("refused ({e}), expected to translate:\n{good}");
    }
}

#[test]
fn every_rule_has_its_edge_case() {
    use D3d9Rule as R;
    let cases: &[(R, &str, &str)] = &[
        (
            R::OpcodeInVersion,
            "vs_1_1\ndcl_position v0\nmova a0.x, v0.x\nmov oPos, v0\n",
            "vs_2_0\ndcl_position v0\nmova a0.x, v0.x\nmov oPos, v0\n",
        ),
        (
            R::ConstantRegisterRange,
            "ps_2_0\nmov oC0, c32\n",
            "ps_2_0\nmov oC0, c31\n",
        ),
        (
            R::RegisterWritable,
            "ps_1_1\nmov oC0, v0\n",
            "ps_1_1\nmov r0, v0\n",
        ),
        (
            R::RegisterReadable,
            "vs_1_1\ndcl_position v0\nmov r0, oD0\nmov oPos, v0\n",
            "vs_1_1\ndcl_position v0\nmov r0, v0\nmov oPos, r0\n",
        ),
        (
            R::InputDeclared,
            "ps_3_0\nmov oC0, v0\n",
            "ps_3_0\ndcl_color0 v0\nmov oC0, v0\n",
        ),
        (
            R::OutputDeclared,
            "vs_3_0\ndcl_position v0\nmov o0, v0\n",
            "vs_3_0\ndcl_position v0\ndcl_position o0\nmov o0, v0\n",
        ),
        (
            R::RelativeAddressing,
            "vs_2_0\ndcl_position v0\nmova a0.x, v0.x\nmov r1, v0\nmov r0, r[a0.x + 1]\nmov oPos, r0\n",
            "vs_2_0\ndcl_position v0\nmova a0.x, v0.x\nmov r0, c[a0.x]\nmov oPos, r0\n",
        ),
        (
            R::ResultShift,
            "ps_2_0\ndcl v0\nmul_x2 r0, v0, v0\nmov oC0, r0\n",
            "ps_1_1\nmul_x2 r0, v0, v0\n",
        ),
        (
            R::SourceModifier,
            "vs_2_x\ndcl_position v0\nmov r0, !c0\nmov oPos, v0\n",
            "vs_2_x\ndcl_position v0\nif !b0\nmov r0, c0\nendif\nmov oPos, v0\n",
        ),
        (
            R::Mova,
            "vs_2_0\ndcl_position v0\nmov a0.x, v0.x\nmov oPos, c[a0.x]\n",
            "vs_1_1\ndcl_position v0\nmov a0.x, v0.x\nmov oPos, c[a0.x]\n",
        ),
        (
            R::TextureDestination,
            "ps_1_1\ntex r1\nmov r0, r1\n",
            "ps_1_1\ntex t1\nmov r0, t1\n",
        ),
        (
            R::BemMask,
            "ps_1_4\ntexld r1, t1\ntexld r2, t2\nbem r3, r1, r2\nphase\ntexld r3, r3\nmov r0, r3\n",
            "ps_1_4\ntexld r1, t1\ntexld r2, t2\nbem r3.xy, r1, r2\nphase\ntexld r3, r3\nmov r0, r3\n",
        ),
        (
            R::TexmSequence,
            "ps_1_1\ntex t0\ntexm3x2tex t2, t0\nmov r0, t2\n",
            "ps_1_1\ntex t0\ntexm3x2pad t1, t0\ntexm3x2tex t2, t0\nmov r0, t2\n",
        ),
    ];
    for &(rule, bad, good) in cases {
        pair(rule, bad, good);
    }
    // Every rule of the table is covered.
    for r in D3d9Rule::ALL {
        assert!(cases.iter().any(|c| c.0 == r), "no case for {}", r.name());
    }
}
