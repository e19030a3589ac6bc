#!/usr/bin/env python3
"""rewrite-archive.py IN OUT RECORD TEXT - copies the zip archive IN to OUT
with the record whose name ends in /RECORD replaced by TEXT (or, when TEXT
is "truncate", by its first half): damaged PT2 archives for the importer's
error tests."""

import sys
import zipfile


def main():
    source, target, record, text = sys.argv[1:5]
    with zipfile.ZipFile(source) as old, \
            zipfile.ZipFile(target, "w", zipfile.ZIP_STORED) as new:
        for info in old.infolist():
            data = old.read(info)
            if info.filename.endswith("/" + record):
                data = data[:len(data) // 2] if text == "truncate" \
                    else text.encode()
            new.writestr(info.filename, data)


if __name__ == "__main__":
    main()
