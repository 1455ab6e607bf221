//! Where a translation's time goes, stage by stage: a profiling aid behind
//! `dxbc bench --stages`.
//!
//! `tools/bench.sh` times each shader between the other shaders of a set, where a translation
//! starts with the caches and branch predictors full of other work and takes about twice as
//! long as when one shader is translated over and over. Callgrind counts instructions and
//! `tools/footprint.sh` code lines, but neither says which stage pays for that. This module
//! reads the clock at each stage boundary of the translations it is switched on for
//! ([`enable`], per thread) and adds the time since the last reading to the stage that ended;
//! [`take`] hands the sums out. It exists only in builds with the `stage-times` feature: without
//! it every function here is an empty one and a translation reads no clock.

/// The stages of a translation, in the order they run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// The container's chunks and the program's decoding (a D3D9 token stream's too).
    Parse,
    /// Signatures and the SM4 rule check (and `rules::relax` where it runs).
    Rules,
    /// The module and builder made ready for a program.
    LowerSetup,
    /// Declarations, and the interface globals they imply.
    LowerDeclarations,
    /// The program's instructions (a hull shader's phases; a D3D9 program's whole lowering).
    LowerBody,
    /// SSA finished, reflection lists filled.
    LowerFinish,
    /// The passes, one stage each.
    Structurize,
    Simplify,
    Cse,
    Dce,
    /// A pass not named above.
    OtherPass,
    /// D3D9 state code and the 16-bit narrowing, where they run.
    Late,
    /// The SPIR-V words and the reflection brought in line with them.
    Emit,
}

/// Every stage, in [`Stage`]'s order (an index into [`take`]'s sums).
pub const STAGES: [Stage; 13] = [
    Stage::Parse,
    Stage::Rules,
    Stage::LowerSetup,
    Stage::LowerDeclarations,
    Stage::LowerBody,
    Stage::LowerFinish,
    Stage::Structurize,
    Stage::Simplify,
    Stage::Cse,
    Stage::Dce,
    Stage::OtherPass,
    Stage::Late,
    Stage::Emit,
];

impl Stage {
    /// A short name for tables.
    pub fn name(self) -> &'static str {
        match self {
            Stage::Parse => "parse",
            Stage::Rules => "rules",
            Stage::LowerSetup => "lower-setup",
            Stage::LowerDeclarations => "lower-decls",
            Stage::LowerBody => "lower-body",
            Stage::LowerFinish => "lower-finish",
            Stage::Structurize => "structurize",
            Stage::Simplify => "simplify",
            Stage::Cse => "cse",
            Stage::Dce => "dce",
            Stage::OtherPass => "other-pass",
            Stage::Late => "late",
            Stage::Emit => "emit",
        }
    }

    /// The stage of pass `name` (of `passes::PIPELINE`).
    pub(crate) fn of_pass(name: &str) -> Stage {
        match name {
            "structurize" => Stage::Structurize,
            "simplify" => Stage::Simplify,
            "cse" => Stage::Cse,
            "dce" => Stage::Dce,
            _ => Stage::OtherPass,
        }
    }
}

/// Whether this build times stages (the `stage-times` feature).
pub const AVAILABLE: bool = cfg!(feature = "stage-times");

#[cfg(feature = "stage-times")]
mod clock {
    use std::cell::Cell;
    use std::time::Instant;

    thread_local! {
        pub(super) static ON: Cell<bool> = const { Cell::new(false) };
        pub(super) static LAST: Cell<Option<Instant>> = const { Cell::new(None) };
        pub(super) static SUMS: [Cell<f64>; super::STAGES.len()] =
            const { [const { Cell::new(0.0) }; super::STAGES.len()] };
    }
}

/// Times the translations this thread starts from now on (`true`), or stops (`false`).
pub fn enable(on: bool) {
    #[cfg(feature = "stage-times")]
    clock::ON.with(|o| o.set(on));
    #[cfg(not(feature = "stage-times"))]
    let _ = on;
}

/// A translation starts.
#[inline]
pub(crate) fn start() {
    #[cfg(feature = "stage-times")]
    if clock::ON.with(|o| o.get()) {
        clock::LAST.with(|l| l.set(Some(std::time::Instant::now())));
    }
}

/// `stage` ends: the time since the last reading is its.
#[inline]
pub(crate) fn end(stage: Stage) {
    #[cfg(feature = "stage-times")]
    if clock::ON.with(|o| o.get()) {
        let now = std::time::Instant::now();
        if let Some(last) = clock::LAST.with(|l| l.replace(Some(now))) {
            let i = stage as usize;
            clock::SUMS.with(|s| s[i].set(s[i].get() + (now - last).as_secs_f64()));
        }
    }
    #[cfg(not(feature = "stage-times"))]
    let _ = stage;
}

/// The seconds each stage (indexed as [`STAGES`]) took on this thread since the last `take`;
/// the sums start again from zero. All zero in a build without the feature.
pub fn take() -> [f64; STAGES.len()] {
    #[cfg(feature = "stage-times")]
    {
        clock::LAST.with(|l| l.set(None));
        clock::SUMS.with(|s| std::array::from_fn(|i| s[i].replace(0.0)))
    }
    #[cfg(not(feature = "stage-times"))]
    [0.0; STAGES.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stages_are_listed_in_their_order_with_distinct_names() {
        for (i, s) in STAGES.iter().enumerate() {
            assert_eq!(*s as usize, i, "{s:?}");
        }
        let mut names: Vec<_> = STAGES.iter().map(|s| s.name()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), STAGES.len());
        assert_eq!(Stage::of_pass("cse"), Stage::Cse);
        assert_eq!(Stage::of_pass("min16"), Stage::OtherPass);
    }

    /// A translation timed while enabled gives each stage it runs a time (and only with the
    /// feature); one not enabled adds nothing.
    #[test]
    fn a_timed_translation_fills_the_stages_it_runs() {
        let dxbc = crate::asm::assemble(
            "ps_5_0\ndcl_input_ps linear v0.x\ndcl_output o0.xyzw\ndcl_temps 1\n\
             lt r0.x, v0.x, l(0.5)\nif_nz r0.x\nmov o0.xyzw, l(1.0, 0, 0, 1.0)\nelse\n\
             mov o0.xyzw, l(0, 1.0, 0, 1.0)\nendif\nret\n",
        )
        .expect("assembles");
        let _ = take();
        enable(true);
        crate::translate(&dxbc, &crate::Options::default()).expect("translates");
        enable(false);
        let t = take();
        if !AVAILABLE {
            assert!(t.iter().all(|&x| x == 0.0));
            return;
        }
        for s in [
            Stage::Parse,
            Stage::Rules,
            Stage::LowerBody,
            Stage::Structurize,
            Stage::Emit,
        ] {
            assert!(t[s as usize] > 0.0, "{s:?} not timed: {t:?}");
        }
        crate::translate(&dxbc, &crate::Options::default()).expect("translates");
        assert!(take().iter().all(|&x| x == 0.0), "timed while not enabled");
    }
}
