"""A warning with its kind: what a caller acts on is the kind, never the sentence's words.

The command line puts some of the engine's notes above its tables as warnings and decides on
them (``compare`` exits 2 on missing scores that are not missing at random); it tells them
apart by :attr:`Note.kind`, a small closed set, so rewording a sentence changes no behaviour.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

__all__ = ["NOTE_KINDS", "Note", "NoteKind"]

#: unpaired-unreliable: no unpaired test keeps alpha on these skewed scores (stats._unpaired);
#: missing-not-at-random: a system's missing examples are harder or easier (stats._missing);
#: cannot-separate: no pair can be significant at this n and alpha (stats._resolution)
NoteKind = Literal["unpaired-unreliable", "missing-not-at-random", "cannot-separate"]
NOTE_KINDS: tuple[str, ...] = get_args(NoteKind)


@dataclass(frozen=True)
class Note:
    """One warning: its ``kind`` (one of :data:`NOTE_KINDS`) and its sentence ``text``.

    >>> Note("cannot-separate", "No pair can be significant.").kind
    'cannot-separate'
    """

    kind: NoteKind
    text: str

    def __post_init__(self) -> None:
        if self.kind not in NOTE_KINDS:
            raise ValueError(f"kind: must be one of {', '.join(NOTE_KINDS)}; got {self.kind!r}")

    def __str__(self) -> str:
        return self.text
