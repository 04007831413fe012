"""What the ignition peers (ignition_cantera_cpu.py, ignition_canterax.py) print alike."""


def result_line(values):
    """RESULT k=v ...: times with 4 decimals, differences with 4 significant digits."""
    parts = []
    for k, v in values.items():
        if isinstance(v, float):
            v = f"{v:.4e}" if k.endswith("_max") else f"{v:.4f}"
        parts.append(f"{k}={v}")
    return "RESULT " + " ".join(parts)
