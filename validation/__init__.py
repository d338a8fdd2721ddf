"""The deterministic checks and repairs: batch validation (`batch`: Arrow compute over the batch and DuckDB
queries against what is stored, derived from `pipeline.constraints`), repair rules (`repair`), domain
rules (`rules`), the integrity audit (`checks`, `audit`) and the audit as views inside a database file
(`views`). Sits above the store and below the fill.
"""
