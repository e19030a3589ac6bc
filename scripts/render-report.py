#!/usr/bin/env python3
"""render-report.py - renders remat's charts and HTML report in headless chromium.

Loads a file (an SVG chart or an HTML report) in Debian's chromium, headless,
driven over the DevTools protocol on a pipe (no network, no Python package
beyond the standard library), and

  * fails when the page logs a console error or throws (any kind of page),
  * with --expect TEXT (repeatable), fails unless the rendered text shows TEXT:
    a page's document.body.innerText and the visible <text> of its SVGs (an
    SVG's visible <text> elements alone), never a hidden <title> tooltip or
    the text of a <style> or <script>,
  * with --check-sort, clicks each column header of every sortable table
    (table.ops) twice and fails unless its rows come out sorted by that
    column, ascending then descending, as Python compares them (numbers by
    their data-v, text by a collation key), not by the page's own comparator,
  * with --check-overlap, fails when two texts of a chart (an SVG, alone or
    in the page) overlap as drawn,
  * with --png FILE, writes a screenshot of the whole page (of its top
    --max-height pixels).

Usage:
  render-report.py FILE.html [--expect TEXT]... [--check-sort] [--check-overlap]
                   [--png OUT.png]
  render-report.py FILE.svg [--expect TEXT]... [--check-overlap] [--png OUT.png]

Exits 0 when every check passes; otherwise prints what failed and exits 1
(2 when chromium cannot be started, closes the DevTools pipe, or does not
answer within --timeout seconds, 60 by default).
"""

import argparse
import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


class ChromiumError(RuntimeError):
    """Chromium closed the pipe or did not answer in time: exit 2."""


class DevTools:
    """A DevTools session over --remote-debugging-pipe (fds 3 and 4)."""

    def __init__(self, chromium, profile, timeout=60.0):
        self.timeout = timeout
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

    def _read_message(self, deadline, waiting_for):
        while b"\0" not in self.buffer:
            left = deadline - time.monotonic()
            ready = select.select([self.from_browser], [], [], max(left, 0))[0] if left > 0 else []
            if not ready:
                raise ChromiumError(f"chromium did not answer {waiting_for} within "
                                    f"{self.timeout:g} s")
            chunk = os.read(self.from_browser, 1 << 16)
            if not chunk:
                raise ChromiumError(f"chromium closed the DevTools pipe (waiting for "
                                    f"{waiting_for}; exit status {self.process.poll()})")
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def call(self, method, params=None, session=True):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            message["sessionId"] = self.session
        try:
            os.write(self.to_browser, json.dumps(message).encode() + b"\0")
        except BrokenPipeError:
            raise ChromiumError(f"chromium closed the DevTools pipe (sending {method})")
        deadline = time.monotonic() + self.timeout
        while True:
            reply = self._read_message(deadline, method)
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
        deadline = time.monotonic() + self.timeout
        while True:
            event = self._read_message(deadline, method)
            if event.get("method") == method:
                return event
            if "method" in event:
                self.events.append(event)

    def close(self):
        # Closing does not wait long for a chromium that stopped answering.
        self.timeout = min(self.timeout, 10.0)
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


# Clicks every header of every table.ops twice (ascending, then descending)
# and returns, after each click, the column's cells in row order: their data-v
# for a numeric column, else their text. Python judges the order.
CLICK_SORT = r"""
(function () {
  var columns = [];
  document.querySelectorAll('table.ops').forEach(function (table, t) {
    table.querySelectorAll('th').forEach(function (th, column) {
      var numeric = th.classList.contains('num');
      var clicks = [];
      for (var click = 0; click < 2; ++click) {
        th.click();
        clicks.push(Array.prototype.map.call(table.tBodies[0].rows, function (row) {
          var cell = row.cells[column];
          return numeric ? cell.dataset.v : cell.textContent;
        }));
      }
      columns.push({table: t, header: th.textContent, numeric: numeric, clicks: clicks});
    });
  });
  return JSON.stringify(columns);
})()
"""

# The order of punctuation before digits before letters in the Unicode
# collation (CLDR root), which localeCompare follows for ASCII.
_PUNCTUATION = "_-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$"


def collation_key(text):
    """A key that orders ASCII text as a browser's default collation does at
    the primary level: case-insensitive, punctuation < digits < letters, with
    lower case before upper case to break ties."""
    def char_key(c):
        if c.isspace():
            return (0, 0, c)
        if c in _PUNCTUATION:
            return (1, _PUNCTUATION.index(c), c)
        if c.isdigit():
            return (2, ord(c), c)
        return (3, ord(c.casefold()[0]) if c.casefold() else 0, c)
    primary = [char_key(c)[:2] for c in text]
    tertiary = [0 if c.islower() or not c.isalpha() else 1 for c in text]
    return (primary, tertiary)


def sort_failures(columns):
    """The columns whose cells were not sorted after the first click
    (ascending) or the second (descending)."""
    failures = []
    for column in columns:
        if column["numeric"]:
            key = float
        else:
            key = collation_key
        for click, descending in zip(column["clicks"], (False, True)):
            try:
                keys = [key(cell) for cell in click]
            except ValueError as error:
                failures.append(f"table {column['table']} column {column['header']}: "
                                f"{error}")
                break
            for before, after, a, b in zip(keys, keys[1:], click, click[1:]):
                if (after > before) if descending else (after < before):
                    order = "descending" if descending else "ascending"
                    failures.append(f"table {column['table']} column {column['header']} "
                                    f"({order}): {a!r} before {b!r}")
                    break
    return failures


# The text a reader sees: a page's body.innerText (no <title> tooltip, no
# <style> or <script>, nothing hidden) and the visible <text> of its SVGs;
# for an SVG document, its visible <text> elements.
VISIBLE_TEXT = r"""
(function () {
  function svgTexts(root) {
    return Array.prototype.filter.call(root.querySelectorAll('text'), function (text) {
      var style = getComputedStyle(text);
      var box = text.getBoundingClientRect();
      return style.display != 'none' && style.visibility != 'hidden' &&
             Number(style.opacity) > 0 && box.width > 0 && box.height > 0;
    }).map(shownText);
  }
  // A <text>'s characters, less those of a <title> or <desc> in it (a
  // tooltip is not drawn).
  function shownText(node) {
    if (node.nodeType == Node.TEXT_NODE)
      return node.data;
    if (node.nodeType != Node.ELEMENT_NODE ||
        ['title', 'desc', 'style', 'script'].indexOf(node.localName) >= 0)
      return '';
    return Array.prototype.map.call(node.childNodes, shownText).join('');
  }
  var root = document.documentElement;
  if (root.tagName == 'svg')
    return svgTexts(root).join('\n');
  return [document.body ? document.body.innerText : ''].concat(svgTexts(root)).join('\n');
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
    parser.add_argument("--timeout", type=float, default=60.0,
                        help="seconds to wait for each answer of chromium")
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
        try:
            tools = DevTools(chromium, profile, args.timeout)
        except OSError as error:
            print(f"render-report: cannot start chromium: {error}", file=sys.stderr)
            return 2
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

            text = evaluate(VISIBLE_TEXT)
            for expected in args.expect:
                if expected not in text:
                    failures.append(f"the page does not show {expected!r}")
            if args.check_sort:
                columns = json.loads(evaluate(CLICK_SORT))
                if not columns:
                    failures.append("no sortable table (table.ops) on the page")
                failures += ["not sorted after a click: " + f for f in sort_failures(columns)]
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
        except ChromiumError as error:
            print(f"render-report: {args.file}: {error}", file=sys.stderr)
            return 2
        finally:
            tools.close()

    for failure in failures:
        print(f"render-report: {args.file}: {failure}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
