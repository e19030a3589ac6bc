# RUN: %python -m pytest -q -p no:cacheprovider %s
"""remat.plan weighs the whole batch against accumulating over micro-batches
under the budget, and its step trains on whole batches as PyTorch's
accumulation loop does: the same losses and state dicts."""

import copy

import pytest
import torch
import torch.nn as nn

import remat
from conftest import (SmallConvNet, assert_state_close, batches,
                      eager_accumulation_step)


def make_pair():
    torch.manual_seed(0)
    model = SmallConvNet()
    return model, copy.deepcopy(model)


def smallest_bytes(table):
    return min(row["bytes"] for row in table if "bytes" in row)


def test_a_tight_budget_accumulates_as_pytorch_does():
    model, reference = make_pair()
    data = batches(5, batch=16)
    # The fewest bytes any micro-batch needs, from a plan with room to
    # spare; a budget just above them leaves no room for the whole batch.
    spare = copy.deepcopy(model)
    roomy, _ = remat.plan(spare, data[0], batch=16,
                          optimizer=torch.optim.Adam(spare.parameters()),
                          budget="1GB")
    assert [row["micro_batch"] for row in roomy] == [16, 8, 4, 2, 1]
    assert [row["chosen"] for row in roomy] == [True] + [False] * 4
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
    plan = remat.plan(model, data[0], batch=16, optimizer=optimizer,
                      budget=int(smallest_bytes(roomy) * 1.05))
    chosen = plan.chosen
    steps = chosen["accumulation_steps"]
    assert steps > 1 and chosen["fits"]
    assert chosen["bytes"] <= int(smallest_bytes(roomy) * 1.05)
    assert not plan.table[0]["fits"]
    assert "micro-batch" in str(plan)
    reference_optimizer = torch.optim.Adam(reference.parameters(), lr=1e-2)
    for inputs in data:
        ours = plan.step(*inputs).item()
        theirs = eager_accumulation_step(reference, reference_optimizer,
                                         *inputs, steps)
        assert abs(ours - theirs) <= 1e-5
    # Running statistics and their counter move once per micro-batch.
    assert model.bn.num_batches_tracked.item() == 5 * steps
    assert_state_close(model.state_dict(), reference.state_dict(), 1e-5)
    assert_state_close(optimizer.state_dict(),
                       reference_optimizer.state_dict(), 1e-5)


class FeatureNet(nn.Module):
    """Batch norm over [N, C]: PyTorch refuses to train it on one sample."""

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(8, 16)
        self.bn = nn.BatchNorm1d(16)
        self.fc2 = nn.Linear(16, 3)

    def forward(self, x):
        return self.fc2(torch.relu(self.bn(self.fc1(x))))


def test_a_micro_batch_the_model_refuses_is_skipped_saying_why():
    model = FeatureNet()
    example = (torch.randn(2, 8), torch.randint(0, 3, (2,)))
    table, step = remat.plan(model, example, batch=4, budget="1GB",
                             optimizer=torch.optim.SGD(model.parameters(),
                                                       lr=0.1))
    assert [row["micro_batch"] for row in table] == [4, 2, 1]
    assert "skipped" not in table[1]
    assert "more than 1 value per channel" in table[2]["skipped"]
    loss = step(torch.randn(4, 8), torch.randint(0, 3, (4,)))
    assert loss.dim() == 0


def test_errors_say_what_plan_needs():
    model, _ = make_pair()
    data = batches(1, batch=4)[0]
    sgd = torch.optim.SGD(model.parameters(), lr=0.1)
    with pytest.raises(remat.Error, match="needs a budget in bytes"):
        remat.plan(model, data, batch=4, optimizer=sgd)
    with pytest.raises(remat.Error, match="not a share"):
        remat.plan(model, data, batch=4, optimizer=sgd, budget="50%")
    with pytest.raises(remat.Error, match="cannot hold the step at batch 4"):
        remat.plan(model, data, batch=4, optimizer=sgd, budget=1000)
    with pytest.raises(remat.Error, match="batch must be between"):
        remat.plan(model, data, batch=0, optimizer=sgd, budget="1GB")
    with pytest.raises(remat.Error, match="example input 1 has 6 rows, not "
                       "a multiple of the first input's 4 samples"):
        remat.plan(model, (data[0], torch.zeros(6, dtype=torch.int64)),
                   batch=4, optimizer=sgd, budget="1GB")
    with pytest.raises(remat.Error, match="scalar"):
        remat.plan(model, (torch.tensor(1.0),), batch=4, optimizer=sgd,
                   budget="1GB")
    _, step = remat.plan(model, data, batch=4, optimizer=sgd, budget="1GB")
    with pytest.raises(remat.Error, match="planned for whole batches shaped "
                       "4x1x8x8, 4; got 8x1x8x8, 8"):
        step(*batches(1, batch=8)[0])


class InterruptedAtTwo(FeatureNet):
    """Ctrl-C while torch.export traces micro-batch 2."""

    def forward(self, x):
        if x.shape[0] == 2:
            raise KeyboardInterrupt
        return super().forward(x)


def test_an_interrupt_while_exporting_stops_the_plan():
    model = InterruptedAtTwo()
    example = (torch.randn(4, 8), torch.randint(0, 3, (4,)))
    with pytest.raises(KeyboardInterrupt):
        remat.plan(model, example, batch=4, budget="1GB",
                   optimizer=torch.optim.SGD(model.parameters(), lr=0.1))
