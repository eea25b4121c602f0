"""Real models through torch.compile(backend="aot"), eager PyTorch and
torch.compile with Inductor, side by side: the real-model suite of
`bench/README.md`.

Nineteen models as users build them (torchvision, timm, Hugging Face
transformers, torch.nn; random weights, small inputs, nothing downloaded),
in inference (`eval()` under `no_grad`) and in training (forward, loss,
backward, an SGD step). Each model and mode runs in a process of its own;
in it the three are compiled one after the other (the first call's time is
the compile time; Inductor's on-disk caches are off, so it is cold), then
timed round-robin, one step of each per round, so that the machine's
drift reaches all three alike. A figure is the median of `--steps` rounds
after `--warmup` rounds. PyTorch's OpenMP settings are left as they are
(its defaults, unless the caller sets `OMP_*`).

    py=test/.venv/bin/python   # torch, torchvision, timm, transformers and aot_torch installed
    $py bench/pytorch/real_models.py [--models NAME,...] [--families F,...] [--modes infer,train]
                                     [--steps 10] [--warmup 3] [--no-inductor] [--json FILE]
                                     [--autocast bf16|f16]

Prints a line per model and mode as it finishes, then a Markdown table
(speed relative to eager: above 1 is faster) with the geometric mean per
family and over all models, and the first calls. `--profile` also prints
aot's per-kernel profile of each model (`aot_torch.profiler`).
`--autocast bf16` runs every backend's forward and loss under
`torch.autocast("cpu", dtype=torch.bfloat16)` (mixed precision)."""

from __future__ import annotations

import argparse
import json
import logging
import math
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from machine import cpu_model  # noqa: E402

FAMILIES = ("torchvision", "timm", "transformers", "torch.nn")


def _images(n, hw=64, classes=10):
    import torch

    def make(g):
        x = torch.randn(n, 3, hw, hw, generator=g)
        y = torch.arange(n) % classes
        return (x,), {}, y
    return make


def _classify(out, y):
    import torch.nn.functional as F
    if not hasattr(out, "shape"):
        out = out.logits
    return F.cross_entropy(out, y)


def _tv(name, **kw):
    def build():
        import torchvision
        return getattr(torchvision.models, name)(weights=None, num_classes=10, **kw)
    return build


def _tv_vit():
    from torchvision.models.vision_transformer import VisionTransformer
    return VisionTransformer(image_size=64, patch_size=8, num_layers=4, num_heads=4, hidden_dim=192, mlp_dim=768,
                             num_classes=10)


def _timm(name, **kw):
    def build():
        import timm
        return timm.create_model(name, pretrained=False, num_classes=10, **kw)
    return build


# One width for the language models: 4 layers of 256 wide (4 heads), a
# vocabulary of 1,000, 4 sequences of 64 tokens.
_D, _L, _H, _FF, _V, _B, _T = 256, 4, 4, 1024, 1000, 4, 64


def _hf(name):
    def build():
        import transformers as T
        if name == "bert":
            return T.BertForMaskedLM(T.BertConfig(num_hidden_layers=_L, num_attention_heads=_H, hidden_size=_D,
                                                  intermediate_size=_FF, vocab_size=_V,
                                                  max_position_embeddings=128))
        if name == "gpt2":
            return T.GPT2LMHeadModel(T.GPT2Config(n_layer=_L, n_head=_H, n_embd=_D, vocab_size=_V, n_positions=128,
                                                  bos_token_id=0, eos_token_id=0))
        if name == "llama":
            return T.LlamaForCausalLM(T.LlamaConfig(num_hidden_layers=_L, num_attention_heads=_H,
                                                    num_key_value_heads=2, hidden_size=_D, intermediate_size=688,
                                                    vocab_size=_V, max_position_embeddings=128, bos_token_id=0,
                                                    eos_token_id=0))
        if name == "t5":
            return T.T5ForConditionalGeneration(T.T5Config(num_layers=_L // 2, num_heads=_H, d_model=_D,
                                                           d_kv=_D // _H, d_ff=_FF, vocab_size=_V,
                                                           decoder_start_token_id=0, eos_token_id=1,
                                                           pad_token_id=0))
        if name == "vit":
            return T.ViTForImageClassification(T.ViTConfig(image_size=64, patch_size=8, num_labels=10,
                                                           num_hidden_layers=_L, num_attention_heads=_H,
                                                           hidden_size=192, intermediate_size=768))
        if name == "whisper":
            return T.WhisperForConditionalGeneration(T.WhisperConfig(
                encoder_layers=_L // 2, decoder_layers=_L // 2, encoder_attention_heads=_H,
                decoder_attention_heads=_H, d_model=_D, encoder_ffn_dim=_FF, decoder_ffn_dim=_FF, vocab_size=_V,
                num_mel_bins=80, max_source_positions=64, max_target_positions=64, pad_token_id=0, bos_token_id=0,
                eos_token_id=1, decoder_start_token_id=0))
        raise KeyError(name)
    return build


def _tokens(seq2seq=False):
    import torch

    def make(g):
        ids = torch.randint(2, _V, (_B, _T), generator=g)
        mask = torch.ones(_B, _T, dtype=torch.long)
        mask[1, _T - 16:] = 0
        kw = {"input_ids": ids, "attention_mask": mask, "labels": ids}
        if seq2seq:
            kw["decoder_input_ids"] = ids
        return (), kw, None
    return make


def _hf_pixels(g):
    import torch
    return (), {"pixel_values": torch.randn(_B, 3, 64, 64, generator=g), "labels": torch.arange(_B)}, None


def _whisper_inputs(g):
    import torch
    return (), {"input_features": torch.randn(_B, 80, 128, generator=g),
                "labels": torch.randint(2, _V, (_B, 16), generator=g)}, None


def _hf_loss(out, _y):
    return out.loss


def _nn(kind):
    def build():
        import torch.nn as nn

        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                if kind == "lstm":
                    self.body = nn.LSTM(input_size=64, hidden_size=256, num_layers=2, batch_first=True)
                elif kind == "mha":
                    self.body = nn.MultiheadAttention(256, 8, batch_first=True)
                else:
                    layer = nn.TransformerEncoderLayer(d_model=256, nhead=4, dim_feedforward=1024,
                                                       batch_first=True)
                    self.body = nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)
                self.head = nn.Linear(256, 10)

            def forward(self, x):
                if kind == "lstm":
                    h, _ = self.body(x)
                elif kind == "mha":
                    h, _ = self.body(x, x, x, need_weights=False)
                else:
                    h = self.body(x)
                return self.head(h.mean(1))
        return Model()
    return build


def _sequence(width):
    import torch

    def make(g):
        return (torch.randn(8, 64, width, generator=g),), {}, torch.arange(8) % 10
    return make


# name: (family, build, inputs, loss)
MODELS = {
    "tv_resnet18": ("torchvision", _tv("resnet18"), _images(8), _classify),
    "tv_resnet50": ("torchvision", _tv("resnet50"), _images(4), _classify),
    "tv_mobilenet_v3_large": ("torchvision", _tv("mobilenet_v3_large"), _images(8), _classify),
    "tv_efficientnet_b0": ("torchvision", _tv("efficientnet_b0"), _images(8), _classify),
    "tv_convnext_tiny": ("torchvision", _tv("convnext_tiny"), _images(2), _classify),
    "tv_regnet_y_400mf": ("torchvision", _tv("regnet_y_400mf"), _images(8), _classify),
    "tv_vit": ("torchvision", _tv_vit, _images(8), _classify),
    "timm_vit_tiny": ("timm", _timm("vit_tiny_patch16_224", img_size=64, patch_size=8), _images(8), _classify),
    "timm_regnetx_002": ("timm", _timm("regnetx_002"), _images(8), _classify),
    "timm_convnext_atto": ("timm", _timm("convnext_atto"), _images(8), _classify),
    "hf_bert": ("transformers", _hf("bert"), _tokens(), _hf_loss),
    "hf_gpt2": ("transformers", _hf("gpt2"), _tokens(), _hf_loss),
    "hf_llama": ("transformers", _hf("llama"), _tokens(), _hf_loss),
    "hf_t5": ("transformers", _hf("t5"), _tokens(seq2seq=True), _hf_loss),
    "hf_vit": ("transformers", _hf("vit"), _hf_pixels, _hf_loss),
    "hf_whisper": ("transformers", _hf("whisper"), _whisper_inputs, _hf_loss),
    "nn_lstm": ("torch.nn", _nn("lstm"), _sequence(64), _classify),
    "nn_mha": ("torch.nn", _nn("mha"), _sequence(256), _classify),
    "nn_transformer_encoder": ("torch.nn", _nn("encoder"), _sequence(256), _classify),
}


class _Fallbacks(logging.Handler):
    """Counts the backend's warnings that something runs in PyTorch."""

    def __init__(self):
        super().__init__(logging.WARNING)
        self.lines = []

    def emit(self, record):
        self.lines.append(record.getMessage())


def _measure(name, mode, steps, warmup, backends, profile, amp=""):
    """One model in one mode: {backend: (first call s, median step s)}.
    `amp`: "bf16" or "f16" runs each forward and loss under
    `torch.autocast("cpu", dtype=...)`."""
    import contextlib

    import torch
    import aot_torch

    def autocast():
        if not amp:
            return contextlib.nullcontext()
        return torch.autocast("cpu", dtype={"bf16": torch.bfloat16, "f16": torch.float16}[amp])

    family, build, make_inputs, lossf = MODELS[name]
    fallbacks = _Fallbacks()
    logging.getLogger("aot_torch").addHandler(fallbacks)
    runs = {}
    for backend in backends:
        torch._dynamo.reset()
        torch.manual_seed(0)
        model = build()
        args, kw, y = make_inputs(torch.Generator().manual_seed(1))
        if mode == "infer":
            model.eval()
            call = model if backend == "eager" else torch.compile(model, backend=backend)

            def step(call=call, args=args, kw=kw):
                with torch.no_grad(), autocast():
                    return call(*args, **kw)
        else:
            model.train()
            call = model if backend == "eager" else torch.compile(model, backend=backend)
            opt = torch.optim.SGD(model.parameters(), lr=1e-3)

            def step(call=call, args=args, kw=kw, opt=opt):
                with autocast():
                    loss = lossf(call(*args, **kw), y)
                loss.backward()
                opt.step()
                opt.zero_grad(set_to_none=True)
                return loss
        t0 = time.perf_counter()
        step()
        runs[backend] = [step, time.perf_counter() - t0, []]
    for _ in range(warmup):
        for backend in backends:
            runs[backend][0]()
    for _ in range(steps):
        for backend in backends:
            t0 = time.perf_counter()
            runs[backend][0]()
            runs[backend][2].append(time.perf_counter() - t0)
    result = {"model": name, "family": family, "mode": mode,
              "fallbacks": len(fallbacks.lines), "fallback_lines": sorted(set(fallbacks.lines))[:5]}
    for backend, (_, first, times) in runs.items():
        result[backend] = {"first_s": first, "step_s": statistics.median(times)}
    if profile and "aot" in runs:
        with aot_torch.profiler.profile() as prof:
            for _ in range(steps):
                runs["aot"][0]()
        result["profile"] = prof.table(top=12)
    return result




def _geomean(xs):
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def _table(results, backends):
    out = []
    other = [b for b in backends if b not in ("eager", "aot")]
    head = "| model | mode | eager ms | aot ms | aot × eager |"
    rule = "|---|---|---|---|---|"
    for b in other:
        head += " %s ms | %s × eager |" % (b, b)
        rule += "---|---|"
    head += " aot first s |" + "".join(" %s first s |" % b for b in other) + " aot fallbacks |"
    rule += "---|" + "---|" * len(other) + "---|"
    out += [head, rule]
    for r in results:
        if "error" in r:
            out.append("| %s | %s | error: %s |" % (r["model"], r["mode"], r["error"][:80]))
            continue
        e = r["eager"]["step_s"]
        line = "| %s | %s | %.2f | %.2f | %.2f |" % (r["model"], r["mode"], e * 1e3, r["aot"]["step_s"] * 1e3,
                                                     e / r["aot"]["step_s"])
        for b in other:
            line += " %.2f | %.2f |" % (r[b]["step_s"] * 1e3, e / r[b]["step_s"])
        line += " %.2f |" % r["aot"]["first_s"] + "".join(" %.2f |" % r[b]["first_s"] for b in other)
        line += " %d |" % r["fallbacks"]
        out.append(line)
    out.append("")
    head = "| family | mode | models | aot × eager |" + "".join(" %s × eager |" % b for b in other)
    head += " aot first s |" + "".join(" %s first s |" % b for b in other)
    out += [head, "|---|---|---|---|" + "---|" * (2 * len(other) + 1)]
    ok = [r for r in results if "error" not in r]
    for mode in ("infer", "train"):
        for fam in FAMILIES + ("all",):
            rs = [r for r in ok if r["mode"] == mode and (fam == "all" or r["family"] == fam)]
            if not rs:
                continue
            line = "| %s | %s | %d | %.2f |" % ("**all**" if fam == "all" else fam, mode, len(rs),
                                                _geomean([r["eager"]["step_s"] / r["aot"]["step_s"] for r in rs]))
            for b in other:
                line += " %.2f |" % _geomean([r["eager"]["step_s"] / r[b]["step_s"] for r in rs])
            line += " %.2f |" % _geomean([r["aot"]["first_s"] for r in rs])
            for b in other:
                line += " %.2f |" % _geomean([r[b]["first_s"] for r in rs])
            out.append(line)
    return "\n".join(out)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", default="", help="comma-separated names (default: all)")
    ap.add_argument("--families", default="", help="comma-separated families (default: all)")
    ap.add_argument("--modes", default="infer,train")
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--no-inductor", action="store_true")
    ap.add_argument("--profile", action="store_true", help="print aot's per-kernel profile of each model")
    ap.add_argument("--timeout", type=float, default=1800, help="seconds per model and mode")
    ap.add_argument("--json", default="", help="also write the results to this file")
    ap.add_argument("--autocast", default="", choices=["", "bf16", "f16"],
                    help="run each forward and loss under torch.autocast(\"cpu\", dtype=...)")
    ap.add_argument("--one", default="", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    backends = ["eager", "aot"] + ([] if args.no_inductor else ["inductor"])
    if args.one:
        # A worker: one model in one mode, the result as one JSON line.
        os.environ.setdefault("TORCHINDUCTOR_FORCE_DISABLE_CACHES", "1")
        import torch
        torch._dynamo.config.cache_size_limit = 64
        name, mode = args.one.split(":")
        print("RESULT " + json.dumps(_measure(name, mode, args.steps, args.warmup, backends, args.profile,
                                                  args.autocast)))
        return 0
    names = [m for m in (args.models.split(",") if args.models else MODELS)
             if not args.families or MODELS[m][0] in args.families.split(",")]
    unknown = [m for m in names if m not in MODELS]
    if unknown:
        ap.error("unknown model(s): %s (known: %s)" % (", ".join(unknown), ", ".join(MODELS)))
    import torch
    print("CPU: %s, %d threads, torch %s, OMP_WAIT_POLICY=%s, backends %s%s" % (
        cpu_model(), torch.get_num_threads(), torch.__version__, os.environ.get("OMP_WAIT_POLICY", "(default)"),
        ", ".join(backends), ", autocast " + args.autocast if args.autocast else ""), flush=True)
    # Inductor compiles in the worker's own process: a pool of compile
    # workers would stay behind and compete for the cores being timed.
    env = dict(os.environ, TORCHINDUCTOR_COMPILE_THREADS="1", TORCHINDUCTOR_FORCE_DISABLE_CACHES="1")
    results = []
    for mode in args.modes.split(","):
        for name in names:
            cmd = [sys.executable, os.path.abspath(__file__), "--one", "%s:%s" % (name, mode),
                   "--steps", str(args.steps), "--warmup", str(args.warmup)]
            cmd += ["--no-inductor"] if args.no_inductor else []
            cmd += ["--profile"] if args.profile else []
            cmd += ["--autocast", args.autocast] if args.autocast else []
            t0 = time.perf_counter()
            try:
                p = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout, env=env)
                line = [x for x in p.stdout.splitlines() if x.startswith("RESULT ")]
                if line:
                    r = json.loads(line[-1][len("RESULT "):])
                else:
                    tail = (p.stderr.strip().splitlines() or ["exit %d" % p.returncode])[-1]
                    r = {"model": name, "family": MODELS[name][0], "mode": mode, "error": tail}
            except subprocess.TimeoutExpired:
                r = {"model": name, "family": MODELS[name][0], "mode": mode, "error": "timeout"}
            results.append(r)
            if "error" in r:
                print("  %-24s %-5s error: %s" % (name, mode, r["error"]), flush=True)
            else:
                print("  %-24s %-5s eager %8.2f ms  aot %8.2f ms (%.2fx, first %.1f s, %d fallbacks)%s  [%.0f s]" % (
                    name, mode, r["eager"]["step_s"] * 1e3, r["aot"]["step_s"] * 1e3,
                    r["eager"]["step_s"] / r["aot"]["step_s"], r["aot"]["first_s"], r["fallbacks"],
                    "" if "inductor" not in r else "  inductor %8.2f ms (%.2fx, first %.1f s)" % (
                        r["inductor"]["step_s"] * 1e3, r["eager"]["step_s"] / r["inductor"]["step_s"],
                        r["inductor"]["first_s"]), time.perf_counter() - t0), flush=True)
                if r.get("profile"):
                    print(r["profile"], flush=True)
    print()
    print(_table(results, backends))
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"cpu": cpu_model(), "threads": torch.get_num_threads(), "torch": torch.__version__,
                       "omp_wait_policy": os.environ.get("OMP_WAIT_POLICY", ""), "results": results}, fh, indent=1)
    return 0 if all("error" not in r for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
