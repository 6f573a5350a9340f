"""The jinja2 environment that renders templates written in a fact pack.

A fact family's ``id``, ``statement``, ``subject``, ``value`` and ``applies_to`` are jinja2 templates
written by a domain expert. Pack data must never run code or hang a build, so these templates render in
jinja2's :class:`~jinja2.sandbox.ImmutableSandboxedEnvironment` (no access to ``__class__``,
``__globals__`` or other Python internals, no mutating methods such as ``list.append``), with
:class:`~jinja2.StrictUndefined` (a misspelt column is an error, not an empty string), and with
limits on how much work one render may do:

* a template's source is at most :data:`MAX_TEMPLATE_CHARS` characters and holds no nested
  ``{% for %}`` loop, no macro, no ``{% include %}`` / ``{% import %}`` / ``{% extends %}``;
* ``*`` and ``**`` and ``%`` (the operators that make large values from small ones) are checked
  before they run: no result longer than :data:`MAX_VALUE_SIZE` items, no exponent above
  :data:`MAX_EXPONENT`; a call gets no integer argument above :data:`MAX_VALUE_SIZE`
  (``'x'.ljust(10**9)``), ``range`` at most :data:`MAX_VALUE_SIZE` numbers, and a format string no
  field width above four digits;
* only filters whose output grows at most linearly with their input are available;
* the output of one render is at most :data:`MAX_OUTPUT_CHARS` characters.

Every violation raises :class:`TemplateLimitError` or jinja2's
:class:`~jinja2.exceptions.SecurityError` (both :class:`jinja2.TemplateError`), which the pack loader
reports as ``file:line: family: template error: ...``. Reference: jinja2's sandbox documentation,
https://jinja.palletsprojects.com/en/stable/sandbox/.
"""

from __future__ import annotations

import operator
import re
from typing import Any

import jinja2
from jinja2 import nodes
from jinja2.sandbox import ImmutableSandboxedEnvironment

MAX_TEMPLATE_CHARS = 10_000
"""Longest template source accepted (characters)."""
MAX_VALUE_SIZE = 10_000
"""Largest integer argument to a call, longest ``range``, longest result of ``*`` / ``%``."""
MAX_EXPONENT = 64
"""Largest exponent of ``**``."""
MAX_OUTPUT_CHARS = 100_000
"""Longest text one render may produce (characters)."""

SAFE_FILTERS = ("abs", "capitalize", "count", "d", "default", "first", "float", "format", "int", "join", "last", "length",
                "list", "lower", "replace", "reverse", "round", "sort", "string", "title", "trim", "unique",
                "upper")
"""jinja2 built-in filters kept for pack templates (each returns at most a bounded multiple of its input)."""

_WIDE_FIELD = re.compile(r"\d{5,}")


class TemplateLimitError(jinja2.TemplateRuntimeError):
    """A pack template asked for more work than a render may do (size, loops, widths)."""


def _sized(value: Any) -> int:
    try:
        return len(value)
    except TypeError:
        return 1


def _check_int(value: Any, what: str) -> None:
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_VALUE_SIZE:
        raise TemplateLimitError(f"{what} {value} is larger than {MAX_VALUE_SIZE:,}")


def _check_format(text: Any) -> None:
    if isinstance(text, str) and _WIDE_FIELD.search(text):
        raise TemplateLimitError(f"format string {text[:40]!r} asks for a field wider than 9,999 characters")


def _bounded_range(*args: int) -> range:
    for argument in args:
        _check_int(argument, "range bound")
    numbers = range(*args)
    if len(numbers) > MAX_VALUE_SIZE:
        raise TemplateLimitError(f"range of {len(numbers):,} numbers is longer than {MAX_VALUE_SIZE:,}")
    return numbers


@jinja2.pass_eval_context
def _bounded_replace(environment: Any, text: Any, old: Any, new: Any, count: int | None = None) -> Any:
    text_s, old_s, new_s = str(text), str(old), str(new)
    hits = (len(text_s) + 1) if old_s == "" else text_s.count(old_s)
    if count is not None:
        hits = min(hits, max(count, 0))
    if len(text_s) + hits * max(len(new_s) - len(old_s), 0) > MAX_OUTPUT_CHARS:
        raise TemplateLimitError(f"replace would make text longer than {MAX_OUTPUT_CHARS:,} characters")
    return jinja2.filters.do_replace(environment, text, old, new, count)



@jinja2.pass_eval_context
def _bounded_format(environment: Any, value: Any, *args: Any, **kwargs: Any) -> str:
    _check_format(value)
    return jinja2.filters.do_format(value, *args, **kwargs)


class PackTemplateEnvironment(ImmutableSandboxedEnvironment):
    """Sandboxed, bounded jinja2 environment for templates that come from a fact pack.

    Use :meth:`compile_pack_template` to compile (it applies the source checks) and
    :func:`render_bounded` to render (it caps the output).

    Raises (at compile): :class:`jinja2.TemplateSyntaxError`, :class:`TemplateLimitError`;
    (at render): :class:`jinja2.UndefinedError`, :class:`jinja2.exceptions.SecurityError`,
    :class:`TemplateLimitError`, or the Python error of a filter given the wrong type.
    """

    intercepted_binops = frozenset({"*", "**", "%"})

    def __init__(self) -> None:
        super().__init__(undefined=jinja2.StrictUndefined, autoescape=False, keep_trailing_newline=False)
        kept = {name: self.filters[name] for name in SAFE_FILTERS if name in self.filters}
        kept["replace"] = _bounded_replace
        kept["format"] = _bounded_format
        self.filters = kept
        self.tests = dict(self.tests)
        self.globals = {"range": _bounded_range}

    def call_binop(self, context: Any, operator_name: str, left: Any, right: Any) -> Any:
        """Run ``left <operator> right`` after checking the result stays small."""
        if operator_name == "*":
            for sequence, times in ((left, right), (right, left)):
                if isinstance(times, int) and isinstance(sequence, (str, list, tuple)):
                    if _sized(sequence) * max(times, 0) > MAX_VALUE_SIZE:
                        raise TemplateLimitError(f"repeating a value {times:,} times makes more than "
                                                 f"{MAX_VALUE_SIZE:,} items")
            if isinstance(left, int) and isinstance(right, int) and left.bit_length() + right.bit_length() > 4096:
                raise TemplateLimitError("product of numbers larger than 4,096 bits")
            return operator.mul(left, right)
        if operator_name == "**":
            if isinstance(right, (int, float)) and abs(right) > MAX_EXPONENT:
                raise TemplateLimitError(f"exponent {right} is larger than {MAX_EXPONENT}")
            if isinstance(left, (int, float)) and abs(left) > 2 ** 64:
                raise TemplateLimitError("base of ** is larger than 2**64")
            return operator.pow(left, right)
        # "%": printf-style formatting on text, or the remainder of numbers.
        _check_format(left)
        result = operator.mod(left, right)
        if isinstance(result, str) and len(result) > MAX_OUTPUT_CHARS:
            raise TemplateLimitError(f"formatted text is longer than {MAX_OUTPUT_CHARS:,} characters")
        return result

    def call(__self, __context: Any, __obj: Any, *args: Any, **kwargs: Any) -> Any:  # noqa: N805 - jinja2's signature
        """Call ``__obj`` from a pack template: no integer argument above the size limit."""
        for argument in (*args, *kwargs.values()):
            _check_int(argument, "argument")
        return super().call(__context, __obj, *args, **kwargs)

    def wrap_str_format(self, value: Any) -> Any:
        """jinja2's sandboxed ``str.format``, refused when the format string asks for a wide field."""
        if getattr(value, "__name__", "") in {"format", "format_map"}:
            _check_format(getattr(value, "__self__", None))
        return super().wrap_str_format(value)

    def compile_pack_template(self, source: str) -> jinja2.Template:
        """Parse, check and compile one pack template.

        Raises:
            jinja2.TemplateSyntaxError: not valid jinja2.
            TemplateLimitError: too long, a nested loop, a macro, an include / import / extends.
        """
        if len(source) > MAX_TEMPLATE_CHARS:
            raise TemplateLimitError(f"template is {len(source):,} characters long (at most {MAX_TEMPLATE_CHARS:,})")
        tree = self.parse(source)
        for node_type, what in ((nodes.Macro, "a macro"), (nodes.CallBlock, "a call block"),
                                (nodes.Include, "an include"), (nodes.Import, "an import"),
                                (nodes.FromImport, "an import"), (nodes.Extends, "extends")):
            if tree.find(node_type) is not None:
                raise TemplateLimitError(f"{what} is not allowed in a fact pack template")
        for loop in tree.find_all(nodes.For):
            if loop.body and any(inner.find(nodes.For) is not None or isinstance(inner, nodes.For)
                                 for inner in loop.body):
                raise TemplateLimitError("nested loops are not allowed in a fact pack template")
        return self.from_string(tree)


def render_bounded(template: jinja2.Template, context: dict[str, Any]) -> str:
    """Render ``template`` with ``context``, stopping once the text passes :data:`MAX_OUTPUT_CHARS`.

    Raises:
        TemplateLimitError: the output is too long; any error of the render itself.
    """
    parts: list[str] = []
    size = 0
    for chunk in template.generate(**context):
        size += len(chunk)
        if size > MAX_OUTPUT_CHARS:
            raise TemplateLimitError(f"rendered text is longer than {MAX_OUTPUT_CHARS:,} characters")
        parts.append(chunk)
    return "".join(parts)
