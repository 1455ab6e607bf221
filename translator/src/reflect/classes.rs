//! Class linkage in the reflection: what a program that calls through HLSL interfaces needs
//! the application to bind, and the layout of that data (docs/class-linkage.md).
//!
//! D3D11 binds an `ID3D11ClassInstance` per interface slot; the translated module reads the
//! bound instances from one uniform buffer, the *class-instance buffer*, whose layout is fixed
//! here: per slot, a 32-byte record of the `this` data and the function table the instance's
//! class type selects for that slot. The container's IFCE chunk (class types, the instances
//! the program declares, which table each class type gives each slot) is copied alongside so
//! that a layer can fill the records without parsing the container again.

use serde::{Deserialize, Serialize};

/// Most interface slots a program has (D3D11_SHADER_MAX_INTERFACES).
pub const CLASS_MAX_SLOTS: u32 = 253;

/// Bytes per interface slot in the class-instance buffer.
pub const CLASS_SLOT_STRIDE: u32 = 32;

/// The `b#` register (space 0) that stands for the class-instance buffer in the binding
/// model: D3D11 gives SM5.0 programs 14 constant-buffer slots (0–13), so 15 is never a
/// program's own. The binding policy or layout places it like any constant buffer.
pub const CLASS_INSTANCE_REGISTER: u32 = 15;

/// Class linkage of a program (present when it declares interfaces).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClassLinkage {
    /// The `b#` register (space 0) of the class-instance buffer; its descriptor is among
    /// [`super::Reflection::descriptors`] with this origin when the module reads it.
    pub register: u32,
    /// Interface slots (records in the buffer): one past the last slot any interface covers.
    pub slot_count: u32,
    /// Bytes per slot record ([`CLASS_SLOT_STRIDE`]).
    pub slot_stride: u32,
    /// `dcl_interface` declarations, in program order.
    pub interfaces: Vec<InterfaceDecl>,
    /// `dcl_function_table` declarations: table ID → function body IDs, one per call site.
    pub function_tables: Vec<FunctionTable>,
    /// Class types of the container's IFCE chunk.
    pub class_types: Vec<ClassType>,
    /// Class instances the program declares (IFCE): what `GetClassInstance` returns.
    pub class_instances: Vec<ClassInstance>,
    /// For each slot, the (class type, function table) pairs the IFCE chunk allows.
    pub slot_tables: Vec<SlotTables>,
}

/// One `dcl_interface fp#[array length][call sites] = {ft#, …}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InterfaceDecl {
    /// `fp#`: also its first interface slot.
    pub id: u32,
    /// Interface pointers in the array (slots `id..id + array_length`).
    pub array_length: u32,
    /// Call sites: bodies per function table.
    pub call_sites: u32,
    /// Function tables of the class types that may be bound.
    pub tables: Vec<u32>,
    /// Indexed by a register (`dcl_interface_dynamicindexed`).
    pub dynamic_indexed: bool,
}

/// One `dcl_function_table ft# = {fb#, …}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FunctionTable {
    pub id: u32,
    pub bodies: Vec<u32>,
}

/// A class type (IFCE).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClassType {
    pub name: String,
    pub id: u32,
    /// Constant-buffer vectors one instance uses.
    pub constant_buffer_stride: u32,
    pub texture_count: u32,
    pub sampler_count: u32,
}

/// A class instance the program declares (IFCE).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClassInstance {
    pub name: String,
    pub type_id: u32,
    pub constant_buffer: u32,
    /// In 16-byte vectors.
    pub constant_buffer_offset: u32,
    pub texture: u32,
    pub sampler: u32,
}

/// The tables one slot may select (IFCE).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SlotTables {
    pub slot: u32,
    /// (class type ID, function table ID) pairs.
    pub entries: Vec<(u32, u32)>,
}
