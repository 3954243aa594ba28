"""TensorRT's rules that hold without a GPU: the profile covers the publishable suite, the engine cache key
changes with each thing that makes an engine (the engines themselves are tested in test_gpu.py)."""

from harness.backends.tensorrt_backend import MAX_BATCH, engine_key
from harness.scenarios.settings import PRESETS

H100 = {"device": "NVIDIA H100 80GB HBM3", "capability": "9.0"}


def test_the_profile_covers_every_batch_the_publishable_suite_runs():
    publishable = PRESETS["publishable"]
    assert max(*publishable.offline_batch_sizes, publishable.server_max_batch_size) <= MAX_BATCH == 128


def test_the_engine_key_changes_with_model_precision_shapes_version_and_device():
    base = (b"onnx-bytes", "fp16", {"input_0": (256,)}, 128, "10.13.3.9", H100)
    key = engine_key(*base)
    assert engine_key(*base) == key
    changed = [
        (b"other-weights", *base[1:]),
        (base[0], "fp32", *base[2:]),
        (*base[:2], {"input_0": (512,)}, *base[3:]),
        (*base[:3], 64, *base[4:]),
        (*base[:4], "10.14.0", base[5]),
        (*base[:5], {"device": "NVIDIA L4", "capability": "8.9"}),
    ]
    assert len({engine_key(*args) for args in changed} | {key}) == len(changed) + 1
