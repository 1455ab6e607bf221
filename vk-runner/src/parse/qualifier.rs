//! Shader models and the `(...)` qualifier expressions of `todo(...)`, `if(...)`, `fail(...)`.
//!
//! A qualifier is an OR (`|`) of ANDs (`&`) of atoms: `sm>=5.0`, `sm<6`, or a runner tag such as
//! `vulkan`, `llvmpipe`, `!msl` or `mesa<23.3`. Qualifiers are kept parsed but unevaluated,
//! because the same line is evaluated for whichever shader model a `[test]` block runs at.

use super::cursor::Cursor;
use std::fmt;

/// A shader model, ordered (`4.0 < 4.1 < 5.0 < 5.1 < 6.0`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ShaderModel {
    pub major: u8,
    pub minor: u8,
}

impl ShaderModel {
    pub const fn new(major: u8, minor: u8) -> Self {
        ShaderModel { major, minor }
    }
    pub const MIN: ShaderModel = ShaderModel::new(2, 0);
    pub const MAX: ShaderModel = ShaderModel::new(6, 6);
    /// The models vkd3d's runner knows, in order.
    pub const ALL: [ShaderModel; 9] = [
        ShaderModel::new(2, 0),
        ShaderModel::new(3, 0),
        ShaderModel::new(4, 0),
        ShaderModel::new(4, 1),
        ShaderModel::new(5, 0),
        ShaderModel::new(5, 1),
        ShaderModel::new(6, 0),
        ShaderModel::new(6, 2),
        ShaderModel::new(6, 6),
    ];

    /// The profile suffix (`5_0`).
    pub fn profile_suffix(self) -> String {
        format!("{}_{}", self.major, self.minor)
    }

    /// The model just below this one in [`ShaderModel::ALL`] (for `shader model < X`).
    pub fn predecessor(self) -> Option<ShaderModel> {
        ShaderModel::ALL.iter().rev().find(|m| **m < self).copied()
    }

    /// Parses `5.0`, `5_0` or the shorthand `5` (= `5.0`).
    pub fn parse(c: &mut Cursor<'_>) -> Result<ShaderModel, String> {
        c.skip_ws();
        let s = c.rest();
        let b = s.as_bytes();
        if b.is_empty() || !b[0].is_ascii_digit() {
            return Err(format!("expected a shader model at '{s}'"));
        }
        let major = b[0] - b'0';
        let (minor, used) =
            if b.len() >= 3 && (b[1] == b'.' || b[1] == b'_') && b[2].is_ascii_digit() {
                (b[2] - b'0', 3)
            } else if b.len() >= 2 && b[1].is_ascii_digit() {
                return Err(format!("unknown shader model '{s}'"));
            } else {
                (0, 1)
            };
        let m = ShaderModel::new(major, minor);
        if !ShaderModel::ALL.contains(&m) {
            return Err(format!("unknown shader model {m}"));
        }
        *c = Cursor::new(&s[used..]);
        Ok(m)
    }
}

impl fmt::Display for ShaderModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

/// A version comparison on a tag (`mesa<23.3`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CmpOp {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

/// One atom of a qualifier.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Atom {
    SmGe(ShaderModel),
    SmLt(ShaderModel),
    Tag {
        name: String,
        negate: bool,
        version: Option<(CmpOp, [u32; 3])>,
    },
}

/// What qualifiers are evaluated against: the model a block runs at and the runner's tags.
pub trait QualContext {
    fn shader_model(&self) -> ShaderModel;
    /// `Some(version)` when the tag applies (version `[0,0,0]` when it has none).
    fn tag(&self, name: &str) -> Option<[u32; 3]>;
}

/// An OR of ANDs of atoms. An empty qualifier (no parentheses) always holds.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Qualifier {
    pub any_of: Vec<Vec<Atom>>,
}

/// Tags vkd3d's runner knows; longest first so `llvmpipe` is not read as `llvm`.
const TAGS: &[&str] = &[
    "llvmpipe", "windows", "vulkan", "opengl", "nvidia", "intel", "d3d11", "d3d12", "radv", "warp",
    "mesa", "glsl", "llvm", "amd", "msl", "mvk",
];

impl Qualifier {
    pub fn always() -> Self {
        Qualifier::default()
    }

    /// Parses `(...)` if present; without parentheses the qualifier always holds.
    pub fn parse_opt(c: &mut Cursor<'_>) -> Result<Qualifier, String> {
        // Only an immediately following '(' belongs to the keyword (`todo(sm<6)`), as in vkd3d.
        if !c.raw().starts_with('(') {
            return Ok(Qualifier::always());
        }
        c.expect_char('(')?;
        let mut any_of = Vec::new();
        let mut all_of = Vec::new();
        loop {
            c.skip_ws();
            let s = c.rest();
            if let Some(r) = s.strip_prefix("sm>=") {
                let mut cc = Cursor::new(r);
                all_of.push(Atom::SmGe(ShaderModel::parse(&mut cc)?));
                *c = cc;
            } else if let Some(r) = s.strip_prefix("sm<") {
                let mut cc = Cursor::new(r);
                all_of.push(Atom::SmLt(ShaderModel::parse(&mut cc)?));
                *c = cc;
            } else {
                let (negate, r) = match s.strip_prefix('!') {
                    Some(r) => (true, r),
                    None => (false, s),
                };
                let Some(tag) = TAGS.iter().find(|t| r.starts_with(**t)) else {
                    return Err(format!("unknown qualifier argument '{s}'"));
                };
                let mut r = &r[tag.len()..];
                let version = parse_cmp(&mut r)?;
                all_of.push(Atom::Tag {
                    name: (*tag).to_string(),
                    negate,
                    version,
                });
                *c = Cursor::new(r);
            }
            if c.eat_char('&') {
                continue;
            }
            if c.eat_char('|') {
                any_of.push(std::mem::take(&mut all_of));
                continue;
            }
            c.expect_char(')')?;
            any_of.push(all_of);
            return Ok(Qualifier { any_of });
        }
    }

    /// The qualifier that holds exactly where this one does not (De Morgan, back to an OR of
    /// ANDs). `None` for the empty qualifier, which always holds: its negation is not
    /// expressible and never useful.
    pub fn negated(&self) -> Option<Qualifier> {
        if self.any_of.is_empty() {
            return None;
        }
        let negate = |a: &Atom| match a {
            Atom::SmGe(m) => Atom::SmLt(*m),
            Atom::SmLt(m) => Atom::SmGe(*m),
            Atom::Tag {
                name,
                negate,
                version,
            } => Atom::Tag {
                name: name.clone(),
                negate: !negate,
                version: *version,
            },
        };
        // not (A1 | A2 | ...) = not A1 & not A2 & ...; each `not Ai` is an OR of negated atoms,
        // so the result is the product of those ORs.
        let mut any_of: Vec<Vec<Atom>> = vec![Vec::new()];
        for all in &self.any_of {
            let mut next = Vec::new();
            for partial in &any_of {
                for a in all {
                    let mut p = partial.clone();
                    p.push(negate(a));
                    next.push(p);
                }
            }
            any_of = next;
        }
        Some(Qualifier { any_of })
    }

    pub fn holds(&self, ctx: &dyn QualContext) -> bool {
        if self.any_of.is_empty() {
            return true;
        }
        self.any_of
            .iter()
            .any(|all| all.iter().all(|a| atom_holds(a, ctx)))
    }
}

fn parse_cmp(r: &mut &str) -> Result<Option<(CmpOp, [u32; 3])>, String> {
    let ops: [(&str, CmpOp); 6] = [
        ("<=", CmpOp::Le),
        (">=", CmpOp::Ge),
        ("!=", CmpOp::Ne),
        ("<", CmpOp::Lt),
        (">", CmpOp::Gt),
        ("=", CmpOp::Eq),
    ];
    for (s, op) in ops {
        if let Some(rest) = r.strip_prefix(s) {
            let end = rest
                .find(|c: char| !(c.is_ascii_digit() || c == '.'))
                .unwrap_or(rest.len());
            let mut v = [0u32; 3];
            for (i, part) in rest[..end].split('.').enumerate() {
                if i >= 3 {
                    return Err(format!("bad version '{}'", &rest[..end]));
                }
                v[i] = part
                    .parse()
                    .map_err(|_| format!("bad version '{}'", &rest[..end]))?;
            }
            *r = &rest[end..];
            return Ok(Some((op, v)));
        }
    }
    Ok(None)
}

fn atom_holds(a: &Atom, ctx: &dyn QualContext) -> bool {
    match a {
        Atom::SmGe(m) => ctx.shader_model() >= *m,
        Atom::SmLt(m) => ctx.shader_model() < *m,
        Atom::Tag {
            name,
            negate,
            version,
        } => {
            let present = match (ctx.tag(name), version) {
                (None, _) => false,
                (Some(_), None) => true,
                (Some(have), Some((op, want))) => {
                    let o = have.cmp(want);
                    match op {
                        CmpOp::Lt => o.is_lt(),
                        CmpOp::Le => o.is_le(),
                        CmpOp::Gt => o.is_gt(),
                        CmpOp::Ge => o.is_ge(),
                        CmpOp::Eq => o.is_eq(),
                        CmpOp::Ne => o.is_ne(),
                    }
                }
            };
            present != *negate
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Ctx(ShaderModel, Vec<(&'static str, [u32; 3])>);
    impl QualContext for Ctx {
        fn shader_model(&self) -> ShaderModel {
            self.0
        }
        fn tag(&self, name: &str) -> Option<[u32; 3]> {
            self.1.iter().find(|(n, _)| *n == name).map(|(_, v)| *v)
        }
    }

    fn q(s: &str) -> Qualifier {
        Qualifier::parse_opt(&mut Cursor::new(s)).unwrap()
    }

    #[test]
    fn models() {
        let mut c = Cursor::new("5.1 rest");
        assert_eq!(ShaderModel::parse(&mut c), Ok(ShaderModel::new(5, 1)));
        let mut c = Cursor::new("6)");
        assert_eq!(ShaderModel::parse(&mut c), Ok(ShaderModel::new(6, 0)));
        assert_eq!(c.rest(), ")");
        assert!(ShaderModel::parse(&mut Cursor::new("7.0")).is_err());
        assert_eq!(
            ShaderModel::new(6, 0).predecessor(),
            Some(ShaderModel::new(5, 1))
        );
    }

    #[test]
    fn negation_is_the_complement() {
        let quals = [
            "(warp)",
            "(sm<6)",
            "(vulkan & mesa<23.3)",
            "(sm>=5.1 | !vulkan)",
            "(sm<5 & llvmpipe | radv | mesa>=22)",
        ];
        let ctxs = [
            Ctx(
                ShaderModel::new(4, 0),
                vec![("vulkan", [0; 3]), ("mesa", [22, 3, 6])],
            ),
            Ctx(
                ShaderModel::new(5, 1),
                vec![("vulkan", [0; 3]), ("llvmpipe", [0; 3])],
            ),
            Ctx(
                ShaderModel::new(6, 0),
                vec![("radv", [0; 3]), ("mesa", [25, 0, 7])],
            ),
            Ctx(ShaderModel::new(5, 0), vec![("warp", [0; 3])]),
        ];
        for s in quals {
            let n = q(s).negated().expect("a non-empty qualifier");
            for c in &ctxs {
                assert_ne!(q(s).holds(c), n.holds(c), "{s}");
            }
        }
        assert_eq!(Qualifier::always().negated(), None);
    }

    #[test]
    fn evaluates() {
        let sm50 = Ctx(
            ShaderModel::new(5, 0),
            vec![("vulkan", [0; 3]), ("mesa", [22, 3, 6])],
        );
        assert!(q("(sm<6)").holds(&sm50));
        assert!(!q("(sm>=5.1)").holds(&sm50));
        assert!(q("(sm>=6 | vulkan)").holds(&sm50));
        assert!(!q("(sm>=6 | msl)").holds(&sm50));
        assert!(q("(vulkan & sm<6)").holds(&sm50));
        assert!(q("(mesa<23.3)").holds(&sm50));
        assert!(!q("(mesa>=23.3)").holds(&sm50));
        assert!(q("(!msl)").holds(&sm50));
        assert!(q("").holds(&sm50));
        assert!(Qualifier::parse_opt(&mut Cursor::new("(bogus)")).is_err());
    }
}
