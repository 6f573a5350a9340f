"""Errors that taugen reports to people as one line.

Every problem with user input (a fact pack, a bundle, a command-line option) is raised as
:class:`InputError`. The CLI prints ``str(error)`` alone (no traceback) and exits with code 2.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass
class InputError(Exception):
    """Bad input, reported as ``file:line: id: message``.

    Attributes:
        message: what is wrong, one sentence, no trailing period needed.
        file: the file that holds the problem (a path, shown relative when possible), or None.
        line: 1-based line number inside ``file``, or None when unknown.
        item_id: the id of the fact, family, problem or task concerned, or None.
    """

    message: str
    file: str | Path | None = None
    line: int | None = None
    item_id: str | None = None

    def __post_init__(self) -> None:
        super().__init__(str(self))

    def __str__(self) -> str:
        location = ""
        if self.file is not None:
            location = _display_path(self.file)
            if self.line is not None:
                location += f":{self.line}"
            location += ": "
        ident = f"{self.item_id}: " if self.item_id else ""
        return f"{location}{ident}{self.message}"


def _display_path(path: str | Path) -> str:
    path = Path(path)
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)
