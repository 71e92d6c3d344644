//! The dispatcher starts for every `wiki` command (and answers `wiki search` through a running
//! search server): linked for a fast start, see `wiki_build`.

fn main() {
    wiki_build::link_fast_start();
}
