"""Shared models and an eager reference loop for the `import remat` tests."""

import copy

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F


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


def eager_accumulation_step(model, optimizer, inputs, steps):
    """PyTorch's accumulation loop: `steps` slices of the batch in order,
    each loss divided by `steps`, one update; returns the batch's loss."""
    x, target = inputs
    micro = x.shape[0] // steps
    optimizer.zero_grad()
    total = 0.0
    for i in range(steps):
        part = slice(i * micro, (i + 1) * micro)
        loss = F.cross_entropy(model(x[part]), target[part]) / steps
        loss.backward()
        total += loss.item()
    optimizer.step()
    return total


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
