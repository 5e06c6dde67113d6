"""The built-in checker recipes (one TOML file each), loaded by `recipe_checkers`."""
