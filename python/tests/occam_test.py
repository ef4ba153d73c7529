"""The Python module against the CLI: the same inputs give the same dicts
as the CLI's --json output, dict inputs equal the files they came from, and
errors raise occam.Error with the CLI's message.

Run by CTest (python_module) with PYTHONPATH=<build>/python and OCCAM_BINARY
set to the built CLI.
"""

import json
import os
import subprocess
import tempfile
import unittest
import warnings

import occam

BINARY = os.environ.get("OCCAM_BINARY", "occam")
SOURCE = os.environ.get("OCCAM_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))


def cli(*args):
    """Runs the CLI; returns (exit status, stdout, stderr)."""
    p = subprocess.run([BINARY, *args], capture_output=True, text=True, check=False)
    return p.returncode, p.stdout, p.stderr


def cli_json(*args):
    code, out, err = cli(*args, "--json")
    assert code == 0, err
    return json.loads(out)


def without_timing(d):
    d = dict(d)
    d.pop("search_seconds", None)
    return d


# A small dense case that plans in well under a second.
JOB = dict(seq_len=4096, global_batch_seqs=64)
JOB_ARGS = ["--seq-len", "4096", "--global-batch-seqs", "64"]


class PlanAndEstimate(unittest.TestCase):
    def test_plan_equals_the_cli(self):
        got = occam.plan("llama-3.1-8b", "h100", chips=32, top=5, **JOB)
        want = cli_json("plan", "--model", "llama-3.1-8b", "--cluster", "h100", "--chips", "32",
                        "--top", "5", *JOB_ARGS)
        self.assertEqual(without_timing(got), without_timing(want))
        self.assertIn("pp_verdict", got)

    def test_estimate_from_a_model_dict_equals_the_file(self):
        path = os.path.join(SOURCE, "data", "models", "llama-3.1-70b-instruct.json")
        with open(path, encoding="utf-8") as f:
            config = json.load(f)
        plan = "tp=8,pp=4,dp=4,mbs=1,schedule=1f1b"
        got = occam.estimate(config, "h100", plan, chips=128, **JOB)
        want = cli_json("estimate", "--model", path, "--cluster", "h100", "--chips", "128",
                        "--plan", plan, *JOB_ARGS)
        got.pop("model")  # named after the file it was read from
        want.pop("model")
        self.assertEqual(got, want)

    def test_flags_true_and_false(self):
        plan = "tp=2,pp=1,dp=16,mbs=1"
        on = occam.estimate("llama-3.1-8b", "h100", plan, chips=32, no_grad_overlap=True, **JOB)
        off = occam.estimate("llama-3.1-8b", "h100", plan, chips=32, no_grad_overlap=False, **JOB)
        self.assertFalse(on["job"]["overlap_grad_reduce"])
        self.assertTrue(off["job"]["overlap_grad_reduce"])

    def test_html_report(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "plan.html")
            occam.plan("llama-3.1-8b", "h100", chips=32, html=path, **JOB)
            with open(path, encoding="utf-8") as f:
                html = f.read()
        self.assertIn('id="top-layouts"', html)
        self.assertNotIn("http", html)


class OtherCommands(unittest.TestCase):
    def test_collective_equals_the_cli(self):
        got = occam.collective("h100", "all-reduce", "1GiB", chips=64)
        want = cli_json("collective", "--cluster", "h100", "--chips", "64", "--op", "all-reduce",
                        "--bytes", "1GiB")
        self.assertEqual(got, want)

    def test_simulate_equals_the_cli(self):
        got = occam.simulate(schedule="1f1b", stages=4, microbatches=8, fwd_ms=10, bwd_ms=20)
        want = cli_json("simulate", "--schedule", "1f1b", "--stages", "4", "--microbatches", "8",
                        "--fwd-ms", "10", "--bwd-ms", "20")
        self.assertEqual(got, want)

    def test_validate_from_a_run_list_equals_the_file(self):
        path = os.path.join(SOURCE, "testdata", "runs", "three_runs.json")
        with open(path, encoding="utf-8") as f:
            runs = json.load(f)
        self.assertEqual(occam.validate(runs), cli_json("validate", "--runs", path))
        self.assertEqual(occam.validate(path), cli_json("validate", "--runs", path))

    def test_budget_equals_the_cli(self):
        got = occam.budget("llama-3.1-8b", "h100", "1T", chips=64, top=5, threads=2,
                           seq_len=4096, global_batch_seqs=256)
        want = cli_json("budget", "--model", "llama-3.1-8b", "--cluster", "h100", "--tokens", "1T",
                        "--chips", "64", "--top", "5", "--threads", "2", "--seq-len", "4096",
                        "--global-batch-seqs", "256")
        self.assertEqual(without_timing(got), without_timing(want))

    def test_sweep_equals_the_cli(self):
        got = occam.sweep("llama-3.1-8b", ["h100"], chips=32, vary="scale-up-size=4,8", **JOB)
        want = cli_json("sweep", "--model", "llama-3.1-8b", "--clusters", "h100", "--chips", "32",
                        "--vary", "scale-up-size=4,8", *JOB_ARGS)
        self.assertEqual(without_timing(got), without_timing(want))

    def test_cli_warnings_are_python_warnings(self):
        path = os.path.join(SOURCE, "testdata", "frameworks", "torchtitan-warning.toml")
        args = ["estimate", "--from", "torchtitan", path, "--cluster", "h100", "--chips", "16"]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = occam.run(*args)
        code, cli_out, cli_err = cli(*args)
        self.assertEqual(code, 0)
        self.assertEqual(out, cli_out)
        self.assertEqual([str(w.message) for w in caught], cli_err.splitlines())
        self.assertTrue(any("warning" in str(w.message) for w in caught))

    def test_list(self):
        names = [m["name"] for m in occam.list_catalog("models")["models"]]
        self.assertIn("deepseek-v3", names)


class Errors(unittest.TestCase):
    def test_bad_plan_raises_the_cli_message(self):
        plan = "tp=3,pp=1,dp=16"
        with self.assertRaises(occam.Error) as caught:
            occam.estimate("llama-3.1-8b", "h100", plan, chips=32, **JOB)
        code, _, err = cli("estimate", "--model", "llama-3.1-8b", "--cluster", "h100", "--chips",
                           "32", "--plan", plan, *JOB_ARGS)
        self.assertEqual(caught.exception.exit_code, code)
        self.assertEqual(code, 2)
        self.assertEqual("occam: error: " + str(caught.exception) + "\n", err)

    def test_unknown_model_is_a_value_error(self):
        with self.assertRaises(ValueError) as caught:
            occam.plan("no-such-model", "h100", chips=8, **JOB)
        self.assertIn("no-such-model", str(caught.exception))

    def test_unknown_flag(self):
        with self.assertRaises(occam.Error) as caught:
            occam.plan("llama-3.1-8b", "h100", chips=8, no_such_flag=1)
        self.assertIn("--no-such-flag", str(caught.exception))


class Version(unittest.TestCase):
    def test_version_is_the_cli_version(self):
        code, out, _ = cli("--version")
        self.assertEqual(code, 0)
        self.assertEqual(out.strip(), "occam " + occam.__version__)


if __name__ == "__main__":
    unittest.main()
