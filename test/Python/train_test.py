# RUN: %python -m pytest -q -p no:cacheprovider %s
"""remat.compile trains from a plain PyTorch loop as eager PyTorch does: the
same losses and state dicts, in place on the user's tensors, with the
optimizer's param groups and schedulers read at every step."""

import copy
import io

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import remat
from conftest import SmallConvNet, assert_state_close, batches, eager_step


def train_both(model_pair, make_optimizer, steps, loss="cross_entropy",
               make_scheduler=None, budget=None, data=None):
    model, reference = model_pair
    optimizer, reference_optimizer = (make_optimizer(model),
                                      make_optimizer(reference))
    schedulers = ([make_scheduler(optimizer), make_scheduler(reference_optimizer)]
                  if make_scheduler else [])
    data = data or batches(steps)
    step = remat.compile(model, data[0], loss=loss, optimizer=optimizer,
                         budget=budget)
    loss_function = {"cross_entropy": F.cross_entropy, "mse": F.mse_loss}[loss]
    for inputs in data:
        ours = step(*inputs)
        theirs = eager_step(reference, reference_optimizer, loss_function,
                            inputs)
        assert abs(ours.item() - theirs.item()) <= 1e-5
        for scheduler in schedulers:
            scheduler.step()
    assert_state_close(model.state_dict(), reference.state_dict(), 1e-5)
    assert_state_close(optimizer.state_dict(), reference_optimizer.state_dict(),
                       1e-5)
    return step, optimizer


def test_sgd_with_momentum_and_weight_decay(model_pair):
    train_both(model_pair, lambda m: torch.optim.SGD(
        m.parameters(), lr=0.05, momentum=0.9, weight_decay=1e-3), 12)


def test_sgd_nesterov_and_dampening(model_pair):
    # torch.optim.SGD's first buffer is the gradient whatever the dampening.
    train_both(model_pair, lambda m: torch.optim.SGD(
        m.parameters(), lr=0.05, momentum=0.8, dampening=0.3), 6)
    model_pair[0].load_state_dict(model_pair[1].state_dict())
    train_both(model_pair, lambda m: torch.optim.SGD(
        m.parameters(), lr=0.05, momentum=0.8, nesterov=True), 6)


def test_adamw_with_a_cosine_schedule(model_pair):
    _, optimizer = train_both(
        model_pair, lambda m: torch.optim.AdamW(
            m.parameters(), lr=3e-3, betas=(0.8, 0.99), weight_decay=0.05),
        15, make_scheduler=lambda o: torch.optim.lr_scheduler.CosineAnnealingLR(
            o, T_max=15))
    assert optimizer.state_dict()["state"][0]["step"].item() == 15


def test_adam_per_group_hyperparameters(model_pair):
    def make(model):
        return torch.optim.Adam([
            {"params": model.conv.parameters(), "lr": 1e-2},
            {"params": list(model.bn.parameters()) + list(model.fc.parameters()),
             "weight_decay": 1e-2}], lr=2e-3)
    train_both(model_pair, make, 8, make_scheduler=lambda o:
               torch.optim.lr_scheduler.StepLR(o, step_size=3, gamma=0.5))


def test_mse_loss_under_a_budget(tmp_path):
    def make():
        torch.manual_seed(0)
        # Activations (512 samples) outweigh the weights, as in training.
        return nn.Sequential(nn.Linear(16, 64), nn.Tanh(), nn.Linear(64, 64),
                             nn.GELU(), nn.Linear(64, 64), nn.Tanh(),
                             nn.Linear(64, 4))

    generator = torch.Generator().manual_seed(2)
    data = [(torch.randn(512, 16, generator=generator),
             torch.randn(512, 4, generator=generator)) for _ in range(6)]
    unlimited = make()
    needed = remat.compile(unlimited, data[0], loss="mse", optimizer=(
        torch.optim.SGD(unlimited.parameters(), lr=0.1))).memory()["peak_bytes"]
    budget = int(needed * 0.8)
    step, _ = train_both((make(), make()),
                         lambda m: torch.optim.SGD(m.parameters(), lr=0.1),
                         6, loss="mse", budget=budget, data=data)
    assert step.memory()["peak_bytes"] <= budget < needed
    report = step.report(html=tmp_path / "report.html")
    assert report["peak_bytes_after"] <= report["budget_bytes"] == budget
    assert report["recomputed"] and report["peak_bytes_before"] == needed
    assert "<html" in (tmp_path / "report.html").read_text()


def test_save_at_25_and_resume_are_bit_identical():
    data = batches(50)

    def fresh():
        torch.manual_seed(0)
        model = SmallConvNet()
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
        return model, optimizer, remat.compile(model, data[0],
                                               optimizer=optimizer)

    model, optimizer, step = fresh()
    straight = [step(*inputs).item() for inputs in data]
    final = model.state_dict(), optimizer.state_dict()

    model, optimizer, step = fresh()
    for inputs in data[:25]:
        step(*inputs)
    saved = io.BytesIO()
    torch.save({"model": model.state_dict(),
                "optimizer": optimizer.state_dict()}, saved)
    saved.seek(0)
    model, optimizer, _ = fresh()
    checkpoint = torch.load(saved)
    model.load_state_dict(checkpoint["model"])
    optimizer.load_state_dict(checkpoint["optimizer"])
    step = remat.compile(model, data[0], optimizer=optimizer)
    resumed = [step(*inputs).item() for inputs in data[25:]]
    assert resumed == straight[25:]
    assert_state_close(model.state_dict(), final[0], atol=0)
    assert_state_close(optimizer.state_dict(), final[1], atol=0)


def test_dropout_draws_new_masks_reproducibly():
    x, y = batches(1)[0]

    def losses(seed):
        torch.manual_seed(0)
        model = SmallConvNet(dropout=0.5)
        step = remat.compile(model, (x, y), optimizer=torch.optim.SGD(
            model.parameters(), lr=0.0))
        torch.manual_seed(seed)
        return [step(x, y).item() for _ in range(4)]

    first = losses(7)
    assert len(set(first)) == 4  # lr 0: only the masks change
    assert losses(7) == first
    assert losses(8) != first


def test_a_new_batch_shape_compiles_a_new_step(model_pair):
    model, reference = model_pair
    data = batches(2) + batches(2, batch=5, seed=3)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    reference_optimizer = torch.optim.SGD(reference.parameters(), lr=0.05)
    step = remat.compile(model, data[0], optimizer=optimizer)
    for inputs in data:
        assert abs(step(*inputs).item() - eager_step(
            reference, reference_optimizer, F.cross_entropy, inputs).item()) <= 1e-5


def test_errors_name_what_is_supported(model_pair):
    model, _ = model_pair
    data = batches(1)[0]
    with pytest.raises(remat.Error, match="SGD, torch.optim.Adam or"):
        remat.compile(model, data, optimizer=torch.optim.RMSprop(
            model.parameters()))
    with pytest.raises(remat.Error, match="amsgrad=True"):
        remat.compile(model, data, optimizer=torch.optim.Adam(
            model.parameters(), amsgrad=True))
    with pytest.raises(remat.Error, match="loss='hinge' is not supported"):
        remat.compile(model, data, loss="hinge",
                      optimizer=torch.optim.SGD(model.parameters(), lr=0.1))
    with pytest.raises(remat.Error, match="needs the optimizer"):
        remat.compile(model, data)
    with pytest.raises(remat.Error, match="profile 'gtx9000' .*gtx970m"):
        remat.compile(model, data, profile="gtx9000",
                      optimizer=torch.optim.SGD(model.parameters(), lr=0.1))
    with pytest.raises(remat.Error, match="budget"):
        remat.compile(model, data, budget="2.5 parsecs",
                      optimizer=torch.optim.SGD(model.parameters(), lr=0.1))
    with pytest.raises(remat.Error, match="error: .*budget"):
        remat.compile(model, data, budget=1000,
                      optimizer=torch.optim.SGD(model.parameters(), lr=0.1))
    step = remat.compile(model, data, optimizer=torch.optim.SGD(
        model.parameters(), lr=0.1))
    model.eval()
    with pytest.raises(remat.Error, match="eval mode"):
        step(*data)


def test_frozen_parameters_are_read_and_never_trained(model_pair):
    # A frozen backbone (requires_grad=False) and parameters left out of the
    # optimizer: eager PyTorch updates neither, and the step computes no
    # gradient for them.
    for model in model_pair:
        model.conv.weight.requires_grad_(False)
    frozen_conv = model_pair[0].conv.weight.clone()
    step, _ = train_both(model_pair, lambda m: torch.optim.AdamW(
        [p for p in m.parameters() if p.requires_grad], lr=1e-2), 5)
    assert torch.equal(model_pair[0].conv.weight, frozen_conv)
    assert "conv2d_backward_weight" not in step.mlir()
    model_pair[0].load_state_dict(model_pair[1].state_dict())
    frozen_bn = model_pair[0].bn.weight.clone()
    train_both(model_pair, lambda m: torch.optim.SGD(
        m.fc.parameters(), lr=0.1, momentum=0.9), 5)
    assert torch.equal(model_pair[0].bn.weight, frozen_bn)


def test_a_frozen_parameter_forward_never_reads_is_no_error(model_pair):
    unused = nn.Linear(3, 3).requires_grad_(False)
    for model in model_pair:
        model.unused = copy.deepcopy(unused)
    train_both(model_pair, lambda m: torch.optim.SGD(
        [p for p in m.parameters() if p.requires_grad], lr=0.1), 2)


def test_checking_every_step_changes_nothing_but_time():
    # The first step checks the plan as it runs and later ones only run the
    # kernels into the planned slots; check=True checks every step, with
    # the same losses and weights bit for bit.
    results = {}
    for check in (False, True):
        torch.manual_seed(0)
        model = SmallConvNet()
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
        step = remat.compile(model, batches(1)[0], optimizer=optimizer,
                             budget="95%", check=check)
        losses = [step(*inputs).item() for inputs in batches(5)]
        results[check] = (losses, model.state_dict())
    assert results[False][0] == results[True][0]
    for name, value in results[False][1].items():
        assert torch.equal(value, results[True][1][name]), name


def test_the_runner_checks_every_buffer(model_pair):
    model, _ = model_pair
    data = batches(1)[0]
    step = remat.compile(model, data, optimizer=torch.optim.SGD(
        model.parameters(), lr=0.1))
    compiled = next(iter(step._compiled.values())).step
    count = len(compiled.arguments())
    wrong = torch.zeros(3)
    with pytest.raises(remat.Error, match="takes %d arguments" % count):
        compiled.run([])
    buffers = [(wrong.data_ptr(), [3], "float32")] * count
    with pytest.raises(remat.Error,
                       match="error: argument 'x': the buffer given "
                             "does not hold a 'tensor<8x1x8x8xf32>'"):
        compiled.run(buffers)


def test_constants_computed_in_forward_come_from_the_importer(model_pair):
    # A table built in forward from constants (as Hugging Face's position
    # tables are) is an argument the module does not hold.
    class WithTable(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(8, 3)

        def forward(self, x):
            table = torch.arange(8, dtype=torch.float32).sin() * 0.1
            return self.fc(x + table)

    def make():
        torch.manual_seed(0)
        return WithTable()

    generator = torch.Generator().manual_seed(4)
    data = [(torch.randn(4, 8, generator=generator),
             torch.randint(0, 3, (4,), generator=generator)) for _ in range(3)]
    train_both((make(), make()),
               lambda m: torch.optim.SGD(m.parameters(), lr=0.1), 3,
               data=data)


def test_image_activations_stay_in_the_arena():
    # Activations of 1 MiB (4 x 16 x 64 x 64 floats) are stored channels-last,
    # so oneDNN's convolutions compute in their slots, and the kernels'
    # temporaries take arena bytes free at their op. What stays outside is
    # at most one such activation (batch norm's gradient allocates its result
    # twice, and at the peak no free bytes hold the second).
    torch.manual_seed(0)

    def block(inputs, outputs):
        return [nn.Conv2d(inputs, outputs, 3, padding=1, bias=False),
                nn.BatchNorm2d(outputs), nn.ReLU()]

    model = nn.Sequential(*block(3, 16), *block(16, 16), nn.MaxPool2d(2),
                          *block(16, 32), nn.AdaptiveAvgPool2d(1),
                          nn.Flatten(), nn.Linear(32, 10))
    reference = copy.deepcopy(model)
    make = lambda m: torch.optim.SGD(m.parameters(), lr=0.05, momentum=0.9)
    optimizer, reference_optimizer = make(model), make(reference)
    data = [(torch.randn(4, 3, 64, 64), torch.randint(0, 10, (4,)))
            for _ in range(3)]
    step = remat.compile(model, data[0], loss="cross_entropy",
                         optimizer=optimizer)
    for inputs in data:
        ours = step(*inputs)
        theirs = eager_step(reference, reference_optimizer, F.cross_entropy,
                            inputs)
        assert abs(ours.item() - theirs.item()) <= 1e-5
    assert_state_close(model.state_dict(), reference.state_dict(), 1e-5)
    memory = step.memory()
    activation = 4 * 16 * 64 * 64 * 4
    assert memory["outside_arena_bytes"] <= activation + 4096
    assert memory["outside_arena_bytes"] < 0.15 * memory["peak_bytes"]
    # The op that held them is named, with its source line.
    if memory["outside_arena_bytes"] > 0:
        assert memory["outside_arena_op"].startswith("nn.")
        assert " at " in memory["outside_arena_op"]
