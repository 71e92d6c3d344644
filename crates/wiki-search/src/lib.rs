//! wiki-search (skeleton)
