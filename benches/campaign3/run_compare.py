import sys; sys.path.insert(0, "benches/campaign3")
import harness, c_compare  # noqa
harness.report("/tmp/c3_cmp.json")
