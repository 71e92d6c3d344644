//! wiki-cli (skeleton)
