"""A grammar (lark) for worked-example sentences written in prose.

It only *delimits*: which spans are the input bindings and which is the stated result.  The
values themselves are evaluated by the caller with Python's exact semantics
(:mod:`specguard.python.literals`), never by this grammar.

Recognised (case-insensitive keywords, one sentence)::

    For lst = [1, 2, 3] the output should be 14
    For s = "abcde", c = "ae", the result should be ('bcd', False)
    For n = 5, the answer will be 3.

Anything else (a clause between the bindings and the result, "the sum of digits will be 1 the
output should be ..." and the like) does not parse and is not read.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

__all__ = ["ForExample", "parse_for_example"]

_GRAMMAR = r"""
start: _FOR binding (("," | "," _AND | _AND) binding)* ","? _THE NOUN _MODAL _BE value _END?

binding: NAME "=" value

value: STRING
     | NUMBER
     | CONST
     | "[" [value ("," value)* ","?] "]"
     | "(" [value ("," value)* ","?] ")"
     | "{" [item ("," item)* ","?] "}"
item: value ":" value | value

_AND: /and\b/i
_FOR: /for\b/i
_THE: /the\b/i
NOUN: /(output|result|answer|return\s+value)\b/i
_MODAL: /(should|will|must|would)\b/i
_BE: /be\b/i
_END: "."
CONST: /(True|False|None)\b/
NAME: /(?!(?:the|and|for)\b)[A-Za-z_][A-Za-z_0-9]*/i
NUMBER: /-?\d+(\.\d+)?([eE][+-]?\d+)?/
STRING: /'([^'\\\n]|\\.)*'|"([^"\\\n]|\\.)*"/

%import common.WS
%ignore WS
"""



@cache
def _parser():
    """The parser, built on first use (most descriptions have no such sentence)."""
    from lark import Lark
    return Lark(_GRAMMAR, parser="lalr", propagate_positions=True, maybe_placeholders=False)


@dataclass(frozen=True)
class ForExample:
    """``bindings``: (parameter name, value source text) in the order written; ``result``: the
    stated result's source text."""

    bindings: tuple[tuple[str, str], ...]
    result: str


def _span(text: str, node) -> str:
    """The source text of a parse-tree node (a lark Tree or Token)."""
    meta = getattr(node, "meta", None)
    if meta is None:
        return str(node)
    return text[meta.start_pos:meta.end_pos]


def parse_for_example(sentence: str) -> ForExample | None:
    """The worked example a "For x = v, the output should be r" sentence states, else None."""
    text = sentence.strip()
    if not text[:4].lower().startswith("for"):
        return None
    from lark.exceptions import LarkError
    try:
        tree = _parser().parse(text)
    except LarkError:
        return None
    binds = []
    for b in tree.find_data("binding"):
        name, value = b.children
        binds.append((str(name), _span(text, value)))
    result = tree.children[-1]
    return ForExample(tuple(binds), _span(text, result))
