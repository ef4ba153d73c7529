"""The page (web/) in a real headless browser, Debian's chromium with its own
--dump-dom: it loads, plans DeepSeek-V3 on 2048 H800 with the verdict and
layouts the CLI gives for the same inputs, and shows an invalid config's
error with the CLI's message.

Run by scripts/web_test.sh with OCCAM_WEB_DIR (the built page) and
OCCAM_BINARY (the native CLI) set.
"""

import html.parser
import json
import os
import subprocess
import tempfile
import unittest
import urllib.parse

WEB_DIR = os.environ.get("OCCAM_WEB_DIR", "build-web/web")
BINARY = os.environ.get("OCCAM_BINARY", "build/occam")
CHROMIUM = os.environ.get("CHROMIUM", "chromium")

DEMO = dict(model="deepseek-v3", cluster="h800", chips="2048", seq_len="4096", tokens="16M")


class Elements(html.parser.HTMLParser):
    """Each element with an id: its attributes and its text."""

    def __init__(self):
        super().__init__()
        self.by_id = {}
        self.open = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        entry = {"tag": tag, "attrs": attrs, "text": ""}
        if "id" in attrs:
            self.by_id[attrs["id"]] = entry
        if tag not in ("meta", "link", "input", "br", "img"):
            self.open.append(entry)
        if tag == "body":
            self.by_id["body"] = entry

    def handle_endtag(self, tag):
        while self.open:
            if self.open.pop()["tag"] == tag:
                break

    def handle_data(self, data):
        for entry in self.open:
            entry["text"] += data


def page(**query):
    """The page's DOM after it has loaded and run the query."""
    url = "file://" + os.path.abspath(os.path.join(WEB_DIR, "index.html"))
    url += "?" + urllib.parse.urlencode(query)
    with tempfile.TemporaryDirectory() as profile:
        p = subprocess.run(
            [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
             "--user-data-dir=" + profile, "--virtual-time-budget=600000", "--dump-dom", url],
            capture_output=True, text=True, timeout=600, check=False)
    parser = Elements()
    parser.feed(p.stdout)
    return parser.by_id


def cli(*args):
    return subprocess.run([BINARY, *args], capture_output=True, text=True, check=False)


class Page(unittest.TestCase):
    def test_plan_equals_the_cli(self):
        dom = page(run="1", **DEMO)
        self.assertEqual(dom["body"]["attrs"].get("data-state"), "done", dom.get("error"))
        p = cli("plan", "--model", DEMO["model"], "--cluster", DEMO["cluster"], "--chips",
                DEMO["chips"], "--seq-len", DEMO["seq_len"], "--global-batch-tokens",
                DEMO["tokens"], "--top", "10", "--json")
        self.assertEqual(p.returncode, 0, p.stderr)
        want = json.loads(p.stdout)
        verdict = dom["verdict"]
        self.assertEqual(verdict["text"], want["pp_verdict"])
        self.assertEqual(verdict["attrs"]["data-pp-needed"], str(want["pp_needed"]).lower())
        self.assertEqual(dom["best"]["text"], want["best"]["plan"])
        self.assertEqual(dom["simplest"]["text"], want["simplest"]["plan"])
        self.assertEqual(dom["no_pp"]["text"], want["best_without_pp"]["plan"])
        # The report's charts, computed in the page.
        report = dom["report"]["attrs"]["srcdoc"]
        for chart in ("memory-0", "step-split", "top-layouts"):
            self.assertIn('id="%s"' % chart, report)

    def test_invalid_config_shows_the_cli_message(self):
        config = '{"model_type": "llama", "hidden_size": -4096}'
        dom = page(run="1", config=config, **DEMO)
        self.assertEqual(dom["body"]["attrs"].get("data-state"), "error")
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "config.json")
            with open(path, "w", encoding="utf-8") as f:
                f.write(config)
            p = cli("plan", "--model", path, "--cluster", DEMO["cluster"], "--chips",
                    DEMO["chips"], "--seq-len", DEMO["seq_len"], "--global-batch-tokens",
                    DEMO["tokens"], "--top", "10", "--json")
        self.assertEqual(p.returncode, 2)
        want = p.stderr.strip().replace("occam: error: ", "", 1).replace(path, "/config.json")
        self.assertEqual(dom["error"]["text"], want)


if __name__ == "__main__":
    unittest.main()
