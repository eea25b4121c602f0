"""What the benchmarks print about the machine they ran on."""

import platform


def cpu_model() -> str:
    """The CPU's model name (`/proc/cpuinfo`), else the platform's."""
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def run_line() -> str:
    """`CPU: <model>, <n> threads, torch <v>, aot_torch <v>`: the first line
    of the PyTorch benchmarks' output."""
    import aot_torch
    import torch

    return "CPU: %s, %d threads, torch %s, aot_torch %s" % (cpu_model(), torch.get_num_threads(), torch.__version__,
                                                            aot_torch.__version__)
