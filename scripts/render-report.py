#!/usr/bin/env python3
"""render-report.py - renders remat's charts and HTML report in headless chromium.

Loads a file (an SVG chart or an HTML report) in Debian's chromium, headless,
driven over the DevTools protocol on a pipe (no network, no Python package
beyond the standard library), and

  * fails when the page logs a console error or throws (any kind of page),
  * with --expect TEXT (repeatable), fails unless the rendered text shows TEXT,
  * with --check-sort, clicks each column header of every sortable table
    (table.ops) and fails unless its rows come out sorted by that column,
  * with --check-overlap, fails when two texts of a chart (an SVG, alone or
    in the page) overlap as drawn,
  * with --png FILE, writes a screenshot of the whole page (of its top
    --max-height pixels).

Usage:
  render-report.py FILE.html [--expect TEXT]... [--check-sort] [--check-overlap]
                   [--png OUT.png]
  render-report.py FILE.svg [--expect TEXT]... [--check-overlap] [--png OUT.png]

Exits 0 when every check passes; otherwise prints what failed and exits 1
(2 when chromium cannot be started).
"""

import argparse
import base64
import fcntl
import json
import os
import shutil
import subprocess
import sys
import tempfile


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


class DevTools:
    """A DevTools session over --remote-debugging-pipe (fds 3 and 4)."""

    def __init__(self, chromium, profile):
        to_browser_r, self.to_browser = os.pipe()
        self.from_browser, from_browser_w = os.pipe()

        def child_fds():
            # Through fds above 4, so that neither move clobbers the other.
            read_end = fcntl.fcntl(to_browser_r, fcntl.F_DUPFD, 10)
            write_end = fcntl.fcntl(from_browser_w, fcntl.F_DUPFD, 10)
            os.dup2(read_end, 3)
            os.dup2(write_end, 4)

        self.process = subprocess.Popen(
            [chromium, "--headless", "--remote-debugging-pipe", "--no-sandbox",
             "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
             "--no-default-browser-check",
             "--disable-extensions", "--disable-background-networking",
             "--hide-scrollbars", "--user-data-dir=" + profile, "about:blank"],
            # Kept open in the child after preexec_fn moved the pipes there.
            pass_fds=(3, 4), preexec_fn=child_fds,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_browser_r)
        os.close(from_browser_w)
        self.buffer = b""
        self.next_id = 0
        self.events = []
        self.session = None

    def _read_message(self):
        while b"\0" not in self.buffer:
            chunk = os.read(self.from_browser, 1 << 16)
            if not chunk:
                raise RuntimeError("chromium closed the DevTools pipe")
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def call(self, method, params=None, session=True):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            message["sessionId"] = self.session
        os.write(self.to_browser, json.dumps(message).encode() + b"\0")
        while True:
            reply = self._read_message()
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            if "method" in reply:
                self.events.append(reply)

    def wait_for(self, method):
        for index, event in enumerate(self.events):
            if event["method"] == method:
                return self.events.pop(index)
        while True:
            event = self._read_message()
            if event.get("method") == method:
                return event
            if "method" in event:
                self.events.append(event)

    def close(self):
        try:
            self.call("Browser.close", session=False)
        except (RuntimeError, OSError):
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()


def console_errors(events):
    """The console errors and uncaught exceptions among `events`."""
    errors = []
    for event in events:
        method, params = event["method"], event.get("params", {})
        if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            args = [str(a.get("value", a.get("description", ""))) for a in params.get("args", [])]
            errors.append("console." + params["type"] + ": " + " ".join(args))
        elif method == "Runtime.exceptionThrown":
            details = params.get("exceptionDetails", {})
            errors.append("exception: " + details.get("exception", {}).get(
                "description", details.get("text", "")))
        elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
            errors.append("log: " + params["entry"].get("text", ""))
    return errors


# Clicks every header of every table.ops (ascending first) and returns the
# headers whose column did not come out sorted.
CHECK_SORT = r"""
(function () {
  var failures = [], checked = 0;
  document.querySelectorAll('table.ops').forEach(function (table, t) {
    table.querySelectorAll('th').forEach(function (th, column) {
      th.click();
      var numeric = th.classList.contains('num');
      var cells = Array.prototype.map.call(table.tBodies[0].rows,
                                           function (row) { return row.cells[column]; });
      for (var i = 1; i < cells.length; ++i) {
        var order = numeric
            ? Number(cells[i - 1].dataset.v) - Number(cells[i].dataset.v)
            : cells[i - 1].textContent.localeCompare(cells[i].textContent);
        if (order > 0) { failures.push('table ' + t + ' column ' + th.textContent); break; }
      }
      checked += 1;
    });
  });
  return JSON.stringify({failures: failures, checked: checked});
})()
"""


# The pairs of texts of each SVG whose drawn boxes overlap (by more than a
# pixel each way), and how many texts were compared.
CHECK_OVERLAP = r"""
(function () {
  var overlaps = [], texts = 0;
  var svgs = document.documentElement.tagName == 'svg'
      ? [document.documentElement] : document.querySelectorAll('svg');
  Array.prototype.forEach.call(svgs, function (svg) {
    var boxes = Array.prototype.map.call(svg.querySelectorAll('text'), function (text) {
      return {box: text.getBoundingClientRect(), text: text.textContent};
    }).filter(function (t) { return t.box.width > 0; });
    texts += boxes.length;
    for (var i = 0; i < boxes.length; ++i)
      for (var j = i + 1; j < boxes.length; ++j) {
        var a = boxes[i].box, b = boxes[j].box;
        if (a.left + 1 < b.right && b.left + 1 < a.right &&
            a.top + 1 < b.bottom && b.top + 1 < a.bottom)
          overlaps.push(boxes[i].text + ' / ' + boxes[j].text);
      }
  });
  return JSON.stringify({overlaps: overlaps, texts: texts});
})()
"""


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file")
    parser.add_argument("--expect", action="append", default=[],
                        help="text the rendered page must show")
    parser.add_argument("--check-sort", action="store_true",
                        help="check that each table.ops sorts by every column")
    parser.add_argument("--check-overlap", action="store_true",
                        help="check that no two texts of a chart overlap")
    parser.add_argument("--png", help="write a screenshot of the whole page")
    parser.add_argument("--max-height", type=int,
                        help="cut the screenshot at this height (pixels)")
    parser.add_argument("--width", type=int, default=1100,
                        help="viewport width for pages (SVGs use their own)")
    args = parser.parse_args()

    chromium = find_chromium()
    if not chromium:
        print("render-report: chromium not found (scripts/install-deps.sh installs it)",
              file=sys.stderr)
        return 2
    path = os.path.abspath(args.file)
    if not os.path.isfile(path):
        print(f"render-report: no such file: {args.file}", file=sys.stderr)
        return 2

    failures = []
    with tempfile.TemporaryDirectory(prefix="remat-render-") as profile:
        tools = DevTools(chromium, profile)
        try:
            target = tools.call("Target.createTarget", {"url": "about:blank"})
            attached = tools.call("Target.attachToTarget",
                                  {"targetId": target["targetId"], "flatten": True})
            tools.session = attached["sessionId"]
            for domain in ("Runtime", "Log", "Page"):
                tools.call(domain + ".enable")
            tools.call("Emulation.setDeviceMetricsOverride",
                       {"width": args.width, "height": 800, "deviceScaleFactor": 1,
                        "mobile": False})
            tools.call("Page.navigate", {"url": "file://" + path})
            tools.wait_for("Page.loadEventFired")

            def evaluate(expression):
                result = tools.call("Runtime.evaluate",
                                    {"expression": expression, "returnByValue": True})
                if "exceptionDetails" in result:
                    raise RuntimeError(f"evaluating {expression[:40]}...: "
                                       f"{result['exceptionDetails']}")
                return result["result"].get("value")

            text = evaluate("document.documentElement.textContent")
            for expected in args.expect:
                if expected not in text:
                    failures.append(f"the page does not show {expected!r}")
            if args.check_sort:
                sorted_check = json.loads(evaluate(CHECK_SORT))
                if sorted_check["checked"] == 0:
                    failures.append("no sortable table (table.ops) on the page")
                failures += ["not sorted after a click: " + f for f in sorted_check["failures"]]
            if args.check_overlap:
                overlap = json.loads(evaluate(CHECK_OVERLAP))
                if overlap["texts"] == 0:
                    failures.append("no chart text to check for overlaps")
                failures += ["texts overlap: " + o for o in overlap["overlaps"]]
            if args.png:
                # An SVG document by its own size, a page by its content.
                size = evaluate("(function (e) { var r = e.getBoundingClientRect();"
                                " return JSON.stringify(e.tagName == 'svg'"
                                " ? [Math.ceil(r.width), Math.ceil(r.height)]"
                                " : [e.scrollWidth, e.scrollHeight]); })"
                                "(document.documentElement)")
                width, height = json.loads(size)
                if args.max_height:
                    height = min(height, args.max_height)
                tools.call("Emulation.setDeviceMetricsOverride",
                           {"width": width, "height": height, "deviceScaleFactor": 1,
                            "mobile": False})
                shot = tools.call("Page.captureScreenshot", {"format": "png"})
                with open(args.png, "wb") as out:
                    out.write(base64.b64decode(shot["data"]))
            # Let late console messages arrive.
            evaluate("0")
            failures += ["console error: " + e for e in console_errors(tools.events)]
        finally:
            tools.close()

    for failure in failures:
        print(f"render-report: {args.file}: {failure}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
