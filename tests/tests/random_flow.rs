//! Random control flow: programs with randomly nested `if`/`else`, `loop` (with `break`,
//! `breakc`, `continue`, `continuec`), `switch` (with fall-through between cases, shared case
//! labels, `default` anywhere), `ret`/`retc`, `discard` and subroutine calls are assembled,
//! translated and checked with `spirv-val`. D3D's structured flow allows all of these in any
//! combination; SPIR-V's structured rules are stricter, so this exercises the structurizer far
//! beyond what compilers emit. Deterministic (seeded); skips when spirv-val is absent.

use std::fmt::Write;

use integration_tests::{spirv_val, spirv_val_or_skip};

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

struct Gen {
    rng: Rng,
    out: String,
    depth: usize,
    /// Innermost-first kinds of the enclosing breakable constructs: true = loop.
    breakable: Vec<bool>,
    budget: usize,
    labels: usize,
}

impl Gen {
    fn line(&mut self, s: &str) {
        for _ in 0..self.depth {
            self.out.push_str("  ");
        }
        self.out.push_str(s);
        self.out.push('\n');
    }

    fn cond(&mut self) -> String {
        let r = self.rng.below(3);
        format!(
            "r{}.{}",
            r,
            ["x", "y", "z", "w"][self.rng.below(4) as usize]
        )
    }

    fn arith(&mut self) {
        let d = self.rng.below(3);
        let a = self.rng.below(3);
        let k = self.rng.below(7) + 1;
        match self.rng.below(3) {
            0 => self.line(&format!("iadd r{d}.x, r{a}.x, l({k})")),
            1 => self.line(&format!("ult r{d}.y, r{a}.x, l({k})")),
            _ => self.line(&format!("xor r{d}.z, r{a}.z, l({k})")),
        }
    }

    fn in_loop(&self) -> bool {
        self.breakable.contains(&true)
    }

    fn block(&mut self, n: usize) {
        for _ in 0..n {
            if self.budget == 0 {
                return;
            }
            self.budget -= 1;
            self.stmt();
        }
    }

    fn stmt(&mut self) {
        let deep = self.depth >= 5;
        match self.rng.below(14) {
            0..=2 => self.arith(),
            3 if !deep => {
                let c = self.cond();
                let z = if self.rng.chance(50) { "nz" } else { "z" };
                self.line(&format!("if_{z} {c}"));
                self.depth += 1;
                let n = self.rng.below(3) as usize;
                self.block(n);
                self.depth -= 1;
                if self.rng.chance(50) {
                    self.line("else");
                    self.depth += 1;
                    let n = self.rng.below(3) as usize;
                    self.block(n);
                    self.depth -= 1;
                }
                self.line("endif");
            }
            4 if !deep => {
                // Loops always have an exit, so that they terminate when run.
                self.line("loop");
                self.depth += 1;
                self.breakable.push(true);
                self.line("iadd r3.x, r3.x, l(1)");
                self.line("uge r3.y, r3.x, l(8)");
                self.line("breakc_nz r3.y");
                let n = self.rng.below(4) as usize;
                self.block(n);
                self.breakable.pop();
                self.depth -= 1;
                self.line("endloop");
            }
            5 if !deep => {
                let c = self.cond();
                self.line(&format!("switch {c}"));
                self.depth += 1;
                self.breakable.push(false);
                let cases = 1 + self.rng.below(4);
                let default_at = self.rng.below(cases + 1);
                let mut value = 0;
                for i in 0..=cases {
                    if i == default_at {
                        self.line("default");
                    } else {
                        value += 1 + self.rng.below(2);
                        self.line(&format!("case l({value})"));
                    }
                    // Shared labels: no code before the next label.
                    if self.rng.chance(20) && i < cases {
                        continue;
                    }
                    self.depth += 1;
                    let n = self.rng.below(3) as usize;
                    self.block(n);
                    // Mostly break; sometimes fall through (not from the last case).
                    if i == cases || self.rng.chance(75) {
                        self.line("break");
                    }
                    self.depth -= 1;
                }
                self.breakable.pop();
                self.depth -= 1;
                self.line("endswitch");
            }
            6 if !self.breakable.is_empty() => {
                let c = self.cond();
                self.line(&format!("breakc_nz {c}"));
            }
            7 if self.in_loop() && self.breakable.last() == Some(&true) => {
                let c = self.cond();
                self.line(&format!("continuec_z {c}"));
            }
            8 if self.in_loop() && self.rng.chance(30) => self.line("continue"),
            9 => {
                let c = self.cond();
                self.line(&format!("retc_nz {c}"));
            }
            10 if self.rng.chance(20) => self.line("ret"),
            11 => {
                let c = self.cond();
                self.line(&format!("discard_nz {c}"));
            }
            12 if self.labels < 2 && self.rng.chance(40) => {
                let c = self.cond();
                let l = self.labels;
                self.labels += 1;
                self.line(&format!("callc_nz {c}, label{l}"));
            }
            _ => self.arith(),
        }
    }
}

fn program(seed: u64) -> String {
    let mut g = Gen {
        rng: Rng(seed),
        out: String::new(),
        depth: 0,
        breakable: Vec::new(),
        budget: 30,
        labels: 0,
    };
    let head = "ps_5_0\n.input SV_Position 0 v0 float POS\n.output SV_Target 0 o0 uint\n\
                dcl_input_ps_siv linear noperspective v0.xy, position\ndcl_output o0.xyzw\ndcl_temps 4\n\
                ftou r0.xyzw, v0.xyxy\nmov r1.xyzw, l(1, 2, 3, 4)\nmov r2.xyzw, r0.yxwz\nmov r3.xyzw, l(0, 0, 0, 0)\n";
    g.out.push_str(head);
    g.block(12);
    g.line("mov o0.xyzw, r1.xyzw");
    g.line("ret");
    let labels = g.labels;
    for l in 0..labels {
        g.line(&format!("label label{l}"));
        g.breakable.clear();
        g.budget = 6;
        g.labels = 2; // no calls from subroutines
        g.block(4);
        g.line("ret");
    }
    g.out
}

#[test]
fn random_structured_flow_translates_to_valid_spirv() {
    if !spirv_val_or_skip() {
        return;
    }
    let dir = integration_tests::repo_root().join("target/random-flow");
    std::fs::create_dir_all(&dir).unwrap();
    let mut failures = Vec::new();
    let mut translated = 0;
    let cases = 500u64;
    for seed in 1..=cases {
        let text = program(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
        let dxbc = match translator::asm::assemble(&text) {
            Ok(d) => d,
            Err(e) => panic!("seed {seed}: the generated program does not assemble: {e}\n{text}"),
        };
        match translator::translate(&dxbc, &translator::Options::default()) {
            Ok(t) => {
                translated += 1;
                let spv = dir.join(format!("flow-{seed}.spv"));
                std::fs::write(
                    &spv,
                    t.spirv
                        .iter()
                        .flat_map(|w| w.to_le_bytes())
                        .collect::<Vec<u8>>(),
                )
                .unwrap();
                if let Err(e) = spirv_val(&spv, "vulkan1.3") {
                    let asm = dir.join(format!("flow-{seed}.asm"));
                    std::fs::write(&asm, &text).unwrap();
                    failures.push(format!(
                        "seed {seed} ({}): {}",
                        asm.display(),
                        e.lines().next().unwrap_or("")
                    ));
                }
            }
            Err(e) => {
                let asm = dir.join(format!("flow-{seed}.asm"));
                std::fs::write(&asm, &text).unwrap();
                let mut s = String::new();
                let _ = write!(s, "seed {seed} ({}): {e}", asm.display());
                failures.push(s);
            }
        }
    }
    println!("{translated}/{cases} random programs translated and validated");
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
