"""Devices and processes of the current backend, and its distribution hook
(``Runtime.distribution``)."""

from __future__ import annotations

import importlib
import os

import numpy as np

_INITIALIZED: dict | None = None  # what `initialize` was called with, once it succeeded
_HOOKS: dict = {}  # backend name -> (its Runtime, the resolved Runtime.distribution)


# -- the backend's hook -------------------------------------------------------------------


def _backend():
    from .._registry import current

    return current()


def _hook(backend):
    """``backend``'s distribution namespace (``Runtime.distribution``, a module name
    imported on first use), or None."""
    rt = backend.runtime
    found = _HOOKS.get(backend.name)
    if found is not None and found[0] is rt:
        return found[1]
    hook = getattr(rt, "distribution", None)
    if isinstance(hook, str):
        hook = importlib.import_module(hook)
    _HOOKS[backend.name] = (rt, hook)
    return hook


def _one_device_error(backend, what: str) -> ValueError:
    return ValueError(
        f"{what}: the {backend.name} backend runs on one device in one process (it has no "
        f"distribution hook, Runtime.distribution); use a backend that distributes (jax)")


def _canonical(name, caller: str) -> str:
    from .._transforms import _canonical_device

    if not isinstance(name, str):
        raise ValueError(f"{caller}: expected device names such as 'cpu:0' (str), got {name!r}")
    return _canonical_device(name)


def _kind(device_type, caller: str):
    if device_type is None:
        return None
    if not isinstance(device_type, str) or not device_type.strip():
        raise ValueError(f"{caller}: expected device_type 'cpu', 'gpu' or 'tpu', "
                         f"got {device_type!r}")
    return _canonical(device_type, caller).partition(":")[0]


# -- devices and processes ----------------------------------------------------------------


def list_devices(device_type=None) -> list[str]:
    """The devices of the current backend available for distribution, as ``"cpu:0"``...

    In a multi-process job these are the global devices (of every process).  Without
    ``device_type``, the accelerators ("cuda"/"gpu", "tpu") if any, else the CPUs: never a
    mix.  GPUs are named ``"cuda:<id>"`` as in `polyops.devices`; "gpu" is accepted.

    Example:
        >>> polyops.distribution.list_devices()
        ['cpu:0']
    """
    kind = _kind(device_type, "list_devices")
    backend = _backend()
    hook = _hook(backend)
    if hook is not None:
        found = [_canonical(d, "list_devices") for d in hook.list_devices(kind)]
    else:
        every = [_canonical(d, "list_devices") for d in backend.runtime.devices()]
        if kind is None:
            accel = [d for d in every if not d.startswith("cpu:")]
            found = (accel or every)[:1]
        else:
            found = [d for d in every if d.partition(":")[0] == kind][:1]
    if not found:
        raise ValueError(f"list_devices: the {backend.name} backend has no {device_type!r} "
                         f"devices; it has {list(backend.runtime.devices())}")
    return found


def get_device_count(device_type=None) -> int:
    """How many devices `list_devices` gives (of one type, never a sum of types).

    Example:
        >>> polyops.distribution.get_device_count("cpu")
        1
    """
    return len(list_devices(device_type))


def _int_or_none(value, name: str, low: int):
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
        raise ValueError(f"initialize: expected {name} an int >= {low}, got {value!r}")
    return int(value)


def _env(name: str):
    return os.environ.get(f"POLYOPS_DISTRIBUTION_{name}",
                          os.environ.get(f"KERAS_DISTRIBUTION_{name}"))


def initialize(job_addresses=None, num_processes=None, process_id=None) -> None:
    """Join a multi-process job; call it once per process, before any computation.

    Args:
        job_addresses: "host:port" of process 0 (the coordinator), or every process's
            address comma-separated (the first is the coordinator).
        num_processes: the number of processes in the job.
        process_id: this process's index, 0 to ``num_processes - 1``.

    Each argument left None is read from the environment variable
    ``POLYOPS_DISTRIBUTION_JOB_ADDRESSES``, ``..._NUM_PROCESSES`` or ``..._PROCESS_ID``
    (Keras's ``KERAS_DISTRIBUTION_*`` names work too), else found by the backend (jax:
    cluster environments such as Cloud TPU or SLURM).  A second call raises RuntimeError.

    Example:
        >>> polyops.distribution.initialize("10.0.0.1:1234", num_processes=2, process_id=0)
    """
    global _INITIALIZED
    if _INITIALIZED is not None:
        raise RuntimeError(f"initialize: already called in this process (with {_INITIALIZED}); "
                           f"call it once, before any computation")
    if job_addresses is None:
        job_addresses = _env("JOB_ADDRESSES")
    if num_processes is None and _env("NUM_PROCESSES") is not None:
        num_processes = int(_env("NUM_PROCESSES"))
    if process_id is None and _env("PROCESS_ID") is not None:
        process_id = int(_env("PROCESS_ID"))
    if job_addresses is not None and (not isinstance(job_addresses, str)
                                      or not job_addresses.strip()):
        raise ValueError(f"initialize: expected job_addresses a 'host:port' string "
                         f"(comma-separated for several), got {job_addresses!r}")
    num_processes = _int_or_none(num_processes, "num_processes", 1)
    process_id = _int_or_none(process_id, "process_id", 0)
    if num_processes is not None and process_id is not None and process_id >= num_processes:
        raise ValueError(f"initialize: expected process_id in [0, {num_processes}) for "
                         f"num_processes={num_processes}, got {process_id}")
    addresses = [a.strip() for a in job_addresses.split(",")] if job_addresses else []
    if len(addresses) > 1 and num_processes is not None and len(addresses) != num_processes:
        raise ValueError(f"initialize: job_addresses names {len(addresses)} processes "
                         f"({job_addresses!r}) but num_processes={num_processes}")
    backend = _backend()
    hook = _hook(backend)
    if hook is None:
        if (num_processes or 1) > 1 or (process_id or 0) > 0 or len(addresses) > 1:
            raise _one_device_error(backend, f"initialize(num_processes={num_processes}, "
                                             f"process_id={process_id})")
    else:
        hook.initialize(",".join(addresses) or None, num_processes, process_id)
    _INITIALIZED = {"backend": backend.name, "job_addresses": job_addresses,
                    "num_processes": num_processes, "process_id": process_id}


def num_processes() -> int:
    """The number of processes in the job (1 unless `initialize` joined more).

    Example:
        >>> polyops.distribution.num_processes()
        1
    """
    hook = _hook(_backend())
    return 1 if hook is None else int(hook.num_processes())


def process_id() -> int:
    """This process's index in the job, 0 to ``num_processes() - 1``.

    Example:
        >>> polyops.distribution.process_id()
        0
    """
    hook = _hook(_backend())
    return 0 if hook is None else int(hook.process_id())
