import sys; sys.path.insert(0, "benches/campaign3")
import harness, c_files  # noqa
harness.report("/tmp/c3_files.json")
