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
        ident = f"{_shortened(str(self.item_id), 80)}: " if self.item_id else ""
        return _one_line(f"{location}{ident}{_shortened(str(self.message), 1000)}")


def _shortened(text: str, limit: int) -> str:
    """``text``, cut to ``limit`` characters with an ellipsis (a pasted 300 KB value stays readable)."""
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _one_line(text: str) -> str:
    """``text`` with line breaks and other control characters shown as escapes: an error stays one line
    even when it quotes a value (a key, a template) that holds a newline or a NUL."""
    if text.isprintable():
        return text
    return "".join(char if char.isprintable() else repr(char)[1:-1] for char in text)


def _display_path(path: str | Path) -> str:
    path = Path(path)
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)
