"""The deterministic checks and repairs: batch validation (`batch`: Arrow compute over the batch and DuckDB
queries against what is stored, derived from `stateforge.constraints`; `batch_pandera`: the same column
rules as a pandera schema, an export the build does not run), repair rules (`repair`), domain rules
(`rules`), the integrity audit (`checks`, `audit`; `declared`: what DuckDB enforces in a file, which the
build's audit leaves to it) and the audit as views inside a database file (`views`). Sits above the store
and below the fill.
"""
