#!/usr/bin/env python3
"""Checks that every folder of src/ includes only folders of lower layers
(docs/ARCHITECTURE.md, "Layers"). Prints each violation and exits 1 if any.

    tools/check_layers.py [SRC_DIR]
"""
import os
import re
import sys

LAYERS = {
    "common": 0,
    "transport": 1,
    "memory": 1,
    "sched": 1,
    "stats": 2,
    "protocol": 3,
    "sync": 4,
    "runtime": 5,
    "api": 6,
    "omp": 6,
    "interpose": 6,
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/[^"]+"')


def violations(src):
    found = []
    for folder in sorted(os.listdir(src)):
        path = os.path.join(src, folder)
        if not os.path.isdir(path):
            continue
        if folder not in LAYERS:
            found.append(f"{folder}/: folder has no layer in tools/check_layers.py (docs/ARCHITECTURE.md)")
            continue
        for name in sorted(os.listdir(path)):
            if not name.endswith((".h", ".cc")):
                continue
            with open(os.path.join(path, name), encoding="utf-8") as f:
                for number, line in enumerate(f, 1):
                    m = INCLUDE.match(line)
                    if not m or m.group(1) == folder:
                        continue
                    target = m.group(1)
                    if target not in LAYERS:
                        continue
                    if LAYERS[target] >= LAYERS[folder]:
                        found.append(f"{folder}/{name}:{number}: includes {target}/ "
                                     f"(layer {LAYERS[target]}) from layer {LAYERS[folder]}")
    return found


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "src")
    bad = violations(src)
    for v in bad:
        print(v)
    print(f"check_layers: {len(bad)} violation(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
