"""Real models from torchvision, timm, Hugging Face transformers and
torch.nn through `torch.compile(model, backend="aot")`, in inference and a
training step, each against eager PyTorch with the dynamo benchmark
harness's `same` (its fp64 reference and its tolerances) and with nothing
left to PyTorch (`zoo.py` builds them: small configurations, random
weights, nothing downloaded).

The test command runs the models in `SUBSET`, chosen to cover each family
at a few minutes' cost on two cores; `python python/tests/zoo.py` runs all
of `zoo.CASES` (the figures are in docs/python.md)."""

import pytest
import torch

import aot_torch  # noqa: F401  (registers the backend)
import zoo

# One or more of each family: residual, vision transformers (plain,
# ConvNeXt, Swin, MobileViT), hard activations with squeeze-excitation;
# encoders, rotary decoders with grouped key/value heads, encoder-decoders,
# speech; torch.nn's recurrent and transformer modules.
SUBSET = [
    "tv_resnet18", "tv_vit", "tv_convnext", "tv_swin", "tv_mobilenet_v3_small", "timm_mobilevit_xxs",
    "hf_roberta", "hf_qwen2", "hf_bart", "hf_whisper", "hf_wav2vec2", "hf_qwen2_moe",
    "nn_lstm", "nn_gru", "nn_transformer_encoder", "nn_transformer",
]

pytestmark = pytest.mark.heavy


def test_the_subset_names_models_of_the_zoo():
    assert set(SUBSET) <= set(zoo.CASES)
    assert {zoo.CASES[n].family for n in SUBSET} == {"vision", "text", "nn"}


@pytest.mark.parametrize("mode", ["infer", "train"])
@pytest.mark.parametrize("name", SUBSET)
def test_a_real_model_matches_eager_with_nothing_in_pytorch(name, mode):
    torch.set_num_threads(1)  # (one per pytest-xdist worker)
    r = zoo.check(name, mode)
    assert not r.error, r.error
    assert not r.fallbacks, r.fallbacks
    assert r.compiled >= 1, "aot compiled nothing"
    assert r.accurate, "%s (%s) differs from eager beyond the harness's tolerance" % (name, mode)


def test_the_op_report_names_each_ops_ir_ops_or_why_it_runs_in_pytorch():
    def f(x):
        return torch.cummax(x.sin(), dim=0).values * 2

    torch._dynamo.reset()
    rows = zoo.op_report(lambda: torch.compile(f, backend="aot")(torch.randn(5)))
    torch._dynamo.reset()
    how = {op: h for op, _, h in rows}
    assert how["aten.sin.default"] == "tensor.sin", rows
    assert how["aten.cummax.default"].startswith("PyTorch: ") and "no counterpart" in how["aten.cummax.default"], rows
    assert "tensor.mul" in how["aten.mul.Tensor"], rows
