//! wiki-lint (skeleton)
