//! wiki-store (skeleton)
