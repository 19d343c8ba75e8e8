"""v3 records of kbench.measure and the results file they go to: kbench's own record writer (atomic append,
a file it did not write refused and left as it was)."""

import json

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import kbench

METRICS = ["latency_ms", "throughput_ms", "device_ms", "capture_ratio", "machine_disturbed"]


def test_records_carry_the_samples_the_checks_and_the_framework():
    a = np.ones(1024)
    m = kbench.measure(lambda: np.exp(a), repeat=8, throughput_batches=2, name="numpy_exp")
    records = m.to_records(shape="[1024]", timestamp=1_700_000_000, run="nightly")
    assert [r["metric"]["name"] for r in records] == METRICS
    latency = records[0]
    assert latency["schema_version"] == "v3" and latency["timestamp"] == 1_700_000_000
    assert latency["model"]["name"] == "numpy_exp" and latency["model"]["backend"] == "host"
    assert latency["metric"]["benchmark_values"] == pytest.approx(m.wall_ms)
    # extra_info maps hold strings (the hub's Map(String, String)): other values as their JSON text.
    assert float(latency["metric"]["extra_info"]["median"]) == pytest.approx(m.wall.median)
    assert latency["metric"]["extra_info"]["valid"] == "true"
    extra = latency["benchmark"]["extra_info"]
    assert (extra["shape"], extra["status"], extra["backend"], extra["run"]) == ("[1024]", "ok", "host", "nightly")
    # What else ran while it was timed: the mark, its detail, and a metric the history keeps.
    assert extra["machine"] in ("quiet", "disturbed") and extra["machine_detail"].startswith(extra["machine"])
    assert records[4]["metric"]["benchmark_values"] == [0.0 if extra["machine"] == "quiet" else 1.0]
    assert records[1]["metric"]["benchmark_values"] == pytest.approx(m.throughput_ms)
    capture = records[3]["metric"]
    assert capture["benchmark_values"] == [1.0]
    assert (capture["extra_info"]["captured"], capture["extra_info"]["dispatched"]) == (str(8 + 2 * 8),) * 2


def test_an_invalid_measurement_is_recorded_as_invalid():
    f = jax.jit(lambda v: jnp.exp(v) + 1)
    x = jnp.ones(10_485_760, jnp.float32)
    f(x).block_until_ready()
    m = kbench.measure(lambda: f(x), repeat=5, throughput_batches=1, sync=kbench.sync.noop)
    records = m.to_records()
    assert all(r["metric"]["extra_info"]["valid"] == "false" for r in records[:4])
    assert all(r["benchmark"]["extra_info"]["status"] == "INVALID" for r in records)
    assert records[0]["model"]["backend"] == "jax" and records[0]["benchmark"]["extra_info"]["sync"] == "given"
    assert records[3]["metric"]["benchmark_values"][0] < 1
    # Its timings are no values: the raw samples stay beside them, marked invalid.
    assert records[0]["metric"]["benchmark_values"] == []
    assert json.loads(records[0]["metric"]["extra_info"]["invalid_samples"]) == pytest.approx(m.wall_ms)


def test_records_are_appended_and_a_foreign_file_is_never_touched(tmp_path):
    m = kbench.measure(lambda: np.ones(4), repeat=4, throughput_batches=1)
    path = tmp_path / "results.json"
    kbench.check_appendable(path)  # absent: fine
    kbench.append_records(path, m.to_records())
    kbench.append_records(path, m.to_records())
    assert len(json.loads(path.read_text())) == 2 * len(METRICS)
    assert [p.name for p in tmp_path.iterdir()] == ["results.json"], "the atomic write left a temporary file"

    foreign = tmp_path / "notes.json"
    foreign.write_text('{"not": "a list of records"}')
    with pytest.raises(RuntimeError, match="not a JSON list"):
        kbench.check_appendable(foreign)
    with pytest.raises(RuntimeError, match="not a JSON list"):
        kbench.append_records(foreign, m.to_records())
    assert foreign.read_text() == '{"not": "a list of records"}'
