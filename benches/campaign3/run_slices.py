import sys, os; sys.path.insert(0, os.path.abspath("benches/campaign3"))
import harness, c_slices  # noqa
harness.report("/tmp/c3_sl.json")
