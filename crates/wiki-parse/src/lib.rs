//! wiki-parse (skeleton)
