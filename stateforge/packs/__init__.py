"""The domain packs that ship with Stateforge, as package data: `<pack>/schema.sql` + `<pack>/domain.yaml`
(and, as they come, the pack's own Python modules: `tools.py`, `recipes.py`).

Read with `importlib.resources` (`stateforge.resources.package_dir("stateforge.packs")`), so they are found
the same
way in a checkout and in an installed wheel. docs/domain-packs.md describes a pack.
"""
