"""torch's part of `polyops.distribution` (``Runtime.distribution``): polyops meshes and
layouts as ``torch.distributed`` DeviceMesh and DTensor placements (Shard/Replicate),
placement with ``distribute_tensor``, per-process batches with ``DTensor.from_local``,
many processes with ``torch.distributed.init_process_group`` (gloo on CPU), and
`polyops.jit` of functions of DTensors (`jit`: compiled on their local tensors).

torch gives each process one device: the devices of a job are its ranks, ``"cpu:<rank>"``
(``"cuda:<rank>"`` with NCCL on GPUs), and a mesh is a grid of ranks.  Before
`polyops.distribution.initialize` (no process group) there is one process with one
device: meshes of it place nothing (tensors stay plain torch tensors), as on backends
without the hook.  Core has checked every argument before these run."""

from __future__ import annotations

import atexit
import contextvars
import os

import numpy as np
import torch
import torch.distributed as tdist
from torch.distributed.device_mesh import DeviceMesh
from torch.distributed.tensor import DTensor, Replicate, Shard
from torch.distributed.tensor import distribute_tensor as _distribute_tensor
from torch.fx.experimental.proxy_tensor import get_proxy_mode as _proxy_mode


class DTensorLayout:
    """A torch DeviceMesh and one placement per mesh dimension (Keras's name); the mesh
    is None in a process without a process group (one device: nothing to place)."""

    def __init__(self, device_mesh, placements):
        self.device_mesh = device_mesh
        self.placements = placements

    def __repr__(self):
        return f"DTensorLayout({self.device_mesh}, {self.placements})"


def _group_kinds() -> list:
    """The device types the process group computes on, the default first: "cuda" with
    NCCL, "cpu" with gloo; [] without a group."""
    if not tdist.is_initialized():
        return []
    backend = str(tdist.get_backend())
    return [k for k, name in (("cuda", "nccl"), ("cpu", "gloo")) if name in backend]


def list_devices(device_type=None) -> list[str]:
    """One device per rank of the process group (``"cpu:<rank>"``); without one, this
    process's device."""
    kinds = _group_kinds()
    if not kinds:
        kind = device_type or ("cuda" if torch.cuda.is_available() else "cpu")
        if kind == "cuda" and not torch.cuda.is_available():
            return []
        return [f"{kind}:{torch.cuda.current_device() if kind == 'cuda' else 0}"] \
            if kind in ("cpu", "cuda") else []
    kind = device_type or kinds[0]
    if kind not in kinds:
        return []
    return [f"{kind}:{rank}" for rank in range(tdist.get_world_size())]


def initialize(job_addresses, num_processes, process_id) -> None:
    """Join the job: a gloo process group on CPU (NCCL when CUDA is available), reached
    at the first of ``job_addresses`` (else ``MASTER_ADDR``/``MASTER_PORT``); unset sizes
    from ``WORLD_SIZE``/``RANK``, as torchrun sets them."""
    if tdist.is_initialized():  # made by the user (or torchrun's script): join it
        return
    if num_processes is None and "WORLD_SIZE" in os.environ:
        num_processes = int(os.environ["WORLD_SIZE"])
    if process_id is None and "RANK" in os.environ:
        process_id = int(os.environ["RANK"])
    if num_processes is None or process_id is None:
        raise ValueError(f"initialize: the torch backend needs num_processes and process_id "
                         f"(or WORLD_SIZE and RANK), got num_processes={num_processes}, "
                         f"process_id={process_id}")
    if job_addresses:
        init_method = f"tcp://{job_addresses.split(',')[0]}"
    elif "MASTER_ADDR" in os.environ and "MASTER_PORT" in os.environ:
        init_method = "env://"
    else:
        raise ValueError("initialize: the torch backend needs job_addresses ('host:port' of "
                         "process 0) or MASTER_ADDR and MASTER_PORT, got neither")
    backend = "gloo"
    if torch.cuda.is_available():
        torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", process_id))
                              % torch.cuda.device_count())
        backend = "cpu:gloo,cuda:nccl"
    tdist.init_process_group(backend, init_method=init_method, world_size=num_processes,
                             rank=process_id)
    atexit.register(_leave)


def _leave():
    """Destroy the group made by `initialize` before the interpreter exits: a gloo group
    left to the interpreter's teardown can abort the process ("terminate called without
    an active exception") when its peers have gone first."""
    if tdist.is_initialized():
        tdist.destroy_process_group()


def num_processes() -> int:
    return tdist.get_world_size() if tdist.is_initialized() else 1


def process_id() -> int:
    return tdist.get_rank() if tdist.is_initialized() else 0


def to_backend_mesh(mesh):
    """A torch DeviceMesh of the ranks that ``mesh``'s devices name (None without a
    process group: core has checked the mesh is this one device)."""
    if not tdist.is_initialized():
        return None
    names = mesh.devices.ravel()
    ranks = np.array([int(n.partition(":")[2]) for n in names]).reshape(mesh.shape)
    return DeviceMesh(names[0].partition(":")[0], ranks,
                      mesh_dim_names=tuple(mesh.axis_names))


def to_backend_layout(layout) -> DTensorLayout:
    """One placement per mesh dimension: ``Shard(d)`` where tensor dimension ``d`` is split
    over it, else ``Replicate()``."""
    polyops_mesh = layout.device_mesh
    shard_of = {}
    for dim, entry in enumerate(layout.axes):
        for axis in (() if entry is None else (entry,) if isinstance(entry, str) else entry):
            shard_of[axis] = dim
    placements = tuple(Shard(shard_of[a]) if a in shard_of else Replicate()
                       for a in polyops_mesh.axis_names)
    return DTensorLayout(polyops_mesh.backend_mesh, placements)


def _tensor(x):
    if isinstance(x, np.ndarray):
        from polyops.ops import core

        return core.convert_to_tensor(x)  # the dtype polyops gives it (float64 -> float32)
    return x


# True while `jit` traces a function on local tensors: DTensor placements are recorded
_ON_LOCAL: contextvars.ContextVar = contextvars.ContextVar("polyops_torch_on_local",
                                                           default=False)


def _traced() -> bool:
    """Whether a make_fx trace is running (`polyops.jit`'s, or anyone's).  Outside `jit`'s
    trace on local tensors placing data cannot be recorded: DTensor's ``redistribute``,
    ``from_local`` and ``distribute_tensor`` work on the local tensors in Python, which a
    trace of DTensors would bake into the graph as constants; raise `EagerOnlyError`, on
    which `polyops.jit` runs the function eagerly (core's one fallback)."""
    if _proxy_mode() is None:
        return False
    if not _ON_LOCAL.get():
        from polyops import EagerOnlyError

        raise EagerOnlyError("a DTensor placement cannot be recorded by this trace on torch "
                             "(make_fx of DTensors); the function runs eagerly")
    return True


def jit(fn, compile_first):
    """`polyops.jit` of ``fn`` (core's pure function of flat tensors) where DTensors may
    flow: traced and compiled on local tensors, as torch.compile's AOTAutograd does with
    tensor subclasses.  Each DTensor argument enters the trace as its local tensor,
    wrapped again in a DTensor of its spec, so the ops, the sharding propagation and the
    redistributions that DTensor runs in Python become local aten ops and functional
    collectives of one graph; the DTensor outputs leave as local tensors and are wrapped
    again with the specs the trace gave them.  One graph per combination of the
    arguments' specs (core's signature is the global shapes and dtypes only).
    ``compile_first(local_fn, locals) -> (compiled, outputs)`` is the plugin's make_fx
    trace and compile."""
    cache = {}

    def call(*args):
        specs = tuple(a._spec if isinstance(a, DTensor) else None for a in args)
        local = [a if s is None else a._local_tensor for a, s in zip(args, specs, strict=True)]
        entry = cache.get(specs)
        if entry is None:
            out_specs = []
            compiled, outs = compile_first(_on_local(fn, specs, out_specs), local)
            cache[specs] = compiled, out_specs
        else:
            compiled, out_specs = entry
            outs = compiled(*local)
        return tuple(o if s is None else DTensor(o, s, requires_grad=False)
                     for o, s in zip(outs, out_specs, strict=True))

    return call


def _on_local(fn, specs, out_specs):
    """``fn`` as a function of local tensors (see `jit`); records its outputs' specs."""

    def local_fn(*local):
        args = [x if s is None else DTensor(x, s, requires_grad=False)
                for x, s in zip(local, specs, strict=True)]
        token = _ON_LOCAL.set(True)
        try:
            outs = fn(*args)
        finally:
            _ON_LOCAL.reset(token)
        out_specs[:] = [o._spec if isinstance(o, DTensor) else None for o in outs]
        return tuple(o._local_tensor if isinstance(o, DTensor) else o for o in outs)

    return local_fn


def distribute_tensor(x, layout):
    """``x`` (a global value, the same in every process) placed as ``layout``: scattered
    or replicated from the mesh's first rank, or redistributed if already a DTensor."""
    x = _tensor(x)
    mesh = layout.device_mesh
    if mesh is None:
        return x
    if isinstance(x, DTensor) and x.device_mesh == mesh \
            and tuple(x.placements) == layout.placements:
        return x
    traced = _traced()
    if isinstance(x, DTensor):
        if x.device_mesh == mesh:
            return x.redistribute(mesh, layout.placements)
        x = x.full_tensor()
    # in a trace each process splits its own copy: no scatter, which would be recorded as
    # a collective on a constant
    return _distribute_tensor(x, mesh, list(layout.placements),
                              src_data_rank=None if traced else 0)


distribute_variable = distribute_tensor


def distribute_data_input(x, layout, batch_dim_name):
    """This process's batch ``x`` as its part of the global DTensor: its shard along the
    batch axis (processes along the other mesh axes give the same batch)."""
    x = _tensor(x)
    mesh = layout.device_mesh
    if mesh is None:
        return x
    if isinstance(x, DTensor):
        return distribute_tensor(x, layout)
    _traced()
    return DTensor.from_local(x, mesh, list(layout.placements), run_check=False)
