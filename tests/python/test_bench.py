"""kbench.do_bench, interleaved_bench and compute_repeat: Triton's signatures and return modes on the C++
core's protocol and statistics, with bad arguments refused by name."""

import time

import numpy as np
import pytest

import kbench


def sleeper(ms):
    def fn():
        time.sleep(ms / 1000)

    fn.__name__ = f"sleep_{ms}ms"
    return fn


def test_do_bench_return_modes_and_quantiles():
    fn = sleeper(1)
    samples = kbench.do_bench(fn, warmup=5, rep=30, return_mode="all")
    assert isinstance(samples, list) and len(samples) >= 10
    assert all(s >= 1.0 for s in samples)  # each sample is one synchronized call of a 1 ms sleep
    for mode in ("min", "max", "mean", "median"):
        value = kbench.do_bench(fn, warmup=5, rep=30, return_mode=mode)
        assert isinstance(value, float) and value >= 1.0
    q = kbench.do_bench(fn, warmup=5, rep=30, quantiles=[0.2, 0.5, 0.8])
    assert len(q) == 3 and q[0] <= q[1] <= q[2]


def test_do_bench_stops_on_low_noise():
    value = kbench.do_bench(lambda: np.ones(16), warmup=1, rep=10, noise_stop=True, return_mode="median")
    assert 0 < value < 1


def test_interleaved_bench_orders_results_like_the_callables():
    results = kbench.interleaved_bench([sleeper(2), sleeper(1)], repeat=10)
    assert [r.name for r in results] == ["0:sleep_2ms", "1:sleep_1ms"]
    assert all(len(r.samples_ms) == 10 and r.sync_violations == 0 for r in results)
    assert results[0].stats.median > results[1].stats.median
    assert results[1].value("all") == results[1].samples_ms
    turns = kbench.interleaved_bench([sleeper(1), sleeper(1)], repeat=8, calls_per_turn=4)
    assert all(len(r.samples_ms) == 8 for r in turns)


def test_compute_repeat_fills_the_target_time():
    assert kbench.compute_repeat(sleeper(5), target_ms=50, min_repeat=2, max_repeat=100) <= 10
    assert kbench.compute_repeat(lambda: None, target_ms=1, min_repeat=3, max_repeat=7) == 7


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: kbench.do_bench(lambda: None, return_mode="average"), "valid: min, max, mean, median, all"),
        (lambda: kbench.do_bench(lambda: None, rep=0), "rep must be > 0"),
        (lambda: kbench.do_bench(lambda: None, warmup=-1), "warmup must be >= 0"),
        (lambda: kbench.do_bench(lambda: None, quantiles=[1.5]), "outside \\[0, 1\\]"),
        (lambda: kbench.measure(lambda: None, target_ms=float("nan")), "target_ms must be > 0"),
        (lambda: kbench.measure(lambda: None, sync="cuda"), "sync must be 'auto' or a callable"),
        (lambda: kbench.interleaved_bench([]), "at least one callable"),
        (lambda: kbench.compute_repeat(lambda: None, min_repeat=5, max_repeat=2), "below min_repeat"),
    ],
)
def test_bad_arguments_say_what_is_valid(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_an_exception_in_the_callable_reaches_the_caller():
    calls = []

    def fails_on_third_call():
        calls.append(1)
        if len(calls) == 3:
            raise KeyError("boom")
        return np.ones(1)

    with pytest.raises(KeyError, match="boom"):
        kbench.measure(fails_on_third_call, repeat=5)


def test_help_documents_the_api():
    for fn in (kbench.measure, kbench.do_bench, kbench.interleaved_bench, kbench.compute_repeat):
        assert fn.__doc__ and "sync" in fn.__doc__, fn.__name__
    assert "noop" in kbench.sync.__doc__ and "is_done" in kbench.sync.__doc__


def test_a_host_callable_is_timed_from_cpp_and_a_result_of_another_type_is_still_checked():
    """A callable whose outputs were host values when probed is called from C++ (no Python step inside the
    timed window); a later result of a type kbench cannot check still goes through a handle and is counted
    unverified, never passed as checked."""
    calls = []

    def changes_its_outputs():
        calls.append(1)
        return None if len(calls) < 50 else object()

    m = kbench.measure(changes_its_outputs, repeat=100, warmup=0, throughput_calls=1, throughput_batches=1)
    assert m.sync == "host"
    assert m.unverified_calls > 0 and m.status == "unverified"
    assert kbench.measure(lambda: np.zeros(4), repeat=20).status == "ok"
