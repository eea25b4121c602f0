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
