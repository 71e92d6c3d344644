openclaw wiki get concepts/list-frontmatter.md
