"""Hugging Face models as users run them through `torch.compile(model,
backend="aot")`: tiny configurations with random weights (nothing is
downloaded), a padded attention mask, inference and a training step, each
against eager PyTorch on the same weights, and nothing may run in PyTorch
(no region falls back). `transformers` is in the test environment
(scripts/test-all.sh installs it).

The model families: a GPT-2 decoder, a BERT encoder, a Llama-style decoder
(rotary embeddings, grouped key/value heads, a causal mask) and a T5
encoder-decoder."""

import copy
import logging

import pytest
import torch
import transformers as T

# (Compiling a model takes seconds: scheduled first under pytest-xdist.)
pytestmark = pytest.mark.heavy


def _tiny(name, dropout=0.1):
    if name == "gpt2":
        cfg = T.GPT2Config(n_layer=2, n_head=2, n_embd=32, vocab_size=100, n_positions=64,
                           bos_token_id=0, eos_token_id=0, resid_pdrop=dropout, embd_pdrop=dropout,
                           attn_pdrop=dropout)
        return T.GPT2LMHeadModel(cfg)
    if name == "bert":
        cfg = T.BertConfig(num_hidden_layers=2, num_attention_heads=2, hidden_size=32, intermediate_size=64,
                           vocab_size=100, max_position_embeddings=64, hidden_dropout_prob=dropout,
                           attention_probs_dropout_prob=dropout)
        return T.BertForMaskedLM(cfg)
    if name == "llama":
        cfg = T.LlamaConfig(num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=1, hidden_size=32,
                            intermediate_size=64, vocab_size=100, max_position_embeddings=64,
                            bos_token_id=0, eos_token_id=0, attention_dropout=dropout)
        return T.LlamaForCausalLM(cfg)
    cfg = T.T5Config(num_layers=2, num_heads=2, d_model=32, d_kv=16, d_ff=64, vocab_size=100,
                     decoder_start_token_id=0, eos_token_id=1, pad_token_id=0, dropout_rate=dropout)
    return T.T5ForConditionalGeneration(cfg)


def _inputs(name):
    g = torch.Generator().manual_seed(7)
    ids = torch.randint(2, 100, (2, 12), generator=g)
    mask = torch.ones(2, 12, dtype=torch.long)
    mask[1, 8:] = 0
    kw = {"input_ids": ids, "attention_mask": mask, "labels": ids}
    if name == "t5":
        kw["decoder_input_ids"] = ids
    return kw


@pytest.fixture(autouse=True)
def _fresh_dynamo():
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


def _no_fallback(caplog):
    lines = [r.getMessage() for r in caplog.records if "PyTorch" in r.getMessage()]
    assert not lines, lines


@pytest.mark.parametrize("name", ["gpt2", "bert", "llama", "t5"])
def test_inference_matches_eager_with_nothing_in_pytorch(name, caplog):
    torch.manual_seed(0)
    model = _tiny(name).eval()
    kw = _inputs(name)
    with torch.no_grad():
        want = model(**kw).logits
        with caplog.at_level(logging.WARNING, logger="aot_torch"):
            got = torch.compile(model, backend="aot")(**kw).logits
    _no_fallback(caplog)
    torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", ["gpt2", "bert", "llama", "t5"])
def test_a_training_step_matches_eager_with_nothing_in_pytorch(name, caplog):
    """With dropout off (aot's draws come from its own generator, not
    PyTorch's), the loss and every parameter's gradient are eager's."""
    torch.manual_seed(0)
    model = _tiny(name, dropout=0.0).train()
    ref = copy.deepcopy(model)
    kw = _inputs(name)
    want = ref(**kw).loss
    want.backward()
    with caplog.at_level(logging.WARNING, logger="aot_torch"):
        got = torch.compile(model, backend="aot")(**kw).loss
    got.backward()
    _no_fallback(caplog)
    torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-6)
    for (n, p), (_, q) in zip(model.named_parameters(), ref.named_parameters()):
        if q.grad is None:
            assert p.grad is None, n
            continue
        scale = q.grad.abs().max().clamp_min(1e-6)
        torch.testing.assert_close(p.grad / scale, q.grad / scale, rtol=1e-4, atol=1e-5, msg=n)
