//! wiki (skeleton)
