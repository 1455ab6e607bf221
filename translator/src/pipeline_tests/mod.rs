//! Tests that run the whole pipeline (container → lowering → passes → SPIR-V) on small
//! programs to pin what one stage does. They live here, beside the orchestrator, rather than in
//! the stage they test, so that no stage depends on `translate.rs`; tests of one stage alone
//! build its input directly (IR built with `ir::builder` for the passes).

mod alu;
mod cfg;
mod classes;
mod flow;
mod icb_buffer;
mod layer;
mod precision;
mod query;
mod raw_feedback;
mod reuse;
mod rov;
mod row_stores;
mod signature;
mod structurize;
mod sysval;
