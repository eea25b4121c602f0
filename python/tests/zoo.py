"""Real models as users build them, with random weights and small
configurations (nothing is downloaded): torchvision, timm, Hugging Face
transformers and torch.nn. Each entry builds a model, its example inputs
and the loss a training step takes, all from fixed seeds, and runs in
seconds on a CPU.

`check(name, mode)` runs one model as PyTorch's dynamo benchmark harness
checks a backend: eager in float32 and float64 (the reference and its
fp64 twin) and `torch.compile(model, backend="aot")` on identical copies,
compared with the harness's own `same` (its tolerance and fp64 rule), and
counts what aot left to PyTorch (the backend's fallback warnings). In
`train` mode one step: the loss's backward, then the loss and every
parameter's gradient are compared.

    python python/tests/zoo.py [NAME ...] [--modes infer,train] [--ops]

prints one line per model and mode: accurate or not, and every fallback
reason; with `--ops`, the ATen ops each model reaches and how aot handles
each one (`op_report`). The test module `test_model_zoo.py` runs the same
checks."""

from __future__ import annotations

import argparse
import copy
import logging
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Tuple

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class Case:
    build: Callable[[], nn.Module]
    # The example inputs (positional, keyword), made from a generator.
    inputs: Callable[[torch.Generator], Tuple[tuple, dict]]
    # The training loss from the model's output.
    loss: Callable[[Any], torch.Tensor]
    family: str
    # Tolerances of `same` in inference and training: the dynamo
    # harness's for its timm and Hugging Face suites (1e-3; 1e-2 for a
    # training step, whose gradients pass through many more roundings).
    tol: Tuple[float, float] = (1e-3, 1e-2)
    # Compare a training step by cosine similarity (the harness's
    # `--cosine`, which its lists give models whose gradients turn on a
    # kink): a ReLU6 input within rounding of 0 decides whether an element
    # passes its gradient, and eager in f32 and in f64 may already differ.
    cosine: bool = False


def _images(n=4, c=3, hw=64):
    return lambda g: ((torch.randn(n, c, hw, hw, generator=g),), {})


def _classify(out):
    if not isinstance(out, torch.Tensor):
        out = out.logits
    target = torch.arange(out.shape[0]) % out.shape[-1]
    return F.cross_entropy(out.float(), target)


def _hf_loss(out):
    return out.loss


def _tokens(name, n=2, t=12, vocab=100):
    def make(g):
        ids = torch.randint(2, vocab, (n, t), generator=g)
        mask = torch.ones(n, t, dtype=torch.long)
        mask[1, t - 4:] = 0
        kw = {"input_ids": ids, "attention_mask": mask, "labels": ids}
        if name in ("t5", "bart", "pegasus"):
            kw["decoder_input_ids"] = ids
        return (), kw
    return make


def _no_dropout(model):
    # (Hugging Face names its stochastic depth per model: SegformerDropPath,
    # SwinDropPath, ... Left on, eager and aot draw different masks.)
    for m in model.modules():
        kind = type(m).__name__
        if isinstance(m, nn.Dropout) or "StochasticDepth" in kind or "DropPath" in kind:
            m.p = 0.0
            if hasattr(m, "drop_prob"):
                m.drop_prob = 0.0
    return model


# -- torchvision ----------------------------------------------------------


def _tv(name, **kw):
    def build():
        import torchvision
        return getattr(torchvision.models, name)(weights=None, **kw)
    return build


def _tv_vit():
    from torchvision.models.vision_transformer import VisionTransformer
    return VisionTransformer(image_size=32, patch_size=8, num_layers=2, num_heads=2, hidden_dim=32, mlp_dim=64,
                             num_classes=10)


def _tv_convnext():
    from torchvision.models.convnext import CNBlockConfig, ConvNeXt
    settings = [CNBlockConfig(16, 32, 1), CNBlockConfig(32, 64, 1), CNBlockConfig(64, None, 1)]
    return ConvNeXt(settings, num_classes=10)


def _tv_swin():
    from torchvision.models.swin_transformer import SwinTransformer
    return SwinTransformer(patch_size=[4, 4], embed_dim=16, depths=[1, 1], num_heads=[2, 2], window_size=[2, 2],
                           num_classes=10)


# -- timm -----------------------------------------------------------------


def _timm(name, **kw):
    def build():
        import timm
        return timm.create_model(name, pretrained=False, num_classes=10, **kw)
    return build


# -- transformers ---------------------------------------------------------


def _hf(name):
    def build():
        import transformers as T
        if name == "gpt2":
            cfg = T.GPT2Config(n_layer=2, n_head=2, n_embd=32, vocab_size=100, n_positions=64, bos_token_id=0,
                               eos_token_id=0, resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0)
            return T.GPT2LMHeadModel(cfg)
        if name == "bert":
            cfg = T.BertConfig(num_hidden_layers=2, num_attention_heads=2, hidden_size=32, intermediate_size=64,
                               vocab_size=100, max_position_embeddings=64, hidden_dropout_prob=0.0,
                               attention_probs_dropout_prob=0.0)
            return T.BertForMaskedLM(cfg)
        if name == "roberta":
            cfg = T.RobertaConfig(num_hidden_layers=2, num_attention_heads=2, hidden_size=32, intermediate_size=64,
                                  vocab_size=100, max_position_embeddings=64, hidden_dropout_prob=0.0,
                                  attention_probs_dropout_prob=0.0, pad_token_id=1)
            return T.RobertaForMaskedLM(cfg)
        if name == "llama":
            cfg = T.LlamaConfig(num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=1, hidden_size=32,
                                intermediate_size=64, vocab_size=100, max_position_embeddings=64, bos_token_id=0,
                                eos_token_id=0)
            return T.LlamaForCausalLM(cfg)
        if name == "qwen2":
            cfg = T.Qwen2Config(num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=1, hidden_size=32,
                                intermediate_size=64, vocab_size=100, max_position_embeddings=64, bos_token_id=0,
                                eos_token_id=0)
            return T.Qwen2ForCausalLM(cfg)
        if name == "t5":
            cfg = T.T5Config(num_layers=2, num_heads=2, d_model=32, d_kv=16, d_ff=64, vocab_size=100,
                             decoder_start_token_id=0, eos_token_id=1, pad_token_id=0, dropout_rate=0.0)
            return T.T5ForConditionalGeneration(cfg)
        if name == "bart":
            cfg = T.BartConfig(encoder_layers=2, decoder_layers=2, encoder_attention_heads=2,
                               decoder_attention_heads=2, d_model=32, encoder_ffn_dim=64, decoder_ffn_dim=64,
                               vocab_size=100, max_position_embeddings=64, dropout=0.0, attention_dropout=0.0,
                               activation_dropout=0.0, pad_token_id=1, bos_token_id=0, eos_token_id=2,
                               decoder_start_token_id=2)
            return T.BartForConditionalGeneration(cfg)
        if name == "whisper":
            cfg = T.WhisperConfig(encoder_layers=2, decoder_layers=2, encoder_attention_heads=2,
                                  decoder_attention_heads=2, d_model=32, encoder_ffn_dim=64, decoder_ffn_dim=64,
                                  vocab_size=100, num_mel_bins=16, max_source_positions=16, max_target_positions=32,
                                  dropout=0.0, attention_dropout=0.0, activation_dropout=0.0, pad_token_id=0,
                                  bos_token_id=0, eos_token_id=1, decoder_start_token_id=0)
            return T.WhisperForConditionalGeneration(cfg)
        common = dict(num_hidden_layers=2, num_attention_heads=2, hidden_size=32, intermediate_size=64,
                      vocab_size=100, max_position_embeddings=64)
        no_drop = dict(hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)
        if name == "distilbert":
            return T.DistilBertForMaskedLM(T.DistilBertConfig(n_layers=2, n_heads=2, dim=32, hidden_dim=64,
                                                              vocab_size=100, max_position_embeddings=64,
                                                              dropout=0.0, attention_dropout=0.0))
        if name == "albert":
            return T.AlbertForMaskedLM(T.AlbertConfig(embedding_size=16, **no_drop, **common))
        if name == "electra":
            return T.ElectraForMaskedLM(T.ElectraConfig(embedding_size=16, **no_drop, **common))
        if name == "deberta":
            return T.DebertaV2ForMaskedLM(T.DebertaV2Config(**no_drop, **common))
        if name == "opt":
            return T.OPTForCausalLM(T.OPTConfig(num_hidden_layers=2, num_attention_heads=2, hidden_size=32,
                                                ffn_dim=64, vocab_size=100, max_position_embeddings=64,
                                                word_embed_proj_dim=32, dropout=0.0, attention_dropout=0.0))
        if name == "mistral":
            return T.MistralForCausalLM(T.MistralConfig(num_key_value_heads=1, **common))
        if name == "phi":
            return T.PhiForCausalLM(T.PhiConfig(num_key_value_heads=2, resid_pdrop=0.0, embd_pdrop=0.0,
                                                attention_dropout=0.0, **common))
        if name == "gpt_neox":
            return T.GPTNeoXForCausalLM(T.GPTNeoXConfig(hidden_dropout=0.0, attention_dropout=0.0, **common))
        if name == "gemma":
            return T.GemmaForCausalLM(T.GemmaConfig(num_key_value_heads=1, head_dim=16, **common))
        if name == "pegasus":
            return T.PegasusForConditionalGeneration(T.PegasusConfig(
                encoder_layers=2, decoder_layers=2, encoder_attention_heads=2, decoder_attention_heads=2,
                d_model=32, encoder_ffn_dim=64, decoder_ffn_dim=64, vocab_size=100, max_position_embeddings=64,
                dropout=0.0, attention_dropout=0.0, activation_dropout=0.0, pad_token_id=0, eos_token_id=1,
                decoder_start_token_id=0))
        if name == "vit":
            return T.ViTForImageClassification(T.ViTConfig(image_size=32, patch_size=8, num_labels=10,
                                                           num_hidden_layers=2, num_attention_heads=2,
                                                           hidden_size=32, intermediate_size=64, **no_drop))
        if name == "wav2vec2":
            cfg = T.Wav2Vec2Config(num_hidden_layers=2, num_attention_heads=2, hidden_size=32, intermediate_size=64,
                                   conv_dim=(16, 16), conv_stride=(5, 2), conv_kernel=(10, 3),
                                   num_conv_pos_embeddings=8, num_conv_pos_embedding_groups=2, vocab_size=20,
                                   hidden_dropout=0.0, attention_dropout=0.0, activation_dropout=0.0,
                                   feat_proj_dropout=0.0, layerdrop=0.0, mask_time_prob=0.0, final_dropout=0.0)
            return T.Wav2Vec2ForCTC(cfg)
        raise KeyError(name)
    return build


# Small configurations of the other Hugging Face families: each field the
# config class has is set (layers, heads, widths, vocabulary, no dropout).
_HF_SMALL = dict(
    num_hidden_layers=2, num_attention_heads=2, hidden_size=32, intermediate_size=64, vocab_size=100,
    max_position_embeddings=64, n_layer=2, n_head=2, n_embd=32, n_positions=64, num_layers=2, num_heads=2,
    d_model=32, d_ff=64, d_kv=16, encoder_layers=2, decoder_layers=2, encoder_attention_heads=2,
    decoder_attention_heads=2, encoder_ffn_dim=64, decoder_ffn_dim=64, hidden_dropout_prob=0.0,
    attention_probs_dropout_prob=0.0, dropout=0.0, attention_dropout=0.0, activation_dropout=0.0, resid_pdrop=0.0,
    embd_pdrop=0.0, attn_pdrop=0.0, hidden_dropout=0.0, dropout_rate=0.0, num_key_value_heads=1, ffn_dim=64,
    embedding_size=32, n_inner=64, layerdrop=0.0, encoder_layerdrop=0.0, decoder_layerdrop=0.0)


def _hf_small(model_class, config_class, **override):
    def build():
        import transformers as T
        cfg = getattr(T, config_class)()
        for k, v in dict(_HF_SMALL, **override).items():
            if k in override:
                setattr(cfg, k, v)
            elif hasattr(cfg, k):
                try:
                    setattr(cfg, k, v)
                except (AttributeError, NotImplementedError):  # (XLNet has no position limit to set)
                    pass
        return getattr(T, model_class)(cfg)
    return build


def _seq2seq(g):
    ids = torch.randint(2, 100, (2, 12), generator=g)
    mask = torch.ones(2, 12, dtype=torch.long)
    mask[1, 8:] = 0
    return (), {"input_ids": ids, "attention_mask": mask, "labels": ids, "decoder_input_ids": ids}


def _classified_tokens(g):
    (), kw = _tokens("bert")(g)
    kw["labels"] = torch.tensor([0, 1])
    kw["token_type_ids"] = torch.zeros_like(kw["input_ids"])
    return (), kw


def _pixels(hw=32):
    return lambda g: ((), {"pixel_values": torch.randn(2, 3, hw, hw, generator=g), "labels": torch.tensor([1, 2])})


def _whisper_inputs(g):
    feats = torch.randn(2, 16, 32, generator=g)
    labels = torch.randint(2, 100, (2, 6), generator=g)
    return (), {"input_features": feats, "labels": labels}


def _vit_inputs(g):
    return (), {"pixel_values": torch.randn(2, 3, 32, 32, generator=g), "labels": torch.tensor([1, 2])}


def _wav2vec2_inputs(g):
    audio = torch.randn(2, 400, generator=g)
    labels = torch.randint(1, 20, (2, 5), generator=g)
    return (), {"input_values": audio, "labels": labels}


# -- torch.nn -------------------------------------------------------------


class _Recurrent(nn.Module):
    def __init__(self, kind):
        super().__init__()
        self.rnn = getattr(nn, kind)(input_size=8, hidden_size=16, num_layers=2, batch_first=True)
        self.head = nn.Linear(16, 4)

    def forward(self, x):
        out, _ = self.rnn(x)
        return self.head(out[:, -1])


class _Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        layer = nn.TransformerEncoderLayer(d_model=32, nhead=4, dim_feedforward=64, dropout=0.0, batch_first=True)
        self.enc = nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)
        self.head = nn.Linear(32, 4)

    def forward(self, x, mask):
        return self.head(self.enc(x, src_key_padding_mask=mask).mean(1))


class _Transformer(nn.Module):
    def __init__(self):
        super().__init__()
        self.t = nn.Transformer(d_model=32, nhead=4, num_encoder_layers=1, num_decoder_layers=1,
                                dim_feedforward=64, dropout=0.0, batch_first=True)
        self.head = nn.Linear(32, 4)

    def forward(self, src, tgt):
        causal = nn.Transformer.generate_square_subsequent_mask(tgt.shape[1])
        return self.head(self.t(src, tgt, tgt_mask=causal, tgt_is_causal=True).mean(1))


def _seq(*shapes):
    return lambda g: (tuple(torch.randn(*s, generator=g) for s in shapes), {})


def _padded(g):
    x = torch.randn(2, 6, 32, generator=g)
    mask = torch.zeros(2, 6, dtype=torch.bool)
    mask[1, 4:] = True
    return (x, mask), {}


CASES: Dict[str, Case] = {
    # vision: residual, inverted residual with squeeze-excitation and hard
    # activations, vision transformers, ConvNeXt, MobileViT.
    "tv_resnet18": Case(_tv("resnet18", num_classes=10), _images(), _classify, "vision"),
    "tv_mobilenet_v2": Case(_tv("mobilenet_v2", num_classes=10), _images(), _classify, "vision", cosine=True),
    "tv_mobilenet_v3_small": Case(_tv("mobilenet_v3_small", num_classes=10), _images(), _classify, "vision"),
    "tv_efficientnet_b0": Case(_tv("efficientnet_b0", num_classes=10), _images(), _classify, "vision"),
    "tv_vit": Case(_tv_vit, _images(hw=32), _classify, "vision"),
    "tv_convnext": Case(_tv_convnext, _images(), _classify, "vision"),
    "tv_swin": Case(_tv_swin, _images(hw=32), _classify, "vision"),
    "timm_mobilevit_xxs": Case(_timm("mobilevit_xxs"), _images(), _classify, "vision"),
    "timm_efficientnet_b0": Case(_timm("efficientnet_b0"), _images(), _classify, "vision"),
    "timm_resnet18": Case(_timm("resnet18"), _images(), _classify, "vision"),
    "tv_shufflenet_v2": Case(_tv("shufflenet_v2_x0_5", num_classes=10), _images(), _classify, "vision"),
    "tv_squeezenet": Case(_tv("squeezenet1_1", num_classes=10), _images(), _classify, "vision"),
    "tv_mnasnet": Case(_tv("mnasnet0_5", num_classes=10), _images(), _classify, "vision", cosine=True),
    "tv_regnet": Case(_tv("regnet_y_400mf", num_classes=10), _images(), _classify, "vision"),
    "tv_densenet121": Case(_tv("densenet121", num_classes=10), _images(hw=32), _classify, "vision"),
    "timm_vit_tiny": Case(_timm("vit_tiny_patch16_224", img_size=32, patch_size=8), _images(hw=32), _classify,
                          "vision"),
    "timm_convnext_atto": Case(_timm("convnext_atto"), _images(), _classify, "vision"),
    "timm_regnetx": Case(_timm("regnetx_002"), _images(), _classify, "vision"),
    "timm_mixer": Case(_timm("mixer_s16_224", img_size=64), _images(), _classify, "vision"),
    "timm_levit": Case(_timm("levit_128s", img_size=64), _images(), _classify, "vision"),
    # text: encoders, decoders (causal mask, rotary embeddings, grouped
    # key/value heads), encoder-decoders, speech.
    "hf_gpt2": Case(_hf("gpt2"), _tokens("gpt2"), _hf_loss, "text"),
    "hf_bert": Case(_hf("bert"), _tokens("bert"), _hf_loss, "text"),
    "hf_roberta": Case(_hf("roberta"), _tokens("roberta"), _hf_loss, "text"),
    "hf_llama": Case(_hf("llama"), _tokens("llama"), _hf_loss, "text"),
    "hf_qwen2": Case(_hf("qwen2"), _tokens("qwen2"), _hf_loss, "text"),
    "hf_t5": Case(_hf("t5"), _tokens("t5"), _hf_loss, "text"),
    "hf_bart": Case(_hf("bart"), _tokens("bart"), _hf_loss, "text"),
    "hf_whisper": Case(_hf("whisper"), _whisper_inputs, _hf_loss, "text"),
    "hf_wav2vec2": Case(_hf("wav2vec2"), _wav2vec2_inputs, _hf_loss, "text"),
    "hf_distilbert": Case(_hf("distilbert"), _tokens("distilbert"), _hf_loss, "text"),
    "hf_albert": Case(_hf("albert"), _tokens("albert"), _hf_loss, "text"),
    "hf_electra": Case(_hf("electra"), _tokens("electra"), _hf_loss, "text"),
    "hf_deberta_v2": Case(_hf("deberta"), _tokens("deberta"), _hf_loss, "text"),
    "hf_opt": Case(_hf("opt"), _tokens("opt"), _hf_loss, "text"),
    "hf_mistral": Case(_hf("mistral"), _tokens("mistral"), _hf_loss, "text"),
    "hf_phi": Case(_hf("phi"), _tokens("phi"), _hf_loss, "text"),
    "hf_gpt_neox": Case(_hf("gpt_neox"), _tokens("gpt_neox"), _hf_loss, "text"),
    "hf_gemma": Case(_hf("gemma"), _tokens("gemma"), _hf_loss, "text"),
    "hf_pegasus": Case(_hf("pegasus"), _tokens("pegasus"), _hf_loss, "text"),
    "hf_vit": Case(_hf("vit"), _vit_inputs, _hf_loss, "vision"),
    # torch.nn's recurrent and transformer modules.
    # More of each family (the IR paths they reach: upsampling, topk
    # routers, float floor division, in-place leaky ReLU, adaptive pools of
    # unequal windows, views of intermediates eager lays out otherwise).
    "tv_resnet50": Case(_tv("resnet50", num_classes=10), _images(n=2), _classify, "vision"),
    "tv_googlenet": Case(_tv("googlenet", num_classes=10, aux_logits=False, init_weights=True), _images(),
                         _classify, "vision"),
    "tv_alexnet": Case(_tv("alexnet", num_classes=10), _images(), _classify, "vision"),
    "tv_mobilenet_v3_large": Case(_tv("mobilenet_v3_large", num_classes=10), _images(), _classify, "vision"),
    # (ReLU kinks after batch norm, as tv_mobilenet_v2: eager f32 and f64
    # already flip elements within 1e-5 of zero.)
    "tv_regnet_x": Case(_tv("regnet_x_400mf", num_classes=10), _images(), _classify, "vision", cosine=True),
    "timm_deit_tiny": Case(_timm("deit_tiny_patch16_224", img_size=32, patch_size=8), _images(hw=32), _classify,
                           "vision"),
    "timm_swin": Case(_timm("swin_tiny_patch4_window7_224", img_size=32, embed_dim=16, depths=(1, 1),
                            num_heads=(1, 2), window_size=4), _images(hw=32), _classify, "vision"),
    "timm_resmlp": Case(_timm("resmlp_12_224", img_size=64), _images(n=2), _classify, "vision"),
    "timm_xcit": Case(_timm("xcit_nano_12_p16_224", img_size=64, depth=2), _images(n=2), _classify, "vision"),
    "timm_edgenext": Case(_timm("edgenext_xx_small"), _images(n=2), _classify, "vision"),
    "timm_cspdarknet": Case(_timm("cspdarknet53"), _images(n=2), _classify, "vision"),
    "timm_hrnet": Case(_timm("hrnet_w18_small"), _images(n=2), _classify, "vision"),
    "timm_ghostnet": Case(_timm("ghostnet_050"), _images(), _classify, "vision"),
    "timm_pvt_v2": Case(_timm("pvt_v2_b0"), _images(n=2), _classify, "vision"),
    "timm_poolformer": Case(_timm("poolformer_s12"), _images(n=2), _classify, "vision"),
    "timm_eva02": Case(_timm("eva02_tiny_patch14_224", img_size=28, depth=2), _images(hw=28), _classify, "vision"),
    "timm_ese_vovnet": Case(_timm("ese_vovnet19b_dw"), _images(n=2), _classify, "vision", cosine=True),
    "timm_nfresnet": Case(_timm("nf_resnet26"), _images(n=2), _classify, "vision"),
    "hf_gpt_neo": Case(_hf_small("GPTNeoForCausalLM", "GPTNeoConfig", attention_types=[[["global", "local"], 1]],
                                 window_size=8), _tokens("gpt_neo"), _hf_loss, "text"),
    "hf_bloom": Case(_hf_small("BloomForCausalLM", "BloomConfig"), _tokens("bloom"), _hf_loss, "text"),
    "hf_falcon": Case(_hf_small("FalconForCausalLM", "FalconConfig"), _tokens("falcon"), _hf_loss, "text"),
    "hf_mixtral": Case(_hf_small("MixtralForCausalLM", "MixtralConfig", num_local_experts=4, num_experts_per_tok=2,
                                 _experts_implementation="eager"), _tokens("mixtral"), _hf_loss, "text"),
    "hf_qwen2_moe": Case(_hf_small("Qwen2MoeForCausalLM", "Qwen2MoeConfig", num_experts=4, num_experts_per_tok=2,
                                   moe_intermediate_size=32, shared_expert_intermediate_size=32,
                                   _experts_implementation="eager"), _tokens("qwen2_moe"), _hf_loss, "text"),
    "hf_mbart": Case(_hf_small("MBartForConditionalGeneration", "MBartConfig"), _seq2seq, _hf_loss, "text"),
    "hf_marian": Case(_hf_small("MarianMTModel", "MarianConfig", decoder_vocab_size=100, pad_token_id=0,
                                decoder_start_token_id=0), _seq2seq, _hf_loss, "text"),
    "hf_convbert": Case(_hf_small("ConvBertForMaskedLM", "ConvBertConfig"), _tokens("convbert"), _hf_loss, "text"),
    "hf_xlnet": Case(_hf_small("XLNetLMHeadModel", "XLNetConfig", d_inner=64), _tokens("xlnet"), _hf_loss, "text"),
    "hf_bert_classifier": Case(_hf_small("BertForSequenceClassification", "BertConfig"), _classified_tokens,
                               _hf_loss, "text"),
    "hf_swin": Case(_hf_small("SwinForImageClassification", "SwinConfig", image_size=32, patch_size=4, embed_dim=16,
                              depths=[1, 1], num_heads=[1, 2], window_size=4, num_labels=10), _pixels(), _hf_loss,
                    "vision"),
    "hf_segformer": Case(_hf_small("SegformerForImageClassification", "SegformerConfig", num_encoder_blocks=2,
                                   depths=[1, 1], sr_ratios=[2, 1], hidden_sizes=[16, 32],
                                   num_attention_heads=[1, 2], mlp_ratios=[2, 2], strides=[4, 2], patch_sizes=[7, 3],
                                   num_labels=10), _pixels(), _hf_loss, "vision"),
    "hf_clip_vision": Case(_hf_small("CLIPVisionModel", "CLIPVisionConfig", image_size=32, patch_size=8),
                           lambda g: ((), {"pixel_values": torch.randn(2, 3, 32, 32, generator=g)}),
                           lambda out: out.pooler_output.sum(), "vision"),
    "nn_rnn": Case(lambda: _Recurrent("RNN"), _seq((2, 5, 8)), _classify, "nn"),
    "nn_lstm": Case(lambda: _Recurrent("LSTM"), _seq((2, 5, 8)), _classify, "nn"),
    "nn_gru": Case(lambda: _Recurrent("GRU"), _seq((2, 5, 8)), _classify, "nn"),
    "nn_transformer_encoder": Case(_Encoder, _padded, _classify, "nn"),
    "nn_transformer": Case(_Transformer, _seq((2, 5, 32), (2, 4, 32)), _classify, "nn"),
}


class _Fallbacks(logging.Handler):
    """The backend's warnings that something runs in PyTorch."""

    def __init__(self):
        super().__init__(logging.WARNING)
        self.lines: List[str] = []

    def emit(self, record):
        self.lines.append(record.getMessage())


@dataclass
class Result:
    name: str
    mode: str
    accurate: bool
    fallbacks: List[str] = field(default_factory=list)
    error: str = ""
    seconds: float = 0.0
    # Regions aot compiled (0: Dynamo gave the backend nothing).
    compiled: int = 0


def _to64(x):
    if isinstance(x, torch.Tensor) and x.is_floating_point():
        return x.double()
    if isinstance(x, (list, tuple)):
        return type(x)(_to64(v) for v in x)
    if isinstance(x, dict):
        return {k: _to64(v) for k, v in x.items()}
    return x


def _outputs(out):
    """The tensors a model returns (a Hugging Face output's fields)."""
    if isinstance(out, torch.Tensor):
        return [out]
    if hasattr(out, "to_tuple"):
        out = out.to_tuple()
    if isinstance(out, dict):
        out = list(out.values())
    if not isinstance(out, (list, tuple)):
        return []  # (a key/value cache object: its tensors are the logits' inputs)
    return [t for v in out for t in _outputs(v)]


def _step(model, case, args, kw, mode):
    """Outputs (and gradients in train mode) of one call."""
    if mode == "infer":
        with torch.no_grad():
            return [t.detach() for t in _outputs(model(*args, **kw))]
    out = model(*args, **kw)
    loss = case.loss(out)
    loss.backward()
    grads = [p.grad for p in model.parameters()]
    return [loss.detach()] + [g if g is None else g.detach() for g in grads]


def _instance(name: str, mode: str):
    """Model `name` built from its seed, in `mode`, with dropout off, and its
    example inputs: (case, model, args, kwargs)."""
    case = CASES[name]
    torch.manual_seed(0)
    model = _no_dropout(case.build())
    model.train(mode == "train")
    args, kw = case.inputs(torch.Generator().manual_seed(1))
    return case, model, args, kw


def check(name: str, mode: str, backend="aot") -> Result:
    """Runs model `name` in `mode` ("infer" or "train") eagerly (float32
    and float64) and compiled, and compares as the dynamo harness does."""
    from torch._dynamo.utils import same

    started = time.perf_counter()
    case, model, args, kw = _instance(name, mode)
    ref_model = copy.deepcopy(model)
    fp64_model = copy.deepcopy(model).double()
    compiled_model = copy.deepcopy(model)
    ref = _step(ref_model, case, args, kw, mode)
    fp64 = _step(fp64_model, case, _to64(args), _to64(kw), mode)
    from aot_torch.backend import stats

    compiled_before = stats["compiled"]
    handler = _Fallbacks()
    log = logging.getLogger("aot_torch")
    log.addHandler(handler)
    torch._dynamo.reset()
    try:
        compiled = torch.compile(compiled_model, backend=backend)
        res = _step(compiled, case, args, kw, mode)
        # In inference, two more calls: the second registers each region's
        # plain variant with the native dispatcher, the third runs there.
        more = [_step(compiled, case, args, kw, mode) for _ in range(2)] if mode == "infer" else []
    except Exception as e:  # noqa: BLE001  (reported, not raised: the table lists every model)
        return Result(name, mode, False, handler.lines, "%s: %s" % (type(e).__name__, str(e).splitlines()[0][:200]),
                      time.perf_counter() - started)
    finally:
        log.removeHandler(handler)
        torch._dynamo.reset()
    def matches(res):
        return len(ref) == len(res) and all(
            (r is None) == (c is None) and (r is None or same(r, c, fp64_ref=f, tol=case.tol[mode == "train"],
                                                             cos_similarity=case.cosine and mode == "train",
                                                             log_error=lambda *a: None))
            for r, c, f in zip(ref, res, fp64))

    ok = all(matches(r) for r in [res] + more)
    return Result(name, mode, bool(ok), handler.lines, "", time.perf_counter() - started,
                  stats["compiled"] - compiled_before)


def op_report(call: Callable[[], Any]) -> List[Tuple[str, int, str]]:
    """The ATen ops `call()` (a compiled model's call) reaches and how aot
    handles each: `(op, count, how)`, `how` the IR ops its nodes became
    (read from the locations of the translated IR, which name each op's
    ATen node) or "PyTorch: <reason>". The ops are those of the ATen graph
    after aot's decompositions (a convolution appears as the slices and
    matrix products it is written with)."""
    import re
    from collections import defaultdict

    backend = sys.modules["aot_torch.backend"]
    fx_ir = sys.modules["aot_torch.fx_ir"]
    graphs = []  # (aten graph's nodes, {node: how it runs in PyTorch}) per trace
    texts: List[str] = []
    whole, variant_init = backend._whole_region, backend._Variant.__init__

    def spy_whole(aten_gm, cfg, graph_name, original):
        # (Read before the check, which erases dead nodes.)
        nodes = [n for n in aten_gm.graph.nodes if n.op == "call_function"]
        region, unsupported = whole(aten_gm, cfg, graph_name, original)
        if unsupported:
            # The user's calls these ops come from run in PyTorch as written
            # (with their other ATen ops); the rest of the graph is traced
            # again, region by region, and reported from there.
            why = {n.name: r for n, r in unsupported}
            sources = {fx_ir.source_of(n) for n, _ in unsupported}
            for n in nodes:
                if n.name not in why and fx_ir.source_of(n) in sources:
                    why[n.name] = "traced from the same call as an op aot does not support"
            nodes = [n for n in nodes if n.name in why]
            graphs.append(([(n.name, str(n.target)) for n in nodes], why))
        else:
            graphs.append(([(n.name, str(n.target)) for n in nodes], {}))
        return region, unsupported

    def spy_variant(self, translation, *a, **kw):
        texts.append(translation.text)
        return variant_init(self, translation, *a, **kw)

    backend._whole_region, backend._Variant.__init__ = spy_whole, spy_variant
    try:
        call()
    finally:
        backend._whole_region, backend._Variant.__init__ = whole, variant_init
    # Each IR op's location names the FX node it translates.
    ir_of: Dict[str, set] = defaultdict(set)
    for text in texts:
        for op, node in re.findall(r'"([a-z]+\.[a-z_0-9]+)"\(.*loc\("([^"]+)"', text):
            ir_of[node].add(op)
    rows: Dict[str, List[Any]] = {}
    for nodes, unsupported in graphs:
        for node, name in nodes:
            if name.startswith("<built-in function getitem>"):
                continue
            how = "PyTorch: " + unsupported[node] if node in unsupported else \
                ", ".join(sorted(ir_of.get(node, ()))) or "no IR op (folded or dead)"
            row = rows.setdefault(name + "\0" + how, [name, 0, how])
            row[1] += 1
    return sorted((r[0], r[1], r[2]) for r in rows.values())


def _report(name, mode):
    case, model, args, kw = _instance(name, mode)
    torch._dynamo.reset()
    rows = op_report(lambda: _step(torch.compile(model, backend="aot"), case, args, kw, mode))
    torch._dynamo.reset()
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("names", nargs="*", help="models (default: all)")
    ap.add_argument("--modes", default="infer,train")
    ap.add_argument("--backend", default="aot")
    ap.add_argument("--ops", action="store_true",
                    help="list the ATen ops each model reaches and how aot handles each, instead of checking")
    a = ap.parse_args(argv)
    import aot_torch  # noqa: F401  (registers the backend)

    torch.set_num_threads(2)
    names = a.names or list(CASES)
    if a.ops:
        for name in names:
            for mode in a.modes.split(","):
                print("%s (%s):" % (name, mode))
                for op, count, how in _report(name, mode):
                    print("  %-48s %4d  %s" % (op, count, how))
        return 0
    bad = 0
    for name in names:
        for mode in a.modes.split(","):
            r = check(name, mode, a.backend)
            verdict = "accurate" if r.accurate else "WRONG" if not r.error else "ERROR"
            print("%-24s %-5s %-8s %5.1fs  regions %d  fallbacks %d%s" % (
                name, mode, verdict, r.seconds, r.compiled, len(r.fallbacks), ("  " + r.error) if r.error else ""),
                flush=True)
            for line in dict.fromkeys(r.fallbacks):
                print("    " + line.splitlines()[0][:220], flush=True)
            bad += (not r.accurate) or bool(r.fallbacks) or not r.compiled
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
