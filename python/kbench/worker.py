"""A worker of ``python -m kbench run``: the process in which Python kernels run, so that one that
segfaults, hangs or exhausts memory costs only its own shape or config, never the run.

``python -m kbench.worker --module FILE.py`` imports the user's modules once (torch, JAX: paid once per
worker, not per shape), then answers requests, one JSON line each on its standard input, with one line on
its standard output that starts with ``kbench-answer`` (anything the kernels print goes elsewhere or is
skipped). The suite's engine (kbench._kbench.ServedWorker, the C++ suite::served_worker) starts it, times
out a request, kills it, and judges a death; it dies with the process that started it.

Requests (``op``): ``describe`` (the kernels, their shapes and parameters), ``probe`` (a shape's framework,
device and source hash, for the tuning cache key) and ``shape`` (one kernel x shape: the JSON of a
suite::shape_result).

``--trials '{"kernel": ..., "shape": [...], "seed": ..., "atol": ..., "rtol": ...}'`` makes it a trial
worker of the suite's tuner instead (suite::choose_config, which starts it): it answers the tuner's trial
requests for that kernel x shape, as a C++ kernel's ``kbench worker`` with task "trials" does, each with a
line that starts with ``kbench-trial-answer`` (the outcomes of suite.run_trial).
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import pathlib
import sys
import traceback
from collections.abc import Callable
from typing import Any

from . import _kbench, suite, tuning

ANSWER_PREFIX = "kbench-answer "
TRIAL_ANSWER_PREFIX = _kbench.trial_answer_prefix  # the tuner's (suite/detail/trial_server.hpp)


def load(module: str) -> None:
    """Imports a .py file or an importable module, which registers kernels with kbench.kernel."""
    path = pathlib.Path(module)
    if path.suffix == ".py":
        spec = importlib.util.spec_from_file_location(f"kbench_user_{path.stem}", path)
        loaded = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = loaded
        spec.loader.exec_module(loaded)
    else:
        importlib.import_module(module)


class Worker:
    def __init__(self) -> None:
        self._problem: suite.Problem | None = None  # the last shape's inputs, kept for its next requests

    def problem(self, request: dict[str, Any]) -> suite.Problem:
        k = suite.registered()[request["kernel"]]
        shape, seed = tuple(request["shape"]), int(request["seed"])
        p = self._problem
        if p is None or p.kernel is not k or p.shape != shape or p.seed != seed:
            self._problem = None  # the old inputs go before the new ones are made
            self._problem = suite.Problem(k, shape, seed)
        return self._problem

    def answer(self, request: dict[str, Any]) -> Any:
        op = request["op"]
        if op == "describe":
            return {"kernels": [{"name": k.name, "shapes": [list(s) for s in k.shapes], "params": k.params,
                                 "default": suite.default_config(k) if k.params else None,
                                 "has_default": k.default is not None, "baseline": k.baseline is not None,
                                 "description": k.description}
                                for k in suite.registered().values()]}
        problem = self.problem(request)
        if op == "probe":
            return problem.probe(request["config"])
        if op == "shape":
            return suite.run_shape(problem, request["config"], request["target_ms"], request.get("atol"),
                                   request.get("rtol"))
        raise ValueError(f"unknown request {op!r} (valid: describe, probe, shape)")


def trial_answerer(identity: dict[str, Any]) -> Callable[[dict[str, Any]], Any]:
    """The answers of a trial worker for one kernel x shape (its --trials message)."""
    k = suite.registered()[identity["kernel"]]
    problem = suite.Problem(k, tuple(identity["shape"]), int(identity["seed"]))
    return lambda request: suite.run_trial(problem, request, lambda config: tuning.to_python(k.params, config),
                                           identity.get("atol"), identity.get("rtol"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kbench.worker", description=__doc__.splitlines()[0])
    parser.add_argument("--module", action="append", required=True)
    parser.add_argument("--trials", type=json.loads, help="serve the tuner's trials for this kernel x shape")
    args = parser.parse_args(argv)
    _kbench.watch_parent()  # ends this worker, and whatever it started, when kbench is gone
    answers = sys.stdout
    sys.stdout = sys.stderr  # what the kernels print stays off the answer channel
    try:
        for module in args.module:
            load(module)
    except BaseException as error:  # noqa: BLE001 - any failure to import is the user's to read
        print(f"cannot import {args.module[-1]}: {suite.error_text(error)}", file=sys.stderr)
        traceback.print_exc(file=sys.stderr)
        return 3
    if args.trials is not None:
        # A request the trial protocol cannot answer ends the worker (exit 1): the tuner records the trial's
        # configs as failed, as for a C++ trial worker.
        answer_trial = trial_answerer(args.trials)
        for line in sys.stdin:
            if line.strip():
                reply_line = TRIAL_ANSWER_PREFIX + json.dumps(answer_trial(json.loads(line)), allow_nan=True)
                answers.write("\n" + reply_line + "\n")
                answers.flush()
        return 0
    worker = Worker()
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            reply = {"ok": True, "answer": worker.answer(json.loads(line))}
        except Exception as error:  # noqa: BLE001 - reported to the parent, which records it
            reply = {"ok": False, "error": suite.error_text(error)}
        # A newline first: a kernel's own output without one cannot run into the answer.
        answers.write("\n" + ANSWER_PREFIX + json.dumps(reply, allow_nan=True) + "\n")
        answers.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
