"""Vectorised string assembly for the text strategies (pyarrow.compute and numpy byte matrices)."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from stateforge.fill.draw import permute


def join(*parts: pa.Array | str, sep: str | pa.Array = "") -> pa.Array:
    """Element-wise concatenation of arrays and literal strings (`sep` may differ per row)."""
    return pc.binary_join_element_wise(*parts, sep)


def ascii_lower(values: pa.Array, keep: str = "") -> pa.Array:
    """Lower-case ASCII letters and digits only (plus the characters in `keep`): for e-mails and handles."""
    return per_distinct(
        values, lambda v: pc.replace_substring_regex(pc.utf8_lower(v), f"[^a-z0-9{keep}]", "")
    )


def per_distinct(values: pa.Array, transform) -> pa.Array:
    """`transform` applied once per distinct value (values sampled from pools repeat a lot)."""
    encoded = pc.dictionary_encode(values)
    return transform(encoded.dictionary).take(encoded.indices)


def numbers(values: np.ndarray) -> pa.Array:
    """Integers as decimal strings."""
    return pa.array(values).cast(pa.string())


def truncate(values: pa.Array, length: int | None) -> pa.Array:
    return values if length is None else pc.utf8_slice_codeunits(values, 0, max(length, 0))


def truncate_words(values: pa.Array, length: int | None) -> pa.Array:
    """Values longer than `length` cut after their last whole word that fits (a single word is cut)."""
    if length is None:
        return values
    head = pc.utf8_slice_codeunits(values, 0, max(length, 0) + 1)
    words = pc.utf8_rtrim(pc.replace_substring_regex(head, r"\s+\S*$", ""), characters=" ,;:-")
    whole = pc.less_equal(pc.utf8_length(values), length)
    cut = pc.if_else(pc.greater(pc.utf8_length(words), 0), words, truncate(values, length))
    return pc.if_else(whole, values, truncate(cut, length))


def from_matrix(chars: np.ndarray) -> pa.Array:
    """An (n, width) uint8 matrix of ASCII codes as n strings of that width."""
    n, width = chars.shape
    if width == 0:
        return pa.array([""] * n, pa.string())
    fixed = np.ascontiguousarray(chars).view(f"S{width}").ravel()
    return pa.array(fixed, pa.binary(width)).cast(pa.binary()).cast(pa.string())


def hex_strings(rng: np.random.Generator, n: int, width: int) -> pa.Array:
    """`n` random lower-case hexadecimal strings of `width` characters."""
    digits = np.frombuffer(b"0123456789abcdef", dtype=np.uint8)
    return from_matrix(digits[rng.integers(0, 16, (n, width))])


def fixed_hex(values: np.ndarray, width: int) -> pa.Array:
    """Non-negative integers as zero-padded hexadecimal strings of `width` characters."""
    digits = np.frombuffer(b"0123456789abcdef", dtype=np.uint8)
    shifts = 4 * np.arange(width - 1, -1, -1, dtype=np.int64)
    return from_matrix(digits[(values[:, None] >> shifts) & 15])


def uuids(rng: np.random.Generator, n: int) -> pa.Array:
    """Random version-4 UUIDs in the canonical 8-4-4-4-12 form."""
    digits = np.frombuffer(b"0123456789abcdef", dtype=np.uint8)
    nibbles = rng.integers(0, 16, (n, 32))
    nibbles[:, 12] = 4  # version 4
    nibbles[:, 16] = 8 + (nibbles[:, 16] & 3)  # RFC 4122 variant
    chars = digits[nibbles]
    dash = np.full((n, 1), ord("-"), dtype=np.uint8)
    return from_matrix(
        np.hstack(
            [
                chars[:, :8],
                dash,
                chars[:, 8:12],
                dash,
                chars[:, 12:16],
                dash,
                chars[:, 16:20],
                dash,
                chars[:, 20:],
            ]
        )
    )


def pattern_codes(
    pattern: str, rng: np.random.Generator, ordinals: np.ndarray, *, unique: bool, key: int, digits: int = 10
) -> pa.Array:
    """Codes from a pattern: `#` a digit, `?` an upper-case letter, any other character literal.

    Unique codes number the rows through a permutation of the pattern's space (distinct while the space
    lasts); otherwise each slot is random.
    """
    raw = np.frombuffer(pattern.encode(), dtype=np.uint8)
    slots = [i for i, c in enumerate(raw) if c in (ord("#"), ord("?"))]
    radices = [digits if raw[i] == ord("#") else 26 for i in slots]
    n = len(ordinals)
    chars = np.tile(raw, (n, 1))
    if unique:
        space = int(np.prod([float(r) for r in radices])) if radices else 1
        index = permute(ordinals, space, key)
        for i, radix in reversed(list(zip(slots, radices, strict=True))):
            chars[:, i] = _symbol(index % radix, radix)
            index = index // radix
    else:
        for i, radix in zip(slots, radices, strict=True):
            chars[:, i] = _symbol(rng.integers(0, radix, n), radix)
    return from_matrix(chars)


def _symbol(values: np.ndarray, radix: int) -> np.ndarray:
    base = ord("A") if radix == 26 else ord("0")
    return (base + values).astype(np.uint8)


def with_suffix(values: pa.Array, ordinals: np.ndarray, sep: str, max_len: int | None) -> pa.Array:
    """`value + sep + ordinal`, shortened to fit `max_len`: distinct by construction."""
    suffix = join(sep, numbers(ordinals)) if sep else numbers(ordinals)
    if max_len is not None:
        longest = len(sep) + len(str(int(ordinals.max()))) if len(ordinals) else 0
        values = truncate(values, max_len - longest)
    return join(values, suffix)
