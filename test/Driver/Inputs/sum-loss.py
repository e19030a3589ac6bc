"""Writes a traced model that returns its own loss, a sum over the batch."""
import sys

import torch


class SumLoss(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.body = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(),
                                        torch.nn.Linear(16, 4))

    def forward(self, x):
        return torch.relu(self.body(x)).sum()


torch.manual_seed(0)
torch.jit.trace(SumLoss(), torch.randn(2, 8)).save(sys.argv[1])
