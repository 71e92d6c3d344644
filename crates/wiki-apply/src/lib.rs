//! wiki-apply (skeleton)
