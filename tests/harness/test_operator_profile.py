"""The operator profile counts each microsecond once (harness.operator_profile)."""

from types import SimpleNamespace

from torch.autograd import DeviceType

from harness.operator_profile import LONGEST_NAME, _self_time_by_key


def _event(key, device_type, self_device_us=0.0, count=1, self_cpu_us=0.0, annotation=False):
    return SimpleNamespace(key=key, device_type=device_type, self_device_time_total=self_device_us,
                           self_cpu_time_total=self_cpu_us, count=count, is_user_annotation=annotation)  # fmt: skip


def test_on_cuda_each_kernel_is_counted_once_on_its_own_event():
    long_name = "void at::native::vectorized_elementwise_kernel<4, " + "x" * 200
    events = [
        _event("aten::linear", DeviceType.CPU, 0.0, self_cpu_us=3.0),
        _event("aten::addmm", DeviceType.CPU, 6.0, count=2, self_cpu_us=8.0),
        _event("sm90_gemm_kernel", DeviceType.CUDA, 6.0, count=2),
        _event("aten::copy_", DeviceType.CPU, 1.0),
        _event("Activity Buffer Request", DeviceType.CPU, 1.0),  # the copy's 1 us again (seen on an H100)
        _event("Memcpy HtoD (Pageable -> Device)", DeviceType.CUDA, 1.0),
        _event(long_name, DeviceType.CUDA, 4.0, count=3),  # e.g. replayed from a CUDA graph: no operator launched it
        _event("forward", DeviceType.CUDA, 11.0, annotation=True),  # a GPU user annotation spanning the rest
    ]
    # The device's own events: 6 + 1 + 4 = 11 us. Reading the CPU side instead would give addmm 6 + copy_ 1 +
    # Activity Buffer Request 1 = 8 us and miss the 4 us kernel; reading both sides, 6+6+1+1+1+4+11 = 30 us.
    by_key = _self_time_by_key(events, on_device=True)
    cut = long_name[: LONGEST_NAME - 3] + "..."
    assert by_key == {"sm90_gemm_kernel": (6.0, 2), "Memcpy HtoD (Pageable -> Device)": (1.0, 1), cut: (4.0, 3)}
    assert len(cut) == LONGEST_NAME and sum(us for us, _ in by_key.values()) == 11.0


def test_on_the_cpu_each_events_self_time_is_its_own():
    events = [_event("aten::linear", DeviceType.CPU, self_cpu_us=1.0),
              _event("aten::addmm", DeviceType.CPU, count=3, self_cpu_us=5.0)]  # fmt: skip
    assert _self_time_by_key(events, on_device=False) == {"aten::linear": (1.0, 1), "aten::addmm": (5.0, 3)}
