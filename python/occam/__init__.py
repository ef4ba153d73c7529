"""occam in Python: the command-line tool's commands as functions.

Each function takes the inputs the CLI takes and returns the dict that the
CLI's ``--json`` output parses to (schemas in doc/json-output.md). Keyword
arguments are the CLI's flags with ``_`` for ``-`` (``seq_len=4096`` is
``--seq-len 4096``); ``True`` sets a flag, ``None`` and ``False`` leave it
out, a list repeats it. ``model``, ``cluster``, ``job`` and ``runs`` take a
catalog name, a file path or a dict (a parsed config: HF ``config.json`` or
occam's model format, a cluster or job file, a run list).

Errors raise :class:`occam.Error` with the CLI's message. The commands run
in-process, in the same code as the CLI (no cost logic here); see
doc/python.md.
"""

import json
import os
import tempfile
import warnings

from . import _occam

__all__ = [
    "Error",
    "estimate",
    "plan",
    "sweep",
    "simulate",
    "collective",
    "balance",
    "validate",
    "budget",
    "list_catalog",
    "run",
    "__version__",
]

__version__ = _occam.version()

_PREFIX = "occam: error: "


class Error(ValueError):
    """An occam command failed on its input (exit status 2) or internally (1).

    ``str(error)`` is the CLI's message without the ``occam: error:`` prefix;
    ``exit_code`` is the CLI's exit status.
    """

    def __init__(self, message, exit_code):
        super().__init__(message)
        self.exit_code = exit_code


def run(*args):
    """Runs ``occam <args...>`` in-process and returns its standard output.

    Raises Error with the CLI's message when the command fails; the CLI's
    warnings and notes (``occam: warning: ...`` on its standard error) are
    issued as Python warnings.
    """
    code, out, err = _occam.run([str(a) for a in args])
    lines = err.splitlines()
    if code != 0:
        message = next((line for line in lines if line.startswith(_PREFIX)), err.strip())
        if message.startswith(_PREFIX):
            message = message[len(_PREFIX):]
        raise Error(message, code)
    for line in lines:
        warnings.warn(line, stacklevel=2)
    return out


def _flag_args(options, tmpdir):
    """Keyword arguments as CLI flags; dict inputs are written as JSON files."""
    args = []
    for key, value in options.items():
        if value is None or value is False:
            continue
        flag = "--" + key.replace("_", "-")
        if value is True:
            args.append(flag)
            continue
        values = value if isinstance(value, (list, tuple)) else [value]
        for v in values:
            if isinstance(v, (dict, list)):
                path = os.path.join(tmpdir, key + ".json")
                with open(path, "w", encoding="utf-8") as f:
                    json.dump(v, f)
                v = path
            args += [flag, str(v)]
    return args


def _json_command(command, positional=(), **options):
    with tempfile.TemporaryDirectory(prefix="occam-") as tmpdir:
        # `runs` is a list of runs, not a repeated flag.
        runs = options.pop("runs", None)
        args = [command, *positional, "--json"] + _flag_args(options, tmpdir)
        if runs is not None:
            args += _flag_args({"runs": [runs] if isinstance(runs, list) else runs}, tmpdir)
        return json.loads(run(*args))


def estimate(model, cluster, plan, chips=None, **options):
    """One layout's step time, MFU, memory and bottleneck (``occam estimate``).

    >>> occam.estimate("deepseek-v3", "h800", "tp=1,pp=16,ep=64,dp=128", chips=2048,
    ...                seq_len=4096, global_batch_tokens="16M")["mfu"]
    """
    return _json_command("estimate", model=model, cluster=cluster, plan=plan, chips=chips,
                         **options)


def plan(model, cluster, chips=None, **options):
    """The fastest layout that fits, the simplest within 3% and the PP verdict (``occam plan``)."""
    return _json_command("plan", model=model, cluster=cluster, chips=chips, **options)


def sweep(model, clusters, chips=None, **options):
    """The plan across clusters and variants (``occam sweep``); ``clusters`` a name or a list."""
    if isinstance(clusters, (list, tuple)):
        clusters = ",".join(clusters)
    return _json_command("sweep", model=model, clusters=clusters, chips=chips, **options)


def simulate(**options):
    """A pipeline schedule played as a timeline (``occam simulate``)."""
    return _json_command("simulate", **options)


def collective(cluster, op, bytes, chips=None, **options):  # noqa: A002 (the CLI's flag)
    """One collective on a cluster: algorithm, time, algbw/busbw (``occam collective``)."""
    return _json_command("collective", cluster=cluster, op=op, bytes=bytes, chips=chips,
                         **options)


def balance(**options):
    """MoE balancing methods over training steps (``occam balance``)."""
    return _json_command("balance", **options)


def validate(runs=None, **options):
    """Predictions against published measured runs (``occam validate``).

    ``runs``: None for the bundled runs, a file path, or a list of run dicts.
    """
    return _json_command("validate", runs=runs, **options)


def budget(model, cluster, tokens, chips=None, **options):
    """Days, chip-hours, energy, money and goodput of a whole run (``occam budget``)."""
    return _json_command("budget", model=model, cluster=cluster, tokens=tokens, chips=chips,
                         **options)


def list_catalog(what):
    """The built-in ``models``, ``chips`` or ``clusters`` (``occam list``)."""
    return _json_command("list", positional=(what,))
