#!/usr/bin/env python3
"""Checks of perf_tables.py (standard library only):  python3 bench/compare/test_perf_tables.py"""
import json
import pathlib
import sys
import tempfile
import unittest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import perf_tables as pt  # noqa: E402


def row(op, shape, dtype, ours, **kw):
    r = {"op": op, "shape": shape, "dtype": dtype, "ours": ours, "floor": None, "cupy": None, "cucim": None,
         "skimage": None, "date": "2026-01-01", "commit": "aaaaaaa", "source": "test"}
    r.update(kw)
    return r


def store():
    return {"util": {"module": "util", "unit": "ms", "rows": [
        row("invert", "8192x8192", "uint8", 0.039, floor=0.032, bench="BM_Invert_u8/2"),
        row("invert", "2160x3840", "uint8", 0.011, cupy=0.043),
        row("img_as_float", "8192x8192", "uint16 → float64", 0.173, note="range check"),
    ]}, "wsi": {"module": "wsi", "unit": "tiles/s", "rows": [
        row("read, aligned", "20000x20000", "JPEG", 78700, cucim=39164),
    ]}}


def bench_file(entries):
    f = tempfile.NamedTemporaryFile("w", suffix=".json", delete=False)
    json.dump({"context": {}, "benchmarks": entries}, f)
    f.close()
    return f.name


class Format(unittest.TestCase):
    def test_shapes(self):
        self.assertEqual(pt.fmt_shape("8192x8192"), "8192²")
        self.assertEqual(pt.fmt_shape("192x192x192"), "192³")
        self.assertEqual(pt.fmt_shape("4096x4096x3"), "4096²×3")
        self.assertEqual(pt.fmt_shape("2160x3840"), "2160×3840")
        self.assertEqual(pt.shape_key("3840x2160"), pt.shape_key("2160x3840"))

    def test_values(self):
        self.assertEqual(pt.fmt_value(None, "ms"), pt.DASH)
        self.assertEqual(pt.fmt_value(0.0034, "ms"), "0.0034")
        self.assertEqual(pt.fmt_value(0.39, "ms"), "0.390")
        self.assertEqual(pt.fmt_value(2.2, "ms"), "2.20")
        self.assertEqual(pt.fmt_value(19.6, "ms"), "19.6")
        self.assertEqual(pt.fmt_value(55328, "ms"), "55,328")
        self.assertEqual(pt.fmt_value(78700, "tiles/s"), "78,700")
        self.assertEqual(pt.fmt_value("0.339–0.364", "ms"), "0.339–0.364")


class Render(unittest.TestCase):
    def test_table(self):
        lines = pt.table(store()["util"])
        self.assertEqual(lines[0], "| op | shape | dtype | ours (ms) | floor (ms) | CuPy (ms) | cuCIM (ms) | "
                                   "scikit-image (ms) | date | commit |")
        self.assertEqual(len(lines), 5)
        self.assertIn("| `invert` | 8192² | uint8 | 0.039 | 0.032 | — | — | — | 2026-01-01 | aaaaaaa |", lines)
        self.assertTrue(lines[4].startswith("| `img_as_float` (range check) |"))

    def test_mixed_units_go_into_the_cells(self):
        doc = store()["util"]
        doc["rows"][0]["unit"] = "s"
        lines = pt.table(doc)
        self.assertIn("| ours | floor |", lines[0])
        self.assertIn("0.039 s", lines[2])
        self.assertIn("0.011 ms", lines[3])

    def test_sections_replaced_and_checked(self):
        text = ("# P\n\n## util\n\n" + pt.BEGIN.format("util", "util") + "\nold\n" + pt.END.format("util") +
                "\n\nwhy\n\n" + "<!-- perf-table:wsi -->\n" + pt.END.format("wsi") + "\n")
        out = pt.render(text, store())
        self.assertNotIn("old", out)
        self.assertIn("why", out)
        self.assertIn("| `read, aligned` | 20000² | JPEG | 78,700 |", out)
        self.assertEqual(pt.render(out, store()), out)  # idempotent
        with self.assertRaises(ValueError):  # a module without a section
            pt.render("# P\n", store())
        with self.assertRaises(ValueError):  # a section without results
            pt.render(out + "<!-- perf-table:nope -->\n<!-- /perf-table:nope -->\n", store())


class Update(unittest.TestCase):
    def test_from_google_benchmark(self):
        s = store()
        path = bench_file([
            {"name": "BM_Invert_u8/2/manual_time", "run_name": "BM_Invert_u8/2/manual_time", "run_type": "iteration",
             "real_time": 35.0, "time_unit": "us", "floor_ms": 0.0319},
            {"name": "BM_Invert_u8/20/manual_time", "run_name": "BM_Invert_u8/20/manual_time",
             "run_type": "iteration", "real_time": 1.0, "time_unit": "ms"},
        ])
        log = pt.update(s, date="2026-02-02", commit="bbbbbbb", source="h200", bench_json=[path])
        r = s["util"]["rows"][0]
        self.assertEqual((r["ours"], r["floor"], r["date"], r["commit"]), (0.035, 0.0319, "2026-02-02", "bbbbbbb"))
        self.assertEqual(len(log), 1)  # BM_Invert_u8/20 is not BM_Invert_u8/2
        self.assertEqual(s["util"]["rows"][1]["commit"], "aaaaaaa")  # untouched

    def test_median_aggregate_wins(self):
        path = bench_file([
            {"name": "BM_X/manual_time", "run_name": "BM_X/manual_time", "run_type": "iteration", "real_time": 9.0,
             "time_unit": "ms"},
            {"name": "BM_X/manual_time_median", "run_name": "BM_X/manual_time", "run_type": "aggregate",
             "aggregate_name": "median", "real_time": 2.0, "time_unit": "ms"},
        ])
        self.assertEqual(pt.find_bench("BM_X", pt.bench_results([path]))["ms"], 2.0)

    def test_from_compare_rows(self):
        s = store()
        rows = [{"module": "util", "op": "invert", "shape": "3840x2160", "dtype": "uint8", "ours": 0.012,
                 "floor": None, "cupy": 0.05, "cucim": 0.04, "skimage": None},
                {"module": "util", "op": "crop (copy)", "shape": "512x512", "dtype": "uint8", "ours": 0.004,
                 "floor": None, "cupy": 0.01, "cucim": None, "skimage": None, "bench": "BM_CropCopy_u8/0"}]
        log = pt.update(s, date="2026-02-02", commit="ccccccc", source="cmp", rows=rows)
        r = s["util"]["rows"][1]
        self.assertEqual((r["ours"], r["cupy"], r["cucim"], r["commit"]), (0.012, 0.05, 0.04, "ccccccc"))
        self.assertEqual(len(s["util"]["rows"]), 3)
        self.assertTrue(any("no row for crop (copy)" in line for line in log))
        pt.update(s, date="2026-02-02", commit="ccccccc", source="cmp", rows=rows, add=True)
        self.assertEqual(s["util"]["rows"][3]["bench"], "BM_CropCopy_u8/0")

    def test_store_round_trip(self):
        with tempfile.TemporaryDirectory() as d:
            pt.save_store(store(), pathlib.Path(d))
            text = (pathlib.Path(d) / "util.json").read_text()
            self.assertEqual(text.count('{"op"'), 3)  # one row per line
            self.assertEqual(pt.load_store(pathlib.Path(d)), store())


class Committed(unittest.TestCase):
    def test_store_is_valid_and_doc_is_current(self):
        s = pt.load_store()
        self.assertIn("filters", s)
        for module, doc in s.items():
            keys = [pt.row_key(r.get("compare", r["op"]), r["shape"], r["dtype"]) for r in doc["rows"]]
            self.assertEqual(len(keys), len(set(keys)), f"{module}: duplicate rows")
            for r in doc["rows"]:
                self.assertRegex(r["date"], r"^\d{4}-\d\d-\d\d$")
                self.assertRegex(r["commit"], r"^[0-9a-f]{7,40}$")
        self.assertEqual(pt.render(pt.DOC.read_text(), s), pt.DOC.read_text(),
                         "docs/PERFORMANCE.md is out of date: run bench/compare/perf_tables.py render")


if __name__ == "__main__":
    unittest.main()
