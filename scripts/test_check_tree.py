#!/usr/bin/env python3
"""Unit checks of scripts/check-tree's options parser (ctest: scripts.check_tree)."""
import importlib.machinery
import importlib.util
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
loader = importlib.machinery.SourceFileLoader("check_tree", str(HERE / "check-tree"))
spec = importlib.util.spec_from_loader("check_tree", loader)
ct = importlib.util.module_from_spec(spec)
loader.exec_module(ct)

HEADER = '''
struct FooOptions {
  /// doc with (paren, "quoted") text
  double kH = 1.0, kC = 1.0;  // two declarators
  std::optional<int> order = std::nullopt;
  std::vector<std::pair<int, int>> pairs = {{1, 2}};
  double z[2] = {0.0, 0.0};
  std::function<double(double, double)> fn;
  static constexpr int kMax = 5;
  using Kind = int;
  bool ok() const { return kH > 0; }
  int size() const;
};
'''


def main():
    got = ct.struct_members(HEADER, "FooOptions")
    want = ["kH", "kC", "order", "pairs", "z", "fn"]
    assert got == want, f"struct_members: {got} != {want}"
    listed = ct.LISTED_FIELD.findall('CUSK_OPTIONS(FooOptions, (kH, "hue (kC, kL) weights"), (kC, "chroma"))')
    assert listed == ["kH", "kC"], listed
    assert ct.struct_members(HEADER, "BarOptions") is None
    print("check-tree options parser: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
