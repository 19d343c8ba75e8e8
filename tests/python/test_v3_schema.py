"""The records of kbench for Python against the PyTorch hub's oss_ci_benchmark_v3 table
(tests/data/v3-schema): every field present, no other, each with the table's type."""

import json
from pathlib import Path

import numpy as np

import kbench

SCHEMA = json.loads((Path(__file__).parents[1] / "data" / "v3-schema" / "oss_ci_benchmark_v3.json").read_text())


def errors_of(value, kind, path="record"):
    """What in `value` does not conform to `kind` (a type name, a tuple's fields, {"Array": ...} or {"Map": ...})."""
    if isinstance(kind, str):
        if kind == "String":
            return [] if isinstance(value, str) else [f"{path}: not a String: {value!r}"]
        if kind in ("UInt64", "UInt32"):
            limit = 2**64 if kind == "UInt64" else 2**32
            ok = isinstance(value, int) and not isinstance(value, bool) and 0 <= value < limit
            return [] if ok else [f"{path}: not a {kind}: {value!r}"]
        if kind == "Float32":
            ok = isinstance(value, (int, float)) and not isinstance(value, bool)
            return [] if ok else [f"{path}: not a Float32: {value!r}"]
        if kind in ("Array(String)", "Array(Float32)"):
            if not isinstance(value, list):
                return [f"{path}: not an Array"]
            item = "String" if kind == "Array(String)" else "Float32"
            return [e for i, v in enumerate(value) for e in errors_of(v, item, f"{path}[{i}]")]
        if kind == "Map(String, String)":
            if not isinstance(value, dict):
                return [f"{path}: not a Map"]
            return [e for k, v in value.items() for e in errors_of(v, "String", f"{path}.{k}")]
        return [f"{path}: unknown type {kind}"]
    if "Array" in kind:
        if not isinstance(value, list):
            return [f"{path}: not an Array"]
        return [e for i, v in enumerate(value) for e in errors_of(v, kind["Array"], f"{path}[{i}]")]
    if "Map" in kind:
        if not isinstance(value, dict):
            return [f"{path}: not a Map"]
        return [e for k, v in value.items() for e in errors_of(v, kind["Map"], f"{path}.{k}")]
    if not isinstance(value, dict):
        return [f"{path}: not a Tuple"]
    errors = [f"{path}.{f}: missing" for f in kind if f not in value]
    errors += [f"{path}.{f}: not in the schema" for f in value if f not in kind]
    return errors + [e for f, t in kind.items() if f in value for e in errors_of(value[f], t, f"{path}.{f}")]


def test_measure_records_conform_to_the_hub_table():
    a = np.ones(4096)
    m = kbench.measure(lambda: np.exp(a), repeat=8, throughput_batches=1, name="numpy_exp")
    for record in m.to_records(shape="[4096]", timestamp=1_700_000_000, run="nightly"):
        assert errors_of(record, SCHEMA["fields"]) == []


def test_the_check_finds_a_number_in_a_map_of_strings():
    a = np.ones(16)
    record = kbench.measure(lambda: np.exp(a), repeat=4, throughput_batches=1).to_records()[0]
    record["metric"]["extra_info"]["median"] = 1.5
    del record["job_id"]
    errors = errors_of(record, SCHEMA["fields"])
    assert "record.metric.extra_info.median: not a String: 1.5" in errors
    assert "record.job_id: missing" in errors
