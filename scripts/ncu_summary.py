#!/usr/bin/env python3
"""Summarises `ncu --csv --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum`
output: one line per launch (kernel, time, DRAM bytes, achieved GB/s), in launch order; with
--by-kernel, one line per kernel name (launches, total time, DRAM bytes) and the sum instead."""
import csv
import sys


def main(path: str, by_kernel: bool = False) -> None:
    rows = {}
    with open(path, newline="") as f:
        lines = [l for l in f if l.startswith('"')]
    for r in csv.DictReader(lines):
        key = (int(r["ID"]), r["Kernel Name"][:90])
        unit = r.get("Metric Unit", "")
        v = float(r["Metric Value"].replace(",", ""))
        scale = {"nsecond": 1e-6, "usecond": 1e-3, "msecond": 1.0, "second": 1e3,
                 "byte": 1.0, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9,
                 "ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3, "B": 1.0, "KB": 1e3, "MB": 1e6, "GB": 1e9}.get(unit, 1.0)
        rows.setdefault(key, {})[r["Metric Name"]] = v * scale
    if by_kernel:
        tot = {}
        for (i, name), m in rows.items():
            t = tot.setdefault(name, [0, 0.0, 0.0])
            t[0] += 1
            t[1] += m.get("gpu__time_duration.sum", 0.0)
            t[2] += (m.get("dram__bytes_read.sum", 0.0) + m.get("dram__bytes_write.sum", 0.0)) / 1e6
        for name, (n, ms, mb) in sorted(tot.items(), key=lambda kv: -kv[1][1]):
            print(f"{n:5d}x {ms:9.4f} ms {mb:9.1f} MB  {name}")
        print(f"total {sum(t[1] for t in tot.values()):.4f} ms over {sum(t[0] for t in tot.values())} launches")
        return
    for (i, name), m in sorted(rows.items()):
        ms = m.get("gpu__time_duration.sum", 0.0)
        mb = (m.get("dram__bytes_read.sum", 0.0) + m.get("dram__bytes_write.sum", 0.0)) / 1e6
        gbs = mb / ms if ms else 0.0
        print(f"{i:4d} {ms:9.4f} ms {mb:9.1f} MB {gbs:7.0f} GB/s  {name}")


if __name__ == "__main__":
    main(sys.argv[1], "--by-kernel" in sys.argv[2:])
