#!/usr/bin/env python3
"""rewrite-archive.py IN OUT RECORD TEXT - copies the zip archive IN to OUT
with the record whose name ends in /RECORD replaced by TEXT; when TEXT is
"truncate", by its first half; when TEXT is "edit:STATEMENT", by the JSON
record after the Python STATEMENT ran on it as `j`: damaged PT2 archives
for the importer's error tests."""

import json
import sys
import zipfile


def main():
    source, target, record, text = sys.argv[1:5]
    with zipfile.ZipFile(source) as old, \
            zipfile.ZipFile(target, "w", zipfile.ZIP_STORED) as new:
        for info in old.infolist():
            data = old.read(info)
            if info.filename.endswith("/" + record):
                if text == "truncate":
                    data = data[:len(data) // 2]
                elif text.startswith("edit:"):
                    j = json.loads(data)
                    exec(text[len("edit:"):], {"j": j})
                    data = json.dumps(j).encode()
                else:
                    data = text.encode()
            new.writestr(info.filename, data)


if __name__ == "__main__":
    main()
