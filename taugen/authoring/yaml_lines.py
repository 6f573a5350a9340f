"""YAML loading that remembers where every value came from.

PyYAML's safe loader forgets positions once it builds Python objects. Domain experts need errors
that name a line, so this loader builds :class:`LineDict` and :class:`LineList` objects that carry the
1-based line of themselves and of each of their keys or items. Duplicate keys, which PyYAML silently
overwrites, are rejected.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from taugen.errors import InputError


class LineDict(dict):
    """A dict from YAML with ``line`` (its own line) and ``key_lines`` (line of each key)."""

    line: int = 0
    key_lines: dict[str, int]

    def line_of(self, key: str) -> int:
        """Line of ``key`` in the source file, or the mapping's own line if the key is absent."""
        return getattr(self, "key_lines", {}).get(key, self.line)


class LineList(list):
    """A list from YAML with ``line`` and ``item_lines`` (line of each item)."""

    line: int = 0
    item_lines: list[int]


class _LineLoader(yaml.SafeLoader):
    pass


def _construct_mapping(loader: _LineLoader, node: yaml.MappingNode) -> LineDict:
    loader.flatten_mapping(node)
    result = LineDict()
    result.line = node.start_mark.line + 1
    result.key_lines = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        if not isinstance(key, (str, int, float, bool)) and key is not None:
            raise InputError("mapping keys must be plain scalars", loader.name, key_node.start_mark.line + 1)
        key = str(key) if not isinstance(key, str) else key
        if key in result:
            raise InputError(f"duplicate key '{key}'", loader.name, key_node.start_mark.line + 1)
        result[key] = loader.construct_object(value_node, deep=True)
        result.key_lines[key] = key_node.start_mark.line + 1
    return result


def _construct_sequence(loader: _LineLoader, node: yaml.SequenceNode) -> LineList:
    result = LineList(loader.construct_object(child, deep=True) for child in node.value)
    result.line = node.start_mark.line + 1
    result.item_lines = [child.start_mark.line + 1 for child in node.value]
    return result


def _construct_timestamp_as_text(loader: _LineLoader, node: yaml.ScalarNode) -> str:
    # Dates stay text here; the pydantic models parse them and report impossible dates by line.
    return loader.construct_scalar(node)


_LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
_LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, _construct_sequence)
_LineLoader.add_constructor("tag:yaml.org,2002:timestamp", _construct_timestamp_as_text)


def load_yaml(path: Path) -> Any:
    """Parse one YAML file into LineDict / LineList / scalars.

    Raises:
        InputError: the file cannot be read, is not valid YAML (with the parser's line), or has a
            duplicate key.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot read file: {exc.strerror}", path) from None
    except UnicodeDecodeError:
        raise InputError("file is not UTF-8 text", path) from None
    loader = _LineLoader(text)
    loader.name = str(path)
    try:
        return loader.get_single_data()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else None
        problem = exc.problem or exc.context or "invalid YAML"
        raise InputError(f"malformed YAML: {problem}", path, line) from None
    except yaml.YAMLError as exc:
        raise InputError(f"malformed YAML: {exc}", path) from None
    finally:
        loader.dispose()


def line_for_location(data: Any, location: tuple[str | int, ...]) -> int | None:
    """Best line for a pydantic error ``loc`` path inside loaded YAML ``data``.

    Walks as deep as the path exists and returns the line of the deepest key or item reached.
    """
    line = getattr(data, "line", None)
    current = data
    for part in location:
        if isinstance(current, LineDict) and isinstance(part, str):
            if part not in current and current.get("type") == part:
                continue  # pydantic's tag of a discriminated union (value -> money -> amount)
            line = current.line_of(part)
            if part not in current:
                return line
            current = current[part]
        elif isinstance(current, LineList) and isinstance(part, int) and 0 <= part < len(current):
            line = current.item_lines[part]
            current = current[part]
        else:
            break
    return line
