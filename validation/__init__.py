"""The deterministic checks and repairs: batch validation (`batch`: a pandera schema and SQL checks derived
from the DDL), repair rules (`repair`), domain rules (`rules`), the integrity audit (`checks`, `audit`) and
the audit as views inside a database file (`views`). Sits above the store and below the fill.
"""
