"""aot's parallel work on PyTorch's OpenMP team (``aot_torch.share_threads``):
installed on the first compile unless the wait policy is passive or the user
opts out, and a training step big enough to split its kernels and matrix
products across the team gives eager's gradients."""

import copy
import os
import subprocess
import sys

import pytest

import torch

import aot_torch

PROBE = """
import torch, aot_torch
f = aot_torch.compile_ir('''
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = tensor.add %x, %x : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  return %y : tensor<4xf32>
}
''', [torch.ones(4)], training=False)
print(aot_torch._native.thread_team())
"""


def _team_in_fresh_process(**env):
    clean = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "AOT_SHARE_THREADS")}
    clean.update(env)
    out = subprocess.run([sys.executable, "-c", PROBE], env=clean, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip().splitlines()[-1]


def test_the_first_compile_installs_pytorchs_openmp_team():
    assert "parallel backend: OpenMP" in torch.__config__.parallel_info()
    team = _team_in_fresh_process()
    assert team.startswith("OpenMP (") and "omp" in os.path.basename(team.rstrip(")")), team


@pytest.mark.heavy
def test_a_passive_wait_policy_or_the_opt_out_keeps_aots_pool():
    assert _team_in_fresh_process(OMP_WAIT_POLICY="PASSIVE") == "None"
    assert _team_in_fresh_process(AOT_SHARE_THREADS="0") == "None"


def test_training_on_the_team_matches_eager():
    torch._dynamo.reset()
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(512, 1024), torch.nn.GELU(), torch.nn.Linear(1024, 256))
    eager = copy.deepcopy(model)
    x = torch.randn(256, 512)
    compiled = torch.compile(model, backend="aot")
    for _ in range(3):
        for m, run in ((model, compiled), (eager, eager)):
            m.zero_grad()
            run(x).square().mean().backward()
        for (name, p), q in zip(model.named_parameters(), eager.parameters()):
            torch.testing.assert_close(p.grad, q.grad, rtol=1e-4, atol=1e-5, msg=name)
            with torch.no_grad():
                p -= 0.1 * p.grad
                q -= 0.1 * q.grad
    if os.environ.get("OMP_WAIT_POLICY", "").lower() != "passive":
        assert aot_torch._native.thread_team() is not None, "the backend's compile installed the team"
    torch._dynamo.reset()
