//! wiki-digest (skeleton)
