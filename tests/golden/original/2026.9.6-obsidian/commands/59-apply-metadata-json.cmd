openclaw wiki apply metadata sources/beta.md --source-id source.gamma --confidence 0.65 --contradiction Beta\ numbers\ differ --json
