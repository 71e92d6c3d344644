openclaw wiki get entities/good-entity.md
