"""YAML loading that remembers where every value came from.

PyYAML's safe loader forgets positions once it builds Python objects. Domain experts need errors
that name a line, so this loader builds :class:`LineDict` and :class:`LineList` objects that carry the
1-based line of themselves and of each of their keys or items. Duplicate keys, which PyYAML silently
overwrites, are rejected.

A pack file is input from people, so loading is bounded and never ends in a traceback: a file larger
than :data:`MAX_YAML_BYTES`, a raw control character (NUL, BEL, DEL, ...: the characters YAML 1.1
forbids), nesting deeper than :data:`MAX_YAML_DEPTH`, an alias that refers to itself, or aliases that
expand the document by more than :data:`MAX_ALIAS_EXPANSION` values (a "billion laughs" alias bomb)
each raise :class:`~taugen.errors.InputError` with the file and line, before any object is built.
Escaped control characters inside quoted strings (``"\\0"``) are refused the same way, since they would
end up in delivered records.
"""

from __future__ import annotations

import re
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


MAX_YAML_BYTES = 1024 * 1024
"""Largest pack YAML file accepted (bytes). The biggest built-in pack file is 15 KB; PyYAML's pure-Python
parser takes seconds per megabyte, so the limit also bounds how long loading one file can take."""
MAX_YAML_DEPTH = 64
"""Deepest nesting of mappings and sequences accepted."""
MAX_ALIAS_EXPANSION = 10_000
"""Most values that aliases (``*name``) may add to a document once expanded."""

# What YAML 1.1 (and PyYAML's reader) forbids raw in a stream: C0 controls except tab, LF, CR; DEL;
# C1 controls except NEL; surrogates; U+FFFE and U+FFFF.
_FORBIDDEN = re.compile("[^\x09\x0A\x0D\x20-\x7E\x85\xA0-\uD7FF\uE000-\uFFFD\U00010000-\U0010FFFF]")
# Inside a string value (after escapes): C0 controls except tab, LF, CR; DEL; C1 controls.
_CONTROL_IN_VALUE = re.compile("[\x00-\x08\x0B\x0C\x0E-\x1F\x7F-\x9F]")


def forbidden_character(text: str) -> tuple[int, str] | None:
    """``(1-based line, description)`` of the first character a pack file may not hold raw, or None."""
    found = _FORBIDDEN.search(text)
    if found is None:
        return None
    return text.count("\n", 0, found.start()) + 1, _describe(found.group())


def _describe(character: str) -> str:
    names = {"\x00": "NUL", "\x07": "BEL", "\x08": "BS", "\x1b": "ESC", "\x7f": "DEL"}
    code = f"U+{ord(character):04X}"
    return f"{code} ({names[character]})" if character in names else code


class _LineLoader(yaml.SafeLoader):
    """SafeLoader that builds LineDict / LineList, bounds nesting, and refuses alias bombs."""

    def compose_document(self) -> yaml.Node:
        self._depth = 0
        self._aliases = 0
        node = super().compose_document()
        _check_expansion(node, self.name)
        return node

    def compose_node(self, parent: Any, index: Any) -> yaml.Node:
        if self.check_event(yaml.AliasEvent):
            self._aliases += 1
            return super().compose_node(parent, index)
        self._depth += 1
        try:
            if self._depth > MAX_YAML_DEPTH:
                line = self.peek_event().start_mark.line + 1
                raise InputError(f"YAML nesting is deeper than {MAX_YAML_DEPTH} levels", self.name, line)
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


def _check_expansion(root: yaml.Node | None, name: str) -> None:
    """Refuse a document whose aliases expand it by more than MAX_ALIAS_EXPANSION values, or that
    refers to itself (``&a [*a]``). Counts each distinct node once and each alias use by the size of
    what it names (memoised, so the check is linear in the composed document)."""
    if root is None:
        return
    sizes: dict[int, int] = {}
    distinct: set[int] = set()
    in_progress: set[int] = set()
    # Iterative post-order walk: children before parents.
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, expanded = stack.pop()
        key = id(node)
        children = _children(node)
        if not expanded:
            if key in sizes:
                continue
            if key in in_progress:
                raise InputError("a YAML alias refers to a value that contains it", name, node.start_mark.line + 1)
            in_progress.add(key)
            distinct.add(key)
            stack.append((node, True))
            for child in children:
                if id(child) in in_progress:
                    raise InputError("a YAML alias refers to a value that contains it", name,
                                     child.start_mark.line + 1)
                if id(child) not in sizes:
                    stack.append((child, False))
            continue
        in_progress.discard(key)
        sizes[key] = 1 + sum(sizes[id(child)] for child in children)
        if sizes[key] - len(distinct) > MAX_ALIAS_EXPANSION:
            raise InputError(f"YAML aliases expand to more than {MAX_ALIAS_EXPANSION:,} extra values "
                             "(an alias bomb?)", name, node.start_mark.line + 1)


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


def _construct_text(loader: _LineLoader, node: yaml.ScalarNode) -> str:
    text = loader.construct_scalar(node)
    found = _CONTROL_IN_VALUE.search(text)
    if found:
        raise InputError(f"text holds the control character {_describe(found.group())}", loader.name,
                         node.start_mark.line + 1)
    return text


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
_LineLoader.add_constructor("tag:yaml.org,2002:str", _construct_text)


def load_yaml(path: Path) -> Any:
    """Parse one YAML file into LineDict / LineList / scalars.

    Raises:
        InputError: the file cannot be read, is larger than MAX_YAML_BYTES, is not UTF-8, holds a
            control character, is not valid YAML (with the parser's line), has a duplicate key, nests
            deeper than MAX_YAML_DEPTH, or its aliases refer to themselves or expand past
            MAX_ALIAS_EXPANSION.
    """
    try:
        size = path.stat().st_size
        if size > MAX_YAML_BYTES:
            raise InputError(f"file is {size:,} bytes, larger than the {MAX_YAML_BYTES:,} a pack file may be", path)
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read file: {exc.strerror}", path) from None
    text = decode_text(data, path)
    bad = forbidden_character(text)
    if bad is not None:
        raise InputError(f"file holds the control character {bad[1]}, which YAML does not allow", path, bad[0])
    loader = _LineLoader(text)
    loader.name = str(path)
    try:
        return loader.get_single_data()
    except RecursionError:  # pragma: no cover - the depth limit stops nesting long before this
        raise InputError("YAML nesting is too deep", path) from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else None
        problem = exc.problem or exc.context or "invalid YAML"
        raise InputError(f"malformed YAML: {problem}", path, line) from None
    except yaml.YAMLError as exc:
        raise InputError(f"malformed YAML: {exc}", path) from None
    finally:
        loader.dispose()


def decode_text(data: bytes, path: Path, item_id: str | None = None) -> str:
    """``data`` decoded as UTF-8 (a leading byte order mark dropped).

    Raises:
        InputError: not UTF-8, naming the line of the first byte that is not.
    """
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise InputError(f"file is not UTF-8 text (byte 0x{data[exc.start]:02x} cannot be decoded)", path,
                         line, item_id) from None


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
