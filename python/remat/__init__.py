"""remat: train a PyTorch model under a memory budget, from your own loop.

    step = remat.compile(model, (x, y), loss="cross_entropy",
                         optimizer=opt, budget="2.5GB")
    for x, y in loader:
        loss = step(x, y)      # forward, loss, backward and opt.step()
        scheduler.step()

The step is the whole training step (forward, loss, backward and the
optimizer's update) exported with torch.export, differentiated by remat,
rematerialized to fit the budget, and planned in one arena. It trains the
module's own parameters and buffers and the optimizer's own state tensors in
place, so model.state_dict() and optimizer.state_dict() are current after
every step. remat.plan(model, (x, y), batch=64, optimizer=opt,
budget="2.5GB") also weighs accumulating the gradients over micro-batches
and returns the table it weighed and a step that takes the whole batch.
See docs/python.md.
"""

import torch  # noqa: F401  (loads LibTorch before the extension needs it)

from ._remat import Error
from .plan import Plan, PlannedStep, plan
from .step import Step, compile

__all__ = ["Error", "Plan", "PlannedStep", "Step", "compile", "plan"]
