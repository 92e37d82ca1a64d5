//! Mitra's hot text path, kept in its own crate so that it is optimised even in the dev profile.

pub mod analyzer;
pub mod scorer;
