"""SpecGuard: decide whether a coding task's description and its tests can both be satisfied,
and certify conflicts with the Lean 4 kernel."""

import os as _os
import sys as _sys

__version__ = "0.1.0"

def _main_module(argv: list[str]) -> str | None:
    """The module ``python [options] -m MODULE ...`` runs (``argv``: ``sys.orig_argv``), or None
    (a script, ``-c`` or stdin).  Short options may be grouped (``-Bm specguard``); ``-X`` and
    ``-W`` take a value, attached or next."""
    i = 1
    while i < len(argv):
        a = argv[i]
        if a == "--check-hash-based-pycs":
            i += 2
            continue
        if a.startswith("--") or not a.startswith("-") or a == "-":
            return None
        for k, ch in enumerate(a[1:], start=1):
            rest = a[k + 1:]
            if ch == "c":
                return None
            if ch == "m":
                return rest or (argv[i + 1] if i + 1 < len(argv) else None)
            if ch in "XW":
                i += 0 if rest else 1          # the value is attached, or the next argument
                break
        i += 1
    return None


def _untrusted_folder_off_path() -> None:
    """``python -m specguard`` puts the current folder first on ``sys.path``, ahead of the standard
    library: a ``json.py`` or ``pydantic/`` in a task folder the user checks from inside (``cd repo;
    python -m specguard check .``) would run when SpecGuard imports it.  The current folder is not
    trusted (docs/trust.md), so that entry is removed here, before SpecGuard imports anything but
    ``os`` and ``sys``, unless it is the folder SpecGuard itself is imported from (a source checkout)
    or Python was told not to add it (``-P``).  The ``specguard`` command adds no such entry; a
    ``specguard/`` package in the current folder is another program, which no code of ours can stop."""
    if getattr(_sys.flags, "safe_path", False) or not _sys.path:
        return
    name = _main_module(list(getattr(_sys, "orig_argv", ())))
    if name is None or name.split(".")[0] != __name__:
        return
    first = _sys.path[0]
    home = _os.path.dirname(_os.path.dirname(_os.path.abspath(__file__)))
    try:
        is_cwd = _os.path.realpath(first or _os.curdir) == _os.path.realpath(_os.getcwd())
        is_home = _os.path.realpath(first or _os.curdir) == _os.path.realpath(home)
    except OSError:
        return
    if is_cwd and not is_home:
        del _sys.path[0]


_untrusted_folder_off_path()
