//! Code shared by the benches (not a bench itself).

pub mod workload;
