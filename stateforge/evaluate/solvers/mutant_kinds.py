"""The mutant kinds by name, in report order: imported by the registry without the mutations' imports
(`mutations.MUTATIONS` holds one function per name; a test keeps the two in step)."""

MUTANT_KINDS = (
    "stop-early", "skip-prerequisite", "first-page", "drop-item", "add-item", "distractor", "bound",
    "repeat-write", "extra-write", "ignore-procedure",
)
