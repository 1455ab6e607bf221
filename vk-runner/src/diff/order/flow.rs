//! The structured control flow of an SM4/5 program as a tree (blocks of statements: `if`,
//! `loop`, `switch`, breaks, returns, barriers, calls), which the order analysis walks like a
//! thread group executing it. DXBC's flow is structured by construction; a program whose
//! nesting does not close is refused, and the analysis then compares nothing of the shader.

use std::collections::HashMap;
use translator::sm4::{self, Opcode as O};

/// One statement; `usize` fields are instruction indices into the program.
#[derive(Debug, Clone)]
pub enum Stmt {
    /// Any instruction that is not control flow.
    Op(usize),
    If {
        at: usize,
        then: Block,
        els: Block,
    },
    Loop(Block),
    Switch {
        at: usize,
        cases: Vec<Case>,
    },
    /// `break` / `breakc` (the conditional one's index).
    Break(Option<usize>),
    Continue(Option<usize>),
    Ret(Option<usize>),
    Discard(usize),
    /// `call` / `callc`.
    Call(usize),
    /// `sync` (its index) with its flags.
    Sync(usize, u32),
    /// Something the analysis does not follow (interface calls).
    Unsupported(usize),
}

/// One `case` group of a `switch`: its label values (or `default`) and body; a body without
/// a final `break` falls through into the next.
#[derive(Debug, Clone)]
pub struct Case {
    pub values: Vec<u32>,
    pub default: bool,
    pub body: Block,
}

pub type Block = Vec<Stmt>;

/// The main program and its subroutines (by label number).
#[derive(Debug, Default)]
pub struct Flow {
    pub main: Block,
    pub functions: HashMap<u32, Block>,
}

enum Frame {
    If {
        at: usize,
        then: Block,
        els: Option<Block>,
    },
    Loop(Block),
    Switch {
        at: usize,
        cases: Vec<Case>,
    },
}

impl Frame {
    fn block(&mut self) -> Result<&mut Block, String> {
        match self {
            Frame::If { then, els, .. } => Ok(els.as_mut().unwrap_or(then)),
            Frame::Loop(b) => Ok(b),
            Frame::Switch { cases, .. } => cases
                .last_mut()
                .map(|c| &mut c.body)
                .ok_or_else(|| "an instruction in a switch before its first case".to_string()),
        }
    }
}

/// Builds the tree of `p` (hull-shader phases are not followed: those stages do not run).
pub fn build(p: &sm4::Program) -> Result<Flow, String> {
    let mut flow = Flow::default();
    let mut function: Option<u32> = None;
    let mut body: Block = Vec::new();
    let mut stack: Vec<Frame> = Vec::new();
    for (i, inst) in p.iter().enumerate() {
        if inst.opcode.is_declaration() {
            continue;
        }
        let push = |stack: &mut Vec<Frame>, body: &mut Block, s: Stmt| -> Result<(), String> {
            match stack.last_mut() {
                Some(f) => f.block()?.push(s),
                None => body.push(s),
            }
            Ok(())
        };
        match inst.opcode {
            O::If => stack.push(Frame::If {
                at: i,
                then: Vec::new(),
                els: None,
            }),
            O::Else => match stack.last_mut() {
                Some(Frame::If { els, .. }) if els.is_none() => *els = Some(Vec::new()),
                _ => return Err(format!("instruction {i}: else without if")),
            },
            O::EndIf => match stack.pop() {
                Some(Frame::If { at, then, els }) => push(
                    &mut stack,
                    &mut body,
                    Stmt::If {
                        at,
                        then,
                        els: els.unwrap_or_default(),
                    },
                )?,
                _ => return Err(format!("instruction {i}: endif without if")),
            },
            O::Loop => stack.push(Frame::Loop(Vec::new())),
            O::EndLoop => match stack.pop() {
                Some(Frame::Loop(b)) => push(&mut stack, &mut body, Stmt::Loop(b))?,
                _ => return Err(format!("instruction {i}: endloop without loop")),
            },
            O::Switch => stack.push(Frame::Switch {
                at: i,
                cases: Vec::new(),
            }),
            O::Case | O::Default => match stack.last_mut() {
                Some(Frame::Switch { cases, .. }) => {
                    let value = (inst.opcode == O::Case).then(|| {
                        inst.operands
                            .first()
                            .and_then(|o| o.immediates().first().copied())
                            .unwrap_or(0)
                    });
                    // Consecutive labels share one body.
                    match cases.last_mut() {
                        Some(c) if c.body.is_empty() => match value {
                            Some(v) => c.values.push(v),
                            None => c.default = true,
                        },
                        _ => cases.push(Case {
                            values: value.into_iter().collect(),
                            default: value.is_none(),
                            body: Vec::new(),
                        }),
                    }
                }
                _ => return Err(format!("instruction {i}: case outside a switch")),
            },
            O::EndSwitch => match stack.pop() {
                Some(Frame::Switch { at, cases }) => {
                    push(&mut stack, &mut body, Stmt::Switch { at, cases })?
                }
                _ => return Err(format!("instruction {i}: endswitch without switch")),
            },
            O::Label => {
                if !stack.is_empty() {
                    return Err(format!("instruction {i}: label inside a block"));
                }
                let done = std::mem::take(&mut body);
                match function {
                    Some(l) => {
                        flow.functions.insert(l, done);
                    }
                    None => flow.main = done,
                }
                function = Some(
                    inst.operands
                        .first()
                        .and_then(|o| o.register())
                        .unwrap_or(0),
                );
            }
            O::Break => push(&mut stack, &mut body, Stmt::Break(None))?,
            O::Breakc => push(&mut stack, &mut body, Stmt::Break(Some(i)))?,
            O::Continue => push(&mut stack, &mut body, Stmt::Continue(None))?,
            O::Continuec => push(&mut stack, &mut body, Stmt::Continue(Some(i)))?,
            O::Ret => push(&mut stack, &mut body, Stmt::Ret(None))?,
            O::Retc => push(&mut stack, &mut body, Stmt::Ret(Some(i)))?,
            O::Discard => push(&mut stack, &mut body, Stmt::Discard(i))?,
            O::Call | O::Callc => push(&mut stack, &mut body, Stmt::Call(i))?,
            O::Sync => {
                let flags = match inst.control {
                    sm4::OpControl::Sync(f) => f,
                    _ => 0,
                };
                push(&mut stack, &mut body, Stmt::Sync(i, flags))?
            }
            O::InterfaceCall
            | O::HsDecls
            | O::HsControlPointPhase
            | O::HsForkPhase
            | O::HsJoinPhase => push(&mut stack, &mut body, Stmt::Unsupported(i))?,
            _ => push(&mut stack, &mut body, Stmt::Op(i))?,
        }
    }
    if !stack.is_empty() {
        return Err("a block is not closed at the end of the program".into());
    }
    match function {
        Some(l) => {
            flow.functions.insert(l, body);
        }
        None => flow.main = body,
    }
    Ok(flow)
}
