"""What every benchmark case is handed: where vaults live, the sizes and how many runs."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from vaults import facts_vault


@dataclass
class Ctx:
    work: Path  # vaults are generated here once and reused (run.py --work)
    sizes: list[int] = field(default_factory=lambda: [10_000, 100_000])
    runs: int = 5  # interleaved pairs per figure
    heavy_runs: int = 3  # for figures that take minutes a run

    def facts(self, n: int) -> Path:
        """The vault of n facts as mdmem writes them, generated on first use."""
        root = self.work / f"facts-{n}"
        if not (root / ".complete").exists():
            if root.exists():
                import shutil

                shutil.rmtree(root)
            facts_vault(root, n)
            (root / ".complete").write_text("")
        return root
