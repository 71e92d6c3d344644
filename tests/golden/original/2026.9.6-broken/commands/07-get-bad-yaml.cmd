openclaw wiki get concepts/bad-yaml.md
