# RUN: %python -m pytest -q -p no:cacheprovider %s
"""remat.compile(..., device="cuda") on the host emulation of the CUDA
runtime (test/Target/Cuda/Emulation; no GPU here): the step emitted as CUDA,
built as a library with its C entry points, loaded and run on the user's
tensors in place, with the hyperparameters read from the param groups at
every step, trains as eager PyTorch does. On a GPU the same path compiles the
source with nvcc instead (bench/gpu/)."""

import os
import subprocess
import sys

import pytest
import torch
import torch.nn.functional as F

import remat
import remat.cuda
from conftest import (assert_state_close, batches, eager_accumulation_step,
                      eager_step)

EMULATE = os.path.join(os.path.dirname(__file__), "..", "Target", "Cuda",
                       "Emulation", "emulate.py")


def build_emulated(source, library):
    subprocess.run([sys.executable, EMULATE, source, "-o", library, "--",
                    "-shared", "-fPIC", "-DREMAT_STEP_LIBRARY"], check=True)


@pytest.fixture(autouse=True)
def emulated_cuda(tmp_path, monkeypatch):
    monkeypatch.setenv("REMAT_CACHE_DIR", str(tmp_path / "cache"))
    remat.cuda._use_emulation(build_emulated)


def train_both(model_pair, make_optimizer, steps, make_scheduler):
    model, reference = model_pair
    optimizer, reference_optimizer = (make_optimizer(model),
                                      make_optimizer(reference))
    schedulers = [make_scheduler(optimizer),
                  make_scheduler(reference_optimizer)]
    data = batches(steps)
    step = remat.compile(model, data[0], optimizer=optimizer, device="cuda",
                         budget="90%")
    for inputs in data:
        ours = step(*inputs)
        theirs = eager_step(reference, reference_optimizer, F.cross_entropy,
                            inputs)
        assert abs(ours.item() - theirs.item()) <= 1e-5
        for scheduler in schedulers:
            scheduler.step()
    assert_state_close(model.state_dict(), reference.state_dict(), 1e-5)
    assert_state_close(optimizer.state_dict(),
                       reference_optimizer.state_dict(), 1e-5)
    return step


def test_sgd_with_a_schedule_trains_as_eager(model_pair):
    step = train_both(model_pair, lambda m: torch.optim.SGD(
        m.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-3), 4,
        lambda o: torch.optim.lr_scheduler.StepLR(o, step_size=1, gamma=0.5))
    # The library is the planned step: its arguments in the step's order,
    # an arena of at least the planned bytes, held by the step.
    compiled = list(step._compiled.values())[-1]
    assert compiled.cuda.argument_names == [a[0] for a in compiled.arguments]
    assert compiled.cuda.arena_bytes >= step.memory()["arena_bytes"] > 0
    assert compiled.arena.numel() == compiled.cuda.arena_bytes + 256
    assert step.memory()["outside_arena_bytes"] == 0


def test_adamw_with_a_schedule_trains_as_eager(model_pair):
    train_both(model_pair, lambda m: torch.optim.AdamW(
        m.parameters(), lr=1e-2, weight_decay=0.05), 3,
        lambda o: torch.optim.lr_scheduler.LinearLR(o, start_factor=0.5,
                                                    total_iters=3))


def test_the_library_is_cached_by_content(model_pair, tmp_path):
    model, _ = model_pair
    data = batches(1)[0]
    for _ in range(2):
        remat.compile(model, data, device="cuda", optimizer=torch.optim.SGD(
            model.parameters(), lr=0.1))
    libraries = os.listdir(tmp_path / "cache" / "cuda-emulated")
    assert len(libraries) == 1 and libraries[0].endswith(".so")


def test_device_errors(model_pair):
    model, _ = model_pair
    with pytest.raises(remat.Error, match="device 'tpu' is not supported"):
        remat.compile(model, batches(1)[0], device="tpu",
                      optimizer=torch.optim.SGD(model.parameters(), lr=0.1))


def test_a_plan_that_accumulates_runs_as_pytorchs_loop(model_pair):
    # remat.plan's step on CUDA: micro-steps with their own slices and
    # seeds, one update, the hyperparameters at run time.
    model, reference = model_pair
    data = batches(3, batch=16)
    spare = type(model)()
    roomy, _ = remat.plan(spare, data[0], batch=16, budget="1GB",
                          optimizer=torch.optim.SGD(spare.parameters(),
                                                    lr=0.1))
    smallest = min(row["bytes"] for row in roomy if "bytes" in row)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    plan = remat.plan(model, data[0], batch=16, optimizer=optimizer,
                      budget=int(smallest * 1.05), device="cuda")
    steps = plan.chosen["accumulation_steps"]
    assert steps > 1
    reference_optimizer = torch.optim.SGD(reference.parameters(), lr=0.1,
                                          momentum=0.9)
    for x, y in data:
        ours = plan.step(x, y).item()
        theirs = eager_accumulation_step(reference, reference_optimizer,
                                         x, y, steps)
        assert abs(ours - theirs) <= 1e-5
    assert_state_close(model.state_dict(), reference.state_dict(), 1e-5)
