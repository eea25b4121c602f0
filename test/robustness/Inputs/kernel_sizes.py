"""Summarizes the loop.kernel ops of a lowered module: how many, the ops in
the largest (lines of its body), and how many loop.sin ops in all.

usage: kernel_sizes.py FILE
"""

import sys


def main():
    kernels, current, depth, sins = [], None, 0, 0
    for line in open(sys.argv[1]):
        if "loop.sin" in line:
            sins += 1
        if current is None:
            if "loop.kernel" in line:
                current, depth = 0, line.count("{") - line.count("}")
            continue
        current += 1
        depth += line.count("{") - line.count("}")
        if depth <= 0:
            kernels.append(current)
            current = None
    print(f"kernels: {len(kernels)}")
    print(f"largest: {max(kernels, default=0)}")
    print(f"sin ops: {sins}")


if __name__ == "__main__":
    main()
