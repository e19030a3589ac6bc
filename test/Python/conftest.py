"""Shared models and an eager reference loop for the `import remat` tests."""

import copy
import os
import sys

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

# PyTorch's accumulation loop, as bench/python_plan.py runs it beside
# remat.plan's step.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "bench"))
from python_plan import eager_accumulation_step  # noqa: E402,F401


class SmallConvNet(nn.Module):
    """Conv, batch norm, ReLU, linear: weights, buffers and a batch-norm
    counter, on 1x8x8 inputs and 10 classes."""

    def __init__(self, dropout=0.0):
        super().__init__()
        # No bias before batch norm (its gradient is zero, and Adam would
        # amplify the rounding noise in it).
        self.conv = nn.Conv2d(1, 6, 3, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(6)
        self.drop = nn.Dropout(dropout)
        self.fc = nn.Linear(6 * 4 * 4, 10)

    def forward(self, x):
        x = F.max_pool2d(torch.relu(self.bn(self.conv(x))), 2)
        return self.fc(self.drop(x.flatten(1)))


def batches(count, batch=8, classes=10, seed=1):
    generator = torch.Generator().manual_seed(seed)
    return [(torch.randn(batch, 1, 8, 8, generator=generator),
             torch.randint(0, classes, (batch,), generator=generator))
            for _ in range(count)]


def eager_step(model, optimizer, loss, inputs):
    *xs, target = inputs
    optimizer.zero_grad()
    value = loss(model(*xs), target)
    value.backward()
    optimizer.step()
    return value.detach()


def assert_state_close(actual, expected, atol):
    assert actual.keys() == expected.keys()
    for key in actual:
        a, e = actual[key], expected[key]
        if isinstance(a, dict):
            assert_state_close(a, e, atol)
        elif isinstance(a, torch.Tensor):
            assert a.dtype == e.dtype and a.shape == e.shape, key
            assert torch.allclose(a.double(), e.double(), atol=atol,
                                  rtol=0), (key, (a - e).abs().max())
        else:
            assert a == e, key


@pytest.fixture
def model_pair():
    torch.manual_seed(0)
    model = SmallConvNet()
    return model, copy.deepcopy(model)
